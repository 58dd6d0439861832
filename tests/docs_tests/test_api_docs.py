"""The API reference (docs/, Sphinx autodoc + napoleon) builds with warnings as errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_api_reference_builds_without_warnings(tmp_path: Path) -> None:
    out = tmp_path / "html"
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
        + ["-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-5000:]
    pages = {
        "sampler.html": ["optuna_treeucb.TreeUCBSampler", "n_startup_trials"],
        "searcher.html": ["ray_treeucb.TreeUCBSearch", "convert_search_space"],
        "core.html": [
            "optuna_treeucb.core.TreeUCB",
            "optuna_treeucb.core.ParamSpec",
            "optuna_treeucb.core.UnitCube",
        ],
        "visualization.html": ["plot_partition", "plot_bandit_partition"],
    }
    for page, names in pages.items():
        html = (out / page).read_text()
        for name in names:
            assert f'id="{name}' in html or f'<span class="pre">{name}' in html, (page, name)
    # the guide's links to Markdown records resolve inside the built site
    guide = (out / "guide" / "benchmarks.html").read_text()
    assert 'href="../independent_benchmark.md"' in guide
    assert (out / "independent_benchmark.md").read_text().startswith("# An independent benchmark")
    assert 'href="../benchmarks/results/optimize_bbob.md"' in guide
    assert (out / "benchmarks" / "results" / "optimize_bbob.md").is_file()
