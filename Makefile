# offload-ls developer entry points. `make demo` and `make test` are the README's Quickstart.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: setup demo test lint bench toolchain doctor clean vscode-e2e

# Debian 12 packages of the offload toolchain (docs/offload-notes.md). Needs root.
TOOLCHAIN_PACKAGES := rustc-web cargo-web rust-web-src clang-22 lld-22 llvm-22 llvm-22-tools \
                      llvm-22-dev libomp-22-dev liboffload-22 liboffload-22-dev

$(BIN)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "offload-ls needs Python >= 3.11 ($(PYTHON) is older); set PYTHON=python3.11"; exit 2; }
	@$(PYTHON) -m venv $(VENV) || \
	  { echo "could not create a virtual environment; on Debian: apt-get install python3-venv"; exit 2; }
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $@

setup: $(BIN)/.installed

# The product's main job on the bundled examples: lint them, then build the correct crate
# and run it on libomptarget's Virtual Host Device (no GPU needed) with the run report. As
# root it installs the offload toolchain first; otherwise, without it, it says the one
# command to run and lints only. Exit status 1 from `check` means "deny-level findings were
# printed" (the lint gallery has them on purpose), so it is not a failure here.
demo: setup
	@if dpkg -s $(TOOLCHAIN_PACKAGES) >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then $(MAKE) --no-print-directory toolchain; \
	else echo "== the offload toolchain is not installed: run 'sudo make toolchain', then 'make demo' again (lints only now)"; fi
	@echo "== offload-ls check examples/rust-cuda-style examples/lint-gallery"
	@$(BIN)/offload-ls check examples/rust-cuda-style examples/lint-gallery; \
	  status=$$?; [ $$status -le 1 ] || exit $$status
	@if dpkg -s $(TOOLCHAIN_PACKAGES) >/dev/null 2>&1; then \
	  echo "== offload-ls check --transfer-plan examples/offload-kernels (a correct crate: no findings; the offload compile says what each launch copies)"; \
	  $(BIN)/offload-ls check --transfer-plan examples/offload-kernels || exit $$?; \
	  echo "== offload-ls run --device-image host examples/offload-kernels (build, then run on the Virtual Host Device)"; \
	  $(BIN)/offload-ls run --device-image host examples/offload-kernels || exit $$?; \
	  echo "== offload-ls run --device-image host examples/upstream-offload (today's upstream spelling: #[offload_kernel], a generic kernel, offload!; lowered for rustc 1.96)"; \
	  $(BIN)/offload-ls run --device-image host examples/upstream-offload; \
	else \
	  echo "== offload-ls check examples/offload-kernels (a correct crate: no findings expected)"; \
	  $(BIN)/offload-ls check examples/offload-kernels; \
	fi

# The VS Code extension's checks (tsc, unit tests, stdio smoke test against this checkout's
# server, .vsix packaging) run first when npm is available; pytest's summary comes last.
test: setup
	@if command -v npm >/dev/null 2>&1; then \
	  echo "== editors/vscode: npm ci && npm test"; \
	  (cd editors/vscode && npm ci --no-audit --no-fund && PATH="$(CURDIR)/$(BIN):$$PATH" npm test) || exit 1; \
	elif [ "$${OFFLOAD_LS_REQUIRE_EDITORS:-0}" = 1 ]; then echo "npm is required (OFFLOAD_LS_REQUIRE_EDITORS=1)"; exit 1; \
	else echo "== npm not found: skipping the VS Code extension's tests"; fi
	$(BIN)/python -m pytest -q

# ruff with pyproject.toml's [tool.ruff]: pycodestyle, pyflakes, import order, naming, bugbear,
# complexity. .ci/run runs it before `make test`.
lint: setup
	$(BIN)/ruff check .

toolchain:
	@if dpkg -s $(TOOLCHAIN_PACKAGES) >/dev/null 2>&1; then echo "offload toolchain already installed"; \
	else \
	  if [ "$$(id -u)" != 0 ]; then echo "installing the toolchain needs root: sudo make toolchain"; exit 2; fi; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(TOOLCHAIN_PACKAGES); \
	fi

# A real VS Code for tests/editors/test_vscode_e2e.py: code-server 4.100.3 (the newest on
# Node 20) and playwright-core under editors/vscode/e2e, driving Debian's chromium. Offline
# install steps: node-gyp uses the installed Node's headers, node-pty's npx step must not
# prompt, @vscode/ripgrep finds Debian's rg in its download cache instead of GitHub, and
# code-server's postinstall needs unsafe-perm as root. Debian packages (as root):
# chromium libkrb5-dev ripgrep.
RG_CACHE := $(or $(TMPDIR),/tmp)/vscode-ripgrep-cache-1.15.11
vscode-e2e:
	@command -v rg >/dev/null && command -v chromium >/dev/null || \
	  { echo "needs Debian's chromium, ripgrep and libkrb5-dev: sudo apt-get install chromium ripgrep libkrb5-dev"; exit 2; }
	@mkdir -p $(RG_CACHE) && d=$$(mktemp -d) && cp "$$(command -v rg)" $$d/rg && \
	  tar -czf $(RG_CACHE)/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz -C $$d rg && rm -rf $$d
	cd editors/vscode/e2e && npm_config_nodedir=/usr npm_config_yes=true npm_config_unsafe_perm=true \
	  npm ci --no-audit --no-fund

doctor: setup
	$(BIN)/offload-ls doctor

bench: setup
	$(BIN)/python benchmarks/lint_latency.py

clean:
	rm -rf $(VENV) .pytest_cache
