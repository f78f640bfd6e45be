// CUDA C++ twin of ../rust/src/kernels.rs: the 13 RAJAPerf Apps kernels of the rustc offload
// paper (Apps_ENERGY x6, Apps_FIR, Apps_LTIMES, Apps_MATVEC_3D_STENCIL, Apps_PRESSURE x2,
// Apps_VOL3D, Apps_DEL_DOT_VEC_2D), written from RAJAPerf's *_BODY macros and Base_CUDA
// launch shapes (LLNL/RAJAPerf src/apps/*).
//
// Same sizes, block sizes, grids, data layout and initial values as the Rust program; every
// kernel is `extern "C" __global__ <rust_name>_cuda` so Nsight Compute reports the bare name.
// Read-only arrays are `const double* __restrict__` (the Rust kernels take `&[f64; N]`); the
// written array is `double* __restrict__` (Rust `&mut [f64; N]`); scalars are by value (the
// Rust kernels' by-value scalars arrive through an 8-byte "to" mapping with rustc 1.96, see
// ../README.md). One thread per element, global index `blockIdx.x * 256 + threadIdx.x` in 32
// bits, widened, with the same guard as the Rust kernel.
//
// Build:  nvcc -O3 -arch=sm_90 -Xptxas -v -o rajaperf-cuda rajaperf.cu
// Run:    rajaperf-cuda [REPS] [--check-data]    (REPS default 20; --check-data: validation
//         run with random values, as the Rust program's)
//
// As RAJAPerf's Base_CUDA variants: each kernel group allocates its device arrays, copies the
// inputs to the device once, launches warm-up + REPS times (ENERGY's six and PRESSURE's two
// kernels in sequence once per repetition) and copies the outputs back once. Every launch is
// timed with its own pair of CUDA events (`cuda_event` lines); every setup/teardown copy is a
// cudaMemcpy timed with events (`cuda_transfer` lines, per group and in total), to compare with
// the Rust program, whose every launch maps its arrays to the device and back. After the last
// launch of each kernel its output is copied back (a `verify` copy, not counted in the
// transfers) and compared with a CPU reference; `OK <kernel>_cuda ...` per kernel, exit
// status 1 on a mismatch.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t err_ = (call);                                                               \
    if (err_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString(err_));                                                \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

using Index_type = std::ptrdiff_t;  // RAJAPerf's Index_type (64-bit); the Rust side uses usize

// ------------------------------------------------------------------------------ sizes
// (the derivations are in ../rust/src/kernels.rs)
static constexpr unsigned BLOCK = 256;
static constexpr unsigned blocks(size_t n) { return unsigned((n + BLOCK - 1) / BLOCK); }

static constexpr size_t ENERGY_N = 1000000;
static constexpr size_t PRESSURE_N = 1000000;
static constexpr size_t FIR_N = 1000000;
static constexpr size_t FIR_COEFFLEN = 16;
static constexpr size_t FIR_IN = FIR_N + FIR_COEFFLEN - 1;

static constexpr size_t LT_D = 64, LT_G = 32, LT_M = 25, LT_Z = 488;
static constexpr size_t LT_PHI = LT_M * LT_G * LT_Z;
static constexpr size_t LT_ELL = LT_D * LT_M;
static constexpr size_t LT_PSI = LT_D * LT_G * LT_Z;
static constexpr unsigned LT_BX = 32, LT_BY = 4, LT_BZ = 2;

static constexpr size_t D3_RZMAX = 101;
static constexpr size_t D3_IMIN = 2;
static constexpr size_t D3_IMAX = D3_RZMAX + 1;
static constexpr size_t D3_JP = D3_IMAX - D3_IMIN + 1 + 2 + 1;
static constexpr size_t D3_KP = D3_JP * D3_JP;
static constexpr size_t D3_NNALLS = D3_KP * D3_JP;
static constexpr size_t D3_FPZ = (2 * (D3_KP + D3_JP) + 2) - D3_JP - D3_KP - 1;
static constexpr size_t D3_LPZ = (D3_NNALLS - 1) - (D3_KP + D3_JP) - 1;
static constexpr size_t D3_REAL_ZONES = (D3_IMAX - D3_IMIN) * (D3_IMAX - D3_IMIN) * (D3_IMAX - D3_IMIN);
static constexpr size_t VOL3D_LEN = D3_LPZ + 1 - D3_FPZ;
static constexpr size_t MV_LEN = D3_LPZ + 1;

static constexpr size_t D2_RZMAX = 1001;
static constexpr size_t D2_IMIN = 2;
static constexpr size_t D2_IMAX = D2_RZMAX + 1;
static constexpr size_t D2_JP = D2_IMAX - D2_IMIN + 1 + 2 + 1;
static constexpr size_t D2_NNALLS = D2_JP * D2_JP;
static constexpr size_t D2_REAL_ZONES = (D2_IMAX - D2_IMIN) * (D2_IMAX - D2_IMIN);

static_assert(D3_JP == 104 && D3_FPZ == 10921 && D3_LPZ == 1113942, "3-D ADomain");
static_assert(D2_JP == 1004 && D2_REAL_ZONES == 1000000, "2-D ADomain");

// MATVEC_3D_STENCIL neighbour offsets (kp, jp, 1 combinations)
static constexpr size_t KJ1 = D3_KP + D3_JP + 1, KJ = D3_KP + D3_JP, KJM1 = D3_KP + D3_JP - 1;
static constexpr size_t KMJ1 = D3_KP - D3_JP + 1, KMJ = D3_KP - D3_JP, KMJM1 = D3_KP - D3_JP - 1;
static constexpr size_t K1 = D3_KP + 1, KM1 = D3_KP - 1, J1 = D3_JP + 1, JM1 = D3_JP - 1;

// ------------------------------------------------------------------------------ kernels

__device__ __forceinline__ size_t global_x() { return size_t(blockIdx.x * BLOCK + threadIdx.x); }

__device__ __forceinline__ double ssc_floor(double ssc) {
  return ssc <= 0.1111111e-36 ? 0.3333333e-18 : sqrt(ssc);
}

