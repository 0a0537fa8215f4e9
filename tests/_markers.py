"""Skip markers for optional tools: PyTorch and Graphviz's `dot` binary."""

import importlib.util
import shutil

import pytest

__all__ = ["HAS_DOT", "HAS_TORCH", "requires_dot", "requires_torch"]

HAS_TORCH = importlib.util.find_spec("torch") is not None
HAS_DOT = shutil.which("dot") is not None

requires_torch = pytest.mark.skipif(
    not HAS_TORCH, reason="needs PyTorch: pip install -e '.[torch]' (or run scripts/test.sh)"
)
requires_dot = pytest.mark.skipif(
    not HAS_DOT,
    reason="needs Graphviz's dot binary: sudo apt-get install graphviz / brew install graphviz",
)
