"""COCO's ``bbob-constrained`` and ``bbob-biobj`` suites for ``constrained`` and ``moo``
(issue 32), through ``cocoex`` (``coco-experiment``, offline) as the ``mixint`` problems of
:mod:`benchmarks._mixed_problems`; a seed picks the instance the same way
(:func:`~benchmarks._mixed_problems.mixint_instance`: seeds 0-99 instances 1-5, seeds 100+
instances 6-15).

* ``bbob-constrained-f<id>-<d>d`` (d = 2, 5, 10): one objective, COCO's ``constraint(x)``
  values (feasible when all <= 0), on COCO's box [-5, 5]^d. The subset
  :data:`CONSTRAINED_FUNCTIONS` is a small design over the suite's two axes: the sphere with
  the first two constraint counts (f1: 1 constraint, f2: 2 in 2-D and 5-D, 3 in 10-D), and
  one constraint on an ill-conditioned (f19, rotated ellipsoid) and a multimodal (f49,
  rotated Rastrigin) objective. ``cocoex`` exposes no optimum value (only whether the final
  target was hit), so ``f*`` is NaN: the report takes the best feasible value any run of the
  table found, as for the ``mixint`` problems.
* ``bbob-biobj-f<id>-<d>d`` (d = 2, 5): two objectives on [-5, 5]^d (COCO's bounds are
  [-100, 100]^d, but the optima of the bbob functions that make both objectives, and so the
  extremes of the Pareto set, lie in [-5, 5]^d, the bbob search box). The subset
  :data:`BIOBJ_FUNCTIONS` is the first pair of the same function from each of the five bbob
  groups: f1 (sphere, separable), f20 (attractive sector, moderate), f35 (sharp ridge,
  ill-conditioned), f46 (rotated Rastrigin, multimodal) and f53 (Schwefel, weakly
  structured). The hypervolume's reference point is COCO's ``largest_fvalues_of_interest``
  (the nadir of the two single-objective optima, COCO's own reference point: only points
  dominating it count); ``HV*`` is NaN, so the report takes the hypervolume of the union of
  every run's front (COCO's best-known values are not exposed by ``cocoex``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from benchmarks._mixed_problems import mixint_instance
from benchmarks._moo_problems import Problem

CONSTRAINED_FUNCTIONS = (1, 2, 19, 49)
CONSTRAINED_DIMS = (2, 5, 10)
BIOBJ_FUNCTIONS = (1, 20, 35, 46, 53)
BIOBJ_DIMS = (2, 5)
BIOBJ_BOX = 5.0  # [-5, 5]^d, the bbob search box
COCO_CONSTRAINED_PROBLEMS = tuple(
    f"bbob-constrained-f{f}-{d}d" for d in CONSTRAINED_DIMS for f in CONSTRAINED_FUNCTIONS
)
COCO_BIOBJ_PROBLEMS = tuple(f"bbob-biobj-f{f}-{d}d" for d in BIOBJ_DIMS for f in BIOBJ_FUNCTIONS)
# a group name on --problems stands for its problems
COCO_GROUPS = {"bbob-constrained": COCO_CONSTRAINED_PROBLEMS, "bbob-biobj": COCO_BIOBJ_PROBLEMS}


def _suite_problem(name: str, seed: int) -> tuple[Any, Any]:
    """COCO's suite and its one problem for ``name`` (``bbob-<suite>-f<id>-<d>d``) and
    ``seed``; the suite is returned too, so that it outlives the problem."""
    import cocoex

    suite_name, fid, dims = name.rsplit("-", 2)
    suite = cocoex.Suite(
        suite_name,
        f"instances: {mixint_instance(seed)}",
        f"dimensions: {int(dims[:-1])} function_indices: {int(fid[1:])}",
    )
    return suite, suite[0]


def coco_constrained_problem(name: str, seed: int) -> Problem:
    """A problem of :data:`COCO_CONSTRAINED_PROBLEMS` for ``seed`` (its instance)."""
    if name not in COCO_CONSTRAINED_PROBLEMS:
        raise ValueError(f"Unknown problem {name!r}; use one of {COCO_CONSTRAINED_PROBLEMS}.")
    suite, problem = _suite_problem(name, seed)

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _ = suite
        return np.array([float(problem(x))]), np.asarray(problem.constraint(x), dtype=float)

    low, high = np.asarray(problem.lower_bounds), np.asarray(problem.upper_bounds)
    c = int(problem.number_of_constraints)
    return Problem(name, low, high, 1, c, evaluate, math.nan)


def coco_biobj_problem(name: str, seed: int) -> Problem:
    """A problem of :data:`COCO_BIOBJ_PROBLEMS` for ``seed`` (its instance)."""
    if name not in COCO_BIOBJ_PROBLEMS:
        raise ValueError(f"Unknown problem {name!r}; use one of {COCO_BIOBJ_PROBLEMS}.")
    suite, problem = _suite_problem(name, seed)

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _ = suite
        return np.asarray(problem(x), dtype=float), np.zeros(0)

    d = int(problem.dimension)
    reference = np.asarray(problem.largest_fvalues_of_interest, dtype=float)
    low, high = np.full(d, -BIOBJ_BOX), np.full(d, BIOBJ_BOX)
    return Problem(name, low, high, 2, 0, evaluate, math.nan, reference)
