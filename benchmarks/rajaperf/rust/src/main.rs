//! The 13 RAJAPerf kernels measured by the paper behind rustc's GPU offload (Apps_ENERGY: 6
//! kernels, Apps_FIR, Apps_LTIMES, Apps_MATVEC_3D_STENCIL, Apps_PRESSURE: 2 kernels, Apps_VOL3D,
//! Apps_DEL_DOT_VEC_2D) in today's upstream offload spelling (rust-lang/rust #131513):
//! `#[offload_kernel]` functions launched with `core::offload::offload!`, `cfg(device)` for what
//! only the device pass compiles. offload-ls lowers this spelling for rustc 1.96
//! (docs/upstream-offload.md). The CUDA C++ twin is ../cuda/rajaperf.cu.
//!
//! Usage: `rajaperf-offload [REPS] [--check-data]` (REPS default 20). Each kernel is launched
//! once as warm-up and then REPS times (ENERGY's and PRESSURE's kernels in sequence, once per
//! repetition, as RAJAPerf runs them); after the last launch of each kernel its output is
//! compared with a CPU reference (exit status 1 on a mismatch) and `OK <kernel> ...` is
//! printed. The measured runs use RAJAPerf's initial values; `--check-data` validates with
//! random values instead (see `data::Init`).
//!
//! Every `offload!` maps its arguments for that launch: `&[f64; N]` is copied to the device
//! before it, `&mut [f64; N]` to the device and back after it (rustc 1.96 has no way to keep
//! data on the device between launches). Kernel durations (Nsight Compute) exclude those copies;
//! `host_wall` lines give the host time of one launch with its copies.
#![feature(gpu_offload, rustc_attrs)]
#![cfg_attr(target_arch = "nvptx64", feature(stdarch_nvptx))]
#![cfg_attr(device, feature(core_float_math))]
#![cfg_attr(device, no_std)]
#![cfg_attr(device, no_main)]
#![allow(internal_features)]
#![cfg_attr(device, allow(dead_code))]

mod kernels;

#[cfg(not(device))]
mod data;
#[cfg(not(device))]
mod reference;

#[cfg(not(device))]
use data::{Init, Walls, mismatches, real_zones};
#[cfg(not(device))]
use kernels::*;

/// Prints the verdict line of one kernel; returns 1 on a mismatch.
#[cfg(not(device))]
fn verdict(kernel: &str, n: usize, reps: usize, grid: [u32; 3], block: [u32; 3], bad: usize) -> usize {
    let shape = format!("grid=[{},{},{}] block=[{},{},{}]", grid[0], grid[1], grid[2], block[0], block[1], block[2]);
    if bad == 0 {
        println!("OK {kernel} n={n} reps={reps} {shape}");
        0
    } else {
        println!("FAIL {kernel} n={n} reps={reps} {shape}: {bad} wrong elements");
        1
    }
}

