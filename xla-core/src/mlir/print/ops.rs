//! One instruction as generic StableHLO: the op name, operands, properties, regions.

use super::text::{dense, i64s, list, pairs, ty};
use super::{fail, func_name, FuncPrinter, PResult, Val};
use crate::attrs::{ConvDimensionNumbers, PrecisionConfig, Window};
use crate::ir::{CompId, InstrId, Op};
use crate::shape::Shape;

/// What an op prints: its name, properties and regions; results follow the shape.
struct Spec {
    name: String,
    props: Vec<String>,
    regions: Vec<String>,
    /// Several results standing for the instruction's tuple shape.
    multi: bool,
}

fn spec(name: &str, props: Vec<String>) -> Spec {
    Spec {
        name: name.to_string(),
        props,
        regions: Vec::new(),
        multi: false,
    }
}

fn precision(p: &PrecisionConfig) -> String {
    let v: Vec<String> = p
        .operand_precision
        .iter()
        .map(|x| format!("#stablehlo<precision {}>", x.name().to_uppercase()))
        .collect();
    format!("precision_config = [{}]", v.join(", "))
}

/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
fn conv_dims(d: &ConvDimensionNumbers) -> String {
    let labels = |rank: usize, a: (i64, &str), b: (i64, &str), sp: &[i64]| {
        let mut v = vec![String::new(); rank];
        for (pos, l) in [a, b] {
            if let Some(s) = usize::try_from(pos).ok().and_then(|p| v.get_mut(p)) {
                *s = l.to_string();
            }
        }
        for (i, &p) in sp.iter().enumerate() {
            if let Some(s) = usize::try_from(p).ok().and_then(|p| v.get_mut(p)) {
                *s = i.to_string();
            }
        }
        format!("[{}]", v.join(", "))
    };
    let r = d.input_spatial_dimensions.len() + 2;
    format!(
        "{}x{}->{}",
        labels(
            r,
            (d.input_batch_dimension, "b"),
            (d.input_feature_dimension, "f"),
            &d.input_spatial_dimensions
        ),
        labels(
            r,
            (d.kernel_input_feature_dimension, "i"),
            (d.kernel_output_feature_dimension, "o"),
            &d.kernel_spatial_dimensions
        ),
        labels(
            r,
            (d.output_batch_dimension, "b"),
            (d.output_feature_dimension, "f"),
            &d.output_spatial_dimensions
        )
    )
}

fn window_props(w: &Window, with_dilations: bool) -> Vec<String> {
    let f = |g: fn(&crate::attrs::WindowDim) -> i64| w.dims.iter().map(g).collect::<Vec<_>>();
    let mut p = vec![
        format!("window_dimensions = {}", i64s(&f(|d| d.size))),
        format!("window_strides = {}", i64s(&f(|d| d.stride))),
        format!(
            "padding = {}",
            pairs(
                &w.dims
                    .iter()
                    .map(|d| (d.padding_low, d.padding_high))
                    .collect::<Vec<_>>()
            )
        ),
    ];
    if with_dilations {
        p.push(format!(
            "base_dilations = {}",
            i64s(&f(|d| d.base_dilation))
        ));
        p.push(format!(
            "window_dilations = {}",
            i64s(&f(|d| d.window_dilation))
        ));
    }
    p
}

