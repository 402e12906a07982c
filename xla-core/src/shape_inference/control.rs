//! Shape rules: control.
