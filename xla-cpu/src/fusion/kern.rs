//! One small function per fused op on blocks of `V` elements, for each element type,
//! compiled for the baseline, AVX2 and AVX-512 and chosen once per process. Each is a fully
//! unrolled vector loop; the interpreter calls them through a table (an indirect call per
//! op and block) instead of one giant match, which measured about 3x faster on long chains.

use super::lane::Lane;
use super::ops::{vmax, vmin};
use super::Fop;
use crate::kernels::elementwise::fsign;
use crate::scalar::Real;
use xla_core::attrs::{BinaryOp, ComparisonDirection, UnaryOp};

/// Elements per fast block: small enough that a kernel's registers stay in L1 and each op
/// is a few fully unrolled vector instructions (measured: 64 ran a long chain about 3x
/// faster than 2048; 128 beat 64 by 10-20% on softmax and tied on gelu, 256 lost on gelu).
pub(crate) const V: usize = 128;

/// Independent accumulators of a row fold: element `i` of a folded range goes to lane
/// `i % LANES`, and the lanes are combined in order at the end. Four AVX-512 vectors (eight
/// AVX2), so the combiner's latency is hidden (measured: a single vector of 16 made the
/// max-reduce of the softmax benchmark latency-bound). Generated fold code keeps the same
/// lanes in four registers, so both give the same bits.
pub(crate) const LANES: usize = 64;
/// One fast block.
pub(crate) type Vb<L> = [L; V];
/// A block op: `o = f(a, b, c)` (unused operands are ignored).
pub(crate) type OpFn<L> = unsafe fn(&Vb<L>, &Vb<L>, &Vb<L>, &mut Vb<L>);

macro_rules! kernels {
    ($($name:ident = |$x:ident, $y:ident, $z:ident| $e:expr;)*) => {
        mod base {
            use super::*;
            $(
                #[allow(unused_variables)]
                pub(super) unsafe fn $name<L: Lane>(a: &Vb<L>, b: &Vb<L>, c: &Vb<L>, o: &mut Vb<L>) {
                    for i in 0..V {
                        let ($x, $y, $z) = (a[i], b[i], c[i]);
                        o[i] = $e;
                    }
                }
            )*
        }
        #[cfg(target_arch = "x86_64")]
        mod avx2 {
            use super::*;
            $(
                #[allow(unused_variables)]
                #[target_feature(enable = "avx2,fma")]
                pub(super) unsafe fn $name<L: Lane>(a: &Vb<L>, b: &Vb<L>, c: &Vb<L>, o: &mut Vb<L>) {
                    for i in 0..V {
                        let ($x, $y, $z) = (a[i], b[i], c[i]);
                        o[i] = $e;
                    }
                }
            )*
        }
        #[cfg(target_arch = "x86_64")]
        mod avx512 {
            use super::*;
            $(
                #[allow(unused_variables)]
                #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                pub(super) unsafe fn $name<L: Lane>(a: &Vb<L>, b: &Vb<L>, c: &Vb<L>, o: &mut Vb<L>) {
                    for i in 0..V {
                        let ($x, $y, $z) = (a[i], b[i], c[i]);
                        o[i] = $e;
                    }
                }
            )*
        }
        /// The block ops of one element type and instruction-set level.
        pub(crate) struct Table<L> {
            $(pub(crate) $name: OpFn<L>,)*
        }
        /// The table of `L` for instruction-set `level` (see `run::simd_level`).
        pub(crate) fn table_for<L: Lane>(level: u8) -> Table<L> {
            #[cfg(target_arch = "x86_64")]
            {
                if level >= 2 {
                    return Table { $($name: avx512::$name::<L>,)* };
                }
                if level == 1 {
                    return Table { $($name: avx2::$name::<L>,)* };
                }
            }
            let _ = level;
            Table { $($name: base::$name::<L>,)* }
        }
    };
}

