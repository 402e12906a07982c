//! Shape rules: window.
