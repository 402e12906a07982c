//! Cranelift emission: one function `run(state) -> i32` runs the whole loop (condition,
//! body, carry) on the state buffer. Instructions are emitted per element, fully unrolled
//! up to [`UNROLL`] elements and as counted loops beyond; within one block each element
//! loaded or stored is remembered, so unrolled chains stay in registers.

use super::program::{Inst, Program, Slot, SlotId, Ty};
use super::{contraction, elementwise, externs, reduce};
use cranelift_codegen::ir::{
    types, AbiParam, Block, FuncRef, InstBuilder, MemFlagsData, Signature, Type, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module};
use std::collections::HashMap;

/// Elements up to which an op is unrolled.
pub(crate) const UNROLL: usize = 32;

/// An element index: known at compile time, or a run-time `i64`.
#[derive(Clone, Copy)]
pub(crate) enum Ix {
    /// A constant index.
    C(usize),
    /// A run-time index.
    D(Value),
}

/// The emitter of one function.
pub(crate) struct Em<'a, 'f> {
    /// The function being built.
    pub b: FunctionBuilder<'f>,
    module: &'a mut JITModule,
    slots: &'a [Slot],
    /// The caller's pinned register (r15 on x86-64, callee-saved), put back before every
    /// return: the state buffer's address lives in it while the loop runs.
    saved: Value,
    cache: HashMap<(SlotId, usize), Value>,
    /// 16-byte vectors of slot elements known in registers, by (slot, first element): the
    /// element cache's vector twin (`vector.rs` fills and reads it).
    vcache: HashMap<(SlotId, usize), Value>,
    funcs: HashMap<&'static str, FuncRef>,
}

/// The Cranelift type of slot elements of `ty`.
pub(crate) fn clif(ty: Ty) -> Type {
    match ty {
        Ty::Pred | Ty::S8 | Ty::U8 => types::I8,
        Ty::S16 | Ty::U16 => types::I16,
        Ty::S32 | Ty::U32 => types::I32,
        Ty::S64 | Ty::U64 => types::I64,
        Ty::F32 => types::F32,
        Ty::F64 => types::F64,
    }
}

/// Elements of `ty` per 16-byte vector (the granule of [`Em::vcached`]).
pub(crate) fn lanes_of(ty: Ty) -> usize {
    16 / ty.size()
}

/// The integer type of the element bits of `ty`.
fn raw(ty: Ty) -> Type {
    match ty {
        Ty::F32 => types::I32,
        Ty::F64 => types::I64,
        other => clif(other),
    }
}

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

impl Em<'_, '_> {
    /// The slot record of `s` (slots come from the program, so this never fails there).
    pub(crate) fn slot(&self, s: SlotId) -> Option<Slot> {
        self.slots.get(s).copied()
    }

    /// The address of element `ix` of slot `s`, as (base, offset).
    pub(crate) fn at(&mut self, s: Slot, ix: Ix) -> Option<(Value, i32)> {
        let sz = s.ty.size();
        match ix {
            Ix::C(i) => Some((self.state(), i32::try_from(s.off + i * sz).ok()?)),
            Ix::D(v) => {
                let scaled = self.b.ins().imul_imm_s(v, sz as i64);
                let base = self.state();
                let p = self.b.ins().iadd(base, scaled);
                Some((p, i32::try_from(s.off).ok()?))
            }
        }
    }

    /// Element `ix` of slot `s` (element 0 of a one-element slot, which broadcasts).
    pub(crate) fn load(&mut self, s: SlotId, ix: Ix) -> Option<Value> {
        let sl = self.slot(s)?;
        let ix = if sl.n == 1 { Ix::C(0) } else { ix };
        if let Ix::C(i) = ix {
            if let Some(v) = self.cache.get(&(s, i)) {
                return Some(*v);
            }
            let w = lanes_of(sl.ty);
            if let Some(&vec) = self.vcache.get(&(s, i - i % w)) {
                let v = self.b.ins().extractlane(vec, (i % w) as u8);
                self.cache.insert((s, i), v);
                return Some(v);
            }
        }
        let (p, off) = self.at(sl, ix)?;
        let v = if sl.ty.is_float() {
            // Floats are loaded as integers and moved over: a load feeding a commutative
            // float op directly could be merged into it with the operands swapped
            // (Cranelift's x64 lowering does this for `fadd`/`fmul`), and which NaN an
            // op returns depends on the operand order.
            let it = if sl.ty == Ty::F32 {
                types::I32
            } else {
                types::I64
            };
            let raw = self.b.ins().load(it, flags(), p, off);
            self.b.ins().bitcast(clif(sl.ty), MemFlagsData::new(), raw)
        } else {
            self.b.ins().load(clif(sl.ty), flags(), p, off)
        };
        if let Ix::C(i) = ix {
            self.cache.insert((s, i), v);
        }
        Some(v)
    }

