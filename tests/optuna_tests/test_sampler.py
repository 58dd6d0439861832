from __future__ import annotations

import inspect
import json
import logging
import math
import os
import pickle
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pytest
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.samplers import BaseSampler
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
from optuna.testing.pytest_samplers import BasicSamplerTestCase
from optuna.testing.pytest_samplers import MultiObjectiveSamplerTestCase
from optuna.testing.pytest_samplers import RelativeSamplerTestCase
from optuna.trial import TrialState

from optuna_treeucb import TreeUCBSampler
from optuna_treeucb.core import OPTIONS
from optuna_treeucb.core import TreeUCB

REPO = Path(__file__).resolve().parents[2]
LOGGER = "optuna_treeucb"  # the package's loggers, whichever module warns

optuna.logging.set_verbosity(optuna.logging.WARNING)


class TestTreeUCBSampler(
    BasicSamplerTestCase, RelativeSamplerTestCase, MultiObjectiveSamplerTestCase
):
    @pytest.fixture
    def sampler(self) -> Callable[[], BaseSampler]:
        return lambda: TreeUCBSampler(seed=0, n_startup_trials=1)


# -- objectives -----------------------------------------------------------------------------------
def sphere(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_float("y", -5.0, 5.0)
    return (x - 1.3) ** 2 + (y + 0.7) ** 2


def mixed(trial: optuna.Trial) -> float:
    lr = trial.suggest_float("lr", 1e-5, 1.0, log=True)
    units = trial.suggest_int("units", 8, 512, log=True)
    drop = trial.suggest_float("drop", 0.0, 0.5, step=0.05)
    layers = trial.suggest_int("layers", 1, 9, step=2)
    act = trial.suggest_categorical("act", ["relu", None, True, 0.5])
    return (
        (math.log10(lr) + 3.0) ** 2
        + (math.log2(units) - 6.0) ** 2 / 4.0
        + 10.0 * abs(drop - 0.2)
        + abs(layers - 5)
        + {"relu": 0.0, None: 2.0, True: 1.0, 0.5: 1.5}[act]
    )


def conditional(trial: optuna.Trial) -> float:
    branch = trial.suggest_categorical("branch", ["left", "right"])
    x = trial.suggest_float("x", -3.0, 3.0)
    if branch == "left":
        return trial.suggest_float("left", 0.0, 1.0) + x**2
    return trial.suggest_int("right", 0, 10) + x**2 + 0.5


def _params(study: optuna.Study) -> list[dict[str, Any]]:
    return [t.params for t in study.trials]


def _run(
    sampler: BaseSampler, objective: Callable[[optuna.Trial], float], n: int, **kw: Any
) -> optuna.Study:
    study = optuna.create_study(sampler=sampler, **kw)
    study.optimize(objective, n_trials=n)
    return study


# -- construction ---------------------------------------------------------------------------------
def test_defaults_are_the_wrappers_defaults_of_the_table() -> None:
    core = inspect.signature(TreeUCB).parameters
    ours = inspect.signature(TreeUCBSampler).parameters
    defaults = {name: o.default_of(True) for name, o in OPTIONS.items() if not o.core_only}
    assert ours["n_startup_trials"].default == defaults["n_startup_trials"]
    shared = set(core) & set(ours)
    # every option of the core is exposed, except those the sampler sets itself
    assert set(core) - shared == {"space", "direction"}
    for name in shared - {"unknown"}:
        assert ours[name].default == defaults[name], name
        assert ours[name].kind == inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_startup_trials": -1}, ValueError, r"'n_startup_trials' parameter of TreeUCBSampler"),
        ({"n_startup_trials": 2.5}, TypeError, r"'n_startup_trials' parameter of TreeUCBSampler"),
        ({"rule": "greedy"}, ValueError, r"'rule' parameter of TreeUCBSampler.*'refit'.*'greedy'"),
        ({"index": "ei"}, ValueError, r"'index' parameter of TreeUCBSampler.*'hoeffding'"),
        ({"C": -1.0}, ValueError, r"'C' parameter of TreeUCBSampler.*Got -1.0"),
        ({"M": float("nan")}, ValueError, r"'M' parameter of TreeUCBSampler"),
        ({"C": "big"}, TypeError, r"'C' parameter of TreeUCBSampler"),
        ({"sampling": "grid"}, ValueError, r"'sampling' parameter of TreeUCBSampler.*'uniform'"),
        ({"seed": -3}, ValueError, r"'seed' parameter of TreeUCBSampler.*-3"),
        ({"seed": "0"}, TypeError, r"'seed' parameter of TreeUCBSampler.*'0'"),
        ({"group": "yes"}, TypeError, r"'group' parameter of TreeUCBSampler"),
        ({"warn_independent_sampling": 1}, TypeError, r"'warn_independent_sampling'"),
        ({"independent_sampler": "random"}, TypeError, r"'independent_sampler' parameter"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        TreeUCBSampler(**kwargs)


@pytest.mark.parametrize("sampling", ["trust_region", "local_gp"])
def test_the_trust_region_follows_the_trials_as_told_in_one_go(sampling: str) -> None:
    # The sampler's cached core is told the trials one by one, between asks; a new sampler (a
    # resumed study, another process) is told them in one go. With per-trial seeds the next
    # points are a function of the trials and of the core's state, trust region included: they
    # agree only if the trust region told one by one is the one told in one go.
    def objective(t: optuna.Trial) -> float:
        return (t.suggest_float("x", -1, 1) - 0.3) ** 2

    studies = []
    for fresh in (False, True):
        sampler = TreeUCBSampler(seed=0, n_startup_trials=5, sampling=sampling)  # type: ignore[arg-type]
        study = _run(sampler, objective, 40)
        if fresh:
            core = TreeUCBSampler(seed=0).build_model(study)  # a new core, told in one go
            core.ask()  # its trust region is the state as of its last draw
            state = core.trust_region
            assert state is not None and state.n_seen >= 30
            assert (state.rho, state.n_success, state.n_failure) != (1.0, 0, 0)  # it moved
            study.sampler = TreeUCBSampler(seed=0, n_startup_trials=5, sampling=sampling)  # type: ignore[arg-type]
        study.optimize(objective, n_trials=10)
        studies.append(study)
    assert _params(studies[0]) == _params(studies[1])


def test_docstring_describes_each_argument_once() -> None:
    # the core's options are rendered from OPTIONS (tests/faces_tests/test_options.py), then
    # the sampler's own arguments
    doc = TreeUCBSampler.__doc__ or ""
    args = doc[doc.index("Args:") : doc.index("Raises:")]
    described = re.findall(r"^ {8}(\w+):$", args, flags=re.M)
    own = ["group", "independent_sampler", "warn_independent_sampling", "constraints_func"]
    assert described[-4:] == own
    signature = inspect.signature(TreeUCBSampler.__init__).parameters
    assert sorted(described) == sorted(n for n in signature if n not in ("self", "unknown"))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"seed": 2**70}, ValueError),  # passed the sampler's check, then numpy/Optuna raised
        ({"seed": 2**32}, ValueError),  # RandomSampler(seed=2**32) raises
        ({"C": True}, TypeError),  # was ValueError
        ({"M": "x"}, TypeError),  # was ValueError
    ],
)
def test_bad_values_raise_by_kind(kwargs: dict[str, Any], error: type[Exception]) -> None:
    ((name, value),) = kwargs.items()
    with pytest.raises(error, match=rf"^The '{name}' parameter of TreeUCBSampler .*Got "):
        TreeUCBSampler(**kwargs)


