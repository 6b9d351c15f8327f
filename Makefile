# The two commands of the README. Both install into .venv/ first if needed.
PY := .venv/bin/python
STAMP := .venv/.robustdet-installed
DEMO_DIR := data/demo
DEMO_WORK := work_dirs/demo

.PHONY: install demo demo-full test test-held-back lint format clean-demo fuzz

install: $(STAMP)

# Reinstall when the requirements or setup.py change.
$(STAMP): tools/install.sh setup.py requirements/*.txt
	bash tools/install.sh
	touch $(STAMP)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m isort --check-only --diff .

format: $(STAMP)
	$(PY) -m isort .
	$(PY) -m ruff check --fix .

# The suite (two pytest-xdist workers: the test machines have 2 cores;
# work stealing, and the waiting and slowest tests first:
# tests/conftest.py), and beside it its CPU-sensitive tests (they train,
# resize or convolve) again with the CPU held back a generation (AVX-512
# to AVX2, AVX2 to SSE4.2) in torch, numpy, OpenCV and numba: a result
# that depends on the CPU fails on the machine that made it. The second
# run is niced (HELD_BACK_NICE), so that it works mostly on the CPU time
# the first leaves idle (its tests that wait out the watchdog's
# timeouts); its output follows the first's, and either failing fails.
# Python keeps the bytecode of robustdet and of the tests (__pycache__/,
# git-ignored, where numba keeps its kernels) even where
# PYTHONDONTWRITEBYTECODE is set: the suite starts some sixty
# interpreters, and each would compile them anew (about 5 s of each
# worker's collection, 0.9 s of a fresh interpreter's start).
# The second run has one worker: it runs mostly on the time the first
# leaves idle, and a second worker would import everything, collect the
# suite and start a forkserver once more (some 20 s of CPU).
TEST_WORKERS ?= 2
HELD_BACK_WORKERS ?= 1
PYTEST_CMD := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q
PYTEST := $(PYTEST_CMD) -n $(TEST_WORKERS) --dist worksteal
HELD_BACK := $(PY) tools/dev/held_back_cpu.py --
HELD_BACK_NICE ?= 10
KERNELS := $(PY) tools/dev/compile_kernels.py
HELD_BACK_RUN = nice -n $(HELD_BACK_NICE) $(HELD_BACK) $(PYTEST_CMD) \
	-n $(HELD_BACK_WORKERS) -m cpu_sensitive tests

# numba's kernels compiled once for each CPU target first: from a fresh
# clone every worker would compile them itself
# (tools/dev/compile_kernels.py).
# The held-back run in a session of its own, killed with its workers when
# the recipe ends early (Ctrl-C: a background job of a shell without job
# control ignores SIGINT); its output in a temporary file until the end.
test: lint
	$(KERNELS) --held-back
	@log=$$(mktemp) || exit 1; held=; \
	trap 'test -z "$$held" || kill -- -$$held 2>/dev/null; rm -f "$$log"' \
		EXIT; \
	trap 'exit 130' INT TERM HUP; \
	setsid $(HELD_BACK_RUN) > "$$log" 2>&1 & held=$$!; \
	echo '$(PYTEST) tests'; \
	$(PYTEST) tests; suite=$$?; \
	echo '$(HELD_BACK_RUN)'; \
	wait $$held; again=$$?; held=; cat "$$log"; \
	test $$suite = 0 && test $$again = 0

# The whole suite held back a generation (what an older CPU computes).
test-held-back: $(STAMP)
	$(HELD_BACK) $(KERNELS)
	$(HELD_BACK) $(PYTEST) tests

# Fuzz the result-pickle loader for FUZZ_SECONDS (an hour by default);
# the corpus stays in work_dirs/fuzz/corpus and seeds the next run, a
# finding lands in work_dirs/fuzz/findings and stops the run.
FUZZ_SECONDS ?= 3600
fuzz: $(STAMP)
	$(PY) tools/dev/fuzz_safe_pickle.py --seconds $(FUZZ_SECONDS) --work-dir work_dirs/fuzz

# The main job: benchmark the committed demo detector (no training).
demo: $(STAMP)
	$(PY) demo/demo.py --data-dir $(DEMO_DIR) --work-dir $(DEMO_WORK)

# The main job, then the tour (it trains detectors: hours on 2 cores).
demo-full: $(STAMP)
	$(PY) demo/demo.py --full --data-dir $(DEMO_DIR) --work-dir $(DEMO_WORK)

clean-demo:
	rm -rf $(DEMO_DIR) $(DEMO_WORK)
