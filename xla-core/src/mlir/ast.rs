//! The syntax tree the parser builds: functions, operations in one uniform shape whatever
//! form (pretty or generic) they were written in, regions and attribute values. The
//! lowering ([`super::lower`]) turns it into HLO.

use super::lexer::Pos;
use crate::attrs::ConvDimensionNumbers;
use crate::shape::Shape;

/// A module: its functions in text order.
#[derive(Clone, Debug)]
pub(crate) struct ModuleAst {
    /// `module @name`, if named.
    pub name: Option<String>,
    /// The functions.
    pub funcs: Vec<FuncAst>,
}

/// A `func.func`.
#[derive(Clone, Debug)]
pub(crate) struct FuncAst {
    /// The symbol name.
    pub name: String,
    /// Where it is defined.
    pub pos: Pos,
    /// `private` visibility.
    pub private: bool,
    /// The body; its arguments are the function's.
    pub body: Region,
    /// The result types.
    pub results: Vec<Shape>,
}

/// A region of one block.
#[derive(Clone, Debug, Default)]
pub(crate) struct Region {
    /// Block arguments (name without `%`, type).
    pub args: Vec<(String, Shape)>,
    /// The operations, the terminator last.
    pub ops: Vec<OpAst>,
    /// Where the region starts.
    pub pos: Pos,
}

/// A use of an SSA value: `%name` or `%name#index`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ValueRef {
    /// The name without `%`.
    pub name: String,
    /// The result index within a multi-result group.
    pub index: Option<usize>,
    /// Where it is used.
    pub pos: Pos,
}

/// One operation, in the same shape whether written pretty or generic.
#[derive(Clone, Debug, Default)]
pub(crate) struct OpAst {
    /// The full op name (`stablehlo.add`, `func.call`, `return`).
    pub name: String,
    /// Where it starts.
    pub pos: Pos,
    /// Result groups: `%x` is `("x", 1)`, `%4:2` is `("4", 2)`.
    pub results: Vec<(String, usize)>,
    /// The operands.
    pub operands: Vec<ValueRef>,
    /// Named attributes, under their generic names or the pretty form's keywords.
    pub attrs: Vec<(String, Attr)>,
    /// Bare keywords of the pretty form (`EQ`, `TOTALORDER`), in order.
    pub words: Vec<String>,
    /// Attached regions.
    pub regions: Vec<Region>,
    /// A callee symbol (`func.call @f`, `custom_call @target`, reduce's `applies`).
    pub callee: Option<String>,
    /// The operand types, when the form gives them.
    pub operand_types: Vec<Shape>,
    /// The result types.
    pub result_types: Vec<Shape>,
}

impl OpAst {
    /// The attribute called `name`, if present (the first of several spellings).
    pub fn attr(&self, names: &[&str]) -> Option<&Attr> {
        names
            .iter()
            .find_map(|n| self.attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v))
    }

    /// The total number of results.
    pub fn result_count(&self) -> usize {
        self.results.iter().map(|(_, n)| n).sum()
    }

    /// The op name without its dialect (`add` for `stablehlo.add`).
    pub fn short_name(&self) -> &str {
        self.name
            .split_once('.')
            .map_or(self.name.as_str(), |(_, s)| s)
    }
}

/// One element of a `dense<...>` attribute.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DenseElem {
    /// An integer (any width, sign kept).
    Int(i128),
    /// A decimal float.
    Float(f64),
    /// A hexadecimal bit pattern (`0x7FC00000`).
    Bits(u64),
    /// `true` / `false`.
    Bool(bool),
    /// `(re, im)`.
    Complex(Box<DenseElem>, Box<DenseElem>),
}

/// The body of a `dense<...>` attribute.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DenseBody {
    /// One value for every element.
    Splat(DenseElem),
    /// Elements in row-major order (the nesting is flattened).
    Elems(Vec<DenseElem>),
    /// Raw little-endian bytes of every element (`dense<"0x...">`).
    Hex(Vec<u8>),
}

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Attr {
    /// An integer (its `: type` dropped).
    Int(i128),
    /// A float (its `: type` dropped).
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// A string.
    Str(Vec<u8>),
    /// A bare keyword, or an enum value (`#stablehlo<precision DEFAULT>` is `DEFAULT`).
    Word(String),
    /// `[a, b]` or `array<i64: a, b>`.
    List(Vec<Attr>),
    /// `dense<...> : type`.
    Dense(DenseBody, Option<Shape>),
    /// `#dialect.name<key = value, ...>` (gather, scatter, dot dimension numbers, ...).
    Struct(String, Vec<(String, Attr)>),
    /// `{key = value, ...}` with its source text.
    Dict(Vec<(String, Attr)>, String),
    /// `@symbol`.
    Symbol(String),
    /// A type.
    Type(Shape),
    /// Convolution dimension numbers, `[b, 0, f]x[0, i, o]->[b, 0, f]`.
    Conv(Box<ConvDimensionNumbers>),
    /// The pretty `[0, 1] x [2]` pair of dot_general.
    Pair(Vec<Attr>, Vec<Attr>),
    /// `unit`, an attribute given without value, or one this parser keeps opaque.
    Unit,
}
