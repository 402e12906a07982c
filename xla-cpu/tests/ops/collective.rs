//! Collectives on one replica, tokens, custom calls, host queues, rng, and the executable's
//! argument checks.

use super::{elem, run, vals};
use xla_core::{Literal, Shape};
use xla_cpu::{CpuError, CustomCallFailure, Executable};

fn compile(hlo: &str) -> Executable {
    Executable::compile(&xla_core::text::parse_module(hlo).unwrap()).unwrap()
}

#[test]
fn single_replica_collectives_and_tokens() {
    let hlo = "HloModule t\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[2] parameter(0)\n  r = f32[2] all-reduce(x), replica_groups={}, to_apply=add\n  g = f32[2] all-gather(r), dimensions={0}, replica_groups={}\n  id = u32[] replica-id()\n  tok = token[] after-all()\n  d = f32[2] add-dependency(g, tok)\n  ROOT t = (f32[2], u32[]) tuple(d, id)\n}\n";
    let r = run(hlo, &[Literal::vec1(&[1f32, 2.])]).unwrap();
    assert_eq!(vals::<f32>(&elem(&r, 0)), [1., 2.]);
    assert_eq!(vals::<u32>(&elem(&r, 1)), [0]);
}

#[test]
fn custom_call_runs_the_registered_function() {
    let hlo = "HloModule t\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT c = f32[2] custom-call(x), custom_call_target=\"double\"\n}\n";
    let mut exe = compile(hlo);
    let err = exe
        .execute(&[Literal::vec1(&[1f32, 2.])])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("double") && err.contains("registered"),
        "{err}"
    );
    exe.register_custom_call("double", |args: &[Literal], _: &Shape, _: &str| {
        let v: Vec<f32> = args[0]
            .data::<f32>()
            .ok_or("not f32")?
            .iter()
            .map(|x| x * 2.0)
            .collect();
        Ok(Literal::vec1(&v))
    });
    assert_eq!(
        vals::<f32>(&exe.execute(&[Literal::vec1(&[1f32, 2.])]).unwrap()),
        [2., 4.]
    );
}

/// The innermost [`CustomCallFailure`] of an execution error (the instruction wraps it).
fn custom_failure(e: &CpuError) -> (&str, &CustomCallFailure) {
    match e {
        CpuError::Instruction { source, .. } => custom_failure(source),
        CpuError::CustomCall { target, failure } => (target.as_str(), failure),
        other => panic!("not a custom-call error: {other:?}"),
    }
}

#[test]
fn custom_call_failures_are_typed() {
    let hlo = "HloModule t\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT c = f32[2] custom-call(x), custom_call_target=\"f\"\n}\n";
    let mut exe = compile(hlo);
    let x = [Literal::vec1(&[1f32, 2.])];
    let e = exe.execute(&x).unwrap_err();
    assert!(matches!(
        custom_failure(&e),
        ("f", CustomCallFailure::NotRegistered)
    ));
    // The host function's own error type is kept as the source.
    exe.register_custom_call("f", |_: &[Literal], _: &Shape, _: &str| {
        Err(std::io::Error::other("disk on fire").into())
    });
    let e = exe.execute(&x).unwrap_err();
    let (_, CustomCallFailure::Host(source)) = custom_failure(&e) else {
        panic!("{e:?}");
    };
    assert!(
        source.downcast_ref::<std::io::Error>().is_some(),
        "{source:?}"
    );
    assert!(e.to_string().contains("custom-call f: disk on fire"), "{e}");
    // A result of the wrong shape names both shapes.
    exe.register_custom_call("f", |_: &[Literal], _: &Shape, _: &str| {
        Ok(Literal::vec1(&[1f32, 2., 3.]))
    });
    let e = exe.execute(&x).unwrap_err();
    let (_, CustomCallFailure::WrongResult { returned, declared }) = custom_failure(&e) else {
        panic!("{e:?}");
    };
    assert_eq!(returned.to_string(), "f32[3]");
    assert_eq!(declared.to_string(), "f32[2]");
    assert!(
        e.to_string()
            .contains("returned f32[3] but the call declares f32[2]"),
        "{e}"
    );
}

