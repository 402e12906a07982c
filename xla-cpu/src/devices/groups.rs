//! Which devices a collective spans: XLA's group modes (decided by `channel_id` and
//! `use_global_device_ids`) and the device groups they make of `replica_groups`, as pure
//! functions of the topology (no transport).
//!
//! Devices are numbered globally: device = replica × partitions + partition.

use crate::error::{CpuError, Result};

/// How the ids in `replica_groups` are read (XLA's `CollectiveOpGroupMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupMode {
    /// Ids are replicas; each group runs within every partition separately.
    CrossReplica,
    /// Ids are partitions; each group runs within every replica separately.
    CrossPartition,
    /// Ids are replicas; a group spans those replicas in every partition.
    CrossReplicaAndPartition,
    /// Ids are global device ids.
    FlattenedId,
}

/// The group mode as XLA decides it: no channel → cross-replica; a channel and no
/// `use_global_device_ids` attribute (all-to-all, collective-permute, collective-broadcast)
/// → cross-partition; a channel with `use_global_device_ids=false` → cross-replica and
/// partition; with `true` → flattened ids.
///
/// # Errors
/// `use_global_device_ids=true` without a channel.
pub fn group_mode(has_channel: bool, use_global_device_ids: Option<bool>) -> Result<GroupMode> {
    match (has_channel, use_global_device_ids) {
        (false, Some(true)) => Err(CpuError::ReplicaGroups(
            "use_global_device_ids=true needs a channel_id".into(),
        )),
        (false, None | Some(false)) => Ok(GroupMode::CrossReplica),
        (true, None) => Ok(GroupMode::CrossPartition),
        (true, Some(false)) => Ok(GroupMode::CrossReplicaAndPartition),
        (true, Some(true)) => Ok(GroupMode::FlattenedId),
    }
}

/// The devices of a module: `replicas × partitions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Replica count.
    pub replicas: usize,
    /// Partition count.
    pub partitions: usize,
}

impl Topology {
    /// The number of devices.
    pub fn devices(&self) -> usize {
        self.replicas * self.partitions
    }

    /// The global id of (replica, partition).
    pub fn device(&self, replica: usize, partition: usize) -> usize {
        replica * self.partitions + partition
    }

    /// How many ids `replica_groups` ranges over in `mode`.
    fn id_count(&self, mode: GroupMode) -> usize {
        match mode {
            GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => self.replicas,
            GroupMode::CrossPartition => self.partitions,
            GroupMode::FlattenedId => self.devices(),
        }
    }
}

fn what(mode: GroupMode) -> &'static str {
    match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => "replica",
        GroupMode::CrossPartition => "partition",
        GroupMode::FlattenedId => "device",
    }
}

/// `groups` checked to be a partition of `0..n` (empty: one group of all).
fn id_groups(groups: &[Vec<i64>], n: usize, mode: GroupMode) -> Result<Vec<Vec<usize>>> {
    if groups.is_empty() {
        if mode == GroupMode::FlattenedId {
            return Err(CpuError::ReplicaGroups(
                "replica_groups cannot be empty with use_global_device_ids=true".into(),
            ));
        }
        return Ok(vec![(0..n).collect()]);
    }
    let mut seen = vec![false; n];
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        let mut ids = Vec::with_capacity(g.len());
        for &id in g {
            let slot = usize::try_from(id).ok().and_then(|i| seen.get_mut(i));
            let Some(slot) = slot else {
                return Err(CpuError::ReplicaGroups(format!(
                    "{} id {id} in replica_groups={} is out of range (there are {n})",
                    what(mode),
                    show(groups)
                )));
            };
            if *slot {
                return Err(CpuError::ReplicaGroups(format!(
                    "{} {id} appears twice in replica_groups={}",
                    what(mode),
                    show(groups)
                )));
            }
            *slot = true;
            ids.push(id as usize);
        }
        out.push(ids);
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(CpuError::ReplicaGroups(format!(
            "replica_groups={} do not cover {} {missing} (the groups must partition the {n} {}s)",
            show(groups),
            what(mode),
            what(mode)
        )));
    }
    Ok(out)
}

