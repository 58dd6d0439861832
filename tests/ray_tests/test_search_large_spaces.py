"""TreeUCBSearch on a float over the whole double range (issue 11, defect 2), driven directly.

The huge integer and fine float grids of the same issue run on both faces in
``tests/faces_tests/test_large_spaces.py``; this range is the searcher's alone, since Optuna's
RandomSampler, which draws the sampler's first trial, overflows on it.
"""

from __future__ import annotations

import numpy as np
from ray import tune

from ray_treeucb import TreeUCBSearch


def test_a_float_over_the_whole_double_range_is_spread() -> None:
    searcher = TreeUCBSearch(
        {"w": tune.uniform(-1e308, 1e308)}, metric="loss", mode="min", seed=0, n_startup_trials=5
    )
    rng = np.random.default_rng(0)
    values = []
    for i in range(45):
        config = searcher.suggest(f"t{i}")
        assert isinstance(config, dict)
        values.append(config["w"])
        searcher.on_trial_complete(f"t{i}", {"loss": float(rng.random())})
    assert all(type(w) is float and -1e308 <= w <= 1e308 for w in values)
    assert len(set(values[5:])) >= 30  # never a constant (w was always 1e308)
