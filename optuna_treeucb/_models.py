"""The sampler's cached cores: one per (direction, space), told the trials logged since its
last use, with the study's running trials as pending points under their trial numbers; and
:class:`StudyState`, everything the sampler derives from one study (log, parameters, cores,
branch choosers), which it reads once per trial and hands to the core.

Optuna objects are turned into the core's arrays here, once per trial: a finished trial's
point (a value of a changed range counts only inside the range modelled), value, budget and
constraint values; a running trial's point, from its parameters or the relative sample it
shared through its system attributes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution as Cat
from optuna.study import Study
from optuna.trial import TrialState

from optuna_treeucb._grouping import _SpaceTracker
from optuna_treeucb._trial_log import TrialLog
from optuna_treeucb._trial_log import Value
from optuna_treeucb._trial_log import View
from optuna_treeucb.core import BranchChooser
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube

if TYPE_CHECKING:
    from optuna.trial import FrozenTrial

Space = tuple[tuple[str, BaseDistribution], ...]  # (name, distribution), sorted by name
Direction = tuple[str, ...]  # the core's direction: one per objective, always
MAX_MODELS_PER_SPACE = 8  # e.g. one per HyperbandPruner bracket
# A trial's relative sample, shared with other processes through its system attributes (as
# TPESampler's constant_liar does), in chunks: RDBStorage keeps values under 2046 characters.
SHARED_KEY = "treeucb:relative_params"
SHARED_CHUNK = 2045
_MISSING = object()  # a parameter a trial does not hold


@dataclass
class Model:
    """A cached core and the finished trials already considered for it.

    Attributes:
        core: The bandit.
        told: Numbers of the finished trials considered (told, or skipped as unusable).
        pos: Every entry of the sampler's trial log before ``pos`` is in ``told``.
    """

    core: TreeUCB
    told: set[int] = field(default_factory=set)
    pos: int = 0
    # the constraint names of every trial told (``()``: they differ, or none; ``None``: none
    # told yet): their values go to the core column by column, else the total violation
    constraint_names: tuple[str, ...] | None = None


class ModelCache:
    """The cached cores of one study, by (direction, space), at most
    ``MAX_MODELS_PER_SPACE`` per space.

    Args:
        new_core: Builds a core for a space and a direction.
    """

    def __init__(self, new_core: Callable[[Space, Direction], TreeUCB]) -> None:
        self._new_core = new_core
        self._entries: dict[tuple[Any, ...], list[Model]] = {}

    def reseed(self, seed: int) -> None:
        """Seed the cached cores' keyed draws by ``[seed, *key]`` from now on."""
        for entries in self._entries.values():
            for model in entries:
                model.core.reseed(seed)

    def new(self, space: Space, direction: Direction) -> Model:
        """A core of its own, not cached (e.g. for ``build_model``)."""
        return Model(self._new_core(space, direction))

    def get(self, space: Space, direction: Direction, view: View, log: TrialLog) -> Model:
        """The cached core of ``space``, told the observations of ``view`` it has not seen.

        With a view of every logged trial, every cached core is usable and only the trials
        logged since its last update are looked at.  A HyperbandPruner bracket shows a subset
        of the trials: a core is reused only if every trial it was told is in the subset (so
        each bracket keeps its own core), at a cost linear in the number of trials.
        """
        entries = self._entries.setdefault((direction, *space), [])
        shown = log.shown(view)
        if view.subset:
            numbers = set(shown)
            usable = [e for e in entries if e.told <= numbers]
        else:
            usable = entries
        if usable:
            model = max(usable, key=lambda e: len(e.told))
        else:
            model = Model(self._new_core(space, direction))
            entries.append(model)
            if len(entries) > MAX_MODELS_PER_SPACE:
                entries.pop(0)
        start = 0 if view.subset else model.pos  # a subset is read in full
        tell_new(model, space, [log.values[n] for n in shown[start:]], log)
        if not view.subset:
            model.pos = len(shown)
        return model


def contains(dist: BaseDistribution, value: Any) -> bool:
    """Whether ``value`` is a legal value of ``dist`` (Optuna's own test of a relative value:
    ``Trial._is_relative_param``), e.g. a value of the old range inside a widened one."""
    try:
        return bool(dist._contains(dist.to_internal_repr(value)))
    except (TypeError, ValueError):
        return False


def encode(cube: UnitCube, space: Space, trial: FrozenTrial) -> np.ndarray | None:
    """The trial's point of the cube, or ``None`` if it lacks a parameter or holds a value
    outside the parameter's distribution in ``space`` (a range that changed)."""
    params = {}
    for name, dist in space:
        value = trial.params.get(name, _MISSING)
        if value is _MISSING or not contains(dist, value):
            return None
        params[name] = value
    try:
        return cube.encode(params)
    except (TypeError, ValueError):  # e.g. an enqueued value outside the distribution
        return None


