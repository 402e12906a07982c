//! Messages written in symbols from two generic points. At one point a number can have two
//! readings (`2*(H/2)` and `H-1` are both 3048 at `H = 3049`); the same message found at a
//! second point, where the two readings differ (3050 and 3049 at `H = 3050`), settles it.

use super::Sizes;

/// A piece of a message: text, or a number that stands alone (not the `32` of `f32`).
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Number(&'a str),
}

/// `message` cut into text and standalone numbers (as [`Sizes::symbolise`] reads it).
fn pieces(message: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut after_word = false;
    let mut chars = message.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_ascii_digit() && !after_word {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !d.is_ascii_digit() {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            if let (Some(text), Some(number)) = (message.get(start..i), message.get(i..end)) {
                if !text.is_empty() {
                    out.push(Piece::Text(text));
                }
                out.push(Piece::Number(number));
            }
            start = end;
            after_word = false;
            continue;
        }
        after_word = c.is_alphanumeric() || c == '_' || c == '.';
    }
    if let Some(text) = message.get(start..).filter(|t| !t.is_empty()) {
        out.push(Piece::Text(text));
    }
    out
}

impl Sizes {
    /// `message` in symbols, as [`Sizes::symbolise`] writes it, except that a number with
    /// several readings takes the first one that gives the matching number of
    /// `witness_message` (the same error at the sizes `witness`). Without a match (other
    /// words, another count of numbers) or with whole shapes noted, as
    /// [`Sizes::symbolise`].
    pub fn symbolise_against(
        &self,
        message: &str,
        witness: &Sizes,
        witness_message: &str,
    ) -> String {
        if !self.generic || !self.shapes.borrow().is_empty() {
            return self.symbolise(message);
        }
        let (here, there) = (pieces(message), pieces(witness_message));
        let same_words = here.len() == there.len()
            && here.iter().zip(&there).all(|p| match p {
                (Piece::Text(a), Piece::Text(b)) => a == b,
                (Piece::Number(_), Piece::Number(_)) => true,
                _ => false,
            });
        if !same_words {
            return self.symbolise(message);
        }
        let mut out = String::with_capacity(message.len());
        for (a, b) in here.iter().zip(&there) {
            match (a, b) {
                (Piece::Number(a), Piece::Number(b)) => out.push_str(&self.reading(a, b, witness)),
                (Piece::Text(a), _) | (Piece::Number(a), _) => out.push_str(a),
            }
        }
        out
    }

    /// The number `a` here, written as the first reading that gives `b` at `witness`.
    fn reading(&self, a: &str, b: &str, witness: &Sizes) -> String {
        let (Ok(n), Ok(m)) = (a.parse::<i64>(), b.parse::<i64>()) else {
            return a.to_string();
        };
        let candidates = self.candidates(n);
        let agreed = candidates
            .iter()
            .find(|c| n != m && witness.value_of_text(c) == Some(m));
        match agreed.or(candidates.first()) {
            Some(text) => text.clone(),
            None => a.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_second_point_tells_two_readings_apart() {
        let names = vec!["H".to_string()];
        let odd = Sizes::generic_at(names.clone(), vec![3049]);
        let even = Sizes::generic_at(names, vec![3050]);
        let here = "the signature says f32[3050] but the value is f32[3048]";
        let there = "the signature says f32[3051] but the value is f32[3050]";
        assert_eq!(
            odd.symbolise(here),
            "the signature says f32[H+1] but the value is f32[H-1]"
        );
        assert_eq!(
            odd.symbolise_against(here, &even, there),
            "the signature says f32[H+1] but the value is f32[2*(H/2)]"
        );
        // Other words: one point's reading.
        let other = "the value is f32[3050]";
        assert_eq!(
            odd.symbolise_against(here, &even, other),
            odd.symbolise(here)
        );
    }

    #[test]
    fn numbers_are_cut_out_of_words_as_symbolise_does() {
        assert_eq!(
            pieces("f32[12,3] x2 7"),
            vec![
                Piece::Text("f32["),
                Piece::Number("12"),
                Piece::Text(","),
                Piece::Number("3"),
                Piece::Text("] x2 "),
                Piece::Number("7"),
            ]
        );
    }
}
