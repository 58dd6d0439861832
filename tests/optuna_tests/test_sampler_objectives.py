"""TreeUCBSampler in constrained and multi-objective studies (issue #24).

What both faces share (constraint values, violations and fronts reaching the core; the
violation descended when nothing is feasible) is tested on both in
``tests/faces_tests/test_objectives.py``; here are Optuna's own ways in: ``constraints_func``
and storages, named constraints that change between trials, and comparisons with
RandomSampler.
"""

from __future__ import annotations

import math
import pickle
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import optuna
import pytest
from optuna._hypervolume import compute_hypervolume
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

from optuna_treeucb import TreeUCBSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)
DEPRECATED = "`constraints_func` has been deprecated in v5.0.0"


# -- a constrained problem: the unconstrained optimum (1, 1) is infeasible ----------------------
def bowl(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -2.0, 2.0)
    y = trial.suggest_float("y", -2.0, 2.0)
    return (x - 1.0) ** 2 + (y - 1.0) ** 2


def half_plane(trial: FrozenTrial) -> Sequence[float]:
    return (trial.params["x"] + trial.params["y"],)  # feasible when x + y <= 0


def _storage(kind: str, tmp_path: Path) -> optuna.storages.BaseStorage | str | None:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'study.db'}"
    if kind == "journal":
        return JournalStorage(JournalFileBackend(str(tmp_path / "journal.log")))
    return None


@pytest.mark.parametrize("storage", ["inmemory", "sqlite", "journal"])
def test_constraints_func_values_are_stored_and_best_trials_are_feasible(
    storage: str, tmp_path: Path
) -> None:
    with pytest.warns(FutureWarning, match=DEPRECATED):  # as TPESampler and GPSampler warn
        sampler = TreeUCBSampler(seed=0, n_startup_trials=5, constraints_func=half_plane)
    study = optuna.create_study(storage=_storage(storage, tmp_path), sampler=sampler)
    study.optimize(bowl, n_trials=40)
    trials = study.get_trials(states=(TrialState.COMPLETE,))
    assert len(trials) == 40
    for t in trials:
        assert list(t.constraints.values()) == [pytest.approx(half_plane(t)[0])]
    assert any(half_plane(t)[0] > 0 for t in trials)  # the constraint is active
    best = study.best_trial
    assert half_plane(best)[0] <= 0  # Optuna's best_trial sees the stored constraints
    feasible = [t.value for t in trials if half_plane(t)[0] <= 0]
    assert best.value == min(feasible)
    assert best.value < 2.3  # the feasible optimum is 2, at (0, 0); 2.14 at seed 0


def test_set_constraint_needs_no_sampler_argument_and_no_warning() -> None:
    # constraints set with trial.set_constraint reach the model on both faces
    # (tests/faces_tests/test_objectives.py); the sampler needs no constraints_func for them
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        TreeUCBSampler(seed=0, n_startup_trials=5)


def _feasible_share_and_best(
    sampler: optuna.samplers.BaseSampler, seed: int
) -> tuple[float, float]:
    """A small feasible disc far from the objective's optimum: minimise x + y on [0, 1]^2
    subject to (x - 0.75)^2 + (y - 0.75)^2 <= 0.15^2 (area 0.07)."""

    def objective(trial: optuna.Trial) -> float:
        x, y = trial.suggest_float("x", 0.0, 1.0), trial.suggest_float("y", 0.0, 1.0)
        trial.set_constraint("disc", (x - 0.75) ** 2 + (y - 0.75) ** 2 - 0.15**2)
        return x + y

    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=60)
    feasible = [t.value for t in study.trials if t.constraints["disc"] <= 0]
    return len(feasible) / 60, min(feasible, default=math.inf)


