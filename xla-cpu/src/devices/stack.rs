//! Per-device values stacked along a leading axis (the convention of the conformance cases
//! and the command line): an array `[D, ...]` holds device `d`'s value at index `d`.

use crate::error::{operand_count, operand_kind, CpuError, Result};
use crate::index::{data, make};
use crate::kernels::structural as st;
use xla_core::{Literal, Shape};

/// The error of [`split_devices`] for `x` not stacked on `devices`.
fn not_stacked(x: &Literal, devices: usize) -> CpuError {
    operand_kind(
        "split_devices",
        format!(
            "per-device values stacked along a leading axis of {devices} devices \
             (replicas × partitions)"
        ),
        x.shape(),
    )
}

/// Splits `x` of shape `[devices, dims...]` into `devices` values of shape `[dims...]`.
///
/// # Errors
/// [`CpuError::OperandKind`] if `x` is not an array whose leading axis is `devices`.
pub fn split_devices(x: &Literal, devices: usize) -> Result<Vec<Literal>> {
    let a = x
        .shape()
        .as_array()
        .ok_or_else(|| not_stacked(x, devices))?;
    match a.dims.first() {
        Some(&d) if usize::try_from(d).ok() == Some(devices) => {}
        _ => return Err(not_stacked(x, devices)),
    }
    let inner = Shape::array(a.ty, a.dims.get(1..).unwrap_or(&[]).to_vec());
    let d = data(x)?;
    let rows = d.len() / devices.max(1);
    (0..devices)
        .map(|k| {
            let idx: Vec<usize> = (k * rows..(k + 1) * rows).collect();
            make(&inner, st::take(d, &idx))
        })
        .collect()
}

/// Stacks same-shaped arrays along a new leading axis.
///
/// # Errors
/// [`CpuError::DeviceMismatch`] if the shapes differ, or a value is not an array.
pub fn stack_devices(parts: &[Literal]) -> Result<Literal> {
    let first = parts
        .first()
        .ok_or_else(|| operand_count("stack_devices", "at least 1 value", 0))?;
    let a = first
        .shape()
        .as_array()
        .ok_or_else(|| operand_kind("stack_devices", "arrays", first.shape()))?;
    let mut rows = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        if !p.shape().compatible(&first.shape().without_layout())
            && !p.shape().compatible(first.shape())
        {
            return Err(CpuError::DeviceMismatch(format!(
                "device 0 returned {} but device {k} returned {}",
                first.shape(),
                p.shape()
            )));
        }
        let mut dims = vec![1];
        dims.extend_from_slice(&a.dims);
        rows.push(make(&Shape::array(a.ty, dims), data(p)?.clone())?);
    }
    let mut dims = vec![parts.len() as i64];
    dims.extend_from_slice(&a.dims);
    let refs: Vec<&Literal> = rows.iter().collect();
    st::concatenate(&refs, 0, &Shape::array(a.ty, dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_then_stack() {
        let x = Literal::from_vec(&[3, 2], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
        let parts = split_devices(&x, 3).unwrap();
        assert_eq!(parts[1].data::<f32>(), Some(&[3f32, 4.][..]));
        assert_eq!(parts[1].shape().to_string(), "f32[2]");
        let back = stack_devices(&parts).unwrap();
        assert_eq!(back, x);
        assert!(split_devices(&x, 2).is_err());
    }
}