extern "C" __global__ void energy1_cuda(double* __restrict__ e_new, const double* __restrict__ e_old,
                                        const double* __restrict__ delvc,
                                        const double* __restrict__ p_old,
                                        const double* __restrict__ q_old,
                                        const double* __restrict__ work) {
  const size_t i = global_x();
  if (i < ENERGY_N) {
    e_new[i] = e_old[i] - 0.5 * delvc[i] * (p_old[i] + q_old[i]) + 0.5 * work[i];
  }
}

extern "C" __global__ void energy2_cuda(const double* __restrict__ delvc, double* __restrict__ q_new,
                                        const double* __restrict__ comp_half_step,
                                        const double* __restrict__ p_half_step,
                                        const double* __restrict__ e_new,
                                        const double* __restrict__ bvc,
                                        const double* __restrict__ pbvc,
                                        const double* __restrict__ ql_old,
                                        const double* __restrict__ qq_old, double rho0) {
  const size_t i = global_x();
  if (i < ENERGY_N) {
    if (delvc[i] > 0.0) {
      q_new[i] = 0.0;
    } else {
      const double vhalf = 1.0 / (1.0 + comp_half_step[i]);
      const double ssc = ssc_floor((pbvc[i] * e_new[i] + vhalf * vhalf * bvc[i] * p_half_step[i]) / rho0);
      q_new[i] = ssc * ql_old[i] + qq_old[i];
    }
  }
}

extern "C" __global__ void energy3_cuda(double* __restrict__ e_new, const double* __restrict__ delvc,
                                        const double* __restrict__ p_old,
                                        const double* __restrict__ q_old,
                                        const double* __restrict__ p_half_step,
                                        const double* __restrict__ q_new) {
  const size_t i = global_x();
  if (i < ENERGY_N) {
    e_new[i] = e_new[i] + 0.5 * delvc[i] * (3.0 * (p_old[i] + q_old[i]) - 4.0 * (p_half_step[i] + q_new[i]));
  }
}

extern "C" __global__ void energy4_cuda(double* __restrict__ e_new, const double* __restrict__ work,
                                        double e_cut, double emin) {
  const size_t i = global_x();
  if (i < ENERGY_N) {
    e_new[i] += 0.5 * work[i];
    if (fabs(e_new[i]) < e_cut) e_new[i] = 0.0;
    if (e_new[i] < emin) e_new[i] = emin;
  }
}

