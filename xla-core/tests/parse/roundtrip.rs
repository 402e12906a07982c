//! Constants printed by `Literal::hlo_constant_body` (XLA's printer format) parse back to
//! the same bits, for random bit patterns of every element type (NaN payloads, subnormals,
//! signed zeros and infinities included).

use super::*;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use proptest::prelude::*;
use xla_core::literal::ArrayData;
use xla_core::PrimitiveType;

const TYPES: &[PrimitiveType] = &[
    PrimitiveType::Pred,
    PrimitiveType::S8,
    PrimitiveType::S16,
    PrimitiveType::S32,
    PrimitiveType::S64,
    PrimitiveType::U8,
    PrimitiveType::U16,
    PrimitiveType::U32,
    PrimitiveType::U64,
    PrimitiveType::F16,
    PrimitiveType::Bf16,
    PrimitiveType::F32,
    PrimitiveType::F64,
    PrimitiveType::C64,
    PrimitiveType::C128,
];

/// Elements of type `ty` made from raw bit patterns (two per complex element).
fn data_from_bits(ty: PrimitiveType, bits: &[(u64, u64)]) -> ArrayData {
    let v = bits.iter();
    match ty {
        PrimitiveType::Pred => ArrayData::Pred(v.map(|b| b.0 & 1 == 1).collect()),
        PrimitiveType::S8 => ArrayData::S8(v.map(|b| b.0 as i8).collect()),
        PrimitiveType::S16 => ArrayData::S16(v.map(|b| b.0 as i16).collect()),
        PrimitiveType::S32 => ArrayData::S32(v.map(|b| b.0 as i32).collect()),
        PrimitiveType::S64 => ArrayData::S64(v.map(|b| b.0 as i64).collect()),
        PrimitiveType::U8 => ArrayData::U8(v.map(|b| b.0 as u8).collect()),
        PrimitiveType::U16 => ArrayData::U16(v.map(|b| b.0 as u16).collect()),
        PrimitiveType::U32 => ArrayData::U32(v.map(|b| b.0 as u32).collect()),
        PrimitiveType::U64 => ArrayData::U64(v.map(|b| b.0).collect()),
        PrimitiveType::F16 => ArrayData::F16(v.map(|b| f16::from_bits(b.0 as u16)).collect()),
        PrimitiveType::Bf16 => ArrayData::Bf16(v.map(|b| bf16::from_bits(b.0 as u16)).collect()),
        PrimitiveType::F32 => ArrayData::F32(v.map(|b| f32::from_bits(b.0 as u32)).collect()),
        PrimitiveType::F64 => ArrayData::F64(v.map(|b| f64::from_bits(b.0)).collect()),
        PrimitiveType::C64 => ArrayData::C64(
            v.map(|b| Complex32::new(f32::from_bits(b.0 as u32), f32::from_bits(b.1 as u32)))
                .collect(),
        ),
        PrimitiveType::C128 => ArrayData::C128(
            v.map(|b| Complex64::new(f64::from_bits(b.0), f64::from_bits(b.1)))
                .collect(),
        ),
        PrimitiveType::Tuple | PrimitiveType::Token => panic!("not an array type"),
    }
}

fn literal_strategy() -> impl Strategy<Value = Literal> {
    (0..TYPES.len(), prop::collection::vec(0i64..4, 0..=4)).prop_flat_map(|(t, dims)| {
        let n = dims.iter().product::<i64>() as usize;
        prop::collection::vec(any::<(u64, u64)>(), n).prop_map(move |bits| {
            let ty = TYPES[t];
            let shape = Shape::array(ty, dims.clone());
            Literal::from_array_data(shape, data_from_bits(ty, &bits)).unwrap()
        })
    })
}

fn round_trip(lit: &Literal) -> Literal {
    let text = format!(
        "HloModule r\nENTRY e {{\n  ROOT c = {} constant({})\n}}\n",
        lit.shape(),
        lit.hlo_constant_body()
    );
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    match &m.computations[0].instructions[0].op {
        Op::Constant { literal } => literal.clone(),
        other => panic!("{other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn printed_constants_parse_to_the_same_bits(lit in literal_strategy()) {
        prop_assert_eq!(round_trip(&lit), lit);
    }

    #[test]
    fn printed_tuple_constants_parse_back(a in literal_strategy(), b in literal_strategy()) {
        let t = Literal::tuple(vec![a, Literal::tuple(vec![b])]);
        prop_assert_eq!(round_trip(&t), t);
    }
}
