from __future__ import annotations

import ast
import pathlib

import optuna_treeucb.core

FORBIDDEN = {"optuna", "ray", "tensorflow", "keras", "matplotlib", "torch"}
CORE = pathlib.Path(optuna_treeucb.core.__file__).parent


def _imported_roots(path: pathlib.Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_imports_no_framework() -> None:
    files = sorted(CORE.glob("*.py"))
    assert len(files) >= 5
    for f in files:
        bad = _imported_roots(f) & FORBIDDEN
        assert not bad, f"{f.name} imports {bad}"


def test_core_imports_only_itself_from_the_package() -> None:
    for f in CORE.glob("*.py"):
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("optuna_treeucb")
            ):
                assert node.module.startswith("optuna_treeucb.core"), (f.name, node.module)
