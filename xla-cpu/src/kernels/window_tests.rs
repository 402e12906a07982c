//! The any-rank window loops of `window_nd.rs` checked bit for bit against the reference
//! groups of `window.rs` (random ranks, layouts, windows, strides, paddings incl.
//! negative, dilations; NaN, ±inf and ±0 in the data), and the native arg-reduce against
//! the interpreter running the same comparator.

use super::window::{fold_native, select_native, window_groups};
use super::{window_fast, window_nd};
use crate::kernels::combiner::Combiner;
use crate::parallel::{Parallel, Threads};
use crate::scalar::Combine;
use xla_core::attrs::{BinaryOp, ComparisonDirection, Window, WindowDim};
use xla_core::literal::{ArrayData, NativeData};
use xla_core::Literal;

/// A seeded xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
}

/// Mostly values whose sums round (so any change of order shows), with NaN, ±inf, ±0 and
/// subnormals (of f32, and of f64, which cast to f32 give -0).
fn value(r: &mut Rng, ties: bool) -> f64 {
    match r.below(14) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => 0.0,
        4 => -0.0,
        5 => [1e-40, -3e-41, 2e-39][r.below(3) as usize],
        6 => [-1e-310, 4e-320][r.below(2) as usize],
        _ if ties => r.range(-2, 2) as f64,
        _ => (r.range(-1000, 1000) as f64) / 7.0,
    }
}

fn data(r: &mut Rng, n: usize, f64s: bool, ties: bool) -> ArrayData {
    let v: Vec<f64> = (0..n).map(|_| value(r, ties)).collect();
    if f64s {
        ArrayData::F64(v)
    } else {
        ArrayData::F32(v.into_iter().map(|x| x as f32).collect())
    }
}

/// The output length of one window dimension, as shape inference computes it.
fn out_len(n: usize, d: &WindowDim) -> usize {
    let base = if n == 0 {
        0
    } else {
        (n as i64 - 1) * d.base_dilation + 1
    };
    let padded = base + d.padding_low + d.padding_high;
    let win = if d.size == 0 {
        0
    } else {
        (d.size - 1) * d.window_dilation + 1
    };
    if padded < win {
        0
    } else {
        ((padded - win) / d.stride + 1) as usize
    }
}

/// Random dims and window: some dims untouched (size 1, as the channels of NHWC), the
/// others with random size, stride, padding (negative too) and dilations.
fn case(r: &mut Rng, max_n: i64) -> (Vec<usize>, Vec<usize>, Window) {
    let rank = r.range(1, 4) as usize;
    let mut dims = Vec::new();
    let mut wd = Vec::new();
    for _ in 0..rank {
        if r.below(3) == 0 {
            dims.push(r.range(1, max_n) as usize);
            wd.push(WindowDim::new(1));
            continue;
        }
        dims.push(r.range(0, max_n) as usize);
        let mut d = WindowDim::new(r.range(0, 3));
        d.stride = r.range(1, 3);
        d.padding_low = r.range(-2, 2);
        d.padding_high = r.range(-2, 2);
        d.base_dilation = if r.below(2) == 0 { 1 } else { r.range(2, 3) };
        d.window_dilation = r.range(1, 2);
        wd.push(d);
    }
    let out = dims.iter().zip(&wd).map(|(&n, d)| out_len(n, d)).collect();
    (dims, out, Window { dims: wd })
}

/// The bits of every element, NaNs as one value: LLVM does not preserve NaN sign and
/// payload (it may commute `a * b`), so only NaN-ness is comparable across two compiled
/// loops (as in `fusion::ops`' corner tests).
fn bits(d: &ArrayData) -> Vec<u64> {
    let canon = |x: f64, b: u64| if x.is_nan() { u64::MAX } else { b };
    match d {
        ArrayData::F32(v) => v
            .iter()
            .map(|x| canon(f64::from(*x), u64::from(x.to_bits())))
            .collect(),
        ArrayData::F64(v) => v.iter().map(|x| canon(*x, x.to_bits())).collect(),
        other => panic!("unexpected {:?}", other.element_type()),
    }
}

