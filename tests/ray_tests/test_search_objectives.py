"""TreeUCBSearch with several metrics (``metric``/``mode`` lists) and ``constraints``.

What both faces share (constraint values, violations and fronts reaching the core) is tested on
both in ``tests/faces_tests/test_objectives.py``; here are the searcher's own cases: results
missing a metric or a constraint, constraints from earlier results, ``add_evaluated_point``
and ``evaluated_rewards``, checkpoints, and real Tuner runs.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ray import tune

from ray_treeucb import TreeUCBSearch

SPACE = {"x": tune.uniform(0.0, 1.0), "y": tune.uniform(0.0, 1.0)}


def _result(config: dict[str, Any]) -> dict[str, Any]:
    """Two losses (a ZDT1-like pair) and one constraint, satisfied when x >= 0.2."""
    x, y = config["x"], config["y"]
    g = 1.0 + 9.0 * y
    return {"f1": x, "f2": g * (1.0 - math.sqrt(x / g)), "x_under": 0.2 - x, "step": 1}


def _drive(searcher: TreeUCBSearch, n: int, start: int = 0) -> list[dict[str, Any]]:
    configs = []
    for i in range(start, start + n):
        config = searcher.suggest(f"t{i}")
        assert config is not None
        searcher.on_trial_complete(f"t{i}", _result(config))
        configs.append(config)
    return configs


def _searcher(**kwargs: Any) -> TreeUCBSearch:
    return TreeUCBSearch(
        SPACE, metric=["f1", "f2"], mode=["min", "min"], seed=0, n_startup_trials=5, **kwargs
    )


@pytest.mark.parametrize("bad", [{}, {"x_under": float("nan")}, {"x_under": "high"}])
def test_a_missing_or_non_numeric_constraint_drops_the_trial_with_one_warning(
    bad: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    # as a NaN metric: dropped and its point released, never an exception inside Tune
    searcher = _searcher(constraints=["x_under"])
    with caplog.at_level(logging.INFO, logger="ray_treeucb"):
        for trial in ("t0", "t1"):
            config = searcher.suggest(trial)
            assert config is not None
            result = {**_result(config), **bad}
            if not bad:
                del result["x_under"]
            searcher.on_trial_complete(trial, result)
    assert searcher.model is not None
    assert searcher.model.n_observations == 0 and searcher.model.n_pending == 0
    [first, second] = [r for r in caplog.records if "drops trial" in r.getMessage()]
    assert first.levelno == logging.WARNING and second.levelno == logging.INFO
    assert "'constraints' parameter" in first.getMessage() and "'x_under'" in first.getMessage()
    _drive(searcher, 3, start=2)  # later trials are recorded as before
    assert searcher.model.n_observations == 3


def test_a_constraint_from_an_earlier_result_stands_for_a_stopped_trial() -> None:
    searcher = _searcher(constraints=["x_under"])
    config = searcher.suggest("t0")
    assert config is not None
    searcher.on_trial_result("t0", {**_result(config), "step": 1})
    searcher.on_trial_result("t0", {"f1": 0.5, "f2": 0.5, "step": 2})  # no constraint
    searcher.on_trial_complete("t0", {"f1": 0.4, "f2": 0.4, "step": 3})
    assert searcher.model is not None
    np.testing.assert_allclose(searcher.model.values, [[0.4, 0.4]])
    np.testing.assert_allclose(searcher.model.violations, [max(0.0, 0.2 - config["x"])])


def test_a_missing_metric_drops_the_trial_as_for_one_metric(
    caplog: pytest.LogCaptureFixture,
) -> None:
    searcher = _searcher()
    config = searcher.suggest("t0")
    assert config is not None
    result = _result(config)
    del result["f2"]
    searcher.on_trial_complete("t0", result)
    assert searcher.model is not None and searcher.model.n_observations == 0
    assert searcher.model.n_pending == 0
    config = searcher.suggest("t1")
    assert config is not None
    searcher.on_trial_complete("t1", {**_result(config), "f1": float("nan")})
    assert searcher.model.n_observations == 0 and "drops trial t1" in caplog.text


def test_a_stopped_trial_uses_its_last_result_with_its_constraints() -> None:
    searcher = _searcher(constraints=["x_under"])
    config = searcher.suggest("t0")
    assert config is not None
    searcher.on_trial_result("t0", _result(config))
    searcher.on_trial_complete("t0", {})  # stopped by a scheduler without a final result
    assert searcher.model is not None
    np.testing.assert_allclose(searcher.model.violations, [max(0.0, 0.2 - config["x"])])


def test_add_evaluated_point_is_refused_with_constraints() -> None:
    searcher = _searcher(constraints=["x_under"])
    with pytest.raises(ValueError, match="add_evaluated_point .* 'constraints'"):
        searcher.add_evaluated_point({"x": 0.5, "y": 0.5}, [1.0, 2.0])


def test_add_evaluated_point_takes_a_dict_keyed_by_metric() -> None:
    searcher = _searcher()
    searcher.add_evaluated_point({"x": 0.5, "y": 0.5}, {"f2": 2.0, "f1": 1.0})
    searcher.add_evaluated_point({"x": 0.4, "y": 0.5}, (3.0, 4.0))
    assert searcher.model is not None
    np.testing.assert_array_equal(searcher.model.values, [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (1.0, TypeError),  # one number for two metrics: was dropped with a warning
        ({"f1": 1.0}, ValueError),
        ({"f1": 1.0, "f2": 2.0, "f3": 3.0}, ValueError),
        ([1.0], ValueError),
        ([1.0, None], TypeError),
        (["1.0", 2.0], TypeError),
    ],
)
def test_add_evaluated_point_with_a_bad_value_for_several_metrics_raises(
    value: Any, error: type[Exception]
) -> None:
    searcher = _searcher()
    match = (
        "'value' parameter of TreeUCBSearch.add_evaluated_point must be a list of 2 real "
        r"numbers, one per metric of \['f1', 'f2'\] .* or a dict keyed by those metric names"
    )
    with pytest.raises(error, match=match):
        searcher.add_evaluated_point({"x": 0.5, "y": 0.5}, value)
    assert searcher.model is not None and searcher.model.n_observations == 0


def test_evaluated_rewards_follow_the_rule_of_add_evaluated_point() -> None:
    kwargs: dict[str, Any] = {"points_to_evaluate": [{"x": 0.5, "y": 0.5}] * 2}
    searcher = _searcher(evaluated_rewards=[{"f1": 1.0, "f2": 2.0}, [3.0, 4.0]], **kwargs)
    assert searcher.model is not None
    np.testing.assert_array_equal(searcher.model.values, [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(TypeError, match="Item 1 of the 'evaluated_rewards' parameter.*Got 3.0"):
        _searcher(evaluated_rewards=[[1.0, 2.0], 3.0], **kwargs)


def test_several_metrics_from_evaluated_rewards() -> None:
    searcher = TreeUCBSearch(
        SPACE,
        metric=["f1", "f2"],
        mode=["min", "max"],
        points_to_evaluate=[{"x": 0.5, "y": 0.5}],
        evaluated_rewards=[[1.0, 2.0]],
    )
    assert searcher.model is not None
    np.testing.assert_array_equal(searcher.model.values, [[1.0, 2.0]])


def test_save_and_restore_keep_metrics_constraints_and_pending(tmp_path: Path) -> None:
    searcher = _searcher(constraints=["x_under"])
    _drive(searcher, 10)
    config = searcher.suggest("pending")
    assert config is not None
    path = str(tmp_path / "ckpt.pkl")
    searcher.save(path)
    restored = TreeUCBSearch()
    restored.restore(path)
    assert restored.metric == ["f1", "f2"]
    for s in (searcher, restored):  # the pending trial and the constraint came back
        s.on_trial_complete("pending", {**_result(config), "x_under": 0.5})
        assert s.model is not None and s.model.n_pending == 0
        assert s.model.violations[-1] == 0.5
    np.testing.assert_array_equal(
        [list(c.values()) for c in _drive(searcher, 5, start=10)],
        [list(c.values()) for c in _drive(restored, 5, start=10)],
    )


@pytest.mark.slow
@pytest.mark.usefixtures("ray_session")
def test_tuner_with_several_metrics_and_constraints(tmp_path: Path) -> None:
    def trainable(config: dict[str, Any]) -> dict[str, Any]:
        x, y = config["x"], config["y"]
        return {"f1": x, "f2": (1.0 + 9.0 * y) - x, "x_under": 0.2 - x}

    searcher = TreeUCBSearch(
        metric=["f1", "f2"],
        mode=["min", "min"],
        seed=0,
        n_startup_trials=4,
        constraints=["x_under"],
    )
    tuner = tune.Tuner(
        trainable,
        param_space=SPACE,
        tune_config=tune.TuneConfig(search_alg=searcher, num_samples=6, max_concurrent_trials=2),
        run_config=tune.RunConfig(storage_path=str(tmp_path), name="moo", verbose=0),
    )
    results = tuner.fit()
    assert len(results) == 6 and results.num_errors == 0
    core = searcher.model
    assert core is not None and core.n_observations == 6 and core.values.shape == (6, 2)
    configs = [results[i].config for i in range(6)]
    assert sorted(core.violations.tolist()) == sorted(max(0.0, 0.2 - c["x"]) for c in configs)


def _constrained_curve_trainable(nan_below: float | None = None) -> Any:
    """Loss (x - 0.3)^2 + 1 / t for t = 1..3; the constraint only in the final result (NaN
    when x < ``nan_below``)."""

    def trainable(config: dict[str, Any]) -> None:
        x = config["x"]
        for t in range(1, 4):
            result = {"loss": (x - 0.3) ** 2 + 1.0 / t}
            if t == 3:
                nan = nan_below is not None and x < nan_below
                result["x_under"] = float("nan") if nan else 0.2 - x
            tune.report(result)

    return trainable


def _constrained_tuner(tmp_path: Path, name: str, trainable: Any, **config: Any) -> Any:
    searcher = TreeUCBSearch(seed=0, n_startup_trials=3, constraints=["x_under"])
    tuner = tune.Tuner(
        trainable,
        param_space={"x": tune.uniform(0.0, 1.0)},
        tune_config=tune.TuneConfig(
            search_alg=searcher,
            metric="loss",
            mode="min",
            num_samples=8,
            max_concurrent_trials=2,
            **config,
        ),
        run_config=tune.RunConfig(storage_path=str(tmp_path), name=name, verbose=0),
    )
    return searcher, tuner.fit()


@pytest.mark.slow
@pytest.mark.usefixtures("ray_session")
def test_tuner_with_asha_and_the_constraint_only_in_the_final_result(tmp_path: Path) -> None:
    from ray.tune.schedulers import ASHAScheduler

    sched = ASHAScheduler(max_t=3, grace_period=1, reduction_factor=3)
    searcher, results = _constrained_tuner(
        tmp_path, "asha", _constrained_curve_trainable(), scheduler=sched
    )
    iterations = [int(results[i].metrics["training_iteration"]) for i in range(len(results))]
    assert len(results) == 8 and results.num_errors == 0
    assert min(iterations) < 3  # ASHA stopped some trials before their constraint
    core = searcher.model
    assert core is not None and core.n_pending == 0
    # the trials that reported their constraint are recorded with it; the others dropped
    finished = [results[i].config["x"] for i, t in enumerate(iterations) if t == 3]
    assert core.n_observations == len(finished)
    np.testing.assert_allclose(
        sorted(core.violations), sorted(max(0.0, 0.2 - x) for x in finished)
    )


@pytest.mark.slow
@pytest.mark.usefixtures("ray_session")
def test_tuner_drops_a_nan_constraint_as_a_nan_metric(tmp_path: Path) -> None:
    searcher, results = _constrained_tuner(
        tmp_path, "nan", _constrained_curve_trainable(nan_below=0.5)
    )
    assert len(results) == 8 and results.num_errors == 0
    xs = [results[i].config["x"] for i in range(8)]
    assert any(x < 0.5 for x in xs)  # some results held a NaN constraint
    core = searcher.model
    assert core is not None and core.n_pending == 0
    assert core.n_observations == sum(x >= 0.5 for x in xs)
