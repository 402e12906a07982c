//! `fft`: FFT, IFFT, RFFT and IRFFT over up to three trailing dims, computed in c128 with
//! `rustfft` and rounded once to the result type.

use crate::error::{attribute, internal, result_shape, Result};
use crate::index::{array, count, dims_of, make};
use crate::limits::stop::{Poll, POLL_EVERY};
use num_complex::Complex64 as C;
use rustfft::FftPlanner;
use xla_core::attrs::FftType;
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

use super::elementwise::convert;

/// Transforms every line of `data` (dims `dims`) along `axis` in place; the inverse is
/// scaled by `1/n`. The run's stop is polled between blocks of lines (`limits/stop.rs`).
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop.
fn fft_axis(
    planner: &mut FftPlanner<f64>,
    data: &mut [C],
    dims: &[usize],
    axis: usize,
    inverse: bool,
) -> Result<()> {
    let n = dims[axis];
    if n == 0 || data.is_empty() {
        return Ok(());
    }
    // A line of `n` points costs about `n log n`: counted as `n` units per line.
    let mut poll = Poll::new(data.len());
    let inner = count(&dims[axis + 1..]);
    let outer = count(&dims[..axis]);
    let plan = if inverse {
        planner.plan_fft_inverse(n)
    } else {
        planner.plan_fft_forward(n)
    };
    let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
    let mut scratch = vec![C::new(0.0, 0.0); plan.get_inplace_scratch_len()];
    if inner == 1 {
        // Lines along the last axis are contiguous: one call transforms them all (rustfft
        // takes a buffer of consecutive lines) with one scratch, instead of a copy in and
        // out and a scratch allocation per line (an irfft of f32[32,32,256]: 2.2 ms).
        // Blocks of whole lines, about one poll interval each.
        let block = (POLL_EVERY / n).max(1) * n;
        for part in data.chunks_mut(block) {
            poll.tick(part.len())?;
            plan.process_with_scratch(part, &mut scratch);
            if inverse {
                part.iter_mut().for_each(|l| *l *= scale);
            }
        }
        return Ok(());
    }
    let mut line = vec![C::new(0.0, 0.0); n];
    for o in 0..outer {
        for i in 0..inner {
            poll.tick(n)?;
            let base = o * n * inner + i;
            for (k, l) in line.iter_mut().enumerate() {
                *l = data[base + k * inner];
            }
            plan.process_with_scratch(&mut line, &mut scratch);
            for (k, l) in line.iter().enumerate() {
                data[base + k * inner] = *l * scale;
            }
        }
    }
    Ok(())
}

/// Resizes the last axis from `from` to `to` elements: truncating, or (when `hermitian`)
/// extending a half spectrum by conjugate symmetry.
fn resize_last(data: &[C], dims: &[usize], to: usize, hermitian: bool) -> Vec<C> {
    let from = dims.last().copied().unwrap_or(1);
    let rows = count(dims) / from.max(1);
    let mut out = Vec::with_capacity(rows * to);
    for r in 0..rows {
        let row = &data[r * from..(r + 1) * from];
        for k in 0..to {
            let v = if k < from && (!hermitian || k <= to / 2) {
                row[k]
            } else if hermitian && to - k < from {
                row[to - k].conj()
            } else {
                C::new(0.0, 0.0)
            };
            out.push(v);
        }
    }
    out
}

/// Admits the FFT's scratch to the memory budget: the c128 working copy of the operand,
/// the resized copy of an rfft/irfft's last axis (at most the larger of operand and
/// result), and the line buffer with rustfft's own scratch (two lines of the longest axis).
///
/// # Errors
/// [`crate::error::CpuError::ScratchOverBudget`] or [`crate::error::CpuError::Allocation`]
/// when they do not fit.
fn admit_scratch(len: usize, dims: &[usize], out_dims: &[usize]) -> Result<()> {
    use crate::limits::scratch::{admit, bytes_of};
    let longest = dims.iter().chain(out_dims).copied().max().unwrap_or(0);
    let copies = len.max(count(out_dims));
    let elements = len
        .saturating_add(copies)
        .saturating_add(longest.saturating_mul(2));
    admit(
        "fft (c128 working copy, line buffers)",
        bytes_of::<C>(elements),
    )
}

/// `fft` of type `ty` over the trailing `lengths.len()` dims.
///
/// # Errors
/// If the lengths do not fit the operand.
pub fn fft(x: &Literal, ty: FftType, lengths: &[i64], out: &Shape) -> Result<Literal> {
    let (d, mut dims) = array(x)?;
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
    admit_scratch(d.len(), &dims, &dims_of(out)?)?;
    let mut v = match convert(d, PrimitiveType::C128)? {
        ArrayData::C128(v) => v,
        _ => return Err(internal("conversion to c128 gives c128 data")),
    };
    let out_dims = dims_of(out)?;
    let rank = dims.len();
    let axes: Vec<usize> = (rank - l..rank).collect();
    let mut planner = FftPlanner::new();
    match ty {
        FftType::Fft | FftType::Ifft => {
            for &a in &axes {
                fft_axis(&mut planner, &mut v, &dims, a, ty == FftType::Ifft)?;
            }
        }
        FftType::Rfft => {
            for &a in &axes {
                fft_axis(&mut planner, &mut v, &dims, a, false)?;
            }
            let half = out_dims.last().copied().unwrap_or(0);
            v = resize_last(&v, &dims, half, false);
        }
        FftType::Irfft => {
            for &a in &axes[..l - 1] {
                fft_axis(&mut planner, &mut v, &dims, a, true)?;
            }
            let n = usize::try_from(lengths[l - 1]).map_err(|_| {
                attribute(
                    "fft",
                    "fft_length",
                    format!("{lengths:?}"),
                    "has a negative length",
                )
            })?;
            v = resize_last(&v, &dims, n, true);
            dims[rank - 1] = n;
            fft_axis(&mut planner, &mut v, &dims, rank - 1, true)?;
        }
    }
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
    make(out, convert(&ArrayData::C128(v), out.element_type())?)
}
