//! The batching transform's API: typed errors, values that stay unbatched, loops that
//! keep their unbatched predicate, grad of vmap against JAX, and the rules without a JAX
//! fixture (collectives, batched init values and padding values, batch-norm, map, top-k,
//! variadic sort and reduce) checked lane by lane against the unbatched module.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use xla_autodiff::{batch_size, grad_module, vmap_module, VmapError};
use xla_core::builder::{Combiner, XlaBuilder};
use xla_core::{Literal, Module, Op, PrimitiveType::F32, Shape};

const ADD: &str = "add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] add(a, b) }\nmax { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] maximum(a, b) }\nge { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = pred[] compare(a, b), direction=GE }\nlt2 { a = f32[] parameter(0)  b = f32[] parameter(1) c = f32[] parameter(2)  d = f32[] parameter(3) ROOT r = pred[] compare(a, b), direction=LT }\nargmax { a = f32[] parameter(0)  i = s32[] parameter(1) b = f32[] parameter(2)  j = s32[] parameter(3) g = pred[] compare(a, b), direction=GE m = f32[] select(g, a, b) k = s32[] select(g, i, j) ROOT r = (f32[], s32[]) tuple(m, k) }\n";

fn module(body: &str) -> Module {
    let text = format!("HloModule m\n{ADD}\nENTRY main {{\n{body}\n}}\n");
    xla_core::text::parse_module(&text).unwrap()
}

fn run(m: &Module, args: &[Literal]) -> Vec<Vec<f64>> {
    xla_core::verify::verify_module(m).unwrap();
    let out = xla_cpu::Executable::compile(m)
        .unwrap()
        .execute(args)
        .unwrap();
    let mut leaves = Vec::new();
    flatten(&out, &mut leaves);
    leaves
}

fn flatten(l: &Literal, out: &mut Vec<Vec<f64>>) {
    match l.tuple_elements() {
        Some(t) => t.iter().for_each(|e| flatten(e, out)),
        None => {
            let d = l.array_data().unwrap();
            let v = match d {
                xla_core::literal::ArrayData::S32(v) => v.iter().map(|&x| x as f64).collect(),
                _ => l
                    .to_vec::<f32>()
                    .unwrap()
                    .iter()
                    .map(|&x| x as f64)
                    .collect(),
            };
            out.push(v)
        }
    }
}

/// Deterministic values for an f32 array of `dims` (lane `k`).
fn values(dims: &[i64], k: usize, salt: usize) -> Vec<f32> {
    let n: i64 = dims.iter().product();
    (0..n as usize)
        .map(|i| (((i * 7 + k * 13 + salt * 5) % 17) as f32 - 8.0) / 4.0)
        .collect()
}

/// Batches `m` (every parameter f32; `batched[i]` says whether parameter i is batched at
/// dimension 0), runs it on 3 lanes and compares each lane with the unbatched module.
fn lanes_match(m: &Module, batched: &[bool]) {
    const N: usize = 3;
    let shapes = m.entry_computation().unwrap().parameter_shapes();
    let in_axes: Vec<Option<usize>> = batched.iter().map(|&b| b.then_some(0)).collect();
    let bm = vmap_module(m, &in_axes, &[Some(0)], N as i64).unwrap();
    let lit = |v: Vec<f32>, dims: &[i64]| Literal::vec1(&v).reshape(dims).unwrap();
    let mut big = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        if batched[i] {
            let all: Vec<f32> = (0..N).flat_map(|k| values(s.dims(), k, i)).collect();
            let mut dims = vec![N as i64];
            dims.extend_from_slice(s.dims());
            big.push(lit(all, &dims));
        } else {
            big.push(lit(values(s.dims(), 0, i), s.dims()));
        }
    }
    let got = run(&bm, &big);
    for k in 0..N {
        let args: Vec<Literal> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| {
                lit(
                    values(s.dims(), if batched[i] { k } else { 0 }, i),
                    s.dims(),
                )
            })
            .collect();
        let want = run(m, &args);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            let lane = &g[k * w.len()..(k + 1) * w.len()];
            for (a, b) in lane.iter().zip(w) {
                assert!(
                    (a - b).abs() <= 1e-5 + 1e-5 * b.abs(),
                    "lane {k}: {lane:?} vs {w:?}"
                );
            }
        }
    }
}

