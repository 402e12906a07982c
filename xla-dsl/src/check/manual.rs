//! A partitioned computation's module as XLA runs it: `#[computation(partitions = P)]` with
//! `P > 1` is already the per-device program (JAX's `shard_map` body), so every instruction
//! is marked `sharding={manual}` and XLA's SPMD partitioner leaves it as it is. Without the
//! marks real XLA partitions the module as a global program: `partition-id` is then
//! rejected ("not supported for SPMD partitioning since the meaning is ambiguous").

use xla_core::{Module, Shape};

/// `{manual}` for an array (or token), one `{manual}` per leaf for a tuple: XLA wants a
/// tuple-shaped instruction's sharding to list its leaves.
fn manual(shape: &Shape) -> String {
    match shape.tuple_elements() {
        Some(_) => {
            let n = leaves(shape);
            format!("{{{}}}", vec!["{manual}"; n].join(", "))
        }
        None => "{manual}".to_string(),
    }
}

/// The array (and token) leaves of `shape`, nested tuples flattened.
fn leaves(shape: &Shape) -> usize {
    shape
        .tuple_elements()
        .map_or(1, |es| es.iter().map(leaves).sum())
}

/// Marks every instruction of every computation of `module` `sharding={manual}` when it
/// runs on more than one partition (a replicated-only module needs no sharding).
pub fn mark_manual(module: &mut Module) {
    if module.config.num_partitions <= 1 {
        return;
    }
    let marks: Vec<(String, String)> = module
        .computations
        .iter()
        .flat_map(|c| c.instructions.iter())
        .map(|i| (i.name.clone(), manual(&i.shape)))
        .collect();
    module.config.shardings.extend(marks);
}

#[cfg(test)]
mod tests {
    use super::*;
    use xla_core::PrimitiveType::F32;

    #[test]
    fn a_tuple_lists_its_leaves() {
        let a = Shape::array(F32, [2]);
        assert_eq!(manual(&a), "{manual}");
        let t = Shape::tuple([a.clone(), Shape::tuple([a.clone(), a])]);
        assert_eq!(manual(&t), "{{manual}, {manual}, {manual}}");
    }
}
