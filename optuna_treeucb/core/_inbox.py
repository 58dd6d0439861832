"""In-box samplers: where TreeUCB draws its next point inside the box it plays.

:class:`Uniform` is the paper's rule (arXiv:1901.09277, Algorithm 1).  :class:`TrustRegion`
(TuRBO, Eriksson et al., NeurIPS 2019) draws in a cube around the box's best observation,
clipped to the unit cube (so past the box, outside the regret analysis); :class:`LocalGP`
picks that point by Thompson sampling of a local GP (:mod:`._localgp`).

Notations:
    d: columns of the partition (the parameters, then the budget context if any).
    low, high: bounds of the played box, shape (d,), values in [0, 1].
    center: the region's centre, shape (d,).  rho: the region's relative side, > 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import replace
from typing import Protocol

import numpy as np

from optuna_treeucb.core._discrete import draw_categories
from optuna_treeucb.core._discrete import embed
from optuna_treeucb.core._discrete import grid_region
from optuna_treeucb.core._discrete import neighbours
from optuna_treeucb.core._discrete import snap as snap_to_bins
from optuna_treeucb.core._discrete import step_off_centre
from optuna_treeucb.core._index import argmax
from optuna_treeucb.core._index import one_blas_thread
from optuna_treeucb.core._localgp import FINE_NOISE_RATIOS
from optuna_treeucb.core._localgp import NOISE_RATIOS
from optuna_treeucb.core._localgp import LocalGP as GP
from optuna_treeucb.core._localgp import condition_on_pending
from optuna_treeucb.core._localgp import finite
from optuna_treeucb.core._localgp import fit_gp
from optuna_treeucb.core._localgp import mean_optimum
from optuna_treeucb.core._localgp import nearest
from optuna_treeucb.core._localgp import posterior_mean
from optuna_treeucb.core._localgp import region_candidates
from optuna_treeucb.core._localgp import thompson_sample
from optuna_treeucb.core._localgp import unit_scale
from optuna_treeucb.core._objectives import HYPERVOLUME_MAX_OBJECTIVES
from optuna_treeucb.core._objectives import domination_gaps
from optuna_treeucb.core._objectives import hypervolume_improvements
from optuna_treeucb.core._options import Discrete
from optuna_treeucb.core._space import UnitCube

RHO_INIT = 1.0
RHO_MAX = 2.0
RHO_MIN = 2.0**-7  # TuRBO's L_min relative to its L_init (0.5^7 vs 0.8, rounded)
SUCCESS_TOL = 3
CUBE_SIDE = 0.8  # side of the region at rho = 1 (TuRBO's L_init), relative to the cube
LOCAL_GP_N = 48  # observations nearest to the centre that the local GP is fitted on
LOCAL_GP_CANDIDATES = 128  # Thompson-sampling candidates in the trust region
LOCAL_GP_PENDING = 32  # pending points in the region the local GP conditions on, at most
LOCAL_GP_JOINT: int | None = 32  # candidates drawn jointly (best upper bounds); None: all
# with the centre's one-column neighbours among the candidates, those of best posterior mean
# are drawn jointly too: the neighbours are too sure for the upper bounds alone
LOCAL_GP_MEAN_TOP = 16
# under constraints, the candidates include this many optima of the objective's posterior
# mean subject to the constraints' means (from the centre and the best candidates)
LOCAL_GP_MEAN_OPTIMA = 4
REFERENCE_MARGIN = 0.1  # reference point: the front's worst minus this share of its range
# with several objectives, one ask in this many proposes by hypervolume improvement (TSEMO);
# alone, that proposal lost to the Pareto-rank GP; alternated, it led (moo_alternate_tuning.md)
HYPERVOLUME_EVERY = 2


@dataclass(frozen=True)
class TrustRegionState:
    """The region's side ``rho`` (times :data:`CUBE_SIDE`), successes and failures in a row,
    the best feasible value so far (``-inf`` before any), how many values were consumed and
    the least violation of an infeasible value so far (``inf`` before any)."""

    rho: float = RHO_INIT
    n_success: int = 0
    n_failure: int = 0
    best: float = -math.inf
    n_seen: int = 0
    least: float = math.inf


def failure_tolerance(d: int, n_pending: int = 0) -> int:
    """Failures in a row that halve the region: TuRBO's ``max(4, d)``, plus the pending
    points (drawn before the latest best was known, they fail against it by construction)."""
    return max(4, d) + n_pending


def trust_region_step(
    state: TrustRegionState,
    value: float,
    d: int,
    *,
    count: bool,
    n_pending: int = 0,
    violation: float = 0.0,
) -> TrustRegionState:
    """The state after one told value (larger is better) and its violation (0: feasible).

    A success is SCBO's (Eriksson and Poloczek 2021): a feasible value above the best feasible
    one, or, while none is feasible, a violation below the least so far.  ``rho`` doubles
    after :data:`SUCCESS_TOL` successes in a row (up to :data:`RHO_MAX`), halves after
    :func:`failure_tolerance` failures, and restarts below :data:`RHO_MIN`.  With ``count``
    false (start-up values), and for the first value, the value only sets the bests."""
    feasible = violation == 0.0
    best = max(state.best, value) if feasible else state.best
    least = state.least if feasible else min(state.least, violation)
    seen = replace(state, best=best, least=least, n_seen=state.n_seen + 1)
    if not count or (state.best == -math.inf and state.least == math.inf):  # the first value
        return seen
    if feasible:
        success = value > state.best
    else:
        success = state.best == -math.inf and violation < state.least
    n_s, n_f = (state.n_success + 1, 0) if success else (0, state.n_failure + 1)
    rho = state.rho
    if n_s >= SUCCESS_TOL:
        rho, n_s = min(2.0 * rho, RHO_MAX), 0
    elif n_f >= failure_tolerance(d, n_pending):
        rho, n_f = rho / 2.0, 0
        if rho < RHO_MIN:
            rho = RHO_INIT
    return replace(seen, rho=rho, n_success=n_s, n_failure=n_f)


def trust_region_replay(
    state: TrustRegionState,
    values: np.ndarray,
    d: int,
    n_startup: int,
    n_pending: int = 0,
    violations: np.ndarray | None = None,
) -> TrustRegionState:
    """The state after ``values`` (every told value, (n,)) and their ``violations`` ((n,),
    ``None``: all feasible), from ``state``, the state after ``values[:state.n_seen]``; the
    first ``n_startup`` values only set the bests."""
    for i in range(state.n_seen, values.shape[0]):
        v = 0.0 if violations is None else float(violations[i])
        state = trust_region_step(
            state, float(values[i]), d, count=i >= n_startup, n_pending=n_pending, violation=v
        )
    return state


def region_bounds(center: np.ndarray, rho: float) -> tuple[np.ndarray, np.ndarray]:
    """TuRBO's region of side ``CUBE_SIDE rho`` around ``center``, clipped: ``(lo, hi)``, (d,)."""
    half = 0.5 * np.full_like(center, CUBE_SIDE * rho)
    return np.maximum(center - half, 0.0), np.minimum(center + half, 1.0)


