"""Index of a categorical branch of a conditional space: the choice whose *best* region is best.

A branch (e.g. the model of a pipeline) leads to its own conditional parameters.  Its value is
the best result its region can give, not the mean of its trials: random points of a strong
model with a narrow good region are poor on average.  TreeUCB's index on a one-axis tree is a
nearly greedy mean (``C`` small), which locks onto the branch whose random points are best.

The index, on scores ``s`` (the trials' values, larger is better; only their order counts),
is Thompson sampling on the branch's share of the top trials, as TPE compares a
choice's share among the good trials: the top ``gamma(n) = min(ceil(0.1 n), 25)`` trials are
*good* (TPE's default split); an arm with ``k`` good trials among its ``n_a`` draws
``Beta(k + 1, n_a - k + 1)`` and the largest draw wins.  Its exploration never vanishes: an arm
whose few trials missed the good set keeps a chance given by its posterior.  As the tree of
the arm's own parameters concentrates on its best region, its share of good trials grows.

Tried and lost on the conditional tuning seeds (``benchmarks/results/
mixed_branch_rules_tuning.md``): the upper 0.9 quantile of the arm's rewards plus
``0.3 sqrt(log n / n_a)``, and the mean plus that bonus (a ``C`` that does not vanish); both
still lock in.

Notations:
    n: number of trials; A: number of arms.
    arms: arm of each trial, shape (n,), ints in [0, A).
    scores: shape (n,), larger is better (e.g. minus the loss), no NaN.
"""

from __future__ import annotations

import math

import numpy as np

GOOD_SHARE = 0.1  # TPE's default gamma(n) = min(ceil(0.1 n), 25)
GOOD_CAP = 25


def n_good(n: int) -> int:
    """Number of good trials among ``n`` (TPE's default ``gamma``)."""
    return min(math.ceil(GOOD_SHARE * n), GOOD_CAP)


def branch_index(
    arms: np.ndarray, scores: np.ndarray, n_arms: int, rng: np.random.Generator
) -> np.ndarray:
    """A Thompson draw of every arm's share of good trials, shape (A,); ``+inf`` for an arm
    without trials.

    Args:
        arms: Shape (n,), ints in [0, n_arms).
        scores: Shape (n,), larger is better, no NaN.
        n_arms: Number of arms A.
        rng: The draws' generator.

    Returns:
        Shape (A,).
    """
    arms = np.asarray(arms, dtype=int)
    scores = np.asarray(scores, dtype=float)
    counts = np.bincount(arms, minlength=n_arms).astype(float)
    out = np.full(n_arms, np.inf)
    seen = counts > 0
    good = np.zeros(arms.size, dtype=bool)
    good[np.argsort(-scores, kind="stable")[: n_good(arms.size)]] = True
    k = np.bincount(arms[good], minlength=n_arms).astype(float)
    out[seen] = rng.beta(k[seen] + 1.0, counts[seen] - k[seen] + 1.0)
    return out


def choose_arm(arms: np.ndarray, scores: np.ndarray, n_arms: int, rng: np.random.Generator) -> int:
    """The arm of largest :func:`branch_index`, ties (arms without trials) broken at random."""
    index = branch_index(arms, scores, n_arms, rng)
    best = np.flatnonzero(index == index.max())
    return int(best[rng.integers(best.size)])
