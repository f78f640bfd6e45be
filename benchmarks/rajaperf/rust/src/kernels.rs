//! The 13 kernels, one GPU thread per element behind a bounds guard on the global thread index,
//! and the problem sizes both passes share.
//!
//! Sizes are RAJAPerf's defaults (LLNL/RAJAPerf, src/apps/*.cpp `setSize`), fixed at compile
//! time so every array is a `[f64; N]` the kernels take by reference (`&[f64; N]`: mapped "to",
//! `&mut [f64; N]`: mapped "tofrom" by the offload runtime).
//!
//! Algorithms: the `*_BODY` macros of RAJAPerf's src/apps/*.hpp, written out in Rust with the
//! same operation order (so the only numeric difference from nvcc's build of the same formulas
//! is FMA contraction, which rustc does not do). The global index is
//! `blockIdx.x * 256 + threadIdx.x`, computed in 32 bits and widened (RAJAPerf's
//! `Index_type i = blockIdx.x * block_size + threadIdx.x` multiplies in 64 bits: the same values
//! for these grids). Scalars (ENERGY's rho0/e_cut/emin/q_cut, PRESSURE's, VOL3D's vnormq,
//! DEL_DOT_VEC_2D's half/ptiny) are parameters by value, as RAJAPerf passes them; offload-ls's
//! lowering for rustc 1.96 passes them by reference (an 8-byte "to" copy each, read from global
//! memory in the kernel; docs/upstream-offload.md).

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_idx_x, _block_idx_y, _block_idx_z, _thread_idx_x, _thread_idx_y, _thread_idx_z};
use core::offload::offload_kernel;

/// Threads per block of every 1-D launch (RAJAPerf's default `gpu_block_size`).
pub const BLOCK: u32 = 256;

/// Blocks for `n` threads of one element each: `ceil(n / BLOCK)` (RAJA_DIVIDE_CEILING_INT).
pub const fn blocks(n: usize) -> u32 {
    n.div_ceil(BLOCK as usize) as u32
}

// ------------------------------------------------------------------------------ sizes

/// Apps_ENERGY and Apps_PRESSURE: `setDefaultProblemSize(1000000)`.
pub const ENERGY_N: usize = 1_000_000;
pub const PRESSURE_N: usize = 1_000_000;

/// Apps_FIR: 1000000 outputs, `FIR_COEFFLEN` 16 taps; the input has `N + 15` elements
/// (RAJAPerf's current setUp: `m_in` of `getActualProblemSize() + m_coefflen - 1`).
pub const FIR_N: usize = 1_000_000;
pub const FIR_COEFFLEN: usize = 16;
pub const FIR_IN: usize = FIR_N + FIR_COEFFLEN - 1;

/// Apps_LTIMES: num_d 64, num_g 32, num_m 25, num_z = (1000000 + 64*32/2) / (64*32) = 488.
pub const LT_D: usize = 64;
pub const LT_G: usize = 32;
pub const LT_M: usize = 25;
pub const LT_Z: usize = 488;
pub const LT_PHI: usize = LT_M * LT_G * LT_Z;
pub const LT_ELL: usize = LT_D * LT_M;
pub const LT_PSI: usize = LT_D * LT_G * LT_Z;
/// LTIMES block shape (RAJAPerf LTIMES-Cuda.cpp for block_size 256: m 32, g and z the squarest
/// factor pair of 256/32 = 8, i.e. 4 x 2) and grid (ceil(25/32), ceil(32/4), ceil(488/2)).
pub const LT_BLOCK: [u32; 3] = [32, 4, 2];
pub const LT_GRID: [u32; 3] = [
    LT_M.div_ceil(LT_BLOCK[0] as usize) as u32,
    LT_G.div_ceil(LT_BLOCK[1] as usize) as u32,
    LT_Z.div_ceil(LT_BLOCK[2] as usize) as u32,
];

