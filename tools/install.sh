#!/usr/bin/env bash
# Create .venv/ in the repo root and install robustdet with the verified
# OpenMMLab stack (see README, "Stack"). Idempotent: every step is a pip
# install that is a no-op when already satisfied. mmcv 2.1.0 is built
# from its sdist with compiled ops (~15 min on 2 cores the first time;
# pip caches the wheel in ~/.cache/pip/wheels afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3.11}
VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip install --disable-pip-version-check -q)

# torch first, pinned through a constraints file so no later step pulls in
# another (CUDA) build. GPU users install their own torch instead
# (TORCH_VERSION=... or an already installed torch is kept).
if ! "$VENV/bin/python" -c 'import torch' 2>/dev/null; then
  "${PIP[@]}" "torch==${TORCH_VERSION:-2.13.0}"
fi
"$VENV/bin/python" -c 'import torch; print("torch==" + torch.__version__.split("+")[0])' \
  > "$VENV/constraints.txt"
C=(-c "$VENV/constraints.txt")
# Separately from torch: torch 2.13 declares setuptools>=77 but mmcv's
# setup.py needs pkg_resources (setuptools<70). pip warns; torch works.
"${PIP[@]}" -r requirements/build.txt
"${PIP[@]}" "${C[@]}" mmengine==0.10.7

if ! "$VENV/bin/python" -c 'import mmcv.ops' 2>/dev/null; then
  echo '[install] building mmcv 2.1.0 with compiled ops' \
       '(~15 min on 2 cores the first time, cached afterwards)'
  MMCV_WITH_OPS=1 MAX_JOBS=${MAX_JOBS:-2} \
    "${PIP[@]}" "${C[@]}" --no-build-isolation mmcv==2.1.0
fi

"${PIP[@]}" "${C[@]}" -r requirements/mminstall.txt \
  -r requirements/runtime.txt -r requirements/tests.txt
"${PIP[@]}" "${C[@]}" --no-build-isolation --no-deps -e .
"$VENV/bin/python" -c 'import robustdet, mmcv.ops, mmdet; print(
    "[install] robustdet", robustdet.__version__, "mmcv", mmcv.__version__,
    "mmdet", mmdet.__version__)'
