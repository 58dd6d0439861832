"""Multi-objective and constrained test problems with known optima (all minimised), each a
:class:`Box`: ZDT, DTLZ2, Gardner, Gramacy, the G-series, BBOB-like functions under a ball or a
half-space, the digits MLP and COCO's bbob-biobj and bbob-constrained (benchmarks/README.md)."""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks._problems._functions import HIGH
from benchmarks._problems._functions import LOW
from benchmarks._problems._functions import TestFunction
from benchmarks._problems._functions import coco_problem

MOO_PROBLEMS = (
    *(f"zdt{i}-{d}d" for d in (5, 10) for i in (1, 2, 3)),
    "dtlz2-6d",
    "digits-mlp-size",
)
BBOB_CONSTRAINED = tuple(f"{f}-{d}d" for d in (5, 10) for f in ("sphere-ball", "ellipsoid-linear"))
CONSTRAINED_PROBLEMS = ("gardner", "gramacy", "g4", "g24", *BBOB_CONSTRAINED, "digits-mlp-budget")
INFEASIBLE_PROBLEMS = ("never-feasible-2d",)  # no point is feasible
# real tasks: no known optimum; the report takes the best seen over its runs (optimum NaN)
REAL_PROBLEMS = ("digits-mlp-size", "digits-mlp-budget")
ZDT_REFERENCE = 11.0  # BoTorch's ZDT reference point, in every objective
DTLZ_REFERENCE = 1.1
GRAMACY_OPTIMUM = 0.5997880520010306
ZDT3_FRONT_POINTS = 200_000
ZDT_HYPERVOLUMES = {"zdt1": 121.0 - 1.0 / 3.0, "zdt2": 121.0 - 2.0 / 3.0}  # zdt3: computed
DIGITS_EPOCHS = 15
DIGITS_BUDGET = 1000  # parameters, digits-mlp-budget
DIGITS_REFERENCE = (1.0, 4.5)  # validation error, log10 of the parameter count
DIGITS_LOW = np.array([1.0, 0.5, -4.0, -6.0])
DIGITS_HIGH = np.array([7.0, 2.5, -1.0, -1.0])


@dataclass(frozen=True)
class Box:
    """One instance in the box ``[low, high]`` (shape (d,)): ``evaluate(x)`` gives the ``k``
    objectives (minimised) and the ``c`` constraint values (feasible when all <= 0).
    ``optimum`` is ``HV*`` of the true front (several objectives, below ``reference``) or
    ``f*``; NaN for a real task (the report takes the best seen over its runs)."""

    name: str
    low: np.ndarray
    high: np.ndarray
    n_objectives: int
    n_constraints: int
    evaluate: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
    optimum: float
    reference: np.ndarray | None = None

    @property
    def dim(self) -> int:
        return int(self.low.shape[0])


def _from_pymoo(name: str, pm: Any, optimum: float, reference: np.ndarray | None = None) -> Box:
    """A :class:`Box` of pymoo's problem ``pm``: its bounds, objectives and inequality
    constraints."""
    low, high = np.asarray(pm.xl, dtype=float), np.asarray(pm.xu, dtype=float)

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        F, G = pm.evaluate(np.atleast_2d(x), return_values_of=["F", "G"])
        G = np.zeros((1, 0)) if G is None else np.asarray(G)
        return np.asarray(F, dtype=float)[0], G.astype(float)[0]

    return Box(name, low, high, int(pm.n_obj), int(pm.n_ieq_constr), evaluate, optimum, reference)


def _zdt3_hypervolume() -> float:
    from optuna._hypervolume import compute_hypervolume
    from pymoo.problems import get_problem

    front = get_problem("zdt3", n_var=5).pareto_front(n_points=ZDT3_FRONT_POINTS)
    return float(compute_hypervolume(front, np.full(2, ZDT_REFERENCE)))


@functools.lru_cache(maxsize=1)
def _digits_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    Xtr, Xva, ytr, yva = train_test_split(X / 16.0, y, test_size=0.3, random_state=0, stratify=y)
    return Xtr, Xva, ytr, yva


