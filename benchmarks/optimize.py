"""Optimisation quality of TreeUCBSampler beside Optuna's samplers.

Problems (all minimised):

* continuous: BBOB-like functions of :mod:`benchmarks._testfunctions` in 2/5/10-D, each also
  with Gaussian noise; regret on the noiseless value of the best *observed* trial, divided by
  the median regret of a uniform random point;
* bbob (not in the default run; name them with ``--problems``, e.g. ``--problems bbob-5d``):
  the real BBOB suite of :mod:`benchmarks._bbob` (24 rotated functions, 2/5/10-D, and noisy
  variants); regret ``f(x) - f_opt`` of the best *observed* trial, divided by the median regret
  of a uniform random point.  Seeds 0-999 use the instances 1-3 (tuning), seeds 1000+
  (``--seed-offset 1000``) the instances 4-15 (report);
* mixed (not in the default run; name them with ``--problems``, e.g.
  ``--problems mixed-sphere-5d,mixed-rastrigin-10d``): a BBOB-like function whose coordinates
  cycle through a float, an int and a float on a grid of step 0.5, with optima on their grids,
  plus a categorical of 4 choices adding 0, 0.1, 0.3 or 0.6 times the median value of random
  points (in an order drawn per seed); regret as for continuous;
* sklearn: cross-validated error of small scikit-learn models on bundled datasets with mixed
  log/int/categorical spaces (fixed folds and model seeds, so they are deterministic); regret
  ``(v - best) / (median_random - best)`` where ``best`` is the best value any run found and
  ``median_random`` the median over the random sampler's trials.

Every sampler runs with the same seeds and budget.  Reported at 50/100/200 trials: mean rank
per problem group and overall (ranks among samplers per problem and seed), geometric mean of
the normalised regret, and the win rate against TPE (ties count one half).

Usage::

    python -m benchmarks optimize --quick        # 100 trials, 2 seeds, no GPSampler
    python -m benchmarks optimize --quick --gp   # the same with GPSampler (slow)
    python -m benchmarks optimize                # 200 trials, 5 seeds, GPSampler included
    python -m benchmarks optimize --problems bbob-5d,bbob-10d --seed-offset 1000 \\
        --samplers TPE,CmaEs,Random,QMC --save /tmp/base.pkl   # baselines once, then
    python -m benchmarks optimize --problems bbob-5d,bbob-10d --seed-offset 1000 \\
        --samplers "TreeUCB,TreeUCB[sampling=uniform]" --load /tmp/base.pkl   # all together
    python -m benchmarks optimize --problems svc-breast_cancer,rf-wine --trials 100 \\
        --samplers "TreeUCB,TreeUCB[discrete=region],TPE"   # a TreeUCB with core options

Samplers are named as in :mod:`benchmarks._samplers`: ``TreeUCB``, ``TPE``, ``GP``,
``CmaEs``, ``Random``, ``QMC``, each optionally with constructor options in brackets.  A new
kind of problem is one entry of :data:`KINDS` (how to build it, how ``--problems`` names it).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks import _bbob
from benchmarks._bbob import BBOBFunction
from benchmarks._common import Curve
from benchmarks._common import command_line
from benchmarks._common import fmt
from benchmarks._common import load_runs
from benchmarks._common import machine_note
from benchmarks._common import make_parser
from benchmarks._common import md_table
from benchmarks._common import plot_panels
from benchmarks._common import pmap
from benchmarks._common import results_dir
from benchmarks._common import save_runs
from benchmarks._common import stamp_core
from benchmarks._common import write_result
from benchmarks._samplers import make_sampler
from benchmarks._samplers import require_packages
from benchmarks._samplers import split_names
from benchmarks._stats import FLOOR
from benchmarks._stats import geomean
from benchmarks._stats import geomean_curve
from benchmarks._stats import mean_ranks
from benchmarks._stats import paired as paired_stats
from benchmarks._testfunctions import BASE
from benchmarks._testfunctions import HIGH
from benchmarks._testfunctions import LOW
from benchmarks._testfunctions import TestFunction

SAMPLERS = (
    "TreeUCB",
    "TreeUCB[rule=incremental]",
    "TreeUCB[index=soft_gp]",
    "TPE",
    "GP",
    "CmaEs",
    "Random",
    "QMC",
)


# -- problems ----------------------------------------------------------------------------------
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
        from examples._runner import suggest
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


def run_one(job: tuple[str, ProblemSpec, int, int]) -> dict[str, Any]:
    """One study: per trial the observed and the noiseless value, and the sampler time."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    sampler_name, prob, seed, n_trials = job
    trues: list[float] = []
    objective, scale = KINDS[prob.kind].build(prob.name, seed, trues)
    study = optuna.create_study(sampler=make_sampler(sampler_name, seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        study.optimize(objective, n_trials=n_trials)
        wall = time.perf_counter() - t0
    obs = np.array([t.value for t in study.trials], dtype=float)
    return {
        "sampler": sampler_name,
        "problem": prob.name,
        "group": prob.group,
        "seed": seed,
        "obs": obs,
        "true": np.array(trues),
        "scale": scale,
        "wall": wall,
    }


def _best_of_observed(obs: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Noiseless value of the best observed trial so far, shape (n_trials,)."""
    idx = np.zeros(obs.size, dtype=int)
    best = 0
    for i in range(obs.size):
        if obs[i] < obs[best]:
            best = i
        idx[i] = best
    return true[idx]


def normalised_regret(results: list[dict[str, Any]]) -> None:
    """Add ``"regret"`` (shape (n_trials,)) to every result, in place."""
    by_problem: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_problem.setdefault(r["problem"], []).append(r)
    for rs in by_problem.values():
        if np.isfinite(rs[0]["scale"]):
            for r in rs:
                r["regret"] = np.maximum(_best_of_observed(r["obs"], r["true"]), 0.0) / r["scale"]
            continue
        best = min(float(np.min(r["true"])) for r in rs)
        rand = [r["true"] for r in rs if r["sampler"] == "Random"]
        pool = np.concatenate(rand) if rand else np.concatenate([r["true"] for r in rs])
        spread = max(float(np.median(pool)) - best, 1e-12)
        for r in rs:
            r["regret"] = (_best_of_observed(r["obs"], r["true"]) - best) / spread


def regret_matrix(
    results: list[dict[str, Any]], samplers: list[str], n: int
) -> tuple[np.ndarray, list[str]]:
    """Regrets after ``n`` trials, shape (n_samplers, n_runs), and each run's group (a run is
    a (problem, seed); needs :func:`normalised_regret` first)."""
    keyed = {(r["sampler"], r["problem"], r["seed"]): r for r in results}
    cells = sorted({(r["problem"], r["seed"], r["group"]) for r in results})
    values = np.array(
        [[keyed[(s, p, seed)]["regret"][n - 1] for p, seed, _ in cells] for s in samplers]
    )
    return values, [g for _, _, g in cells]


def report(
    results: list[dict[str, Any]],
    samplers: list[str],
    checkpoints: list[int],
    reference: str = "TPE",
) -> tuple[str, dict[int, Any]]:
    """Markdown tables (rank, regret, win rate vs ``reference``) and a dict of headline
    numbers."""
    normalised_regret(results)
    text = ""
    headline: dict[int, Any] = {}
    for n in checkpoints:
        values, groups = regret_matrix(results, samplers, n)
        cols = [*sorted(set(groups)), "overall"]
        sel = {g: np.array([g in (h, "overall") for h in groups]) for g in cols}
        ranks = {g: mean_ranks(values[:, sel[g]]) for g in cols}
        rows = []
        order = np.argsort(ranks["overall"], kind="stable")
        for i in order:
            win = "-"
            if reference in samplers:
                win = fmt(paired_stats(values[i], values[samplers.index(reference)]).win, 2)
            rows.append(
                [
                    samplers[i],
                    *[fmt(float(ranks[g][i]), 3) for g in cols],
                    *[fmt(geomean(values[i, sel[g]])) for g in cols],
                    win,
                ]
            )
        header = [
            "sampler",
            *[f"rank {g}" for g in cols],
            *[f"regret {g}" for g in cols],
            f"win rate vs {reference}",
        ]
        text += f"\n### After {n} trials\n\n" + md_table(header, rows)
        headline[n] = {
            "best_overall": samplers[order[0]],
            "rank": dict(zip(samplers, ranks["overall"].tolist(), strict=True)),
        }
    return text, headline


def paired(
    results: list[dict[str, Any]], samplers: list[str], checkpoints: list[int], baseline: str
) -> str:
    """Markdown tables of the paired log-ratio of each sampler's regret to ``baseline``'s,
    per group and overall (:func:`benchmarks._stats.paired`; needs :func:`normalised_regret`
    first).  Negative is better than the baseline."""
    text = ""
    for n in checkpoints:
        values, groups = regret_matrix(results, samplers, n)
        base = values[samplers.index(baseline)]
        rows = []
        for i, s in enumerate(samplers):
            if s == baseline:
                continue
            for g in [*sorted(set(groups)), "overall"]:
                sel = np.array([g in (h, "overall") for h in groups])
                st = paired_stats(values[i, sel], base[sel])
                rows.append([s, g, str(st.n), str(st), fmt(st.win, 2)])
        header = ["sampler", "group", "runs", f"log-ratio to {baseline} ± s.e.", "win"]
        text += f"\n### Paired to {baseline}, after {n} trials\n\n" + md_table(header, rows)
    return text


def plot(results: list[dict[str, Any]], samplers: list[str], path: str) -> None:
    """Best-so-far normalised regret (geometric mean over problems and seeds) per group."""
    panels: dict[str, dict[str, Curve]] = {}
    for g in sorted({r["group"] for r in results}):
        panels[g] = {}
        for s in samplers:
            curves = [r["regret"] for r in results if r["sampler"] == s and r["group"] == g]
            if curves:
                gm = geomean_curve(curves)
                panels[g][s] = (np.arange(1, gm.size + 1), gm)
    plot_panels(panels, path, xlabel="trials", ylabel="normalised regret (geo. mean)")


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


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and write <name>.md and <name>.png into ``--out``."""
    p = make_parser("optimize", __doc__)
    p.add_argument(
        "--quick", action="store_true", help="fewer problems, 2 seeds, 100 trials, no GPSampler"
    )
    p.add_argument("--gp", action="store_true", help="include GPSampler in quick mode")
    p.add_argument("--trials", type=int, default=None, help="trials per study (200; 100 quick)")
    p.add_argument("--seeds", type=int, default=None, help="seeds per problem (5; 2 quick)")
    p.add_argument("--problems", default=None, help="comma-separated subset of problem names")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (1: run in this process)")
    p.add_argument("--name", default="optimize", help="stem of the result files")
    p.add_argument("--seed-offset", type=int, default=0, help="first seed (1000+: report)")
    p.add_argument("--samplers", default=None, help="comma-separated sampler names")
    p.add_argument("--save", default=None, help="pickle the raw results to this path")
    p.add_argument(
        "--load", default=None, help="comma-separated pickles of earlier runs to report with"
    )
    p.add_argument(
        "--paired", default=None, help="also report paired log-ratios to this sampler's regret"
    )
    a = p.parse_args(argv)
    if a.samplers:
        samplers = split_names(a.samplers)
    else:
        samplers = [s for s in SAMPLERS if s != "GP" or a.gp or not a.quick]
    require_packages(samplers, "optimize")
    probs = select_problems(a.quick, a.problems)
    print(stamp_core(), flush=True)
    started = time.time()
    n_trials = a.trials or (100 if a.quick else 200)
    n_seeds = a.seeds or (2 if a.quick else 5)
    seeds = range(a.seed_offset, a.seed_offset + n_seeds)
    jobs = [(s, pr, seed, n_trials) for pr in probs for seed in seeds for s in samplers]
    # slowest first, so that parallel workers finish together
    jobs.sort(key=lambda j: (j[0] != "GP", j[1].group != "sklearn"))
    results = pmap(run_one, jobs, a.jobs)
    if a.save:
        save_runs(a.save, results)
    if a.load:
        names = {pr.name for pr in probs}
        old = load_runs(
            a.load,
            lambda r: (
                r["problem"] in names and r["seed"] in seeds and r["sampler"] not in samplers
            ),
        )
        samplers += sorted({r["sampler"] for r in old} - set(samplers))
        results += old
    checkpoints = [n for n in (50, 100, 200) if n <= n_trials] or [n_trials]
    text, headline = report(results, samplers, checkpoints)
    if a.paired:
        text += paired(results, samplers, checkpoints, a.paired)
    out = results_dir(a.out)
    plot(results, samplers, str(out / f"{a.name}.png"))
    walls = {
        s: float(np.mean([r["wall"] for r in results if r["sampler"] == s])) for s in samplers
    }
    mode = "quick" if a.quick else "full"
    body = (
        f"# Optimisation quality vs Optuna samplers ({mode} mode)\n\n"
        f"{len(probs)} problems ({', '.join(pr.name for pr in probs)}), {n_seeds} seeds "
        f"({a.seed_offset}+), "
        f"{n_trials} trials; samplers with default options (seed only). Rank: mean over "
        "(problem, seed) of the rank among samplers (1 = best). Regret: geometric mean of the "
        f"normalised regret (floored at {FLOOR:g}). "
        f"Command: `{command_line('optimize', argv)}`.\n"
        + text
        + "\nMean wall time of one study (s): "
        + ", ".join(f"{s} {fmt(w)}" for s, w in walls.items())
        + f"\n\n![best so far]({a.name}.png)\n\n"
        + machine_note(mode, started)
    )
    print(headline)
    write_result(out, a.name, body)


if __name__ == "__main__":
    main()