#[test]
fn typed_errors_say_what_is_wrong() {
    let m = module(
        "x = f32[3] parameter(0)\ny = f32[2] parameter(1)\nROOT t = (f32[3], f32[2]) tuple(x, y)",
    );
    let e = vmap_module(&m, &[Some(0)], &[Some(0)], 4).unwrap_err();
    assert!(
        matches!(
            e,
            VmapError::InAxesLength {
                given: 1,
                params: 2
            }
        ),
        "{e}"
    );
    let e = vmap_module(&m, &[Some(2), None], &[Some(0)], 4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "vmap: in_axes[0] = 2 is out of range for parameter 0 of shape f32[3] (rank 1)"
    );
    let e = vmap_module(&m, &[Some(0), None], &[Some(0)], 0).unwrap_err();
    assert!(matches!(e, VmapError::BadSize { size: 0 }), "{e}");
    let e = vmap_module(&m, &[Some(0), None], &[Some(0), Some(0), Some(0)], 4).unwrap_err();
    assert!(
        matches!(
            e,
            VmapError::OutAxesLength {
                given: 3,
                results: 2
            }
        ),
        "{e}"
    );
    let e = vmap_module(&m, &[Some(0), None], &[None, None], 4).unwrap_err();
    assert!(matches!(e, VmapError::OutNotUnbatched { result: 0 }), "{e}");
    let e = vmap_module(&m, &[Some(0), None], &[Some(0), Some(2)], 4).unwrap_err();
    assert!(
        matches!(
            e,
            VmapError::OutAxisOutOfRange {
                result: 1,
                axis: 2,
                ..
            }
        ),
        "{e}"
    );
    // an unbatched result may stay unbatched
    let ok = vmap_module(&m, &[Some(0), None], &[Some(1), None], 4).unwrap();
    let r = ok
        .entry_computation()
        .unwrap()
        .result_shape()
        .unwrap()
        .clone();
    assert_eq!(
        r,
        Shape::tuple(vec![Shape::array(F32, [3, 4]), Shape::array(F32, [2])])
    );
}

#[test]
fn a_custom_call_is_named() {
    let m = module(
        "x = f32[3] parameter(0)\nROOT c = f32[3] custom-call(x), custom_call_target=\"my_kernel\"",
    );
    let e = vmap_module(&m, &[Some(0)], &[Some(0)], 2).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("`c") && msg.contains("custom-call") && msg.contains("\"my_kernel\""),
        "{msg}"
    );
    // unbatched, it is copied as it is
    assert!(vmap_module(&m, &[None], &[None], 2).is_ok());
}

#[test]
fn batch_size_checks_the_inputs() {
    let s = |d: &[i64]| Shape::array(F32, d.to_vec());
    assert_eq!(
        batch_size(&[s(&[5, 3]), s(&[2, 5])], &[Some(0), Some(1)], None),
        Ok(5)
    );
    let e = batch_size(&[s(&[5, 3]), s(&[2, 4])], &[Some(0), Some(1)], None).unwrap_err();
    assert_eq!(e.to_string(), "vmap: batch sizes differ: parameter 0 has size 5 on its batch axis but parameter 1 has size 4");
    assert!(matches!(
        batch_size(&[s(&[5])], &[Some(0)], Some(4)),
        Err(VmapError::SizeConflict { .. })
    ));
    assert!(matches!(
        batch_size(&[s(&[5])], &[None], None),
        Err(VmapError::NoBatchSize)
    ));
    assert_eq!(batch_size(&[s(&[5])], &[None], Some(7)), Ok(7));
    assert!(matches!(
        batch_size(&[s(&[5])], &[Some(1)], None),
        Err(VmapError::InAxisOutOfRange { .. })
    ));
}

