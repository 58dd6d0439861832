"""A small local GP for ``sampling="local_gp"``: TuRBO's model (Eriksson et al., NeurIPS 2019).

An isotropic Matern-5/2 GP on the observations nearest to the region's centre, its lengthscale
and noise chosen on a grid by the marginal likelihood, pending points as fantasies (Ginsbourger
et al., 2010), and a Thompson draw on candidates in the region; the cost per ask does not grow
with the number of trials.

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

# scipy is imported where first needed, so that importing the package stays as quick as
# importing Optuna (tests/core_tests/test_imports.py).

LENGTHSCALES = (0.05, 0.1, 0.2, 0.4, 0.8)  # times sqrt(d): the cube's diameter
NOISE_RATIOS = (1e-3, 1e-2, 0.1, 1.0)  # noise variance / signal variance
# with constraints: ratios down to 1e-6 let the GPs interpolate a noise-free objective or
# constraint, whose constrained optimum on a boundary a 1e-3 floor blurs (noise_floor_tuning.md;
# without constraints, with one objective or several, it was not clearly better)
FINE_NOISE_RATIOS = (1e-6, 1e-4, *NOISE_RATIOS)
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
        ell, lam, s2: As in the Notations.
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
    """Indices of the ``k`` rows of ``X`` nearest to ``center`` (all if fewer), nearest first,
    ties broken by index."""
    dist = np.sum((X - center) ** 2, axis=1)
    if X.shape[0] > k:
        part = np.argpartition(dist, k - 1)[:k]
        return part[np.lexsort((part, dist[part]))]
    return np.lexsort((np.arange(X.shape[0]), dist))


def profile_loglik(chol: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Log marginal likelihood of ``z ~ N(0, s2 A)`` at the best ``s2 = z^T A^-1 z / n``,
    ``-n/2 log s2 - 1/2 log det A`` (Rasmussen and Williams, eq. 2.30), shape (g,), for the
    lower Cholesky factors ``chol`` of ``A = K + lam I``, shape (g, n, n)."""
    from scipy.linalg.blas import dtrsv

    n = z.shape[0]
    # w = L^-1 z, one BLAS solve per factor: L^T is the Fortran-ordered view of a C-ordered L
    w = np.array([dtrsv(L.T, z, lower=0, trans=1) for L in chol])
    s2 = np.maximum(np.sum(w * w, axis=1) / n, 1e-300)
    logdet_half = np.sum(np.log(np.diagonal(chol, axis1=1, axis2=2)), axis=1)
    out: np.ndarray = -0.5 * n * np.log(s2) - logdet_half
    return out


