"""In-box samplers: where TreeUCB draws its next point inside the box it plays.

The paper (Wang, Ye, Geng, Rudin, arXiv:1901.09277, Algorithm 1) draws the point uniformly in
the played box (:class:`Uniform`).  The box choice is kept; the other samplers refine the draw
around the box's best observation:

* :class:`TrustRegion` (Eriksson et al., "Scalable Global Optimization via Local Bayesian
  Optimization", NeurIPS 2019, TuRBO): uniform in a cube of side :data:`CUBE_SIDE` ``rho``
  around the played box's best observation, clipped to the unit cube, so it reaches past the
  box's faces (the box only chooses the centre).  ``rho`` halves after ``max(4, d)`` failures
  in a row and doubles after 3 successes in a row (a success is a new best of the study),
  within ``[RHO_MIN, RHO_MAX]``; below ``RHO_MIN`` it restarts at ``RHO_INIT``.  With points
  pending (trials running in parallel), the failures that halve ``rho`` are counted beyond
  the pending ones (:func:`failure_tolerance`).  The state is a function of the sequence of
  told values and of the pending counts when they were consumed (:func:`trust_region_replay`),
  and it changes only in :meth:`TrustRegion.update`.
* :class:`LocalGP`: TuRBO's full recipe in that region: Thompson sampling of a local GP
  (:mod:`optuna_treeucb.core._localgp`).

Discrete parameters keep the box's range, unless ``discrete="region"``
(:mod:`optuna_treeucb.core._discrete`).  A point drawn outside the played box is outside the
paper's regret analysis, which charges each round to the played box.

Notations:
    d: columns of the partition (the parameters, then the budget context if any).
    low, high: bounds of the played box, shape (d,), values in [0, 1].
    center: the region's centre, shape (d,).
    rho: side of the trust region relative to ``CUBE_SIDE`` times the cube's side, > 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from typing import Protocol

import numpy as np

from optuna_treeucb.core._discrete import draw_categories
from optuna_treeucb.core._discrete import embed
from optuna_treeucb.core._discrete import grid_region
from optuna_treeucb.core._discrete import snap as snap_to_bins
from optuna_treeucb.core._discrete import step_off_centre
from optuna_treeucb.core._index import argmax
from optuna_treeucb.core._index import one_blas_thread
from optuna_treeucb.core._localgp import condition_on_pending
from optuna_treeucb.core._localgp import fit_gp
from optuna_treeucb.core._localgp import nearest
from optuna_treeucb.core._localgp import posterior_mean
from optuna_treeucb.core._localgp import region_candidates
from optuna_treeucb.core._localgp import thompson_sample
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
Discrete = Literal["box", "region"]


@dataclass(frozen=True)
class TrustRegionState:
    """State of the trust-region rule.

    Attributes:
        rho: Side of the trust region (times :data:`CUBE_SIDE` the cube's side).
        n_success: Successes in a row.
        n_failure: Failures in a row.
        best: Best value so far (larger is better; ``-inf`` before the first).
        n_seen: Number of values consumed.
    """

    rho: float = RHO_INIT
    n_success: int = 0
    n_failure: int = 0
    best: float = -math.inf
    n_seen: int = 0


def failure_tolerance(d: int, n_pending: int = 0) -> int:
    """Failures in a row that halve the region: ``max(4, d) + n_pending``.

    ``max(4, d)`` is TuRBO's tolerance with batch size 1.  With ``n_pending`` points being
    evaluated elsewhere, up to ``n_pending`` of the next told values were drawn before the
    latest best was known, and fail against it by construction; they are not evidence that
    the region is too wide, so they do not count towards the halving.

    Args:
        d: Number of dimensions.
        n_pending: Points pending when the value is consumed, >= 0.

    Returns:
        The tolerance, >= 4.
    """
    return max(4, d) + n_pending


def trust_region_step(
    state: TrustRegionState, value: float, d: int, *, count: bool, n_pending: int = 0
) -> TrustRegionState:
    """Consume one told value (larger is better).

    A value above the best so far is a success, any other a failure.  After
    :data:`SUCCESS_TOL` successes in a row ``rho`` doubles (at most :data:`RHO_MAX`); after
    :func:`failure_tolerance` failures in a row it halves; below :data:`RHO_MIN` it restarts
    at :data:`RHO_INIT`.  The counters restart after every change of ``rho``.

    Args:
        state: The state before the value.
        value: The told value (internal sign: larger is better).
        d: Number of dimensions.
        count: Whether the value counts as a success or failure (start-up values and the
            first value only set the best).
        n_pending: Points pending when the value is consumed (see :func:`failure_tolerance`).

    Returns:
        The state after the value.
    """
    first = math.isinf(state.best) and state.best < 0
    improved = value > state.best
    best = max(state.best, value)
    if not count or first:
        return TrustRegionState(
            state.rho, state.n_success, state.n_failure, best, state.n_seen + 1
        )
    rho, n_s, n_f = state.rho, state.n_success, state.n_failure
    if improved:
        n_s, n_f = n_s + 1, 0
    else:
        n_s, n_f = 0, n_f + 1
    if n_s >= SUCCESS_TOL:
        rho, n_s = min(2.0 * rho, RHO_MAX), 0
    elif n_f >= failure_tolerance(d, n_pending):
        rho, n_f = rho / 2.0, 0
        if rho < RHO_MIN:
            rho = RHO_INIT
    return TrustRegionState(rho, n_s, n_f, best, state.n_seen + 1)


def trust_region_replay(
    state: TrustRegionState, values: np.ndarray, d: int, n_startup: int, n_pending: int = 0
) -> TrustRegionState:
    """Consume the told values ``values[state.n_seen:]`` in order.

    The state is a function of the sequence of values (and of ``n_pending`` at each call),
    so a bandit rebuilt from the same observations (as the Optuna sampler does) gets the same
    state; with no points pending, of the values only.

    Args:
        state: The state after ``values[:state.n_seen]``.
        values: Every told value so far in order, shape (n,), larger is better.
        d: Number of dimensions.
        n_startup: The first ``n_startup`` values only set the best.
        n_pending: Points pending now; the new values are consumed with it.

    Returns:
        The state after all of ``values``.
    """
    for i in range(state.n_seen, values.shape[0]):
        state = trust_region_step(
            state, float(values[i]), d, count=i >= n_startup, n_pending=n_pending
        )
    return state


def region_bounds(center: np.ndarray, rho: float) -> tuple[np.ndarray, np.ndarray]:
    """TuRBO's region: side :data:`CUBE_SIDE` ``rho`` around ``center``, inside the unit cube.

    Returns:
        ``(lo, hi)``, each shape (d,), with ``0 <= lo <= center <= hi <= 1``.
    """
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
class Snapshot:
    """What an in-box sampler sees of the bandit at one ask.

    Attributes:
        X: Observations in the partition's columns, shape (n, d).
        y: Their values, larger is better, shape (n,).
        leaf_of: Box of each observation, shape (n,).
        low, high: The boxes, shape (L, d).
        ctx: Column -> coordinate of the fixed columns (the budget context included).
        rng: The bandit's random generator.
        n_pending: Pending points now.
        pending: ``() ->`` the pending points in the partition's columns, oldest first.
        targets: ``indices -> `` the local GP's targets at those observations.
        repeats: ``points (m, d) ->`` whether each decodes to an observed or pending point.
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
        space: The cube of the parameters.
        n_startup: Told values that only set the best (the start-up points).
        discrete: ``"box"``: discrete columns keep the box's range; ``"region"``: they get a
            neighbourhood of their own (:mod:`~optuna_treeucb.core._discrete`).
    """

    def __init__(self, space: UnitCube, n_startup: int, discrete: Discrete = "box") -> None:
        self.space = space
        self.n_startup = n_startup
        self.discrete = discrete
        self.state = TrustRegionState()
        self._is_discrete = np.array([p.is_discrete for p in space.params], dtype=bool)

    def update(self, values: np.ndarray, n_pending: int) -> None:
        """Consume the values told since the last call, with ``n_pending`` points pending.

        The one place where the state changes; each draw calls it before it reads ``rho``.
        """
        self.state = trust_region_replay(
            self.state, values, self.space.dim, self.n_startup, n_pending
        )

    def draw(self, snap: Snapshot, b: int, n: int) -> np.ndarray:
        """``n`` uniform points in the region around box ``b``'s best observation, (n, d)."""
        low, high = snap.low[b], snap.high[b]
        mine = np.flatnonzero(snap.leaf_of == b)
        if mine.size == 0:  # an empty cell: nothing to refine around
            return sample_in(snap.rng, low, high, n, snap.ctx)
        best = argmax(snap.y[mine], snap.rng)
        # the tree routes float32 copies of the points: keep the centre in the box
        center = np.clip(snap.X[mine[best]], low, high)
        self.update(snap.y, snap.n_pending)
        lo, hi = self.region(center, low, high)
        pts = sample_in(snap.rng, lo, hi, n, snap.ctx)
        if self.discrete == "region":
            pts = self.discrete_candidates(pts, center, lo, hi, snap)
        return pts

    def region(
        self, center: np.ndarray, low: np.ndarray, high: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The trust region around ``center``; discrete columns keep the box ``low``/``high``.

        With ``discrete="region"`` a grid's side is the region's, widened to keep a few values
        on each side of the centre's (:func:`~optuna_treeucb.core._discrete.grid_region`), so
        the region holds about ``0.8 rho`` of the grid's values however small the box; a
        categorical draws from all its choices (:meth:`discrete_candidates`).
        """
        t_lo, t_hi = region_bounds(center, self.state.rho)
        discrete = np.zeros(center.shape[0], dtype=bool)
        discrete[: self.space.dim] = self._is_discrete
        lo, hi = np.where(discrete, low, t_lo), np.where(discrete, high, t_hi)
        if self.discrete == "region":
            for j in np.flatnonzero(self._is_discrete):
                spec = self.space.params[j]
                if spec.kind == "categorical":
                    lo[j], hi[j] = 0.0, 1.0
                else:
                    lo[j], hi[j] = grid_region(spec, center[j], t_lo[j], t_hi[j], 0.0, 1.0)
        return lo, hi

    def discrete_candidates(
        self,
        cand: np.ndarray,
        center: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
        snap: Snapshot,
        moved: np.ndarray | None = None,
    ) -> np.ndarray:
        """``discrete="region"``: the candidates' discrete columns in the trust region.

        A categorical keeps the centre's choice or, with probability ``min(1, 0.8 rho)``,
        takes one of the choices in ``[lo, hi]``; a grid is snapped to its bins' centres, and
        a coordinate that a perturbation of the centre moved (``moved``, shape (m, d)) moves
        by at least one value.  Context columns stay as given.  ``cand`` (m, d) is changed in
        place and returned.
        """
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

    The GP (isotropic Matern-5/2, :mod:`optuna_treeucb.core._localgp`) is fitted on the
    :data:`LOCAL_GP_N` observations nearest to the box's best one; the region's centre is the
    box's observation of largest posterior mean among them (robust to noise); the pending
    points in the region are fantasies at the posterior mean (kriging believer), so
    concurrent draws avoid them without leaving the good part of the region.  A constant liar
    at the lowest local value, tried on tuning seeds, pushed them out of it
    (``benchmarks/results/async_pending_tuning.md``).  If the draw's best candidate repeats an
    observed or pending point, the draw is made again on the candidates that do not.

    Asked for several points (``n > 1``: the soft-GP index scores candidates itself), it
    returns :class:`TrustRegion`'s uniform candidates in the same region: the index, not the
    local GP, then chooses.

    Args: as :class:`TrustRegion`.
    """

    def draw(self, snap: Snapshot, b: int, n: int) -> np.ndarray:
        """One Thompson-sampled point for box ``b`` (shape (1, d)); see the class docstring."""
        if n > 1:
            return super().draw(snap, b, n)
        low, high = snap.low[b], snap.high[b]
        mine = np.flatnonzero(snap.leaf_of == b)
        if mine.size == 0:  # an empty cell: nothing to refine around
            return sample_in(snap.rng, low, high, n, snap.ctx)
        best = mine[argmax(snap.y[mine], snap.rng)]
        with one_blas_thread():
            return self._thompson(snap, b, best)

    def features(self, P: np.ndarray) -> np.ndarray:
        """Inputs of the GP for points ``P`` (m, d): the points, or with
        ``discrete="region"`` their categoricals one-hot
        (:func:`~optuna_treeucb.core._discrete.embed`)."""
        if self.discrete == "box" or all(p.kind != "categorical" for p in self.space.params):
            return P
        return embed(P, self.space.params)

    def _thompson(self, snap: Snapshot, b: int, best: int) -> np.ndarray:
        X, rng, ctx = snap.X, snap.rng, snap.ctx
        low, high = snap.low[b], snap.high[b]
        Z = self.features(X)
        local = nearest(Z, Z[best], LOCAL_GP_N)
        # with one-hot categoricals the lengthscales still scale with the square root of the
        # partition's columns, whose diameter the one-hot blocks keep
        d = X.shape[1]
        gp = fit_gp(Z[local], snap.targets(local), dim=None if Z.shape[1] == d else d)
        own = local[snap.leaf_of[local] == b]
        center = np.clip(X[own[argmax(posterior_mean(gp, Z[own]), rng)]], low, high)
        self.update(snap.y, snap.n_pending)
        lo, hi = self.region(center, low, high)
        for j, u in ctx.items():
            center[j] = lo[j] = hi[j] = u
        cand = region_candidates(rng, lo, hi, center, LOCAL_GP_CANDIDATES)
        if self.discrete == "region":
            moved = cand != center
            moved[: cand.shape[0] - cand.shape[0] // 2] = False  # the uniform half
            cand = self.discrete_candidates(cand, center, lo, hi, snap, moved)
        pend = snap.pending()
        tol = 1e-9  # encoded parameters may differ from the drawn point by rounding
        pend = pend[np.all((pend >= lo - tol) & (pend <= hi + tol), axis=1)][:LOCAL_GP_PENDING]
        gp = condition_on_pending(gp, self.features(pend))  # kriging believer
        score = thompson_sample(gp, self.features(cand), rng, LOCAL_GP_JOINT)
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
        score = thompson_sample(gp, self.features(fresh), rng, LOCAL_GP_JOINT)
        return fresh[[argmax(score, rng)]]
