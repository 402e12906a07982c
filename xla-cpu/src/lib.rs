//! `xla-cpu`: runs XLA HLO modules on the CPU with XLA's semantics.
//!
//! ```
//! use xla_core::ir::{Computation, Instruction, InstrId, Module, Op, BinaryOp};
//! use xla_core::{CompId, Literal, PrimitiveType, Shape};
//! let s = Shape::array(PrimitiveType::F32, vec![2]);
//! let p = |n: i64| Instruction { name: format!("p{n}"), op: Op::Parameter { number: n }, operands: vec![], shape: s.clone() };
//! let add = Instruction { name: "add".into(), op: Op::Binary(BinaryOp::Add), operands: vec![InstrId(0), InstrId(1)], shape: s.clone() };
//! let comp = Computation { name: "main".into(), instructions: vec![p(0), p(1), add], root: InstrId(2) };
//! let module = Module { name: "m".into(), computations: vec![comp], entry: CompId(0), config: Default::default() };
//! let exe = xla_cpu::Executable::compile(&module)?;
//! let out = exe.execute(&[Literal::vec1(&[1f32, 2.]), Literal::vec1(&[10f32, 20.])])?;
//! assert_eq!(out.data::<f32>(), Some(&[11f32, 22.][..]));
//! # Ok::<(), xla_cpu::CpuError>(())
//! ```

mod buffer;
mod compile;
mod concurrent;
mod ctx_host;
mod denormals;
pub mod devices;
mod error;
mod exec;
mod fold;
mod fusion;
mod in_place;
mod index;
mod invariant;
mod isa;
pub(crate) mod kernels;
mod limits;
mod math;
mod memory;
mod native;
pub mod parallel;
mod partner;
mod plan_view;
mod profile;
mod rewrite;
pub mod scalar;
mod values;
mod while_loop;

pub use compile::Executable;
pub use error::{CpuError, CustomCallFailure, HostError, Result};
pub use fusion::set_codegen;
pub use kernels::host::CustomCallFn;
pub use limits::{
    parse_memory_size, CancelToken, ExecuteOptions, LimitSource, MemoryLimit, StopReason,
    MEMORY_LIMIT_ENV,
};
pub use memory::retain_freed_memory;
pub use parallel::{Parallel, THREADS_ENV};
pub use plan_view::PlanStep;
pub use profile::ProfileEntry;
