//! Random modules made with the builder: a pool of `f32[4,6]` values, each step combining
//! some of them through one op family (many with called computations: reduce, sort, while,
//! conditional, map, select-and-scatter, scatter, call) and bringing the result back to
//! `f32[4,6]` so that every step is valid.

use xla_core::attrs::{ConvDimensionNumbers, DotDims, GatherDims, ScatterDims};
use xla_core::builder::{binary, nary, unary, Combiner, ConvOptions, Padding, XlaBuilder, XlaOp};
use xla_core::types::PrimitiveType::F32;
use xla_core::{Literal, Module, Shape};

/// One step: the op family, two pool indices and a seed for the attributes.
pub type Step = (u8, usize, usize, u64);

const ROWS: i64 = 4;
const COLS: i64 = 6;

/// Builds the module of `steps` over `params` parameters of shape `f32[4,6]`.
pub fn build(params: usize, steps: &[Step]) -> Module {
    let b = XlaBuilder::new("main");
    let mat = Shape::array(F32, [ROWS, COLS]);
    let mut pool: Vec<XlaOp> = (0..params)
        .map(|i| b.parameter(i as i64, mat.clone(), &format!("p{i}")))
        .collect();
    for &(kind, i, j, seed) in steps {
        let x = pool[i % pool.len()].clone();
        let y = pool[j % pool.len()].clone();
        pool.push(step(&b, kind, &x, &y, seed));
    }
    let tail: Vec<XlaOp> = pool.iter().rev().take(3).cloned().collect();
    let root = b.tuple(tail);
    match b.build_with_root(&root) {
        Ok(m) => m,
        Err(e) => panic!("builder rejected a generated module: {e}"),
    }
}

fn step(b: &XlaBuilder, kind: u8, x: &XlaOp, y: &XlaOp, seed: u64) -> XlaOp {
    match kind % 16 {
        0 => {
            let ops: [fn(&XlaOp) -> XlaOp; 4] = [XlaOp::exp, XlaOp::tanh, XlaOp::floor, XlaOp::abs];
            ops[(seed % 4) as usize](x)
        }
        1 => [b.add(x, y), b.mul(x, y), b.max(x, y), b.sub(x, y)][(seed % 4) as usize].clone(),
        2 => {
            let c =
                [Combiner::Add, Combiner::Max, Combiner::Min, Combiner::Mul][(seed % 4) as usize];
            let r = b.reduce(x, b.constant_r0(0.0f32), &[1], c);
            b.broadcast_in_dim(&r, &[ROWS, COLS], &[0])
        }
        3 => {
            let padding = if seed.is_multiple_of(2) {
                Padding::Same
            } else {
                Padding::Valid
            };
            let w = b.reduce_window(
                x,
                b.constant_r0(f32::NEG_INFINITY),
                &[1, 1],
                &[1, 1],
                padding,
                Combiner::Max,
            );
            b.add(&w, y)
        }
        4 => {
            let dim = (seed % 2) as i64;
            let stable = seed.is_multiple_of(3);
            let sorted = b.sort(
                [x, y],
                dim,
                stable,
                nary(|sb, ps| sb.lt_total_order(&ps[0], &ps[1])),
            );
            let keys = b.get_tuple_element(&sorted, 0);
            let _ = b.get_tuple_element(&sorted, 1);
            keys
        }
        5 => {
            let init = b.tuple([b.constant_r0(0i32), x.clone()]);
            let limit = (seed % 4) as i32;
            let cond =
                unary(move |sb, s| sb.lt(sb.get_tuple_element(&s, 0), sb.constant_r0(limit)));
            let body = unary(|sb, s| {
                let (i, v) = (sb.get_tuple_element(&s, 0), sb.get_tuple_element(&s, 1));
                sb.tuple([
                    sb.add(&i, sb.constant_r0(1i32)),
                    sb.mul(&v, sb.constant_r0(0.5f32)),
                ])
            });
            b.get_tuple_element(b.while_loop(&init, cond, body), 1)
        }
        6 => {
            let total = b.reduce(x, b.constant_r0(0.0f32), &[0, 1], Combiner::Add);
            let pred = b.lt(&total, b.constant_r0(seed as f32 / 7.0));
            b.conditional(
                &pred,
                x,
                unary(|sb, v| sb.neg(&v)),
                y,
                unary(|sb, v| sb.exp(&v)),
            )
        }
        7 => b.map(
            [x, y],
            &[0, 1],
            binary(|sb, a, c| sb.add(sb.mul(&a, &c), &a)),
        ),
        8 => {
            let source = b.reduce_window(
                x,
                b.constant_r0(0.0f32),
                &[2, 2],
                &[2, 2],
                Padding::Valid,
                Combiner::Add,
            );
            let select = binary(|sb, a, c| sb.ge(a, c));
            b.select_and_scatter(
                x,
                &[2, 2],
                &[2, 2],
                Padding::Valid,
                &source,
                b.constant_r0(0.0f32),
                select,
                Combiner::Add,
            )
        }
        9 => {
            let dims = |lc: i64, rc: i64| DotDims {
                lhs_contracting_dims: vec![lc],
                rhs_contracting_dims: vec![rc],
                ..Default::default()
            };
            let gram = b.dot_general(x, y, &dims(1, 1)); // [4,4]
            b.dot_general(&gram, y, &dims(1, 0)) // [4,6]
        }
        10 => {
            let img = b.reshape(x, &[1, 1, ROWS, COLS]);
            let k =
                Literal::from_vec(&[1, 1, 3, 3], (0..9).map(|v| v as f32 / 8.0).collect()).unwrap();
            let options = ConvOptions::new()
                .strides(&[1, 1])
                .padding(&[(1, 1), (1 + (seed % 2) as i64, 1 - (seed % 2) as i64)])
                .dimension_numbers(ConvDimensionNumbers::nchw(2));
            let conv = b.conv_general_dilated(&img, b.constant(&k), &options);
            b.reshape(&conv, &[ROWS, COLS])
        }
        11 => {
            let rows: Vec<i32> = (0..ROWS as i32)
                .map(|r| (r + seed as i32 % 4).rem_euclid(ROWS as i32))
                .collect();
            let idx = b.reshape(b.constant_r1(&rows), &[ROWS, 1]);
            let dims = GatherDims {
                offset_dims: vec![1],
                collapsed_slice_dims: vec![0],
                start_index_map: vec![0],
                index_vector_dim: 1,
                slice_sizes: vec![1, COLS],
                ..Default::default()
            };
            b.gather(x, &idx, &dims)
        }
        12 => {
            let idx = b.reshape(b.constant_r1(&[3i32, 0, 3, 1]), &[ROWS, 1]);
            let dims = ScatterDims {
                update_window_dims: vec![1],
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                index_vector_dim: 1,
                indices_are_sorted: seed.is_multiple_of(2),
                ..Default::default()
            };
            b.scatter(x, &idx, y, &dims, Combiner::Add)
        }
        13 => {
            let padded = b.pad(
                x,
                b.constant_r0(1.5f32),
                &[(1, 0, 1), (0, 2, 0)].map(|(l, h, i)| xla_core::attrs::PadDim {
                    low: l,
                    high: h,
                    interior: i,
                }),
            );
            // padded is [8, 8]; take every other row from 1, and the first 6 columns.
            b.slice(&padded, &[1, 0], &[8, COLS], &[2, 1])
        }
        14 => {
            let t = b.transpose(x, &[1, 0]);
            b.reshape(&t, &[ROWS, COLS])
        }
        _ => {
            let c = b.call(
                [x, y],
                binary(|sb, a, c| sb.clamp(sb.constant_r0(-1.0f32), a, c)),
            );
            let start = b.constant_r0((seed % 3) as i32);
            let part = b.dynamic_slice(y, [start.clone(), start.clone()], &[2, 3]);
            b.dynamic_update_slice(&c, &part, [start.clone(), start])
        }
    }
}