extern "C" __global__ void energy5_cuda(const double* __restrict__ delvc, const double* __restrict__ pbvc,
                                        double* __restrict__ e_new, const double* __restrict__ vnewc,
                                        const double* __restrict__ bvc,
                                        const double* __restrict__ p_new,
                                        const double* __restrict__ ql_old,
                                        const double* __restrict__ qq_old,
                                        const double* __restrict__ p_old,
                                        const double* __restrict__ q_old,
                                        const double* __restrict__ p_half_step,
                                        const double* __restrict__ q_new, double rho0, double e_cut,
                                        double emin) {
  const size_t i = global_x();
  if (i < ENERGY_N) {
    double q_tilde;
    if (delvc[i] > 0.0) {
      q_tilde = 0.0;
    } else {
      const double ssc = ssc_floor((pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
      q_tilde = ssc * ql_old[i] + qq_old[i];
    }
    e_new[i] = e_new[i] -
               (7.0 * (p_old[i] + q_old[i]) - 8.0 * (p_half_step[i] + q_new[i]) + (p_new[i] + q_tilde)) *
                   delvc[i] / 6.0;
    if (fabs(e_new[i]) < e_cut) e_new[i] = 0.0;
    if (e_new[i] < emin) e_new[i] = emin;
  }
}

extern "C" __global__ void energy6_cuda(const double* __restrict__ delvc, const double* __restrict__ pbvc,
                                        const double* __restrict__ e_new,
                                        const double* __restrict__ vnewc,
                                        const double* __restrict__ bvc,
                                        const double* __restrict__ p_new, double* __restrict__ q_new,
                                        const double* __restrict__ ql_old,
                                        const double* __restrict__ qq_old, double rho0, double q_cut) {
  const size_t i = global_x();
  if (i < ENERGY_N && delvc[i] <= 0.0) {
    const double ssc = ssc_floor((pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
    q_new[i] = ssc * ql_old[i] + qq_old[i];
    if (fabs(q_new[i]) < q_cut) q_new[i] = 0.0;
  }
}

// FIR: the coefficients are an array in global memory (RAJAPerf's Base_CUDA keeps them in
// __constant__ memory; Rust has no constant-memory spelling, so both read a device array).
extern "C" __global__ void fir_cuda(double* __restrict__ out, const double* __restrict__ in,
                                    const double* __restrict__ coeff) {
  const size_t i = global_x();
  if (i < FIR_N) {
    double sum = 0.0;
    for (size_t j = 0; j < FIR_COEFFLEN; ++j) {
      sum += coeff[j] * in[i + j];
    }
    out[i] = sum;
  }
}

extern "C" __global__ void ltimes_cuda(double* __restrict__ phi, const double* __restrict__ ell,
                                       const double* __restrict__ psi) {
  const size_t m = size_t(blockIdx.x * LT_BX + threadIdx.x);
  const size_t g = size_t(blockIdx.y * LT_BY + threadIdx.y);
  const size_t z = size_t(blockIdx.z * LT_BZ + threadIdx.z);
  if (m < LT_M && g < LT_G && z < LT_Z) {
    for (size_t d = 0; d < LT_D; ++d) {
      phi[m + g * LT_M + z * LT_M * LT_G] += ell[d + m * LT_D] * psi[d + g * LT_D + z * LT_D * LT_G];
    }
  }
}

extern "C" __global__ void pressure1_cuda(double* __restrict__ bvc, const double* __restrict__ compression,
                                          double cls) {
  const size_t i = global_x();
  if (i < PRESSURE_N) {
    bvc[i] = cls * (compression[i] + 1.0);
  }
}

extern "C" __global__ void pressure2_cuda(double* __restrict__ p_new, const double* __restrict__ bvc,
                                          const double* __restrict__ e_old,
                                          const double* __restrict__ vnewc, double p_cut,
                                          double eosvmax, double pmin) {
  const size_t i = global_x();
  if (i < PRESSURE_N) {
    p_new[i] = bvc[i] * e_old[i];
    if (fabs(p_new[i]) < p_cut) p_new[i] = 0.0;
    if (vnewc[i] >= eosvmax) p_new[i] = 0.0;
    if (p_new[i] < pmin) p_new[i] = pmin;
  }
}

extern "C" __global__ void vol3d_cuda(double* __restrict__ vol, const double* __restrict__ x,
                                      const double* __restrict__ y, const double* __restrict__ z,
                                      double vnormq) {
  const size_t ii = global_x();
  if (ii < VOL3D_LEN) {
    const size_t i = ii + D3_FPZ;
    const size_t n0 = i, n1 = i + 1, n2 = i + D3_JP, n3 = i + 1 + D3_JP;
    const size_t n4 = i + D3_KP, n5 = i + 1 + D3_KP, n6 = i + D3_JP + D3_KP, n7 = i + 1 + D3_JP + D3_KP;

    const double x71 = x[n7] - x[n1], x72 = x[n7] - x[n2], x74 = x[n7] - x[n4];
    const double x30 = x[n3] - x[n0], x50 = x[n5] - x[n0], x60 = x[n6] - x[n0];
    const double y71 = y[n7] - y[n1], y72 = y[n7] - y[n2], y74 = y[n7] - y[n4];
    const double y30 = y[n3] - y[n0], y50 = y[n5] - y[n0], y60 = y[n6] - y[n0];
    const double z71 = z[n7] - z[n1], z72 = z[n7] - z[n2], z74 = z[n7] - z[n4];
    const double z30 = z[n3] - z[n0], z50 = z[n5] - z[n0], z60 = z[n6] - z[n0];

    double xps = x71 + x60, yps = y71 + y60, zps = z71 + z60;
    double cyz = y72 * z30 - z72 * y30;
    double czx = z72 * x30 - x72 * z30;
    double cxy = x72 * y30 - y72 * x30;
    vol[i] = xps * cyz + yps * czx + zps * cxy;

    xps = x72 + x50; yps = y72 + y50; zps = z72 + z50;
    cyz = y74 * z60 - z74 * y60;
    czx = z74 * x60 - x74 * z60;
    cxy = x74 * y60 - y74 * x60;
    vol[i] += xps * cyz + yps * czx + zps * cxy;

    xps = x74 + x30; yps = y74 + y30; zps = z74 + z30;
    cyz = y74 * z60 - z74 * y60;
    czx = z74 * x60 - x74 * z60;
    cxy = x74 * y60 - y74 * x60;
    vol[i] += xps * cyz + yps * czx + zps * cxy;

    xps = x74 + x30; yps = y74 + y30; zps = z74 + z30;
    cyz = y71 * z50 - z71 * y50;
    czx = z71 * x50 - x71 * z50;
    cxy = x71 * y50 - y71 * x50;
    vol[i] += xps * cyz + yps * czx + zps * cxy;

    vol[i] *= vnormq;
  }
}

extern "C" __global__ void del_dot_vec_2d_cuda(double* __restrict__ div, const double* __restrict__ x,
                                               const double* __restrict__ y,
                                               const double* __restrict__ xdot,
                                               const double* __restrict__ ydot,
                                               const Index_type* __restrict__ real_zones, double half,
                                               double ptiny) {
  const size_t ii = global_x();
  if (ii < D2_REAL_ZONES) {
    const Index_type i = real_zones[ii];
    const Index_type n1 = i + 1, n2 = i + 1 + Index_type(D2_JP), n3 = i + Index_type(D2_JP), n4 = i;

    const double xi = half * (x[n1] + x[n2] - x[n3] - x[n4]);
    const double xj = half * (x[n2] + x[n3] - x[n4] - x[n1]);
    const double yi = half * (y[n1] + y[n2] - y[n3] - y[n4]);
    const double yj = half * (y[n2] + y[n3] - y[n4] - y[n1]);
    const double fxi = half * (xdot[n1] + xdot[n2] - xdot[n3] - xdot[n4]);
    const double fxj = half * (xdot[n2] + xdot[n3] - xdot[n4] - xdot[n1]);
    const double fyi = half * (ydot[n1] + ydot[n2] - ydot[n3] - ydot[n4]);
    const double fyj = half * (ydot[n2] + ydot[n3] - ydot[n4] - ydot[n1]);

    const double rarea = 1.0 / (xi * yj - xj * yi + ptiny);
    const double dfxdx = rarea * (fxi * yj - fxj * yi);
    const double dfydy = rarea * (fyj * xi - fyi * xj);
    const double affine = (ydot[n1] + ydot[n2] + ydot[n3] + ydot[n4]) / (y[n1] + y[n2] + y[n3] + y[n4]);
    div[i] = dfxdx + dfydy + affine;
  }
}

// MATVEC_3D_STENCIL: 14 coefficient arrays, the other 13 coefficients read from them at the
// neighbour's offset (RAJAPerf's pointer aliases ccr = ccl + 1, ..., ufr = dbl + 1 + jp + kp).
extern "C" __global__ void matvec_3d_stencil_cuda(
    double* __restrict__ b, const double* __restrict__ x, const double* __restrict__ dbl,
    const double* __restrict__ dbc, const double* __restrict__ dbr, const double* __restrict__ dcl,
    const double* __restrict__ dcc, const double* __restrict__ dcr, const double* __restrict__ dfl,
    const double* __restrict__ dfc, const double* __restrict__ dfr, const double* __restrict__ cbl,
    const double* __restrict__ cbc, const double* __restrict__ cbr, const double* __restrict__ ccl,
    const double* __restrict__ ccc, const Index_type* __restrict__ real_zones) {
  const size_t ii = global_x();
  if (ii < D3_REAL_ZONES) {
    const size_t i = size_t(real_zones[ii]);
    b[i] = dbl[i] * x[i - KJ1] + dbc[i] * x[i - KJ] + dbr[i] * x[i - KJM1]
         + dcl[i] * x[i - K1] + dcc[i] * x[i - D3_KP] + dcr[i] * x[i - KM1]
         + dfl[i] * x[i - KMJ1] + dfc[i] * x[i - KMJ] + dfr[i] * x[i - KMJM1]
         + cbl[i] * x[i - J1] + cbc[i] * x[i - D3_JP] + cbr[i] * x[i - JM1]
         + ccl[i] * x[i - 1] + ccc[i] * x[i] + ccl[i + 1] * x[i + 1]
         + cbr[i + JM1] * x[i + JM1] + cbc[i + D3_JP] * x[i + D3_JP] + cbl[i + J1] * x[i + J1]
         + dfr[i + KMJM1] * x[i + KMJM1] + dfc[i + KMJ] * x[i + KMJ] + dfl[i + KMJ1] * x[i + KMJ1]
         + dcr[i + KM1] * x[i + KM1] + dcc[i + D3_KP] * x[i + D3_KP] + dcl[i + K1] * x[i + K1]
         + dbr[i + KJM1] * x[i + KJM1] + dbc[i + KJ] * x[i + KJ] + dbl[i + KJ1] * x[i + KJ1];
  }
}

// ------------------------------------------------------------------------------ host side

// The 64-bit LCG behind every pseudo-random value (identical to data::lcg in the Rust program):
// the top 53 bits of the next state, in [0, 1). RAJAPerf seeds its rand() with 4793.
static constexpr uint64_t SEED = 4793;
static double lcg(uint64_t& s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return double(s >> 11) * (1.0 / 9007199254740992.0);
}
// A --check-data value: uniform in [-2, 2).
static double check_value(uint64_t& s) { return 4.0 * (lcg(s) - 0.5); }

// RAJAPerf's data initialisation (DataUtils.cpp): a counter reset per kernel group picks the
// factor 0.2 (even) / 0.1 (odd); arrays get factor * (i + 1.1) / (i + 1.12345). With `check`
// (--check-data validation runs) initData arrays get random values in [-2, 2) and mesh
// coordinates a jitter, drawn in the same order as the Rust program's data::Init (why: there).
struct Init {
  unsigned count = 0;
  bool check;
  uint64_t state = SEED;
  explicit Init(bool c) : check(c) {}
  double factor() { const double f = (count % 2 == 1) ? 0.1 : 0.2; ++count; return f; }
  std::vector<double> data(size_t n) {
    const double f = factor();
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = check ? check_value(state) : f * (double(i) + 1.1) / (double(i) + 1.12345);
    return v;
  }
  // initDataRandValue (FIR's input): a fresh LCG stream from SEED, [0, 1); [-2, 2) with check.
  std::vector<double> rand_values(size_t n) {
    ++count;
    std::vector<double> v(n);
    uint64_t s = SEED;
    for (size_t i = 0; i < n; ++i) v[i] = check ? check_value(s) : lcg(s);
    return v;
  }
  std::vector<double> constant(size_t n, double val) { ++count; return std::vector<double>(n, val); }
  double scalar() { return factor() * 1.1 / 1.12345; }
  void skip() { ++count; }
  // The node coordinates setMeshPositions_3d / _2d leave: (index along the axis) * spacing;
  // with check, plus a jitter of up to +-10% of the spacing.
  std::vector<double> coordinate(size_t n, size_t stride, size_t extent, double spacing) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) {
      v[i] = double((i / stride) % extent) * spacing;
      if (check) v[i] += 0.2 * spacing * (lcg(state) - 0.5);
    }
    return v;
  }
};

// setRealZones_2d / _3d: the node index of each real zone, i fastest.
static std::vector<Index_type> real_zones(size_t count, size_t imin, size_t imax, size_t jp, size_t kp,
                                          int dims) {
  const size_t n = imax - imin;
  std::vector<Index_type> z(count);
  for (size_t id = 0; id < count; ++id) {
    const size_t i = id % n + imin, j = (id / n) % n + imin, k = dims == 3 ? id / (n * n) + imin : 0;
    z[id] = Index_type(i + j * jp + k * kp);
  }
  return z;
}

// Elements differing by more than 1e-10 relative (absolute below 1); prints the first.
static size_t mismatches(const char* kernel, const std::vector<double>& got, const std::vector<double>& want) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= 1e-10 * std::max(1.0, std::fabs(want[i])))) {
      if (bad == 0)
        std::fprintf(stderr, "FAIL %s: element %zu: got %.17g, expected %.17g\n", kernel, i, got[i], want[i]);
      ++bad;
    }
  }
  return bad;
}

