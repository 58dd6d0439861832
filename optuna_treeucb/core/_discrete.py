"""Discrete columns inside the trust region (``discrete="region"``).

With ``discrete="box"`` the in-box samplers treat every column as a continuous coordinate of
the cube, and a discrete column (an int, a stepped float, a categorical) keeps the played box's
whole range.  With ``discrete="region"`` these pure functions give discrete columns a
neighbourhood of their own, as TuRBO's categorical successors do (CASMOPOLITAN, Wan et al.,
"Think Global and Act Local", ICML 2021: a Hamming ball around the incumbent whose radius
follows the trust region; Optuna's ``GPSampler``: a categorical distance that only asks whether
two choices are equal):

* a grid (an int or a stepped float) shrinks with the trust region like a float, but never
  below :data:`MIN_BINS` values on each side of the centre's value (:func:`grid_region`);
* a candidate keeps the centre's category, or with probability ``min(1, rho)`` takes one of
  the box's categories uniformly (:func:`draw_categories`), so the neighbourhood narrows to
  the centre's category as the trust region shrinks;
* every candidate's discrete coordinates sit at the centres of their bins, where the values
  they decode to are encoded (:func:`snap`); a perturbation of the centre that moves a grid
  coordinate moves it by at least one value (:func:`step_off_centre`);
* the local GP sees a categorical as a one-hot block scaled by ``1 / sqrt(2)``
  (:func:`embed`): two different choices are at distance 1, the side of the cube, whatever
  their order among the choices; a grid keeps its (log-)linear coordinate.

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
MIN_REDRAW = 0.0  # floor of the redraw probability (0.5 measured no better on tuning seeds)


def snap(spec: ParamSpec, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bins of coordinates ``u`` (m,) of a discrete parameter and their centres, each (m,)."""
    k = spec.bin_indices(u)
    return k, centres(spec, k)


def centres(spec: ParamSpec, k: np.ndarray) -> np.ndarray:
    """Bin centres of the bin indices ``k`` (shape (m,)), through :meth:`ParamSpec.bin_centre`
    once per distinct index."""
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
    """The values of a discrete parameter that a box's side ``[low, high]`` holds.

    A value belongs to the box when the centre of its bin (where it is encoded, so where the
    tree saw it) lies in ``[low, high]``; a side narrower than that gets the bins it overlaps.
    Returns ``(first, last)``, bin indices, ``first <= last``.
    """
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
    flip = rng.random(m) < max(MIN_REDRAW, min(1.0, rho))
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


def embed(P: np.ndarray, specs: Sequence[ParamSpec]) -> np.ndarray:
    """Inputs of the local GP: a categorical column as a one-hot block over its choices,
    scaled by ``1 / sqrt(2)`` so that two different choices are at distance 1; the other
    columns (and columns beyond ``specs``, e.g. a budget context) as they are.  ``P`` (m, d')
    gives shape (m, d' + sum over categoricals of (K - 1)).
    """
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
