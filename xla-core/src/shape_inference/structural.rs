//! Shape rules: structural.