static int g_failures = 0;
static int g_reps = 20;
static bool g_check = false;

static void verdict(const char* kernel, size_t n, dim3 grid, dim3 block, size_t bad) {
  std::printf("%s %s_cuda n=%zu reps=%d grid=[%u,%u,%u] block=[%u,%u,%u]", bad ? "FAIL" : "OK", kernel, n,
              g_reps, grid.x, grid.y, grid.z, block.x, block.y, block.z);
  if (bad) {
    std::printf(": %zu wrong elements", bad);
    ++g_failures;
  }
  std::printf("\n");
}

// Host<->device copies of one kernel group (setup and teardown, as RAJAPerf's Base_CUDA),
// each cudaMemcpy timed with a pair of events; `verify` copies are counted apart.
struct Transfers {
  const char* group;
  double h2d_bytes = 0, h2d_ms = 0, d2h_bytes = 0, d2h_ms = 0, verify_bytes = 0, verify_ms = 0;
  int h2d_copies = 0, d2h_copies = 0;
  cudaEvent_t start{}, stop{};
  explicit Transfers(const char* g) : group(g) {
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
  }
  ~Transfers() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  float timed_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemcpy(dst, src, bytes, kind));
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
  template <class T>
  T* to_device(const std::vector<T>& h) {
    T* d = nullptr;
    const size_t bytes = h.size() * sizeof(T);
    CHECK(cudaMalloc(&d, bytes));
    h2d_ms += timed_copy(d, h.data(), bytes, cudaMemcpyHostToDevice);
    h2d_bytes += double(bytes);
    ++h2d_copies;
    return d;
  }
  void to_host(std::vector<double>& h, const double* d) {
    const size_t bytes = h.size() * sizeof(double);
    d2h_ms += timed_copy(h.data(), d, bytes, cudaMemcpyDeviceToHost);
    d2h_bytes += double(bytes);
    ++d2h_copies;
  }
  std::vector<double> verify(const double* d, size_t n) {
    std::vector<double> h(n);
    verify_ms += timed_copy(h.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost);
    verify_bytes += double(n * sizeof(double));
    return h;
  }
};

static Transfers* g_total = nullptr;

