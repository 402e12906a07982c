//! Printing literals in XLA notation.
