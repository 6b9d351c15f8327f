#!/usr/bin/env bash
# tools/slurm_test_pmk.sh PARTITION JOB_NAME CONFIG CHECKPOINT [ARGS...]
# runs tools/test_pmk.py
# As a slurm job step (tools/slurm_launch.sh: GPUS, GPUS_PER_NODE,
# CPUS_PER_TASK, SRUN_ARGS, PYTHON from the environment).
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: $0 PARTITION JOB_NAME CONFIG CHECKPOINT [ARGS...]" >&2
    exit 2
fi
exec "$(dirname "$0")/slurm_launch.sh" "$1" "$2" test_pmk.py "${@:3}"
