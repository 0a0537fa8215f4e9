#!/usr/bin/env bash
# Run the seed-000 forum example under the recorder: the shared `y = t @ a` subgraph whose buffers
# the first backward frees, so the second iteration fails. Extra arguments go to the CLI.
set -euo pipefail
# shellcheck source=scripts/_setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"
ensure_dot
exec "$GVA_PY" -m graphviz_autograd run examples/seed000_shared_y.py "$@"