/// Apps_ENERGY: the six kernels in sequence, warm-up + REPS times; each kernel's output is
/// checked right after its last launch against the reference at the same stage.
#[cfg(not(device))]
fn energy(reps: usize, check: bool) -> usize {
    let mut init = Init::new(check);
    let mut e_new = init.constant::<ENERGY_N>(0.0);
    let e_old = init.data::<ENERGY_N>();
    let delvc = init.data::<ENERGY_N>();
    let p_new = init.data::<ENERGY_N>();
    let p_old = init.data::<ENERGY_N>();
    let mut q_new = init.constant::<ENERGY_N>(0.0);
    let q_old = init.data::<ENERGY_N>();
    let work = init.data::<ENERGY_N>();
    let comp_half_step = init.data::<ENERGY_N>();
    let p_half_step = init.data::<ENERGY_N>();
    let bvc = init.data::<ENERGY_N>();
    let pbvc = init.data::<ENERGY_N>();
    let ql_old = init.data::<ENERGY_N>();
    let qq_old = init.data::<ENERGY_N>();
    let vnewc = init.data::<ENERGY_N>();
    let (rho0, e_cut, emin, q_cut) = (init.scalar(), init.scalar(), init.scalar(), init.scalar());

    let mut want = reference::Energy {
        e_new: e_new.to_vec(),
        q_new: q_new.to_vec(),
        e_old: &e_old[..],
        delvc: &delvc[..],
        p_new: &p_new[..],
        p_old: &p_old[..],
        q_old: &q_old[..],
        work: &work[..],
        comp_half_step: &comp_half_step[..],
        p_half_step: &p_half_step[..],
        bvc: &bvc[..],
        pbvc: &pbvc[..],
        ql_old: &ql_old[..],
        qq_old: &qq_old[..],
        vnewc: &vnewc[..],
        rho0,
        e_cut,
        emin,
        q_cut,
    };

    let g = blocks(ENERGY_N);
    let mut walls: Vec<Walls> = (0..6).map(|_| Walls(Vec::new())).collect();
    let mut bad = [0usize; 6];
    for rep in 0..=reps {
        let last = rep == reps;
        walls[0].time(|| {
            core::offload::offload! {
                kernel = kernels::energy1,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *e_new, &*e_old, &*delvc, &*p_old, &*q_old, &*work),
            }
        });
        if last {
            want.step(1);
            bad[0] = mismatches("energy1", &e_new[..], &want.e_new);
        }
        walls[1].time(|| {
            core::offload::offload! {
                kernel = kernels::energy2,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&*delvc, &mut *q_new, &*comp_half_step, &*p_half_step, &*e_new, &*bvc, &*pbvc,
                        &*ql_old, &*qq_old, rho0),
            }
        });
        if last {
            want.step(2);
            bad[1] = mismatches("energy2", &q_new[..], &want.q_new);
        }
        walls[2].time(|| {
            core::offload::offload! {
                kernel = kernels::energy3,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *e_new, &*delvc, &*p_old, &*q_old, &*p_half_step, &*q_new),
            }
        });
        if last {
            want.step(3);
            bad[2] = mismatches("energy3", &e_new[..], &want.e_new);
        }
        walls[3].time(|| {
            core::offload::offload! {
                kernel = kernels::energy4,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *e_new, &*work, e_cut, emin),
            }
        });
        if last {
            want.step(4);
            bad[3] = mismatches("energy4", &e_new[..], &want.e_new);
        }
        walls[4].time(|| {
            core::offload::offload! {
                kernel = kernels::energy5,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&*delvc, &*pbvc, &mut *e_new, &*vnewc, &*bvc, &*p_new, &*ql_old, &*qq_old, &*p_old,
                        &*q_old, &*p_half_step, &*q_new, rho0, e_cut, emin),
            }
        });
        if last {
            want.step(5);
            bad[4] = mismatches("energy5", &e_new[..], &want.e_new);
        }
        walls[5].time(|| {
            core::offload::offload! {
                kernel = kernels::energy6,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&*delvc, &*pbvc, &*e_new, &*vnewc, &*bvc, &*p_new, &mut *q_new, &*ql_old, &*qq_old,
                        rho0, q_cut),
            }
        });
        if last {
            want.step(6);
            bad[5] = mismatches("energy6", &q_new[..], &want.q_new);
        }
    }
    let mut failures = 0;
    for k in 0..6 {
        let name = format!("energy{}", k + 1);
        walls[k].print(&name);
        failures += verdict(&name, ENERGY_N, reps, [g, 1, 1], [BLOCK, 1, 1], bad[k]);
    }
    failures
}

/// Apps_FIR.
#[cfg(not(device))]
fn fir(reps: usize, check: bool) -> usize {
    // RAJAPerf Apps_FIR coefficients (FIR_COEFF in FIR.hpp)
    let coeff: Box<[f64; FIR_COEFFLEN]> =
        Box::new([3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0]);
    let mut init = Init::new(check);
    let input = init.rand_values::<FIR_IN>();
    let mut out = init.constant::<FIR_N>(0.0);
    let g = blocks(FIR_N);
    let mut walls = Walls(Vec::new());
    for _ in 0..=reps {
        walls.time(|| {
            core::offload::offload! {
                kernel = kernels::fir,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *out, &*input, &*coeff),
            }
        });
    }
    walls.print("fir");
    let bad = mismatches("fir", &out[..], &reference::fir(&input[..], &coeff[..]));
    verdict("fir", FIR_N, reps, [g, 1, 1], [BLOCK, 1, 1], bad)
}

