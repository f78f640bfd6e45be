#!/bin/sh
# run_on_gpu.sh - run ON THE GPU MACHINE (NVIDIA H200, sm_90; needs CUDA's nvcc, Nsight Compute
# `ncu` and python3; no Rust toolchain, no network).
#
#   sh run_on_gpu.sh RUST_BUNDLE_DIR OUT_DIR [REPS]
#
# RUST_BUNDLE_DIR: the Rust benchmark as a portable bundle, made on the build machine with
#   offload-ls build benchmarks/gpu_kernels/rust --arch sm_90 --device-image gpu --bundle DIR
# (it holds the binary, its runtime libraries and a `run` script; a bundle from
# build-offload.sh with BUNDLE=1 has `run.sh` instead, which is accepted too).
# OUT_DIR: created if missing; everything this script makes goes there.
# REPS: launches per kernel after the one warm-up launch (default 20, or $REPS).
#
# Steps: (a) compile cuda/kernels.cu with nvcc -O3 -arch=sm_90; (b) run both programs once
# normally (each checks its results against a CPU reference); (c) run both under ncu, keeping
# only the three kernels, and export CSVs; (d) python3 compare.py rust.csv cuda.csv.
#
# Files in OUT_DIR: environment.txt, nvcc.log (ptxas register use), cuda-kernels-bench,
# {rust,cuda}.stdout/.stderr (plain runs), {rust,cuda}.ncu-rep (open in Nsight Compute),
# {rust,cuda}.ncu.log, {rust,cuda}.csv, compare.txt.
#
# Environment: NVCC (nvcc), NCU (ncu), PYTHON (python3), ARCH (sm_90),
#   NCU_CLOCK_CONTROL (base = ncu's default: clocks locked to base for repeatable figures;
#   none = clocks as the driver sets them, closer to the CUDA-event timings),
#   TIMEOUT_S (per program run, default 1800, applied when `timeout` exists).
# Exit status: 0 when every step succeeded and both programs' results were correct.
set -eu

usage() {
  echo "usage: $0 RUST_BUNDLE_DIR OUT_DIR [REPS]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$1" ] || { echo "$0: no such directory: $1" >&2; exit 2; }
bundle=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
reps=${3:-${REPS:-20}}
case $reps in
  '' | *[!0-9]*) echo "$0: REPS must be a non-negative integer, not '$reps'" >&2; exit 2 ;;
esac
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
PYTHON=${PYTHON:-python3}
ARCH=${ARCH:-sm_90}
CLOCK=${NCU_CLOCK_CONTROL:-base}
TO=
if command -v timeout > /dev/null 2>&1; then TO="timeout ${TIMEOUT_S:-1800}"; fi

if [ -x "$bundle/run" ]; then
  rust_run=$bundle/run
elif [ -x "$bundle/run.sh" ]; then
  rust_run=$bundle/run.sh
else
  echo "$0: $bundle has no executable 'run' (offload-ls build --bundle) or 'run.sh'" >&2
  exit 2
fi

# Every kernel is launched once as warm-up and then REPS times: 3 kernels.
launches=$((3 * (reps + 1)))
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
status=0
say() { echo "== $*" >&2; }

# ---------------------------------------------------------------- environment
{
  date
  uname -a
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory --format=csv
  "$NVCC" --version
  "$NCU" --version
  "$PYTHON" --version
  echo "bundle: $bundle ($rust_run)"
  echo "REPS=$reps ARCH=$ARCH NCU_CLOCK_CONTROL=$CLOCK"
} > "$out/environment.txt" 2>&1 || true

# ---------------------------------------------------------------- (a) CUDA build
say "nvcc -O3 -arch=$ARCH cuda/kernels.cu"
if ! "$NVCC" -O3 -arch="$ARCH" -Xptxas -v -o "$out/cuda-kernels-bench" "$here/cuda/kernels.cu" \
    > "$out/nvcc.log" 2>&1; then
  cat "$out/nvcc.log" >&2
  echo "$0: nvcc failed" >&2
  exit 1
fi

# ---------------------------------------------------------------- (b) plain runs
plain() {  # plain NAME COMMAND...: stdout/stderr to OUT_DIR/NAME.stdout/.stderr
  name=$1
  shift
  say "run $name: $* "
  if $TO "$@" > "$out/$name.stdout" 2> "$out/$name.stderr"; then
    :
  else
    rc=$?
    say "$name exited with status $rc (see $out/$name.stderr)"
    status=1
  fi
  cat "$out/$name.stdout"
}
plain rust "$rust_run" "$reps"
# The bundle's run script sets LIBOMPTARGET_INFO=48 unless set: launches and copies are logged
# on stderr. A GPU launch has the real grid; [1,1,1] blocks means the Virtual Host Device ran it.
grep -m 3 'Launching kernel' "$out/rust.stderr" >&2 || true
if grep -q 'Launching kernel .* with \[1,1,1\] blocks' "$out/rust.stderr"; then
  say "WARNING: the Rust kernels ran on the Virtual Host Device, not on the GPU; build the bundle with the GPU image only (--device-image gpu)"
  status=1
fi
plain cuda "$out/cuda-kernels-bench" "$reps"

# ---------------------------------------------------------------- (c) Nsight Compute
# One report per program, only the three kernels (--kernel-name matches the function name),
# every launch (skip 0, count 3*(REPS+1)); --target-processes all because the bundle's run
# script execs the binary. The report is exported and then printed as CSV (details page: one
# row per launch and metric, base units). LC_ALL=C: '.' decimal point in the numbers.
profile() {  # profile NAME KERNEL_REGEX COMMAND...
  name=$1
  regex=$2
  shift 2
  say "ncu $name ($launches launches)"
  if LC_ALL=C LIBOMPTARGET_INFO=0 $TO "$NCU" --target-processes all \
      --kernel-name "regex:$regex" --launch-skip 0 --launch-count "$launches" \
      --metrics "$metrics" --cache-control all --clock-control "$CLOCK" \
      --export "$out/$name" --force-overwrite "$@" > "$out/$name.ncu.log" 2>&1; then
    :
  else
    rc=$?
    say "ncu $name exited with status $rc; last lines of $out/$name.ncu.log:"
    tail -n 15 "$out/$name.ncu.log" >&2
    status=1
  fi
  if [ ! -f "$out/$name.ncu-rep" ]; then
    say "no report $out/$name.ncu-rep"
    status=1
    return 0
  fi
  if ! LC_ALL=C "$NCU" --import "$out/$name.ncu-rep" --csv --page details --print-units base \
      > "$out/$name.csv" 2> "$out/$name.import.log"; then
    say "ncu --import with --page details --print-units base failed; retrying with --csv only"
    LC_ALL=C "$NCU" --import "$out/$name.ncu-rep" --csv > "$out/$name.csv" 2>> "$out/$name.import.log" ||
      { say "ncu --import $name failed (see $out/$name.import.log)"; status=1; }
  fi
}
profile rust '^(daxpy|triad|fir)$' "$rust_run" "$reps"
profile cuda '^(daxpy|triad|fir)_cuda$' "$out/cuda-kernels-bench" "$reps"

# ---------------------------------------------------------------- (d) comparison
say "compare.py"
if "$PYTHON" "$here/compare.py" "$out/rust.csv" "$out/cuda.csv" > "$out/compare.txt" 2>&1; then
  :
else
  status=1
fi
cat "$out/compare.txt"
grep '^cuda_event' "$out/cuda.stdout" || true
say "results in $out (exit status $status)"
exit $status
