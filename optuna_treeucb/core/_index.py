"""Indices of TreeUCB (Wang, Ye, Geng, Rudin, arXiv:1901.09277): which box to play.

:class:`BoxStats`: the boxes with their Hoeffding index (Algorithm 1); :class:`SoftGPIndex`:
candidates scored by a GP with the paper's soft tree kernel (Section 4).

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
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any

import numpy as np

from optuna_treeucb.core._partition import box_contains

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController

    from optuna_treeucb.core._partition import Partition

# scipy and threadpoolctl are imported where first needed, so that importing the package stays
# as quick as importing Optuna (tests/core_tests/test_imports.py).

# The soft tree kernel's constants, fixed once: no user case for changing them (issue #22).
ALPHA = 100.0  # sharpness of the sigmoid box edges (inf: hard boxes)
SIGMA = 0.01  # standard deviation of the jitter of the box edges
N_NODES = 3  # Gauss-Hermite nodes per box edge for the expectation over the jitter
GP_NOISE = 0.1  # observation-noise variance of the GP on rewards in [0, 1]
N_BOXES = 4  # the best boxes (by the Hoeffding index) that receive candidates
N_CANDIDATES = 32  # candidates drawn per box
_blas: ThreadpoolController | None = None


def one_blas_thread() -> Any:
    """Context that runs BLAS single-threaded (the GP solves are small)."""
    global _blas
    if _blas is None:
        from threadpoolctl import ThreadpoolController

        _blas = ThreadpoolController()
    return _blas.limit(limits=1, user_api="blas")


def argmax(values: np.ndarray, rng: np.random.Generator) -> int:
    """Index of the largest value, ties (within 1e-12) broken at random."""
    best = np.flatnonzero(values >= np.max(values) - 1e-12)
    return int(best[0] if best.size == 1 else rng.choice(best))


def containing(low: np.ndarray, high: np.ndarray, ctx: Mapping[int, float]) -> np.ndarray:
    """Whether each box ``low``/``high`` (L, d) contains the context (column -> value), (L,)."""
    ok = np.ones(low.shape[0], dtype=bool)
    for j, u in ctx.items():
        ok &= box_contains(low[:, j], high[:, j], u)
    return ok


def box_diameters(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Euclidean diameter of each box, shape (L,)."""
    return np.sqrt(np.sum((high - low) ** 2, axis=1))


def hoeffding_index(
    means: np.ndarray, counts: np.ndarray, diameters: np.ndarray, t: int, C: float, M: float
) -> np.ndarray:
    """TreeUCB's index of every box, ``U = m + C sqrt(4 log t / n) + M D`` (Algorithm 1),
    shape (L,); ``counts`` ``n >= 1`` include pending points, ``t >= 1`` is the round."""
    return means + C * np.sqrt(4.0 * math.log(max(t, 1)) / counts) + M * diameters


@dataclass(frozen=True)
class BoxStats:
    """The boxes of a partition with their statistics and Hoeffding index.

    Attributes:
        low, high: Box bounds, shape (L, d), values in [0, 1].
        n_obs: Observations per box, shape (L,).
        n_pending: Pending points per box, shape (L,).
        mean: Mean reward per box (NaN for an empty box), shape (L,), values in [0, 1].
        index: Hoeffding index per box, shape (L,).
    """

    low: np.ndarray
    high: np.ndarray
    n_obs: np.ndarray
    n_pending: np.ndarray
    mean: np.ndarray
    index: np.ndarray

    @classmethod
    def of(
        cls, part: Partition, r: np.ndarray, n_pending: np.ndarray, t: int, C: float, M: float
    ) -> BoxStats:
        """The statistics of an up-to-date partition for rewards ``r`` (n,) at round ``t``; an
        empty box counts its prior (the paper's ``m = 1``; a cap cell's: its CART leaf's mean)
        as one observation."""
        L = part.n_leaves
        n_obs = np.bincount(part.leaf_of, minlength=L).astype(float)
        sums = np.bincount(part.leaf_of, weights=r, minlength=L)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n_obs > 0, sums / np.maximum(n_obs, 1), np.nan)
        prior = np.ones(L)
        parent = getattr(part, "parent", None)
        if parent is not None and parent.size == L:
            p_n = np.bincount(parent, weights=n_obs)
            p_sum = np.bincount(parent, weights=sums)
            prior = np.where(p_n > 0, p_sum / np.maximum(p_n, 1), 1.0)[parent]
        means, counts = np.where(n_obs > 0, mean, prior), n_obs + n_pending + (n_obs == 0)
        index = hoeffding_index(means, counts, box_diameters(part.low, part.high), t, C, M)
        return cls(part.low, part.high, n_obs, n_pending, mean, index)

    def containing(self, point: Mapping[int, float]) -> np.ndarray:
        """Whether each box holds ``point`` (column -> value in [0, 1]) along its columns,
        shape (L,) (a box's side on the cube's border holds the border; columns not given are
        free), as the partition routes points: each point of the cube is in one box."""
        return containing(self.low, self.high, point)


