"""TreeUCBSearch keeps the core's pending points equal to its live trials' points.

That every suggest sees exactly the live trials, each under its own trial id, is tested on
both faces in ``tests/faces_tests/test_pending.py``; here are the searcher's own cases:
points told through ``add_evaluated_point`` and checkpoints written before the keys.
"""

from __future__ import annotations

import math
from pathlib import Path

from ray import tune

from ray_treeucb import TreeUCBSearch


def _pending_configs(searcher: TreeUCBSearch) -> list[tuple[float, int]]:
    core = searcher.model
    assert core is not None
    return sorted((p["x"], p["n"]) for p in (core.space.decode(row) for row in core.pending))


def test_duplicate_live_points_errors_and_evaluated_points() -> None:
    point = {"x": 0.25, "n": 2}
    searcher = TreeUCBSearch(
        {"x": tune.uniform(0.0, 1.0), "n": tune.randint(0, 4)},
        metric="loss",
        mode="min",
        seed=0,
        points_to_evaluate=[point, point, point],
        n_startup_trials=2,
    )
    for i in range(3):
        searcher.suggest(f"same-{i}")
    assert searcher.model is not None and searcher.model.n_pending == 3
    searcher.on_trial_complete("same-0", error=True)
    searcher.on_trial_complete("same-1", {"loss": math.nan})
    assert _pending_configs(searcher) == [(0.25, 2)]
    searcher.add_evaluated_point(point, 1.0)  # equal to a live trial's point: still pending
    assert _pending_configs(searcher) == [(0.25, 2)]
    searcher.on_trial_complete("same-2", {"loss": 0.5})
    assert searcher.model.n_pending == 0 and searcher.model.n_observations == 2


def test_a_point_told_without_a_trial_frees_no_live_slot() -> None:
    point = {"x": 0.5, "n": 1}
    searcher = TreeUCBSearch(
        {"x": tune.quniform(0.0, 1.0, 0.25), "n": tune.randint(0, 3)},
        metric="loss",
        mode="min",
        seed=0,
        points_to_evaluate=[point, point],
    )
    searcher.suggest("first")
    searcher.suggest("second")
    core = searcher.model
    assert core is not None and core.pending_keys == ["first", "second"]
    searcher.on_trial_complete("second", {"loss": 1.0})  # the later one finishes first
    assert core.pending_keys == ["first"]
    searcher.add_evaluated_point(point, 2.0)  # a point told without a trial frees no slot
    assert core.pending_keys == ["first"]
    searcher.on_trial_complete("first", error=True)
    assert core.pending_keys == [] and core.n_observations == 2


def test_a_checkpoint_without_keys_gets_the_live_trials_back(tmp_path: Path) -> None:
    searcher = TreeUCBSearch(
        {"x": tune.uniform(0.0, 1.0), "n": tune.randint(0, 3)}, metric="loss", mode="min", seed=0
    )
    searcher.suggest("a")
    searcher.suggest("b")
    core = searcher.model
    assert core is not None
    core.set_pending(core.pending)  # as a checkpoint written before the keys: no keys
    path = str(tmp_path / "searcher.pkl")
    searcher.save(path)
    restored = TreeUCBSearch()
    restored.restore(path)
    assert restored.model is not None and restored.model.pending_keys == ["a", "b"]
    restored.on_trial_complete("b", {"loss": 1.0})
    restored.on_trial_complete("a", {"other": 1.0})  # no metric: forgotten
    assert restored.model.n_pending == 0 and restored.model.n_observations == 1
