//! While, conditional (pred and index forms, out-of-range index), call, map, sort, topk.

use super::{elem, run, vals};
use xla_core::Literal;

#[test]
fn while_loop_counts() {
    let hlo = "HloModule t\ncond {\n  s = (s32[], f32[]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(10)\n  ROOT c = pred[] compare(i, n), direction=LT\n}\nbody {\n  s = (s32[], f32[]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  x = f32[] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  f = f32[] convert(i)\n  y = f32[] add(x, f)\n  ROOT t = (s32[], f32[]) tuple(j, y)\n}\nENTRY e {\n  z = s32[] constant(0)\n  x = f32[] parameter(0)\n  t = (s32[], f32[]) tuple(z, x)\n  ROOT w = (s32[], f32[]) while(t), condition=cond, body=body\n}\n";
    let r = run(hlo, &[Literal::scalar(0.5f32)]).unwrap();
    assert_eq!(vals::<i32>(&elem(&r, 0)), [10]);
    assert_eq!(vals::<f32>(&elem(&r, 1)), [45.5]);
}

const BRANCHES: &str = "b0 {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(x)\n}\nb1 {\n  x = f32[] parameter(0)\n  ROOT r = f32[] add(x, x)\n}\nb2 {\n  x = f32[] parameter(0)\n  ROOT r = f32[] multiply(x, x)\n}\n";

#[test]
fn conditional_index_out_of_range_runs_the_last_branch() {
    let hlo = format!("HloModule t\n{BRANCHES}ENTRY e {{\n  i = s32[] parameter(0)\n  x = f32[] parameter(1)\n  ROOT c = f32[] conditional(i, x, x, x), branch_computations={{b0, b1, b2}}\n}}\n");
    for (i, want) in [
        (0, -3f32),
        (1, 6.),
        (2, 9.),
        (3, 9.),
        (-1, 9.),
        (i32::MIN, 9.),
    ] {
        let got: Vec<f32> = vals(&run(&hlo, &[Literal::scalar(i), Literal::scalar(3f32)]).unwrap());
        assert_eq!(got, [want], "index {i}");
    }
    let hlo = format!("HloModule t\n{BRANCHES}ENTRY e {{\n  p = pred[] parameter(0)\n  x = f32[] parameter(1)\n  ROOT c = f32[] conditional(p, x, x), true_computation=b0, false_computation=b2\n}}\n");
    assert_eq!(
        vals::<f32>(&run(&hlo, &[Literal::scalar(true), Literal::scalar(3f32)]).unwrap()),
        [-3.]
    );
    assert_eq!(
        vals::<f32>(&run(&hlo, &[Literal::scalar(false), Literal::scalar(3f32)]).unwrap()),
        [9.]
    );
}

#[test]
fn call_and_map() {
    let hlo = "HloModule t\nf {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  m = f32[] multiply(a, b)\n  ROOT s = f32[] add(m, a)\n}\nh {\n  a = f32[3] parameter(0)\n  b = f32[3] parameter(1)\n  ROOT m = f32[3] map(a, b), dimensions={0}, to_apply=f\n}\nENTRY e {\n  x = f32[3] parameter(0)\n  y = f32[3] parameter(1)\n  ROOT c = f32[3] call(x, y), to_apply=h\n}\n";
    let got: Vec<f32> = vals(
        &run(
            hlo,
            &[
                Literal::vec1(&[1f32, 2., 3.]),
                Literal::vec1(&[4f32, 5., 6.]),
            ],
        )
        .unwrap(),
    );
    assert_eq!(got, [5., 12., 21.]);
}

#[test]
fn sort_multi_operand_stable_any_dimension() {
    let cmp = "cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=LT\n}\n";
    let hlo = format!("HloModule t\n{cmp}ENTRY e {{\n  k = f32[2,3] parameter(0)\n  v = s32[2,3] parameter(1)\n  ROOT s = (f32[2,3], s32[2,3]) sort(k, v), dimensions={{0}}, is_stable=true, to_apply=cmp\n}}\n");
    let k = Literal::from_vec(&[2, 3], vec![2f32, 1., 5., 1., 1., 4.]).unwrap();
    let v = Literal::from_vec(&[2, 3], vec![0i32, 1, 2, 3, 4, 5]).unwrap();
    let r = run(&hlo, &[k, v]).unwrap();
    assert_eq!(vals::<f32>(&elem(&r, 0)), [1., 1., 4., 2., 1., 5.]);
    assert_eq!(vals::<i32>(&elem(&r, 1)), [3, 1, 5, 0, 4, 2]);
}

#[test]
fn sort_total_order_puts_nan_last_and_keeps_zero_order() {
    let cmp = "cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n";
    let hlo = format!("HloModule t\n{cmp}ENTRY e {{\n  k = f32[5] parameter(0)\n  ROOT s = f32[5] sort(k), dimensions={{0}}, is_stable=true, to_apply=cmp\n}}\n");
    let got: Vec<f32> = vals(
        &run(
            &hlo,
            &[Literal::vec1(&[
                f32::NAN,
                0.0,
                -0.0,
                -1.0,
                f32::NEG_INFINITY,
            ])],
        )
        .unwrap(),
    );
    assert!(
        super::same_f32(&got, &[f32::NEG_INFINITY, -1.0, -0.0, 0.0, f32::NAN]),
        "{got:?}"
    );
}

#[test]
fn topk_ties_lower_index_first() {
    let hlo = "HloModule t\nENTRY e {\n  x = f32[2,4] parameter(0)\n  ROOT t = (f32[2,2], s32[2,2]) topk(x), k=2, largest=true\n}\n";
    let x = Literal::from_vec(&[2, 4], vec![1f32, 3., 3., 2., 5., 4., 5., 5.]).unwrap();
    let r = run(hlo, &[x]).unwrap();
    assert_eq!(vals::<f32>(&elem(&r, 0)), [3., 3., 5., 5.]);
    assert_eq!(vals::<i32>(&elem(&r, 1)), [1, 2, 0, 2]);
}

