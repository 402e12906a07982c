//! Tokens of HLO text.
//!
//! The lexer is deliberately coarse: a *word* is any run of identifier characters
//! (`[A-Za-z0-9_.%$+-]`, plus `>` right after `-` so `b01f_01io->b01f` stays one word), and
//! the parser gives words their meaning by context (a name, a number, `2x2`, `1_-1x0_2`, ...).
//! Comments (`/* ... */`, `// ...`) are dropped. Every token records its 1-based line and
//! column (in characters).

use std::fmt;

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
    /// A run of identifier characters: names, numbers, keywords, `2x2`, `b01f_01io->b01f`.
    Word(String),
    /// A double-quoted string, unescaped.
    Str(String),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `=`
    Eq,
    /// `:`
    Colon,
    /// `<=`
    Le,
    /// `?`
    Question,
    /// `->` standing alone (computation signatures).
    Arrow,
    /// Any other character.
    Other(char),
    /// End of input.
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "'{w}'"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::LParen => f.write_str("'('"),
            Tok::RParen => f.write_str("')'"),
            Tok::LBrace => f.write_str("'{'"),
            Tok::RBrace => f.write_str("'}'"),
            Tok::LBracket => f.write_str("'['"),
            Tok::RBracket => f.write_str("']'"),
            Tok::Comma => f.write_str("','"),
            Tok::Eq => f.write_str("'='"),
            Tok::Colon => f.write_str("':'"),
            Tok::Le => f.write_str("'<='"),
            Tok::Question => f.write_str("'?'"),
            Tok::Arrow => f.write_str("'->'"),
            Tok::Other(c) => write!(f, "{c:?}"),
            Tok::Eof => f.write_str("end of input"),
        }
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    /// What it is.
    pub tok: Tok,
    /// Where it starts (line and column).
    pub pos: Pos,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
}

/// A lexing failure: an unterminated comment or string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LexError {
    /// Where the offending comment or string starts.
    pub pos: Pos,
    /// What is wrong.
    pub message: String,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%' | '$' | '+' | '-')
}

struct Cursor<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    pos: Pos,
    offset: usize,
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        self.offset += c.len_utf8();
        if c == '\n' {
            self.pos.line += 1;
            self.pos.column = 1;
        } else {
            self.pos.column += 1;
        }
        Some(c)
    }

    /// Skips whitespace and comments; fails on an unterminated `/*`.
    fn skip_trivia(&mut self) -> Result<(), LexError> {
        loop {
            match self.peek() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') => {
                    let start = self.pos;
                    let mut ahead = self.chars.clone();
                    ahead.next();
                    match ahead.next() {
                        Some('/') => {
                            while let Some(c) = self.bump() {
                                if c == '\n' {
                                    break;
                                }
                            }
                        }
                        Some('*') => {
                            self.bump();
                            self.bump();
                            self.skip_block_comment(start)?;
                        }
                        _ => return Ok(()),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn skip_block_comment(&mut self, start: Pos) -> Result<(), LexError> {
        let mut prev = '\0';
        while let Some(c) = self.bump() {
            if prev == '*' && c == '/' {
                return Ok(());
            }
            prev = c;
        }
        Err(LexError {
            pos: start,
            message: "unterminated comment '/*'".into(),
        })
    }

    fn word(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            let arrow_tail = c == '>' && w.ends_with('-');
            if !(is_word_char(c) || arrow_tail) {
                break;
            }
            w.push(c);
            self.bump();
        }
        w
    }

    fn string(&mut self, start: Pos) -> Result<String, LexError> {
        self.bump(); // opening quote
        let mut s = String::new();
        loop {
            match self.bump() {
                None => {
                    return Err(LexError {
                        pos: start,
                        message: "unterminated string".into(),
                    })
                }
                Some('"') => return Ok(s),
                Some('\\') => match self.bump() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some('r') => s.push('\r'),
                    Some(other) => s.push(other),
                    None => {
                        return Err(LexError {
                            pos: start,
                            message: "unterminated string".into(),
                        })
                    }
                },
                Some(c) => s.push(c),
            }
        }
    }

    /// The token starting with `c` (the current character) at `pos`.
    fn token(&mut self, c: char, pos: Pos) -> Result<Tok, LexError> {
        Ok(match c {
            '"' => Tok::Str(self.string(pos)?),
            '-' => {
                let mut ahead = self.chars.clone();
                ahead.next();
                if ahead.next() == Some('>') {
                    self.bump();
                    self.bump();
                    Tok::Arrow
                } else {
                    Tok::Word(self.word())
                }
            }
            c if is_word_char(c) => Tok::Word(self.word()),
            '<' => {
                self.bump();
                if self.peek() == Some('=') {
                    self.bump();
                    Tok::Le
                } else {
                    Tok::Other('<')
                }
            }
            _ => {
                self.bump();
                match c {
                    '(' => Tok::LParen,
                    ')' => Tok::RParen,
                    '{' => Tok::LBrace,
                    '}' => Tok::RBrace,
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    ',' => Tok::Comma,
                    '=' => Tok::Eq,
                    ':' => Tok::Colon,
                    '?' => Tok::Question,
                    other => Tok::Other(other),
                }
            }
        })
    }
}

