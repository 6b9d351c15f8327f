#!/usr/bin/env bash
# tools/slurm_train.sh PARTITION JOB_NAME CONFIG [ARGS...]
# runs tools/train.py
# As a slurm job step (tools/slurm_launch.sh: GPUS, GPUS_PER_NODE,
# CPUS_PER_TASK, SRUN_ARGS, PYTHON from the environment).
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 PARTITION JOB_NAME CONFIG [ARGS...]" >&2
    exit 2
fi
exec "$(dirname "$0")/slurm_launch.sh" "$1" "$2" train.py "${@:3}"
