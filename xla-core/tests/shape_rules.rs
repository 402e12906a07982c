//! Table-driven tests of the shape rules: one row per worked example of the specification
//! and one negative row per enforced rule, plus a run over every conformance module.

#[path = "shape_rules/conformance.rs"]
mod conformance;
#[path = "shape_rules/elementwise.rs"]
mod elementwise;
#[path = "shape_rules/structural.rs"]
mod structural;
#[path = "shape_rules/util.rs"]
mod util;
