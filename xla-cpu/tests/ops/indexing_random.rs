//! Gather and scatter on random dimension numbers (operands of rank 1–3, index vectors of
//! 1–3 components at any `index_vector_dim` or implicit, windows of any size, offset and
//! window dims at any positions, starts out of range) against the operation's definition
//! written out here element by element. Covers the row layouts that take the fast paths
//! (index batch then window, the run along the last dim) and those that do not.

use super::{run, vals, Rng};
use xla_core::Literal;

/// Random choices of positions.
trait Pick {
    fn pick(&mut self, n: usize, k: usize) -> Vec<usize>;
    fn positions(&mut self, n: usize, k: usize) -> Vec<usize>;
}

impl Pick for Rng {
    /// `k` distinct values of `0..n` in random order.
    fn pick(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        for i in 0..n {
            let j = i + self.below(n - i);
            all.swap(i, j);
        }
        all.truncate(k);
        all
    }
    /// `k` sorted distinct positions of `0..n`.
    fn positions(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut p = self.pick(n, k);
        p.sort_unstable();
        p
    }
}

fn strides(d: &[usize]) -> Vec<usize> {
    let mut s = vec![1; d.len()];
    for i in (0..d.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * d[i + 1];
    }
    s
}

/// Every index of `dims` in row-major order.
fn each(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    let st = strides(dims);
    (0..n)
        .map(|l| dims.iter().zip(&st).map(|(&d, &s)| l / s % d).collect())
        .collect()
}

fn shape(d: &[usize]) -> String {
    let v: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    format!("s32[{}]", v.join(","))
}

fn list(d: &[usize]) -> String {
    let v: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    format!("{{{}}}", v.join(","))
}

/// Shared set-up: operand dims, which dims the index vector addresses, the dims without
/// a window (collapsed / inserted), the window size per operand dim, and the indices.
struct Case {
    odims: Vec<usize>,
    to_operand: Vec<usize>,
    dropped: Vec<usize>,
    window: Vec<usize>,
    batch: Vec<usize>,
    /// `index_vector_dim`; `== batch.len()` with `implicit` means no vector dim.
    ivd: usize,
    implicit: bool,
    idims: Vec<usize>,
    indices: Vec<i32>,
}

impl Case {
    fn new(r: &mut Rng) -> Case {
        let rank = 1 + r.below(3);
        let odims: Vec<usize> = (0..rank).map(|_| 1 + r.below(5)).collect();
        let k = 1 + r.below(rank);
        let to_operand = r.pick(rank, k);
        let window: Vec<usize> = odims.iter().map(|&d| 1 + r.below(d)).collect();
        let ones: Vec<usize> = (0..rank).filter(|&d| window[d] == 1).collect();
        let nd = r.below(ones.len() + 1);
        let mut dropped: Vec<usize> = r.pick(ones.len(), nd).iter().map(|&i| ones[i]).collect();
        dropped.sort_unstable();
        let batch: Vec<usize> = (0..1 + r.below(2)).map(|_| 1 + r.below(4)).collect();
        let implicit = k == 1 && r.below(2) == 0;
        let ivd = if implicit {
            batch.len()
        } else {
            r.below(batch.len() + 1)
        };
        let mut idims = batch.clone();
        if !implicit {
            idims.insert(ivd, k);
        }
        let n: usize = idims.iter().product();
        let hi = *odims.iter().max().unwrap_or(&1) as i32;
        let indices = (0..n)
            .map(|_| r.below(hi as usize + 5) as i32 - 2)
            .collect();
        Case {
            odims,
            to_operand,
            dropped,
            window,
            batch,
            ivd,
            implicit,
            idims,
            indices,
        }
    }

    /// The start vector of batch position `g`, scattered onto the operand dims.
    fn start(&self, g: &[usize]) -> Vec<i64> {
        let st = strides(&self.idims);
        let mut s = vec![0i64; self.odims.len()];
        for (c, &m) in self.to_operand.iter().enumerate() {
            let mut pos = g.to_vec();
            if !self.implicit {
                pos.insert(self.ivd, c);
            }
            let off: usize = pos.iter().zip(&st).map(|(a, b)| a * b).sum();
            s[m] = i64::from(self.indices[off]);
        }
        s
    }

    /// The operand dims that have a window dim in the result / updates.
    fn window_dims(&self) -> Vec<usize> {
        (0..self.odims.len())
            .filter(|d| !self.dropped.contains(d))
            .collect()
    }

    fn index_literal(&self) -> Literal {
        let d: Vec<i64> = self.idims.iter().map(|&x| x as i64).collect();
        Literal::from_vec(&d, self.indices.clone()).unwrap()
    }

    fn operand(&self) -> (Literal, Vec<i32>) {
        let n: usize = self.odims.iter().product();
        let v: Vec<i32> = (0..n as i32).map(|x| 100 + x).collect();
        let d: Vec<i64> = self.odims.iter().map(|&x| x as i64).collect();
        (Literal::from_vec(&d, v.clone()).unwrap(), v)
    }
}

