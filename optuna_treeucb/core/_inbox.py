"""In-box samplers: where TreeUCB draws its next point inside the box it plays.

The paper (Wang, Ye, Geng, Rudin, arXiv:1901.09277, Algorithm 1) draws the point uniformly in
the played box.  The box choice is kept; these pure functions refine the draw inside it:

* trust region (Eriksson et al., "Scalable Global Optimization via Local Bayesian
  Optimization", NeurIPS 2019, TuRBO): a box of relative side ``rho`` around the played box's
  best point, intersected with the box.  ``rho`` halves after ``max(4, d)`` failures in a row
  and doubles after 3 successes in a row (a success is a new best of the study), within
  ``[rho_min, rho_max]``; below ``rho_min`` it restarts at ``rho_init``.  With points
  pending (trials running in parallel), the failures that halve ``rho`` are counted beyond
  the pending ones (:func:`failure_tolerance`).  The state is a function of the sequence of
  told values (and of the pending counts when they were consumed,
  :func:`trust_region_replay`).  TreeUCB
  narrows only the continuous columns: a discrete parameter keeps the box's whole range, so a
  category is never locked in by the trust region (only by the box).
* reach of the region (``region``): the trust region above lies inside the played box, so
  once the boxes are small it cannot move past the box's faces, even when the optimum sits
  just across a split.  ``region="around"`` keeps its side relative to the box but clips it
  to the unit cube only, so it reaches up to ``rho w / 2`` past the box; ``region="cube"``
  is TuRBO's own region, of side ``CUBE_SIDE rho`` relative to the cube (TuRBO's
  ``L in [2^-7, 1.6]`` with ``L_init = 0.8``), clipped to the cube (:func:`region_bounds`).
* smoothed centre (``center="smoothed"``): under noise the box's best raw observation is its
  luckiest draw, so the trust region is centred instead on the box's point with the best
  *local mean*, the mean value of its ``k`` nearest observations in the box
  (:func:`smoothed_best`), and a told value counts as a success when its local mean among
  the observations so far beats the best local mean so far (:func:`local_means`), a
  k-nearest-neighbour smoother as in SMAC's and TuRBO's noisy variants' use of a model value
  instead of the raw one.
* Parzen candidates: uniform points in the box plus Gaussian perturbations of the box's best
  points, scored by the ratio ``l(x) / g(x)`` of Parzen densities of the box's good and bad
  observations (TPE's criterion, Bergstra et al., NeurIPS 2011, restricted to the box);
  pending points count as bad, so concurrent asks spread out.

Notations:
    d: number of dimensions; k: number of candidates; n_b: observations in the played box.
    low, high: bounds of the played box, shape (d,), values in [0, 1].
    center: the box's best point, shape (d,).
    rho: side of the trust region relative to the box's side (``region="cube"``: to
        ``CUBE_SIDE`` times the cube's), > 0.
    X_good, X_bad: observations of the box split by reward, shapes (n_good, d), (n_bad, d).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from optuna_treeucb.core._localgp import nearest

RHO_INIT = 1.0
RHO_MAX = 2.0  # a side of 2 box sides covers the box wherever the centre is
RHO_MIN = 2.0**-7  # TuRBO's L_min relative to its L_init (0.5^7 vs 0.8, rounded)
SUCCESS_TOL = 3
BANDWIDTH = 0.1
SMOOTH_K = 5  # neighbours averaged by the smoothed centre (the point itself included)
SMOOTH_TOP = 16  # best raw points of the box that the smoothed centre considers
CUBE_SIDE = 0.8  # side of region="cube" at rho = 1 (TuRBO's L_init), relative to the cube
REGIONS = ("box", "around", "cube")


@dataclass(frozen=True)
class TrustRegion:
    """State of the trust-region rule.

    Attributes:
        rho: Side of the trust region relative to the played box.
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

    ``max(4, d)`` is TuRBO's tolerance with batch size 1: failures of points drawn around the
    current centre.  With ``n_pending`` points being evaluated elsewhere, up to ``n_pending``
    of the next told values were drawn before the latest best was known (around an older
    centre, or a wider region), and fail against it by construction; they are not evidence
    that the region is too wide, so they do not count towards the halving.  Without this,
    ``W`` trials running at once halve the region after a handful of such stale failures
    after every success, and the sequential gain of the trust region is lost.

    Args:
        d: Number of dimensions.
        n_pending: Points pending when the value is consumed, >= 0.

    Returns:
        The tolerance, >= 4.
    """
    return max(4, d) + n_pending


def trust_region_step(
    state: TrustRegion, value: float, d: int, *, count: bool, n_pending: int = 0
) -> TrustRegion:
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
        return TrustRegion(state.rho, state.n_success, state.n_failure, best, state.n_seen + 1)
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
    return TrustRegion(rho, n_s, n_f, best, state.n_seen + 1)


def trust_region_replay(
    state: TrustRegion, values: np.ndarray, d: int, n_startup: int, n_pending: int = 0
) -> TrustRegion:
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


def local_means(X: np.ndarray, y: np.ndarray, start: int, k: int = SMOOTH_K) -> np.ndarray:
    """Local mean of each observation ``i >= start`` among the observations up to it.

    The local mean of observation ``i`` is the mean value of its ``k`` nearest neighbours
    (Euclidean, itself included, ties broken by index) among ``X[: i + 1]``, so it depends on
    the observations so far only and a replay gives the same values.

    Args:
        X: Observations, shape (n, d), values in [0, 1].
        y: Their values, shape (n,), larger is better.
        start: First observation to smooth.
        k: Neighbours averaged.

    Returns:
        Shape (n - start,).
    """
    out = np.empty(X.shape[0] - start)
    for i in range(start, X.shape[0]):
        out[i - start] = float(np.mean(y[nearest(X[: i + 1], X[i], k)]))
    return out


def smoothed_best(X: np.ndarray, y: np.ndarray, k: int = SMOOTH_K) -> int:
    """The observation of a box with the best local mean (mean of its ``k`` nearest in the box).

    Only the box's :data:`SMOOTH_TOP` best raw observations are candidates, so the cost is
    O(n_b d) per call; a lucky outlier among them loses to a point whose neighbours are good.

    Args:
        X: The box's observations, shape (n_b, d), n_b >= 1.
        y: Their values, shape (n_b,), larger is better.
        k: Neighbours averaged (the point itself included).

    Returns:
        Index into ``X`` of the centre (the first of equal local means, best raw first).
    """
    n = y.shape[0]
    top = np.argsort(-y, kind="stable")[:SMOOTH_TOP]
    m = min(k, n)
    dist = np.sum((X[top][:, None, :] - X[None, :, :]) ** 2, axis=2)  # (top, n_b)
    near = (
        np.argpartition(dist, m - 1, axis=1)[:, :m]
        if m < n
        else np.tile(np.arange(n), (top.size, 1))
    )
    score = y[near].mean(axis=1)
    return int(top[int(np.argmax(score))])


def trust_region_bounds(
    center: np.ndarray, low: np.ndarray, high: np.ndarray, rho: float
) -> tuple[np.ndarray, np.ndarray]:
    """The trust region ``[c - rho w / 2, c + rho w / 2]`` intersected with the box.

    Args:
        center: Shape (d,), inside the box.
        low, high: The box, shape (d,).
        rho: Side relative to the box's side ``w = high - low``.

    Returns:
        ``(lo, hi)``, each shape (d,), with ``low <= lo <= center <= hi <= high``.
    """
    half = 0.5 * rho * (high - low)
    return np.maximum(center - half, low), np.minimum(center + half, high)


def region_bounds(
    center: np.ndarray, low: np.ndarray, high: np.ndarray, rho: float, region: str
) -> tuple[np.ndarray, np.ndarray]:
    """The trust region of relative side ``rho`` around ``center``, by its reach.

    * ``"box"``: side ``rho w`` with ``w = high - low``, inside the box
      (:func:`trust_region_bounds`).
    * ``"around"``: side ``rho w``, inside the unit cube: it reaches up to ``rho w / 2`` past
      the box's faces, so it can follow the optimum across a split, and stays as local as the
      box.
    * ``"cube"``: side :data:`CUBE_SIDE` ``rho``, inside the unit cube: TuRBO's region,
      whose side does not shrink with the box (the box only chooses the centre).

    Args:
        center: Shape (d,), inside the box.
        low, high: The box, shape (d,).
        rho: Relative side, > 0.
        region: One of :data:`REGIONS`.

    Returns:
        ``(lo, hi)``, each shape (d,), with ``0 <= lo <= center <= hi <= 1``.
    """
    if region == "box":
        return trust_region_bounds(center, low, high, rho)
    side = rho * (high - low) if region == "around" else np.full_like(center, CUBE_SIDE * rho)
    return np.maximum(center - 0.5 * side, 0.0), np.minimum(center + 0.5 * side, 1.0)


def box_candidates(
    rng: np.random.Generator,
    low: np.ndarray,
    high: np.ndarray,
    X_top: np.ndarray,
    k: int,
    scale: float = 0.1,
) -> np.ndarray:
    """``k`` candidates in the box: half uniform, half perturbations of the best points.

    Args:
        rng: Random generator.
        low, high: The box, shape (d,).
        X_top: The box's best observations, shape (m, d) (``m = 0``: all uniform).
        k: Number of candidates.
        scale: Standard deviation of a perturbation relative to the box's side.

    Returns:
        Shape (k, d), inside the box.
    """
    d = low.shape[0]
    n_pert = k // 2 if X_top.shape[0] else 0
    uni = low + rng.random((k - n_pert, d)) * (high - low)
    if not n_pert:
        return uni
    base = X_top[rng.integers(0, X_top.shape[0], size=n_pert)]
    pert = base + scale * (high - low) * rng.standard_normal((n_pert, d))
    return np.vstack((uni, np.clip(pert, low, high)))


def parzen_log_ratio(
    cand: np.ndarray,
    X_good: np.ndarray,
    X_bad: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
) -> np.ndarray:
    """``log l(x) - log g(x)`` of Parzen densities restricted to the box.

    Each density is a mixture of Gaussian kernels on its points and one uniform component
    on the box (the prior, weight of one point), with bandwidth ``h_j = w_j n^(-1 / (d + 4))``
    per dimension (Scott's rule on the box's side ``w``, ``n`` points of the density).

    Args:
        cand: Candidates, shape (k, d).
        X_good: Good observations of the box, shape (n_good, d).
        X_bad: Bad observations and pending points of the box, shape (n_bad, d).
        low, high: The box, shape (d,).

    Returns:
        Shape (k,); larger is more promising.
    """
    w = np.maximum(high - low, 1e-12)
    d = w.shape[0]
    log_uniform = -float(np.sum(np.log(w)))

    def log_density(P: np.ndarray) -> np.ndarray:
        n = P.shape[0]
        if n == 0:
            return np.full(cand.shape[0], log_uniform)
        h = BANDWIDTH * w * (n + 1) ** (-1.0 / (d + 4))
        z = (cand[:, None, :] - P[None]) / h
        log_k = -0.5 * np.sum(z * z, axis=2) - float(
            np.sum(np.log(h)) + 0.5 * d * math.log(2 * math.pi)
        )
        terms = np.concatenate((log_k, np.full((cand.shape[0], 1), log_uniform)), axis=1)
        top = terms.max(axis=1, keepdims=True)
        out: np.ndarray = top[:, 0] + np.log(np.exp(terms - top).sum(axis=1)) - math.log(n + 1)
        return out

    return log_density(X_good) - log_density(X_bad)