#[test]
fn infeed_and_outfeed_use_host_queues() {
    let hlo = "HloModule t\nENTRY e {\n  tok = token[] after-all()\n  i = (f32[2], token[]) infeed(tok)\n  x = f32[2] get-tuple-element(i), index=0\n  t2 = token[] get-tuple-element(i), index=1\n  o = token[] outfeed(x, t2)\n  ROOT n = f32[2] negate(x)\n}\n";
    let exe = compile(hlo);
    let err = exe.execute(&[]).unwrap_err().to_string();
    assert!(err.contains("infeed") && err.contains("empty"), "{err}");
    exe.push_infeed(Literal::vec1(&[1f32, -2.]));
    assert_eq!(vals::<f32>(&exe.execute(&[]).unwrap()), [-1., 2.]);
    let out = exe.take_outfeed();
    assert_eq!(out.len(), 1);
    assert_eq!(vals::<f32>(&out[0]), [1., -2.]);
}

#[test]
fn rng_is_deterministic_per_seed_and_in_range() {
    let hlo = "HloModule t\nENTRY e {\n  a = f32[] constant(2)\n  b = f32[] constant(3)\n  ROOT r = f32[1000] rng(a, b), distribution=rng_uniform\n}\n";
    let exe = compile(hlo);
    let x: Vec<f32> = vals(&exe.execute(&[]).unwrap());
    assert!(x.iter().all(|&v| (2.0..3.0).contains(&v)));
    assert_eq!(x, vals::<f32>(&exe.execute(&[]).unwrap()));
    exe.set_rng_seed(42);
    let y: Vec<f32> = vals(&exe.execute(&[]).unwrap());
    assert_ne!(x, y);
    let mean = y.iter().sum::<f32>() / 1000.0;
    assert!((mean - 2.5).abs() < 0.05, "{mean}");
}

#[test]
fn rng_bit_generator_advances_its_state() {
    let hlo = "HloModule t\nENTRY e {\n  s = u64[2] parameter(0)\n  ROOT r = (u64[2], u32[5]) rng-bit-generator(s), algorithm=rng_three_fry\n}\n";
    let exe = compile(hlo);
    let r = exe.execute(&[Literal::vec1(&[7u64, 100])]).unwrap();
    // Five 32-bit words come from three ThreeFry blocks: the counter advances by 3.
    assert_eq!(vals::<u64>(&elem(&r, 0)), [7, 103]);
    let bits: Vec<u32> = vals(&elem(&r, 1));
    assert_eq!(
        bits,
        vals::<u32>(&elem(
            &exe.execute(&[Literal::vec1(&[7u64, 100])]).unwrap(),
            1
        ))
    );
    let other: Vec<u32> = vals(&elem(
        &exe.execute(&[Literal::vec1(&[8u64, 100])]).unwrap(),
        1,
    ));
    assert_ne!(bits, other);
}

#[test]
fn argument_checks_name_the_parameter_and_shapes() {
    let exe = compile(
        "HloModule t\nENTRY e {\n  x = f32[2,3] parameter(0)\n  ROOT n = f32[2,3] negate(x)\n}\n",
    );
    let err = exe.execute(&[]).unwrap_err();
    assert!(
        matches!(
            err,
            CpuError::ArgumentCount {
                expected: 1,
                found: 0
            }
        ),
        "{err}"
    );
    let err = exe
        .execute(&[Literal::vec1(&[1f32, 2.])])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("parameter 0")
            && err.contains("(x)")
            && err.contains("f32[2,3]")
            && err.contains("f32[2]"),
        "{err}"
    );
}