#[test]
fn unbatched_values_stay_unbatched() {
    let m = module("x = f32[4] parameter(0)\nw = f32[4] parameter(1)\nt = f32[4] tanh(w)\nROOT s = f32[4] add(x, t)");
    let bm = vmap_module(&m, &[Some(0), None], &[Some(0)], 8).unwrap();
    let e = bm.entry_computation().unwrap();
    let tanh = e
        .instructions
        .iter()
        .find(|i| i.op.name() == "tanh")
        .unwrap();
    assert_eq!(
        tanh.shape,
        Shape::array(F32, [4]),
        "tanh(w) is computed once"
    );
    lanes_match(&m, &[true, false]);
}

#[test]
fn a_shared_broadcast_meets_the_batch_as_one_broadcast() {
    // ReLU's zeros, a scale and a bias broadcast in two steps, all shared: each is
    // broadcast once from its source (never a broadcast of a broadcast, which the
    // executor would materialise), with the composed dimensions.
    let m = module(concat!(
        "x = f32[2,3,4] parameter(0)\nw = f32[3] parameter(1)\n",
        "c = f32[] constant(0.5)\ncb = f32[3,4] broadcast(c), dimensions={}\n",
        "cbb = f32[2,3,4] broadcast(cb), dimensions={1,2}\n",
        "wb = f32[3,4] broadcast(w), dimensions={0}\nwbb = f32[2,3,4] broadcast(wb), dimensions={1,2}\n",
        "m = f32[2,3,4] multiply(x, cbb)\na = f32[2,3,4] add(m, wbb)\n",
        "g = pred[2,3,4] compare(a, cbb), direction=GT\nROOT s = f32[2,3,4] select(g, a, wbb)"
    ));
    let bm = vmap_module(&m, &[Some(0), None], &[Some(0)], 3).unwrap();
    let e = bm.entry_computation().unwrap();
    let op_of = |id: xla_core::InstrId| &e.get(id).unwrap().op;
    let mut spread = Vec::new();
    for ins in &e.instructions {
        if matches!(ins.op, Op::Broadcast { .. }) {
            continue;
        }
        for &o in &ins.operands {
            let o_ins = e.get(o).unwrap();
            if let Op::Broadcast { dimensions } = &o_ins.op {
                let src = o_ins.operands[0];
                assert!(
                    !matches!(op_of(src), Op::Broadcast { .. }),
                    "`{}` reads a broadcast of a broadcast",
                    ins.name
                );
                spread.push((o_ins.shape.dims().to_vec(), dimensions.clone()));
            }
        }
    }
    assert!(spread.contains(&(vec![3, 2, 3, 4], vec![])), "{spread:?}");
    assert!(spread.contains(&(vec![3, 2, 3, 4], vec![2])), "{spread:?}");
    lanes_match(&m, &[true, false]);
}

#[test]
fn a_loop_with_an_unbatched_counter_keeps_its_predicate() {
    let text = concat!(
        "HloModule m\n",
        "cond { s = (s32[], f32[2]) parameter(0) i = s32[] get-tuple-element(s), index=0 k = s32[] constant(4) ROOT c = pred[] compare(i, k), direction=LT }\n",
        "body { s = (s32[], f32[2]) parameter(0) i = s32[] get-tuple-element(s), index=0 v = f32[2] get-tuple-element(s), index=1 one = s32[] constant(1) j = s32[] add(i, one) h = f32[] constant(0.5) hb = f32[2] broadcast(h), dimensions={} u = f32[2] multiply(v, hb) ROOT t = (s32[], f32[2]) tuple(j, u) }\n",
        "ENTRY main { x = f32[2] parameter(0) z = s32[] constant(0) init = (s32[], f32[2]) tuple(z, x)\n",
        "ROOT w = (s32[], f32[2]) while(init), condition=cond, body=body }\n"
    );
    let m = xla_core::text::parse_module(text).unwrap();
    let bm = vmap_module(&m, &[Some(0)], &[Some(0)], 3).unwrap();
    let w = bm
        .entry_computation()
        .unwrap()
        .instructions
        .iter()
        .find(|i| i.op.name() == "while")
        .unwrap();
    assert_eq!(
        w.shape,
        Shape::tuple(vec![
            Shape::scalar(xla_core::PrimitiveType::S32),
            Shape::array(F32, [3, 2])
        ])
    );
    lanes_match(&m, &[true]);
}

