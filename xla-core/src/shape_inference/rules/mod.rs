//! The typed rules of a [`ShapeRule`](super::ShapeRule), one enum per op family beyond the
//! rules many ops share: each variant carries the shapes and numbers involved and writes
//! its message from them (shapes in XLA notation).

mod broadcast;
mod callee;
mod collective;
mod contraction;
mod convert;
mod gather;
mod linalg;
mod operands;
mod slice;
mod window;

pub use broadcast::BroadcastRule;
pub use callee::CalleeRule;
pub use collective::CollectiveRule;
pub use contraction::ContractionRule;
pub use convert::ConvertRule;
pub use gather::GatherRule;
pub use linalg::LinalgRule;
pub use operands::OperandsRule;
pub use slice::SliceRule;
pub use window::WindowRule;
