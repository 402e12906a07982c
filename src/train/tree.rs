//! Literals as trees: a model's parameters may be nested tuples (`((k1, g1, b1), (w, b))`)
//! whose leaves are arrays. These functions list the leaves depth first (each with its
//! path: `1.0.2` is element 2 of element 0 of the second literal), check that two lists
//! have the same structure, and take the leaves out and put them back.
//!
//! ```
//! use xla::train::tree;
//! use xla::Literal;
//!
//! let params = vec![
//!     Literal::tuple(vec![Literal::vec1(&[1.0f32]), Literal::scalar(2.0f32)]),
//!     Literal::vec1(&[3.0f32, 4.0]),
//! ];
//! let paths: Vec<String> = tree::leaves(&params).into_iter().map(|(p, _)| p).collect();
//! assert_eq!(paths, ["0.0", "0.1", "1"]);
//! assert_eq!(tree::leaf_count(&params), 3);
//! ```

use super::error::{Result, TrainError};
use xla_core::Literal;

/// The leaves of `lits` (arrays and tokens: everything that is not a tuple), depth first,
/// each with its path.
pub fn leaves(lits: &[Literal]) -> Vec<(String, &Literal)> {
    let mut out = Vec::new();
    for (i, lit) in lits.iter().enumerate() {
        push_leaves(i.to_string(), lit, &mut out);
    }
    out
}

fn push_leaves<'a>(path: String, lit: &'a Literal, out: &mut Vec<(String, &'a Literal)>) {
    match lit.tuple_elements() {
        Some(elements) => {
            for (i, e) in elements.iter().enumerate() {
                push_leaves(format!("{path}.{i}"), e, out);
            }
        }
        None => out.push((path, lit)),
    }
}

/// The number of leaves of `lits`.
pub fn leaf_count(lits: &[Literal]) -> usize {
    leaves(lits).len()
}

/// Checks that `a` and `b` have the same tuple structure (array shapes are not compared):
/// `op`'s error names the first path where they differ.
///
/// # Errors
/// [`TrainError::InvalidArgument`] naming the path, when the counts differ, or one is a
/// tuple where the other is not, or two tuples have different arities.
pub fn check_same_structure(
    op: &'static str,
    (a_name, a): (&str, &[Literal]),
    (b_name, b): (&str, &[Literal]),
) -> Result<()> {
    if a.len() != b.len() {
        return Err(TrainError::invalid(
            op,
            format!("{} {a_name} but {} {b_name}", a.len(), b.len()),
        ));
    }
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        same_at(op, (a_name, b_name), i.to_string(), x, y)?;
    }
    Ok(())
}

fn same_at(
    op: &'static str,
    names: (&str, &str),
    path: String,
    a: &Literal,
    b: &Literal,
) -> Result<()> {
    match (a.tuple_elements(), b.tuple_elements()) {
        (None, None) => Ok(()),
        (Some(x), Some(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same_at(op, names, format!("{path}.{i}"), p, q)?;
            }
            Ok(())
        }
        _ => Err(TrainError::invalid(
            op,
            format!(
                "at leaf path {path} the {} is {} but the {} is {} (need the same structure)",
                names.0,
                a.shape(),
                names.1,
                b.shape()
            ),
        )),
    }
}

/// The tuple structure of a literal, to rebuild it from its leaves.
enum Structure {
    Leaf,
    Tuple(Vec<Structure>),
}

/// Moves the leaves of `lits` out (depth first), runs `f` on them, and puts them back in
/// their places, whatever `f` returns: `lits` keeps its structure and `f`'s changes.
///
/// ```
/// use xla::train::tree;
/// use xla::Literal;
///
/// let mut params = vec![Literal::tuple(vec![Literal::scalar(1.0f32), Literal::scalar(2.0f32)])];
/// tree::with_leaves(&mut params, |leaves| leaves.swap(0, 1));
/// let back = params.remove(0).decompose_tuple()?;
/// assert_eq!(back[0].get_as_f64(&[])?, 2.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn with_leaves<T>(lits: &mut [Literal], f: impl FnOnce(&mut Vec<Literal>) -> T) -> T {
    let mut leaves = Vec::new();
    let structures: Vec<Structure> = lits
        .iter_mut()
        .map(|lit| {
            take_leaves(
                std::mem::replace(lit, Literal::tuple(Vec::new())),
                &mut leaves,
            )
        })
        .collect();
    let out = f(&mut leaves);
    let mut it = leaves.into_iter();
    for (lit, s) in lits.iter_mut().zip(&structures) {
        *lit = rebuild(s, &mut it);
    }
    out
}

fn take_leaves(lit: Literal, out: &mut Vec<Literal>) -> Structure {
    match lit.tuple_elements() {
        None => {
            out.push(lit);
            Structure::Leaf
        }
        // A tuple: `decompose_tuple` succeeds.
        Some(_) => Structure::Tuple(
            lit.decompose_tuple()
                .unwrap_or_default()
                .into_iter()
                .map(|e| take_leaves(e, out))
                .collect(),
        ),
    }
}

