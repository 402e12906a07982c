//! The training toolkit's data side: digits CSV parsing (good and bad files), the
//! deterministic split, batches, standardisation, PCG32, the IDX reader and MNIST loader.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::Write;
use std::path::PathBuf;
use xla::train::idx::{IdxArray, IdxData};
use xla::train::{Dataset, Digits, Mnist, Order, Rng, Standardizer, TrainError};

/// A fresh empty directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xla-train-data-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// A CSV row of 64 pixels `p` and label `l`.
fn row(p: u8, l: u8) -> String {
    let mut fields: Vec<String> = (0..64).map(|_| p.to_string()).collect();
    fields.push(l.to_string());
    fields.join(",")
}

#[test]
fn embedded_digits_match_the_file() {
    let d = Digits::embedded().unwrap();
    assert_eq!(d.len(), 1797);
    assert_eq!(d.sample_dims(), &[64]);
    assert_eq!(d.num_classes(), 10);
    // Class counts of the UCI test set (counted with awk on the CSV).
    assert_eq!(
        d.class_counts(),
        vec![178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    );
    // First row: 0,0,5,13,9,1,0,0,... label 0; pixels scaled by 1/16.
    let (x, y) = d.sample(0).unwrap();
    assert_eq!(
        &x[..6],
        &[0.0, 0.0, 5.0 / 16.0, 13.0 / 16.0, 9.0 / 16.0, 1.0 / 16.0]
    );
    assert_eq!(y, 0);
    // Last row ends with ...,12,1,0,8 (label 8).
    let (x, y) = d.sample(1796).unwrap();
    assert_eq!(&x[61..], &[12.0 / 16.0, 1.0 / 16.0, 0.0]);
    assert_eq!(y, 8);
    assert!(d.features().iter().all(|&v| (0.0..=1.0).contains(&v)));
}

#[test]
fn load_reads_plain_and_gzipped_files() {
    let dir = temp_dir("load");
    let text = format!("{}\n{}\n\n", row(16, 9), row(0, 3));
    std::fs::write(dir.join("d.csv"), &text).unwrap();
    std::fs::write(dir.join("d.csv.gz"), gzip(text.as_bytes())).unwrap();
    for name in ["d.csv", "d.csv.gz"] {
        let d = Digits::load(dir.join(name)).unwrap();
        assert_eq!(d.labels(), &[9, 3]);
        assert_eq!(d.sample(0).unwrap().0, &[1.0; 64][..]);
        assert_eq!(d.sample(1).unwrap().0, &[0.0; 64][..]);
    }
}

#[test]
fn bad_digit_files_say_where_and_what() {
    let dir = temp_dir("bad");
    let good = row(1, 1);
    let mut short: Vec<&str> = good.split(',').collect();
    short.truncate(12);
    let cases: Vec<(&str, Vec<u8>, &[&str])> = vec![
        (
            "short.csv",
            format!("{good}\n{good}\n{}\n", short.join(",")).into_bytes(),
            &["short.csv line 3", "expected 65", "found 12"],
        ),
        (
            "word.csv",
            good.replacen("1", "x1", 1).into_bytes(),
            &["line 1", "column 1", "`x1` is not an integer"],
        ),
        (
            "pixel.csv",
            format!("{good}\n{}", row(17, 1)).into_bytes(),
            &["line 2", "column 1", "pixel 17 is outside 0..=16"],
        ),
        (
            "label.csv",
            row(2, 10).into_bytes(),
            &["line 1", "column 65", "label 10 is outside 0..=9"],
        ),
        (
            "negative.csv",
            row(2, 1).replacen("2", "-2", 1).into_bytes(),
            &["pixel -2 is outside"],
        ),
        (
            "empty.csv",
            b"\n\n".to_vec(),
            &["empty.csv", "no data rows"],
        ),
        ("binary.csv", vec![0xff, 0xfe, 0x00], &["not UTF-8"]),
        (
            "cut.csv.gz",
            gzip(format!("{good}\n{good}\n").as_bytes())[..30].to_vec(),
            &["cut.csv.gz", "corrupt or truncated gzip"],
        ),
    ];
    for (name, bytes, needles) in cases {
        std::fs::write(dir.join(name), bytes).unwrap();
        let msg = Digits::load(dir.join(name)).unwrap_err().to_string();
        for n in needles {
            assert!(msg.contains(n), "{name}: `{msg}` lacks `{n}`");
        }
    }
    let missing = Digits::load(dir.join("nope.csv")).unwrap_err();
    assert!(matches!(missing, TrainError::Io { .. }));
    assert!(missing.to_string().contains("nope.csv"), "{missing}");
}

#[test]
fn split_is_deterministic_and_a_partition() {
    let d = Digits::embedded().unwrap();
    let (train, test) = d.split(0.8, 7).unwrap();
    assert_eq!((train.len(), test.len()), (1437, 360)); // floor(0.8 * 1797)
    let (train2, test2) = d.split(0.8, 7).unwrap();
    assert_eq!((&train, &test), (&train2, &test2));
    let (train3, _) = d.split(0.8, 8).unwrap();
    assert_ne!(train, train3);
    // Together the parts hold every sample once: the class counts add up.
    let sum: Vec<usize> = train
        .class_counts()
        .iter()
        .zip(test.class_counts())
        .map(|(a, b)| a + b)
        .collect();
    assert_eq!(sum, d.class_counts());
    let mut all: Vec<Vec<u32>> = train
        .features()
        .chunks(64)
        .chain(test.features().chunks(64))
        .map(|r| r.iter().map(|v| v.to_bits()).collect())
        .collect();
    let mut orig: Vec<Vec<u32>> = d
        .features()
        .chunks(64)
        .map(|r| r.iter().map(|v| v.to_bits()).collect())
        .collect();
    all.sort();
    orig.sort();
    assert_eq!(all, orig);
    for bad in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
        assert!(d.split(bad, 0).is_err(), "{bad}");
    }
    let tiny = d.take(2);
    assert!(tiny
        .split(0.4, 0)
        .unwrap_err()
        .to_string()
        .contains("empty part"));
}

