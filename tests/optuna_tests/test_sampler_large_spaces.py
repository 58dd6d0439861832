"""TreeUCBSampler on a grid too fine for a column of the cube: the independent fallback.

The huge integer and fine float grids of issue 11 run on both faces in
``tests/faces_tests/test_large_spaces.py``.
"""

from __future__ import annotations

import optuna
import pytest

from optuna_treeucb import TreeUCBSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)


def test_grid_too_fine_for_the_tree_falls_back_to_the_independent_sampler(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A grid with more values than a double coordinate can tell apart cannot be a column of
    # the cube. It must not stop study.optimize: it is sampled independently, with the usual
    # once-per-parameter warning that says why, while the other parameters stay modelled.
    def objective(trial: optuna.Trial) -> float:
        seed = trial.suggest_int("seed", 0, 10**18)
        x = trial.suggest_float("x", -1.0, 1.0)
        return x**2 + (seed % 7) * 1e-3

    sampler = TreeUCBSampler(seed=0, n_startup_trials=5)
    study = optuna.create_study(sampler=sampler)
    with caplog.at_level("WARNING", logger="optuna_treeucb"):
        study.optimize(objective, n_trials=25)
    assert len(study.trials) == 25
    assert all(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    assert all(type(t.params["seed"]) is int for t in study.trials)
    assert all(0 <= t.params["seed"] <= 10**18 for t in study.trials)
    space = sampler.infer_relative_search_space(study, study.trials[-1])
    assert set(space) == {"x"}
    messages = [r.getMessage() for r in caplog.records if "'seed'" in r.getMessage()]
    assert len(messages) == 1
    assert "cannot represent" in messages[0] and "grid values" in messages[0]
