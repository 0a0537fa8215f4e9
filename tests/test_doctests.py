"""The examples in the package's docstrings run, as its documentation promises."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import graphviz_autograd

MODULES = sorted(m.name for m in pkgutil.walk_packages(graphviz_autograd.__path__,
                                                       "graphviz_autograd.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_the_package_has_examples() -> None:
    found = 0
    finder = doctest.DocTestFinder()
    for name in MODULES:
        found += sum(len(t.examples) for t in finder.find(importlib.import_module(name)))
    assert found >= 10