#[test]
fn batches_cover_each_sample_once_per_epoch() {
    // Ten samples whose single feature is their index.
    let d = Dataset::new(
        (0..10).map(|i| i as f32).collect(),
        vec![0, 1, 2, 0, 1, 2, 0, 1, 2, 0],
        &[1],
        3,
    )
    .unwrap();
    let seq: Vec<Vec<f32>> = d
        .batches(4, Order::Sequential)
        .unwrap()
        .map(|b| b.features().to_vec())
        .collect();
    assert_eq!(seq, vec![vec![0., 1., 2., 3.], vec![4., 5., 6., 7.]]); // partial batch dropped
    let with_last: Vec<usize> = d
        .batches(4, Order::Sequential)
        .unwrap()
        .keep_partial()
        .map(|b| b.len())
        .collect();
    assert_eq!(with_last, vec![4, 4, 2]);
    assert_eq!(d.batches(4, Order::Sequential).unwrap().count_total(), 2);
    assert_eq!(
        d.batches(4, Order::Sequential)
            .unwrap()
            .keep_partial()
            .count_total(),
        3
    );
    let epoch = |e| -> Vec<f32> {
        d.batches(5, Order::epoch(1, e))
            .unwrap()
            .flat_map(|b| b.features().to_vec())
            .collect()
    };
    let (e0, e1) = (epoch(0), epoch(1));
    assert_eq!(e0, epoch(0));
    assert_ne!(e0, e1);
    for e in [e0, e1] {
        let mut s = e.clone();
        s.sort_by(f32::total_cmp);
        assert_eq!(s, (0..10).map(|i| i as f32).collect::<Vec<_>>());
        assert_ne!(e, (0..10).map(|i| i as f32).collect::<Vec<_>>());
    }
    // Labels travel with their features.
    for b in d.batches(3, Order::Shuffled(9)).unwrap() {
        for i in 0..b.len() {
            let (x, y) = b.sample(i).unwrap();
            assert_eq!(y as usize, x[0] as usize % 3);
        }
    }
    assert!(d.batches(0, Order::Sequential).is_err());
}

#[test]
fn literals_of_a_batch() {
    let d = Dataset::new(vec![1., 2., 3., 4., 5., 6.], vec![2, 0], &[3], 3).unwrap();
    let x = d.features_literal().unwrap();
    assert_eq!(x.dims(), &[2, 3]);
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![1., 2., 3., 4., 5., 6.]);
    assert_eq!(d.labels_literal().to_vec::<i32>().unwrap(), vec![2, 0]);
    let y = d.one_hot_literal().unwrap();
    assert_eq!(y.dims(), &[2, 3]);
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![0., 0., 1., 1., 0., 0.]);
    let img = Digits::embedded()
        .unwrap()
        .take(4)
        .reshaped(&[8, 8, 1])
        .unwrap();
    assert_eq!(img.features_literal().unwrap().dims(), &[4, 8, 8, 1]);
    assert!(d.clone().reshaped(&[2, 2]).is_err());
    for (f, l) in [(vec![1.0; 5], vec![0, 1]), (vec![1.0; 6], vec![0, 3])] {
        assert!(Dataset::new(f, l, &[3], 3).is_err());
    }
}

