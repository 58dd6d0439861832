"""Sphinx configuration of the API reference (autodoc + napoleon, Google-style docstrings).

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (the ``docs`` extra).  The user
guide is ``guide/``; the API reference is built from the docstrings.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

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

# The user guide links each figure it quotes to its results file as ``../../benchmarks/results/
# <file>.md`` (right on GitHub, from docs/guide/).  The HTML build copies those files beside the
# pages, as ``benchmarks/results/``, and points the links there.  The benchmarks page also links
# ``../independent_benchmark.md`` (a Markdown record, not a page): it is copied to the top.
RESULTS = ROOT / "benchmarks" / "results"
RECORDS = [ROOT / "docs" / "independent_benchmark.md"]


def _link_results(app: Any, doctree: Any, docname: str) -> None:
    from docutils import nodes

    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri", "")
        if uri.startswith("../../benchmarks/"):
            depth = docname.count("/")
            ref["refuri"] = "../" * depth + uri.removeprefix("../../")


def _copy_results(app: Any, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        shutil.copytree(RESULTS, Path(app.outdir) / "benchmarks" / "results", dirs_exist_ok=True)
        for record in RECORDS:
            shutil.copy2(record, Path(app.outdir) / record.name)


def setup(app: Any) -> None:
    app.connect("doctree-resolved", _link_results)
    app.connect("build-finished", _copy_results)