#[test]
fn rules_without_a_jax_fixture_match_lane_by_lane() {
    let cases: &[(&str, &[bool])] = &[
        // batched init value of reduce and reduce-window (per lane), batched padding value
        ("x = f32[4,3] parameter(0)\ni = f32[] parameter(1)\nROOT r = f32[4] reduce(x, i), dimensions={1}, to_apply=add", &[true, true]),
        ("x = f32[4,6] parameter(0)\ni = f32[] parameter(1)\nROOT r = f32[2,3] reduce-window(x, i), window={size=2x2 stride=2x2}, to_apply=max", &[true, true]),
        ("x = f32[4] parameter(0)\ni = f32[] parameter(1)\nROOT r = f32[10] pad(x, i), padding=1_2_1", &[false, true]),
        // select-and-scatter with a batched source only
        ("x = f32[4,4] parameter(0)\ns = f32[2,2] parameter(1)\nz = f32[] constant(0)\nROOT r = f32[4,4] select-and-scatter(x, s, z), window={size=2x2 stride=2x2}, select=ge, scatter=add", &[false, true]),
        // collectives on one replica
        ("x = f32[4,3] parameter(0)\nROOT r = f32[4,3] all-reduce(x), replica_groups={}, to_apply=add", &[true]),
        ("x = f32[4,3] parameter(0)\nROOT r = f32[4,3] all-gather(x), replica_groups={}, dimensions={1}", &[true]),
        ("x = f32[4,3] parameter(0)\nROOT r = f32[4,3] all-to-all(x), replica_groups={}, dimensions={0}", &[true]),
        ("x = f32[4,3] parameter(0)\nROOT r = f32[4,3] collective-permute(x), source_target_pairs={{0,0}}", &[true]),
        // batch-norm: inference shifts its feature index; training runs per lane
        ("x = f32[4,3] parameter(0)\ns = f32[3] parameter(1)\no = f32[3] parameter(2)\nm = f32[3] parameter(3)\nv = f32[3] parameter(4)\na = f32[3] abs(v)\nROOT r = f32[4,3] batch-norm-inference(x, s, o, m, a), epsilon=0.001, feature_index=1", &[true, false, false, false, false]),
        ("x = f32[4,3] parameter(0)\ns = f32[3] parameter(1)\no = f32[3] parameter(2)\nROOT r = (f32[4,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1", &[true, false, true]),
        // map, top-k, variadic sort, argmax-style variadic reduce
        ("x = f32[5] parameter(0)\ny = f32[5] parameter(1)\nROOT r = f32[5] map(x, y), dimensions={0}, to_apply=max", &[true, false]),
        ("x = f32[2,5] parameter(0)\nROOT r = (f32[2,2], s32[2,2]) topk(x), k=2, largest=true", &[true]),
        ("x = f32[5] parameter(0)\ny = f32[5] parameter(1)\nROOT r = (f32[5], f32[5]) sort(x, y), dimensions={0}, to_apply=lt2", &[true, false]),
        ("x = f32[3,5] parameter(0)\ni = s32[3,5] iota(), iota_dimension=1\nm = f32[] constant(-inf)\nz = s32[] constant(0)\nROOT r = (f32[3], s32[3]) reduce(x, i, m, z), dimensions={1}, to_apply=argmax", &[true]),
        // scatter with only the operand, or only the updates, batched; gather, operand only
        (
            "x = f32[5] parameter(0)\nu = f32[2] parameter(1)\ni = s32[2,1] constant({{1},{3}})\nROOT r = f32[5] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
            &[true, false],
        ),
        (
            "x = f32[5] parameter(0)\nu = f32[2] parameter(1)\ni = s32[2,1] constant({{1},{3}})\nROOT r = f32[5] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add",
            &[false, true],
        ),
        (
            "x = f32[5,3] parameter(0)\ni = s32[2,1] constant({{4},{0}})\nROOT g = f32[2,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}",
            &[true],
        ),
        // a batch-grouped convolution with only the input batched
        (
            "x = f32[4,2,5,5] parameter(0)\nk = f32[4,2,3,3] parameter(1)\nROOT c = f32[2,4,3,3] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01, batch_group_count=2",
            &[true, false],
        ),
        // dynamic-slice of a rank-0 operand
        ("x = f32[] parameter(0)\nROOT r = f32[] dynamic-slice(x), dynamic_slice_sizes={}", &[true]),
    ];
    for (body, batched) in cases {
        lanes_match(&module(body), batched);
    }
}

