//! Attributes: `, name=value` lists are first collected as token ranges (unknown ones are
//! skipped as balanced values), then each operation reads the ones it needs with a typed
//! value parser: integer lists, windows, dim labels, slices, paddings, replica groups, ...

use super::{PResult, ParseError, ParseErrorKind, Parser};
use super::dim_labels::parse_dim_labels;
use crate::attrs::{ConvDimensionNumbers, PadDim, Precision, PrecisionConfig, Window, WindowDim};
use crate::text::lexer::{Pos, Tok};

/// One `name=value` attribute: the value's token range.
pub(super) struct Attr {
    pub name: String,
    pub pos: Pos,
    pub start: usize,
    pub end: usize,
}

/// The attributes of one instruction.
#[derive(Default)]
pub(super) struct Attrs {
    pub list: Vec<Attr>,
}

impl Attrs {
    pub fn get(&self, name: &str) -> Option<&Attr> {
        self.list.iter().find(|a| a.name == name)
    }
}

/// Largest number of elements an iota replica-group list may expand to.
const MAX_IOTA_GROUP_ELEMENTS: i64 = 1 << 20;

impl<'t> Parser<'t> {
    /// Parses `(, name=value)*`; a repeated attribute is an error.
    pub(super) fn attributes(&mut self) -> PResult<Attrs> {
        let mut attrs = Attrs::default();
        while self.eat(&Tok::Comma) {
            let (name, pos) = self.word("an attribute name")?;
            self.expect(&Tok::Eq)?;
            let (start, end) = self.skip_value()?;
            if attrs.get(&name).is_some() {
                return Err(ParseError::new(
                    pos,
                    ParseErrorKind::Duplicate,
                    format!("attribute '{name}' is given twice"),
                ));
            }
            attrs.list.push(Attr {
                name,
                pos,
                start,
                end,
            });
        }
        Ok(attrs)
    }

    /// Runs `f` over the value of `attr`, which must use the whole value.
    pub(super) fn in_value<T>(
        &self,
        attr: &Attr,
        f: impl FnOnce(&mut Parser<'t>) -> PResult<T>,
    ) -> PResult<T> {
        let mut sub = self.sub(attr.start, attr.end);
        let v = f(&mut sub)?;
        sub.expect_end()?;
        Ok(v)
    }

    /// `{1,2,3}` (possibly empty).
    pub(super) fn v_ints(&mut self) -> PResult<Vec<i64>> {
        self.expect(&Tok::LBrace)?;
        let mut v = Vec::new();
        if self.eat(&Tok::RBrace) {
            return Ok(v);
        }
        loop {
            v.push(self.int()?);
            if self.eat(&Tok::RBrace) {
                return Ok(v);
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.expected("',' or '}'"));
            }
        }
    }

    /// `{d}`: a single dimension in braces.
    pub(super) fn v_one_dim(&mut self) -> PResult<i64> {
        let pos = self.here();
        let v = self.v_ints()?;
        match v.as_slice() {
            [d] => Ok(*d),
            _ => Err(invalid(
                pos,
                format!("expected exactly one dimension but found {}", v.len()),
            )),
        }
    }

