//! The reading half of the `stablehlo_bytecode` target: MLIR bytecode (bare or in a
//! `jax.export` flatbuffer) → read → verify. `targets::stablehlo_bytecode` then compiles and
//! runs what verifies; this half needs only xla-core, so `scripts/fuzz_bytecode_read.sh`
//! fuzzes it alone, built in a fraction of the full target's time (the reader is where
//! malformed bytes arrive).

use xla::core::mlir::parse_bytecode;
use xla::core::verify::verify_module;
use xla::core::Module;

/// Reads `data` as bytecode: the module if it reads and verifies. A rejection must name a
/// byte inside the input (or just past its end); nothing may panic.
pub fn bytecode_read(data: &[u8]) -> Option<Module> {
    match parse_bytecode(data) {
        Ok(m) => verify_module(&m).is_ok().then_some(m),
        Err(e) => {
            assert!(
                e.offset <= data.len() + 16,
                "error offset {} past the input ({} bytes): {e}",
                e.offset,
                data.len()
            );
            None
        }
    }
}