def fit_gp(
    X: np.ndarray,
    y: np.ndarray,
    dim: int | None = None,
    noise_ratios: tuple[float, ...] = NOISE_RATIOS,
) -> LocalGP:
    """Fit the GP on ``X`` (n >= 1 rows): standardise ``y``, choose ``(ell, lam)`` on the grid
    of :data:`LENGTHSCALES` and ``noise_ratios`` by likelihood.  ``dim`` (``None``: ``d``;
    one-hot inputs: the number of parameters) scales the lengthscales by ``sqrt(dim)``."""
    n, d = X.shape
    d = d if dim is None else dim
    z, y_mean, y_std = standardise(y)
    dist = _distances(X, X)
    ells = np.array(LENGTHSCALES) * math.sqrt(d)
    lams = np.array(noise_ratios) + JITTER
    K = _matern52_of(dist[None], ells[:, None, None])  # (n_ell, n, n)
    A = K[:, None] + lams[None, :, None, None] * np.eye(n)  # (n_ell, n_lam, n, n)
    chol = np.linalg.cholesky(A.reshape(-1, n, n))
    i = int(np.argmax(profile_loglik(chol, z)))
    ell, lam = float(ells[i // lams.size]), float(noise_ratios[i % lams.size])
    # the factor fit_gp_fixed would compute (same matrix, same routine): reused
    return _factor(X, z, ell, lam, y_mean, y_std, chol[i])


def fit_gp_fixed(X: np.ndarray, y: np.ndarray, ell: float, lam: float) -> LocalGP:
    """The GP with given ``ell`` and ``lam``: standardised targets, ``s2`` at its optimum."""
    z, y_mean, y_std = standardise(y)
    return _factor(X, z, ell, lam, y_mean, y_std)


def unit_scale(y: np.ndarray) -> tuple[np.ndarray, int]:
    """``y`` times the power of two ``2**-e`` that brings its largest magnitude into [0.5, 1),
    and ``e`` (0 for zeros or empty): exact, so homogeneous statistics keep their bits while
    squares neither overflow nor underflow."""
    m = float(np.max(np.abs(y))) if y.size else 0.0
    if not (m > 0.0 and math.isfinite(m)):
        return y, 0
    e = math.frexp(m)[1]
    return np.ldexp(y, -e), e


def finite(y: np.ndarray) -> np.ndarray:
    """``y`` (n,) with infinities clipped to its finite range (to 0 if none is finite)."""
    fin = np.isfinite(y)
    if fin.all():
        return y
    lo, hi = (y[fin].min(), y[fin].max()) if fin.any() else (0.0, 0.0)
    out: np.ndarray = np.clip(np.nan_to_num(y, posinf=hi, neginf=lo), lo, hi)
    return out


def standardise(y: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``z = (y - mean) / std`` (``std`` 1 for constant targets), ``mean`` and ``std``,
    computed on :func:`unit_scale`'s values so that any finite magnitude gives a finite ``z``."""
    ys, e = unit_scale(np.asarray(y, dtype=float))
    mean_s, std_s = float(np.mean(ys)), float(np.std(ys))
    if not std_s > 0.0:  # constant targets: centred, in the units of y
        return np.ldexp(ys - mean_s, e), math.ldexp(mean_s, e), 1.0
    return (ys - mean_s) / std_s, math.ldexp(mean_s, e), math.ldexp(std_s, e)


def _factor(
    X: np.ndarray,
    z: np.ndarray,
    ell: float,
    lam: float,
    y_mean: float,
    y_std: float,
    chol: np.ndarray | None = None,
) -> LocalGP:
    """The GP on standardised targets ``z`` (``chol``: the factor of ``K + lam I``, if known)."""
    from scipy.linalg import solve_triangular

    n = X.shape[0]
    if chol is None:
        chol = np.linalg.cholesky(matern52(X, X, ell) + (lam + JITTER) * np.eye(n))
    w = solve_triangular(chol, z, lower=True, check_finite=False)
    weights = solve_triangular(chol.T, w, lower=False, check_finite=False)  # (L L^T)^-1 z
    s2 = max(float(z @ weights) / n, 1e-12)
    return LocalGP(X, chol, weights, ell, lam, s2, y_mean, y_std)


def posterior(gp: LocalGP, Xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and variance (without the noise) of the latent function at ``Xs``
    (m, d), in the targets' units, each shape (m,)."""
    from scipy.linalg import solve_triangular

    Ks = matern52(Xs, gp.X, gp.ell)
    v = solve_triangular(gp.chol, Ks.T, lower=True, check_finite=False)
    mean = gp.y_mean + gp.y_std * (Ks @ gp.weights)
    var = gp.s2 * np.maximum(1.0 - np.sum(v * v, axis=0), 0.0) * gp.y_std**2
    return mean, var


def posterior_mean(gp: LocalGP, Xs: np.ndarray) -> np.ndarray:
    """The posterior mean of :func:`posterior` alone (no triangular solve), shape (m,)."""
    out: np.ndarray = gp.y_mean + gp.y_std * (matern52(Xs, gp.X, gp.ell) @ gp.weights)
    return out


def posterior_mean_grad(gp: LocalGP, Xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The posterior mean at ``Xs`` (m, d), shape (m,), and its gradient, shape (m, d):
    ``d k / d x = -(5 / (3 ell^2)) (1 + r) exp(-r) (x - x_i)`` for the Matern-5/2 ``k``."""
    diff = Xs[:, None, :] - gp.X[None, :, :]  # (m, n, d)
    r = math.sqrt(5.0) * np.sqrt(np.sum(diff * diff, axis=2)) / gp.ell
    e = np.exp(-r)
    mean = gp.y_mean + gp.y_std * (((1.0 + r + r * r / 3.0) * e) @ gp.weights)
    coef = (-5.0 / (3.0 * gp.ell**2)) * (1.0 + r) * e * gp.weights  # (m, n)
    grad = gp.y_std * np.einsum("mn,mnd->md", coef, diff)
    return mean, grad


def mean_optimum(
    objective: LocalGP,
    constraints: list[LocalGP],
    x0: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    free: np.ndarray,
    maxiter: int = 30,
) -> np.ndarray:
    """The point of ``[lo, hi]`` that maximises ``objective``'s posterior mean subject to each
    of ``constraints``' posterior means being ``>= 0``, from ``x0`` (d,), moving only the
    ``free`` columns (SLSQP, analytic gradients), shape (d,)."""
    from scipy.optimize import minimize

    def full(z: np.ndarray) -> np.ndarray:
        x = x0.copy()
        x[free] = z
        return x[None]

    def fun(z: np.ndarray) -> tuple[float, np.ndarray]:
        m, g = posterior_mean_grad(objective, full(z))
        return -float(m[0]) / objective.y_std, -g[0, free] / objective.y_std

    cache: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def cons(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # SLSQP asks for the values and the Jacobian at the same point: compute both once
        key = z.tobytes()
        if key not in cache:
            cache.clear()
            pairs = [posterior_mean_grad(c, full(z)) for c in constraints]
            cache[key] = (
                np.array([m[0] / c.y_std for (m, _), c in zip(pairs, constraints)]),
                np.array([g[0, free] / c.y_std for (_, g), c in zip(pairs, constraints)]),
            )
        return cache[key]

    ineq = {"type": "ineq", "fun": lambda z: cons(z)[0], "jac": lambda z: cons(z)[1]}
    res = minimize(
        fun,
        x0[free],
        jac=True,
        method="SLSQP",
        bounds=list(zip(lo[free], hi[free])),
        constraints=[ineq] if constraints else [],
        options={"maxiter": maxiter},
    )
    out: np.ndarray = full(np.clip(res.x, lo[free], hi[free]))[0]
    return out


def condition_on_pending(gp: LocalGP, P: np.ndarray) -> LocalGP:
    """The GP with the pending points ``P`` (p, d) added as observations of the posterior mean
    there (the kriging believer: only the variance shrinks; the hyperparameters stay)."""
    if P.shape[0] == 0:
        return gp
    fantasy = (posterior_mean(gp, P) - gp.y_mean) / gp.y_std
    X = np.vstack((gp.X, P))
    z = gp.chol @ (gp.chol.T @ gp.weights)  # the standardised targets, (K + lam I) weights
    out = _factor(X, np.concatenate((z, fantasy)), gp.ell, gp.lam, 0.0, 1.0)
    return LocalGP(X, out.chol, out.weights, gp.ell, gp.lam, gp.s2, gp.y_mean, gp.y_std)


def thompson_sample(
    gp: LocalGP,
    Xs: np.ndarray,
    rng: np.random.Generator,
    n_joint: int | None = None,
    n_mean: int = 0,
) -> np.ndarray:
    """One joint draw of the latent function at ``Xs`` (m, d) from the posterior, shape (m,);
    with ``n_joint < m``, only the ``n_joint`` candidates of largest ``mean + JOINT_Z std``
    (those that can win the argmax), and the ``n_mean`` of largest mean (sure ones, which the
    upper bounds pass over when uncertain ones abound), are drawn; the others get ``-inf``."""
    from scipy.linalg import solve_triangular

    Ks = matern52(Xs, gp.X, gp.ell)
    v = solve_triangular(gp.chol, Ks.T, lower=True, check_finite=False)
    mean = Ks @ gp.weights
    top: slice | np.ndarray = slice(None)  # all, as views
    if n_joint is not None and n_joint < Xs.shape[0]:
        std = np.sqrt(gp.s2 * np.maximum(1.0 - np.sum(v * v, axis=0), 0.0))
        top = np.argsort(-(mean + JOINT_Z * std), kind="stable")[:n_joint]
        if n_mean:
            top = np.union1d(top, np.argsort(-mean, kind="stable")[:n_mean])
    vt = v[:, top]
    cov = gp.s2 * (matern52(Xs[top], Xs[top], gp.ell) - vt.T @ vt)
    chol = _psd_cholesky(cov, 1e-6 * gp.s2)
    out = np.full(Xs.shape[0], -np.inf)
    out[top] = gp.y_mean + gp.y_std * (mean[top] + chol @ rng.standard_normal(chol.shape[0]))
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
    """``m`` candidates in the region ``[lo, hi]`` (d,), shape (m, d): ``m - m // 2`` uniform,
    then ``m // 2`` that move a random subset of the centre's coordinates (at least one) by a
    Gaussian step of ``PERTURB_SCALE`` times the region's side, clipped."""
    d = lo.shape[0]
    n_pert = m // 2
    uni = lo + rng.random((m - n_pert, d)) * (hi - lo)
    mask = rng.random((n_pert, d)) < min(1.0, PERTURB_DIMS / d)
    mask[np.arange(n_pert), rng.integers(0, d, size=n_pert)] = True
    step = PERTURB_SCALE * (hi - lo) * rng.standard_normal((n_pert, d))
    pert = np.clip(center + np.where(mask, step, 0.0), lo, hi)
    return np.vstack((uni, pert))


def in_cells(C: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Whether each row of ``C`` (m, d) lies in a cell ``lo[i] <= c < hi[i]`` (or ``c == lo``)
    of ``lo``, ``hi`` (n, d), shape (m,): the candidates that decode to an observed point."""
    low, high = C.min(axis=0), C.max(axis=0)
    near = np.arange(lo.shape[0])
    for j in range(C.shape[1]):  # column by column, on the cells left (faster than np.all)
        near = near[(hi[near, j] >= low[j]) & (lo[near, j] <= high[j])]
    if near.size == 0:
        return np.zeros(C.shape[0], dtype=bool)
    lo, hi = lo[near][None], hi[near][None]
    c = C[:, None, :]
    inside = (lo <= c) & ((c < hi) | (c == lo))
    out: np.ndarray = inside.all(axis=2).any(axis=1)
    return out
