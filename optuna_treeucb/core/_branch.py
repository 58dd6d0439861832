"""Index of a categorical branch of a conditional space: the choice whose *best* region is best.

A branch's value is the best result its region can give, not the mean of its trials (TreeUCB's
nearly greedy mean on one axis locks onto the branch whose random points are best).  The index
is Thompson sampling on the branch's share of the top trials, as TPE compares a choice's share
among the good trials: the top ``gamma(n) = min(ceil(0.1 n), 25)`` trials are good; an arm with
``k`` good trials among its ``n_a`` draws ``Beta(k + 1, n_a - k + 1)``; the largest draw wins.
``capped`` (the sampler's default) scales an arm's ``k`` and ``n_a`` down to at most
``gamma(n)`` trials, so an arm whose parameters are not yet tuned keeps being drawn.

With many arms (A > ``PRIOR_ARMS``) the prior's good pseudo-count ``a = PRIOR_ARMS / A`` is
shared among them: an arm draws ``Beta(k + a, n_a - k + 1)``, and an arm without trials draws
``Beta(a, 1)`` instead of being tried first.  With Beta(1, 1) for each of 50 arms, the largest
of 49 draws for arms with no good trial beats an arm with good ones most of the time.  Up to
``PRIOR_ARMS`` arms the rule is unchanged.

Notations:
    n: number of trials; A: number of arms.
    arms: arm of each trial, shape (n,), ints in [0, A).
    scores: shape (n,), larger is better (e.g. minus the loss), no NaN.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from optuna_treeucb.core._objectives import objective_rewards
from optuna_treeucb.core._options import as_directions
from optuna_treeucb.core._options import signs

Direction = str | Sequence[str]

GOOD_SHARE = 0.1  # TPE's default gamma(n) = min(ceil(0.1 n), 25)
GOOD_CAP = 25
MAX_SUMMARIES = 64  # cached (branch, context) summaries per chooser, oldest dropped first
MAX_ARMS = 64  # a branch with more combinations of choices is left to its group's tree
PRIOR_ARMS = 4  # up to 4 arms each starts from Beta(1, 1); more arms share one pseudo-count 4


def n_good(n: int) -> int:
    """Number of good trials among ``n`` (TPE's default ``gamma``)."""
    return min(math.ceil(GOOD_SHARE * n), GOOD_CAP)


def _draw(counts: np.ndarray, k: np.ndarray, rng: np.random.Generator, capped: bool) -> np.ndarray:
    """Beta(k + a, n_a - k + 1) per arm with trials (``capped``: scaled down to at most
    ``n_good(n)`` trials), with ``a = min(1, PRIOR_ARMS / A)``; for the others ``+inf`` (up to
    ``PRIOR_ARMS`` arms, or before any trial) or Beta(a, 1); shape (A,)."""
    out = np.full(counts.size, np.inf)
    seen = counts > 0
    if capped:
        scale = np.minimum(1.0, n_good(int(counts.sum())) / np.maximum(counts, 1.0))
        k, counts = k * scale, counts * scale
    a = min(1.0, PRIOR_ARMS / counts.size)
    out[seen] = rng.beta(k[seen] + a, counts[seen] - k[seen] + 1.0)
    if a < 1.0 and seen.any():
        out[~seen] = rng.beta(a, 1.0, size=int(np.count_nonzero(~seen)))
    return out


def _pick(index: np.ndarray, rng: np.random.Generator) -> int:
    best = np.flatnonzero(index == index.max())
    return int(best[rng.integers(best.size)])


def branch_index(
    arms: np.ndarray,
    scores: np.ndarray,
    n_arms: int,
    rng: np.random.Generator,
    capped: bool = False,
) -> np.ndarray:
    """A Thompson draw of every arm's share of good trials (``+inf``: an arm without trials).

    Args:
        arms: Shape (n,), ints in [0, n_arms).
        scores: Shape (n,), larger is better, no NaN.
        n_arms: Number of arms A.
        rng: The draws' generator.
        capped: Cap an arm's evidence at ``n_good(n)`` trials.

    Returns:
        Shape (A,).
    """
    arms = np.asarray(arms, dtype=int)
    scores = np.asarray(scores, dtype=float)
    counts = np.bincount(arms, minlength=n_arms).astype(float)
    good = np.zeros(arms.size, dtype=bool)
    good[np.argsort(-scores, kind="stable")[: n_good(arms.size)]] = True
    k = np.bincount(arms[good], minlength=n_arms).astype(float)
    return _draw(counts, k, rng, capped)


def choose_arm(
    arms: np.ndarray,
    scores: np.ndarray,
    n_arms: int,
    rng: np.random.Generator,
    capped: bool = False,
) -> int:
    """The arm of largest :func:`branch_index`, ties (arms without trials) broken at random."""
    return _pick(branch_index(arms, scores, n_arms, rng, capped), rng)


class BranchStats:
    """:func:`choose_arm` over trials told one at a time, keeping only the ``GOOD_CAP`` best:
    O(log GOOD_CAP) per trial told and O(A) per choice, with :func:`choose_arm`'s answers."""

    def __init__(self, n_arms: int) -> None:
        self.n_arms = n_arms
        self.n = 0
        self.counts = np.zeros(n_arms)
        self._top: list[tuple[float, int, int]] = []  # (-score, order told, arm), sorted

    def tell(self, arm: int, score: float) -> None:
        """Add a trial of ``arm`` (an int in [0, A)) with ``score`` (larger is better)."""
        if not 0 <= arm < self.n_arms:
            raise ValueError(f"arm={arm!r} is outside [0, {self.n_arms}).")
        self.counts[arm] += 1.0
        bisect.insort(self._top, (-float(score), self.n, arm))
        del self._top[GOOD_CAP:]
        self.n += 1

    def choose(self, rng: np.random.Generator, capped: bool = False) -> int:
        """The arm :func:`choose_arm` would choose on the trials told."""
        k = np.zeros(self.n_arms)
        for _, _, arm in self._top[: n_good(self.n)]:
            k[arm] += 1.0
        return _pick(_draw(self.counts, k, rng, capped), rng)


Observation = tuple[int, Any, float]  # (arm, value or values as told, total violation)


def scores(values: Sequence[Any], violations: Sequence[float], direction: Direction) -> np.ndarray:
    """Scores for :func:`choose_arm`, larger is better, shape (n,): the values of one objective
    signed by ``direction``, or the core's rewards with several objectives or a violation."""
    sign = signs(direction)
    Y = np.asarray(values, dtype=float).reshape(len(values), sign.size) * sign
    v = np.asarray(violations, dtype=float)
    if sign.size == 1 and not v.any():
        return Y[:, 0]
    return objective_rewards(Y if sign.size > 1 else Y[:, 0], v)


def arm_index(indices: Sequence[int], sizes: Sequence[int]) -> int:
    """The arm of a combination of choices: ``indices[i]`` in ``[0, sizes[i])``, mixed radix."""
    arm = 0
    for i, size in zip(indices, sizes):
        arm = arm * size + i
    return arm


def arm_choices(arm: int, sizes: Sequence[int]) -> list[int]:
    """The inverse of :func:`arm_index`: each parameter's choice index."""
    out = []
    for size in reversed(sizes):
        out.append(arm % size)
        arm //= size
    return out[::-1]


@dataclass
class _Summary:
    stats: BranchStats
    pos: int = 0  # the observations before this position of the caller's log are folded in
    constrained: bool = False  # one had a violation: read in full from then on


class BranchChooser:
    """Face contract: chooses the categorical values of a conditional space's branch.

    A *branch* is a group of parameters that other groups depend on (e.g. a model choice);
    its categorical parameters are not chosen by a tree, which is nearly greedy on a choice's
    mean, but by :func:`choose_arm` (capped) over the combinations of their choices, from a
    growing log of observations.  :meth:`choose_combination` is what a wrapper calls: it says
    which observations hold which choices, the chooser owns the arms, the scores, the draws'
    seed and the cache.

    One objective without violations: the caller's log is folded in incrementally, per key
    (a branch in a context), in at most ``MAX_SUMMARIES`` summaries, the least recently used
    dropped first.  Several objectives, a violation or a subset of the log: constrained
    domination and Pareto ranks change with every new observation, so the observations are
    read in full.

    Args:
        direction: ``"minimize"`` or ``"maximize"``, or a sequence with one per objective; a
            sequence of one is the same as its string.

    Attributes:
        direction: One direction per objective, a tuple (``("minimize",)`` for both
            ``"minimize"`` and ``["minimize"]``).
    """

    def __init__(self, direction: Direction) -> None:
        self.direction = as_directions(direction, "BranchChooser")
        self._summaries: dict[Hashable, _Summary] = {}

    def choose(
        self,
        key: Hashable,
        n_arms: int,
        read: Callable[[int], Iterable[Observation]],
        end: int,
        rng: np.random.Generator,
        *,
        subset: bool = False,
    ) -> int:
        """The arm to play.

        Args:
            key: The branch and its context (same key: same arms, same observations).
            n_arms: Number of arms A.
            read: ``read(start)`` yields the observations of the caller's log from position
                ``start`` on that hold an arm of this branch in this context.
            end: The log's length now.
            rng: The draws' generator.
            subset: ``read(0)`` shows a subset of the log that is not a prefix (no summary).
        """
        if subset or len(self.direction) > 1:
            return self._in_full(read(0), n_arms, rng)
        summary = self._summaries.pop(key, None) or _Summary(BranchStats(n_arms))
        self._summaries[key] = summary  # most recently used last
        if len(self._summaries) > MAX_SUMMARIES:
            del self._summaries[next(iter(self._summaries))]
        sign = float(signs(self.direction)[0])
        for arm, value, violation in read(summary.pos):
            summary.constrained = summary.constrained or violation > 0.0
            summary.stats.tell(arm, sign * float(value))
        summary.pos = end
        if summary.constrained:
            return self._in_full(read(0), n_arms, rng)
        return summary.stats.choose(rng, capped=True)

    def choose_combination(
        self,
        key: Hashable,
        sizes: Sequence[int],
        read: Callable[[int], Iterable[tuple[Sequence[int], Any, float]]],
        end: int,
        seed: Sequence[int],
        *,
        subset: bool = False,
    ) -> list[int] | None:
        """The choice of each categorical parameter of a branch, or ``None`` when the branch
        has no such parameter or more than ``MAX_ARMS`` combinations (its tree chooses).

        Args:
            key: The branch and its context (same key: same parameters, same observations).
            sizes: The number of choices of each categorical parameter.
            read: ``read(start)`` yields, for the observations of the caller's log from
                position ``start`` on that hold this branch in this context, ``(choices,
                value, violation)``: the index of each parameter's choice, the value(s) as
                told and the total constraint violation (0: feasible).
            end: The log's length now.
            seed: The ints that seed the draw, e.g. ``(seed, trial number, group)``; the
                generator is ``default_rng([*seed, 1])``, apart from the tree's draws.
            subset: ``read(0)`` shows a subset of the log that is not a prefix.

        Returns:
            One index per parameter, in ``[0, sizes[i])``.
        """
        n_arms = math.prod(sizes)
        if not sizes or n_arms > MAX_ARMS:
            return None

        def arms(start: int) -> Iterable[Observation]:
            for choices, value, violation in read(start):
                yield arm_index(choices, sizes), value, violation

        rng = np.random.default_rng([*seed, 1])
        return arm_choices(self.choose(key, n_arms, arms, end, rng, subset=subset), sizes)

    def _in_full(self, rows: Iterable[Observation], n_arms: int, rng: np.random.Generator) -> int:
        arms, values, violations = [], [], []
        for arm, value, violation in rows:
            arms.append(arm)
            values.append(value)
            violations.append(violation)
        y = scores(values, violations, self.direction)
        return choose_arm(np.asarray(arms, dtype=int), y, n_arms, rng, capped=True)
