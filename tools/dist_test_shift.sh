#!/usr/bin/env bash
# tools/dist_test_shift.sh CONFIG CHECKPOINT GPUS --benchmark NAME [ARGS...]
# runs tools/test_shift.py
# Over GPUS processes with torchrun (tools/dist_launch.sh: NNODES,
# NODE_RANK, MASTER_ADDR, PORT, PYTHON from the environment).
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 CONFIG CHECKPOINT GPUS --benchmark NAME [ARGS...]" >&2
    exit 2
fi
exec "$(dirname "$0")/dist_launch.sh" test_shift.py "$3" "$1" "$2" "${@:4}"
