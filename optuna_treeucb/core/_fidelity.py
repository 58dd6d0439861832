"""Observations stopped early (multi-fidelity): the budget as a context of the tree.

An observation's budget is how far its evaluation went: the step at which a pruner or a
scheduler stopped it, ``inf`` for a full evaluation.  A loss after 1 epoch and a loss after
50 epochs do not compare.  The ``pruned`` option of :class:`~optuna_treeucb.core.TreeUCB`
says what to do about it:

    ``"last_value"``: the budget is ignored; a stopped evaluation counts with its last value
    as if it were final.
    ``"context"``: the budget is a context dimension of Contextual TreeUCB (the paper's
    Section 5): rewards are the values' alone, the tree partitions (x, budget context)
    jointly, and a new point is played at the full budget (context 1).  The context of a
    budget ``b`` is ``log(1 + b) / log(1 + B)`` (1 for ``b >= B`` and for a full evaluation),
    with ``B`` the full budget, see :func:`budget_contexts`.

Both rules rank observations by value alone; the ranks by (budget, value) of TPE and BOHB's
model budget were measured and lost (``benchmarks/results/README.md``).  :class:`BudgetContext`
holds the one piece of state (the ``B`` of the current partition) and the rule of which
budget a complete evaluation has.

Notations:
    n: number of observations.
    budget: budget of each observation, shape (n,), values in [0, inf] (``inf``: full).
"""

from __future__ import annotations

import math
from typing import Any
from typing import Literal

import numpy as np

PrunedRule = Literal["last_value", "context"]


class BudgetContext:
    """The budget as the partition's last column, with ``pruned="context"``.

    While some observation is below the full budget ``B``, the partition has one more
    column, last, the budget's context in [0, 1]; otherwise it has none.  When ``B`` changes
    (a larger budget told, or the first observation below it) every context changes, and
    :meth:`columns` says so: the caller then starts a new partition.

    Args:
        pruned: The ``pruned`` option.
        max_budget: The full budget (``None``: the largest budget told).
    """

    def __init__(self, pruned: PrunedRule, max_budget: float | None) -> None:
        self.pruned = pruned
        self.max_budget = max_budget
        self.B: float | None = None  # the full budget of the current partition, if a column

    @property
    def n_columns(self) -> int:
        """Columns the context adds to the partition: 1 while it is on, else 0."""
        return int(self.B is not None)

    def complete_budget(self, step: float | None) -> float | None:
        """The budget to tell for an evaluation that ran to its end at ``step``.

        With ``"context"`` its step, so that the largest step told sets the full budget
        (``None`` if it reported none); otherwise ``None``, a full evaluation.
        """
        return step if self.pruned == "context" else None

    def columns(self, X: np.ndarray, budgets: np.ndarray) -> tuple[np.ndarray, bool]:
        """The observations as the partition sees them, and whether ``B`` changed.

        Args:
            X: Observations, shape (n, d), values in [0, 1].
            budgets: Their budgets, shape (n,).

        Returns:
            Shape (n, d) or (n, d + 1) (the budget's context last), and whether the contexts
            changed since the last call (a new partition is needed).
        """
        if self.pruned != "context":
            return X, False
        B = full_budget(budgets, self.max_budget)
        changed = B != self.B
        self.B = B
        if B is None:
            return X, changed
        return np.column_stack((X, budget_contexts(budgets, B))), changed

    def at_full(self, P: np.ndarray) -> np.ndarray:
        """Points of the cube as the partition sees them at the full budget (context 1)."""
        if self.B is None:
            return P
        return np.column_stack((P, np.ones(P.shape[0])))

    def played(self, ctx: dict[int, float], d: int) -> dict[int, float]:
        """The context of a new point: ``ctx`` and, while the column is on, the full budget."""
        return ctx if self.B is None else {**ctx, d: 1.0}


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


def as_budgets(budgets: Any, n: int, what: str) -> np.ndarray:
    """Budgets as floats, ``None`` as ``inf``; shape (n,), values in [0, inf]."""
    try:
        items = list(budgets)
    except TypeError:
        raise TypeError(
            f"{what} needs budgets as a sequence of numbers or None. Got {budgets!r}."
        ) from None
    out = np.empty(len(items))
    for i, b in enumerate(items):
        if b is None:
            out[i] = np.inf
        elif isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, float, np.number)):
            raise TypeError(f"{what} needs a budget that is a number or None. Got {b!r}.")
        elif not float(b) >= 0.0:
            raise ValueError(
                f"{what} needs a budget >= 0 (the step reached) or None/inf for a full "
                f"evaluation. Got {b!r}."
            )
        else:
            out[i] = float(b)
    if out.shape != (n,):
        raise ValueError(
            f"{what} needs one budget per value: got {out.shape[0]} budgets for {n} values."
        )
    return out
