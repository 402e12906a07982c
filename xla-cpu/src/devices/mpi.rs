//! The MPI transport (cargo feature `mpi`): one device per MPI rank (rank = global device id).
//!
//! An exchange sends this rank's value to every other member of the group (non-blocking
//! sends) and receives theirs, polling with `MPI_Iprobe` until the timeout. Values travel as
//! `.npy` bytes (tuples framed around them) behind a header naming the op, the group and the
//! exchange's sequence number, so ranks that disagree about the program get an error.
//!
//! A rank that times out prints the error naming the op and the ranks that did not arrive and
//! aborts the MPI job (`MPI_Abort`): outstanding sends cannot be cancelled portably, and the
//! other ranks would otherwise wait for it.

use super::comm::{Communicator, Exchange};
use crate::compile::Executable;
use crate::error::{CpuError, Result};
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::{Communicator as _, SimpleCommunicator};
use std::time::{Duration, Instant};
use xla_core::Literal;

/// The MPI tag of every exchange message (message order between two ranks is MPI's
/// non-overtaking order; the header checks it).
const TAG: i32 = 7;

/// Devices on MPI ranks.
pub struct MpiCommunicator {
    world: SimpleCommunicator,
    timeout: Duration,
}

impl MpiCommunicator {
    /// A communicator over `world` (from `mpi::initialize()`), waiting at most `timeout`.
    pub fn new(world: SimpleCommunicator, timeout: Duration) -> MpiCommunicator {
        MpiCommunicator { world, timeout }
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        usize::try_from(self.world.rank()).unwrap_or(0)
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        usize::try_from(self.world.size()).unwrap_or(0)
    }

    /// Receives the message of `peer` for exchange `x`, or `None` after the deadline.
    fn receive(&self, peer: usize, deadline: Instant) -> Option<Vec<u8>> {
        let p = self.world.process_at_rank(i32::try_from(peer).ok()?);
        loop {
            if let Some(probed) = p.immediate_matched_probe_with_tag(TAG) {
                let (bytes, _) = probed.matched_receive_vec::<u8>();
                return Some(bytes);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_micros(20));
        }
    }

    /// Sends `bytes` to every peer (non-blocking) and receives each peer's message; aborts
    /// the job when a peer does not send in time.
    fn transfer(
        &self,
        x: &Exchange<'_>,
        bytes: &[u8],
        peers: &[usize],
    ) -> Vec<(usize, Option<Vec<u8>>)> {
        let deadline = Instant::now() + self.timeout;
        mpi::request::scope(|scope| {
            let sends: Vec<_> = peers
                .iter()
                .filter_map(|&d| i32::try_from(d).ok())
                .map(|d| {
                    self.world
                        .process_at_rank(d)
                        .immediate_send_with_tag(scope, bytes, TAG)
                })
                .collect();
            let got: Vec<(usize, Option<Vec<u8>>)> = peers
                .iter()
                .map(|&d| (d, self.receive(d, deadline)))
                .collect();
            let missing: Vec<usize> = got
                .iter()
                .filter(|(_, b)| b.is_none())
                .map(|(d, _)| *d)
                .collect();
            if !missing.is_empty() {
                self.fail(&CpuError::CollectiveTimeout {
                    op: x.op.to_string(),
                    missing,
                    reason: format!("did not arrive within {:?}", self.timeout),
                });
            }
            for s in sends {
                s.wait();
            }
            got
        })
    }

    fn fail(&self, e: &CpuError) -> ! {
        eprintln!("rank {}: {e}", self.rank());
        self.world.abort(3)
    }
}

