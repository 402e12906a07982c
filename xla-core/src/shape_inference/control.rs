//! Shape rules: control flow — call, conditional, while and custom-call.

use super::validators::*;
use super::{CalleeRule, OperandsRule, ProgramShape, ShapeError, ShapeRule};
use crate::shape::Shape;
use crate::types::PrimitiveType;

/// The shape of `call(args...)`: `to_apply`'s result; the arguments match its parameters.
///
/// # Errors
/// When the arity or an argument shape differs.
pub fn call(args: &[&Shape], to_apply: &ProgramShape) -> Result<Shape, ShapeError> {
    let name = "call";
    if args.len() != to_apply.parameters.len() {
        let args = args.iter().map(|a| (*a).clone()).collect();
        let rule = CalleeRule::Arguments { args };
        return Err(ShapeError::rule(name, callee("to_apply", to_apply, rule)));
    }
    for (i, (a, p)) in args.iter().zip(&to_apply.parameters).enumerate() {
        if !a.compatible(p) {
            let rule = CalleeRule::Argument {
                index: i,
                arg: (*a).clone(),
            };
            return Err(ShapeError::rule_at(
                name,
                i,
                callee("to_apply", to_apply, rule),
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
            let rule = OperandsRule::PredBranches {
                found: branches.len(),
            };
            return Err(ShapeError::rule(name, ShapeRule::Operands(rule)));
        }
        PrimitiveType::Pred => {}
        PrimitiveType::S32 if branches.is_empty() => {
            return Err(ShapeError::rule(
                name,
                ShapeRule::Operands(OperandsRule::NoBranch),
            ))
        }
        PrimitiveType::S32 => {}
        _ => {
            let rule = ShapeRule::Form {
                what: "selector".into(),
                expected: "pred[] or s32[]".into(),
                found: selector.clone(),
            };
            return Err(ShapeError::rule_at(name, 0, rule));
        }
    }
    if operands.len() != branches.len() {
        let rule = OperandsRule::OnePerBranch {
            branches: branches.len(),
            found: operands.len(),
        };
        return Err(ShapeError::rule(name, ShapeRule::Operands(rule)));
    }
    let first = branches
        .first()
        .ok_or_else(|| ShapeError::rule(name, ShapeRule::Operands(OperandsRule::NoBranch)))?;
    for (b, (comp, arg)) in branches.iter().zip(operands).enumerate() {
        match comp.parameters.as_slice() {
            [p] if p.compatible(arg) => {}
            _ => {
                let (of, shape) = ("the operand's shape".into(), (*arg).clone());
                let rule = callee(
                    &format!("branch {b}"),
                    comp,
                    CalleeRule::OneParameter { of, shape },
                );
                return Err(ShapeError::rule_at(name, b + 1, rule));
            }
        }
        if !comp.result.compatible(&first.result) {
            let rule = CalleeRule::SameResult {
                first: first.result.clone(),
            };
            return Err(ShapeError::rule(
                name,
                callee(&format!("branch {b}"), comp, rule),
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
            let (of, shape) = ("the init shape".into(), init.clone());
            let rule = callee(
                "condition",
                condition,
                CalleeRule::OneParameter { of, shape },
            );
            return Err(ShapeError::rule(name, rule));
        }
    }
    if !condition
        .result
        .compatible(&Shape::scalar(PrimitiveType::Pred))
    {
        let rule = callee("condition", condition, CalleeRule::PredResult);
        return Err(ShapeError::rule(name, rule));
    }
    match body.parameters.as_slice() {
        [p] if p.compatible(init) && body.result.compatible(init) => {}
        _ => {
            let rule = CalleeRule::Loop { init: init.clone() };
            return Err(ShapeError::rule(name, callee("body", body, rule)));
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
