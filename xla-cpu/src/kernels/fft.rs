//! `fft`: FFT, IFFT, RFFT and IRFFT over up to three trailing dims.
//!
//! Complex lines go through `rustfft`, the real last axis of RFFT and IRFFT through
//! `realfft` (a real transform of length n costs a complex one of n/2). The arithmetic
//! is in the precision of the complex type, as XLA's DUCC kernels do it: f32 for c64,
//! f64 for c128 (c128 throughout cost an FNO layer's f32[32,32,256] rfft 2.6× XLA's
//! time). Lines are split across threads.

use crate::error::{attribute, internal, result_shape, Result};
use crate::index::{array, count, dims_of, make};
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use num_complex::Complex;
use realfft::RealFftPlanner;
use rustfft::{Fft, FftNum, FftPlanner};
use xla_core::attrs::FftType;
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

use super::elementwise::convert;

/// The float type a transform runs in, with its complex and real element types.
trait Float: FftNum {
    const COMPLEX: PrimitiveType;
    const REAL: PrimitiveType;
    fn complex(d: ArrayData) -> Option<Vec<Complex<Self>>>;
    fn complex_ref(d: &ArrayData) -> Option<&[Complex<Self>]>;
    fn real(d: ArrayData) -> Option<Vec<Self>>;
    fn wrap_complex(v: Vec<Complex<Self>>) -> ArrayData;
    fn wrap_real(v: Vec<Self>) -> ArrayData;
}

