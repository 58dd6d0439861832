"""Multi-fidelity: TreeUCBSampler's rules for pruned trials beside TPE and random, with pruners.

Score: regret of the best complete trial at 25/50/100% of an equal resource, and the paired
log-ratio to the `last_value` rule under the same pruner. benchmarks/README.md describes the
tasks and the method.

Usage::

    python -m benchmarks fidelity --quick            # 3 seeds, curves only
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import optuna

from benchmarks import _harness
from benchmarks import _report
from benchmarks._samplers import make_sampler
from benchmarks._samplers import make_searcher
from benchmarks._samplers import require
from benchmarks._samplers import require_packages

T = 27  # steps of a full training
FRACTIONS = (0.25, 0.5, 1.0)
RULES = ("last_value", f"context,max_budget={T}")  # the full budget is the pruners' max
PRUNERS = ("none", "hyperband", "sha", "median")
TASKS = ("curves", "sgd-digits", "keras-digits")
DEFAULT_TASKS = ("curves", "sgd-digits")  # keras-digits costs minutes per study
SEED_OFFSET = 1000
RESOLUTION = 1e-3  # the log-ratios' floor: regrets below one validation image are ties
_C = np.array([0.3, 0.6, 0.45])


RAY_SEARCHERS = (
    *(f"TreeUCBSearch[pruned={r}]" for r in RULES),
    "OptunaSearch (TPE)",
    "HyperOptSearch",
)


def _samplers(pruner: str, task: str) -> list[str]:
    """The samplers (names of :mod:`benchmarks._samplers`) of a pruner and task; the first is
    the paired baseline."""
    if pruner == "asha":  # the Ray backend
        return list(RAY_SEARCHERS)
    if task == "keras-digits":
        return ["TreeUCB", "TPE"]
    tree = ["TreeUCB"] if pruner == "none" else [f"TreeUCB[pruned={r}]" for r in RULES]
    return [*tree, "TPE", "Random"]


# -- tasks -----------------------------------------------------------------------------------
def curve_loss(u: np.ndarray, t: float) -> np.ndarray:
    """Noiseless loss of the synthetic task after ``t`` steps, u of shape (..., 4)."""
    f = 0.05 + 0.4 * u[..., 0] ** 2 + 0.5 * np.sum((u[..., 1:] - _C) ** 2, axis=-1)
    k = 10.0 ** (2.5 * u[..., 0] - 2.0)
    return f + (1.0 - f) * np.exp(-k * t)


@functools.cache
def _digits() -> tuple[np.ndarray, ...]:
    """The sgd-digits split, standardised (loaded once per process)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.4, random_state=0, stratify=y)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xva), ytr, yva


@functools.cache
def _keras_digits() -> Any:
    """The split of the README's main job (examples/digits.py), loaded once per process."""
    from examples._datasets import load_digits
    from examples._datasets import split_train_val

    return split_train_val(load_digits(Path(".")), train_size=1200, val_size=597, seed=0)


