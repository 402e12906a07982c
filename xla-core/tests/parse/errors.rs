//! Error messages and positions, and nesting limits.

use super::*;

#[test]
fn error_positions() {
    let m = "HloModule m\nENTRY e {\n";
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "1:1: expected 'HloModule' but found end of input"),
        ("HloModule m\n".into(), "2:1: expected a computation but found end of input"),
        ("HloModule m /* x".into(), "1:13: unterminated comment '/*'"),
        (format!("{m}  p = f32[] parameter(0"), "3:24: expected ')' but found end of input"),
        (format!("{m}  p = f32[] parameter(0)\n"), "4:1: expected an instruction or '}' but found end of input"),
        (format!("{m}  p = f32[] parameter(0)\n  ROOT x = f32[] frobnicate(p)\n}}"), "4:18: unknown opcode 'frobnicate'"),
        (format!("{m}  p = f33[2] parameter(0)\n}}"), "3:7: expected a shape but found 'f33' (not an element type)"),
        (format!("{m}  p = f32[] parameter(0)\n  ROOT x = f32[] add(p, q)\n}}"), "4:25: unknown operand 'q' in computation 'e'"),
        (
            format!("{m}  p = f32[] parameter(0)\n  p = f32[] parameter(1)\n}}"),
            "4:3: instruction 'p' is defined twice (first at 3:3)",
        ),
        (
            format!("{m}  p = f32[] parameter(0)\n  ROOT r = f32[] reduce(p, p), dimensions={{}}, to_apply=sum\n}}"),
            "4:56: unknown computation 'sum'",
        ),
        (
            "HloModule m\nENTRY a {\n  ROOT p = f32[] parameter(0)\n}\nENTRY b {\n  ROOT p = f32[] parameter(0)\n}\n".into(),
            "5:1: a second ENTRY computation (the first is at 2:1)",
        ),
        (
            format!("{m}  ROOT p = f32[] parameter(0)\n  ROOT q = f32[] parameter(1)\n}}"),
            "4:3: a second ROOT in computation 'e'",
        ),
        (format!("{m}  ROOT c = f32[3] constant({{1, 2}})\n}}"), "3:33: literal: expected 3 elements in this dimension but found 2"),
        (format!("{m}  ROOT c = f32[2] constant({{1, 2, 3}})\n}}"), "3:35: literal: expected 2 elements in this dimension but found 3"),
        (format!("{m}  ROOT c = u8[] constant(256)\n}}"), "3:26: integer 256 is out of range for the element type"),
        (format!("{m}  ROOT c = f32[] constant(1.5.2)\n}}"), "3:27: expected a number but found '1.5.2'"),
        (format!("{m}  p = f32[] parameter(0)\n  ROOT b = f32[2] broadcast(p)\n}}"), "4:19: broadcast 'b' needs attribute 'dimensions'"),
        (format!("{m}  p = f32[2] parameter(0)\n  ROOT b = f32[2] reverse(p), dimensions={{0,}}\n}}"), "4:45: expected an integer but found '}'"),
        (format!("{m}  p = f32[] parameter(0)\n  ROOT c = f32[] compare(p, p), direction=XX\n}}"), "4:43: expected a comparison direction but found 'XX'"),
        (
            format!("{m}  p = f32[2] parameter(0)\n  ROOT c = f32[2] slice(p), slice={{[0:2}}\n}}"),
            "4:40: expected ']' but found '}'",
        ),
        (
            format!("{m}  a = f32[] add(b, b)\n  ROOT b = f32[] add(a, a)\n}}"),
            "3:3: instruction 'a' depends on itself (a cycle of operands)",
        ),
        (
            "HloModule m\nf {\n  ROOT p = f32[] call(), to_apply=g\n}\ng {\n  ROOT p = f32[] call(), to_apply=f\n}\n".into(),
            "2:1: computation 'f' calls itself (a cycle of calls)",
        ),
        (
            format!("{m}  p = f32[4] parameter(0)\n  ROOT r = f32[4] reduce-window(p, p), window={{size=2 stride=1x1}}, to_apply=e\n}}"),
            "4:62: window: 'stride' has 2 dimensions but size has 1",
        ),
        (
            format!("{m}  p = f32[4] parameter(0)\n  ROOT r = f32[4] convolution(p, p), dim_labels=bf0_oi0->bf\n}}"),
            "4:49: dim_labels 'bf0_oi0->bf': input, kernel and output must have the same number of spatial dimensions (input 1, kernel 1, output 0)",
        ),
    ];
    for (text, want) in cases {
        let got = parse_module(&text).map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(got, Err(want.to_string()), "{text}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    const N: usize = 10_000;
    let tuple = "(".repeat(N) + "f32[]" + &")".repeat(N);
    let err = parse_module(&format!(
        "HloModule m\nENTRY e {{\n  ROOT p = {tuple} parameter(0)\n}}"
    ))
    .unwrap_err();
    assert_eq!(err.kind, ParseErrorKind::TooDeep);
    // The entry computation's body uses COMPUTATION_DEPTH_COST levels; the first '(' is at
    // column 12.
    let levels = xla_core::text::MAX_DEPTH - xla_core::text::COMPUTATION_DEPTH_COST;
    assert_eq!((err.line, err.column), (3, 12 + levels));

    let inline = "ROOT c = f32[] call(), to_apply={\n".repeat(N)
        + "ROOT p = f32[] parameter(0)"
        + &"}".repeat(N);
    let err = parse_module(&format!("HloModule m\nENTRY e {{\n{inline}\n}}")).unwrap_err();
    assert_eq!(err.kind, ParseErrorKind::TooDeep);

    let operand = format!(
        "HloModule m\nENTRY e {{\n  ROOT p = f32[] add({}\n}}",
        "(".repeat(N)
    );
    assert_eq!(
        parse_module(&operand).unwrap_err().kind,
        ParseErrorKind::TooDeep
    );

    // Deeply nested braces in a skipped attribute and a rank-1000 literal need no recursion.
    let braces = "{".repeat(N) + &"}".repeat(N);
    let m = parse_module(&format!(
        "HloModule m\nENTRY e {{\n  ROOT p = f32[] parameter(0), metadata={braces}\n}}"
    ));
    assert!(m.is_ok());
    let dims = vec!["1"; 1000].join(",");
    let lit = "{".repeat(1000) + "7" + &"}".repeat(1000);
    let m = parse_module(&format!(
        "HloModule m\nENTRY e {{\n  ROOT c = f32[{dims}] constant({lit})\n}}"
    ))
    .unwrap();
    let Op::Constant { literal } = &m.computations[0].instructions[0].op else {
        panic!()
    };
    assert_eq!(literal.data::<f32>(), Some(&[7.0f32][..]));
}
