"""The AutoSampler-rule baseline picks GPSampler, TPE or CMA-ES as the rule says."""

from __future__ import annotations

import optuna
import pytest
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution

from benchmarks import _samplers
from benchmarks._samplers import AutoRuleSampler
from benchmarks._samplers import make_sampler


def _study(n: int, categorical: bool = False, directions: int = 1) -> optuna.Study:
    study = optuna.create_study(directions=["minimize"] * directions)
    dists: dict = {"x": FloatDistribution(0.0, 1.0)}
    if categorical:
        dists["c"] = CategoricalDistribution(["a", "b"])
    for i in range(n):
        params = {"x": i / max(n, 1), **({"c": "a"} if categorical else {})}
        values = [float(i)] * directions
        study.add_trial(
            optuna.trial.create_trial(params=params, distributions=dists, values=values)
        )
    return study


def test_the_rule_picks_gp_then_cmaes_and_tpe_for_categoricals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pick = lambda study: type(AutoRuleSampler(seed=0)._choose(study)).__name__  # noqa: E731
    assert pick(_study(5)) == "GPSampler"
    assert pick(_study(5, categorical=True)) == "TPESampler"
    monkeypatch.setattr(_samplers, "GP_MAX_TRIALS", 4)
    assert pick(_study(5)) == "CmaEsSampler"
    assert pick(_study(5, directions=2)) == "TPESampler"  # CMA-ES takes one objective


def test_the_factory_builds_it_and_a_study_runs() -> None:
    sampler = make_sampler("Auto", 0)
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", -1.0, 1.0) ** 2, n_trials=4)
    assert len(study.trials) == 4
