"""What TreeUCB was told: observations (values, rewards by rank, budgets, best) and pending points.

Notations:
    n: observations; d: columns of the cube; p: pending points; L: boxes.
    X: observed points, shape (n, d), values in [0, 1].
    y: values as the model sees them, larger is better, shape (n,) (Y: (n, k), k objectives).
    r: rewards, shape (n,), values in [0, 1].
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import Any
from typing import NamedTuple
from typing import cast

import numpy as np

from optuna_treeucb.core._localgp import finite
from optuna_treeucb.core._localgp import in_cells
from optuna_treeucb.core._localgp import unit_scale
from optuna_treeucb.core._objectives import ParetoFronts
from optuna_treeucb.core._objectives import average_ranks
from optuna_treeucb.core._objectives import best_feasible
from optuna_treeucb.core._objectives import front_indices
from optuna_treeucb.core._objectives import improvements
from optuna_treeucb.core._objectives import objective_rewards
from optuna_treeucb.core._objectives import progress
from optuna_treeucb.core._objectives import progress_of
from optuna_treeucb.core._objectives import rank_rewards
from optuna_treeucb.core._objectives import total_violation
from optuna_treeucb.core._options import signs
from optuna_treeucb.core._space import UnitCube
from optuna_treeucb.core._space import as_reals

if TYPE_CHECKING:
    from optuna_treeucb.core._partition import Partition

_logger = logging.getLogger("optuna_treeucb.core._treeucb")  # the facade's, as before
RANK_UPDATE_MAX = 64  # new values beyond which a full ranking is cheaper than updating
PENDING_TOL = 1e-9  # a told float coordinate this close to a pending one is the same value


def update_average_ranks(ranks: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`average_ranks` of ``y`` (bit for bit) from those of its first ``ranks.size`` values:
    appending ``v`` raises the ranks above it by 1 and those equal to it by 1/2."""
    k, n = ranks.shape[0], y.shape[0]
    if k == 0 or n - k > RANK_UPDATE_MAX:
        return average_ranks(y)
    out = np.empty(n)
    out[:k] = ranks
    for i in range(k, n):
        v, old = y[i], y[:i]
        above, equal = old > v, old == v
        out[:i] += above + 0.5 * equal
        out[i] = i - np.count_nonzero(above) - np.count_nonzero(equal) / 2 + 1
    return out


def as_points(d: int, X: Any, what: str, *, one: bool = False) -> np.ndarray:
    """``X`` as points (n, d) in [0, 1] (``one``: a point (d,) as (1, d)); errors name ``what``."""
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


def as_values(value: Any, n: int | None, k: int, owner: str) -> np.ndarray:
    """The told values as shape (n, k): a number or k numbers (``n`` None, :meth:`tell`), or
    (n,) or (n, k) (:meth:`tell_many`); NaN marks a failed evaluation (dropped later)."""
    shapes: list[tuple[int, ...]]
    if n is None:
        name, what = "value", "a real number" if k == 1 else f"{k} real numbers, one per objective"
        shapes = [(k,), ()] if k == 1 else [(k,)]
    else:
        shape = f"({n},), one per row of X" if k == 1 else f"({n}, {k}), a row per row of X"
        name, what = "values", f"real numbers of shape {shape}"
        shapes = [(n, k), (n,)] if k == 1 else [(n, k)]
    allowed = f"{what} (NaN: a failed evaluation, ignored)"
    Y = as_reals(value, name, owner, allowed)
    if Y.shape not in shapes:
        got = repr(value) if n is None else f"shape {Y.shape}"
        raise ValueError(
            f"The {name!r} parameter of {owner} must be {allowed}. Got {got} instead."
        )
    return Y.reshape(-1, k)


def as_violations(violations: Any, n: int, owner: str, name: str) -> np.ndarray:
    """``violations`` as a float array of shape (n,), values >= 0 (``None``: 0)."""
    allowed = (
        "a real number >= 0, or None"
        if name == "violation"
        else ("a sequence with a real number >= 0 or None per row of X")
    )
    allowed += (
        " (0 or None: feasible; e.g. the sum of the positive parts of constraints feasible when "
        "<= 0)"
    )
    shown = violations[0] if name == "violation" else violations  # tell: [violation]
    v = as_reals(violations, name, owner, allowed, lambda u: u >= 0, none=0.0, shown=shown)
    if v.shape != (n,):
        raise ValueError(
            f"The {name!r} parameter of {owner} must be {allowed}. Got {shown!r} instead."
        )
    return v