/// RAJAPerf's `ADomain` (src/apps/AppsData.hpp) for the 3-D kernels (VOL3D,
/// MATVEC_3D_STENCIL): `rzmax = cbrt(1000000) + 1 + cbrt(3) - 1` = 101, two ghost nodes on the
/// low side (NPNL) and one on the high side (NPNR): imin = 2, imax = rzmax + 1 = 102 (same in j,
/// k), `jp` = 104 nodes per row, `kp` = jp * jp per plane, `nnalls` = kp * 104 nodes in all;
/// the zone range [fpz, lpz] covers the real zones and one layer of ghost zones around them.
pub const D3_RZMAX: usize = 101;
pub const D3_IMIN: usize = 2;
pub const D3_IMAX: usize = D3_RZMAX + 1;
pub const D3_JP: usize = D3_IMAX - D3_IMIN + 1 + 2 + 1;
pub const D3_KP: usize = D3_JP * D3_JP;
pub const D3_NNALLS: usize = D3_KP * D3_JP;
pub const D3_FPZ: usize = (2 * (D3_KP + D3_JP) + 2) - D3_JP - D3_KP - 1;
pub const D3_LPZ: usize = (D3_NNALLS - 1) - (D3_KP + D3_JP) - 1;
/// Real zones of the 3-D domain: 100^3.
pub const D3_REAL_ZONES: usize = (D3_IMAX - D3_IMIN) * (D3_IMAX - D3_IMIN) * (D3_IMAX - D3_IMIN);

/// Apps_VOL3D iterates the zone range [fpz, lpz] (RAJAPerf VOL3D-Cuda.cpp: ibegin = fpz,
/// iend = lpz + 1; no index list).
pub const VOL3D_LEN: usize = D3_LPZ + 1 - D3_FPZ;

/// Apps_MATVEC_3D_STENCIL: zonal arrays of `lpz + 1` elements, 1000000 real zones.
pub const MV_LEN: usize = D3_LPZ + 1;

/// RAJAPerf's 2-D `ADomain` for Apps_DEL_DOT_VEC_2D: `rzmax = sqrt(1000000) + 1 + sqrt(2) - 1`
/// = 1001, imin = 2, imax = 1002, jp = 1004 nodes per row, nnalls = jp * jp, 1000^2 real zones.
pub const D2_RZMAX: usize = 1001;
pub const D2_IMIN: usize = 2;
pub const D2_IMAX: usize = D2_RZMAX + 1;
pub const D2_JP: usize = D2_IMAX - D2_IMIN + 1 + 2 + 1;
pub const D2_NNALLS: usize = D2_JP * D2_JP;
pub const D2_REAL_ZONES: usize = (D2_IMAX - D2_IMIN) * (D2_IMAX - D2_IMIN);

// Node offsets of the 27-point stencil of MATVEC_3D_STENCIL (d/c/u: plane below/this/above,
// b/c/f: row behind/this/in front, l/c/r: node left/this/right); device-only.
#[cfg(device)]
const KJ1: usize = D3_KP + D3_JP + 1;
#[cfg(device)]
const KJ: usize = D3_KP + D3_JP;
#[cfg(device)]
const KJM1: usize = D3_KP + D3_JP - 1;
#[cfg(device)]
const KMJ1: usize = D3_KP - D3_JP + 1;
#[cfg(device)]
const KMJ: usize = D3_KP - D3_JP;
#[cfg(device)]
const KMJM1: usize = D3_KP - D3_JP - 1;
#[cfg(device)]
const K1: usize = D3_KP + 1;
#[cfg(device)]
const KM1: usize = D3_KP - 1;
#[cfg(device)]
const J1: usize = D3_JP + 1;
#[cfg(device)]
const JM1: usize = D3_JP - 1;

// ------------------------------------------------------------------------------ thread index

#[cfg(device)]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// This thread's global x index: `blockIdx.x * 256 + threadIdx.x`.
#[cfg(device)]
#[inline(always)]
fn global_x() -> usize {
    // SAFETY: reading the thread's position has no precondition.
    unsafe { (_block_idx_x() * BLOCK + _thread_idx_x()) as usize }
}

/// This thread's (x, y, z) position for the 3-D LTIMES launch of `LT_BLOCK`-shaped blocks.
#[cfg(device)]
#[inline(always)]
fn global_xyz() -> (usize, usize, usize) {
    // SAFETY: reading the thread's position has no precondition.
    unsafe {
        (
            (_block_idx_x() * LT_BLOCK[0] + _thread_idx_x()) as usize,
            (_block_idx_y() * LT_BLOCK[1] + _thread_idx_y()) as usize,
            (_block_idx_z() * LT_BLOCK[2] + _thread_idx_z()) as usize,
        )
    }
}

