//! The generated functions that run a computation on the CPU: `run` on literals (every
//! element type) and `call` on Rust slices and scalars (when every type has a Rust
//! primitive: `bool`, integers, `f32`, `f64`). Their signatures come from the AST alone, so
//! the stub emitted after errors has the same ones.

use crate::ast::{Param, TensorType, TypeSpec};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use xla_core::PrimitiveType;

/// The Rust primitive of an element type, if there is one.
pub(crate) fn rust_type(ty: PrimitiveType) -> Option<TokenStream> {
    use PrimitiveType as P;
    let name = match ty {
        P::Pred => "bool",
        P::S8 => "i8",
        P::S16 => "i16",
        P::S32 => "i32",
        P::S64 => "i64",
        P::U8 => "u8",
        P::U16 => "u16",
        P::U32 => "u32",
        P::U64 => "u64",
        P::F32 => "f32",
        P::F64 => "f64",
        P::F16 | P::Bf16 | P::C64 | P::C128 | P::Tuple | P::Token => return None,
    };
    Some(format_ident!("{}", name).into_token_stream())
}

use quote::ToTokens;

/// `&[T]` for an array, `T` for a scalar (arguments); `Vec<T>` or `T` (results).
pub(crate) fn value_type(t: &TensorType, argument: bool) -> Option<TokenStream> {
    let ty = rust_type(t.elem)?;
    Some(match (t.dims.is_empty(), argument) {
        (true, _) => ty,
        (false, true) => quote! { &[#ty] },
        (false, false) => quote! { ::std::vec::Vec<#ty> },
    })
}

/// `run`, `apply` and `call` of a computation with `params` and `result`, with bodies when
/// `real` (a stub's bodies are `unimplemented!()`).
pub fn functions(params: &[Param], result: Option<&TypeSpec>, real: bool) -> TokenStream {
    let run_body = if real { run_body() } else { unreachable() };
    let executable_body = if real {
        executable_body()
    } else {
        unreachable()
    };
    let run = quote! {
        /// Runs the computation on the CPU with `args`, one literal per parameter.
        ///
        /// # Errors
        /// If an argument's shape differs from its parameter's, or compiling or running fails.
        pub fn run(args: &[::xla::core::Literal]) -> ::core::result::Result<::xla::core::Literal, Error> {
            #run_body
        }
    };
    let call = call(params, result, real).unwrap_or_default();
    let apply = apply(params, real);
    let replicated_body = if real {
        replicated_body()
    } else {
        unreachable()
    };
    let stacked_body = if real { stacked_body() } else { unreachable() };
    let check_arguments = check_arguments_fn(real);
    let replicated = quote! {
        /// Runs the computation on [`DEVICES`] devices ([`REPLICAS`] × [`PARTITIONS`]), one
        /// thread each: `args[d]` are device `d`'s arguments (one literal per parameter;
        /// device `d` is replica `d / PARTITIONS`, partition `d % PARTITIONS`) and result
        /// `d` is its result; the collectives exchange values between the devices.
        ///
        /// # Errors
        /// If `args` does not hold [`DEVICES`] argument sets, an argument's shape differs
        /// from its parameter's, or compiling or running fails on a device.
        pub fn run_replicated(args: &[::std::vec::Vec<::xla::core::Literal>]) -> ::core::result::Result<::std::vec::Vec<::xla::core::Literal>, Error> {
            #replicated_body
        }

        /// [`run_replicated`] in the command line's convention: each argument holds the
        /// per-device values stacked along a leading axis of [`DEVICES`] (in device order),
        /// and each leaf of the result (one for an array result, one per element of a
        /// tuple) comes back stacked the same way.
        ///
        /// # Errors
        /// If an argument's leading axis is not [`DEVICES`], or as [`run_replicated`].
        pub fn run_stacked(args: &[::xla::core::Literal]) -> ::core::result::Result<::std::vec::Vec<::xla::core::Literal>, Error> {
            #stacked_body
        }
    };
    quote! {
        /// The error of [`run`] and `call`.
        pub type Error = ::std::boxed::Box<dyn ::std::error::Error + ::core::marker::Send + ::core::marker::Sync>;

        /// The module compiled for the CPU, on first use (then shared by every call and thread).
        ///
        /// # Errors
        /// If the module does not parse or compile.
        pub fn executable() -> ::core::result::Result<&'static ::xla::cpu::Executable, Error> {
            #executable_body
        }

        #check_arguments
        #run
        #replicated
        #apply
        #call
    }
}

fn unreachable() -> TokenStream {
    quote! { ::core::unimplemented!("#[computation] failed to compile") }
}

fn executable_body() -> TokenStream {
    quote! {
        static EXECUTABLE: ::std::sync::OnceLock<::xla::cpu::Executable> = ::std::sync::OnceLock::new();
        if let ::core::option::Option::Some(e) = EXECUTABLE.get() {
            return ::core::result::Result::Ok(e);
        }
        let compiled = ::xla::cpu::Executable::compile(module()?)?;
        ::core::result::Result::Ok(EXECUTABLE.get_or_init(|| compiled))
    }
}

fn run_body() -> TokenStream {
    quote! {
        if DEVICES != 1 {
            return ::core::result::Result::Err(::std::format!(
                "{}: runs on {} replicas × {} partitions; call `{}::run_replicated` with one argument set per device", NAME, REPLICAS, PARTITIONS, NAME
            ).into());
        }
        check_arguments(args)?;
        ::core::result::Result::Ok(executable()?.execute(args)?)
    }
}

fn replicated_body() -> TokenStream {
    quote! {
        if args.len() != DEVICES {
            return ::core::result::Result::Err(::std::format!(
                "{}: runs on {} devices ({} replicas × {} partitions), found {} argument sets", NAME, DEVICES, REPLICAS, PARTITIONS, args.len()
            ).into());
        }
        for replica in args {
            check_arguments(replica)?;
        }
        ::core::result::Result::Ok(executable()?.execute_replicated(args)?)
    }
}

fn stacked_body() -> TokenStream {
    quote! {
        if args.len() != PARAMETERS.len() {
            return ::core::result::Result::Err(::std::format!("{}: takes {} arguments, found {}", NAME, PARAMETERS.len(), args.len()).into());
        }
        let mut per_device: ::std::vec::Vec<::std::vec::Vec<::xla::core::Literal>> =
            (0..DEVICES).map(|_| ::std::vec::Vec::with_capacity(args.len())).collect();
        for (i, (arg, name)) in args.iter().zip(PARAMETERS).enumerate() {
            let rows = ::xla::cpu::devices::split_devices(arg, DEVICES)
                .map_err(|e| ::std::format!("{}: argument {} (`{}`): {}", NAME, i, name, e))?;
            for (device, row) in per_device.iter_mut().zip(rows) {
                device.push(row);
            }
        }
        let results = run_replicated(&per_device)?;
        let leaves: ::std::vec::Vec<::std::vec::Vec<::xla::core::Literal>> = results
            .iter()
            .map(|r| r.tuple_elements().map_or_else(|| ::std::vec![r.clone()], <[_]>::to_vec))
            .collect();
        let count = leaves.first().map_or(0, ::std::vec::Vec::len);
        (0..count)
            .map(|k| -> ::core::result::Result<::xla::core::Literal, Error> {
                let parts = leaves
                    .iter()
                    .map(|l| l.get(k).cloned().ok_or("devices returned different tuples"))
                    .collect::<::core::result::Result<::std::vec::Vec<_>, _>>()?;
                ::core::result::Result::Ok(::xla::cpu::devices::stack_devices(&parts)?)
            })
            .collect()
    }
}

/// `check_arguments(args)`: the argument count and each argument's shape against the
/// signature.
fn check_arguments_fn(real: bool) -> TokenStream {
    let body = if real {
        check_arguments_body()
    } else {
        unreachable()
    };
    quote! {
        #[allow(dead_code, unused_variables)]
        fn check_arguments(args: &[::xla::core::Literal]) -> ::core::result::Result<(), Error> {
            #body
        }
    }
}

fn check_arguments_body() -> TokenStream {
    quote! {
        let shapes = parameter_shapes();
        if args.len() != shapes.len() {
            return ::core::result::Result::Err(::std::format!("{}: takes {} arguments, found {}", NAME, shapes.len(), args.len()).into());
        }
        for (i, ((arg, shape), name)) in args.iter().zip(&shapes).zip(PARAMETERS).enumerate() {
            if !arg.shape().compatible(shape) {
                return ::core::result::Result::Err(::std::format!(
                    "{}: argument {} (`{}`) has shape {} but the computation takes {}", NAME, i, name, arg.shape(), shape
                ).into());
            }
        }
        ::core::result::Result::Ok(())
    }
}

/// `apply(x, w, ...)`: one argument per parameter, anything that converts into a literal
/// (a `Literal`, or with xla-core's `ndarray` feature an `&Array`); the result literal
/// converts back (`ArrayD::<f32>::try_from(out)`).
fn apply(params: &[Param], real: bool) -> TokenStream {
    let names: Vec<&Ident> = params.iter().map(|p| &p.name).collect();
    let generics: Vec<Ident> = (0..names.len()).map(|i| format_ident!("A{}", i)).collect();
    let body = if real {
        quote! { self::run(&[#(#names.into()),*]) }
    } else {
        unreachable()
    };
    let allow = if real {
        quote! {}
    } else {
        quote! { #[allow(unused_variables)] }
    };
    quote! {
        /// Runs the computation with one argument per parameter, each anything that converts
        /// into a literal (a `Literal`; an `ndarray` array with xla-core's `ndarray` feature).
        ///
        /// # Errors
        /// As [`run`].
        #allow
        pub fn apply<#(#generics: ::core::convert::Into<::xla::core::Literal>),*>(#(#names: #generics),*) -> ::core::result::Result<::xla::core::Literal, Error> {
            #body
        }
    }
}

/// `call(x: &[f32], ...) -> Result<Vec<f32>, Error>`, when every type has a Rust primitive.
fn call(signature: &[Param], result: Option<&TypeSpec>, real: bool) -> Option<TokenStream> {
    let mut params = Vec::new();
    for p in signature {
        let Some(TypeSpec::Tensor(t)) = &p.ty else {
            return None;
        };
        params.push((&p.name, value_type(t, true)?, t));
    }
    let (result_ty, extract) = result_value(result?)?;
    let names: Vec<&Ident> = params.iter().map(|(n, _, _)| *n).collect();
    let types = params.iter().map(|(_, ty, _)| ty);
    let literals = params.iter().map(|(name, _, t)| argument_literal(name, t));
    let n = names.len();
    let allow = if real {
        quote! {}
    } else {
        quote! { #[allow(unused_variables)] }
    };
    let body = if real {
        quote! {
            let args: [::xla::core::Literal; #n] = [#(#literals),*];
            let out = self::run(&args)?;
            ::core::result::Result::Ok({ #extract })
        }
    } else {
        unreachable()
    };
    Some(quote! {
        /// Runs the computation on the CPU with Rust values (row-major slices for arrays).
        ///
        /// # Errors
        /// If a slice's length differs from its parameter's element count, or running fails.
        #allow
        pub fn call(#(#names: #types),*) -> ::core::result::Result<#result_ty, Error> {
            #body
        }
    })
}

/// The Rust type of `call`'s result and the tokens reading it out of the literal `out`: a
/// value for a tensor, a flat tuple of values for a tuple of tensors; `None` for a nested
/// tuple or an element type without a Rust primitive (then there is no `call`).
pub(crate) fn result_value(result: &TypeSpec) -> Option<(TokenStream, TokenStream)> {
    match result {
        TypeSpec::Tensor(t) => Some((value_type(t, false)?, extract(t, quote! { &out }))),
        TypeSpec::Tuple(ts) => {
            let ts = ts
                .iter()
                .map(TypeSpec::tensor)
                .collect::<Option<Vec<_>>>()?;
            let types = ts
                .iter()
                .map(|t| value_type(t, false))
                .collect::<Option<Vec<_>>>()?;
            let parts = ts.iter().enumerate().map(|(i, t)| {
                extract(
                    t,
                    quote! { parts.get(#i).ok_or("the result has too few tuple elements")? },
                )
            });
            let extract = quote! {
                let parts = out.tuple_elements().ok_or("the result is not a tuple")?;
                (#(#parts),*)
            };
            Some((quote! { (#(#types),*) }, extract))
        }
    }
}

/// Tokens reading a result of type `t` out of the literal `lit`.
pub(crate) fn extract(t: &TensorType, lit: TokenStream) -> TokenStream {
    let ty = rust_type(t.elem).unwrap_or_default();
    let data = quote! { (#lit).data::<#ty>().ok_or("the result has an unexpected element type")? };
    if t.dims.is_empty() {
        quote! { *#data.first().ok_or("the result is empty")? }
    } else {
        quote! { #data.to_vec() }
    }
}

/// Tokens building the literal of argument `name` of type `t`.
fn argument_literal(name: &Ident, t: &TensorType) -> TokenStream {
    let dims = &t.dims;
    if dims.is_empty() {
        quote! { ::xla::core::Literal::scalar(#name) }
    } else {
        quote! { ::xla::core::Literal::from_vec(&[#(#dims),*], #name.to_vec())? }
    }
}