def digits_network(x: np.ndarray) -> tuple[tuple[int, ...], float, float, int]:
    """The hidden layers, learning rate, ``alpha`` and parameter count of a point ``x``."""
    width = int(round(2.0 ** float(x[0])))
    depth = int(np.clip(round(float(x[1])), 1, 2))
    layers = (64, *([width] * depth), 10)
    n_params = sum((a + 1) * b for a, b in zip(layers[:-1], layers[1:]))
    return (width,) * depth, 10.0 ** float(x[2]), 10.0 ** float(x[3]), n_params


def digits_error(x: np.ndarray) -> tuple[float, int]:
    """Validation error of the digits MLP at ``x``, and its parameter count."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    hidden, lr, alpha, n_params = digits_network(x)
    Xtr, Xva, ytr, yva = _digits_split()
    options = {"batch_size": 128, "max_iter": DIGITS_EPOCHS, "random_state": 0}
    model = MLPClassifier(hidden_layer_sizes=hidden, learning_rate_init=lr, alpha=alpha, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(Xtr, ytr)
    return 1.0 - float(model.score(Xva, yva)), n_params


def _digits_size(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    error, n_params = digits_error(x)
    return np.array([error, math.log10(n_params)]), np.zeros(0)


def _digits_budget(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    error, n_params = digits_error(x)
    return np.array([error]), np.array([n_params / DIGITS_BUDGET - 1.0])


def moo_problem(name: str) -> Box:
    """A multi-objective problem of :data:`MOO_PROBLEMS` (they do not depend on the seed)."""
    from pymoo.problems import get_problem

    if name not in MOO_PROBLEMS:
        raise ValueError(f"Unknown multi-objective problem {name!r}; use one of {MOO_PROBLEMS}.")
    if name == "digits-mlp-size":
        reference = np.array(DIGITS_REFERENCE)
        return Box(name, DIGITS_LOW, DIGITS_HIGH, 2, 0, _digits_size, math.nan, reference)
    base, dims = name.split("-")
    d = int(dims[:-1])
    if base == "dtlz2":
        pm = get_problem("dtlz2", n_var=d, n_obj=3)
        hv = DTLZ_REFERENCE**3 - math.pi / 6
        ref = np.full(3, DTLZ_REFERENCE)
    else:
        pm = get_problem(base, n_var=d)
        hv = ZDT_HYPERVOLUMES.get(base) or _zdt3_hypervolume()
        ref = np.full(2, ZDT_REFERENCE)
    return _from_pymoo(name, pm, hv, ref)


def _gardner(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    f = math.cos(2 * x[0]) * math.cos(x[1]) + math.sin(x[0])
    c = math.cos(x[0]) * math.cos(x[1]) - math.sin(x[0]) * math.sin(x[1]) - 0.5
    return np.array([f]), np.array([c])


def _gramacy(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x1, x2 = float(x[0]), float(x[1])
    c1 = 1.5 - x1 - 2 * x2 - 0.5 * math.sin(2 * math.pi * (x1**2 - 2 * x2))
    c2 = x1**2 + x2**2 - 1.5
    return np.array([x1 + x2]), np.array([c1, c2])


def _bbob_constrained(name: str, seed: int) -> Box:
    func, kind, dims = name.split("-")
    d = int(dims[:-1])
    tf = TestFunction(func, d, seed)
    norm = float(np.linalg.norm(tf.xopt))
    a, b = tf.xopt / norm, norm / 2

    def constraint(x: np.ndarray) -> float:
        return float(np.dot(x, x) - b**2) if kind == "ball" else float(np.dot(a, x) - b)

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.array([float(tf.f(x))]), np.array([constraint(x)])

    if func == "sphere" and kind == "ball":
        optimum = b**2
    else:
        optimum = _ellipsoid_linear_optimum(tf, a, b)
    low, high = np.full(d, LOW), np.full(d, HIGH)
    return Box(name, low, high, 1, 1, evaluate, optimum)


def _ellipsoid_linear_optimum(tf: TestFunction, a: np.ndarray, b: float) -> float:
    """``f*`` of the separable ellipsoid under ``a.x <= b`` on the box (KKT, exactly).

    At the optimum ``x_i(lam) = clip(x_opt_i - lam a_i / (2 w_i))``, and ``a.x(lam)``
    decreases in ``lam``: one root finding gives the multiplier (a separable convex
    quadratic programme with one linear constraint and bounds).
    """
    from scipy.optimize import brentq

    w = 10.0 ** (6.0 * np.arange(tf.dim) / max(tf.dim - 1, 1))  # _testfunctions._ellipsoid

    def x_of(lam: float) -> np.ndarray:
        return np.clip(tf.xopt - lam * a / (2 * w), LOW, HIGH)

    hi = 1.0
    while float(np.dot(a, x_of(hi))) > b:
        hi *= 2.0
    lam = brentq(lambda t: float(np.dot(a, x_of(t))) - b, 0.0, hi, xtol=1e-14, rtol=1e-15)
    return float(tf.f(x_of(lam)))


def _never_feasible(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``never-feasible-2d``; uniform draws have a median violation of about 1.64."""
    return np.array([x[0] + x[1]]), np.array([1.0 + x[0] ** 2 + x[1] ** 2])