def _objective(task: str, seed: int, spent: list[int], log: list[tuple[int, float, float]]) -> Any:
    def step(trial: optuna.Trial, value: float, t: int) -> None:
        """Spend step ``t``: report its value, and prune if the pruner says so."""
        spent[0] += 1
        trial.report(value, t)
        if t < T and trial.should_prune():
            raise optuna.TrialPruned()

    def curves(trial: optuna.Trial) -> float:
        u = np.array([trial.suggest_float(f"u{i}", 0.0, 1.0) for i in range(4)])
        rng = np.random.default_rng([seed, trial.number])
        value = 0.0
        for t in range(1, T + 1):
            value = float(curve_loss(u, t) + 0.01 * rng.standard_normal())
            step(trial, value, t)
        log.append((spent[0], value, float(curve_loss(u, T))))
        return value

    def sgd(trial: optuna.Trial) -> float:
        from sklearn.linear_model import SGDClassifier

        Xtr, Xva, ytr, yva = _digits()
        clf = SGDClassifier(
            loss="log_loss",
            penalty="elasticnet",
            alpha=trial.suggest_float("alpha", 1e-7, 1e-1, log=True),
            l1_ratio=trial.suggest_float("l1_ratio", 0.0, 1.0),
            eta0=trial.suggest_float("eta0", 1e-5, 1.0, log=True),
            learning_rate=trial.suggest_categorical(
                "learning_rate", ["constant", "invscaling", "adaptive"]
            ),
            random_state=int(seed % 2**31),
        )
        rng = np.random.default_rng([seed, trial.number])
        classes = np.unique(ytr)
        value = 1.0
        for t in range(1, T + 1):
            order = rng.permutation(ytr.size)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clf.partial_fit(Xtr[order], ytr[order], classes=classes)
            value = float(np.mean(clf.predict(Xva) != yva))
            step(trial, value, t)
        log.append((spent[0], value, value))
        return value

    def keras(trial: optuna.Trial) -> float:
        from examples._models import Settings
        from examples._models import evaluate_mlp
        from examples._optuna_run import suggest
        from examples._optuna_run import trial_seed
        from examples.mnist import SPACE

        params = {n: suggest(trial, n, d) for n, d in SPACE.items() if n != "iterations"}
        full = {**params, "iterations": SPACE["iterations"].high}  # type: ignore[attr-defined]

        def report(epoch: int, steps: int, accuracy: float) -> None:
            step(trial, 1.0 - accuracy, epoch)

        settings = Settings(seed=trial_seed(seed, params))
        result = evaluate_mlp(full, _keras_digits(), settings, epochs=T, report=report)
        if result.diverged:  # the epoch it diverged in was spent but not reported
            spent[0] += 1
        value = 1.0 - result.accuracy
        log.append((spent[0], value, value))
        return value

    return {"curves": curves, "sgd-digits": sgd, "keras-digits": keras}[task]


def _make_pruner(name: str) -> Any:
    if name == "hyperband":
        return optuna.pruners.HyperbandPruner(min_resource=1, max_resource=T, reduction_factor=3)
    if name == "sha":
        return optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
    if name == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=2)
    return optuna.pruners.NopPruner()


def run_one(job: tuple[str, str, str, int, int]) -> list[tuple[int, float, float]]:
    """One study: the complete trials as (steps spent at the end, reported, true final)."""
    task, pruner, sampler, seed, fulls = job
    _harness.quiet()
    budget = fulls * T
    spent = [0]
    log: list[tuple[int, float, float]] = []
    # HyperbandPruner assigns brackets by a hash of the study name: a fixed name per seed
    # makes a run reproducible and gives every sampler of a seed the same assignment
    study = optuna.create_study(
        study_name=f"fidelity-{task}-{seed}",
        sampler=make_sampler(sampler, seed),
        pruner=_make_pruner(pruner),
    )

    def stop(study: optuna.Study, trial: Any) -> None:
        if spent[0] >= budget:
            study.stop()

    objective = _objective(task, seed, spent, log)
    _harness.optimize(study, objective, 100 * fulls, callbacks=[stop])
    return [(s, v, f) for s, v, f in log if s <= budget]


# -- the Ray backend: searchers under ASHAScheduler -----------------------------------------
# Tune's callbacks and stopper run in the driver; they share the state of the running study
_RAY_RUN: dict[str, Any] = {"spent": 0, "budget": 0, "log": []}


def _ray_curves(config: dict[str, Any], seed: int) -> None:
    """The curves task as a Tune function trainable: one result per step, T steps."""
    from ray import tune

    u = np.array([config[f"u{i}"] for i in range(4)])
    # noise keyed on the seed and the configuration (Tune trials have no stable number)
    rng = np.random.default_rng([seed, *np.frombuffer(u.tobytes(), dtype=np.uint32).tolist()])
    final = float(curve_loss(u, T))
    for t in range(1, T + 1):
        tune.report(
            {"loss": float(curve_loss(u, t) + 0.01 * rng.standard_normal()), "final": final}
        )


