//! The builder: one method per operation, shape-checked as you go.
