//! Shared validators used by the shape rules.
