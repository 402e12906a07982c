//! "Did you mean `relu`?": the nearest known name to a misspelt one, by edit distance.

/// The name of `known` nearest to `name` (Levenshtein distance), when it is near enough to
/// be a plausible typo: at most one edit for names of up to four letters, two up to eight,
/// three beyond. Ties go to the first in `known`.
pub fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    let limit = match name.chars().count() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    known
        .iter()
        .map(|k| (distance(name, k), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The Levenshtein distance between `a` and `b` (insertions, deletions, substitutions).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX);
            let left = row.get(j).copied().unwrap_or(usize::MAX);
            let best = (diagonal + usize::from(ca != *cb))
                .min(above.saturating_add(1))
                .min(left.saturating_add(1));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = best;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::check::methods::{is_method, METHOD_NAMES};

    #[test]
    fn distances() {
        assert_eq!(distance("relux", "relu"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("same", "same"), 0);
    }

    #[test]
    fn suggestions_for_typos_and_none_for_strangers() {
        assert_eq!(nearest("relux", METHOD_NAMES), Some("relu"));
        assert_eq!(nearest("tranpose", METHOD_NAMES), Some("transpose"));
        assert_eq!(nearest("sofmax", METHOD_NAMES), None);
        assert_eq!(
            nearest("broadcast_in_dims", METHOD_NAMES),
            Some("broadcast_in_dim")
        );
        assert_eq!(nearest("quux", METHOD_NAMES), None);
    }

    #[test]
    fn the_name_list_matches_the_method_table() {
        for name in METHOD_NAMES {
            assert!(is_method(name), "{name} is listed but not a method");
        }
    }
}
