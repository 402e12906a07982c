//! Truncated and mutated conformance modules: the parser must always return.

use super::*;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Truncations and byte mutations of every conformance module must return (Ok or Err),
/// never panic or overflow the stack.
#[test]
fn mutated_modules_never_panic() {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ",",
        "=",
        ":",
        "%",
        "\"",
        "/*",
        "*/",
        "//",
        "\n",
        "-",
        "<=",
        "?",
        "x",
        "_",
        "0",
        "9",
        "-1",
        "ROOT ",
        "ENTRY ",
        "f32[]",
        "(f32[], s32[2])",
        "{1,0}",
        "nan",
        "inf",
        "99999999999999999999",
        "to_apply=",
        "window={size=",
        "dim_labels=",
        "}, body=\n{",
        "constant(",
        "parameter(",
        "tuple(",
    ];
    // More rounds for a longer local run: PARSE_MUTATION_ROUNDS=1000 cargo test ...
    let rounds: usize = std::env::var("PARSE_MUTATION_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut inputs = 0usize;
    let mut accepted = 0usize;
    for split in ["public", "grad_public"] {
        for (_, text) in modules(split) {
            let bytes = text.as_bytes();
            let mut variants: Vec<Vec<u8>> = Vec::new();
            for k in 1..=16 {
                variants.push(bytes[..bytes.len() * k / 17].to_vec());
            }
            for _ in 0..rounds {
                let mut v = bytes.to_vec();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(v.len());
                    match rng.below(3) {
                        0 => {
                            let end = (at + 1 + rng.below(12)).min(v.len());
                            v.drain(at..end);
                        }
                        1 => {
                            let piece = PIECES[rng.below(PIECES.len())];
                            v.splice(at..at, piece.bytes());
                        }
                        _ => {
                            let piece = PIECES[rng.below(PIECES.len())];
                            let end = (at + 1).min(v.len());
                            v.splice(at..end, piece.bytes());
                        }
                    }
                }
                variants.push(v);
            }
            for v in variants {
                // The modules are ASCII, so every mutation is valid UTF-8.
                let s = String::from_utf8(v).unwrap();
                inputs += 1;
                if parse_module(&s).is_ok() {
                    accepted += 1;
                }
            }
        }
    }
    println!("mutation test: {inputs} inputs parsed without panic ({accepted} accepted)");
    assert_eq!(inputs, 449 * (16 + rounds));
}

proptest::proptest! {
    /// Arbitrary text (any Unicode) and token soup never make the parser panic.
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC*", soup in proptest::collection::vec(0usize..1000, 0..200)) {
        let _ = parse_module(&s);
        let _ = xla_core::text::parse_shape(&s);
        let pieces = [
            "HloModule m\n", "ENTRY e {", "}", "{", "(", ")", "[", "]", ",", "=", "ROOT ", "x",
            "f32[2]{0}", "(f32[], s32[])", " parameter(0)", " constant({1, 2})", " add(x, y)",
            ", to_apply=", ", dimensions={0}", ", window={size=2 pad=0_1}", "\n", "/*", "*/",
            "<=", "?", "nan", "-", "\"s\"", "->", ":",
        ];
        let text: String = soup.iter().map(|&i| pieces[i % pieces.len()]).collect();
        let _ = parse_module(&text);
        let _ = parse_module(&format!("HloModule m\nENTRY e {{\n{text}\n}}"));
    }
}