#[test]
fn one_executable_runs_from_several_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Executable>();
    let exe = compile(
        "HloModule t\nENTRY e {\n  x = s32[] parameter(0)\n  ROOT n = s32[] multiply(x, x)\n}\n",
    );
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|i| {
                let exe = &exe;
                s.spawn(move || vals::<i32>(&exe.execute(&[Literal::scalar(i)]).unwrap())[0])
            })
            .collect();
        let got: Vec<i32> = hs.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(got, [0, 1, 4, 9]);
    });
}

#[test]
fn rng_bit_generator_three_fry_matches_xla() {
    // XLA:CPU's output for state {0, 0} and u32[3,2] (as printed by a project that runs
    // XLA): the counter advances by 3, and block i fills words 2i and 2i+1.
    let hlo = "HloModule t\nENTRY e {\n  s = u64[2] parameter(0)\n  ROOT r = (u64[2], u32[3,2]) rng-bit-generator(s), algorithm=rng_three_fry\n}\n";
    let r = run(hlo, &[Literal::vec1(&[0u64, 0])]).unwrap();
    assert_eq!(vals::<u64>(&elem(&r, 0)), [0, 3]);
    let bits: Vec<u32> = vals(&elem(&r, 1));
    let approx = [1.7973e9, 2.5791e9, 1.3515e9, 3.2358e9, 1.6886e9, 4.2293e9];
    for (b, a) in bits.iter().zip(approx) {
        assert!((f64::from(*b) - a).abs() < 1e5, "{bits:?}");
    }
}

#[test]
fn host_send_and_recv_use_channel_queues() {
    let hlo = "HloModule t\nENTRY e {\n  tok = token[] after-all()\n  r = (f32[2], u32[], token[]) recv(tok), channel_id=5, is_host_transfer=true\n  rd = (f32[2], token[]) recv-done(r), channel_id=5, is_host_transfer=true\n  x = f32[2] get-tuple-element(rd), index=0\n  y = f32[2] add(x, x)\n  s = (f32[2], u32[], token[]) send(y, tok), channel_id=6, is_host_transfer=true\n  sd = token[] send-done(s), channel_id=6, is_host_transfer=true\n  ROOT out = f32[2] negate(y)\n}\n";
    let exe = compile(hlo);
    assert!(exe.execute(&[]).unwrap_err().to_string().contains("empty"));
    exe.push_recv(5, Literal::vec1(&[1f32, 2.]));
    assert_eq!(vals::<f32>(&exe.execute(&[]).unwrap()), [-2., -4.]);
    let sent = exe.take_sent(6);
    assert_eq!(sent.len(), 1);
    assert_eq!(vals::<f32>(&sent[0]), [2., 4.]);
}

#[test]
fn collective_permute_dimension_size_and_rng_state() {
    let hlo = "HloModule t\nENTRY e {\n  x = s32[3] parameter(0)\n  p = s32[3] collective-permute(x), source_target_pairs={{0,0}}\n  q = s32[3] collective-permute(x), source_target_pairs={{0,1}}\n  d = s32[] get-dimension-size(x), dimensions={0}\n  s0 = u64[2] rng-get-and-update-state(), delta=8\n  s1 = u64[2] rng-get-and-update-state(), delta=8\n  ROOT t = (s32[3], s32[3], s32[], u64[2], u64[2]) tuple(p, q, d, s0, s1)\n}\n";
    let r = run(hlo, &[Literal::vec1(&[1, 2, 3])]).unwrap();
    assert_eq!(vals::<i32>(&elem(&r, 0)), [1, 2, 3]);
    assert_eq!(vals::<i32>(&elem(&r, 1)), [0, 0, 0]);
    assert_eq!(vals::<i32>(&elem(&r, 2)), [3]);
    assert_eq!(
        vals::<u64>(&elem(&r, 4))[0],
        vals::<u64>(&elem(&r, 3))[0] + 8
    );
}
