"""The OptunaHub entry re-exports the sampler, and its example runs (optunahub stubbed)."""

from __future__ import annotations

import importlib.util
import re
import sys
import types
from pathlib import Path

import optuna
import pytest

import optuna_treeucb

ENTRY = Path(__file__).resolve().parents[2] / "docs/optunahub/package/samplers/treeucb"


def _load_entry() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("treeucb_entry", ENTRY / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROOT = ENTRY.parents[4]
# optunahub-registry's template/README.md: its sections, in its order
TEMPLATE_SECTIONS = ["Abstract", "Class or Function Names", "Installation", "Example", "Others"]


def test_entry_has_the_registry_layout() -> None:
    assert {"README.md", "__init__.py", "example.py", "requirements.txt", "LICENSE"} <= {
        p.name for p in ENTRY.iterdir()
    }
    assert (ENTRY / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    front = (ENTRY / "README.md").read_text().split("---")[1]
    for key in ("author", "title", "description", "tags", "optuna_versions", "license"):
        assert re.search(rf"^{key}: ", front, flags=re.M), key
    assert "sampler" in re.search(r"^tags: \[(.*)\]", front, flags=re.M).group(1).split(", ")
    assert (ENTRY / "requirements.txt").read_text().split() == ["optuna-treeucb"]


def test_readme_follows_the_template_and_says_when_to_use_it() -> None:
    text = (ENTRY / "README.md").read_text()
    assert re.findall(r"^## (.+)$", text, flags=re.M) == TEMPLATE_SECTIONS
    abstract = text.split("## Abstract")[1].split("\n## ")[0]
    assert "https://arxiv.org/abs/1901.09277" in abstract
    for words in ("instead of TPE", "GPSampler", "constraints", "several objectives"):
        assert words in abstract, words
    assert "### License" in text and "[LICENSE](LICENSE)" in text


def test_entry_reexports_the_sampler() -> None:
    entry = _load_entry()
    assert entry.__all__ == ["TreeUCBSampler"]
    assert entry.TreeUCBSampler is optuna_treeucb.TreeUCBSampler


def test_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    entry = _load_entry()
    hub = types.ModuleType("optunahub")
    loaded: list[str] = []

    def load_module(package: str) -> types.ModuleType:
        loaded.append(package)
        return entry

    hub.load_module = load_module  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "optunahub", hub)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    code = (ENTRY / "example.py").read_text()
    exec(compile(code, str(ENTRY / "example.py"), "exec"), {"__name__": "__main__"})
    assert loaded == ["samplers/treeucb"]
    assert "'x': " in capsys.readouterr().out
    # the README's example is the example file's code
    readme_block = re.search(r"```python\n(.*?)```", (ENTRY / "README.md").read_text(), re.S)
    assert readme_block is not None
    assert readme_block.group(1).strip() in code
