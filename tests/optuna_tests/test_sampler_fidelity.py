"""TreeUCBSampler with Optuna's pruners: pruned trials are observations at the step they reached.

The rules for a trial stopped early, which both faces share, are tested on both in
``tests/faces_tests/test_fidelity.py``; here run real studies with Optuna's pruners.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import optuna
import pytest
from optuna.trial import TrialState

from optuna_treeucb import TreeUCBSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)


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
