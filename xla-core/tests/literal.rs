//! Literal tests: printing against text produced by real XLA, construction and access,
//! ndarray interop and `.npy` files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use xla_core::literal::{ArrayData, Literal};
use xla_core::shape::Shape;
use xla_core::PrimitiveType;

/// Builds array data of `ty` from hex bit patterns (`re:im` for complex elements).
fn data_from_bits(ty: &str, bits: &str) -> ArrayData {
    let items: Vec<&str> = if bits.is_empty() {
        Vec::new()
    } else {
        bits.split(',').collect()
    };
    let hex = |s: &str| u64::from_str_radix(s, 16).unwrap();
    let pair = |s: &str| {
        let (a, b) = s.split_once(':').unwrap();
        (hex(a), hex(b))
    };
    let complex = ty.starts_with('c');
    let h: Vec<u64> = if complex {
        Vec::new()
    } else {
        items.iter().map(|s| hex(s)).collect()
    };
    match ty {
        "pred" => ArrayData::Pred(h.iter().map(|&b| b != 0).collect()),
        "s8" => ArrayData::S8(h.iter().map(|&b| b as u8 as i8).collect()),
        "s16" => ArrayData::S16(h.iter().map(|&b| b as u16 as i16).collect()),
        "s32" => ArrayData::S32(h.iter().map(|&b| b as u32 as i32).collect()),
        "s64" => ArrayData::S64(h.iter().map(|&b| b as i64).collect()),
        "u8" => ArrayData::U8(h.iter().map(|&b| b as u8).collect()),
        "u16" => ArrayData::U16(h.iter().map(|&b| b as u16).collect()),
        "u32" => ArrayData::U32(h.iter().map(|&b| b as u32).collect()),
        "u64" => ArrayData::U64(h),
        "f16" => ArrayData::F16(h.iter().map(|&b| f16::from_bits(b as u16)).collect()),
        "bf16" => ArrayData::Bf16(h.iter().map(|&b| bf16::from_bits(b as u16)).collect()),
        "f32" => ArrayData::F32(h.iter().map(|&b| f32::from_bits(b as u32)).collect()),
        "f64" => ArrayData::F64(h.iter().map(|&b| f64::from_bits(b)).collect()),
        "c64" => ArrayData::C64(
            items
                .iter()
                .map(|s| pair(s))
                .map(|(a, b)| Complex32::new(f32::from_bits(a as u32), f32::from_bits(b as u32)))
                .collect(),
        ),
        "c128" => ArrayData::C128(
            items
                .iter()
                .map(|s| pair(s))
                .map(|(a, b)| Complex64::new(f64::from_bits(a), f64::from_bits(b)))
                .collect(),
        ),
        other => panic!("unknown type {other}"),
    }
}

fn parse_dims(dims: &str) -> Vec<i64> {
    if dims.is_empty() {
        Vec::new()
    } else {
        dims.split(',').map(|d| d.parse().unwrap()).collect()
    }
}