def sample_in(
    rng: np.random.Generator, low: np.ndarray, high: np.ndarray, n: int, ctx: Mapping[int, float]
) -> np.ndarray:
    """``n`` uniform points in the box ``low``/``high`` (d,), context columns fixed, (n, d)."""
    pts = low[None] + rng.random((n, low.shape[0])) * (high - low)[None]
    for j, u in ctx.items():
        pts[:, j] = u
    return pts


@dataclass(frozen=True)
class Front:
    """Objective vectors (p, k) to improve on, larger is better, and a reference point (k,)
    below them."""

    values: np.ndarray
    reference: np.ndarray


@dataclass(frozen=True)
class Snapshot:
    """What an in-box sampler sees of the bandit at one ask.

    Attributes:
        X, y, leaf_of: Observations in the partition's columns (n, d), the scores a box's
            best is chosen by (larger is better) and their boxes, each (n,).
        low, high: The boxes, shape (L, d).
        ctx: Column -> coordinate of the fixed columns (the budget context included).
        rng: The bandit's random generator.
        n_pending: Pending points now; ``pending()``: them, in the partition's columns.
        targets: ``indices ->`` the local GP's targets at those observations.
        repeats: ``points (m, d) ->`` whether each decodes to an observed or pending point.
        progress: What the trust region's success counter reads, (n,) (``None``: ``y``).
        violations: Total violation of each observation, (n,) (``None``: all feasible).
        objective: ``indices ->`` the objective's targets there, feasible or not (SCBO's
            objective model; ``None``: ``targets``).
        constraints: Constraint values of each observation, (n, c) (``None``: unknown).
        objectives: Every objective of each observation, larger is better, (n, k), with
            several objectives (``None``: one).
        front: The feasible observations on the first Pareto front, increasing indices.
    """

    X: np.ndarray
    y: np.ndarray
    leaf_of: np.ndarray
    low: np.ndarray
    high: np.ndarray
    ctx: Mapping[int, float]
    rng: np.random.Generator
    n_pending: int
    pending: Callable[[], np.ndarray]
    targets: Callable[[np.ndarray], np.ndarray]
    repeats: Callable[[np.ndarray], np.ndarray]
    progress: np.ndarray | None = None
    violations: np.ndarray | None = None
    objective: Callable[[np.ndarray], np.ndarray] | None = None
    constraints: np.ndarray | None = None
    objectives: np.ndarray | None = None
    front: np.ndarray | None = None

    def told(self) -> np.ndarray:
        """The sequence the trust region consumes: ``progress``, else ``y``."""
        return self.y if self.progress is None else self.progress

    def constrained(self) -> bool:
        """Whether some observation is infeasible (a positive violation)."""
        return self.violations is not None and bool((self.violations > 0.0).any())

    def several(self) -> bool:
        """Whether this ask proposes by hypervolume improvement, with a local GP per objective:
        2 to :data:`~._objectives.HYPERVOLUME_MAX_OBJECTIVES` objectives, on every
        :data:`HYPERVOLUME_EVERY`-th number of observations (the others by the Pareto-rank
        reward's GP)."""
        Y = self.objectives
        if Y is None or not 1 < Y.shape[1] <= HYPERVOLUME_MAX_OBJECTIVES:
            return False
        return Y.shape[0] % HYPERVOLUME_EVERY == HYPERVOLUME_EVERY - 1


