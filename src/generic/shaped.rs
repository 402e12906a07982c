//! Computations generic over whole shapes at run time (`#[computation] fn adam<S: Shape>`):
//! each call's arguments give the ranks, the function is expanded at them
//! (`xla_dsl::shapes`) into an ordinary size-generic computation, built once per rank
//! and then cached per size like any [`Generic`].

use super::{Generic, GenericError, Variant};
use std::collections::BTreeMap;
use std::sync::Mutex;
use xla_core::Literal;

/// A shape-generic computation: its source, and one [`Generic`] per tuple of ranks.
pub struct Shaped {
    name: &'static str,
    source: &'static str,
    attr: &'static str,
    parameters: &'static [&'static str],
    by_rank: Mutex<BTreeMap<Vec<usize>, &'static Generic>>,
}

impl Shaped {
    /// The computation `name` written as `source` with attribute `attr` (emitted by the
    /// macro).
    pub const fn new(
        name: &'static str,
        source: &'static str,
        attr: &'static str,
        parameters: &'static [&'static str],
    ) -> Shaped {
        Shaped {
            name,
            source,
            attr,
            parameters,
            by_rank: Mutex::new(BTreeMap::new()),
        }
    }

    /// Runs `variant` on `args`, at the ranks and sizes their shapes give.
    ///
    /// # Errors
    /// A wrong number of arguments, ranks the arguments give inconsistently, and the
    /// errors of [`Generic::run`].
    pub fn run(&self, variant: Variant, args: &[Literal]) -> Result<Literal, GenericError> {
        if args.len() != self.parameters.len() {
            return Err(GenericError::Arity {
                computation: self.name,
                what: "arguments",
                expected: self.parameters.len(),
                found: args.len(),
            });
        }
        let ranks: Vec<Option<usize>> = args.iter().map(|a| Some(a.shape().rank())).collect();
        self.at(&ranks)?.run(variant, args)
    }

    /// The size-generic computation at the ranks `arg_ranks` give, built on first use.
    fn at(&self, arg_ranks: &[Option<usize>]) -> Result<&'static Generic, GenericError> {
        let bad = |error| GenericError::Instantiate {
            computation: self.name,
            sizes: "the ranks of the arguments".to_string(),
            error: xla_dsl::InstantiateError::Ranks { error },
        };
        let (source, ranks) = xla_dsl::shapes::expand_source(self.source, arg_ranks)
            .map_err(bad)?
            .ok_or_else(|| bad(xla_dsl::shapes::ShapeParamError::NotShapeGeneric))?;
        // Held while building, so each rank is expanded once; entries are inserted whole,
        // so a poisoned lock is still consistent.
        let mut by_rank = self.by_rank.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(generic) = by_rank.get(&ranks) {
            return Ok(generic);
        }
        let b = xla_dsl::shapes::bindings(&source, self.attr).map_err(bad)?;
        // One `Generic` per tuple of ranks, for the life of the process (its instances are
        // cached there, as a size-generic computation's are in its static): at most
        // `MAX_RANK + 1` per shape parameter, and in practice the two or three ranks a
        // model's parameters have, so the memory is bounded.
        let sizes: Vec<&'static str> = b.sizes.into_iter().map(leak).collect();
        let generic: &'static Generic = Box::leak(Box::new(Generic::new(
            self.name,
            leak(source),
            self.attr,
            Vec::leak(sizes),
            self.parameters,
            Vec::leak(b.bindings),
        )));
        by_rank.insert(ranks, generic);
        Ok(generic)
    }
}

/// `s` for the rest of the process.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}
