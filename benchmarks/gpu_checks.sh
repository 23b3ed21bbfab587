#!/usr/bin/env bash
# Every GPU measurement the book records, in parts that each fit a 10-minute call
# on a GPU machine without network access. No part needs .venv: each runs on the
# machine's own Python with torch (CUDA), transformers, einops, tqdm and pytest, and
# imports encoderlib from the working tree (PYTHONPATH=.). From the repository root:
#
#   bash benchmarks/gpu_checks.sh checks OUT  # GPU tests, host syncs, studies 15 and 16
#   bash benchmarks/gpu_checks.sh speed OUT   # gpu_speed.py: the full table (minutes)
#   bash benchmarks/gpu_checks.sh speed OUT ModernBERT-base  # one model's rows
#   bash benchmarks/gpu_checks.sh short OUT   # one call: tests and the table
#
# `short` is for a machine lent for less than 15 minutes: the packed path's GPU
# tests first (if they fail, the table is not worth its time), then gpu_speed.py
# without the torch.compile column (eager and CUDA-graph paths against Hugging
# Face), then the other GPU tests, under 10 minutes. Host syncs and operator counts
# are recorded and do not change with the table: `checks` and operator_count.py.
#
# Each step prints to the terminal and to OUT/<step>.txt, under its own time limit,
# so a step that hangs or fails leaves the others' results. Where each output goes:
# gpu_speed.txt → benchmarks/recorded/gpu_speed_<gpu>.txt, the tables of
# benchmarks/README.md and chapters 8, 18 and 19; host_syncs.txt →
# benchmarks/recorded/host_syncs_<gpu>.txt; ch15_study.txt and ch16_study.txt → the
# RECORDED_LONGER and flash-attention tables of chapters 15 and 16. Operator counts
# (benchmarks/recorded/operator_count_<gpu>.txt) come from
# `python3 benchmarks/operator_count.py --device cuda [--dtype bfloat16] --top 16`.
set -u
usage="usage: bash benchmarks/gpu_checks.sh checks|speed|short OUT [MODELS]"
part=${1:?$usage}
out=${2:?$usage}
models=${3:-MiniLM-L6,BERT-base,ModernBERT-base}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH=. TOKENIZERS_PARALLELISM=false
# The GPU tests: those marked `@pytest.mark.cuda` (-m cuda), in the packed path's
# file and the others below (expanded unquoted, one argument per file). Every test
# file with such a test is named here (tests/test_benchmarks.py checks): these, or
# tests/test_pretrained.py, left out because it needs the MiniLM package's 91 MB of
# weights, more than one call carries to the GPU machine.
packing_tests=tests/test_packing_gpu.py
other_tests="tests/test_gpu_sync.py tests/test_encode_options.py tests/test_families.py
    tests/test_distributed.py tests/test_fused_attention.py tests/test_graphs.py"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1

step() {  # step NAME SECONDS COMMAND...: run COMMAND for at most SECONDS
    local name=$1 limit=$2
    shift 2
    echo "== $name: $*"
    timeout "$limit" "$@" 2>&1 | tee "$out/$name.txt"
    echo "== $name: exit ${PIPESTATUS[0]}" | tee -a "$out/$name.txt"
}

case $part in
checks)
    step machine 30 bash -c 'nvidia-smi --query-gpu=name,memory.total,driver_version \
        --format=csv && python3 -c "import torch, transformers; \
        print(torch.__version__, transformers.__version__)"'
    step pytest_gpu 180 python3 -m pytest -q -p no:cacheprovider -m cuda \
        $packing_tests $other_tests
    step host_syncs 60 python3 benchmarks/host_syncs.py
    step ch16_study 90 python3 -m studies.ch16_quality --device cuda
    step ch15_study 200 python3 -m studies.ch15_vit --device cuda --only RECORDED_LONGER
    ;;
speed)
    step gpu_speed 570 python3 benchmarks/gpu_speed.py --repeats 3 --models "$models"
    ;;
short)
    step machine 20 nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    step pytest_packing_gpu 60 python3 -m pytest -q -p no:cacheprovider -m cuda \
        $packing_tests
    step gpu_speed 400 python3 benchmarks/gpu_speed.py --repeats 3 --no-compile \
        --models "$models"
    step pytest_gpu 110 python3 -m pytest -q -p no:cacheprovider -m cuda \
        $other_tests
    ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac
