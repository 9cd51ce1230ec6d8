# The two commands a learner needs: `make lab` and `make test`.
# `make test NB=04` checks only the notebooks whose name starts with 04 (lesson and solution),
# `make notebooks NB=04` re-executes only them.
# Both build .venv from requirements.txt first (what the notebooks need), and reinstall when that
# file changes; `make test` and `make lint` also install requirements-test.txt (the test tools).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# Jupyter keeps its state inside the project, so runs are repeatable and leave $HOME alone.
# jupyter-config/ (tracked) holds the course's JupyterLab settings: no news or update prompt.
JUPYTER_ENV := IPYTHONDIR=$(CURDIR)/.jupyter-run/ipython \
	JUPYTER_CONFIG_DIR=$(CURDIR)/.jupyter-run/config \
	JUPYTER_CONFIG_PATH=$(CURDIR)/jupyter-config \
	JUPYTER_DATA_DIR=$(CURDIR)/.jupyter-run/data \
	JUPYTER_RUNTIME_DIR=$(CURDIR)/.jupyter-run/runtime

.PHONY: lab test check venv notebooks exercises exercises-check promote lint format serve suite-parts bench clean

venv: $(STAMP)

# pip prints what it collects, downloads and installs: the first install takes a few minutes.
$(STAMP): requirements.txt pyproject.toml
	@echo "== Setting up .venv with $(PYTHON) (first time only: a few minutes, pip says what it is doing)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar on -r requirements.txt
	touch $(STAMP)
	@echo "== .venv is ready: the course's packages are installed"

$(TEST_STAMP): $(STAMP) requirements-test.txt
	@echo "== Adding the test tools to .venv (requirements-test.txt)"
	$(BIN)/python -m pip install --progress-bar on -r requirements-test.txt
	touch $(TEST_STAMP)

# JupyterLab refuses to run as root (containers, some cloud machines) unless told it may.
LAB_FLAGS := $(if $(filter 0,$(shell id -u)),--allow-root,)
# Extra options for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8888".
LAB_ARGS ?=

# LANG_EDITION=ru opens the Russian edition (notebooks/ru/): make lab LANG_EDITION=ru. Both
# editions serve notebooks/, so the Russian start's link to the English one opens.
LANG_EDITION ?= en
# The first lesson, relative to notebooks/ (the folder JupyterLab serves).
START := $(if $(filter ru,$(LANG_EDITION)),ru/00_start_here.ipynb,00_start_here.ipynb)

# JupyterLab's default URL is the one it prints (and opens): make it the first lesson, not the
# Launcher, so the link in the terminal opens what the banner names.
lab: $(STAMP)
	@echo "== Starting JupyterLab on notebooks/$(START). To stop it: File > Shut Down in"
	@echo "   JupyterLab, or Ctrl-C twice in this terminal."
	$(JUPYTER_ENV) $(BIN)/jupyter lab $(LAB_FLAGS) --ServerApp.root_dir=$(CURDIR)/notebooks \
		--LabApp.default_url=/lab/tree/$(START) $(LAB_ARGS)

# NB=04: only the lesson and the solution whose file name starts with 04, under the same strict
# nbval (pytest's options come from pyproject.toml; each notebook's nbval run also checks its
# cost row in docs/workshop.md), the same two notebooks on the other models and on the
# reluctant course model, and the guide's other generated tables (reading times, day plans).
# Without NB, the whole suite. pytest prints a line as each part of the suite ends, and a
# table of the time per part at the end.
NB ?=
NB_PATHS = $(sort $(wildcard notebooks/$(NB)*.ipynb notebooks/exercises/solutions/$(NB)*.ipynb))
NB_CHECKED = $(or $(NB_PATHS),$(error no notebook name starts with $(NB)))
NARROW_TESTS := tests/test_every_model.py tests/test_live_path.py tests/test_reluctant_model.py \
	tests/test_workshop_tables.py
# The wrong and right-but-different learner solutions of the notebooks' exercises, beside their checks.
VARIANT_TESTS = $(wildcard tests/exercise_variants/test_$(notdir $(NB))*.py)
# What else a change to a notebook can break: its Russian cells, the saved modules (promotion),
# hygiene of the stored files, lint, the exercises, the loop's quoted lines, and the package's
# layout (no import cycle, no module over 450 lines).
CHECK_TESTS := tests/test_translations.py tests/test_notebook_hygiene.py tests/test_promotion.py \
	tests/test_lint.py tests/test_exercises.py tests/test_loop.py \
	tests/test_package_layout.py

test: $(TEST_STAMP)
	$(if $(NB),$(BIN)/python -m course_tools.make_exercises --check)
	$(JUPYTER_ENV) $(BIN)/python -m pytest $(if $(NB),--notebooks=$(NB) $(NB_CHECKED) $(NARROW_TESTS))

# make check NB=02: everything a change to the notebooks named can break, in a minute or two:
# `make test NB=02`, and the Russian edition, promotion, hygiene, lint, the exercises and their
# learner variants (tests/exercise_variants/test_02_*).
check: $(TEST_STAMP)
	$(if $(NB),,$(error make check needs NB, e.g. make check NB=02 (make test checks everything)))
	$(BIN)/python -m course_tools.make_exercises --check
	$(JUPYTER_ENV) $(BIN)/python -m pytest --notebooks=$(NB) $(NB_CHECKED) $(NARROW_TESTS) $(CHECK_TESTS) $(VARIANT_TESTS)

# Rewrite the learner modules from the notebooks (later notebooks import them), re-execute every
# notebook, then copy the new code cells and outputs into the Russian edition.
notebooks: $(STAMP)
	$(BIN)/python -m course_tools.promote
	$(JUPYTER_ENV) $(BIN)/python -m course_tools.execute_notebooks $(if $(NB),$(NB_CHECKED))
	$(BIN)/python -m course_tools.translations sync

# English blanks from notebooks/exercises/solutions/; the Russian ones come with `translations sync`
# (which first copies the solutions' code into the Russian solutions).
exercises: $(STAMP)
	$(BIN)/python -m course_tools.make_exercises
	$(BIN)/python -m course_tools.translations sync

# Rewrite course_helpers/lessons/ from the notebook cells marked `# Saved in course_helpers.lessons.X`
# (edit the cell, never the module); tests/test_promotion.py fails until this has run.
promote: $(STAMP)
	$(BIN)/python -m course_tools.promote

# Exit 1 if a blank exercise notebook is stale against its solution; writes nothing.
exercises-check: $(STAMP)
	$(BIN)/python -m course_tools.make_exercises --check

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests benchmarks notebooks
	$(BIN)/ruff format --check src tests benchmarks

format: $(TEST_STAMP)
	$(BIN)/ruff check --fix src tests benchmarks notebooks
	$(BIN)/ruff format src tests benchmarks

serve: $(STAMP)
	$(BIN)/python -m course_helpers.offline serve

# Worker-seconds per part of the last `make test` (pytest's cache), and the ratio to its floor.
suite-parts: $(STAMP)
	$(BIN)/python benchmarks/suite_parts.py

bench: $(STAMP)
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) .jupyter-run .pytest_cache .ruff_cache test-results
