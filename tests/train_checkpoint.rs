//! Checkpoints: bit-identical round trips of every element type safetensors can hold, the
//! training state in the metadata, mismatch errors, and atomic writes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use half::{bf16, f16};
use num_complex::Complex32;
use std::path::{Path, PathBuf};
use xla::train::{load_checkpoint, save_checkpoint, Checkpoint, TrainError, TrainState};
use xla::{Literal, Shape};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xla-train-ckpt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names of the files in `dir`.
fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn all_types() -> Vec<(&'static str, Literal)> {
    vec![
        (
            "f32",
            Literal::from_vec(
                &[2, 3],
                vec![
                    1.5f32,
                    -0.0,
                    f32::NAN,
                    f32::from_bits(0x7fc0_1234),
                    f32::INFINITY,
                    f32::MIN_POSITIVE / 2.0,
                ],
            )
            .unwrap(),
        ),
        (
            "f64",
            Literal::vec1(&[std::f64::consts::PI, -1e-310, f64::NEG_INFINITY]),
        ),
        (
            "f16",
            Literal::vec1(&[f16::from_f32(0.1), f16::NEG_ZERO, f16::NAN]),
        ),
        (
            "bf16",
            Literal::vec1(&[bf16::from_f32(-3.25), bf16::INFINITY]),
        ),
        ("s8", Literal::vec1(&[-128i8, 127])),
        ("s16", Literal::vec1(&[-300i16])),
        (
            "s32",
            Literal::from_vec(&[1, 2, 1], vec![i32::MIN, 7]).unwrap(),
        ),
        ("s64", Literal::vec1(&[i64::MAX, -1])),
        ("u8", Literal::vec1(&[0u8, 255])),
        ("u16", Literal::vec1(&[65535u16])),
        ("u32", Literal::vec1(&[u32::MAX])),
        ("u64", Literal::vec1(&[u64::MAX, 3])),
        ("pred", Literal::vec1(&[true, false, true])),
        ("c64", Literal::vec1(&[Complex32::new(1.0, -2.0)])),
        ("scalar", Literal::scalar(0.25f32)),
        ("empty", Literal::from_vec::<f32>(&[0, 4], vec![]).unwrap()),
    ]
}

#[test]
fn round_trip_is_bit_identical() {
    let dir = temp_dir("roundtrip");
    let path = dir.join("all.safetensors");
    let tensors = all_types();
    let refs: Vec<(&str, &Literal)> = tensors.iter().map(|(n, l)| (*n, l)).collect();
    save_checkpoint(
        &path,
        &refs,
        TrainState {
            epoch: 4,
            step: 1234,
        },
    )
    .unwrap();
    let shapes: Vec<(&str, &Shape)> = tensors.iter().map(|(n, l)| (*n, l.shape())).collect();
    let (loaded, state) = load_checkpoint(&path, &shapes).unwrap();
    assert_eq!(
        state,
        TrainState {
            epoch: 4,
            step: 1234
        }
    );
    for ((name, want), got) in tensors.iter().zip(&loaded) {
        // Literal equality is bitwise: NaN payloads and -0.0 must survive.
        assert_eq!(got, want, "{name}");
    }
    assert_eq!(files(&dir), vec!["all.safetensors"]);
}

