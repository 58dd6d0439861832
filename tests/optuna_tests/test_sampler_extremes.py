"""A diverged trial (a value near 1e160) among ordinary ones (issue 21, defect 1): every
trial from the 10th on failed with ``ValueError: a cannot be empty`` in the local GP."""

from __future__ import annotations

import optuna
import pytest

from optuna_treeucb import TreeUCBSampler


@pytest.mark.parametrize("direction", ["minimize", "maximize"])
def test_a_diverged_trial_leaves_the_study_running(direction: str) -> None:
    def objective(trial: optuna.Trial) -> float:
        xs = [trial.suggest_float(f"x{i}", -1.0, 1.0) for i in range(3)]
        return 1e160 if trial.number == 3 else sum((x - 0.2) ** 2 for x in xs)

    study = optuna.create_study(direction=direction, sampler=TreeUCBSampler(seed=0))
    study.optimize(objective, n_trials=30)
    states = [t.state for t in study.trials]
    assert states == [optuna.trial.TrialState.COMPLETE] * 30