def run_one_ray(job: tuple[str, str, str, int, int]) -> list[tuple[int, float, float]]:
    """One Tune run on the running local Ray, one trial at a time; as :func:`run_one`."""
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    task, pruner, searcher, seed, fulls = job
    assert task == "curves" and pruner == "asha"
    _RAY_RUN.update(spent=0, budget=fulls * T, log=[])

    class Count(tune.Callback):
        def on_trial_result(
            self, iteration: int, trials: Any, trial: Any, result: Any, **info: Any
        ) -> None:
            _RAY_RUN["spent"] += 1

        def on_trial_complete(self, iteration: int, trials: Any, trial: Any, **info: Any) -> None:
            r = trial.last_result
            if r.get("training_iteration") == T:
                _RAY_RUN["log"].append((_RAY_RUN["spent"], float(r["loss"]), float(r["final"])))

    class Spent(tune.Stopper):
        def __call__(self, trial_id: str, result: dict[str, Any]) -> bool:
            return False

        def stop_all(self) -> bool:
            return bool(_RAY_RUN["spent"] >= _RAY_RUN["budget"])

    _harness.fit_tuner(
        tune.with_parameters(_ray_curves, seed=seed),
        make_searcher(searcher, seed),
        100 * fulls,
        {f"u{i}": tune.uniform(0.0, 1.0) for i in range(4)},
        {"stop": Spent(), "callbacks": [Count()]},
        scheduler=ASHAScheduler(max_t=T, grace_period=1, reduction_factor=3),
        metric="loss",
        mode="min",
        max_concurrent_trials=1,
    )
    return [(s, v, f) for s, v, f in _RAY_RUN["log"] if s <= fulls * T]


def regret_at(log: list[tuple[int, float, float]], steps: float, best: float) -> float:
    """Regret of the best complete trial (by reported value) finished within ``steps``."""
    done = [(v, f) for s, v, f in log if s <= steps]
    if not done:
        return float("nan")
    return min(done)[1] - best


def _mean_se(values: np.ndarray) -> str:
    if np.isnan(values).any():
        return "-"
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
    return f"{_report.fmt(float(values.mean()))} ± {_report.fmt(float(se))}"