def soft_gp_index(
    mean: np.ndarray,
    std: np.ndarray,
    diameters: np.ndarray,
    t: int,
    C: float,
    M: float,
    noise: float,
) -> np.ndarray:
    """TreeUCB's index of candidates under the soft tree kernel (Section 4), shape (m,).

    ``U = mu + C sqrt(4 log t) sd / s + M D`` with :func:`gp_posterior`'s ``mu`` and ``sd``
    (m,); dividing by ``s = sqrt(noise)`` makes the bonus Hoeffding's with hard boxes.
    """
    bonus = C * math.sqrt(4.0 * math.log(max(t, 1))) * std / math.sqrt(noise)
    return mean + bonus + M * diameters


# -- the soft tree kernel (the paper's hierarchical Bayesian model, Section 4) ----------------
@functools.lru_cache(maxsize=8)
def _hermite_nodes(n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and weights (summing to 1) for the expectation over N(0, 1)."""
    z, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    z.setflags(write=False)
    w = w / w.sum()
    w.setflags(write=False)
    return z, w


def _soft_membership(
    X: np.ndarray, lo: np.ndarray, hi: np.ndarray, alpha: float, shifts: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """Expected soft membership of points ``X`` (k, d) in boxes ``lo``/``hi`` (B, d): (k, B),
    over the jitter's quadrature nodes ``shifts`` (scaled by sigma) and weights ``w``."""
    # sigmoid is increasing (min of sigmoids: one per edge and node) and affine in tanh(z / 2)
    # (the weights sum to 1: the expectation is taken on tanh values, mapped back once)
    dl = X[:, None, :] - lo[None]  # distance past the lower edge (inf on the border)
    du = hi[None] - X[:, None, :]
    half = 0.5 * alpha
    lower = [np.tanh(half * (dl - a)) for a in shifts]
    upper = [np.tanh(half * (du + c)) for c in shifts]
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
    """:func:`_soft_membership` box by box, for the points within ``40 / alpha + 6 sigma``
    of each (beyond, the sigmoid is below 4e-18, an exact zero in the sum)."""
    reach = 40.0 / alpha + 6.0 * sigma
    Phi = np.zeros((X.shape[0], lo.shape[0]))
    for b in range(lo.shape[0]):
        near = np.all((X >= lo[b] - reach) & (X <= hi[b] + reach), axis=1)
        if near.any():
            member = _soft_membership(X[near], lo[b : b + 1], hi[b : b + 1], alpha, shifts, w)
            Phi[near, b] = member[:, 0]
    return Phi


def soft_box_features(
    X: np.ndarray, low: np.ndarray, high: np.ndarray, alpha: float, sigma: float = 0.0
) -> np.ndarray:
    """Soft membership of points in boxes, ``Phi``, shape (n, L), values in [0, 1].

    Per dimension ``sigmoid(alpha * min(x - low, high - x))`` (the paper's formula, its sign
    corrected), with edges jittered by ``N(0, sigma^2)`` (Gauss-Hermite quadrature)
    and the cube's border never softened; the product over dimensions.  The kernel is
    ``k(x, x') = sum_b phi_b(x) phi_b(x')``; ``alpha = inf`` gives hard boxes.
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    if math.isinf(alpha):
        return np.all(box_contains(low[None], high[None], X[:, None, :]), axis=2).astype(float)
    lo = np.where(low <= 0.0, -np.inf, low)  # the cube's border is not an edge
    hi = np.where(high >= 1.0, np.inf, high)
    shifts, w = _hermite_nodes(N_NODES) if sigma > 0 else (np.zeros(1), np.ones(1))
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
    """GP posterior mean and deviation under ``k = Phi Phi^T``, each shape (m,).

    In weight space, with ``A = I + Phi^T Phi / s^2`` (L x L): ``mean(x) = m0 + phi(x)^T A^-1
    Phi^T (r - m0) / s^2`` and ``var(x) = phi(x)^T A^-1 phi(x)``, O(n L + L^3).  ``Phi_cand``
    (m, L) and ``Phi_pending`` (p, L) are the candidates' and the pending points' features
    (pending points shrink the variance only); ``prior_mean``: ``m0`` (``None``: the mean
    reward); ``gram``: ``Phi^T Phi`` if known.
    """
    from scipy.linalg import cho_factor
    from scipy.linalg import cho_solve
    from scipy.linalg import solve_triangular

    m0 = float(np.mean(r)) if prior_mean is None else prior_mean
    G = Phi.T @ Phi if gram is None else gram
    A = np.eye(Phi.shape[1]) + G / noise  # L x L
    factor = cho_factor(A, lower=True)
    wmean = cho_solve(factor, Phi.T @ (r - m0) / noise)  # A^{-1} Phi^T (r - m0) / s^2
    mean = m0 + Phi_cand @ wmean
    chol = factor[0]  # the lower factor (solve_triangular reads only its lower triangle)
    if Phi_pending is not None and Phi_pending.shape[0] > 0:
        chol = cho_factor(A + Phi_pending.T @ Phi_pending / noise, lower=True)[0]
    v = solve_triangular(chol, Phi_cand.T, lower=True)  # (L, m): var = |chol^{-1} phi|^2
    var = np.sum(v * v, axis=0)
    return mean, np.sqrt(np.maximum(var, 0.0))


class SoftGPIndex:
    """The paper's soft-GP index: candidates in the best boxes, scored by GP-UCB; it caches
    the observations' features ``Phi`` (n, L) and their Gram matrix (:meth:`reset` drops them)."""

    def __init__(self, alpha: float = ALPHA, sigma: float = SIGMA, noise: float = GP_NOISE):
        self.alpha, self.sigma, self.noise = alpha, sigma, noise
        self.reset()

    def reset(self) -> None:
        """Drop the cached features; they are rebuilt on demand."""
        self._version = -1
        self._low = self._high = self._Phi = self._gram = np.zeros((0, 0))  # replaced, not written

    def choose(
        self,
        stats: BoxStats,
        index: np.ndarray,
        draw: Callable[[int, int], np.ndarray],
        X: np.ndarray,
        part: Partition,
        r: np.ndarray,
        pending: np.ndarray,
        t: int,
        C: float,
        M: float,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """The candidate of largest :func:`soft_gp_index` among ``draw(box, k)``'s in the
        :data:`N_BOXES` boxes of largest ``index`` (``-inf``: not playable), shape (d,)."""
        k = min(N_BOXES, int(np.isfinite(index).sum()))
        top = np.argsort(-index, kind="stable")[:k]
        cand = np.vstack([draw(int(b), N_CANDIDATES) for b in top])
        mean, std = self.posterior(X, part, r, cand, pending)
        diam = np.repeat(box_diameters(stats.low[top], stats.high[top]), N_CANDIDATES)
        ucb = soft_gp_index(mean, std, diam, t, C, M, self.noise)
        return cand[argmax(ucb, rng)]

    def posterior(
        self, X: np.ndarray, part: Partition, r: np.ndarray, cand: np.ndarray, pending: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and deviation at ``cand`` (m, d), shape (m,) each
        (:func:`gp_posterior`; arguments as in :meth:`choose`)."""
        with one_blas_thread():
            self._refresh(X, part)
            args = (part.low, part.high, self.alpha, self.sigma)
            Phi_cand = soft_box_features(cand, *args)
            Phi_pending = soft_box_features(pending, *args) if pending.size else None
            return gp_posterior(
                self._Phi, r, Phi_cand, self.noise, Phi_pending=Phi_pending, gram=self._gram
            )

    def _refresh(self, X: np.ndarray, part: Partition) -> None:
        """Bring ``Phi`` and the Gram matrix ``Phi^T Phi`` up to date."""
        low, high = part.low, part.high
        n, L = X.shape[0], part.n_leaves
        if self._version != part.version:
            k = min(L, self._low.shape[0]) if self._low.shape[1:] == low.shape[1:] else 0
            same = np.zeros(L, dtype=bool)
            if k:
                equal = (self._low[:k] == low[:k]) & (self._high[:k] == high[:k])
                same[:k] = np.all(equal, axis=1)
            n_old = self._Phi.shape[0]
            keep, changed = np.flatnonzero(same), np.flatnonzero(~same)
            Phi = np.zeros((n_old, L))
            Phi[:, keep] = self._Phi[:, keep]
            gram = np.zeros((L, L))
            gram[np.ix_(keep, keep)] = self._gram[np.ix_(keep, keep)]
            if changed.size:
                Phi[:, changed] = soft_box_features(
                    X[:n_old], low[changed], high[changed], self.alpha, self.sigma
                )
                cross = Phi.T @ Phi[:, changed]
                gram[:, changed] = cross
                gram[changed, :] = cross.T
            self._Phi, self._gram = Phi, gram
            self._low, self._high = low.copy(), high.copy()
            self._version = part.version
        if self._Phi.shape[0] < n:
            new = soft_box_features(X[self._Phi.shape[0] :], low, high, self.alpha, self.sigma)
            self._Phi = np.vstack((self._Phi, new))
            self._gram = self._gram + new.T @ new

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.reset()  # the cache is rebuilt on demand
