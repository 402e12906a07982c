//! `vmap`: the batching transform. [`vmap_module`] turns a module computing `f(x, y, ...)`
//! into one computing `f` on a whole batch at once: each batched parameter gets an extra
//! dimension (its `in_axes` entry), the result gets one (its `out_axes` entry), and every
//! instruction is rewritten by its batching rule (JAX's `batching.py`), never by a loop
//! of calls unless an op has no batched form (then a `while` over the lanes runs it).
//!
//! Inside the transform the batch dimension of a batched value is always dimension 0;
//! values that do not depend on a batched parameter stay unbatched until they meet a
//! batched one, and are broadcast only there.
//!
//! Rules live in one file per op family (`elementwise`, `structural`, `indexing`,
//! `contraction`, `window`, `linalg`, `control`, `rng`, `collective`), the per-lane loop
//! in `lanes.rs` and the walk in `driver.rs`.

mod collective;
mod contraction;
mod control;
mod driver;
mod elementwise;
mod error;
mod indexing;
mod lanes;
mod linalg;
mod rng;
mod rules;
mod structural;
mod value;
mod window;

pub use error::VmapError;

use driver::Batcher;
use value::{force, move_axis, Bt, Val};
use xla_core::builder::{XlaBuilder, XlaOp};
use xla_core::{Computation, Module, Shape};

/// The batched module of `module`, whose parameters and result are those of one example.
///
/// - `in_axes[i]`: where parameter `i` of the batched module has the batch dimension
///   (`None`: the parameter is shared by every lane and keeps its shape). One entry per
///   parameter; an axis may be any position from 0 to the parameter's rank.
/// - `out_axes`: where each result gets the batch dimension: one entry for every result,
///   or one per element of the entry's result tuple (`None`: the result must not depend on
///   a batched input and keeps its shape).
/// - `size`: the batch size ([`batch_size`] finds it from the shapes of batched inputs).
///
/// ```
/// use xla_autodiff::vmap_module;
/// use xla_core::builder::XlaBuilder;
/// use xla_core::{PrimitiveType::F32, Shape};
///
/// // f(x, w) = x · w for one example x: f32[3] and shared weights w: f32[3, 2]
/// let b = XlaBuilder::new("f");
/// let x = b.parameter(0, Shape::array(F32, [3]), "x");
/// let w = b.parameter(1, Shape::array(F32, [3, 2]), "w");
/// let f = b.build_with_root(&b.dot(&x, &w)).unwrap();
///
/// // 5 examples as the columns of x (in_axes 1), w shared, results as rows
/// let g = vmap_module(&f, &[Some(1), None], &[Some(0)], 5).unwrap();
/// let entry = g.entry_computation().unwrap();
/// assert_eq!(entry.parameter_shapes()[0], Shape::array(F32, [3, 5]));
/// assert_eq!(entry.result_shape().unwrap(), &Shape::array(F32, [5, 2]));
/// ```
///
/// # Errors
/// [`VmapError`] when `in_axes` or `out_axes` has the wrong length or an axis out of
/// range, the size is not positive, an unbatched output depends on a batched input, or an
/// op has no batched form (a custom-call, a host transfer of batched data); the error
/// names the instruction.
pub fn vmap_module(
    module: &Module,
    in_axes: &[Option<usize>],
    out_axes: &[Option<usize>],
    size: i64,
) -> Result<Module, VmapError> {
    xla_core::verify::verify_module(module).map_err(|e| VmapError::Malformed {
        module: module.name.clone(),
        reason: e.to_string(),
    })?;
    let entry = module
        .entry_computation()
        .ok_or_else(|| VmapError::Malformed {
            module: module.name.clone(),
            reason: "no entry computation".into(),
        })?;
    let shapes = entry.parameter_shapes();
    check_in_axes(&shapes, in_axes)?;
    if !(1..=i64::from(i32::MAX)).contains(&size) {
        return Err(VmapError::BadSize { size });
    }
    let bat = Batcher::new(module, size);
    let b = XlaBuilder::new(&module.name);
    let args = parameters(&b, entry, &shapes, in_axes, size);
    let root = bat.run(&b, module.entry, &args)?;
    let result = entry
        .result_shape()
        .cloned()
        .unwrap_or_else(|| Shape::tuple(Vec::new()));
    let out = outputs(&b, &root, &result, out_axes, size)?;
    let mut m = crate::passes::simplify(b.build_with_root(&out)?)?;
    // The batched program runs on the same devices (its collectives span them); the
    // per-instruction `sharding=` annotations name instructions that no longer exist.
    m.config.replica_count = module.config.replica_count;
    m.config.num_partitions = module.config.num_partitions;
    Ok(m)
}

/// One entry per parameter, each batched one an array with the axis in `0..=rank`.
fn check_in_axes(shapes: &[Shape], in_axes: &[Option<usize>]) -> Result<(), VmapError> {
    if in_axes.len() != shapes.len() {
        return Err(VmapError::InAxesLength {
            given: in_axes.len(),
            params: shapes.len(),
        });
    }
    for (param, (s, ax)) in shapes.iter().zip(in_axes).enumerate() {
        if let Some(axis) = *ax {
            if !s.is_array() || axis > s.rank() {
                return Err(VmapError::InAxisOutOfRange {
                    param,
                    axis,
                    rank: s.rank(),
                    shape: Box::new(s.clone()),
                });
            }
        }
    }
    Ok(())
}

