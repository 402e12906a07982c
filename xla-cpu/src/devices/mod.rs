//! Many devices: a module whose header says `replica_count=R` and/or `num_partitions=P` runs
//! as `R × P` devices (device = replica × P + partition), each running the entry computation
//! on its own arguments; collectives exchange values between them.
//!
//! - [`groups`]: which devices a collective spans (XLA's group modes), pure functions;
//! - [`Communicator`]: the transport (one exchange primitive), with [`ThreadCommunicator`]
//!   (one thread per device in this process) as the embedded default;
//! - [`pool`]: the device threads, started once and parked between runs;
//! - `share`: each device's share of the executable's kernel threads;
//! - [`stack`]: the command line's convention of per-device values stacked along a leading
//!   axis of size `R × P`.
//!
//! A single-device module takes none of this: its collectives run on a group of one, with no
//! lock and no thread.

mod comm;
pub mod groups;
mod layout;
#[cfg(feature = "mpi")]
pub mod mpi;
pub(crate) mod ops;
pub mod pool;
mod run;
pub(crate) mod share;
pub mod stack;
mod threads;
mod xla_fold;

pub use comm::{Communicator, Device, Exchange};
pub use run::ReplicaOptions;
pub use stack::{split_devices, stack_devices};
pub use threads::ThreadCommunicator;
