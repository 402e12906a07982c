//! Shape rules: control flow — call, conditional, while and custom-call.

use super::validators::*;
use super::{ProgramShape, ShapeError};
use crate::shape::Shape;
use crate::types::PrimitiveType;

/// The shape of `call(args...)`: `to_apply`'s result; the arguments match its parameters.
///
/// # Errors
/// When the arity or an argument shape differs.
pub fn call(args: &[&Shape], to_apply: &ProgramShape) -> Result<Shape, ShapeError> {
    let name = "call";
    if args.len() != to_apply.parameters.len() {
        return Err(ShapeError::new(
            name,
            format!(
                "to_apply {to_apply} takes {} parameters but {} arguments were given ({})",
                to_apply.parameters.len(),
                args.len(),
                fmt_shapes(args)
            ),
        ));
    }
    for (i, (a, p)) in args.iter().zip(&to_apply.parameters).enumerate() {
        if !a.compatible(p) {
            return Err(ShapeError::at_operand(
                name,
                i,
                format!("argument {i} {a} does not match parameter {p} of to_apply {to_apply}"),
            ));
        }
    }
    Ok(to_apply.result.without_layout())
}

/// The shape of `conditional(selector, operands...)`: the branches' common result. The
/// selector is `pred[]` (exactly two branches: true, false) or `s32[]` (at least one branch);
/// branch `b` takes exactly one parameter matching operand `b`.
///
/// # Errors
/// When any of these rules is broken.
pub fn conditional(
    selector: &Shape,
    operands: &[&Shape],
    branches: &[ProgramShape],
) -> Result<Shape, ShapeError> {
    let name = "conditional";
    let s = expect_scalar(name, 0, "selector", selector)?;
    match s.ty {
        PrimitiveType::Pred if branches.len() != 2 => {
            return Err(ShapeError::new(
                name,
                format!(
                    "a pred[] selector needs exactly 2 branches, got {}",
                    branches.len()
                ),
            ));
        }
        PrimitiveType::Pred => {}
        PrimitiveType::S32 if branches.is_empty() => {
            return Err(ShapeError::new(name, "needs at least one branch"))
        }
        PrimitiveType::S32 => {}
        _ => {
            return Err(ShapeError::at_operand(
                name,
                0,
                format!("selector must be pred[] or s32[], got {s}"),
            ))
        }
    }
    if operands.len() != branches.len() {
        return Err(ShapeError::new(
            name,
            format!(
                "expects one operand per branch ({}), got {}",
                branches.len(),
                operands.len()
            ),
        ));
    }
    let first = branches
        .first()
        .ok_or_else(|| ShapeError::new(name, "needs at least one branch"))?;
    for (b, (comp, arg)) in branches.iter().zip(operands).enumerate() {
        match comp.parameters.as_slice() {
            [p] if p.compatible(arg) => {}
            _ => return Err(ShapeError::at_operand(name, b + 1, format!("branch {b} {comp} must take exactly one parameter of the operand's shape {arg}"))),
        }
        if !comp.result.compatible(&first.result) {
            return Err(ShapeError::new(
                name,
                format!(
                    "branch {b} returns {} but branch 0 returns {}",
                    comp.result, first.result
                ),
            ));
        }
    }
    Ok(first.result.without_layout())
}

/// The shape of `while(init)`: init's. `condition` is `(T) -> pred[]`, `body` is `(T) -> T`.
///
/// # Errors
/// When any of these rules is broken.
pub fn while_loop(
    init: &Shape,
    condition: &ProgramShape,
    body: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let name = "while";
    match condition.parameters.as_slice() {
        [p] if p.compatible(init) => {}
        _ => {
            return Err(ShapeError::new(
                name,
                format!(
                "condition {condition} must take exactly one parameter of the init shape {init}"
            ),
            ))
        }
    }
    if !condition
        .result
        .compatible(&Shape::scalar(PrimitiveType::Pred))
    {
        return Err(ShapeError::new(
            name,
            format!("condition must return pred[], got {}", condition.result),
        ));
    }
    match body.parameters.as_slice() {
        [p] if p.compatible(init) && body.result.compatible(init) => {}
        _ => {
            return Err(ShapeError::new(
                name,
                format!("body {body} must be (T) -> T with T the init shape {init}"),
            ))
        }
    }
    Ok(init.without_layout())
}

/// The shape of `custom-call`: the declared shape (the target decides).
///
/// # Errors
/// When the declared shape has a negative dimension.
pub fn custom_call(declared: &Shape) -> Result<Shape, ShapeError> {
    expect_valid_shape("custom-call", "result", declared)?;
    Ok(declared.without_layout())
}
