//! Shape rules: rng.