impl Communicator for MpiCommunicator {
    fn exchange(&self, x: Exchange<'_>, value: Literal) -> Result<Vec<Literal>> {
        let header = format!("{} {:?} {}", x.op, x.group, x.sequence);
        let mut bytes = Vec::new();
        put_str(&mut bytes, &header);
        encode(&value, &mut bytes)?;
        let peers: Vec<usize> = x.group.iter().copied().filter(|&d| d != x.device).collect();
        let received = self.transfer(&x, &bytes, &peers);
        let mut out = Vec::with_capacity(x.group.len());
        let mut mine = Some(value);
        let mut from_peers = received.into_iter();
        for &d in x.group {
            if d == x.device {
                out.push(
                    mine.take()
                        .ok_or_else(|| bad("device twice in its group"))?,
                );
                continue;
            }
            let (_, b) = from_peers.next().ok_or_else(|| bad("missing message"))?;
            let b = b.ok_or_else(|| bad("missing message"))?;
            let mut at = 0;
            let theirs = get_str(&b, &mut at)?;
            if theirs != header {
                return Err(CpuError::DeviceMismatch(format!(
                    "rank {} runs exchange `{header}` but rank {d} sent `{theirs}`",
                    x.device
                )));
            }
            out.push(decode(&b, &mut at)?);
        }
        Ok(out)
    }
}

fn bad(what: &str) -> CpuError {
    CpuError::Invalid(format!("mpi exchange: {what}"))
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn get_u64(b: &[u8], at: &mut usize) -> Result<u64> {
    let s = b
        .get(*at..*at + 8)
        .ok_or_else(|| bad("truncated message"))?;
    *at += 8;
    let mut w = [0u8; 8];
    w.copy_from_slice(s);
    Ok(u64::from_le_bytes(w))
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn get_bytes<'b>(b: &'b [u8], at: &mut usize) -> Result<&'b [u8]> {
    let n = usize::try_from(get_u64(b, at)?).map_err(|_| bad("length"))?;
    let s = b
        .get(*at..*at + n)
        .ok_or_else(|| bad("truncated message"))?;
    *at += n;
    Ok(s)
}

fn get_str(b: &[u8], at: &mut usize) -> Result<String> {
    Ok(String::from_utf8_lossy(get_bytes(b, at)?).into_owned())
}

/// A literal as bytes: `0` + npy bytes for an array, `1` + count + elements for a tuple,
/// `2` for a token.
fn encode(l: &Literal, out: &mut Vec<u8>) -> Result<()> {
    if let Some(t) = l.tuple_elements() {
        out.push(1);
        put_u64(out, t.len() as u64);
        return t.iter().try_for_each(|e| encode(e, out));
    }
    if l.shape().is_token() {
        out.push(2);
        return Ok(());
    }
    out.push(0);
    let npy = l.to_npy_bytes()?;
    put_u64(out, npy.len() as u64);
    out.extend_from_slice(&npy);
    Ok(())
}

fn decode(b: &[u8], at: &mut usize) -> Result<Literal> {
    let kind = *b.get(*at).ok_or_else(|| bad("truncated message"))?;
    *at += 1;
    match kind {
        0 => Ok(Literal::from_npy_bytes(get_bytes(b, at)?)?),
        1 => {
            let n = get_u64(b, at)?;
            let elems = (0..n).map(|_| decode(b, at)).collect::<Result<Vec<_>>>()?;
            Ok(Literal::tuple(elems))
        }
        2 => Ok(Literal::token()),
        k => Err(bad(&format!("unknown value kind {k}"))),
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
            .ok_or_else(|| CpuError::Invalid("MPI is already initialized".into()))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_bytes() {
        let v = Literal::tuple(vec![
            Literal::vec1(&[1f32, 2.]),
            Literal::tuple(vec![Literal::scalar(3u8), Literal::token()]),
            Literal::vec1(&[half::bf16::from_f32(1.5)]),
        ]);
        let mut b = Vec::new();
        encode(&v, &mut b).unwrap();
        let mut at = 0;
        assert_eq!(decode(&b, &mut at).unwrap(), v);
        assert_eq!(at, b.len());
        assert!(decode(&b[..b.len() - 1], &mut 0).is_err());
    }
}
