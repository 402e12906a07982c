//! Tokens of MLIR assembly as StableHLO modules print it.
//!
//! Like the HLO lexer, a *word* is a coarse run of identifier characters
//! (`[A-Za-z0-9_.$]`; a number may also hold `+`/`-` after its exponent letter and start with
//! `-`), given its meaning by the parser: a keyword, an op name, a number, `2x3xf32`,
//! `0x7FC00000`. Sigils (`%`, `@`, `#`, `!`, `^`) start their own tokens. `//` comments are
//! dropped. Every token records its 1-based line and column.

use super::{MlirError, MlirErrorKind};

/// A 1-based source position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

/// The kind and text of a token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A run of identifier characters or a number.
    Word(String),
    /// `%name` or `%name#3` (the result index of a multi-result op).
    Value(String, Option<usize>),
    /// `@name` or `@"quoted name"`.
    Symbol(String),
    /// `#dialect.name` (an attribute) or `#loc3` (an alias).
    Hash(String),
    /// `!dialect.type`.
    Bang(String),
    /// `^bb0`.
    Caret(String),
    /// A double-quoted string, unescaped to bytes.
    Str(Vec<u8>),
    /// One punctuation character: `( ) { } [ ] < > , : = * ? +`.
    Punct(char),
    /// `->`.
    Arrow,
    /// The end of the input.
    Eof,
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "'{w}'"),
            Tok::Value(v, None) => write!(f, "'%{v}'"),
            Tok::Value(v, Some(i)) => write!(f, "'%{v}#{i}'"),
            Tok::Symbol(s) => write!(f, "'@{s}'"),
            Tok::Hash(s) => write!(f, "'#{s}'"),
            Tok::Bang(s) => write!(f, "'!{s}'"),
            Tok::Caret(s) => write!(f, "'^{s}'"),
            Tok::Str(_) => write!(f, "a string"),
            Tok::Punct(c) => write!(f, "'{c}'"),
            Tok::Arrow => write!(f, "'->'"),
            Tok::Eof => write!(f, "the end of the input"),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub pos: Pos,
    /// Byte offset of its first character.
    pub offset: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')
}

struct Lexer<'a> {
    text: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    line: usize,
    column: usize,
}

impl Lexer<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().map(|&(_, c)| c)
    }

    fn offset(&mut self) -> usize {
        self.chars.peek().map_or(self.text.len(), |&(i, _)| i)
    }

    fn bump(&mut self) -> Option<char> {
        let (_, c) = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek().filter(|&c| f(c)) {
            s.push(c);
            self.bump();
        }
        s
    }

    /// A number or word starting at the current character (a leading `-` already taken).
    fn word(&mut self, mut s: String) -> String {
        let numeric = s.starts_with('-') || self.peek().is_some_and(|c| c.is_ascii_digit());
        while let Some(c) = self.peek() {
            let exp_sign = numeric
                && matches!(c, '+' | '-')
                && s.ends_with(['e', 'E'])
                && !s.contains(['x', 'X']);
            if !is_word_char(c) && !exp_sign {
                break;
            }
            s.push(c);
            self.bump();
        }
        s
    }

    fn string(&mut self, pos: Pos) -> Result<Vec<u8>, MlirError> {
        let mut out = Vec::new();
        loop {
            match self.bump() {
                None | Some('\n') => {
                    return Err(MlirError::new(
                        pos,
                        MlirErrorKind::Syntax,
                        "unterminated string",
                    ))
                }
                Some('"') => return Ok(out),
                Some('\\') => out.extend(self.escape(pos)?),
                Some(c) => {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }

    fn escape(&mut self, pos: Pos) -> Result<Vec<u8>, MlirError> {
        let bad = || MlirError::new(pos, MlirErrorKind::Syntax, "bad escape in string");
        match self.bump().ok_or_else(bad)? {
            'n' => Ok(vec![b'\n']),
            't' => Ok(vec![b'\t']),
            '"' => Ok(vec![b'"']),
            '\\' => Ok(vec![b'\\']),
            h => {
                let l = self.bump().ok_or_else(bad)?;
                let hi = h.to_digit(16).ok_or_else(bad)?;
                let lo = l.to_digit(16).ok_or_else(bad)?;
                Ok(vec![u8::try_from(hi * 16 + lo).map_err(|_| bad())?])
            }
        }
    }

    fn sigil_name(&mut self) -> String {
        self.take_while(|c| is_word_char(c) || c == '-')
    }

    fn next(&mut self) -> Result<Option<Token>, MlirError> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') => {
                    let pos = self.pos();
                    self.bump();
                    if self.peek() != Some('/') {
                        return Err(MlirError::new(pos, MlirErrorKind::Syntax, "unexpected '/'"));
                    }
                    self.take_while(|c| c != '\n');
                }
                _ => break,
            }
        }
        let pos = self.pos();
        let offset = self.offset();
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let tok = self.token(c, pos)?;
        Ok(Some(Token { tok, pos, offset }))
    }

    fn token(&mut self, c: char, pos: Pos) -> Result<Tok, MlirError> {
        let sigil = matches!(c, '%' | '@' | '#' | '!' | '^');
        if sigil {
            self.bump();
        }
        Ok(match c {
            '%' => {
                let name = self.sigil_name();
                let index = if self.peek() == Some('#') {
                    self.bump();
                    let digits = self.take_while(|c| c.is_ascii_digit());
                    Some(digits.parse::<usize>().map_err(|_| {
                        MlirError::new(
                            pos,
                            MlirErrorKind::Syntax,
                            "expected a result number after '#'",
                        )
                    })?)
                } else {
                    None
                };
                Tok::Value(name, index)
            }
            '@' if self.peek() == Some('"') => {
                self.bump();
                Tok::Symbol(String::from_utf8_lossy(&self.string(pos)?).into_owned())
            }
            '@' => Tok::Symbol(self.sigil_name()),
            '#' => Tok::Hash(self.sigil_name()),
            '!' => Tok::Bang(self.sigil_name()),
            '^' => Tok::Caret(self.sigil_name()),
            '"' => {
                self.bump();
                Tok::Str(self.string(pos)?)
            }
            '-' => {
                self.bump();
                if self.peek() == Some('>') {
                    self.bump();
                    Tok::Arrow
                } else if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    Tok::Word(self.word("-".into()))
                } else {
                    return Err(MlirError::new(pos, MlirErrorKind::Syntax, "unexpected '-'"));
                }
            }
            '(' | ')' | '{' | '}' | '[' | ']' | '<' | '>' | ',' | ':' | '=' | '*' | '?' | '+' => {
                self.bump();
                Tok::Punct(c)
            }
            c if is_word_char(c) => Tok::Word(self.word(String::new())),
            c => {
                return Err(MlirError::new(
                    pos,
                    MlirErrorKind::Syntax,
                    format!("unexpected character {c:?}"),
                ))
            }
        })
    }
}

/// Splits `text` into tokens, ending with [`Tok::Eof`].
pub(crate) fn lex(text: &str) -> Result<Vec<Token>, MlirError> {
    let mut lx = Lexer {
        text,
        chars: text.char_indices().peekable(),
        line: 1,
        column: 1,
    };
    let mut out = Vec::new();
    while let Some(t) = lx.next()? {
        out.push(t);
    }
    let pos = lx.pos();
    out.push(Token {
        tok: Tok::Eof,
        pos,
        offset: text.len(),
    });
    Ok(out)
}
