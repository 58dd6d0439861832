"""TreeUCBSampler with pruners: pruned trials are observations at the step they reached."""

from __future__ import annotations

import math
import pickle

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from optuna_treeucb import TreeUCBSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _study(sampler: TreeUCBSampler) -> optuna.Study:
    """A complete trial and a trial pruned at step 2, both of value 0.5 (and one worse)."""
    study = optuna.create_study(sampler=sampler)
    for x, steps, state in ((0.2, 3, TrialState.PRUNED), (0.8, 5, TrialState.COMPLETE)):
        study.enqueue_trial({"x": x})
        trial = study.ask({"x": optuna.distributions.FloatDistribution(0.0, 1.0)})
        for step in range(steps):
            trial.report(1.0 - step * 0.25, step)  # 1.0, 0.75, 0.5, ...: 0.5 at step 2
        if state == TrialState.PRUNED:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, 0.5)
    study.enqueue_trial({"x": 0.5})
    trial = study.ask({"x": optuna.distributions.FloatDistribution(0.0, 1.0)})
    study.tell(trial, 0.9)
    return study


def test_last_value_rule_counts_the_pruned_trial_as_if_complete() -> None:
    study = _study(TreeUCBSampler(seed=0, pruned="last_value"))
    model = study.sampler.build_model(study)  # type: ignore[attr-defined]
    np.testing.assert_array_equal(model.budgets, [2.0, math.inf, math.inf])
    np.testing.assert_allclose(model.values, [0.5, 0.5, 0.9])
    np.testing.assert_allclose(model.rewards(), [2 / 3, 2 / 3, 1 / 6])


def test_context_rule_tells_complete_trials_at_their_last_step_too() -> None:
    study = _study(TreeUCBSampler(seed=0, pruned="context"))
    model = study.sampler.build_model(study)  # type: ignore[attr-defined]
    # pruned at step 2, complete at its last step 4, complete without steps: full
    np.testing.assert_array_equal(model.budgets, [2.0, 4.0, math.inf])
    np.testing.assert_allclose(model.rewards(), [2 / 3, 2 / 3, 1 / 6])  # by value alone
    assert model.fit_leaves().low.shape[1] == 2  # x, and the step's context


def _objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_int("y", 0, 4)
    value = 0.0
    for step in range(9):
        value = (x - 0.3) ** 2 + 0.1 * y + (1.0 - x) / (step + 1)
        trial.report(value, step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return value


@pytest.mark.parametrize(
    "pruner", [optuna.pruners.HyperbandPruner(max_resource=9), optuna.pruners.MedianPruner()]
)
def test_a_study_with_a_pruner_tells_pruned_trials_with_their_last_step(
    pruner: optuna.pruners.BasePruner,
) -> None:
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=4), pruner=pruner)
    study.optimize(_objective, n_trials=30)
    trials = study.get_trials(states=(TrialState.COMPLETE, TrialState.PRUNED))
    model = study.sampler.build_model(study)  # type: ignore[attr-defined]
    expected = [t.last_step if t.state == TrialState.PRUNED else math.inf for t in trials]
    np.testing.assert_array_equal(model.budgets, expected)
    assert any(t.state == TrialState.PRUNED for t in trials)
    pickle.loads(pickle.dumps(study.sampler))


def _params(pruned: str) -> list[dict[str, float]]:
    sampler = TreeUCBSampler(seed=3, pruned=pruned)  # type: ignore[arg-type]
    study = optuna.create_study(sampler=sampler, pruner=optuna.pruners.NopPruner())
    study.optimize(_objective, n_trials=25)
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    return [t.params for t in study.trials]


def test_a_study_without_pruning_is_the_same_under_both_rules() -> None:
    assert _params("context") == _params("last_value")


@pytest.mark.parametrize("max_budget", [None, 8])
def test_a_study_with_hyperband_runs_under_the_context_rule(max_budget: int | None) -> None:
    sampler = TreeUCBSampler(seed=0, n_startup_trials=4, pruned="context", max_budget=max_budget)
    pruner = optuna.pruners.HyperbandPruner(min_resource=1, max_resource=9, reduction_factor=3)
    # HyperbandPruner assigns brackets by a hash of the study's name: a fixed name makes the
    # run repeatable (an unnamed study gets a random one, and the run changed from run to run)
    study = optuna.create_study(sampler=sampler, pruner=pruner, study_name="context-hyperband")
    study.optimize(_objective, n_trials=30)
    trials = study.get_trials(states=(TrialState.COMPLETE, TrialState.PRUNED))
    assert any(t.state == TrialState.PRUNED for t in trials)
    assert any(t.state == TrialState.COMPLETE for t in trials)
    model = sampler.build_model(study, ["x", "y"])
    # every trial at its last step (0-based steps 0..8: the full budget is step 8)
    np.testing.assert_array_equal(model.budgets, [t.last_step for t in trials])
    leaves = model.fit_leaves()
    assert leaves.low.shape[1] == 3  # x, y, and the step's context
    assert np.any((leaves.high[:, 2] > 0.0) & (leaves.high[:, 2] < 1.0))
    assert len({(t.params["x"], t.params["y"]) for t in study.trials}) == 30
    again = pickle.loads(pickle.dumps(sampler))
    assert again.build_model(study, ["x", "y"]).budgets.tolist() == model.budgets.tolist()