kernels! {
    copy = |x, y, z| x;
    add = |x, y, z| x + y;
    sub = |x, y, z| x - y;
    mul = |x, y, z| x * y;
    div = |x, y, z| x / y;
    rem = |x, y, z| x % y;
    pow = |x, y, z| x.powf(y);
    max = |x, y, z| vmax(x, y);
    min = |x, y, z| vmin(x, y);
    atan2 = |x, y, z| x.atan2(y);
    abs = |x, y, z| x.abs();
    neg = |x, y, z| -x;
    exp = |x, y, z| x.lexp();
    tanh = |x, y, z| x.ltanh();
    log = |x, y, z| x.lln();
    logistic = |x, y, z| x.llogistic();
    sqrt = |x, y, z| x.sqrt();
    rsqrt = |x, y, z| L::one() / x.sqrt();
    sign = |x, y, z| fsign(x);
    floor = |x, y, z| x.floor();
    ceil = |x, y, z| x.ceil();
    cbrt = |x, y, z| x.cbrt();
    cos = |x, y, z| x.cos();
    sin = |x, y, z| x.sin();
    tan = |x, y, z| x.tan();
    erf = |x, y, z| <L as Real>::erf(x);
    expm1 = |x, y, z| x.exp_m1();
    log1p = |x, y, z| x.llog1p();
    round_afz = |x, y, z| x.round();
    round_even = |x, y, z| <L as Real>::round_even(x);
    eq = |x, y, z| L::mask(x == y);
    ne = |x, y, z| L::mask(x != y);
    ge = |x, y, z| L::mask(x >= y);
    gt = |x, y, z| L::mask(x > y);
    le = |x, y, z| L::mask(x <= y);
    lt = |x, y, z| L::mask(x < y);
    select = |x, y, z| if x != L::zero() { y } else { z };
    clamp = |x, y, z| vmin(vmax(y, x), z);
}

/// The block op of `f` (ops never planned map to `copy`).
pub(crate) fn lookup<L>(t: &Table<L>, f: Fop) -> OpFn<L> {
    use BinaryOp as B;
    use ComparisonDirection as C;
    use UnaryOp as U;
    match f {
        Fop::Unary(u) => match u {
            U::Abs => t.abs,
            U::Neg => t.neg,
            U::Exp => t.exp,
            U::Tanh => t.tanh,
            U::Log => t.log,
            U::Logistic => t.logistic,
            U::Sqrt => t.sqrt,
            U::Rsqrt => t.rsqrt,
            U::Sign => t.sign,
            U::Floor => t.floor,
            U::Ceil => t.ceil,
            U::Cbrt => t.cbrt,
            U::Cos => t.cos,
            U::Sin => t.sin,
            U::Tan => t.tan,
            U::Erf => t.erf,
            U::Expm1 => t.expm1,
            U::Log1p => t.log1p,
            U::RoundNearestAfz => t.round_afz,
            U::RoundNearestEven => t.round_even,
            U::Imag | U::Real | U::IsFinite | U::Clz | U::Not | U::Popcnt => t.copy,
        },
        Fop::Binary(b) => match b {
            B::Add => t.add,
            B::Sub => t.sub,
            B::Mul => t.mul,
            B::Div => t.div,
            B::Rem => t.rem,
            B::Pow => t.pow,
            B::Max => t.max,
            B::Min => t.min,
            B::Atan2 => t.atan2,
            B::Complex
            | B::And
            | B::Or
            | B::Xor
            | B::ShiftLeft
            | B::ShiftRightArithmetic
            | B::ShiftRightLogical => t.copy,
        },
        Fop::Cmp(d) => match d {
            C::Eq => t.eq,
            C::Ne => t.ne,
            C::Ge => t.ge,
            C::Gt => t.gt,
            C::Le => t.le,
            C::Lt => t.lt,
        },
        Fop::Select => t.select,
        Fop::Clamp => t.clamp,
    }
}
