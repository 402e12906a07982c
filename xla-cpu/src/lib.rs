//! `xla-cpu`: runs HLO modules on the CPU. Not implemented yet.