/// ENERGY's sound-speed floor: `ssc <= 0.1111111e-36 ? 0.3333333e-18 : sqrt(ssc)`.
#[cfg(device)]
#[inline(always)]
fn ssc_floor(ssc: f64) -> f64 {
    if ssc <= 0.1111111e-36 { 0.3333333e-18 } else { core::f64::math::sqrt(ssc) }
}

// ------------------------------------------------------------------------------ Apps_ENERGY

/// ENERGY_BODY1.
#[offload_kernel]
pub fn energy1(
    e_new: &mut [f64; ENERGY_N],
    e_old: &[f64; ENERGY_N],
    delvc: &[f64; ENERGY_N],
    p_old: &[f64; ENERGY_N],
    q_old: &[f64; ENERGY_N],
    work: &[f64; ENERGY_N],
) {
    let i = global_x();
    if i < ENERGY_N {
        e_new[i] = e_old[i] - 0.5 * delvc[i] * (p_old[i] + q_old[i]) + 0.5 * work[i];
    }
}

/// ENERGY_BODY2.
#[offload_kernel]
pub fn energy2(
    delvc: &[f64; ENERGY_N],
    q_new: &mut [f64; ENERGY_N],
    comp_half_step: &[f64; ENERGY_N],
    p_half_step: &[f64; ENERGY_N],
    e_new: &[f64; ENERGY_N],
    bvc: &[f64; ENERGY_N],
    pbvc: &[f64; ENERGY_N],
    ql_old: &[f64; ENERGY_N],
    qq_old: &[f64; ENERGY_N],
    rho0: f64,
) {
    let i = global_x();
    if i < ENERGY_N {
        if delvc[i] > 0.0 {
            q_new[i] = 0.0;
        } else {
            let vhalf = 1.0 / (1.0 + comp_half_step[i]);
            let ssc = ssc_floor((pbvc[i] * e_new[i] + vhalf * vhalf * bvc[i] * p_half_step[i]) / rho0);
            q_new[i] = ssc * ql_old[i] + qq_old[i];
        }
    }
}

/// ENERGY_BODY3.
#[offload_kernel]
pub fn energy3(
    e_new: &mut [f64; ENERGY_N],
    delvc: &[f64; ENERGY_N],
    p_old: &[f64; ENERGY_N],
    q_old: &[f64; ENERGY_N],
    p_half_step: &[f64; ENERGY_N],
    q_new: &[f64; ENERGY_N],
) {
    let i = global_x();
    if i < ENERGY_N {
        e_new[i] = e_new[i] + 0.5 * delvc[i] * (3.0 * (p_old[i] + q_old[i]) - 4.0 * (p_half_step[i] + q_new[i]));
    }
}

/// ENERGY_BODY4.
#[offload_kernel]
pub fn energy4(e_new: &mut [f64; ENERGY_N], work: &[f64; ENERGY_N], e_cut: f64, emin: f64) {
    let i = global_x();
    if i < ENERGY_N {
        e_new[i] += 0.5 * work[i];
        if e_new[i].abs() < e_cut {
            e_new[i] = 0.0;
        }
        if e_new[i] < emin {
            e_new[i] = emin;
        }
    }
}

