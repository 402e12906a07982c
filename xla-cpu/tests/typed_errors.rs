//! The executor's typed errors for what the verifier cannot see: the operands, results
//! and `backend_config` of the built-in LAPACK custom-call targets (a module may call them
//! with anything). Each case checks the variant, its fields and the message, which names
//! the op, the shapes in XLA notation and the rule broken.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::Literal;

use xla_cpu::{CpuError, CustomCallFailure, Executable};

/// Runs a module calling `target` on an f32 parameter of `param` with result `out` and
/// `backend_config` `config`, returning the error under the `custom-call` wrappers and the
/// whole message.
fn lapack_error(target: &str, param: &str, out: &str, config: &str) -> (CpuError, String) {
    let text = format!(
        "HloModule t\nENTRY main {{\n  p = {param} parameter(0)\n  ROOT r = {out} \
         custom-call(p), custom_call_target=\"{target}\", api_version=API_VERSION_TYPED_FFI, \
         backend_config={{{config}}}\n}}\n"
    );
    let exe = Executable::compile(&xla_core::text::parse_module(&text).unwrap()).unwrap();
    let shape = xla_core::text::parse_shape(param).unwrap();
    let x = Literal::zeros(&shape).unwrap();
    let e = exe.execute(&[x]).unwrap_err();
    let msg = e.to_string();
    let CpuError::Instruction { source, .. } = e else {
        panic!("expected an Instruction error, got {e:?}");
    };
    match *source {
        CpuError::CustomCall {
            failure: CustomCallFailure::BuiltIn(inner),
            ..
        } => (*inner, msg),
        other => panic!("expected a built-in custom-call failure, got {other:?}"),
    }
}

#[test]
fn a_non_square_matrix_names_its_dimensions() {
    let (e, msg) = lapack_error(
        "lapack_ssyevd_ffi",
        "f32[3,4]",
        "(f32[3,4], f32[3], s32[])",
        "mode = 86 : ui8, uplo = 76 : ui8",
    );
    match &e {
        CpuError::MatrixShape { op, dims, needed } => {
            assert_eq!(op, "custom-call syevd");
            assert_eq!(dims, &[3, 4]);
            assert_eq!(*needed, "a batch of square matrices");
        }
        other => panic!("expected MatrixShape, got {other:?}"),
    }
    assert!(
        msg.ends_with(
            "custom-call syevd: an operand of dimensions [3, 4] is not a batch of square matrices"
        ),
        "{msg}"
    );
}

#[test]
fn a_bad_mode_names_the_attribute_and_its_values() {
    let (e, msg) = lapack_error(
        "lapack_sgesdd_ffi",
        "f32[4,4]",
        "(f32[4,4], f32[4], f32[4,4], f32[4,4], s32[])",
        "mode = 88 : ui8",
    );
    match &e {
        CpuError::Attribute {
            op,
            attribute,
            value,
            ..
        } => {
            assert_eq!(op, "custom-call gesdd");
            assert_eq!(*attribute, "mode");
            assert_eq!(value, "'X'");
        }
        other => panic!("expected Attribute, got {other:?}"),
    }
    assert!(
        msg.ends_with("custom-call gesdd: mode 'X' is not A, S, N or O"),
        "{msg}"
    );
}

#[test]
fn a_missing_backend_config_key_is_named() {
    let (e, msg) = lapack_error("lapack_spotrf_ffi", "f32[4,4]", "(f32[4,4], s32[])", "");
    assert!(
        matches!(&e, CpuError::Attribute { attribute: "backend_config", rule, .. } if rule == "has no `uplo`"),
        "{e:?}"
    );
    assert!(
        msg.ends_with("custom-call lapack potrf: backend_config \"{}\" has no `uplo`"),
        "{msg}"
    );
}

#[test]
fn a_result_of_the_wrong_form_is_a_result_shape_error() {
    let (e, msg) = lapack_error(
        "lapack_spotrf_ffi",
        "f32[4,4]",
        "f32[4,4]",
        "uplo = 76 : ui8",
    );
    match &e {
        CpuError::ResultShape {
            op,
            expected,
            declared,
        } => {
            assert_eq!(op, "custom-call lapack potrf");
            assert_eq!(expected, "a 2-tuple");
            assert_eq!(declared.to_string(), "f32[4,4]");
        }
        other => panic!("expected ResultShape, got {other:?}"),
    }
    assert!(
        msg.ends_with("the result must be a 2-tuple, but the op declares f32[4,4]"),
        "{msg}"
    );
}

#[test]
fn an_integer_matrix_is_an_unsupported_type() {
    let text = "HloModule t\nENTRY main {\n  p = s32[4,4] parameter(0)\n  ROOT r = (s32[4,4], s32[4], s32[]) custom-call(p), custom_call_target=\"lapack_sgetrf_ffi\", api_version=API_VERSION_TYPED_FFI\n}\n";
    let exe = Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap();
    let x = Literal::zeros(&xla_core::text::parse_shape("s32[4,4]").unwrap()).unwrap();
    let msg = exe.execute(&[x]).unwrap_err().to_string();
    assert!(
        msg.ends_with("element type s32 is not supported by custom-call getrf"),
        "{msg}"
    );
}

#[test]
fn a_missing_operand_is_an_operand_count_error() {
    // orgqr takes (a, tau); given a alone.
    let (e, msg) = lapack_error("lapack_sorgqr_ffi", "f32[4,4]", "f32[4,4]", "");
    match &e {
        CpuError::OperandCount {
            op,
            expected,
            found,
        } => {
            assert_eq!(op, "custom-call orgqr");
            assert_eq!(expected, "2 operands (a, tau)");
            assert_eq!(*found, 1);
        }
        other => panic!("expected OperandCount, got {other:?}"),
    }
    assert!(
        msg.ends_with("custom-call orgqr: takes 2 operands (a, tau), found 1"),
        "{msg}"
    );
}

#[test]
fn schur_with_eigenvalue_selection_is_unsupported() {
    let (e, _) = lapack_error(
        "lapack_sgees_ffi",
        "f32[4,4]",
        "(f32[4,4], f32[4,4], f32[4], f32[4], s32[], s32[])",
        "mode = 86 : ui8, sort = 83 : ui8",
    );
    assert!(
        matches!(&e, CpuError::Unsupported(what) if what.contains("sort = 'S'")),
        "{e:?}"
    );
}
