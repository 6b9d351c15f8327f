# The two commands of the README. Both install into .venv/ first if needed.
PY := .venv/bin/python
STAMP := .venv/.robustdet-installed
DEMO_DIR := data/demo
DEMO_WORK := work_dirs/demo

.PHONY: install demo test lint format clean-demo

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

test: lint
	$(PY) -m pytest -q tests

demo: $(STAMP)
	$(PY) tools/demo.py --data-dir $(DEMO_DIR) --work-dir $(DEMO_WORK)

clean-demo:
	rm -rf $(DEMO_DIR) $(DEMO_WORK)