def tell_new(
    model: Model,
    space: Space,
    observations: list[tuple[FrozenTrial, Value]],
    log: TrialLog,
) -> None:
    """Tell the core the observations it has not been told (in the given order), with their
    constraint values (``TrialLog.constraints``) while every trial told has the same names,
    else their total constraint violations (``TrialLog.violations``).

    A pruned trial carries its last step as its budget; the core says which budget a complete
    one has (:meth:`~optuna_treeucb.core.TreeUCB.budget_of`).
    """
    rows, values, budgets, told_violations = [], [], [], []
    told_constraints: list[Mapping[str, float]] = []
    for t, value in observations:
        if t.number in model.told:
            continue
        model.told.add(t.number)
        x = None if value is None else encode(model.core.space, space, t)
        if x is not None:
            rows.append(x)
            values.append(value)
            complete = t.state != TrialState.PRUNED
            budgets.append(model.core.budget_of(t.last_step, complete=complete))
            told_violations.append(log.violations[t.number])
            told_constraints.append(log.constraints.get(t.number, {}))
    if not rows:
        return
    names = {tuple(sorted(c)) for c in told_constraints}
    if model.constraint_names is None:
        model.constraint_names = names.pop() if len(names) == 1 else ()
    elif names != {model.constraint_names}:
        model.constraint_names = ()  # the names changed: the total violation from now on
    C = None
    if model.constraint_names:
        C = np.array([[c[k] for k in model.constraint_names] for c in told_constraints])
    # the pending points are the running trials', freed by sync_pending when they finish
    model.core.tell_many(
        np.array(rows),
        np.array(values, dtype=float),
        budgets,
        None if C is not None or not any(told_violations) else told_violations,
        constraints=C,
        drop_pending=False,
    )


def share_point(study: Study, trial: FrozenTrial, params: dict[str, Any]) -> None:
    """Store a trial's relative sample in its system attributes, for other processes.

    Other processes then count the running trial's whole point as pending as soon as it is
    sampled, not only the parameters its objective has suggested so far.  Optuna has no
    public way for a sampler to write a trial's system attributes (``Trial.set_system_attr``
    is deprecated, and ``sample_relative`` gets a ``FrozenTrial``): TPESampler (with
    ``constant_liar``) and GPSampler write through ``study._storage`` and
    ``trial._trial_id``, and so does this one function.  Should either go away, nothing is
    shared and other processes fall back to the parameters the trial has suggested.
    """
    try:
        text = json.dumps(params)
        storage, trial_id = study._storage, trial._trial_id
        write = storage.set_trial_system_attr
    except (AttributeError, TypeError, ValueError):  # private API gone, or values not JSON
        return
    for i in range(0, len(text), SHARED_CHUNK):
        write(trial_id, f"{SHARED_KEY}:{i // SHARED_CHUNK}", text[i : i + SHARED_CHUNK])


def shared_point(trial: FrozenTrial) -> dict[str, Any]:
    """The relative sample a running trial shared (see :func:`share_point`), or ``{}``."""
    attrs = trial.system_attrs
    chunks: list[str] = []
    while (chunk := attrs.get(f"{SHARED_KEY}:{len(chunks)}")) is not None:
        chunks.append(chunk)
    if not chunks:
        return {}
    try:
        params = json.loads("".join(chunks))
    except json.JSONDecodeError:  # read while being written: use the suggested parameters
        return {}
    return params if isinstance(params, dict) else {}


def running_point(cube: UnitCube, space: Space, trial: FrozenTrial) -> np.ndarray | None:
    """A running trial's point: its suggested parameters, else its shared relative sample.

    ``None`` if a parameter of ``space`` is in neither, or has another distribution.
    """
    params: dict[str, Any] = {}
    shared: dict[str, Any] | None = None
    for name, dist in space:
        if name in trial.params:
            if not contains(dist, trial.params[name]):
                return None
            params[name] = trial.params[name]
            continue
        if shared is None:
            shared = shared_point(trial)
        if name not in shared:
            return None
        params[name] = shared[name]
    try:
        return cube.encode(params)
    except (TypeError, ValueError):  # e.g. a shared value outside this distribution
        return None


def sync_pending(model: Model, space: Space, running: list[FrozenTrial]) -> None:
    """Give the core the change in the running trials since the last call, by trial number.

    A trial's point, once known, stays pending under its number until the trial is no longer
    running; a trial whose point is not known yet is looked at again at the next call.
    """
    core = model.core
    held = set(core.pending_keys)
    numbers = set()
    for t in running:
        numbers.add(t.number)
        if t.number in held:
            continue
        x = running_point(core.space, space, t)
        if x is not None:
            core.add_pending(x, key=t.number)
    for number in held - numbers:
        core.forget(number)


