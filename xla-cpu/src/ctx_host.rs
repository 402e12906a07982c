//! The executor's side of [`Host`]: what kernels may ask of a run ([`Ctx`]), answered
//! from the run's state and its executable.

use crate::error::{internal, Result};
use crate::exec::Ctx;
use crate::kernels::arg_reduce::ArgFold;
use crate::kernels::combiner::Combiner;
use crate::kernels::host::{CustomCallFn, Host, HostQueues};
use crate::parallel::Parallel;
use std::sync::atomic::Ordering;
use std::sync::MutexGuard;
use xla_core::ir::CompId;
use xla_core::Literal;

impl Host for Ctx<'_> {
    fn call(&self, c: CompId, args: Vec<Literal>) -> Result<Literal> {
        Ctx::call(self, c, args)
    }

    fn call_vec(&self, c: CompId, args: Vec<Literal>, n: usize) -> Result<Literal> {
        Ctx::call_vec(self, c, args, n)
    }

    fn vectorizable(&self, c: CompId) -> bool {
        Ctx::vectorizable(self, c)
    }

    fn combiner(&self, c: CompId) -> Option<Combiner> {
        Ctx::combiner(self, c)
    }

    fn arg_fold(&self, c: CompId) -> Option<&ArgFold> {
        self.exe.plan_of(c).and_then(|p| p.arg_fold.as_ref())
    }

    fn parallel(&self) -> Parallel<'_> {
        self.exe.parallel()
    }

    fn next_rng_call(&self) -> u64 {
        let call = self.rng_calls.get();
        self.rng_calls.set(call + 1);
        call
    }

    fn rng_seed(&self) -> u64 {
        self.exe.rng_seed.load(Ordering::Relaxed)
    }

    fn rng_state_add(&self, delta: u64) -> u64 {
        self.exe.rng_state.fetch_add(delta, Ordering::Relaxed)
    }

    fn custom_call(&self, target: &str) -> Option<&CustomCallFn> {
        self.exe.custom_calls.get(target).map(|f| &**f)
    }

    fn admit(&self, what: &'static str, bytes: u64) -> Result<()> {
        self.budget.admit(what, bytes)
    }

    fn host_queues(&self) -> Result<MutexGuard<'_, HostQueues>> {
        self.exe
            .host
            .lock()
            .map_err(|_| internal("the host queues' lock is not poisoned (no panic while held)"))
    }
}