static void report(const Transfers& t) {
  std::printf("cuda_transfer %s h2d_bytes=%.0f h2d_ms=%.3f h2d_copies=%d d2h_bytes=%.0f d2h_ms=%.3f "
              "d2h_copies=%d verify_bytes=%.0f verify_ms=%.3f\n",
              t.group, t.h2d_bytes, t.h2d_ms, t.h2d_copies, t.d2h_bytes, t.d2h_ms, t.d2h_copies,
              t.verify_bytes, t.verify_ms);
  g_total->h2d_bytes += t.h2d_bytes;
  g_total->h2d_ms += t.h2d_ms;
  g_total->h2d_copies += t.h2d_copies;
  g_total->d2h_bytes += t.d2h_bytes;
  g_total->d2h_ms += t.d2h_ms;
  g_total->d2h_copies += t.d2h_copies;
  g_total->verify_bytes += t.verify_bytes;
  g_total->verify_ms += t.verify_ms;
}

// Per-launch timing with CUDA events; prints `cuda_event <kernel> median_ms=.. min_ms=..`
// over the launches after the warm-up.
struct Timer {
  std::string kernel;
  std::vector<float> ms;
  cudaEvent_t start{}, stop{};
  explicit Timer(std::string k) : kernel(std::move(k)) {
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
  }
  ~Timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  template <class Launch>
  void time(Launch launch) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0.0f;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  void print() const {
    std::vector<float> s(ms.size() > 1 ? ms.begin() + 1 : ms.begin(), ms.end());
    if (s.empty()) return;
    std::sort(s.begin(), s.end());
    std::printf("cuda_event %s median_ms=%.6f min_ms=%.6f launches=%zu\n", kernel.c_str(), double(s[s.size() / 2]),
                double(s.front()), ms.size());
  }
};

static double floor_sqrt(double ssc) { return ssc <= 0.1111111e-36 ? 0.3333333e-18 : std::sqrt(ssc); }

