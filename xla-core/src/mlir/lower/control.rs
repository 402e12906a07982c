//! Control flow and calls: while, case, if (values the regions use from outside are passed
//! in the loop state or the branch operand), func.call, composite, custom_call.

use super::{
    attrs, check, declared, emit, err, free_vars, shape_of, tuple_of, Env, LResult, Lowerer,
};
use crate::attrs::CustomCallConfig;
use crate::builder::{XlaBuilder, XlaOp};
use crate::ir::Op;
use crate::mlir::ast::{Attr, OpAst, Region};

/// Captured names with their group sizes, and their values in order.
type Captures = (Vec<(String, usize)>, Vec<XlaOp>);
use crate::mlir::MlirErrorKind;

/// Lowers `op` if it is control flow or a call.
pub(crate) fn lower(
    lw: &Lowerer<'_>,
    b: &XlaBuilder,
    op: &OpAst,
    short: &str,
    ops: &[XlaOp],
    env: &Env,
) -> LResult<Option<Vec<XlaOp>>> {
    let v = match (op.name.as_str(), short) {
        (_, "while") => while_loop(lw, b, op, ops, env)?,
        (_, "case" | "if") => branches(lw, b, op, ops, env)?,
        ("func.call" | "call", _) => {
            let name = match (&op.callee, op.attr(&["callee"])) {
                (Some(c), _) => c.clone(),
                (None, Some(Attr::Symbol(s))) => s.clone(),
                _ => {
                    return Err(err(
                        op,
                        MlirErrorKind::Attribute,
                        "call needs a callee @function",
                    ))
                }
            };
            call(lw, b, op, &name, ops)?
        }
        (_, "composite") => {
            let name = match op.attr(&["decomposition"]) {
                Some(Attr::Symbol(s)) => s.clone(),
                _ => {
                    return Err(err(
                        op,
                        MlirErrorKind::Attribute,
                        "composite needs a decomposition = @function",
                    ))
                }
            };
            call(lw, b, op, &name, ops)?
        }
        (_, "custom_call") => custom_call(lw, b, op, ops)?,
        (_, "after_all") => vec![emit(b, op, Op::AfterAll, ops, None)?],
        (_, "create_token") => vec![emit(b, op, Op::AfterAll, &[], None)?],
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// The `n` results of a value: itself for one, its elements for several.
fn results(b: &XlaBuilder, op: &OpAst, v: XlaOp, n: usize) -> LResult<Vec<XlaOp>> {
    if n == 1 {
        return Ok(vec![v]);
    }
    (0..n)
        .map(|i| {
            check(
                b,
                op,
                b.get_tuple_element(&v, i64::try_from(i).unwrap_or(0)),
            )
        })
        .collect()
}

fn call(
    lw: &Lowerer<'_>,
    b: &XlaBuilder,
    op: &OpAst,
    name: &str,
    ops: &[XlaOp],
) -> LResult<Vec<XlaOp>> {
    let comp = lw.callee(b, op, name)?;
    let v = emit(
        b,
        op,
        Op::Call {
            to_apply: comp.id(),
            composite: None,
        },
        ops,
        None,
    )?;
    results(b, op, v, op.result_count())
}

/// The names a region uses from outside and their values (every result of a group).
fn captured(env: &Env, r: &Region) -> LResult<Captures> {
    let mut names = Vec::new();
    let mut vals = Vec::new();
    for n in free_vars(r) {
        let group = env.get(&n).ok_or_else(|| err_at(r, &n))?;
        names.push((n, group.len()));
        vals.extend(group.iter().cloned());
    }
    Ok((names, vals))
}

fn err_at(r: &Region, n: &str) -> crate::mlir::MlirError {
    crate::mlir::MlirError::new(
        r.pos,
        MlirErrorKind::UndefinedName,
        format!("use of undefined value %{n}"),
    )
}

/// Binds region arguments (one value each) to elements `offset..` of the tuple `p`.
fn bind_elems(
    b: &XlaBuilder,
    op: &OpAst,
    p: &XlaOp,
    names: &[String],
    offset: usize,
    env: &mut Env,
) -> LResult<()> {
    let groups: Vec<(String, usize)> = names.iter().map(|n| (n.clone(), 1)).collect();
    bind_groups(b, op, p, &groups, offset, env)
}

/// Binds captured groups to consecutive elements `offset..` of the tuple `p`.
fn bind_groups(
    b: &XlaBuilder,
    op: &OpAst,
    p: &XlaOp,
    groups: &[(String, usize)],
    offset: usize,
    env: &mut Env,
) -> LResult<()> {
    let mut idx = offset;
    for (n, len) in groups {
        let mut vals = Vec::with_capacity(*len);
        for _ in 0..*len {
            vals.push(check(
                b,
                op,
                b.get_tuple_element(p, i64::try_from(idx).unwrap_or(0)),
            )?);
            idx += 1;
        }
        env.insert(n.clone(), vals);
    }
    Ok(())
}

fn while_loop(
    lw: &Lowerer<'_>,
    b: &XlaBuilder,
    op: &OpAst,
    ops: &[XlaOp],
    env: &Env,
) -> LResult<Vec<XlaOp>> {
    let (Some(cond), Some(body)) = (op.regions.first(), op.regions.get(1)) else {
        return Err(err(
            op,
            MlirErrorKind::Syntax,
            "while needs cond and body regions",
        ));
    };
    let (mut caps, mut cap_vals) = captured(env, cond)?;
    let (body_caps, body_vals) = captured(env, body)?;
    let mut at = 0;
    for (n, len) in body_caps {
        if !caps.iter().any(|(c, _)| *c == n) {
            cap_vals.extend(
                body_vals
                    .get(at..at + len)
                    .unwrap_or_default()
                    .iter()
                    .cloned(),
            );
            caps.push((n, len));
        }
        at += len;
    }
    let n = ops.len();
    let state = check(b, op, b.tuple([ops, &cap_vals].concat()))?;
    let state_shape = shape_of(op, &state)?;
    let arg_names = |r: &Region| r.args.iter().map(|(a, _)| a.clone()).collect::<Vec<_>>();
    let cb = b.sub_builder("cond");
    let p = check(&cb, op, cb.parameter(0, state_shape.clone(), "state"))?;
    let mut cenv = Env::new();
    bind_elems(&cb, op, &p, &arg_names(cond), 0, &mut cenv)?;
    bind_groups(&cb, op, &p, &caps, n, &mut cenv)?;
    let pred = lw.nested(|| lw.block(&cb, cond, &mut cenv))?;
    let pred = tuple_of(&cb, op, &pred)?;
    let condition = cb
        .build_sub(&pred)
        .map_err(|e| err(op, MlirErrorKind::Shape, e.to_string()))?;
    let bb = b.sub_builder("body");
    let p = check(&bb, op, bb.parameter(0, state_shape, "state"))?;
    let mut benv = Env::new();
    bind_elems(&bb, op, &p, &arg_names(body), 0, &mut benv)?;
    bind_groups(&bb, op, &p, &caps, n, &mut benv)?;
    let mut next = lw.nested(|| lw.block(&bb, body, &mut benv))?;
    for i in 0..cap_vals.len() {
        next.push(check(
            &bb,
            op,
            bb.get_tuple_element(&p, i64::try_from(n + i).unwrap_or(0)),
        )?);
    }
    let next = check(&bb, op, bb.tuple(&next))?;
    let body = bb
        .build_sub(&next)
        .map_err(|e| err(op, MlirErrorKind::Shape, e.to_string()))?;
    let w = emit(
        b,
        op,
        Op::While {
            condition: condition.id(),
            body: body.id(),
        },
        &[state],
        None,
    )?;
    (0..n)
        .map(|i| {
            check(
                b,
                op,
                b.get_tuple_element(&w, i64::try_from(i).unwrap_or(0)),
            )
        })
        .collect()
}

fn branches(
    lw: &Lowerer<'_>,
    b: &XlaBuilder,
    op: &OpAst,
    ops: &[XlaOp],
    env: &Env,
) -> LResult<Vec<XlaOp>> {
    let mut comps = Vec::new();
    let mut operands = ops.to_vec();
    for (k, r) in op.regions.iter().enumerate() {
        let (caps, vals) = captured(env, r)?;
        let arg = check(b, op, b.tuple(&vals))?;
        let sb = b.sub_builder(&format!("branch_{k}"));
        let p = check(&sb, op, sb.parameter(0, shape_of(op, &arg)?, "captured"))?;
        let mut renv = Env::new();
        bind_groups(&sb, op, &p, &caps, 0, &mut renv)?;
        let vals = lw.nested(|| lw.block(&sb, r, &mut renv))?;
        let root = check(&sb, op, sb.tuple(&vals))?;
        comps.push(
            sb.build_sub(&root)
                .map_err(|e| err(op, MlirErrorKind::Shape, e.to_string()))?
                .id(),
        );
        operands.push(arg);
    }
    if comps.is_empty() {
        return Err(err(
            op,
            MlirErrorKind::Syntax,
            format!("{} needs branches", op.name),
        ));
    }
    let v = emit(b, op, Op::Conditional { branches: comps }, &operands, None)?;
    (0..op.result_count())
        .map(|i| {
            check(
                b,
                op,
                b.get_tuple_element(&v, i64::try_from(i).unwrap_or(0)),
            )
        })
        .collect()
}

fn api_version(op: &OpAst) -> LResult<String> {
    let v = attrs::int_or(op, &["api_version"], 1)?;
    Ok(match v {
        0 | 1 => "",
        2 => "API_VERSION_STATUS_RETURNING",
        3 => "API_VERSION_STATUS_RETURNING_UNIFIED",
        _ => "API_VERSION_TYPED_FFI",
    }
    .to_string())
}

fn custom_call(lw: &Lowerer<'_>, b: &XlaBuilder, op: &OpAst, ops: &[XlaOp]) -> LResult<Vec<XlaOp>> {
    let target = match (&op.callee, op.attr(&["call_target_name"])) {
        (Some(t), _) => t.clone(),
        (None, Some(Attr::Str(s))) => String::from_utf8_lossy(s).into_owned(),
        _ => {
            return Err(err(
                op,
                MlirErrorKind::Attribute,
                "custom_call needs a target",
            ))
        }
    };
    // GSPMD's sharding annotations (JAX with Shardy off): on one device each is its
    // operand, as after XLA's SPMD partitioner.
    if let ("Sharding" | "SPMDFullToShardShape" | "SPMDShardToFullShape", [x]) =
        (target.as_str(), ops)
    {
        if op.result_types.len() == 1 && b.get_shape(x).ok().as_ref() == op.result_types.first() {
            return Ok(vec![x.clone()]);
        }
    }
    // JAX prints `backend_config = ""` beside the FFI attributes in `mhlo.backend_config`
    // (`{uplo = 76 : ui8}` for LAPACK's potrf): the first non-empty one is the config.
    let backend_config = ["backend_config", "mhlo.backend_config"]
        .iter()
        .find_map(|n| match op.attr(&[n]) {
            Some(Attr::Str(s)) if !s.is_empty() => Some(String::from_utf8_lossy(s).into_owned()),
            Some(Attr::Dict(_, raw)) => Some(raw.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let mut called = Vec::new();
    if let Some(Attr::List(v)) = op.attr(&["called_computations"]) {
        for c in v {
            if let Attr::Symbol(s) = c {
                called.push(lw.callee(b, op, s)?.id());
            }
        }
    }
    let config = CustomCallConfig {
        target,
        backend_config,
        has_side_effect: attrs::flag(op, &["has_side_effect"], false)?,
        api_version: api_version(op)?,
    };
    let v = emit(
        b,
        op,
        Op::CustomCall { config, called },
        ops,
        Some(declared(op)?),
    )?;
    results(b, op, v, op.result_count())
}
