//! `xla-autodiff`: gradient graphs for HLO modules (grad, vjp, jvp). Not implemented yet.
#![forbid(unsafe_code)]
