//! Runs `infer_shape` over every instruction of every conformance module and checks that the
//! inferred shape agrees with the shape XLA printed.

use std::path::Path;
use xla_core::ir::infer_shape;
use xla_core::shape_inference::ProgramShape;
use xla_core::text::parse_module;
use xla_core::{Module, Shape};

fn program_shapes(module: &Module) -> Vec<ProgramShape> {
    module
        .computations
        .iter()
        .map(|c| ProgramShape {
            parameters: c.parameter_shapes(),
            result: c
                .result_shape()
                .cloned()
                .unwrap_or(Shape::Tuple(Vec::new())),
        })
        .collect()
}

/// Checks every instruction of `module`; returns one line per disagreement.
fn check_module(case: &str, module: &Module) -> Vec<String> {
    let programs = program_shapes(module);
    let mut failures = Vec::new();
    for comp in &module.computations {
        for ins in &comp.instructions {
            let operands: Vec<&Shape> = ins
                .operands
                .iter()
                .map(|&id| &comp.instr(id).shape)
                .collect();
            let called: Vec<ProgramShape> = ins
                .op
                .called_computations()
                .iter()
                .map(|c| programs[c.0].clone())
                .collect();
            match infer_shape(&ins.op, &operands, &called, Some(&ins.shape)) {
                Ok(s) if s.compatible(&ins.shape) => {}
                Ok(s) => failures.push(format!(
                    "{case}: {} ({}): inferred {s}, declared {}",
                    ins.name,
                    ins.op.name(),
                    ins.shape
                )),
                Err(e) => failures.push(format!("{case}: {} ({}): {e}", ins.name, ins.op.name())),
            }
        }
    }
    failures
}

fn check_split(split: &str) -> (usize, usize, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/conformance")
        .join(split);
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    cases.sort();
    let (mut modules, mut instructions, mut failures) = (0, 0, Vec::new());
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(case.join("module.hlo")).unwrap();
        let module = match parse_module(&text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: does not parse: {e}"));
                continue;
            }
        };
        modules += 1;
        instructions += module
            .computations
            .iter()
            .map(|c| c.instructions.len())
            .sum::<usize>();
        failures.extend(check_module(&name, &module));
    }
    (modules, instructions, failures)
}

#[test]
fn every_conformance_instruction_infers_its_declared_shape() {
    let mut all = Vec::new();
    for split in ["public", "grad_public"] {
        let (modules, instructions, failures) = check_split(split);
        assert!(modules > 0, "no modules found in {split}");
        eprintln!(
            "{split}: {modules} modules, {instructions} instructions, {} failures",
            failures.len()
        );
        all.extend(failures);
    }
    assert!(
        all.is_empty(),
        "{} instructions disagree:\n{}",
        all.len(),
        all.join("\n")
    );
}