#[test]
fn file_layout_is_safetensors() {
    // One f32[2] tensor: 8-byte little-endian header length, JSON header, then the data
    // little-endian (1.0 = 00 00 80 3f, 2.0 = 00 00 00 40).
    let dir = temp_dir("layout");
    let path = dir.join("w.safetensors");
    save_checkpoint(
        &path,
        &[("w", &Literal::vec1(&[1.0f32, 2.0]))],
        TrainState::default(),
    )
    .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&bytes[8..8 + n]).unwrap();
    assert!(
        header.contains(r#""w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}"#),
        "{header}"
    );
    assert!(
        header.contains(r#""epoch":"0""#) && header.contains(r#""step":"0""#),
        "{header}"
    );
    assert_eq!(&bytes[8 + n..], &[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]);
}

#[test]
fn metadata_survives() {
    let dir = temp_dir("meta");
    let path = dir.join("m.safetensors");
    let mut ckpt = Checkpoint {
        state: TrainState { epoch: 1, step: 2 },
        ..Checkpoint::default()
    };
    ckpt.tensors.insert("b".into(), Literal::vec1(&[1i32]));
    ckpt.metadata.insert("model".into(), "mlp_digits".into());
    ckpt.save(&path).unwrap();
    assert_eq!(Checkpoint::load(&path).unwrap(), ckpt);
}

#[test]
fn mismatches_name_the_tensor_and_both_shapes() {
    let dir = temp_dir("mismatch");
    let path = dir.join("model.safetensors");
    let w1 = Literal::zeros(&Shape::array(xla::PrimitiveType::F32, vec![784, 64])).unwrap();
    let b1 = Literal::vec1(&[0f32; 64]);
    save_checkpoint(&path, &[("w1", &w1), ("b1", &b1)], TrainState::default()).unwrap();
    let f32s = |d: &[i64]| Shape::array(xla::PrimitiveType::F32, d.to_vec());
    let f64s = |d: &[i64]| Shape::array(xla::PrimitiveType::F64, d.to_vec());
    let cases: Vec<(Vec<(&str, Shape)>, &str)> = vec![
        (
            vec![("w1", f32s(&[784, 128])), ("b1", f32s(&[64]))],
            "checkpoint w1: expected f32[784,128], file has f32[784,64]",
        ),
        (
            vec![("w1", f32s(&[784, 64])), ("b1", f64s(&[64]))],
            "checkpoint b1: expected f64[64], file has f32[64]",
        ),
        (
            vec![
                ("w1", f32s(&[784, 64])),
                ("b1", f32s(&[64])),
                ("w2", f32s(&[64, 10])),
            ],
            "checkpoint w2: missing from the file (it has: b1, w1)",
        ),
        (
            vec![("w1", f32s(&[784, 64]))],
            "checkpoint b1: in the file but not expected by the model",
        ),
        (
            vec![("w0", f32s(&[1]))],
            "checkpoint w0: missing from the file (it has: b1, w1)",
        ),
    ];
    for (expected, msg) in cases {
        let refs: Vec<(&str, &Shape)> = expected.iter().map(|(n, s)| (*n, s)).collect();
        let err = load_checkpoint(&path, &refs).unwrap_err();
        assert!(matches!(err, TrainError::Checkpoint { .. }));
        assert_eq!(err.to_string(), msg);
    }
}

#[test]
fn unreadable_files_are_errors_naming_the_file() {
    let dir = temp_dir("corrupt");
    let good = dir.join("good.safetensors");
    save_checkpoint(
        &good,
        &[("w", &Literal::vec1(&[1.0f32; 16]))],
        TrainState::default(),
    )
    .unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.join("cut.safetensors");
    std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
    let junk = dir.join("junk.safetensors");
    std::fs::write(&junk, b"not a checkpoint at all").unwrap();
    for p in [&cut, &junk] {
        let msg = Checkpoint::load(p).unwrap_err().to_string();
        assert!(
            msg.contains(&p.display().to_string()) && msg.contains("not a valid safetensors file"),
            "{msg}"
        );
    }
    let missing = Checkpoint::load(dir.join("none.safetensors")).unwrap_err();
    assert!(
        matches!(missing, TrainError::Io { .. })
            && missing.to_string().contains("none.safetensors")
    );
}

#[test]
fn failed_saves_leave_no_partial_file() {
    let dir = temp_dir("atomic");
    let path = dir.join("model.safetensors");
    save_checkpoint(
        &path,
        &[("w", &Literal::vec1(&[1.0f32]))],
        TrainState { epoch: 1, step: 1 },
    )
    .unwrap();
    let before = std::fs::read(&path).unwrap();
    // Values safetensors cannot hold: the old checkpoint stays as it was.
    let tuple = Literal::tuple(vec![Literal::scalar(1.0f32)]);
    let c128 = Literal::vec1(&[num_complex::Complex64::new(1.0, 0.0)]);
    for (lit, msg) in [
        (&tuple, "is a tuple"),
        (&c128, "c128[1] has no safetensors dtype"),
    ] {
        let err = save_checkpoint(
            &path,
            &[("w", &Literal::vec1(&[2.0f32])), ("bad", lit)],
            TrainState::default(),
        )
        .unwrap_err();
        assert!(err.to_string().contains(msg), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
    let dup = save_checkpoint(
        &path,
        &[("w", &Literal::scalar(1f32)), ("w", &Literal::scalar(2f32))],
        TrainState::default(),
    );
    assert!(dup
        .unwrap_err()
        .to_string()
        .contains("checkpoint w: name given twice"));
    // The rename fails (the target is a directory): the temporary file is removed.
    std::fs::create_dir(dir.join("taken.safetensors")).unwrap();
    assert!(save_checkpoint(
        dir.join("taken.safetensors"),
        &[("w", &Literal::scalar(1f32))],
        TrainState::default()
    )
    .is_err());
    // A directory that does not exist: nothing is created.
    assert!(save_checkpoint(
        dir.join("no/such/dir.safetensors"),
        &[("w", &Literal::scalar(1f32))],
        TrainState::default()
    )
    .is_err());
    assert_eq!(files(&dir), vec!["model.safetensors", "taken.safetensors"]);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn overwriting_replaces_the_whole_file() {
    let dir = temp_dir("overwrite");
    let path = dir.join("m.safetensors");
    save_checkpoint(
        &path,
        &[("w", &Literal::vec1(&[0f32; 1000]))],
        TrainState { epoch: 1, step: 10 },
    )
    .unwrap();
    save_checkpoint(
        &path,
        &[("w", &Literal::vec1(&[3f32; 2]))],
        TrainState { epoch: 2, step: 20 },
    )
    .unwrap();
    let c = Checkpoint::load(&path).unwrap();
    assert_eq!(c.state, TrainState { epoch: 2, step: 20 });
    assert_eq!(c.tensors["w"], Literal::vec1(&[3f32; 2]));
    assert_eq!(files(&dir), vec!["m.safetensors"]);
}