def test_largest_seed_runs_with_the_default_independent_sampler() -> None:
    study = _run(TreeUCBSampler(seed=2**32 - 1, n_startup_trials=2), sphere, 4)
    assert len(study.trials) == 4


def test_unseeded_sampler_draws_its_base_seed_in_the_checked_range() -> None:
    sampler = TreeUCBSampler(n_startup_trials=1)
    study = _run(sampler, sphere, 3)  # the core, seeded by the sampler, checks the seed
    assert len(study.trials) == 3


def test_arguments_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        TreeUCBSampler(0)  # type: ignore[misc]


# -- values, directions and trial states ----------------------------------------------------------
def test_values_are_plain_python_and_categoricals_are_the_very_objects() -> None:
    choices = ("a", None, True, 2, 0.5)
    dist = CategoricalDistribution(choices)
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=2))
    for _ in range(15):
        trial = study.ask({"c": dist, "x": FloatDistribution(0, 1, step=0.25)})
        study.tell(trial, float(choices.index(trial.params["c"])) + trial.params["x"])
    study.ask()
    out = study.sampler.sample_relative(
        study, study.trials[-1], {"c": dist, "x": FloatDistribution(0, 1, step=0.25)}
    )
    assert type(out["x"]) is float and out["x"] in (0.0, 0.25, 0.5, 0.75, 1.0)
    assert any(out["c"] is c for c in choices)
    relative = [t.params["c"] for t in study.trials[2:15]]
    assert all(any(v is c for c in choices) for v in relative)


def test_minimize_f_equals_maximize_minus_f() -> None:
    a = _run(TreeUCBSampler(seed=1, n_startup_trials=4), sphere, 25)
    b = _run(
        TreeUCBSampler(seed=1, n_startup_trials=4), lambda t: -sphere(t), 25, direction="maximize"
    )
    assert _params(a) == _params(b)


