//! The embedded transport: one thread per device, a rendezvous per exchange (a slot keyed by
//! the group and the exchange's sequence number, filled by every member).
//!
//! A waiting device never hangs: it fails as soon as a missing member has finished or failed,
//! and after the timeout otherwise, naming the devices that did not arrive.

use crate::devices::comm::{Communicator, Exchange};
use crate::error::{CpuError, Result};
use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use xla_core::Literal;

/// One exchange in progress.
struct Slot {
    op: String,
    values: Vec<Option<Literal>>,
    /// Members that took the result.
    taken: usize,
}

/// How a device's run ended.
#[derive(Clone, Debug)]
enum Left {
    Finished,
    Failed(String),
}

#[derive(Default)]
struct State {
    slots: HashMap<(Vec<usize>, u64), Slot>,
    left: HashMap<usize, Left>,
}

/// Devices on threads of one process.
pub struct ThreadCommunicator {
    timeout: Duration,
    state: Mutex<State>,
    arrived: Condvar,
}

impl ThreadCommunicator {
    /// A communicator whose exchanges wait at most `timeout` for the other members.
    pub fn new(timeout: Duration) -> ThreadCommunicator {
        ThreadCommunicator {
            timeout,
            state: Mutex::new(State::default()),
            arrived: Condvar::new(),
        }
    }

    fn lock(&self) -> Result<MutexGuard<'_, State>> {
        self.state.lock().map_err(|_| {
            CpuError::Internal("the device rendezvous lock is not poisoned (no panic while held)")
        })
    }

    /// Records that `device` finished its run (with `error` if it failed), so devices waiting
    /// for it fail instead of waiting for the timeout.
    pub fn leave(&self, device: usize, error: Option<String>) {
        if let Ok(mut s) = self.state.lock() {
            let how = error.map_or(Left::Finished, Left::Failed);
            s.left.insert(device, how);
        }
        self.arrived.notify_all();
    }
}

/// Puts `value` into the slot of `x`, checking the op matches.
fn arrive(s: &mut State, x: &Exchange<'_>, value: Literal) -> Result<()> {
    let key = (x.group.to_vec(), x.sequence);
    let slot = s.slots.entry(key).or_insert_with(|| Slot {
        op: x.op.to_string(),
        values: vec![None; x.group.len()],
        taken: 0,
    });
    if slot.op != x.op {
        return Err(CpuError::DeviceMismatch(format!(
            "device {} runs {} while another device of group {:?} runs {} as its exchange {}",
            x.device, x.op, x.group, slot.op, x.sequence
        )));
    }
    let pos = x.group.iter().position(|&d| d == x.device);
    match pos.and_then(|p| slot.values.get_mut(p)) {
        Some(v) => *v = Some(value),
        None => {
            return Err(CpuError::ReplicaGroups(format!(
                "{}: device {} is not in its group {:?}",
                x.op, x.device, x.group
            )))
        }
    }
    Ok(())
}

/// Every value of the slot once all have arrived (the last taker removes the slot).
fn take_all(s: &mut State, x: &Exchange<'_>) -> Option<Vec<Literal>> {
    let key = (x.group.to_vec(), x.sequence);
    let slot = s.slots.get_mut(&key)?;
    let all: Option<Vec<Literal>> = slot.values.iter().cloned().collect();
    let all = all?;
    slot.taken += 1;
    if slot.taken == x.group.len() {
        s.slots.remove(&key);
    }
    Some(all)
}

/// The members that have not arrived at the slot of `x`.
fn missing(s: &State, x: &Exchange<'_>) -> Vec<usize> {
    let key = (x.group.to_vec(), x.sequence);
    s.slots.get(&key).map_or_else(Vec::new, |slot| {
        x.group
            .iter()
            .zip(&slot.values)
            .filter(|(_, v)| v.is_none())
            .map(|(d, _)| *d)
            .collect()
    })
}

impl Communicator for ThreadCommunicator {
    fn exchange(&self, x: Exchange<'_>, value: Literal) -> Result<Vec<Literal>> {
        let start = Instant::now();
        let mut s = self.lock()?;
        arrive(&mut s, &x, value)?;
        self.arrived.notify_all();
        loop {
            if let Some(all) = take_all(&mut s, &x) {
                return Ok(all);
            }
            let absent = missing(&s, &x);
            for d in &absent {
                match s.left.get(d) {
                    Some(Left::Failed(why)) => {
                        return Err(CpuError::PeerFailed {
                            op: x.op.to_string(),
                            device: *d,
                            message: why.clone(),
                        })
                    }
                    Some(Left::Finished) => {
                        return Err(CpuError::CollectiveTimeout {
                            op: x.op.to_string(),
                            missing: absent.clone(),
                            reason: "finished without reaching this collective".into(),
                        })
                    }
                    None => {}
                }
            }
            let left = self.timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Err(CpuError::CollectiveTimeout {
                    op: x.op.to_string(),
                    missing: absent,
                    reason: format!("did not arrive within {:?}", self.timeout),
                });
            }
            s = self
                .arrived
                .wait_timeout(s, left)
                .map_err(|_| {
                    CpuError::Internal(
                        "the device rendezvous lock is not poisoned (no panic while held)",
                    )
                })?
                .0;
        }
    }
}