impl FuncPrinter<'_> {
    /// A region calling computation `c` on block arguments of `args`; its results are the
    /// call's, split into `split` values when the computation returns a tuple of them.
    fn call_region(&mut self, c: CompId, args: &[Shape], split: bool) -> PResult<String> {
        let comp = self.module.get(c).ok_or_else(|| {
            super::StablehloPrintError(format!("computation {} does not exist", c.0))
        })?;
        let result = comp
            .result_shape()
            .cloned()
            .ok_or_else(|| super::StablehloPrintError("no root".into()))?;
        let names: Vec<String> = args.iter().map(|_| self.fresh()).collect();
        let tys = args.iter().map(ty).collect::<PResult<Vec<_>>>()?;
        let decl: Vec<String> = names
            .iter()
            .zip(&tys)
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        let params = comp.parameter_shapes();
        let mut body = format!("{{\n    ^bb0({}):\n", decl.join(", "));
        let call_args = if params.len() == 1 && args.len() > 1 {
            let t = self.fresh();
            body.push_str(&format!(
                "      {t} = \"stablehlo.tuple\"({}) : ({}) -> {}\n",
                names.join(", "),
                tys.join(", "),
                ty(&params[0])?
            ));
            vec![t]
        } else {
            names
        };
        let ptys = params.iter().map(ty).collect::<PResult<Vec<_>>>()?;
        let r = self.fresh();
        body.push_str(&format!(
            "      {r} = \"func.call\"({}) <{{callee = @{}}}> : ({}) -> {}\n",
            call_args.join(", "),
            func_name(self.module, c)?,
            ptys.join(", "),
            ty(&result)?
        ));
        let (outs, otys) = match (&result, split) {
            (Shape::Tuple(elems), true) => {
                let mut o = Vec::new();
                for (i, e) in elems.iter().enumerate() {
                    let g = self.fresh();
                    body.push_str(&format!("      {g} = \"stablehlo.get_tuple_element\"({r}) <{{index = {i} : i32}}> : ({}) -> {}\n", ty(&result)?, ty(e)?));
                    o.push(g);
                }
                (o, elems.iter().map(ty).collect::<PResult<Vec<_>>>()?)
            }
            _ => (vec![r], vec![ty(&result)?]),
        };
        body.push_str(&format!(
            "      \"stablehlo.return\"({}) : ({}) -> ()\n    }}",
            outs.join(", "),
            otys.join(", ")
        ));
        Ok(body)
    }

    /// A region holding computation `c` itself (XLA's map inliner wants the body inline).
    fn inline_region(&mut self, c: CompId, args: &[Shape]) -> PResult<String> {
        let comp = self.module.get(c).ok_or_else(|| {
            super::StablehloPrintError(format!("computation {} does not exist", c.0))
        })?;
        self.next += 1;
        let mut inner = FuncPrinter {
            module: self.module,
            comp,
            vals: std::collections::HashMap::new(),
            body: String::new(),
            next: 0,
            prefix: format!("{}r{}_", self.prefix, self.next),
        };
        let mut decl = Vec::new();
        for (i, (p, a)) in comp.parameters().iter().zip(args).enumerate() {
            let n = format!("%{}a{i}", inner.prefix);
            decl.push(format!("{n}: {}", ty(a)?));
            inner.vals.insert(*p, Val::One(n));
        }
        for (i, ins) in comp.instructions.iter().enumerate() {
            if !matches!(ins.op, Op::Parameter { .. }) {
                let v = inner.instr(InstrId(i))?;
                inner.vals.insert(InstrId(i), v);
            }
        }
        let root = inner.use_val(comp.root)?;
        let rt = ty(comp
            .result_shape()
            .ok_or_else(|| super::StablehloPrintError("no root".into()))?)?;
        Ok(format!(
            "{{\n    ^bb0({}):\n{}      \"stablehlo.return\"({root}) : ({rt}) -> ()\n    }}",
            decl.join(", "),
            inner
                .body
                .replace("\n    ", "\n      ")
                .replacen("    ", "      ", 1)
        ))
    }

    /// Scalar parameter shapes of a reducer over `operands` (N values then N inits).
    fn scalar_args(&self, id: InstrId, from: usize) -> Vec<Shape> {
        let ins = self.comp.instr(id);
        let n = ins.operands.len() / 2;
        let scal: Vec<Shape> = ins
            .operands
            .iter()
            .skip(from)
            .take(n.max(1))
            .map(|&o| Shape::scalar(self.comp.instr(o).shape.element_type()))
            .collect();
        [scal.clone(), scal].concat()
    }

    /// Prints instruction `id`; returns its value.
    pub(super) fn instr(&mut self, id: InstrId) -> PResult<Val> {
        let ins = self.comp.instr(id);
        let shape = ins.shape.clone();
        let s = match &ins.op {
            Op::Parameter { .. } => return fail("a parameter inside the body"),
            Op::Copy => {
                return self
                    .use_val(ins.operands.first().copied().unwrap_or(id))
                    .map(Val::One)
            }
            Op::GetTupleElement { index } => {
                let src = ins.operands.first().copied().unwrap_or(id);
                if let Some(Val::Many(n, _)) = self.vals.get(&src) {
                    return Ok(Val::One(format!("{n}#{index}")));
                }
                spec(
                    "stablehlo.get_tuple_element",
                    vec![format!("index = {index} : i32")],
                )
            }
            Op::Constant { literal } => spec(
                "stablehlo.constant",
                vec![format!("value = {} : {}", dense(literal)?, ty(&shape)?)],
            ),
            Op::Iota { dimension } => spec(
                "stablehlo.iota",
                vec![format!("iota_dimension = {dimension} : i64")],
            ),
            Op::Unary(u) => {
                let n = u.name().replace('-', "_");
                let name = if n == "erf" {
                    "mhlo.erf".to_string()
                } else {
                    format!("stablehlo.{n}")
                };
                spec(&name, Vec::new())
            }
            Op::Binary(b) => spec(
                &format!("stablehlo.{}", b.name().replace('-', "_")),
                Vec::new(),
            ),
            Op::Compare {
                direction,
                comparison_type,
            } => {
                let mut p = vec![format!(
                    "comparison_direction = #stablehlo<comparison_direction {direction}>"
                )];
                if let Some(t) = comparison_type {
                    p.push(format!("compare_type = #stablehlo<comparison_type {t}>"));
                }
                spec("stablehlo.compare", p)
            }
            Op::Select => spec("stablehlo.select", Vec::new()),
            Op::Clamp => spec("stablehlo.clamp", Vec::new()),
            Op::Convert => spec("stablehlo.convert", Vec::new()),
            Op::BitcastConvert => spec("stablehlo.bitcast_convert", Vec::new()),
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => spec(
                "stablehlo.reduce_precision",
                vec![
                    format!("exponent_bits = {exponent_bits} : i32"),
                    format!("mantissa_bits = {mantissa_bits} : i32"),
                ],
            ),
            Op::Map {
                dimensions,
                to_apply,
            } => {
                let n = ins.operands.len();
                let args: Vec<Shape> = ins
                    .operands
                    .iter()
                    .take(n)
                    .map(|&o| Shape::scalar(self.comp.instr(o).shape.element_type()))
                    .collect();
                let mut s = spec(
                    "stablehlo.map",
                    vec![format!("dimensions = {}", i64s(dimensions))],
                );
                s.regions.push(self.inline_region(*to_apply, &args)?);
                s
            }
            Op::Tuple => spec("stablehlo.tuple", Vec::new()),
            Op::Broadcast { dimensions } => spec(
                "stablehlo.broadcast_in_dim",
                vec![format!("broadcast_dimensions = {}", i64s(dimensions))],
            ),
            Op::Reshape | Op::Bitcast => spec("stablehlo.reshape", Vec::new()),
            Op::Transpose { permutation } => spec(
                "stablehlo.transpose",
                vec![format!("permutation = {}", i64s(permutation))],
            ),
            Op::Reverse { dimensions } => spec(
                "stablehlo.reverse",
                vec![format!("dimensions = {}", i64s(dimensions))],
            ),
            Op::Slice {
                start,
                limit,
                stride,
            } => spec(
                "stablehlo.slice",
                vec![
                    format!("start_indices = {}", i64s(start)),
                    format!("limit_indices = {}", i64s(limit)),
                    format!("strides = {}", i64s(stride)),
                ],
            ),
            Op::DynamicSlice { slice_sizes } => spec(
                "stablehlo.dynamic_slice",
                vec![format!("slice_sizes = {}", i64s(slice_sizes))],
            ),
            Op::DynamicUpdateSlice => spec("stablehlo.dynamic_update_slice", Vec::new()),
            Op::Concatenate { dimension } => spec(
                "stablehlo.concatenate",
                vec![format!("dimension = {dimension} : i64")],
            ),
            Op::Pad { padding } => {
                let f =
                    |g: fn(&crate::attrs::PadDim) -> i64| padding.iter().map(g).collect::<Vec<_>>();
                spec(
                    "stablehlo.pad",
                    vec![
                        format!("edge_padding_low = {}", i64s(&f(|p| p.low))),
                        format!("edge_padding_high = {}", i64s(&f(|p| p.high))),
                        format!("interior_padding = {}", i64s(&f(|p| p.interior))),
                    ],
                )
            }
            Op::GetDimensionSize { dimension } => spec(
                "stablehlo.get_dimension_size",
                vec![format!("dimension = {dimension} : i64")],
            ),
            Op::OptimizationBarrier if shape.is_tuple() => {
                return self.flat_tuple_op(id, "stablehlo.optimization_barrier", &shape)
            }
            Op::OptimizationBarrier => spec("stablehlo.optimization_barrier", Vec::new()),
            other => return self.instr_more(id, other, &shape),
        };
        self.emit(id, s, &shape)
    }

    fn instr_more(&mut self, id: InstrId, op: &Op, shape: &Shape) -> PResult<Val> {
        let multi = shape.is_tuple();
        let s = match op {
            Op::Gather(g) => spec("stablehlo.gather", vec![
                format!("dimension_numbers = #stablehlo.gather<offset_dims = {}, collapsed_slice_dims = {}, operand_batching_dims = {}, start_indices_batching_dims = {}, start_index_map = {}, index_vector_dim = {}>", list(&g.offset_dims), list(&g.collapsed_slice_dims), list(&g.operand_batching_dims), list(&g.start_indices_batching_dims), list(&g.start_index_map), g.index_vector_dim),
                format!("slice_sizes = {}", i64s(&g.slice_sizes)),
                format!("indices_are_sorted = {}", g.indices_are_sorted),
            ]),
            Op::Scatter { dims: d, to_apply } => {
                let ins = self.comp.instr(id);
                let n = ins.operands.len().saturating_sub(1) / 2;
                let scal: Vec<Shape> = ins.operands.iter().take(n).map(|&o| Shape::scalar(self.comp.instr(o).shape.element_type())).collect();
                let mut s = spec("stablehlo.scatter", vec![
                    format!("scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {}, inserted_window_dims = {}, input_batching_dims = {}, scatter_indices_batching_dims = {}, scatter_dims_to_operand_dims = {}, index_vector_dim = {}>", list(&d.update_window_dims), list(&d.inserted_window_dims), list(&d.input_batching_dims), list(&d.scatter_indices_batching_dims), list(&d.scatter_dims_to_operand_dims), d.index_vector_dim),
                    format!("indices_are_sorted = {}", d.indices_are_sorted),
                    format!("unique_indices = {}", d.unique_indices),
                ]);
                s.regions.push(self.call_region(*to_apply, &[scal.clone(), scal].concat(), true)?);
                s.multi = multi;
                s
            }
            Op::Dot { dims, precision: p } => {
                let mut props = vec![format!("dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = {}, rhs_batching_dimensions = {}, lhs_contracting_dimensions = {}, rhs_contracting_dimensions = {}>", list(&dims.lhs_batch_dims), list(&dims.rhs_batch_dims), list(&dims.lhs_contracting_dims), list(&dims.rhs_contracting_dims))];
                if !p.operand_precision.is_empty() {
                    props.push(precision(p));
                }
                spec("stablehlo.dot_general", props)
            }
            Op::Convolution(c) => {
                let f = |g: fn(&crate::attrs::WindowDim) -> i64| c.window.dims.iter().map(g).collect::<Vec<_>>();
                let rev: Vec<String> = c.window.dims.iter().map(|d| d.window_reversal.to_string()).collect();
                let mut props = vec![
                    format!("batch_group_count = {} : i64", c.batch_group_count),
                    format!("feature_group_count = {} : i64", c.feature_group_count),
                    format!("dimension_numbers = #stablehlo.conv<{}>", conv_dims(&c.dnums)),
                    format!("window_strides = {}", i64s(&f(|d| d.stride))),
                    format!("padding = {}", pairs(&c.window.dims.iter().map(|d| (d.padding_low, d.padding_high)).collect::<Vec<_>>())),
                    format!("lhs_dilation = {}", i64s(&f(|d| d.base_dilation))),
                    format!("rhs_dilation = {}", i64s(&f(|d| d.window_dilation))),
                ];
                if !rev.is_empty() {
                    props.push(format!("window_reversal = array<i1: {}>", rev.join(", ")));
                }
                if !c.precision.operand_precision.is_empty() {
                    props.push(precision(&c.precision));
                }
                spec("stablehlo.convolution", props)
            }
            Op::Reduce { dimensions, to_apply } => {
                let args = self.scalar_args(id, self.comp.instr(id).operands.len() / 2);
                let mut s = spec("stablehlo.reduce", vec![format!("dimensions = {}", i64s(dimensions))]);
                s.regions.push(self.call_region(*to_apply, &args, true)?);
                s.multi = multi;
                s
            }
            Op::ReduceWindow { window, to_apply } => {
                let args = self.scalar_args(id, self.comp.instr(id).operands.len() / 2);
                let mut s = spec("stablehlo.reduce_window", window_props(window, true));
                s.regions.push(self.call_region(*to_apply, &args, true)?);
                s.multi = multi;
                s
            }
            Op::SelectAndScatter { window, select, scatter } => {
                let ins = self.comp.instr(id);
                let e = |k: usize| ins.operands.get(k).map(|&o| Shape::scalar(self.comp.instr(o).shape.element_type()));
                let (a, b) = (e(0).unwrap_or(Shape::Token), e(1).unwrap_or(Shape::Token));
                let mut s = spec("stablehlo.select_and_scatter", window_props(window, false));
                s.regions.push(self.call_region(*select, &[a.clone(), a], false)?);
                s.regions.push(self.call_region(*scatter, &[b.clone(), b], false)?);
                s
            }
            Op::BatchNormTraining { epsilon, feature_index } | Op::BatchNormInference { epsilon, feature_index } | Op::BatchNormGrad { epsilon, feature_index } => {
                let name = match op {
                    Op::BatchNormTraining { .. } => "stablehlo.batch_norm_training",
                    Op::BatchNormInference { .. } => "stablehlo.batch_norm_inference",
                    _ => "stablehlo.batch_norm_grad",
                };
                let mut s = spec(name, vec![format!("epsilon = {epsilon:.8e} : f32"), format!("feature_index = {feature_index} : i64")]);
                s.multi = multi;
                s
            }
            Op::Cholesky { lower } => spec("stablehlo.cholesky", vec![format!("lower = {lower}")]),
            Op::TriangularSolve(o) => spec("stablehlo.triangular_solve", vec![format!("left_side = {}", o.left_side), format!("lower = {}", o.lower), format!("unit_diagonal = {}", o.unit_diagonal), format!("transpose_a = #stablehlo<transpose {}>", o.transpose_a)]),
            Op::Fft { fft_type, fft_length } => spec("stablehlo.fft", vec![format!("fft_type = #stablehlo<fft_type {fft_type}>"), format!("fft_length = {}", i64s(fft_length))]),
            Op::Sort { dimension, is_stable, to_apply } => {
                let ins = self.comp.instr(id);
                let scal: Vec<Shape> = ins.operands.iter().flat_map(|&o| {
                    let s = Shape::scalar(self.comp.instr(o).shape.element_type());
                    [s.clone(), s]
                }).collect();
                let mut s = spec("stablehlo.sort", vec![format!("dimension = {dimension} : i64"), format!("is_stable = {is_stable}")]);
                s.regions.push(self.call_region(*to_apply, &scal, false)?);
                s.multi = multi;
                s
            }
            Op::TopK { k, largest } => {
                let mut s = spec("mhlo.topk", vec![format!("k = {k} : i64"), format!("largest = {largest}")]);
                s.multi = true;
                s
            }
            Op::Call { to_apply, .. } => {
                let mut s = spec("func.call", vec![format!("callee = @{}", func_name(self.module, *to_apply)?)]);
                s.multi = false;
                s
            }
            Op::While { condition, body } => return self.while_loop(id, *condition, *body, shape),
            Op::Conditional { branches } => return self.conditional(id, branches, shape),
            Op::CustomCall { config, .. } => {
                let api = match config.api_version.as_str() {
                    "API_VERSION_STATUS_RETURNING" => 2,
                    "API_VERSION_STATUS_RETURNING_UNIFIED" => 3,
                    "API_VERSION_TYPED_FFI" => 4,
                    _ => 1,
                };
                let bc = if api == 4 && config.backend_config.starts_with('{') { config.backend_config.clone() } else { format!("\"{}\"", config.backend_config.replace('\\', "\\\\").replace('"', "\\\"")) };
                let mut s = spec("stablehlo.custom_call", vec![format!("call_target_name = \"{}\"", config.target), format!("backend_config = {bc}"), format!("api_version = {api} : i32"), format!("has_side_effect = {}", config.has_side_effect)]);
                s.multi = multi;
                s
            }
            Op::RngBitGenerator { algorithm } => {
                let a = match algorithm {
                    crate::attrs::RngAlgorithm::Default => "DEFAULT",
                    crate::attrs::RngAlgorithm::ThreeFry => "THREE_FRY",
                    crate::attrs::RngAlgorithm::Philox => "PHILOX",
                };
                let mut s = spec("stablehlo.rng_bit_generator", vec![format!("rng_algorithm = #stablehlo<rng_algorithm {a}>")]);
                s.multi = true;
                s
            }
            Op::AfterAll => spec("stablehlo.after_all", Vec::new()),
            Op::ReplicaId => spec("stablehlo.replica_id", Vec::new()),
            Op::PartitionId => spec("stablehlo.partition_id", Vec::new()),
            other => return fail(format!("op '{}' has no StableHLO form here yet", other.name())),
        };
        self.emit(id, s, shape)
    }

    /// Writes the op line; returns the value.
    fn emit(&mut self, id: InstrId, s: Spec, shape: &Shape) -> PResult<Val> {
        let (names, tys) = self.operands(id)?;
        self.next += 1;
        let v = format!("%{}v{}", self.prefix, self.next);
        let (lhs, result_tys, val) = match (shape, s.multi) {
            (Shape::Tuple(elems), true) => (
                format!("{v}:{}", elems.len()),
                elems
                    .iter()
                    .map(ty)
                    .collect::<PResult<Vec<_>>>()?
                    .join(", "),
                Val::Many(v.clone(), elems.clone()),
            ),
            _ => (v.clone(), ty(shape)?, Val::One(v.clone())),
        };
        let props = if s.props.is_empty() {
            String::new()
        } else {
            format!(" <{{{}}}>", s.props.join(", "))
        };
        let regions = if s.regions.is_empty() {
            String::new()
        } else {
            format!(" ({})", s.regions.join(", "))
        };
        self.line(&format!(
            "{lhs} = \"{}\"({}){props}{regions} : ({}) -> ({result_tys})",
            s.name,
            names.join(", "),
            tys.join(", ")
        ));
        Ok(val)
    }

    fn while_loop(
        &mut self,
        id: InstrId,
        cond: CompId,
        body: CompId,
        shape: &Shape,
    ) -> PResult<Val> {
        let Shape::Tuple(elems) = shape else {
            let mut s = spec("stablehlo.while", Vec::new());
            s.regions
                .push(self.call_region(cond, std::slice::from_ref(shape), false)?);
            s.regions
                .push(self.call_region(body, std::slice::from_ref(shape), false)?);
            return self.emit(id, s, shape);
        };
        let init = self.comp.instr(id).operands.first().copied().unwrap_or(id);
        let state = self.use_val(init)?;
        let mut parts = Vec::new();
        for (i, e) in elems.iter().enumerate() {
            let g = self.fresh();
            self.line(&format!("{g} = \"stablehlo.get_tuple_element\"({state}) <{{index = {i} : i32}}> : ({}) -> {}", ty(shape)?, ty(e)?));
            parts.push(g);
        }
        let c = self.call_region(cond, elems, false)?;
        let b = self.call_region(body, elems, true)?;
        self.next += 1;
        let v = format!("%{}v{}", self.prefix, self.next);
        let tys = elems
            .iter()
            .map(ty)
            .collect::<PResult<Vec<_>>>()?
            .join(", ");
        self.line(&format!(
            "{v}:{} = \"stablehlo.while\"({}) ({c}, {b}) : ({tys}) -> ({tys})",
            elems.len(),
            parts.join(", ")
        ));
        Ok(Val::Many(v, elems.clone()))
    }

    /// The elements of a tuple-shaped operand as separate values.
    fn split_tuple(&mut self, v: &str, shape: &Shape) -> PResult<Vec<String>> {
        let Shape::Tuple(elems) = shape else {
            return Ok(vec![v.to_string()]);
        };
        let mut parts = Vec::new();
        for (i, e) in elems.iter().enumerate() {
            let g = self.fresh();
            self.line(&format!(
                "{g} = \"stablehlo.get_tuple_element\"({v}) <{{index = {i} : i32}}> : ({}) -> {}",
                ty(shape)?,
                ty(e)?
            ));
            parts.push(g);
        }
        Ok(parts)
    }

    /// An op over the elements of its one tuple operand, with one result per element.
    fn flat_tuple_op(&mut self, id: InstrId, name: &str, shape: &Shape) -> PResult<Val> {
        let Shape::Tuple(elems) = shape else {
            return fail(format!("{name} of a non-tuple"));
        };
        let src = self.comp.instr(id).operands.first().copied().unwrap_or(id);
        let v = self.use_val(src)?;
        let parts = self.split_tuple(&v, shape)?;
        self.next += 1;
        let out = format!("%{}v{}", self.prefix, self.next);
        let tys = elems
            .iter()
            .map(ty)
            .collect::<PResult<Vec<_>>>()?
            .join(", ");
        self.line(&format!(
            "{out}:{} = \"{name}\"({}) : ({tys}) -> ({tys})",
            elems.len(),
            parts.join(", ")
        ));
        Ok(Val::Many(out, elems.clone()))
    }

    fn conditional(&mut self, id: InstrId, branches: &[CompId], shape: &Shape) -> PResult<Val> {
        let ins = self.comp.instr(id);
        let ops: Vec<InstrId> = ins.operands.clone();
        let sel = ops.first().copied().unwrap_or(id);
        let pred = self.comp.instr(sel).shape.element_type() == crate::types::PrimitiveType::Pred;
        let sel_name = self.use_val(sel)?;
        let elems: Vec<Shape> = match shape {
            Shape::Tuple(e) => e.clone(),
            s => vec![s.clone()],
        };
        let etys = elems
            .iter()
            .map(ty)
            .collect::<PResult<Vec<_>>>()?
            .join(", ");
        let mut regions = Vec::new();
        for (k, &b) in branches.iter().enumerate() {
            let arg = ops.get(k + 1).copied().unwrap_or(id);
            let a = self.use_val(arg)?;
            let at = ty(&self.comp.instr(arg).shape)?;
            let r = self.fresh();
            let mut body = format!(
                "{{\n      {r} = \"func.call\"({a}) <{{callee = @{}}}> : ({at}) -> {}\n",
                func_name(self.module, b)?,
                ty(shape)?
            );
            let mut outs = vec![r.clone()];
            if shape.is_tuple() {
                outs.clear();
                for (i, e) in elems.iter().enumerate() {
                    let g = self.fresh();
                    body.push_str(&format!("      {g} = \"stablehlo.get_tuple_element\"({r}) <{{index = {i} : i32}}> : ({}) -> {}\n", ty(shape)?, ty(e)?));
                    outs.push(g);
                }
            }
            body.push_str(&format!(
                "      \"stablehlo.return\"({}) : ({etys}) -> ()\n    }}",
                outs.join(", ")
            ));
            regions.push(body);
        }
        self.next += 1;
        let v = format!("%{}v{}", self.prefix, self.next);
        let name = if pred {
            "stablehlo.if"
        } else {
            "stablehlo.case"
        };
        let lhs = if shape.is_tuple() {
            format!("{v}:{}", elems.len())
        } else {
            v.clone()
        };
        self.line(&format!(
            "{lhs} = \"{name}\"({sel_name}) ({}) : ({}) -> ({etys})",
            regions.join(", "),
            ty(&self.comp.instr(sel).shape)?
        ));
        Ok(if shape.is_tuple() {
            Val::Many(v, elems)
        } else {
            Val::One(v)
        })
    }
}
