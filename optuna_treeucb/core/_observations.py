"""What TreeUCB was told: observations (values, rewards by rank, budgets, best) and pending points.

:class:`Observations` stores each observation once and derives what the other parts read:
the rewards of the tree and the index (:meth:`~Observations.rewards`), the local GP's targets
(:meth:`~Observations.targets`) and the best.  They are the seam for richer observations:
storing several objectives or a constraint violation (issue #24) changes ``append``,
``rewards`` and ``targets``; every other part sees rewards in [0, 1] and targets, larger is
better.  :class:`Pending` is the multiset of points asked and not yet told.

Notations:
    n: observations; d: columns of the cube; p: pending points; L: boxes.
    X: observed points, shape (n, d), values in [0, 1].
    y: values as the model sees them, larger is better, shape (n,).
    r: rewards, shape (n,), values in [0, 1].
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

import numpy as np

from optuna_treeucb.core._localgp import in_cells
from optuna_treeucb.core._localgp import unit_scale
from optuna_treeucb.core._space import UnitCube

if TYPE_CHECKING:
    from optuna_treeucb.core._partition import Partition

_logger = logging.getLogger("optuna_treeucb.core._treeucb")  # the facade's, as before
RANK_UPDATE_MAX = 64  # new values beyond which a full ranking is cheaper than updating
PENDING_TOL = 1e-9  # a told float coordinate this close to a pending one is the same value


def average_ranks(y: np.ndarray) -> np.ndarray:
    """1-based ranks of ``y`` (n,), ties sharing their average rank, shape (n,).

    ``scipy.stats.rankdata(y, method="average")`` bit for bit, without its input handling,
    which costs about 0.2 ms per call: the ranks are taken at every ask.
    """
    n = y.shape[0]
    order = np.argsort(y, kind="mergesort")
    inverse = np.empty(n, dtype=np.intp)
    inverse[order] = np.arange(n)
    ordered = y[order]
    first = np.concatenate(([True], ordered[1:] != ordered[:-1]))  # first of each tie group
    dense = np.cumsum(first)[inverse]  # 1-based tie-group of each value
    ends = np.concatenate((np.flatnonzero(first), [n]))  # group g spans ends[g-1]+1..ends[g]
    out: np.ndarray = 0.5 * (ends[dense] + ends[dense - 1] + 1)
    return out


def update_average_ranks(ranks: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`average_ranks` of ``y`` from those of its first ``k = ranks.size`` values.

    Appending ``v`` raises the ranks above it by 1 and those equal to it by 1/2; ``v`` takes
    ``#{y < v} + (#{y == v} + 2) / 2``.  Half-integers are exact in floating point, so this
    is ``average_ranks(y)`` bit for bit at O(n) per value (beyond :data:`RANK_UPDATE_MAX`
    new values it sorts).
    """
    k, n = ranks.shape[0], y.shape[0]
    if k == 0 or n - k > RANK_UPDATE_MAX:
        return average_ranks(y)
    out = np.empty(n)
    out[:k] = ranks
    for i in range(k, n):
        v, old = y[i], y[:i]
        above, equal = old > v, old == v
        out[:i] += above + 0.5 * equal
        out[i] = (i - np.count_nonzero(above) - np.count_nonzero(equal)) + (
            np.count_nonzero(equal) + 2
        ) / 2
    return out


def rank_rewards(y: np.ndarray, ranks: np.ndarray | None = None) -> np.ndarray:
    """Rewards in [0, 1] of ``y`` (larger is better): the mid-ranks ``(rank - 1/2) / n``.

    Invariant to any strictly increasing transform of the objective, so a log-scaled loss and
    the loss itself give the same run, and ``±inf`` values rank first or last.  ``ranks``:
    ``average_ranks(y)`` if already known.
    """
    n = y.shape[0]
    if n == 0:
        return np.zeros(0)
    return ((average_ranks(y) if ranks is None else ranks) - 0.5) / n