/// Splits `text` into tokens; the last token is always [`Tok::Eof`].
pub(crate) fn lex(text: &str) -> Result<Vec<Token>, LexError> {
    // A byte-order mark is not part of the text.
    let bom = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let mut cur = Cursor {
        chars: text.get(bom..).unwrap_or("").chars().peekable(),
        pos: Pos { line: 1, column: 1 },
        offset: bom,
    };
    let mut tokens = Vec::new();
    loop {
        cur.skip_trivia()?;
        let pos = cur.pos;
        let start = cur.offset;
        let Some(c) = cur.peek() else {
            tokens.push(Token {
                tok: Tok::Eof,
                pos,
                start,
                end: start,
            });
            return Ok(tokens);
        };
        let tok = cur.token(c, pos)?;
        tokens.push(Token {
            tok,
            pos,
            start,
            end: cur.offset,
        });
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    fn w(s: &str) -> Tok {
        Tok::Word(s.into())
    }

    #[test]
    fn words_and_punctuation() {
        assert_eq!(
            kinds("%add.1 = f32[2]{0} add(f32[2]{0} %a, b)"),
            vec![
                w("%add.1"),
                Tok::Eq,
                w("f32"),
                Tok::LBracket,
                w("2"),
                Tok::RBracket,
                Tok::LBrace,
                w("0"),
                Tok::RBrace,
                w("add"),
                Tok::LParen,
                w("f32"),
                Tok::LBracket,
                w("2"),
                Tok::RBracket,
                Tok::LBrace,
                w("0"),
                Tok::RBrace,
                w("%a"),
                Tok::Comma,
                w("b"),
                Tok::RParen,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn context_words() {
        assert_eq!(
            kinds("b01f_01io->b01f"),
            vec![w("b01f_01io->b01f"), Tok::Eof]
        );
        assert_eq!(
            kinds("pad=1_-1x0_2"),
            vec![w("pad"), Tok::Eq, w("1_-1x0_2"), Tok::Eof]
        );
        assert_eq!(
            kinds(") -> f32"),
            vec![Tok::RParen, Tok::Arrow, w("f32"), Tok::Eof]
        );
        assert_eq!(
            kinds(")->f32"),
            vec![Tok::RParen, Tok::Arrow, w("f32"), Tok::Eof]
        );
        assert_eq!(
            kinds("3.4e+38 -inf"),
            vec![w("3.4e+38"), w("-inf"), Tok::Eof]
        );
        assert_eq!(
            kinds("<=4 ?"),
            vec![Tok::Le, w("4"), Tok::Question, Tok::Eof]
        );
    }

    #[test]
    fn comments_and_positions() {
        let toks = lex("a /*index=5*/ b // c\n  \"x\\\"y\" ").unwrap();
        assert_eq!(toks[0].pos, Pos { line: 1, column: 1 });
        assert_eq!(toks[1].tok, w("b"));
        assert_eq!(
            toks[1].pos,
            Pos {
                line: 1,
                column: 15
            }
        );
        assert_eq!(toks[2].tok, Tok::Str("x\"y".into()));
        assert_eq!(toks[2].pos, Pos { line: 2, column: 3 });
        assert_eq!(toks[3].tok, Tok::Eof);
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let toks = lex("\u{feff}HloModule").unwrap();
        assert_eq!(toks[0].tok, w("HloModule"));
        assert_eq!(
            (toks[0].pos, toks[0].start),
            (Pos { line: 1, column: 1 }, 3)
        );
    }

    #[test]
    fn unterminated() {
        assert_eq!(lex("a /* b").unwrap_err().pos, Pos { line: 1, column: 3 });
        assert_eq!(
            lex("\n  \"abc").unwrap_err().pos,
            Pos { line: 2, column: 3 }
        );
    }
}
