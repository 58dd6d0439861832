"""TreeUCB and Contextual TreeUCB as an ask/tell object: a facade over the core's parts."""

from __future__ import annotations

import functools
import logging
import math
import threading
import warnings
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import TypeVar
from typing import cast

import numpy as np

from optuna_treeucb.core._fidelity import BudgetContext
from optuna_treeucb.core._fidelity import as_budgets
from optuna_treeucb.core._inbox import InBoxSampler
from optuna_treeucb.core._inbox import LocalGP
from optuna_treeucb.core._inbox import Snapshot
from optuna_treeucb.core._inbox import TrustRegion
from optuna_treeucb.core._inbox import TrustRegionState
from optuna_treeucb.core._inbox import Uniform
from optuna_treeucb.core._inbox import sample_in
from optuna_treeucb.core._index import BoxStats
from optuna_treeucb.core._index import SoftGPIndex
from optuna_treeucb.core._index import argmax
from optuna_treeucb.core._index import containing
from optuna_treeucb.core._observations import Observations
from optuna_treeucb.core._observations import Pending
from optuna_treeucb.core._observations import as_constraints
from optuna_treeucb.core._observations import as_key
from optuna_treeucb.core._observations import as_points
from optuna_treeucb.core._observations import as_values
from optuna_treeucb.core._observations import as_violations
from optuna_treeucb.core._observations import keyed_generator
from optuna_treeucb.core._observations import repeats
from optuna_treeucb.core._options import Direction
from optuna_treeucb.core._options import Discrete
from optuna_treeucb.core._options import Index
from optuna_treeucb.core._options import PrunedRule
from optuna_treeucb.core._options import Rule
from optuna_treeucb.core._options import Sampling
from optuna_treeucb.core._options import accept_former_names
from optuna_treeucb.core._options import as_directions
from optuna_treeucb.core._options import document_options
from optuna_treeucb.core._options import fresh_seed
from optuna_treeucb.core._options import validate_options
from optuna_treeucb.core._partition import IncrementalPartition
from optuna_treeucb.core._partition import Partition
from optuna_treeucb.core._partition import RefitPartition
from optuna_treeucb.core._space import ParamSpec
from optuna_treeucb.core._space import UnitCube
from optuna_treeucb.core._space import as_cube
from optuna_treeucb.core._space import as_reals

_logger = logging.getLogger(__name__)
_F = TypeVar("_F", bound=Callable[..., Any])