def as_constraints(
    constraints: Any, violations: Any, n: int, owner: str, *, one: bool = False
) -> tuple[np.ndarray | None, Any]:
    """``constraints`` as shape (n, c) (``one``: a point's (c,) as (1, c)), and the violations
    they imply (:func:`~._objectives.total_violation`; ``one``: a number); ``(None,
    violations)`` without them."""
    if constraints is None:
        return None, violations
    if violations is not None:
        raise ValueError(
            f"{owner} takes a violation or constraint values, not both: pass constraints alone "
            "(the core sums their positive parts)."
        )
    allowed = "real numbers (no NaN), c >= 1 per observation (feasible when all <= 0), shape " + (
        "(c,)" if one else f"({n}, c)"
    )
    C = as_reals(constraints, "constraints", owner, allowed, lambda v: ~np.isnan(v))
    if one and C.ndim == 1:
        C = C[None]
    if C.ndim != 2 or C.shape[0] != n or C.shape[1] == 0:
        raise ValueError(
            f"The 'constraints' parameter of {owner} must be {allowed}. "
            f"Got {constraints!r} instead."
        )
    v = total_violation(C)
    return C, float(v[0]) if one else v.tolist()


def as_key(key: Any, owner: str) -> Hashable | None:
    """``key`` as a key of a pending point (``None``: no key); TypeError naming ``owner`` if it
    cannot be one."""
    try:
        hash(key)
    except TypeError:
        raise TypeError(
            f"The 'key' parameter of {owner} must be hashable (e.g. a trial number or id), or "
            f"None. Got {key!r} instead."
        ) from None
    return cast(Hashable, key)


def _ints(key: Any) -> tuple[int, ...] | None:
    """``key`` as a tuple of ints if it is an int or a non-empty tuple of ints, else ``None``."""
    items = key if isinstance(key, tuple) and key else (key,)
    if all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in items):
        return tuple(int(k) for k in items)
    return None


def keyed_generator(
    seed: int, key: Hashable | None, seed_key: Any, owner: str
) -> np.random.Generator | None:
    """The generator of a draw: ``default_rng([seed, *seed_key])``, else ``default_rng([seed,
    *key])`` when ``key`` is an int or a tuple of ints, else ``None`` (the instance's own).

    Raises:
        TypeError: If ``seed_key`` is neither ``None``, an int nor a tuple of ints.
        ValueError: If the ints are negative (NumPy seeds with ints >= 0).
    """
    ints = _ints(key if seed_key is None else seed_key)
    name = "key" if seed_key is None else "seed_key"
    allowed = "an int >= 0 or a non-empty tuple of ints >= 0"
    if seed_key is not None and ints is None:
        raise TypeError(
            f"The 'seed_key' parameter of {owner} must be {allowed}, or None. Got {seed_key!r} "
            "instead."
        )
    if ints is None:
        return None
    if min(ints) < 0:
        shown = key if seed_key is None else seed_key
        raise ValueError(
            f"The {name!r} parameter of {owner} seeds the draw, so its ints must be >= 0: "
            f"{allowed}. Got {shown!r} instead."
        )
    return np.random.default_rng([seed, *ints])


def failed(values: np.ndarray) -> np.ndarray:
    """Whether each row of ``values`` (m, k) is a failed evaluation, shape (m,): one with a NaN.

    The one rule by which a result is not an observation: :meth:`Observations.append` drops
    such rows (with a warning), :func:`read_result` reports them to a face (NaN stands for a
    value that is missing or not a number), and a constraint value follows it too.
    """
    return np.isnan(values).any(axis=1)


class Result(NamedTuple):
    """A result as the core counts it (:func:`read_result`).

    Attributes:
        values: Its values as floats (``±inf`` included), or ``None``: not an observation.
        constraints: Its constraint values, or ``None``: they cannot be read, and it is not an
            observation.  ``()`` without constraints.
        violation: Its total constraint violation, the sum of their positive parts (0:
            feasible); NaN when they cannot be read.
    """

    values: tuple[float, ...] | None
    constraints: tuple[float, ...] | None
    violation: float