    /// Element `ix` of slot `s` as raw bits (an integer of the element's width), for moves.
    pub(crate) fn load_raw(&mut self, s: SlotId, ix: Ix) -> Option<Value> {
        let sl = self.slot(s)?;
        let ix = if sl.n == 1 { Ix::C(0) } else { ix };
        let (p, off) = self.at(sl, ix)?;
        Some(self.b.ins().load(raw(sl.ty), flags(), p, off))
    }

    /// Stores raw bits `v` (from [`Em::load_raw`]) as element `ix` of slot `s`.
    pub(crate) fn store_raw(&mut self, s: SlotId, ix: Ix, v: Value) -> Option<()> {
        let sl = self.slot(s)?;
        let (p, off) = self.at(sl, ix)?;
        self.b.ins().store(flags(), v, p, off);
        match ix {
            Ix::C(i) => {
                self.cache.remove(&(s, i));
                self.vcache.remove(&(s, i - i % lanes_of(sl.ty)));
            }
            Ix::D(_) => self.forget(s),
        }
        Some(())
    }

    /// Stores `v` as element `ix` of slot `s`.
    pub(crate) fn store(&mut self, s: SlotId, ix: Ix, v: Value) -> Option<()> {
        let sl = self.slot(s)?;
        let (p, off) = self.at(sl, ix)?;
        self.b.ins().store(flags(), v, p, off);
        match ix {
            Ix::C(i) => {
                self.cache.insert((s, i), v);
                self.vcache.remove(&(s, i - i % lanes_of(sl.ty)));
            }
            Ix::D(_) => self.forget(s),
        }
        Some(())
    }

    /// The vector of slot `s` starting at element `first`, if it is in registers.
    pub(crate) fn vcached(&self, s: SlotId, first: usize) -> Option<Value> {
        self.vcache.get(&(s, first)).copied()
    }

    /// The element of slot `s` at `i`, if it is in registers.
    pub(crate) fn cached(&self, s: SlotId, i: usize) -> Option<Value> {
        self.cache.get(&(s, i)).copied()
    }

    /// Records that vector `v` was just stored as the elements of slot `s` from `first`
    /// (`w` of them): what was remembered of them one by one is stale.
    pub(crate) fn vstored(&mut self, s: SlotId, first: usize, w: usize, v: Value) {
        for i in first..first + w {
            self.cache.remove(&(s, i));
        }
        self.vcache.insert((s, first), v);
    }

    /// Drops what is remembered of slot `s` (after code outside this function wrote it).
    pub(crate) fn forget(&mut self, s: SlotId) {
        self.cache.retain(|k, _| k.0 != s);
        self.vcache.retain(|k, _| k.0 != s);
    }

    /// The address of element 0 of slot `s`.
    pub(crate) fn addr(&mut self, s: SlotId) -> Option<Value> {
        let off = self.slot(s)?.off;
        let base = self.state();
        Some(self.b.ins().iadd_imm_s(base, off as i64))
    }

    /// Starts emitting into `blk`; nothing remembered carries over.
    pub(crate) fn switch(&mut self, blk: Block) {
        self.b.switch_to_block(blk);
        self.cache.clear();
        self.vcache.clear();
    }