#[test]
fn standardizer_centres_and_scales() {
    // Feature 0: 1, 3 (mean 2, std 1); feature 1: 5, 5 (std 0 -> only centred).
    let train = Dataset::new(vec![1., 5., 3., 5.], vec![0, 1], &[2], 2).unwrap();
    let s = Standardizer::fit(&train);
    assert_eq!(
        (s.mean.clone(), s.std.clone()),
        (vec![2., 5.], vec![1., 1.])
    );
    let out = s.apply(train).unwrap();
    assert_eq!(out.features(), &[-1., 0., 1., 0.]);
    let other = Dataset::new(vec![1., 2., 3.], vec![0], &[3], 2).unwrap();
    assert!(s.apply(other).is_err());
}

#[test]
fn pcg32_matches_the_reference_sequence() {
    // pcg32-demo: pcg32_srandom(42, 54) prints these first six outputs.
    let mut rng = Rng::with_stream(42, 54);
    let got: Vec<u32> = (0..6).map(|_| rng.next_u32()).collect();
    assert_eq!(
        got,
        vec![0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e]
    );
    assert_eq!(Rng::new(42).next_u32(), 0xa15c02b7);
    let mut rng = Rng::new(3);
    for n in [1usize, 2, 7, 1000] {
        assert!((0..200).all(|_| rng.below(n) < n));
    }
    let mut p = rng.permutation(50);
    p.sort();
    assert_eq!(p, (0..50).collect::<Vec<_>>());
    let w = Rng::new(1).glorot_uniform(&[3, 3, 4, 8]).unwrap(); // fans 36 and 72
    let limit = (6.0f32 / 108.0).sqrt();
    assert!(w.to_vec::<f32>().unwrap().iter().all(|v| v.abs() <= limit));
    assert!(Rng::new(1).glorot_uniform(&[0, 3]).is_err());
    let n = Rng::new(5)
        .normal_literal(&[10_000], 1.0, 2.0)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let mean = n.iter().sum::<f32>() / 1e4;
    let var = n.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / 1e4;
    assert!(
        (mean - 1.0).abs() < 0.1 && (var.sqrt() - 2.0).abs() < 0.1,
        "{mean} {var}"
    );
}

#[test]
fn idx_reads_handwritten_files() {
    let cases: Vec<(Vec<u8>, Vec<usize>, IdxData)> = vec![
        (
            vec![0, 0, 0x08, 1, 0, 0, 0, 3, 7, 8, 255],
            vec![3],
            IdxData::U8(vec![7, 8, 255]),
        ),
        (
            vec![0, 0, 0x09, 1, 0, 0, 0, 2, 0xff, 0x80],
            vec![2],
            IdxData::I8(vec![-1, -128]),
        ),
        (
            vec![0, 0, 0x0B, 1, 0, 0, 0, 1, 0x01, 0x02],
            vec![1],
            IdxData::I16(vec![0x0102]),
        ),
        (
            vec![
                0, 0, 0x0C, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe,
            ],
            vec![1, 1],
            IdxData::I32(vec![-2]),
        ),
        (
            vec![0, 0, 0x0D, 1, 0, 0, 0, 1, 0x3f, 0x80, 0, 0],
            vec![1],
            IdxData::F32(vec![1.0]),
        ),
        (
            vec![0, 0, 0x0E, 1, 0, 0, 0, 1, 0xc0, 0, 0, 0, 0, 0, 0, 0],
            vec![1],
            IdxData::F64(vec![-2.0]),
        ),
        (vec![0, 0, 0x08, 0, 42], vec![], IdxData::U8(vec![42])),
    ];
    for (bytes, dims, data) in cases {
        let a = IdxArray::parse(&bytes, "case").unwrap();
        assert_eq!((&a.dims, &a.data), (&dims, &data));
        assert_eq!(a.to_bytes(), bytes);
        assert_eq!(IdxArray::parse(&gzip(&bytes), "gz").unwrap(), a);
    }
    let lit = IdxArray::parse(&[0, 0, 0x08, 2, 0, 0, 0, 1, 0, 0, 0, 2, 5, 6], "l")
        .unwrap()
        .to_literal()
        .unwrap();
    assert_eq!(
        (lit.dims(), lit.to_vec::<u8>().unwrap()),
        (&[1i64, 2][..], vec![5, 6])
    );
}