def read_result(
    values: Sequence[float | None], constraints: Sequence[float | None] = ()
) -> Result:
    """A face's result as the core counts it: ``values`` (one per objective) and
    ``constraints`` (any number, each feasible when <= 0), ``None`` for an item that is
    missing or not a number (the face decides what a number is)."""

    def read(items: Sequence[float | None]) -> tuple[float, ...] | None:
        row = np.array([[np.nan if u is None else float(u) for u in items]], dtype=float)
        return None if row.size and failed(row)[0] else tuple(float(u) for u in row[0])

    cons = read(constraints)
    if cons is None:
        violation = np.nan
    else:
        violation = float(total_violation(np.array([cons]))[0]) if cons else 0.0
    return Result(read(values), cons, violation)


def repeats(P: np.ndarray, obs: Observations, pending: Pending) -> np.ndarray:
    """Whether each point of ``P`` (p, >= d) decodes to an observed or pending point, (p,)."""
    d = obs.space.dim
    out = in_cells(P[:, :d], *obs.cells())
    if len(pending):
        out |= in_cells(P[:, :d], *pending.cells())
    return out


class Observations:
    """The told observations of ``space`` in the order told, stored so that larger is better,
    with each one's constraint violation (0: feasible)."""

    def __init__(self, space: UnitCube, directions: str | Sequence[str]) -> None:
        self.space = space
        self.signs = signs(directions)
        d, k = space.dim, self.signs.size
        self._X = np.zeros((16, d))
        self._y = np.zeros((16, k))  # internal values: larger is better
        self._v = np.zeros(16)  # total constraint violations
        self._c: np.ndarray | None = None  # constraint values, (size, c), while all have c
        self._b = np.full(16, np.inf)  # budgets: the step reached, inf for a full evaluation
        self.n = 0
        self.constrained = False  # whether a positive violation was told
        self._told: dict[int, dict[str, Any]] = {}  # observation -> parameters as told
        self._ranks = np.zeros(0)  # average ranks of the values, kept up to date
        self._rewards: tuple[int, np.ndarray] = (0, np.zeros(0))  # (n, rewards) of rank rules
        self._improved = np.zeros(0, dtype=bool)  # improvements() of the first rows so far
        self._pareto = (ParetoFronts(k), 0)  # fronts of the feasible rows, rows consumed
        self._cells: tuple[np.ndarray, np.ndarray, int] = (np.zeros((0, d)), np.zeros((0, d)), 0)

    @property
    def ranked(self) -> bool:
        """Whether rewards follow :mod:`._objectives` (several objectives or a violation told)."""
        return self.signs.size > 1 or self.constrained

    @property
    def X(self) -> np.ndarray:
        """Observed points, shape (n, d), values in [0, 1] (a view)."""
        return self._X[: self.n]

    @property
    def y(self) -> np.ndarray:
        """The first objective as the model sees it, larger is better, shape (n,) (a view)."""
        return self._y[: self.n, 0]

    @property
    def Y(self) -> np.ndarray:
        """Every objective as the model sees it, shape (n, k) (a view)."""
        return self._y[: self.n]

    @property
    def violations(self) -> np.ndarray:
        """Total constraint violation of each observation, shape (n,) (a view)."""
        return self._v[: self.n]

    @property
    def constraints(self) -> np.ndarray | None:
        """Constraint values of each observation, shape (n, c) (a view), or ``None`` unless
        every observation was told its ``c`` values (feasible when all <= 0)."""
        return None if self._c is None else self._c[: self.n]

    @property
    def budgets(self) -> np.ndarray:
        """Budget of each observation (``inf``: a full evaluation), shape (n,) (a view)."""
        return self._b[: self.n]

    @property
    def values(self) -> np.ndarray:
        """Values as told, shape (n,) for one objective, else (n, k) (a copy)."""
        out = self.signs * self.Y
        return out[:, 0] if self.signs.size == 1 else out

    def append(
        self,
        X: np.ndarray,
        values: np.ndarray,
        budgets: np.ndarray,
        params: Mapping[str, Any] | None = None,
        violations: np.ndarray | None = None,
        constraints: np.ndarray | None = None,
    ) -> None:
        """Store points (m, d), told values (m, k) or (m,), budgets (m,), violations (m,) and
        constraint values (m, c) if known; values with a NaN are dropped with a warning.
        ``params``: one observation's, as told."""
        v = np.zeros(X.shape[0]) if violations is None else violations
        values = values.reshape(X.shape[0], self.signs.size)
        nan = failed(values)
        if nan.any():
            if nan.size == 1:
                at = params if params is not None else self.space.decode(X[0])
                _logger.warning("TreeUCB ignores a NaN objective value at %s.", at)
                return
            _logger.warning("TreeUCB ignores %d NaN objective value(s).", int(nan.sum()))
            X, values, budgets, v = X[~nan], values[~nan], budgets[~nan], v[~nan]
            constraints = None if constraints is None else constraints[~nan]
        n, m = self.n, X.shape[0]
        self._store_constraints(constraints, n, m)
        if n + m > self._b.size:
            size = max(2 * self._b.size, n + m)
            Xb, yb = np.zeros((size, self.space.dim)), np.zeros((size, self.signs.size))
            vb, bb = np.zeros(size), np.full(size, np.inf)
            Xb[:n], yb[:n], vb[:n], bb[:n] = self._X[:n], self._y[:n], self._v[:n], self._b[:n]
            self._X, self._y, self._v, self._b = Xb, yb, vb, bb
        self._X[n : n + m] = X
        self._y[n : n + m] = values * self.signs
        self._v[n : n + m] = v
        self._b[n : n + m] = budgets
        self.constrained = self.constrained or bool((v > 0).any())
        if params is not None and m == 1:
            self._told[n] = dict(params)
        self.n = n + m

    def _store_constraints(self, C: np.ndarray | None, n: int, m: int) -> None:
        """Keep the constraint values ``C`` (m, c) of rows ``n..n+m``; forget them all once a
        row comes without them or with another number of them."""
        if C is None or C.shape[1] == 0 or (n > 0 and self._c is None):
            self._c = None
            return
        if self._c is not None and self._c.shape[1] != C.shape[1]:
            self._c = None
            return
        if self._c is None or n + m > self._c.shape[0]:
            grown = np.zeros((max(2 * n, n + m, 16), C.shape[1]))
            if self._c is not None:
                grown[:n] = self._c[:n]
            self._c = grown
        self._c[n : n + m] = C

    def rewards(self, m: int | None = None) -> np.ndarray:
        """Rewards of the first ``m`` observations on their own (``None``: all), shape (m,)."""
        if self.ranked:
            m = self.n if m is None else m
            if m == self.n and self._rewards[0] == m:
                return self._rewards[1]
            if self.signs.size == 1:
                return self._store_rewards(m, objective_rewards(self.y[:m], self.violations[:m]))
            fronts = self._fronts() if m == self.n else None
            return self._store_rewards(
                m, objective_rewards(self.Y[:m], self.violations[:m], fronts=fronts)
            )
        if m is None or m == self.n:
            self._ranks = update_average_ranks(self._ranks, self.y)
            return rank_rewards(self.y, self._ranks)
        return rank_rewards(self.y[:m])

    def _store_rewards(self, m: int, r: np.ndarray) -> np.ndarray:
        if m == self.n:
            self._rewards = (m, r)
        return r

    def _fronts(self) -> np.ndarray:
        """:func:`~._objectives.pareto_ranks` of the feasible observations, kept up to date."""
        pareto, k = self._pareto
        new = k + np.flatnonzero(self.violations[k:] == 0.0)
        fronts = pareto.extend(self.Y[new])
        self._pareto = (pareto, self.n)
        return fronts

    def front_rows(self) -> np.ndarray:
        """The feasible observations on the first Pareto front, increasing indices."""
        return np.flatnonzero(self.violations == 0.0)[self._fronts() == 0]

    def scores(self) -> np.ndarray:
        """What the in-box samplers rank observations by, larger is better, shape (n,)."""
        return self.rewards() if self.ranked else self.y

    def progress(self) -> np.ndarray:
        """What the trust region's success counter reads, shape (n,)."""
        if not self.ranked:
            return self.y
        if self.signs.size == 1:
            return progress(self.Y, self.violations)
        feasible = self.violations == 0.0
        k = self._improved.size
        if k < self.n:
            self._improved = np.concatenate((self._improved, improvements(self.Y, feasible, k)))
        return progress_of(self._improved, feasible)

    def targets(self, idx: np.ndarray) -> np.ndarray:
        """Targets of the local GP at observations ``idx``, larger is better: the values (the
        rewards when :attr:`ranked`), infinities clipped to the finite range, times the power
        of two that brings the largest into [0.5, 1)."""
        if self.ranked:
            return unit_scale(self.rewards()[idx])[0]
        return self.objective_targets(idx)

    def objective_targets(self, idx: np.ndarray) -> np.ndarray:
        """The objective's targets at observations ``idx``, feasible or not (SCBO's objective
        model): :meth:`targets` without constraints; with several objectives the rewards."""
        if self.signs.size > 1:
            return unit_scale(self.rewards()[idx])[0]
        return unit_scale(finite(self.y[idx]))[0]

    def furthest(self, what: str) -> np.ndarray:
        """Indices of the observations that went furthest; RuntimeError naming ``what`` if none."""
        if self.n == 0:
            raise RuntimeError(f"TreeUCB.{what} needs at least one told value.")
        return np.flatnonzero(self.budgets == np.max(self.budgets))

    def best(self, what: str) -> int:
        """The first best feasible observation among those that went furthest; RuntimeError
        naming ``what`` before any, or with several objectives."""
        if self.signs.size > 1:
            raise RuntimeError(
                f"TreeUCB.{what} is not defined with several objectives: read "
                "TreeUCB.front_params, the non-dominated feasible observations, instead."
            )
        furthest = self.furthest(what)
        return int(furthest[best_feasible(self.y[furthest], self.violations[furthest])])

    def front(self) -> list[int]:
        """The non-dominated feasible observations that went furthest, in the order told."""
        furthest = self.furthest("front_params")
        at = front_indices(self.Y[furthest], self.violations[furthest])
        return furthest[at].tolist()

    def best_params(self) -> dict[str, Any]:
        """Parameters of the best observation (:meth:`best`)."""
        return self.params_of(self.best("best_params"))

    def params_of(self, i: int) -> dict[str, Any]:
        """Parameters of observation ``i``, as told if they were told as parameters."""
        if i in self._told:
            return dict(self._told[i])
        return self.space.decode(self.X[i])

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
    """Points of ``space`` asked and not yet told, in the order added.

    A point added under the caller's key holds that key's slot (one point per key: adding
    under a key already held replaces its point) and is freed by that key only.  A point
    added without a key belongs to a multiset by id: a told point frees the oldest equal one
    without a key, else the oldest without a key in its cell.
    """

    def __init__(self, space: UnitCube) -> None:
        self.space = space
        self.clear()

    def clear(self) -> None:
        """Drop every pending point, with its key."""
        self._points: dict[int, np.ndarray] = {}
        # each point's UnitCube.value_cells, found once when it is added
        self._cells: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._stacked: tuple[np.ndarray, np.ndarray] | None = None  # cells(), until a change
        self._ids: dict[bytes, list[int]] = {}  # bytes of a point without a key -> its ids
        self._id_of: dict[Hashable, int] = {}  # the caller's key -> the id it holds
        self._key_of: dict[int, Hashable] = {}  # and back
        self._next = 0
        self._version = -1  # partition version the boxes below belong to
        self._box: dict[int, int] = {}
        self._counts = np.zeros(0)
        self._unlocated: set[int] = set()  # ids added since the boxes were last counted

    def __len__(self) -> int:
        return len(self._points)

    def __contains__(self, key: Hashable) -> bool:
        """Whether ``key`` holds a pending point."""
        return key in self._id_of

    @property
    def keys(self) -> list[Hashable]:
        """The keys that hold a pending point, in the order their points were added."""
        return list(self._id_of)

    @property
    def points(self) -> np.ndarray:
        """The pending points, shape (p, d), in the order added."""
        if not self._points:
            return np.zeros((0, self.space.dim))
        return np.array(list(self._points.values()))

    def add(self, x: np.ndarray, key: Hashable | None = None) -> None:
        """Add a point, shape (d,), in O(1): under ``key`` (replacing the point it held), or
        without a key (a point added twice then counts twice)."""
        if key is not None and key in self._id_of:
            self.free(key)
        point = np.array(x, dtype=float) + 0.0  # a copy; -0.0 becomes 0.0, as equality has it
        i = self._next
        self._next += 1
        self._points[i] = point
        lo, hi = self.space.value_cells(point[None])
        self._cells[i] = (lo[0], hi[0])
        self._stacked = None
        if key is None:
            self._ids.setdefault(point.tobytes(), []).append(i)
        else:
            self._id_of[key] = i
            self._key_of[i] = key
        self._unlocated.add(i)

    def free(self, key: Hashable) -> bool:
        """Drop the point ``key`` holds, if any."""
        i = self._id_of.get(key)
        if i is None:
            return False
        self._remove(i)
        return True

    def drop(self, x: np.ndarray) -> bool:
        """Drop the oldest pending point without a key equal to ``x``, else the oldest without
        a key in its cell, if any."""
        ids = self._ids.get((np.asarray(x, dtype=float) + 0.0).tobytes())
        i = ids[0] if ids else self._same_cell(np.asarray(x, dtype=float))
        if i is None:
            return False
        self._remove(i)
        return True

    def _same_cell(self, x: np.ndarray) -> int | None:
        """The oldest pending point without a key that decodes to the same values as ``x``."""
        if len(self._key_of) == len(self._points):
            return None
        ids = np.array([i for i in self._points if i not in self._key_of], dtype=np.intp)
        P = np.array([self._points[i] for i in ids.tolist()])
        same = np.ones(ids.size, dtype=bool)
        for j, spec in enumerate(self.space.params):
            if spec.is_discrete:
                same &= spec.bin_indices(P[:, j]) == spec.bin_index(float(x[j]))
            elif spec.low != spec.high:
                same &= np.abs(P[:, j] - x[j]) <= PENDING_TOL
        hits = ids[same]
        return int(hits.min()) if hits.size else None

    def _remove(self, i: int) -> None:
        point = self._points.pop(i)
        if i in self._key_of:
            del self._id_of[self._key_of.pop(i)]
        else:
            ids = self._ids[point.tobytes()]
            ids.remove(i)
            if not ids:
                del self._ids[point.tobytes()]
        del self._cells[i]
        self._stacked = None
        box = self._box.pop(i, None)
        if box is None:
            self._unlocated.discard(i)
        else:
            self._counts[box] -= 1.0

    def cells(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`UnitCube.value_cells` of the pending points, each (p, d), in the order added
        (each point's found once, when it was added)."""
        if self._stacked is None:
            if not self._cells:
                empty = np.zeros((0, self.space.dim))
                return empty, empty
            lo, hi = zip(*self._cells.values())
            self._stacked = (np.array(lo), np.array(hi))
        return self._stacked

    def per_box(
        self, partition: Partition, at_full: Callable[[np.ndarray], np.ndarray]
    ) -> np.ndarray:
        """Pending points per box of ``partition``, shape (L,); ``at_full`` maps points to its
        columns."""
        if self._version != partition.version or self._counts.size != partition.n_leaves:
            self._version = partition.version
            self._box = {}
            self._counts = np.zeros(partition.n_leaves)
            self._unlocated = set(self._points)
        if self._unlocated:
            new = sorted(self._unlocated)
            boxes = partition.locate(at_full(np.array([self._points[i] for i in new])))
            self._box.update(zip(new, boxes.tolist(), strict=True))
            self._counts += np.bincount(boxes, minlength=partition.n_leaves)
            self._unlocated = set()
        return self._counts.copy()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()  # the boxes are found again
        state.update(_version=-1, _box={}, _counts=np.zeros(0), _unlocated=set(), _stacked=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_id_of" not in state:  # pickled before keys were kept: every point has none
            self._id_of, self._key_of = {}, {}
        if "_cells" not in state:  # pickled before the cells were kept
            self._stacked = None
            self._cells = {}
            for i, point in self._points.items():
                lo, hi = self.space.value_cells(point[None])
                self._cells[i] = (lo[0], hi[0])
