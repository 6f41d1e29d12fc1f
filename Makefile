# Two commands do all set-up on a fresh machine with Python 3.11+:
#   make serve   start the server on its defaults (port 2222)
#   make test    install what the tests need and run them
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: serve test lint bench install clean

$(BIN)/mission-impractical: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/mission-impractical

serve: install
	$(BIN)/mission-impractical serve

test: install
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

lint: install
	$(BIN)/ruff check .

bench: install
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache
