//! One instruction: `[ROOT] name = shape opcode(operands), attr=value, ...`, and the
//! construction of its [`Op`] from the opcode and the attributes it needs.
//!
//! Operands may be written with their shapes (`add(f32[2]{0} %a, f32[2]{0} %b)`); the
//! shapes are skipped. Attributes an operation does not use are ignored; a required one
//! that is missing is an error at the opcode.

use super::attributes::Attrs;
use super::module::State;
use super::{PResult, ParseError, ParseErrorKind, Parser};
use crate::attrs::*;
use crate::ir::{CompId, Op, Opcode};
use crate::literal::Literal;
use crate::shape::Shape;
use crate::text::lexer::{Pos, Tok};

/// An instruction before its operand names are resolved.
pub(super) struct RawInstr {
    pub name: String,
    pub pos: Pos,
    /// Position of `ROOT`, when the instruction is marked as the root.
    pub root: Option<Pos>,
    pub shape: Shape,
    pub op: Op,
    pub operands: Vec<(String, Pos)>,
    /// The `sharding=` attribute as written, if any.
    pub sharding: Option<String>,
}

/// What was inside the parentheses: operands, a parameter number or a literal.
enum Inside {
    Operands,
    Number(i64),
    Literal(Literal),
}

impl<'t> Parser<'t> {
    /// Parses one instruction.
    pub(super) fn instruction(&mut self, st: &mut State) -> PResult<RawInstr> {
        let root = match self.peek() {
            Tok::Word(w) if w == "ROOT" => {
                let pos = self.here();
                self.bump();
                Some(pos)
            }
            _ => None,
        };
        let (name, pos) = self.name("an instruction name")?;
        self.expect(&Tok::Eq)?;
        let shape = self.shape()?;
        let (opname, op_pos) = self.word("an opcode")?;
        let opcode = Opcode::from_name(&opname).ok_or_else(|| {
            ParseError::new(
                op_pos,
                ParseErrorKind::UnknownOpcode,
                format!("unknown opcode '{opname}'"),
            )
        })?;
        self.expect(&Tok::LParen)?;
        let mut operands = Vec::new();
        let inside = if opcode == Opcode::Parameter {
            Inside::Number(self.int()?)
        } else if opcode == Opcode::Constant {
            Inside::Literal(self.literal(&shape)?)
        } else {
            operands = self.operands()?;
            Inside::Operands
        };
        self.expect(&Tok::RParen)?;
        let attrs = self.attributes()?;
        let sharding = attrs.get("sharding").map(|a| self.raw_text(a.start, a.end));
        let mut ctx = Ctx {
            p: self,
            st,
            attrs,
            instr: &name,
            op: &opname,
            pos: op_pos,
        };
        let op = build_op(&mut ctx, opcode, inside)?;
        Ok(RawInstr {
            name,
            pos,
            root,
            shape,
            op,
            operands,
            sharding,
        })
    }

    /// Operand names up to (not including) `)`, each optionally preceded by its shape.
    fn operands(&mut self) -> PResult<Vec<(String, Pos)>> {
        let mut operands = Vec::new();
        if self.peek() == &Tok::RParen {
            return Ok(operands);
        }
        loop {
            if self.at_shape() {
                self.shape()?;
            }
            operands.push(self.name("an operand name")?);
            if !self.eat(&Tok::Comma) {
                return Ok(operands);
            }
        }
    }

    /// A called computation: a name, or an inline `{ ... }` body.
    fn v_comp(&mut self, st: &mut State, base: &str) -> PResult<CompId> {
        if self.peek() == &Tok::LBrace {
            return self.inline_computation(st, base);
        }
        let (name, pos) = self.name("a computation name")?;
        Ok(st.reference(&name, pos))
    }

    /// `{a, b, ...}`: called computations.
    fn v_comps(&mut self, st: &mut State, base: &str) -> PResult<Vec<CompId>> {
        self.expect(&Tok::LBrace)?;
        let mut comps = Vec::new();
        while !self.eat(&Tok::RBrace) {
            if !comps.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            let base = format!("{base}.{}", comps.len());
            comps.push(self.v_comp(st, &base)?);
        }
        Ok(comps)
    }

    /// `{key=value, ...}` (frontend_attributes): strings unquoted, other values as written.
    fn v_key_values(&mut self) -> PResult<Vec<(String, String)>> {
        self.expect(&Tok::LBrace)?;
        let mut kv = Vec::new();
        while !self.eat(&Tok::RBrace) {
            if !kv.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            let (key, _) = self.word("an attribute name")?;
            self.expect(&Tok::Eq)?;
            let value = match self.peek().clone() {
                Tok::Str(s) => {
                    self.bump();
                    s
                }
                _ => {
                    let (start, end) = self.skip_value()?;
                    self.source(start, end).to_string()
                }
            };
            kv.push((key, value));
        }
        Ok(kv)
    }
}

/// The attributes of one instruction, with what is needed to read them.
struct Ctx<'a, 'p, 't> {
    p: &'p Parser<'t>,
    st: &'a mut State,
    attrs: Attrs,
    instr: &'a str,
    op: &'a str,
    pos: Pos,
}

type ValueFn<'t, T> = fn(&mut Parser<'t>) -> PResult<T>;

impl<'t> Ctx<'_, '_, 't> {
    /// The value of attribute `name`, if present.
    fn opt<T>(&mut self, name: &str, f: ValueFn<'t, T>) -> PResult<Option<T>> {
        match self.attrs.get(name) {
            None => Ok(None),
            Some(a) => self.p.in_value(a, f).map(Some),
        }
    }

    fn missing(&self, name: &str) -> ParseError {
        ParseError::new(
            self.pos,
            ParseErrorKind::MissingAttribute,
            format!("{} '{}' needs attribute '{name}'", self.op, self.instr),
        )
    }

    /// The value of the required attribute `name`.
    fn req<T>(&mut self, name: &str, f: ValueFn<'t, T>) -> PResult<T> {
        self.opt(name, f)?.ok_or_else(|| self.missing(name))
    }

    fn int(&mut self, name: &str) -> PResult<i64> {
        self.req(name, Parser::int)
    }

    fn ints(&mut self, name: &str) -> PResult<Vec<i64>> {
        self.req(name, Parser::v_ints)
    }

    fn ints_or_empty(&mut self, name: &str) -> PResult<Vec<i64>> {
        Ok(self.opt(name, Parser::v_ints)?.unwrap_or_default())
    }

    /// `dimensions={d}`.
    fn dim(&mut self, name: &str) -> PResult<i64> {
        self.req(name, Parser::v_one_dim)
    }

    /// A boolean attribute; absent means `default`.
    fn flag_or(&mut self, name: &str, default: bool) -> PResult<bool> {
        Ok(self.opt(name, Parser::v_bool)?.unwrap_or(default))
    }

    fn flag(&mut self, name: &str) -> PResult<bool> {
        self.flag_or(name, false)
    }

    fn f32(&mut self, name: &str) -> PResult<f32> {
        self.req(name, Parser::v_f32)
    }

    fn string(&mut self, name: &str) -> PResult<String> {
        Ok(self.opt(name, Parser::v_string)?.unwrap_or_default())
    }

    fn window(&mut self) -> PResult<Window> {
        Ok(self.opt("window", Parser::v_window)?.unwrap_or_default())
    }

    fn precision(&mut self) -> PResult<PrecisionConfig> {
        let p = self.opt("operand_precision", Parser::v_precision)?;
        let p = match p {
            Some(p) => Some(p),
            None => self.opt("precision_config", Parser::v_precision)?,
        };
        Ok(p.unwrap_or_default())
    }

    fn opt_comp(&mut self, name: &str) -> PResult<Option<CompId>> {
        let Some(a) = self.attrs.get(name) else {
            return Ok(None);
        };
        let base = format!("{}.{name}", self.instr);
        let st = &mut *self.st;
        self.p.in_value(a, |p| p.v_comp(st, &base)).map(Some)
    }

    fn comp(&mut self, name: &str) -> PResult<CompId> {
        self.opt_comp(name)?.ok_or_else(|| self.missing(name))
    }

