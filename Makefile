# Two entry points: `make demo` plays a term, `make test` runs the tests.
# Both create .venv and install the project (with its test extras) on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install bytecode browser demo test typecheck bench clean

$(BIN)/campus: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(BIN)/campus

install: $(BIN)/campus

# The project's bytecode, written ahead: where PYTHONDONTWRITEBYTECODE is set (as on the CI machine), every process
# the tests and the demo start would otherwise compile each module it imports again (~20 % of the CPU of the CLI tests).
# Up-to-date files are skipped; a file edited later is compiled in memory, as without this step.
bytecode: install
	@$(BIN)/python -m compileall -q -j 0 campus $(PACKAGES) tests >/dev/null

# Headless Chromium and its driver for the HTML report's tests, from the system packages,
# installed only when missing and only where apt-get can run (as root); otherwise those tests skip.
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "installing chromium and chromium-driver (apt-get)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null \
	      || echo "warning: apt-get could not install chromium; the browser tests will be skipped"; \
	  else \
	    echo "note: no /usr/bin/chromium and no root apt-get to install it; the browser tests will be skipped"; \
	  fi; \
	fi

demo: bytecode
	$(BIN)/campus run
	$(BIN)/campus run --agent noop
	$(BIN)/campus verify oracle-s0
	$(BIN)/campus diff oracle-s0 noop-s0

test: bytecode browser typecheck
	$(BIN)/python -m pytest -n auto

# mypy sees the package as installed: build/typecheck/campus links each mapped folder (pyproject's package-dir).
PACKAGES := events kernel subsystems world scenarios agents replays reports lab cli env
typecheck: install
	@rm -rf build/typecheck && mkdir -p build/typecheck/campus
	@ln -s ../../../campus/__init__.py build/typecheck/campus/__init__.py
	@for d in $(PACKAGES); do [ ! -d $$d ] || ln -s ../../../$$d build/typecheck/campus/$$d; done
	cd build/typecheck && ../../$(BIN)/mypy --config-file ../../pyproject.toml campus

bench: install
	$(BIN)/campus bench kernel

clean:
	rm -rf $(VENV) runs.db runs.db-wal runs.db-shm .pytest_cache .hypothesis
