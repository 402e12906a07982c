//! The registers one copy of a kernel's loop body uses, and two copies interleaved.
//!
//! Why two copies: a kernel whose ops form one long dependency chain (`exp` feeding
//! `log1p` in a softplus, each a polynomial of dependent fused multiply-adds) is bound
//! by latency, not by the units: measured on the 2-core EPYC here, `log1p(exp(x))` over
//! f32[128,784] took 128 µs while `log1p(x) + exp(y)` (the same instructions, two
//! independent chains) took 81 µs. The out-of-order window holds fewer than three
//! iterations of such a body, so consecutive iterations barely overlap. Emitting the body
//! twice, for the 16 lanes at `rax` and the 16 at `rax + 64`, in disjoint registers, and
//! merging the two instruction streams one instruction at a time puts two independent
//! chains side by side inside the window, as XLA's unrolled LLVM loops do.
//!
//! With AVX2 (16 `ymm` registers of 8 lanes) the two copies are the two halves of one
//! 16-lane step, 8 registers each; a body that needs more runs once per half with all 16.

use super::Asm;
use iced_x86::code_asm::*;
use iced_x86::{IcedError, Instruction};

/// Registers and addressing of one copy of the body (`Z`: `zmm` or `ymm` registers).
#[derive(Clone, Copy)]
pub(super) struct Bank<Z: 'static> {
    /// Registers for node values.
    pub values: &'static [Z],
    /// Scratch registers of the op expansions (an op needing more is not emitted).
    pub t: &'static [Z],
    /// Opmask registers of the expansions (by number: 1 to 7; AVX-512 only).
    pub k: [u8; 3],
    /// Scratch general register for an input's base address.
    pub ptr: AsmRegister64,
    /// Scratch general register for an index into a table of rows (callee-saved: the
    /// code pushes and pops it).
    pub idx: AsmRegister64,
    /// Byte offset of this copy's lanes from `rax` (and from `r11`) and in the output.
    pub off: i32,
}

/// One copy with every register: 24 for values, 8 scratch, masks k1-k3, pointer `r10`.
pub(super) const SINGLE: Bank<AsmRegisterZmm> = Bank {
    values: &[
        zmm0, zmm1, zmm2, zmm3, zmm4, zmm5, zmm6, zmm7, zmm8, zmm9, zmm10, zmm11, zmm12, zmm13,
        zmm14, zmm15, zmm16, zmm17, zmm18, zmm19, zmm20, zmm21, zmm22, zmm23,
    ],
    t: &[zmm24, zmm25, zmm26, zmm27, zmm28, zmm29, zmm30, zmm31],
    k: [1, 2, 3],
    ptr: r10,
    idx: r12,
    off: 0,
};

/// The first of two interleaved copies: 8 value registers, masks k1-k3, pointer `r10`.
pub(super) const PAIR_A: Bank<AsmRegisterZmm> = Bank {
    values: &[zmm0, zmm1, zmm2, zmm3, zmm4, zmm5, zmm6, zmm7],
    t: &[zmm16, zmm17, zmm18, zmm19, zmm20, zmm21, zmm22, zmm23],
    k: [1, 2, 3],
    ptr: r10,
    idx: r12,
    off: 0,
};

/// The second copy, 64 bytes on: disjoint registers, masks k4-k6, pointer `rdx` (free
/// once the start offset is in `rax`).
pub(super) const PAIR_B: Bank<AsmRegisterZmm> = Bank {
    values: &[zmm8, zmm9, zmm10, zmm11, zmm12, zmm13, zmm14, zmm15],
    t: &[zmm24, zmm25, zmm26, zmm27, zmm28, zmm29, zmm30, zmm31],
    k: [4, 5, 6],
    ptr: rdx,
    idx: r13,
    off: 64,
};

/// AVX2, one half of a 16-lane step with every register: 8 for values, 8 scratch.
pub(super) const Y_SINGLE: Bank<AsmRegisterYmm> = Bank {
    values: &[ymm0, ymm1, ymm2, ymm3, ymm4, ymm5, ymm6, ymm7],
    t: &[ymm8, ymm9, ymm10, ymm11, ymm12, ymm13, ymm14, ymm15],
    k: [0; 3],
    ptr: r10,
    idx: r12,
    off: 0,
};

/// The same for the step's second half, 32 bytes on.
pub(super) const Y_SINGLE_HI: Bank<AsmRegisterYmm> = Bank {
    off: 32,
    ..Y_SINGLE
};

/// AVX2, the first half of a step in half the registers: 4 for values, 4 scratch.
pub(super) const Y_PAIR_A: Bank<AsmRegisterYmm> = Bank {
    values: &[ymm0, ymm1, ymm2, ymm3],
    t: &[ymm4, ymm5, ymm6, ymm7],
    k: [0; 3],
    ptr: r10,
    idx: r12,
    off: 0,
};

/// The second half, 32 bytes on, in the other registers (pointer `rdx`, as `PAIR_B`).
pub(super) const Y_PAIR_B: Bank<AsmRegisterYmm> = Bank {
    values: &[ymm8, ymm9, ymm10, ymm11],
    t: &[ymm12, ymm13, ymm14, ymm15],
    k: [0; 3],
    ptr: rdx,
    idx: r13,
    off: 32,
};

impl Bank<AsmRegisterZmm> {
    /// Opmask `i` of this bank.
    pub fn kr(&self, i: usize) -> AsmRegisterK {
        match self.k.get(i).copied().unwrap_or(7) {
            1 => k1,
            2 => k2,
            3 => k3,
            4 => k4,
            5 => k5,
            6 => k6,
            _ => k7,
        }
    }

    /// `d` written under opmask `i` of this bank.
    pub fn m(&self, d: AsmRegisterZmm, i: usize) -> AsmRegisterZmm {
        match self.k.get(i).copied().unwrap_or(7) {
            1 => d.k1(),
            2 => d.k2(),
            3 => d.k3(),
            4 => d.k4(),
            5 => d.k5(),
            6 => d.k6(),
            _ => d.k7(),
        }
    }
}

/// Appends `x` and `y` to `a`, alternating one instruction of each (the longer one's
/// rest at the end).
pub(super) fn interleave(
    a: &mut Asm,
    x: Vec<Instruction>,
    y: Vec<Instruction>,
) -> Result<(), IcedError> {
    let mut y = y.into_iter();
    for i in x {
        a.add_instruction(i)?;
        if let Some(j) = y.next() {
            a.add_instruction(j)?;
        }
    }
    for j in y {
        a.add_instruction(j)?;
    }
    Ok(())
}
