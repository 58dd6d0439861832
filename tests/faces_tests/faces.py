"""One driver per face, with the same verbs, for the tests that run on both faces.

As Optuna's ``tests/samplers_tests/test_samplers.py`` runs one set of tests over every sampler,
the tests of this folder take the ``face`` fixture (``conftest.py``) and run once on
``TreeUCBSampler``, through an Optuna study's ask-and-tell interface, and once on
``TreeUCBSearch``, through the Searcher API that Tune calls (``suggest``, ``on_trial_result``,
``on_trial_complete``) without starting Ray.  A test describes its space in one neutral form
(:class:`Float`, :class:`Int`, :class:`Choice`) and reads the results through public names
only: the suggested parameters, the face's best, and the core model the face exposes
(``TreeUCBSampler.build_model``, ``TreeUCBSearch.model``).

The verbs map as follows (a step is Optuna's ``step`` and Tune's ``training_iteration``):

=========  ==============================================  =======================================
verb       Optuna                                          Ray Tune
=========  ==============================================  =======================================
make       ``create_study``, ``enqueue_trial`` per point   ``TreeUCBSearch(points_to_evaluate=)``
ask        ``study.ask(distributions)``                    ``suggest(trial_id)``
report     ``trial.report(value, step)``                   ``on_trial_result``
tell       ``set_constraint``, ``study.tell(trial, v)``    ``on_trial_complete(result)``
stop       ``study.tell(trial, state=PRUNED)``             ``on_trial_complete`` (last result)
fail       ``study.tell(trial, state=FAIL)``               ``on_trial_complete(error=True)``
model      ``sampler.build_model(study)`` (a new core)     ``searcher.model`` (the live core)
best       ``study.best_params``, ``study.best_trials``    the core's ``best_params``, front
=========  ==============================================  =======================================
"""

from __future__ import annotations

from abc import ABC
from abc import abstractmethod
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import optuna
import pytest
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
from optuna.trial import TrialState

from optuna_treeucb import TreeUCBSampler
from optuna_treeucb.core import TreeUCB


# -- a search space in one neutral form -----------------------------------------------------------
@dataclass(frozen=True)
class Float:
    """A float in [low, high] (both ends), on a log scale or a grid of ``step``."""

    low: float
    high: float
    log: bool = False
    step: float | None = None


@dataclass(frozen=True)
class Int:
    """An int in [low, high] (both ends), on a log scale or a grid of ``step``."""

    low: int
    high: int
    log: bool = False
    step: int = 1


@dataclass(frozen=True)
class Choice:
    """One of ``choices``."""

    choices: tuple[Any, ...]


Param = Float | Int | Choice
Space = dict[str, Param]


def _distribution(param: Param) -> BaseDistribution:
    if isinstance(param, Float):
        return FloatDistribution(param.low, param.high, log=param.log, step=param.step)
    if isinstance(param, Int):
        return IntDistribution(param.low, param.high, log=param.log, step=param.step)
    return CategoricalDistribution(param.choices)


def _domain(param: Param) -> Any:
    from ray import tune

    if isinstance(param, Float):
        if param.step is None:
            return (tune.loguniform if param.log else tune.uniform)(param.low, param.high)
        quantized = tune.qloguniform if param.log else tune.quniform
        return quantized(param.low, param.high, param.step)
    if isinstance(param, Int):
        if param.step == 1:  # Tune's randint excludes its upper end
            return (tune.lograndint if param.log else tune.randint)(param.low, param.high + 1)
        quantized = tune.qlograndint if param.log else tune.qrandint
        return quantized(param.low, param.high, param.step)
    return tune.choice(list(param.choices))


# -- what a test reads ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Trial:
    """A trial the face asked for: ``key`` is the key under which the face holds its point
    pending in the core (Optuna: the trial number; Tune: the trial id)."""

    key: Hashable
    params: dict[str, Any]


@dataclass(frozen=True)
class Asked:
    """What the core held pending when the face asked it for a point."""

    keys: list[Hashable]
    points: list[dict[str, Any]]


Objective = Callable[[dict[str, Any]], float]


# -- the drivers ----------------------------------------------------------------------------------
class Driver(ABC):
    """One study (Optuna) or one searcher (Tune) of a face, driven trial by trial."""

    @abstractmethod
    def ask(self) -> Trial:
        """A new trial and its parameters (it stays pending until told, stopped or failed)."""

    @abstractmethod
    def report(self, trial: Trial, value: float, step: int) -> None:
        """An intermediate value of ``trial`` at ``step``."""

    @abstractmethod
    def tell(
        self,
        trial: Trial,
        value: float | Sequence[float],
        *,
        step: int | None = None,
        constraints: Sequence[float] = (),
    ) -> None:
        """The final value(s) of ``trial`` (reported at ``step`` if given), with its
        constraint values (feasible when <= 0; the face was made with as many)."""

    @abstractmethod
    def stop(self, trial: Trial) -> None:
        """Stop ``trial`` early (a pruner, a scheduler) after its last report."""

    @abstractmethod
    def fail(self, trial: Trial) -> None:
        """Mark ``trial`` as failed (the objective raised)."""

    @abstractmethod
    def model(self) -> TreeUCB:
        """The core model built from every trial told so far."""

    @abstractmethod
    def best_params(self) -> dict[str, Any]:
        """The face's best parameters (one objective)."""

    @abstractmethod
    def front_params(self) -> list[dict[str, Any]]:
        """The parameters of the face's best trials (several objectives)."""

    def run(self, n: int, objective: Objective) -> list[dict[str, Any]]:
        """Ask and tell ``n`` trials one after the other; return their parameters."""
        params = []
        for _ in range(n):
            trial = self.ask()
            self.tell(trial, objective(trial.params))
            params.append(trial.params)
        return params


