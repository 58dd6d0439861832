"""Indices of TreeUCB (Wang, Ye, Geng, Rudin, arXiv:1901.09277): pure functions on arrays.

Notations:
    n: number of observations; m: number of candidate points; L: number of leaves (boxes);
    d: number of dimensions of the unit cube.
    y: raw objective values, shape (n,).
    r: rewards, shape (n,), values in [0, 1], larger is better.
    low, high: box bounds, shape (L, d), values in [0, 1].
    counts, means, diameters: per box, shape (L,).
    Phi: soft box features, shape (n, L) (a row per point, a column per box).
"""

from __future__ import annotations

import functools
import math
from typing import Literal

import numpy as np
from scipy.linalg import cho_factor
from scipy.linalg import cho_solve
from scipy.linalg import solve_triangular

from optuna_treeucb.core._partition import box_contains

RewardKind = Literal["rank", "minmax"]


def normalize_rewards(
    y: np.ndarray, kind: RewardKind = "rank", ranks: np.ndarray | None = None
) -> np.ndarray:
    """Map objective values (larger is better) to rewards in [0, 1].

    ``"rank"``: the mid-rank of each value divided by n, i.e. ``(rank - 0.5) / n`` with ties
    sharing their average rank.  It is invariant to any strictly increasing transform of the
    objective, so a log-scaled loss and the loss itself give the same run, and ``±inf`` values
    simply rank first or last.  ``"minmax"``: ``(y - min) / (max - min)`` over the finite values,
    with ``±inf`` clipped to the finite extremes (0.5 everywhere when all values are equal).

    Args:
        y: Shape (n,), no NaN.
        kind: ``"rank"`` or ``"minmax"``.
        ranks: ``average_ranks(y)`` if already known (``"rank"`` only).

    Returns:
        Shape (n,), values in [0, 1].
    """
    y = np.asarray(y, dtype=float)
    n = y.shape[0]
    if n == 0:
        return np.zeros(0)
    if kind == "rank":
        # 1-based ranks, ties their average; the mid-rank is rank - 1/2
        return (average_ranks(y) - 0.5) / n if ranks is None else (ranks - 0.5) / n
    if kind == "minmax":
        finite = y[np.isfinite(y)]
        if finite.size == 0:
            return np.where(y > 0, 1.0, np.where(y < 0, 0.0, 0.5))
        lo, hi = float(finite.min()), float(finite.max())
        if hi == lo:
            out = np.full(n, 0.5)
            out[y > hi] = 1.0
            out[y < lo] = 0.0
            return out
        return np.clip((np.clip(y, lo, hi) - lo) / (hi - lo), 0.0, 1.0)
    raise ValueError(f"The reward normalisation must be 'rank' or 'minmax'. Got {kind!r}.")


def average_ranks(y: np.ndarray) -> np.ndarray:
    """1-based ranks of ``y``, ties sharing their average rank, shape (n,).

    The values of ``scipy.stats.rankdata(y, method="average")``, bit for bit (the same
    arithmetic), without its input handling, which costs about 0.2 ms per call: the ranks are
    taken at every ask.

    Args:
        y: Shape (n,), no NaN.

    Returns:
        Shape (n,), floats.
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


RANK_UPDATE_MAX = 64  # new values beyond which a full ranking is cheaper than updating


def update_average_ranks(ranks: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`average_ranks` of ``y`` from those of its first ``k = ranks.size`` values.

    Appending ``v`` raises the ranks of the values above it by 1 and of those equal to it by
    1/2; ``v`` itself takes ``#{y < v} + (#{y == v} + 2) / 2`` (its tie group's average).
    Ranks are half-integers, exact in floating point, so the result equals
    ``average_ranks(y)`` bit for bit, at O(n) per appended value instead of O(n log n) for
    the whole sort; with more than :data:`RANK_UPDATE_MAX` new values it sorts.

    Args:
        ranks: ``average_ranks(y[:k])``, shape (k,).
        y: Shape (n,), n >= k, no NaN.

    Returns:
        Shape (n,), floats.
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


def box_diameters(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Euclidean diameter of each box, shape (L,)."""
    return np.sqrt(np.sum((high - low) ** 2, axis=1))


def hoeffding_index(
    means: np.ndarray,
    counts: np.ndarray,
    diameters: np.ndarray,
    t: int,
    C: float,
    M: float,
    empty_mean: float | np.ndarray = 1.0,
) -> np.ndarray:
    """TreeUCB's index of every box (Algorithm 1 of the paper).

    ``U = m + C * sqrt(4 log t / n) + M * D``, where an empty box (``n = 0``) takes
    ``m = empty_mean`` (the paper's 1) and ``n = 1``.

    Args:
        means: Mean reward per box, shape (L,); ignored where ``counts == 0``.
        counts: Number of points per box (observations plus pending ones), shape (L,).
        diameters: Box diameters, shape (L,).
        t: The round, ``t >= 1``.
        C: Weight of the confidence bonus.
        M: Weight of the diameter (Lipschitz) term.
        empty_mean: Mean assumed for an empty box, a scalar or shape (L,).

    Returns:
        Shape (L,).
    """
    counts = np.asarray(counts, dtype=float)
    empty = counts <= 0
    m = np.where(empty, empty_mean, means)
    n = np.where(empty, 1.0, counts)
    return m + C * np.sqrt(4.0 * math.log(max(t, 1)) / n) + M * diameters


