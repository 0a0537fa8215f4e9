#!/usr/bin/env bash
# Run the seed-000 forum example on the engine: `y = t @ a` is built once and shared by every
# iteration's graph; the first backward frees its buffers, so the second iteration fails.
# Extra arguments go to the CLI.
set -uo pipefail
# shellcheck source=scripts/_setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"
ensure_dot
echo "== examples/seed000_shared_y.py on graphviz_autograd.torch (import torch -> the engine)"
status=0
"$GVA_PY" -m graphviz_autograd explain examples/seed000_shared_y.py "$@" || status=$?
if [ "$status" -eq 1 ]; then
    echo "== outcome: the second loss.backward() failed, as in the forum thread: the first one"
    echo "   freed the buffers of the shared MvBackward0 node (y = t @ a) that iteration 2 reuses."
    exit 0
fi
echo "== outcome: the script exited with status $status (expected the RuntimeError above)" >&2
exit 1
