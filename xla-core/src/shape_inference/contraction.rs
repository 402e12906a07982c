//! Shape rules: contraction.
