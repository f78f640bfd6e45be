#!/bin/bash
# Records the GPU-machine data that tests/gpu/data/h200_* come from. Run on the GPU machine
# (the `device` tool: NVIDIA H200, CUDA 13, Nsight Compute; no Rust there) from the repository
# root, with what was built on the build machine carried in .gpu-carry/:
#   okbundle.tar.xz  `offload-ls build examples/offload-kernels --device-image gpu --bundle okbundle`
#   lines.ptx        `offload-ls asm examples/offload-kernels` (target/offload-ls/asm/*.ptx)
#   lines.nodwarf.ptx  `python -m offload_ls.gpu.listing ptx-for-ptxas lines.ptx lines.nodwarf.ptx`
# Writes into $OUT (default ./gpu-record-out). Every step is recorded even when one fails.
set -u
OUT=${OUT:-gpu-record-out}
mkdir -p "$OUT"
log() { echo "== $*" | tee -a "$OUT/steps.txt"; }

log "environment"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory,memory.total --format=csv > "$OUT/gpu.csv" 2>&1
ncu --version > "$OUT/ncu-version.txt" 2>&1

log "SASS with line info (ptxas -lineinfo, nvdisasm --print-line-info, cuobjdump -sass)"
# with the DWARF llc writes (lines.ptx: `.target sm_90, debug`) ptxas compiles unoptimised
ptxas -lineinfo -arch=sm_90 .gpu-carry/lines.ptx -o /tmp/lines-debug.cubin > "$OUT/ptxas-debug.txt" 2>&1
nvdisasm --print-line-info /tmp/lines-debug.cubin > "$OUT/h200_lines_debug.sass" 2>&1
ptxas -lineinfo -arch=sm_90 .gpu-carry/lines.nodwarf.ptx -o /tmp/lines.cubin > "$OUT/ptxas.txt" 2>&1
nvdisasm --print-line-info /tmp/lines.cubin > "$OUT/h200_lines.sass" 2> "$OUT/nvdisasm.stderr"
cuobjdump -sass /tmp/lines.cubin > "$OUT/h200_lines.cuobjdump.txt" 2>&1

log "bundle"
tar -xJf .gpu-carry/okbundle.tar.xz -C /tmp
RUN=/tmp/okbundle/run

log "ncu details page: SpeedOfLight, Occupancy, LaunchStats, MemoryWorkloadAnalysis"
timeout 300 ncu --csv --print-units base --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section MemoryWorkloadAnalysis "$RUN" > "$OUT/h200_ncu_details.csv" 2> "$OUT/h200_ncu_details.stderr"
echo "exit $?" >> "$OUT/steps.txt"

log "ncu raw page with the profile metrics"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__bytes.sum.per_second
M=$M,dram__bytes.sum.peak_sustained,dram__cycles_elapsed.avg.per_second
M=$M,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__thread_count
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct
M=$M,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum
M=$M,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_dadd_pred_on.sum
M=$M,sm__sass_thread_inst_executed_op_dmul_pred_on.sum,sm__sass_thread_inst_executed_op_dfma_pred_on.sum
M=$M,smsp__sass_inst_executed_op_local_ld.sum,smsp__sass_inst_executed_op_local_st.sum
timeout 300 ncu --csv --print-units base --page raw --metrics "$M" "$RUN" > "$OUT/h200_ncu_raw.csv" 2> "$OUT/h200_ncu_raw.stderr"
echo "exit $?" >> "$OUT/steps.txt"

log "runtime profile (LIBOMPTARGET_PROFILE time trace) and info log"
LIBOMPTARGET_PROFILE="$OUT/h200_omptarget_profile.json" LIBOMPTARGET_INFO=63 timeout 120 "$RUN" \
  > "$OUT/h200_run_info.txt" 2>&1
echo "exit $?" >> "$OUT/steps.txt"

log "ncu on a program that launches no kernel"
timeout 120 ncu --csv --print-units base --page raw --metrics gpu__time_duration.sum /bin/true \
  > "$OUT/h200_ncu_nokernel.csv" 2> "$OUT/h200_ncu_nokernel.stderr"
echo "exit $?" >> "$OUT/steps.txt"
ls -la "$OUT" >> "$OUT/steps.txt"
