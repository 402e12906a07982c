//! VHLO to the StableHLO syntax tree: `vhlo.add_v1` is `stablehlo.add`, `vhlo.func_v1` a
//! function, `vhlo.call_v1` a `func.call`; attribute values become the tree's attribute
//! values, and the dimension numbers VHLO keeps as separate attributes (dot_general,
//! gather, scatter, convolution) are put back together as the lowering reads them. The
//! result is lowered by the same code as StableHLO text.

use super::ir::{offset_pos, Block, GenOp};
use super::values::{Ty, Val};
use super::BytecodeError;
use crate::attrs::ConvDimensionNumbers;
use crate::mlir::ast::{Attr, DenseBody, FuncAst, ModuleAst, OpAst, Region};
use crate::shape::Shape;
use crate::types::PrimitiveType;
use std::rc::Rc;

/// The module in the top-level block: its functions.
pub(crate) fn module(top: Block) -> Result<ModuleAst, BytecodeError> {
    let mut ops = top.ops;
    let module = match ops.pop() {
        Some(m) if ops.is_empty() && m.dialect == "builtin" && m.name == "module" => m,
        Some(m) => {
            return Err(BytecodeError::at(
                m.offset,
                format!(
                    "expected one builtin.module, found {}.{}",
                    m.dialect, m.name
                ),
            ))
        }
        None => return Err(BytecodeError::at(0, "the IR section holds no module")),
    };
    let name = module
        .attrs
        .iter()
        .find(|(k, _)| k == "sym_name")
        .and_then(|(_, v)| str_of(v));
    let body = module
        .regions
        .into_iter()
        .next()
        .and_then(|r| r.into_iter().next());
    let mut funcs = Vec::new();
    for op in body.map(|b| b.ops).unwrap_or_default() {
        // `sdy.mesh @mesh = <["x"=1]>`: the device mesh of a sharded export.
        if op.dialect == "sdy" && op.name == "mesh" {
            continue;
        }
        funcs.push(func(op)?);
    }
    Ok(ModuleAst { name, funcs })
}

fn str_of(v: &Val) -> Option<String> {
    match v {
        Val::Str(s) | Val::Symbol(s) => Some(String::from_utf8_lossy(s).into_owned()),
        _ => None,
    }
}

fn attr_of<'a>(op: &'a GenOp, key: &str) -> Option<&'a Rc<Val>> {
    op.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn func(op: GenOp) -> Result<FuncAst, BytecodeError> {
    if op.dialect != "vhlo" || base_name(&op.name) != "func" {
        return Err(BytecodeError::at(
            op.offset,
            format!(
                "expected vhlo.func_v1 in the module, found {}.{}",
                op.dialect, op.name
            ),
        ));
    }
    let name = attr_of(&op, "sym_name")
        .and_then(|v| str_of(v))
        .ok_or_else(|| BytecodeError::at(op.offset, "a function without sym_name"))?;
    let private = attr_of(&op, "sym_visibility")
        .and_then(|v| str_of(v))
        .is_some_and(|v| v == "private");
    let results = match attr_of(&op, "function_type").map(|v| &**v) {
        Some(Val::Type(Ty::Function(_, outs))) => outs.clone(),
        _ => {
            return Err(BytecodeError::at(
                op.offset,
                format!("function @{name} has no function_type"),
            ))
        }
    };
    let pos = offset_pos(op.offset);
    let body = single_block(op.regions.into_iter().next(), op.offset)?;
    Ok(FuncAst {
        name,
        pos,
        private,
        body: region(body, op.offset)?,
        results,
    })
}

fn single_block(blocks: Option<Vec<Block>>, offset: usize) -> Result<Block, BytecodeError> {
    let mut blocks = blocks.unwrap_or_default();
    if blocks.len() > 1 {
        return Err(BytecodeError::at(
            offset,
            "a region of several blocks is not read",
        ));
    }
    blocks
        .pop()
        .ok_or_else(|| BytecodeError::at(offset, "an empty region"))
}

fn region(b: Block, offset: usize) -> Result<Region, BytecodeError> {
    Ok(Region {
        args: b.args,
        ops: b.ops.into_iter().map(op_ast).collect::<Result<_, _>>()?,
        pos: offset_pos(offset),
    })
}

/// `add_v1` is `add`.
fn base_name(name: &str) -> &str {
    match name.rsplit_once("_v") {
        Some((base, v)) if !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()) => base,
        _ => name,
    }
}

