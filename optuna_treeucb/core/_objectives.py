"""Rewards of constrained and multi-objective observations: pure functions on arrays.

TreeUCB (arXiv:1901.09277) needs one reward in [0, 1] per observation: the mid-rank
``(rank - 0.5) / n`` of its value (:func:`rank_rewards`).  Constraints rank feasible observations
above infeasible ones, which rank by violation (constrained domination, Deb 2000).  Several
objectives rank by Pareto front (NSGA-II, MOTPE), with ties inside a front broken on the
per-objective rank rewards, so rewards are invariant to any strictly increasing transform of each
objective.  With one objective and every observation feasible they are the plain rank rewards.

Conventions: every objective is *maximised* (the core stores ``-value`` for a minimised
direction); a violation is >= 0 and 0 exactly when feasible.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

TieBreak = Literal["hypervolume", "crowding"]
TIE_BREAKS = ("hypervolume", "crowding")
# exact contributions get costly beyond 3 objectives: there the crowding distance is used
HYPERVOLUME_MAX_OBJECTIVES = 3
RESORT_MIN = 64  # new rows beyond which ParetoFronts sorts from scratch


def average_ranks(y: np.ndarray) -> np.ndarray:
    """1-based ranks of ``y`` (n,), ties averaged: ``scipy.stats.rankdata`` bit for bit, (n,)."""
    n = y.shape[0]
    order = np.argsort(y, kind="mergesort")
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = np.arange(n)
    ordered = y[order]
    first = np.concatenate(([True], ordered[1:] != ordered[:-1]))  # first of each tie group
    dense = np.cumsum(first)[inverse]  # 1-based tie-group of each value
    ends = np.concatenate((np.flatnonzero(first), [n]))  # group g spans ends[g-1]+1..ends[g]
    return 0.5 * (ends[dense] + ends[dense - 1] + 1)


def rank_rewards(y: np.ndarray, ranks: np.ndarray | None = None) -> np.ndarray:
    """Rewards in [0, 1] of ``y`` (n,), larger is better: the mid-ranks ``(rank - 1/2) / n``,
    invariant to any increasing transform of ``y``.  ``ranks``: ``average_ranks(y)`` if known."""
    n = y.shape[0]
    if n == 0:
        return np.zeros(0)
    return ((average_ranks(y) if ranks is None else ranks) - 0.5) / n


def _shape_error(func: str, name: str, expected: str, got: tuple[int, ...]) -> ValueError:
    return ValueError(
        f"The '{name}' parameter of {func} must have shape {expected}. Got shape {got} instead."
    )


def _matrix(func: str, values: np.ndarray, name: str = "values", k: str = "k") -> np.ndarray:
    Y = np.asarray(values, dtype=float)
    if Y.ndim != 2 or Y.shape[1] < 1:
        raise _shape_error(func, name, f"(n, {k}) with {k} >= 1", Y.shape)
    if np.isnan(Y).any():
        raise ValueError(f"The '{name}' parameter of {func} must not contain NaN.")
    return Y


def _check_violation(func: str, violation: np.ndarray | None, n: int) -> np.ndarray | None:
    if violation is None:
        return None
    v = np.asarray(violation, dtype=float)
    if v.shape != (n,):
        raise _shape_error(func, "violation", f"(n,) = ({n},), one per observation", v.shape)
    if np.isnan(v).any() or (v < 0).any():
        raise ValueError(
            f"The 'violation' parameter of {func} must hold values >= 0 (no NaN); "
            "use total_violation(constraints) to compute it."
        )
    return v


def total_violation(constraints: np.ndarray) -> np.ndarray:
    """Total violation of each observation, shape (n,): the sum of the positive parts of the
    ``constraints``, shape (n, c), no NaN (satisfied when <= 0, as Optuna's)."""
    c = _matrix("total_violation", constraints, "constraints", "c")
    return np.sum(np.maximum(c, 0.0), axis=1)


def _lex_average_ranks(primary: np.ndarray, secondary: np.ndarray) -> np.ndarray:
    """1-based average ranks of the pairs ``(primary, secondary)`` in lexicographic order."""
    n = primary.shape[0]
    order = np.lexsort((secondary, primary))
    p, s = primary[order], secondary[order]
    first = np.concatenate(([True], (p[1:] != p[:-1]) | (s[1:] != s[:-1])))
    dense = np.empty(n)
    dense[order] = np.cumsum(first)
    return average_ranks(dense)


def _with_constraints(ranks_feasible: np.ndarray, violation: np.ndarray | None) -> np.ndarray:
    """Rewards in [0, 1]: infeasible observations take ranks ``1..n_i`` by violation (largest
    lowest), feasible ones ``n_i +`` their rank among themselves (``ranks_feasible``)."""
    if violation is None or not violation.any():
        n = ranks_feasible.shape[0]
        return (ranks_feasible - 0.5) / n if n else np.zeros(0)
    n = violation.shape[0]
    feasible = violation == 0.0
    ranks = np.empty(n)
    ranks[~feasible] = average_ranks(-violation[~feasible])
    ranks[feasible] = np.count_nonzero(~feasible) + ranks_feasible
    return (ranks - 0.5) / n


def constrained_rewards(y: np.ndarray, violation: np.ndarray | None = None) -> np.ndarray:
    """Rewards of one objective under constrained domination, shape (n,), values in [0, 1].

    Feasible observations (violation 0) rank above infeasible ones, which rank by violation,
    the smallest highest; ties share their average rank.  With every observation feasible the
    result is ``rank_rewards(y)``.

    Args:
        y: Objective values, larger is better, shape (n,), no NaN (``±inf`` allowed).
        violation: Total violations (:func:`total_violation`), shape (n,), values >= 0.

    Raises:
        ValueError: A shape does not match, or a value is NaN or a violation negative.
    """
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        raise _shape_error("constrained_rewards", "y", "(n,)", y.shape)
    if np.isnan(y).any():
        raise ValueError("The 'y' parameter of constrained_rewards must not contain NaN.")
    v = _check_violation("constrained_rewards", violation, y.shape[0])
    if v is None or not v.any():
        return rank_rewards(y)  # today's rewards, bit for bit
    feasible = v == 0.0
    return _with_constraints(average_ranks(y[feasible]), v)


def pareto_ranks(values: np.ndarray) -> np.ndarray:
    """Non-dominated sorting (Deb et al. 2002) of ``values`` (n, k): each one's front, (n,).

    Front 0 is the non-dominated one; equal vectors share their front.
    """
    Y = _matrix("pareto_ranks", values)
    n = Y.shape[0]
    ge = np.ones((n, n), dtype=bool)
    gt = np.zeros((n, n), dtype=bool)
    for j in range(Y.shape[1]):
        col = Y[:, j]
        ge &= col[:, None] >= col[None, :]
        gt |= col[:, None] > col[None, :]
    dominates = ge & gt  # dominates[a, b]: a dominates b
    n_dominating = dominates.sum(axis=0)
    fronts = np.full(n, -1)
    front = 0
    current = np.flatnonzero(n_dominating == 0)
    while current.size:
        fronts[current] = front
        n_dominating = n_dominating - dominates[current].sum(axis=0)
        n_dominating[fronts >= 0] = -1
        current = np.flatnonzero(n_dominating == 0)
        front += 1
    assert (fronts >= 0).all()
    return fronts


def _dominated_by(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """Whether each row of ``Q`` (q, k) is dominated by some row of ``P`` (p, k), (q,)."""
    ge = np.all(P[:, None, :] >= Q[None, :, :], axis=2)
    gt = np.any(P[:, None, :] > Q[None, :, :], axis=2)
    out: np.ndarray = (ge & gt).any(axis=0)
    return out


class ParetoFronts:
    """:func:`pareto_ranks` of rows appended one at a time, kept up to date.

    A new row joins the first front none of whose members dominates it (found by bisection:
    a row dominated in front ``i`` is dominated in every earlier one); the members it
    dominates move one front down, and so on down the fronts (Li et al., "Efficient
    non-domination level update approach for steady-state evolutionary multiobjective
    optimization", 2014).  Many rows at once are sorted from scratch instead.
    """

    def __init__(self, k: int) -> None:
        self.Y = np.zeros((0, k))
        self.fronts = np.zeros(0, dtype=np.intp)  # front of each row, shape (n,)
        self._members: list[list[int]] = []  # rows of each front

    def extend(self, Y: np.ndarray) -> np.ndarray:
        """Append the rows ``Y`` (m, k) and return every row's front, shape (n,) (a view)."""
        if Y.shape[0] > RESORT_MIN and Y.shape[0] > self.Y.shape[0]:  # from scratch
            self.Y = np.concatenate((self.Y, Y))
            self.fronts = pareto_ranks(self.Y)
            self._members = [[] for _ in range(int(self.fronts.max(initial=-1)) + 1)]
            for i, f in enumerate(self.fronts.tolist()):
                self._members[f].append(i)
            return self.fronts
        self.Y = np.concatenate((self.Y, Y))
        self.fronts = np.concatenate((self.fronts, np.zeros(Y.shape[0], dtype=np.intp)))
        for i in range(self.Y.shape[0] - Y.shape[0], self.Y.shape[0]):
            self._insert(i)
        return self.fronts

    def _insert(self, i: int) -> None:
        y = self.Y[i : i + 1]
        lo, hi = 0, len(self._members)  # the first front that does not dominate y
        while lo < hi:
            mid = (lo + hi) // 2
            if _dominated_by(self.Y[self._members[mid]], y)[0]:
                lo = mid + 1
            else:
                hi = mid
        moved, f = [i], lo
        while moved:
            if f == len(self._members):
                self._members.append([])
            members = self._members[f]
            down = []
            if members:
                hit = _dominated_by(self.Y[moved], self.Y[members])
                down = [m for m, h in zip(members, hit.tolist(), strict=True) if h]
                if down:
                    self._members[f] = [m for m, h in zip(members, hit.tolist()) if not h]
            self._members[f].extend(moved)
            self.fronts[moved] = f
            moved, f = down, f + 1


def hypervolume_contributions(points: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Exclusive hypervolume contribution of each point (moocore), shape (m,).

    ``points`` (m, k) are finite, distinct and non-dominated; ``reference`` (k,) is below all.
    """
    import moocore  # imported where first needed: most studies have one objective

    return np.asarray(moocore.hv_contributions(points, ref=reference, maximise=True), dtype=float)


def dominated(points: np.ndarray, front: np.ndarray) -> np.ndarray:
    """Whether each row of ``points`` (m, k) is weakly dominated by a row of ``front`` (p, k)
    (no better in every objective; larger is better), shape (m,)."""
    out: np.ndarray = np.all(front[None, :, :] >= points[:, None, :], axis=2).any(axis=1)
    return out


def hypervolume_improvements(
    points: np.ndarray, front: np.ndarray, reference: np.ndarray
) -> np.ndarray:
    """The hypervolume each row of ``points`` (m, k) would add to ``front`` (p, k) above
    ``reference`` (k,), larger is better, shape (m,): ``vol([r, y])`` minus the part of that
    box the front already dominates, ``HV({min(y, f)})`` (moocore); 0 for a dominated point."""
    m = points.shape[0]
    out = np.zeros(m)
    live = np.all(points > reference, axis=1)
    if front.shape[0]:
        front = front[np.all(front > reference, axis=1)]
    if front.shape[0]:
        live &= ~dominated(points, front)
    if not live.any():
        return out
    boxes = np.prod(points[live] - reference, axis=1)
    if front.shape[0] == 0:
        out[live] = boxes
        return out
    import moocore  # imported where first needed: most studies have one objective

    covered = [
        moocore.hypervolume(np.minimum(front, y), ref=reference, maximise=True)
        for y in points[live]
    ]
    out[live] = np.maximum(boxes - np.asarray(covered, dtype=float), 0.0)
    return out


def domination_gaps(points: np.ndarray, front: np.ndarray) -> np.ndarray:
    """How much every objective of each row of ``points`` (m, k) must rise for no row of
    ``front`` (p >= 1, k) to dominate it, larger is worse: ``max_f min_j (f_j - y_j)``, (m,)
    (<= 0 for a point the front does not dominate)."""
    out: np.ndarray = np.max(np.min(front[None, :, :] - points[:, None, :], axis=2), axis=1)
    return out


def crowding_distances(points: np.ndarray) -> np.ndarray:
    """NSGA-II's crowding distance of each of distinct finite ``points`` (m, k), shape (m,)."""
    m, k = points.shape
    out = np.zeros(m)
    if m <= 2:
        return np.full(m, np.inf)
    for j in range(k):
        order = np.argsort(points[:, j], kind="mergesort")
        col = points[order, j]
        span = col[-1] - col[0]
        out[order[[0, -1]]] = np.inf
        if span > 0:
            out[order[1:-1]] += (col[2:] - col[:-2]) / span
    return out


def _front_tie_break(R: np.ndarray, tie_break: TieBreak) -> np.ndarray:
    """Tie-break of the points of one front (larger is better); equal rows share it."""
    # the distinct rows in lexicographic order: np.unique(R, axis=0) without its overhead
    order = np.lexsort(R.T[::-1])
    rows = R[order]
    new = np.ones(R.shape[0], dtype=bool)
    new[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    inverse = np.empty(R.shape[0], dtype=int)
    inverse[order] = np.cumsum(new) - 1
    if tie_break == "hypervolume" and R.shape[1] <= HYPERVOLUME_MAX_OBJECTIVES:
        scores = hypervolume_contributions(rows[new], np.zeros(R.shape[1]))
    else:
        scores = crowding_distances(rows[new])
    return scores[inverse]


def _pareto_average_ranks(
    Y: np.ndarray, tie_break: TieBreak, fronts: np.ndarray | None = None
) -> np.ndarray:
    """1-based average ranks by (front, tie-break within the front), shape (n,); ``fronts``:
    ``pareto_ranks(Y)`` if known (the ranks below order as ``Y`` does)."""
    if Y.shape[0] == 0:
        return np.zeros(0)
    R = np.column_stack([rank_rewards(Y[:, j]) for j in range(Y.shape[1])])  # ±inf: finite
    fronts = pareto_ranks(R) if fronts is None else fronts
    within = np.empty(Y.shape[0])
    order = np.argsort(fronts, kind="stable")
    ends = np.flatnonzero(np.diff(fronts[order])) + 1
    for members in np.split(order, ends):
        within[members] = _front_tie_break(R[members], tie_break)
    return _lex_average_ranks(-fronts.astype(float), within)


def pareto_rewards(
    values: np.ndarray,
    violation: np.ndarray | None = None,
    *,
    tie_break: TieBreak = "hypervolume",
    fronts: np.ndarray | None = None,
) -> np.ndarray:
    """Rewards of several objectives by Pareto front, shape (n,), values in [0, 1].

    Constrained domination first (:func:`constrained_rewards`), then a better front ranks
    higher, and inside a front ``tie_break`` on the per-objective rank rewards (reference
    point 0) decides: ``"hypervolume"`` (MOTPE's; crowding beyond
    :data:`HYPERVOLUME_MAX_OBJECTIVES` objectives) or ``"crowding"`` (NSGA-II's).  Equal
    vectors share their reward.

    Args:
        values: Objective values, larger is better, shape (n, k), no NaN.
        violation: Total violations (:func:`total_violation`), shape (n,), values >= 0.
        tie_break: ``"hypervolume"`` or ``"crowding"``.
        fronts: :func:`pareto_ranks` of the feasible rows, if known (:class:`ParetoFronts`).

    Raises:
        ValueError: A shape does not match, a value is NaN, a violation negative, or
            ``tie_break`` unknown.
    """
    if tie_break not in TIE_BREAKS:
        raise ValueError(
            "The 'tie_break' parameter of pareto_rewards must be 'hypervolume' or 'crowding'. "
            f"Got {tie_break!r} instead."
        )
    Y = _matrix("pareto_rewards", values)
    v = _check_violation("pareto_rewards", violation, Y.shape[0])
    if Y.shape[1] == 1:
        return constrained_rewards(Y[:, 0], v)
    feasible = np.ones(Y.shape[0], dtype=bool) if v is None else v == 0.0
    return _with_constraints(_pareto_average_ranks(Y[feasible], tie_break, fronts), v)


def objective_rewards(
    values: np.ndarray,
    violation: np.ndarray | None = None,
    *,
    tie_break: TieBreak = "hypervolume",
    fronts: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`constrained_rewards` for values of shape (n,), else :func:`pareto_rewards`."""
    Y = np.asarray(values, dtype=float)
    if Y.ndim == 1:
        return constrained_rewards(Y, violation)
    return pareto_rewards(Y, violation, tie_break=tie_break, fronts=fronts)


def progress(values: np.ndarray, violation: np.ndarray | None = None) -> np.ndarray:
    """What the trust region's success counter reads for ``values`` (n, k), shape (n,).

    Its running maximum grows exactly at a new best feasible observation: ``-inf`` for an
    infeasible one; with one objective the value; with several the number of feasible
    observations so far that no earlier feasible one weakly dominates (MORBO's success).
    """
    Y = _matrix("progress", values)
    v = _check_violation("progress", violation, Y.shape[0])
    feasible = np.ones(Y.shape[0], dtype=bool) if v is None else v == 0.0
    if Y.shape[1] > 1:
        return progress_of(improvements(Y, feasible), feasible)
    out = Y[:, 0].copy()
    out[~feasible] = -np.inf
    return out


def improvements(Y: np.ndarray, feasible: np.ndarray, start: int = 0) -> np.ndarray:
    """Whether each observation from ``start`` on is feasible and weakly dominated by no
    earlier feasible one, shape (n - start,)."""
    n = Y.shape[0]
    new = Y[start:]
    ge = np.ones((n, new.shape[0]), dtype=bool)  # ge[j, i]: j >= start + i in every objective
    for j in range(Y.shape[1]):
        ge &= Y[:, None, j] >= new[None, :, j]
    earlier = np.arange(n)[:, None] < np.arange(start, n)[None, :]  # j < start + i
    return feasible[start:] & ~(ge & earlier & feasible[:, None]).any(axis=0)


def progress_of(improved: np.ndarray, feasible: np.ndarray) -> np.ndarray:
    """:func:`progress` with several objectives from :func:`improvements` of every row."""
    out = np.cumsum(improved).astype(float)
    out[~feasible] = -np.inf
    return out


def best_feasible(y: np.ndarray, violation: np.ndarray | None = None) -> int:
    """Index of SCBO's centre: the first best feasible ``y`` (n,), n >= 1, else the first
    smallest ``violation`` (n,)."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or y.shape[0] == 0:
        raise _shape_error("best_feasible", "y", "(n,) with n >= 1", y.shape)
    v = _check_violation("best_feasible", violation, y.shape[0])
    if v is not None and v.all():
        return int(np.argmin(v))
    candidates = np.flatnonzero(np.ones(y.shape[0], dtype=bool) if v is None else v == 0.0)
    return int(candidates[np.argmax(y[candidates])])


def front_indices(values: np.ndarray, violation: np.ndarray | None = None) -> np.ndarray:
    """Increasing indices of MORBO's candidate centres among ``values`` (n, k): the
    non-dominated feasible ones, else those of the smallest ``violation`` (n,)."""
    Y = _matrix("front_indices", values)
    v = _check_violation("front_indices", violation, Y.shape[0])
    if Y.shape[0] == 0:
        return np.zeros(0, dtype=np.intp)
    if v is not None and v.all():
        return np.flatnonzero(v == v.min())
    feasible = np.flatnonzero(np.ones(Y.shape[0], dtype=bool) if v is None else v == 0.0)
    return feasible[pareto_ranks(Y[feasible]) == 0]
