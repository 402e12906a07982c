//! Control flow and composition: call, composite call, conditional, while, custom call.

use super::callee::Callee;
use super::{collect_ops, refs, XlaBuilder, XlaComputation, XlaOp};
use crate::ir::{CompId, Composite, CustomCallConfig, Op};
use crate::shape::Shape;
use std::borrow::Borrow;

impl XlaBuilder {
    /// Calls `computation` with `operands`.
    pub fn call<I>(&self, operands: I, computation: impl Callee) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        self.call_impl(collect_ops(operands), computation, None)
    }

    /// Calls `computation` as the composite `name` (XLA's `CompositeCall`): a call that
    /// keeps the composite's name, attributes (MLIR attribute syntax) and version.
    pub fn composite_call<I>(
        &self,
        operands: I,
        computation: impl Callee,
        name: &str,
        attributes: &str,
        version: i64,
    ) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let composite = Composite {
            name: name.to_string(),
            attributes: attributes.to_string(),
            version,
        };
        self.call_impl(collect_ops(operands), computation, Some(composite))
    }

    fn call_impl(
        &self,
        ops: Vec<XlaOp>,
        computation: impl Callee,
        composite: Option<Composite>,
    ) -> XlaOp {
        let Some(shapes) = self.shapes_of("call", &refs(&ops)) else {
            return self.poisoned();
        };
        let Some(to_apply) = self.callee(computation, "callee", &shapes) else {
            return self.poisoned();
        };
        self.emit(
            Op::Call {
                to_apply,
                composite,
            },
            &refs(&ops),
            None,
        )
    }

    /// Runs `true_computation(true_operand)` when `pred` holds, else
    /// `false_computation(false_operand)`.
    pub fn conditional(
        &self,
        pred: impl Borrow<XlaOp>,
        true_operand: impl Borrow<XlaOp>,
        true_computation: impl Callee,
        false_operand: impl Borrow<XlaOp>,
        false_computation: impl Callee,
    ) -> XlaOp {
        let ops = [pred.borrow(), true_operand.borrow(), false_operand.borrow()];
        let Some(shapes) = self.shapes_of("conditional", &ops) else {
            return self.poisoned();
        };
        let t = self.callee(true_computation, "true_computation", &shapes[1..2]);
        let f = self.callee(false_computation, "false_computation", &shapes[2..3]);
        let (Some(t), Some(f)) = (t, f) else {
            return self.poisoned();
        };
        self.emit(
            Op::Conditional {
                branches: vec![t, f],
            },
            &ops,
            None,
        )
    }

    /// Runs branch `branch_index` (S32; out of range runs the last) on its operand.
    pub fn conditional_indexed<C, I>(
        &self,
        branch_index: impl Borrow<XlaOp>,
        branches: impl IntoIterator<Item = C>,
        operands: I,
    ) -> XlaOp
    where
        C: Callee,
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let mut ops = vec![branch_index.borrow().clone()];
        ops.extend(collect_ops(operands));
        let Some(shapes) = self.shapes_of("conditional", &refs(&ops)) else {
            return self.poisoned();
        };
        let branches: Vec<C> = branches.into_iter().collect();
        if branches.len() + 1 != ops.len() {
            let msg = format!(
                "{} branches but {} branch operands",
                branches.len(),
                ops.len() - 1
            );
            return self.misuse("conditional", msg);
        }
        let ids: Option<Vec<CompId>> = branches
            .into_iter()
            .enumerate()
            .map(|(i, c)| self.callee(c, &format!("branch_{i}"), &shapes[i + 1..i + 2]))
            .collect();
        match ids {
            Some(branches) => self.emit(Op::Conditional { branches }, &refs(&ops), None),
            None => self.poisoned(),
        }
    }

    /// Runs `body` on the state while `condition` holds, starting from `init`.
    pub fn while_loop(
        &self,
        init: impl Borrow<XlaOp>,
        condition: impl Callee,
        body: impl Callee,
    ) -> XlaOp {
        let init = init.borrow();
        let Some(s) = self.shape_of("while", init) else {
            return self.poisoned();
        };
        let params = [s];
        let condition = self.callee(condition, "condition", &params);
        let body = self.callee(body, "body", &params);
        let (Some(condition), Some(body)) = (condition, body) else {
            return self.poisoned();
        };
        self.emit(Op::While { condition, body }, &[init], None)
    }

    /// Calls the function registered as `target` on `operands`, producing `shape`.
    pub fn custom_call<I>(
        &self,
        target: &str,
        operands: I,
        shape: Shape,
        backend_config: &str,
        has_side_effect: bool,
    ) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let config = CustomCallConfig {
            target: target.to_string(),
            backend_config: backend_config.to_string(),
            has_side_effect,
            api_version: String::new(),
        };
        self.custom_call_with_config(operands, shape, config, &[])
    }

    /// A custom call with a full configuration and called computations.
    pub fn custom_call_with_config<I>(
        &self,
        operands: I,
        shape: Shape,
        config: CustomCallConfig,
        called: &[XlaComputation],
    ) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
    {
        let ops = collect_ops(operands);
        let called: Option<Vec<CompId>> = called
            .iter()
            .map(|c| self.callee(c, "custom-call", &[]))
            .collect();
        let Some(called) = called else {
            return self.poisoned();
        };
        self.emit(Op::CustomCall { config, called }, &refs(&ops), Some(shape))
    }
}
