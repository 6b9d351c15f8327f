#!/usr/bin/env bash
# tools/dist_test_pmk.sh CONFIG CHECKPOINT GPUS [ARGS...]
# runs tools/test_pmk.py
# Over GPUS processes with torchrun (tools/dist_launch.sh: NNODES,
# NODE_RANK, MASTER_ADDR, PORT, PYTHON from the environment).
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 CONFIG CHECKPOINT GPUS [ARGS...]" >&2
    exit 2
fi
exec "$(dirname "$0")/dist_launch.sh" test_pmk.py "$3" "$1" "$2" "${@:4}"
