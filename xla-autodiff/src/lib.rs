//! `xla-autodiff`: gradient graphs and batching (`vmap`) for HLO modules.
//!
//! Each transformation takes a [`Module`] and returns a new, ordinary HLO module built with
//! the `xla-core` builder (printable, verifiable, runnable, and differentiable again):
//!
//! - [`grad_module`]: the gradients of the entry's scalar result w.r.t. chosen parameters;
//! - [`value_and_grad_module`]: the result and those gradients;
//! - [`vjp_module`]: the vector-Jacobian product with a cotangent passed as an extra
//!   parameter;
//! - [`jvp_module`]: the Jacobian-vector product (forward mode) with tangents passed as
//!   extra parameters.
//! - [`vmap_module`]: the batching transform (JAX's `vmap`): the module of one example
//!   turned into the module of a batch, one batching rule per op (see [`vmap`]).
//!
//! ```
//! use xla_autodiff::grad_module;
//! use xla_core::builder::{Combiner, XlaBuilder};
//! use xla_core::{PrimitiveType::F32, Shape};
//!
//! // f(x) = sum(x * x)
//! let b = XlaBuilder::new("f");
//! let x = b.parameter(0, Shape::array(F32, [3]), "x");
//! let zero = b.constant_r0(0.0f32);
//! let y = b.reduce(&x * &x, &zero, &[0], Combiner::Add);
//! let f = b.build_with_root(&y).unwrap();
//!
//! // ∇f(x) = 2x, as a module with the same parameter and a one-element tuple result.
//! let g = grad_module(&f, None).unwrap();
//! let entry = g.entry_computation().unwrap();
//! assert_eq!(entry.parameter_shapes(), vec![Shape::array(F32, [3])]);
//! assert_eq!(entry.result_shape().unwrap(), &Shape::tuple(vec![Shape::array(F32, [3])]));
//! ```
//!
//! | family | rules |
//! |---|---|
//! | elementwise | every float unary and binary op (JAX's choices at kinks: `abs'(0) = 1`, max/min ties split 0.5/0.5, floor/ceil/round/sign have zero derivative), complex/real/imag, select, clamp, convert, reduce-precision, map |
//! | structural | tuple, get-tuple-element, broadcast (size-1 expansion, permuted dims), reshape, bitcast, copy, transpose, reverse, slice (strided), pad (negative and interior), concatenate, dynamic-slice, dynamic-update-slice, opt-barrier, add-dependency |
//! | indexing | gather → scatter-add (indices clamped as gather does); scatter, one operand or variadic (combining each operand with its own update), per component: add, multiply (exact with zero updates, any duplicates), max/min (ties split evenly with the operand, as JAX), replace (JAX's id scheme); updates whose window is skipped as out of bounds get no gradient |
//! | contraction | dot (general dimension numbers), convolution (padding, strides, both dilations, window reversal, feature and batch groups) |
//! | window | reduce add/mul (exact at zeros)/max/min and their init values, variadic per-operand and argmax-style reduces, reduce-window add and max/min (→ select-and-scatter; with dilation → an argmax reduce-window and a scatter-add; where the init value is the result it gets the cotangent), selecting variadic reduce-window w.r.t. both operands and init values, select-and-scatter (→ a selecting variadic reduce-window, itself differentiable) |
//! | linalg | batch-norm-training (→ batch-norm-grad), batch-norm-inference, batch-norm-grad, cholesky, triangular-solve (real and complex, every transpose mode), fft/ifft/rfft/irfft, sort (variadic), topk |
//! | control | call, conditional, while with a build-time trip count (`fori_loop`: unrolled up to 16 steps, else a stacking forward loop and a reverse loop) |
//!
//! Not differentiable (a typed error naming the instruction): rng ops, collectives,
//! communication and tokens, custom-call, bitcast-convert, while loops with a trip count
//! unknown at build time or whose state is not a flat tuple, scatter whose combiner is
//! not add/multiply/max/min/replace per component (e.g. an argmax-style variadic
//! scatter), reduce and reduce-window with other reducers (e.g. a multiply reduce-window,
//! a variadic reduce-window that does not select).
//! [`differentiability`] lists every opcode.
//!
//! Complex values follow JAX's convention: cotangents are not conjugated (the cotangent of
//! `z` for a real loss `L` is `∂L/∂re z - i ∂L/∂im z`), and [`jvp_module`] pairs complex
//! tangents by `Re Σ a·b`.
//!
//! Rules live in `rules/<family>.rs`; the forward replay (inlining calls, unrolling
//! `fori_loop`-style whiles) in `tape.rs`; the backward driver in `backward.rs`. An absent
//! cotangent means zero and is never materialised; integer and predicate values get no
//! gradient. Differentiating through an op without a rule is an
//! [`AutodiffError::NotDifferentiable`] naming the instruction, never a silent zero.
#![forbid(unsafe_code)]

