#!/usr/bin/env bash
# tools/slurm_test_shift.sh PARTITION JOB_NAME CONFIG CHECKPOINT
#     --benchmark NAME [ARGS...]
# runs tools/test_shift.py
# As a slurm job step (tools/slurm_launch.sh: GPUS, GPUS_PER_NODE,
# CPUS_PER_TASK, SRUN_ARGS, PYTHON from the environment).
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: $0 PARTITION JOB_NAME CONFIG CHECKPOINT" \
        "--benchmark NAME [ARGS...]" >&2
    exit 2
fi
exec "$(dirname "$0")/slurm_launch.sh" "$1" "$2" test_shift.py "${@:3}"