/// Every case of `tests/data/literal_print_cases.txt` (written by real XLA, see
/// `gen_literal_print.py`): HLO constant bodies and `Literal::ToString`.
#[test]
fn printing_matches_xla() {
    let text = include_str!("data/literal_print_cases.txt");
    let mut checked = 0;
    for (line_no, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.splitn(5, '\t').collect();
        let [kind, ty, dims, bits, expected] = fields[..] else {
            panic!("line {line_no}")
        };
        let ty_p = PrimitiveType::from_name(ty).unwrap();
        let lit = Literal::from_array_data(
            Shape::array(ty_p, parse_dims(dims)),
            data_from_bits(ty, bits),
        )
        .unwrap();
        let (got, want) = match kind {
            "body" => (lit.hlo_constant_body(), expected.to_string()),
            "tostring" => (lit.to_string(), expected.replace("\\n", "\n")),
            other => panic!("unknown kind {other}"),
        };
        if got != want {
            // Pinpoint the first differing element for long arrays.
            let g: Vec<&str> = got.split(", ").collect();
            let w: Vec<&str> = want.split(", ").collect();
            let first = g.iter().zip(&w).position(|(a, b)| a != b);
            panic!(
                "line {}: {kind} {ty}[{dims}]: first difference at item {first:?}: got {:?} want {:?}",
                line_no + 1,
                first.map(|i| g[i]),
                first.map(|i| w[i])
            );
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} cases");
}

/// Tuples and tokens; expected text printed by XLA's HLO printer (`print_large_constants`)
/// and by `str(jaxlib._hlo.Literal(shape))` for a tuple shape.
#[test]
fn tuples_print_like_xla() {
    let a = Literal::tuple(vec![
        Literal::scalar(1.5f32),
        Literal::vec1(&[1i32, 2]),
        Literal::vec1(&[true, false]),
        Literal::scalar(true),
    ]);
    assert_eq!(a.hlo_constant_body(), "( 1.5, {1, 2}, {1, 0}, true )");
    let b = Literal::tuple(vec![
        Literal::from_vec(&[2, 2], vec![1f32, 2., 3., 4.]).unwrap(),
        Literal::tuple(vec![
            Literal::scalar(Complex32::new(1.0, 2.0)),
            Literal::vec1::<u8>(&[]),
        ]),
        Literal::tuple(vec![]),
    ]);
    assert_eq!(
        b.hlo_constant_body(),
        "( { { 1, 2 }, { 3, 4 } }, ( (1, 2), {} ), (  ) )"
    );
    assert_eq!(Literal::tuple(vec![]).hlo_constant_body(), "(  )");
    assert_eq!(Literal::tuple(vec![]).to_string(), "(\n\n)");

    let c = Literal::tuple(vec![
        Literal::scalar(0f32),
        Literal::vec1(&[false, false]),
        Literal::tuple(vec![Literal::vec1(&[0i32])]),
        Literal::token(),
    ]);
    assert_eq!(
        c.to_string(),
        "(\nf32[] 0,\npred[2] {0, 0},\n(\ns32[1] {0}\n),\ntoken\n)"
    );
    let d = Literal::tuple(vec![
        Literal::from_vec(&[2, 2], vec![0f32; 4]).unwrap(),
        Literal::tuple(vec![]),
        Literal::tuple(vec![Literal::vec1(&[0i32])]),
    ]);
    assert_eq!(
        d.to_string(),
        "(\nf32[2,2] {\n  { 0, 0 },\n  { 0, 0 }\n},\n(\n\n),\n(\ns32[1] {0}\n)\n)"
    );
    assert_eq!(
        c.to_string_oneline(),
        "( f32[] 0, pred[2] {0, 0}, ( s32[1] {0} ), token )"
    );
}

/// Scalars as the HLO printer writes them (conformance README and real XLA output).
#[test]
fn scalar_constant_bodies() {
    let cases: Vec<(Literal, &str)> = vec![
        (Literal::scalar(1.5f32), "1.5"),
        (Literal::scalar(f32::NEG_INFINITY), "-inf"),
        (Literal::scalar(f32::NAN), "nan"),
        (Literal::scalar(true), "true"),
        (Literal::scalar(false), "false"),
        (Literal::scalar(1e-5f32), "1e-05"),
        (Literal::scalar(-3.5233877e-06f32), "-3.5233877e-06"),
        (Literal::scalar(3.4e38f32), "3.4e+38"),
        (Literal::scalar(1f32), "1"),
        (Literal::scalar(i64::MIN), "-9223372036854775808"),
        (Literal::scalar(u64::MAX), "18446744073709551615"),
        (Literal::scalar(Complex64::new(1e-5, 3.0)), "(1e-05, 3)"),
        (
            Literal::scalar(f32::from_bits(0x7fc0_0001)),
            "nan(0x400001)",
        ),
        (Literal::scalar(f32::from_bits(0xff80_0001)), "-nan(0x1)"),
    ];
    for (lit, want) in cases {
        assert_eq!(lit.hlo_constant_body(), want, "{lit:?}");
    }
    assert_eq!(Literal::scalar(1.5f32).to_string(), "f32[] 1.5");
    assert_eq!(Literal::vec1(&[1i32, 2, 3]).to_string(), "s32[3] {1, 2, 3}");
    assert_eq!(Literal::token().to_string(), "token");
}

#[test]
fn construction_and_access() {
    let lit = Literal::from_vec(&[2, 3], vec![1.5f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    assert_eq!(lit.element_count(), 6);
    assert_eq!(lit.rank(), 2);
    assert_eq!(lit.element_type(), PrimitiveType::F32);
    assert_eq!(lit.get::<f32>(&[1, 2]).unwrap(), 6.0);
    assert_eq!(lit.get_as_f64(&[0, 0]).unwrap(), 1.5);
    assert_eq!(
        lit.to_vec::<f32>().unwrap(),
        vec![1.5, 2.0, 3.0, 4.0, 5.0, 6.0]
    );

    // Errors, never panics: wrong type, wrong rank, out of bounds, wrong count, wrong kind.
    let errors = [
        lit.get::<i32>(&[0, 0]).unwrap_err().to_string(),
        lit.get::<f32>(&[0]).unwrap_err().to_string(),
        lit.get::<f32>(&[0, 3]).unwrap_err().to_string(),
        lit.get::<f32>(&[-1, 0]).unwrap_err().to_string(),
        lit.reshape(&[4, 2]).unwrap_err().to_string(),
        lit.reshape(&[-2, -3]).unwrap_err().to_string(),
        Literal::from_vec(&[2, 2], vec![1u8; 3])
            .unwrap_err()
            .to_string(),
        Literal::scalar(1i32)
            .decompose_tuple()
            .unwrap_err()
            .to_string(),
        Literal::tuple(vec![])
            .get::<f32>(&[])
            .unwrap_err()
            .to_string(),
        Literal::scalar(Complex32::new(1.0, 0.0))
            .get_as_f64(&[])
            .unwrap_err()
            .to_string(),
    ];
    let want = [
        "f32[2,3] holds f32 elements, not s32",
        "index [0] is out of bounds for f32[2,3]",
        "index [0, 3] is out of bounds for f32[2,3]",
        "index [-1, 0] is out of bounds for f32[2,3]",
        "shape f32[4,2] holds 8 elements but 6 were given",
        "negative dimension",
        "shape u8[2,2] holds 4 elements but 3 were given",
        "decompose_tuple needs a tuple, got s32[]",
        "needs an array, got ()",
        "needs a real or integer array, got c64[]",
    ];
    for (got, want) in errors.iter().zip(want) {
        assert!(got.contains(want), "{got:?} should contain {want:?}");
    }

    let mut m = lit.reshape(&[3, 2]).unwrap();
    m.set(&[2, 0], -1.0f32).unwrap();
    assert_eq!(m.get::<f32>(&[2, 0]).unwrap(), -1.0);
    assert!(m.set(&[2, 0], 1i32).is_err());
    assert_eq!(
        m.to_string_oneline(),
        "f32[3,2] { { 1.5, 2 }, { 3, 4 }, { -1, 6 } }"
    );

    let t = Literal::tuple(vec![Literal::scalar(7u64), m.clone()]);
    assert_eq!(t.tuple_element(0).unwrap().to_scalar::<u64>().unwrap(), 7);
    assert!(t.tuple_element(2).is_err());
    let parts = t.decompose_tuple().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[1], m);
    assert_eq!(Literal::scalar(true).get_as_f64(&[]).unwrap(), 1.0);
    assert_eq!(
        Literal::scalar(u64::MAX).get_as_f64(&[]).unwrap(),
        18446744073709551615.0
    );
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_round_trips() {
    use ndarray::{array, s, Array3, ArrayD, IxDyn};
    let a = array![[1i64, 2, 3], [4, 5, 6]];
    // Transposed view: logical order, not memory order.
    let t = Literal::from_ndarray(&a.t());
    assert_eq!(t.dims(), &[3, 2]);
    assert_eq!(t.to_vec::<i64>().unwrap(), vec![1, 4, 2, 5, 3, 6]);
    // Negative strides and steps.
    assert_eq!(
        Literal::from(&a).to_vec::<i64>().unwrap(),
        vec![1, 2, 3, 4, 5, 6]
    );
    let r = Literal::from(a.slice(s![..;-1, ..;2]));
    assert_eq!(r.to_string_oneline(), "s64[2,2] { { 4, 6 }, { 1, 3 } }");
    // Owned arrays move; non-standard owned arrays are read logically.
    let owned = Array3::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as f32);
    let lit = Literal::from(owned.clone());
    assert_eq!(lit.get::<f32>(&[1, 2, 3]).unwrap(), 123.0);
    let back: ArrayD<f32> = (&lit).try_into().unwrap();
    assert_eq!(back, owned.clone().into_dyn());
    let permuted = owned.clone().permuted_axes([2, 0, 1]);
    let lit = Literal::from(permuted.clone());
    assert_eq!(lit.dims(), &[4, 2, 3]);
    assert_eq!(lit.get::<f32>(&[3, 1, 2]).unwrap(), 123.0);
    assert_eq!(lit.into_ndarray::<f32>().unwrap(), permuted.into_dyn());
    // Scalars and empty arrays.
    let z = ArrayD::<u8>::zeros(IxDyn(&[0, 3]));
    let lz = Literal::from(&z);
    assert_eq!(lz.to_string(), "u8[0,3] {\n\n}");
    assert_eq!(lz.to_ndarray::<u8>().unwrap(), z);
    let sc = Literal::scalar(half::bf16::from_f32(2.5));
    assert_eq!(
        sc.to_ndarray::<half::bf16>()
            .unwrap()
            .into_dimensionality::<ndarray::Ix0>()
            .unwrap()[()]
            .to_f32(),
        2.5
    );
    // Errors.
    assert!(sc.to_ndarray::<f32>().is_err());
    let err = ArrayD::<f32>::try_from(Literal::tuple(vec![])).unwrap_err();
    assert!(err.to_string().contains("needs an array"), "{err}");
}

#[cfg(feature = "npy")]
mod npy {
    use super::*;
    use std::path::PathBuf;

    fn data_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
    }

    fn conformance_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance")
    }

    /// A fresh directory under the system temp dir for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("xla-core-literal-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The element bytes of a literal (little-endian, row-major) without the npy header.
    fn element_bytes(lit: &Literal) -> Vec<u8> {
        let bytes = lit.to_npy_bytes().unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        bytes[10 + header_len..].to_vec()
    }

    fn fnv1a64(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
        })
    }

    /// Fixtures written by numpy (`gen_npy_fixtures.py`): every dtype, both byte orders, C and
    /// Fortran order, 0-d, size-0, versions 1.0/2.0/3.0, bf16 as `<V2`.
    #[test]
    fn reads_numpy_fixtures() {
        let manifest = std::fs::read_to_string(data_dir().join("npy/manifest.txt")).unwrap();
        let mut n = 0;
        for line in manifest.lines() {
            let [file, ty, dims, bits] = line.split('\t').collect::<Vec<_>>()[..] else {
                panic!("{line}")
            };
            let path = data_dir().join("npy").join(file);
            let got = Literal::read_npy(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
            let ty_p = PrimitiveType::from_name(ty).unwrap();
            let want = Literal::from_array_data(
                Shape::array(ty_p, parse_dims(dims)),
                data_from_bits(ty, bits),
            )
            .unwrap();
            assert_eq!(got, want, "{file}: got {got} want {want}");
            // What we write for a little-endian C-order file is byte for byte what numpy wrote.
            if !file.contains("_be_") && !file.ends_with("_f.npy") && !file.contains("_v") {
                assert_eq!(
                    got.to_npy_bytes().unwrap(),
                    std::fs::read(&path).unwrap(),
                    "{file}: bytes differ from numpy's"
                );
            }
            n += 1;
        }
        assert!(n >= 80, "only {n} fixtures");
    }

    /// Every input and output of the conformance suite: dtype, shape and contents as numpy
    /// reads them (`conformance_npy_manifest.txt`).
    #[test]
    fn reads_every_conformance_file() {
        let manifest =
            std::fs::read_to_string(data_dir().join("conformance_npy_manifest.txt")).unwrap();
        let mut n = 0;
        for line in manifest.lines() {
            let [file, ty, dims, hash] = line.split('\t').collect::<Vec<_>>()[..] else {
                panic!("{line}")
            };
            let lit =
                Literal::read_npy(conformance_dir().join(file)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(lit.element_type().name(), ty, "{file}");
            assert_eq!(lit.dims(), &parse_dims(dims)[..], "{file}");
            assert_eq!(
                format!("{:016x}", fnv1a64(&element_bytes(&lit))),
                hash,
                "{file}"
            );
            n += 1;
        }
        assert!(n > 1000, "only {n} files");
    }

    fn every_type_literals() -> Vec<Literal> {
        let c32 = |a: f32, b: f32| Complex32::new(a, b);
        let c64 = |a: f64, b: f64| Complex64::new(a, b);
        vec![
            Literal::from_vec(&[2, 2], vec![true, false, false, true]).unwrap(),
            Literal::vec1(&[i8::MIN, -1, 0, i8::MAX]),
            Literal::vec1(&[i16::MIN, -1, 0, i16::MAX]),
            Literal::from_vec(&[2, 1, 2], vec![i32::MIN, -1, 0, i32::MAX]).unwrap(),
            Literal::vec1(&[i64::MIN, -1, 0, i64::MAX]),
            Literal::vec1(&[0u8, 1, 255]),
            Literal::vec1(&[0u16, 1, u16::MAX]),
            Literal::vec1(&[0u32, 1, u32::MAX]),
            Literal::vec1(&[0u64, 1, u64::MAX]),
            Literal::vec1(&[
                f16::from_f32(0.1),
                f16::NAN,
                f16::NEG_INFINITY,
                f16::from_bits(0x8001),
            ]),
            Literal::vec1(&[
                bf16::from_f32(0.1),
                bf16::NAN,
                bf16::INFINITY,
                bf16::from_bits(0x8000),
            ]),
            Literal::from_vec(&[3, 0], Vec::<f32>::new()).unwrap(),
            Literal::scalar(f32::from_bits(0x7fc0_1234)),
            Literal::vec1(&[
                f64::MIN_POSITIVE,
                -0.0,
                f64::from_bits(0xfff0_0000_0000_0001),
            ]),
            Literal::vec1(&[c32(1.0, -2.0), c32(f32::NAN, 0.5)]),
            Literal::scalar(c64(1e300, -1e-300)),
            Literal::scalar(true),
            Literal::from_vec(&[0], Vec::<Complex64>::new()).unwrap(),
        ]
    }

    #[test]
    fn round_trips_every_type() {
        let dir = scratch("roundtrip");
        for (i, lit) in every_type_literals().into_iter().enumerate() {
            let bytes = lit.to_npy_bytes().unwrap();
            assert_eq!(
                bytes.len() % 64,
                (lit.element_count() * lit.element_type().byte_size()) % 64
            );
            assert_eq!(Literal::from_npy_bytes(&bytes).unwrap(), lit, "{lit}");
            let path = dir.join(format!("{i}.npy"));
            lit.write_npy(&path).unwrap();
            assert_eq!(Literal::read_npy(&path).unwrap(), lit, "{lit}");
        }
        // Only the written files remain: no temporaries.
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            every_type_literals().len()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_errors_leave_no_file() {
        let dir = scratch("write-errors");
        let path = dir.join("t.npy");
        let err = Literal::tuple(vec![])
            .write_npy(&path)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t.npy") && err.contains("only arrays"),
            "{err}"
        );
        let missing = dir.join("no/such/dir/x.npy");
        let err = Literal::scalar(1f32)
            .write_npy(&missing)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no/such/dir/x.npy"), "{err}");
        // Overwriting keeps the old file intact until the new one is complete.
        Literal::scalar(1f32).write_npy(&path).unwrap();
        Literal::scalar(2i64).write_npy(&path).unwrap();
        assert_eq!(Literal::read_npy(&path).unwrap(), Literal::scalar(2i64));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn npy_with_header(header: &str, data: &[u8]) -> Vec<u8> {
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn malformed_files_are_errors() {
        let f4 = |shape: &str| {
            format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}\n")
        };
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"".to_vec(), "too short"),
            (b"\x93NUMP".to_vec(), "too short"),
            (b"PK\x03\x04 this is a zip".to_vec(), "bad magic"),
            (b"\x93NUMPY\x04\x00\x10\x00".to_vec(), "version 4.0"),
            (b"\x93NUMPY\x01\x00\xff\x00{}".to_vec(), "runs past the end"),
            (npy_with_header(&f4("(2,)"), &[0; 7]), "truncated"),
            (npy_with_header(&f4("(2,)"), &[0; 9]), "trailing bytes"),
            (npy_with_header(&f4("(-1,)"), &[]), "negative dimension"),
            (
                npy_with_header(&f4("(4294967296, 4294967296, 4294967296)"), &[]),
                "too many elements",
            ),
            (
                npy_with_header(
                    "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }",
                    &[0; 12],
                ),
                "unsupported dtype '<U3'",
            ),
            (
                npy_with_header(
                    "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }",
                    &[0; 8],
                ),
                "unsupported dtype '|O'",
            ),
            (
                npy_with_header(
                    "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                    &[0; 4],
                ),
                "structured",
            ),
            (
                npy_with_header("{'descr': '<f4', 'shape': (1,), }", &[0; 4]),
                "no 'fortran_order'",
            ),
            (
                npy_with_header(
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)",
                    &[0; 4],
                ),
                "malformed header",
            ),
        ];
        for (bytes, want) in cases {
            let err = Literal::from_npy_bytes(&bytes).unwrap_err().to_string();
            assert!(err.contains(want), "{err:?} should mention {want:?}");
            assert!(err.starts_with("npy: <bytes>: "), "{err}");
        }
        let err = Literal::read_npy("/nonexistent/file.npy")
            .unwrap_err()
            .to_string();
        assert!(err.contains("/nonexistent/file.npy"), "{err}");
    }

    /// Every prefix of a valid file and many corrupted copies give errors or values, never panics.
    #[test]
    fn truncation_and_corruption_never_panic() {
        let lit = Literal::from_vec(&[2, 3], vec![1.5f64, 2., 3., 4., 5., 6.]).unwrap();
        let bytes = lit.to_npy_bytes().unwrap();
        for len in 0..bytes.len() {
            assert!(
                Literal::from_npy_bytes(&bytes[..len]).is_err(),
                "prefix of {len} bytes accepted"
            );
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let mut b = bytes.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % 80) as usize;
                b[at] = next() as u8;
            }
            let _ = Literal::from_npy_bytes(&b);
        }
    }
}

