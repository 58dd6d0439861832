"""The README's code runs as written (every ``python`` block, in order)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import matplotlib
import optuna
import pytest

from optuna_treeucb.core import options_table
from optuna_treeucb.core._options import TABLE_END
from optuna_treeucb.core._options import TABLE_START
from optuna_treeucb.core._options import splice_table

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_the_expected_examples() -> None:
    assert len(BLOCKS) >= 5
    assert any("from ray_treeucb import TreeUCBSearch" in b for b in BLOCKS)
    assert any("from optuna_treeucb.core import" in b for b in BLOCKS)


def test_optuna_and_core_blocks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    namespace: dict[str, Any] = {}  # every block brings its imports and objective
    ran = 0
    for block in BLOCKS:
        if "from ray" in block:
            continue
        exec(compile(block, "README.md", "exec"), namespace)
        ran += 1
    assert ran >= 4
    assert (tmp_path / "partition.png").stat().st_size > 1000
    study = namespace["study"]
    assert len(study.trials) == 40 and study.best_value < 0.05  # the context study


@pytest.mark.slow
def test_ray_block_runs(
    ray_session: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    (block,) = [b for b in BLOCKS if "from ray" in b]
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    results = namespace["results"]
    best = results.get_best_result(metric="loss", mode="min")
    # 30 trials miss k = 0 with |x - 0.3| < 0.32 in about 0.3% of seeds (the core played
    # sequentially, 300 seeds; 20 trials missed in 1.3%): Ray's order of completion varies.
    assert len(results) == 30 and not results.errors
    assert best.metrics["loss"] < 0.1 and best.config["k"] == 0


def test_ci_runs_exactly_the_readme_test_command() -> None:
    command = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert command.startswith('python -m pip install -e ".[test]" && ')
    assert f"\n{command}\n" in README


def test_options_named_in_the_readme_exist_with_those_values() -> None:
    # `name=value` in the prose must be an option of the core or of a wrapper, and a value
    # stated as a default must be the default.
    import inspect

    from optuna_treeucb import TreeUCBSampler
    from optuna_treeucb.core import TreeUCB

    params = {
        **inspect.signature(TreeUCB).parameters,
        **inspect.signature(TreeUCBSampler).parameters,
    }
    named = re.findall(r"`([a-z_]+)=([^`]*)`", README)
    assert named, "the README names no option"
    for name, _ in named:
        assert name in params, f"README names an option {name!r} that does not exist"
    for name, value in re.findall(r"`([a-z_]+)=([^`]*)`[^.]*?\bdefault\b", README):
        assert repr(params[name].default) == value.replace('"', "'"), (name, value)


def test_options_table_is_generated_from_the_declaration() -> None:
    """Regenerate with ``python -m optuna_treeucb.core --write README.md``."""
    assert README.count(TABLE_START) == 1 and README.count(TABLE_END) == 1
    assert splice_table(README) == README, (
        "README.md's options table is stale: run python -m optuna_treeucb.core --write README.md"
    )


def test_options_command_prints_and_writes_the_table(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "optuna_treeucb.core"]
    printed = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    assert printed.stdout == options_table() and not printed.stderr
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n{TABLE_START}\nold\n{TABLE_END}\n")
    subprocess.run([*cmd, "--write", str(readme)], env=env, check=True)
    assert readme.read_text() == f"# x\n{TABLE_START}\n{options_table()}{TABLE_END}\n"