/// The result dims (batch dims with window dims at `at`) and, per result dim, which
/// window dim (`Some(j)`) or batch dim (`None`, in order) it is.
fn interleave(batch: &[usize], wsizes: &[usize], at: &[usize]) -> Vec<usize> {
    let rank = batch.len() + wsizes.len();
    let (mut b, mut w) = (batch.iter(), wsizes.iter());
    (0..rank)
        .map(|d| {
            if at.contains(&d) {
                *w.next().unwrap()
            } else {
                *b.next().unwrap()
            }
        })
        .collect()
}

#[test]
fn gather_matches_its_definition_on_random_dimension_numbers() {
    let mut r = Rng(7);
    for case_no in 0..400 {
        let c = Case::new(&mut r);
        let wd = c.window_dims();
        let wsizes: Vec<usize> = wd.iter().map(|&d| c.window[d]).collect();
        let out_rank = c.batch.len() + wd.len();
        // Half the cases put the offset dims last (the layout of the row fast path).
        let at = if case_no % 2 == 0 {
            (c.batch.len()..out_rank).collect()
        } else {
            r.positions(out_rank, wd.len())
        };
        let out = interleave(&c.batch, &wsizes, &at);
        let hlo = format!(
            "HloModule t\nENTRY e {{\n  o = {} parameter(0)\n  i = {} parameter(1)\n  ROOT g = {} gather(o, i), offset_dims={}, collapsed_slice_dims={}, start_index_map={}, index_vector_dim={}, slice_sizes={}\n}}\n",
            shape(&c.odims), shape(&c.idims), shape(&out), list(&at), list(&c.dropped),
            list(&c.to_operand), c.ivd, list(&c.window)
        );
        let (o, ov) = c.operand();
        let got: Vec<i32> = vals(&run(&hlo, &[o, c.index_literal()]).unwrap());
        let ost = strides(&c.odims);
        let want: Vec<i32> = each(&out)
            .iter()
            .map(|oi| {
                let g: Vec<usize> = (0..out.len())
                    .filter(|d| !at.contains(d))
                    .map(|d| oi[d])
                    .collect();
                let s = c.start(&g);
                let mut off = 0;
                for d in 0..c.odims.len() {
                    let clamped = s[d].clamp(0, (c.odims[d] - c.window[d]) as i64) as usize;
                    off += clamped * ost[d];
                }
                for (j, &d) in wd.iter().enumerate() {
                    off += oi[at[j]] * ost[d];
                }
                ov[off]
            })
            .collect();
        assert_eq!(got, want, "case {case_no}:\n{hlo}indices {:?}", c.indices);
    }
}

#[test]
fn scatter_matches_its_definition_on_random_dimension_numbers() {
    let mut r = Rng(11);
    // `add` takes the native path; `b - 2a` is a combiner only the interpreter runs.
    let combiners = [("add", "add(a, b)"), ("sub", "subtract(b, a2)")];
    for case_no in 0..400 {
        let c = Case::new(&mut r);
        let wd = c.window_dims();
        let wsizes: Vec<usize> = wd.iter().map(|&d| c.window[d]).collect();
        let rank = c.batch.len() + wd.len();
        let at = if case_no % 2 == 0 {
            (c.batch.len()..rank).collect()
        } else {
            r.positions(rank, wd.len())
        };
        let udims = interleave(&c.batch, &wsizes, &at);
        let (name, body) = combiners[case_no % 2];
        let hlo = format!(
            "HloModule t\n{name} {{\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  a2 = s32[] add(a, a)\n  ROOT r = s32[] {body}\n}}\nENTRY e {{\n  o = {} parameter(0)\n  i = {} parameter(1)\n  u = {} parameter(2)\n  ROOT s = {} scatter(o, i, u), update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={}, index_vector_dim={}, to_apply={name}\n}}\n",
            shape(&c.odims), shape(&c.idims), shape(&udims), shape(&c.odims), list(&at),
            list(&c.dropped), list(&c.to_operand), c.ivd
        );
        let (o, mut want) = c.operand();
        let n: usize = udims.iter().product();
        let upd: Vec<i32> = (0..n as i32).map(|x| x * 7 - 30).collect();
        let ud: Vec<i64> = udims.iter().map(|&x| x as i64).collect();
        let u = Literal::from_vec(&ud, upd.clone()).unwrap();
        let got: Vec<i32> = vals(&run(&hlo, &[o, c.index_literal(), u]).unwrap());
        let ost = strides(&c.odims);
        for (k, ui) in each(&udims).iter().enumerate() {
            let g: Vec<usize> = (0..rank)
                .filter(|d| !at.contains(d))
                .map(|d| ui[d])
                .collect();
            let s = c.start(&g);
            let fits = (0..c.odims.len())
                .all(|d| s[d] >= 0 && s[d] + c.window[d] as i64 <= c.odims[d] as i64);
            if !fits {
                continue;
            }
            let mut off: usize = (0..c.odims.len()).map(|d| s[d] as usize * ost[d]).sum();
            for (j, &d) in wd.iter().enumerate() {
                off += ui[at[j]] * ost[d];
            }
            want[off] = match name {
                "add" => want[off].wrapping_add(upd[k]),
                _ => upd[k].wrapping_sub(want[off].wrapping_mul(2)),
            };
        }
        assert_eq!(got, want, "case {case_no}:\n{hlo}indices {:?}", c.indices);
    }
}
