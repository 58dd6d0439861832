"""Reading a study's trials incrementally: the finished trials logged once each, the study's
identity, and the seeds of a trial's draws.

A real study's trials only accumulate and a finished trial never changes, so one unfiltered
read and a walk from the first trial not known to have ended find the new finished trials and
the running ones, at O(1) amortised per sampled trial.  A pruner's proxy study
(``HyperbandPruner``'s bracket) shows a subset of the trials and is compared in full.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.samplers import PartialFixedSampler
from optuna.study import Study
from optuna.trial import TrialState

from optuna_treeucb._grouping import _FOLDED_STATES as FINISHED
from optuna_treeucb._grouping import to_spec
from optuna_treeucb.core import Face

if TYPE_CHECKING:
    from optuna.trial import FrozenTrial

_logger = logging.getLogger(__name__)
# How many of the last finished trials are searched for a parameter's range in a trial's
# context, when its range changed (a bound on the cost per ask, not a tuned value)
CONTEXT_LOOKBACK = 2000
_MISSING = object()  # a parameter a trial does not hold


@dataclass
class View:
    """The finished trials a study shows, once logged.

    Attributes:
        finished: The study's finished trials, in trial-number order; ``None`` when they are
            every trial logged (a real study; a HyperbandPruner bracket shows a subset).
        n_obs: Number of observations among them (trials with a value for the model).
        new: The finished trials logged by this read, in number order.
        running: The study's ``RUNNING`` trials when they were read in the same pass, else
            ``None`` (read them with ``study.get_trials``).
    """

    finished: list[FrozenTrial] | None
    n_obs: int
    new: list[FrozenTrial] = field(default_factory=list)
    running: list[FrozenTrial] | None = None

    @property
    def subset(self) -> bool:
        """Whether the study shows a subset of the trials logged (a HyperbandPruner bracket)."""
        return self.finished is not None


Value = float | tuple[float, ...] | None  # a trial's value(s) for the model


class TrialLog:
    """The finished trials of one study, each logged once, with its value for the model.

    Attributes:
        values: Trial number -> (trial, value(s) for the model or ``None``).
        violations: Trial number -> its total constraint violation (0: feasible, or no value).
        constraints: Trial number -> its constraint values by name (``{}``: none, or no value).
        numbers: Their numbers, in the order logged.
        n_obs: How many have a value.
    """

    def __init__(self) -> None:
        self.values: dict[int, tuple[FrozenTrial, Value]] = {}
        self.violations: dict[int, float] = {}
        self.constraints: dict[int, dict[str, float]] = {}
        self._warned = False  # a trial with unreadable constraints was skipped
        self.numbers: list[int] = []
        self.n_obs = 0
        self._first: tuple[int, Any] | None = None  # key of trial 0
        self._frontier = 0  # every trial before this position of the trial list has ended
        self._frontier_key: tuple[int, Any] | None = None  # key of the trial before it

    def read(self, study: Study) -> View | None:
        """Log the study's finished trials not logged yet.

        Returns:
            What the study shows, or ``None`` if its trials are not those this log was built
            on (another storage's study of the same name, or one deleted and created again):
            the caller starts a new log.
        """
        if type(study) is Study:
            trials = study.get_trials(deepcopy=False)
            if not self._built_on(trials):
                return None
            new, running = self._walk(trials)
            self._log(new)
            return View(None, self.n_obs, new, running)
        finished = study.get_trials(deepcopy=False, states=FINISHED)
        if any(
            t.number in self.values and key(self.values[t.number][0]) != key(t) for t in finished
        ):
            return None
        new = [t for t in finished if t.number not in self.values]
        self._log(new)
        n_obs = sum(self.values[t.number][1] is not None for t in finished)
        return View(finished, n_obs, new)

    def shown(self, view: View) -> list[int]:
        """The numbers of the finished trials ``view`` shows: every trial logged, in the order
        logged (a position in it stays valid as the log grows), or a bracket's subset."""
        return self.numbers if view.finished is None else [t.number for t in view.finished]

    def last_distribution(
        self, name: str, context: Mapping[str, Any], dists: list[BaseDistribution]
    ) -> BaseDistribution | None:
        """The distribution among ``dists`` that the last finished trial holding the
        ``context`` values gave ``name`` (among the last ``CONTEXT_LOOKBACK``), else ``None``."""
        for number in reversed(self.numbers[-CONTEXT_LOOKBACK:]):
            t = self.values[number][0]
            dist = t.distributions.get(name)
            held = all(t.params.get(n, _MISSING) == v for n, v in context.items())
            if dist is not None and dist in dists and held:
                return dist
        return None

    def _built_on(self, trials: list[FrozenTrial]) -> bool:
        """Whether ``trials`` (every trial of the study, in number order) are still those the
        log was built on: the first, the one before the frontier and the last one logged are
        compared (O(1)); trials of another study started at other times."""

        def same(number: int, k: tuple[int, Any] | None) -> bool:
            return number < len(trials) and key(trials[number]) == k

        if self._first is not None and not same(0, self._first):
            return False
        if self._frontier and not same(self._frontier - 1, self._frontier_key):
            return False
        if self.numbers:
            last = self.numbers[-1]
            return same(last, key(self.values[last][0]))
        return True

    def _walk(self, trials: list[FrozenTrial]) -> tuple[list[FrozenTrial], list[FrozenTrial]]:
        """The finished trials not logged yet, and the running ones, from the frontier on."""
        if self._first is None and trials and trials[0].datetime_start is not None:
            self._first = key(trials[0])
        start = self._frontier
        new, running = [], []
        frontier = start
        for i in range(start, len(trials)):
            t = trials[i]
            state = t.state
            if state in FINISHED:
                if t.number not in self.values:
                    new.append(t)
            elif state == TrialState.RUNNING:
                running.append(t)
            if frontier == i and state.is_finished():
                frontier = i + 1
        self._frontier = frontier
        self._frontier_key = key(trials[frontier - 1]) if frontier else None
        new.sort(key=lambda t: t.number)
        return new, running

    def _log(self, new: list[FrozenTrial]) -> None:
        for t in new:
            v, violation, named = self._read(t)
            self.values[t.number] = (t, v)
            self.violations[t.number] = violation
            self.constraints[t.number] = named
            self.numbers.append(t.number)
            self.n_obs += v is not None

    def _read(self, trial: FrozenTrial) -> tuple[Value, float, dict[str, float]]:
        """The trial's value(s) for the model, total violation and constraint values by name
        (any number, any names, as Optuna 5's samplers read them); ``(None, 0.0, {})`` when it
        is not an observation by the core's rule (:meth:`~optuna_treeucb.core.Face.result`):
        a NaN value, or constraint values that cannot be read (one warning per log)."""
        raw = values(trial)
        if raw is None or Face.result(raw).values is None:
            return None, 0.0, {}
        try:
            named = constraints(trial)
        except (TypeError, ValueError) as err:
            self._warn_unreadable(trial, err)
            return None, 0.0, {}
        result = Face.result(raw, list(named.values()))
        if result.values is None or result.constraints is None:
            self._warn_unreadable(trial, ValueError("NaN"))
            return None, 0.0, {}
        v = result.values if len(result.values) > 1 else result.values[0]
        return v, result.violation, named

    def _warn_unreadable(self, trial: FrozenTrial, err: Exception) -> None:
        if not self._warned:
            self._warned = True
            _logger.warning(
                "TreeUCBSampler skips trial %d: its constraint values cannot be read as "
                "numbers (%s). Constraints must be real numbers, not NaN. Later trials with "
                "unreadable constraints are skipped without this warning.",
                trial.number,
                err,
            )


def key(trial: FrozenTrial) -> tuple[int, Any]:
    """What tells a trial from another study's trial with the same number."""
    return trial.number, trial.datetime_start


def values(trial: FrozenTrial) -> list[float | None] | None:
    """A finished trial's value(s) for the model, ``None`` if it has none.

    ``COMPLETE``: its value (its values with several objectives).  ``PRUNED``: its last
    intermediate value (at its last step).  A NaN is the core's to drop
    (:meth:`~optuna_treeucb.core.Face.result`).
    """
    if trial.state == TrialState.COMPLETE and trial.values is not None:
        return [float(u) for u in trial.values]
    if trial.state == TrialState.PRUNED and trial.last_step is not None:
        return [float(trial.intermediate_values[trial.last_step])]
    return None


def draw_seed(base_seed: int, number: int, param_name: str) -> int:
    """Seed of the independent draw of ``param_name`` in trial ``number`` (a 32-bit int).

    The name enters through a hash that does not depend on ``PYTHONHASHSEED``; its 64 bits
    keep the key apart from the model's keys (seed, trial number, small group index).
    """
    digest = hashlib.blake2b(param_name.encode(), digest_size=8).digest()
    k = [base_seed, number, int.from_bytes(digest, "little")]
    return int(np.random.SeedSequence(k).generate_state(1)[0])


def constraints(trial: FrozenTrial) -> dict[str, float]:
    """A trial's constraint values by name, as Optuna's samplers read them: on Optuna 5
    ``FrozenTrial.constraints`` (``Trial.set_constraint``, and ``constraints_func``'s tuple
    under the names ``"0"``, ``"1"``, ...), on Optuna 4 the tuple ``constraints_func`` stored,
    named the same way; ``{}`` if none."""
    if hasattr(type(trial), "constraints"):
        return {str(k): float(c) for k, c in trial.constraints.items()}
    return {str(i): float(c) for i, c in enumerate(trial.system_attrs.get("constraints") or ())}


def check_constraints_func(constraints_func: Any) -> Any:
    """``TreeUCBSampler``'s ``constraints_func``, checked, with Optuna 5's deprecation warning
    (TypeError if it is neither a function nor ``None``)."""
    if constraints_func is not None and not callable(constraints_func):
        raise TypeError(
            "The 'constraints_func' parameter of TreeUCBSampler must be a function of a "
            f"FrozenTrial returning its constraint values, or None. Got {constraints_func!r}."
        )
    if constraints_func is not None and int(optuna.__version__.split(".")[0]) >= 5:
        # the warning of TPESampler and GPSampler in Optuna 5, word for word
        Face.warn(
            "`constraints_func` has been deprecated in v5.0.0. This feature will be removed "
            "in v7.0.0. See https://github.com/optuna/optuna/releases/tag/v5.0.0. Use "
            "`optuna.trial.Trial.set_constraint` instead.",
            FutureWarning,
        )
    return constraints_func


def fixed_context(
    study: Study, trial: FrozenTrial, dist_of: Callable[[str, Any], BaseDistribution | None]
) -> dict[str, Any]:
    """Values fixed for this trial that the model can condition on.

    They come from a :class:`~optuna.samplers.PartialFixedSampler` wrapping this sampler,
    from :meth:`~optuna.study.Study.enqueue_trial` (``system_attrs["fixed_params"]``) and from
    parameters the trial already holds.  A value outside its distribution stays in the trial
    (Optuna warns about it and uses it) but cannot be a point of the model's cube, so the
    model does not condition on it.
    """
    fixed: dict[str, Any] = dict(partial_fixed_params(study.sampler))
    enqueued = trial.system_attrs.get("fixed_params")
    if isinstance(enqueued, Mapping):
        fixed.update(enqueued)
    fixed.update(trial.params)
    context = {}
    for name, value in fixed.items():
        dist = dist_of(name, value)
        if dist is None:
            continue
        try:
            to_spec(name, dist).encode(value)
        except (TypeError, ValueError):
            continue
        context[name] = value
    return context


def partial_fixed_params(sampler: BaseSampler) -> Mapping[str, Any]:
    """The values a :class:`~optuna.samplers.PartialFixedSampler` fixes; ``{}`` for others.

    PartialFixedSampler removes its parameters from the search space it passes on, and they
    reach the trial (``trial.params``) only after ``sample_relative``: Optuna (up to 5.0) has
    no public accessor for them.  This is the one place that reads its private
    ``_fixed_params``.  Should a later Optuna rename it, the fallback is ``{}``: the wrapper
    still fixes the values, but the model no longer conditions on them.
    """
    if not isinstance(sampler, PartialFixedSampler):
        return {}
    values = getattr(sampler, "_fixed_params", None)
    if isinstance(values, Mapping):
        return values
    _logger.debug(
        "PartialFixedSampler has no '_fixed_params' mapping in this Optuna version; "
        "its fixed values are not used as contexts."
    )
    return {}


def running(study: Study, view: View) -> list[FrozenTrial]:
    """The study's ``RUNNING`` trials (read with the view if they were)."""
    if view.running is not None:
        return view.running
    return study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
