//! Shape rules: indexing.
