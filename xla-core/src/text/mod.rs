//! XLA's HLO text format: [`parse_module`] reads what XLA prints; [`print_module`] writes
//! text XLA's own parser accepts.

mod lexer;
mod parse;
mod print;

pub use parse::{
    parse_dim_labels, parse_module, parse_shape, DimLabelsError, LabelRole, ParseError,
    ParseErrorKind,
    COMPUTATION_DEPTH_COST, MAX_DEPTH,
};
pub use print::{print_module, shape_with_layout, with_default_layouts};
