# shellcheck shell=bash
# Shared setup, sourced by scripts/demo.sh and scripts/test.sh (not run directly).
# Idempotent: creates .venv if missing, (re)installs the project with the dev extra only when
# pyproject.toml changed, and offers ensure_torch / ensure_dot for the scripts that need them.
# Quiet on success; errors go to stderr, prefixed "setup:".

_gva_err() { printf 'setup: ERROR: %s\n' "$*" >&2; }
_gva_note() { printf 'setup: %s\n' "$*" >&2; }

# The project root is the parent of this file's folder, wherever the caller stands.
GVA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GVA_VENV="$GVA_ROOT/.venv"
GVA_PY="$GVA_VENV/bin/python"
GVA_STAMP="$GVA_VENV/.graphviz-autograd-install.sha256"
GVA_TORCH_VERSION="2.13.0"
cd "$GVA_ROOT" || { _gva_err "cannot cd to $GVA_ROOT"; exit 1; }

_gva_py_ok() {  # is "$1" a Python >= 3.11?
    "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null
}

_gva_make_venv() {
    if [ -x "$GVA_PY" ]; then
        if ! _gva_py_ok "$GVA_PY"; then
            _gva_err "$GVA_VENV uses $("$GVA_PY" -V 2>&1); Python >= 3.11 is required." \
                "Remove .venv and re-run with a newer python3 on PATH."
            exit 1
        fi
        return 0
    fi
    local py="${PYTHON:-python3}"
    if ! command -v "$py" >/dev/null 2>&1; then
        _gva_err "python3 not found. Install Python >= 3.11 (Debian/Ubuntu: sudo apt-get install python3 python3-venv)."
        exit 1
    fi
    if ! _gva_py_ok "$py"; then
        _gva_err "$("$py" -V 2>&1) found, but Python >= 3.11 is required (set PYTHON=/path/to/python3.11+)."
        exit 1
    fi
    _gva_note "creating .venv with $("$py" -V 2>&1)"
    if ! "$py" -m venv "$GVA_VENV"; then
        _gva_err "'$py -m venv .venv' failed (Debian/Ubuntu: sudo apt-get install python3-venv)."
        rm -rf "$GVA_VENV"
        exit 1
    fi
}

_gva_install() {
    local want have=""
    want="$(sha256sum "$GVA_ROOT/pyproject.toml" | cut -d' ' -f1)"
    [ -f "$GVA_STAMP" ] && have="$(cat "$GVA_STAMP")"
    # Also re-install if the distribution vanished (e.g. someone ran pip uninstall).
    if [ "$want" = "$have" ] && "$GVA_PY" -c \
        'import importlib.metadata as m; m.version("graphviz-autograd")' >/dev/null 2>&1; then
        return 0
    fi
    _gva_note "installing graphviz-autograd (editable, with the dev extra) into .venv"
    if ! "$GVA_PY" -m pip install -q -e "$GVA_ROOT[dev]"; then
        _gva_err "pip install -e '.[dev]' failed (see above)."
        exit 1
    fi
    printf '%s\n' "$want" >"$GVA_STAMP"
}

# Install PyTorch, pinned: the engine mimics this exact release and the oracle was recorded with it.
ensure_torch() {
    if "$GVA_PY" -c "import sys, torch; sys.exit(torch.__version__.split('+')[0] != '$GVA_TORCH_VERSION')" \
        >/dev/null 2>&1; then
        return 0
    fi
    _gva_note "installing torch==$GVA_TORCH_VERSION into .venv (large download, once)"
    if ! "$GVA_PY" -m pip install -q "torch==$GVA_TORCH_VERSION"; then
        _gva_err "pip install torch==$GVA_TORCH_VERSION failed; tests marked 'torch' will be skipped."
        return 1
    fi
}

# Graphviz's `dot` binary renders PNG/SVG/PDF. Without it, tests that need it skip with a reason.
ensure_dot() {
    command -v dot >/dev/null 2>&1 && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        _gva_note "installing Graphviz (apt-get install graphviz)"
        if DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
            && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; then
            command -v dot >/dev/null 2>&1 && return 0
        fi
        _gva_err "could not install Graphviz with apt-get; tests that need 'dot' will be skipped."
        return 0
    fi
    _gva_note "Graphviz's 'dot' is not installed; rendering to images and tests that need it are skipped."
    _gva_note "  Debian/Ubuntu: sudo apt-get install graphviz"
    _gva_note "  macOS:         brew install graphviz"
    return 0
}

# Debian's Chromium drives the browser tests (through the playwright package; never
# `playwright install`, which downloads a browser).
ensure_chromium() {
    command -v chromium >/dev/null 2>&1 && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        _gva_note "installing Chromium for the browser tests (apt-get install chromium, once)"
        if DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
            && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; then
            command -v chromium >/dev/null 2>&1 && return 0
        fi
        _gva_err "could not install Chromium with apt-get; the browser tests will fail."
        return 1
    fi
    _gva_note "Chromium is not installed; the browser tests need it."
    _gva_note "  Debian/Ubuntu: sudo apt-get install chromium"
    return 1
}

_gva_make_venv
_gva_install
