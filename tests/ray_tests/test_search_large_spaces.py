"""TreeUCBSearch on huge integer and fine float grids, driven directly (issue 11, defect 1)."""

from __future__ import annotations

import math

import numpy as np
from ray import tune

from ray_treeucb import TreeUCBSearch


def test_huge_grids_suggest_legal_values() -> None:
    # regression: tune.randint(0, 10**12) raised MemoryError once the model took over
    space = {
        "a": tune.randint(0, 10**12 + 1),
        "b": tune.qrandint(0, 999_999_999, 3),
        "c": tune.quniform(0.0, 1.0, 1e-9),
        "w": tune.uniform(-1e308, 1e308),
    }
    searcher = TreeUCBSearch(space, metric="loss", mode="min", seed=0, n_startup=5)
    rng = np.random.default_rng(0)
    configs = []
    for i in range(45):
        config = searcher.suggest(f"t{i}")
        assert isinstance(config, dict)
        configs.append(config)
        searcher.on_trial_complete(f"t{i}", {"loss": float(rng.random())})
    for config in configs:
        a, b, c, w = config["a"], config["b"], config["c"], config["w"]
        assert type(a) is int and 0 <= a <= 10**12
        assert type(b) is int and 0 <= b <= 999_999_999 and b % 3 == 0
        assert 0.0 <= c <= 1.0 and math.isclose(c, round(c * 1e9) * 1e-9, abs_tol=1e-15)
        assert -1e308 <= w <= 1e308
    for name in ("a", "b", "c", "w"):  # never a constant (w was always 1e308, defect 2)
        assert len({config[name] for config in configs[5:]}) >= 30
