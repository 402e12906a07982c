//! HLO modules shared by the fused-kernel tests.

/// A row softmax of `ty[rows, cols]`, as JAX writes it without the `max(m, -inf)` guard.
pub fn softmax(ty: &str, rows: usize, cols: usize) -> String {
    format!(
        "HloModule s
mx {{ a = {ty}[] parameter(0)  b = {ty}[] parameter(1)  ROOT m = {ty}[] maximum(a, b) }}
sum {{ a = {ty}[] parameter(0)  b = {ty}[] parameter(1)  ROOT s = {ty}[] add(a, b) }}
ENTRY main {{
  x = {ty}[{rows},{cols}] parameter(0)
  ninf = {ty}[] constant(-inf)
  m = {ty}[{rows}] reduce(x, ninf), dimensions={{1}}, to_apply=mx
  bm = {ty}[{rows},{cols}] broadcast(m), dimensions={{0}}
  d = {ty}[{rows},{cols}] subtract(x, bm)
  e = {ty}[{rows},{cols}] exponential(d)
  zero = {ty}[] constant(0)
  s = {ty}[{rows}] reduce(e, zero), dimensions={{1}}, to_apply=sum
  bs = {ty}[{rows},{cols}] broadcast(s), dimensions={{0}}
  ROOT r = {ty}[{rows},{cols}] divide(e, bs)
}}"
    )
}
