#!/bin/sh
# run_on_gpu.sh - run ON THE GPU MACHINE (NVIDIA H200, sm_90; needs CUDA's nvcc, Nsight Compute
# `ncu` and python3; Nsight Systems `nsys` is used when present; no Rust toolchain, no network).
#
#   sh run_on_gpu.sh RUST_BUNDLE_DIR OUT_DIR [REPS]
#
# RUST_BUNDLE_DIR: the Rust program as a portable bundle, made on the build machine with
#   offload-ls build benchmarks/rajaperf/rust --arch sm_90 --device-image gpu --bundle DIR
# (the binary, its runtime libraries and a `run` script that sets LIBOMPTARGET_INFO=48).
# OUT_DIR: created if missing; everything this script makes goes there.
# REPS: launches per kernel after the one warm-up launch (default 20, or $REPS).
#
# Steps, each kept in OUT_DIR even when another fails:
#   (a) nvcc -O3 -arch=sm_90 -Xptxas -v cuda/rajaperf.cu (nvcc.log: registers per kernel);
#   (b) both programs once plainly with REPS (rust.*: LIBOMPTARGET_INFO=48 logs every launch
#       and copy on stderr, LIBOMPTARGET_PROFILE writes the runtime's copy times), and once
#       with `1 --check-data` (random inputs: the correctness check that catches index errors);
#   (c) both under Nsight Compute, only our 13 kernels, every launch (13 * (REPS + 1)), clocks
#       locked to base, exported as raw-page CSV (LC_ALL=C, base units);
#   (d) both under Nsight Systems when `nsys` exists: host<->device copy time and bytes;
#   (e) python3 compare.py OUT_DIR > compare.txt.
# VARIANTS="nc fma" (or any NAME with an executable RUST_BUNDLE_DIR/run-NAME) adds, per
# variant, (b) and (c) for that binary and compare-NAME.txt (README.md, "Variants");
# RUST_MAIN=0 skips the main Rust program (to profile variants and CUDA in a second run).
#
# Files in OUT_DIR: environment.txt, nvcc.log, rajaperf-cuda, steps.txt (each step's exit
# status and the seconds since the start), {rust,cuda}.stdout/.stderr, {rust,cuda}-check.stdout/.stderr,
# rust.omptarget-profile.json, {rust,cuda}.ncu-rep/.ncu.log/.csv, {rust,cuda}-nsys.nsys-rep and
# *_cuda_gpu_mem_{time,size}_sum.csv (nsys), compare.txt; rust-NAME.* per variant.
#
# Environment: NVCC (nvcc), NCU (ncu), NSYS (nsys), PYTHON (python3), ARCH (sm_90),
#   NCU_CLOCK_CONTROL (base: clocks locked to base; none: as the driver sets them),
#   TIMEOUT_S (per program run, default 400, applied when `timeout` exists), VARIANTS,
#   RUST_MAIN (1; 0 skips the main Rust program), NSYS=none skips (d).
# Exit status: 0 when every step succeeded and every program's results were correct.
set -u

usage() {
  echo "usage: $0 RUST_BUNDLE_DIR OUT_DIR [REPS]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$1" ] || { echo "$0: no such directory: $1" >&2; exit 2; }
bundle=$(cd "$1" && pwd)
mkdir -p "$2" || exit 2
out=$(cd "$2" && pwd)
reps=${3:-${REPS:-20}}
case $reps in
  '' | *[!0-9]*) echo "$0: REPS must be a non-negative integer, not '$reps'" >&2; exit 2 ;;
esac
[ -x "$bundle/run" ] || { echo "$0: $bundle has no executable 'run' (offload-ls build --bundle)" >&2; exit 2; }
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
NSYS=${NSYS:-nsys}
PYTHON=${PYTHON:-python3}
ARCH=${ARCH:-sm_90}
CLOCK=${NCU_CLOCK_CONTROL:-base}
VARIANTS=${VARIANTS:-}
RUST_MAIN=${RUST_MAIN:-1}
TO=
if command -v timeout > /dev/null 2>&1; then TO="timeout ${TIMEOUT_S:-400}"; fi