fn reference_reduce(
    x: &ArrayData,
    init: &ArrayData,
    dims: &[usize],
    out: &[usize],
    w: &Window,
    op: BinaryOp,
) -> ArrayData {
    let g = window_groups(dims, out, w, "test").unwrap();
    match x {
        ArrayData::F32(v) => fold_native(v, init, &g, op).unwrap(),
        ArrayData::F64(v) => fold_native(v, init, &g, op).unwrap(),
        _ => unreachable!(),
    }
}

fn init_of(r: &mut Rng, f64s: bool) -> ArrayData {
    let i = [0.0, -0.0, f64::NEG_INFINITY, 1.5, f64::NAN][r.below(5) as usize];
    if f64s {
        ArrayData::F64(vec![i])
    } else {
        ArrayData::F32(vec![i as f32])
    }
}

#[test]
fn reduce_window_matches_the_reference_bit_for_bit() {
    // Without the flush mode: only the kernels' own flush of max/min results matches `fmax`.
    let mut r = Rng(0x5eed_1234_abcd_0001);
    for t in 0..600 {
        let (dims, out, w) = case(&mut r, 5);
        let n = dims.iter().product();
        let f64s = t % 3 == 0;
        let x = data(&mut r, n, f64s, false);
        let init = init_of(&mut r, f64s);
        for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min] {
            let want = reference_reduce(&x, &init, &dims, &out, &w, op);
            let got = window_nd::reduce_window(&x, &init, &dims, &out, &w, op, Parallel::SEQ)
                .expect("the fast path applies");
            assert_eq!(bits(&got), bits(&want), "{op:?} {dims:?} {out:?} {w:?}");
        }
    }
}

/// Windows along the last dimension alone (`window_scan.rs`): forward and reverse
/// cumulative windows, moving windows with padding on either side, windows longer than
/// the row, at every combiner and both float types, with NaN, ±inf, ±0 and subnormals;
/// sequential and on two threads, bit for bit against the reference.
#[test]
fn scan_windows_match_the_reference_bit_for_bit() {
    // As the NCHW test: on this thread without the flush mode, then flushed on this
    // thread and the pool's (whose threads always flush).
    scan_windows(&[Parallel::SEQ]);
    let _flush = crate::denormals::Flush::on();
    let two = Threads::new(2);
    scan_windows(&[Parallel::SEQ, two.parallel()]);
}

fn scan_windows(pars: &[Parallel<'_>]) {
    let mut r = Rng(0x5eed_5ca9_0000_0001);
    for t in 0..300 {
        let rank = 1 + r.below(3) as usize;
        let mut dims: Vec<usize> = (0..rank).map(|_| 1 + r.below(5) as usize).collect();
        let n = [1, 2, 7, 33, 100, 257][r.below(6) as usize];
        *dims.last_mut().unwrap() = n;
        let size = 1 + r.below(n as u64 + 3) as usize;
        let (low, high) = match r.below(4) {
            0 => (n - 1, 0),
            1 => (0, n - 1),
            _ => (r.below(size as u64) as usize, r.below(size as u64) as usize),
        };
        let size = size.min(n + low + high);
        let mut wd: Vec<WindowDim> = dims.iter().map(|_| plain_dim(1, 0, 0)).collect();
        *wd.last_mut().unwrap() = plain_dim(size, low, high);
        let w = Window { dims: wd };
        let mut out = dims.clone();
        *out.last_mut().unwrap() = n + low + high + 1 - size;
        assert!(super::window_scan::Scan::new(&w, &dims, &out).is_some());
        let f64s = t % 3 == 0;
        let x = data(&mut r, dims.iter().product(), f64s, false);
        let init = init_of(&mut r, f64s);
        for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min] {
            let want = reference_reduce(&x, &init, &dims, &out, &w, op);
            for &par in pars {
                let got = window_nd::reduce_window(&x, &init, &dims, &out, &w, op, par)
                    .expect("the scan applies");
                assert_eq!(bits(&got), bits(&want), "{op:?} {dims:?} {out:?} {w:?}");
            }
        }
    }
}

/// A window dimension of `size` with the given padding, stride 1, no dilation.
fn plain_dim(size: usize, low: usize, high: usize) -> WindowDim {
    WindowDim {
        size: size as i64,
        stride: 1,
        padding_low: low as i64,
        padding_high: high as i64,
        window_dilation: 1,
        base_dilation: 1,
        window_reversal: false,
    }
}