class OptunaDriver(Driver):
    def __init__(
        self,
        space: Space,
        directions: Sequence[str],
        points: Sequence[dict[str, Any]],
        options: dict[str, Any],
    ) -> None:
        self.sampler = TreeUCBSampler(**options)
        self.study = optuna.create_study(directions=list(directions), sampler=self.sampler)
        self.distributions = {name: _distribution(p) for name, p in space.items()}
        for point in points:
            self.study.enqueue_trial(point)
        self._running: dict[Hashable, optuna.Trial] = {}

    def ask(self) -> Trial:
        trial = self.study.ask(self.distributions)
        self._running[trial.number] = trial
        return Trial(trial.number, dict(trial.params))

    def report(self, trial: Trial, value: float, step: int) -> None:
        self._running[trial.key].report(value, step)

    def tell(
        self,
        trial: Trial,
        value: float | Sequence[float],
        *,
        step: int | None = None,
        constraints: Sequence[float] = (),
    ) -> None:
        running = self._running.pop(trial.key)
        if step is not None:
            assert isinstance(value, (int, float))
            running.report(value, step)
        for i, c in enumerate(constraints):
            running.set_constraint(f"c{i}", c)
        self.study.tell(running, value)

    def stop(self, trial: Trial) -> None:
        self.study.tell(self._running.pop(trial.key), state=TrialState.PRUNED)

    def fail(self, trial: Trial) -> None:
        self.study.tell(self._running.pop(trial.key), state=TrialState.FAIL)

    def model(self) -> TreeUCB:
        return self.sampler.build_model(self.study)

    def best_params(self) -> dict[str, Any]:
        return self.study.best_params

    def front_params(self) -> list[dict[str, Any]]:
        return [t.params for t in self.study.best_trials]


class RayDriver(Driver):
    def __init__(
        self,
        space: Space,
        directions: Sequence[str],
        points: Sequence[dict[str, Any]],
        options: dict[str, Any],
        n_constraints: int,
    ) -> None:
        from ray_treeucb import TreeUCBSearch

        several = len(directions) > 1
        self.metrics = [f"value{i}" for i in range(len(directions))] if several else ["value"]
        modes = ["min" if d == "minimize" else "max" for d in directions]
        self.searcher = TreeUCBSearch(
            {name: _domain(p) for name, p in space.items()},
            metric=self.metrics if several else self.metrics[0],
            mode=modes if several else modes[0],
            points_to_evaluate=list(points) or None,
            constraints=[f"c{i}" for i in range(n_constraints)] or None,
            **options,
        )
        self._n = 0
        self._last: dict[Hashable, dict[str, Any]] = {}

    def _result(
        self, value: float | Sequence[float], step: int | None, constraints: Sequence[float]
    ) -> dict[str, Any]:
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        result: dict[str, Any] = dict(zip(self.metrics, values))
        if step is not None:
            result["training_iteration"] = step
        result.update({f"c{i}": c for i, c in enumerate(constraints)})
        return result

    def ask(self) -> Trial:
        key = f"t{self._n}"
        self._n += 1
        config = self.searcher.suggest(key)
        assert isinstance(config, dict)
        return Trial(key, config)

    def report(self, trial: Trial, value: float, step: int) -> None:
        self._last[trial.key] = self._result(value, step, ())
        self.searcher.on_trial_result(str(trial.key), self._last[trial.key])

    def tell(
        self,
        trial: Trial,
        value: float | Sequence[float],
        *,
        step: int | None = None,
        constraints: Sequence[float] = (),
    ) -> None:
        self._last.pop(trial.key, None)
        self.searcher.on_trial_complete(str(trial.key), self._result(value, step, constraints))

    def stop(self, trial: Trial) -> None:
        # Tune ends a trial that a scheduler stopped with that trial's last result
        self.searcher.on_trial_complete(str(trial.key), self._last.pop(trial.key))

    def fail(self, trial: Trial) -> None:
        self._last.pop(trial.key, None)
        self.searcher.on_trial_complete(str(trial.key), error=True)

    def model(self) -> TreeUCB:
        core = self.searcher.model
        assert core is not None
        return core

    def best_params(self) -> dict[str, Any]:
        return self.model().best_params

    def front_params(self) -> list[dict[str, Any]]:
        return self.model().front_params


@dataclass
class Face:
    """A face under test: ``make`` gives a new driver; ``watch`` records the core's asks."""

    name: str
    monkeypatch: pytest.MonkeyPatch
    asked: list[Asked] = field(default_factory=list)
    _watching: bool = False

    def make(
        self,
        space: Space,
        *,
        directions: Sequence[str] = ("minimize",),
        n_constraints: int = 0,
        points: Sequence[dict[str, Any]] = (),
        **options: Any,
    ) -> Driver:
        """A study or searcher over ``space`` with the core's ``options`` (under the faces'
        common names, e.g. ``seed``, ``n_startup_trials``, ``pruned``)."""
        if self.name == "optuna":
            return OptunaDriver(space, directions, points, options)
        return RayDriver(space, directions, points, options, n_constraints)

    def watch(self) -> list[Asked]:
        """From now on, record in :attr:`asked` what the core holds pending at each of its
        asks (through the core's public ``ask``, which both faces call for a new point)."""
        if not self._watching:
            original = TreeUCB.ask

            def ask(core: TreeUCB, *args: Any, **kwargs: Any) -> Any:
                points = [core.space.decode(row) for row in core.pending]
                self.asked.append(Asked(list(core.pending_keys), points))
                return original(core, *args, **kwargs)

            self.monkeypatch.setattr(TreeUCB, "ask", ask)
            self._watching = True
        return self.asked