/// `{{0,1},{2,3}}`.
pub fn show(groups: &[Vec<i64>]) -> String {
    let inner: Vec<String> = groups
        .iter()
        .map(|g| {
            let ids: Vec<String> = g.iter().map(i64::to_string).collect();
            format!("{{{}}}", ids.join(","))
        })
        .collect();
    format!("{{{}}}", inner.join(","))
}

/// Every device group of a collective, each in group order (XLA's
/// `GetParticipatingDevicesGroups`).
///
/// # Errors
/// If the groups do not partition the ids of the mode.
pub fn device_groups(
    topo: Topology,
    groups: &[Vec<i64>],
    mode: GroupMode,
) -> Result<Vec<Vec<usize>>> {
    let ids = id_groups(groups, topo.id_count(mode), mode)?;
    let mut out = Vec::new();
    for g in &ids {
        match mode {
            GroupMode::CrossReplica => {
                for p in 0..topo.partitions {
                    out.push(g.iter().map(|&r| topo.device(r, p)).collect());
                }
            }
            GroupMode::CrossPartition => {
                for r in 0..topo.replicas {
                    out.push(g.iter().map(|&p| topo.device(r, p)).collect());
                }
            }
            GroupMode::CrossReplicaAndPartition => out.push(
                g.iter()
                    .flat_map(|&r| (0..topo.partitions).map(move |p| topo.device(r, p)))
                    .collect(),
            ),
            GroupMode::FlattenedId => out.push(g.clone()),
        }
    }
    Ok(out)
}

/// The group of `device` and its position in it.
///
/// # Errors
/// If the groups do not partition the ids, or `device` is in none.
pub fn group_of(
    topo: Topology,
    groups: &[Vec<i64>],
    mode: GroupMode,
    device: usize,
) -> Result<(Vec<usize>, usize)> {
    device_groups(topo, groups, mode)?
        .into_iter()
        .find_map(|g| g.iter().position(|&d| d == device).map(|k| (g.clone(), k)))
        .ok_or_else(|| {
            CpuError::ReplicaGroups(format!(
                "device {device} is in no group of replica_groups={}",
                show(groups)
            ))
        })
}