def test_treeucb_finds_feasible_points_far_more_often_than_random() -> None:
    seeds = range(3)
    tree = [
        _feasible_share_and_best(TreeUCBSampler(seed=s, n_startup_trials=10), s) for s in seeds
    ]
    rand = [_feasible_share_and_best(optuna.samplers.RandomSampler(seed=s), s) for s in seeds]
    # feasible shares: random 0.05, TreeUCB 0.21 (seeds 0-2): it refines around the feasible
    # points, and along the disc's edge, where the optimum is, about half its points fall just
    # outside (their violations ~1e-5)
    assert np.mean([f for f, _ in tree]) > 3 * np.mean([f for f, _ in rand])
    assert np.mean([b for _, b in tree]) < np.mean([b for _, b in rand])  # the best feasible
    optimum = 1.5 - 0.15 * math.sqrt(2)  # x + y on the disc: its edge at 45 degrees
    assert all(b - optimum < 0.01 for _, b in tree)  # 1.1e-03 at worst (seeds 0-2)


def _zdt1(trial: optuna.Trial) -> tuple[float, float]:
    x = [trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(4)]
    g = 1.0 + 9.0 * sum(x[1:]) / 3.0
    return x[0], g * (1.0 - math.sqrt(x[0] / g))


def _hypervolume(study: optuna.Study) -> float:
    front = np.array([t.values for t in study.best_trials])
    return float(compute_hypervolume(front, np.array([1.1, 10.0])))


def test_two_objective_front_improves_over_random() -> None:
    tree, rand = [], []
    for seed in range(3):
        for sampler, out in (
            (TreeUCBSampler(seed=seed), tree),
            (optuna.samplers.RandomSampler(seed=seed), rand),
        ):
            study = optuna.create_study(directions=["minimize", "minimize"], sampler=sampler)
            study.optimize(_zdt1, n_trials=60)
            out.append(_hypervolume(study))
    assert np.mean(tree) > np.mean(rand) + 1.0, (tree, rand)  # ~10.6 against ~8.9


# -- bad input ------------------------------------------------------------------------------------
def _counting(trial: optuna.Trial) -> float:
    value = bowl(trial)
    trial.set_constraint("c0", trial.params["y"] - 1.0)
    if trial.number >= 3:  # a second constraint from trial 3 on
        trial.set_constraint("c1", trial.params["x"])
    return value


def _violations_by_x(study: optuna.Study) -> dict[float, float]:
    """Each observation's total violation as the sampler's model holds it, by its x."""
    model = TreeUCBSampler(seed=0).build_model(study, ["x"])
    xs = [model.space.decode(row)["x"] for row in model.X]
    return dict(zip(xs, model.violations.tolist()))


def _expected_violations(study: optuna.Study) -> dict[float, float]:
    done = study.get_trials(states=(TrialState.COMPLETE,))
    return {t.params["x"]: sum(max(c, 0.0) for c in t.constraints.values()) for t in done}


def test_a_changing_number_of_constraints_is_summed_as_optuna_does() -> None:
    # issue 31, item 1: 1 value, then 2, raised at every later trial and on reload
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=1))
    study.optimize(_counting, n_trials=8)
    study.sampler = TreeUCBSampler(seed=1, n_startup_trials=1)  # a fresh sampler reads it all
    study.optimize(_counting, n_trials=4)
    assert len(study.get_trials(states=(TrialState.COMPLETE,))) == 12
    got = _violations_by_x(study)
    assert got == pytest.approx(_expected_violations(study))
    assert sum(v > 0 for v in got.values()) >= 3  # the second constraint is active


def _named_by_branch(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", 0.0, 1.0)
    model = trial.suggest_categorical("model", ["small", "big"])
    trial.set_constraint("accuracy", 0.2 - x)  # every trial
    if model == "big":
        trial.set_constraint("memory", x - 0.4)  # only the big model has a memory budget
    return -x if model == "big" else -0.5 * x


def test_constraints_named_in_one_branch_only() -> None:
    # issue 31, item 2: Optuna 5's named constraints, "memory" set only when model == "big"
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=2))
    study.optimize(_named_by_branch, n_trials=30)
    done = study.get_trials(states=(TrialState.COMPLETE,))
    assert len(done) == 30
    assert {len(t.constraints) for t in done} == {1, 2}
    assert _violations_by_x(study) == pytest.approx(_expected_violations(study))
    # the names differ between trials: no per-constraint columns, the total violation alone
    assert TreeUCBSampler(seed=0).build_model(study).constraints is None


