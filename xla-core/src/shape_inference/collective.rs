//! Shape rules: collective.
