# Two commands for a newcomer:  `make book`  and  `make test`.
# Both create the virtual environment .venv on first use (Python 3.11, exact pins).

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
NBS    := $(sort $(wildcard chapters/*.ipynb))
# test processes (pytest-xdist): the unit tests and the notebooks run on JOBS cores
# (each notebook whole on one worker, in order: --dist loadfile); JOBS=1 runs serially
JOBS   ?= 2
XDIST  := $(if $(filter 1,$(JOBS)),,-n $(JOBS))
# one BLAS thread per process: the test workers (and notebook kernels) already use both
# cores, and OpenBLAS's own threads on busy cores spin-wait (a 320 x 320 eigh measured
# 18 ms with one thread, 111-184 ms with two at load 5); override on the command line
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
NBVAL  := $(BIN)/pytest --nbval --nbval-sanitize-with tests/sanitize.cfg -q $(XDIST) $(if $(XDIST),--dist loadfile)

.PHONY: book test venv unit nbval html-strict browser screenshots pdf visible bench execute ledger clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

## make book: execute every chapter (writes figures/), build the HTML into _build/html
book: $(STAMP)
	$(BIN)/python tools/make_ledger.py
	$(BIN)/python tools/execute.py $(NBS)
	$(BIN)/jupyter-book build . --all --path-output . -q
	@echo
	@echo "The book is built. Open: file://$(CURDIR)/_build/html/index.html"
	@echo "(or serve it: $(BIN)/python -m http.server -d _build/html 8000, then http://127.0.0.1:8000)"

## make test: unit tests, strict nbval on every chapter, strict HTML build, browser test
test: unit nbval html-strict browser

unit: $(STAMP)
	$(BIN)/python tools/make_ledger.py --check
	$(BIN)/pytest tests lib --doctest-modules -q $(XDIST)

nbval: $(STAMP)
	$(NBVAL) $(NBS)

html-strict: $(STAMP)
	$(BIN)/jupyter-book build . --all --path-output . -W --keep-going -q

browser: $(STAMP)
	$(BIN)/python tools/browser_test.py --no-screenshots _build/html

## make screenshots: the browser test again, writing every page at 1280 and 390 px into
## _build/screenshots/ to be looked at (after make test or make book)
screenshots: $(STAMP)
	$(BIN)/python tools/browser_test.py _build/html

## make pdf: the PDF edition (_build/latex/book.pdf, copied into _build/html when it
## exists), then its check; installs Debian's TeX packages when missing (needs root)
pdf: $(STAMP)
	$(BIN)/python tools/build_pdf.py
	$(BIN)/python tools/check_pdf.py _build/latex/book.pdf

## make visible: the code a reader sees on each rewritten page runs alone (tools/visible_code.py)
visible: $(STAMP)
	$(BIN)/python tools/visible_code.py

execute: $(STAMP)
	$(BIN)/python tools/execute.py $(NBS)

ledger: $(STAMP)
	$(BIN)/python tools/make_ledger.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/energy_bill.py

clean:
	rm -rf _build