    /// Calls `f` for every index below `n`: unrolled when short, else a counted loop.
    pub(crate) fn each(
        &mut self,
        n: usize,
        mut f: impl FnMut(&mut Self, Ix) -> Option<()>,
    ) -> Option<()> {
        if n <= UNROLL {
            return (0..n).try_for_each(|i| f(self, Ix::C(i)));
        }
        let (head, body, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().jump(head, &[zero.into()]);
        self.switch(head);
        let i = *self.b.block_params(head).first()?;
        let more = self.b.ins().icmp_imm_s(
            cranelift_codegen::ir::condcodes::IntCC::UnsignedLessThan,
            i,
            n as i64,
        );
        self.b.ins().brif(more, body, &[], exit, &[]);
        self.switch(body);
        f(self, Ix::D(i))?;
        let next = self.b.ins().iadd_imm_s(i, 1);
        self.b.ins().jump(head, &[next.into()]);
        self.switch(exit);
        Some(())
    }

    /// `start + ix * step` as an index.
    pub(crate) fn affine(&mut self, ix: Ix, start: usize, step: isize) -> Option<Ix> {
        Some(match ix {
            Ix::C(i) => Ix::C(usize::try_from(start as isize + i as isize * step).ok()?),
            Ix::D(v) => {
                let s = self.b.ins().imul_imm_s(v, step as i64);
                Ix::D(self.b.ins().iadd_imm_s(s, start as i64))
            }
        })
    }

    /// A reference to host function `name` (one of [`externs::SYMBOLS`]) of `args`
    /// arguments and one result, all of type `t`.
    pub(crate) fn func(&mut self, name: &'static str, t: Type, args: usize) -> Option<FuncRef> {
        if let Some(f) = self.funcs.get(name) {
            return Some(*f);
        }
        let mut sig = self.module.make_signature();
        sig.params.extend((0..args).map(|_| AbiParam::new(t)));
        sig.returns.push(AbiParam::new(t));
        self.import(name, sig)
    }

    /// Imports host function `name` with signature `sig`.
    pub(crate) fn import(&mut self, name: &'static str, sig: Signature) -> Option<FuncRef> {
        let id = self
            .module
            .declare_function(name, Linkage::Import, &sig)
            .ok()?;
        let f = self.module.declare_func_in_func(id, self.b.func);
        self.funcs.insert(name, f);
        Some(f)
    }

    /// A new signature of the module's calling convention.
    pub(crate) fn signature(&self) -> Signature {
        self.module.make_signature()
    }

    /// The state buffer's address, read from the pinned register it lives in. (Held in an
    /// ordinary value across the whole function, the register allocator kept it in a
    /// stack slot and reloaded it before nearly every slot access of a loop: 15-18% of
    /// the samples of E3's and E8's loops were such reloads.)
    pub(crate) fn state(&mut self) -> Value {
        let ptr = self.module.target_config().pointer_type();
        self.b.ins().get_pinned_reg(ptr)
    }

    /// Returns `code` from the function, the caller's pinned register put back first.
    pub(crate) fn ret(&mut self, code: i64) {
        self.b.ins().set_pinned_reg(self.saved);
        let c = self.b.ins().iconst(types::I32, code);
        self.b.ins().return_(&[c]);
    }

    /// The program's slot table (address and length; it outlives the compiled code).
    pub(crate) fn slot_table(&self) -> (*const Slot, usize) {
        (self.slots.as_ptr(), self.slots.len())
    }

    /// The pointer type.
    pub(crate) fn ptr(&self) -> Type {
        self.module.target_config().pointer_type()
    }

    pub(crate) fn inst(&mut self, ins: &Inst) -> Option<()> {
        match ins {
            Inst::Unary { .. }
            | Inst::Binary { .. }
            | Inst::Compare { .. }
            | Inst::Select { .. }
            | Inst::Clamp { .. }
            | Inst::Convert { .. } => elementwise::emit(self, ins),
            Inst::Move { dst, runs } => super::structural::emit(self, *dst, runs),
            Inst::Fold { .. } => reduce::emit(self, ins),
            Inst::DynSlice { dst, starts, runs } => {
                super::dynamic::emit_slice(self, *dst, starts, runs)
            }
            Inst::DynUpdate {
                dst,
                operand,
                starts,
                runs,
            } => super::dynamic::emit_update(self, *dst, *operand, starts, runs),
            Inst::Dot { .. } => contraction::emit(self, ins),
            Inst::Scatter { .. } => super::indexing::emit_scatter(self, ins),
            Inst::Loop { cond, pred, body } => super::control::emit_loop(self, cond, *pred, body),
            Inst::Branch { sel, arms } => super::control::emit_branch(self, *sel, arms),
            Inst::Host(op) => super::host::emit(self, op),
        }
    }
}

/// Compiled code of one loop, with the module that owns its memory.
pub(crate) struct Code {
    module: Option<JITModule>,
    /// `run(state) -> 0`.
    pub(crate) entry: unsafe extern "C" fn(*mut u8) -> i32,
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: `entry` points into this module's memory and dies with `self`; no
            // other pointer into it was handed out.
            unsafe { m.free_memory() };
        }
    }
}

