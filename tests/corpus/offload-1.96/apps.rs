//! RAJAPerf "Apps" kernels (PRESSURE, LTIMES, DEL_DOT_VEC_2D, FIR, ENERGY) and a mesh helper,
//! written for rustc 1.96's offload: `#[rustc_offload_kernel] extern "gpu-kernel"` device
//! kernels under `#[cfg(not(target_os = "linux"))]`, host declarations and launches under
//! `#[cfg(target_os = "linux")]`.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

#[cfg(not(target_os = "linux"))]
use core::arch::nvptx::{
    _block_dim_x, _block_dim_y, _block_dim_z, _block_idx_x, _block_idx_y, _block_idx_z, _thread_idx_x,
    _thread_idx_y, _thread_idx_z,
};

pub const BLOCK: u32 = 256;

/// Zones of the hydro kernels (PRESSURE, ENERGY).
pub const NZ: usize = 1 << 18;
pub const ZONE_WGS: u32 = (NZ as u32).div_ceil(BLOCK);

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// PRESSURE (calc 2): per-zone pressure with cut-offs; constants travel in one `&PressureParams`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PressureParams {
    pub p_cut: f64,
    pub pmin: f64,
    pub eosvmax: f64,
}

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn pressure_calc2(
        p_new: &mut [f64; NZ],
        bvc: &[f64; NZ],
        e_old: &[f64; NZ],
        vnewc: &[f64; NZ],
        params: &PressureParams,
    );
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn pressure_calc2(
    p_new: &mut [f64; NZ],
    bvc: &[f64; NZ],
    e_old: &[f64; NZ],
    vnewc: &[f64; NZ],
    params: &PressureParams,
) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < NZ {
        let mut p = bvc[i] * e_old[i];
        if p.abs() < params.p_cut {
            p = 0.0;
        }
        if vnewc[i] >= params.eosvmax {
            p = 0.0;
        }
        if p < params.pmin {
            p = params.pmin;
        }
        p_new[i] = p;
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_pressure(p_new: &mut [f64; NZ], bvc: &[f64; NZ], e_old: &[f64; NZ], vnewc: &[f64; NZ], params: &PressureParams) {
    core::intrinsics::offload(pressure_calc2, [ZONE_WGS, 1, 1], [BLOCK, 1, 1], (p_new, bvc, e_old, vnewc, params))
}

//@ case: correct
// LTIMES: 3-D launch, one (m, g, z) moment per thread, every coordinate bounded before use.
pub const NUM_D: usize = 64;
pub const NUM_G: usize = 32;
pub const NUM_M: usize = 25;
pub const NUM_Z: usize = 16;
pub const ELL_LEN: usize = NUM_D * NUM_M;
pub const PSI_LEN: usize = NUM_D * NUM_G * NUM_Z;
pub const PHI_LEN: usize = NUM_M * NUM_G * NUM_Z;

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn ltimes(phi: &mut [f64; PHI_LEN], ell: &[f64; ELL_LEN], psi: &[f64; PSI_LEN]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn ltimes(phi: &mut [f64; PHI_LEN], ell: &[f64; ELL_LEN], psi: &[f64; PSI_LEN]) {
    let m = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    let g = unsafe { _block_idx_y() * _block_dim_y() + _thread_idx_y() } as usize;
    let z = unsafe { _block_idx_z() * _block_dim_z() + _thread_idx_z() } as usize;
    if m < NUM_M && g < NUM_G && z < NUM_Z {
        let mut acc = 0.0;
        for d in 0..NUM_D {
            acc += ell[d + NUM_D * m] * psi[d + NUM_D * (g + NUM_G * z)];
        }
        phi[m + NUM_M * (g + NUM_G * z)] += acc;
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_ltimes(phi: &mut [f64; PHI_LEN], ell: &[f64; ELL_LEN], psi: &[f64; PSI_LEN]) {
    // 32 x 8 x 1 threads per workgroup: m is padded from 25 to 32, g and z fit exactly.
    core::intrinsics::offload(ltimes, [1, (NUM_G / 8) as u32, NUM_Z as u32], [32, 8, 1], (phi, ell, psi))
}

//@ case: correct
// DEL_DOT_VEC_2D: threads walk the list of real (interior) zones and gather their four corners.
pub const NX: usize = 130;
pub const NY: usize = 130;
pub const JP: usize = NX;
pub const NNALLS: usize = NX * NY;
pub const N_REAL_ZONES: usize = (NX - 2) * (NY - 2);

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn del_dot_vec_2d(
        div: &mut [f64; NNALLS],
        x: &[f64; NNALLS],
        y: &[f64; NNALLS],
        xdot: &[f64; NNALLS],
        ydot: &[f64; NNALLS],
        real_zones: &[usize; N_REAL_ZONES],
    );
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn del_dot_vec_2d(
    div: &mut [f64; NNALLS],
    x: &[f64; NNALLS],
    y: &[f64; NNALLS],
    xdot: &[f64; NNALLS],
    ydot: &[f64; NNALLS],
    real_zones: &[usize; N_REAL_ZONES],
) {
    const HALF: f64 = 0.5;
    const PTINY: f64 = 1.0e-20;
    let ii = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if ii < N_REAL_ZONES {
        // zone corners: i, i+1, i+1+JP, i+JP (real zones never touch the last row or column)
        let i = real_zones[ii];
        let (x1, x2, x3, x4) = (x[i], x[i + 1], x[i + 1 + JP], x[i + JP]);
        let (y1, y2, y3, y4) = (y[i], y[i + 1], y[i + 1 + JP], y[i + JP]);
        let (fx1, fx2, fx3, fx4) = (xdot[i], xdot[i + 1], xdot[i + 1 + JP], xdot[i + JP]);
        let (fy1, fy2, fy3, fy4) = (ydot[i], ydot[i + 1], ydot[i + 1 + JP], ydot[i + JP]);

        let xi = HALF * (x2 - x4 + x1 - x3);
        let xj = HALF * (x3 - x1 + x2 - x4);
        let yi = HALF * (y2 - y4 + y1 - y3);
        let yj = HALF * (y3 - y1 + y2 - y4);
        let fxi = HALF * (fx2 - fx4 + fx1 - fx3);
        let fxj = HALF * (fx3 - fx1 + fx2 - fx4);
        let fyi = HALF * (fy2 - fy4 + fy1 - fy3);
        let fyj = HALF * (fy3 - fy1 + fy2 - fy4);

        let rarea = 1.0 / (xi * yj - xj * yi + PTINY);
        let dfxdx = rarea * (fxi * yj - fxj * yi);
        let dfydy = rarea * (fyj * xi - fyi * xj);
        let affine = (fy1 + fy2 + fy3 + fy4) / (y1 + y2 + y3 + y4);
        div[i] = dfxdx + dfydy + affine;
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_del_dot_vec_2d(
    div: &mut [f64; NNALLS],
    x: &[f64; NNALLS],
    y: &[f64; NNALLS],
    xdot: &[f64; NNALLS],
    ydot: &[f64; NNALLS],
    real_zones: &[usize; N_REAL_ZONES],
) {
    let wgs = (N_REAL_ZONES as u32).div_ceil(BLOCK);
    core::intrinsics::offload(del_dot_vec_2d, [wgs, 1, 1], [BLOCK, 1, 1], (div, x, y, xdot, ydot, real_zones))
}

//@ case: correct
// FIR: out[i] = sum_j coeff[j] * input[i + j]; the input carries TAPS - 1 extra samples.
pub const TAPS: usize = 16;
pub const NOUT: usize = 100_000;
pub const NIN: usize = NOUT + TAPS - 1;

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn fir(coeff: &[f64; TAPS], input: &[f64; NIN], out: &mut [f64; NOUT]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn fir(coeff: &[f64; TAPS], input: &[f64; NIN], out: &mut [f64; NOUT]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < NOUT {
        let mut acc = 0.0;
        for j in 0..TAPS {
            acc += coeff[j] * input[i + j];
        }
        out[i] = acc;
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_fir(coeff: &[f64; TAPS], input: &[f64; NIN], out: &mut [f64; NOUT]) {
    core::intrinsics::offload(fir, [(NOUT as u32).div_ceil(BLOCK), 1, 1], [BLOCK, 1, 1], (coeff, input, out))
}

//@ case: hazard static_mut_in_kernel
// ENERGY calc 1 reads its cut-off from a `static mut`: the device has its own copy, main()'s store never arrives.
static mut E_CUT: f64 = 1.0e-7;

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn energy_calc1(
        e_new: &mut [f64; NZ],
        e_old: &[f64; NZ],
        delvc: &[f64; NZ],
        p_old: &[f64; NZ],
        q_old: &[f64; NZ],
        work: &[f64; NZ],
    );
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn energy_calc1(
    e_new: &mut [f64; NZ],
    e_old: &[f64; NZ],
    delvc: &[f64; NZ],
    p_old: &[f64; NZ],
    q_old: &[f64; NZ],
    work: &[f64; NZ],
) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < NZ {
        let e = e_old[i] - 0.5 * delvc[i] * (p_old[i] + q_old[i]) + 0.5 * work[i];
        let cut = unsafe { E_CUT }; //~ WARN unsafe_in_kernel //~ ERROR static_mut_in_kernel
        e_new[i] = if e.abs() < cut { 0.0 } else { e };
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_energy(
    e_new: &mut [f64; NZ],
    e_old: &[f64; NZ],
    delvc: &[f64; NZ],
    p_old: &[f64; NZ],
    q_old: &[f64; NZ],
    work: &[f64; NZ],
) {
    unsafe { E_CUT = 1.0e-9 };
    core::intrinsics::offload(energy_calc1, [ZONE_WGS, 1, 1], [BLOCK, 1, 1], (e_new, e_old, delvc, p_old, q_old, work))
}

//@ case: hazard host_only_api_in_kernel
// Mesh import, degrees to radians with a `std::` constant that the `core`-only device build lacks.
pub const NNODES: usize = 50_000;

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn to_radians(deg: &[f64; NNODES], rad: &mut [f64; NNODES]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn to_radians(deg: &[f64; NNODES], rad: &mut [f64; NNODES]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < NNODES {
        rad[i] = deg[i] * (std::f64::consts::PI / 180.0); //~ ERROR host_only_api_in_kernel
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_to_radians(deg: &[f64; NNODES], rad: &mut [f64; NNODES]) {
    core::intrinsics::offload(to_radians, [(NNODES as u32).div_ceil(BLOCK), 1, 1], [BLOCK, 1, 1], (deg, rad))
}

// ------------------------------------------------------------------ host driver

#[cfg(target_os = "linux")]
fn boxed<T, const L: usize>(f: impl Fn(usize) -> T) -> Box<[T; L]> {
    let v: Vec<T> = (0..L).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is L by construction"),
    }
}

#[cfg(target_os = "linux")]
fn main() {
    // PRESSURE
    let params = PressureParams { p_cut: 1.0e-7, pmin: 0.0, eosvmax: 1.0e+9 };
    let bvc: Box<[f64; NZ]> = boxed(|i| 1.0 + (i % 3) as f64);
    let e_old: Box<[f64; NZ]> = boxed(|i| (i % 11) as f64 * 0.1);
    let vnewc: Box<[f64; NZ]> = boxed(|_| 0.5);
    let mut p_new: Box<[f64; NZ]> = boxed(|_| 0.0);
    run_pressure(&mut p_new, &bvc, &e_old, &vnewc, &params);

    // LTIMES
    let ell: Box<[f64; ELL_LEN]> = boxed(|i| (i % 5) as f64);
    let psi: Box<[f64; PSI_LEN]> = boxed(|i| (i % 7) as f64);
    let mut phi: Box<[f64; PHI_LEN]> = boxed(|_| 0.0);
    run_ltimes(&mut phi, &ell, &psi);

    // DEL_DOT_VEC_2D on a uniform mesh
    let x: Box<[f64; NNALLS]> = boxed(|k| (k % JP) as f64 * 0.2);
    let y: Box<[f64; NNALLS]> = boxed(|k| (k / JP) as f64 * 0.1);
    let xdot: Box<[f64; NNALLS]> = boxed(|k| (k % 13) as f64);
    let ydot: Box<[f64; NNALLS]> = boxed(|k| (k % 19) as f64);
    let zones: Vec<usize> = (1..NY - 1).flat_map(|j| (1..NX - 1).map(move |i| i + j * JP)).collect();
    let real_zones: Box<[usize; N_REAL_ZONES]> = boxed(|k| zones[k]);
    let mut div: Box<[f64; NNALLS]> = boxed(|_| 0.0);
    run_del_dot_vec_2d(&mut div, &x, &y, &xdot, &ydot, &real_zones);

    // FIR
    let coeff: [f64; TAPS] = core::array::from_fn(|k| if k % 5 == 0 { 3.0 } else { -1.0 });
    let input: Box<[f64; NIN]> = boxed(|i| ((i * 7919) % 101) as f64 * 0.01);
    let mut out: Box<[f64; NOUT]> = boxed(|_| 0.0);
    run_fir(&coeff, &input, &mut out);

    // ENERGY
    let zeros: Box<[f64; NZ]> = boxed(|_| 0.0);
    let mut e_new: Box<[f64; NZ]> = boxed(|_| 0.0);
    run_energy(&mut e_new, &e_old, &zeros, &zeros, &zeros, &zeros);

    // mesh import
    let deg: Box<[f64; NNODES]> = boxed(|i| (i % 360) as f64);
    let mut rad: Box<[f64; NNODES]> = boxed(|_| 0.0);
    run_to_radians(&deg, &mut rad);

    let sums: Vec<f64> = vec![p_new.iter().sum(), phi.iter().sum(), div.iter().sum(), out.iter().sum()];
    println!("checksums: {sums:?}");
    println!("e_new[10] = {}, rad[90] = {}", e_new[10], rad[90]);
}
