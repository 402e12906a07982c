//! Contractions: dot, dot-general and the convolution family.

use super::window::{make_padding, make_window, Padding};
use super::{XlaBuilder, XlaOp};
use crate::ir::{ConvConfig, ConvDimensionNumbers, DotDims, Op, PrecisionConfig};
use std::borrow::Borrow;

/// The options of [`XlaBuilder::conv_general_dilated`] (XLA's `ConvGeneralDilated`
/// arguments besides the operands). Empty lists mean "1 everywhere" (strides, dilations) or
/// "no padding"; no dimension numbers means `bf01_oi01->bf01` (NCHW / OIHW).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvOptions {
    /// Stride per spatial dimension.
    pub window_strides: Vec<i64>,
    /// `(low, high)` padding per spatial dimension (may be negative).
    pub padding: Vec<(i64, i64)>,
    /// Input (base) dilation per spatial dimension.
    pub lhs_dilation: Vec<i64>,
    /// Kernel (window) dilation per spatial dimension.
    pub rhs_dilation: Vec<i64>,
    /// Dimension numbers; `None` for NCHW / OIHW / NCHW.
    pub dimension_numbers: Option<ConvDimensionNumbers>,
    /// Feature groups.
    pub feature_group_count: i64,
    /// Batch groups.
    pub batch_group_count: i64,
    /// Per-operand precision.
    pub precision: PrecisionConfig,
}

impl Default for ConvOptions {
    fn default() -> ConvOptions {
        ConvOptions {
            window_strides: Vec::new(),
            padding: Vec::new(),
            lhs_dilation: Vec::new(),
            rhs_dilation: Vec::new(),
            dimension_numbers: None,
            feature_group_count: 1,
            batch_group_count: 1,
            precision: PrecisionConfig::default(),
        }
    }
}

impl ConvOptions {
    /// Default options: stride 1, no padding, no dilation, NCHW, one group.
    pub fn new() -> ConvOptions {
        ConvOptions::default()
    }

    /// Sets the window strides.
    pub fn strides(mut self, strides: &[i64]) -> ConvOptions {
        self.window_strides = strides.to_vec();
        self
    }

    /// Sets the `(low, high)` padding.
    pub fn padding(mut self, padding: &[(i64, i64)]) -> ConvOptions {
        self.padding = padding.to_vec();
        self
    }

    /// Sets the input (base) dilation.
    pub fn lhs_dilation(mut self, dilation: &[i64]) -> ConvOptions {
        self.lhs_dilation = dilation.to_vec();
        self
    }

    /// Sets the kernel (window) dilation.
    pub fn rhs_dilation(mut self, dilation: &[i64]) -> ConvOptions {
        self.rhs_dilation = dilation.to_vec();
        self
    }

    /// Sets the dimension numbers.
    pub fn dimension_numbers(mut self, dnums: ConvDimensionNumbers) -> ConvOptions {
        self.dimension_numbers = Some(dnums);
        self
    }

    /// Sets the feature group count.
    pub fn feature_group_count(mut self, count: i64) -> ConvOptions {
        self.feature_group_count = count;
        self
    }

    /// Sets the batch group count.
    pub fn batch_group_count(mut self, count: i64) -> ConvOptions {
        self.batch_group_count = count;
        self
    }

    /// Sets the per-operand precision.
    pub fn precision(mut self, precision: PrecisionConfig) -> ConvOptions {
        self.precision = precision;
        self
    }
}

impl XlaBuilder {
    /// Matrix and vector products (XLA's `Dot`): contracts the lhs's last dimension (its
    /// only one for a vector) with the rhs's first: vector·vector, matrix·vector,
    /// matrix·matrix.
    pub fn dot(&self, lhs: impl Borrow<XlaOp>, rhs: impl Borrow<XlaOp>) -> XlaOp {
        let lhs = lhs.borrow();
        let Some(s) = self.shape_of("dot", lhs) else {
            return self.poisoned();
        };
        let dims = DotDims {
            lhs_contracting_dims: vec![if s.rank() == 1 { 0 } else { 1 }],
            rhs_contracting_dims: vec![0],
            ..DotDims::default()
        };
        self.dot_general(lhs, rhs, &dims)
    }