def test_infinite_values_are_ranked() -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -1.0, 1.0)
        return math.inf if x > 0.5 else -math.inf if x < -0.9 else x

    study = _run(TreeUCBSampler(seed=0, n_startup_trials=3), objective, 25)
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    model = study.sampler.build_model(study)
    assert model.n_observations == 25


def test_pruned_failed_and_nan_trials() -> None:
    dist = {"x": FloatDistribution(0.0, 1.0)}
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=2))
    add = study.add_trial
    add(optuna.create_trial(params={"x": 0.1}, distributions=dist, value=1.0))
    add(optuna.create_trial(params={"x": 0.2}, distributions=dist, value=2.0))
    pruned = TrialState.PRUNED
    add(optuna.create_trial(params={"x": 0.3}, distributions=dist, state=pruned))  # no value
    add(
        optuna.create_trial(
            params={"x": 0.4}, distributions=dist, state=pruned, intermediate_values={0: 9, 4: 0.5}
        )
    )
    add(
        optuna.create_trial(
            params={"x": 0.5}, distributions=dist, state=pruned, intermediate_values={2: math.nan}
        )
    )
    add(optuna.create_trial(params={"x": 0.6}, distributions=dist, state=TrialState.FAIL))
    model = study.sampler.build_model(study)
    # complete trials and the pruned one with a last intermediate value (0.5 at step 4)
    np.testing.assert_allclose(model.X[:, 0], [0.1, 0.2, 0.4])
    np.testing.assert_allclose(model.values, [1.0, 2.0, 0.5])

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", 0.0, 1.0)
        if x > 0.8:
            raise RuntimeError("fails")
        if x > 0.6:
            return math.nan  # optuna fails the trial
        trial.report(x, 0)
        if x > 0.4:
            raise optuna.TrialPruned()
        return x

    study.optimize(objective, n_trials=20, catch=(RuntimeError,))
    states = {t.state for t in study.trials}
    assert TrialState.COMPLETE in states and len(study.trials) == 26
    model = study.sampler.build_model(study)
    told = [
        t
        for t in study.trials
        if t.state == TrialState.COMPLETE
        or (t.state == TrialState.PRUNED and t.last_step is not None)
    ]
    expected = [
        t.value if t.state == TrialState.COMPLETE else t.intermediate_values[t.last_step]
        for t in told
    ]
    expected = [v for v in expected if not math.isnan(v)]
    assert len(expected) > 5
    np.testing.assert_allclose(model.values, expected)


def test_out_of_range_enqueued_value_is_skipped() -> None:
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0, n_startup_trials=2))
    study.optimize(sphere, n_trials=4)
    study.enqueue_trial({"x": 100.0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study.optimize(sphere, n_trials=2)
    assert study.trials[4].params["x"] == 100.0
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    assert study.sampler.build_model(study).n_observations == 5  # trial 4 is not encodable


def test_failed_waiting_and_running_trials_around_finished_ones() -> None:
    # The sampler walks the study's trials from the first one that has not ended: failed trials
    # are skipped, waiting and running ones hold the walk back until they finish.
    dist = {"x": FloatDistribution(0, 1)}
    sampler = TreeUCBSampler(seed=0, n_startup_trials=2)
    study = optuna.create_study(sampler=sampler)
    study.tell(study.ask(dist), state=TrialState.FAIL)
    study.enqueue_trial({"x": 0.25})
    waiting = study.get_trials(states=(TrialState.WAITING,))[0].number
    slow = study.ask(dist)  # takes the enqueued trial
    assert slow.number == waiting
    for _ in range(3):
        t = study.ask(dist)
        study.tell(t, t.params["x"])
    busy = study.ask(dist)
    model = sampler.build_model(study)
    assert model.n_observations == 3
    assert sorted(model.pending[:, 0].tolist()) == sorted([0.25, busy.params["x"]])
    study.tell(slow, 0.25)
    study.tell(busy, 1.0)
    for _ in range(2):
        t = study.ask(dist)
        study.tell(t, t.params["x"])
    model = sampler.build_model(study)
    assert model.pending.shape == (0, 1)
    assert sorted(model.values.tolist()) == sorted(
        t.value for t in study.get_trials(states=(TrialState.COMPLETE,))
    )
    assert model.n_observations == 7


def test_build_model() -> None:
    sampler = TreeUCBSampler(seed=0, n_startup_trials=3)
    study = optuna.create_study(sampler=sampler)
    with pytest.raises(ValueError, match="at least one finished trial"):
        sampler.build_model(study)
    study.optimize(conditional, n_trials=20)
    running = study.ask()
    running.suggest_categorical("branch", ["left", "right"])
    running.suggest_float("x", -3.0, 3.0)
    model = sampler.build_model(study)
    assert isinstance(model, TreeUCB)
    assert model.space.names == ("branch", "x")
    assert model.n_observations == 20
    assert model.pending.shape == (1, 2)
    leaves = model.fit_leaves()
    assert leaves.low.shape[1] == 2 and leaves.n_obs.sum() == 20
    n_left = sum("left" in t.params for t in study.trials[:20])
    left = sampler.build_model(study, params=("x", "left"))
    assert left.space.names == ("x", "left") and left.n_observations == n_left
    with pytest.raises(ValueError, match=r"'nope'.*\['branch', 'left', 'right', 'x'\]"):
        sampler.build_model(study, params=["x", "nope"])
    # a fresh object each time: the sampler's cache is untouched
    assert sampler.build_model(study) is not model


# -- conditional spaces and the independent-sampling warning --------------------------------------
def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.split(".")[0] == LOGGER]


def test_conditional_space_is_modelled_by_groups(caplog: pytest.LogCaptureFixture) -> None:
    sampler = TreeUCBSampler(seed=0, n_startup_trials=5, rule="incremental")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        study = _run(sampler, conditional, 40)
    assert _warnings(caplog) == []
    space = sampler.infer_relative_search_space(study, study.trials[-1])
    assert list(space) == ["branch", "left", "right", "x"]
    trial = study.ask()
    out = sampler.sample_relative(study, study.trials[-1], space)
    assert set(out) == {"branch", "left", "right", "x"}
    # the model found the better branch and the low end of "left"
    best = study.best_params
    assert best["branch"] == "left" and best["left"] < 0.2 and abs(best["x"]) < 0.5
    study.tell(trial, 0.0)


def test_new_parameter_is_modelled_without_warning(caplog: pytest.LogCaptureFixture) -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -1.0, 1.0)
        if trial.number >= 8 and x < 0:
            return x + trial.suggest_float("late", 0.0, 1.0)
        return x

    sampler = TreeUCBSampler(seed=0, n_startup_trials=3)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        study = _run(sampler, objective, 30)
    assert _warnings(caplog) == []  # the first "late" comes from the independent sampler
    assert "late" in sampler.infer_relative_search_space(study, study.trials[-1])
    trial = study.ask()
    assert "late" in sampler.sample_relative(
        study, study.trials[-1], {"late": FloatDistribution(0, 1)}
    )
    study.tell(trial, 0.0)


