//! The MPI transport (cargo feature `mpi`): one device per MPI rank (rank = global device id).
//!
//! Collectives run on MPI's own operations, on a sub-communicator per replica group (made
//! with `MPI_Comm_create_group` from the group's ranks in group order, so MPI's rank order is
//! the group order; cached per group): an exchange (all-gather, reduce-scatter, broadcast and
//! the all-reduces MPI cannot reduce with the fold's bits) is one `MPI_Allgatherv` of the
//! encoded values followed by the fold in group order; all-to-all is `MPI_Alltoallv`; the
//! all-reduces MPI can reduce with the same bits (see [`reduce`]: integer and PRED
//! reductions, float add/multiply in pairs) are `MPI_Allreduce` with MPI's built-in op;
//! collective-permute is a pair of non-blocking point-to-point messages ([`p2p`]).
//!
//! Before each collective the members shake hands point to point ([`p2p`]): a member that
//! does not arrive within the timeout is named and the job aborted (`MPI_Abort`), and ranks
//! that disagree about the program get an error, instead of a blocked or mismatched MPI
//! collective. A rank that dies during the collective itself (after the handshake) is left to
//! Open MPI, whose `mpirun` ends the whole job when a rank exits abnormally.

mod p2p;
mod reduce;
mod wire;

/// The `mpi` crate this transport is built on, for probes that time our collectives against
/// MPI's own calls (`examples/mpi_exchange_cost.rs`).
pub use ::mpi as raw;

use super::comm::{position, Communicator, Exchange};
use super::xla_fold::order_sensitive;
use crate::compile::Executable;
use crate::error::{CpuError, Result};
use mpi::collective::CommunicatorCollectives;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::{Communicator as _, Group as _, SimpleCommunicator};
use mpi::Count;
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Duration;
use wire::{bad, decode, encode, get_u64, put_u64};
use xla_core::attrs::BinaryOp;
use xla_core::Literal;

/// Devices on MPI ranks.
pub struct MpiCommunicator {
    world: SimpleCommunicator,
    timeout: Duration,
    /// The sub-communicator of each group (ranks in group order) this rank was a member of.
    groups: RefCell<HashMap<Vec<usize>, SimpleCommunicator>>,
    /// `XLA_MPI_ALLREDUCE=gather`: every all-reduce as an all-gather and a fold (to measure).
    fold_only: bool,
    /// The number of ranks on this rank's machine (sharing its cores).
    here: usize,
}

impl MpiCommunicator {
    /// A communicator over `world` (from `mpi::initialize()`), waiting at most `timeout`.
    /// Every rank calls it (it counts the ranks on each machine, a collective call).
    pub fn new(world: SimpleCommunicator, timeout: Duration) -> MpiCommunicator {
        let fold_only = std::env::var("XLA_MPI_ALLREDUCE").is_ok_and(|v| v.trim() == "gather");
        let here = usize::try_from(world.split_shared(0).size()).unwrap_or(1);
        MpiCommunicator {
            world,
            timeout,
            groups: RefCell::new(HashMap::new()),
            fold_only,
            here,
        }
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        usize::try_from(self.world.rank()).unwrap_or(0)
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        usize::try_from(self.world.size()).unwrap_or(0)
    }

    /// Runs `f` on the sub-communicator of `group` (made on first use; every member is past
    /// the handshake, so all of them make it together).
    fn on_group<R>(&self, group: &[usize], f: impl FnOnce(&SimpleCommunicator) -> R) -> Result<R> {
        if let Some(c) = self.groups.borrow().get(group) {
            return Ok(f(c));
        }
        let ranks = group
            .iter()
            .map(|&d| i32::try_from(d))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| bad("rank out of range"))?;
        let g = self.world.group().include(&ranks);
        let c = self
            .world
            .split_by_subgroup(&g)
            .ok_or_else(|| bad(&format!("no communicator for group {group:?}")))?;
        let r = f(&c);
        self.groups.borrow_mut().insert(group.to_vec(), c);
        Ok(r)
    }

    /// Handshake of `x` where member k is told `notes[k]` (this device's own note skipped):
    /// the note each member sent this device, in group order (`mine` for this device).
    fn handshake(
        &self,
        x: &Exchange<'_>,
        notes: Vec<Vec<u8>>,
        mine: Vec<u8>,
    ) -> Result<Vec<Vec<u8>>> {
        let peers: Vec<usize> = x.group.iter().copied().filter(|&d| d != x.device).collect();
        let out: Vec<(usize, Vec<u8>)> = x
            .group
            .iter()
            .copied()
            .zip(notes)
            .filter(|(d, _)| *d != x.device)
            .collect();
        let mut got = self.notes(x, &out, &peers)?.into_iter();
        let mut mine = Some(mine);
        x.group
            .iter()
            .map(|&d| {
                if d == x.device {
                    mine.take().ok_or_else(|| bad("device twice in its group"))
                } else {
                    got.next().ok_or_else(|| bad("missing message"))
                }
            })
            .collect()
    }
}

