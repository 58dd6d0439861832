"""Importing the packages loads no heavy dependency: scikit-learn (which brings scipy.stats and
pandas), scipy and moocore are imported where first needed, so that ``import optuna_treeucb``
costs about what ``import optuna`` does (issue 29: it took 4.8 s against Optuna's 0.7 s)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sklearn", "scipy", "pandas", "moocore", "threadpoolctl", "ray", "matplotlib")
CHECK = """
import json, sys
{imports}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}})))
"""


def _loaded_after(imports: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", CHECK.format(imports=imports)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout))


@pytest.mark.parametrize(
    "imports",
    [
        "import optuna_treeucb",
        "from optuna_treeucb import TreeUCBSampler",
        "from optuna_treeucb.core import TreeUCB, ParamSpec, OPTIONS",
        "import ray_treeucb",
        "import optuna_treeucb.visualization",
    ],
)
def test_import_loads_no_heavy_dependency(imports: str) -> None:
    assert not _loaded_after(imports) & set(HEAVY)


def test_the_first_fit_loads_scikit_learn() -> None:
    # the lazy imports are reached: a tree is fitted once enough values are told
    loaded = _loaded_after(
        "from optuna_treeucb.core import TreeUCB\n"
        "b = TreeUCB(1, seed=0, n_startup_trials=2)\n"
        "for _ in range(4):\n"
        "    p = b.ask(); b.tell(p, p['x0'])\n"
    )
    assert {"sklearn", "scipy"} <= loaded
