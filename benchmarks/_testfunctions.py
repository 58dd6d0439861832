"""BBOB-like continuous test functions for minimisation on [-5, 5]^d.

Own implementations of a few functions of the BBOB suite (Hansen et al., "Real-Parameter
Black-Box Optimization Benchmarking 2009: Noiseless Functions Definitions"): sphere,
ellipsoid (separable, condition 1e6), Rosenbrock, Rastrigin and
Ackley.  Per seed the optimum ``x*`` is drawn uniformly in [-4, 4]^d (BBOB's convention) and
the optimum value is 0.  A noisy variant adds Gaussian noise whose standard deviation is
``noise`` times the median value of uniform random points (so it is comparable across
functions); regret is always taken on the noiseless value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

LOW, HIGH = -5.0, 5.0


def _sphere(z: np.ndarray) -> np.ndarray:
    return np.sum(z**2, axis=-1)


def _ellipsoid(z: np.ndarray) -> np.ndarray:
    d = z.shape[-1]
    w = 10.0 ** (6.0 * np.arange(d) / max(d - 1, 1))
    return np.sum(w * z**2, axis=-1)


def _rosenbrock(z: np.ndarray) -> np.ndarray:
    u = z + 1.0  # minimum at z = 0
    return np.sum(100.0 * (u[..., 1:] - u[..., :-1] ** 2) ** 2 + (u[..., :-1] - 1.0) ** 2, axis=-1)


def _rastrigin(z: np.ndarray) -> np.ndarray:
    d = z.shape[-1]
    return 10.0 * d + np.sum(z**2 - 10.0 * np.cos(2.0 * np.pi * z), axis=-1)


def _ackley(z: np.ndarray) -> np.ndarray:
    d = z.shape[-1]
    return (
        -20.0 * np.exp(-0.2 * np.sqrt(np.sum(z**2, axis=-1) / d))
        - np.exp(np.sum(np.cos(2.0 * np.pi * z), axis=-1) / d)
        + 20.0
        + np.e
    )


BASE: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sphere": _sphere,
    "ellipsoid": _ellipsoid,
    "rosenbrock": _rosenbrock,
    "rastrigin": _rastrigin,
    "ackley": _ackley,
}


@dataclass
class TestFunction:
    """One instance: function, dimension, shifted optimum, noise level.

    Args:
        name: A key of :data:`BASE`.
        dim: Dimension.
        seed: Draws the optimum (instance) and, separately, the noise stream.
        noise: Noise sd as a fraction of the median value of uniform random points (0: none).
    """

    name: str
    dim: int
    seed: int
    noise: float = 0.0

    def __post_init__(self) -> None:
        rng = np.random.default_rng([self.seed, self.dim, len(self.name)])
        self.xopt = rng.uniform(-4.0, 4.0, size=self.dim)
        ref = rng.uniform(LOW, HIGH, size=(4096, self.dim))
        self.median_random = float(np.median(self.f(ref)))
        self.noise_sd = self.noise * self.median_random
        self._noise_rng = np.random.default_rng([self.seed, 99])

    @property
    def label(self) -> str:
        return f"{self.name}-{self.dim}d" + ("-noisy" if self.noise else "")

    def f(self, x: np.ndarray) -> np.ndarray:
        """Noiseless value(s); x has shape (..., dim) in [-5, 5]."""
        return BASE[self.name](np.asarray(x, dtype=float) - self.xopt)

    def observe(self, x: np.ndarray) -> tuple[float, float]:
        """(noisy value to report, noiseless value) of one point."""
        v = float(self.f(x))
        return v + (self._noise_rng.normal(0.0, self.noise_sd) if self.noise else 0.0), v


def suite(
    dims: list[int], names: list[str], noise_levels: list[float], seed: int
) -> list[TestFunction]:
    """All instances of the given functions x dimensions x noise levels for one seed."""
    return [TestFunction(n, d, seed, nz) for d in dims for n in names for nz in noise_levels]