static void energy() {
  Init init(g_check);
  std::vector<double> e_new = init.constant(ENERGY_N, 0.0);
  const std::vector<double> e_old = init.data(ENERGY_N), delvc = init.data(ENERGY_N),
                            p_new = init.data(ENERGY_N), p_old = init.data(ENERGY_N);
  std::vector<double> q_new = init.constant(ENERGY_N, 0.0);
  const std::vector<double> q_old = init.data(ENERGY_N), work = init.data(ENERGY_N),
                            comp_half_step = init.data(ENERGY_N), p_half_step = init.data(ENERGY_N),
                            bvc = init.data(ENERGY_N), pbvc = init.data(ENERGY_N), ql_old = init.data(ENERGY_N),
                            qq_old = init.data(ENERGY_N), vnewc = init.data(ENERGY_N);
  const double rho0 = init.scalar(), e_cut = init.scalar(), emin = init.scalar(), q_cut = init.scalar();

  Transfers tr("energy");
  double* d_e_new = tr.to_device(e_new);
  double* d_e_old = tr.to_device(e_old);
  double* d_delvc = tr.to_device(delvc);
  double* d_p_new = tr.to_device(p_new);
  double* d_p_old = tr.to_device(p_old);
  double* d_q_new = tr.to_device(q_new);
  double* d_q_old = tr.to_device(q_old);
  double* d_work = tr.to_device(work);
  double* d_chs = tr.to_device(comp_half_step);
  double* d_phs = tr.to_device(p_half_step);
  double* d_bvc = tr.to_device(bvc);
  double* d_pbvc = tr.to_device(pbvc);
  double* d_ql_old = tr.to_device(ql_old);
  double* d_qq_old = tr.to_device(qq_old);
  double* d_vnewc = tr.to_device(vnewc);

  // CPU reference, stage by stage (RAJAPerf's Base_Seq loops)
  std::vector<double> we = e_new, wq = q_new;
  auto step = [&](int k) {
    for (size_t i = 0; i < ENERGY_N; ++i) {
      switch (k) {
        case 1: we[i] = e_old[i] - 0.5 * delvc[i] * (p_old[i] + q_old[i]) + 0.5 * work[i]; break;
        case 2:
          if (delvc[i] > 0.0) {
            wq[i] = 0.0;
          } else {
            const double vhalf = 1.0 / (1.0 + comp_half_step[i]);
            wq[i] = floor_sqrt((pbvc[i] * we[i] + vhalf * vhalf * bvc[i] * p_half_step[i]) / rho0) * ql_old[i] +
                    qq_old[i];
          }
          break;
        case 3: we[i] = we[i] + 0.5 * delvc[i] * (3.0 * (p_old[i] + q_old[i]) - 4.0 * (p_half_step[i] + wq[i])); break;
        case 4: {
          double e = we[i] + 0.5 * work[i];
          if (std::fabs(e) < e_cut) e = 0.0;
          we[i] = e < emin ? emin : e;
          break;
        }
        case 5: {
          const double q_tilde =
              delvc[i] > 0.0
                  ? 0.0
                  : floor_sqrt((pbvc[i] * we[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0) * ql_old[i] +
                        qq_old[i];
          double e = we[i] - (7.0 * (p_old[i] + q_old[i]) - 8.0 * (p_half_step[i] + wq[i]) + (p_new[i] + q_tilde)) *
                                 delvc[i] / 6.0;
          if (std::fabs(e) < e_cut) e = 0.0;
          we[i] = e < emin ? emin : e;
          break;
        }
        default:
          if (delvc[i] <= 0.0) {
            const double q =
                floor_sqrt((pbvc[i] * we[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0) * ql_old[i] + qq_old[i];
            wq[i] = std::fabs(q) < q_cut ? 0.0 : q;
          }
      }
    }
  };

  const dim3 grid(blocks(ENERGY_N)), block(BLOCK);
  Timer t1("energy1"), t2("energy2"), t3("energy3"), t4("energy4"), t5("energy5"), t6("energy6");
  size_t bad[6] = {0, 0, 0, 0, 0, 0};
  for (int rep = 0; rep <= g_reps; ++rep) {
    const bool last = rep == g_reps;
    t1.time([&] { energy1_cuda<<<grid, block>>>(d_e_new, d_e_old, d_delvc, d_p_old, d_q_old, d_work); });
    if (last) { step(1); bad[0] = mismatches("energy1_cuda", tr.verify(d_e_new, ENERGY_N), we); }
    t2.time([&] {
      energy2_cuda<<<grid, block>>>(d_delvc, d_q_new, d_chs, d_phs, d_e_new, d_bvc, d_pbvc, d_ql_old, d_qq_old, rho0);
    });
    if (last) { step(2); bad[1] = mismatches("energy2_cuda", tr.verify(d_q_new, ENERGY_N), wq); }
    t3.time([&] { energy3_cuda<<<grid, block>>>(d_e_new, d_delvc, d_p_old, d_q_old, d_phs, d_q_new); });
    if (last) { step(3); bad[2] = mismatches("energy3_cuda", tr.verify(d_e_new, ENERGY_N), we); }
    t4.time([&] { energy4_cuda<<<grid, block>>>(d_e_new, d_work, e_cut, emin); });
    if (last) { step(4); bad[3] = mismatches("energy4_cuda", tr.verify(d_e_new, ENERGY_N), we); }
    t5.time([&] {
      energy5_cuda<<<grid, block>>>(d_delvc, d_pbvc, d_e_new, d_vnewc, d_bvc, d_p_new, d_ql_old, d_qq_old, d_p_old,
                                    d_q_old, d_phs, d_q_new, rho0, e_cut, emin);
    });
    if (last) { step(5); bad[4] = mismatches("energy5_cuda", tr.verify(d_e_new, ENERGY_N), we); }
    t6.time([&] {
      energy6_cuda<<<grid, block>>>(d_delvc, d_pbvc, d_e_new, d_vnewc, d_bvc, d_p_new, d_q_new, d_ql_old, d_qq_old,
                                    rho0, q_cut);
    });
    if (last) { step(6); bad[5] = mismatches("energy6_cuda", tr.verify(d_q_new, ENERGY_N), wq); }
  }
  tr.to_host(e_new, d_e_new);  // RAJAPerf's teardown copies the two outputs back
  tr.to_host(q_new, d_q_new);
  const Timer* timers[6] = {&t1, &t2, &t3, &t4, &t5, &t6};
  const char* names[6] = {"energy1", "energy2", "energy3", "energy4", "energy5", "energy6"};
  for (int k = 0; k < 6; ++k) {
    timers[k]->print();
    verdict(names[k], ENERGY_N, grid, block, bad[k]);
  }
  for (double* d : {d_e_new, d_e_old, d_delvc, d_p_new, d_p_old, d_q_new, d_q_old, d_work, d_chs, d_phs, d_bvc,
                    d_pbvc, d_ql_old, d_qq_old, d_vnewc})
    CHECK(cudaFree(d));
  report(tr);
}

static void fir() {
  const std::vector<double> coeff = {3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0,
                                     -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0};
  Init init(g_check);
  const std::vector<double> in = init.rand_values(FIR_IN);
  std::vector<double> out = init.constant(FIR_N, 0.0);
  Transfers tr("fir");
  double* d_out = tr.to_device(out);
  double* d_in = tr.to_device(in);
  double* d_coeff = tr.to_device(coeff);
  const dim3 grid(blocks(FIR_N)), block(BLOCK);
  Timer t("fir");
  for (int rep = 0; rep <= g_reps; ++rep) t.time([&] { fir_cuda<<<grid, block>>>(d_out, d_in, d_coeff); });
  tr.to_host(out, d_out);
  std::vector<double> want(FIR_N);
  for (size_t i = 0; i < FIR_N; ++i) {
    double sum = 0.0;
    for (size_t j = 0; j < FIR_COEFFLEN; ++j) sum += coeff[j] * in[i + j];
    want[i] = sum;
  }
  t.print();
  verdict("fir", FIR_N, grid, block, mismatches("fir_cuda", out, want));
  for (double* d : {d_out, d_in, d_coeff}) CHECK(cudaFree(d));
  report(tr);
}

static void ltimes() {
  Init init(g_check);
  std::vector<double> phi = init.constant(LT_PHI, 0.0);
  const std::vector<double> ell = init.data(LT_ELL), psi = init.data(LT_PSI);
  std::vector<double> want = phi;
  Transfers tr("ltimes");
  double* d_phi = tr.to_device(phi);
  double* d_ell = tr.to_device(ell);
  double* d_psi = tr.to_device(psi);
  const dim3 block(LT_BX, LT_BY, LT_BZ);
  const dim3 grid(unsigned((LT_M + LT_BX - 1) / LT_BX), unsigned((LT_G + LT_BY - 1) / LT_BY),
                  unsigned((LT_Z + LT_BZ - 1) / LT_BZ));
  Timer t("ltimes");
  for (int rep = 0; rep <= g_reps; ++rep) {
    t.time([&] { ltimes_cuda<<<grid, block>>>(d_phi, d_ell, d_psi); });
    for (size_t z = 0; z < LT_Z; ++z)
      for (size_t g = 0; g < LT_G; ++g)
        for (size_t m = 0; m < LT_M; ++m)
          for (size_t d = 0; d < LT_D; ++d)
            want[m + LT_M * (g + LT_G * z)] += ell[d + LT_D * m] * psi[d + LT_D * (g + LT_G * z)];
  }
  tr.to_host(phi, d_phi);
  t.print();
  verdict("ltimes", LT_PHI, grid, block, mismatches("ltimes_cuda", phi, want));
  for (double* d : {d_phi, d_ell, d_psi}) CHECK(cudaFree(d));
  report(tr);
}

static void pressure() {
  Init init(g_check);
  const std::vector<double> compression = init.data(PRESSURE_N);
  std::vector<double> bvc = init.data(PRESSURE_N);
  std::vector<double> p_new = init.constant(PRESSURE_N, 0.0);
  const std::vector<double> e_old = init.data(PRESSURE_N), vnewc = init.data(PRESSURE_N);
  const double cls = init.scalar(), p_cut = init.scalar(), pmin = init.scalar(), eosvmax = init.scalar();
  Transfers tr("pressure");
  double* d_compression = tr.to_device(compression);
  double* d_bvc = tr.to_device(bvc);
  double* d_p_new = tr.to_device(p_new);
  double* d_e_old = tr.to_device(e_old);
  double* d_vnewc = tr.to_device(vnewc);
  const dim3 grid(blocks(PRESSURE_N)), block(BLOCK);
  Timer t1("pressure1"), t2("pressure2");
  size_t bad1 = 0;
  std::vector<double> want_bvc(PRESSURE_N), want_p(PRESSURE_N);
  for (size_t i = 0; i < PRESSURE_N; ++i) want_bvc[i] = cls * (compression[i] + 1.0);
  for (size_t i = 0; i < PRESSURE_N; ++i) {
    double p = want_bvc[i] * e_old[i];
    if (std::fabs(p) < p_cut) p = 0.0;
    if (vnewc[i] >= eosvmax) p = 0.0;
    want_p[i] = p < pmin ? pmin : p;
  }
  for (int rep = 0; rep <= g_reps; ++rep) {
    t1.time([&] { pressure1_cuda<<<grid, block>>>(d_bvc, d_compression, cls); });
    if (rep == g_reps) bad1 = mismatches("pressure1_cuda", tr.verify(d_bvc, PRESSURE_N), want_bvc);
    t2.time([&] { pressure2_cuda<<<grid, block>>>(d_p_new, d_bvc, d_e_old, d_vnewc, p_cut, eosvmax, pmin); });
  }
  tr.to_host(p_new, d_p_new);
  t1.print();
  t2.print();
  verdict("pressure1", PRESSURE_N, grid, block, bad1);
  verdict("pressure2", PRESSURE_N, grid, block, mismatches("pressure2_cuda", p_new, want_p));
  for (double* d : {d_compression, d_bvc, d_p_new, d_e_old, d_vnewc}) CHECK(cudaFree(d));
  report(tr);
}

static void vol3d() {
  Init init(g_check);
  init.skip();  // x, y, z: allocAndInitDataConst(.., 0.0), then setMeshPositions_3d
  init.skip();
  init.skip();
  const std::vector<double> x = init.coordinate(D3_NNALLS, 1, D3_JP, 0.3);
  const std::vector<double> y = init.coordinate(D3_NNALLS, D3_JP, D3_JP, 0.2);
  const std::vector<double> z = init.coordinate(D3_NNALLS, D3_KP, D3_JP, 0.1);
  std::vector<double> vol = init.constant(D3_NNALLS, 0.0);
  const double vnormq = 0.083333333333333333;  // 1/12
  Transfers tr("vol3d");
  double* d_vol = tr.to_device(vol);
  double* d_x = tr.to_device(x);
  double* d_y = tr.to_device(y);
  double* d_z = tr.to_device(z);
  const dim3 grid(blocks(VOL3D_LEN)), block(BLOCK);
  Timer t("vol3d");
  for (int rep = 0; rep <= g_reps; ++rep) t.time([&] { vol3d_cuda<<<grid, block>>>(d_vol, d_x, d_y, d_z, vnormq); });
  tr.to_host(vol, d_vol);
  std::vector<double> want(D3_NNALLS, 0.0);
  for (size_t i = D3_FPZ; i <= D3_LPZ; ++i) {
    auto c = [&](const std::vector<double>& a, int k) {
      return a[i + (k & 1) + D3_JP * ((k >> 1) & 1) + D3_KP * (k >> 2)];
    };
    auto d = [&](const std::vector<double>& a, int p, int q) { return c(a, p) - c(a, q); };
    const double x71 = d(x, 7, 1), x72 = d(x, 7, 2), x74 = d(x, 7, 4), x30 = d(x, 3, 0), x50 = d(x, 5, 0), x60 = d(x, 6, 0);
    const double y71 = d(y, 7, 1), y72 = d(y, 7, 2), y74 = d(y, 7, 4), y30 = d(y, 3, 0), y50 = d(y, 5, 0), y60 = d(y, 6, 0);
    const double z71 = d(z, 7, 1), z72 = d(z, 7, 2), z74 = d(z, 7, 4), z30 = d(z, 3, 0), z50 = d(z, 5, 0), z60 = d(z, 6, 0);
    auto triple = [](double xps, double yps, double zps, double cyz, double czx, double cxy) {
      return xps * cyz + yps * czx + zps * cxy;
    };
    double v = triple(x71 + x60, y71 + y60, z71 + z60, y72 * z30 - z72 * y30, z72 * x30 - x72 * z30, x72 * y30 - y72 * x30);
    v += triple(x72 + x50, y72 + y50, z72 + z50, y74 * z60 - z74 * y60, z74 * x60 - x74 * z60, x74 * y60 - y74 * x60);
    v += triple(x74 + x30, y74 + y30, z74 + z30, y74 * z60 - z74 * y60, z74 * x60 - x74 * z60, x74 * y60 - y74 * x60);
    v += triple(x74 + x30, y74 + y30, z74 + z30, y71 * z50 - z71 * y50, z71 * x50 - x71 * z50, x71 * y50 - y71 * x50);
    want[i] = v * vnormq;
  }
  t.print();
  verdict("vol3d", VOL3D_LEN, grid, block, mismatches("vol3d_cuda", vol, want));
  for (double* dd : {d_vol, d_x, d_y, d_z}) CHECK(cudaFree(dd));
  report(tr);
}

static void del_dot_vec_2d() {
  Init init(g_check);
  init.skip();  // x, y: allocAndInitDataConst(.., 0.0), then setMeshPositions_2d
  init.skip();
  init.skip();  // real_zones: filled with -1, then setRealZones_2d
  const std::vector<double> x = init.coordinate(D2_NNALLS, 1, D2_JP, 0.2);
  const std::vector<double> y = init.coordinate(D2_NNALLS, D2_JP, D2_JP, 0.1);
  const std::vector<Index_type> zones = real_zones(D2_REAL_ZONES, D2_IMIN, D2_IMAX, D2_JP, 0, 2);
  const std::vector<double> xdot = init.data(D2_NNALLS), ydot = init.data(D2_NNALLS);
  std::vector<double> div = init.constant(D2_NNALLS, 0.0);
  const double half = 0.5, ptiny = 1.0e-20;
  Transfers tr("del_dot_vec_2d");
  double* d_div = tr.to_device(div);
  double* d_x = tr.to_device(x);
  double* d_y = tr.to_device(y);
  double* d_xdot = tr.to_device(xdot);
  double* d_ydot = tr.to_device(ydot);
  Index_type* d_zones = tr.to_device(zones);
  const dim3 grid(blocks(D2_REAL_ZONES)), block(BLOCK);
  Timer t("del_dot_vec_2d");
  for (int rep = 0; rep <= g_reps; ++rep)
    t.time([&] { del_dot_vec_2d_cuda<<<grid, block>>>(d_div, d_x, d_y, d_xdot, d_ydot, d_zones, half, ptiny); });
  tr.to_host(div, d_div);
  std::vector<double> want(D2_NNALLS, 0.0);
  for (const Index_type zi : zones) {
    const size_t i = size_t(zi);
    auto c = [&](const std::vector<double>& a, double& v1, double& v2, double& v3, double& v4) {
      v1 = a[i + 1]; v2 = a[i + 1 + D2_JP]; v3 = a[i + D2_JP]; v4 = a[i];
    };
    double x1, x2, x3, x4, y1, y2, y3, y4, fx1, fx2, fx3, fx4, fy1, fy2, fy3, fy4;
    c(x, x1, x2, x3, x4);
    c(y, y1, y2, y3, y4);
    c(xdot, fx1, fx2, fx3, fx4);
    c(ydot, fy1, fy2, fy3, fy4);
    const double xi = half * (x1 + x2 - x3 - x4), xj = half * (x2 + x3 - x4 - x1);
    const double yi = half * (y1 + y2 - y3 - y4), yj = half * (y2 + y3 - y4 - y1);
    const double fxi = half * (fx1 + fx2 - fx3 - fx4), fxj = half * (fx2 + fx3 - fx4 - fx1);
    const double fyi = half * (fy1 + fy2 - fy3 - fy4), fyj = half * (fy2 + fy3 - fy4 - fy1);
    const double rarea = 1.0 / (xi * yj - xj * yi + ptiny);
    want[i] = rarea * (fxi * yj - fxj * yi) + rarea * (fyj * xi - fyi * xj) +
              (fy1 + fy2 + fy3 + fy4) / (y1 + y2 + y3 + y4);
  }
  t.print();
  verdict("del_dot_vec_2d", D2_REAL_ZONES, grid, block, mismatches("del_dot_vec_2d_cuda", div, want));
  for (double* d : {d_div, d_x, d_y, d_xdot, d_ydot}) CHECK(cudaFree(d));
  CHECK(cudaFree(d_zones));
  report(tr);
}

static void matvec_3d_stencil() {
  Init init(g_check);
  std::vector<double> b = init.constant(MV_LEN, 0.0);
  const std::vector<double> x = init.data(MV_LEN);
  std::vector<std::vector<double>> m;
  for (int k = 0; k < 14; ++k) m.push_back(init.data(MV_LEN));
  const std::vector<Index_type> zones = real_zones(D3_REAL_ZONES, D3_IMIN, D3_IMAX, D3_JP, D3_KP, 3);
  Transfers tr("matvec_3d_stencil");
  double* d_b = tr.to_device(b);
  double* d_x = tr.to_device(x);
  double* d_m[14];
  for (int k = 0; k < 14; ++k) d_m[k] = tr.to_device(m[k]);
  Index_type* d_zones = tr.to_device(zones);
  const dim3 grid(blocks(D3_REAL_ZONES)), block(BLOCK);
  Timer t("matvec_3d_stencil");
  for (int rep = 0; rep <= g_reps; ++rep)
    t.time([&] {
      matvec_3d_stencil_cuda<<<grid, block>>>(d_b, d_x, d_m[0], d_m[1], d_m[2], d_m[3], d_m[4], d_m[5], d_m[6],
                                              d_m[7], d_m[8], d_m[9], d_m[10], d_m[11], d_m[12], d_m[13], d_zones);
    });
  tr.to_host(b, d_b);
  // reference: stencil point s = 9*kk + 3*jj + ii (d/c/u, b/c/f, l/c/r); points 0..13 are the
  // allocated arrays, point 14 + t is array 12 - t seen from the neighbour at off(14 + t).
  auto off = [](int s) {
    return (std::ptrdiff_t(s / 9) - 1) * std::ptrdiff_t(D3_KP) + (std::ptrdiff_t((s / 3) % 3) - 1) * std::ptrdiff_t(D3_JP) +
           (std::ptrdiff_t(s % 3) - 1);
  };
  std::vector<double> want(MV_LEN, 0.0);
  for (const Index_type zi : zones) {
    const std::ptrdiff_t i = zi;
    auto coeff = [&](int s) { return s < 14 ? m[s][size_t(i)] : m[26 - s][size_t(i + off(s))]; };
    double sum = coeff(0) * x[size_t(i + off(0))];
    for (int s = 1; s < 27; ++s) sum += coeff(s) * x[size_t(i + off(s))];
    want[size_t(i)] = sum;
  }
  t.print();
  verdict("matvec_3d_stencil", D3_REAL_ZONES, grid, block, mismatches("matvec_3d_stencil_cuda", b, want));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_x));
  for (double* d : d_m) CHECK(cudaFree(d));
  CHECK(cudaFree(d_zones));
  report(tr);
}

int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--check-data") {
      g_check = true;
      continue;
    }
    char* end = nullptr;
    const long r = std::strtol(argv[a], &end, 10);
    if (*argv[a] == '\0' || *end != '\0' || r < 0 || r > 1000000) {
      std::fprintf(stderr, "usage: rajaperf-cuda [REPS] [--check-data]   (REPS: a non-negative integer, default 20)\n");
      return 2;
    }
    g_reps = int(r);
  }
  std::printf("data=%s\n", g_check ? "check (random values, jittered meshes)" : "rajaperf");
  int dev = 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device %s sm_%d%d\n", prop.name, prop.major, prop.minor);
  CHECK(cudaFree(nullptr));  // create the context before any timing

  Transfers total("total");
  g_total = &total;
  energy();
  fir();
  ltimes();
  matvec_3d_stencil();
  pressure();
  vol3d();
  del_dot_vec_2d();
  std::printf("cuda_transfer_total h2d_bytes=%.0f h2d_ms=%.3f h2d_copies=%d d2h_bytes=%.0f d2h_ms=%.3f "
              "d2h_copies=%d verify_bytes=%.0f verify_ms=%.3f\n",
              total.h2d_bytes, total.h2d_ms, total.h2d_copies, total.d2h_bytes, total.d2h_ms, total.d2h_copies,
              total.verify_bytes, total.verify_ms);
  return g_failures == 0 ? 0 : 1;
}
