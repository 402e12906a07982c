//! Gather (clamped starts, index_vector_dim, batching dims) and scatter (duplicates,
//! out-of-bounds windows skipped whole, generic combiners).

use super::{run, vals};
use xla_core::Literal;

fn m3() -> Literal {
    Literal::from_vec(&[3, 3], vec![1f32, 2., 3., 4., 5., 6., 7., 8., 9.]).unwrap()
}

#[test]
fn gather_rows_clamps_out_of_range_starts() {
    let hlo = "HloModule t\nENTRY e {\n  o = f32[3,3] parameter(0)\n  i = s32[4,1] parameter(1)\n  ROOT g = f32[4,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}\n}\n";
    let idx = Literal::from_vec(&[4, 1], vec![0i32, 2, 5, -3]).unwrap();
    let got: Vec<f32> = vals(&run(hlo, &[m3(), idx]).unwrap());
    assert_eq!(got, [1., 2., 3., 7., 8., 9., 7., 8., 9., 1., 2., 3.]);
}

#[test]
fn gather_window_clamped_to_fit() {
    // A 2x2 window starting at (2, 2) is clamped to start (1, 1).
    let hlo = "HloModule t\nENTRY e {\n  o = f32[3,3] parameter(0)\n  i = s64[2] parameter(1)\n  ROOT g = f32[2,2] gather(o, i), offset_dims={0,1}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={2,2}\n}\n";
    let got: Vec<f32> = vals(&run(hlo, &[m3(), Literal::vec1(&[2i64, 2])]).unwrap());
    assert_eq!(got, [5., 6., 8., 9.]);
}

#[test]
fn gather_index_vector_dim_first() {
    let hlo = "HloModule t\nENTRY e {\n  o = f32[3,3] parameter(0)\n  i = s32[2,2] parameter(1)\n  ROOT g = f32[2] gather(o, i), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={1,1}\n}\n";
    // Index vectors are the columns: (0, 1) and (2, 0).
    let idx = Literal::from_vec(&[2, 2], vec![0i32, 2, 1, 0]).unwrap();
    let got: Vec<f32> = vals(&run(hlo, &[m3(), idx]).unwrap());
    assert_eq!(got, [2., 7.]);
}

#[test]
fn gather_batching_dims_take_along_axis() {
    let hlo = "HloModule t\nENTRY e {\n  o = f32[2,3] parameter(0)\n  i = s32[2,2,1] parameter(1)\n  ROOT g = f32[2,2] gather(o, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}\n}\n";
    let o = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
    let i = Literal::from_vec(&[2, 2, 1], vec![2i32, 0, 1, 1]).unwrap();
    let got: Vec<f32> = vals(&run(hlo, &[o, i]).unwrap());
    assert_eq!(got, [3., 1., 5., 5.]);
}

const ADD: &str =
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";

#[test]
fn scatter_add_duplicates_and_drops_out_of_range() {
    let hlo = format!("HloModule t\n{ADD}ENTRY e {{\n  o = f32[4] parameter(0)\n  i = s32[4,1] parameter(1)\n  u = f32[4] parameter(2)\n  ROOT s = f32[4] scatter(o, i, u), update_window_dims={{}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=add\n}}\n");
    let i = Literal::from_vec(&[4, 1], vec![1i32, 1, 3, 7]).unwrap();
    let got: Vec<f32> = vals(
        &run(
            &hlo,
            &[
                Literal::vec1(&[0f32; 4]),
                i,
                Literal::vec1(&[1f32, 2., 3., 4.]),
            ],
        )
        .unwrap(),
    );
    assert_eq!(got, [0., 3., 0., 3.]);
}

#[test]
fn scatter_skips_a_partly_out_of_bounds_window() {
    let hlo = format!("HloModule t\n{ADD}ENTRY e {{\n  o = f32[5] parameter(0)\n  i = s32[2,1] parameter(1)\n  u = f32[2,2] parameter(2)\n  ROOT s = f32[5] scatter(o, i, u), update_window_dims={{1}}, inserted_window_dims={{}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=add\n}}\n");
    let i = Literal::from_vec(&[2, 1], vec![4i32, 1]).unwrap();
    let u = Literal::from_vec(&[2, 2], vec![1f32, 1., 2., 2.]).unwrap();
    let got: Vec<f32> = vals(&run(&hlo, &[Literal::vec1(&[0f32; 5]), i, u]).unwrap());
    assert_eq!(got, [0., 2., 2., 0., 0.]);
}

#[test]
fn scatter_with_a_generic_combiner_applies_updates_in_order() {
    let sub = "sub {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] subtract(a, b)\n}\n";
    let hlo = format!("HloModule t\n{sub}ENTRY e {{\n  o = f32[3] parameter(0)\n  i = s32[2,1] parameter(1)\n  u = f32[2] parameter(2)\n  ROOT s = f32[3] scatter(o, i, u), update_window_dims={{}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=sub\n}}\n");
    let i = Literal::from_vec(&[2, 1], vec![0i32, 0]).unwrap();
    let got: Vec<f32> = vals(
        &run(
            &hlo,
            &[
                Literal::vec1(&[10f32, 10., 10.]),
                i,
                Literal::vec1(&[1f32, 2.]),
            ],
        )
        .unwrap(),
    );
    assert_eq!(got, [7., 10., 10.]);
}