mod backward;
mod error;
mod passes;
pub(crate) mod rules;
mod tape;
pub mod vmap;

pub use error::{AutodiffError, CoreError};
pub use rules::{differentiability, Differentiability};
pub use vmap::{batch_size, vmap_module, VmapError};

use backward::{backprop, ct_of_value, materialize, Ct};
use tape::Tape;
use xla_core::builder::XlaBuilder;
use xla_core::{Computation, Module, Shape};

/// What the differentiated module returns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `(grads...)`.
    Grad,
    /// `(value, grads...)`.
    ValueAndGrad,
    /// `(grads...)`, with the cotangent as an extra last parameter.
    Vjp,
}

/// The gradients of the entry's scalar floating-point result w.r.t. parameters `wrt` (in
/// that order; `None`: every floating-point parameter in parameter order), as a module
/// with the same parameters whose result is the tuple of gradients.
///
/// # Errors
/// [`AutodiffError`] when the result is not a floating-point scalar, a parameter does
/// not exist or is not floating point, or the gradient flows through an op without a
/// gradient rule (the error names the instruction and why).
pub fn grad_module(module: &Module, wrt: Option<&[usize]>) -> Result<Module, AutodiffError> {
    differentiate(module, wrt, Mode::Grad)
}

/// Like [`grad_module`], with the result first: `(value, grad_0, grad_1, ...)`.
///
/// # Errors
/// As [`grad_module`].
pub fn value_and_grad_module(
    module: &Module,
    wrt: Option<&[usize]>,
) -> Result<Module, AutodiffError> {
    differentiate(module, wrt, Mode::ValueAndGrad)
}

/// The vector-Jacobian product: a module with the entry's parameters plus one more, the
/// cotangent (of the result's shape, any shape), returning the tuple of cotangents of
/// the parameters `wrt` (default: every floating-point parameter).
///
/// # Errors
/// As [`grad_module`], except that the result may have any floating-point shape.
pub fn vjp_module(module: &Module, wrt: Option<&[usize]>) -> Result<Module, AutodiffError> {
    differentiate(module, wrt, Mode::Vjp)
}

/// The Jacobian-vector product (forward mode): a module with the entry's parameters plus
/// one tangent per parameter in `wrt` (same shapes, in that order), returning
/// `(value, tangent of the result)`.
///
/// Built as the transpose of the (linear) vjp: `J·v = ∇_u ⟨vjp(u), v⟩`, so every op with a
/// reverse rule whose gradient graph is itself differentiable has a forward rule.
///
/// # Errors
/// As [`vjp_module`], and when the backward graph of an op cannot be differentiated again.
pub fn jvp_module(module: &Module, wrt: Option<&[usize]>) -> Result<Module, AutodiffError> {
    jvp::jvp_module(module, wrt)
}

mod jvp;

fn malformed(module: &Module, reason: &str) -> AutodiffError {
    AutodiffError::Malformed {
        module: module.name.clone(),
        reason: reason.to_string(),
    }
}

