//! Helpers for the shape-rule tables: rows, shape and signature parsing, and attribute
//! constructors.

use xla_core::attrs::{ConvConfig, ConvDimensionNumbers, PrecisionConfig, Window, WindowDim};
use xla_core::ir::{infer_shape, CompId, Op};
use xla_core::shape_inference::ProgramShape;
use xla_core::text::parse_shape;
use xla_core::Shape;

/// One row: an op applied to operand shapes (and called signatures, and a declared shape),
/// with the expected result shape or a substring of the expected error.
pub struct Row {
    pub desc: &'static str,
    pub op: Op,
    pub inputs: Vec<&'static str>,
    pub called: Vec<&'static str>,
    pub declared: Option<&'static str>,
    pub expect: Result<&'static str, &'static str>,
}

/// A row expecting `shape`.
pub fn ok(desc: &'static str, op: Op, inputs: &[&'static str], shape: &'static str) -> Row {
    Row {
        desc,
        op,
        inputs: inputs.to_vec(),
        called: Vec::new(),
        declared: None,
        expect: Ok(shape),
    }
}

/// A row expecting an error containing `substring`.
pub fn err(desc: &'static str, op: Op, inputs: &[&'static str], substring: &'static str) -> Row {
    Row {
        desc,
        op,
        inputs: inputs.to_vec(),
        called: Vec::new(),
        declared: None,
        expect: Err(substring),
    }
}

impl Row {
    /// Adds called computation signatures, written `(f32[], f32[]) -> f32[]`.
    pub fn called(mut self, sigs: &[&'static str]) -> Row {
        self.called = sigs.to_vec();
        self
    }

    /// Adds the declared (instruction) shape.
    pub fn declared(mut self, shape: &'static str) -> Row {
        self.declared = Some(shape);
        self
    }
}

/// Parses a shape in HLO notation.
pub fn sh(text: &str) -> Shape {
    parse_shape(text).unwrap_or_else(|e| panic!("bad test shape {text}: {e}"))
}

/// Parses a signature `(P0, P1) -> R`.
pub fn sig(text: &str) -> ProgramShape {
    let (params, result) = text
        .rsplit_once("->")
        .unwrap_or_else(|| panic!("bad signature {text}"));
    let parameters = match sh(params.trim()) {
        Shape::Tuple(p) => p,
        other => vec![other],
    };
    ProgramShape {
        parameters,
        result: sh(result.trim()),
    }
}

/// Runs every row and reports all failures at once; returns the number of rows.
pub fn run(rows: Vec<Row>) -> usize {
    let mut failures = Vec::new();
    let count = rows.len();
    for row in rows {
        let inputs: Vec<Shape> = row.inputs.iter().map(|s| sh(s)).collect();
        let refs: Vec<&Shape> = inputs.iter().collect();
        let called: Vec<ProgramShape> = row.called.iter().map(|s| sig(s)).collect();
        let declared = row.declared.map(sh);
        let got = infer_shape(&row.op, &refs, &called, declared.as_ref());
        let prefix = format!("{}: ", row.op.name());
        match (&row.expect, got) {
            (Ok(want), Ok(s)) if s.to_string() == *want => {}
            (Err(want), Err(e))
                if e.to_string().contains(want) && e.to_string().starts_with(&prefix) => {}
            (want, got) => failures.push(format!(
                "{}: expected {want:?}, got {}",
                row.desc,
                show(&got)
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    count
}

fn show(r: &Result<Shape, xla_core::ShapeError>) -> String {
    match r {
        Ok(s) => format!("Ok({s})"),
        Err(e) => format!("Err({e})"),
    }
}

/// A computation id (the signature comes from the row's `called`).
pub const C0: CompId = CompId(0);
/// A second computation id.
pub const C1: CompId = CompId(1);

/// A window from `(size, stride, pad_low, pad_high, base_dilation, window_dilation)`.
pub fn win(dims: &[(i64, i64, i64, i64, i64, i64)]) -> Window {
    Window {
        dims: dims
            .iter()
            .map(|&(size, stride, lo, hi, bd, wd)| WindowDim {
                size,
                stride,
                padding_low: lo,
                padding_high: hi,
                base_dilation: bd,
                window_dilation: wd,
                window_reversal: false,
            })
            .collect(),
    }
}

/// A window of `sizes` with `strides`, no padding or dilation.
pub fn win_simple(sizes: &[i64], strides: &[i64]) -> Window {
    let dims: Vec<_> = sizes
        .iter()
        .zip(strides)
        .map(|(&s, &st)| (s, st, 0, 0, 1, 1))
        .collect();
    win(&dims)
}

/// A convolution with NCHW/OIHW/NCHW numbering.
pub fn conv(window: Window, fgc: i64, bgc: i64) -> Op {
    let n = window.dims.len();
    conv_dn(window, ConvDimensionNumbers::nchw(n), fgc, bgc)
}

/// A convolution with explicit dimension numbers.
pub fn conv_dn(window: Window, dnums: ConvDimensionNumbers, fgc: i64, bgc: i64) -> Op {
    Op::Convolution(ConvConfig {
        window,
        dnums,
        feature_group_count: fgc,
        batch_group_count: bgc,
        precision: PrecisionConfig::default(),
    })
}
