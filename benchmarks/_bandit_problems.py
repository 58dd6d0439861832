"""Lipschitz bandit test functions (PyXAB's definitions), shifted per seed, scaled to [0, 1].

Each function is the one in ``PyXAB.synthetic_obj`` (same formula and native domain),
vectorised.  A :class:`Problem` is a function seen through the unit cube with its domain
shifted at random per seed (so that no method gains from an optimum at the centre of the cube,
where dyadic partitions evaluate first), and affinely scaled so that the noiseless value is in
[0, 1] with maximum exactly 1 (regret ``1 - f(x)``).  Every method sees the same scaled values
plus Gaussian noise; the regret is measured on the noiseless values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


def garland(x: np.ndarray) -> np.ndarray:
    """Garland on [0, 1]: ``x (1 - x) (4 - sqrt|sin 60 x|)``."""
    u = x[:, 0]
    return u * (1.0 - u) * (4.0 - np.sqrt(np.abs(np.sin(60.0 * u))))


def double_sine(
    x: np.ndarray, rho1: float = 0.3, rho2: float = 0.8, tmax: float = 0.5
) -> np.ndarray:
    """DoubleSine on [0, 1] (PyXAB defaults rho1=0.3, rho2=0.8, tmax=0.5); maximum 0 at tmax."""
    ep1, ep2 = -math.log2(rho1), -math.log2(rho2)
    u = 2.0 * np.abs(x[:, 0] - tmax)
    out = np.zeros_like(u)
    nz = u > 0
    un = u[nz]
    envelope = un**ep2 - un**ep1
    out[nz] = (np.sin(np.log2(un) / 2.0 * 2.0 * np.pi) + 1.0) / 2.0 * envelope - un**ep2
    return out


def himmelblau(x: np.ndarray) -> np.ndarray:
    """Negated Himmelblau on [-5, 5]^2; maximum 0 at four points."""
    x1, x2 = x[:, 0], x[:, 1]
    return -((x1**2 + x2 - 11.0) ** 2) - (x1 + x2**2 - 7.0) ** 2


def rastrigin(x: np.ndarray) -> np.ndarray:
    """Negated Rastrigin on [-1, 1]^d; maximum 0 at the origin."""
    return np.sum(-10.0 - (x**2 - 10.0 * np.cos(2.0 * np.pi * x)), axis=1)


def ackley(x: np.ndarray) -> np.ndarray:
    """Negated Ackley on [-1, 1]^2; maximum 0 at the origin."""
    x1, x2 = x[:, 0], x[:, 1]
    return (
        20.0 * np.exp(-0.2 * np.sqrt(0.5 * (x1**2 + x2**2)))
        + np.exp(0.5 * (np.cos(2.0 * np.pi * x1) + np.cos(2.0 * np.pi * x2)))
        - np.e
        - 20.0
    )


@dataclass(frozen=True)
class Function:
    """A test function on its native box with the points where its maximum may lie."""

    name: str
    dim: int
    low: float
    high: float
    f: Callable[[np.ndarray], np.ndarray]
    argmax_candidates: np.ndarray  # shape (k, dim)


_HIMMELBLAU_MAX = np.array(
    [[3.0, 2.0], [-2.805118, 3.131312], [-3.779310, -3.283186], [3.584428, -1.848126]]
)

FUNCTIONS: dict[str, Function] = {
    f.name: f
    for f in (
        # Garland's maximum sits on a cusp sin(60 x) = 0, i.e. x = k pi / 60.
        Function("Garland", 1, 0.0, 1.0, garland, (np.arange(0, 25) * np.pi / 60)[:, None]),
        Function("DoubleSine", 1, 0.0, 1.0, double_sine, np.array([[0.5]])),
        Function("Himmelblau", 2, -5.0, 5.0, himmelblau, _HIMMELBLAU_MAX),
        Function("Rastrigin", 2, -1.0, 1.0, rastrigin, np.zeros((1, 2))),
        Function("Ackley", 2, -1.0, 1.0, ackley, np.zeros((1, 2))),
    )
}


class Problem:
    """A function seen through [0, 1]^d, domain shifted per seed, values scaled to [0, 1].

    Args:
        fn: The function.
        seed: Draws the shift, uniform in ``[-shift, shift] * width`` per dimension.
        shift: Largest shift as a fraction of the domain width.
    """

    def __init__(self, fn: Function, seed: int, shift: float = 0.1) -> None:
        self.fn = fn
        self.dim = fn.dim
        width = fn.high - fn.low
        rng = np.random.default_rng([seed, 7919])
        self.offset = fn.low + rng.uniform(-shift, shift, size=fn.dim) * width
        self.width = width
        lo, hi = self.offset, self.offset + width
        inside = np.all((fn.argmax_candidates >= lo) & (fn.argmax_candidates <= hi), axis=1)
        assert inside.any(), "the shift keeps a maximiser inside the domain"
        fmax = float(np.max(fn.f(fn.argmax_candidates[inside])))
        k = 200_001 if fn.dim == 1 else 801
        axes = [np.linspace(0.0, 1.0, k)] * fn.dim
        grid = np.stack([a.ravel() for a in np.meshgrid(*axes, indexing="ij")], axis=1)
        vals = fn.f(self.native(grid))
        self.fmin = float(np.min(vals))
        self.fmax = max(fmax, float(np.max(vals)))

    def native(self, u: np.ndarray) -> np.ndarray:
        """Cube points (n, d) -> native points (n, d)."""
        return self.offset + np.asarray(u, dtype=float) * self.width

    def value(self, u: np.ndarray) -> float:
        """Noiseless scaled value of one cube point, in [0, 1] (1 at the maximum)."""
        v = float(self.fn.f(self.native(np.asarray(u, dtype=float).reshape(1, -1)))[0])
        return (v - self.fmin) / (self.fmax - self.fmin)
