//! Computations generic over sizes at run time: what a `#[computation] fn f<const B: usize>`
//! module calls. The macro checked the function at compile time for every size (at a
//! generic point, see `xla_dsl::sizes`); here it is built again at each size it is called
//! at — the same parser and shape rules, now on real sizes, so a rule that holds only for
//! some sizes is checked once per size — compiled once and cached.
//!
//! ```
//! use xla::computation;
//!
//! /// `x·w` for any batch size `B`.
//! #[computation]
//! fn project<const B: usize>(x: Tensor<f32, B, 3>, w: Tensor<f32, 3, 2>) -> Tensor<f32, B, 2> {
//!     x.dot(w)
//! }
//!
//! let w = [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0];
//! // B given explicitly...
//! assert_eq!(project::call::<1>(&[1.0, 2.0, 3.0], &w)?, vec![4.0, 5.0]);
//! // ... or read from the arguments' shapes.
//! let x = xla::Literal::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 0.0, 0.0, 1.0])?;
//! let w = xla::Literal::from_vec(&[3, 2], w.to_vec())?;
//! let y = project::apply(x, w)?;
//! assert_eq!(y.shape().to_string(), "f32[2,2]");
//! assert!(project::hlo(&[7])?.contains("f32[7,2]"));
//! # Ok::<(), project::Error>(())
//! ```

mod shaped;

pub use shaped::Shaped;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use xla_core::{Literal, Module};
use xla_cpu::Executable;

/// Which module of a generic computation: its value, or (with `#[computation(grad)]`) its
/// gradient modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The computation itself.
    Value,
    /// `f::grad`.
    Grad,
    /// `f::value_and_grad`.
    ValueAndGrad,
}

/// The errors of a generic computation, each naming the computation and the sizes.
#[derive(Debug, thiserror::Error)]
pub enum GenericError {
    /// A call with the wrong number of arguments or size values.
    #[error("{computation}: takes {expected} {what}, found {found}")]
    Arity {
        /// The computation.
        computation: &'static str,
        /// "arguments" or "sizes".
        what: &'static str,
        /// How many it takes.
        expected: usize,
        /// How many were given.
        found: usize,
    },
    /// An argument's rank differs from its parameter's.
    #[error(
        "{computation}: argument `{parameter}` has shape {shape} but the parameter has rank {rank}"
    )]
    Rank {
        /// The computation.
        computation: &'static str,
        /// The parameter.
        parameter: &'static str,
        /// The argument's shape.
        shape: String,
        /// The parameter's rank.
        rank: usize,
    },
    /// Two arguments bind one size to different values.
    #[error("{computation}: size `{size}` is {first} from `{first_parameter}` (dim {first_dim}) but {second} from `{second_parameter}` (dim {second_dim})")]
    Conflict {
        /// The computation.
        computation: &'static str,
        /// The size parameter.
        size: &'static str,
        /// The first value.
        first: i64,
        /// Where it was read.
        first_parameter: &'static str,
        /// Its dim.
        first_dim: usize,
        /// The other value.
        second: i64,
        /// Where it was read.
        second_parameter: &'static str,
        /// Its dim.
        second_dim: usize,
    },
    /// A size no parameter's shape names alone (`{ 2 * N }` only): give it with `call`.
    #[error("{computation}: size `{size}` is not the whole of any parameter's dimension, so it cannot be read from the arguments; give it explicitly with `apply::<..>`, `call::<..>` or `instance(&[..])`")]
    Unbound {
        /// The computation.
        computation: &'static str,
        /// The size parameter.
        size: &'static str,
    },
    /// A size too large for a dimension (`i64`).
    #[error(
        "{computation}: size `{size}` = {value} overflows a dimension (at most {})",
        i64::MAX
    )]
    Overflow {
        /// The computation.
        computation: &'static str,
        /// The size parameter.
        size: &'static str,
        /// The value given.
        value: usize,
    },
    /// The computation does not build at these sizes: a shape rule that holds only for
    /// some sizes failed, or a dimension expression is negative or overflows.
    #[error("{computation} at {sizes}: {error}")]
    Instantiate {
        /// The computation.
        computation: &'static str,
        /// `B = 2, H = 5`.
        sizes: String,
        /// What broke, as the shape rules say it.
        error: xla_dsl::InstantiateError,
    },
    /// An argument's shape differs from its parameter's at the bound sizes.
    #[error("{computation} at {sizes}: argument {index} (`{parameter}`) has shape {shape} but the computation takes {expected}")]
    Shape {
        /// The computation.
        computation: &'static str,
        /// `B = 2, H = 5`.
        sizes: String,
        /// The argument's position.
        index: usize,
        /// The parameter.
        parameter: &'static str,
        /// The argument's shape.
        shape: String,
        /// The parameter's shape at these sizes.
        expected: String,
    },
    /// The gradient of a computation without `#[computation(grad)]`.
    #[error("{computation}: has no gradient (add `#[computation(grad)]`)")]
    NoGradient {
        /// The computation.
        computation: &'static str,
    },
    /// Compiling or running failed.
    #[error("{computation} at {sizes}: {source}")]
    Cpu {
        /// The computation.
        computation: &'static str,
        /// `B = 2, H = 5`.
        sizes: String,
        /// The executor's error.
        source: xla_cpu::CpuError,
    },
}

