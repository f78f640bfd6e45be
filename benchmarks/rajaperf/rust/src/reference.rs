//! CPU references, written from RAJAPerf's Base_Seq loops independently of the kernels (plain
//! loops over slices, std's `sqrt`), each updating its outputs in place.

use crate::kernels::{D2_JP, D3_FPZ, D3_JP, D3_KP, D3_LPZ, FIR_COEFFLEN, FIR_N, LT_D, LT_G, LT_M, LT_Z};

/// The ENERGY data, the six loops as methods.
pub struct Energy<'a> {
    pub e_new: Vec<f64>,
    pub q_new: Vec<f64>,
    pub e_old: &'a [f64],
    pub delvc: &'a [f64],
    pub p_new: &'a [f64],
    pub p_old: &'a [f64],
    pub q_old: &'a [f64],
    pub work: &'a [f64],
    pub comp_half_step: &'a [f64],
    pub p_half_step: &'a [f64],
    pub bvc: &'a [f64],
    pub pbvc: &'a [f64],
    pub ql_old: &'a [f64],
    pub qq_old: &'a [f64],
    pub vnewc: &'a [f64],
    pub rho0: f64,
    pub e_cut: f64,
    pub emin: f64,
    pub q_cut: f64,
}

fn floor_sqrt(ssc: f64) -> f64 {
    if ssc <= 0.1111111e-36 { 0.3333333e-18 } else { ssc.sqrt() }
}

impl Energy<'_> {
    pub fn step(&mut self, k: usize) {
        let n = self.e_new.len();
        for i in 0..n {
            match k {
                1 => {
                    self.e_new[i] =
                        self.e_old[i] - 0.5 * self.delvc[i] * (self.p_old[i] + self.q_old[i]) + 0.5 * self.work[i]
                }
                2 => {
                    self.q_new[i] = if self.delvc[i] > 0.0 {
                        0.0
                    } else {
                        let vhalf = 1.0 / (1.0 + self.comp_half_step[i]);
                        let ssc = (self.pbvc[i] * self.e_new[i] + vhalf * vhalf * self.bvc[i] * self.p_half_step[i])
                            / self.rho0;
                        floor_sqrt(ssc) * self.ql_old[i] + self.qq_old[i]
                    }
                }
                3 => {
                    self.e_new[i] += 0.5
                        * self.delvc[i]
                        * (3.0 * (self.p_old[i] + self.q_old[i]) - 4.0 * (self.p_half_step[i] + self.q_new[i]))
                }
                4 => {
                    let mut e = self.e_new[i] + 0.5 * self.work[i];
                    if e.abs() < self.e_cut {
                        e = 0.0;
                    }
                    self.e_new[i] = if e < self.emin { self.emin } else { e };
                }
                5 => {
                    let q_tilde = if self.delvc[i] > 0.0 {
                        0.0
                    } else {
                        let ssc = (self.pbvc[i] * self.e_new[i]
                            + self.vnewc[i] * self.vnewc[i] * self.bvc[i] * self.p_new[i])
                            / self.rho0;
                        floor_sqrt(ssc) * self.ql_old[i] + self.qq_old[i]
                    };
                    let mut e = self.e_new[i]
                        - (7.0 * (self.p_old[i] + self.q_old[i]) - 8.0 * (self.p_half_step[i] + self.q_new[i])
                            + (self.p_new[i] + q_tilde))
                            * self.delvc[i]
                            / 6.0;
                    if e.abs() < self.e_cut {
                        e = 0.0;
                    }
                    self.e_new[i] = if e < self.emin { self.emin } else { e };
                }
                _ => {
                    if self.delvc[i] <= 0.0 {
                        let ssc = (self.pbvc[i] * self.e_new[i]
                            + self.vnewc[i] * self.vnewc[i] * self.bvc[i] * self.p_new[i])
                            / self.rho0;
                        let q = floor_sqrt(ssc) * self.ql_old[i] + self.qq_old[i];
                        self.q_new[i] = if q.abs() < self.q_cut { 0.0 } else { q };
                    }
                }
            }
        }
    }
}

pub fn fir(input: &[f64], coeff: &[f64]) -> Vec<f64> {
    (0..FIR_N)
        .map(|i| {
            let mut sum = 0.0;
            for j in 0..FIR_COEFFLEN {
                sum += coeff[j] * input[i + j];
            }
            sum
        })
        .collect()
}

/// One LTIMES sweep added into `phi`.
pub fn ltimes(phi: &mut [f64], ell: &[f64], psi: &[f64]) {
    for z in 0..LT_Z {
        for g in 0..LT_G {
            for m in 0..LT_M {
                let p = m + LT_M * (g + LT_G * z);
                for d in 0..LT_D {
                    phi[p] += ell[d + LT_D * m] * psi[d + LT_D * (g + LT_G * z)];
                }
            }
        }
    }
}

pub fn pressure1(compression: &[f64], cls: f64) -> Vec<f64> {
    compression.iter().map(|c| cls * (c + 1.0)).collect()
}

pub fn pressure2(bvc: &[f64], e_old: &[f64], vnewc: &[f64], p_cut: f64, eosvmax: f64, pmin: f64) -> Vec<f64> {
    (0..bvc.len())
        .map(|i| {
            let mut p = bvc[i] * e_old[i];
            if p.abs() < p_cut {
                p = 0.0;
            }
            if vnewc[i] >= eosvmax {
                p = 0.0;
            }
            if p < pmin { pmin } else { p }
        })
        .collect()
}

