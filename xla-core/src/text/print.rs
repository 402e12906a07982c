//! The HLO text printer.

use crate::ir::Module;

/// Prints a module in XLA's HLO text format.
pub fn print_module(module: &Module) -> String {
    format!("HloModule {}\n", module.name)
}
