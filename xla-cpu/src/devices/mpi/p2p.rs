//! Point-to-point messages between ranks, on the world communicator: every collective starts
//! with a handshake (each member sends every other member a short note behind a header naming
//! the op, the group and the exchange's sequence number), so a member that does not arrive is
//! named after the timeout instead of blocking an MPI collective forever, and members that run
//! different programs get an error. Collective-permute's values travel here too.

use super::wire::{bad, get_str, put_str};
use super::MpiCommunicator;
use crate::devices::comm::Exchange;
use crate::error::{CpuError, Result};
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::topology::Communicator as _;
use std::time::{Duration, Instant};

/// The MPI tag of every point-to-point message (message order between two ranks is MPI's
/// non-overtaking order; the header checks it).
const TAG: i32 = 7;

/// How long a receive spins (probing without yielding) before it sleeps between probes: short
/// waits stay in microseconds, long ones leave the core to the other ranks.
const SPIN: Duration = Duration::from_millis(2);

/// The header of exchange `x`.
pub(super) fn header(x: &Exchange<'_>) -> String {
    format!("{} {:?} {}", x.op, x.group, x.sequence)
}

impl MpiCommunicator {
    /// Receives the next message of `peer`, or `None` after the deadline.
    fn receive(&self, peer: usize, deadline: Instant) -> Option<Vec<u8>> {
        let p = self.world.process_at_rank(i32::try_from(peer).ok()?);
        let start = Instant::now();
        loop {
            if let Some(probed) = p.immediate_matched_probe_with_tag(TAG) {
                let (bytes, _) = probed.matched_receive_vec::<u8>();
                return Some(bytes);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            if now - start < SPIN {
                // Spinning, not `yield_now`: on a loaded machine a yield gives the core away
                // for a whole time slice, ~15 ms per exchange (examples/mpi_exchange_cost.rs).
                std::hint::spin_loop();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }

    /// Sends `notes[k].1` (behind the header of `x`) to rank `notes[k].0` and receives the
    /// note of each rank in `from`, in that order. A rank that does not send in time aborts
    /// the job with an error naming the op and the missing ranks.
    ///
    /// # Errors
    /// [`CpuError::DeviceMismatch`] if a peer's header differs (another op or exchange).
    pub(super) fn notes(
        &self,
        x: &Exchange<'_>,
        notes: &[(usize, Vec<u8>)],
        from: &[usize],
    ) -> Result<Vec<Vec<u8>>> {
        let header = header(x);
        let framed: Vec<(i32, Vec<u8>)> = notes
            .iter()
            .filter_map(|(d, note)| {
                let mut b = Vec::with_capacity(note.len() + header.len() + 8);
                put_str(&mut b, &header);
                b.extend_from_slice(note);
                Some((i32::try_from(*d).ok()?, b))
            })
            .collect();
        let deadline = Instant::now() + self.timeout;
        let got = mpi::request::scope(|scope| {
            let sends: Vec<_> = framed
                .iter()
                .map(|(d, b)| {
                    self.world
                        .process_at_rank(*d)
                        .immediate_send_with_tag(scope, &b[..], TAG)
                })
                .collect();
            let got: Vec<(usize, Option<Vec<u8>>)> = from
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
        });
        got.into_iter()
            .map(|(d, b)| {
                let b = b.ok_or_else(|| bad("missing message"))?;
                let mut at = 0;
                let theirs = get_str(&b, &mut at)?;
                if theirs != header {
                    return Err(CpuError::DeviceMismatch(format!(
                        "rank {} runs exchange `{header}` but rank {d} sent `{theirs}`",
                        x.device
                    )));
                }
                Ok(b.get(at..).unwrap_or_default().to_vec())
            })
            .collect()
    }

    /// Prints `e` and aborts the MPI job: outstanding sends cannot be cancelled portably,
    /// and the other ranks would otherwise wait for this one.
    pub(super) fn fail(&self, e: &CpuError) -> ! {
        eprintln!("rank {}: {e}", self.rank());
        self.world.abort(3)
    }
}
