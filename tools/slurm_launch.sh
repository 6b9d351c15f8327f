#!/usr/bin/env bash
# Start a robustdet tool as a slurm job step with srun, one task per GPU,
# as mmdet's slurm_*.sh do. The tools/slurm_*.sh scripts are thin wrappers
# of this one.
#
#   tools/slurm_launch.sh PARTITION JOB_NAME TOOL [TOOL ARGS...]
#
# Environment: GPUS (8, the number of tasks), GPUS_PER_NODE (8),
# CPUS_PER_TASK (5), SRUN_ARGS (extra srun arguments), PYTHON (python).
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 PARTITION JOB_NAME TOOL [ARGS...]" >&2
    exit 2
fi
PARTITION=$1
JOB_NAME=$2
TOOL=$3
TOOLS_DIR=$(cd "$(dirname "$0")" && pwd)
GPUS=${GPUS:-8}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
CPUS_PER_TASK=${CPUS_PER_TASK:-5}
SRUN_ARGS=${SRUN_ARGS:-}
PYTHON=${PYTHON:-python}

# SRUN_ARGS is split into words on purpose (several srun options).
# shellcheck disable=SC2086
PYTHONPATH="$TOOLS_DIR/..${PYTHONPATH:+:$PYTHONPATH}" \
exec srun -p "$PARTITION" \
    --job-name="$JOB_NAME" \
    --gres=gpu:"$GPUS_PER_NODE" \
    --ntasks="$GPUS" \
    --ntasks-per-node="$GPUS_PER_NODE" \
    --cpus-per-task="$CPUS_PER_TASK" \
    --kill-on-bad-exit=1 \
    $SRUN_ARGS \
    "$PYTHON" -u "$TOOLS_DIR/$TOOL" "${@:4}" --launcher slurm
