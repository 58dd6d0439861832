"""Search-space bookkeeping of TreeUCBSampler: consistent distributions and parameter groups.

A define-by-run objective suggests different parameter sets in different trials.  Here the
finished trials are folded one by one (each trial once) into

* the distributions of every parameter name, each with the last trial that used it.  A
  range that changes (widened on resume, or one range per branch) keeps the parameter in the
  model: the model takes one of its distributions and the trials whose values it contains.  A
  parameter whose kind, log scale or choices changed is *inconsistent*: Optuna refuses a
  relative value for it, so it is left to the independent sampler;
* the distinct parameter-name sets ("signatures") with their trial counts.

Groups follow TPE's ``group=True`` decomposition: two parameters belong to one group when they
appear in exactly the same trials.  For a group ``G`` the *common* names are those present in
every trial that contains ``G`` (``G`` itself and, e.g., the branch parameter that led to it);
the sampler models ``G`` jointly with the common names that are already decided, as a context.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Sequence
from typing import TYPE_CHECKING

from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution
from optuna.distributions import check_distribution_compatibility
from optuna.trial import TrialState

from optuna_treeucb.core import ParamSpec

if TYPE_CHECKING:
    from optuna.trial import FrozenTrial

# The finished states whose trials are observations (the sampler imports it as _FINISHED).
_FOLDED_STATES = (TrialState.COMPLETE, TrialState.PRUNED)


def to_spec(name: str, dist: BaseDistribution) -> ParamSpec:
    """The core's description of an Optuna distribution.

    Raises:
        ValueError: If the core cannot represent the distribution (e.g. an int grid with more
            values than a coordinate in [0, 1] can tell apart).
        TypeError: If the distribution is of an unknown type.
    """
    if isinstance(dist, FloatDistribution):
        return ParamSpec(name, "float", low=dist.low, high=dist.high, log=dist.log, step=dist.step)
    if isinstance(dist, IntDistribution):
        return ParamSpec(name, "int", low=dist.low, high=dist.high, log=dist.log, step=dist.step)
    if isinstance(dist, CategoricalDistribution):
        return ParamSpec(name, "categorical", choices=tuple(dist.choices))
    raise TypeError(f"TreeUCBSampler cannot model parameter {name!r} of type {dist!r}.")


class _SpaceTracker:
    """Incremental summary of the parameters of a study's finished trials.

    Only ``COMPLETE`` and ``PRUNED`` trials are folded; a finished trial never changes, so each
    trial is folded once.  Passing trials of another study (another ``study_name``) resets the
    summary.
    """

    def __init__(self) -> None:
        self._study_name: str | None = None
        self._folded: set[int] = set()
        # name -> its distributions, each with the number of the last trial that used it
        self._distributions: dict[str, dict[BaseDistribution, int]] = {}
        self._inconsistent: set[str] = set()
        self._unmodelled: dict[str, str] = {}  # name -> why the core cannot represent it
        self._signatures: dict[frozenset[str], int] = {}

    def _clear(self, study_name: str) -> None:
        self._study_name = study_name
        self._folded = set()
        self._distributions = {}
        self._inconsistent = set()
        self._unmodelled = {}
        self._signatures = {}

    def update(self, study_name: str, trials: Iterable[FrozenTrial]) -> None:
        """Fold the finished trials not folded yet."""
        if study_name != self._study_name:
            self._clear(study_name)
        for trial in trials:
            if trial.state not in _FOLDED_STATES or trial.number in self._folded:
                continue
            self._folded.add(trial.number)
            for name, dist in trial.distributions.items():
                self._fold(name, dist, trial.number)
            signature = frozenset(trial.distributions)
            self._signatures[signature] = self._signatures.get(signature, 0) + 1

    def _fold(self, name: str, dist: BaseDistribution, number: int) -> None:
        known = self._distributions.setdefault(name, {})
        if dist not in known:
            if known and name not in self._inconsistent:
                try:
                    check_distribution_compatibility(next(iter(known)), dist)
                except ValueError:  # another kind, log scale or choices
                    self._inconsistent.add(name)
            try:
                to_spec(name, dist)
            except (ValueError, TypeError) as err:
                self._unmodelled.setdefault(name, str(err))
        known[dist] = max(known.get(dist, number), number)

    def seen(self, name: str) -> bool:
        """Whether some folded trial suggested ``name``."""
        return name in self._distributions

    def unmodelled(self, name: str) -> str | None:
        """Why the core cannot represent parameter ``name``, or ``None`` if it can."""
        return self._unmodelled.get(name)

    def why_not_modelled(self, name: str, *, group: bool) -> str:
        """Why parameter ``name``, seen but outside the relative search space, is not modelled
        (the end of a sentence "it is outside the relative search space because ...")."""
        unmodelled = self.unmodelled(name)
        if unmodelled is not None:
            return f"the tree cannot represent it ({unmodelled})"
        reason = "its kind, log scale or choices changed between trials"
        if not group:
            reason += " or it is missing from some trials (group=True models such parameters)"
        return reason

    def model_space(self, params: Sequence[str] | None, owner: str) -> dict[str, BaseDistribution]:
        """The parameters to model, by name: ``params`` in that order, or those suggested in
        every finished trial (``None``), sorted by name.

        Raises:
            ValueError: If a name in ``params`` is not modelled or is repeated, or no parameter
                is left (naming ``owner``).
        """
        if params is None:
            space = self.search_space(group=False)
        else:
            available = self.search_space(group=True)
            unknown = [p for p in params if p not in available]
            if unknown or len(set(params)) != len(params):
                raise ValueError(
                    f"{owner} got params={list(params)!r}; it needs distinct names among the "
                    f"modelled parameters {sorted(available)!r}."
                )
            space = {p: available[p] for p in params}
        if not space:
            raise ValueError(
                f"{owner} needs a study with at least one finished trial that suggested a "
                "non-constant parameter."
            )
        return space

    def inconsistent(self, name: str) -> bool:
        """Whether ``name``'s kind, log scale or choices changed between trials."""
        return name in self._inconsistent

    def distribution(self, name: str) -> BaseDistribution | None:
        """The distribution of the last folded trial that used ``name``, if the parameter is
        consistent, non-single and representable by the core, else ``None``."""
        dists = self.distributions(name)
        return dists[0] if dists else None

    def distributions(self, name: str) -> list[BaseDistribution]:
        """The usable distributions of ``name`` (see :meth:`distribution`), the last used first;
        empty if the parameter is not modelled."""
        known = self._distributions.get(name)
        if not known or name in self._inconsistent or name in self._unmodelled:
            return []
        dists = sorted(known, key=lambda d: -known[d])
        return [] if dists[0].single() else dists

    def search_space(self, *, group: bool) -> dict[str, BaseDistribution]:
        """The relative search space, sorted by name.

        Args:
            group:
                ``True``: every consistent, non-single parameter seen so far.  ``False``: only
                those suggested in every folded trial (the intersection search space).
        """
        names = sorted(self._distributions)
        if not group:
            if not self._signatures:
                return {}
            common = frozenset.intersection(*self._signatures)
            names = [n for n in names if n in common]
        space = {}
        for name in names:
            dist = self.distribution(name)
            if dist is not None:
                space[name] = dist
        return space

    def groups(self, names: Iterable[str]) -> list[tuple[list[str], set[str]]]:
        """Decompose ``names`` into groups, most frequent first.

        Returns:
            ``(group, common)`` pairs: ``group`` lists names (sorted) that appear in exactly the
            same folded trials; ``common`` holds every name present in all the trials that
            contain the group (empty for names never folded).  Groups are ordered by their
            number of trials, then by name, so the order never depends on hashing.
        """
        members: dict[frozenset[frozenset[str]], list[str]] = {}
        for name in sorted(set(names)):
            key = frozenset(s for s in self._signatures if name in s)
            members.setdefault(key, []).append(name)
        out: list[tuple[int, list[str], set[str]]] = []
        for key, group in members.items():
            count = sum(self._signatures[s] for s in key)
            common: set[str] = set(frozenset.intersection(*key)) if key else set()
            out.append((count, group, common))
        out.sort(key=lambda item: (-item[0], item[1]))
        return [(group, common) for _, group, common in out]


def conditional_names(groups: list[tuple[list[str], set[str]]], group: list[str]) -> list[str]:
    """The names of the groups conditional on ``group``: those whose trials all contain it.

    Args:
        groups: :meth:`_SpaceTracker.groups` of the free names.
        group: One of them.

    Returns:
        Sorted names, empty when no group depends on ``group`` (it is not a branch).
    """
    members = set(group)
    return sorted(
        name for other, common in groups if other != group and members <= common for name in other
    )