fn op_ast(op: GenOp) -> Result<OpAst, BytecodeError> {
    // Shardy's ops keep builtin tensor types; the serializer casts to and from VHLO's
    // with `builtin.unrealized_conversion_cast` (an identity).
    let cast = op.dialect == "builtin" && op.name == "unrealized_conversion_cast";
    if op.dialect != "vhlo" && op.dialect != "sdy" && !cast {
        return Err(BytecodeError::at(
            op.offset,
            format!("op {}.{} is not a VHLO op", op.dialect, op.name),
        ));
    }
    let base = base_name(&op.name).to_string();
    let name = match base.as_str() {
        // Shardy ops keep their names; the lowering reads the sharding annotations.
        b if op.dialect == "sdy" => format!("sdy.{b}"),
        _ if cast => "builtin.unrealized_conversion_cast".to_string(),
        "return" => "stablehlo.return".to_string(),
        "call" => "func.call".to_string(),
        b => format!("stablehlo.{b}"),
    };
    let mut attrs: Vec<(String, Attr)> = op
        .attrs
        .iter()
        .map(|(k, v)| (k.clone(), attr(k, v)))
        .collect();
    let callee = match base.as_str() {
        "call" => attr_of(&op, "callee").and_then(|v| str_of(v)),
        _ => None,
    };
    regroup(&base, &mut attrs);
    let regions = op
        .regions
        .into_iter()
        .map(|r| region(single_block(Some(r), op.offset)?, op.offset))
        .collect::<Result<_, _>>()?;
    let n = op.result_types.len();
    Ok(OpAst {
        name,
        pos: offset_pos(op.offset),
        results: if n > 0 {
            vec![(op.result_name, n)]
        } else {
            Vec::new()
        },
        operands: op.operands,
        attrs,
        words: Vec::new(),
        regions,
        callee,
        operand_types: Vec::new(),
        result_types: op.result_types,
    })
}

/// A VHLO attribute value as the syntax tree's.
fn attr(key: &str, v: &Val) -> Attr {
    match v {
        Val::Array(items) => Attr::List(items.iter().map(|i| attr(key, i)).collect()),
        Val::Bool(b) => Attr::Bool(*b),
        Val::Enum(name, _) => Attr::Word((*name).to_string()),
        Val::Dict(kv) => Attr::Dict(
            kv.iter()
                .map(|(k, v)| {
                    let k = String::from_utf8_lossy(k).into_owned();
                    let a = attr(&k, v);
                    (k, a)
                })
                .collect(),
            dict_text(kv),
        ),
        Val::Float(f, _) => Attr::Float(*f),
        Val::Int(i, _) => Attr::Int(*i),
        Val::Str(s) if matches!(key, "callee" | "decomposition" | "called_computations") => {
            Attr::Symbol(String::from_utf8_lossy(s).into_owned())
        }
        Val::Str(s) => Attr::Str(s.clone()),
        Val::Symbol(s) => Attr::Symbol(String::from_utf8_lossy(s).into_owned()),
        Val::Tensor(shape, bytes) => tensor(key, shape, bytes),
        Val::Type(Ty::Shape(s)) => Attr::Type(s.clone()),
        Val::Type(_) | Val::Unit | Val::Other(_) => Attr::Unit,
    }
}

/// A dense tensor: integer lists for every attribute but a constant's `value`.
fn tensor(key: &str, shape: &Shape, bytes: &[u8]) -> Attr {
    let hex = || Attr::Dense(DenseBody::Hex(bytes.to_vec()), Some(shape.clone()));
    let Some(arr) = shape.as_array() else {
        return hex();
    };
    if key == "value" || !(arr.ty.is_integer() || arr.ty == PrimitiveType::Pred) {
        return hex();
    }
    let size = arr.ty.byte_size().max(1);
    let count: usize = arr
        .dims
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .product();
    let ints: Vec<i128> = bytes
        .chunks(size)
        .map(|c| {
            let mut buf = [0u8; 8];
            for (d, s) in buf.iter_mut().zip(c) {
                *d = *s;
            }
            let raw = u64::from_le_bytes(buf);
            let shift = 64 - 8 * u32::try_from(size).unwrap_or(8).min(8);
            if arr.ty.is_signed_int() {
                i128::from(((raw << shift) as i64) >> shift)
            } else {
                i128::from(raw)
            }
        })
        .collect();
    let ints = match ints.as_slice() {
        [one] if count != 1 => vec![*one; count],
        _ => ints,
    };
    let elem = |i: i128| match arr.ty {
        PrimitiveType::Pred => Attr::Bool(i != 0),
        _ => Attr::Int(i),
    };
    Attr::List(ints.into_iter().map(elem).collect())
}