#[test]
fn grad_of_vmap_is_the_sum_of_per_example_gradients() {
    // jax.grad(lambda p: sum(jax.vmap(loss)(p, xs, ys))) == sum over examples of
    // jax.vmap(jax.grad(loss))(...), the fixture's outputs.
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/vmap/mlp_per_example_grad");
    let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
    let loss = xla_core::text::parse_module(&text).unwrap();
    let axes = [None, None, None, None, Some(0), Some(0)];
    let losses = vmap_module(&loss, &axes, &[Some(0)], 5).unwrap();
    let shapes = losses.entry_computation().unwrap().parameter_shapes();
    let b = XlaBuilder::new("total");
    let ps: Vec<_> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| b.parameter(i as i64, s.clone(), "p"))
        .collect();
    let f = b.import_computation(&losses, losses.entry).unwrap();
    let per = b.call(&ps, &f);
    let total = b.reduce(per, b.constant_r0(0.0f32), &[0], Combiner::Add);
    let total = b.build_with_root(&total).unwrap();
    let g = grad_module(&total, Some(&[0, 1, 2, 3])).unwrap();
    let args: Vec<Literal> = (0..6)
        .map(|i| Literal::read_npy(dir.join(format!("in{i}.npy"))).unwrap())
        .collect();
    let got = run(&g, &args);
    for (k, gk) in got.iter().enumerate() {
        let per_example = Literal::read_npy(dir.join(format!("out{k}.npy"))).unwrap();
        let v = per_example.data::<f32>().unwrap();
        let n = gk.len();
        let want: Vec<f64> = (0..n)
            .map(|j| (0..5).map(|e| v[e * n + j] as f64).sum())
            .collect();
        for (a, w) in gk.iter().zip(&want) {
            assert!(
                (a - w).abs() <= 1e-5 + 1e-4 * w.abs(),
                "grad {k}: {a} vs {w}"
            );
        }
    }
    assert!(!g.computations.iter().any(|c| c
        .instructions
        .iter()
        .any(|i| matches!(i.op, Op::CustomCall { .. }))));
}

#[test]
fn rng_with_batched_bounds_draws_within_each_lanes_bounds() {
    // JAX has no batching rule for `rng` (lax.rng_uniform): what is deterministic is the
    // shape and that lane i draws in [lo_i, hi_i); lane i's bounds, not lane 0's, are used.
    let m = module("lo = f32[] parameter(0)\nhi = f32[] parameter(1)\nROOT r = f32[64] rng(lo, hi), distribution=rng_uniform");
    let batched = vmap_module(&m, &[Some(0), None], &[Some(0)], 3).unwrap();
    let r = batched.entry_computation().unwrap().result_shape().unwrap();
    assert_eq!(r, &Shape::array(F32, [3, 64]));
    let los = [0.0f32, 10.0, -5.0];
    let got = run(&batched, &[Literal::vec1(&los), Literal::scalar(20.0f32)]);
    for (i, lane) in got[0].chunks(64).enumerate() {
        let lo = los[i] as f64;
        assert!(
            lane.iter().all(|&v| v >= lo && v < 20.0),
            "lane {i}: {lane:?}"
        );
        // not one repeated value: the lane draws
        assert!(lane.iter().any(|&v| v != lane[0]), "lane {i}: {lane:?}");
    }
    // lane 1's values all lie above 10, which lane 0's bounds alone would not give
    assert!(got[0][64..128].iter().all(|&v| v >= 10.0));
}
