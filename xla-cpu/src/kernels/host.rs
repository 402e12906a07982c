//! What kernels need from the executor that runs them: the custom-call functions an
//! executable registered and its host-side queues.

use crate::error::HostError;
use std::collections::{HashMap, VecDeque};
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
