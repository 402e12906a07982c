//! Tuple forwarding, as XLA's `TupleSimplifier`: `get-tuple-element(tuple(x0, …, xn), i)`
//! is `xi`, so its readers read `xi` itself. Inlined calls leave such pairs behind (JAX's
//! `custom_jvp` functions return `(value, derivative)` tuples): without this rule the tuple
//! is a reader of every element, so an element computed by an elementwise chain is stored
//! for the tuple instead of being computed inside the kernel of its real reader. The
//! tuple, if nothing else reads it, is then dead. No value changes.

use xla_core::ir::{Computation, InstrId, Op};

/// The element `get-tuple-element` instruction `i` picks out of a `tuple`, if it is one.
fn forwarded(c: &Computation, i: usize) -> Option<InstrId> {
    let ins = c.instructions.get(i)?;
    let (Op::GetTupleElement { index }, [t]) = (&ins.op, ins.operands.as_slice()) else {
        return None;
    };
    let tuple = c.get(*t)?;
    if !matches!(tuple.op, Op::Tuple) {
        return None;
    }
    let x = *tuple.operands.get(usize::try_from(*index).ok()?)?;
    // The element has the shape the instruction claims (a verified module always does).
    (c.get(x)?.shape == ins.shape).then_some(x)
}

/// Points every reader of a forwarded `get-tuple-element` at the element itself (the root
/// is kept, so the computation's result stays its own instruction); true if any changed.
pub(super) fn forward_tuple_elements(c: &mut Computation) -> bool {
    let n = c.instructions.len();
    let mut alias: Vec<InstrId> = (0..n).map(InstrId).collect();
    let mut changed = false;
    for i in 0..n {
        if let Some(ins) = c.instructions.get_mut(i) {
            for o in &mut ins.operands {
                let a = alias.get(o.0).copied().unwrap_or(*o);
                changed |= a != *o;
                *o = a;
            }
        }
        if i != c.root.0 {
            if let Some(x) = forwarded(c, i) {
                alias[i] = x;
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use xla_core::text::parse_module;

    #[test]
    fn readers_of_a_tuple_element_read_the_element() {
        let m = parse_module(
            "HloModule t\n\
             ENTRY e {\n  \
               a = f32[4]{0} parameter(0)\n  \
               b = f32[4]{0} exponential(a)\n  \
               c = f32[4]{0} negate(a)\n  \
               t = (f32[4]{0}, f32[4]{0}) tuple(b, c)\n  \
               g1 = f32[4]{0} get-tuple-element(t), index=1\n  \
               g0 = f32[4]{0} get-tuple-element(t), index=0\n  \
               ROOT r = f32[4]{0} add(g0, g1)\n\
             }\n",
        )
        .expect("test module parses");
        let mut c = m.computations[m.entry.0].clone();
        assert!(forward_tuple_elements(&mut c));
        let root = &c.instructions[c.root.0];
        assert_eq!(root.operands, vec![InstrId(1), InstrId(2)]);
        // A second pass finds nothing more to do.
        assert!(!forward_tuple_elements(&mut c));
    }

    #[test]
    fn the_root_and_elements_of_other_tuples_are_kept() {
        let m = parse_module(
            "HloModule t\n\
             body {\n  \
               p = (f32[4]{0}, f32[4]{0}) parameter(0)\n  \
               g = f32[4]{0} get-tuple-element(p), index=0\n  \
               ROOT n = f32[4]{0} negate(g)\n\
             }\n\
             ENTRY e {\n  \
               a = f32[4]{0} parameter(0)\n  \
               t = (f32[4]{0}, f32[4]{0}) tuple(a, a)\n  \
               ROOT g = f32[4]{0} get-tuple-element(t), index=1\n\
             }\n",
        )
        .expect("test module parses");
        for c in &m.computations {
            let mut c = c.clone();
            let before = c.instructions.clone();
            assert!(!forward_tuple_elements(&mut c));
            assert_eq!(c.instructions, before);
        }
    }
}