# The 13 kernels; every one is launched once as warm-up and then REPS times.
kernels='energy1|energy2|energy3|energy4|energy5|energy6|fir|ltimes|matvec_3d_stencil|pressure1|pressure2|vol3d|del_dot_vec_2d'
launches=$((13 * (reps + 1)))
# Duration, DRAM traffic, registers, achieved and theoretical occupancy, launch shape, and
# ncu's own DRAM throughput (% of the peak it measures) as a cross-check on compare.py's.
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct
metrics=$metrics,launch__grid_size,launch__block_size,dram__throughput.avg.pct_of_peak_sustained_elapsed
status=0
say() { echo "== $*" >&2; }
t0=$(date +%s)
step() {  # step NAME RC: record a step's exit status and the seconds since the start
  echo "$1 $2 $(($(date +%s) - t0))s" >> "$out/steps.txt"
  [ "$2" -eq 0 ] || status=1
}
: > "$out/steps.txt"

# ---------------------------------------------------------------- environment
{
  date
  uname -a
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory,memory.total --format=csv
  "$NVCC" --version
  "$NCU" --version
  if command -v "$NSYS" > /dev/null 2>&1; then "$NSYS" --version; else echo "nsys: not found"; fi
  "$PYTHON" --version
  echo "bundle: $bundle"
  echo "REPS=$reps ARCH=$ARCH NCU_CLOCK_CONTROL=$CLOCK VARIANTS=$VARIANTS RUST_MAIN=$RUST_MAIN"
} > "$out/environment.txt" 2>&1

# ---------------------------------------------------------------- (a) CUDA build
say "nvcc -O3 -arch=$ARCH -Xptxas -v cuda/rajaperf.cu"
cuda_ok=1
"$NVCC" -O3 -arch="$ARCH" -Xptxas -v -o "$out/rajaperf-cuda" "$here/cuda/rajaperf.cu" > "$out/nvcc.log" 2>&1
rc=$?
step nvcc $rc
if [ $rc -ne 0 ]; then
  cat "$out/nvcc.log" >&2
  say "nvcc failed: the CUDA steps are skipped"
  cuda_ok=0
fi

# ---------------------------------------------------------------- (b) plain runs
plain() {  # plain NAME COMMAND...: stdout/stderr to OUT_DIR/NAME.stdout/.stderr
  name=$1
  shift
  say "run $name: $*"
  $TO "$@" > "$out/$name.stdout" 2> "$out/$name.stderr"
  rc=$?
  step "run-$name" $rc
  [ $rc -eq 0 ] || say "$name exited with status $rc (see $out/$name.stderr)"
  grep -E '^(OK|FAIL) ' "$out/$name.stdout" >&2
}
rust_plain() {  # rust_plain NAME RUN_SCRIPT
  rm -f "$out/$1.omptarget-profile.json"
  plain "$1" env LIBOMPTARGET_INFO=48 LIBOMPTARGET_PROFILE="$out/$1.omptarget-profile.json" "$2" "$reps"
  # A GPU launch logs its real grid; [1,1,1] blocks means the Virtual Host Device ran it.
  if grep -q 'Launching kernel .* with \[1,1,1\] blocks' "$out/$1.stderr"; then
    say "WARNING: $1 ran its kernels on the Virtual Host Device; build the bundle with --device-image gpu"
    step "$1-on-gpu" 1
  fi
  plain "$1-check" env LIBOMPTARGET_INFO=0 "$2" 1 --check-data
}
if [ "$RUST_MAIN" != 0 ]; then
  rust_plain rust "$bundle/run"
  grep -m 3 'Launching kernel' "$out/rust.stderr" >&2
fi
if [ $cuda_ok -eq 1 ]; then
  plain cuda "$out/rajaperf-cuda" "$reps"
  plain cuda-check "$out/rajaperf-cuda" 1 --check-data
fi