/// The NCHW fast path (`window_fast`, the 2x2 stride-2 max-pool and windows over the last
/// two dims with padding), f32, on one and two threads.
#[test]
fn nchw_fast_pools_match_the_reference_bit_for_bit() {
    // Once on this thread without the flush mode (so only the kernels' own flush of max
    // and min results can match the reference's `fmax`), then as execution runs: flushed,
    // on this thread and the pool's (whose threads always flush).
    nchw_fast_pools(&[Parallel::SEQ]);
    let _flush = crate::denormals::Flush::on();
    let two = Threads::new(2);
    nchw_fast_pools(&[Parallel::SEQ, two.parallel()]);
}

fn nchw_fast_pools(pars: &[Parallel<'_>]) {
    let mut r = Rng(0x0f1a_5e00_0002);
    for t in 0..300 {
        let dims = vec![
            r.range(1, 3) as usize,
            r.range(1, 20) as usize,
            r.range(1, 9) as usize,
            r.range(1, 9) as usize,
        ];
        let mut w = Window {
            dims: vec![WindowDim::new(1); 4],
        };
        for d in &mut w.dims[2..] {
            *d = WindowDim::new(if t % 2 == 0 { 2 } else { r.range(1, 3) });
            d.stride = if t % 2 == 0 { 2 } else { r.range(1, 3) };
            d.padding_low = if t % 2 == 0 { 0 } else { r.range(0, 1) };
            d.padding_high = if t % 2 == 0 { 0 } else { r.range(0, 1) };
        }
        let out: Vec<usize> = dims
            .iter()
            .zip(&w.dims)
            .map(|(&n, d)| out_len(n, d))
            .collect();
        let x = data(&mut r, dims.iter().product(), false, t % 5 == 0);
        let init = init_of(&mut r, false);
        for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min] {
            let want = reference_reduce(&x, &init, &dims, &out, &w, op);
            for &par in pars {
                let comb = Some(Combiner::Binary(op));
                let got = window_fast::reduce_window(&x, &init, &dims, &out, &w, comb, par)
                    .expect("the NCHW fast path applies");
                assert_eq!(bits(&got), bits(&want), "{op:?} {dims:?} {out:?} {w:?}");
            }
        }
    }
}

#[test]
fn reduce_window_nhwc_pools_match_on_two_threads() {
    // As execution runs (and the pool's threads always do): subnormals flushed.
    let _flush = crate::denormals::Flush::on();
    let two = Threads::new(2);
    let mut r = Rng(77);
    // NHWC average pool and its gradient's stride-1 window, big enough to run in parallel.
    for (stride, pad) in [(2, 0), (1, 0), (2, 1), (3, 1)] {
        let dims = [4, 17, 15, 40];
        let mut w = Window {
            dims: vec![WindowDim::new(1); 4],
        };
        for d in [1, 2] {
            w.dims[d] = WindowDim::new(2);
            w.dims[d].stride = stride;
            w.dims[d].padding_low = pad;
            w.dims[d].padding_high = pad;
        }
        let out: Vec<usize> = dims
            .iter()
            .zip(&w.dims)
            .map(|(&n, d)| out_len(n, d))
            .collect();
        let x = data(&mut r, dims.iter().product(), false, false);
        let init = ArrayData::F32(vec![0.0]);
        let want = reference_reduce(&x, &init, &dims, &out, &w, BinaryOp::Add);
        for par in [Parallel::SEQ, two.parallel()] {
            let got =
                window_nd::reduce_window(&x, &init, &dims, &out, &w, BinaryOp::Add, par).unwrap();
            assert_eq!(bits(&got), bits(&want), "stride {stride} pad {pad}");
        }
    }
}

fn reference_scatter<T: NativeData + PartialOrd + Combine>(
    x: &[T],
    src: &[T],
    init: T,
    g: &super::window::Groups,
    dir: ComparisonDirection,
    f: fn(T, T) -> T,
) -> Vec<T> {
    let mut out = vec![init; x.len()];
    for (o, &u) in src.iter().enumerate().take(g.len()) {
        if let Some(t) = select_native(x, g.group(o), dir) {
            out[t] = f(out[t], u);
        }
    }
    out
}

