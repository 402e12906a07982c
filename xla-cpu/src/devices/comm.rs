//! The transport of collectives: a [`Communicator`] moves values between the devices of a
//! group; a [`Device`] is one device's view (its ids, its communicator, and a count of the
//! exchanges it made with each group, which matches the same exchange across devices).

use crate::devices::groups::Topology;
use crate::error::{CpuError, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use xla_core::Literal;

/// One exchange: which op, which group (global device ids, in group order), which device
/// calls, and how many exchanges this device already made with this group.
#[derive(Clone, Copy, Debug)]
pub struct Exchange<'a> {
    /// The instruction running the collective (for errors).
    pub op: &'a str,
    /// The group's devices, in group order.
    pub group: &'a [usize],
    /// The calling device (a member of `group`).
    pub device: usize,
    /// The number of earlier exchanges of this device with this group.
    pub sequence: u64,
}

/// Moves values between devices: every member of a group calls [`Communicator::exchange`] with
/// its value and gets the values of all members, in group order. Collective semantics
/// (reductions, gathers, permutes) are computed from these values by the caller, so a
/// transport (threads, MPI) only implements this.
pub trait Communicator {
    /// Contributes `value` to exchange `x` and returns every member's value in group order.
    ///
    /// # Errors
    /// If a member does not arrive in time, fails, or runs a different op.
    fn exchange(&self, x: Exchange<'_>, value: Literal) -> Result<Vec<Literal>>;
}

/// One device of a multi-device run.
pub struct Device<'a> {
    /// The module's replicas and partitions.
    pub topology: Topology,
    /// This device's global id.
    pub id: usize,
    comm: &'a dyn Communicator,
    sequences: RefCell<HashMap<Vec<usize>, u64>>,
}

impl<'a> Device<'a> {
    /// Device `id` of `topology`, exchanging through `comm`.
    pub fn new(topology: Topology, id: usize, comm: &'a dyn Communicator) -> Device<'a> {
        Device {
            topology,
            id,
            comm,
            sequences: RefCell::new(HashMap::new()),
        }
    }

    /// This device's replica id.
    pub fn replica(&self) -> usize {
        self.id / self.topology.partitions.max(1)
    }

    /// This device's partition id.
    pub fn partition(&self) -> usize {
        self.id % self.topology.partitions.max(1)
    }

    /// Exchanges `value` with `group` (which holds this device).
    ///
    /// # Errors
    /// As [`Communicator::exchange`].
    pub fn exchange(&self, op: &str, group: &[usize], value: Literal) -> Result<Vec<Literal>> {
        let sequence = {
            let mut s = self.sequences.borrow_mut();
            let n = s.entry(group.to_vec()).or_insert(0);
            let k = *n;
            *n += 1;
            k
        };
        let x = Exchange {
            op,
            group,
            device: self.id,
            sequence,
        };
        let values = self.comm.exchange(x, value)?;
        if values.len() != group.len() {
            return Err(CpuError::Invalid(format!(
                "{op}: the communicator returned {} values for a group of {}",
                values.len(),
                group.len()
            )));
        }
        Ok(values)
    }
}

/// Exchange on an optional device: a single-device run has a group of one and keeps its own
/// value (no communicator, no lock).
///
/// # Errors
/// As [`Device::exchange`].
pub(crate) fn exchange(
    device: Option<&Device<'_>>,
    op: &str,
    group: &[usize],
    value: Literal,
) -> Result<Vec<Literal>> {
    match device {
        Some(d) => d.exchange(op, group, value),
        None => Ok(vec![value]),
    }
}
