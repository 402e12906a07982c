//! The device side of HLO text: `replica_count` / `num_partitions` in the header, `sharding`
//! attributes, the async collective pairs and collective-broadcast — parsed, kept and printed
//! back.

#![allow(clippy::unwrap_used)]

use xla_core::ir::Op;
use xla_core::text::{parse_module, print_module};

const TEXT: &str = r#"HloModule m, entry_computation_layout={(f32[4]{0})->f32[8]{0}}, replica_count=2, num_partitions=3

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x = f32[4]{0} parameter(0), sharding={manual}
  s = f32[4]{0} all-reduce-start(x), channel_id=1, replica_groups=[3,2]<=[2,3]T(1,0), use_global_device_ids=true, to_apply=add, sharding={devices=[2,1]0,1}
  d = f32[4]{0} all-reduce-done(s)
  gs = (f32[4]{0}, f32[8]{0}) all-gather-start(d), replica_groups={}, dimensions={0}
  g = f32[8]{0} all-gather-done(gs), sharding={{manual}, {replicated}}
  ps = (f32[8]{0}, f32[8]{0}, u32[], u32[]) collective-permute-start(g), source_target_pairs={{0,1},{1,0}}
  p = f32[8]{0} collective-permute-done(ps)
  ROOT b = f32[8]{0} collective-broadcast(p), replica_groups={{1,0}}
}
"#;

#[test]
fn header_counts_and_shardings_are_kept() {
    let m = parse_module(TEXT).unwrap();
    assert_eq!(m.config.replica_count, 2);
    assert_eq!(m.config.num_partitions, 3);
    assert_eq!(m.config.device_count(), Some(6));
    assert_eq!(m.config.shardings.get("x").unwrap(), "{manual}");
    assert_eq!(m.config.shardings.get("s").unwrap(), "{devices=[2,1]0,1}");
    assert_eq!(
        m.config.shardings.get("g").unwrap(),
        "{{manual}, {replicated}}"
    );
    let entry = m.entry_computation().unwrap();
    let s = &entry.instructions[entry.find("s").unwrap().0];
    let Op::AllReduceStart { config, .. } = &s.op else {
        panic!("{:?}", s.op)
    };
    // [3,2]<=[2,3]T(1,0): iota over 2x3, transposed, in groups of 2.
    assert_eq!(
        config.replica_groups.groups,
        vec![vec![0, 3], vec![1, 4], vec![2, 5]]
    );
}

#[test]
fn printing_gives_the_same_module_back() {
    let m = parse_module(TEXT).unwrap();
    let printed = print_module(&m);
    assert!(
        printed.starts_with("HloModule m, replica_count=2, num_partitions=3"),
        "{printed}"
    );
    assert!(
        printed.contains("sharding={{manual}, {replicated}}"),
        "{printed}"
    );
    assert!(printed.contains("all-reduce-done(s)"), "{printed}");
    assert!(
        printed.contains("collective-permute-start(g), source_target_pairs={{0,1},{1,0}}"),
        "{printed}"
    );
    assert_eq!(parse_module(&printed).unwrap(), m);
    xla_core::verify::verify_module(&m).unwrap();
}

#[test]
fn a_zero_replica_count_is_an_error() {
    let e = parse_module("HloModule m, replica_count=0\nENTRY e { ROOT x = f32[] parameter(0) }")
        .unwrap_err()
        .to_string();
    assert!(e.contains("replica_count must be at least 1"), "{e}");
}
