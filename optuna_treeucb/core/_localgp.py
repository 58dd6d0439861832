"""A small local Gaussian process for the in-box sampler ``sampling="local_gp"``.

TuRBO (Eriksson et al., "Scalable Global Optimization via Local Bayesian Optimization",
NeurIPS 2019) fits a GP to the observations near its trust region and picks the next point
by Thompson sampling on candidates in the region.  These pure functions do the same with
numpy only, sized so that the cost per ask does not grow with the number of trials:

* the data are the ``n_local`` observations nearest to the centre (:func:`nearest`);
* the kernel is an isotropic Matern-5/2 on the unit cube, so the model is invariant under
  rotations of the space (a rotated valley is fitted as well as an aligned one);
* the targets are standardised (constant mean 0, variance 1); the lengthscale and the
  noise-to-signal ratio are chosen on a fixed grid by the marginal likelihood, with the
  signal variance profiled out (its maximum-likelihood value has a closed form), one
  Cholesky factorisation per pair (:func:`fit_gp`);
* pending points join the data with a fantasy value (Ginsbourger et al., "Kriging is
  well-suited to parallelize optimization", 2010): the kriging believer (the posterior mean
  at each point) keeps the mean and shrinks the variance there, so a concurrent Thompson draw
  rarely lands on a pending point but still refines where the GP is good; a constant liar (a
  value of the caller's, e.g. the lowest local value) also makes the mean dip near them,
  which pushes the draws away from the incumbent (:func:`condition_on_pending`);
* the Thompson draw is joint over the candidates of largest upper bound only (those that can
  plausibly win it), which keeps its Cholesky factorisation small (:func:`thompson_sample`).

Notations:
    n: number of local observations; m: number of candidates; d: number of dimensions.
    X: local observations, shape (n, d), values in [0, 1].
    y: their targets, shape (n,), larger is better.
    ell: isotropic lengthscale, > 0.
    lam: noise-to-signal variance ratio, > 0.
    s2: signal variance of the standardised targets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.blas import dtrsv

LENGTHSCALES = (0.05, 0.1, 0.2, 0.4, 0.8)  # times sqrt(d): the cube's diameter
NOISE_RATIOS = (1e-3, 1e-2, 0.1, 1.0)  # noise variance / signal variance
JITTER = 1e-8
PERTURB_DIMS = 5.0  # expected number of coordinates a perturbation moves
PERTURB_SCALE = 0.2  # its step relative to the region's side
JOINT_Z = 3.0  # upper bound, in posterior standard deviations, that preselects a joint draw


@dataclass(frozen=True)
class LocalGP:
    """A GP fitted to standardised targets.

    Attributes:
        X: Training inputs, shape (n, d).
        chol: Lower Cholesky factor of ``K + lam I``, shape (n, n).
        weights: ``(K + lam I)^-1 z`` with ``z`` the standardised targets, shape (n,).
        ell: Lengthscale.
        lam: Noise-to-signal ratio.
        s2: Signal variance of the standardised targets.
        y_mean, y_std: Standardisation of the targets.
    """

    X: np.ndarray
    chol: np.ndarray
    weights: np.ndarray
    ell: float
    lam: float
    s2: float
    y_mean: float
    y_std: float


def _distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Euclidean distances between the rows of ``A`` (p, d) and ``B`` (q, d), shape (p, q)."""
    sq = np.sum(A * A, 1)[:, None] + np.sum(B * B, 1)[None, :] - 2.0 * A @ B.T
    out: np.ndarray = np.sqrt(np.maximum(sq, 0.0))
    return out


def _matern52_of(dist: np.ndarray, ell: float | np.ndarray) -> np.ndarray:
    r = math.sqrt(5.0) * dist / ell
    out: np.ndarray = (1.0 + r + r * r / 3.0) * np.exp(-r)
    return out


def matern52(A: np.ndarray, B: np.ndarray, ell: float) -> np.ndarray:
    """Matern-5/2 correlation ``(1 + r + r^2 / 3) exp(-r)``, ``r = sqrt(5) |a - b| / ell``,
    between the rows of ``A`` (p, d) and ``B`` (q, d): shape (p, q), values in (0, 1]."""
    return _matern52_of(_distances(A, B), ell)


def nearest(X: np.ndarray, center: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` rows of ``X`` nearest to ``center`` (all if fewer), nearest first.

    Ties are broken by index, so the answer is a function of the data only.
    """
    dist = np.sum((X - center) ** 2, axis=1)
    if X.shape[0] > k:
        part = np.argpartition(dist, k - 1)[:k]
        return part[np.lexsort((part, dist[part]))]
    return np.lexsort((np.arange(X.shape[0]), dist))


def profile_loglik(chol: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Log marginal likelihood of ``z ~ N(0, s2 A)`` at the best ``s2``, for a stack of ``A``.

    The optimal signal variance is ``s2 = z^T A^-1 z / n``; up to a constant the log
    likelihood is then ``-n/2 log s2 - 1/2 log det A`` (Rasmussen and Williams, "Gaussian
    Processes for Machine Learning", eq. 2.30, with ``s2`` profiled out).  ``chol``: the
    lower Cholesky factors of ``A = K + lam I``, shape (g, n, n); returns shape (g,).
    """
    n = z.shape[0]
    # w = L^-1 z by one triangular solve per factor: L^T is the Fortran-ordered view of a
    # C-ordered L, so BLAS reads it in place (a batched np.linalg.solve would LU-factorise
    # every L again, which cost more than the Cholesky factorisations themselves)
    w = np.array([dtrsv(L.T, z, lower=0, trans=1) for L in chol])
    s2 = np.maximum(np.sum(w * w, axis=1) / n, 1e-300)
    logdet_half = np.sum(np.log(np.diagonal(chol, axis1=1, axis2=2)), axis=1)
    out: np.ndarray = -0.5 * n * np.log(s2) - logdet_half
    return out


def fit_gp(X: np.ndarray, y: np.ndarray, dim: int | None = None) -> LocalGP:
    """Fit the GP: standardise ``y``, choose ``(ell, lam)`` on the grid by likelihood.

    The lengthscales are :data:`LENGTHSCALES` times ``sqrt(dim)``, the ratios
    :data:`NOISE_RATIOS`; ties go to the first pair, lengthscale-major.  ``X`` has n >= 1
    rows and ``y`` is finite.  ``dim`` (``None``: ``d``): inputs with one-hot blocks pass the
    number of parameters, whose diameter the blocks keep.
    """
    n, d = X.shape
    d = d if dim is None else dim
    z, y_mean, y_std = standardise(y)
    dist = _distances(X, X)
    ells = np.array(LENGTHSCALES) * math.sqrt(d)
    lams = np.array(NOISE_RATIOS) + JITTER
    K = _matern52_of(dist[None], ells[:, None, None])  # (n_ell, n, n)
    A = K[:, None] + lams[None, :, None, None] * np.eye(n)  # (n_ell, n_lam, n, n)
    chol = np.linalg.cholesky(A.reshape(-1, n, n))
    i = int(np.argmax(profile_loglik(chol, z)))
    ell, lam = float(ells[i // lams.size]), float(NOISE_RATIOS[i % lams.size])
    # the chosen pair's factor is the one fit_gp_fixed would compute (same matrix, same
    # LAPACK routine), so it is reused rather than factorised again
    return _from_factor(X, z, ell, lam, chol[i], y_mean, y_std)


def fit_gp_fixed(X: np.ndarray, y: np.ndarray, ell: float, lam: float) -> LocalGP:
    """The GP with given ``ell`` and ``lam``: standardised targets, ``s2`` at its optimum."""
    z, y_mean, y_std = standardise(y)
    return _factor(X, z, ell, lam, y_mean, y_std)


def unit_scale(y: np.ndarray) -> tuple[np.ndarray, int]:
    """``y`` times the power of two ``2**-e`` that brings its largest magnitude into [0.5, 1).

    Multiplying by a power of two is exact (no rounding, short of subnormal results), so any
    computation on the scaled values that is homogeneous in them (a mean, a standard
    deviation, a ratio of the two) gives the same bits as on ``y`` itself, while no square of
    a value of 1e160 overflows and no square of a value of 1e-200 underflows to 0.  Returns
    the scaled values and ``e`` (0 when ``y`` is all zeros or empty).
    """
    m = float(np.max(np.abs(y))) if y.size else 0.0
    if not (m > 0.0 and math.isfinite(m)):
        return y, 0
    e = math.frexp(m)[1]
    return np.ldexp(y, -e), e


def standardise(y: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Standardised targets ``z = (y - mean) / std`` (``std`` 1 if the targets are constant).

    Computed on :func:`unit_scale`'s values, so values of any magnitude a float holds give a
    finite ``z`` (``np.std`` of values near 1e160 would overflow and of values near 1e-160
    underflow to 0), and values of ordinary magnitude give the same bits as the plain formula.
    Returns ``z``, ``mean`` and ``std`` (the last two in the units of ``y``).
    """
    ys, e = unit_scale(np.asarray(y, dtype=float))
    mean_s, std_s = float(np.mean(ys)), float(np.std(ys))
    if not std_s > 0.0:  # constant targets: centred, in the units of y
        return np.ldexp(ys - mean_s, e), math.ldexp(mean_s, e), 1.0
    return (ys - mean_s) / std_s, math.ldexp(mean_s, e), math.ldexp(std_s, e)


def _factor(
    X: np.ndarray, z: np.ndarray, ell: float, lam: float, y_mean: float, y_std: float
) -> LocalGP:
    """The GP with given hyperparameters on standardised targets ``z``."""
    n = X.shape[0]
    chol = np.linalg.cholesky(matern52(X, X, ell) + (lam + JITTER) * np.eye(n))
    return _from_factor(X, z, ell, lam, chol, y_mean, y_std)


def _from_factor(
    X: np.ndarray,
    z: np.ndarray,
    ell: float,
    lam: float,
    chol: np.ndarray,
    y_mean: float,
    y_std: float,
) -> LocalGP:
    """The GP on standardised targets ``z`` from the Cholesky factor of ``K + lam I``."""
    n = X.shape[0]
    weights = _solve(chol, z)
    s2 = max(float(z @ weights) / n, 1e-12)
    return LocalGP(X, chol, weights, ell, lam, s2, y_mean, y_std)


def _solve(chol: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(L L^T)^-1 b`` for a lower-triangular ``L``."""
    w = solve_triangular(chol, b, lower=True, check_finite=False)
    out: np.ndarray = solve_triangular(chol.T, w, lower=False, check_finite=False)
    return out


def posterior(gp: LocalGP, Xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and variance (without the noise) of the latent function at ``Xs``
    (m, d), in the targets' units, each shape (m,)."""
    Ks = matern52(Xs, gp.X, gp.ell)
    v = solve_triangular(gp.chol, Ks.T, lower=True, check_finite=False)
    mean = gp.y_mean + gp.y_std * (Ks @ gp.weights)
    var = gp.s2 * np.maximum(1.0 - np.sum(v * v, axis=0), 0.0) * gp.y_std**2
    return mean, var


def posterior_mean(gp: LocalGP, Xs: np.ndarray) -> np.ndarray:
    """The posterior mean of :func:`posterior` alone (no triangular solve), shape (m,)."""
    out: np.ndarray = gp.y_mean + gp.y_std * (matern52(Xs, gp.X, gp.ell) @ gp.weights)
    return out


def condition_on_pending(gp: LocalGP, P: np.ndarray, lie: float | None = None) -> LocalGP:
    """The GP with the pending points ``P`` added as observations of a fantasy value.

    With ``lie=None`` the value is the posterior mean at each point (the kriging believer):
    the mean stays, only the variance near ``P`` shrinks.  With a number (the constant liar,
    e.g. the lowest local value) the mean also dips near ``P``, so that the next draw moves
    away from the points being evaluated.  The hyperparameters stay.  ``P``: shape (p, d);
    ``lie`` in the targets' units.  Returns ``gp`` itself when ``p = 0``.
    """
    if P.shape[0] == 0:
        return gp
    if lie is None:
        fantasy = (posterior(gp, P)[0] - gp.y_mean) / gp.y_std
    else:
        fantasy = np.full(P.shape[0], (lie - gp.y_mean) / gp.y_std)
    X = np.vstack((gp.X, P))
    out = _factor(X, np.concatenate((_standardised(gp), fantasy)), gp.ell, gp.lam, 0.0, 1.0)
    return LocalGP(X, out.chol, out.weights, gp.ell, gp.lam, gp.s2, gp.y_mean, gp.y_std)


def _standardised(gp: LocalGP) -> np.ndarray:
    """The standardised training targets ``z = (K + lam I) weights``."""
    out: np.ndarray = gp.chol @ (gp.chol.T @ gp.weights)
    return out


def thompson_sample(
    gp: LocalGP, Xs: np.ndarray, rng: np.random.Generator, n_joint: int | None = None
) -> np.ndarray:
    """One joint draw of the latent function at ``Xs`` from the posterior, shape (m,).

    With ``n_joint`` smaller than ``m``, only the ``n_joint`` candidates of largest upper
    bound ``mean + JOINT_Z std`` are drawn (jointly); the others get ``-inf``.  Those are the
    candidates that can plausibly win the draw's argmax, and the joint draw, which needs a
    Cholesky factorisation of their posterior covariance, costs ``n_joint^3`` instead of
    ``m^3``.  ``n_joint=None`` draws all jointly; ``rng`` gives ``min(m, n_joint)`` standard
    normal draws.
    """
    Ks = matern52(Xs, gp.X, gp.ell)
    v = solve_triangular(gp.chol, Ks.T, lower=True, check_finite=False)
    mean = Ks @ gp.weights
    m = Xs.shape[0]
    if n_joint is None or n_joint >= m:
        cov = gp.s2 * (matern52(Xs, Xs, gp.ell) - v.T @ v)
        chol = _psd_cholesky(cov, 1e-6 * gp.s2)
        out: np.ndarray = gp.y_mean + gp.y_std * (mean + chol @ rng.standard_normal(m))
        return out
    std = np.sqrt(gp.s2 * np.maximum(1.0 - np.sum(v * v, axis=0), 0.0))
    top = np.argsort(-(mean + JOINT_Z * std), kind="stable")[:n_joint]
    vt = v[:, top]
    cov = gp.s2 * (matern52(Xs[top], Xs[top], gp.ell) - vt.T @ vt)
    chol = _psd_cholesky(cov, 1e-6 * gp.s2)
    out = np.full(m, -np.inf)
    out[top] = gp.y_mean + gp.y_std * (mean[top] + chol @ rng.standard_normal(top.size))
    return out


def _psd_cholesky(cov: np.ndarray, jitter: float) -> np.ndarray:
    """Cholesky factor of ``cov + eps I``, raising ``eps`` from ``jitter`` until it succeeds."""
    eye = np.eye(cov.shape[0])
    for k in range(8):
        try:
            return np.linalg.cholesky(cov + jitter * 10.0**k * eye)
        except np.linalg.LinAlgError:
            continue
    w, V = np.linalg.eigh(cov)
    out: np.ndarray = V * np.sqrt(np.maximum(w, 0.0))
    return out


def region_candidates(
    rng: np.random.Generator, lo: np.ndarray, hi: np.ndarray, center: np.ndarray, m: int
) -> np.ndarray:
    """``m`` candidates in the region ``[lo, hi]``: half uniform, half near the centre.

    A perturbation moves a random subset of the coordinates of the centre (each with
    probability ``min(1, PERTURB_DIMS / d)``, at least one), by a Gaussian step of standard
    deviation ``PERTURB_SCALE`` times the region's side, clipped to the region (TuRBO perturbs
    a random subset of coordinates; the Gaussian step refines closer to the centre).
    ``lo``, ``hi`` and ``center`` have shape (d,).  Returns shape (m, d): the ``m - m // 2``
    uniform candidates first, then the ``m // 2`` perturbations.
    """
    d = lo.shape[0]
    n_pert = m // 2
    uni = lo + rng.random((m - n_pert, d)) * (hi - lo)
    mask = rng.random((n_pert, d)) < min(1.0, PERTURB_DIMS / d)
    mask[np.arange(n_pert), rng.integers(0, d, size=n_pert)] = True
    step = PERTURB_SCALE * (hi - lo) * rng.standard_normal((n_pert, d))
    pert = np.clip(center + np.where(mask, step, 0.0), lo, hi)
    return np.vstack((uni, pert))


def in_cells(C: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Whether each row of ``C`` lies in one of the cells ``lo[i] <= c < hi[i]`` (or ``c == lo``).

    With the cells of observed points (:meth:`~optuna_treeucb.core.UnitCube.value_cells`),
    this finds the candidates that decode to an observed point.  Cells outside the
    candidates' bounding box are dropped first, so the cost is O(n d) plus O(m p d) for the
    ``p`` cells that overlap it.  ``C``: shape (m, d); ``lo``, ``hi``: shape (n, d); returns
    shape (m,), bool.
    """
    low, high = C.min(axis=0), C.max(axis=0)
    near = np.flatnonzero((hi[:, 0] >= low[0]) & (lo[:, 0] <= high[0]))
    for j in range(1, C.shape[1]):  # column by column, on the cells left (faster than np.all)
        near = near[(hi[near, j] >= low[j]) & (lo[near, j] <= high[j])]
    if near.size == 0:
        return np.zeros(C.shape[0], dtype=bool)
    lo, hi = lo[near][None], hi[near][None]
    c = C[:, None, :]
    inside = (lo <= c) & ((c < hi) | (c == lo))
    out: np.ndarray = inside.all(axis=2).any(axis=1)
    return out