/// A byte count as an MPI count.
fn count(n: usize) -> Result<Count> {
    Count::try_from(n).map_err(|_| {
        CpuError::Transport(format!(
            "mpi exchange: {n} bytes exceed MPI's count of 2^31 - 1"
        ))
    })
}

/// A note holding one length.
fn length_note(n: usize) -> Vec<u8> {
    let mut b = Vec::with_capacity(8);
    put_u64(&mut b, n as u64);
    b
}

/// The counts of the members' length notes, and their displacements.
fn counts(notes: &[Vec<u8>]) -> Result<(Vec<Count>, Vec<Count>)> {
    let mut counts = Vec::with_capacity(notes.len());
    let mut displs = Vec::with_capacity(notes.len());
    let mut at = 0usize;
    for n in notes {
        let len = usize::try_from(get_u64(n, &mut 0)?).map_err(|_| bad("length"))?;
        displs.push(count(at)?);
        counts.push(count(len)?);
        at += len;
    }
    count(at)?;
    Ok((counts, displs))
}

/// The values encoded in `buf` at `displs`.
fn decode_all(buf: &[u8], displs: &[Count]) -> Result<Vec<Literal>> {
    displs
        .iter()
        .map(|&d| {
            decode(
                buf,
                &mut usize::try_from(d).map_err(|_| bad("displacement"))?,
            )
        })
        .collect()
}

impl Communicator for MpiCommunicator {
    /// One `MPI_Allgatherv` of the encoded values on the group's communicator.
    fn exchange(&self, x: Exchange<'_>, value: Literal) -> Result<Vec<Literal>> {
        if x.group.len() == 1 {
            return Ok(vec![value]);
        }
        let mut bytes = Vec::new();
        encode(&value, &mut bytes)?;
        let note = length_note(bytes.len());
        let notes = self.handshake(&x, vec![note.clone(); x.group.len()], note)?;
        let (counts, displs) = counts(&notes)?;
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let mut buf = vec![0u8; total];
        self.on_group(x.group, |c| {
            let mut recv = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            c.all_gather_varcount_into(&bytes[..], &mut recv);
        })?;
        decode_all(&buf, &displs)
    }

    /// `MPI_Allreduce` with MPI's built-in op when [`reduce::plan`] says MPI's result has
    /// the fold's bits; otherwise `None` (an all-gather and a fold in group order).
    fn all_reduce(
        &self,
        x: Exchange<'_>,
        value: &Literal,
        op: BinaryOp,
    ) -> Result<Option<Literal>> {
        if self.fold_only || x.group.len() == 1 {
            return Ok(None);
        }
        let Some(plan) = reduce::plan(value, op, x.group.len()) else {
            return Ok(None);
        };
        // The note is the shape, so members holding different shapes fail alike, and a flag:
        // this member holds a NaN or a -0, where MPI's sum or product may not have XLA's
        // bits (`xla_fold`). If any member sets it, every member folds after an exchange.
        let shape = value.shape().to_string().into_bytes();
        let mut note = shape.clone();
        note.push(u8::from(value.array_data().is_some_and(order_sensitive)));
        let notes = self.handshake(&x, vec![note.clone(); x.group.len()], note)?;
        if let Some(k) = notes
            .iter()
            .position(|n| n.split_last().map(|(_, s)| s) != Some(&shape[..]))
        {
            let theirs = notes
                .get(k)
                .and_then(|n| n.split_last())
                .map_or(&[][..], |(_, s)| s);
            return Err(CpuError::DeviceMismatch(format!(
                "all-reduce: device {} holds {} but device {} holds {}",
                x.device,
                value.shape(),
                x.group.get(k).copied().unwrap_or(k),
                String::from_utf8_lossy(theirs)
            )));
        }
        if notes.iter().any(|n| n.last() == Some(&1)) {
            return Ok(None);
        }
        self.on_group(x.group, plan)?.map(Some)
    }