/// The batch size of batched inputs of shapes `inputs` (one per parameter; the batch
/// dimension of input `i` is `in_axes[i]`), or `size` when none is batched.
///
/// # Errors
/// [`VmapError::InAxesLength`], [`VmapError::InAxisOutOfRange`] (the axis is not a
/// dimension of the input), [`VmapError::SizeMismatch`] (two inputs disagree),
/// [`VmapError::SizeConflict`] (`size` disagrees with an input), [`VmapError::NoBatchSize`].
pub fn batch_size(
    inputs: &[Shape],
    in_axes: &[Option<usize>],
    size: Option<i64>,
) -> Result<i64, VmapError> {
    if in_axes.len() != inputs.len() {
        return Err(VmapError::InAxesLength {
            given: in_axes.len(),
            params: inputs.len(),
        });
    }
    let mut found: Option<(usize, i64)> = None;
    for (param, (s, ax)) in inputs.iter().zip(in_axes).enumerate() {
        let Some(axis) = *ax else { continue };
        let Some(&d) = s.is_array().then(|| s.dims().get(axis)).flatten() else {
            return Err(VmapError::InAxisOutOfRange {
                param,
                axis,
                rank: s.rank(),
                shape: Box::new(s.clone()),
            });
        };
        match found {
            Some((first, first_size)) if first_size != d => {
                return Err(VmapError::SizeMismatch {
                    first,
                    first_size,
                    param,
                    size: d,
                })
            }
            Some(_) => {}
            None => found = Some((param, d)),
        }
    }
    match (found, size) {
        (Some((param, d)), Some(given)) if given != d => Err(VmapError::SizeConflict {
            given,
            param,
            size: d,
        }),
        (Some((_, d)), _) => Ok(d),
        (None, Some(given)) => Ok(given),
        (None, None) => Err(VmapError::NoBatchSize),
    }
}

/// The batched module's parameters, each batched one with its batch dimension moved to 0.
fn parameters(
    b: &XlaBuilder,
    entry: &Computation,
    shapes: &[Shape],
    in_axes: &[Option<usize>],
    n: i64,
) -> Vec<Val> {
    let ids = entry.parameters();
    shapes
        .iter()
        .zip(in_axes)
        .enumerate()
        .map(|(i, (s, ax))| {
            let name = ids
                .get(i)
                .and_then(|&id| entry.get(id))
                .map_or("p", |ins| base_name(&ins.name));
            match ax {
                Some(axis) => {
                    let mut dims = s.dims().to_vec();
                    dims.insert((*axis).min(dims.len()), n);
                    let p = b.parameter(i as i64, Shape::array(s.element_type(), dims), name);
                    Val {
                        v: move_axis(b, &p, s.rank() + 1, *axis, 0),
                        bt: Bt::Leaf(true),
                    }
                }
                None => Val {
                    v: b.parameter(i as i64, s.clone(), name),
                    bt: Bt::uniform(s, false),
                },
            }
        })
        .collect()
}

/// The batched result: each result (tuple element of the root, or the root) with its batch
/// dimension at its `out_axes` entry.
fn outputs(
    b: &XlaBuilder,
    root: &Val,
    result: &Shape,
    out_axes: &[Option<usize>],
    n: i64,
) -> Result<XlaOp, VmapError> {
    let elems: Vec<Shape> = match result.tuple_elements() {
        Some(es) => es.to_vec(),
        None => vec![result.clone()],
    };
    if out_axes.len() != 1 && out_axes.len() != elems.len() {
        return Err(VmapError::OutAxesLength {
            given: out_axes.len(),
            results: elems.len(),
        });
    }
    if !result.is_tuple() {
        let axis = out_axes.first().copied().flatten();
        return place(b, root, result, axis, 0, n);
    }
    let mut parts = Vec::with_capacity(elems.len());
    for (k, e) in elems.iter().enumerate() {
        let axis = out_axes.get(k).or(out_axes.first()).copied().flatten();
        let v = Val {
            v: b.get_tuple_element(&root.v, k as i64),
            bt: root.bt.elem(k),
        };
        parts.push(place(b, &v, e, axis, k, n)?);
    }
    Ok(b.tuple(parts))
}

/// One result (`result` is its index, for messages) with its batch dimension at `axis`
/// (every array leaf of a tuple-shaped result).
fn place(
    b: &XlaBuilder,
    val: &Val,
    shape: &Shape,
    axis: Option<usize>,
    result: usize,
    n: i64,
) -> Result<XlaOp, VmapError> {
    let Some(axis) = axis else {
        if val.bt.any() {
            return Err(VmapError::OutNotUnbatched { result });
        }
        return Ok(val.v.clone());
    };
    if let Some(es) = shape.tuple_elements() {
        let mut parts = Vec::with_capacity(es.len());
        for (k, e) in es.iter().enumerate() {
            let v = Val {
                v: b.get_tuple_element(&val.v, k as i64),
                bt: val.bt.elem(k),
            };
            parts.push(place(b, &v, e, Some(axis), result, n)?);
        }
        return Ok(b.tuple(parts));
    }
    if !shape.is_array() {
        return Ok(val.v.clone());
    }
    if axis > shape.rank() {
        return Err(VmapError::OutAxisOutOfRange {
            result,
            axis,
            rank: shape.rank() + 1,
            shape: Box::new(shape.clone()),
        });
    }
    let full = force(b, val, shape, &Bt::Leaf(true), n);
    Ok(move_axis(b, &full, shape.rank() + 1, 0, axis))
}

/// `x.3` → `x`.
fn base_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((b, n)) if !b.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => name,
    }
}
