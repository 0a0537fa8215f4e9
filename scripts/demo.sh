#!/usr/bin/env bash
# Render the seed-000 forum example on the engine: `y = t @ a` is built once and shared by every
# iteration's graph; the first backward frees its buffers, so the second iteration fails.
# Writes one picture per snapshot, recording.json and index.html to out/seed000 (or to the folder
# given as the first argument), then prints the diagnosis.
set -uo pipefail
# shellcheck source=scripts/_setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"
ensure_dot
out="${1:-out/seed000}"
echo "== examples/seed000_shared_y.py on graphviz_autograd.torch (import torch -> the engine)"
status=0
"$GVA_PY" -m graphviz_autograd render examples/seed000_shared_y.py -o "$out" \
    --format svg,png,json,html || status=$?
if [ "$status" -ne 1 ]; then
    echo "== outcome: the script exited with status $status (expected the RuntimeError above)" >&2
    exit 1
fi
echo "== outcome: the second loss.backward() failed, as in the forum thread: the first one"
echo "   freed the buffers of the shared MvBackward0 node (y = t @ a) that iteration 2 reuses."
echo "== pictures: $out/*.svg and $out/*.png; the step-by-step page: $out/index.html"
echo "== the diagnosis (graphviz-autograd explain):"
"$GVA_PY" -m graphviz_autograd explain examples/seed000_shared_y.py 2>/dev/null \
    | sed -n '/== graphviz-autograd/,$p'
exit 0