fn isa() -> Option<cranelift_codegen::isa::OwnedTargetIsa> {
    let mut fb = settings::builder();
    fb.set("opt_level", "speed").ok()?;
    fb.set("is_pic", "false").ok()?;
    fb.set("enable_pinned_reg", "true").ok()?;
    let ib = cranelift_native::builder().ok()?;
    ib.finish(settings::Flags::new(fb)).ok()
}

/// Compiles `p` to machine code, or `None` if Cranelift refuses it.
pub(crate) fn compile(p: &Program) -> Option<Code> {
    let mut jb = JITBuilder::with_isa(isa()?, cranelift_module::default_libcall_names());
    for (name, f) in externs::symbols() {
        jb.symbol(name, f);
    }
    let mut module = JITModule::new(jb);
    let mut ctx = module.make_context();
    let ptr = module.target_config().pointer_type();
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func.signature.returns.push(AbiParam::new(types::I32));
    let mut fctx = FunctionBuilderContext::new();
    let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
    body(b, &mut module, p)?;
    let id = module
        .declare_function("run", Linkage::Export, &ctx.func.signature)
        .ok()?;
    module.define_function(id, &mut ctx).ok()?;
    // The bytes, for profiles only (`XLA_CPU_PERF_MAP`).
    let code = std::env::var_os("XLA_CPU_PERF_MAP")
        .and(ctx.compiled_code())
        .map(|c| c.code_buffer().to_vec());
    module.clear_context(&mut ctx);
    // W^X: code is written while the memory is writable, then `finalize_definitions`
    // mprotects it read+execute: it is never writable and executable at once (tested by
    // tests/wx.rs through /proc/self/maps).
    module.finalize_definitions().ok()?;
    let f = module.get_finalized_function(id);
    if let Some(bytes) = code {
        crate::fusion::record_native(f, &bytes);
    }
    // SAFETY: `f` is the function just defined with signature `(ptr) -> i32`, C ABI
    // (Cranelift's default call convention for the host).
    let entry =
        unsafe { std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut u8) -> i32>(f) };
    Some(Code {
        module: Some(module),
        entry,
    })
}

fn body(mut b: FunctionBuilder<'_>, module: &mut JITModule, p: &Program) -> Option<()> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let state = *b.block_params(entry).first()?;
    let ptr = module.target_config().pointer_type();
    let saved = b.ins().get_pinned_reg(ptr);
    b.ins().set_pinned_reg(state);
    let (head, step, exit) = (b.create_block(), b.create_block(), b.create_block());
    let mut em = Em {
        b,
        module,
        slots: &p.slots,
        saved,
        cache: HashMap::new(),
        vcache: HashMap::new(),
        funcs: HashMap::new(),
    };
    p.pre.iter().try_for_each(|i| em.inst(i))?;
    let trips = super::poll::counter(&mut em);
    em.b.ins().jump(head, &[]);
    em.switch(head);
    p.cond.iter().try_for_each(|i| em.inst(i))?;
    let go = em.load(p.pred, Ix::C(0))?;
    em.b.ins().brif(go, step, &[], exit, &[]);
    em.switch(step);
    p.body.iter().try_for_each(|i| em.inst(i))?;
    // The back edge polls the stop conditions, so a loop that never ends can be stopped.
    super::poll::back_edge(&mut em, trips, head)?;
    em.switch(exit);
    em.ret(0);
    em.b.seal_all_blocks();
    let cfg = em.module.target_config();
    em.b.finalize(cfg);
    Some(())
}
