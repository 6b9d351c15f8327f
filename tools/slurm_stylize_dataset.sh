#!/usr/bin/env bash
# tools/slurm_stylize_dataset.sh PARTITION JOB_NAME ARGS...
# runs tools/stylize_dataset.py
# As a slurm job step (tools/slurm_launch.sh: GPUS, GPUS_PER_NODE,
# CPUS_PER_TASK, SRUN_ARGS, PYTHON from the environment).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 PARTITION JOB_NAME ARGS..." >&2
    exit 2
fi
exec "$(dirname "$0")/slurm_launch.sh" "$1" "$2" stylize_dataset.py "${@:3}"
