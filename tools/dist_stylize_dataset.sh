#!/usr/bin/env bash
# tools/dist_stylize_dataset.sh GPUS ARGS...
# runs tools/stylize_dataset.py
# Over GPUS processes with torchrun (tools/dist_launch.sh: NNODES,
# NODE_RANK, MASTER_ADDR, PORT, PYTHON from the environment).
set -euo pipefail
if [ $# -lt 1 ]; then
    echo "usage: $0 GPUS ARGS..." >&2
    exit 2
fi
exec "$(dirname "$0")/dist_launch.sh" stylize_dataset.py "$1" "${@:2}"
