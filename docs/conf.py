"""Sphinx configuration of the API reference (autodoc + napoleon, Google-style docstrings).

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (the ``docs`` extra).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # document this checkout, not an installed copy

project = "optuna-treeucb"
author = "optuna-treeucb contributors"
copyright = "2026, optuna-treeucb contributors"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
exclude_patterns = ["_build", "figures"]
html_theme = "alabaster"