    /// The ranks on this machine (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`): each runs
    /// its kernels on its share of the cores.
    fn devices_here(&self) -> Option<usize> {
        Some(self.here)
    }

    /// One `MPI_Alltoallv` of the encoded pieces on the group's communicator.
    fn all_to_all(&self, x: Exchange<'_>, pieces: Vec<Literal>) -> Result<Vec<Literal>> {
        let pos = position(&x)?;
        if pieces.len() != x.group.len() {
            return Err(bad(
                "all-to-all with a piece count other than the group size",
            ));
        }
        if x.group.len() == 1 {
            return Ok(pieces);
        }
        let mut send = Vec::new();
        let mut lens = Vec::with_capacity(pieces.len());
        for p in &pieces {
            let before = send.len();
            encode(p, &mut send)?;
            lens.push(length_note(send.len() - before));
        }
        let mine = lens.get(pos).cloned().ok_or_else(|| bad("position"))?;
        let (scounts, sdispls) = counts(&lens)?;
        let notes = self.handshake(&x, lens, mine)?;
        let (rcounts, rdispls) = counts(&notes)?;
        let total: usize = rcounts.iter().map(|&c| c as usize).sum();
        let mut buf = vec![0u8; total];
        self.on_group(x.group, |c| {
            let s = Partition::new(&send[..], &scounts[..], &sdispls[..]);
            let mut r = PartitionMut::new(&mut buf[..], &rcounts[..], &rdispls[..]);
            c.all_to_all_varcount_into(&s, &mut r);
        })?;
        decode_all(&buf, &rdispls)
    }

    /// The value travels point to point (a non-blocking send to `to`, a receive from `from`
    /// with the timeout), behind the exchange's header.
    fn permute(
        &self,
        x: Exchange<'_>,
        value: Literal,
        to: Option<usize>,
        from: Option<usize>,
    ) -> Result<Option<Literal>> {
        let me = x.device;
        let (to, from, own) = match (to == Some(me), from == Some(me)) {
            (true, true) => (None, None, true),
            _ => (to.filter(|&t| t != me), from.filter(|&f| f != me), false),
        };
        let mut out = Vec::new();
        if let Some(t) = to {
            let mut bytes = Vec::new();
            encode(&value, &mut bytes)?;
            out.push((t, bytes));
        }
        let sources: Vec<usize> = from.into_iter().collect();
        let got = self.notes(&x, &out, &sources)?;
        if own {
            return Ok(Some(value));
        }
        got.first().map(|b| decode(b, &mut 0)).transpose()
    }
}

/// An initialized MPI environment (finalized when dropped) and its communicator.
pub struct MpiWorld {
    comm: MpiCommunicator,
    _universe: mpi::environment::Universe,
}

impl MpiWorld {
    /// Initializes MPI (once per process).
    ///
    /// # Errors
    /// If MPI is already initialized.
    pub fn initialize(timeout: Duration) -> Result<MpiWorld> {
        let universe = mpi::initialize()
            .ok_or_else(|| CpuError::Transport("MPI is already initialized".into()))?;
        let comm = MpiCommunicator::new(universe.world(), timeout);
        Ok(MpiWorld {
            comm,
            _universe: universe,
        })
    }

    /// The communicator over every rank.
    pub fn communicator(&self) -> &MpiCommunicator {
        &self.comm
    }

    /// Waits until every rank is here (`MPI_Barrier`).
    pub fn barrier(&self) {
        self.comm.world.barrier();
    }

    /// Runs this rank's device of `exe` on `args` (that device's arguments) and gathers every
    /// device's result on rank 0: `Some(results in device order)` there, `None` elsewhere.
    ///
    /// # Errors
    /// [`CpuError::RankCount`] if the number of ranks is not the module's device count; a
    /// failure of this device.
    pub fn run(&self, exe: &Executable, args: &[Literal]) -> Result<Option<Vec<Literal>>> {
        let topo = exe.topology();
        let (rank, size) = (self.comm.rank(), self.comm.size());
        if size != topo.devices() {
            return Err(CpuError::RankCount {
                expected: topo.devices(),
                found: size,
            });
        }
        let mine = exe.execute_on_device(topo, rank, &self.comm, args)?;
        let everyone: Vec<usize> = (0..size).collect();
        let x = Exchange {
            op: "gather of the results",
            group: &everyone,
            device: rank,
            sequence: u64::MAX,
        };
        let all = self.comm.exchange(x, mine)?;
        Ok((rank == 0).then_some(all))
    }
}