    /// `true` or `false`.
    pub(super) fn v_bool(&mut self) -> PResult<bool> {
        let pos = self.here();
        let (w, _) = self.word("true or false")?;
        match w.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(invalid(
                pos,
                format!("expected true or false but found '{w}'"),
            )),
        }
    }

    /// A keyword parsed by `from_name` (`LT`, `TOTALORDER`, `FFT`, `rng_uniform`, ...).
    pub(super) fn v_enum<E>(&mut self, what: &str, from_name: fn(&str) -> Option<E>) -> PResult<E> {
        let pos = self.here();
        let (w, _) = self.word(what)?;
        from_name(&w).ok_or_else(|| invalid(pos, format!("expected {what} but found '{w}'")))
    }

    /// A floating-point attribute (`epsilon=1e-05`).
    pub(super) fn v_f32(&mut self) -> PResult<f32> {
        let pos = self.here();
        let (w, _) = self.word("a number")?;
        w.parse::<f64>()
            .map(|x| x as f32)
            .map_err(|_| invalid(pos, format!("expected a number but found '{w}'")))
    }

    /// A string, or a braced value taken as its source text (`backend_config={...}`).
    pub(super) fn v_string(&mut self) -> PResult<String> {
        match self.peek().clone() {
            Tok::Str(s) => {
                self.bump();
                Ok(s)
            }
            Tok::LBrace => {
                let start = self.pos;
                self.skip_group()?;
                Ok(self.source(start, self.pos).to_string())
            }
            Tok::Word(w) => {
                self.bump();
                Ok(w)
            }
            _ => Err(self.expected("a string")),
        }
    }

    /// `{size=2x2 stride=1x1 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x1}`.
    pub(super) fn v_window(&mut self) -> PResult<Window> {
        self.expect(&Tok::LBrace)?;
        let open = self.here();
        let mut dims: Vec<WindowDim> = Vec::new();
        let mut seen_size = false;
        while !self.eat(&Tok::RBrace) {
            let (key, kpos) = self.word("a window field or '}'")?;
            self.expect(&Tok::Eq)?;
            let vpos = self.here();
            let (value, _) = self.word("a window value")?;
            let parts: Vec<&str> = value.split('x').collect();
            if key == "size" {
                seen_size = true;
                dims = parts
                    .iter()
                    .map(|p| parse_num(p, vpos).map(WindowDim::new))
                    .collect::<PResult<_>>()?;
                continue;
            }
            if !seen_size {
                return Err(invalid(kpos, "window: 'size' must come first"));
            }
            if parts.len() != dims.len() {
                return Err(invalid(
                    vpos,
                    format!(
                        "window: '{key}' has {} dimensions but size has {}",
                        parts.len(),
                        dims.len()
                    ),
                ));
            }
            for (d, part) in dims.iter_mut().zip(&parts) {
                set_window_field(d, &key, part, kpos, vpos)?;
            }
        }
        if !seen_size && !dims.is_empty() {
            return Err(invalid(open, "window: missing 'size'"));
        }
        Ok(Window { dims })
    }

    /// `b01f_01io->b01f`.
    pub(super) fn v_dim_labels(&mut self) -> PResult<ConvDimensionNumbers> {
        let pos = self.here();
        let (w, _) = self.word("dim labels like b01f_01io->b01f")?;
        parse_dim_labels(&w).map_err(|m| invalid(pos, format!("dim_labels '{w}': {m}")))
    }

    /// `{[0:2:1], [1:3]}` → (starts, limits, strides).
    pub(super) fn v_slice(&mut self) -> PResult<(Vec<i64>, Vec<i64>, Vec<i64>)> {
        self.expect(&Tok::LBrace)?;
        let (mut start, mut limit, mut stride) = (Vec::new(), Vec::new(), Vec::new());
        while !self.eat(&Tok::RBrace) {
            if !start.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            self.expect(&Tok::LBracket)?;
            start.push(self.int()?);
            self.expect(&Tok::Colon)?;
            limit.push(self.int()?);
            stride.push(if self.eat(&Tok::Colon) {
                self.int()?
            } else {
                1
            });
            self.expect(&Tok::RBracket)?;
        }
        Ok((start, limit, stride))
    }

    /// `1_2_0x-1_0`: `low_high` or `low_high_interior` per dimension, `x`-separated (empty for rank 0).
    pub(super) fn v_padding(&mut self) -> PResult<Vec<PadDim>> {
        if self.at_end() {
            return Ok(Vec::new());
        }
        let pos = self.here();
        let (w, _) = self.word("a padding like 0_1x2_3_1")?;
        w.split('x')
            .map(|dim| {
                let n: Vec<i64> = dim
                    .split('_')
                    .map(|p| parse_num(p, pos))
                    .collect::<PResult<_>>()?;
                match n.as_slice() {
                    [low, high] => Ok(PadDim {
                        low: *low,
                        high: *high,
                        interior: 0,
                    }),
                    [low, high, interior] => Ok(PadDim {
                        low: *low,
                        high: *high,
                        interior: *interior,
                    }),
                    _ => Err(invalid(
                        pos,
                        format!("padding '{dim}' must be low_high or low_high_interior"),
                    )),
                }
            })
            .collect()
    }

    /// `{highest,highest}` (operand_precision / precision_config).
    pub(super) fn v_precision(&mut self) -> PResult<PrecisionConfig> {
        self.expect(&Tok::LBrace)?;
        let mut operand_precision = Vec::new();
        while !self.eat(&Tok::RBrace) {
            if !operand_precision.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            let pos = self.here();
            let (w, _) = self.word("a precision")?;
            let p = match w.to_ascii_lowercase().as_str() {
                "default" => Precision::Default,
                "high" => Precision::High,
                "highest" => Precision::Highest,
                _ => {
                    return Err(invalid(
                        pos,
                        format!("expected a precision but found '{w}'"),
                    ))
                }
            };
            operand_precision.push(p);
        }
        Ok(PrecisionConfig { operand_precision })
    }

    /// `{{0,1},{2,3}}`, `{}`, or the iota form `[2,2]<=[4]` / `[2,2]<=[2,2]T(1,0)`.
    pub(super) fn v_replica_groups(&mut self) -> PResult<Vec<Vec<i64>>> {
        if self.peek() == &Tok::LBracket {
            return self.iota_groups();
        }
        self.v_nested_ints()
    }

    /// `{{0,1},{1,0}}`: a braced list of braced integer lists.
    pub(super) fn v_nested_ints(&mut self) -> PResult<Vec<Vec<i64>>> {
        self.expect(&Tok::LBrace)?;
        let mut groups = Vec::new();
        while !self.eat(&Tok::RBrace) {
            if !groups.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            groups.push(self.v_ints()?);
        }
        Ok(groups)
    }

    fn bracket_ints(&mut self) -> PResult<Vec<i64>> {
        self.expect(&Tok::LBracket)?;
        let mut v = vec![self.int()?];
        while self.eat(&Tok::Comma) {
            v.push(self.int()?);
        }
        self.expect(&Tok::RBracket)?;
        Ok(v)
    }

    fn iota_groups(&mut self) -> PResult<Vec<Vec<i64>>> {
        let pos = self.here();
        let group_dims = self.bracket_ints()?;
        self.expect(&Tok::Le)?;
        let reshape = self.bracket_ints()?;
        let perm: Vec<i64> = if matches!(self.peek(), Tok::Word(w) if w == "T") {
            self.bump();
            self.expect(&Tok::LParen)?;
            let mut v = vec![self.int()?];
            while self.eat(&Tok::Comma) {
                v.push(self.int()?);
            }
            self.expect(&Tok::RParen)?;
            v
        } else {
            (0..reshape.len() as i64).collect()
        };
        iota_replica_groups(&group_dims, &reshape, &perm).map_err(|m| invalid(pos, m))
    }
}

