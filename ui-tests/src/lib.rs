//! No library: this package holds the `#[computation]` compile tests (`tests/macro_ui.rs`,
//! `tests/ui/`), apart from xla-macros so that they build against the facade for the target
//! only.