def test_group_false_leaves_conditional_parameters_to_the_independent_sampler(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sampler = TreeUCBSampler(seed=0, n_startup_trials=3, group=False)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        study = _run(sampler, conditional, 25)
    assert list(sampler.infer_relative_search_space(study, study.trials[-1])) == ["branch", "x"]
    messages = _warnings(caplog)
    assert sorted(m.split("'")[1] for m in messages) == ["left", "right"]  # once per parameter
    for m in messages:
        assert "warn_independent_sampling=False" in m and "RandomSampler" in m


def test_a_changed_range_is_modelled_and_another_scale_warns_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sampler = TreeUCBSampler(seed=0, n_startup_trials=2)
    study = _run(sampler, sphere, 4)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        study.optimize(lambda t: t.suggest_float("x", 0.0, 1.0) + t.suggest_float("y", -5, 5), 5)
    assert _warnings(caplog) == []  # a new range: still modelled, with its new range
    space = sampler.infer_relative_search_space(study, study.trials[-1])
    assert space["x"] == FloatDistribution(0.0, 1.0)
    log_x = FloatDistribution(0.1, 1.0, log=True)
    y = FloatDistribution(-5, 5)
    study.add_trial(  # e.g. from another tool: a trial whose x had a log scale
        optuna.trial.create_trial(
            params={"x": 0.5, "y": 0.0}, distributions={"x": log_x, "y": y}, value=0.5
        )
    )
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        study.optimize(lambda t: t.suggest_float("x", 0.0, 1.0), 3)
    messages = _warnings(caplog)
    assert len(messages) == 1 and "'x'" in messages[0]
    assert "log scale" in messages[0] and "warn_independent_sampling=False" in messages[0]


def test_no_warning_when_disabled_or_during_startup(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        _run(
            TreeUCBSampler(
                seed=0, n_startup_trials=3, warn_independent_sampling=False, group=False
            ),
            conditional,
            12,
        )
        _run(TreeUCBSampler(seed=0, n_startup_trials=30, group=False), conditional, 12)
    assert _warnings(caplog) == []


# -- contexts -------------------------------------------------------------------------------------
class _AskSpy:
    """Record the contexts passed to TreeUCB.ask."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.contexts: list[dict[str, Any]] = []
        original = TreeUCB.ask

        def ask(
            core: TreeUCB, context: dict[str, Any] | None = None, **kwargs: Any
        ) -> dict[str, Any]:
            self.contexts.append(dict(context or {}))
            return original(core, context, **kwargs)

        monkeypatch.setattr(TreeUCB, "ask", ask)


def test_enqueued_partial_params_are_contexts(monkeypatch: pytest.MonkeyPatch) -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -5.0, 5.0)
        y = trial.suggest_categorical("y", [-3, 3])
        return (x - y) ** 2

    sampler = TreeUCBSampler(seed=0, n_startup_trials=5)
    study = _run(sampler, objective, 40)
    spy = _AskSpy(monkeypatch)
    for y in (-3, 3) * 5:
        study.enqueue_trial({"y": y})
    study.optimize(objective, n_trials=10)
    new = study.trials[40:]
    assert [t.params["y"] for t in new] == [-3, 3] * 5
    assert spy.contexts == [{"y": y} for y in (-3, 3) * 5]
    # the model conditions on y: x follows the optimum x = y
    xs = np.array([t.params["x"] for t in new])
    ys = np.array([t.params["y"] for t in new])
    assert np.median(np.abs(xs - ys)) < 1.5
    assert np.median(xs[ys < 0]) < -2.0 and np.median(xs[ys > 0]) > 0.0


def test_partial_fixed_sampler_params_are_contexts(monkeypatch: pytest.MonkeyPatch) -> None:
    study = _run(TreeUCBSampler(seed=0, n_startup_trials=3), sphere, 10)
    spy = _AskSpy(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        study.sampler = optuna.samplers.PartialFixedSampler({"y": -0.5}, study.sampler)
    study.optimize(sphere, n_trials=3)
    assert [t.params["y"] for t in study.trials[10:]] == [-0.5] * 3
    assert spy.contexts == [{"y": -0.5}] * 3


class _FixedWithoutPrivateAttribute(optuna.samplers.PartialFixedSampler):
    """A PartialFixedSampler of a future Optuna: it keeps its values under another name."""

    def __init__(self, fixed_params: dict[str, Any], base_sampler: BaseSampler) -> None:
        super().__init__(fixed_params, base_sampler)
        self._values = self.__dict__.pop("_fixed_params")

    def infer_relative_search_space(self, study: optuna.Study, trial: Any) -> dict[str, Any]:
        space = self._base_sampler.infer_relative_search_space(study, trial)
        return {k: v for k, v in space.items() if k not in self._values}

    def sample_independent(self, study: optuna.Study, trial: Any, name: str, dist: Any) -> Any:
        if name in self._values:
            return self._values[name]
        return self._base_sampler.sample_independent(study, trial, name, dist)


def test_partial_fixed_sampler_without_its_private_attribute_gives_no_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    study = _run(TreeUCBSampler(seed=0, n_startup_trials=3), sphere, 10)
    spy = _AskSpy(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        study.sampler = _FixedWithoutPrivateAttribute({"y": -0.5}, study.sampler)
    assert not hasattr(study.sampler, "_fixed_params")
    study.optimize(sphere, n_trials=3)
    assert [t.params["y"] for t in study.trials[10:]] == [-0.5] * 3
    assert spy.contexts == [{}] * 3  # the model samples y, the wrapper overrides it
    assert all(t.state == TrialState.COMPLETE for t in study.trials)


def test_enqueued_full_trial_and_invalid_context() -> None:
    study = _run(TreeUCBSampler(seed=0, n_startup_trials=3), mixed, 6)
    full = {"lr": 0.01, "units": 64, "drop": 0.2, "layers": 5, "act": None}
    study.enqueue_trial(full)
    study.enqueue_trial({"drop": 0.123, "act": "relu"})  # drop is off the grid: no context
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study.optimize(mixed, n_trials=2)
    assert study.trials[6].params == full
    assert study.trials[7].params["act"] == "relu" and study.trials[7].params["drop"] == 0.123


# -- storages, processes, threads, pickling, seeds ------------------------------------------------
def _storage(kind: str, tmp_path: Path) -> Any:
    if kind == "memory":
        return optuna.storages.InMemoryStorage()
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'study.db'}"
    return JournalStorage(JournalFileBackend(str(tmp_path / "journal.log")))


@pytest.mark.parametrize("kind", ["memory", "sqlite", "journal"])
def test_storages_and_resume_match_an_uninterrupted_run(kind: str, tmp_path: Path) -> None:
    reference = _run(TreeUCBSampler(seed=3, n_startup_trials=4), mixed, 16)
    storage = _storage(kind, tmp_path)
    study = optuna.create_study(
        storage=storage, study_name="s", sampler=TreeUCBSampler(seed=3, n_startup_trials=4)
    )
    study.optimize(mixed, n_trials=8)
    # a new process would build a new sampler: its state derives from the stored trials
    resumed = optuna.load_study(
        storage=storage, study_name="s", sampler=TreeUCBSampler(seed=3, n_startup_trials=4)
    )
    resumed.optimize(mixed, n_trials=8)
    assert len(resumed.trials) == 16
    assert _params(resumed) == _params(reference)


@pytest.mark.parametrize(
    "objective, options",
    [
        (sphere, {}),
        (sphere, {"rule": "incremental"}),
        (sphere, {"index": "soft_gp"}),
        (conditional, {"group": False, "n_startup_trials": 4}),
    ],
)
def test_resumed_study_samples_what_an_uninterrupted_one_would(
    objective: Callable[[optuna.Trial], float], options: dict[str, Any]
) -> None:
    # Interrupted during the start-up trials and again once the tree refits every few
    # observations: every draw derives from (seed, trial number) and the tree from the
    # observations only, so nothing is repeated and the three runs make one.
    reference = _run(TreeUCBSampler(seed=0, **options), objective, 50)
    storage = optuna.storages.InMemoryStorage()
    optuna.create_study(storage=storage, study_name="s")
    for n_trials in (5, 31, 14):
        study = optuna.load_study(
            storage=storage, study_name="s", sampler=TreeUCBSampler(seed=0, **options)
        )
        study.optimize(objective, n_trials=n_trials)
    params = _params(study)
    assert len({json.dumps(p, sort_keys=True) for p in params}) == 50
    assert params == _params(reference)


@pytest.mark.parametrize("kind", ["sqlite", "journal"])
def test_same_seed_workers_on_one_storage_do_not_repeat_trials(kind: str, tmp_path: Path) -> None:
    # Four workers with one seed take turns on one study (as processes on a shared storage
    # would): their trial numbers differ, and so do their trials, start-up ones included.
    storage = _storage(kind, tmp_path)
    optuna.create_study(storage=storage, study_name="shared")
    workers = [
        optuna.load_study(
            storage=storage,
            study_name="shared",
            sampler=TreeUCBSampler(seed=0, n_startup_trials=8),
        )
        for _ in range(4)
    ]
    for _ in range(5):
        for study in workers:
            study.optimize(sphere, n_trials=1)
    points = {(t.params["x"], t.params["y"]) for t in workers[0].trials}
    assert len(workers[0].trials) == 20 and len(points) == 20


def test_user_independent_sampler_keeps_its_own_stream() -> None:
    # A sampler passed by the user draws the start-up trials from its own stream (documented):
    # two such runs with one RandomSampler seed start alike whatever TreeUCBSampler's seed.
    a = _run(
        TreeUCBSampler(seed=1, independent_sampler=optuna.samplers.RandomSampler(3)), sphere, 4
    )
    b = _run(
        TreeUCBSampler(seed=2, independent_sampler=optuna.samplers.RandomSampler(3)), sphere, 4
    )
    c = _run(TreeUCBSampler(seed=1), sphere, 4)
    assert _params(a) == _params(b) != _params(c)


@pytest.mark.parametrize("recreate", ["other_storage", "delete_and_create"])
def test_reused_sampler_starts_afresh_on_a_new_study_of_the_same_name(
    recreate: str, tmp_path: Path
) -> None:
    sampler = TreeUCBSampler(seed=0)
    storage = _storage("journal", tmp_path)
    old = optuna.create_study(storage=storage, study_name="exp", sampler=sampler)
    old.optimize(mixed, n_trials=30)
    if recreate == "other_storage":
        storage = optuna.storages.InMemoryStorage()
    else:
        optuna.delete_study(study_name="exp", storage=storage)
    new = optuna.create_study(storage=storage, study_name="exp", sampler=sampler)
    new.optimize(sphere, n_trials=30)
    # the new study's trials make the model, as with a sampler that never saw the old study
    model = sampler.build_model(new)
    assert model.space.names == ("x", "y") and model.n_observations == 30
    assert _params(new) == _params(_run(TreeUCBSampler(seed=0), sphere, 30))


def test_same_study_loaded_again_keeps_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    told = _spy_tell_many(monkeypatch)
    sampler = TreeUCBSampler(seed=0, n_startup_trials=5)
    storage = _storage("journal", tmp_path)
    optuna.create_study(storage=storage, study_name="s")
    for _ in range(4):  # a new Study object for the same study each time
        optuna.load_study(storage=storage, study_name="s", sampler=sampler).optimize(
            sphere, n_trials=5
        )
    assert told == [5] + [1] * 14


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def test_threads(caplog: pytest.LogCaptureFixture) -> None:
    sampler = TreeUCBSampler(seed=0, n_startup_trials=4)
    study = optuna.create_study(sampler=sampler)
    with caplog.at_level(logging.WARNING):
        study.optimize(sphere, n_trials=24, n_jobs=2)
    assert len(study.trials) == 24
    assert all(t.state == TrialState.COMPLETE for t in study.trials)
    assert len({(t.params["x"], t.params["y"]) for t in study.trials}) == 24
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_running_trials_are_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = TreeUCBSampler(seed=0, n_startup_trials=3)
    study = _run(sampler, sphere, 6)
    busy = study.ask()
    busy.suggest_float("x", -5.0, 5.0)
    busy.suggest_float("y", -5.0, 5.0)
    seen: list[np.ndarray] = []
    original = TreeUCB.ask

    def ask(core: TreeUCB, context: Any = None, **kwargs: Any) -> dict[str, Any]:
        seen.append(core.pending)
        return original(core, context, **kwargs)

    monkeypatch.setattr(TreeUCB, "ask", ask)
    study.optimize(sphere, n_trials=1)
    x = (busy.params["x"] + 5.0) / 10.0
    y = (busy.params["y"] + 5.0) / 10.0
    np.testing.assert_allclose(seen[-1], [[x, y]])
    study.tell(busy, 1.0)
    study.optimize(sphere, n_trials=1)
    assert seen[-1].shape == (0, 2)  # a finished trial is no longer pending


def test_pickling_mid_study() -> None:
    a = _run(TreeUCBSampler(seed=5, n_startup_trials=4), mixed, 10)
    b = _run(TreeUCBSampler(seed=5, n_startup_trials=4), mixed, 10)
    b.sampler = pickle.loads(pickle.dumps(b.sampler))
    a.optimize(mixed, n_trials=10)
    b.optimize(mixed, n_trials=10)
    assert _params(a) == _params(b)
    # the pickle holds the sampler's arguments and seed, not its per-study caches (a core
    # told 20 trials alone is kilobytes) nor its lock (which cannot be pickled)
    assert len(pickle.dumps(b.sampler)) < len(pickle.dumps(TreeUCBSampler(seed=5))) + 200


def test_seed_reproducibility() -> None:
    a = _run(TreeUCBSampler(seed=7, n_startup_trials=3), conditional, 20)
    b = _run(TreeUCBSampler(seed=7, n_startup_trials=3), conditional, 20)
    c = _run(TreeUCBSampler(seed=8, n_startup_trials=3), conditional, 20)
    assert _params(a) == _params(b)
    assert _params(a)[3:] != _params(c)[3:]


def test_reseed_rng_changes_the_draws() -> None:
    a = _run(TreeUCBSampler(seed=7, n_startup_trials=3), sphere, 8)
    sampler = TreeUCBSampler(seed=7, n_startup_trials=3)
    b = _run(sampler, sphere, 3)
    sampler.reseed_rng()
    b.optimize(sphere, n_trials=5)
    assert _params(a)[:3] == _params(b)[:3]
    assert _params(a)[3:] != _params(b)[3:]


_HASHSEED_SCRIPT = """
import json
import optuna
from optuna_treeucb import TreeUCBSampler

optuna.logging.set_verbosity(optuna.logging.ERROR)


def objective(trial):
    kind = trial.suggest_categorical("kind", ["alpha", "beta", "gamma", None])
    x = trial.suggest_float("x", -2.0, 2.0)
    if kind == "alpha":
        x += trial.suggest_int("a", 0, 4)
    elif kind == "beta":
        x -= trial.suggest_float("b", 1e-3, 1.0, log=True)
    return x**2


study = optuna.create_study(sampler=TreeUCBSampler(seed=11, n_startup_trials=3))
study.optimize(objective, n_trials=25)
print(json.dumps([t.params for t in study.trials]))
"""


@pytest.mark.slow
def test_seed_reproducibility_across_hash_seeds(tmp_path: Path) -> None:
    script = tmp_path / "hashseed.py"
    script.write_text(_HASHSEED_SCRIPT)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script)],
            env=_env(PYTHONHASHSEED=h),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for h in ("0", "4242")
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outputs):
        assert p.returncode == 0, err
    runs = [json.loads(out) for out, _ in outputs]
    assert len(runs[0]) == 25 and runs[0] == runs[1]


def _spy_tell_many(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the number of observations of every ``TreeUCB.tell_many`` call (and tell them)."""
    told: list[int] = []
    original = TreeUCB.tell_many

    def tell_many(core: TreeUCB, X: Any, values: Any, *args: Any, **kwargs: Any) -> None:
        told.append(len(values))
        original(core, X, values, *args, **kwargs)

    monkeypatch.setattr(TreeUCB, "tell_many", tell_many)
    return told


def test_cache_tells_each_trial_once(monkeypatch: pytest.MonkeyPatch) -> None:
    told = _spy_tell_many(monkeypatch)
    _run(TreeUCBSampler(seed=0, n_startup_trials=5), sphere, 20)
    # trial 5 tells the first five, then each trial tells its predecessor only
    assert told == [5] + [1] * 14


class _Subset:
    """A study proxy that shows some trials, as HyperbandPruner's bracket study does."""

    def __init__(self, study: optuna.Study, keep: Callable[[Any], bool]) -> None:
        self._study, self._keep = study, keep
        self.study_name, self.directions, self.sampler = (
            study.study_name,
            study.directions,
            study.sampler,
        )

    def get_trials(self, deepcopy: bool = True, states: Any = None) -> list[Any]:
        trials = self._study.get_trials(deepcopy=deepcopy, states=states)
        return [t for t in trials if self._keep(t)]


def test_a_study_subset_gets_its_own_model(monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = TreeUCBSampler(seed=0, n_startup_trials=2)
    study = _run(sampler, sphere, 20)
    spy: list[int] = []
    original = TreeUCB.ask

    def ask(core: TreeUCB, context: Any = None, **kwargs: Any) -> dict[str, Any]:
        spy.append(core.n_observations)
        return original(core, context, **kwargs)

    monkeypatch.setattr(TreeUCB, "ask", ask)
    space = sampler.infer_relative_search_space(study, study.trials[-1])
    study.ask()
    trial = study.trials[-1]
    even = _Subset(study, lambda t: t.number % 2 == 0)
    odd = _Subset(study, lambda t: t.number % 2 == 1)
    for view in (even, odd, study, even):
        sampler.sample_relative(view, trial, space)  # type: ignore[arg-type]
    assert spy == [10, 10, 20, 10]


# -- pruners --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "pruner",
    [
        optuna.pruners.HyperbandPruner(min_resource=1, max_resource=9),
        optuna.pruners.MedianPruner(),
    ],
)
def test_pruners(pruner: optuna.pruners.BasePruner) -> None:
    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -5.0, 5.0)
        c = trial.suggest_categorical("c", ["a", "b"])
        value = x**2 + (c == "b")
        for step in range(9):
            trial.report(value + 9 - step, step)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return value

    sampler = TreeUCBSampler(seed=0, n_startup_trials=4)
    study = optuna.create_study(sampler=sampler, pruner=pruner)
    study.optimize(objective, n_trials=40)
    states = [t.state for t in study.trials]
    assert len(states) == 40 and set(states) <= {TrialState.COMPLETE, TrialState.PRUNED}
    assert TrialState.PRUNED in states
    assert sampler.build_model(study).n_observations == 40


def _float_and_int(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", 0.0, 1.0)
    y = trial.suggest_int("y", 0, 4)
    return (x - 0.3) ** 2 + 0.1 * y


@pytest.mark.parametrize("seed", [7, 8, 11, 13])
def test_local_gp_never_asks_a_point_already_tried(seed: int) -> None:
    # a perturbation clipped onto a split at an observed value used to repeat that point
    # (these seeds did, before the local GP skipped candidates equal to a tried point)
    study = _run(TreeUCBSampler(seed=seed), _float_and_int, 40)
    points = [(t.params["x"], t.params["y"]) for t in study.trials]
    assert len(set(points)) == len(points)


# -- optimisation sanity --------------------------------------------------------------------------
def _median_best(make: Callable[[int], BaseSampler], objective: Any) -> float:
    return float(np.median([_run(make(seed), objective, 50).best_value for seed in range(5)]))


@pytest.mark.slow
@pytest.mark.parametrize("objective", [sphere, mixed])
@pytest.mark.parametrize("rule", ["refit", "incremental"])
def test_beats_random_search(objective: Callable[[optuna.Trial], float], rule: str) -> None:
    tree = _median_best(lambda s: TreeUCBSampler(seed=s, rule=rule), objective)  # type: ignore[arg-type]
    rand = _median_best(lambda s: optuna.samplers.RandomSampler(seed=s), objective)
    # 0.6: on seeds 5-19 the incremental rule on `mixed` reaches 0.60x random's median with
    # the trust region (0.61x with uniform draws); seeds 0-4 give 0.52x (0.44x uniform)
    assert tree < 0.6 * rand, (tree, rand)


def test_trials_finishing_out_of_order_are_all_told() -> None:
    # A long trial that finishes after later ones must still reach the model exactly once.
    sampler = TreeUCBSampler(seed=0, n_startup_trials=2)
    study = optuna.create_study(sampler=sampler)
    slow = study.ask({"x": optuna.distributions.FloatDistribution(0, 1)})
    for _ in range(5):
        t = study.ask({"x": optuna.distributions.FloatDistribution(0, 1)})
        study.tell(t, t.params["x"])
    assert sampler.build_model(study).n_observations == 5
    study.tell(slow, 0.5)
    for _ in range(2):
        t = study.ask({"x": optuna.distributions.FloatDistribution(0, 1)})
        study.tell(t, t.params["x"])
    model = sampler.build_model(study)
    assert model.n_observations == 8
    assert sorted(model.values.tolist()) == sorted(
        t.value for t in study.get_trials(states=(TrialState.COMPLETE,))
    )