# ---------------------------------------------------------------- (c) Nsight Compute
# One report per program, only our kernels (--kernel-name matches the function name), every
# launch; --target-processes all because the bundle's run script execs the binary.
profile() {  # profile NAME KERNEL_REGEX COMMAND...
  name=$1
  regex=$2
  shift 2
  say "ncu $name ($launches launches)"
  rm -f "$out/$name.ncu-rep"
  LC_ALL=C LIBOMPTARGET_INFO=0 $TO "$NCU" --target-processes all \
    --kernel-name "regex:$regex" --launch-skip 0 --launch-count "$launches" \
    --metrics "$metrics" --cache-control all --clock-control "$CLOCK" \
    --export "$out/$name" --force-overwrite "$@" > "$out/$name.ncu.log" 2>&1
  rc=$?
  step "ncu-$name" $rc
  if [ $rc -ne 0 ]; then
    say "ncu $name exited with status $rc; last lines of $out/$name.ncu.log:"
    tail -n 15 "$out/$name.ncu.log" >&2
  fi
  if [ ! -f "$out/$name.ncu-rep" ]; then
    say "no report $out/$name.ncu-rep"
    step "ncu-$name-report" 1
    return 0
  fi
  LC_ALL=C "$NCU" --import "$out/$name.ncu-rep" --csv --page raw --print-units base \
    > "$out/$name.csv" 2> "$out/$name.import.log"
  step "ncu-import-$name" $?
}
[ "$RUST_MAIN" != 0 ] && profile rust "^($kernels)\$" "$bundle/run" "$reps"
[ $cuda_ok -eq 1 ] && profile cuda "^($kernels)_cuda\$" "$out/rajaperf-cuda" "$reps"

# ---------------------------------------------------------------- (d) Nsight Systems
# Copy time and bytes per program as the CUDA driver sees them (both programs copy from
# pageable host memory). Report names changed in nsys 2023.3 (gpumem* -> cuda_gpu_mem_*).
nsys_copies() {  # nsys_copies NAME COMMAND...
  name=$1
  shift
  say "nsys $name"
  rm -f "$out/$name-nsys.nsys-rep"
  LIBOMPTARGET_INFO=0 $TO "$NSYS" profile --trace=cuda --sample=none --cpuctxsw=none \
    --force-overwrite=true -o "$out/$name-nsys" "$@" > "$out/$name-nsys.log" 2>&1
  step "nsys-$name" $?
  [ -f "$out/$name-nsys.nsys-rep" ] || { step "nsys-$name-report" 1; return 0; }
  LC_ALL=C "$NSYS" stats --force-export=true --report cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum \
    --format csv --output "$out/$name-nsys" "$out/$name-nsys.nsys-rep" >> "$out/$name-nsys.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    LC_ALL=C "$NSYS" stats --force-export=true --report gpumemtimesum,gpumemsizesum \
      --format csv --output "$out/$name-nsys" "$out/$name-nsys.nsys-rep" >> "$out/$name-nsys.log" 2>&1
    rc=$?
  fi
  step "nsys-stats-$name" $rc
}
if command -v "$NSYS" > /dev/null 2>&1; then
  [ "$RUST_MAIN" != 0 ] && nsys_copies rust "$bundle/run" "$reps"
  [ $cuda_ok -eq 1 ] && nsys_copies cuda "$out/rajaperf-cuda" "$reps"
else
  say "nsys not found: transfer times come from the runtimes (LIBOMPTARGET_PROFILE, CUDA events)"
fi

# ---------------------------------------------------------------- (e) comparison
if [ "$RUST_MAIN" != 0 ]; then
  say "compare.py"
  "$PYTHON" "$here/compare.py" "$out" > "$out/compare.txt" 2>&1
  step compare $?
  cat "$out/compare.txt"
fi

# ---------------------------------------------------------------- variants
for v in $VARIANTS; do
  if [ ! -x "$bundle/run-$v" ]; then
    say "variant $v: no $bundle/run-$v"
    step "variant-$v" 1
    continue
  fi
  rust_plain "rust-$v" "$bundle/run-$v"
  profile "rust-$v" "^($kernels)\$" "$bundle/run-$v" "$reps"
  "$PYTHON" "$here/compare.py" --rust "rust-$v" "$out" > "$out/compare-$v.txt" 2>&1
  step "compare-$v" $?
  cat "$out/compare-$v.txt"
done

grep -E '^cuda_(event|transfer_total)' "$out/cuda.stdout" 2> /dev/null
say "steps: $(tr '\n' ' ' < "$out/steps.txt")"
say "results in $out (exit status $status)"
exit $status