/// Apps_LTIMES: phi accumulates one sweep per launch.
#[cfg(not(device))]
fn ltimes(reps: usize, check: bool) -> usize {
    let mut init = Init::new(check);
    let mut phi = init.constant::<LT_PHI>(0.0);
    let ell = init.data::<LT_ELL>();
    let psi = init.data::<LT_PSI>();
    let mut want = phi.to_vec();
    let mut walls = Walls(Vec::new());
    for _ in 0..=reps {
        walls.time(|| {
            core::offload::offload! {
                kernel = kernels::ltimes,
                workgroup_dim = LT_GRID,
                thread_dim = LT_BLOCK,
                args = (&mut *phi, &*ell, &*psi),
            }
        });
        reference::ltimes(&mut want, &ell[..], &psi[..]);
    }
    walls.print("ltimes");
    let bad = mismatches("ltimes", &phi[..], &want);
    verdict("ltimes", LT_PHI, reps, LT_GRID, LT_BLOCK, bad)
}

/// Apps_PRESSURE: the two kernels in sequence, warm-up + REPS times.
#[cfg(not(device))]
fn pressure(reps: usize, check: bool) -> usize {
    let mut init = Init::new(check);
    let compression = init.data::<PRESSURE_N>();
    let mut bvc = init.data::<PRESSURE_N>();
    let mut p_new = init.constant::<PRESSURE_N>(0.0);
    let e_old = init.data::<PRESSURE_N>();
    let vnewc = init.data::<PRESSURE_N>();
    let (cls, p_cut, pmin, eosvmax) = (init.scalar(), init.scalar(), init.scalar(), init.scalar());
    let g = blocks(PRESSURE_N);
    let mut walls = [Walls(Vec::new()), Walls(Vec::new())];
    for _ in 0..=reps {
        walls[0].time(|| {
            core::offload::offload! {
                kernel = kernels::pressure1,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *bvc, &*compression, cls),
            }
        });
        walls[1].time(|| {
            core::offload::offload! {
                kernel = kernels::pressure2,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *p_new, &*bvc, &*e_old, &*vnewc, p_cut, eosvmax, pmin),
            }
        });
    }
    let want_bvc = reference::pressure1(&compression[..], cls);
    let want_p = reference::pressure2(&want_bvc, &e_old[..], &vnewc[..], p_cut, eosvmax, pmin);
    walls[0].print("pressure1");
    walls[1].print("pressure2");
    verdict("pressure1", PRESSURE_N, reps, [g, 1, 1], [BLOCK, 1, 1], mismatches("pressure1", &bvc[..], &want_bvc))
        + verdict("pressure2", PRESSURE_N, reps, [g, 1, 1], [BLOCK, 1, 1], mismatches("pressure2", &p_new[..], &want_p))
}

/// Apps_VOL3D over the zone range [fpz, lpz].
#[cfg(not(device))]
fn vol3d(reps: usize, check: bool) -> usize {
    let mut init = Init::new(check);
    init.skip(); // x, y, z: allocAndInitDataConst(.., 0.0), then setMeshPositions_3d
    init.skip();
    init.skip();
    let x = init.coordinate::<D3_NNALLS>(1, D3_JP, 0.3);
    let y = init.coordinate::<D3_NNALLS>(D3_JP, D3_JP, 0.2);
    let z = init.coordinate::<D3_NNALLS>(D3_KP, D3_JP, 0.1);
    let mut vol = init.constant::<D3_NNALLS>(0.0);
    let vnormq = 0.083333333333333333; // 1/12
    let g = blocks(VOL3D_LEN);
    let mut walls = Walls(Vec::new());
    for _ in 0..=reps {
        walls.time(|| {
            core::offload::offload! {
                kernel = kernels::vol3d,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *vol, &*x, &*y, &*z, vnormq),
            }
        });
    }
    walls.print("vol3d");
    let bad = mismatches("vol3d", &vol[..], &reference::vol3d(&x[..], &y[..], &z[..], vnormq));
    verdict("vol3d", VOL3D_LEN, reps, [g, 1, 1], [BLOCK, 1, 1], bad)
}

