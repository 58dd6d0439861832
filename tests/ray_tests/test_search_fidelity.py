"""TreeUCBSearch with schedulers: trials stopped early are told with the step they reached."""

from __future__ import annotations

import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ray import tune
from ray.tune.schedulers import ASHAScheduler
from ray.tune.schedulers import HyperBandScheduler

from ray_treeucb import TreeUCBSearch

SPACE = {"x": tune.uniform(0.0, 1.0)}


def _searcher(**kwargs: Any) -> TreeUCBSearch:
    return TreeUCBSearch(SPACE, metric="loss", mode="min", seed=0, **kwargs)


def _budgets(searcher: TreeUCBSearch) -> list[float]:
    assert searcher.model is not None
    return searcher.model.budgets.tolist()


def test_a_trial_stopped_before_another_went_further_is_told_with_its_step() -> None:
    searcher = _searcher()
    for tid in ("a", "b"):
        searcher.suggest(tid)
    for step in (1, 2, 3):
        searcher.on_trial_result("a", {"loss": 1.0 / step, "training_iteration": step})
    searcher.on_trial_result("b", {"loss": 0.1, "training_iteration": 1})
    # b stopped by the scheduler at step 1 (its last result), a runs to step 3
    searcher.on_trial_complete("b", {"loss": 0.1, "training_iteration": 1})
    searcher.on_trial_complete("a", {"loss": 0.3, "training_iteration": 3})
    assert _budgets(searcher) == [1.0, math.inf]
    np.testing.assert_allclose(searcher.model.values, [0.1, 0.3])  # type: ignore[union-attr]
    # under "last_value" its last value counts as if final
    np.testing.assert_allclose(searcher.model.rewards(), [0.75, 0.25])  # type: ignore[union-attr]


@pytest.mark.parametrize(("max_budget", "full"), [(None, 3.0), (9, 9.0)])
def test_context_rule_tells_every_trial_at_its_step_and_plays_at_the_full_budget(
    max_budget: int | None, full: float
) -> None:
    searcher = _searcher(pruned="context", max_budget=max_budget, n_startup_trials=4)
    core = searcher.model
    assert core is not None
    for i in range(12):
        tid = str(i)
        x = searcher.suggest(tid)["x"]  # type: ignore[index]
        step = 3 if i % 3 == 0 else 1  # every third trial runs to the end (step 3)
        searcher.on_trial_result(tid, {"loss": x, "training_iteration": 1})
        searcher.on_trial_complete(tid, {"loss": 1.0 - x, "training_iteration": step})
    assert _budgets(searcher) == [3.0 if i % 3 == 0 else 1.0 for i in range(12)]
    leaves = core.fit_leaves()
    assert leaves.low.shape[1] == 2  # x, and the step's context
    # the points lie in their boxes at their contexts log(1 + step) / log(1 + full)
    points = np.column_stack((core.X, np.log1p(core.budgets) / math.log1p(full)))
    box = core.partition.leaf_of
    assert np.all((leaves.low[box] <= points) & (points <= leaves.high[box]))
    assert searcher.suggest("next") is not None


def test_a_paused_trial_stopped_without_a_result_uses_its_last_intermediate_result() -> None:
    searcher = _searcher()
    searcher.suggest("a")
    searcher.suggest("b")
    searcher.on_trial_result("a", {"loss": 0.5, "training_iteration": 4})
    searcher.on_trial_result("b", {"loss": 0.7, "training_iteration": 1})
    searcher.on_trial_result("b", {"loss": 0.6, "training_iteration": 2})
    searcher.on_trial_complete("b")  # HyperBand stops a paused trial: no result
    assert _budgets(searcher) == [2.0]
    np.testing.assert_allclose(searcher.model.values, [0.6])  # type: ignore[union-attr]
    assert "b" not in searcher._last_result


@pytest.mark.parametrize("time_attr", [None, "epoch"])
def test_time_attr_names_the_resource_or_turns_steps_off(time_attr: str | None) -> None:
    searcher = _searcher(time_attr=time_attr)
    searcher.suggest("a")
    searcher.suggest("b")
    searcher.on_trial_result("a", {"loss": 0.5, "epoch": 5, "training_iteration": 1})
    searcher.on_trial_complete("b", {"loss": 0.4, "epoch": 2, "training_iteration": 9})
    assert _budgets(searcher) == [2.0 if time_attr == "epoch" else math.inf]


