#!/usr/bin/env bash
# Start a robustdet tool on this node with torchrun, one process per GPU
# (or per CPU share on a machine without GPUs), as mmdet's dist_*.sh do.
# The tools/dist_*.sh scripts are thin wrappers of this one.
#
#   tools/dist_launch.sh TOOL NPROC [TOOL ARGS...]
#
# Environment: NNODES (1), NODE_RANK (0), MASTER_ADDR (127.0.0.1),
# PORT (29500), PYTHON (python).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 TOOL NPROC [ARGS...]" >&2
    exit 2
fi
TOOL=$1
NPROC=$2
TOOLS_DIR=$(cd "$(dirname "$0")" && pwd)
NNODES=${NNODES:-1}
NODE_RANK=${NODE_RANK:-0}
PORT=${PORT:-29500}
MASTER_ADDR=${MASTER_ADDR:-127.0.0.1}
PYTHON=${PYTHON:-python}

PYTHONPATH="$TOOLS_DIR/..${PYTHONPATH:+:$PYTHONPATH}" \
exec "$PYTHON" -m torch.distributed.run \
    --nnodes="$NNODES" \
    --node_rank="$NODE_RANK" \
    --master_addr="$MASTER_ADDR" \
    --master_port="$PORT" \
    --nproc_per_node="$NPROC" \
    "$TOOLS_DIR/$TOOL" "${@:3}" --launcher pytorch