/// The entry, its parameter shapes (in number order) and the checked `wrt` list.
fn entry_and_wrt<'m>(
    module: &'m Module,
    wrt: Option<&[usize]>,
) -> Result<(&'m Computation, Vec<Shape>, Vec<usize>), AutodiffError> {
    xla_core::verify::verify_module(module).map_err(|e| malformed(module, &e.to_string()))?;
    let entry = module
        .entry_computation()
        .ok_or_else(|| malformed(module, "no entry computation"))?;
    let shapes = entry.parameter_shapes();
    let wrt: Vec<usize> = match wrt {
        Some(w) => w.to_vec(),
        None => (0..shapes.len())
            .filter(|&i| is_float_array(&shapes[i]))
            .collect(),
    };
    for &i in &wrt {
        let shape = shapes.get(i).ok_or(AutodiffError::NoSuchParameter {
            index: i,
            count: shapes.len(),
        })?;
        if !tape::has_float(shape) {
            return Err(AutodiffError::NotFloatParameter {
                index: i,
                shape: Box::new(shape.clone()),
            });
        }
    }
    Ok((entry, shapes, wrt))
}

fn is_float_array(s: &Shape) -> bool {
    s.is_array() && s.element_type().is_float()
}

/// `x.3` → `x`.
fn base_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((b, n)) if !b.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => name,
    }
}

/// The entry replayed into a new builder: the builder, the tape, the input node of each
/// parameter and the root node.
struct Forward<'m> {
    b: XlaBuilder,
    tape: Tape<'m>,
    inputs: Vec<usize>,
    root: usize,
}

fn forward<'m>(
    module: &'m Module,
    entry: &Computation,
    shapes: &[Shape],
    wrt: &[usize],
) -> Result<Forward<'m>, AutodiffError> {
    let b = XlaBuilder::new(&module.name);
    let mut tape = Tape::new(module);
    let ids = entry.parameters();
    let mut inputs = Vec::with_capacity(shapes.len());
    for (i, s) in shapes.iter().enumerate() {
        let name = ids
            .get(i)
            .map_or("p", |&id| base_name(&entry.instr(id).name));
        let p = b.parameter(i as i64, s.clone(), name);
        inputs.push(tape.input(i as i64, p, s.clone(), wrt.contains(&i)));
    }
    let root = tape.replay(&b, module.entry, &inputs)?;
    Ok(Forward {
        b,
        tape,
        inputs,
        root,
    })
}

fn differentiate(
    module: &Module,
    wrt: Option<&[usize]>,
    mode: Mode,
) -> Result<Module, AutodiffError> {
    let (entry, shapes, wrt) = entry_and_wrt(module, wrt)?;
    let result = entry
        .result_shape()
        .ok_or_else(|| malformed(module, "the entry has no root"))?
        .clone();
    let scalar = |s: &Shape| s.is_scalar() && s.element_type().is_float();
    // A one-element tuple of a scalar (`(loss,)`) is differentiated like the scalar.
    let wrapped = result
        .tuple_elements()
        .is_some_and(|e| e.len() == 1 && scalar(&e[0]));
    if mode != Mode::Vjp && !scalar(&result) && !wrapped {
        return Err(AutodiffError::NonScalarResult {
            shape: Box::new(result),
        });
    }
    let fw = forward(module, entry, &shapes, &wrt)?;
    let b = &fw.b;
    let ct = match mode {
        Mode::Vjp => {
            let p = b.parameter(shapes.len() as i64, result.clone(), "cotangent");
            ct_of_value(b, &p, &result)
        }
        Mode::Grad | Mode::ValueAndGrad => {
            let one = |s: &Shape| Ct::Array(b.constant_scalar(s.element_type(), 1));
            match result.tuple_elements() {
                Some([e]) => Ct::Tuple(vec![Some(one(e))]),
                _ => one(&result),
            }
        }
    };
    let cts = backprop(b, &fw.tape, fw.root, ct)?;
    let mut outs = Vec::new();
    if mode == Mode::ValueAndGrad {
        outs.push(fw.tape.nodes[fw.root].value.clone());
    }
    for &i in &wrt {
        let ct = fw
            .inputs
            .get(i)
            .and_then(|&n| cts.get(n))
            .and_then(Option::as_ref);
        outs.push(materialize(b, ct, &shapes[i]));
    }
    let root = b.tuple(outs);
    let m = b.build_with_root(&root)?;
    Ok(passes::simplify(m)?)
}