def soft_gp_index(
    mean: np.ndarray,
    std: np.ndarray,
    diameters: np.ndarray,
    t: int,
    C: float,
    M: float,
    noise: float,
) -> np.ndarray:
    """TreeUCB's index of candidate points under the soft tree kernel (the paper's Section 4).

    ``U = mu + C * sqrt(4 log t) * sd / s + M * D``: the GP-UCB form ``mu + beta^(1/2) sd``
    with the posterior mean ``mu`` and deviation ``sd`` of :func:`gp_posterior` in place of
    :func:`hoeffding_index`'s box mean and ``sqrt(1 / n)``, and the same diameter term.

    Why the deviation is divided by the noise's standard deviation ``s = sqrt(noise)``: with
    hard boxes, a point in a box that holds ``n`` points (observed or pending) has
    ``sd^2 = 1 / (1 + n / s^2) = s^2 / (n + s^2)`` (see :func:`gp_posterior`), so
    ``sd / s = sqrt(1 / (n + s^2))`` and the bonus is ``C * sqrt(4 log t / (n + s^2))``:
    Hoeffding's bonus with the count ``n`` read as ``n + s^2``.  The same ``C`` therefore
    weighs exploration alike under both indices, whatever ``noise`` is (an empty box gets
    the pseudo-count ``s^2`` instead of Hoeffding's 1); without the division the bonus would
    shrink by the factor ``s``.  Soft boxes and jittered edges only make ``n`` a soft count.

    Args:
        mean: Posterior mean per candidate, shape (m,).
        std: Posterior standard deviation per candidate, shape (m,).
        diameters: Diameter of each candidate's box, shape (m,).
        t: The round, ``t >= 1``.
        C: Weight of the confidence bonus.
        M: Weight of the diameter (Lipschitz) term.
        noise: Observation-noise variance ``s^2`` > 0 of the GP.

    Returns:
        Shape (m,).
    """
    bonus = C * math.sqrt(4.0 * math.log(max(t, 1))) * std / math.sqrt(noise)
    return mean + bonus + M * diameters


