"""Commands never import commands, and the benchmark modules import each other without circles.

A command is a public module of ``benchmarks/`` (``bandit.py``, ``moo.py``, ...); the shared
modules are private (``_harness.py``, ``_report.py``, ``_samplers.py``, the ``_problems``
registry).  Imports inside functions count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "benchmarks"


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Every module of ``benchmarks`` -> the modules of ``benchmarks`` it imports."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found |= {f"{node.module}.{a.name}" for a in node.names} | {node.module}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _is_command(module: str) -> bool:
    parts = module.split(".")
    return len(parts) == 2 and not parts[1].startswith("_")


COMMANDS = sorted(m for m in imports() if _is_command(m))


def test_the_commands_are_found() -> None:
    assert {"benchmarks.moo", "benchmarks.scale", "benchmarks.optimize"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_imports_no_other_command(command: str) -> None:
    assert not {m for m in imports()[command] if _is_command(m)}


def test_no_import_circles() -> None:
    graph = imports()
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, " -> ".join([*path, module])
        if module in done:
            return
        for other in sorted(graph[module]):
            visit(other, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
