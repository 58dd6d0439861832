"""TreeUCBSampler on huge integer and fine float grids (issue 11, defect 1)."""

from __future__ import annotations

import math

import optuna
import pytest

from optuna_treeucb import TreeUCBSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _objective(trial: optuna.Trial) -> float:
    a = trial.suggest_int("a", 0, 10**12)
    b = trial.suggest_int("b", 0, 10**9, step=3)  # Optuna narrows high to 999_999_999
    c = trial.suggest_float("c", 0.0, 1.0, step=1e-9)
    return (a / 1e12 - 0.3) ** 2 + (b / 1e9 - 0.6) ** 2 + (c - 0.2) ** 2


@pytest.mark.filterwarnings("ignore:The distribution is specified by:UserWarning")
def test_huge_grids_run_past_startup_with_legal_values() -> None:
    # regression: suggest_int("a", 0, 10**12) raised MemoryError at the first model trial
    sampler = TreeUCBSampler(seed=0, n_startup_trials=5)
    study = optuna.create_study(sampler=sampler)
    study.optimize(_objective, n_trials=45)
    # the model samples all three parameters (no independent fallback)
    study.ask()
    space = sampler.infer_relative_search_space(study, study.trials[-1])
    assert set(space) == {"a", "b", "c"}
    assert set(sampler.sample_relative(study, study.trials[-1], space)) == {"a", "b", "c"}
    trials = study.trials[:45]
    assert len(trials) == 45 and all(t.state.is_finished() for t in trials)
    for t in trials:
        a, b, c = t.params["a"], t.params["b"], t.params["c"]
        assert type(a) is int and 0 <= a <= 10**12
        assert type(b) is int and 0 <= b <= 999_999_999 and b % 3 == 0
        assert 0.0 <= c <= 1.0 and math.isclose(c, round(c * 1e9) * 1e-9, abs_tol=1e-15)
    model = trials[5:]
    for name in ("a", "b", "c"):  # the model spreads its points, never a constant
        assert len({t.params[name] for t in model}) >= 30


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
    with caplog.at_level("WARNING", logger="optuna_treeucb._sampler"):
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
