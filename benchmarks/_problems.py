"""The problem registry of the benchmark commands: one place to look a problem up by name.

* ``optimize`` (Optuna objectives; :func:`select_problems` takes names and groups): the
  BBOB-like functions of :mod:`benchmarks._testfunctions` (``<function>-<d>d[-noisy]``), the
  real BBOB suite of :mod:`benchmarks._bbob` (``bbob-f<id>-<d>d[-noisy]`` and groups such as
  ``bbob-5d``), mixed problems (``mixed-<function>-<d>d``) and scikit-learn tasks
  (``svc-breast_cancer``, ``enet-diabetes``, ``rf-wine``, ``mlp-digits``,
  ``keras-mlp-digits``), each a :class:`ProblemKind` of :data:`KINDS`;
* ``mixed`` and ``mixed_ray``: the integer-heavy and conditional problems of
  :mod:`benchmarks._mixed_problems` (:func:`make_problem`);
* ``moo`` and ``constrained``: the problems of :mod:`benchmarks._moo_problems` and COCO's
  ``bbob-biobj`` and ``bbob-constrained`` of :mod:`benchmarks._coco_problems`
  (:func:`problem_of`);
* ``bandit`` and ``ablation``: the Lipschitz functions of :mod:`benchmarks._testfunctions`
  (:data:`FUNCTIONS`), and ``inbox`` and ``async`` the BBOB suite (:data:`FUNCTION_IDS`).

A new kind of ``optimize`` problem is one entry of :data:`KINDS` (how to build it, how
``--problems`` names it).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks import _bbob
from benchmarks._bbob import FUNCTION_IDS
from benchmarks._bbob import BBOBFunction
from benchmarks._coco_problems import coco_biobj_problem
from benchmarks._coco_problems import coco_constrained_problem
from benchmarks._mixed_problems import make_problem
from benchmarks._moo_problems import Problem
from benchmarks._moo_problems import constrained_problem
from benchmarks._moo_problems import moo_problem
from benchmarks._testfunctions import BASE
from benchmarks._testfunctions import FUNCTIONS
from benchmarks._testfunctions import HIGH
from benchmarks._testfunctions import LOW
from benchmarks._testfunctions import TestFunction

TUNING_SEED_OFFSET = 1000  # tuning seeds (bandit, ablation) never overlap the report seeds
# the optimisation suite of the ablation and the paired check: functions x noise
ABLATION_FUNCTIONS = ("sphere", "ellipsoid", "rosenbrock", "rastrigin", "ackley")
ABLATION_NOISES = (0.0, 0.1)

__all__ = [
    "FUNCTIONS",
    "FUNCTION_IDS",
    "KINDS",
    "ProblemSpec",
    "make_problem",
    "problem_of",
    "select_problems",
]


def problem_of(mode: str, name: str, seed: int) -> Problem:
    """The problem instance of a ``moo`` (``mode="moo"``) or ``constrained`` run."""
    if name.startswith("bbob-biobj-"):
        return coco_biobj_problem(name, seed)
    if name.startswith("bbob-constrained-"):
        return coco_constrained_problem(name, seed)
    return moo_problem(name) if mode == "moo" else constrained_problem(name, seed)


@dataclass(frozen=True)
class ProblemSpec:
    """A problem by name and group; the group's first word is its kind (a key of
    :data:`KINDS`): ``continuous``, ``continuous-noisy``, ``mixed``, ``sklearn``,
    ``bbob-<d>d`` (the noiseless BBOB functions) or ``bbob-noisy``."""

    name: str
    group: str

    @property
    def kind(self) -> str:
        return self.group.split("-")[0]


Objective = Callable[[Any], float]


def _box_objective(fn: TestFunction | BBOBFunction, trues: list[float]) -> Objective:
    """A function on [-5, 5]^d as an Optuna objective of ``d`` floats."""

    def objective(trial: Any) -> float:
        x = np.array([trial.suggest_float(f"x{i}", LOW, HIGH) for i in range(fn.dim)])
        obs, true = fn.observe(x)
        trues.append(true)
        return obs

    return objective


def _continuous_objective(name: str, seed: int, trues: list[float]) -> tuple[Objective, float]:
    """``<function>-<d>d`` or ``<function>-<d>d-noisy`` of :mod:`benchmarks._testfunctions`."""
    parts = name.split("-")
    fn = TestFunction(parts[0], int(parts[1][:-1]), seed, 0.1 if parts[-1] == "noisy" else 0.0)
    return _box_objective(fn, trues), fn.median_random


def _bbob_objective(name: str, seed: int, trues: list[float]) -> tuple[Objective, float]:
    """``bbob-f<fid>-<d>d[-noisy]`` of :mod:`benchmarks._bbob`."""
    fid, dim, noisy = _bbob.parse(name)
    fn = BBOBFunction(fid, dim, seed, noisy)
    return _box_objective(fn, trues), fn.median_random


MIXED_PENALTIES = (0.0, 0.1, 0.3, 0.6)  # of a mixed problem's categorical, x median random


def _mixed_objective(name: str, seed: int, trues: list[float]) -> tuple[Objective, float]:
    """A mixed problem ``mixed-<function>-<d>d`` (see the module docstring) and its scale."""
    _, fname, dims = name.split("-")
    dim = int(dims[:-1])
    tf = TestFunction(fname, dim, seed)
    kinds = ["float", "int", "step"] * dim
    for i in range(dim):  # optima on the grids, so the regret can reach 0
        if kinds[i] == "int":
            tf.xopt[i] = float(np.round(tf.xopt[i]))
        elif kinds[i] == "step":
            tf.xopt[i] = float(np.round(2.0 * tf.xopt[i]) / 2.0)
    order = np.random.default_rng([seed, dim, 7]).permutation(len(MIXED_PENALTIES))
    penalty = {f"c{k}": MIXED_PENALTIES[order[k]] * tf.median_random for k in range(len(order))}

    def objective(trial: Any) -> float:
        x = np.empty(dim)
        for i in range(dim):
            if kinds[i] == "int":
                x[i] = trial.suggest_int(f"x{i}", int(LOW), int(HIGH))
            elif kinds[i] == "step":
                x[i] = trial.suggest_float(f"x{i}", LOW, HIGH, step=0.5)
            else:
                x[i] = trial.suggest_float(f"x{i}", LOW, HIGH)
        c = trial.suggest_categorical("c", list(penalty))
        v = float(tf.f(x)) + penalty[c]
        trues.append(v)
        return v

    return objective, tf.median_random


def _sklearn_objective(name: str) -> Objective:
    """A deterministic cross-validated error for one sklearn task (data loaded once)."""
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

        return svc
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

        return enet
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

        return rf
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

        return mlp
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

        return keras_mlp
    raise ValueError(f"Unknown sklearn task {name!r}.")


def _sklearn_task(name: str, seed: int, trues: list[float]) -> tuple[Objective, float]:
    """A deterministic scikit-learn task (the seed does not enter); no scale: its regret is
    relative to the best value any run found (:func:`normalised_regret`)."""
    inner = _sklearn_objective(name)

    def objective(trial: Any) -> float:
        v = inner(trial)
        trues.append(v)
        return v

    return objective, float("nan")


def _mixed_problems(name: str) -> list[ProblemSpec] | None:
    parts = name.split("-")
    if len(parts) != 3 or parts[1] not in BASE or not parts[2][:-1].isdigit():
        return None
    return [ProblemSpec(name, "mixed")] if parts[2].endswith("d") else None


def _bbob_problems(name: str) -> list[ProblemSpec] | None:
    try:
        return bbob_problems(name)
    except ValueError:
        return None


@dataclass(frozen=True)
class ProblemKind:
    """How the problems of one kind are built and named.

    Args:
        build: ``build(name, seed, trues) -> (objective, scale)``: the Optuna objective, which
            appends each trial's noiseless value to ``trues``, and the median regret of a
            uniform random point (NaN: the regret is relative to the best value any run found
            instead, see :func:`normalised_regret`).
        select: For ``--problems``: the problems a name that starts with the kind names, or
            ``None`` if it names none (the problems of :func:`problems` need no ``select``).
    """

    build: Callable[[str, int, list[float]], tuple[Objective, float]]
    select: Callable[[str], list[ProblemSpec] | None] | None = None


def problems(quick: bool) -> list[ProblemSpec]:
    """The problem list of a mode."""
    names = (
        ["sphere", "rosenbrock", "rastrigin"]
        if quick
        else [
            "sphere",
            "ellipsoid",
            "rosenbrock",
            "rastrigin",
            "ackley",
        ]
    )
    out = []
    for d in (2, 5, 10):
        for n in names:
            out.append(ProblemSpec(f"{n}-{d}d", "continuous"))
            out.append(ProblemSpec(f"{n}-{d}d-noisy", "continuous-noisy"))
    tasks = ["svc-breast_cancer", "enet-diabetes"]
    if not quick:
        tasks += ["rf-wine", "mlp-digits", "keras-mlp-digits"]
    out += [ProblemSpec(t, "sklearn") for t in tasks]
    return out


def bbob_problems(name: str) -> list[ProblemSpec]:
    """BBOB problems named ``name``: one problem, or ``bbob`` / ``bbob-<d>d`` /
    ``bbob-noisy`` / ``bbob-<d>d-noisy`` / ``bbob-<d>d-noiseless`` for a whole group."""
    groups = {
        "bbob": _bbob.problem_names(),
        "bbob-noisy": [n for n in _bbob.problem_names() if n.endswith("noisy")],
        "bbob-noiseless": _bbob.problem_names(noisy=False),
    }
    for d in _bbob.DIMS:
        every = _bbob.problem_names((d,))
        groups[f"bbob-{d}d"] = every
        groups[f"bbob-{d}d-noisy"] = [n for n in every if n.endswith("noisy")]
        groups[f"bbob-{d}d-noiseless"] = _bbob.problem_names((d,), noisy=False)
    names = groups.get(name, [name])
    out = []
    for n in names:
        _, d, noisy = _bbob.parse(n)
        out.append(ProblemSpec(n, "bbob-noisy" if noisy else f"bbob-{d}d"))
    return out


KINDS: dict[str, ProblemKind] = {
    "continuous": ProblemKind(_continuous_objective),
    "bbob": ProblemKind(_bbob_objective, select=_bbob_problems),
    "mixed": ProblemKind(_mixed_objective, select=_mixed_problems),
    "sklearn": ProblemKind(_sklearn_task),
}


def select_problems(quick: bool, names: str | None) -> list[ProblemSpec]:
    """The mode's problems, or those named: any problem of the full mode, or a name that a
    kind's ``select`` takes (BBOB names and groups, ``mixed-<function>-<d>d``)."""
    if not names:
        return problems(quick)
    known = {pr.name: pr for pr in problems(False)}
    out: list[ProblemSpec] = []
    for name in names.split(","):
        kind = KINDS.get(name.split("-")[0])
        selected = [known[name]] if name in known else None
        if selected is None and kind is not None and kind.select is not None:
            selected = kind.select(name)
        if not selected:
            raise SystemExit(f"Unknown problem {name!r}.")
        out += selected
    return out
