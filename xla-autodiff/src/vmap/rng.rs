//! Random numbers. `rng-bit-generator` with a batched state follows JAX's rule: lane 0's
//! state draws the bits of every lane at once (`[n, ...]`) and its new state replaces lane
//! 0's. `rng` with batched parameters runs per lane. `rng-get-and-update-state` has no
//! operands and is never batched.

use super::error::VmapError;
use super::rules::Cx;
use super::value::{with_batch, Bt, Val};
use xla_core::ir::RngAlgorithm;
use xla_core::{Op, Shape};

/// `rng` with a batched parameter.
pub(crate) fn rng(cx: &Cx) -> Result<Val, VmapError> {
    cx.lanes()
}

/// `rng-bit-generator(state)` with a batched state.
pub(crate) fn rng_bit_generator(cx: &Cx, algorithm: RngAlgorithm) -> Result<Val, VmapError> {
    let b = cx.b;
    let state = cx.shape(0);
    let Some([_, bits]) = cx.ins.shape.tuple_elements() else {
        return Err(cx.no_rule("its result is not a (state, bits) pair"));
    };
    let keys = cx.v(0);
    let k = state.dims().to_vec();
    let first = b.slice(
        &keys,
        &vec![0; k.len() + 1],
        with_batch(&state, 1).dims(),
        &vec![1; k.len() + 1],
    );
    let key = b.reshape(first, &k);
    let declared = Shape::tuple(vec![state.clone(), with_batch(bits, cx.n())]);
    let op = Op::RngBitGenerator { algorithm };
    let r = b.add_op(op, &[key], Some(declared));
    let new_key = b.reshape(b.get_tuple_element(&r, 0), with_batch(&state, 1).dims());
    let zero = b.constant_r0(0i32);
    let starts = vec![zero; k.len() + 1];
    let keys = b.dynamic_update_slice(&keys, new_key, &starts);
    Ok(Val {
        v: b.tuple([keys, b.get_tuple_element(&r, 1)]),
        bt: Bt::Tuple(vec![Bt::Leaf(true), Bt::Leaf(true)]),
    })
}
