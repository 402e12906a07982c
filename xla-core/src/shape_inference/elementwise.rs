//! Shape rules: elementwise.