    /// A dot with general batch and contracting dimensions (XLA's `DotGeneral`).
    pub fn dot_general(
        &self,
        lhs: impl Borrow<XlaOp>,
        rhs: impl Borrow<XlaOp>,
        dims: &DotDims,
    ) -> XlaOp {
        self.dot_general_with_precision(lhs, rhs, dims, &PrecisionConfig::default())
    }

    /// [`XlaBuilder::dot_general`] with a per-operand precision.
    pub fn dot_general_with_precision(
        &self,
        lhs: impl Borrow<XlaOp>,
        rhs: impl Borrow<XlaOp>,
        dims: &DotDims,
        precision: &PrecisionConfig,
    ) -> XlaOp {
        let op = Op::Dot {
            dims: dims.clone(),
            precision: precision.clone(),
        };
        self.emit(op, &[lhs.borrow(), rhs.borrow()], None)
    }

    /// A convolution with NCHW / OIHW numbering and SAME or VALID padding (XLA's `Conv`).
    pub fn conv(
        &self,
        lhs: impl Borrow<XlaOp>,
        rhs: impl Borrow<XlaOp>,
        window_strides: &[i64],
        padding: Padding,
    ) -> XlaOp {
        let (lhs, rhs) = (lhs.borrow(), rhs.borrow());
        let Some(shapes) = self.shapes_of("convolution", &[lhs, rhs]) else {
            return self.poisoned();
        };
        let spatial = |s: &crate::Shape| s.dims().get(2..).map(<[i64]>::to_vec).unwrap_or_default();
        let pads = make_padding(
            &spatial(&shapes[0]),
            &spatial(&shapes[1]),
            window_strides,
            padding,
        );
        self.conv_with_general_padding(lhs, rhs, window_strides, &pads)
    }

    /// A convolution with NCHW / OIHW numbering and explicit `(low, high)` padding
    /// (XLA's `ConvWithGeneralPadding`).
    pub fn conv_with_general_padding(
        &self,
        lhs: impl Borrow<XlaOp>,
        rhs: impl Borrow<XlaOp>,
        window_strides: &[i64],
        padding: &[(i64, i64)],
    ) -> XlaOp {
        let options = ConvOptions::new().strides(window_strides).padding(padding);
        self.conv_general_dilated(lhs, rhs, &options)
    }

    /// A convolution with every option (XLA's `ConvGeneralDilated`).
    pub fn conv_general_dilated(
        &self,
        lhs: impl Borrow<XlaOp>,
        rhs: impl Borrow<XlaOp>,
        options: &ConvOptions,
    ) -> XlaOp {
        let (lhs, rhs) = (lhs.borrow(), rhs.borrow());
        let Some(shapes) = self.shapes_of("convolution", &[lhs, rhs]) else {
            return self.poisoned();
        };
        let dnums = options
            .dimension_numbers
            .clone()
            .unwrap_or_else(|| ConvDimensionNumbers::nchw(shapes[0].rank().saturating_sub(2)));
        let window_dims: Vec<i64> = dnums
            .kernel_spatial_dimensions
            .iter()
            .map(|&d| {
                usize::try_from(d)
                    .ok()
                    .and_then(|d| shapes[1].dims().get(d))
                    .copied()
                    .unwrap_or(-1)
            })
            .collect();
        let o = options;
        let window = match make_window(
            "convolution",
            &window_dims,
            &o.window_strides,
            &o.padding,
            &o.lhs_dilation,
            &o.rhs_dilation,
        ) {
            Ok(w) => w,
            Err(e) => return self.fail(e),
        };
        let config = ConvConfig {
            window,
            dnums,
            feature_group_count: o.feature_group_count,
            batch_group_count: o.batch_group_count,
            precision: o.precision.clone(),
        };
        self.emit(Op::Convolution(config), &[lhs, rhs], None)
    }
}