fn invalid(pos: Pos, message: impl Into<String>) -> ParseError {
    ParseError::new(pos, ParseErrorKind::InvalidValue, message)
}

fn parse_num(s: &str, pos: Pos) -> PResult<i64> {
    super::parse_int(s).ok_or_else(|| invalid(pos, format!("expected an integer but found '{s}'")))
}

fn set_window_field(d: &mut WindowDim, key: &str, part: &str, kpos: Pos, vpos: Pos) -> PResult<()> {
    match key {
        "stride" => d.stride = parse_num(part, vpos)?,
        "lhs_dilate" => d.base_dilation = parse_num(part, vpos)?,
        "rhs_dilate" => d.window_dilation = parse_num(part, vpos)?,
        "rhs_reversal" => d.window_reversal = parse_num(part, vpos)? != 0,
        "pad" => {
            let (lo, hi) = part
                .split_once('_')
                .ok_or_else(|| invalid(vpos, format!("window pad '{part}' must be low_high")))?;
            d.padding_low = parse_num(lo, vpos)?;
            d.padding_high = parse_num(hi, vpos)?;
        }
        _ => return Err(invalid(kpos, format!("unknown window field '{key}'"))),
    }
    Ok(())
}

/// Expands `[g0,g1]<=[r...]T(perm)`: iota over the reshape dims, transposed by `perm`,
/// reshaped to `g0` groups of `g1`.
fn iota_replica_groups(
    groups: &[i64],
    reshape: &[i64],
    perm: &[i64],
) -> Result<Vec<Vec<i64>>, String> {
    let total = reshape.iter().try_fold(1i64, |acc, &d| {
        if d < 0 {
            None
        } else {
            acc.checked_mul(d).filter(|&n| n <= MAX_IOTA_GROUP_ELEMENTS)
        }
    });
    let total = total.ok_or("iota replica groups: bad or too large reshape dims")?;
    let (&[g, s], true) = (groups, groups.iter().all(|&d| d >= 0)) else {
        return Err("iota replica groups: expected [groups,size]".into());
    };
    if g.checked_mul(s) != Some(total) {
        return Err("iota replica groups: group dims do not match the device count".into());
    }
    let mut sorted: Vec<i64> = perm.to_vec();
    sorted.sort_unstable();
    if perm.len() != reshape.len() || sorted.iter().enumerate().any(|(i, &p)| p != i as i64) {
        return Err("iota replica groups: T(...) must be a permutation of the reshape dims".into());
    }
    // Strides of the reshaped iota, then walk the transposed index space in row-major order.
    // Every index below is in range: `perm` was checked to be a permutation of 0..rank, and
    // `strides`, `tdims` and `idx` all have length rank.
    let rank = reshape.len();
    let mut strides = vec![1i64; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * reshape[i + 1];
    }
    let tdims: Vec<i64> = perm.iter().map(|&p| reshape[p as usize]).collect();
    let mut idx = vec![0i64; rank];
    let mut flat = Vec::with_capacity(total as usize);
    for _ in 0..total {
        flat.push(
            perm.iter()
                .zip(&idx)
                .map(|(&p, &i)| i * strides[p as usize])
                .sum(),
        );
        for k in (0..rank).rev() {
            idx[k] += 1;
            if idx[k] < tdims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(flat
        .chunks(s.max(1) as usize)
        .map(<[i64]>::to_vec)
        .collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// (labels, input (b, f, spatial), kernel (i, o, spatial), output (b, f, spatial)).
    type Dims = (i64, i64, Vec<i64>);

    fn dnums(d: &ConvDimensionNumbers) -> (Dims, Dims, Dims) {
        (
            (
                d.input_batch_dimension,
                d.input_feature_dimension,
                d.input_spatial_dimensions.clone(),
            ),
            (
                d.kernel_input_feature_dimension,
                d.kernel_output_feature_dimension,
                d.kernel_spatial_dimensions.clone(),
            ),
            (
                d.output_batch_dimension,
                d.output_feature_dimension,
                d.output_spatial_dimensions.clone(),
            ),
        )
    }

    #[test]
    fn dim_labels() {
        let cases = [
            (
                "b01f_01io->b01f",
                ((0, 3, vec![1, 2]), (2, 3, vec![0, 1]), (0, 3, vec![1, 2])),
            ),
            (
                "bf01_oi01->bf01",
                ((0, 1, vec![2, 3]), (1, 0, vec![2, 3]), (0, 1, vec![2, 3])),
            ),
            (
                "01fb_o01i->b0f1",
                ((3, 2, vec![0, 1]), (3, 0, vec![1, 2]), (0, 2, vec![1, 3])),
            ),
            (
                "bf_io->bf",
                ((0, 1, vec![]), (0, 1, vec![]), (0, 1, vec![])),
            ),
            (
                "b0f_0io->b0f",
                ((0, 2, vec![1]), (1, 2, vec![0]), (0, 2, vec![1])),
            ),
        ];
        for (labels, want) in cases {
            assert_eq!(dnums(&parse_dim_labels(labels).unwrap()), want, "{labels}");
        }
        assert_eq!(
            parse_dim_labels("bf01_oi01->bf01").unwrap(),
            ConvDimensionNumbers::nchw(2)
        );
        for bad in [
            "bf01_oi01",
            "bf01oi01->bf01",
            "bf0_oi01->bf01",
            "bb01_oi01->bf01",
            "bfx_oi0->bf0",
        ] {
            assert!(parse_dim_labels(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn iota_groups() {
        assert_eq!(
            iota_replica_groups(&[2, 2], &[4], &[0]).unwrap(),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(
            iota_replica_groups(&[2, 2], &[2, 2], &[1, 0]).unwrap(),
            vec![vec![0, 2], vec![1, 3]]
        );
        assert_eq!(
            iota_replica_groups(&[1, 6], &[2, 3], &[1, 0]).unwrap(),
            vec![vec![0, 3, 1, 4, 2, 5]]
        );
        assert!(iota_replica_groups(&[2, 3], &[4], &[0]).is_err());
        assert!(iota_replica_groups(&[2, 2], &[2, 2], &[0, 0]).is_err());
        assert!(iota_replica_groups(&[1, 1], &[i64::MAX, 2], &[0, 1]).is_err());
    }
}