#[test]
fn map_through_the_interpreter() {
    // A mapped computation holding a call runs element by element.
    let hlo = "HloModule t\nsq {\n  a = s32[] parameter(0)\n  ROOT m = s32[] multiply(a, a)\n}\nf {\n  a = s32[] parameter(0)\n  ROOT c = s32[] call(a), to_apply=sq\n}\nENTRY e {\n  x = s32[4] parameter(0)\n  ROOT m = s32[4] map(x), dimensions={0}, to_apply=f\n}\n";
    assert_eq!(
        vals::<i32>(&run(hlo, &[Literal::vec1(&[1, -2, 3, 70000])]).unwrap()),
        [1, 4, 9, 70000i32.wrapping_mul(70000)]
    );
}

#[test]
fn sort_network_matches_a_stable_reference() {
    // A 4-parameter comparator runs vectorised (a sorting network); the result must be the
    // stable sort of the keys, payload following, in every slice.
    let cmp = "cmp {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=GT\n}\n";
    let (rows, n) = (3usize, 37usize);
    let hlo = format!("HloModule t\n{cmp}ENTRY e {{\n  k = s32[{rows},{n}] parameter(0)\n  v = f32[{rows},{n}] parameter(1)\n  ROOT s = (s32[{rows},{n}], f32[{rows},{n}]) sort(k, v), dimensions={{1}}, is_stable=true, to_apply=cmp\n}}\n");
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as i32 % 5
    };
    let keys: Vec<i32> = (0..rows * n).map(|_| next()).collect();
    let payload: Vec<f32> = (0..rows * n).map(|i| i as f32).collect();
    let r = run(
        &hlo,
        &[
            Literal::from_vec(&[rows as i64, n as i64], keys.clone()).unwrap(),
            Literal::from_vec(&[rows as i64, n as i64], payload).unwrap(),
        ],
    )
    .unwrap();
    let (gk, gv) = (vals::<i32>(&elem(&r, 0)), vals::<f32>(&elem(&r, 1)));
    for row in 0..rows {
        let mut idx: Vec<usize> = (row * n..(row + 1) * n).collect();
        idx.sort_by(|&a, &b| keys[b].cmp(&keys[a]));
        let want_k: Vec<i32> = idx.iter().map(|&i| keys[i]).collect();
        let want_v: Vec<f32> = idx.iter().map(|&i| i as f32).collect();
        assert_eq!(&gk[row * n..(row + 1) * n], &want_k[..]);
        assert_eq!(&gv[row * n..(row + 1) * n], &want_v[..]);
    }
}

/// JAX's sort comparator (`compare(canon(a), canon(b))`, every NaN one key and `-0` equal
/// to `+0`, total order) is keyed once and sorted natively; the same comparator written so
/// it is not recognised runs through the comparator network. Both must agree bit for bit,
/// payload following, ascending and descending, with NaNs of both signs, ±0, ±inf and ties.
#[test]
fn jax_sort_comparator_sorts_natively_as_the_network_does() {
    let canon = |p: &str, q: &str, inner: &str| {
        format!(
            "  ne{p} = pred[] compare({p}, {p}), direction=NE\n  eq{p} = pred[] compare({p}, z), direction=EQ\n{inner}  s{p} = f32[] select(eq{p}, z, {q})\n  c{p} = f32[] select(ne{p}, nan, s{p})\n"
        )
    };
    let cmp = |dir: &str, hidden: bool| {
        let (qa, qb, inner) = if hidden {
            ("na2", "nb2", "  na1 = f32[] negate(a)\n  na2 = f32[] negate(na1)\n  nb1 = f32[] negate(b)\n  nb2 = f32[] negate(nb1)\n")
        } else {
            ("a", "b", "")
        };
        format!(
            "cmp {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  z = f32[] constant(0)\n  nan = f32[] constant(nan)\n{inner}{}{}  ROOT r = pred[] compare(ca, cb), direction={dir}, type=TOTALORDER\n}}\n",
            canon("a", qa, ""),
            canon("b", qb, ""),
        )
    };
    let (rows, n) = (4usize, 67usize);
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7fc0_0123),
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.5,
    ];
    let mut seed = 99u64;
    let keys: Vec<f32> = (0..rows * n)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (seed >> 33) as usize;
            if r % 3 == 0 {
                specials[r / 3 % specials.len()]
            } else {
                (r % 11) as f32 - 5.0
            }
        })
        .collect();
    let iota: Vec<i32> = (0..(rows * n) as i32).collect();
    let args = [
        Literal::from_vec(&[rows as i64, n as i64], keys).unwrap(),
        Literal::from_vec(&[rows as i64, n as i64], iota).unwrap(),
    ];
    for dir in ["LT", "GT"] {
        let out = |hidden: bool| {
            let hlo = format!("HloModule t\n{}ENTRY e {{\n  k = f32[{rows},{n}] parameter(0)\n  v = s32[{rows},{n}] parameter(1)\n  ROOT s = (f32[{rows},{n}], s32[{rows},{n}]) sort(k, v), dimensions={{1}}, is_stable=true, to_apply=cmp\n}}\n", cmp(dir, hidden));
            let r = run(&hlo, &args).unwrap();
            let k: Vec<u32> = vals::<f32>(&elem(&r, 0))
                .iter()
                .map(|x| x.to_bits())
                .collect();
            (k, vals::<i32>(&elem(&r, 1)))
        };
        assert_eq!(out(false), out(true), "direction {dir}");
    }
}
