# Two entry points: `make demo` plays a term, `make test` runs the tests.
# Both create .venv and install the project (with its test extras) on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install demo test bench clean

$(BIN)/campus: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(BIN)/campus

install: $(BIN)/campus

demo: install
	$(BIN)/campus run
	$(BIN)/campus run --agent noop
	$(BIN)/campus verify oracle-s0
	$(BIN)/campus diff oracle-s0 noop-s0

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/campus bench kernel

clean:
	rm -rf $(VENV) runs.db runs.db-wal runs.db-shm .pytest_cache .hypothesis