pub fn vol3d(x: &[f64], y: &[f64], z: &[f64], vnormq: f64) -> Vec<f64> {
    let mut vol = vec![0.0; x.len()];
    let (jp, kp) = (D3_JP, D3_KP);
    for i in D3_FPZ..=D3_LPZ {
        // corner c of zone i: i + (c & 1) + jp * ((c >> 1) & 1) + kp * (c >> 2)
        let at = |a: &[f64], c: usize| a[i + (c & 1) + jp * ((c >> 1) & 1) + kp * (c >> 2)];
        let d = |a: &[f64], p: usize, q: usize| at(a, p) - at(a, q);
        let (x71, x72, x74, x30, x50, x60) = (d(x, 7, 1), d(x, 7, 2), d(x, 7, 4), d(x, 3, 0), d(x, 5, 0), d(x, 6, 0));
        let (y71, y72, y74, y30, y50, y60) = (d(y, 7, 1), d(y, 7, 2), d(y, 7, 4), d(y, 3, 0), d(y, 5, 0), d(y, 6, 0));
        let (z71, z72, z74, z30, z50, z60) = (d(z, 7, 1), d(z, 7, 2), d(z, 7, 4), d(z, 3, 0), d(z, 5, 0), d(z, 6, 0));
        let triple = |xps: f64, yps: f64, zps: f64, cyz: f64, czx: f64, cxy: f64| xps * cyz + yps * czx + zps * cxy;
        let mut v = triple(
            x71 + x60,
            y71 + y60,
            z71 + z60,
            y72 * z30 - z72 * y30,
            z72 * x30 - x72 * z30,
            x72 * y30 - y72 * x30,
        );
        v += triple(
            x72 + x50,
            y72 + y50,
            z72 + z50,
            y74 * z60 - z74 * y60,
            z74 * x60 - x74 * z60,
            x74 * y60 - y74 * x60,
        );
        v += triple(
            x74 + x30,
            y74 + y30,
            z74 + z30,
            y74 * z60 - z74 * y60,
            z74 * x60 - x74 * z60,
            x74 * y60 - y74 * x60,
        );
        v += triple(
            x74 + x30,
            y74 + y30,
            z74 + z30,
            y71 * z50 - z71 * y50,
            z71 * x50 - x71 * z50,
            x71 * y50 - y71 * x50,
        );
        vol[i] = v * vnormq;
    }
    vol
}

pub fn del_dot_vec_2d(
    x: &[f64],
    y: &[f64],
    fx: &[f64],
    fy: &[f64],
    zones: &[usize],
    half: f64,
    ptiny: f64,
) -> Vec<f64> {
    let mut div = vec![0.0; x.len()];
    for &i in zones {
        let c = |a: &[f64]| (a[i + 1], a[i + 1 + D2_JP], a[i + D2_JP], a[i]);
        let (x1, x2, x3, x4) = c(x);
        let (y1, y2, y3, y4) = c(y);
        let (fx1, fx2, fx3, fx4) = c(fx);
        let (fy1, fy2, fy3, fy4) = c(fy);
        let xi = half * (x1 + x2 - x3 - x4);
        let xj = half * (x2 + x3 - x4 - x1);
        let yi = half * (y1 + y2 - y3 - y4);
        let yj = half * (y2 + y3 - y4 - y1);
        let fxi = half * (fx1 + fx2 - fx3 - fx4);
        let fxj = half * (fx2 + fx3 - fx4 - fx1);
        let fyi = half * (fy1 + fy2 - fy3 - fy4);
        let fyj = half * (fy2 + fy3 - fy4 - fy1);
        let rarea = 1.0 / (xi * yj - xj * yi + ptiny);
        let dfxdx = rarea * (fxi * yj - fxj * yi);
        let dfydy = rarea * (fyj * xi - fyi * xj);
        let affine = (fy1 + fy2 + fy3 + fy4) / (y1 + y2 + y3 + y4);
        div[i] = dfxdx + dfydy + affine;
    }
    div
}

/// MATVEC_3D_STENCIL with the 27 coefficient arrays of RAJAPerf's Matrix, 14 allocated and 13
/// seen through offsets: `m[s]` is the coefficient array of stencil point s (0..27, ordered
/// d/c/u, then b/c/f, then l/c/r) as (base array, signed offset).
pub fn matvec_3d_stencil(x: &[f64], base: &[&[f64]; 14], zones: &[usize]) -> Vec<f64> {
    let (jp, kp) = (D3_JP as isize, D3_KP as isize);
    // neighbour offset of stencil point s: (kk - 1) * kp + (jj - 1) * jp + (ii - 1)
    let off = |s: usize| ((s / 9) as isize - 1) * kp + (((s / 3) % 3) as isize - 1) * jp + ((s % 3) as isize - 1);
    // points 0..=13 are the allocated arrays; point 14 + t is the transpose of point 12 - t
    // (ccr = ccl + 1, cfl = cbr - 1 + jp, ..., ufr = dbl + 1 + jp + kp): array 12 - t seen from
    // the neighbour at off(14 + t).
    let coeff =
        |s: usize, i: usize| -> f64 { if s < 14 { base[s][i] } else { base[26 - s][(i as isize + off(s)) as usize] } };
    let mut b = vec![0.0; x.len()];
    for &i in zones {
        let mut sum = coeff(0, i) * x[(i as isize + off(0)) as usize];
        for s in 1..27 {
            sum += coeff(s, i) * x[(i as isize + off(s)) as usize];
        }
        b[i] = sum;
    }
    b
}