/// The literal of structure `s` from the next leaves of `it`; a leaf missing (only if `f`
/// above removed leaves) becomes an empty tuple.
fn rebuild(s: &Structure, it: &mut impl Iterator<Item = Literal>) -> Literal {
    match s {
        Structure::Leaf => it.next().unwrap_or_else(|| Literal::tuple(Vec::new())),
        Structure::Tuple(parts) => Literal::tuple(parts.iter().map(|p| rebuild(p, it)).collect()),
    }
}

/// Rebuilds literals of the structure of `like` from `leaves` (depth first), checking each
/// leaf's shape against `like`'s: a checkpoint's flat tensors back into a model's nested
/// parameters.
///
/// # Errors
/// [`TrainError::InvalidArgument`] naming the leaf path, if the count or a shape differs.
pub fn unflatten_like(like: &[Literal], leaves: Vec<Literal>) -> Result<Vec<Literal>> {
    let want = self::leaves(like);
    if want.len() != leaves.len() {
        return Err(TrainError::invalid(
            "unflatten_like",
            format!("{} leaves for a structure of {}", leaves.len(), want.len()),
        ));
    }
    for ((path, w), got) in want.iter().zip(&leaves) {
        if w.shape().without_layout() != got.shape().without_layout() {
            return Err(TrainError::invalid(
                "unflatten_like",
                format!("leaf {path} is {}, expected {}", got.shape(), w.shape()),
            ));
        }
    }
    let mut out = like.to_vec();
    with_leaves(&mut out, |slots| *slots = leaves);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested() -> Vec<Literal> {
        vec![
            Literal::tuple(vec![
                Literal::tuple(vec![Literal::scalar(1.0f32), Literal::vec1(&[2.0f32, 3.0])]),
                Literal::scalar(4.0f32),
            ]),
            Literal::scalar(5.0f32),
        ]
    }

    #[test]
    fn leaves_are_depth_first_with_paths() {
        let lits = nested();
        let got: Vec<(String, Vec<f32>)> = leaves(&lits)
            .into_iter()
            .map(|(p, l)| (p, l.to_vec::<f32>().unwrap_or_default()))
            .collect();
        let want = [
            ("0.0.0", vec![1.0]),
            ("0.0.1", vec![2.0, 3.0]),
            ("0.1", vec![4.0]),
            ("1", vec![5.0]),
        ];
        assert_eq!(got.len(), want.len());
        for ((p, v), (q, w)) in got.iter().zip(&want) {
            assert_eq!((p.as_str(), v), (*q, w));
        }
    }

    #[test]
    fn with_leaves_puts_changes_back_in_place() {
        let mut lits = nested();
        let before = lits.clone();
        let n = with_leaves(&mut lits, |leaves| {
            for l in leaves.iter_mut() {
                if let Ok(v) = l.typed_data_mut::<f32>() {
                    v.iter_mut().for_each(|x| *x *= 10.0);
                }
            }
            leaves.len()
        });
        assert_eq!(n, 4);
        for ((p, a), (q, b)) in leaves(&before).iter().zip(leaves(&lits)) {
            assert_eq!(p, &q);
            assert_eq!(a.shape(), b.shape());
            let (a, b) = (
                a.to_vec::<f32>().unwrap_or_default(),
                b.to_vec::<f32>().unwrap_or_default(),
            );
            assert_eq!(a.iter().map(|x| x * 10.0).collect::<Vec<_>>(), b);
        }
    }

    #[test]
    fn a_different_structure_names_the_path() {
        let a = nested();
        let mut b = nested();
        b[0] = Literal::tuple(vec![Literal::scalar(1.0f32), Literal::scalar(4.0f32)]);
        let e = check_same_structure("t", ("parameter", &a), ("gradient", &b))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("leaf path 0.0") && e.contains("f32[]"), "{e}");
        let e = check_same_structure("t", ("parameter", &a), ("gradient", &a[..1]))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("2 parameter but 1 gradient"), "{e}");
    }

    #[test]
    fn unflatten_like_checks_count_and_shapes() {
        let like = nested();
        let flat: Vec<Literal> = leaves(&like).into_iter().map(|(_, l)| l.clone()).collect();
        assert_eq!(unflatten_like(&like, flat.clone()).ok(), Some(like.clone()));
        let mut wrong = flat.clone();
        wrong[1] = Literal::vec1(&[1.0f32]);
        let e = unflatten_like(&like, wrong)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("leaf 0.0.1 is f32[1], expected f32[2]"), "{e}");
        let e = unflatten_like(&like, flat[..3].to_vec())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("3 leaves for a structure of 4"), "{e}");
    }
}