    /// The computation of a `call`: `to_apply=` (or `calls=`, which some printers use).
    fn called(&mut self) -> PResult<CompId> {
        match self.opt_comp("to_apply")? {
            Some(c) => Ok(c),
            None => self
                .opt_comp("calls")?
                .ok_or_else(|| self.missing("to_apply")),
        }
    }

    fn opt_comps(&mut self, name: &str) -> PResult<Option<Vec<CompId>>> {
        let Some(a) = self.attrs.get(name) else {
            return Ok(None);
        };
        let base = format!("{}.{name}", self.instr);
        let st = &mut *self.st;
        self.p.in_value(a, |p| p.v_comps(st, &base)).map(Some)
    }

    fn enumerated<E>(
        &mut self,
        name: &str,
        what: &'static str,
        from: fn(&str) -> Option<E>,
    ) -> PResult<Option<E>> {
        let Some(a) = self.attrs.get(name) else {
            return Ok(None);
        };
        self.p.in_value(a, |p| p.v_enum(what, from)).map(Some)
    }

    fn req_enum<E>(
        &mut self,
        name: &str,
        what: &'static str,
        from: fn(&str) -> Option<E>,
    ) -> PResult<E> {
        self.enumerated(name, what, from)?
            .ok_or_else(|| self.missing(name))
    }

    fn collective(&mut self) -> PResult<CollectiveConfig> {
        Ok(CollectiveConfig {
            replica_groups: ReplicaGroups {
                groups: self
                    .opt("replica_groups", Parser::v_replica_groups)?
                    .unwrap_or_default(),
            },
            channel_id: self.opt("channel_id", Parser::int)?,
            use_global_device_ids: self.flag("use_global_device_ids")?,
            constrain_layout: self.flag("constrain_layout")?,
        })
    }

    fn conditional(&mut self) -> PResult<Vec<CompId>> {
        if let Some(b) = self.opt_comps("branch_computations")? {
            return Ok(b);
        }
        let on_true = self.comp("true_computation")?;
        let on_false = self.comp("false_computation")?;
        Ok(vec![on_true, on_false])
    }

    fn composite(&mut self) -> PResult<Option<Composite>> {
        if !self.flag("is_composite")? {
            return Ok(None);
        }
        let kv = self.req("frontend_attributes", Parser::v_key_values)?;
        let pos = self
            .attrs
            .get("frontend_attributes")
            .map_or(self.pos, |a| a.pos);
        let get = |k: &str| kv.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
        let name = get("composite.name").ok_or_else(|| {
            ParseError::new(
                pos,
                ParseErrorKind::MissingAttribute,
                "composite call needs composite.name",
            )
        })?;
        let version = match get("composite.version") {
            None => 0,
            Some(v) => v.trim().parse::<i64>().map_err(|_| {
                ParseError::new(
                    pos,
                    ParseErrorKind::InvalidValue,
                    format!("composite.version '{v}' is not an integer"),
                )
            })?,
        };
        Ok(Some(Composite {
            name,
            attributes: get("composite.attributes").unwrap_or_default(),
            version,
        }))
    }

    fn custom_call(&mut self) -> PResult<Op> {
        let config = CustomCallConfig {
            target: self.req("custom_call_target", Parser::v_string)?,
            backend_config: self.string("backend_config")?,
            has_side_effect: self.flag("custom_call_has_side_effect")?,
            api_version: self.string("api_version")?,
        };
        let mut called = self.opt_comps("called_computations")?.unwrap_or_default();
        for attr in ["to_apply", "calls"] {
            if let Some(c) = self.opt_comp(attr)? {
                called.push(c);
            }
        }
        Ok(Op::CustomCall { config, called })
    }

    fn gather(&mut self) -> PResult<GatherDims> {
        Ok(GatherDims {
            offset_dims: self.ints("offset_dims")?,
            collapsed_slice_dims: self.ints("collapsed_slice_dims")?,
            start_index_map: self.ints("start_index_map")?,
            index_vector_dim: self.int("index_vector_dim")?,
            operand_batching_dims: self.ints_or_empty("operand_batching_dims")?,
            start_indices_batching_dims: self.ints_or_empty("start_indices_batching_dims")?,
            slice_sizes: self.ints("slice_sizes")?,
            indices_are_sorted: self.flag("indices_are_sorted")?,
        })
    }

