// Hand-written CUDA C++ of the kernels in ../rust/src/main.rs (RAJAPerf-style, f64):
//   daxpy_cuda  - Stream_DAXPY: y[i] += a * x[i]               N = 2^24
//   triad_cuda  - Stream_TRIAD: a[i] = b[i] + alpha * c[i]     N = 2^24
//   fir_cuda    - Apps_FIR, 16 taps: out[i] = sum_j coeff[j] * in[i + j], i < N - 15, N = 2^24
// One thread per element, 256 threads per block, grid = N / 256 blocks, 64-bit global index
// blockIdx.x * blockDim.x + threadIdx.x with an `i < N` guard on the compile-time size - as
// in the Rust kernels.
// Read-only arrays are `const double* __restrict__` (the Rust kernels take `&[f64; N]`, which
// rustc marks noalias readonly, so both compile their loads to ld.global.nc). The scalars are
// by value here; the Rust kernels read them through `&f64` (see the note in main.rs).
// The FIR coefficients are a compile-time constant array in both versions (folded into the
// fully unrolled 16-tap loop). nvcc contracts a*x+y into FMA by default (--fmad=true); rustc
// never contracts, so the Rust kernels use separate mul/add. Both are memory-bound.
//
// Kernel names are extern "C" so Nsight Compute reports exactly daxpy_cuda / triad_cuda /
// fir_cuda (compare.py maps them to the Rust kernels daxpy / triad / fir).
//
// Build:  nvcc -O3 -arch=sm_90 -o cuda-kernels-bench kernels.cu
// Run:    cuda-kernels-bench [REPS]    (default 20)
// Device buffers are allocated and filled once; each kernel runs once as warm-up and then REPS
// times, each launch timed with its own pair of CUDA events (median printed). The result after
// the last launch is checked against a CPU reference; exit status 1 on mismatch.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

static constexpr size_t N = size_t(1) << 24;  // elements per array (128 MiB of f64)
static constexpr unsigned BLOCK = 256;        // threads per block
static constexpr int FIR_TAPS = 16;           // RAJAPerf Apps_FIR FIR_COEFFLEN
static constexpr size_t FIR_OUT = N - (FIR_TAPS - 1);
// RAJAPerf Apps_FIR coefficients (same values as COEFF in main.rs).
#define FIR_COEFF {3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0}

extern "C" __global__ void daxpy_cuda(const double* __restrict__ x, double* __restrict__ y,
                                      double a) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) {
    y[i] += a * x[i];
  }
}

extern "C" __global__ void triad_cuda(double* __restrict__ a, const double* __restrict__ b,
                                      const double* __restrict__ c, double alpha) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) {
    a[i] = b[i] + alpha * c[i];
  }
}

extern "C" __global__ void fir_cuda(const double* __restrict__ in, double* __restrict__ out) {
  const double coeff[FIR_TAPS] = FIR_COEFF;
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < FIR_OUT) {
    double sum = 0.0;
#pragma unroll
    for (int j = 0; j < FIR_TAPS; ++j) {
      sum += coeff[j] * in[i + j];
    }
    out[i] = sum;
  }
}

// Number of elements with |got - want| > 1e-12 * max(1, |want|); prints the first.
static size_t mismatches(const char* kernel, const std::vector<double>& got,
                         const std::vector<double>& want) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = 1e-12 * std::max(1.0, std::fabs(want[i]));
    if (!(std::fabs(got[i] - want[i]) <= tol)) {
      if (bad == 0) {
        std::fprintf(stderr, "FAIL %s: element %zu: got %.17g, expected %.17g\n", kernel, i,
                     got[i], want[i]);
      }
      ++bad;
    }
  }
  return bad;
}

// Runs `launch` once as warm-up and then `reps` times, each timed with CUDA events; prints
// `cuda_event <kernel> median_ms=<x> min_ms=<y> algo_GBps=<z>` where algo_GBps counts the
// bytes the algorithm must move (`algo_bytes`) over the median time.
template <class Launch>
static void timed(const char* kernel, int reps, double algo_bytes, Launch launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaGetLastError());
    float t = 0.0f;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  if (!ms.empty()) {
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    std::printf("cuda_event %s median_ms=%.6f min_ms=%.6f algo_GBps=%.1f\n", kernel, median,
                double(ms.front()), algo_bytes / (median * 1e-3) / 1e9);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
}

