//! Shape rules: linalg.
