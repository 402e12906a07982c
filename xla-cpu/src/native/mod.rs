//! Small `while` loops as native code. At compile time each `while` whose condition and
//! body (and everything they call) use only supported ops on small values is lowered to a
//! flat slot program (`lower.rs`) and compiled with Cranelift (`emit.rs`) into one
//! function that runs the whole loop on a state buffer. At run time the executor packs
//! the loop's initial state into the buffer, calls the function and unpacks the result.
//! Results are bit-identical to the interpreter's; anything else falls back to it.

mod contraction;
mod control;
mod dynamic;
mod elementwise;
mod emit;
mod externs;
mod hoist;
mod host;
mod in_place;
mod indexing;
mod lower;
mod masks;
mod pack;
mod poll;
mod program;
mod reduce;
mod scalars;
mod slices;
mod structural;
mod vector;

use crate::compile::Executable;
use crate::error::Result;
use program::Program;
use std::collections::HashMap;
use xla_core::ir::{CompId, Op};
use xla_core::Literal;

/// One loop compiled to native code.
pub(crate) struct NativeLoop {
    program: Program,
    code: emit::Code,
}

// SAFETY: the generated code is immutable after finalisation (mapped read+execute) and
// keeps no state between calls: every call gets its own state buffer, so calling it from
// several threads at once is sound. `JITModule` is kept only to free the memory on drop.
unsafe impl Send for NativeLoop {}
// SAFETY: as for `Send`.
unsafe impl Sync for NativeLoop {}

impl std::fmt::Debug for NativeLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeLoop")
            .field("slots", &self.program.slots.len())
            .field("bytes", &self.program.image.len())
            .finish_non_exhaustive()
    }
}

/// The native loops of an executable, by `(condition, body)`.
pub(crate) type NativeLoops = HashMap<(CompId, CompId), NativeLoop>;

/// True unless native code is turned off (`XLA_CPU_NO_JIT`, [`crate::set_codegen`]).
fn wanted() -> bool {
    crate::fusion::codegen_wanted()
}

/// Compiles every eligible `while` of `exe` (none when code generation is off).
pub(crate) fn compile_loops(exe: &Executable) -> NativeLoops {
    let mut loops = NativeLoops::new();
    if !wanted() {
        return loops;
    }
    for comp in &exe.module.computations {
        for ins in &comp.instructions {
            if let Op::While { condition, body } = ins.op {
                if loops.contains_key(&(condition, body)) {
                    continue;
                }
                let lowered = lower::lower(exe, condition, body);
                // A debugging aid: which loops run natively (with why not, per instruction,
                // from `lower.rs`).
                if std::env::var_os("XLA_CPU_WHY_NOT_NATIVE").is_some() {
                    let what = if lowered.is_some() {
                        "lowered"
                    } else {
                        "interpreted"
                    };
                    eprintln!("while {}: {what}", ins.name);
                }
                if let Some(program) = lowered {
                    // Cranelift reports bad input as errors; a panic inside it (a bug)
                    // must still only mean "no native code" here.
                    let code = std::panic::catch_unwind(|| emit::compile(&program))
                        .ok()
                        .flatten();
                    if let Some(code) = code {
                        loops.insert((condition, body), NativeLoop { program, code });
                    }
                }
            }
        }
    }
    loops
}

/// A 64-byte aligned block of the state buffer.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

impl NativeLoop {
    /// Runs the loop from `init`; the result has `init`'s shape.
    fn run(&self, init: &Literal) -> Result<Literal> {
        let p = &self.program;
        let mut lines = vec![Line([0; 64]); p.image.len().div_ceil(64).max(1)];
        // SAFETY: `Line` is plain bytes with no padding; the slice covers the allocation.
        let buf: &mut [u8] = unsafe {
            std::slice::from_raw_parts_mut(lines.as_mut_ptr().cast::<u8>(), lines.len() * 64)
        };
        let (img, _) = buf.split_at_mut(p.image.len());
        img.copy_from_slice(&p.image);
        pack::pack(init, &p.state, &p.slots, buf)?;
        // SAFETY: the code reads and writes only the program's slots, all inside `buf`
        // (offsets checked against the image size at lowering), which lives across the
        // call; it calls only the host functions of `externs.rs`.
        let rc = unsafe { (self.code.entry)(buf.as_mut_ptr()) };
        if rc != 0 {
            return Err(match poll::take_stop() {
                Some((reason, trips)) => crate::error::CpuError::LoopStopped {
                    trips,
                    source: Box::new(crate::error::CpuError::Stopped { reason }),
                },
                None => crate::error::CpuError::Internal(
                    "a native loop stops early only with a stop reason recorded",
                ),
            });
        }
        pack::unpack(&p.state, init.shape(), &p.slots, buf)
    }
}

impl Executable {
    /// Runs `while(condition, body)` from `init` natively when it was compiled so.
    pub(crate) fn run_native(
        &self,
        condition: CompId,
        body: CompId,
        init: &Literal,
        stop: &crate::limits::stop::Stop,
    ) -> Option<Result<Literal>> {
        let l = self.native.get(&(condition, body))?;
        Some(poll::with_stop(stop, || l.run(init)))
    }

    /// How many `while` loops run as native code.
    #[doc(hidden)]
    pub fn native_loop_count(&self) -> usize {
        self.native.len()
    }

    /// Drops every native loop, so the interpreter runs them (for comparing the two).
    #[doc(hidden)]
    pub fn drop_native_loops(&mut self) {
        self.native.clear();
    }
}