# ---------------------------------------------------------------------------------------------
# Soft tree kernel (the paper's hierarchical Bayesian model, Section 4)
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=8)
def _hermite_nodes(n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and weights (summing to 1) for the expectation over N(0, 1)."""
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    z.setflags(write=False)
    w = w / w.sum()
    w.setflags(write=False)
    return z, w


def _hard_box_features(X: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Indicators of the boxes (``alpha = inf``), shape (n, L): the partition's own rule."""
    out: np.ndarray = np.all(box_contains(low[None], high[None], X[:, None, :]), axis=2)
    return out.astype(float)


def _soft_membership(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    alpha: float,
    shifts: np.ndarray,
    w: np.ndarray,
) -> np.ndarray:
    """Expected soft membership of points ``X`` (k, d) in boxes ``lo``/``hi`` (B, d): (k, B).

    ``shifts`` and ``w`` are the jitter's quadrature nodes (already scaled by sigma) and
    weights; a bound of ``-inf``/``inf`` is a border of the cube, never softened.
    """
    # The sigmoid is increasing, so sigmoid(alpha * min(u, v)) = min(sigmoid(alpha * u),
    # sigmoid(alpha * v)): one sigmoid per edge and node instead of one per pair of nodes.
    dl = X[:, None, :] - lo[None]  # distance past the lower edge (inf on the border)
    du = hi[None] - X[:, None, :]
    # sigmoid(z) = (1 + tanh(z / 2)) / 2 is affine in tanh and the weights sum to 1, so the
    # expectation is taken on the tanh values and mapped back once.
    half = 0.5 * alpha
    lower = [np.tanh(half * (dl - a)) for a in shifts]
    upper = [np.tanh(half * (du + c)) for c in shifts]
    if len(shifts) == 1:
        s = np.minimum(lower[0], upper[0])
    else:
        s, tmp = np.zeros(dl.shape), np.empty(dl.shape)
        for sl, wa in zip(lower, w):
            for su, wc in zip(upper, w):
                np.minimum(sl, su, out=tmp)
                tmp *= wa * wc
                s += tmp
    s += 1.0
    s *= 0.5
    out: np.ndarray = np.prod(s, axis=2)
    return out


def _soft_membership_near(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    alpha: float,
    sigma: float,
    shifts: np.ndarray,
    w: np.ndarray,
) -> np.ndarray:
    """:func:`_soft_membership` box by box, only for the points within reach of each box.

    Beyond ``40 / alpha + 6 sigma`` the sigmoid is below 4e-18, an exact zero in the sum, so
    many points cost memory for the near ones only.
    """
    reach = 40.0 / alpha + 6.0 * sigma
    Phi = np.zeros((X.shape[0], lo.shape[0]))
    for b in range(lo.shape[0]):
        near = np.all((X >= lo[b] - reach) & (X <= hi[b] + reach), axis=1)
        if near.any():
            member = _soft_membership(X[near], lo[b : b + 1], hi[b : b + 1], alpha, shifts, w)
            Phi[near, b] = member[:, 0]
    return Phi


def soft_box_features(
    X: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    alpha: float,
    sigma: float = 0.0,
    *,
    n_nodes: int = 3,
) -> np.ndarray:
    """Soft membership of points in boxes: the feature map of the soft tree kernel.

    For box b and dimension j with centre ``c`` and width ``w`` the paper's intended
    similarity is ``sigmoid(alpha * (w / 2 - |x_j - c|))`` (the printed formula has the sign
    flipped), which equals ``sigmoid(alpha * min(x_j - low, high - x_j))``: about 1 inside the
    box, 1/2 on its edge, about 0 outside.  Box edges are jittered by ``N(0, sigma^2)``
    independently; the expectation over the jitter is taken by Gauss-Hermite quadrature with
    ``n_nodes`` nodes per edge.  A box edge on the border of the cube is not an edge of the
    search space's interior and is never softened.  The feature is the product over
    dimensions, and the kernel is ``k(x, x') = sum_b phi_b(x) phi_b(x')``, positive
    semi-definite by construction.  ``alpha = inf`` gives the hard box kernel: indicators
    under the partition's rule for edges (:func:`~optuna_treeucb.core.box_contains`).

    Args:
        X: Shape (n, d), values in [0, 1].
        low, high: Shape (L, d), values in [0, 1].
        alpha: Sharpness, > 0 (``inf`` for hard boxes).
        sigma: Standard deviation of the edge jitter, >= 0.
        n_nodes: Quadrature nodes per edge.

    Returns:
        Phi, shape (n, L), values in [0, 1].
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    if math.isinf(alpha):
        return _hard_box_features(X, low, high)
    lo = np.where(low <= 0.0, -np.inf, low)  # the cube's border is not an edge
    hi = np.where(high >= 1.0, np.inf, high)
    shifts, w = _hermite_nodes(n_nodes) if sigma > 0 else (np.zeros(1), np.ones(1))
    shifts = sigma * shifts
    if n * low.shape[0] * d <= 2_000_000:
        return _soft_membership(X, lo, hi, alpha, shifts, w)
    return _soft_membership_near(X, lo, hi, alpha, sigma, shifts, w)


def gp_posterior(
    Phi: np.ndarray,
    r: np.ndarray,
    Phi_cand: np.ndarray,
    noise: float,
    *,
    Phi_pending: np.ndarray | None = None,
    prior_mean: float | None = None,
    gram: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """GP posterior mean and standard deviation under the kernel ``k = Phi Phi^T``.

    The kernel has a finite feature map with one feature per box, so the GP equals Bayesian
    linear regression on the box features (the weight-space view): with
    ``A = I + Phi^T Phi / s^2`` (L x L), ``mean(x) = m0 + phi(x)^T A^{-1} Phi^T (r - m0) / s^2``
    and ``var(x) = phi(x)^T A^{-1} phi(x)``.  This costs O(n L + L^3) given ``Phi^T Phi``
    (which callers cache and update by rank-one terms) instead of the O(n^3) of a dense
    kernel solve.  Pending points (asked, not yet told) enter the variance only, as
    observations of unknown value do.

    With hard boxes and a point in a box holding n observations, ``var = 1 / (1 + n / s^2)``.

    Args:
        Phi: Features of the observations, shape (n, L).
        r: Rewards, shape (n,).
        Phi_cand: Features of the candidates, shape (m, L).
        noise: Observation noise variance ``s^2`` > 0.
        Phi_pending: Features of pending points, shape (p, L).
        prior_mean: Prior mean ``m0`` (the mean reward when ``None``).
        gram: ``Phi^T Phi`` if already known, shape (L, L).

    Returns:
        Posterior mean and standard deviation at the candidates, each shape (m,).
    """
    L = Phi.shape[1]
    m0 = float(np.mean(r)) if prior_mean is None else prior_mean
    G = Phi.T @ Phi if gram is None else gram
    A = np.eye(L) + G / noise
    factor = cho_factor(A, lower=True)
    wmean = cho_solve(factor, Phi.T @ (r - m0) / noise)  # A^{-1} Phi^T (r - m0) / s^2
    mean = m0 + Phi_cand @ wmean
    chol = factor[0]  # the lower factor (solve_triangular reads only its lower triangle)
    if Phi_pending is not None and Phi_pending.shape[0] > 0:
        chol = cho_factor(A + Phi_pending.T @ Phi_pending / noise, lower=True)[0]
    v = solve_triangular(chol, Phi_cand.T, lower=True)  # (L, m): var = |chol^{-1} phi|^2
    var = np.sum(v * v, axis=0)
    return mean, np.sqrt(np.maximum(var, 0.0))