#[cfg(all(feature = "npy", feature = "ndarray"))]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// A shape of rank 0..=4 with dims 0..=3, and bit patterns for its elements.
    fn shaped_bits() -> impl Strategy<Value = (Vec<i64>, Vec<u64>)> {
        proptest::collection::vec(0i64..=3, 0..=4).prop_flat_map(|dims| {
            let n = dims.iter().product::<i64>() as usize;
            (Just(dims), proptest::collection::vec(any::<u64>(), n))
        })
    }

    fn literal_of(ty: &str, dims: &[i64], bits: &[u64]) -> Literal {
        let hex: Vec<String> = if ty.starts_with('c') {
            bits.iter()
                .map(|b| format!("{:x}:{:x}", b & 0xffff_ffff, b >> 32))
                .collect()
        } else {
            bits.iter().map(|b| format!("{b:x}")).collect()
        };
        let ty_p = PrimitiveType::from_name(ty).unwrap();
        Literal::from_array_data(
            Shape::array(ty_p, dims.to_vec()),
            data_from_bits(ty, &hex.join(",")),
        )
        .unwrap()
    }

    proptest! {
        #[test]
        fn npy_and_ndarray_round_trip(
            (dims, bits) in shaped_bits(),
            ty in proptest::sample::select(vec!["pred", "s8", "u16", "s32", "u64", "f16", "bf16", "f32", "f64", "c64"]),
        ) {
            let mask = |b: u64| match ty {
                "pred" => b & 1,
                "s8" => b & 0xff,
                "u16" | "f16" | "bf16" => b & 0xffff,
                "s32" | "f32" => b & 0xffff_ffff,
                _ => b,
            };
            let bits: Vec<u64> = bits.into_iter().map(mask).collect();
            let lit = literal_of(ty, &dims, &bits);
            let back = Literal::from_npy_bytes(&lit.to_npy_bytes().unwrap()).unwrap();
            prop_assert_eq!(&back, &lit);
            if ty == "f32" {
                let arr = lit.to_ndarray::<f32>().unwrap();
                prop_assert_eq!(&Literal::from(&arr), &lit);
                // Reversing every axis twice through ndarray views is the identity.
                let mut v = arr.view();
                for ax in 0..v.ndim() { v.invert_axis(ndarray::Axis(ax)); }
                let rev = Literal::from(v);
                let mut w = rev.to_ndarray::<f32>().unwrap();
                for ax in 0..w.ndim() { w.invert_axis(ndarray::Axis(ax)); }
                prop_assert_eq!(&Literal::from(&w), &lit);
            }
        }
    }
}