macro_rules! float {
    ($t:ty, $c:ident, $r:ident) => {
        impl Float for $t {
            const COMPLEX: PrimitiveType = PrimitiveType::$c;
            const REAL: PrimitiveType = PrimitiveType::$r;
            fn complex(d: ArrayData) -> Option<Vec<Complex<$t>>> {
                match d {
                    ArrayData::$c(v) => Some(v),
                    _ => None,
                }
            }
            fn complex_ref(d: &ArrayData) -> Option<&[Complex<$t>]> {
                match d {
                    ArrayData::$c(v) => Some(v),
                    _ => None,
                }
            }
            fn real(d: ArrayData) -> Option<Vec<$t>> {
                match d {
                    ArrayData::$r(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap_complex(v: Vec<Complex<$t>>) -> ArrayData {
                ArrayData::$c(v)
            }
            fn wrap_real(v: Vec<$t>) -> ArrayData {
                ArrayData::$r(v)
            }
        }
    };
}
float!(f32, C64, F32);
float!(f64, C128, F64);

/// Elements per parallel task: enough that a task outweighs its hand-off.
const TASK: usize = 1 << 14;

/// Runs `f` on consecutive chunks of `chunk` elements of `data`, across threads when
/// large; once the run must stop (`stop`, polled per chunk), the chunks left are skipped.
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop.
fn for_chunks<T: Send>(
    data: &mut [T],
    chunk: usize,
    (par, stop): (Parallel, &Stop),
    f: impl Fn(&mut [T]) + Sync + Send,
) -> Result<()> {
    let chunk = chunk.max(1);
    let elements = data.len();
    let done = par.items(elements, data.chunks_mut(chunk).collect(), |c| {
        if !stop.stopped() {
            f(c);
        }
    });
    stop.check()?;
    done.then_some(()).ok_or(PANICKED)
}

/// What a transform reports when one of its tasks panicked on the partner thread.
const PANICKED: crate::CpuError =
    crate::CpuError::Internal("fft: a task of the transform panicked");

/// Transforms every line of `data` (dims `dims`) along `axis` in place; the inverse is
/// scaled by `1/n`.
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop.
fn fft_axis<T: Float>(
    planner: &mut FftPlanner<T>,
    data: &mut [Complex<T>],
    (dims, axis): (&[usize], usize),
    inverse: bool,
    run: (Parallel, &Stop),
) -> Result<()> {
    let n = dims[axis];
    if n == 0 || data.is_empty() {
        return Ok(());
    }
    let inner = count(&dims[axis + 1..]);
    let plan: std::sync::Arc<dyn Fft<T>> = if inverse {
        planner.plan_fft_inverse(n)
    } else {
        planner.plan_fft_forward(n)
    };
    let scale = T::from_f64(if inverse { 1.0 / n as f64 } else { 1.0 }).unwrap_or(T::one());
    let zero = Complex::new(T::zero(), T::zero());
    if inner == 1 {
        // Lines along the last axis are contiguous: rustfft takes a buffer of consecutive
        // lines, so each task is one call with one scratch.
        return for_chunks(data, (TASK / n).max(1) * n, run, |lines| {
            let mut scratch = vec![zero; plan.get_inplace_scratch_len()];
            plan.process_with_scratch(lines, &mut scratch);
            if inverse {
                lines.iter_mut().for_each(|l| *l = *l * scale);
            }
        });
    }
    // Lines along an inner axis: per block of `n × inner`, groups of columns are copied
    // into contiguous lines, transformed together, and copied back.
    let group = (TASK / n).clamp(1, inner);
    for_chunks(data, n * inner, run, |block| {
        let mut buf = vec![zero; group * n];
        let mut scratch = vec![zero; plan.get_inplace_scratch_len()];
        for c0 in (0..inner).step_by(group) {
            let g = group.min(inner - c0);
            let lines = &mut buf[..g * n];
            for (j, line) in lines.chunks_mut(n).enumerate() {
                for (k, l) in line.iter_mut().enumerate() {
                    *l = block[k * inner + c0 + j];
                }
            }
            plan.process_with_scratch(lines, &mut scratch);
            for (j, line) in lines.chunks(n).enumerate() {
                for (k, l) in line.iter().enumerate() {
                    block[k * inner + c0 + j] = *l * scale;
                }
            }
        }
    })
}

/// The real-to-complex transform of every row of `x` (rows of `n`): rows of `n/2 + 1`.
fn rfft_rows<T: Float>(
    x: &mut [T],
    n: usize,
    (par, stop): (Parallel, &Stop),
) -> Result<Vec<Complex<T>>> {
    let h = n / 2 + 1;
    let rows = x.len() / n.max(1);
    let zero = Complex::new(T::zero(), T::zero());
    let mut out = vec![zero; rows * h];
    if n == 0 {
        return Ok(out);
    }
    // Allocating a large result is slow where the kernel hands out fresh pages.
    stop.check()?;
    let plan = RealFftPlanner::<T>::new().plan_fft_forward(n);
    let per = (TASK / n).max(1);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let tasks = x.chunks_mut(per * n).zip(out.chunks_mut(per * h)).collect();
    let done = par.items(
        rows * n,
        tasks,
        |(xs, os): (&mut [T], &mut [Complex<T>])| {
            if stop.stopped() {
                return;
            }
            let mut scratch = vec![zero; plan.get_scratch_len()];
            for (xr, or) in xs.chunks_mut(n).zip(os.chunks_mut(h)) {
                if plan.process_with_scratch(xr, or, &mut scratch).is_err() {
                    failed.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
        },
    );
    stop.check()?;
    if !done {
        return Err(PANICKED);
    }
    if failed.into_inner() {
        return Err(internal("fft: realfft's buffers have the planned lengths"));
    }
    Ok(out)
}

/// The complex-to-real inverse of every row of `c` (rows of `from`, truncated or
/// zero-padded to `n/2 + 1`), scaled by `1/n`: rows of `n`. As DUCC's c2r, the imaginary
/// parts of the zero and (even `n`) Nyquist bins are not read.
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop.
fn irfft_rows<T: Float>(
    c: &[Complex<T>],
    (from, n): (usize, usize),
    (par, stop): (Parallel, &Stop),
) -> Result<Vec<T>> {
    let rows = c.len() / from.max(1);
    let mut out = vec![T::zero(); rows * n];
    if n == 0 || from == 0 {
        return Ok(out);
    }
    let h = n / 2 + 1;
    let plan = RealFftPlanner::<T>::new().plan_fft_inverse(n);
    let scale = T::from_f64(1.0 / n as f64).unwrap_or(T::one());
    let zero = Complex::new(T::zero(), T::zero());
    let per = (TASK / n).max(1);
    let elements = out.len();
    let tasks = out.chunks_mut(per * n).zip(c.chunks(per * from)).collect();
    let done = par.items(elements, tasks, |(os, cs): (&mut [T], &[Complex<T>])| {
        if stop.stopped() {
            return;
        }
        let mut line = vec![zero; h];
        let mut scratch = vec![zero; plan.get_scratch_len()];
        for (or, cr) in os.chunks_mut(n).zip(cs.chunks(from)) {
            let k = h.min(from);
            line[..k].copy_from_slice(&cr[..k]);
            line[k..].fill(zero);
            // The only error left with planned lengths is "a non-zero imaginary part
            // was ignored", which is the semantics wanted here.
            let _ = plan.process_with_scratch(&mut line, or, &mut scratch);
            or.iter_mut().for_each(|v| *v = *v * scale);
        }
    });
    stop.check()?;
    if !done {
        return Err(PANICKED);
    }
    Ok(out)
}

/// Admits the FFT's scratch to the memory budget: the working copy of the operand, the
/// result (at most the larger of operand and result) and a task's line buffer and
/// rustfft's scratch (each about [`TASK`] elements or a line, at most the data's size).
///
/// # Errors
/// [`crate::error::CpuError::ScratchOverBudget`] or [`crate::error::CpuError::Allocation`]
/// when they do not fit.
fn admit_scratch<T>(len: usize, dims: &[usize], out_dims: &[usize]) -> Result<()> {
    use crate::limits::scratch::{admit, bytes_of};
    let longest = dims.iter().chain(out_dims).copied().max().unwrap_or(0);
    let copies = len.max(count(out_dims));
    let task = longest.max(TASK).min(copies.max(longest));
    let elements = len
        .saturating_add(copies)
        .saturating_add(task.saturating_mul(2));
    admit(
        "fft (working copy, line buffers)",
        bytes_of::<Complex<T>>(elements),
    )
}

/// `fft` of type `ty` over the trailing `lengths.len()` dims.
///
/// # Errors
/// If the lengths do not fit the operand.
pub fn fft(
    x: &Literal,
    ty: FftType,
    lengths: &[i64],
    out: &Shape,
    par: Parallel,
) -> Result<Literal> {
    let (d, dims) = array(x)?;
    let l = lengths.len();
    if l == 0 || l > 3 || l > dims.len() {
        return Err(attribute(
            "fft",
            "fft_length",
            format!("{lengths:?}"),
            format!(
                "has {l} values for operand {}; it takes 1 to 3, at most the rank",
                x.shape()
            ),
        ));
    }
    let wide = [d.element_type(), out.element_type()]
        .iter()
        .any(|t| matches!(t, PrimitiveType::F64 | PrimitiveType::C128));
    let out_dims = dims_of(out)?;
    let v = if wide {
        transform::<f64>(d, dims, ty, lengths, &out_dims, par)?
    } else {
        transform::<f32>(d, dims, ty, lengths, &out_dims, par)?
    };
    if v.len() != count(&out_dims) {
        return Err(result_shape(
            "fft",
            format!(
                "the transform of {} under fft_length={lengths:?}",
                x.shape()
            ),
            out,
        ));
    }
    // The transform's type is the result's unless the result is wider or narrower (an
    // f32 transform of a c128 value is never planned, but keep the conversion general).
    let v = if v.element_type() == out.element_type() {
        v
    } else {
        convert(&v, out.element_type())?
    };
    make(out, v)
}

/// The transform in precision `T`: complex data for FFT, IFFT and RFFT, real for IRFFT.
fn transform<T: Float>(
    d: &ArrayData,
    mut dims: Vec<usize>,
    ty: FftType,
    lengths: &[i64],
    out_dims: &[usize],
    par: Parallel,
) -> Result<ArrayData> {
    admit_scratch::<T>(d.len(), &dims, out_dims)?;
    let rank = dims.len();
    let l = lengths.len();
    let axes: Vec<usize> = (rank - l..rank).collect();
    let last_len = usize::try_from(lengths[l - 1]).map_err(|_| {
        attribute(
            "fft",
            "fft_length",
            format!("{lengths:?}"),
            "has a negative length",
        )
    })?;
    let mut planner = FftPlanner::<T>::new();
    // The run's stop, taken once and polled per task of lines (`limits/stop.rs`).
    let stop = Stop::current();
    let run = (par, &stop);
    let complex = |d: &ArrayData| {
        T::complex(convert(d, T::COMPLEX)?)
            .ok_or_else(|| internal("fft: a conversion gives its target type"))
    };
    Ok(match ty {
        FftType::Fft | FftType::Ifft => {
            let mut v = complex(d)?;
            // The working copy of a large operand takes a while: a stop is seen here.
            stop.check()?;
            for &a in &axes {
                fft_axis(&mut planner, &mut v, (&dims, a), ty == FftType::Ifft, run)?;
            }
            T::wrap_complex(v)
        }
        FftType::Rfft => {
            let mut x = T::real(convert(d, T::REAL)?)
                .ok_or_else(|| internal("fft: a conversion gives its target type"))?;
            stop.check()?;
            if dims[rank - 1] != last_len {
                return Err(attribute(
                    "fft",
                    "fft_length",
                    format!("{lengths:?}"),
                    format!(
                        "must equal the operand's trailing dims for RFFT (last {})",
                        dims[rank - 1]
                    ),
                ));
            }
            let mut v = rfft_rows(&mut x, last_len, run)?;
            dims[rank - 1] = last_len / 2 + 1;
            for &a in &axes[..l - 1] {
                fft_axis(&mut planner, &mut v, (&dims, a), false, run)?;
            }
            T::wrap_complex(v)
        }
        // A one-dimensional inverse reads the operand line by line: no working copy.
        FftType::Irfft if l == 1 && T::complex_ref(d).is_some() => {
            let v = T::complex_ref(d).unwrap_or_default();
            T::wrap_real(irfft_rows(v, (dims[rank - 1], last_len), run)?)
        }
        FftType::Irfft => {
            let mut v = complex(d)?;
            stop.check()?;
            for &a in &axes[..l - 1] {
                fft_axis(&mut planner, &mut v, (&dims, a), true, run)?;
            }
            T::wrap_real(irfft_rows(&v, (dims[rank - 1], last_len), run)?)
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::parallel::Threads;
    use num_complex::Complex32;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        let mut x = seed;
        let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                match i % 997 {
                    0..=4 => special[i % 997],
                    _ => (x >> 8) as f32 / (1 << 24) as f32 - 0.5,
                }
            })
            .collect()
    }

    fn bits(l: &Literal) -> Vec<u32> {
        let canon = |v: f32| if v.is_nan() { u32::MAX } else { v.to_bits() };
        match l.data::<f32>() {
            Some(v) => v.iter().map(|&v| canon(v)).collect(),
            None => l
                .data::<Complex32>()
                .unwrap()
                .iter()
                .flat_map(|c| [canon(c.re), canon(c.im)])
                .collect(),
        }
    }

    /// Transforms large enough to be split (FFT and IFFT along the last and an inner
    /// axis, RFFT and IRFFT rows) give the same bits at two threads (tasks shared with
    /// the partner thread) as at one, NaN/±inf/±0 among the values.
    #[test]
    fn transforms_shared_with_the_partner_give_the_bits_of_one_thread() {
        let real = Literal::from_array_data(
            Shape::array(PrimitiveType::F32, vec![16, 32, 256]),
            ArrayData::F32(values(16 * 32 * 256, 1)),
        )
        .unwrap();
        let c: Vec<Complex32> = values(2 * 16 * 32 * 129, 2)
            .chunks(2)
            .map(|p| Complex32::new(p[0], p[1]))
            .collect();
        let complex = Literal::from_array_data(
            Shape::array(PrimitiveType::C64, vec![16, 32, 129]),
            ArrayData::C64(c),
        )
        .unwrap();
        let c64 = |d: Vec<i64>| Shape::array(PrimitiveType::C64, d);
        let cases = [
            (&real, FftType::Rfft, vec![256], c64(vec![16, 32, 129])),
            (&real, FftType::Rfft, vec![32, 256], c64(vec![16, 32, 129])),
            (
                &complex,
                FftType::Irfft,
                vec![256],
                Shape::array(PrimitiveType::F32, vec![16, 32, 256]),
            ),
            (&complex, FftType::Fft, vec![129], c64(vec![16, 32, 129])),
            (
                &complex,
                FftType::Ifft,
                vec![32, 129],
                c64(vec![16, 32, 129]),
            ),
        ];
        for (x, ty, lengths, out) in cases {
            let one = Threads::new(1);
            let want = bits(&fft(x, ty, &lengths, &out, one.parallel()).unwrap());
            let two = Threads::new(2);
            assert!(two.parallel().pair().is_some());
            for _ in 0..5 {
                let got = fft(x, ty, &lengths, &out, two.parallel()).unwrap();
                assert!(bits(&got) == want, "{ty:?} {lengths:?}");
            }
        }
    }
}