fn check_scatter(r: &mut Rng, dims: &[usize], sdims: &[usize], w: &Window, par: Parallel<'_>) {
    use ComparisonDirection as D;
    let f64s = r.below(2) == 0;
    let x = data(r, dims.iter().product(), f64s, true);
    let src = data(r, sdims.iter().product(), f64s, false);
    let g = window_groups(dims, sdims, w, "test").unwrap();
    for dir in [D::Ge, D::Gt, D::Le, D::Lt, D::Eq, D::Ne] {
        for scat in [Combiner::Binary(BinaryOp::Add), Combiner::Second] {
            let (want, init) = match (&x, &src) {
                (ArrayData::F32(xv), ArrayData::F32(sv)) => {
                    let f: fn(f32, f32) -> f32 = match scat {
                        Combiner::Second => |_, b| b,
                        _ => |a, b| a + b,
                    };
                    let init = ArrayData::F32(vec![-0.0]);
                    (
                        ArrayData::F32(reference_scatter(xv, sv, -0.0, &g, dir, f)),
                        init,
                    )
                }
                (ArrayData::F64(xv), ArrayData::F64(sv)) => {
                    let f: fn(f64, f64) -> f64 = match scat {
                        Combiner::Second => |_, b| b,
                        _ => |a, b| a + b,
                    };
                    let init = ArrayData::F64(vec![-0.0]);
                    (
                        ArrayData::F64(reference_scatter(xv, sv, -0.0, &g, dir, f)),
                        init,
                    )
                }
                _ => unreachable!(),
            };
            let combs = [Some(Combiner::Compare(dir, None)), Some(scat)];
            let got = window_nd::select_and_scatter([&x, &src, &init], dims, sdims, w, combs, par)
                .expect("the fast path applies");
            assert_eq!(bits(&got), bits(&want), "{dir:?} {scat:?} {dims:?} {w:?}");
        }
    }
}

#[test]
fn select_and_scatter_matches_the_reference_bit_for_bit() {
    // As execution runs (and the pool's threads always do): subnormals flushed.
    let _flush = crate::denormals::Flush::on();
    let mut r = Rng(0xfeed_0002);
    for _ in 0..300 {
        let (dims, out, w) = case(&mut r, 5);
        check_scatter(&mut r, &dims, &out, &w, Parallel::SEQ);
    }
    // NHWC max-pool gradients (overlapping windows too), on two threads.
    let two = Threads::new(2);
    for (size, stride, pad) in [(2, 2, 0), (3, 2, 1), (3, 1, 1)] {
        let dims = [4, 16, 15, 36];
        let mut w = Window {
            dims: vec![WindowDim::new(1); 4],
        };
        for d in [1, 2] {
            w.dims[d] = WindowDim::new(size);
            w.dims[d].stride = stride;
            w.dims[d].padding_low = pad;
            w.dims[d].padding_high = pad;
        }
        let out: Vec<usize> = dims
            .iter()
            .zip(&w.dims)
            .map(|(&n, d)| out_len(n, d))
            .collect();
        check_scatter(&mut r, &dims, &out, &w, two.parallel());
    }
}

/// An argmax/argmin comparator: JAX's (B13's `region_16.17`; `dir` GT for argmax, LT for
/// argmin) or XLA's own (`CreateMinMaxComputation`; GE or LE, ties to the smaller index
/// through `minimum`). With `opaque`, the value parameter goes through a `convert` to its
/// own type first: the same function, which the recogniser does not match, so the
/// interpreter runs it.
fn comparator(dir: &str, opaque: bool) -> String {
    let a = if opaque { "pa" } else { "a" };
    let head = "cmp {\n  a = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  b = f32[] parameter(2)\n  bi = s32[] parameter(3)\n  pa = f32[] convert(a)\n";
    let body = if dir == "GT" || dir == "LT" {
        format!(
            "  gt = pred[] compare({a}, b), direction={dir}\n  ne = pred[] compare({a}, {a}), direction=NE\n  or = pred[] or(gt, ne)\n  \
             v = f32[] select(or, {a}, b)\n  eq = pred[] compare({a}, b), direction=EQ\n  lt = pred[] compare(ai, bi), direction=LT\n  \
             and = pred[] and(eq, lt)\n  or2 = pred[] or(or, and)\n  i = s32[] select(or2, ai, bi)\n"
        )
    } else {
        format!(
            "  c = pred[] compare({a}, b), direction={dir}\n  v = f32[] select(c, {a}, b)\n  i1 = s32[] select(c, ai, bi)\n  \
             eq = pred[] compare({a}, b), direction=EQ\n  tie = s32[] minimum(ai, bi)\n  i = s32[] select(eq, tie, i1)\n"
        )
    };
    format!("{head}{body}  ROOT t = (f32[], s32[]) tuple(v, i)\n}}\n")
}

