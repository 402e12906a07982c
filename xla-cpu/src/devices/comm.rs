//! The transport of collectives: a [`Communicator`] moves values between the devices of a
//! group; a [`Device`] is one device's view (its ids, its communicator, and a count of the
//! exchanges it made with each group, which matches the same exchange across devices).

use crate::devices::groups::Topology;
use crate::error::{CpuError, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use xla_core::attrs::BinaryOp;
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

    /// Reduces `value` elementwise with `op` over the group on the transport's own
    /// reduction, when that gives the same bits as the fold in group order; `None` leaves
    /// the reduction to the caller (an [`Communicator::exchange`] and a fold). The default
    /// never reduces.
    ///
    /// # Errors
    /// As [`Communicator::exchange`].
    fn all_reduce(
        &self,
        x: Exchange<'_>,
        value: &Literal,
        op: BinaryOp,
    ) -> Result<Option<Literal>> {
        let _ = (x, value, op);
        Ok(None)
    }

    /// How many devices of this transport share this machine's cores with the calling one
    /// when each runs in a process of its own (MPI ranks on one host), so each takes its
    /// share of the kernel threads; `None` (the default) leaves the threads as they are.
    fn devices_here(&self) -> Option<usize> {
        None
    }

    /// Sends `pieces[k]` to member `k` of the group and returns, in group order, the piece
    /// each member sent to this device. The default exchanges all pieces with everyone.
    ///
    /// # Errors
    /// As [`Communicator::exchange`], or a piece count that is not the group size.
    fn all_to_all(&self, x: Exchange<'_>, pieces: Vec<Literal>) -> Result<Vec<Literal>> {
        let pos = position(&x)?;
        let values = self.exchange(x, Literal::tuple(pieces))?;
        values
            .into_iter()
            .map(|v| {
                v.tuple_elements()
                    .filter(|t| t.len() == x.group.len())
                    .and_then(|t| t.get(pos))
                    .cloned()
                    .ok_or_else(|| {
                        CpuError::DeviceMismatch(format!(
                            "{}: a member sent {} instead of {} pieces",
                            x.op,
                            v.shape(),
                            x.group.len()
                        ))
                    })
            })
            .collect()
    }

    /// Sends `value` to device `to` and receives the value of device `from` (both members of
    /// the group, global ids), for a collective-permute; `None` when there is no source. The
    /// default exchanges with the whole group.
    ///
    /// # Errors
    /// As [`Communicator::exchange`].
    fn permute(
        &self,
        x: Exchange<'_>,
        value: Literal,
        to: Option<usize>,
        from: Option<usize>,
    ) -> Result<Option<Literal>> {
        let _ = to;
        // Every member takes part (the rendezvous waits for all), sources or not.
        let values = self.exchange(x, value)?;
        let k = from.and_then(|f| x.group.iter().position(|&d| d == f));
        Ok(k.and_then(|k| values.into_iter().nth(k)))
    }
}

/// The position of the calling device in its group.
///
/// # Errors
/// If the device is not a member.
pub(crate) fn position(x: &Exchange<'_>) -> Result<usize> {
    x.group.iter().position(|&d| d == x.device).ok_or_else(|| {
        CpuError::ReplicaGroups(format!(
            "{}: device {} is not in its group {:?}",
            x.op, x.device, x.group
        ))
    })
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
        let x = self.next(op, group);
        let values = self.comm.exchange(x, value)?;
        if values.len() != group.len() {
            return Err(CpuError::Transport(format!(
                "{op}: the communicator returned {} values for a group of {}",
                values.len(),
                group.len()
            )));
        }
        Ok(values)
    }
}

impl Device<'_> {
    /// The next exchange of this device with `group`.
    fn next<'x>(&self, op: &'x str, group: &'x [usize]) -> Exchange<'x> {
        let x = self.peek(op, group);
        self.sequences
            .borrow_mut()
            .insert(group.to_vec(), x.sequence + 1);
        x
    }

    /// The next exchange of this device with `group`, without counting it.
    fn peek<'x>(&self, op: &'x str, group: &'x [usize]) -> Exchange<'x> {
        let sequence = self.sequences.borrow().get(group).copied().unwrap_or(0);
        Exchange {
            op,
            group,
            device: self.id,
            sequence,
        }
    }

    /// [`Communicator::all_reduce`] with `group`: `None` when the transport leaves the
    /// reduction to the caller.
    ///
    /// # Errors
    /// As [`Communicator::all_reduce`].
    pub fn all_reduce(
        &self,
        group: &[usize],
        value: &Literal,
        op: BinaryOp,
    ) -> Result<Option<Literal>> {
        // Counted only when the transport reduces: otherwise the caller's exchange is the
        // one the other members match (they decide the same way: same op, type and group,
        // and a transport that declines after a handshake has every member decline, the
        // exchange's messages following the handshake's in order).
        let r = self
            .comm
            .all_reduce(self.peek("all-reduce", group), value, op)?;
        if r.is_some() {
            self.next("all-reduce", group);
        }
        Ok(r)
    }

    /// [`Communicator::all_to_all`] with `group`.
    ///
    /// # Errors
    /// As [`Communicator::all_to_all`], or a result count that is not the group size.
    pub fn all_to_all(&self, group: &[usize], pieces: Vec<Literal>) -> Result<Vec<Literal>> {
        let got = self
            .comm
            .all_to_all(self.next("all-to-all", group), pieces)?;
        if got.len() != group.len() {
            return Err(CpuError::Transport(format!(
                "all-to-all: the communicator returned {} pieces for a group of {}",
                got.len(),
                group.len()
            )));
        }
        Ok(got)
    }

    /// [`Communicator::permute`] within `group`.
    ///
    /// # Errors
    /// As [`Communicator::permute`].
    pub fn permute(
        &self,
        group: &[usize],
        value: Literal,
        to: Option<usize>,
        from: Option<usize>,
    ) -> Result<Option<Literal>> {
        let x = self.next("collective-permute", group);
        self.comm.permute(x, value, to, from)
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
