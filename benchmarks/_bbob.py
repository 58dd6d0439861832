"""The real BBOB suite (all 24 noiseless functions, rotated as defined) through ``ioh``.

``ioh.get_problem(fid, instance, dim, ioh.ProblemClass.BBOB)`` gives the functions of Hansen
et al., "Real-Parameter Black-Box Optimization Benchmarking 2009: Noiseless Functions
Definitions", on [-5, 5]^d, with the instance's rotation, shift and optimum value ``f_opt``.
Regret is ``f(x) - f_opt`` on the noiseless value.

Noisy variants: ``ioh`` has no noisy BBOB functions (f101-f130), so the noisy variant
applies BBOB's moderate Gaussian noise model on top of a noiseless function,
``f_GN(f) = f * exp(beta * N(0, 1))`` with ``beta = 0.01`` on ``f - f_opt``, plus the
testbed's ``1.01e-8`` offset where that value is at least ``1e-8`` (the noisy testbed's
definition; its severe model uses ``beta = 1``).

Instances and seeds: a run is named by a seed; seeds 0-999 are tuning seeds and use the
instances 1-3, seeds 1000+ are report seeds and use the instances 4-15 (see
:func:`instance_of`), so the choice of defaults never sees a report instance.

Problem names: ``bbob-f<fid>-<d>d`` and ``bbob-f<fid>-<d>d-noisy`` (``fid`` 01-24).
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field

import numpy as np

FUNCTION_IDS = tuple(range(1, 25))
DIMS = (2, 5, 10)
MODERATE_BETA = 0.01
REPORT_SEED = 1000
LOW, HIGH = -5.0, 5.0


def instance_of(seed: int) -> int:
    """BBOB instance of a run: 1-3 for tuning seeds (< 1000), 4-15 for report seeds."""
    if seed >= REPORT_SEED:
        return 4 + (seed - REPORT_SEED) % 12
    return 1 + seed % 3


def problem_names(dims: tuple[int, ...] = DIMS, noisy: bool = True) -> list[str]:
    """Every BBOB problem name for the given dimensions (noiseless, then noisy per function)."""
    out = []
    for d in dims:
        for fid in FUNCTION_IDS:
            out.append(f"bbob-f{fid:02d}-{d}d")
            if noisy:
                out.append(f"bbob-f{fid:02d}-{d}d-noisy")
    return out


def parse(name: str) -> tuple[int, int, bool]:
    """``(fid, dim, noisy)`` of a problem name."""
    parts = name.split("-")
    if len(parts) not in (3, 4) or parts[0] != "bbob" or not parts[1].startswith("f"):
        raise ValueError(f"Not a BBOB problem name: {name!r}.")
    return int(parts[1][1:]), int(parts[2][:-1]), len(parts) == 4


@dataclass
class BBOBFunction:
    """One BBOB instance with an optional noise model.

    Args:
        fid: Function id, 1-24.
        dim: Dimension.
        seed: Run seed: chooses the instance (:func:`instance_of`) and the noise stream.
        noisy: Apply the moderate Gaussian noise model.
    """

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

    @property
    def label(self) -> str:
        return f"bbob-f{self.fid:02d}-{self.dim}d" + ("-noisy" if self.noisy else "")

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
