#!/usr/bin/env bash
# Lint, type-check and test. Runs all three, then fails if any failed. Arguments go to pytest.
set -uo pipefail
# shellcheck source=scripts/_setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"
ensure_torch || true   # without torch, tests marked `torch` skip
ensure_dot             # without dot, tests marked `dot` skip
# where we can install Chromium (root), a missing browser fails the browser tests, not skips them
if ensure_chromium && [ "$(id -u)" -eq 0 ]; then export REQUIRE_BROWSER="${REQUIRE_BROWSER:-1}"; fi

failed=()
echo "== ruff"
lint_paths=()
for p in graphviz_autograd tests benchmarks; do [ -e "$p" ] && lint_paths+=("$p"); done
"$GVA_VENV/bin/ruff" check "${lint_paths[@]}" || failed+=(ruff)
echo "== mypy"
"$GVA_VENV/bin/mypy" graphviz_autograd || failed+=(mypy)
echo "== pytest"
"$GVA_PY" -m pytest "$@" || failed+=(pytest)

if [ "${#failed[@]}" -gt 0 ]; then
    echo "FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "all checks passed"