class InBoxSampler(Protocol):
    """Draws points in (or around) a played box."""

    def draw(self, snap: Snapshot, b: int, n: int) -> np.ndarray:
        """``n`` points for box ``b``, shape (n, d)."""


class Uniform:
    """The paper's rule: uniform in the played box."""

    def draw(self, snap: Snapshot, b: int, n: int) -> np.ndarray:
        """``n`` uniform points in box ``b``, shape (n, d)."""
        return sample_in(snap.rng, snap.low[b], snap.high[b], n, snap.ctx)


class TrustRegion:
    """Uniform in TuRBO's trust region around the played box's best observation.

    Args:
        space: The parameters.
        n_startup: Told values that only set the best.
        discrete: ``"box"``: discrete columns keep the box's range; ``"region"``: they get a
            neighbourhood of their own (:mod:`._discrete`).
    """

    def __init__(self, space: UnitCube, n_startup: int, discrete: Discrete = "box") -> None:
        self.space = space
        self.n_startup = n_startup
        self.discrete = discrete
        self.state = TrustRegionState()
        self._is_discrete = np.array([p.is_discrete for p in space.params], dtype=bool)

    def update(
        self, values: np.ndarray, n_pending: int, violations: np.ndarray | None = None
    ) -> None:
        """Consume the values told since the last call: the one place the state changes."""
        self.state = trust_region_replay(
            self.state, values, self.space.dim, self.n_startup, n_pending, violations
        )

    @staticmethod
    def best_in_box(snap: Snapshot, b: int) -> int | None:
        """The observation of largest value in box ``b``, ``None`` for an empty box."""
        mine = np.flatnonzero(snap.leaf_of == b)
        if mine.size == 0:
            return None
        # values scaled into [0.5, 1) exactly: argmax's tie tolerance is absolute
        return int(mine[argmax(unit_scale(snap.y[mine])[0], snap.rng)])

    def draw(self, snap: Snapshot, b: int, n: int) -> np.ndarray:
        """``n`` uniform points in the region around box ``b``'s best observation, (n, d)."""
        low, high = snap.low[b], snap.high[b]
        best = self.best_in_box(snap, b)
        if best is None:  # an empty cell: nothing to refine around
            return sample_in(snap.rng, low, high, n, snap.ctx)
        # the tree routes float32 copies of the points: keep the centre in the box
        center = np.clip(snap.X[best], low, high)
        self.update(snap.told(), snap.n_pending, snap.violations)
        lo, hi = self.region(center, low, high)
        pts = sample_in(snap.rng, lo, hi, n, snap.ctx)
        if self.discrete == "region":
            pts = self.discrete_candidates(pts, center, lo, hi, snap)
        return pts

    def region(
        self, center: np.ndarray, low: np.ndarray, high: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The trust region around ``center``: ``(lo, hi)``, each (d,); discrete columns keep
        the box's range, or with ``discrete="region"`` get :func:`~._discrete.grid_region`."""
        t_lo, t_hi = region_bounds(center, self.state.rho)
        discrete = self.discrete_columns(center.shape[0])
        lo, hi = np.where(discrete, low, t_lo), np.where(discrete, high, t_hi)
        if self.discrete == "region":
            for j in np.flatnonzero(self._is_discrete):
                spec = self.space.params[j]
                if spec.kind == "categorical":
                    lo[j], hi[j] = 0.0, 1.0
                else:
                    lo[j], hi[j] = grid_region(spec, center[j], t_lo[j], t_hi[j], 0.0, 1.0)
        return lo, hi

    def discrete_columns(self, d: int) -> np.ndarray:
        """Which of the ``d`` partition columns are discrete parameters, (d,) (a budget
        context column, past the parameters, is not)."""
        out = np.zeros(d, dtype=bool)
        out[: self.space.dim] = self._is_discrete
        return out

    def discrete_candidates(
        self,
        cand: np.ndarray,
        center: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
        snap: Snapshot,
        moved: np.ndarray | None = None,
    ) -> np.ndarray:
        """``discrete="region"``: the discrete columns of ``cand`` (m, d), set in place
        (:func:`~._discrete.draw_categories`, :func:`~._discrete.step_off_centre`)."""
        m = cand.shape[0]
        side = CUBE_SIDE * self.state.rho
        for j in np.flatnonzero(self._is_discrete):
            if j in snap.ctx:
                continue
            spec = self.space.params[j]
            if spec.kind == "categorical":
                cand[:, j] = draw_categories(snap.rng, spec, center[j], lo[j], hi[j], side, m)
            elif moved is None:
                cand[:, j] = snap_to_bins(spec, cand[:, j])[1]
            else:
                cand[:, j] = step_off_centre(
                    snap.rng, spec, center[j], cand[:, j], moved[:, j], lo[j], hi[j]
                )
        return cand


class LocalGP(TrustRegion):
    """Thompson sampling of a local GP in the trust region (TuRBO's full recipe).

    The GP is fitted on the :data:`LOCAL_GP_N` observations nearest to the box's best one, the
    region centred on the one of best posterior mean; pending points are fantasies at the
    posterior mean (kriging believer).  Once an observation is infeasible, SCBO's recipe
    (Eriksson and Poloczek 2021): one region around the best feasible (else least violating)
    observation of all, a GP of the objective and one per constraint (:meth:`_score`), the
    candidates including the optima of the objective's mean under the constraints' means
    (:meth:`_mean_optima`).  With 2 or 3 objectives, every other ask fits a GP per objective
    instead and takes the candidate whose drawn objectives add the most hypervolume to the
    front (TSEMO, Bradford et al. 2018), in a region centred on the box's best front point
    (MORBO, Daulton et al. 2022).  With a discrete column, the candidates include the centre
    moved along one discrete column to each of the box's other values (a discrete local
    search's step, as Optuna's ``optim_mixed``).  A draw that repeats a tried point is drawn
    again.
    Asked for ``n > 1`` points (the soft-GP index), it draws as :class:`TrustRegion`.
    """

    def draw(self, snap: Snapshot, b: int, n: int) -> np.ndarray:
        """One Thompson-sampled point for box ``b``, shape (1, d)."""
        if n > 1:
            return super().draw(snap, b, n)
        best = self.best_in_box(snap, b)
        if best is None:  # an empty cell: nothing to refine around
            return sample_in(snap.rng, snap.low[b], snap.high[b], n, snap.ctx)
        if snap.constrained():  # SCBO's one region: at the best feasible, else least violating
            best = int(argmax(unit_scale(snap.y)[0], snap.rng))
        with one_blas_thread():
            return self._thompson(snap, b, best)

    def features(self, P: np.ndarray) -> np.ndarray:
        """Inputs of the GP for ``P`` (m, d); ``discrete="region"``: one-hot categoricals."""
        if self.discrete == "box" or all(p.kind != "categorical" for p in self.space.params):
            return P
        return embed(P, self.space.params)

    def _thompson(self, snap: Snapshot, b: int, best: int) -> np.ndarray:
        X, rng, ctx = snap.X, snap.rng, snap.ctx
        low, high = snap.low[b], snap.high[b]
        Z = self.features(X)
        local = nearest(Z, Z[best], LOCAL_GP_N)
        # one-hot blocks keep the columns' diameter: the lengthscales scale with the columns
        dim = None if Z.shape[1] == X.shape[1] else X.shape[1]
        gps = self._models(snap, Z, local, dim)
        if snap.constrained():  # SCBO's centre, in the box or not
            center = X[best].copy()
        elif snap.several():  # MORBO's: the front point of largest contribution in the box
            center = np.clip(X[best], low, high)
        else:
            own = local[snap.leaf_of[local] == b]
            center = np.clip(X[own[argmax(posterior_mean(gps[0], Z[own]), rng)]], low, high)
        self.update(snap.told(), snap.n_pending, snap.violations)
        lo, hi = self.region(center, low, high)
        for j, u in ctx.items():
            center[j] = lo[j] = hi[j] = u
        cand = region_candidates(rng, lo, hi, center, LOCAL_GP_CANDIDATES)
        n_mean = 0
        if self.discrete == "box" and self._is_discrete.any():
            # a discrete local search's first step (Optuna's optim_mixed): the centre with one
            # discrete column at another of the box's values (mixed_mixint_mean_top_tuning.md)
            near = neighbours(self.space.params, center, low, high, tuple(ctx))
            if near.shape[0]:
                cand, n_mean = np.vstack((cand, near)), LOCAL_GP_MEAN_TOP
        if snap.objectives is None and snap.constraints is not None and len(gps) > 1:
            # one objective and more GPs: SCBO's, one per constraint (a local value infeasible);
            # random candidates meet a constraint's boundary, where constrained optima lie,
            # only by chance: add the models' optima (constrained_mean_optima_tuning.md); not
            # on the total violation's GP, whose mean is no boundary (0 all over the feasible)
            cand = np.vstack((cand, self._mean_optima(gps, cand, center, lo, hi, ctx)))
        if self.discrete == "region":
            moved = cand != center
            moved[: cand.shape[0] - cand.shape[0] // 2] = False  # the uniform half
            cand = self.discrete_candidates(cand, center, lo, hi, snap, moved)
        pend = snap.pending()
        tol = 1e-9  # encoded parameters may differ from the drawn point by rounding
        pend = pend[np.all((pend >= lo - tol) & (pend <= hi + tol), axis=1)][:LOCAL_GP_PENDING]
        front = self._front(snap, gps, self.features(pend)) if snap.several() else None
        gps = [condition_on_pending(gp, self.features(pend)) for gp in gps]  # kriging believer
        score = self._score(gps, self.features(cand), rng, front, n_mean)
        best_cand = cand[[argmax(score, rng)]]
        if not snap.repeats(best_cand)[0]:
            return best_cand
        # the draw's best repeats a tried point: draw again on the candidates that do not
        fresh = cand[~snap.repeats(cand)]
        if fresh.shape[0] == 0:  # every candidate repeats one: as many uniform in the box
            uni = sample_in(rng, low, high, cand.shape[0], ctx)
            fresh = uni[~snap.repeats(uni)]
            if fresh.shape[0] == 0:  # every value of the box has been tried
                return best_cand
        score = self._score(gps, self.features(fresh), rng, front, n_mean)
        return fresh[[argmax(score, rng)]]

    def _mean_optima(
        self,
        gps: list[GP],
        cand: np.ndarray,
        center: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
        ctx: Mapping[int, float],
    ) -> np.ndarray:
        """Under constraints, up to :data:`LOCAL_GP_MEAN_OPTIMA` candidates more: the optima
        of the objective's posterior mean ``gps[0]`` subject to the constraints' means
        ``gps[1:]`` (:func:`~._localgp.mean_optimum`) in the region ``[lo, hi]``, from the
        centre and from the candidates ``cand`` of best mean among those the means call
        feasible; only the continuous columns move.  Shape (k, d), ``k = 0`` on one-hot
        inputs or without a continuous column."""
        free = ~self.discrete_columns(center.shape[0])
        free[list(ctx)] = False
        if not free.any() or self.features(cand[:1]).shape[1] != cand.shape[1]:
            return cand[:0]
        means = [posterior_mean(gp, cand) for gp in gps]
        ok = np.all(np.column_stack(means[1:]) >= 0.0, axis=1)
        order = np.argsort(-np.where(ok, means[0], -np.inf), kind="stable")
        top = order[: LOCAL_GP_MEAN_OPTIMA - 1]
        starts = np.vstack((center, cand[top[ok[top]]]))
        return np.array([mean_optimum(gps[0], gps[1:], x, lo, hi, free) for x in starts])

    @staticmethod
    def _models(snap: Snapshot, Z: np.ndarray, local: np.ndarray, dim: int | None) -> list[GP]:
        """The local GP of the targets; under constraints (a local observation infeasible),
        SCBO's pair instead: the objective's GP and the negated total violation's.  With
        constraints, every GP's noise ratio is chosen on
        :data:`~._localgp.FINE_NOISE_RATIOS`."""
        v = None if snap.violations is None else snap.violations[local]
        constrained = snap.constraints is not None or snap.constrained()
        noise = FINE_NOISE_RATIOS if constrained else NOISE_RATIOS

        def fit(y: np.ndarray) -> GP:
            return fit_gp(Z[local], y, dim, noise)

        if snap.several():  # one GP per objective (TSEMO, MORBO), then the constraints'
            assert snap.objectives is not None
            Y = snap.objectives[local]
            objectives = [fit(finite(Y[:, j])) for j in range(Y.shape[1])]
            if v is None or not (v > 0.0).any():
                return objectives
        elif v is None or not (v > 0.0).any() or snap.objective is None:
            return [fit(snap.targets(local))]
        else:
            objectives = [fit(snap.objective(local))]
        if snap.constraints is None:
            return [*objectives, fit(-v)]
        return [*objectives, *(fit(-finite(c)) for c in snap.constraints[local].T)]

    @staticmethod
    def _front(snap: Snapshot, gps: list[GP], pending: np.ndarray) -> Front:
        """The front the candidates' hypervolume improvements are measured against: the
        feasible observations' first front and the posterior means at the pending points
        (their kriging believers), and its reference point."""
        assert snap.objectives is not None and snap.front is not None
        Y = np.column_stack([finite(y) for y in snap.objectives.T])
        k = Y.shape[1]
        F = Y[snap.front]
        if pending.shape[0]:
            F = np.vstack((F, np.column_stack([posterior_mean(gp, pending) for gp in gps[:k]])))
        base = F if F.shape[0] else Y
        span = np.ptp(base, axis=0)
        span = np.where(span > 0.0, span, np.ptp(Y, axis=0))
        span = np.where(span > 0.0, span, 1.0)
        return Front(F, base.min(axis=0) - REFERENCE_MARGIN * span)

    @staticmethod
    def _score(
        gps: list[GP],
        F: np.ndarray,
        rng: np.random.Generator,
        front: Front | None = None,
        n_mean: int = 0,
    ) -> np.ndarray:
        """Thompson scores of the candidates ``F`` (m, d'), larger is better: one GP's draw;
        SCBO's with two: the objective's draw where the violation's draw is feasible (<= 0),
        else, if none is, the negated violation's draw (Eriksson and Poloczek 2021).  With
        several objectives (``front``), the objective's draw is TSEMO's: the hypervolume the
        drawn objectives add to ``front`` (Bradford et al. 2018), or, where no feasible draw
        adds any, minus the draw's :func:`~._objectives.domination_gaps`.  ``n_mean``: see
        :func:`~._localgp.thompson_sample`."""
        if len(gps) == 1:
            return thompson_sample(gps[0], F, rng, LOCAL_GP_JOINT, n_mean)
        k = 1 if front is None else front.values.shape[1]
        f = thompson_sample(gps[0], F, rng)
        if front is not None:
            S = np.column_stack([f, *(thompson_sample(gp, F, rng) for gp in gps[1:k])])
        if len(gps) == k:
            feasible = np.ones(F.shape[0], dtype=bool)
            g = np.zeros(F.shape[0])
        else:
            # the negated violation, or the sum of the negated constraints' positive parts
            g = -np.sum([np.maximum(-thompson_sample(gp, F, rng), 0.0) for gp in gps[k:]], axis=0)
            feasible = g >= 0.0
        if front is not None:
            f = hypervolume_improvements(S, front.values, front.reference)
            if not (f[feasible] > 0.0).any():
                f = -domination_gaps(S, front.values) if front.values.shape[0] else S.sum(axis=1)
        return np.where(feasible, f, -np.inf) if feasible.any() else g
