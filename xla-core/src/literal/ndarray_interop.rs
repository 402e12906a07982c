//! Conversions between literals and `ndarray` arrays.
