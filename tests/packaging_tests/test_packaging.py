"""The package builds (sdist, then a wheel from it) and installs into a fresh venv.

The venv has no system site-packages, so a dependency missing from ``pyproject.toml`` fails
here; pip takes the core dependencies from the package index.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_NOT_SHIPPED = (".git", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", ".hypothesis")

CHECK = """
import optuna
import optuna_treeucb
import ray_treeucb
from optuna_treeucb import TreeUCBSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)
study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=3))
study.optimize(lambda t: (t.suggest_float("x", 0, 1) - 0.3) ** 2, n_trials=8)
print(optuna_treeucb.__version__, len(study.trials))
try:
    from ray_treeucb import TreeUCBSearch
except ImportError as exc:
    print("ImportError:", exc)
"""


def _run(*args: str | Path, cwd: Path) -> str:
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.slow
def test_sdist_and_wheel_install_into_a_fresh_venv_with_core_dependencies_only(
    tmp_path: Path,
) -> None:
    # build from a copy, so that the build's egg-info and build/ never touch the work tree
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*_NOT_SHIPPED))
    _run(sys.executable, "-m", "build", "--outdir", tmp_path / "dist", src, cwd=tmp_path)
    (sdist,) = (tmp_path / "dist").glob("optuna_treeucb-*.tar.gz")
    (wheel,) = (tmp_path / "dist").glob("optuna_treeucb-*-py3-none-any.whl")
    assert sdist.stat().st_size > 0
    with tarfile.open(sdist) as tar:
        assert "optuna_treeucb-0.1.0/LICENSE" in tar.getnames()
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "optuna_treeucb-0.1.0.dist-info/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read("optuna_treeucb-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    assert {"optuna_treeucb/py.typed", "ray_treeucb/py.typed"} <= names
    assert "optuna_treeucb/core/_treeucb.py" in names
    assert not any(n.startswith(("tests/", "examples/", "benchmarks/")) for n in names)

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)  # no --system-site-packages
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", wheel, cwd=tmp_path)
    out = _run(python, "-c", CHECK, cwd=tmp_path).splitlines()
    assert out[0] == "0.1.0 8"
    # Ray is not a core dependency: the searcher says how to get it
    assert out[1].startswith("ImportError:") and "pip install 'optuna-treeucb[ray]'" in out[1]
    installed = _run(python, "-m", "pip", "list", "--format=freeze", cwd=tmp_path).lower()
    for extra in ("ray==", "matplotlib==", "tensorflow==", "pytest=="):
        assert extra not in installed