/// The arg-reduce of an f32[6,9] `x` and its iota along `rdim`, compiled once.
fn argreduce(dir: &str, opaque: bool, rdim: usize, init: &str) -> crate::Executable {
    let n = if rdim == 0 { 9 } else { 6 };
    let text = format!(
        "HloModule m\n\n{}\nENTRY e {{\n  x = f32[6,9] parameter(0)\n  io = s32[6,9] iota(), iota_dimension={rdim}\n  \
         m = f32[] constant({init})\n  z = s32[] constant(0)\n  ROOT r = (f32[{n}], s32[{n}]) reduce(x, io, m, z), dimensions={{{rdim}}}, to_apply=cmp\n}}\n",
        comparator(dir, opaque),
    );
    let m = xla_core::text::parse_module(&text).unwrap();
    let cmp = m.computations.iter().find(|c| c.name == "cmp").unwrap();
    let recognised = super::arg_reduce::recognise(cmp, &cmp.parameters()).is_some();
    assert_eq!(recognised, !opaque, "{dir} opaque={opaque}");
    crate::Executable::compile(&m).unwrap()
}

fn literal_bits(l: &Literal) -> (Vec<u32>, Vec<i32>) {
    let t = l.tuple_elements().unwrap();
    let v = t[0]
        .data::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    (v, t[1].data::<i32>().unwrap().to_vec())
}

/// Inputs with ties, NaNs of both signs, ±0, ±inf, and rows that are all NaN, all ±0 and
/// all -inf.
fn argreduce_inputs() -> Vec<Literal> {
    let mut r = Rng(0xa59_0003);
    let special = [
        f32::NAN,
        -f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0,
        1.0,
    ];
    (0..40)
        .map(|t| {
            let mut v: Vec<f32> = (0..54)
                .map(|_| match r.below(4) {
                    0 => special[r.below(special.len() as u64) as usize],
                    _ => r.range(-3, 3) as f32,
                })
                .collect();
            if t % 4 == 1 {
                v[..9].fill(f32::NAN);
                for (i, x) in v[9..18].iter_mut().enumerate() {
                    *x = if i % 2 == 0 { -0.0 } else { 0.0 };
                }
                v[18..27].fill(f32::NEG_INFINITY);
            }
            Literal::from_vec(&[6, 9], v).unwrap()
        })
        .collect()
}

#[test]
fn argmax_and_argmin_match_the_interpreter() {
    let inputs = argreduce_inputs();
    for dir in ["GT", "LT", "GE", "LE"] {
        for rdim in [0, 1] {
            for init in ["-inf", "inf", "nan", "0"] {
                let fast = argreduce(dir, false, rdim, init);
                let slow = argreduce(dir, true, rdim, init);
                for (t, x) in inputs.iter().enumerate() {
                    let (a, b) = (
                        fast.execute(std::slice::from_ref(x)).unwrap(),
                        slow.execute(std::slice::from_ref(x)).unwrap(),
                    );
                    assert_eq!(
                        literal_bits(&a),
                        literal_bits(&b),
                        "{dir} dim {rdim} init {init} case {t}"
                    );
                }
            }
        }
    }
}

#[test]
fn select_max_and_min_are_fmax_and_fmin_bit_for_bit() {
    use super::elementwise::{fmax, fmin};
    use window_nd::{smax, smin};
    let nan2 = f32::from_bits(0x7fc0_1234);
    let v = [
        f32::NAN,
        -f32::NAN,
        nan2,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE / 4.0,
    ];
    for &a in &v {
        for &b in &v {
            assert_eq!(smax(a, b).to_bits(), fmax(a, b).to_bits(), "max {a} {b}");
            assert_eq!(smin(a, b).to_bits(), fmin(a, b).to_bits(), "min {a} {b}");
            let (x, y) = (f64::from(a), f64::from(b));
            assert_eq!(smax(x, y).to_bits(), fmax(x, y).to_bits(), "max {a} {b}");
            assert_eq!(smin(x, y).to_bits(), fmin(x, y).to_bits(), "min {a} {b}");
        }
    }
}