def constrained_problem(name: str, seed: int) -> Box:
    """A constrained problem of :data:`CONSTRAINED_PROBLEMS`; ``seed`` draws BBOB instances."""
    from pymoo.problems import get_problem

    if name == "gardner":
        return Box(name, np.zeros(2), np.full(2, 6.0), 1, 1, _gardner, -2.0)
    if name == "gramacy":
        return Box(name, np.zeros(2), np.ones(2), 1, 2, _gramacy, GRAMACY_OPTIMUM)
    if name == "digits-mlp-budget":
        return Box(name, DIGITS_LOW, DIGITS_HIGH, 1, 1, _digits_budget, math.nan)
    if name in ("g4", "g24"):
        pm = get_problem(name)
        return _from_pymoo(name, pm, float(np.asarray(pm.pareto_front()).ravel()[0]))
    if name == "never-feasible-2d":
        return Box(name, np.full(2, -1.0), np.ones(2), 1, 1, _never_feasible, 0.0)
    if name in CONSTRAINED_PROBLEMS:
        return _bbob_constrained(name, seed)
    raise ValueError(f"Unknown constrained problem {name!r}; use one of {CONSTRAINED_PROBLEMS}.")


# -- COCO's bbob-constrained and bbob-biobj ------------------------------------------------
CONSTRAINED_FUNCTIONS = (1, 2, 19, 49)
CONSTRAINED_DIMS = (2, 5, 10)
BIOBJ_FUNCTIONS = (1, 20, 35, 46, 53)
BIOBJ_DIMS = (2, 5)
BIOBJ_BOX = 5.0  # [-5, 5]^d, the bbob search box
COCO_CONSTRAINED_PROBLEMS = tuple(
    f"bbob-constrained-f{f}-{d}d" for d in CONSTRAINED_DIMS for f in CONSTRAINED_FUNCTIONS
)
COCO_BIOBJ_PROBLEMS = tuple(f"bbob-biobj-f{f}-{d}d" for d in BIOBJ_DIMS for f in BIOBJ_FUNCTIONS)


def coco_box(name: str, seed: int) -> Box:
    """A problem of :data:`COCO_CONSTRAINED_PROBLEMS` or :data:`COCO_BIOBJ_PROBLEMS` for
    ``seed`` (its instance): a biobjective one in [-5, 5]^d with COCO's nadir as reference."""
    suite_name, fid, dims = name.rsplit("-", 2)
    suite, problem = coco_problem(suite_name, int(fid[1:]), int(dims[:-1]), seed)
    biobj = name in COCO_BIOBJ_PROBLEMS

    def evaluate(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _ = suite  # alive as long as its problem
        if biobj:
            return np.asarray(problem(x), dtype=float), np.zeros(0)
        return np.array([float(problem(x))]), np.asarray(problem.constraint(x), dtype=float)

    if biobj:
        d, reference = int(problem.dimension), problem.largest_fvalues_of_interest
        low, high = np.full(d, -BIOBJ_BOX), np.full(d, BIOBJ_BOX)
        return Box(name, low, high, 2, 0, evaluate, math.nan, np.asarray(reference, dtype=float))
    low, high = np.asarray(problem.lower_bounds), np.asarray(problem.upper_bounds)
    return Box(name, low, high, 1, int(problem.number_of_constraints), evaluate, math.nan)


def box(name: str, seed: int) -> Box:
    """The problem ``name`` for ``seed`` (the instance of a BBOB-like or COCO problem)."""
    if name in COCO_BIOBJ_PROBLEMS or name in COCO_CONSTRAINED_PROBLEMS:
        return coco_box(name, seed)
    return moo_problem(name) if name in MOO_PROBLEMS else constrained_problem(name, seed)
