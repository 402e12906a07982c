//! What kernels need from the executor that runs them, as one narrow trait, [`Host`]:
//! calling a computation (on one argument set or on vectors of them), the recognised
//! combiner of a computation, the threads, the `rng` seed and state, the custom-call
//! functions an executable registered, the memory budget and the host-side queues.
//!
//! Kernels see only this trait, never the executor (`exec.rs` implements it for its run
//! context), so a kernel can be read, and tested, alone.

use super::arg_reduce::ArgFold;
use super::combiner::Combiner;
use crate::error::{HostError, Result};
use crate::parallel::Parallel;
use std::collections::{HashMap, VecDeque};
use std::sync::MutexGuard;
use xla_core::ir::CompId;
use xla_core::{Literal, Shape};

/// A host function a `custom-call` can reach: `(operands, result shape, backend_config)`.
pub type CustomCallFn =
    dyn Fn(&[Literal], &Shape, &str) -> std::result::Result<Literal, HostError> + Send + Sync;

/// Host-side queues for infeed, outfeed and host send/recv.
#[derive(Debug, Default)]
pub(crate) struct HostQueues {
    pub infeed: VecDeque<Literal>,
    pub outfeed: Vec<Literal>,
    pub recv: HashMap<i64, VecDeque<Literal>>,
    pub sent: HashMap<i64, Vec<Literal>>,
}

/// The executor as kernels see it: one run of an executable.
pub(crate) trait Host {
    /// Runs computation `c` on `args`.
    ///
    /// # Errors
    /// If the argument count is wrong or an instruction fails.
    fn call(&self, c: CompId, args: Vec<Literal>) -> Result<Literal>;

    /// Runs the scalar, elementwise computation `c` on `n` sets of arguments at once: each
    /// argument and result is a rank-1 array of `n` elements (one per set).
    ///
    /// # Errors
    /// If the computation is not vectorizable, the arguments do not fit, or an instruction
    /// fails.
    fn call_vec(&self, c: CompId, args: Vec<Literal>, n: usize) -> Result<Literal>;

    /// True when computation `c` is scalar and elementwise, so [`Host::call_vec`] can run it.
    fn vectorizable(&self, c: CompId) -> bool;

    /// The recognised scalar combiner of computation `c`, if any.
    fn combiner(&self, c: CompId) -> Option<Combiner>;

    /// The recognised argmax/argmin comparator of computation `c`, if any.
    fn arg_fold(&self, c: CompId) -> Option<&ArgFold>;

    /// The parallelism handed to kernels.
    fn parallel(&self) -> Parallel<'_>;

    /// The number of `rng` instructions this run has run before this one (counted, so
    /// each draws different numbers).
    fn next_rng_call(&self) -> u64;

    /// The executable's `rng` seed.
    fn rng_seed(&self) -> u64;

    /// Adds `delta` to the executable's random state; returns the state before.
    fn rng_state_add(&self, delta: u64) -> u64;

    /// The host function registered for custom-call target `target`, if any.
    fn custom_call(&self, target: &str) -> Option<&CustomCallFn>;

    /// Checks that `what` may allocate `bytes` more: with what the run holds it stays
    /// within the run's memory limit, and the allocator grants that much now.
    ///
    /// # Errors
    /// Over the limit, or when the allocator refuses.
    fn admit(&self, what: &'static str, bytes: u64) -> Result<()>;

    /// The executable's host-side queues, locked.
    ///
    /// # Errors
    /// If the lock is unusable.
    fn host_queues(&self) -> Result<MutexGuard<'_, HostQueues>>;
}
