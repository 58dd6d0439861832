"""Several objectives and constraints: samplers on problems with known optima.

Score: the hypervolume regret (moo) or the regret of the best feasible value (constrained);
mean rank, cost per trial and, with --paired, paired log-ratios. benchmarks/README.md
describes the problems and the method.

Usage::

    python -m benchmarks constrained --samplers TreeUCB --load /tmp/base.pkl --paired TPE
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import optuna

from benchmarks import _harness
from benchmarks import _problems
from benchmarks import _report
from benchmarks import _samplers
from benchmarks._harness import Quick
from benchmarks._problems import Box

# Optuna >= 5 stores constraints per trial (Trial.set_constraint) and deprecates
# constraints_func, which Optuna 4 needs
SET_CONSTRAINT = hasattr(optuna.trial.Trial, "set_constraint")
# the samplers of these commands, by their row names; the registry names they run
SAMPLERS = {"NSGA-II": "NSGA-II", "TPE": "TPE[multivariate=True]", "GP": "GP"}
SAMPLERS.update({"Random": "Random", "TreeUCB": "TreeUCB", "Auto": "Auto"})
DEFAULT_SAMPLERS = ("TreeUCB", "NSGA-II", "TPE", "Random")  # GP needs torch: name it
RAY_SEARCHERS = {"TreeUCBSearch": "TreeUCBSearch"}
RAY_SEARCHERS["OptunaSearch (TPE)"] = "OptunaSearch (TPE)[multivariate=True]"
PROBLEMS = {
    "moo": _problems.MOO_PROBLEMS,
    "constrained": _problems.CONSTRAINED_PROBLEMS,
}
COCO = {"moo": "bbob-biobj", "constrained": "bbob-constrained"}
COCO_NOTES = {
    "moo": "COCO's bbob-biobj problems (benchmarks/_problems/_boxes.py): instance by seed "
    "(seeds 100+: instances 6-15), [-5, 5]^d, the reference point COCO's "
    "`largest_fvalues_of_interest` (the nadir); `cocoex` exposes no best hypervolume, so HV* "
    "is the hypervolume of the union of every run's front in this table, and the regrets are "
    "in the objectives' raw units (compare ranks across problems, not regrets).",
    "constrained": "COCO's bbob-constrained problems (benchmarks/_problems/_boxes.py): "
    "instance by seed (seeds 100+: instances 6-15), COCO's `constraint(x)` values through "
    "`Trial.set_constraint`; `cocoex` exposes no optimum value, so f* is the best feasible "
    "value of every run in this table (regrets relative to it, in raw units).",
}


def _stored_constraints(trial: optuna.trial.FrozenTrial) -> Sequence[float]:
    """The constraint values the objective stored (Optuna 4's ``constraints_func``)."""
    values: list[float] = trial.user_attrs["constraints"]
    return values


def store_constraints(trial: optuna.Trial, G: np.ndarray) -> None:
    """Store a trial's constraint values where the samplers read them."""
    if SET_CONSTRAINT:
        for j, g in enumerate(G.tolist()):
            trial.set_constraint(f"c{j}", g)
    else:
        trial.set_user_attr("constraints", G.tolist())


def run_one(job: tuple[str, str, str, int, int]) -> dict[str, Any]:
    """One study: per trial the objectives ``F`` (n, k) and the constraints ``G`` (n, c)."""
    _harness.quiet()
    mode, sampler_name, name, seed, n_trials = job
    problem = _problems.box(name, seed)
    Fs: list[np.ndarray] = []
    Gs: list[np.ndarray] = []
    spent = [0.0]  # seconds inside problem.evaluate, left out of the cost per trial

    def objective(trial: optuna.Trial) -> float | tuple[float, ...]:
        x = np.array([trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in _box(problem)])
        t0 = time.perf_counter()
        F, G = problem.evaluate(x)
        spent[0] += time.perf_counter() - t0
        Fs.append(F)
        Gs.append(G)
        if problem.n_constraints:
            store_constraints(trial, G)
        return tuple(F.tolist()) if problem.n_objectives > 1 else float(F[0])

    fixed = {}
    if problem.n_constraints and not SET_CONSTRAINT:
        fixed["constraints_func"] = _stored_constraints
    sampler = _samplers.make_sampler(SAMPLERS[sampler_name], seed, **fixed)
    study = optuna.create_study(directions=["minimize"] * problem.n_objectives, sampler=sampler)
    wall = _harness.optimize(study, objective, n_trials)
    G = np.array(Gs).reshape(len(Gs), problem.n_constraints)
    out = {"mode": mode, "sampler": sampler_name, "problem": name, "seed": seed}
    return {**out, "F": np.array(Fs), "G": G, "wall": wall, "evaluate": spent[0]}


def _box(problem: Box) -> list[tuple[int, tuple[float, float]]]:
    return list(enumerate(zip(problem.low.tolist(), problem.high.tolist())))


# -- the Ray backend --------------------------------------------------------------------------
def ray_searcher(name: str, problem: Box, seed: int) -> Any:
    """A searcher of :data:`RAY_SEARCHERS`, given the space, the metrics ``f0``, ``f1``, ...,
    their modes and the constraint metrics ``c0``, ... (Tune's own ``metric`` is unset, as a
    list of metrics needs)."""
    from ray import tune

    if name not in RAY_SEARCHERS:
        raise ValueError(f"Unknown searcher {name!r}; use one of {list(RAY_SEARCHERS)}.")
    space = {f"x{i}": tune.uniform(lo, hi) for i, (lo, hi) in _box(problem)}
    metric = [f"f{j}" for j in range(problem.n_objectives)]
    many = problem.n_objectives > 1
    return _samplers.make_searcher(
        RAY_SEARCHERS[name],
        seed,
        space=space,
        metric=metric if many else metric[0],
        mode=["min"] * len(metric) if many else "min",
        constraints=[f"c{j}" for j in range(problem.n_constraints)],
    )


def run_one_ray(job: tuple[str, str, str, int, int]) -> dict[str, Any]:
    """One Tune run on the local Ray, in the form of :func:`run_one`; its cost per trial is
    the searcher's own time."""
    mode, searcher, name, seed, n_trials = job
    problem = _problems.box(name, seed)

    def trainable(config: dict[str, Any]) -> dict[str, Any]:
        import time as _time

        import numpy as _np

        from benchmarks._problems import box

        start = _time.time()
        p = box(name, seed)
        F, G = p.evaluate(_np.array([config[f"x{i}"] for i in range(p.dim)], dtype=float))
        out = {f"f{j}": float(v) for j, v in enumerate(F)}
        return {**out, **{f"c{j}": float(v) for j, v in enumerate(G)}, "start": start}

    search_alg = _harness.timed(ray_searcher(searcher, problem, seed))
    grid, wall = _harness.fit_tuner(trainable, search_alg, n_trials)
    rows = _harness.trial_results(grid, n_trials)
    F = [[m[f"f{j}"] for j in range(problem.n_objectives)] for m in rows]
    G = [[m[f"c{j}"] for j in range(problem.n_constraints)] for m in rows]
    out = {"mode": mode, "sampler": searcher, "problem": name, "seed": seed, "wall_tune": wall}
    out.update(F=np.array(F, dtype=float), wall=float(search_alg.seconds), evaluate=0.0)
    return {**out, "G": np.array(G, dtype=float).reshape(n_trials, problem.n_constraints)}


# -- scores ------------------------------------------------------------------------------------
def hypervolume(F: np.ndarray, reference: np.ndarray) -> float:
    """The hypervolume of the points ``F`` (n, k) below ``reference`` (Optuna's)."""
    from optuna._hypervolume import compute_hypervolume

    pts = F[np.all(F < reference, axis=1)]
    return float(compute_hypervolume(pts, reference)) if len(pts) else 0.0


def hypervolume_regret(F: np.ndarray, problem: Box, t: int, optimum: float | None = None) -> float:
    """``HV* - HV`` of the first ``t`` trials (>= 0); ``optimum`` overrides ``HV*``."""
    assert problem.reference is not None
    best = problem.optimum if optimum is None else optimum
    return max(best - hypervolume(F[:t], problem.reference), 0.0)


def optimum_key(name: str, seed: int) -> str:
    """The key of a problem's best seen in :func:`best_seen`: its name, or ``name@seed`` for
    COCO's problems, whose instance (and so optimum and reference point) the seed picks."""
    return f"{name}@{seed}" if name.startswith(("bbob-biobj", "bbob-constrained")) else name


def best_seen(results: list[dict[str, Any]]) -> dict[str, float]:
    """``HV*`` or ``f*`` of each real task or COCO instance (optimum NaN), keyed by
    :func:`optimum_key`: the best over every run given of it, the hypervolume of their union's
    front or their best feasible value."""
    out: dict[str, float] = {}
    for key in dict.fromkeys(optimum_key(r["problem"], r["seed"]) for r in results):
        runs = [r for r in results if optimum_key(r["problem"], r["seed"]) == key]
        problem = _problems.box(runs[0]["problem"], runs[0]["seed"])
        if not math.isnan(problem.optimum):
            continue
        if problem.n_objectives > 1:
            assert problem.reference is not None
            out[key] = hypervolume(np.concatenate([r["F"] for r in runs]), problem.reference)
        else:
            values = [r["F"][np.all(r["G"] <= 0.0, axis=1), 0] for r in runs]
            out[key] = float(np.concatenate(values).min(initial=np.inf))
    return out


def late_violation(G: np.ndarray, t: int) -> float:
    """The median total violation (sum of the positive constraint values) of the last quarter
    of the first ``t`` trials: how close to feasible the sampler's late trials are."""
    return float(np.median(np.maximum(G[t - t // 4 : t], 0.0).sum(axis=1)))


def feasible_fraction(G: np.ndarray, t: int) -> float:
    """The fraction of the first ``t`` trials whose constraints all hold."""
    return float(np.mean(np.all(G[:t] <= 0.0, axis=1)))


def score(result: dict[str, Any], t: int, optima: dict[str, float] | None = None) -> float:
    """The score of a run after ``t`` trials (lower is better): :func:`hypervolume_regret`, or
    ``f - f*`` of the best feasible trial (``inf`` if none); ``optima`` gives the best seen of
    the real tasks (:func:`best_seen`)."""
    problem = _problems.box(result["problem"], result["seed"])
    optimum = (optima or {}).get(optimum_key(result["problem"], result["seed"]))
    if result["mode"] == "moo":
        return hypervolume_regret(result["F"], problem, t, optimum)
    feasible = np.all(result["G"][:t] <= 0.0, axis=1)
    if not feasible.any():
        return float("inf")
    best = problem.optimum if optimum is None else optimum
    return max(float(result["F"][:t, 0][feasible].min()) - best, 0.0)


def scores(results: list[dict[str, Any]], t: int) -> dict[tuple[str, str, int], float]:
    """The score of every run at ``t`` trials, keyed ``(sampler, problem, seed)``."""
    optima = best_seen(results)
    return {(r["sampler"], r["problem"], r["seed"]): score(r, t, optima) for r in results}


def cost_per_trial(result: dict[str, Any]) -> float:
    """Seconds per trial of the study without the objective's evaluation (the sampler and
    Optuna's bookkeeping); runs saved before that was recorded give their whole wall time."""
    return (result["wall"] - result.get("evaluate", 0.0)) / len(result["F"])


# -- report ------------------------------------------------------------------------------------
def report(results: list[dict[str, Any]], samplers: list[str], checkpoints: list[int]) -> str:
    """The rank table and the per-problem median scores at the last checkpoint."""
    mode = results[0]["mode"]
    score_at = {t: scores(results, t) for t in checkpoints}
    ranks = {t: _report.cell_ranks(score_at[t], samplers) for t in checkpoints}
    header = ["sampler", *(f"rank @{t}" for t in checkpoints)]
    if mode == "constrained":
        header += [f"feasible @{t}" for t in checkpoints]
    header.append("s / trial")
    reference = "TPE" if "TPE" in samplers else "OptunaSearch (TPE)"
    tpe = {
        (r["problem"], r["seed"]): cost_per_trial(r) for r in results if r["sampler"] == reference
    }
    header += ["cost / TPE"] if tpe else []
    rows = []
    for i, s in enumerate(samplers):
        mine = [r for r in results if r["sampler"] == s]
        row: list[Any] = [s, *(ranks[t][i] for t in checkpoints)]
        if mode == "constrained":
            row += [np.mean([feasible_fraction(r["G"], t) for r in mine]) for t in checkpoints]
        row.append(np.mean([cost_per_trial(r) for r in mine]))
        if tpe:
            key = [(r["problem"], r["seed"]) for r in mine]
            ratios = [cost_per_trial(r) / tpe[k] for r, k in zip(mine, key) if k in tpe]
            row.append(np.exp(np.mean(np.log(ratios))) if ratios else np.nan)
        rows.append(row)
    t = checkpoints[-1]
    label = "HV regret" if mode == "moo" else "best feasible regret"
    scored = _report.medians(
        results, samplers, lambda r: score_at[t][(r["sampler"], r["problem"], r["seed"])]
    )
    text = (
        "\n" + _report.md_table(header, rows) + f"\nMedian {label} over seeds at {t} trials "
        "('none': no feasible trial in half the runs or more):\n\n"
    )
    text += _report.md_table(["problem", *samplers], scored)
    if mode == "constrained":
        late = _report.medians(
            results, samplers, lambda r: late_violation(r["G"], t), digits=4, missing=""
        )
        text += (
            f"\nMedian total violation of trials {t - t // 4}-{t - 1} (the last quarter; 0: "
            "feasible), median over seeds:\n\n" + _report.md_table(["problem", *samplers], late)
        )
    return text


def paired_table(
    results: list[dict[str, Any]], samplers: list[str], checkpoints: list[int], baseline: str
) -> str:
    """Paired log-ratios of each sampler's score to ``baseline``'s on the same (problem, seed)
    (negative is better than the baseline), over the cells where both have a finite score (a
    constrained run with no feasible trial has none)."""
    rows = []
    for t in checkpoints:
        score_of = scores(results, t)
        for s in samplers:
            if s == baseline:
                continue
            st, n = _report.paired_cells(score_of, s, baseline)
            rows.append([str(t), s, f"{st.n} of {n}", str(st), _report.fmt(st.win, 2)])
    header = ["trials", "sampler", "cells", f"log-ratio to {baseline} ± s.e.", "win"]
    text = f"\nPaired to {baseline} (negative: better than {baseline}):\n\n"
    return text + _report.md_table(header, rows)


def run(mode: str, argv: list[str] | None = None) -> None:
    """Run one mode (``"moo"`` or ``"constrained"``) and write ``<mode>.md`` into ``--out``."""
    coco = COCO[mode]
    known = [*PROBLEMS[mode], *(_problems.INFEASIBLE_PROBLEMS if mode == "constrained" else ())]
    known += _problems.GROUPS[coco]
    p = _harness.study_parser(mode, __doc__, None, Quick(200, 50), Quick(3, 1), None)
    text = f"Comma-separated names, of {known}; {coco!r} stands for all its problems."
    p.option("--problems", ",".join(PROBLEMS[mode]), help=text)
    text = f"optuna: Optuna studies; ray: real Tune runs of the searchers {list(RAY_SEARCHERS)}"
    p.option("--backend", "optuna", choices=("optuna", "ray"), help=text + " (one process).")
    a = p.parse(argv, stamp=False)
    _samplers.require("pymoo", "the ZDT/DTLZ and G-series problems", mode)
    ray = a.backend == "ray"
    given = ",".join(RAY_SEARCHERS if ray else DEFAULT_SAMPLERS)
    samplers = [s for s in (given if a.samplers is None else a.samplers).split(",") if s]
    if not samplers and not a.load:
        p.error("--samplers '' runs nothing: give --load with it, to report saved runs only")
    problems = [n for s in a.problems.split(",") if s for n in _problems.GROUPS.get(s, [s])]
    _harness.known(p, "sampler", samplers, list(RAY_SEARCHERS if ray else SAMPLERS))
    if ray and a.jobs != 1:
        p.error(f"--backend ray runs in one process (its own local Ray); got --jobs {a.jobs}")
    _harness.known(p, "problem", problems, known)
    if "GP" in samplers:
        _samplers.require("torch", "GPSampler", mode, extra="gp")
    if any(pr in _problems.GROUPS[coco] for pr in problems):
        _samplers.require("cocoex", f"COCO's {coco} suite", mode)
    _harness.stamp_core()
    seeds = _harness.seeds(a)
    jobs = [(mode, s, pr, seed, a.trials) for pr in problems for seed in seeds for s in samplers]
    results = _harness.pmap(run_one_ray if ray else run_one, jobs, a.jobs)
    short: list[dict[str, Any]] = []

    def keep(r: dict[str, Any]) -> bool:
        ok = r["mode"] == mode and r["problem"] in problems and r["seed"] in seeds
        if ok and len(r["F"]) < a.trials:  # scored at a.trials they would pass for longer runs
            short.append(r)
            return False
        return ok

    _harness.save_and_load(a, results, samplers, keep, sort=False)
    if short:
        print(f"left out {len(short)} saved runs of fewer than {a.trials} trials", flush=True)
    if not results:
        p.error(f"no saved run of {mode} matches these problems and seeds in {a.load}")
    if a.paired is not None and a.paired not in samplers:
        p.error(f"--paired {a.paired!r} is not among the samplers reported: {samplers}")
    checkpoints = _harness.checkpoints(a.trials)
    what = "hypervolume regret HV* - HV against the true front"
    if mode != "moo":
        what = "regret of the best feasible value (none feasible: ranked last)"
    real = [pr for pr in problems if pr.startswith("digits-")]
    cost_note = "s / trial: the study's time without the objective's evaluation"
    if ray:
        cost_note = (
            "Real Tune runs (`--backend ray`), one trial at a time on a local "
            "`ray.init(num_cpus=2)`; s / trial: the searcher's own time (suggest + "
            "on_trial_complete)"
        )
    real_note = ""
    if real:
        real_note = (
            f" The real task ({', '.join(real)}) is scikit-learn's `MLPClassifier` on the "
            "bundled digits (not the paper's Keras MLP: one trial costs about 0.03 s), scored "
            "against the best seen over every run of this table (its true optimum is unknown)."
        )
    if any(pr in _problems.GROUPS[coco] for pr in problems):
        real_note += " " + COCO_NOTES[mode]
    a.mode = f"{a.seeds} seeds"
    _harness.finish(
        a,
        "Several objectives" if mode == "moo" else "Constraints",
        f"{len(problems)} problems ({', '.join(problems)}), {a.seeds} seeds ({a.seed_offset}+), "
        f"{a.trials} trials. Rank: mean over (problem, seed) of the rank among samplers of the "
        f"{what} (1 = best).{real_note} {cost_note}; cost / TPE: its geometric mean ratio to "
        "TPE's on the same (problem, seed), meaningful for samplers run in the same process "
        "as TPE. ",
        report(results, samplers, checkpoints)
        + (paired_table(results, samplers, checkpoints, a.paired) if a.paired else ""),
        a.name or (mode + "_ray" if ray else mode),
    )


def main(argv: list[str] | None = None) -> None:
    """Several objectives: samplers on multi-objective problems with known fronts."""
    run("moo", argv)


def main_constrained(argv: list[str] | None = None) -> None:
    """Constraints: samplers on constrained problems with known optima."""
    run("constrained", argv)