def as_points(d: int, X: Any, what: str, *, one: bool = False) -> np.ndarray:
    """``X`` as points of shape (n, d) in [0, 1] (``one``: a point of shape (d,), as (1, d)).

    Raises:
        ValueError: Naming ``what``, the expected and the received shape, or the range.
    """
    arr = np.asarray(X, dtype=float)
    if one and arr.shape == (d,):
        arr = arr[None]
    elif one:
        raise ValueError(f"{what} needs a point of shape ({d},). Got shape {arr.shape}.")
    elif arr.shape == (0,):
        arr = arr.reshape(0, d)
    elif arr.ndim != 2 or arr.shape[1] != d:
        raise ValueError(
            f"{what} needs points of shape (n, {d}), one row per point. Got shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0.0) or np.any(arr > 1.0):
        raise ValueError(f"{what} needs coordinates in [0, 1].")
    return arr


def repeats(P: np.ndarray, obs: Observations, pending: Pending) -> np.ndarray:
    """Whether each point of ``P`` (p, d or more columns) decodes to an observed or pending
    point (the same value cells), shape (p,)."""
    d = obs.space.dim
    out = in_cells(P[:, :d], *obs.cells())
    if len(pending):
        out |= in_cells(P[:, :d], *obs.space.value_cells(pending.points))
    return out


class Observations:
    """The told observations of ``space``, in the order told (buffers grow geometrically);
    the values are stored so that larger is better, whatever the ``direction``."""

    def __init__(self, space: UnitCube, direction: Literal["maximize", "minimize"]) -> None:
        self.space = space
        self.sign = 1.0 if direction == "maximize" else -1.0
        d = space.dim
        self._X = np.zeros((16, d))
        self._y = np.zeros(16)  # internal values: larger is better
        self._b = np.full(16, np.inf)  # budgets: the step reached, inf for a full evaluation
        self.n = 0
        self._told: dict[int, dict[str, Any]] = {}  # observation -> parameters as told
        self._ranks = np.zeros(0)  # average ranks of the values, kept up to date
        self._cells: tuple[np.ndarray, np.ndarray, int] = (np.zeros((0, d)), np.zeros((0, d)), 0)

    @property
    def X(self) -> np.ndarray:
        """Observed points, shape (n, d), values in [0, 1] (a view)."""
        return self._X[: self.n]

    @property
    def y(self) -> np.ndarray:
        """Values as the model sees them, larger is better, shape (n,) (a view)."""
        return self._y[: self.n]

    @property
    def budgets(self) -> np.ndarray:
        """Budget of each observation (``inf``: a full evaluation), shape (n,) (a view)."""
        return self._b[: self.n]

    @property
    def values(self) -> np.ndarray:
        """Values as told, shape (n,) (a copy)."""
        return self.sign * self.y

    def append(
        self,
        X: np.ndarray,
        values: np.ndarray,
        budgets: np.ndarray,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        """Store observations: points (k, d), told values (k,), budgets (k,).

        NaN values are dropped with a warning.  ``params``: for one observation, the
        parameters as told (:meth:`best_params` returns them exactly).
        """
        nan = np.isnan(values)
        if nan.any():
            if nan.size == 1:
                at = params if params is not None else self.space.decode(X[0])
                _logger.warning("TreeUCB ignores a NaN objective value at %s.", at)
                return
            _logger.warning("TreeUCB ignores %d NaN objective value(s).", int(nan.sum()))
            X, values, budgets = X[~nan], values[~nan], budgets[~nan]
        n, k = self.n, X.shape[0]
        if n + k > self._y.size:
            size = max(2 * self._y.size, n + k)
            Xb, yb, bb = np.zeros((size, self.space.dim)), np.zeros(size), np.full(size, np.inf)
            Xb[:n], yb[:n], bb[:n] = self._X[:n], self._y[:n], self._b[:n]
            self._X, self._y, self._b = Xb, yb, bb
        self._X[n : n + k] = X
        self._y[n : n + k] = values if self.sign > 0 else -values
        self._b[n : n + k] = budgets
        if params is not None and k == 1:
            self._told[n] = dict(params)
        self.n = n + k

    def rewards(self, m: int | None = None) -> np.ndarray:
        """Rewards of the first ``m`` observations on their own (``None``: all), shape (m,).

        The one rule from stored observations to rewards: mid-ranks of the values
        (:func:`rank_rewards`), whatever the budgets (both ``pruned`` rules rank by value).
        """
        if m is None or m == self.n:
            if self.n == 0:
                return np.zeros(0)
            self._ranks = update_average_ranks(self._ranks, self.y)
            return rank_rewards(self.y, self._ranks)
        return rank_rewards(self.y[:m])

    def targets(self, idx: np.ndarray) -> np.ndarray:
        """Targets of the local GP at observations ``idx``, (k,), larger is better: the values,
        infinities clipped to the finite range (their ranks did worse: they flatten the bowl),
        times the power of two that brings the largest into [0.5, 1) (exact, so the draws do
        not depend on the objective's scale and no variance of values near 1e160 overflows)."""
        y = self.y[idx]
        fin = np.isfinite(y)
        if not fin.all():
            lo, hi = (y[fin].min(), y[fin].max()) if fin.any() else (0.0, 0.0)
            y = np.clip(np.nan_to_num(y, posinf=hi, neginf=lo), lo, hi)
        return unit_scale(y)[0]

    def best(self, what: str) -> int:
        """The first of the largest values among the observations that went furthest (the
        full ones, if any); RuntimeError naming ``what`` before any."""
        if self.n == 0:
            raise RuntimeError(f"TreeUCB.{what} needs at least one told value.")
        furthest = np.flatnonzero(self.budgets == np.max(self.budgets))
        return int(furthest[np.argmax(self.y[furthest])])

    def best_params(self) -> dict[str, Any]:
        """Parameters of the best observation, as told if they were told as parameters."""
        best = self.best("best_params")
        if best in self._told:
            return dict(self._told[best])
        return self.space.decode(self.X[best])

    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`UnitCube.value_cells` of the observations, kept up to date, each (n, d)."""
        lo, hi, k = self._cells
        n = self.n
        if k < n:
            new_lo, new_hi = self.space.value_cells(self.X[k:])
            if n > lo.shape[0]:  # grow geometrically, as the observations do
                size = max(2 * lo.shape[0], n)
                lo = np.concatenate((lo[:k], np.zeros((size - k, self.space.dim))))
                hi = np.concatenate((hi[:k], np.zeros((size - k, self.space.dim))))
            lo[k:n], hi[k:n] = new_lo, new_hi
            self._cells = (lo, hi, n)
        return lo[:n], hi[:n]

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()  # the cells are rebuilt on demand
        state["_cells"] = (np.zeros((0, self.space.dim)), np.zeros((0, self.space.dim)), 0)
        return state


class Pending:
    """Points of ``space`` asked and not yet told: a multiset by id, in the order added.

    A told point drops the oldest pending point equal to it or, failing that, the oldest one
    in the same cell (the same bin of every discrete column, the same float to
    :data:`PENDING_TOL` elsewhere), as repeats are compared, so ``tell(space.decode(x), v)``
    after ``ask_x()`` drops ``x``.  Boxes are found once per partition version.
    """

    def __init__(self, space: UnitCube) -> None:
        self.space = space
        self.clear()

    def clear(self) -> None:
        """Drop every pending point."""
        self._points: dict[int, np.ndarray] = {}
        self._ids: dict[bytes, list[int]] = {}  # the bytes of a point -> its ids, oldest first
        self._next = 0
        self._version = -1  # partition version the boxes below belong to
        self._box: dict[int, int] = {}
        self._counts = np.zeros(0)
        self._unlocated: set[int] = set()  # ids added since the boxes were last counted

    def __len__(self) -> int:
        return len(self._points)

    @property
    def points(self) -> np.ndarray:
        """The pending points, shape (p, d), in the order added."""
        if not self._points:
            return np.zeros((0, self.space.dim))
        return np.array(list(self._points.values()))

    def add(self, x: np.ndarray) -> None:
        """Add a point, shape (d,), in O(1); a point added twice counts twice."""
        point = np.array(x, dtype=float) + 0.0  # a copy; -0.0 becomes 0.0, as equality has it
        i = self._next
        self._next += 1
        self._points[i] = point
        self._ids.setdefault(point.tobytes(), []).append(i)
        self._unlocated.add(i)

    def drop(self, x: np.ndarray) -> bool:
        """Drop the oldest pending point equal to ``x``, else the oldest in its cell; whether
        one was dropped."""
        key = (np.asarray(x, dtype=float) + 0.0).tobytes()
        ids = self._ids.get(key)
        if ids:
            self._remove(ids[0], key)
            return True
        i = self._same_cell(np.asarray(x, dtype=float))
        if i is None:
            return False
        self._remove(i, self._points[i].tobytes())
        return True

    def _same_cell(self, x: np.ndarray) -> int | None:
        """The oldest pending point that decodes to the same values as ``x``, if any."""
        if not self._points:
            return None
        ids = np.fromiter(self._points, dtype=np.intp, count=len(self._points))
        P = np.array([self._points[i] for i in ids.tolist()])
        same = np.ones(ids.size, dtype=bool)
        for j, spec in enumerate(self.space.params):
            if spec.is_discrete:
                same &= spec.bin_indices(P[:, j]) == spec.bin_index(float(x[j]))
            elif spec.low != spec.high:
                same &= np.abs(P[:, j] - x[j]) <= PENDING_TOL
        hits = ids[same]
        return int(hits.min()) if hits.size else None

    def _remove(self, i: int, key: bytes) -> None:
        ids = self._ids[key]
        ids.remove(i)
        if not ids:
            del self._ids[key]
        del self._points[i]
        box = self._box.pop(i, None)
        if box is None:
            self._unlocated.discard(i)
        else:
            self._counts[box] -= 1.0

    def per_box(
        self, partition: Partition, at_full: Callable[[np.ndarray], np.ndarray]
    ) -> np.ndarray:
        """Pending points per box of ``partition``, shape (L,); ``at_full`` maps points to its
        columns.  Only points added since the last call are located, all after a change."""
        part = partition
        if self._version != part.version or self._counts.size != part.n_leaves:
            self._version = part.version
            self._box = {}
            self._counts = np.zeros(part.n_leaves)
            self._unlocated = set(self._points)
        if self._unlocated:
            new = sorted(self._unlocated)
            boxes = part.locate(at_full(np.array([self._points[i] for i in new])))
            self._box.update(zip(new, boxes.tolist(), strict=True))
            self._counts += np.bincount(boxes, minlength=part.n_leaves)
            self._unlocated = set()
        return self._counts.copy()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()  # the boxes are found again
        state.update(_version=-1, _box={}, _counts=np.zeros(0), _unlocated=set())
        return state