/// A dictionary as MLIR prints it (`{uplo = 76 : ui8, left = true}`): the FFI attributes
/// of a custom call reach the LAPACK kernels in this form.
fn dict_text(kv: &[(Vec<u8>, Rc<Val>)]) -> String {
    let items: Vec<String> = kv
        .iter()
        .map(|(k, v)| format!("{} = {}", String::from_utf8_lossy(k), value_text(v)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

fn value_text(v: &Val) -> String {
    match v {
        Val::Bool(b) => b.to_string(),
        Val::Int(i, t) => format!("{i} : {}", t.mlir_name()),
        Val::Float(f, t) => format!("{f:e} : {}", t.mlir_name()),
        Val::Str(s) => format!("{:?}", String::from_utf8_lossy(s)),
        Val::Enum(n, _) => (*n).to_string(),
        Val::Dict(kv) => dict_text(kv),
        Val::Array(items) => {
            let parts: Vec<String> = items.iter().map(|i| value_text(i)).collect();
            format!("[{}]", parts.join(", "))
        }
        Val::Symbol(s) => format!("@{}", String::from_utf8_lossy(s)),
        Val::Tensor(s, _) => format!("dense<...> : {s}"),
        Val::Type(t) => t.mlir_name(),
        Val::Unit => "unit".to_string(),
        Val::Other(o) => o.clone(),
    }
}

fn take(attrs: &[(String, Attr)], key: &str) -> Option<Attr> {
    attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

/// Gathers the separate dimension-number attributes VHLO keeps into the struct the
/// lowering reads (`dot_dimension_numbers`, gather's `dimension_numbers`, ...).
fn regroup(base: &str, attrs: &mut Vec<(String, Attr)>) {
    let (key, fields): (&str, &[&str]) = match base {
        "dot_general" => (
            "dot_dimension_numbers",
            &[
                "lhs_batching_dimensions",
                "rhs_batching_dimensions",
                "lhs_contracting_dimensions",
                "rhs_contracting_dimensions",
            ],
        ),
        "gather" | "dynamic_gather" => (
            "dimension_numbers",
            &[
                "offset_dims",
                "collapsed_slice_dims",
                "operand_batching_dims",
                "start_indices_batching_dims",
                "start_index_map",
                "index_vector_dim",
            ],
        ),
        "scatter" => (
            "scatter_dimension_numbers",
            &[
                "update_window_dims",
                "inserted_window_dims",
                "input_batching_dims",
                "scatter_indices_batching_dims",
                "scatter_dims_to_operand_dims",
                "index_vector_dim",
            ],
        ),
        "convolution" | "dynamic_conv" => {
            if let Some(c) = conv_dims(attrs) {
                attrs.push(("dimension_numbers".into(), Attr::Conv(Box::new(c))));
            }
            return;
        }
        _ => return,
    };
    let s: Vec<(String, Attr)> = fields
        .iter()
        .filter_map(|f| take(attrs, f).map(|v| ((*f).to_string(), v)))
        .collect();
    attrs.push((key.to_string(), Attr::Struct(key.to_string(), s)));
}

fn conv_dims(attrs: &[(String, Attr)]) -> Option<ConvDimensionNumbers> {
    let int = |k: &str| crate::mlir::lower::as_int_attr(&take(attrs, k)?);
    let ints = |k: &str| crate::mlir::lower::as_ints_attr(&take(attrs, k)?);
    Some(ConvDimensionNumbers {
        input_batch_dimension: int("input_batch_dimension")?,
        input_feature_dimension: int("input_feature_dimension")?,
        input_spatial_dimensions: ints("input_spatial_dimensions")?,
        kernel_input_feature_dimension: int("kernel_input_feature_dimension")?,
        kernel_output_feature_dimension: int("kernel_output_feature_dimension")?,
        kernel_spatial_dimensions: ints("kernel_spatial_dimensions")?,
        output_batch_dimension: int("output_batch_dimension")?,
        output_feature_dimension: int("output_feature_dimension")?,
        output_spatial_dimensions: ints("output_spatial_dimensions")?,
    })
}
