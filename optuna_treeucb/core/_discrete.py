"""Discrete columns inside the trust region.

With ``discrete="box"`` (the default) a discrete column keeps the played box's whole range, and
the local GP's candidates include the centre's one-column :func:`neighbours`.  With
``discrete="region"`` it gets a neighbourhood of its own, as TuRBO's categorical successors do
(CASMOPOLITAN, Wan et al., ICML 2021: a Hamming ball whose radius follows the trust region):
a grid shrinks with the region down to :data:`MIN_BINS` values each side of the centre's
(:func:`grid_region`); a categorical keeps the centre's choice or redraws with probability
``min(1, rho)`` (:func:`draw_categories`); candidates sit at bin centres (:func:`snap`), and
the local GP sees a categorical as a one-hot block (:func:`embed`).

Notations:
    m: number of candidates; d: columns of the cube.
    cand: candidates, shape (m, d), values in [0, 1].
    center: the trust region's centre, shape (d,).
    lo, hi: the trust region (``low <= lo <= hi <= high``), shape (d,).
    low, high: the played box, shape (d,).
    rho: side of the trust region relative to the box's side, > 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from optuna_treeucb.core._space import ParamSpec

MIN_BINS = 2  # values a grid keeps on each side of the centre's value, box permitting
NEIGHBOUR_VALUES = 16  # values of a column the one-step neighbourhood tries, nearest first


def snap(spec: ParamSpec, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bins of coordinates ``u`` (m,) of a discrete parameter and their centres, each (m,)."""
    k = spec.bin_indices(u)
    return k, centres(spec, k)


def centres(spec: ParamSpec, k: np.ndarray) -> np.ndarray:
    """Bin centres of the bin indices ``k``, shape (m,)."""
    uniq, inverse = np.unique(k, return_inverse=True)
    out: np.ndarray = np.array([spec.bin_centre(int(i)) for i in uniq], dtype=float)[inverse]
    return out


def grid_region(
    spec: ParamSpec, c: float, lo: float, hi: float, low: float, high: float
) -> tuple[float, float]:
    """A grid's side ``[lo, hi]`` of the trust region, widened to the bins of the
    :data:`MIN_BINS` values each side of the centre ``c``'s value (fewer at the ends of the
    grid), clipped to the box's side ``[low, high]``."""
    n = spec.n_values
    assert n is not None
    k = spec.bin_index(c)
    a = spec.bin_edge(max(0, k - MIN_BINS))
    b = spec.bin_edge(min(n, k + MIN_BINS + 1))
    return max(low, min(lo, a)), min(high, max(hi, b))


def box_bins(spec: ParamSpec, low: float, high: float) -> tuple[int, int]:
    """The bins ``(first, last)`` whose centres lie in a box's side ``[low, high]`` (the bins
    it overlaps if none), ``first <= last``."""
    first, last = spec.bin_index(low), spec.bin_index(high)
    a = first if spec.bin_centre(first) >= low else first + 1
    b = last if spec.bin_centre(last) <= high else last - 1
    return (a, b) if a <= b else (first, last)


def draw_categories(
    rng: np.random.Generator,
    spec: ParamSpec,
    c: float,
    low: float,
    high: float,
    rho: float,
    m: int,
) -> np.ndarray:
    """A categorical's coordinate (a bin centre) for ``m`` candidates: the centre ``c``'s
    category, or with probability ``min(1, rho)`` one of the box's categories drawn uniformly
    (``2 m`` draws of ``rng``, whatever the data)."""
    first, last = box_bins(spec, low, high)
    flip = rng.random(m) < min(1.0, rho)
    other = rng.integers(first, last + 1, size=m)
    return centres(spec, np.where(flip, other, spec.bin_index(c)))


def step_off_centre(
    rng: np.random.Generator,
    spec: ParamSpec,
    c: float,
    u: np.ndarray,
    moved: np.ndarray,
    lo: float,
    hi: float,
) -> np.ndarray:
    """Snap a grid's coordinates ``u`` (m,) to bin centres; one a perturbation ``moved``
    ((m,), bool) that fell back on the centre ``c``'s value moves one value up or down
    within the region's side ``[lo, hi]`` (``m`` draws of ``rng``, whatever the data)."""
    k = spec.bin_indices(u)
    kc, k_lo, k_hi = spec.bin_index(c), spec.bin_index(lo), spec.bin_index(hi)
    sign = np.where(rng.random(u.shape[0]) < 0.5, -1, 1)
    up, down = min(kc + 1, k_hi), max(kc - 1, k_lo)
    shifted = np.where(sign > 0, np.where(up > kc, up, down), np.where(down < kc, down, up))
    return centres(spec, np.where(moved & (k == kc), shifted, k))


def neighbours(
    specs: Sequence[ParamSpec],
    center: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    fixed: Sequence[int] = (),
    per_column: int = NEIGHBOUR_VALUES,
) -> np.ndarray:
    """The points that differ from ``center`` (d,) in one discrete column, set to another of the
    box ``low``/``high``'s values (its :data:`NEIGHBOUR_VALUES` nearest to the centre's on a
    grid; ``fixed`` columns kept): the one-step neighbourhood of a discrete local search
    (Optuna's ``optim_mixed``), shape (k, d), ``k`` possibly 0."""
    rows = []
    for j, spec in enumerate(specs):
        if not spec.is_discrete or j in fixed:
            continue
        first, last = box_bins(spec, float(low[j]), float(high[j]))
        kc = spec.bin_index(float(center[j]))
        # the nearest values lie within per_column of the centre's: a grid of 10**12 values
        # is never listed whole
        span = range(max(first, kc - per_column), min(last, kc + per_column) + 1)
        ks = np.array([k for k in span if k != kc], dtype=int)
        if ks.size == 0:
            continue
        ks = ks[np.argsort(np.abs(ks - kc), kind="stable")[:per_column]]
        block = np.repeat(center[None], ks.size, axis=0)
        block[:, j] = centres(spec, ks)
        rows.append(block)
    return np.vstack(rows) if rows else np.empty((0, center.shape[0]))


def embed(P: np.ndarray, specs: Sequence[ParamSpec]) -> np.ndarray:
    """Inputs of the local GP: a categorical column as a one-hot block scaled by ``1 / sqrt(2)``
    (two choices at distance 1), the other columns as they are; shape (m, d' + sum (K - 1))."""
    blocks = []
    for j in range(P.shape[1]):
        spec = specs[j] if j < len(specs) else None
        if spec is None or spec.kind != "categorical":
            blocks.append(P[:, j : j + 1])
            continue
        n = spec.n_values
        assert n is not None
        onehot = np.zeros((P.shape[0], n))
        onehot[np.arange(P.shape[0]), spec.bin_indices(P[:, j])] = 1.0 / math.sqrt(2.0)
        blocks.append(onehot)
    return np.hstack(blocks) if blocks else P