    fn scatter(&mut self) -> PResult<Op> {
        let dims = ScatterDims {
            update_window_dims: self.ints("update_window_dims")?,
            inserted_window_dims: self.ints("inserted_window_dims")?,
            scatter_dims_to_operand_dims: self.ints("scatter_dims_to_operand_dims")?,
            index_vector_dim: self.int("index_vector_dim")?,
            input_batching_dims: self.ints_or_empty("input_batching_dims")?,
            scatter_indices_batching_dims: self.ints_or_empty("scatter_indices_batching_dims")?,
            indices_are_sorted: self.flag("indices_are_sorted")?,
            unique_indices: self.flag("unique_indices")?,
        };
        Ok(Op::Scatter {
            dims,
            to_apply: self.comp("to_apply")?,
        })
    }

    fn dot(&mut self) -> PResult<Op> {
        let dims = DotDims {
            lhs_batch_dims: self.ints_or_empty("lhs_batch_dims")?,
            lhs_contracting_dims: self.ints_or_empty("lhs_contracting_dims")?,
            rhs_batch_dims: self.ints_or_empty("rhs_batch_dims")?,
            rhs_contracting_dims: self.ints_or_empty("rhs_contracting_dims")?,
        };
        Ok(Op::Dot {
            dims,
            precision: self.precision()?,
        })
    }

    fn convolution(&mut self) -> PResult<ConvConfig> {
        Ok(ConvConfig {
            window: self.window()?,
            dnums: self.req("dim_labels", Parser::v_dim_labels)?,
            feature_group_count: self.opt("feature_group_count", Parser::int)?.unwrap_or(1),
            batch_group_count: self.opt("batch_group_count", Parser::int)?.unwrap_or(1),
            precision: self.precision()?,
        })
    }

    fn slice(&mut self) -> PResult<Op> {
        let (start, limit, stride) = self.req("slice", Parser::v_slice)?;
        Ok(Op::Slice {
            start,
            limit,
            stride,
        })
    }

    fn triangular_solve(&mut self) -> PResult<TriangularSolveOptions> {
        Ok(TriangularSolveOptions {
            left_side: self.flag("left_side")?,
            lower: self.flag("lower")?,
            unit_diagonal: self.flag("unit_diagonal")?,
            transpose_a: self
                .enumerated("transpose_a", "a transpose kind", Transpose::from_name)?
                .unwrap_or(Transpose::NoTranspose),
        })
    }

    /// `channel_id` (0 when not written, as XLA's parser allows) and `is_host_transfer`.
    fn channel(&mut self) -> PResult<(i64, bool)> {
        let channel_id = self.opt("channel_id", Parser::int)?.unwrap_or(0);
        Ok((channel_id, self.flag("is_host_transfer")?))
    }
}

impl Inside {
    fn number(self, c: &Ctx<'_, '_, '_>) -> PResult<i64> {
        match self {
            Inside::Number(n) => Ok(n),
            _ => Err(c.missing("parameter number")),
        }
    }

    fn literal(self, c: &Ctx<'_, '_, '_>) -> PResult<Literal> {
        match self {
            Inside::Literal(l) => Ok(l),
            _ => Err(c.missing("literal")),
        }
    }
}

