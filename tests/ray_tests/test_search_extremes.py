"""A diverged trial (a value near 1e160) among ordinary ones (issue 21, defect 1): it made
every later ``suggest`` raise, which aborted ``Tuner.fit``."""

from __future__ import annotations

from ray import tune

from ray_treeucb import TreeUCBSearch


def test_a_diverged_result_leaves_the_searcher_suggesting() -> None:
    space = {f"x{i}": tune.uniform(-1.0, 1.0) for i in range(3)}
    searcher = TreeUCBSearch(space, metric="loss", mode="min", seed=0)
    for i in range(30):
        config = searcher.suggest(f"t{i}")
        assert isinstance(config, dict)
        loss = 1e160 if i == 3 else sum((config[k] - 0.2) ** 2 for k in space)
        searcher.on_trial_complete(f"t{i}", {"loss": loss})
    assert all(-1.0 <= config[k] <= 1.0 for k in space)