def test_without_a_scheduler_every_trial_is_full_and_rewards_are_unchanged() -> None:
    plain, stepped = _searcher(time_attr=None), _searcher()
    rng = np.random.default_rng(0)
    for i in range(15):
        for s in (plain, stepped):
            config = s.suggest(str(i))
            assert config is not None
        loss = float(rng.random())
        for s in (plain, stepped):
            s.on_trial_result(str(i), {"loss": loss, "training_iteration": 1})
            s.on_trial_complete(str(i), {"loss": loss, "training_iteration": 1})
    assert plain.suggest("next") == stepped.suggest("next")
    assert set(_budgets(stepped)) == {math.inf}


def test_add_evaluated_point_records_a_pruned_point_at_its_last_step() -> None:
    searcher = _searcher()
    searcher.add_evaluated_point({"x": 0.2}, 0.4, pruned=True, intermediate_values=[0.9, 0.4])
    searcher.add_evaluated_point({"x": 0.3}, 0.5, pruned=True)  # no steps: not recorded
    searcher.add_evaluated_point({"x": 0.4}, 0.6)
    assert _budgets(searcher) == [2.0, math.inf]


def test_bad_time_attr_names_the_parameter() -> None:
    with pytest.raises(TypeError, match="'time_attr' parameter of TreeUCBSearch.*Got 3"):
        _searcher(time_attr=3)


def test_save_and_restore_keep_intermediate_results(tmp_path: Path) -> None:
    searcher = _searcher()
    searcher.suggest("a")
    searcher.on_trial_result("a", {"loss": 0.5, "training_iteration": 3})
    path = tmp_path / "ckpt.pkl"
    searcher.save(str(path))
    other = _searcher()
    other.restore(str(path))
    other.on_trial_complete("a")
    assert _budgets(other) == [math.inf] and other.model is not None
    assert other.model.stopped_early(2.0) and not other.model.stopped_early(3.0)
    pickle.loads(pickle.dumps(other))


# -- real Tuner runs with schedulers ------------------------------------------------------------
def _curve_trainable() -> Any:
    """Loss after t iterations: (x - 0.3)^2 + 1 / t, reported every iteration (3 at most)."""

    def trainable(config: dict[str, Any]) -> None:
        for t in range(1, 4):
            tune.report({"loss": (config["x"] - 0.3) ** 2 + 1.0 / t})

    return trainable


@pytest.mark.slow
@pytest.mark.usefixtures("ray_session")
@pytest.mark.parametrize("scheduler", ["asha", "hyperband"])
@pytest.mark.parametrize("pruned", ["last_value", "context"])
def test_tuner_with_a_scheduler_tells_every_trial_with_its_step(
    tmp_path: Path, scheduler: str, pruned: str
) -> None:
    # space and metric from the Tuner; the full budget of "context" is the scheduler's max_t
    extra = {"max_budget": 3} if pruned == "context" else {}
    searcher = TreeUCBSearch(seed=0, n_startup_trials=3, pruned=pruned, **extra)
    sched = (
        ASHAScheduler(max_t=3, grace_period=1, reduction_factor=3)
        if scheduler == "asha"
        else HyperBandScheduler(max_t=3, reduction_factor=3)
    )
    n = 6
    tuner = tune.Tuner(
        _curve_trainable(),
        param_space=SPACE,
        tune_config=tune.TuneConfig(
            search_alg=searcher,
            scheduler=sched,
            metric="loss",
            mode="min",
            num_samples=n,
            max_concurrent_trials=2,
            reuse_actors=True,
        ),
        run_config=tune.RunConfig(storage_path=str(tmp_path), name=scheduler, verbose=0),
    )
    results = tuner.fit()
    assert len(results) == n and results.num_errors == 0
    iterations = sorted(int(r.metrics["training_iteration"]) for r in results)
    budgets = sorted(_budgets(searcher))
    # every trial told once, stopped ones included; the ones that ran to the end are full
    assert len(budgets) == n and searcher._live_trial_mapping == {}
    full = math.inf if pruned == "last_value" else 3.0  # "context" takes every trial's step
    assert budgets.count(full) >= iterations.count(3) >= 1
    assert all(b in (1.0, 2.0) for b in budgets if b != full)
    if scheduler == "asha":
        assert iterations[0] < 3  # ASHA stopped some trials