static double* device_copy(const std::vector<double>& h) {
  double* d = nullptr;
  CHECK(cudaMalloc(&d, h.size() * sizeof(double)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
  return d;
}

static std::vector<double> host_copy(const double* d, size_t n) {
  std::vector<double> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost));
  return h;
}

int main(int argc, char** argv) {
  int reps = 20;
  if (argc > 1) {
    char* end = nullptr;
    const long r = std::strtol(argv[1], &end, 10);
    if (*argv[1] == '\0' || *end != '\0' || r < 0 || r > 1000000) {
      std::fprintf(stderr, "usage: cuda-kernels-bench [REPS]   (REPS: a non-negative integer, default 20)\n");
      return 2;
    }
    reps = int(r);
  }
  int dev = 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device %s sm_%d%d\n", prop.name, prop.major, prop.minor);

  const unsigned blocks = unsigned(N / BLOCK);
  const double f64 = sizeof(double);
  int failures = 0;

  // ---- DAXPY: y accumulates a*x once per launch (warm-up + reps launches).
  {
    const double a = 0.5;
    std::vector<double> x(N), y(N);
    for (size_t i = 0; i < N; ++i) {
      x[i] = 1.0 + double(i % 1000) * 1e-3;
      y[i] = 2.0 - double(i % 777) * 1e-3;
    }
    double* dx = device_copy(x);
    double* dy = device_copy(y);
    timed("daxpy", reps, 3.0 * f64 * N,
          [&] { daxpy_cuda<<<blocks, BLOCK>>>(dx, dy, a); });
    const std::vector<double> got = host_copy(dy, N);
    std::vector<double> want = y;
    for (int r = 0; r < reps + 1; ++r)
      for (size_t i = 0; i < N; ++i) want[i] += a * x[i];
    if (const size_t bad = mismatches("daxpy", got, want)) {
      std::printf("FAIL daxpy N=%zu reps=%d: %zu wrong elements\n", N, reps, bad);
      ++failures;
    } else {
      std::printf("OK daxpy N=%zu reps=%d\n", N, reps);
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
  }

  // ---- TRIAD: same result after every launch.
  {
    const double alpha = 0.25;
    std::vector<double> a(N, -1.0), b(N), c(N);
    for (size_t i = 0; i < N; ++i) {
      b[i] = 1.0 + double(i % 511) * 1e-3;
      c[i] = 3.0 - double(i % 313) * 1e-3;
    }
    double* da = device_copy(a);
    double* db = device_copy(b);
    double* dc = device_copy(c);
    timed("triad", reps, 3.0 * f64 * N,
          [&] { triad_cuda<<<blocks, BLOCK>>>(da, db, dc, alpha); });
    const std::vector<double> got = host_copy(da, N);
    std::vector<double> want(N);
    for (size_t i = 0; i < N; ++i) want[i] = b[i] + alpha * c[i];
    if (const size_t bad = mismatches("triad", got, want)) {
      std::printf("FAIL triad N=%zu reps=%d: %zu wrong elements\n", N, reps, bad);
      ++failures;
    } else {
      std::printf("OK triad N=%zu reps=%d\n", N, reps);
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
  }

  // ---- FIR: out[i] for i < FIR_OUT; the last FIR_TAPS-1 elements keep their initial 0.
  {
    const double coeff[FIR_TAPS] = FIR_COEFF;
    std::vector<double> in(N), out(N, 0.0);
    for (size_t i = 0; i < N; ++i) in[i] = double(i % 1021) * 1e-3 - 0.5;
    double* din = device_copy(in);
    double* dout = device_copy(out);
    timed("fir", reps, 2.0 * f64 * N,
          [&] { fir_cuda<<<blocks, BLOCK>>>(din, dout); });
    const std::vector<double> got = host_copy(dout, N);
    std::vector<double> want(N, 0.0);
    for (size_t i = 0; i < FIR_OUT; ++i) {
      double sum = 0.0;
      for (int j = 0; j < FIR_TAPS; ++j) sum += coeff[j] * in[i + j];
      want[i] = sum;
    }
    if (const size_t bad = mismatches("fir", got, want)) {
      std::printf("FAIL fir N=%zu reps=%d: %zu wrong elements\n", N, reps, bad);
      ++failures;
    } else {
      std::printf("OK fir N=%zu reps=%d\n", N, reps);
    }
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
  }
  return failures == 0 ? 0 : 1;
}