/// Apps_DEL_DOT_VEC_2D over the real-zone list.
#[cfg(not(device))]
fn del_dot_vec_2d(reps: usize, check: bool) -> usize {
    let mut init = Init::new(check);
    init.skip(); // x, y: allocAndInitDataConst(.., 0.0), then setMeshPositions_2d
    init.skip();
    init.skip(); // real_zones: filled with -1, then setRealZones_2d
    let x = init.coordinate::<D2_NNALLS>(1, D2_JP, 0.2);
    let y = init.coordinate::<D2_NNALLS>(D2_JP, D2_JP, 0.1);
    let zones = real_zones::<D2_REAL_ZONES>(D2_IMIN, D2_IMAX, D2_JP, 0, 2);
    let xdot = init.data::<D2_NNALLS>();
    let ydot = init.data::<D2_NNALLS>();
    let mut div = init.constant::<D2_NNALLS>(0.0);
    let (half, ptiny) = (0.5, 1.0e-20);
    let g = blocks(D2_REAL_ZONES);
    let mut walls = Walls(Vec::new());
    for _ in 0..=reps {
        walls.time(|| {
            core::offload::offload! {
                kernel = kernels::del_dot_vec_2d,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *div, &*x, &*y, &*xdot, &*ydot, &*zones, half, ptiny),
            }
        });
    }
    walls.print("del_dot_vec_2d");
    let want = reference::del_dot_vec_2d(&x[..], &y[..], &xdot[..], &ydot[..], &zones[..], half, ptiny);
    let bad = mismatches("del_dot_vec_2d", &div[..], &want);
    verdict("del_dot_vec_2d", D2_REAL_ZONES, reps, [g, 1, 1], [BLOCK, 1, 1], bad)
}

/// Apps_MATVEC_3D_STENCIL over the real-zone list.
#[cfg(not(device))]
fn matvec_3d_stencil(reps: usize, check: bool) -> usize {
    let mut init = Init::new(check);
    let mut b = init.constant::<MV_LEN>(0.0);
    let x = init.data::<MV_LEN>();
    let m: Vec<Box<[f64; MV_LEN]>> = (0..14).map(|_| init.data::<MV_LEN>()).collect();
    let zones = real_zones::<D3_REAL_ZONES>(D3_IMIN, D3_IMAX, D3_JP, D3_KP, 3);
    let [dbl, dbc, dbr, dcl, dcc, dcr, dfl, dfc, dfr, cbl, cbc, cbr, ccl, ccc] = &m[..] else {
        unreachable!("14 coefficient arrays")
    };
    let g = blocks(D3_REAL_ZONES);
    let mut walls = Walls(Vec::new());
    for _ in 0..=reps {
        walls.time(|| {
            core::offload::offload! {
                kernel = kernels::matvec_3d_stencil,
                workgroup_dim = [g, 1, 1],
                thread_dim = [BLOCK, 1, 1],
                args = (&mut *b, &*x, &**dbl, &**dbc, &**dbr, &**dcl, &**dcc, &**dcr, &**dfl, &**dfc, &**dfr,
                        &**cbl, &**cbc, &**cbr, &**ccl, &**ccc, &*zones),
            }
        });
    }
    walls.print("matvec_3d_stencil");
    let base: [&[f64]; 14] = std::array::from_fn(|k| &m[k][..]);
    let bad = mismatches("matvec_3d_stencil", &b[..], &reference::matvec_3d_stencil(&x[..], &base, &zones[..]));
    verdict("matvec_3d_stencil", D3_REAL_ZONES, reps, [g, 1, 1], [BLOCK, 1, 1], bad)
}

#[cfg(not(device))]
fn main() {
    const USAGE: &str = "usage: rajaperf-offload [REPS] [--check-data]   (REPS: a non-negative integer, default 20)";
    let mut reps = 20;
    let mut check = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check-data" => check = true,
            s => {
                reps = s.parse().unwrap_or_else(|_| {
                    eprintln!("{USAGE}");
                    std::process::exit(2)
                })
            }
        }
    }
    println!("data={}", if check { "check (random values, jittered meshes)" } else { "rajaperf" });
    let t = std::time::Instant::now();
    let failures = energy(reps, check)
        + fir(reps, check)
        + ltimes(reps, check)
        + matvec_3d_stencil(reps, check)
        + pressure(reps, check)
        + vol3d(reps, check)
        + del_dot_vec_2d(reps, check);
    println!("total_wall_s={:.2}", t.elapsed().as_secs_f64());
    if failures != 0 {
        std::process::exit(1);
    }
}