/// ENERGY_BODY5.
#[offload_kernel]
pub fn energy5(
    delvc: &[f64; ENERGY_N],
    pbvc: &[f64; ENERGY_N],
    e_new: &mut [f64; ENERGY_N],
    vnewc: &[f64; ENERGY_N],
    bvc: &[f64; ENERGY_N],
    p_new: &[f64; ENERGY_N],
    ql_old: &[f64; ENERGY_N],
    qq_old: &[f64; ENERGY_N],
    p_old: &[f64; ENERGY_N],
    q_old: &[f64; ENERGY_N],
    p_half_step: &[f64; ENERGY_N],
    q_new: &[f64; ENERGY_N],
    rho0: f64,
    e_cut: f64,
    emin: f64,
) {
    let i = global_x();
    if i < ENERGY_N {
        let q_tilde = if delvc[i] > 0.0 {
            0.0
        } else {
            let ssc = ssc_floor((pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
            ssc * ql_old[i] + qq_old[i]
        };
        e_new[i] = e_new[i]
            - (7.0 * (p_old[i] + q_old[i]) - 8.0 * (p_half_step[i] + q_new[i]) + (p_new[i] + q_tilde)) * delvc[i] / 6.0;
        if e_new[i].abs() < e_cut {
            e_new[i] = 0.0;
        }
        if e_new[i] < emin {
            e_new[i] = emin;
        }
    }
}

/// ENERGY_BODY6.
#[offload_kernel]
pub fn energy6(
    delvc: &[f64; ENERGY_N],
    pbvc: &[f64; ENERGY_N],
    e_new: &[f64; ENERGY_N],
    vnewc: &[f64; ENERGY_N],
    bvc: &[f64; ENERGY_N],
    p_new: &[f64; ENERGY_N],
    q_new: &mut [f64; ENERGY_N],
    ql_old: &[f64; ENERGY_N],
    qq_old: &[f64; ENERGY_N],
    rho0: f64,
    q_cut: f64,
) {
    let i = global_x();
    if i < ENERGY_N && delvc[i] <= 0.0 {
        let ssc = ssc_floor((pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
        q_new[i] = ssc * ql_old[i] + qq_old[i];
        if q_new[i].abs() < q_cut {
            q_new[i] = 0.0;
        }
    }
}

// ------------------------------------------------------------------------------ Apps_FIR

/// FIR_BODY: a 16-tap filter; the coefficients are data on the device, as in RAJAPerf.
#[offload_kernel]
pub fn fir(out: &mut [f64; FIR_N], input: &[f64; FIR_IN], coeff: &[f64; FIR_COEFFLEN]) {
    let i = global_x();
    if i < FIR_N {
        let mut sum = 0.0;
        for j in 0..FIR_COEFFLEN {
            sum += coeff[j] * input[i + j];
        }
        out[i] = sum;
    }
}

// ------------------------------------------------------------------------------ Apps_LTIMES

/// LTIMES_BODY: `phi(z, g, m) += ell(m, d) * psi(z, g, d)` over d, one thread per (m, g, z).
#[offload_kernel]
pub fn ltimes(phi: &mut [f64; LT_PHI], ell: &[f64; LT_ELL], psi: &[f64; LT_PSI]) {
    let (m, g, z) = global_xyz();
    if m < LT_M && g < LT_G && z < LT_Z {
        for d in 0..LT_D {
            phi[m + g * LT_M + z * LT_M * LT_G] += ell[d + m * LT_D] * psi[d + g * LT_D + z * LT_D * LT_G];
        }
    }
}

// ------------------------------------------------------------------------------ Apps_PRESSURE

/// PRESSURE_BODY1.
#[offload_kernel]
pub fn pressure1(bvc: &mut [f64; PRESSURE_N], compression: &[f64; PRESSURE_N], cls: f64) {
    let i = global_x();
    if i < PRESSURE_N {
        bvc[i] = cls * (compression[i] + 1.0);
    }
}

/// PRESSURE_BODY2.
#[offload_kernel]
pub fn pressure2(
    p_new: &mut [f64; PRESSURE_N],
    bvc: &[f64; PRESSURE_N],
    e_old: &[f64; PRESSURE_N],
    vnewc: &[f64; PRESSURE_N],
    p_cut: f64,
    eosvmax: f64,
    pmin: f64,
) {
    let i = global_x();
    if i < PRESSURE_N {
        p_new[i] = bvc[i] * e_old[i];
        if p_new[i].abs() < p_cut {
            p_new[i] = 0.0;
        }
        if vnewc[i] >= eosvmax {
            p_new[i] = 0.0;
        }
        if p_new[i] < pmin {
            p_new[i] = pmin;
        }
    }
}

// ------------------------------------------------------------------------------ Apps_VOL3D

/// VOL3D_BODY over the zone range [fpz, lpz]: the eight nodes of zone i are
/// i, i+1, i+jp, i+1+jp, i+kp, i+1+kp, i+jp+kp, i+1+jp+kp (NDPTRSET). RAJAPerf's macro
/// accumulates four triple products (its header comment lists three; the macro is what runs).
#[offload_kernel]
pub fn vol3d(
    vol: &mut [f64; D3_NNALLS],
    x: &[f64; D3_NNALLS],
    y: &[f64; D3_NNALLS],
    z: &[f64; D3_NNALLS],
    vnormq: f64,
) {
    let ii = global_x();
    if ii < VOL3D_LEN {
        let i = ii + D3_FPZ;
        let (n0, n1, n2, n3) = (i, i + 1, i + D3_JP, i + 1 + D3_JP);
        let (n4, n5, n6, n7) = (i + D3_KP, i + 1 + D3_KP, i + D3_JP + D3_KP, i + 1 + D3_JP + D3_KP);

        let x71 = x[n7] - x[n1];
        let x72 = x[n7] - x[n2];
        let x74 = x[n7] - x[n4];
        let x30 = x[n3] - x[n0];
        let x50 = x[n5] - x[n0];
        let x60 = x[n6] - x[n0];

        let y71 = y[n7] - y[n1];
        let y72 = y[n7] - y[n2];
        let y74 = y[n7] - y[n4];
        let y30 = y[n3] - y[n0];
        let y50 = y[n5] - y[n0];
        let y60 = y[n6] - y[n0];

        let z71 = z[n7] - z[n1];
        let z72 = z[n7] - z[n2];
        let z74 = z[n7] - z[n4];
        let z30 = z[n3] - z[n0];
        let z50 = z[n5] - z[n0];
        let z60 = z[n6] - z[n0];

        let mut xps = x71 + x60;
        let mut yps = y71 + y60;
        let mut zps = z71 + z60;
        let mut cyz = y72 * z30 - z72 * y30;
        let mut czx = z72 * x30 - x72 * z30;
        let mut cxy = x72 * y30 - y72 * x30;
        vol[i] = xps * cyz + yps * czx + zps * cxy;

        xps = x72 + x50;
        yps = y72 + y50;
        zps = z72 + z50;
        cyz = y74 * z60 - z74 * y60;
        czx = z74 * x60 - x74 * z60;
        cxy = x74 * y60 - y74 * x60;
        vol[i] += xps * cyz + yps * czx + zps * cxy;

        xps = x74 + x30;
        yps = y74 + y30;
        zps = z74 + z30;
        cyz = y74 * z60 - z74 * y60;
        czx = z74 * x60 - x74 * z60;
        cxy = x74 * y60 - y74 * x60;
        vol[i] += xps * cyz + yps * czx + zps * cxy;

        xps = x74 + x30;
        yps = y74 + y30;
        zps = z74 + z30;
        cyz = y71 * z50 - z71 * y50;
        czx = z71 * x50 - x71 * z50;
        cxy = x71 * y50 - y71 * x50;
        vol[i] += xps * cyz + yps * czx + zps * cxy;

        vol[i] *= vnormq;
    }
}

// ------------------------------------------------------------------------------ Apps_DEL_DOT_VEC_2D

/// DEL_DOT_VEC_2D_BODY over the real-zone index list: zone `i = real_zones[ii]` has the nodes
/// 1: i+1, 2: i+1+jp, 3: i+jp, 4: i (NDSET2D); fx is xdot, fy is ydot.
#[offload_kernel]
pub fn del_dot_vec_2d(
    div: &mut [f64; D2_NNALLS],
    x: &[f64; D2_NNALLS],
    y: &[f64; D2_NNALLS],
    xdot: &[f64; D2_NNALLS],
    ydot: &[f64; D2_NNALLS],
    real_zones: &[usize; D2_REAL_ZONES],
    half: f64,
    ptiny: f64,
) {
    let ii = global_x();
    if ii < D2_REAL_ZONES {
        let i = real_zones[ii];
        // The zone index comes from memory: one check that its farthest corner is in range
        // lets the compiler drop the per-corner bounds checks (`offload-ls build` lists the
        // checks left in each kernel's PTX).
        if i >= D2_NNALLS - 1 - D2_JP {
            return;
        }
        let (n1, n2, n3, n4) = (i + 1, i + 1 + D2_JP, i + D2_JP, i);

        let xi = half * (x[n1] + x[n2] - x[n3] - x[n4]);
        let xj = half * (x[n2] + x[n3] - x[n4] - x[n1]);

        let yi = half * (y[n1] + y[n2] - y[n3] - y[n4]);
        let yj = half * (y[n2] + y[n3] - y[n4] - y[n1]);

        let fxi = half * (xdot[n1] + xdot[n2] - xdot[n3] - xdot[n4]);
        let fxj = half * (xdot[n2] + xdot[n3] - xdot[n4] - xdot[n1]);

        let fyi = half * (ydot[n1] + ydot[n2] - ydot[n3] - ydot[n4]);
        let fyj = half * (ydot[n2] + ydot[n3] - ydot[n4] - ydot[n1]);

        let rarea = 1.0 / (xi * yj - xj * yi + ptiny);
        let dfxdx = rarea * (fxi * yj - fxj * yi);
        let dfydy = rarea * (fyj * xi - fyi * xj);
        let affine = (ydot[n1] + ydot[n2] + ydot[n3] + ydot[n4]) / (y[n1] + y[n2] + y[n3] + y[n4]);

        div[i] = dfxdx + dfydy + affine;
    }
}

// ------------------------------------------------------------------------------ Apps_MATVEC_3D_STENCIL

/// MATVEC_3D_STENCIL_BODY over the real-zone index list: a 27-point stencil matrix times x.
/// RAJAPerf allocates 14 coefficient arrays; the other 13 are the same arrays seen from the
/// neighbour (the matrix is symmetric): ccr[i] = ccl[i+1], cfl[i] = cbr[i-1+jp], ...,
/// ufr[i] = dbl[i+1+jp+kp] (MATVEC_3D_STENCIL.cpp setUp), written here as offsets.
#[offload_kernel]
pub fn matvec_3d_stencil(
    b: &mut [f64; MV_LEN],
    x: &[f64; MV_LEN],
    dbl: &[f64; MV_LEN],
    dbc: &[f64; MV_LEN],
    dbr: &[f64; MV_LEN],
    dcl: &[f64; MV_LEN],
    dcc: &[f64; MV_LEN],
    dcr: &[f64; MV_LEN],
    dfl: &[f64; MV_LEN],
    dfc: &[f64; MV_LEN],
    dfr: &[f64; MV_LEN],
    cbl: &[f64; MV_LEN],
    cbc: &[f64; MV_LEN],
    cbr: &[f64; MV_LEN],
    ccl: &[f64; MV_LEN],
    ccc: &[f64; MV_LEN],
    real_zones: &[usize; D3_REAL_ZONES],
) {
    let ii = global_x();
    if ii < D3_REAL_ZONES {
        let i = real_zones[ii];
        // The zone index comes from memory: one check that its farthest neighbours on both
        // sides are in range lets the compiler drop the per-neighbour bounds checks.
        if i < KJ1 || i >= MV_LEN - KJ1 {
            return;
        }
        b[i] = dbl[i] * x[i - KJ1]
            + dbc[i] * x[i - KJ]
            + dbr[i] * x[i - KJM1]
            + dcl[i] * x[i - K1]
            + dcc[i] * x[i - D3_KP]
            + dcr[i] * x[i - KM1]
            + dfl[i] * x[i - KMJ1]
            + dfc[i] * x[i - KMJ]
            + dfr[i] * x[i - KMJM1]
            + cbl[i] * x[i - J1]
            + cbc[i] * x[i - D3_JP]
            + cbr[i] * x[i - JM1]
            + ccl[i] * x[i - 1]
            + ccc[i] * x[i]
            + ccl[i + 1] * x[i + 1]
            + cbr[i + JM1] * x[i + JM1]
            + cbc[i + D3_JP] * x[i + D3_JP]
            + cbl[i + J1] * x[i + J1]
            + dfr[i + KMJM1] * x[i + KMJM1]
            + dfc[i + KMJ] * x[i + KMJ]
            + dfl[i + KMJ1] * x[i + KMJ1]
            + dcr[i + KM1] * x[i + KM1]
            + dcc[i + D3_KP] * x[i + D3_KP]
            + dcl[i + K1] * x[i + K1]
            + dbr[i + KJM1] * x[i + KJM1]
            + dbc[i + KJ] * x[i + KJ]
            + dbl[i + KJ1] * x[i + KJ1];
    }
}
