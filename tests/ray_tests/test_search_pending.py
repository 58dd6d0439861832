"""TreeUCBSearch keeps the core's pending points equal to its live trials' points."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from ray import tune

from ray_treeucb import TreeUCBSearch


def _pending_configs(searcher: TreeUCBSearch) -> list[tuple[float, int]]:
    core = searcher.model
    assert core is not None
    return sorted((p["x"], p["n"]) for p in (core.space.decode(row) for row in core.pending))


def _live_configs(searcher: TreeUCBSearch) -> list[tuple[float, int]]:
    return sorted((p["x"], p["n"]) for p in searcher._live_trial_mapping.values())


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


@pytest.mark.parametrize("seed", [0, 1])
def test_pending_points_follow_the_live_trials_on_a_random_schedule(seed: int) -> None:
    rng = np.random.default_rng(seed)
    searcher = TreeUCBSearch(
        {"x": tune.quniform(0.0, 1.0, 0.25), "n": tune.randint(0, 3)},  # duplicates are common
        metric="loss",
        mode="min",
        seed=seed,
        n_startup_trials=3,
    )
    live: list[str] = []
    for i in range(120):
        if not live or rng.random() < 0.55:
            searcher.suggest(str(i))
            live.append(str(i))
        else:
            trial_id = live.pop(int(rng.integers(len(live))))
            kind = rng.integers(4)
            if kind == 0:
                searcher.on_trial_complete(trial_id, error=True)
            elif kind == 1:
                searcher.on_trial_complete(trial_id, {"other": 1.0})  # no metric: dropped
            else:
                searcher.on_trial_complete(trial_id, {"loss": float(rng.random())})
        if i % 25 == 0 and live:
            config = searcher._live_trial_mapping[live[0]]
            searcher.add_evaluated_point(config, float(rng.random()))
        assert _pending_configs(searcher) == _live_configs(searcher)


def test_two_live_trials_in_one_cell_each_free_their_own_slot() -> None:
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