class StudyState:
    """What the sampler derives from one study's trials: the trial log, the parameters'
    distributions and groups, the cached cores and the branch choosers.

    It is rebuilt from the storage on demand (never pickled), and started afresh for a study
    of another name, or one whose trials are not those it was built on (another storage's
    study of the same name, or one deleted and created again).  The caller holds a lock.

    Args:
        new_core: Builds a core for a space and a direction.
    """

    def __init__(self, new_core: Callable[[Space, Direction], TreeUCB]) -> None:
        self._new_core = new_core
        self._reset(None)

    def _reset(self, study_name: str | None) -> None:
        self.study_name = study_name
        self.log = TrialLog()  # the study's finished trials, each logged once
        self.tracker = _SpaceTracker()
        self.models = ModelCache(self._new_core)
        self._branches: dict[Direction, BranchChooser] = {}  # one per direction
        # (trial number, view) of the last infer_relative_search_space, which Optuna calls
        # right before sample_relative for the same trial: one read of the trials, not two
        self._view_for: tuple[int, View] | None = None

    def scan(self, study: Study, number: int | None = None) -> View:
        """Log the study's finished trials not logged yet (each finished trial once).

        With ``number``, the view is kept for :meth:`view_for` that trial.
        """
        if study.study_name != self.study_name:
            self._reset(study.study_name)
        view = self.log.read(study)
        if view is None:
            self._reset(study.study_name)
            view = self.log.read(study)
            assert view is not None, "a new log reads any study"
        self.tracker.update(study.study_name, view.new)
        if number is not None:
            self._view_for = (number, view)
        return view

    def view_for(self, study: Study, number: int) -> View:
        """The view :meth:`scan` kept for trial ``number`` an instant ago, else a new one."""
        cached, self._view_for = self._view_for, None
        if cached is not None and cached[0] == number:
            return cached[1]
        return self.scan(study)

    def core(
        self, space: Space, direction: Direction, view: View, running: list[FrozenTrial]
    ) -> TreeUCB:
        """The cached core of ``space``, told the new observations of ``view``, with the
        ``running`` trials as its pending points."""
        model = self.models.get(space, direction, view, self.log)
        sync_pending(model, space, running)
        return model.core

    def build(self, space: Space, direction: Direction, view: View) -> Model:
        """A core of its own (not cached), told every observation ``view`` shows, by number."""
        model = self.models.new(space, direction)
        observations = [self.log.values[n] for n in sorted(self.log.shown(view))]
        tell_new(model, space, observations, self.log)
        return model

    def dist_in(
        self, name: str, context: Mapping[str, Any], last: BaseDistribution
    ) -> BaseDistribution:
        """The distribution to model ``name`` with, given the values decided in this trial.

        A parameter with one distribution has it (``last``, the relative search space's).  One
        whose range changed (one range per branch, or a range widened on resume) takes the
        range of the last finished trial that holds these context values (the branch this
        trial is in), else ``last``.
        """
        dists = self.tracker.distributions(name)
        if len(dists) < 2 or not context:
            return last
        return self.log.last_distribution(name, context, dists) or last

    def branch(
        self,
        view: View,
        group: list[str],
        decided: Mapping[str, Any],
        ctx_names: list[str],
        seed: tuple[int, ...],
        direction: Direction,
    ) -> dict[str, Any]:
        """Values of the categorical parameters of a branch group, by the core's
        :class:`~optuna_treeucb.core.BranchChooser`, whose arms are the combinations of their
        choices; this says which logged trials hold which choices in the decided context.
        Empty (the group's tree chooses them) with no categorical parameter or too many arms.
        """
        cats = [(n, d) for n in group if isinstance(d := self.tracker.distribution(n), Cat)]
        names, dists = [n for n, _ in cats], [d for _, d in cats]

        def choices_of(t: FrozenTrial) -> list[int] | None:
            if any(t.distributions.get(n) != d for n, d in cats):
                return None
            if any(t.params.get(n, _MISSING) != decided[n] for n in ctx_names):
                return None
            return [int(d.to_internal_repr(t.params[n])) for n, d in cats]

        numbers = self.log.shown(view)

        def read(start: int) -> Iterator[tuple[list[int], Any, float]]:
            for number in numbers[start:]:
                t, value = self.log.values[number]
                choices = None if value is None else choices_of(t)
                if choices is not None:
                    yield choices, value, self.log.violations[number]

        chooser = self._branches.setdefault(direction, BranchChooser(direction))
        key = (*names, *dists, *((n, decided[n]) for n in ctx_names))
        sizes = [len(d.choices) for d in dists]
        choices = chooser.choose_combination(
            key, sizes, read, len(numbers), seed, subset=view.subset
        )
        if choices is None:
            return {}
        return {n: d.choices[i] for n, d, i in zip(names, dists, choices)}