/// One size of a generic computation: its modules, built for these sizes, and their
/// executables (each compiled on first use, so a call of the gradient compiles only it).
#[derive(Debug)]
pub struct Instance {
    built: xla_dsl::Instance,
    sizes: String,
    executables: [OnceLock<Executable>; 3],
}

impl Instance {
    /// The sizes, in declaration order.
    pub fn sizes(&self) -> &[i64] {
        &self.built.sizes
    }

    /// The dims of parameter `i` at these sizes (empty for a scalar or a missing one).
    pub fn parameter_dims(&self, i: usize) -> &[i64] {
        self.built.parameter_shapes.get(i).map_or(&[], |s| s.dims())
    }

    /// The parameter shapes at these sizes.
    pub fn parameter_shapes(&self) -> &[xla_core::Shape] {
        &self.built.parameter_shapes
    }

    /// The result shape at these sizes.
    pub fn result_shape(&self) -> &xla_core::Shape {
        &self.built.result_shape
    }

    /// The module of `variant` (`None`: a gradient of a computation without `grad`).
    pub fn module(&self, variant: Variant) -> Option<&Module> {
        match variant {
            Variant::Value => Some(&self.built.module),
            Variant::Grad => self.built.gradients.as_ref().map(|(g, _)| g),
            Variant::ValueAndGrad => self.built.gradients.as_ref().map(|(_, vg)| vg),
        }
    }
}

/// A generic computation: its source, and its instances by size (a thread-safe cache; a
/// failed instantiation is not cached, so the cache only ever holds working instances).
pub struct Generic {
    name: &'static str,
    source: &'static str,
    attr: &'static str,
    sizes: &'static [&'static str],
    parameters: &'static [&'static str],
    bindings: &'static [(usize, usize, usize, usize)],
    cache: Mutex<BTreeMap<Vec<i64>, Arc<Instance>>>,
}

