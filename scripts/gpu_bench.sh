#!/usr/bin/env bash
# One GPU-machine run of the figures issues #21, #22 and #25 ask for, in one command (device
# time is scarce: everything that belongs together goes in one call). Run from the
# project root on the GPU machine after `. .device-carry/setup.sh`:
#   bash scripts/gpu_bench.sh            # results as JSON under $OUT (or ./gpu-bench-out)
# Prints the GPU's name first: report each figure with it (H100 and H200 separately).
set -uo pipefail
out=${OUT:-gpu-bench-out}; mkdir -p "$out"
export CROKTILE_SERVER=0
# NVIDIA's OpenCL: some GPU machines list only PoCL in /etc/OpenCL/vendors; add the driver's ICD
if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
  nv=$(ls /usr/lib/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -1)
  if [ -n "$nv" ]; then
    icd=$(mktemp -d); cp /etc/OpenCL/vendors/*.icd "$icd"/ 2>/dev/null; echo "$nv" > "$icd/nvidia.icd"
    export OCL_ICD_VENDORS=$icd
  fi
fi
nvidia-smi -L
echo "=== bench_calls (issue #22)"
timeout 240 python3 bench/bench_calls.py --json "$out/calls.json" 2>&1 | tail -45
echo "=== bench_gpu_forms (issue #21; opencl on NVIDIA's OpenCL)"
CROKTILE_OPENCL_PLATFORM=NVIDIA timeout 240 python3 bench/bench_gpu_forms.py --reps 10 > "$out/forms.json" 2> "$out/forms.err"
tail -5 "$out/forms.err"; cat "$out/forms.json"
echo "=== bench_gemm (issue #25: samples/gemm against torch.matmul)"
timeout 200 python3 bench/bench_gemm.py --reps 20 > "$out/gemm.json" 2> "$out/gemm.err"
tail -3 "$out/gemm.err"; cat "$out/gemm.json"
echo "=== bench_attention (issue #25: samples/attention against SDPA's flash backend)"
timeout 300 python3 bench/bench_attention.py --reps 10 > "$out/attention.json" 2> "$out/attention.err"
tail -3 "$out/attention.err"; cat "$out/attention.json"
