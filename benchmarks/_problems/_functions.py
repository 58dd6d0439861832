"""The test functions: BBOB-like (:class:`TestFunction`), PyXAB's Lipschitz bandit functions
(:data:`FUNCTIONS`, :class:`BanditProblem`), the real BBOB suite through ``ioh``
(:class:`BBOBFunction`) and COCO's suites through ``cocoex`` (benchmarks/README.md, Problems)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Any

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
    """One instance of a function of :data:`BASE`: ``seed`` draws the shifted optimum and,
    apart, the noise stream; ``noise`` is the noise sd as a fraction of the median value of
    uniform random points (0: none)."""

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

    def f(self, x: np.ndarray) -> np.ndarray:
        """Noiseless value(s); x has shape (..., dim) in [-5, 5]."""
        return BASE[self.name](np.asarray(x, dtype=float) - self.xopt)

    def observe(self, x: np.ndarray) -> tuple[float, float]:
        """(noisy value to report, noiseless value) of one point."""
        v = float(self.f(x))
        return v + (self._noise_rng.normal(0.0, self.noise_sd) if self.noise else 0.0), v


# -- Lipschitz bandit functions (maximised) -------------------------------------------------
def garland(x: np.ndarray) -> np.ndarray:
    """Garland on [0, 1]: ``x (1 - x) (4 - sqrt|sin 60 x|)``."""
    u = x[:, 0]
    return u * (1.0 - u) * (4.0 - np.sqrt(np.abs(np.sin(60.0 * u))))


def double_sine(x: np.ndarray) -> np.ndarray:
    """DoubleSine on [0, 1] (PyXAB defaults rho1=0.3, rho2=0.8, tmax=0.5); maximum 0 at tmax."""
    ep1, ep2 = -math.log2(0.3), -math.log2(0.8)
    u = 2.0 * np.abs(x[:, 0] - 0.5)
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
        # the negated functions of BASE, maximum 0 at the origin
        Function("Rastrigin", 2, -1.0, 1.0, lambda x: -_rastrigin(x), np.zeros((1, 2))),
        Function("Ackley", 2, -1.0, 1.0, lambda x: -_ackley(x), np.zeros((1, 2))),
    )
}


class BanditProblem:
    """A function seen through [0, 1]^d, values scaled to [0, 1]; ``seed`` draws the domain's
    shift, uniform in ``[-shift, shift] * width`` per dimension."""

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


# -- the real BBOB suite (ioh) -----------------------------------------------------------
FUNCTION_IDS = tuple(range(1, 25))
DIMS = (2, 5, 10)
MODERATE_BETA = 0.01
REPORT_SEED = 1000


def instance_of(seed: int) -> int:
    """BBOB instance of a run: 1-3 for tuning seeds (< 1000), 4-15 for report seeds."""
    if seed >= REPORT_SEED:
        return 4 + (seed - REPORT_SEED) % 12
    return 1 + seed % 3


def bbob_name(fid: int, dim: int, noisy: bool) -> str:
    """The registry's name of a BBOB function, e.g. ``bbob-f08-5d-noisy``."""
    return f"bbob-f{fid:02d}-{dim}d" + ("-noisy" if noisy else "")


def problem_names(dims: tuple[int, ...] = DIMS) -> list[str]:
    """Every BBOB problem name for the given dimensions (noiseless, then noisy per function)."""
    return [bbob_name(f, d, noisy) for d in dims for f in FUNCTION_IDS for noisy in (False, True)]


def parse(name: str) -> tuple[int, int, bool]:
    """``(fid, dim, noisy)`` of a problem name."""
    parts = name.split("-")
    if len(parts) not in (3, 4) or parts[0] != "bbob" or not parts[1].startswith("f"):
        raise ValueError(f"Not a BBOB problem name: {name!r}.")
    return int(parts[1][1:]), int(parts[2][:-1]), len(parts) == 4


@dataclass
class BBOBFunction:
    """One BBOB instance (function ``fid``, 1-24): ``seed`` chooses the instance
    (:func:`instance_of`) and the noise stream of the moderate Gaussian model (``noisy``)."""

    fid: int
    dim: int
    seed: int
    noisy: bool = False
    instance: int = field(init=False)

    def __post_init__(self) -> None:
        import ioh

        self.instance = instance_of(self.seed)
        self._problem = ioh.get_problem(self.fid, self.instance, self.dim, ioh.ProblemClass.BBOB)
        self.f_opt = float(self._problem.optimum.y)
        ref = np.random.default_rng([self.fid, self.dim, self.instance]).uniform(
            LOW, HIGH, size=(1024, self.dim)
        )
        self.median_random = float(np.median(self.f(ref)))
        self._noise_rng = np.random.default_rng([self.seed, self.fid, self.dim, 99])

    def f(self, x: np.ndarray) -> np.ndarray:
        """Noiseless regret(s) ``f(x) - f_opt``; x has shape (dim,) or (k, dim) in [-5, 5]."""
        x = np.asarray(x, dtype=float)
        v = np.asarray(self._problem(np.atleast_2d(x)), dtype=float) - self.f_opt
        return v if x.ndim == 2 else v[0]

    def observe(self, x: np.ndarray) -> tuple[float, float]:
        """(value to report, noiseless regret) of one point; both are relative to ``f_opt``."""
        v = float(self.f(x))
        if not self.noisy:
            return v, v
        obs = v * float(np.exp(MODERATE_BETA * self._noise_rng.standard_normal()))
        if obs >= 1e-8:
            obs += 1.01e-8
        return obs, v


# -- COCO's suites (cocoex, offline) -------------------------------------------------------
def coco_instance(seed: int) -> int:
    """COCO instance of a seed: 1-5 for tuning seeds (< 100), 6-15 for report seeds."""
    return 1 + seed % 5 if seed < 100 else 6 + (seed - 100) % 10


def coco_problem(suite_name: str, fid: int, dim: int, seed: int) -> tuple[Any, Any]:
    """COCO's suite ``suite_name`` and its problem ``fid`` in ``dim`` dimensions, the
    instance picked by ``seed`` (:func:`coco_instance`); the suite is returned too, so that
    the caller keeps it alive as long as the problem."""
    import cocoex

    suite = cocoex.Suite(
        suite_name,
        f"instances: {coco_instance(seed)}",
        f"dimensions: {dim} function_indices: {fid}",
    )
    return suite, suite[0]
