//! Convolution dimension labels (`dim_labels=b01f_01io->b01f`): which dimension of the
//! input, kernel and output is the batch, the feature and each spatial dimension.

use crate::attrs::ConvDimensionNumbers;
use thiserror::Error;

/// Which of the three labels of `input_kernel->output` a [`DimLabelsError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelRole {
    /// The input's label (`b`, `f`, digits).
    Input,
    /// The kernel's label (`i`, `o`, digits).
    Kernel,
    /// The output's label (`b`, `f`, digits).
    Output,
}

impl std::fmt::Display for LabelRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LabelRole::Input => "input",
            LabelRole::Kernel => "kernel",
            LabelRole::Output => "output",
        })
    }
}

/// Why convolution dimension labels could not be read ([`parse_dim_labels`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DimLabelsError {
    /// No `->` between the operands' labels and the output's.
    #[error("missing '->'")]
    MissingArrow,
    /// No `_` between the input's label and the kernel's.
    #[error("missing '_' between input and kernel")]
    MissingUnderscore,
    /// A letter (or spatial digit) is absent from a label or appears more than once.
    #[error("'{label}' must contain '{letter}' exactly once")]
    Letter {
        /// Which label.
        role: LabelRole,
        /// The label as written.
        label: String,
        /// The letter or digit.
        letter: char,
    },
    /// A character that is neither the two letters of the label nor a spatial digit.
    #[error("'{label}' has unexpected characters")]
    Unexpected {
        /// Which label.
        role: LabelRole,
        /// The label as written.
        label: String,
    },
    /// The three labels name different numbers of spatial dimensions.
    #[error(
        "input, kernel and output must have the same number of spatial dimensions \
         (input {input}, kernel {kernel}, output {output})"
    )]
    SpatialCounts {
        /// Spatial dimensions of the input's label.
        input: usize,
        /// Spatial dimensions of the kernel's label.
        kernel: usize,
        /// Spatial dimensions of the output's label.
        output: usize,
    },
}

/// Positions of `b`/`f` (or `i`/`o`) and of the spatial digits `0`, `1`, ... in one label.
fn label_dims(label: &str, role: LabelRole) -> Result<(i64, i64, Vec<i64>), DimLabelsError> {
    let (first, second) = match role {
        LabelRole::Input | LabelRole::Output => ('b', 'f'),
        LabelRole::Kernel => ('i', 'o'),
    };
    let chars: Vec<char> = label.chars().collect();
    let find = |c: char| -> Result<i64, DimLabelsError> {
        let n = chars.iter().filter(|&&x| x == c).count();
        match chars.iter().position(|&x| x == c) {
            Some(at) if n == 1 => Ok(at as i64),
            _ => Err(DimLabelsError::Letter {
                role,
                label: label.to_string(),
                letter: c,
            }),
        }
    };
    let (a, b) = (find(first)?, find(second)?);
    let mut spatial = Vec::new();
    for (digit, _) in chars.iter().filter(|c| c.is_ascii_digit()).enumerate() {
        // An eleventh digit repeats one of `0`..`9`, which `find` reports first.
        let c = char::from_digit(digit as u32, 10).ok_or_else(|| DimLabelsError::Unexpected {
            role,
            label: label.to_string(),
        })?;
        spatial.push(find(c)?);
    }
    if spatial.len() + 2 != chars.len() {
        return Err(DimLabelsError::Unexpected {
            role,
            label: label.to_string(),
        });
    }
    Ok((a, b, spatial))
}

/// Parses convolution dimension labels as HLO text writes them (the `dim_labels` attribute):
/// `b01f_01io->b01f` is NHWC input, HWIO kernel, NHWC output.
///
/// ```
/// use xla_core::text::{parse_dim_labels, DimLabelsError};
/// let d = parse_dim_labels("b01f_01io->b01f")?;
/// assert_eq!((d.input_feature_dimension, d.kernel_spatial_dimensions), (3, vec![0, 1]));
/// assert_eq!(parse_dim_labels("b01f_01io"), Err(DimLabelsError::MissingArrow));
/// # Ok::<(), DimLabelsError>(())
/// ```
///
/// # Errors
/// A [`DimLabelsError`] naming what is wrong with the labels (a missing `->` or `_`, a
/// letter missing or repeated in which label, different spatial counts).
pub fn parse_dim_labels(w: &str) -> Result<ConvDimensionNumbers, DimLabelsError> {
    let (inputs, output) = w.split_once("->").ok_or(DimLabelsError::MissingArrow)?;
    let (input, kernel) = inputs
        .split_once('_')
        .ok_or(DimLabelsError::MissingUnderscore)?;
    let (ib, if_, isp) = label_dims(input, LabelRole::Input)?;
    let (ki, ko, ksp) = label_dims(kernel, LabelRole::Kernel)?;
    let (ob, of, osp) = label_dims(output, LabelRole::Output)?;
    if ksp.len() != isp.len() || osp.len() != isp.len() {
        return Err(DimLabelsError::SpatialCounts {
            input: isp.len(),
            kernel: ksp.len(),
            output: osp.len(),
        });
    }
    Ok(ConvDimensionNumbers {
        input_batch_dimension: ib,
        input_feature_dimension: if_,
        input_spatial_dimensions: isp,
        kernel_input_feature_dimension: ki,
        kernel_output_feature_dimension: ko,
        kernel_spatial_dimensions: ksp,
        output_batch_dimension: ob,
        output_feature_dimension: of,
        output_spatial_dimensions: osp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_broken_label_is_a_typed_error_naming_it() {
        use DimLabelsError as E;
        let letter = |role, label: &str, letter| E::Letter {
            role,
            label: label.into(),
            letter,
        };
        let cases = [
            ("bf01_oi01", E::MissingArrow),
            ("bf01oi01->bf01", E::MissingUnderscore),
            ("bb01_oi01->bf01", letter(LabelRole::Input, "bb01", 'b')),
            ("bf01_o01->bf01", letter(LabelRole::Kernel, "o01", 'i')),
            ("bf01_oi01->b01", letter(LabelRole::Output, "b01", 'f')),
            (
                "bfx_oi0->bf0",
                E::Unexpected {
                    role: LabelRole::Input,
                    label: "bfx".into(),
                },
            ),
            (
                "bf0_oi01->bf01",
                E::SpatialCounts {
                    input: 1,
                    kernel: 2,
                    output: 2,
                },
            ),
            (
                "bf01234567890_oi->bf",
                letter(LabelRole::Input, "bf01234567890", '0'),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse_dim_labels(text), Err(want), "{text}");
        }
        let e = parse_dim_labels("bf0_oi01->bf01").unwrap_err().to_string();
        assert!(e.contains("(input 1, kernel 2, output 2)"), "{e}");
    }
}
