"""Mixed-integer and conditional problems for ``python -m benchmarks mixed`` (issue #23).

Two groups, every problem minimised through a define-by-run Optuna objective:

* ``mixint``: COCO's ``bbob-mixint`` suite (``coco-experiment``, shipped offline): 4/5 of the
  variables are integers with 2, 4, 8 or 16 values, 1/5 are floats in [-5, 5]. Problems are
  ``mixint-f<id>-<d>d``; a seed picks the instance (seeds 0-99: instances 1-5, tuning;
  seeds 100+: instances 6-15, report). The suite exposes no optimum value, so the regret is
  normalised by the best value any run found (as the scikit-learn tasks of ``optimize``).
* ``conditional``: a categorical branch with its own conditional parameters.

  - ``branch-<k>``: synthetic, known optima (``branch-50``: 50 choices with one parameter
    each). Branch ``j`` is a BBOB-like function of
    :mod:`benchmarks._testfunctions` on its own floats, ``level_j + scale_j * f_j(x) /
    median_j`` (``median_j`` the median of ``f_j`` at uniform random points). The branch with
    the best random points (the easiest) has a higher optimum level than the best branch,
    whose random points are poor: a bandit on a branch's *mean* locks onto the easy one.
  - ``pipe-<dataset>``: a model-choice pipeline on a scikit-learn bundled dataset (no
    download): a standard scaler, an optional PCA (its share of components conditional), then
    an SVC, a random forest, k-NN or a logistic regression, each with its own parameters;
    3-fold cross-validated error with fixed folds and model seeds (deterministic).

Each objective records the branch of every trial (``None`` for ``mixint``), for the lock-in
statistic.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks._testfunctions import HIGH
from benchmarks._testfunctions import LOW
from benchmarks._testfunctions import TestFunction

MIXINT_FUNCTIONS = (1, 3, 8, 10, 15, 21)  # sphere, Rastrigin, Rosenbrock, ellipsoid (rot.),
# Rastrigin (rot.), Gallagher 101 peaks: separable, multimodal, valley, ill-conditioned
MIXINT_DIMS = (5, 10)

# branch -> (function, dimension, optimum level, scale of f / median); the first branch of a
# problem is its easiest (best random points), the last holds the optimum.
BRANCHES: dict[str, dict[str, tuple[str, int, float, float]]] = {
    "branch-3": {
        "easy": ("sphere", 2, 0.25, 0.25),
        "middle": ("ellipsoid", 3, 0.12, 1.0),
        "best": ("sphere", 4, 0.0, 1.0),
    },
    "branch-4": {
        "easy": ("sphere", 1, 0.3, 0.2),
        "rastrigin": ("rastrigin", 2, 0.15, 1.0),
        "rosenbrock": ("rosenbrock", 3, 0.1, 1.0),
        "best": ("ellipsoid", 4, 0.0, 1.0),
    },
}
# Many choices, one parameter each (50 model variants): 48 decoys whose optima lie between the
# easy branch's and the best's, alternating a smooth and a multimodal function.
BRANCHES["branch-50"] = {
    "easy": ("sphere", 1, 0.1, 0.05),
    **{
        f"m{j:02d}": ("sphere" if j % 2 else "rastrigin", 1, 0.12 + 0.4 * j / 47, 0.2)
        for j in range(48)
    },
    "best": ("sphere", 1, 0.0, 1.0),
}
PIPELINE_DATASETS = ("digits", "breast_cancer", "wine")
MIXINT_PROBLEMS = tuple(f"mixint-f{f}-{d}d" for d in MIXINT_DIMS for f in MIXINT_FUNCTIONS)
CONDITIONAL_PROBLEMS = (*BRANCHES, *(f"pipe-{d}" for d in PIPELINE_DATASETS))


@dataclass
class Problem:
    """A ready objective: ``objective(trial) -> value``; every call appends its value to
    ``trues`` and its branch to ``branches``. ``best_branch`` is known for synthetic problems
    (``None`` otherwise)."""

    name: str
    group: str
    objective: Callable[[Any], float]
    trues: list[float]
    branches: list[str | None]
    best_branch: str | None


def group_of(name: str) -> str:
    """``"mixint"`` or ``"conditional"``; ``ValueError`` for an unknown name."""
    if name in MIXINT_PROBLEMS:
        return "mixint"
    if name in CONDITIONAL_PROBLEMS:
        return "conditional"
    known = ", ".join(MIXINT_PROBLEMS + CONDITIONAL_PROBLEMS)
    raise ValueError(f"Unknown mixed problem {name!r}; known: {known}.")


def make_problem(name: str, seed: int) -> Problem:
    """The problem ``name`` for ``seed`` (the instance of a synthetic or COCO problem)."""
    group = group_of(name)
    trues: list[float] = []
    branches: list[str | None] = []
    if name.startswith("mixint-"):
        objective = _mixint(name, seed, trues, branches)
        return Problem(name, group, objective, trues, branches, None)
    if name in BRANCHES:
        objective = _branch(name, seed, trues, branches)
        return Problem(name, group, objective, trues, branches, "best")
    objective = _pipeline(name[5:], trues, branches)
    return Problem(name, group, objective, trues, branches, None)


def mixint_instance(seed: int) -> int:
    """COCO instance of a seed: 1-5 for tuning seeds (< 100), 6-15 for report seeds."""
    return 1 + seed % 5 if seed < 100 else 6 + (seed - 100) % 10


def _mixint(
    name: str, seed: int, trues: list[float], branches: list[str | None]
) -> Callable[[Any], float]:
    import cocoex

    fid, dims = name.split("-")[1:]
    dim = int(dims[:-1])
    suite = cocoex.Suite(
        "bbob-mixint",
        f"instances: {mixint_instance(seed)}",
        f"dimensions: {dim} function_indices: {int(fid[1:])}",
    )
    problem = suite[0]
    lower, upper = problem.lower_bounds, problem.upper_bounds
    n_int = problem.number_of_integer_variables

    def objective(trial: Any) -> float:
        x = np.empty(dim)
        for i in range(dim):
            if i < n_int:
                x[i] = trial.suggest_int(f"x{i}", int(lower[i]), int(upper[i]))
            else:
                x[i] = trial.suggest_float(f"x{i}", float(lower[i]), float(upper[i]))
        v = float(problem(x))
        trues.append(v)
        branches.append(None)
        return v

    return objective


def _branch(
    name: str, seed: int, trues: list[float], branches: list[str | None]
) -> Callable[[Any], float]:
    spec = BRANCHES[name]
    fns = {b: TestFunction(f, d, seed) for b, (f, d, _, _) in spec.items()}
    # the order of the choices is drawn per seed, so no sampler gains from the first choice
    labels = list(spec)
    order = [
        labels[i] for i in np.random.default_rng([seed, len(labels), 23]).permutation(len(labels))
    ]

    def objective(trial: Any) -> float:
        b = trial.suggest_categorical("branch", order)
        _, dim, level, scale = spec[b]
        x = np.array([trial.suggest_float(f"{b}_x{i}", LOW, HIGH) for i in range(dim)])
        v = level + scale * float(fns[b].f(x)) / fns[b].median_random
        trues.append(v)
        branches.append(b)
        return v

    return objective


def _pipeline(
    dataset: str, trues: list[float], branches: list[str | None]
) -> Callable[[Any], float]:
    from sklearn import datasets
    from sklearn.decomposition import PCA
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.model_selection import cross_val_score
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    loaders = {
        "digits": datasets.load_digits,
        "breast_cancer": datasets.load_breast_cancer,
        "wine": datasets.load_wine,
    }
    X, y = loaders[dataset](return_X_y=True)
    if len(y) > 400:  # keeps one evaluation well under 0.3 s
        idx = np.random.default_rng(0).permutation(len(y))[:400]
        X, y = X[idx], y[idx]
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    n_features = X.shape[1]

    def objective(trial: Any) -> float:
        steps: list[Any] = [StandardScaler()]
        if trial.suggest_categorical("pca", [False, True]):
            share = trial.suggest_float("pca_share", 0.05, 1.0)
            steps.append(PCA(n_components=max(1, round(share * n_features)), random_state=0))
        model = trial.suggest_categorical("model", ["svc", "rf", "knn", "logreg"])
        if model == "svc":
            clf: Any = SVC(
                C=trial.suggest_float("svc_C", 1e-3, 1e3, log=True),
                gamma=trial.suggest_float("svc_gamma", 1e-5, 1e1, log=True),
            )
        elif model == "rf":
            clf = RandomForestClassifier(
                n_estimators=trial.suggest_int("rf_n_estimators", 5, 20, log=True),
                max_depth=trial.suggest_int("rf_max_depth", 1, 16),
                max_features=trial.suggest_float("rf_max_features", 0.05, 1.0),
                random_state=0,
            )
        elif model == "knn":
            clf = KNeighborsClassifier(
                n_neighbors=trial.suggest_int("knn_k", 1, 30),
                weights=trial.suggest_categorical("knn_weights", ["uniform", "distance"]),
            )
        else:
            clf = LogisticRegression(
                C=trial.suggest_float("lr_C", 1e-4, 1e2, log=True), max_iter=200
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = 1.0 - float(cross_val_score(make_pipeline(*steps, clf), X, y, cv=cv).mean())
        trues.append(v)
        branches.append(model)
        return v

    return objective
