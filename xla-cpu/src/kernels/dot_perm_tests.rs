//! The fused `transpose(dot(a, b))` ([`super::dot_perm`]) against the dot kernel followed
//! by the transpose kernel, bit for bit, on seeded random inputs sprinkled with NaN, ±inf
//! and ±0, on one and two threads; and the rewrite that puts it in a module.

use super::contraction::dot;
use super::dot_perm::{call, encode, fusable, plan, TARGET};
use super::fast_tests::dd;
use super::structural::transpose;
use crate::parallel::{Parallel, Threads};
use num_complex::{Complex32, Complex64};
use xla_core::attrs::DotDims;
use xla_core::literal::ArrayData;
use xla_core::shape_inference::{contraction as infer, structural};
use xla_core::{Literal, PrimitiveType as P, Shape};

/// A small deterministic generator (64-bit LCG): values in [-1, 1), and about one in
/// eight a special value (NaN, ±inf, ±0).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let u = (self.0 >> 11) as f64 / (1u64 << 53) as f64;
        let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0];
        match (self.0 >> 3) % 64 {
            s @ 0..=4 => special[s as usize],
            _ => u * 2.0 - 1.0,
        }
    }
}

fn random(rng: &mut Rng, ty: P, dims: &[i64]) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let mut v = || rng.next();
    let l = match ty {
        P::F32 => Literal::from_vec(dims, (0..n).map(|_| v() as f32).collect()),
        P::F64 => Literal::from_vec(dims, (0..n).map(|_| v()).collect()),
        P::C64 => Literal::from_vec(
            dims,
            (0..n)
                .map(|_| Complex32::new(v() as f32, v() as f32))
                .collect(),
        ),
        _ => Literal::from_vec(dims, (0..n).map(|_| Complex64::new(v(), v())).collect()),
    };
    l.unwrap()
}

/// Every component's bits.
fn bits(l: &Literal) -> Vec<u64> {
    match l.array_data().unwrap() {
        ArrayData::F32(v) => v.iter().map(|x| x.to_bits() as u64).collect(),
        ArrayData::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
        ArrayData::C64(v) => v
            .iter()
            .flat_map(|c| [c.re.to_bits() as u64, c.im.to_bits() as u64])
            .collect(),
        ArrayData::C128(v) => v
            .iter()
            .flat_map(|c| [c.re.to_bits(), c.im.to_bits()])
            .collect(),
        other => panic!("unexpected {:?}", other.element_type()),
    }
}

/// (lhs dims, rhs dims, dimension numbers, permutation of the dot's result) with the
/// fused form.
#[allow(clippy::type_complexity)]
fn cases() -> Vec<(Vec<i64>, Vec<i64>, DotDims, Vec<i64>)> {
    vec![
        // shared data x batched weights (the vmapped ensemble's forward product)
        (
            vec![16, 24],
            vec![3, 24, 20],
            dd(&[], &[1], &[], &[1]),
            vec![1, 0, 2],
        ),
        // batched deltas^T x shared data (its weight gradient): blocks column-major
        (
            vec![3, 16, 20],
            vec![16, 24],
            dd(&[], &[1], &[], &[0]),
            vec![0, 2, 1],
        ),
        // a batch dim and an extra lhs free dim as loops
        (
            vec![2, 3, 18, 17],
            vec![2, 17, 19],
            dd(&[0], &[3], &[0], &[1]),
            vec![1, 0, 2, 3],
        ),
        // two contracting dims read as one
        (
            vec![3, 20, 4, 6],
            vec![4, 6, 22],
            dd(&[], &[2, 3], &[], &[0, 1]),
            vec![0, 2, 1],
        ),
        // lhs blocks column-major (m contiguous), loop dim between k and m
        (
            vec![24, 3, 16],
            vec![24, 20],
            dd(&[], &[0], &[], &[0]),
            vec![0, 2, 1],
        ),
        // rhs blocks column-major, the loop from the rhs
        (
            vec![17, 30],
            vec![2, 19, 30],
            dd(&[], &[1], &[], &[2]),
            vec![1, 0, 2],
        ),
        // large enough to split over threads (2^23 multiply-adds)
        (
            vec![4, 128, 128],
            vec![128, 130],
            dd(&[], &[1], &[], &[0]),
            vec![0, 2, 1],
        ),
    ]
}

fn seq() -> Parallel<'static> {
    Parallel::SEQ
}

#[test]
fn fused_matches_dot_then_transpose_bit_for_bit() {
    let two = Threads::new(2);
    let mut rng = Rng(11);
    let mut fused = 0;
    for ty in [P::F32, P::F64, P::C64, P::C128] {
        for (ld, rd, d, perm) in cases() {
            let (l, r) = (random(&mut rng, ty, &ld), random(&mut rng, ty, &rd));
            let dshape = infer::dot(l.shape(), r.shape(), &d, None).unwrap();
            let out = structural::transpose(&dshape, &perm).unwrap();
            let what = format!("{ty:?} {ld:?} x {rd:?} {d:?} then {perm:?}");
            let product = dot(&l, &r, &d, &dshape, seq()).unwrap();
            let want = transpose(&product, &perm, &out, seq()).unwrap();
            let p = plan(
                (&usizes(&ld), l.shape()),
                (&usizes(&rd), r.shape()),
                &d,
                &usizes(&perm),
            );
            if !fusable(ty, &p.unwrap()) {
                // complex with column-major blocks: the rewrite leaves the pair alone
                assert!(matches!(ty, P::C64 | P::C128), "{what}");
                continue;
            }
            fused += 1;
            let config = encode(&d, &perm);
            for par in [seq(), two.parallel()] {
                let got = call(TARGET, &[&l, &r], &config, &out, par)
                    .expect("the target is recognised")
                    .unwrap();
                assert_eq!(got.shape(), want.shape(), "{what}");
                let (g, w) = (bits(&got), bits(&want));
                let first = g.iter().zip(&w).position(|(a, b)| a != b);
                assert_eq!(first, None, "{what}: first differing component");
            }
        }
    }
    // every real case, and the complex cases with row-major blocks
    assert_eq!(fused, 2 * 7 + 2 * 3);
}

