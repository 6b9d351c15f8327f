#!/usr/bin/env bash
# tools/dist_train.sh CONFIG GPUS [ARGS...]
# runs tools/train.py
# Over GPUS processes with torchrun (tools/dist_launch.sh: NNODES,
# NODE_RANK, MASTER_ADDR, PORT, PYTHON from the environment).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 CONFIG GPUS [ARGS...]" >&2
    exit 2
fi
exec "$(dirname "$0")/dist_launch.sh" train.py "$2" "$1" "${@:3}"
