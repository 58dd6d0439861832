"""The README's main job runs in a fresh virtual environment with only the ``examples`` extra.

The venv has no system site-packages and the test hands it no ``PYTHONPATH``, so a package the
main job imports but the ``examples`` extra does not bring fails here, as it would for a new
user. The clone is copied first, so that the editable install's egg-info never lands in the
work tree. pip takes every package from the index (minutes: TensorFlow and Ray); the digits
ship with scikit-learn, so nothing else downloads.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_NOT_SHIPPED = (".git", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", ".hypothesis")
_NOT_SHIPPED += ("results", "data")  # a developer's own outputs and datasets
# what a new user's shell does not have: the host's Python paths, and the TensorFlow settings
# that examples run earlier in this pytest process put into os.environ (with them the child
# would take them for the user's own and print TensorFlow's start-up notices)
_HOST_ONLY = (
    "PYTHONPATH",
    "PYTHONHOME",
    "VIRTUAL_ENV",
    "PYTHONSTARTUP",
    "TF_CPP_MIN_LOG_LEVEL",
    "TF_ENABLE_ONEDNN_OPTS",
)


def _run(*args: str | Path, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in _HOST_ONLY}
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.mark.slow
def test_the_main_job_smoke_runs_in_a_fresh_venv_with_the_examples_extra_only(
    tmp_path: Path,
) -> None:
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=shutil.ignore_patterns(*_NOT_SHIPPED))
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, cwd=tmp_path, timeout=300)
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip", cwd=tmp_path, timeout=600)
    # the README's install step, from the root of the clone
    _run(python, "-m", "pip", "install", "--quiet", "-e", ".[examples]", cwd=clone, timeout=3000)

    out = tmp_path / "out"
    proc = _run(python, "-m", "examples.digits", "--smoke", "--out", out, cwd=clone, timeout=900)
    table = proc.stdout[proc.stdout.index("sampler ") :].splitlines()
    assert [line.split()[:2] for line in table[1:3]] == [["treeucb", "2"], ["tpe", "2"]]
    with (out / "trials.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * 2 * 3  # two samplers, two repeats, --smoke's 3 trials
    assert (out / "trials.json").stat().st_size > 0
    for png in ("best_accuracy.png", "partition.png"):
        assert (out / png).stat().st_size > 10_000, png
    assert "oneDNN" not in proc.stderr and "cuInit" not in proc.stderr
