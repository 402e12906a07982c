//! Collectives: `all_reduce` (what `shard_map`'s `psum` and `pmap`'s collectives lower to),
//! with its replica groups (`dense<...> : tensor<GxKxi64>`), channel (`channel_handle`
//! in text, `channel_id` in VHLO) and `use_global_device_ids`, each operand reduced with
//! the region's combiner.

use super::{attrs, emit, err, LResult, Lowerer};
use crate::attrs::{CollectiveConfig, ReplicaGroups};
use crate::builder::{XlaBuilder, XlaOp};
use crate::ir::Op;
use crate::mlir::ast::{Attr, OpAst};
use crate::mlir::MlirErrorKind;

/// Lowers `op` if it is a collective.
pub(crate) fn lower(
    lw: &Lowerer<'_>,
    b: &XlaBuilder,
    op: &OpAst,
    short: &str,
    ops: &[XlaOp],
) -> LResult<Option<Vec<XlaOp>>> {
    if short != "all_reduce" {
        return Ok(None);
    }
    let region = op.regions.first().ok_or_else(|| {
        err(
            op,
            MlirErrorKind::Syntax,
            "all_reduce needs a combiner region",
        )
    })?;
    let to_apply = lw.region_comp(b, op, region, "reducer")?;
    let config = config(op)?;
    let mut out = Vec::with_capacity(ops.len());
    for x in ops {
        let op_ir = Op::AllReduce {
            config: config.clone(),
            to_apply: to_apply.id(),
        };
        out.push(emit(b, op, op_ir, std::slice::from_ref(x), None)?);
    }
    Ok(Some(out))
}

/// Replica groups, channel and device-id mode of a collective.
fn config(op: &OpAst) -> LResult<CollectiveConfig> {
    let flat = attrs::opt_ints(op, &["replica_groups"])?.unwrap_or_default();
    let width = match op.attr(&["replica_groups"]) {
        Some(Attr::Dense(_, Some(t))) => t
            .as_array()
            .and_then(|a| a.dims.get(1).copied())
            .and_then(|k| usize::try_from(k).ok()),
        _ => None,
    }
    .unwrap_or(flat.len())
    .max(1);
    let groups = flat.chunks(width).map(<[i64]>::to_vec).collect();
    let channel_id = match op.attr(&["channel_handle"]) {
        Some(Attr::Struct(_, f)) => attrs::field_ints(op, f, "handle")?.first().copied(),
        _ => attrs::opt_ints(op, &["channel_id"])?.and_then(|v| v.first().copied()),
    }
    .filter(|&c| c > 0);
    Ok(CollectiveConfig {
        replica_groups: ReplicaGroups { groups },
        channel_id,
        use_global_device_ids: attrs::flag(op, &["use_global_device_ids"], false)?,
        constrain_layout: false,
    })
}
