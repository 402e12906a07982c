//! The values of a running computation: each borrowed (a parameter the caller owns, a
//! constant of the module) or owned, and an owned value handed to its last reader instead of
//! copied. That is what lets loop state live in one set of buffers across iterations: the
//! body's parameter tuple is taken apart by its `get-tuple-element`s (no element copied), a
//! `dynamic-update-slice` writes into the buffer it updates, and the root `tuple` gathers the
//! buffers again for the next iteration.

use crate::error::{internal, Result};
use std::borrow::Cow;
use xla_core::literal::LiteralValue;
use xla_core::Literal;

/// One value slot.
enum Value<'v> {
    /// The whole value.
    Whole(Cow<'v, Literal>),
    /// An owned tuple being taken apart by its `get-tuple-element` readers: the elements not
    /// taken yet.
    Parts(Vec<Option<Literal>>),
}

/// The value of every instruction of a running computation (`None` before it runs and after
/// its last reader).
pub(crate) struct Values<'v> {
    slots: Vec<Option<Value<'v>>>,
}

impl<'v> Values<'v> {
    /// `n` empty slots.
    pub fn new(n: usize) -> Self {
        Values {
            slots: (0..n).map(|_| None).collect(),
        }
    }

    /// The value of instruction `i`.
    ///
    /// # Errors
    /// If it has not run, is already freed, or is a tuple being taken apart (the plan lets
    /// only `get-tuple-element` read such a tuple).
    pub fn get(&self, i: usize) -> Result<&Literal> {
        match self.slots.get(i) {
            Some(Some(Value::Whole(v))) => Ok(v),
            _ => Err(internal("the plan reads values only while they are held")),
        }
    }

    /// Stores the value of instruction `i`.
    pub fn set(&mut self, i: usize, v: Cow<'v, Literal>) {
        if let Some(s) = self.slots.get_mut(i) {
            *s = Some(Value::Whole(v));
        }
    }

    /// Drops the value of instruction `i`.
    pub fn free(&mut self, i: usize) {
        if let Some(s) = self.slots.get_mut(i) {
            *s = None;
        }
    }

    /// Takes the value of `i` if it is owned (the slot is left empty); a borrowed value stays.
    pub fn take_owned(&mut self, i: usize) -> Option<Literal> {
        let s = self.slots.get_mut(i)?;
        match s.take() {
            Some(Value::Whole(Cow::Owned(l))) => Some(l),
            other => {
                *s = other;
                None
            }
        }
    }

    /// Takes the whole value of `i`, owned or borrowed (the slot is left empty).
    pub fn take(&mut self, i: usize) -> Option<Cow<'v, Literal>> {
        let s = self.slots.get_mut(i)?;
        match s.take() {
            Some(Value::Whole(v)) => Some(v),
            other => {
                *s = other;
                None
            }
        }
    }

    /// Element `index` of the tuple value `t`: borrowed from a borrowed tuple (no copy),
    /// moved out of an owned one when `take` (this reader is the last to want that element
    /// and only `get-tuple-element`s read the tuple), else copied.
    ///
    /// # Errors
    /// If `t` is not available, not a tuple, or has no element `index`.
    pub fn element(&mut self, t: usize, index: i64, take: bool) -> Result<Cow<'v, Literal>> {
        let j = usize::try_from(index)
            .map_err(|_| internal("get-tuple-element indices are in range (verified)"))?;
        let slot = self
            .slots
            .get_mut(t)
            .ok_or_else(|| internal("get-tuple-element reads a value of its computation"))?;
        if take {
            if let Some(Value::Whole(Cow::Owned(_))) = slot {
                if let Some(Value::Whole(Cow::Owned(l))) = slot.take() {
                    match l.into_parts().1 {
                        LiteralValue::Tuple(es) => {
                            *slot = Some(Value::Parts(es.into_iter().map(Some).collect()))
                        }
                        _ => return Err(not_a_tuple()),
                    }
                }
            }
        }
        let missing = || internal("get-tuple-element reads an element not yet taken (plan)");
        match slot {
            Some(Value::Whole(Cow::Borrowed(l))) => {
                let l: &'v Literal = l;
                let es = l.tuple_elements().ok_or_else(not_a_tuple)?;
                es.get(j).map(Cow::Borrowed).ok_or_else(missing)
            }
            Some(Value::Whole(Cow::Owned(l))) => {
                let es = l.tuple_elements().ok_or_else(not_a_tuple)?;
                es.get(j).cloned().map(Cow::Owned).ok_or_else(missing)
            }
            Some(Value::Parts(es)) => {
                let e = es.get_mut(j).ok_or_else(missing)?;
                let v = if take { e.take() } else { e.clone() };
                v.map(Cow::Owned).ok_or_else(missing)
            }
            None => Err(internal("the plan reads values only while they are held")),
        }
    }
}

fn not_a_tuple() -> crate::error::CpuError {
    internal("get-tuple-element reads a tuple (verified)")
}