#[test]
fn idx_rejects_truncated_and_garbage_files() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![0, 0], "too short for an IDX header"),
        (b"hello world".to_vec(), "not an IDX file"),
        (
            vec![0, 0, 0x07, 1, 0, 0, 0, 1, 0],
            "unknown IDX element type 0x07",
        ),
        (vec![0, 0, 0x08, 3, 0, 0, 0, 1], "truncated header"),
        (
            vec![0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3],
            "truncated: dims [2, 2] need 4 data bytes, file has 3",
        ),
        (
            vec![0, 0, 0x0C, 1, 0, 0, 0, 1, 0, 0, 0, 1, 9],
            "trailing bytes",
        ),
        (vec![0x1f, 0x8b, 8, 0, 1, 2], "corrupt or truncated gzip"),
    ];
    let dir = temp_dir("idx-bad");
    for (i, (bytes, needle)) in cases.into_iter().enumerate() {
        let path = dir.join(format!("bad{i}-idx1-ubyte"));
        std::fs::write(&path, bytes).unwrap();
        let msg = IdxArray::read(&path).unwrap_err().to_string();
        assert!(
            msg.contains(needle) && msg.contains(&format!("bad{i}-idx1-ubyte")),
            "{msg}"
        );
    }
}

/// Writes a tiny MNIST part: `n` 2×3 images whose pixels are all `i * 50` and labels `i`.
fn write_part(dir: &std::path::Path, part: &str, n: usize, gz: bool) {
    let images = IdxArray {
        dims: vec![n, 2, 3],
        data: IdxData::U8((0..n).flat_map(|i| [i as u8 * 50; 6]).collect()),
    };
    let labels = IdxArray {
        dims: vec![n],
        data: IdxData::U8((0..n as u8).collect()),
    };
    for (name, a) in [
        (format!("{part}-images-idx3-ubyte"), images),
        (format!("{part}-labels-idx1-ubyte"), labels),
    ] {
        let (name, bytes) = if gz {
            (format!("{name}.gz"), gzip(&a.to_bytes()))
        } else {
            (name, a.to_bytes())
        };
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

#[test]
fn mnist_loads_from_idx_files() {
    let dir = temp_dir("mnist");
    write_part(&dir, "train", 3, true);
    write_part(&dir, "t10k", 2, false);
    let m = Mnist::load(&dir).unwrap();
    assert_eq!((m.train.len(), m.test.len()), (3, 2));
    assert_eq!(m.train.sample_dims(), &[6]);
    assert_eq!(m.train.labels(), &[0, 1, 2]);
    assert_eq!(m.train.sample(2).unwrap().0, &[100.0 / 255.0; 6][..]);
    // Image and label counts disagree: the error names the labels file.
    let labels = IdxArray {
        dims: vec![1],
        data: IdxData::U8(vec![0]),
    };
    std::fs::write(dir.join("t10k-labels-idx1-ubyte"), labels.to_bytes()).unwrap();
    let msg = Mnist::load(&dir).unwrap_err().to_string();
    assert!(
        msg.contains("t10k-labels-idx1-ubyte") && msg.contains("1 labels for the 2 images"),
        "{msg}"
    );
    // Missing file.
    std::fs::remove_file(dir.join("t10k-labels-idx1-ubyte")).unwrap();
    let msg = Mnist::load(&dir).unwrap_err().to_string();
    assert!(
        msg.contains("t10k-labels-idx1-ubyte") && msg.contains("not found"),
        "{msg}"
    );
    // A label that is no digit.
    let bad = IdxArray {
        dims: vec![2],
        data: IdxData::U8(vec![1, 12]),
    };
    std::fs::write(dir.join("t10k-labels-idx1-ubyte"), bad.to_bytes()).unwrap();
    assert!(Mnist::load(&dir)
        .unwrap_err()
        .to_string()
        .contains("label 12 of image 1"));
}

#[test]
fn eval_batches_pad_the_last_batch() {
    let d = Dataset::new((0..7).map(|i| i as f32).collect(), vec![0; 7], &[1], 1).unwrap();
    let got: Vec<(Vec<f32>, usize)> = d
        .eval_batches(3)
        .unwrap()
        .into_iter()
        .map(|(b, n)| (b.features().to_vec(), n))
        .collect();
    assert_eq!(
        got,
        vec![
            (vec![0., 1., 2.], 3),
            (vec![3., 4., 5.], 3),
            (vec![6., 0., 1.], 1)
        ]
    );
    // Fewer samples than a batch: padding wraps around as often as needed.
    let small = d.take(2).eval_batches(5).unwrap();
    assert_eq!(
        (small[0].0.features(), small[0].1),
        (&[0., 1., 0., 1., 0.][..], 2)
    );
    assert!(d.take(0).eval_batches(4).unwrap().is_empty());
    assert!(d.eval_batches(0).is_err());
}