def test_the_same_names_give_the_core_one_column_per_constraint_by_name() -> None:
    def objective(trial: optuna.Trial) -> float:
        value = bowl(trial)
        names = ["b", "a"] if trial.number % 2 else ["a", "b"]  # set in either order
        for name in names:
            trial.set_constraint(name, trial.params["x"] if name == "a" else -1.0)
        return value

    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=3))
    study.optimize(objective, n_trials=12)
    model = TreeUCBSampler(seed=0).build_model(study, ["x", "y"])
    assert model.constraints is not None
    xs = [model.space.decode(row)["x"] for row in model.X]
    np.testing.assert_allclose(model.constraints, [[x, -1.0] for x in xs])  # a, then b


def test_a_trial_with_unreadable_constraints_is_skipped_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=1))
    study.optimize(bowl, n_trials=3)
    dist = optuna.distributions.FloatDistribution(-2.0, 2.0)
    for text in ("tall", "wide"):  # e.g. written by another tool straight into the storage
        study.add_trial(
            optuna.trial.create_trial(
                params={"x": 0.5, "y": 0.5},
                distributions={"x": dist, "y": dist},
                value=0.5,
                system_attrs={"constraints:memory": text},
            )
        )
    with caplog.at_level("WARNING", logger="optuna_treeucb"):
        study.optimize(bowl, n_trials=3)
    warnings_ = [r for r in caplog.records if "constraint values cannot be read" in r.message]
    assert len(warnings_) == 1
    assert "trial 3" in warnings_[0].getMessage()
    assert len(study.trials) == 8  # the study goes on
    assert TreeUCBSampler(seed=0).build_model(study).n_observations == 6  # 2 skipped


def test_nan_constraints_are_rejected_as_optuna_does() -> None:
    def nan_constraint(trial: FrozenTrial) -> Sequence[float]:
        return (float("nan"),)

    with pytest.warns(FutureWarning):
        sampler = TreeUCBSampler(seed=0, constraints_func=nan_constraint)
    study = optuna.create_study(sampler=sampler)
    with pytest.raises(ValueError, match="Constraint values cannot be NaN"):
        study.optimize(bowl, n_trials=1)


@pytest.mark.parametrize("bad", [1.0, "x + y"])
def test_constraints_func_must_be_callable(bad: object) -> None:
    with pytest.raises(TypeError, match="'constraints_func' parameter of TreeUCBSampler.*Got"):
        TreeUCBSampler(constraints_func=bad)  # type: ignore[arg-type]


def test_constraints_func_survives_pickling() -> None:
    with pytest.warns(FutureWarning):
        sampler = TreeUCBSampler(seed=0, constraints_func=half_plane)
    copy = pickle.loads(pickle.dumps(sampler))
    study = optuna.create_study(sampler=copy)
    study.optimize(bowl, n_trials=3)
    for t in study.trials:  # the copy still stores the function's values
        assert list(t.constraints.values()) == [pytest.approx(half_plane(t)[0])]


# -- the branch rule of a conditional space sees the constraints ----------------------------------
def _branches(trial: optuna.Trial) -> float:
    model = trial.suggest_categorical("model", ["fast", "slow"])
    x = trial.suggest_float(f"x_{model}", 0.0, 1.0)
    # "fast" has the better values but is always infeasible (over a latency budget, say)
    trial.set_constraint("latency_over", 1.0 if model == "fast" else -1.0)
    return x if model == "fast" else 10.0 + x


def test_the_branch_rule_prefers_the_feasible_branch() -> None:
    shares = []
    for seed in range(3):
        study = optuna.create_study(sampler=TreeUCBSampler(seed=seed, n_startup_trials=10))
        study.optimize(_branches, n_trials=60)
        late = [t.params["model"] for t in study.trials[30:]]
        shares.append(late.count("slow") / len(late))
        assert study.best_trial.params["model"] == "slow"  # Optuna's best trial is feasible
    # without the constraints the rule would favour "fast" (its values are 10 lower)
    assert np.mean(shares) > 0.7, shares