def _serialised(method: _F) -> _F:
    """``method`` run under its TreeUCB's lock: one call at a time (re-entrant)."""

    @functools.wraps(method)
    def locked(self: TreeUCB, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return cast(_F, locked)


@document_options("TreeUCB")
class TreeUCB:
    """TreeUCB: a Lipschitz bandit over a box whose partition is learned by a regression tree.

    Each round fits a regression tree to the observations, plays the leaf box of largest index
    and draws a point in it (Wang, Ye, Geng and Rudin, "Towards Practical Lipschitz Bandits",
    arXiv:1901.09277, Algorithm 1): ``U = m + C sqrt(4 log t / n) + M D``, or with
    ``index="soft_gp"`` a GP with the paper's soft tree kernel.  Given a context (values of some
    parameters), Contextual TreeUCB plays the best box that contains it.  Values become rewards
    in [0, 1] by mid-rank (NaN: ignored with a warning); with several objectives or
    constraints, feasible observations rank first, then by Pareto front and hypervolume
    contribution.  A budget marks an evaluation stopped early (see ``pruned``).

    Pending points: an asked point is pending until told, so that concurrent evaluations
    spread over the box.  ``ask(key=k)`` (or ``add_pending(x, key=k)`` for a point asked
    elsewhere) holds it under the caller's key ``k``, any hashable but ``None`` (a trial number
    or id), one point per key; ``tell(..., key=k)`` or ``forget(k)`` frees exactly that slot,
    even when another pending point is equal or in the same cell, and a key not pending
    raises ValueError.  An int key, or a tuple of ints, also seeds the draw by ``[seed,
    *key]``; ``seed_key`` gives another (e.g. a configuration's rank, while the key is a
    trial id).  Without a key, a told point frees the oldest equal pending point without a
    key, else the oldest without a key in its cell (a parameter told after its decoding).

    Threads: each public method and property runs under the instance's lock, so several
    threads may ask and tell one ``TreeUCB``; the points drawn then depend on the order in
    which the threads' calls arrive, so a seeded run is reproducible only from one thread.

    The defaults are the paper's bandit (cumulative regret: every point counts).  **For
    optimisation** (only the best value counts), pass ``sampling="local_gp"``, the default of
    ``TreeUCBSampler`` and ``TreeUCBSearch``: TuRBO's local GP in a trust region.  The options
    below are declared once, in :data:`~optuna_treeucb.core.OPTIONS`;
    ``python -m optuna_treeucb.core`` prints them as a table.

    Args:
        space:
            A :class:`UnitCube`, a sequence of :class:`ParamSpec`, or an int d for the plain
            cube [0, 1]^d (parameters ``"x0"``, ``"x1"``, ...).
        <the options: rendered from optuna_treeucb.core.OPTIONS at import>

    Raises:
        ValueError: If an option is out of its range.
        TypeError: If an option has the wrong type or an unknown name.

    Example:
        .. code-block:: python

            from optuna_treeucb.core import ParamSpec, TreeUCB

            space = [
                ParamSpec("x", "float", low=-2.0, high=2.0),
                ParamSpec("k", "int", low=1, high=5),
            ]
            bandit = TreeUCB(space, seed=0, direction="minimize", sampling="local_gp")
            for _ in range(30):
                params = bandit.ask()
                bandit.tell(params, (params["x"] - 0.5) ** 2 + params["k"])
            print(bandit.best_params)
    """

    @accept_former_names("TreeUCB")
    def __init__(
        self,
        space: UnitCube | Sequence[ParamSpec] | int,
        *,
        seed: int | None = None,
        direction: Direction | Sequence[Direction] = "maximize",
        rule: Rule = "refit",
        index: Index = "hoeffding",
        C: float = 0.01,
        M: float = 0.1,
        n_startup_trials: int = 10,
        pruned: PrunedRule = "last_value",
        max_budget: float | None = None,
        sampling: Sampling = "uniform",
        discrete: Discrete = "box",
        **unknown: Any,
    ) -> None:
        self.space = as_cube(space)
        directions = as_directions(direction)
        given = {k: v for k, v in locals().items() if k not in ("self", "space", "unknown")}
        given["direction"] = directions[0]
        del given["directions"]
        opts = validate_options("TreeUCB", {**given, **unknown})
        self.seed: int | None = opts["seed"]
        # one objective: the string, however it was given ("minimize" or ["minimize"])
        self.direction: Direction | tuple[Direction, ...] = (
            opts["direction"] if len(directions) == 1 else directions
        )
        self.rule: Rule = opts["rule"]
        self.index: Index = opts["index"]
        self.C: float = opts["C"]
        self.M: float = opts["M"]
        self.n_startup_trials: int = opts["n_startup_trials"]
        self.pruned: PrunedRule = opts["pruned"]
        self.max_budget: float | None = opts["max_budget"]
        self.sampling: Sampling = opts["sampling"]
        self.discrete: Discrete = opts["discrete"]
        self._lock = threading.RLock()  # one call at a time: see "Threads" above
        self._rng = np.random.default_rng(self.seed)
        self._key_seed = self.seed if self.seed is not None else fresh_seed()  # [seed, *key]
        self._obs = Observations(self.space, directions)
        self._pending = Pending(self.space)
        self._context = BudgetContext(self.pruned, self.max_budget)
        self._furthest = -math.inf  # the furthest step an evaluation reached (note_step)
        self.partition = self._new_partition()
        self._soft_gp = SoftGPIndex() if self.index == "soft_gp" else None
        if self.sampling == "uniform":
            self._inbox: InBoxSampler = Uniform()
        else:
            kind = TrustRegion if self.sampling == "trust_region" else LocalGP
            self._inbox = kind(self.space, self.n_startup_trials, self.discrete)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]  # a lock cannot be pickled; a new one is made on loading
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("_key_seed", state["seed"] if state["seed"] is not None else fresh_seed())
        state.setdefault("_furthest", -math.inf)
        if "n_startup" in state:  # pickled before the option was renamed
            state["n_startup_trials"] = state.pop("n_startup")
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def _new_partition(self) -> Partition:
        """An empty partition of the cube, with a column per parameter and per context."""
        d = self.space.dim + self._context.n_columns
        return RefitPartition(d, seed=0) if self.rule == "refit" else IncrementalPartition(d)

    @_serialised
    def reseed(self, seed: int | Sequence[int] | None) -> None:
        """Replace the generator of draws without a key by ``default_rng(seed)``; an int
        ``seed`` also seeds the keyed draws from now on, by ``[seed, *key]``."""
        self._rng = np.random.default_rng(seed)
        if isinstance(seed, (int, np.integer)):
            self._key_seed = int(seed)

    @property
    @_serialised
    def n_observations(self) -> int:
        """Number of observations told (NaN values excluded)."""
        return self._obs.n

    @property
    @_serialised
    def X(self) -> np.ndarray:
        """Observed points, shape (n, d), values in [0, 1]."""
        return self._obs.X.copy()

    @property
    @_serialised
    def budgets(self) -> np.ndarray:
        """Budget of each observation (``inf``: a full evaluation), shape (n,)."""
        return self._obs.budgets.copy()

    @property
    @_serialised
    def values(self) -> np.ndarray:
        """Observed values as told (not negated), shape (n,), or (n, k) for k objectives."""
        return self._obs.values

    @property
    @_serialised
    def violations(self) -> np.ndarray:
        """Total constraint violation of each observation (0: feasible), shape (n,)."""
        return self._obs.violations.copy()

    @property
    @_serialised
    def constraints(self) -> np.ndarray | None:
        """Constraint values of each observation, shape (n, c), when every one was told its
        ``c`` values (``constraints``), else ``None``."""
        c = self._obs.constraints
        return None if c is None else c.copy()

    @property
    @_serialised
    def best_params(self) -> dict[str, Any]:
        """Parameters of the best feasible (else least violating) observation among those that
        went furthest (RuntimeError before any; with several objectives, :attr:`front_params`)."""
        return self._obs.best_params()

    @property
    @_serialised
    def front_params(self) -> list[dict[str, Any]]:
        """Parameters of the non-dominated observations, chosen as :attr:`best_params` is, in
        the order told."""
        return [self._obs.params_of(i) for i in self._obs.front()]

    @property
    @_serialised
    def best_x(self) -> np.ndarray:
        """Point of :attr:`best_params`, shape (d,), values in [0, 1]."""
        return self._obs.X[self._obs.best("best_x")].copy()

    @property
    def n_startup(self) -> int:
        """Deprecated (``FutureWarning``): the former name of :attr:`n_startup_trials`."""
        warnings.warn(
            "TreeUCB.n_startup is deprecated and will be removed in a future version: it was "
            "renamed TreeUCB.n_startup_trials. Read n_startup_trials instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.n_startup_trials

    @property
    @_serialised
    def in_startup(self) -> bool:
        """Whether the next point is uniform: until ``n_startup_trials`` values (at least 1) are
        told."""
        return self.n_observations < max(self.n_startup_trials, 1)

    @property
    @_serialised
    def trust_region(self) -> TrustRegionState | None:
        """The trust region's state as of the last draw (``None`` with ``sampling="uniform"``)."""
        return self._inbox.state if isinstance(self._inbox, TrustRegion) else None

    def budget_of(self, step: float | None, *, complete: bool) -> float | None:
        """The budget to tell for an evaluation that reached ``step``: ``step`` if stopped early
        or under ``pruned="context"``, else ``None`` (full)."""
        return step if not complete or self.pruned == "context" else None

    @_serialised
    def note_step(self, step: float) -> None:
        """Note that an evaluation reached ``step``, a real number >= 0 (e.g. a running
        evaluation's intermediate result): one that ends below the furthest step noted was
        stopped early (:meth:`stopped_early`)."""
        allowed = "a real number >= 0 (a step an evaluation reached)"
        noted = as_reals(step, "step", "TreeUCB.note_step", allowed, lambda s: s >= 0)
        self._furthest = max(self._furthest, float(noted))

    @_serialised
    def stopped_early(self, step: float | None) -> bool:
        """Whether an evaluation that ended at ``step`` was stopped early, e.g. by a scheduler:
        some evaluation went further (:meth:`note_step`).  ``None`` (no step): no."""
        return step is not None and step < self._furthest

    @_serialised
    def rewards(self) -> np.ndarray:
        """Rewards of the observations (mid-ranks), shape (n,), in [0, 1]."""
        return self._obs.rewards()

    @_serialised
    def tell(
        self,
        params: Mapping[str, Any],
        value: float | Sequence[float],
        *,
        key: Hashable | None = None,
        budget: float | None = None,
        violation: float | None = None,
        constraints: Sequence[float] | None = None,
    ) -> None:
        """Record the value of ``params`` (k numbers for k objectives; NaN: ignored) and free
        the pending point of ``key`` (``None``: the oldest equal one without a key; see
        "Pending points" above); ``budget``: the step an evaluation stopped early reached,
        >= 0 (``None``/``inf``: full); ``violation``: the total constraint violation, >= 0 (0
        or ``None``: feasible); or instead ``constraints``, the c constraint values (feasible
        when all <= 0), whose positive parts sum to the violation and which the in-box GP
        models one by one.

        A number is a Python or NumPy int or float: ``bool``, ``str`` and a ``None`` value are
        not (TypeError naming the argument); a value out of range raises ValueError."""
        C, violation = as_constraints(constraints, violation, 1, "TreeUCB.tell", one=True)
        self._tell(self.space.encode(params), value, budget, violation, params, C, key)

    @_serialised
    def tell_x(
        self,
        x: np.ndarray | Sequence[float],
        value: float | Sequence[float],
        *,
        key: Hashable | None = None,
        budget: float | None = None,
        violation: float | None = None,
        constraints: Sequence[float] | None = None,
    ) -> None:
        """:meth:`tell` for a point ``x`` of the cube, shape (d,), values in [0, 1]."""
        point = as_points(self.space.dim, x, "TreeUCB.tell_x", one=True)[0]
        C, violation = as_constraints(constraints, violation, 1, "TreeUCB.tell_x", one=True)
        self._tell(point, value, budget, violation, None, C, key)

    def _tell(
        self,
        x: np.ndarray,
        value: Any,
        budget: Any,
        violation: Any,
        params: Mapping[str, Any] | None,
        constraints: np.ndarray | None,
        key: Hashable | None,
    ) -> None:
        y = as_values(value, None, self._obs.signs.size, "TreeUCB.tell")
        b = as_budgets([budget], 1, "TreeUCB.tell", "budget")
        v = as_violations([violation], 1, "TreeUCB.tell", "violation")
        if key is None:
            self._pending.drop(x)
        else:
            self._free(key, "TreeUCB.tell")
        self._obs.append(x[None], y, b, params, v, constraints)

    @_serialised
    def tell_many(
        self,
        X: np.ndarray,
        values: np.ndarray | Sequence[float] | Sequence[Sequence[float]],
        budgets: np.ndarray | Sequence[float | None] | None = None,
        violations: np.ndarray | Sequence[float | None] | None = None,
        *,
        constraints: np.ndarray | Sequence[Sequence[float]] | None = None,
        drop_pending: bool = True,
    ) -> None:
        """Record many observations: ``X`` (n, d) in [0, 1], ``values`` (n,) or (n, k),
        ``budgets`` and ``violations`` (n,) as in :meth:`tell` (``None``: all full, feasible),
        or ``constraints`` (n, c) instead of ``violations``.  ``drop_pending=False`` leaves
        the pending points alone (ValueError on a bad shape)."""
        X = as_points(self.space.dim, X, "TreeUCB.tell_many")
        n = X.shape[0]
        C, violations = as_constraints(constraints, violations, n, "TreeUCB.tell_many")
        Y = as_values(values, n, self._obs.signs.size, "TreeUCB.tell_many")
        b = as_budgets(
            [None] * n if budgets is None else budgets, n, "TreeUCB.tell_many", "budgets"
        )
        v = as_violations(
            [None] * n if violations is None else violations, n, "TreeUCB.tell_many", "violations"
        )
        for row in X if drop_pending else ():
            self._pending.drop(row)
        self._obs.append(X, Y, b, None, v, C)

    @property
    @_serialised
    def pending(self) -> np.ndarray:
        """Points asked and not yet told, shape (p, d), in the order they were added."""
        return self._pending.points

    @property
    @_serialised
    def n_pending(self) -> int:
        """Number of pending points (duplicates counted each)."""
        return len(self._pending)

    @_serialised
    def set_pending(self, X: np.ndarray | Sequence[Sequence[float]]) -> None:
        """Replace the pending points, keys included, by ``X``, shape (p, d), values in [0, 1],
        without keys."""
        points = as_points(self.space.dim, X, "TreeUCB.set_pending")
        self._pending.clear()
        for point in points:
            self._pending.add(point)

    @property
    @_serialised
    def pending_keys(self) -> list[Hashable]:
        """The keys that hold a pending point, in the order their points were added."""
        return self._pending.keys

    @_serialised
    def add_pending(self, x: np.ndarray | Sequence[float], *, key: Hashable | None = None) -> None:
        """Add a pending point ``x`` (d,) (e.g. asked by another process) under ``key``,
        replacing the point it held; without a key, a point added twice counts twice."""
        point = as_points(self.space.dim, x, "TreeUCB.add_pending", one=True)[0]
        self._pending.add(point, as_key(key, "TreeUCB.add_pending"))

    @_serialised
    def forget(self, key: Hashable) -> None:
        """Free the pending point of ``key`` without a value (e.g. its evaluation failed).

        Raises:
            ValueError: If ``key`` holds no pending point.
        """
        self._free(key, "TreeUCB.forget")

    def _free(self, key: Hashable, owner: str) -> None:
        if as_key(key, owner) not in self._pending:
            raise ValueError(
                f"The 'key' parameter of {owner} must be the key of a pending point (given to "
                f"ask or add_pending, not yet told or forgotten). Got {key!r} instead."
            )
        self._pending.free(key)

    @_serialised
    def forget_pending(self, x: np.ndarray | Sequence[float]) -> None:
        """Drop a pending point without a key and without a value: the oldest equal to ``x``,
        else the oldest in its cell (a point held by a key is freed by :meth:`forget`)."""
        self._pending.drop(as_points(self.space.dim, x, "TreeUCB.forget_pending", one=True)[0])

    def _model(self) -> tuple[np.ndarray, np.ndarray, BoxStats]:
        """The observations in the partition's columns, their rewards and the boxes."""
        X, changed = self._context.columns(self._obs.X, self._obs.budgets)
        if changed:
            version = self.partition.version
            self.partition = self._new_partition()
            self.partition.version = version + 1  # pending points are located again
            if self._soft_gp is not None:
                self._soft_gp.reset()
        r = self._obs.rewards()  # ranked once per ask, shared by the boxes and the GP
        self.partition.update(X, r, self._obs.rewards)
        n_pending = self._pending.per_box(self.partition, self._context.at_full)
        t = self.n_observations + self.n_pending + 1  # the round, this one included
        return X, r, BoxStats.of(self.partition, r, n_pending, t, self.C, self.M)

    @_serialised
    def fit_leaves(self) -> BoxStats:
        """Fit the partition to the data and return its boxes with their statistics."""
        return self._model()[2]

    @_serialised
    def posterior(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Soft-tree-kernel posterior mean and deviation of the reward at ``X`` (m, d), (m,)."""
        if self.n_observations == 0:
            raise RuntimeError("TreeUCB.posterior needs at least one told value.")
        Xm, r, _ = self._model()
        gp = self._soft_gp if self._soft_gp is not None else SoftGPIndex()
        pts = self._context.at_full(np.atleast_2d(np.asarray(X, dtype=float)))
        return gp.posterior(Xm, self.partition, r, pts, self._context.at_full(self.pending))

    @_serialised
    def ask(
        self,
        context: Mapping[str, Any] | None = None,
        *,
        key: Hashable | None = None,
        seed_key: int | tuple[int, ...] | None = None,
    ) -> dict[str, Any]:
        """The next parameters, pending until told (under ``key``, drawn from ``[seed,
        *seed_key]`` or ``[seed, *key]``: see "Pending points" above); ``context`` fixes some
        of them."""
        ctx = {} if context is None else dict(context)
        key = as_key(key, "TreeUCB.ask")
        rng = keyed_generator(self._key_seed, key, seed_key, "TreeUCB.ask")
        x = self._choose(self.space.encode_partial(ctx), rng)
        params = self.space.decode(x)
        params.update(ctx)  # the very objects the caller gave
        # pending as the point that tell(params) will encode to (bin centres for grids)
        self._pending.add(self.space.encode(params), key)
        return params

    @_serialised
    def ask_x(
        self,
        context: Mapping[int, float] | None = None,
        *,
        key: Hashable | None = None,
        seed_key: int | tuple[int, ...] | None = None,
    ) -> np.ndarray:
        """:meth:`ask` on the cube (``context``: column -> [0, 1]); shape (d,)."""
        key = as_key(key, "TreeUCB.ask_x")
        rng = keyed_generator(self._key_seed, key, seed_key, "TreeUCB.ask_x")
        d = self.space.dim
        allowed = (
            f"a dict {{column: coordinate}} with int columns in [0, {d}) and real coordinates "
            "in [0, 1], or None"
        )
        message = (
            f"The 'context' parameter of TreeUCB.ask_x must be {allowed}. Got {context!r} instead."
        )
        if context is not None and not isinstance(context, Mapping):
            raise TypeError(message)
        ctx: dict[int, float] = {}
        for j, u in (context or {}).items():
            if isinstance(j, bool) or not isinstance(j, (int, np.integer)):
                raise TypeError(message)
            if not 0 <= j < d:
                raise ValueError(message)
            inside = lambda v: (v >= 0.0) & (v <= 1.0)  # noqa: E731
            coordinate = as_reals(u, "context", "TreeUCB.ask_x", allowed, inside, shown=context)
            ctx[int(j)] = float(coordinate)
        x = self._choose(ctx, rng)
        self._pending.add(x, key)
        return x

    def _choose(self, ctx: dict[int, float], rng: np.random.Generator | None) -> np.ndarray:
        """The next point, shape (d,): uniform during start-up, else in the best box; drawn
        with ``rng`` (``None``: the instance's generator)."""
        d = self.space.dim
        rng = self._rng if rng is None else rng
        if self.in_startup:
            return sample_in(rng, np.zeros(d), np.ones(d), 1, ctx)[0]
        X, r, stats = self._model()
        ctx = self._context.played(ctx, d)  # pruned="context": at the full budget
        obs, part = self._obs, self.partition
        pend = lambda: self._context.at_full(self.pending).reshape(-1, X.shape[1])  # noqa: E731
        boxes = (X, obs.scores(), part.leaf_of, stats.low, stats.high, ctx, rng)
        same = lambda P: repeats(P, obs, self._pending)  # noqa: E731
        progress, objective = obs.progress(), obs.objective_targets
        snap = Snapshot(
            *boxes,
            self.n_pending,
            pend,
            obs.targets,
            same,
            progress,
            obs.violations,
            objective,
            obs.constraints,
            *((obs.Y, obs.front_rows()) if obs.signs.size > 1 else ()),
        )
        ok = containing(stats.low, stats.high, snap.ctx)
        assert ok.any(), "the leaves tile the cube, so some leaf contains the context"
        index = np.where(ok, stats.index, -np.inf)
        if self._soft_gp is None:
            return self._inbox.draw(snap, argmax(index, rng), 1)[0][:d]
        t = self.n_observations + self.n_pending + 1
        draw = lambda b, k: self._inbox.draw(snap, b, k)  # noqa: E731
        args = (X, part, r, pend(), t, self.C, self.M, rng)
        return self._soft_gp.choose(stats, index, draw, *args)[:d]