def plot(
    logs: dict[tuple[str, str, str, int, int], list[tuple[int, float, float]]],
    task: str,
    pruners: list[str],
    seeds: list[int],
    fulls: int,
    best: float,
    path: Path,
) -> None:
    """Regret of the best complete trial against the resource spent, one panel per pruner.

    The curve is the mean over seeds, drawn from the point where every seed has a complete
    trial.
    """
    grid = np.linspace(0.0, fulls * T, 121)[1:]
    panels: dict[str, dict[str, _report.Curve]] = {}
    for pruner in pruners:
        panels[f"{task}, pruner: {pruner}"] = curves = {}
        for sampler in _samplers(pruner, task):
            runs = np.array(
                [
                    [regret_at(logs[(task, pruner, sampler, s, fulls)], g, best) for g in grid]
                    for s in seeds
                ]
            )
            mean = np.full(grid.size, np.nan)
            ok = ~np.isnan(runs).any(axis=0)
            mean[ok] = np.maximum(runs[:, ok], RESOLUTION).mean(axis=0)
            curves[sampler] = (grid / T, mean)
    _report.plot_panels(
        panels,
        path,
        xlabel="resource spent (full trainings)",
        ylabel="regret of the best complete trial\n(mean over seeds)",
        sharey=True,
    )


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and write fidelity.md (or ``--name``.md) into ``--out``."""
    common = {"seeds": None, "seed_offset": SEED_OFFSET, "jobs": 1, "name": None}
    p = _harness.make_parser("fidelity", __doc__, quick="3 seeds, the curves task only", **common)
    text = "optuna: samplers and pruners; ray: searchers under ASHAScheduler on a local Ray"
    p.option("--backend", "optuna", choices=("optuna", "ray"), help=text + " (curves task only)")
    p.option("--tasks", help=f"Comma-separated subset of {TASKS}.")
    p.option("--pruners", help=f"Comma-separated subset of {PRUNERS}.")
    p.option("--fulls", 60, type=int, help="Resource in full trainings.")
    a = p.parse(argv, stamp=False)
    ray = a.backend == "ray"
    name = a.name or ("fidelity_ray" if ray else "fidelity")
    tasks = ["curves"] if a.quick or ray else list(DEFAULT_TASKS)
    tasks = a.tasks.split(",") if a.tasks else tasks
    pruners = a.pruners.split(",") if a.pruners else (["asha"] if ray else list(PRUNERS))
    _harness.known(p, "task", tasks, ("curves",) if ray else TASKS)
    _harness.known(p, "pruner", pruners, ("asha",) if ray else PRUNERS)
    if ray:
        require("ray.tune", "the Ray backend", "fidelity", "ray")
        require_packages(RAY_SEARCHERS, "fidelity", searchers=True)
    _harness.stamp_core()

    def n_seeds(task: str) -> int:
        return a.seeds or (3 if a.quick or ray else (20 if task == "curves" else 10))

    jobs = [
        (task, pruner, sampler, a.seed_offset + s, a.fulls)
        for task in tasks
        for pruner in pruners
        for sampler in _samplers(pruner, task)
        for s in range(n_seeds(task))
    ]
    if ray:  # every Ray job in turn on one local Ray (2 CPUs, one trial at a time)
        _harness.start_ray()
    results = _harness.pmap(run_one_ray if ray else run_one, jobs, 1 if ray else a.jobs)
    logs = dict(zip(jobs, results, strict=True))
    budget = a.fulls * T
    sections = []
    for task in tasks:
        if task == "curves":  # the minimum of the final loss: u_{1:3} = c, u0 on a fine grid
            u0 = np.linspace(0.0, 1.0, 200001)
            best = float(curve_loss(np.column_stack([u0, np.tile(_C, (u0.size, 1))]), T).min())
        else:
            best = min(f for (tk, *_), log in logs.items() if tk == task for _, _, f in log)
        seeds = [a.seed_offset + s for s in range(n_seeds(task))]
        rows = []
        for pruner in pruners:
            base = None
            for sampler in _samplers(pruner, task):
                runs = [logs[(task, pruner, sampler, s, a.fulls)] for s in seeds]
                reg = {
                    f: np.array([regret_at(log, f * budget, best) for log in runs])
                    for f in FRACTIONS
                }
                base = reg[1.0] if base is None else base  # the first sampler's
                st = _report.paired(reg[1.0], base, floor=RESOLUTION)
                n_complete = np.mean([len(log) for log in runs])
                rows.append([pruner, sampler, *(_mean_se(reg[f]) for f in FRACTIONS), str(st)])
                rows[-1].append(f"{n_complete:.1f}")
        header = ["pruner", "sampler", *(f"regret at {int(100 * f)}%" for f in FRACTIONS)]
        header += ["log-ratio to the first TreeUCB ± s.e.", "complete trials"]
        png = f"{name}_{task}.png"
        plot(logs, task, pruners, seeds, a.fulls, best, _harness.results_dir(a.out) / png)
        sections.append(
            f"## {task} ({len(seeds)} seeds {seeds[0]}+, best final value "
            f"{_report.fmt(best, 4)})\n\n"
            + _report.md_table(header, rows)
            + f"\n![regret against resource, {task}]({png})\n"
        )
    setting = ""
    if ray:
        setting = (
            "Ray Tune searchers under `ASHAScheduler(max_t=27, grace_period=1, "
            "reduction_factor=3)` on a local Ray, one trial at a time; OptunaSearch (TPE) and "
            "HyperOptSearch with their defaults. "
        )
    _harness.finish(
        a,
        "Multi-fidelity: rules for pruned trials",
        setting + f"Resource: {a.fulls} full trainings of {T} steps per study. Regret of the "
        "best complete trial (mean ± s.e. over seeds); the log-ratio is paired with TreeUCB's "
        "`last_value` rule under the same pruner and seed (negative: lower regret; without a "
        "pruner the baseline is TreeUCB itself). ",
        "\n" + "\n".join(sections),
        name,
    )
