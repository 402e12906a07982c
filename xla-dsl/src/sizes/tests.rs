#![allow(clippy::unwrap_used)]

use super::*;

fn sizes(names: &[&str], values: &[i64]) -> Sizes {
    Sizes::bound(
        names.iter().map(ToString::to_string).collect(),
        values.to_vec(),
    )
}

fn dim(s: &Sizes, src: &str) -> Result<i64, String> {
    let e: syn::Expr = syn::parse_str(src).unwrap();
    let d = s.parse(&e).unwrap()?;
    s.eval(&d)
}

#[test]
fn expressions_follow_rust_integer_semantics() {
    let s = sizes(&["H", "K", "N"], &[7, 3, 5]);
    assert_eq!(dim(&s, "{ H / 2 }"), Ok(3));
    assert_eq!(dim(&s, "{ 2 * N }"), Ok(10));
    assert_eq!(dim(&s, "{ N + 1 }"), Ok(6));
    assert_eq!(dim(&s, "{ H - K + 1 }"), Ok(5));
    assert_eq!(dim(&s, "{ (H - 1) / 2 }"), Ok(3));
    assert_eq!(dim(&s, "{ H % K }"), Ok(1));
    assert_eq!(dim(&s, "H"), Ok(7));
    assert_eq!(
        dim(&s, "{ K - H }"),
        Err("dimension `K-H` is -4: a dimension cannot be negative".into())
    );
    assert!(s.had_negative());
    assert_eq!(
        dim(&s, "{ H / (K - 3) }"),
        Err("dimension `H/(K-3)` overflows or divides by zero".into())
    );
    let big = sizes(&["B"], &[i64::MAX]);
    assert_eq!(
        dim(&big, "{ B + 1 }"),
        Err("dimension `B+1` overflows or divides by zero".into())
    );
}

#[test]
fn unknown_names_and_other_forms() {
    let s = sizes(&["B"], &[2]);
    let e: syn::Expr = syn::parse_str("{ C + 1 }").unwrap();
    assert_eq!(
        s.parse(&e),
        Some(Err(
            "`C` is not a size parameter (declare it: `const C: usize`)".into()
        ))
    );
    let e: syn::Expr = syn::parse_str("{ B << 1 }").unwrap();
    assert_eq!(s.parse(&e), None);
    let e: syn::Expr = syn::parse_str("f(B)").unwrap();
    assert_eq!(s.parse(&e), None);
}

#[test]
fn display_parenthesises_only_where_needed() {
    let s = sizes(&["H", "K"], &[0, 0]);
    let show = |src: &str| {
        let e: syn::Expr = syn::parse_str(src).unwrap();
        s.show(&s.parse(&e).unwrap().unwrap())
    };
    assert_eq!(show("{ H - K + 1 }"), "H-K+1");
    assert_eq!(show("{ H - (K + 1) }"), "H-(K+1)");
    assert_eq!(show("{ (H - 1) / 2 }"), "(H-1)/2");
    assert_eq!(show("{ 2 * H / 2 }"), "2*H/2");
}

#[test]
fn messages_at_the_generic_point_are_written_in_symbols() {
    let s = Sizes::generic(vec!["B".into(), "H".into()], 0);
    let (b, h) = (GENERIC_VALUES[0], GENERIC_VALUES[1]);
    let e: syn::Expr = syn::parse_str("{ H - 2 }").unwrap();
    s.eval(&s.parse(&e).unwrap().unwrap()).unwrap();
    let message = format!(
        "dot: lhs f32[{b},784] dim 1 is 784, rhs s32[{h},{}] x.{b} {}, {}",
        h - 2,
        2 * b + 1,
        h / 2
    );
    assert_eq!(
        s.symbolise(&message),
        "dot: lhs f32[B,784] dim 1 is 784, rhs s32[H,H-2] x.3049 2*B+1, H/2"
    );
    assert_eq!(
        s.symbolise(&format!("[{}] ({} elements)", b - h + 1, 5 * b)),
        "[B-H+1] (5*B elements)"
    );
    assert_eq!(
        s.symbolise(&format!("{} {}", b * h, 2 * b * h)),
        "B*H 2*B*H"
    );
    let bound = sizes(&["B"], &[b]);
    assert_eq!(bound.symbolise("f32[3049]"), "f32[3049]");
}

#[test]
fn generic_values_are_distinct_and_decode_unambiguously() {
    let names: Vec<String> = (0..GENERIC_VALUES.len()).map(|i| format!("S{i}")).collect();
    let s = Sizes::generic(names, 0);
    for (i, v) in GENERIC_VALUES.iter().enumerate() {
        assert_eq!(s.symbol(*v), Some(format!("S{i}")));
        assert_eq!(s.symbol(3 * v - 2), Some(format!("3*S{i}-2")));
    }
}