/// What `collective-permute` does on one device: the devices it exchanges with (those sharing
/// its partition without a channel, its replica with one), and the positions among them of the
/// device it sends to (`None`: it sends nothing) and of the device it receives from (`None`:
/// it gets zeros).
///
/// # Errors
/// A repeated source or target. (A pair naming a device that does not exist moves nothing.)
pub fn permute_plan(
    topo: Topology,
    pairs: &[(i64, i64)],
    has_channel: bool,
    device: usize,
) -> Result<(Vec<usize>, Option<usize>, Option<usize>)> {
    let (replica, partition) = (device / topo.partitions, device % topo.partitions);
    let (peers, me, n, kind): (Vec<usize>, usize, usize, &str) = if has_channel {
        let peers = (0..topo.partitions)
            .map(|p| topo.device(replica, p))
            .collect();
        (peers, partition, topo.partitions, "partition")
    } else {
        let peers = (0..topo.replicas)
            .map(|r| topo.device(r, partition))
            .collect();
        (peers, replica, topo.replicas, "replica")
    };
    let mut sources = std::collections::HashSet::new();
    let mut targets = std::collections::HashSet::new();
    let (mut to, mut from) = (None, None);
    for &(s, t) in pairs {
        for (id, seen, role) in [(s, &mut sources, "source"), (t, &mut targets, "target")] {
            if !seen.insert(id) {
                return Err(CpuError::ReplicaGroups(format!(
                    "collective-permute: {kind} {id} is the {role} of two pairs"
                )));
            }
        }
        // A pair naming a device that does not exist moves nothing (as with one replica,
        // where `{0,1}` leaves replica 0 without a source).
        let (Ok(s), Ok(t)) = (usize::try_from(s), usize::try_from(t)) else {
            continue;
        };
        if t == me && s < n {
            from = Some(s);
        }
        if s == me && t < n {
            to = Some(t);
        }
    }
    Ok((peers, to, from))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T22: Topology = Topology {
        replicas: 2,
        partitions: 2,
    };

    #[test]
    fn modes_follow_xla() {
        assert_eq!(
            group_mode(false, Some(false)).unwrap(),
            GroupMode::CrossReplica
        );
        assert_eq!(group_mode(false, None).unwrap(), GroupMode::CrossReplica);
        assert_eq!(group_mode(true, None).unwrap(), GroupMode::CrossPartition);
        assert_eq!(
            group_mode(true, Some(false)).unwrap(),
            GroupMode::CrossReplicaAndPartition
        );
        assert_eq!(
            group_mode(true, Some(true)).unwrap(),
            GroupMode::FlattenedId
        );
        assert!(group_mode(false, Some(true)).is_err());
    }

    #[test]
    fn groups_per_mode() {
        let all: Vec<Vec<i64>> = vec![];
        assert_eq!(
            device_groups(T22, &all, GroupMode::CrossReplica).unwrap(),
            vec![vec![0, 2], vec![1, 3]]
        );
        assert_eq!(
            device_groups(T22, &all, GroupMode::CrossPartition).unwrap(),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(
            device_groups(T22, &all, GroupMode::CrossReplicaAndPartition).unwrap(),
            vec![vec![0, 1, 2, 3]]
        );
        let g = vec![vec![3, 0], vec![2, 1]];
        assert_eq!(
            device_groups(T22, &g, GroupMode::FlattenedId).unwrap(),
            vec![vec![3, 0], vec![2, 1]]
        );
        assert_eq!(
            group_of(T22, &[vec![1, 0]], GroupMode::CrossReplica, 3).unwrap(),
            (vec![3, 1], 0)
        );
    }

    #[test]
    fn bad_groups_are_errors() {
        let t4 = Topology {
            replicas: 4,
            partitions: 1,
        };
        let m = GroupMode::CrossReplica;
        let e = device_groups(t4, &[vec![0, 1], vec![1, 2]], m).unwrap_err();
        assert!(e.to_string().contains("replica 1 appears twice"), "{e}");
        let e = device_groups(t4, &[vec![0, 1], vec![2]], m).unwrap_err();
        assert!(e.to_string().contains("do not cover replica 3"), "{e}");
        let e = device_groups(t4, &[vec![0, 1, 2, 7]], m).unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        assert!(device_groups(t4, &[], GroupMode::FlattenedId).is_err());
    }

    #[test]
    fn permute_sources() {
        let t4 = Topology {
            replicas: 4,
            partitions: 1,
        };
        let pairs = [(0, 1), (1, 2)];
        assert_eq!(
            permute_plan(t4, &pairs, false, 2).unwrap(),
            (vec![0, 1, 2, 3], None, Some(1))
        );
        assert_eq!(permute_plan(t4, &pairs, false, 0).unwrap().2, None);
        assert_eq!(permute_plan(t4, &pairs, false, 0).unwrap().1, Some(1));
        assert!(permute_plan(t4, &[(0, 1), (0, 2)], false, 0).is_err());
        assert!(permute_plan(t4, &[(0, 1), (2, 1)], false, 0).is_err());
        // Replica 7 does not exist: replica 1 gets nothing from it.
        assert_eq!(permute_plan(t4, &[(7, 1)], false, 1).unwrap().2, None);
        // With a channel the ids are partitions of the device's replica.
        assert_eq!(
            permute_plan(T22, &[(0, 1)], true, 3).unwrap(),
            (vec![2, 3], None, Some(0))
        );
    }
}
