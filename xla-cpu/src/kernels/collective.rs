//! Custom calls to registered host functions (and the built-in LAPACK targets), and host transfers (infeed, outfeed, send,
//! recv) through the executable's queues. (The collectives are in `crate::devices`.)

use crate::error::{operand_kind, CpuError, CustomCallFailure, Result};
use crate::kernels::host::Host;
use xla_core::attrs::CustomCallConfig;
use xla_core::{Literal, Shape};

/// `custom-call` to a function registered with
/// [`Executable::register_custom_call`](crate::Executable::register_custom_call).
///
/// # Errors
/// If no function is registered under the target name, or it fails.
pub fn custom_call(
    cx: &dyn Host,
    a: &[&Literal],
    config: &CustomCallConfig,
    out: &Shape,
) -> Result<Literal> {
    let registered = cx.custom_call(&config.target);
    if registered.is_none() {
        let par = cx.parallel();
        if let Some(r) = super::dot_perm::call(&config.target, a, &config.backend_config, out, par)
        {
            return r;
        }
        if let Some(r) = super::dot_add::call(&config.target, a, &config.backend_config, out, par) {
            return r;
        }
        let built_in = super::lapack::call(
            &config.target,
            a,
            &config.backend_config,
            out,
            cx.parallel(),
        );
        if let Some(r) = built_in {
            return r.map_err(|e| CpuError::CustomCall {
                target: config.target.clone(),
                failure: CustomCallFailure::BuiltIn(Box::new(e)),
            });
        }
    }
    let f = registered.ok_or_else(|| CpuError::CustomCall {
        target: config.target.clone(),
        failure: CustomCallFailure::NotRegistered,
    })?;
    let copies = a
        .iter()
        .map(|l| crate::limits::bytes::shape_bytes(l.shape()));
    cx.admit("custom-call", copies.fold(0, u64::saturating_add))?;
    let args: Vec<Literal> = a.iter().map(|l| (*l).clone()).collect();
    let r = f(&args, out, &config.backend_config).map_err(|e| CpuError::CustomCall {
        target: config.target.clone(),
        failure: CustomCallFailure::Host(e),
    })?;
    if !r.shape().compatible(out) {
        return Err(CpuError::CustomCall {
            target: config.target.clone(),
            failure: CustomCallFailure::WrongResult {
                // Boxed: two shapes inline made every executor `Result` 184 bytes.
                returned: Box::new(r.shape().clone()),
                declared: Box::new(out.clone()),
            },
        });
    }
    Ok(r)
}

/// `send(data, token)` to the host: queues `data` on the channel; returns `(data, u32[], token)`.
///
/// # Errors
/// If the host queues are unusable.
pub fn send(cx: &dyn Host, x: &Literal, channel: i64) -> Result<Literal> {
    cx.host_queues()?
        .sent
        .entry(channel)
        .or_default()
        .push(x.clone());
    Ok(Literal::tuple(vec![
        x.clone(),
        Literal::scalar(0u32),
        Literal::token(),
    ]))
}

/// `recv(token)` from the host: `(data, u32[], token)` with data from the channel's queue.
///
/// # Errors
/// If the queue is empty or the value's shape differs from the declared one.
pub fn recv(cx: &dyn Host, channel: i64, out: &Shape) -> Result<Literal> {
    let v = cx
        .host_queues()?
        .recv
        .get_mut(&channel)
        .and_then(|q| q.pop_front())
        .ok_or_else(|| CpuError::QueueEmpty(format!("recv on channel {channel}")))?;
    let want = out.tuple_elements().and_then(|t| t.first());
    if want.is_some_and(|w| !w.compatible(v.shape())) {
        return Err(CpuError::HostValueShape {
            op: "recv",
            queued: Box::new(v.shape().clone()),
            declared: Box::new(out.clone()),
        });
    }
    Ok(Literal::tuple(vec![
        v,
        Literal::scalar(0u32),
        Literal::token(),
    ]))
}

/// `recv-done(recv)` → `(data, token)`.
///
/// # Errors
/// If the operand is not a recv's tuple.
pub fn recv_done(r: &Literal) -> Result<Literal> {
    let data = r
        .tuple_elements()
        .and_then(|t| t.first())
        .ok_or_else(|| operand_kind("recv-done", "the tuple of a recv", r.shape()))?;
    Ok(Literal::tuple(vec![data.clone(), Literal::token()]))
}

/// `infeed(token)` → `(data, token)` with data from the infeed queue.
///
/// # Errors
/// If the queue is empty or the value's shape differs from the declared one.
pub fn infeed(cx: &dyn Host, out: &Shape) -> Result<Literal> {
    let v = cx
        .host_queues()?
        .infeed
        .pop_front()
        .ok_or_else(|| CpuError::QueueEmpty("infeed".into()))?;
    let want = out.tuple_elements().and_then(|t| t.first());
    if want.is_some_and(|w| !w.compatible(v.shape())) {
        return Err(CpuError::HostValueShape {
            op: "infeed",
            queued: Box::new(v.shape().clone()),
            declared: Box::new(out.clone()),
        });
    }
    Ok(Literal::tuple(vec![v, Literal::token()]))
}

/// `outfeed(data, token)`: appends `data` to the outfeed queue; returns a token.
///
/// # Errors
/// If the host queues are unusable.
pub fn outfeed(cx: &dyn Host, x: &Literal) -> Result<Literal> {
    cx.host_queues()?.outfeed.push(x.clone());
    Ok(Literal::token())
}
