"""Index of a categorical branch of a conditional space: the choice whose *best* region is best.

A branch (e.g. the model of a pipeline) leads to its own conditional parameters.  Its value is
the best result its region can give, not the mean of its trials: random points of a strong
model with a narrow good region are poor on average.  TreeUCB's index on a one-axis tree is a
nearly greedy mean (``C`` small), which locks onto the branch whose random points are best.

Two rules, on rewards ``r`` (rank rewards of all the trials, larger is better):

* ``"share"`` (Thompson sampling on the share of top trials, as TPE compares a choice's share
  among the good trials): the top ``gamma(n) = min(ceil(0.1 n), 25)`` trials are *good*
  (TPE's default split); an arm with ``k`` good trials among ``n_a`` draws
  ``Beta(k + 1, n_a - k + 1)`` and the largest draw wins.  Its exploration never vanishes: an
  arm whose few trials missed the good set keeps a chance proportional to its posterior.
* ``"quantile"``: the upper ``q`` quantile of the arm's rewards plus
  ``c sqrt(log n / n_a)`` (UCB1's bonus, with a weight that does not vanish).
* ``"ucb"``: the arm's mean reward plus the same bonus (TreeUCB's index on one leaf per
  choice, with a ``C`` that does not vanish).

Notations:
    n: number of trials; A: number of arms.
    arms: arm of each trial, shape (n,), ints in [0, A).
    rewards: shape (n,), values in [0, 1], larger is better.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

BranchRule = Literal["share", "quantile", "ucb"]
GOOD_SHARE = 0.1  # TPE's gamma(n) = min(ceil(0.1 n), 25)
GOOD_CAP = 25
QUANTILE = 0.9
BONUS = 0.3


def n_good(n: int) -> int:
    """Number of good trials among ``n`` (TPE's default ``gamma``)."""
    return min(math.ceil(GOOD_SHARE * n), GOOD_CAP)


def branch_index(
    arms: np.ndarray,
    rewards: np.ndarray,
    n_arms: int,
    rng: np.random.Generator,
    rule: BranchRule = "share",
) -> np.ndarray:
    """Index of every arm, shape (A,); an arm without trials gets ``+inf``.

    Args:
        arms: Shape (n,), ints in [0, n_arms).
        rewards: Shape (n,), values in [0, 1], larger is better.
        n_arms: Number of arms A.
        rng: Draws of the ``"share"`` rule.
        rule: ``"share"`` or ``"quantile"``.

    Returns:
        Shape (A,).
    """
    arms = np.asarray(arms, dtype=int)
    rewards = np.asarray(rewards, dtype=float)
    counts = np.bincount(arms, minlength=n_arms).astype(float)
    out = np.full(n_arms, np.inf)
    seen = counts > 0
    n = arms.size
    if rule == "share":
        good = np.zeros(n, dtype=bool)
        good[np.argsort(-rewards, kind="stable")[: n_good(n)]] = True
        k = np.bincount(arms[good], minlength=n_arms).astype(float)
        out[seen] = rng.beta(k[seen] + 1.0, counts[seen] - k[seen] + 1.0)
        return out
    if rule == "ucb":
        bonus = BONUS * np.sqrt(math.log(max(n, 2)) / np.maximum(counts, 1.0))
        sums = np.bincount(arms, weights=rewards, minlength=n_arms)
        out[seen] = sums[seen] / counts[seen] + bonus[seen]
        return out
    if rule == "quantile":
        bonus = BONUS * np.sqrt(math.log(max(n, 2)) / np.maximum(counts, 1.0))
        for a in np.flatnonzero(seen):
            out[a] = float(np.quantile(rewards[arms == a], QUANTILE)) + bonus[a]
        return out
    raise ValueError(f"The branch rule must be 'share', 'quantile' or 'ucb'. Got {rule!r}.")


def choose_arm(
    arms: np.ndarray,
    rewards: np.ndarray,
    n_arms: int,
    rng: np.random.Generator,
    rule: BranchRule = "share",
) -> int:
    """The arm of largest :func:`branch_index`, ties broken at random."""
    index = branch_index(arms, rewards, n_arms, rng, rule)
    best = np.flatnonzero(index == index.max())
    return int(best[rng.integers(best.size)])