fn usizes(v: &[i64]) -> Vec<usize> {
    v.iter().map(|&x| x as usize).collect()
}

fn applies(ld: &[i64], rd: &[i64], d: &DotDims, perm: &[i64]) -> bool {
    let (ls, rs) = (
        Shape::array(P::F32, ld.to_vec()),
        Shape::array(P::F32, rd.to_vec()),
    );
    plan((&usizes(ld), &ls), (&usizes(rd), &rs), d, &usizes(perm)).is_some()
}

#[test]
fn other_pairs_keep_the_dot_and_the_transpose() {
    let d = dd(&[], &[1], &[], &[1]);
    assert!(applies(&[16, 24], &[3, 24, 20], &d, &[1, 0, 2]));
    // the lane innermost: no m x n block
    assert!(!applies(&[16, 24], &[3, 24, 20], &d, &[0, 2, 1]));
    // blocks of fewer than 16^3 multiply-adds (faer's small-product path)
    assert!(!applies(&[8, 24], &[3, 24, 20], &d, &[1, 0, 2]));
    // a matrix-vector block (n = 1)
    assert!(!applies(&[160, 24], &[3, 24, 1], &d, &[1, 0, 2]));
    // contracting dims that do not read as one strided dim
    let split = dd(&[], &[1, 3], &[], &[0, 1]);
    assert!(!applies(&[3, 20, 8, 6], &[6, 8, 22], &split, &[0, 2, 1]));
    // not a permutation
    assert!(!applies(&[16, 24], &[3, 24, 20], &d, &[1, 1, 2]));
}

#[test]
fn bad_configuration_is_an_error() {
    let l = Literal::from_vec(&[16, 24], vec![1.0f32; 16 * 24]).unwrap();
    let r = Literal::from_vec(&[3, 24, 20], vec![1.0f32; 3 * 24 * 20]).unwrap();
    let out = Shape::array(P::F32, vec![3, 16, 20]);
    let run = |config: &str, out: &Shape| call(TARGET, &[&l, &r], config, out, seq()).unwrap();
    let good = encode(&dd(&[], &[1], &[], &[1]), &[1, 0, 2]);
    assert!(run(&good, &out).is_ok());
    let err = run("lhs_batch=x", &out).unwrap_err().to_string();
    assert!(err.contains("unreadable configuration"), "{err}");
    let wrong = Shape::array(P::F32, vec![3, 16, 21]);
    let err = run(&good, &wrong).unwrap_err().to_string();
    assert!(err.contains("do not hold the product"), "{err}");
    let lane_last = encode(&dd(&[], &[1], &[], &[1]), &[0, 2, 1]);
    let err = run(&lane_last, &out).unwrap_err().to_string();
    assert!(err.contains("fused form"), "{err}");
    assert!(call("other", &[&l, &r], &good, &out, seq()).is_none());
}

/// The module-level path: the rewrite turns the pair into the custom-call, and the module
/// computes what the dot and transpose kernels compute.
#[test]
fn rewritten_module_runs_the_fused_product() {
    let text = "HloModule m, entry_computation_layout={(f32[16,24]{1,0}, f32[3,24,20]{2,1,0})->f32[3,16,20]{2,1,0}}

ENTRY main {
  x = f32[16,24]{1,0} parameter(0)
  w = f32[3,24,20]{2,1,0} parameter(1)
  d = f32[16,3,20]{2,1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT t = f32[3,16,20]{2,1,0} transpose(d), dimensions={1,0,2}
}
";
    let mut module = xla_core::text::parse_module(text).unwrap();
    crate::rewrite::simplify(&mut module);
    let entry = &module.computations[module.entry.0];
    let root = &entry.instructions[entry.root.0];
    assert!(
        matches!(&root.op, xla_core::ir::Op::CustomCall { config, .. } if config.target == TARGET),
        "{:?}",
        root.op
    );
    let exe = crate::Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap();
    let mut rng = Rng(5);
    let (l, r) = (
        random(&mut rng, P::F32, &[16, 24]),
        random(&mut rng, P::F32, &[3, 24, 20]),
    );
    let got = exe.execute(&[l.clone(), r.clone()]).unwrap();
    let d = dd(&[], &[1], &[], &[1]);
    let dshape = infer::dot(l.shape(), r.shape(), &d, None).unwrap();
    let product = dot(&l, &r, &d, &dshape, seq()).unwrap();
    let want = transpose(&product, &[1, 0, 2], got.shape(), seq()).unwrap();
    assert_eq!(bits(&got), bits(&want));
}