/// Builds the operation of opcode `opcode` from its attributes.
fn build_op(c: &mut Ctx<'_, '_, '_>, opcode: Opcode, inside: Inside) -> PResult<Op> {
    Ok(match opcode {
        Opcode::Parameter => Op::Parameter {
            number: inside.number(c)?,
        },
        Opcode::Constant => Op::Constant {
            literal: inside.literal(c)?,
        },
        Opcode::Iota => Op::Iota {
            dimension: c.int("iota_dimension")?,
        },
        Opcode::Unary(u) => Op::Unary(u),
        Opcode::Binary(b) => Op::Binary(b),
        Opcode::Compare => Op::Compare {
            direction: c.req_enum(
                "direction",
                "a comparison direction",
                ComparisonDirection::from_name,
            )?,
            comparison_type: c.enumerated(
                "type",
                "a comparison type",
                ComparisonType::from_name,
            )?,
        },
        Opcode::Select => Op::Select,
        Opcode::Clamp => Op::Clamp,
        Opcode::Convert => Op::Convert,
        Opcode::BitcastConvert => Op::BitcastConvert,
        Opcode::ReducePrecision => Op::ReducePrecision {
            exponent_bits: c.int("exponent_bits")?,
            mantissa_bits: c.int("mantissa_bits")?,
        },
        Opcode::Map => Op::Map {
            dimensions: c.ints_or_empty("dimensions")?,
            to_apply: c.comp("to_apply")?,
        },
        Opcode::Tuple => Op::Tuple,
        Opcode::GetTupleElement => Op::GetTupleElement {
            index: c.int("index")?,
        },
        Opcode::Broadcast => Op::Broadcast {
            dimensions: c.ints("dimensions")?,
        },
        Opcode::Reshape => Op::Reshape,
        Opcode::Transpose => Op::Transpose {
            permutation: c.ints("dimensions")?,
        },
        Opcode::Reverse => Op::Reverse {
            dimensions: c.ints("dimensions")?,
        },
        Opcode::Slice => c.slice()?,
        Opcode::DynamicSlice => Op::DynamicSlice {
            slice_sizes: c.ints("dynamic_slice_sizes")?,
        },
        Opcode::DynamicUpdateSlice => Op::DynamicUpdateSlice,
        Opcode::Concatenate => Op::Concatenate {
            dimension: c.dim("dimensions")?,
        },
        Opcode::Pad => Op::Pad {
            padding: c.req("padding", Parser::v_padding)?,
        },
        Opcode::Bitcast => Op::Bitcast,
        Opcode::Copy => Op::Copy,
        Opcode::GetDimensionSize => Op::GetDimensionSize {
            dimension: c.dim("dimensions")?,
        },
        Opcode::SetDimensionSize => Op::SetDimensionSize {
            dimension: c.dim("dimensions")?,
        },
        Opcode::OptimizationBarrier => Op::OptimizationBarrier,
        Opcode::Gather => Op::Gather(c.gather()?),
        Opcode::Scatter => c.scatter()?,
        Opcode::Dot => c.dot()?,
        Opcode::Convolution => Op::Convolution(c.convolution()?),
        Opcode::Reduce => Op::Reduce {
            dimensions: c.ints("dimensions")?,
            to_apply: c.comp("to_apply")?,
        },
        Opcode::ReduceWindow => Op::ReduceWindow {
            window: c.window()?,
            to_apply: c.comp("to_apply")?,
        },
        Opcode::SelectAndScatter => Op::SelectAndScatter {
            window: c.window()?,
            select: c.comp("select")?,
            scatter: c.comp("scatter")?,
        },
        Opcode::BatchNormTraining => Op::BatchNormTraining {
            epsilon: c.f32("epsilon")?,
            feature_index: c.int("feature_index")?,
        },
        Opcode::BatchNormInference => Op::BatchNormInference {
            epsilon: c.f32("epsilon")?,
            feature_index: c.int("feature_index")?,
        },
        Opcode::BatchNormGrad => Op::BatchNormGrad {
            epsilon: c.f32("epsilon")?,
            feature_index: c.int("feature_index")?,
        },
        Opcode::Cholesky => Op::Cholesky {
            lower: c.flag("lower")?,
        },
        Opcode::TriangularSolve => Op::TriangularSolve(c.triangular_solve()?),
        Opcode::Fft => Op::Fft {
            fft_type: c.req_enum("fft_type", "an FFT type", FftType::from_name)?,
            fft_length: c.ints("fft_length")?,
        },
        Opcode::Sort => Op::Sort {
            dimension: c.dim("dimensions")?,
            is_stable: c.flag("is_stable")?,
            to_apply: c.comp("to_apply")?,
        },
        Opcode::TopK => Op::TopK {
            k: c.int("k")?,
            largest: c.flag_or("largest", true)?,
        },
        Opcode::Call => Op::Call {
            to_apply: c.called()?,
            composite: c.composite()?,
        },
        Opcode::Conditional => Op::Conditional {
            branches: c.conditional()?,
        },
        Opcode::While => Op::While {
            condition: c.comp("condition")?,
            body: c.comp("body")?,
        },
        Opcode::CustomCall => c.custom_call()?,
        Opcode::Rng => Op::Rng {
            distribution: c.req_enum(
                "distribution",
                "a distribution",
                RngDistribution::from_name,
            )?,
        },
        Opcode::RngBitGenerator => Op::RngBitGenerator {
            algorithm: c
                .enumerated("algorithm", "an RNG algorithm", RngAlgorithm::from_name)?
                .unwrap_or(RngAlgorithm::Default),
        },
        Opcode::RngGetAndUpdateState => Op::RngGetAndUpdateState {
            delta: c.int("delta")?,
        },
        Opcode::AfterAll => Op::AfterAll,
        Opcode::AddDependency => Op::AddDependency,
        Opcode::AllGather => Op::AllGather {
            dimension: c.dim("dimensions")?,
            config: c.collective()?,
        },
        Opcode::AllReduce => Op::AllReduce {
            config: c.collective()?,
            to_apply: c.comp("to_apply")?,
        },
        Opcode::ReduceScatter => Op::ReduceScatter {
            dimension: c.dim("dimensions")?,
            config: c.collective()?,
            to_apply: c.comp("to_apply")?,
        },
        Opcode::AllToAll => Op::AllToAll {
            dimension: c.opt("dimensions", Parser::v_one_dim)?,
            config: c.collective()?,
        },
        Opcode::CollectivePermute => Op::CollectivePermute {
            source_target_pairs: source_target_pairs(c)?,
            channel_id: c.opt("channel_id", Parser::int)?,
        },
        Opcode::AllReduceStart => Op::AllReduceStart {
            config: c.collective()?,
            to_apply: c.comp("to_apply")?,
        },
        Opcode::AllReduceDone => Op::AllReduceDone,
        Opcode::AllGatherStart => Op::AllGatherStart {
            dimension: c.dim("dimensions")?,
            config: c.collective()?,
        },
        Opcode::AllGatherDone => Op::AllGatherDone,
        Opcode::CollectivePermuteStart => Op::CollectivePermuteStart {
            source_target_pairs: source_target_pairs(c)?,
            channel_id: c.opt("channel_id", Parser::int)?,
        },
        Opcode::CollectivePermuteDone => Op::CollectivePermuteDone,
        Opcode::CollectiveBroadcast => Op::CollectiveBroadcast {
            config: c.collective()?,
        },
        Opcode::ReplicaId => Op::ReplicaId,
        Opcode::PartitionId => Op::PartitionId,
        Opcode::Send => {
            let (channel_id, is_host_transfer) = c.channel()?;
            Op::Send {
                channel_id,
                is_host_transfer,
            }
        }
        Opcode::SendDone => {
            let (channel_id, is_host_transfer) = c.channel()?;
            Op::SendDone {
                channel_id,
                is_host_transfer,
            }
        }
        Opcode::Recv => {
            let (channel_id, is_host_transfer) = c.channel()?;
            Op::Recv {
                channel_id,
                is_host_transfer,
            }
        }
        Opcode::RecvDone => {
            let (channel_id, is_host_transfer) = c.channel()?;
            Op::RecvDone {
                channel_id,
                is_host_transfer,
            }
        }
        Opcode::Infeed => Op::Infeed {
            config: c.string("infeed_config")?,
        },
        Opcode::Outfeed => Op::Outfeed {
            config: c.string("outfeed_config")?,
            outfeed_shape: c.opt("outfeed_shape", Parser::shape)?,
        },
    })
}

fn source_target_pairs(c: &mut Ctx<'_, '_, '_>) -> PResult<Vec<(i64, i64)>> {
    let pos = c.attrs.get("source_target_pairs").map_or(c.pos, |a| a.pos);
    let lists = c
        .opt("source_target_pairs", Parser::v_nested_ints)?
        .unwrap_or_default();
    lists
        .into_iter()
        .map(|l| match l.as_slice() {
            [a, b] => Ok((*a, *b)),
            _ => Err(ParseError::new(
                pos,
                ParseErrorKind::InvalidValue,
                "source_target_pairs: each pair needs 2 ids",
            )),
        })
        .collect()
}
