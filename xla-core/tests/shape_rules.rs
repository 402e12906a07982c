//! Table-driven tests of the shape rules: one row per worked example of the specification
//! and one negative row per enforced rule, plus a run over every conformance module.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "shape_rules/builder_level.rs"]
mod builder_level;
#[path = "shape_rules/collective.rs"]
mod collective;
#[path = "shape_rules/conformance.rs"]
mod conformance;
#[path = "shape_rules/contraction.rs"]
mod contraction;
#[path = "shape_rules/control.rs"]
mod control;
#[path = "shape_rules/elementwise.rs"]
mod elementwise;
#[path = "shape_rules/indexing.rs"]
mod indexing;
#[path = "shape_rules/linalg.rs"]
mod linalg;
#[path = "shape_rules/properties.rs"]
mod properties;
#[path = "shape_rules/robustness.rs"]
mod robustness;
#[path = "shape_rules/structural.rs"]
mod structural;
#[path = "shape_rules/typed.rs"]
mod typed;
#[path = "shape_rules/typed_families.rs"]
mod typed_families;
#[path = "shape_rules/util.rs"]
mod util;
#[path = "shape_rules/window.rs"]
mod window;
