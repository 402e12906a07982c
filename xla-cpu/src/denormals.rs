//! XLA:CPU's floating-point environment: subnormal numbers are flushed to zero.
//!
//! XLA runs every CPU computation with the processor's flush-to-zero and
//! denormals-are-zero modes on (TSL's `ScopedFlushDenormal` around each execution and in
//! every thread of its pools): a subnormal operand reads as a signed zero and a subnormal
//! result is written as one, for `f32` and `f64` alike (`3e-39f * 1 = 0`, `1e-20f * 1e-20f
//! = 0`, `f32(1e-39_f64) = 0`, `3e-39f == 0` is true). The executor does the same, for the
//! same numbers and because subnormal arithmetic is slow on x86: a microcode assist of
//! ~100 cycles per operation, which made a bf16 MobileNet whose placeholder weights are tiny
//! normal numbers (their products subnormal) forty times slower than XLA.
//!
//! The mode is per thread. [`Flush`] sets it on the calling thread for the length of one
//! execution and restores the caller's setting afterwards, so a program embedding the
//! library keeps its own floating-point environment; the executor's own pool threads set it
//! once when they start ([`flush_this_thread`]), since they run nothing else.
//!
//! Written by hand (a few lines of inline assembly on the control register) because no
//! maintained crate offers a scoped guard for it and `std::arch`'s `_mm_setcsr` is
//! deprecated in favour of exactly this.

/// The bits of the floating-point control register that flush subnormals.
#[cfg(target_arch = "x86_64")]
mod imp {
    /// MXCSR: flush-to-zero (bit 15) and denormals-are-zero (bit 6).
    pub(super) const FLUSH: u64 = (1 << 15) | (1 << 6);

    /// The current MXCSR.
    pub(super) fn read() -> u64 {
        let mut csr: u32 = 0;
        // SAFETY: `stmxcsr` stores the 32-bit MXCSR to the given address, which points at a
        // live, writable, 4-byte aligned local; it touches no other memory or register.
        unsafe {
            core::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
        }
        u64::from(csr)
    }

    /// Sets MXCSR to `v` (a value [`read`] returned, with only the flush bits changed).
    pub(super) fn write(v: u64) {
        let csr = v as u32;
        // SAFETY: `ldmxcsr` loads MXCSR from a live local. The value comes from `read`
        // with only the FTZ/DAZ bits changed, so no reserved bit is set (which would fault)
        // and rounding and exception masks stay the caller's.
        unsafe {
            core::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags));
        }
    }
}

/// The bits of the floating-point control register that flush subnormals.
#[cfg(target_arch = "aarch64")]
mod imp {
    /// FPCR: flush-to-zero (bit 24), which on AArch64 covers inputs and outputs.
    pub(super) const FLUSH: u64 = 1 << 24;

    /// The current FPCR.
    pub(super) fn read() -> u64 {
        let v: u64;
        // SAFETY: reading FPCR into a register has no other effect.
        unsafe {
            core::arch::asm!("mrs {}, fpcr", out(reg) v, options(nomem, nostack, preserves_flags));
        }
        v
    }

    /// Sets FPCR to `v` (a value [`read`] returned, with only the flush bit changed).
    pub(super) fn write(v: u64) {
        // SAFETY: the value is the current FPCR with only the FZ bit changed; writing it
        // changes the floating-point mode of this thread only.
        unsafe {
            core::arch::asm!("msr fpcr, {}", in(reg) v, options(nomem, nostack, preserves_flags));
        }
    }
}

/// Other targets: no flush mode is set (their subnormals stay, as they do in the reference).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    pub(super) const FLUSH: u64 = 0;
    pub(super) fn read() -> u64 {
        0
    }
    pub(super) fn write(_: u64) {}
}

/// A floating-point mode set on this thread until dropped, then the previous one restored.
#[must_use = "the mode is restored when the guard drops"]
pub(crate) struct Flush {
    saved: u64,
    changed: bool,
}

impl Flush {
    /// Turns flushing on for the calling thread.
    pub(crate) fn on() -> Flush {
        Flush::set(true)
    }

    /// Turns flushing off for the calling thread: for LAPACK's algorithms (`kernels/lapack`),
    /// which faer writes with IEEE subnormals in mind (its scaling thresholds are below the
    /// smallest normal number) and which in XLA are the LAPACK library's own code.
    pub(crate) fn off() -> Flush {
        Flush::set(false)
    }

    fn set(on: bool) -> Flush {
        let saved = imp::read();
        let want = if on {
            saved | imp::FLUSH
        } else {
            saved & !imp::FLUSH
        };
        let changed = want != saved;
        if changed {
            imp::write(want);
        }
        Flush { saved, changed }
    }
}

impl Drop for Flush {
    fn drop(&mut self) {
        if self.changed {
            imp::write(self.saved);
        }
    }
}

/// Turns flushing on for the rest of this thread's life (the executor's pool threads).
pub(crate) fn flush_this_thread() {
    imp::write(imp::read() | imp::FLUSH);
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use super::*;

    /// Keeps the optimiser from folding the arithmetic at compile time.
    fn opaque(x: f32) -> f32 {
        std::hint::black_box(x)
    }

    #[test]
    fn flushes_inside_and_restores_after() {
        let tiny = opaque(3e-39);
        assert_eq!((tiny * opaque(1.0)).to_bits(), 3e-39_f32.to_bits());
        {
            let _g = Flush::on();
            assert_eq!(tiny * opaque(1.0), 0.0);
            assert_eq!(opaque(1e-20) * opaque(1e-20), 0.0);
            assert_eq!(
                (opaque(-3e-39) * opaque(1.0)).to_bits(),
                (-0.0_f32).to_bits()
            );
            assert_eq!(std::hint::black_box(1e-39_f64) as f32, 0.0);
            let _nested = Flush::on();
            {
                let _ieee = Flush::off();
                assert_eq!((tiny * opaque(1.0)).to_bits(), 3e-39_f32.to_bits());
            }
            assert_eq!(tiny * opaque(1.0), 0.0);
        }
        assert_eq!((tiny * opaque(1.0)).to_bits(), 3e-39_f32.to_bits());
        assert!(opaque(1e-20) * opaque(1e-20) > 0.0);
    }
}
