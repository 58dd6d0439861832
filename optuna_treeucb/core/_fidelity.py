"""Observations stopped early (multi-fidelity): the budget as a context of the tree.

With ``pruned="last_value"`` a stopped evaluation counts with its last value as if final.  With
``pruned="context"`` its budget ``b`` is a context column of Contextual TreeUCB (the paper's
Section 5), ``log(1 + b) / log(1 + B)`` for the full budget ``B``, and new points are played at
the full budget (context 1).

Notations:
    n: number of observations.
    budget: budget of each observation, shape (n,), values in [0, inf] (``inf``: full).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from optuna_treeucb.core._options import PrunedRule
from optuna_treeucb.core._space import as_reals


class BudgetContext:
    """The budget as the partition's last column, with ``pruned="context"``, while some
    observation is below the full budget ``B`` (``max_budget``, else the largest told)."""

    def __init__(self, pruned: PrunedRule, max_budget: float | None) -> None:
        self.pruned = pruned
        self.max_budget = max_budget
        self.B: float | None = None  # the full budget of the current partition, if a column

    @property
    def n_columns(self) -> int:
        """Columns the context adds to the partition: 1 while it is on, else 0."""
        return int(self.B is not None)

    def columns(self, X: np.ndarray, budgets: np.ndarray) -> tuple[np.ndarray, bool]:
        """The observations ``X`` (n, d) as the partition sees them, (n, d) or (n, d + 1) with
        the budget's context last, and whether the contexts changed (a new partition)."""
        if self.pruned != "context":
            return X, False
        B = full_budget(budgets, self.max_budget)
        changed, self.B = B != self.B, B
        if B is None:
            return X, changed
        return np.column_stack((X, budget_contexts(budgets, B))), changed

    def at_full(self, P: np.ndarray) -> np.ndarray:
        """Points of the cube as the partition sees them at the full budget (context 1)."""
        return P if self.B is None else np.column_stack((P, np.ones(P.shape[0])))

    def played(self, ctx: dict[int, float], d: int) -> dict[int, float]:
        """The context of a new point: ``ctx`` and, while the column is on, the full budget."""
        return ctx if self.B is None else {**ctx, d: 1.0}


def full_budget(budget: np.ndarray, max_budget: float | None) -> float | None:
    """``B``, the full budget of ``"context"`` (``max_budget``, else the largest finite
    budget told), if some observation is below it; else ``None``: no context column."""
    b = np.asarray(budget, dtype=float)
    finite = b[np.isfinite(b)]
    if finite.size == 0:
        return None
    B = float(finite.max()) if max_budget is None else float(max_budget)
    return B if bool(np.any(finite < B)) else None


def budget_contexts(budget: np.ndarray, B: float) -> np.ndarray:
    """The context of each budget, ``log(1 + b) / log(1 + B)`` capped at 1, shape (n,) (the
    rungs of Hyperband and ASHA evenly spaced)."""
    b = np.minimum(np.asarray(budget, dtype=float), B)
    return np.log1p(b) / math.log1p(B)


def as_budgets(budgets: Any, n: int, owner: str, name: str) -> np.ndarray:
    """Budgets as floats, ``None`` as ``inf``; shape (n,), values in [0, inf].

    ``name`` is ``"budget"`` for :meth:`TreeUCB.tell`, which passes ``[budget]``.
    """
    allowed = "a real number >= 0 (the step reached), or None or inf (a full evaluation)"
    if name != "budget":
        allowed = "a sequence with, per value, " + allowed.replace(", or", " or")
    shown = budgets[0] if name == "budget" else budgets
    out = as_reals(budgets, name, owner, allowed, lambda b: b >= 0, none=np.inf, shown=shown)
    if out.shape != (n,):
        raise ValueError(
            f"The {name!r} parameter of {owner} must be {allowed}. Got {out.size} budgets "
            f"for {n} values instead."
        )
    return out