impl Generic {
    /// The computation `name` written as `source` with attribute `attr`; `bindings` lists
    /// `(parameter, leaf, dim, size)` for each dim written as a bare size, `leaf` being the
    /// tensor's place in a tuple parameter, depth first (emitted by the macro).
    pub const fn new(
        name: &'static str,
        source: &'static str,
        attr: &'static str,
        sizes: &'static [&'static str],
        parameters: &'static [&'static str],
        bindings: &'static [(usize, usize, usize, usize)],
    ) -> Generic {
        Generic {
            name,
            source,
            attr,
            sizes,
            parameters,
            bindings,
            cache: Mutex::new(BTreeMap::new()),
        }
    }

    /// The instance at `sizes`, built and compiled on first use.
    ///
    /// # Errors
    /// A wrong number of sizes, a size above `i64::MAX`, or a computation that does not
    /// build or compile at these sizes.
    pub fn instance(&self, sizes: &[usize]) -> Result<Arc<Instance>, GenericError> {
        if sizes.len() != self.sizes.len() {
            return Err(GenericError::Arity {
                computation: self.name,
                what: "sizes",
                expected: self.sizes.len(),
                found: sizes.len(),
            });
        }
        let mut values = Vec::with_capacity(sizes.len());
        for (&value, &size) in sizes.iter().zip(self.sizes) {
            let v = i64::try_from(value).map_err(|_| GenericError::Overflow {
                computation: self.name,
                size,
                value,
            })?;
            values.push(v);
        }
        self.instance_at(values)
    }

    fn instance_at(&self, values: Vec<i64>) -> Result<Arc<Instance>, GenericError> {
        // Held while building, so each size is built and compiled once; a panic elsewhere
        // cannot leave a half-built entry (entries are inserted whole), so a poisoned lock
        // is still consistent.
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(instance) = cache.get(&values) {
            return Ok(Arc::clone(instance));
        }
        let sizes = xla_dsl::sizes::Sizes::bound(
            self.sizes.iter().map(ToString::to_string).collect(),
            values.clone(),
        )
        .describe();
        let built = xla_dsl::instantiate(self.source, self.attr, &values).map_err(|error| {
            GenericError::Instantiate {
                computation: self.name,
                sizes: sizes.clone(),
                error,
            }
        })?;
        let instance = Instance {
            built,
            sizes,
            executables: Default::default(),
        };
        let instance = Arc::new(instance);
        cache.insert(values, Arc::clone(&instance));
        Ok(instance)
    }

    /// The HLO text of `variant` at `sizes`.
    ///
    /// # Errors
    /// As [`Generic::instance`]; [`GenericError::NoGradient`] for a gradient of a
    /// computation without `grad`.
    pub fn hlo(&self, variant: Variant, sizes: &[usize]) -> Result<String, GenericError> {
        let instance = self.instance(sizes)?;
        let module = instance.module(variant).ok_or(GenericError::NoGradient {
            computation: self.name,
        })?;
        Ok(xla_core::text::print_module(module))
    }

    /// The sizes the arguments' shapes give: each size read from every dim written as that
    /// bare size.
    ///
    /// # Errors
    /// A wrong number of arguments, a rank that differs from the parameter's, a size read
    /// as two different values, or a size that no dim gives alone.
    pub fn bind(&self, args: &[Literal]) -> Result<Vec<i64>, GenericError> {
        self.bind_given(&[], args)
    }

    /// [`Generic::bind`], the sizes that no dim gives alone (strides, paddings: the
    /// integers of `apply::<..>`) taken from `given`, in declaration order.
    ///
    /// # Errors
    /// As [`Generic::bind`], and a count of `given` that differs from the sizes left.
    pub fn bind_given(&self, given: &[usize], args: &[Literal]) -> Result<Vec<i64>, GenericError> {
        if args.len() != self.parameters.len() {
            return Err(GenericError::Arity {
                computation: self.name,
                what: "arguments",
                expected: self.parameters.len(),
                found: args.len(),
            });
        }
        let mut bound: Vec<Option<(i64, usize, usize)>> = vec![None; self.sizes.len()];
        for &(p, leaf, d, s) in self.bindings {
            let (Some(arg), Some(slot)) = (args.get(p), bound.get_mut(s)) else {
                continue;
            };
            let parameter = self.parameters.get(p).copied().unwrap_or("?");
            // A tuple argument of another structure is reported by `execute`'s shape check.
            let Some(arg) = leaves(arg).into_iter().nth(leaf) else {
                continue;
            };
            let Some(&value) = arg.shape().dims().get(d) else {
                let rank = self
                    .bindings
                    .iter()
                    .filter(|b| (b.0, b.1) == (p, leaf))
                    .map(|b| b.2 + 1)
                    .max();
                return Err(GenericError::Rank {
                    computation: self.name,
                    parameter,
                    shape: arg.shape().to_string(),
                    rank: rank.unwrap_or(d + 1),
                });
            };
            match *slot {
                None => *slot = Some((value, p, d)),
                Some((first, fp, fd)) if first != value => {
                    return Err(GenericError::Conflict {
                        computation: self.name,
                        size: self.sizes.get(s).copied().unwrap_or("?"),
                        first,
                        first_parameter: self.parameters.get(fp).copied().unwrap_or("?"),
                        first_dim: fd,
                        second: value,
                        second_parameter: parameter,
                        second_dim: d,
                    })
                }
                Some(_) => {}
            }
        }
        let unbound = bound.iter().filter(|b| b.is_none()).count();
        if !given.is_empty() && given.len() != unbound {
            return Err(GenericError::Arity {
                computation: self.name,
                what: "integer sizes (the sizes no argument's shape gives)",
                expected: unbound,
                found: given.len(),
            });
        }
        let mut given = given.iter();
        bound
            .iter()
            .zip(self.sizes)
            .map(
                |(b, &size)| match (b, b.is_none().then(|| given.next()).flatten()) {
                    (Some((v, _, _)), _) => Ok(*v),
                    (None, Some(&value)) => {
                        i64::try_from(value).map_err(|_| GenericError::Overflow {
                            computation: self.name,
                            size,
                            value,
                        })
                    }
                    (None, None) => Err(GenericError::Unbound {
                        computation: self.name,
                        size,
                    }),
                },
            )
            .collect()
    }

    /// Runs `variant` on `args`, at the sizes their shapes give.
    ///
    /// # Errors
    /// As [`Generic::bind`] and [`Generic::execute`].
    pub fn run(&self, variant: Variant, args: &[Literal]) -> Result<Literal, GenericError> {
        self.run_given(variant, &[], args)
    }

    /// [`Generic::run`] with the integer sizes (those no argument's shape gives) `given`.
    ///
    /// # Errors
    /// As [`Generic::bind_given`] and [`Generic::execute`].
    pub fn run_given(
        &self,
        variant: Variant,
        given: &[usize],
        args: &[Literal],
    ) -> Result<Literal, GenericError> {
        let sizes = self.bind_given(given, args)?;
        let instance = self.instance_at(sizes)?;
        self.execute(variant, &instance, args)
    }

    /// Runs `variant` of `instance` on `args`, after checking each argument's shape.
    ///
    /// # Errors
    /// An argument whose shape differs from its parameter's at these sizes, a missing
    /// gradient, or a failure to compile or run.
    pub fn execute(
        &self,
        variant: Variant,
        instance: &Instance,
        args: &[Literal],
    ) -> Result<Literal, GenericError> {
        let shapes = instance.parameter_shapes();
        if args.len() != shapes.len() {
            return Err(GenericError::Arity {
                computation: self.name,
                what: "arguments",
                expected: shapes.len(),
                found: args.len(),
            });
        }
        for (index, ((arg, shape), parameter)) in
            args.iter().zip(shapes).zip(self.parameters).enumerate()
        {
            if !arg.shape().compatible(shape) {
                return Err(GenericError::Shape {
                    computation: self.name,
                    sizes: instance.sizes.clone(),
                    index,
                    parameter,
                    shape: arg.shape().to_string(),
                    expected: shape.to_string(),
                });
            }
        }
        let executable = self.executable(instance, variant)?;
        executable
            .execute(args)
            .map_err(|source| self.cpu(instance, source))
    }

    /// The compiled `variant` of `instance`, compiled on first use.
    fn executable<'a>(
        &self,
        instance: &'a Instance,
        variant: Variant,
    ) -> Result<&'a Executable, GenericError> {
        let slot = match variant {
            Variant::Value => &instance.executables[0],
            Variant::Grad => &instance.executables[1],
            Variant::ValueAndGrad => &instance.executables[2],
        };
        if let Some(e) = slot.get() {
            return Ok(e);
        }
        let module = instance.module(variant).ok_or(GenericError::NoGradient {
            computation: self.name,
        })?;
        let compiled = Executable::compile(module).map_err(|source| self.cpu(instance, source))?;
        Ok(slot.get_or_init(|| compiled))
    }

    fn cpu(&self, instance: &Instance, source: xla_cpu::CpuError) -> GenericError {
        GenericError::Cpu {
            computation: self.name,
            sizes: instance.sizes.clone(),
            source,
        }
    }
}

/// The arrays of `lit`, depth first (an array is its own one leaf).
fn leaves(lit: &Literal) -> Vec<&Literal> {
    match lit.tuple_elements() {
        Some(elems) => elems.iter().flat_map(leaves).collect(),
        None => vec![lit],
    }
}
