"""Rewards of observations made at different budgets (multi-fidelity), pure functions on arrays.

An observation's budget is how far its evaluation went: the step at which a pruner or a
scheduler stopped it, ``inf`` for a full evaluation.  A loss after 1 epoch and a loss after 50
epochs do not compare, so the rules below decide which observation counts as better when
their budgets differ.  Every rule gives exactly :func:`normalize_rewards` of the values when
all budgets are equal (in particular when nothing was stopped early).

Notations:
    n: number of observations.
    y: objective values, larger is better, shape (n,), no NaN.
    budget: budget of each observation, shape (n,), values in [0, inf] (``inf``: full).
    r: rewards, shape (n,), values in [0, 1], larger is better.

Rules (the ``pruned`` option of :class:`~optuna_treeucb.core.TreeUCB`):
    ``"last_value"``: the budget is ignored; a stopped evaluation counts with its last value
    as if it were final.
    ``"tpe"``: observations are ordered by (budget, value): one that went further counts as
    better, whatever its value; equal budgets are ordered by value (Optuna's TPESampler since
    "Make TPESampler pruning aware").
    ``"bohb"``: ``b*`` is the largest budget reached by at least ``n_min`` observations (those
    with a budget >= ``b*``); those observations, the model's own budget as in BOHB (Falkner,
    Klein and Hutter, 2018), are ordered by value alone, above every other one; the
    observations stopped below ``b*`` fill in below them, ordered by (budget, value).  With
    ``n_min`` or more full evaluations this is ``"tpe"``; before, the evaluations that reached
    ``b*`` compete by value with the full ones.
    ``"context"``: the budget is a context dimension of Contextual TreeUCB (the paper's
    Section 5): rewards are the values' alone, the tree partitions (x, budget context)
    jointly, and a new point is played at the full budget (context 1).  The context of a
    budget ``b`` is ``log(1 + b) / log(1 + B)`` (1 for ``b >= B`` and for a full evaluation),
    with ``B`` the full budget, see :func:`budget_contexts`.

Rewards are the order's mid-ranks for ``kind="rank"``.  For ``kind="minmax"`` the observations
of each group of equal rank key (budget, or the merged group of ``"bohb"``) share a band of
[0, 1] whose width is their share of the observations, in the group order, and are min-max
scaled inside it; with ``kind="rank"`` the same bands with mid-ranks inside give the global
mid-ranks.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from optuna_treeucb.core._index import RewardKind
from optuna_treeucb.core._index import normalize_rewards

PrunedRule = Literal["last_value", "tpe", "bohb", "context"]


def bohb_budget(budget: np.ndarray, n_min: int) -> float:
    """``b*``: the largest budget reached by at least ``n_min`` observations.

    Args:
        budget: Shape (n,), values in [0, inf].
        n_min: Number of observations the model's budget needs, >= 1.

    Returns:
        ``b*``; the smallest budget if no budget is reached by ``n_min`` observations (every
        observation reaches the smallest one), ``inf`` for no observation.
    """
    b = np.sort(np.asarray(budget, dtype=float))[::-1]  # largest first
    if b.size == 0:
        return float("inf")
    return float(b[min(n_min, b.size) - 1])


def budget_groups(budget: np.ndarray, rule: PrunedRule, n_min: int) -> np.ndarray:
    """The rank key of each observation's budget: its group, larger is better.

    Args:
        budget: Shape (n,), values in [0, inf].
        rule: ``"last_value"``, ``"tpe"``, ``"bohb"`` or ``"context"``.
        n_min: ``"bohb"``: observations the model's budget needs.

    Returns:
        Shape (n,): ``0`` everywhere for ``"last_value"`` and ``"context"`` (whose budgets go
        into the partition, not the rewards), the budget for ``"tpe"``, the budget capped at
        ``b*`` for ``"bohb"``.
    """
    budget = np.asarray(budget, dtype=float)
    if rule in ("last_value", "context"):
        return np.zeros(budget.shape)
    if rule == "tpe":
        return budget
    if rule == "bohb":
        return np.minimum(budget, bohb_budget(budget, n_min))
    raise ValueError(
        f"The 'pruned' rule must be 'last_value', 'tpe', 'bohb' or 'context'. Got {rule!r}."
    )


def budget_rewards(
    y: np.ndarray,
    budget: np.ndarray,
    kind: RewardKind = "rank",
    rule: PrunedRule = "tpe",
    n_min: int = 1,
) -> np.ndarray:
    """Rewards in [0, 1] of observations with budgets (see the module docstring).

    Args:
        y: Shape (n,), larger is better, no NaN.
        budget: Shape (n,), values in [0, inf] (``inf``: a full evaluation).
        kind: ``"rank"`` or ``"minmax"`` (see :func:`normalize_rewards`).
        rule: ``"last_value"``, ``"tpe"``, ``"bohb"`` or ``"context"``.
        n_min: ``"bohb"``: observations the model's budget needs, >= 1.

    Returns:
        Shape (n,), values in [0, 1].
    """
    y = np.asarray(y, dtype=float)
    groups = budget_groups(budget, rule, n_min)
    levels, inverse = np.unique(groups, return_inverse=True)
    if levels.size <= 1:  # one budget: exactly the rewards without budgets
        return normalize_rewards(y, kind)
    n = y.shape[0]
    r = np.empty(n)
    counts = np.bincount(inverse, minlength=levels.size)
    offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
    for g in range(levels.size):  # the band of group g: [offset, offset + count] / n
        members = inverse == g
        r[members] = (offsets[g] + counts[g] * normalize_rewards(y[members], kind)) / n
    return r


def full_budget(budget: np.ndarray, max_budget: float | None) -> float | None:
    """``B``, the full budget of ``"context"``, if some observation is below it, else ``None``.

    Args:
        budget: Shape (n,), values in [0, inf] (``inf``: a full evaluation).
        max_budget: The full budget given by the user (e.g. the pruner's ``max_resource``);
            ``None``: the largest finite budget told.

    Returns:
        ``B``, or ``None`` when every observation is at the full budget (or above it, or
        full): the budgets then carry nothing and the partition has no context column.
    """
    b = np.asarray(budget, dtype=float)
    finite = b[np.isfinite(b)]
    if finite.size == 0:
        return None
    B = float(finite.max()) if max_budget is None else float(max_budget)
    return B if bool(np.any(finite < B)) else None


def budget_contexts(budget: np.ndarray, B: float) -> np.ndarray:
    """The context coordinate of each budget: ``log(1 + b) / log(1 + B)``, capped at 1.

    A log scale, so that the rungs of Hyperband and ASHA (1, 3, 9, 27 steps) are evenly spaced.

    Args:
        budget: Shape (n,), values in [0, inf] (``inf``: a full evaluation, context 1).
        B: The full budget, > 0.

    Returns:
        Shape (n,), values in [0, 1].
    """
    b = np.minimum(np.asarray(budget, dtype=float), B)
    return np.log1p(b) / math.log1p(B)
