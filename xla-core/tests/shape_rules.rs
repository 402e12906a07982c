//! Table-driven tests of the shape rules: one row per worked example of the specification
//! and one negative row per enforced rule, plus a run over every conformance module.

#[path = "shape_rules/conformance.rs"]
mod conformance;
