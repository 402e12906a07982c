#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;
use crate::sizes::Sizes;

fn names() -> Vec<String> {
    ["H", "W", "K", "N"]
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// The normal form of `src`, a dimension written as in a type.
fn form(src: &str) -> Result<Affine, NotAffine> {
    let s = Sizes::generic(names(), 0);
    let e: syn::Expr = syn::parse_str(src).unwrap();
    normalise(&s.parse(&e).unwrap().unwrap())
}

fn shown(src: &str) -> String {
    form(src).unwrap().show(&names())
}

fn relation(a: &str, b: &str) -> Relation {
    compare(&form(a).unwrap(), &form(b).unwrap(), 4).unwrap()
}

fn condition(a: &str, b: &str) -> String {
    match relation(a, b) {
        Relation::When(r) => r.describe(&names()),
        other => panic!("{a} vs {b}: {other:?}"),
    }
}

#[test]
fn affine_expressions_have_one_normal_form() {
    assert_eq!(form("{ H - K + 1 }"), form("{ 1 + H - K }"));
    assert_eq!(form("{ 2 * N }"), form("{ N + N }"));
    assert_eq!(form("{ (H + 2) - 2 }"), form("H"));
    assert_eq!(shown("{ 2 * (N + 1) - N }"), "N + 2");
    assert_eq!(shown("{ H - K + 1 }"), "H - K + 1");
}

#[test]
fn floor_division_keeps_a_reduced_quotient_term() {
    // Multiples of the divisor come out: ⌊(2H + 1)/2⌋ = H.
    assert_eq!(shown("{ (2 * H + 1) / 2 }"), "H");
    // ⌊(H + 4)/2⌋ = H/2 + 2.
    assert_eq!(shown("{ (H + 4) / 2 }"), "H/2 + 2");
    // The gcd with the divisor is divided out: ⌊2H/4⌋ = ⌊H/2⌋.
    assert_eq!(form("{ 2 * H / 4 }"), form("{ H / 2 }"));
    // `%` is the rest of the quotient.
    assert_eq!(shown("{ H % 2 }"), "H - 2*H/2");
    // Nested quotients: ⌊⌊H/2⌋/2⌋ stays nested; the period of H is 4.
    assert_eq!(form("{ H / 2 / 2 }").unwrap().periods(4), vec![4, 1, 1, 1]);
    assert_eq!(
        form("{ (H - 1) / 2 + W / 3 }").unwrap().periods(4),
        vec![2, 3, 1, 1]
    );
}

#[test]
fn products_and_divisions_by_sizes_are_not_affine() {
    assert!(form("{ H * W }").is_err());
    assert!(form("{ H / K }").is_err());
    assert!(form("{ H % K }").is_err());
    // A product with a constant is affine.
    assert_eq!(shown("{ 3 * (H - 1) * 2 }"), "6*H - 6");
}

#[test]
fn equal_forms_are_proved_for_every_size() {
    assert_eq!(relation("{ 2 * N }", "{ N + N }"), Relation::Always);
    assert_eq!(
        relation("{ (H - 2) / 2 + 1 }", "{ H / 2 }"),
        Relation::Always
    );
    assert_eq!(relation("{ 2 * (H / 2) + H % 2 }", "H"), Relation::Always);
}

#[test]
fn forms_unequal_everywhere_are_never_equal() {
    assert_eq!(relation("{ N + 1 }", "N"), Relation::Never);
    // ⌊H/2⌋·2 + 1 vs 2·⌊H/2⌋: off by one in both parities.
    assert_eq!(
        relation("{ H / 2 * 2 + 1 }", "{ 2 * (H / 2) }"),
        Relation::Never
    );
}

#[test]
fn forms_equal_on_some_residue_classes_give_a_condition() {
    // Reshaping H elements into H/2 rows of 2.
    assert_eq!(condition("{ 2 * (H / 2) }", "H"), "H % 2 == 0");
    // A 3-wide window with stride 2 against H/2: odd H.
    assert_eq!(condition("{ (H - 3) / 2 + 1 }", "{ H / 2 }"), "H % 2 == 1");
    assert_eq!(condition("{ 3 * (H / 3) }", "H"), "H % 3 == 0");
    assert_eq!(
        condition("{ 2 * (H / 2) + 2 * (W / 2) }", "{ H + W }"),
        "H % 2 == 0 && W % 2 == 0"
    );
    // Not a product of per-size sets: the residue tuples listed.
    assert_eq!(
        condition("{ H % 2 }", "{ W % 2 }"),
        "(H, W) % (2, 2) in {(0, 0), (1, 1)}"
    );
    assert_eq!(condition("{ H / 6 * 6 + H % 2 }", "H"), "H % 6 in {0, 1}");
}

#[test]
fn forms_equal_on_a_hyperplane_only() {
    assert_eq!(relation("N", "3"), Relation::OnlyAt);
    assert_eq!(relation("{ H - K }", "W"), Relation::OnlyAt);
}

#[test]
fn residue_bases_stay_at_or_above_the_point() {
    let all = Residues::all(&[2, 1, 3, 1]).unwrap();
    assert_eq!(all.classes.len(), 6);
    assert_eq!(
        all.base(&[3049, 1459, 2351, 7], &[0, 1]),
        vec![3050, 1459, 2353, 7]
    );
    assert!(Residues::all(&[64, 64, 1, 1]).is_none());
}
