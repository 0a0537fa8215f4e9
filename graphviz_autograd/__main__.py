"""``python -m graphviz_autograd``: the command-line interface."""

from .cli import main

raise SystemExit(main())
