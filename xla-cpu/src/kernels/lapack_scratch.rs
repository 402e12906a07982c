//! The scratch of the spectral and Householder LAPACK targets, admitted to the memory
//! budget ([`crate::limits::scratch`]) before they run: faer's workspaces (sized by its own
//! `*_scratch` functions) and the matrices faer and the kernels allocate per matrix
//! (eigenvector and singular-vector matrices, their row-major copies, the working copy a
//! Householder kernel reduces). Matrices of a batch are done one at a time, so one matrix's
//! scratch is admitted once per instruction.
//!
//! The sizes follow what each kernel allocates: `syevd` (`lapack_eigen.rs`) faer's `U` and
//! `S`, its workspace and the row-major copy of `U`; `gesdd` `U`, `V` (full or thin), `S`,
//! the workspace and the copies of `U` and `Vᴴ`; `geev` the two eigenvalue diagonals, both
//! `n`×`n` eigenvector matrices (allocated whether asked for or not), the workspace and the
//! complex unpacked vectors; `gees` (`lapack_schur.rs`) the Hessenberg copy, the Schur
//! vectors, the scaling and the eigenvalues; `geqrf`, `orgqr`, `gehrd`, `sytrd`
//! (`lapack_householder.rs`) the working copy and `tau`.

use super::lapack_scalar::Scalar;
use crate::error::Result;
use crate::limits::scratch::{admit, bytes_of};
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::linalg::svd::{self, ComputeSvdVectors};
use faer::Par;
use num_complex::Complex;

/// `a + b + ...` saturating.
fn sum(parts: &[u64]) -> u64 {
    parts.iter().fold(0, |a, &b| a.saturating_add(b))
}

/// Elements of `T` in `r`×`c` matrices, `k` of them.
fn mats<T>(k: usize, r: usize, c: usize) -> u64 {
    bytes_of::<T>(r.saturating_mul(c)).saturating_mul(k as u64)
}

/// Admits `syevd`'s scratch for `n`×`n` matrices.
///
/// # Errors
/// [`crate::error::CpuError::ScratchOverBudget`] or [`crate::error::CpuError::Allocation`].
pub(crate) fn syevd<T: Scalar>(n: usize) -> Result<()> {
    let ws = evd::self_adjoint_evd_scratch::<T>(
        n,
        ComputeEigenvectors::Yes,
        Par::Seq,
        Default::default(),
    );
    let bytes = sum(&[mats::<T>(2, n, n), bytes_of::<T>(n), ws.size_bytes() as u64]);
    admit("syevd (eigenvectors, their copy, faer workspace)", bytes)
}

/// Admits `gesdd`'s scratch for `m`×`n` matrices in `mode` (`A` full vectors, else thin).
///
/// # Errors
/// As [`syevd`].
pub(crate) fn gesdd<T: Scalar>(m: usize, n: usize, mode: char) -> Result<()> {
    let k = m.min(n);
    let (want, ucols, vcols) = if mode == 'A' {
        (ComputeSvdVectors::Full, m, n)
    } else {
        (ComputeSvdVectors::Thin, k, k)
    };
    let ws = svd::svd_scratch::<T>(m, n, want, want, Par::Seq, Default::default());
    let bytes = sum(&[
        mats::<T>(2, m, ucols),
        mats::<T>(2, n, vcols),
        bytes_of::<T>(k),
        ws.size_bytes() as u64,
    ]);
    admit(
        "gesdd (singular vectors, their copies, faer workspace)",
        bytes,
    )
}

/// Admits `geev`'s scratch for `n`×`n` matrices.
///
/// # Errors
/// As [`syevd`].
pub(crate) fn geev<T: Scalar>(n: usize, left: bool, right: bool) -> Result<()> {
    let want = |b: bool| {
        if b {
            ComputeEigenvectors::Yes
        } else {
            ComputeEigenvectors::No
        }
    };
    let ws = evd::evd_scratch::<T>(n, want(left), want(right), Par::Seq, Default::default());
    let bytes = sum(&[
        mats::<T>(2, n, n),
        bytes_of::<T>(n.saturating_mul(2)),
        mats::<Complex<T::R>>(2, n, n),
        bytes_of::<Complex<T::R>>(n),
        ws.size_bytes() as u64,
    ]);
    admit("geev (eigenvectors, faer workspace)", bytes)
}

/// Admits `gees`'s scratch for `n`×`n` matrices.
///
/// # Errors
/// As [`syevd`].
pub(crate) fn gees<T: Scalar>(n: usize) -> Result<()> {
    let bytes = sum(&[
        mats::<T>(2, n, n),
        bytes_of::<T::R>(n),
        bytes_of::<Complex<T::R>>(n),
    ]);
    admit("gees (Hessenberg copy, Schur vectors)", bytes)
}

/// Admits a Householder kernel's scratch (`what` names it) for `m`×`n` matrices.
///
/// # Errors
/// As [`syevd`].
pub(crate) fn householder<T: Scalar>(what: &'static str, m: usize, n: usize) -> Result<()> {
    admit(what, sum(&[mats::<T>(1, m, n), bytes_of::<T>(m.min(n))]))
}
