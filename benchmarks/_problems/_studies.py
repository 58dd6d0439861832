"""The Optuna problems of ``optimize`` and ``mixed``: define-by-run objectives, each a
:class:`Study` that records every trial's noiseless value and branch (all minimised;
benchmarks/README.md, Optuna problems)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import numpy as np

from benchmarks._problems._functions import HIGH
from benchmarks._problems._functions import LOW
from benchmarks._problems._functions import BBOBFunction
from benchmarks._problems._functions import TestFunction
from benchmarks._problems._functions import coco_problem
from benchmarks._problems._functions import parse as parse_bbob

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


SKLEARN_TASKS = ("svc-breast_cancer", "enet-diabetes", "rf-wine", "mlp-digits", "keras-mlp-digits")
MIXED_PENALTIES = (0.0, 0.1, 0.3, 0.6)  # of a mixed problem's categorical, x median random
Objective = Callable[[Any], float]


@dataclass
class Study:
    """A ready problem: ``objective(trial) -> value`` appends each trial's noiseless value to
    ``trues`` and its branch (``None`` without branches) to ``branches``.  ``scale`` is the
    median regret of a uniform random point (NaN: the regret is relative to the best value any
    run found: of the same seed when ``seeded``, the seed drawing the problem's instance);
    ``best_branch`` is known for the synthetic branch problems."""

    name: str
    group: str
    scale: float = math.nan
    seeded: bool = False
    best_branch: str | None = None
    trues: list[float] = field(default_factory=list)
    branches: list[str | None] = field(default_factory=list)
    objective: Objective = print

    def record(self, value: float, branch: str | None = None) -> float:
        self.trues.append(value)
        self.branches.append(branch)
        return value


def _function(s: Study, seed: int) -> Objective:
    """A function of :mod:`benchmarks._problems._functions` on [-5, 5]^d: ``<function>-<d>d``,
    ``<function>-<d>d-noisy`` or ``bbob-f<id>-<d>d[-noisy]``."""
    fn = function(s.name, seed)
    s.scale = fn.median_random

    def objective(trial: Any) -> float:
        x = np.array([trial.suggest_float(f"x{i}", LOW, HIGH) for i in range(fn.dim)])
        obs, true = fn.observe(x)
        s.record(true)
        return obs

    return objective


def function(name: str, seed: int) -> TestFunction | BBOBFunction:
    """The function ``name`` (``<function>-<d>d[-noisy]``, ``bbob-f<id>-<d>d[-noisy]``) for
    ``seed``: its instance and noise stream; a noisy BBOB-like function has noise 0.1."""
    if name.startswith("bbob-"):
        fid, dim, noisy = parse_bbob(name)
        return BBOBFunction(fid, dim, seed, noisy)
    parts = name.split("-")
    return TestFunction(parts[0], int(parts[1][:-1]), seed, 0.1 if parts[-1] == "noisy" else 0.0)


def _suggest(trial: Any, kinds: list[str], low: Any, high: Any) -> np.ndarray:
    """``x`` with coordinate ``i`` an int, a float on a grid of step 0.5 or a float
    (``kinds[i]``) in ``[low[i], high[i]]``."""
    x = np.empty(len(kinds))
    for i, kind in enumerate(kinds):
        if kind == "int":
            x[i] = trial.suggest_int(f"x{i}", int(low[i]), int(high[i]))
        else:
            step = 0.5 if kind == "step" else None
            x[i] = trial.suggest_float(f"x{i}", float(low[i]), float(high[i]), step=step)
    return x


def _mixed(s: Study, seed: int) -> Objective:
    _, fname, dims = s.name.split("-")
    dim = int(dims[:-1])
    tf = TestFunction(fname, dim, seed)
    kinds = (["float", "int", "step"] * dim)[:dim]
    for i in range(dim):  # optima on the grids, so the regret can reach 0
        if kinds[i] == "int":
            tf.xopt[i] = float(np.round(tf.xopt[i]))
        elif kinds[i] == "step":
            tf.xopt[i] = float(np.round(2.0 * tf.xopt[i]) / 2.0)
    order = np.random.default_rng([seed, dim, 7]).permutation(len(MIXED_PENALTIES))
    s.scale = tf.median_random
    penalty = {f"c{k}": MIXED_PENALTIES[order[k]] * tf.median_random for k in range(len(order))}

    def objective(trial: Any) -> float:
        x = _suggest(trial, kinds, [LOW] * dim, [HIGH] * dim)
        c = trial.suggest_categorical("c", list(penalty))
        return s.record(float(tf.f(x)) + penalty[c])

    return objective


def _sklearn(s: Study, seed: int) -> Objective:
    """The cross-validated error of one scikit-learn task (data loaded once)."""
    name = s.name
    from sklearn import datasets
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import ElasticNet
    from sklearn.model_selection import KFold
    from sklearn.model_selection import cross_val_score
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    cv = KFold(n_splits=3, shuffle=True, random_state=0)
    if name == "svc-breast_cancer":
        X, y = datasets.load_breast_cancer(return_X_y=True)

        def svc(trial: Any) -> float:
            kernel = trial.suggest_categorical("kernel", ["rbf", "sigmoid", "poly"])
            model = make_pipeline(
                StandardScaler(),
                SVC(
                    C=trial.suggest_float("C", 1e-3, 1e3, log=True),
                    gamma=trial.suggest_float("gamma", 1e-5, 1e1, log=True),
                    kernel=kernel,
                    degree=trial.suggest_int("degree", 2, 5),
                ),
            )
            return 1.0 - float(cross_val_score(model, X, y, cv=cv).mean())

        return lambda trial: s.record(svc(trial))
    if name == "enet-diabetes":
        X, y = datasets.load_diabetes(return_X_y=True)

        def enet(trial: Any) -> float:
            model = make_pipeline(
                PolynomialFeatures(trial.suggest_int("degree", 1, 2), include_bias=False),
                StandardScaler(),
                ElasticNet(
                    alpha=trial.suggest_float("alpha", 1e-4, 1e1, log=True),
                    l1_ratio=trial.suggest_float("l1_ratio", 0.0, 1.0),
                    max_iter=500,
                ),
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                s = cross_val_score(model, X, y, cv=cv, scoring="neg_mean_squared_error")
            return float(-s.mean())

        return lambda trial: s.record(enet(trial))
    if name == "rf-wine":
        X, y = datasets.load_wine(return_X_y=True)

        def rf(trial: Any) -> float:
            model = RandomForestClassifier(
                n_estimators=trial.suggest_int("n_estimators", 5, 25, log=True),
                max_depth=trial.suggest_int("max_depth", 1, 12),
                max_features=trial.suggest_float("max_features", 0.05, 1.0),
                min_samples_leaf=trial.suggest_int("min_samples_leaf", 1, 20),
                criterion=trial.suggest_categorical("criterion", ["gini", "entropy"]),
                random_state=0,
            )
            return 1.0 - float(cross_val_score(model, X, y, cv=cv).mean())

        return lambda trial: s.record(rf(trial))
    if name == "mlp-digits":
        X, y = datasets.load_digits(return_X_y=True)
        X, y = X[:600] / 16.0, y[:600]

        def mlp(trial: Any) -> float:
            model = MLPClassifier(
                hidden_layer_sizes=(trial.suggest_int("units", 4, 128, log=True),),
                alpha=trial.suggest_float("alpha", 1e-6, 1e-1, log=True),
                learning_rate_init=trial.suggest_float("lr", 1e-4, 1e-1, log=True),
                activation=trial.suggest_categorical("activation", ["relu", "tanh", "logistic"]),
                max_iter=40,
                random_state=0,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return 1.0 - float(cross_val_score(model, X, y, cv=cv).mean())

        return lambda trial: s.record(mlp(trial))
    if name == "keras-mlp-digits":
        # The paper's MLP space and Keras model (examples/mnist.py) on the bundled digits,
        # exactly as the README's main job trains them; error = 1 - validation accuracy.
        from pathlib import Path

        from examples._datasets import load_digits
        from examples._datasets import split_train_val
        from examples._models import Settings
        from examples._models import evaluate_mlp
        from examples._optuna_run import suggest
        from examples.mnist import SPACE

        data = split_train_val(load_digits(Path(".")), train_size=1200, val_size=597, seed=0)

        def keras_mlp(trial: Any) -> float:
            params = {name: suggest(trial, name, dist) for name, dist in SPACE.items()}
            result = evaluate_mlp(params, data, Settings(iter_scale=1.0, seed=0))
            return 1.0 - result.accuracy

        return lambda trial: s.record(keras_mlp(trial))
    raise ValueError(f"Unknown sklearn task {name!r}.")


def _mixint(s: Study, seed: int) -> Objective:
    fid, dims = s.name.split("-")[1:]
    dim = int(dims[:-1])
    suite, problem = coco_problem("bbob-mixint", int(fid[1:]), dim, seed)
    s.seeded = True  # each seed is another instance, with its own optimum value
    n_int = problem.number_of_integer_variables
    kinds = ["int"] * n_int + ["float"] * (dim - n_int)

    def objective(trial: Any) -> float:
        x = _suggest(trial, kinds, problem.lower_bounds, problem.upper_bounds)
        _ = suite  # alive as long as its problem
        return s.record(float(problem(x)))

    return objective


def _branch(s: Study, seed: int) -> Objective:
    spec = BRANCHES[s.name]
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
        return s.record(level + scale * float(fns[b].f(x)) / fns[b].median_random, b)

    return objective


def _pipe(s: Study, seed: int) -> Objective:
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
    X, y = loaders[s.name[5:]](return_X_y=True)
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
        return s.record(v, model)

    return objective
