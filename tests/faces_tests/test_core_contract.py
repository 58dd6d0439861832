"""The faces (``optuna_treeucb`` outside ``core/``, and ``ray_treeucb``) use the core through
its public contract: they import at most 5 names from its private modules (the ``Literal``
types of the options), and every public name of the core says what it is for."""

from __future__ import annotations

import ast
import pathlib

import optuna_treeucb
import optuna_treeucb.core as core
import ray_treeucb

MAX_PRIVATE_NAMES = 5
OPTUNA_FACE = pathlib.Path(optuna_treeucb.__file__).parent
FACE_FILES = [
    *(p for p in OPTUNA_FACE.rglob("*.py") if "core" not in p.relative_to(OPTUNA_FACE).parts),
    *pathlib.Path(ray_treeucb.__file__).parent.rglob("*.py"),
]


def _private_core_names() -> set[str]:
    names = set()
    for path in FACE_FILES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "optuna_treeucb.core._"
            ):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
                assert not any(m.startswith("optuna_treeucb.core._") for m in modules), path
    return names


def test_the_faces_import_few_private_core_names() -> None:
    names = _private_core_names()
    assert len(names) <= MAX_PRIVATE_NAMES, sorted(names)


def test_every_public_core_name_is_documented() -> None:
    for name in core.__all__:
        obj = getattr(core, name)
        doc = getattr(obj, "__doc__", None) if name != "OPTIONS" else "declared in _options"
        assert doc and doc.strip(), name
    for name in ("Face", "BranchChooser"):
        assert getattr(core, name).__doc__.startswith("Face contract"), name