#[test]
fn scatter_set_keeps_the_last_update() {
    let set = "set {\n  a = s32[] parameter(0)\n  ROOT b = s32[] parameter(1)\n}\n";
    let hlo = format!("HloModule t\n{set}ENTRY e {{\n  o = s32[3] parameter(0)\n  i = s32[3,1] parameter(1)\n  u = s32[3] parameter(2)\n  ROOT s = s32[3] scatter(o, i, u), update_window_dims={{}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=set\n}}\n");
    let i = Literal::from_vec(&[3, 1], vec![2i32, 2, -1]).unwrap();
    let got: Vec<i32> = vals(
        &run(
            &hlo,
            &[
                Literal::vec1(&[0i32, 0, 0]),
                i,
                Literal::vec1(&[5i32, 6, 7]),
            ],
        )
        .unwrap(),
    );
    assert_eq!(got, [0, 0, 6]);
}

#[test]
fn scatter_one_update_at_a_time_through_the_interpreter() {
    // The combiner holds a call, so it runs per update; duplicates apply in order.
    let sub = "sub {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] subtract(a, b)\n}\nviacall {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] call(b, a), to_apply=sub\n}\n";
    let hlo = format!("HloModule t\n{sub}ENTRY e {{\n  o = f32[3] parameter(0)\n  i = s32[3,1] parameter(1)\n  u = f32[3] parameter(2)\n  ROOT s = f32[3] scatter(o, i, u), update_window_dims={{}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=viacall\n}}\n");
    // o[1] = u0 - o[1] = 1 - 10 = -9, then u1 - (-9) = 11.
    let i = Literal::from_vec(&[3, 1], vec![1i32, 1, 2]).unwrap();
    let got: Vec<f32> = vals(
        &run(
            &hlo,
            &[
                Literal::vec1(&[10f32, 10., 10.]),
                i,
                Literal::vec1(&[1f32, 2., 4.]),
            ],
        )
        .unwrap(),
    );
    assert_eq!(got, [10., 11., -6.]);
}

/// A segment sum (rows gathered by edge, summed per node) and a segment max, f32 and f64:
/// rows of consecutive targets combine as one slice, duplicates in update order, with
/// NaN, ±inf and ±0 among the updates; against the updates applied one by one here.
#[test]
fn segment_sums_and_maxes_match_updates_applied_in_order() {
    let (nodes, edges, w) = (7usize, 40usize, 5usize);
    let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0];
    let upd: Vec<f32> = (0..edges * w)
        .map(|k| {
            if k % 13 == 0 {
                specials[k / 13 % 5]
            } else {
                (k % 17) as f32 * 0.37 - 3.0
            }
        })
        .collect();
    let idx: Vec<i32> = (0..edges).map(|e| ((e * 5 + 3) % nodes) as i32).collect();
    for (name, op) in [("add", "add"), ("max", "maximum")] {
        let comb = format!("c {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] {op}(a, b)\n}}\n");
        for ty in ["f32", "f64"] {
            let hlo = format!("HloModule t\n{comb}ENTRY e {{\n  o = f32[{nodes},{w}] parameter(0)\n  i = s32[{edges}] parameter(1)\n  u = f32[{edges},{w}] parameter(2)\n  oc = {ty}[{nodes},{w}] convert(o)\n  uc = {ty}[{edges},{w}] convert(u)\n  s = {ty}[{nodes},{w}] scatter(oc, i, uc), update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=c{ty}\n  ROOT r = f32[{nodes},{w}] convert(s)\n}}\n")
                .replace("c {", &format!("c{ty} {{"))
                .replace("f32[] parameter", &format!("{ty}[] parameter"))
                .replace("ROOT r = f32[] ", &format!("ROOT r = {ty}[] "));
            let init: Vec<f32> = (0..nodes * w).map(|k| k as f32 * 0.5).collect();
            let got: Vec<f32> = vals(
                &run(
                    &hlo,
                    &[
                        Literal::from_vec(&[nodes as i64, w as i64], init.clone()).unwrap(),
                        Literal::vec1(&idx),
                        Literal::from_vec(&[edges as i64, w as i64], upd.clone()).unwrap(),
                    ],
                )
                .unwrap(),
            );
            let mut want: Vec<f64> = init.iter().map(|&x| f64::from(x)).collect();
            for (e, &t) in idx.iter().enumerate() {
                for j in 0..w {
                    let (a, b) = (want[t as usize * w + j], f64::from(upd[e * w + j]));
                    want[t as usize * w + j] = match name {
                        "add" => a + b,
                        _ if a.is_nan() || b.is_nan() => f64::NAN,
                        _ => a.max(b),
                    };
                }
            }
            for (k, (&g, &x)) in got.iter().zip(&want).enumerate() {
                let x = x as f32;
                // Sums were accumulated in f64 here: a rounding apart in f32.
                let near = name == "add" && (g - x).abs() <= 1e-5 * x.abs().max(1.0);
                let same = (g.is_nan() && x.is_nan()) || g == x || near;
                assert!(same, "{name} {ty} element {k}: {g} vs {x}");
            }
        }
    }
}
