"""Several objectives and constraints: Optuna's samplers on problems with known optima.

``python -m benchmarks moo``: the multi-objective problems of :mod:`benchmarks._moo_problems`
(ZDT1/2/3 in 5-D and 10-D, DTLZ2 with 3 objectives); the score is the hypervolume regret
``HV* - HV`` of the trials so far against the true front (the reference points and ``HV*``
are in that module).

``python -m benchmarks constrained``: the constrained problems (Gardner, Gramacy, G4, G24,
BBOB-like sphere and ellipsoid under a ball or a half-space); the score is the regret of the
best feasible value so far (``inf`` while none is feasible, ranked last), and the fraction of
feasible trials.

Both also take COCO's suites (:mod:`benchmarks._coco_problems`): ``--problems bbob-biobj``
(``moo``) and ``--problems bbob-constrained`` (``constrained``), or single problems of them.

Constraints reach the samplers as Optuna 5 recommends: the objective calls
``Trial.set_constraint`` and every sampler reads ``FrozenTrial.constraints`` (on Optuna 4 the
objective stores them in a user attribute and the samplers get a ``constraints_func`` that
reads it, the form Optuna 5 deprecates).  Random ignores them.
Reported at 50/100/200 trials: the mean rank among samplers over (problem, seed), the
median score per problem, and the mean wall time per trial.  A sampler is one line of
:data:`SAMPLERS`; TreeUCB runs with its defaults (``TreeUCBSampler(seed=seed)``, Pareto-rank
rewards with several objectives, constrained domination with constraints).

Usage::

    python -m benchmarks moo --seeds 3 --out benchmarks/results
    python -m benchmarks constrained --seeds 3 --out benchmarks/results
    python -m benchmarks constrained --problems bbob-constrained --seeds 3 --seed-offset 100
    python -m benchmarks moo --samplers TreeUCB --load /tmp/moo.pkl   # beside saved baselines
"""

from __future__ import annotations

import math
import pickle
import time
import warnings
from collections.abc import Callable
from collections.abc import Sequence
from typing import Any

import numpy as np
import optuna
from scipy.stats import rankdata

from benchmarks._coco_problems import COCO_BIOBJ_PROBLEMS
from benchmarks._coco_problems import COCO_CONSTRAINED_PROBLEMS
from benchmarks._coco_problems import COCO_GROUPS
from benchmarks._harness import Quick
from benchmarks._harness import command_line
from benchmarks._harness import machine_note
from benchmarks._harness import make_parser
from benchmarks._harness import pmap
from benchmarks._harness import require
from benchmarks._harness import results_dir
from benchmarks._harness import stamp_core
from benchmarks._moo_problems import CONSTRAINED_PROBLEMS
from benchmarks._moo_problems import INFEASIBLE_PROBLEMS
from benchmarks._moo_problems import MOO_PROBLEMS
from benchmarks._moo_problems import REAL_PROBLEMS
from benchmarks._moo_problems import Problem
from benchmarks._moo_ray import SEARCHERS as RAY_SEARCHERS
from benchmarks._moo_ray import run_one as run_one_ray
from benchmarks._problems import problem_of
from benchmarks._report import fmt
from benchmarks._report import md_table
from benchmarks._report import paired
from benchmarks._samplers import make_sampler
from optuna_treeucb import TreeUCBSampler

ConstraintsFunc = Callable[[optuna.trial.FrozenTrial], Sequence[float]]

# Optuna >= 5 stores constraints per trial (Trial.set_constraint) and deprecates
# constraints_func, which Optuna 4 needs
SET_CONSTRAINT = hasattr(optuna.trial.Trial, "set_constraint")

# name -> factory(seed, constraints_func or None); one line per sampler; the constraints_func
# is None on Optuna >= 5 (the trials carry their constraints)
SAMPLERS: dict[str, Callable[[int, ConstraintsFunc | None], optuna.samplers.BaseSampler]] = {
    "NSGA-II": lambda seed, cf: optuna.samplers.NSGAIISampler(seed=seed, constraints_func=cf),
    "TPE": lambda seed, cf: optuna.samplers.TPESampler(
        seed=seed, multivariate=True, constraints_func=cf
    ),
    "GP": lambda seed, cf: optuna.samplers.GPSampler(seed=seed, constraints_func=cf),
    "Random": lambda seed, cf: optuna.samplers.RandomSampler(seed=seed),
    "TreeUCB": lambda seed, cf: TreeUCBSampler(seed=seed, constraints_func=cf),
    "Auto": lambda seed, cf: make_sampler("Auto", seed),  # Optuna 5: constraints on the trials
}
# GP needs torch (the gp extra): name it
DEFAULT_SAMPLERS = ("TreeUCB", "NSGA-II", "TPE", "Random")
MODES = ("moo", "constrained")
COCO_PROBLEMS = COCO_BIOBJ_PROBLEMS + COCO_CONSTRAINED_PROBLEMS  # optimum per seed
COCO_NOTES = {
    "moo": "COCO's bbob-biobj problems (benchmarks/_coco_problems.py): instance by seed "
    "(seeds 100+: instances 6-15), [-5, 5]^d, the reference point COCO's "
    "`largest_fvalues_of_interest` (the nadir); `cocoex` exposes no best hypervolume, so HV* "
    "is the hypervolume of the union of every run's front in this table, and the regrets are "
    "in the objectives' raw units (compare ranks across problems, not regrets).",
    "constrained": "COCO's bbob-constrained problems (benchmarks/_coco_problems.py): "
    "instance by seed (seeds 100+: instances 6-15), COCO's `constraint(x)` values through "
    "`Trial.set_constraint`; `cocoex` exposes no optimum value, so f* is the best feasible "
    "value of every run in this table (regrets relative to it, in raw units).",
}


def _stored_constraints(trial: optuna.trial.FrozenTrial) -> Sequence[float]:
    """The constraint values the objective stored (Optuna's usual ``constraints_func``)."""
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
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    mode, sampler_name, name, seed, n_trials = job
    problem = problem_of(mode, name, seed)
    Fs: list[np.ndarray] = []
    Gs: list[np.ndarray] = []
    spent = [0.0]  # seconds inside problem.evaluate, left out of the cost per trial

    def objective(trial: optuna.Trial) -> float | tuple[float, ...]:
        x = np.array(
            [
                trial.suggest_float(f"x{i}", problem.low[i], problem.high[i])
                for i in range(problem.dim)
            ]
        )
        t0 = time.perf_counter()
        F, G = problem.evaluate(x)
        spent[0] += time.perf_counter() - t0
        Fs.append(F)
        Gs.append(G)
        if problem.n_constraints:
            store_constraints(trial, G)
        return tuple(F.tolist()) if problem.n_objectives > 1 else float(F[0])

    cf = _stored_constraints if problem.n_constraints and not SET_CONSTRAINT else None
    study = optuna.create_study(
        directions=["minimize"] * problem.n_objectives,
        sampler=SAMPLERS[sampler_name](seed, cf),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        study.optimize(objective, n_trials=n_trials)
        wall = time.perf_counter() - t0
    return {
        "mode": mode,
        "sampler": sampler_name,
        "problem": name,
        "seed": seed,
        "F": np.array(Fs),
        "G": np.array(Gs).reshape(len(Gs), problem.n_constraints),
        "wall": wall,
        "evaluate": spent[0],
    }


# -- scores ------------------------------------------------------------------------------------
def hypervolume(F: np.ndarray, reference: np.ndarray) -> float:
    """The hypervolume of the points ``F`` (n, k) below ``reference`` (Optuna's)."""
    from optuna._hypervolume import compute_hypervolume

    pts = F[np.all(F < reference, axis=1)]
    return float(compute_hypervolume(pts, reference)) if len(pts) else 0.0


def hypervolume_regret(
    F: np.ndarray, problem: Problem, t: int, optimum: float | None = None
) -> float:
    """``HV* - HV`` of the first ``t`` trials (>= 0); ``optimum`` overrides ``HV*``."""
    assert problem.reference is not None
    best = problem.optimum if optimum is None else optimum
    return max(best - hypervolume(F[:t], problem.reference), 0.0)


def best_feasible_regret(
    F: np.ndarray, G: np.ndarray, problem: Problem, t: int, optimum: float | None = None
) -> float:
    """``f - f*`` of the best feasible trial among the first ``t`` (``inf`` if none);
    ``optimum`` overrides ``f*``."""
    feasible = np.all(G[:t] <= 0.0, axis=1)
    if not feasible.any():
        return float("inf")
    best = problem.optimum if optimum is None else optimum
    return max(float(F[:t, 0][feasible].min()) - best, 0.0)


def optimum_key(name: str, seed: int) -> str:
    """The key of a problem's best seen in :func:`best_seen`: its name, or ``name@seed`` for
    COCO's problems, whose instance (and so optimum and reference point) the seed picks."""
    return f"{name}@{seed}" if name in COCO_PROBLEMS else name


def best_seen(results: list[dict[str, Any]]) -> dict[str, float]:
    """``HV*`` or ``f*`` of each real task or COCO instance (optimum NaN), keyed by
    :func:`optimum_key`: the best over every run given of it, the hypervolume of their union's
    front or their best feasible value."""
    out: dict[str, float] = {}
    for key in dict.fromkeys(optimum_key(r["problem"], r["seed"]) for r in results):
        runs = [r for r in results if optimum_key(r["problem"], r["seed"]) == key]
        problem = problem_of(runs[0]["mode"], runs[0]["problem"], runs[0]["seed"])
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
    """The score of a run after ``t`` trials (lower is better); ``optima`` gives the best
    seen of the real tasks (:func:`best_seen`)."""
    problem = problem_of(result["mode"], result["problem"], result["seed"])
    optimum = (optima or {}).get(optimum_key(result["problem"], result["seed"]))
    if result["mode"] == "moo":
        return hypervolume_regret(result["F"], problem, t, optimum)
    return best_feasible_regret(result["F"], result["G"], problem, t, optimum)


# -- report ------------------------------------------------------------------------------------
def cost_per_trial(result: dict[str, Any]) -> float:
    """Seconds per trial of the study without the objective's evaluation (the sampler and
    Optuna's bookkeeping); runs saved before that was recorded give their whole wall time."""
    return (result["wall"] - result.get("evaluate", 0.0)) / len(result["F"])


def mean_ranks(
    results: list[dict[str, Any]], samplers: list[str], t: int
) -> tuple[dict[str, float], dict[tuple[str, str, int], float]]:
    """Mean rank per sampler over (problem, seed) at ``t`` trials, and every score."""
    optima = best_seen(results)
    scores = {(r["sampler"], r["problem"], r["seed"]): score(r, t, optima) for r in results}
    cells = sorted({(p, s) for _, p, s in scores})
    ranks: dict[str, list[float]] = {s: [] for s in samplers}
    for p, seed in cells:
        if all((s, p, seed) in scores for s in samplers):
            rk = rankdata([scores[(s, p, seed)] for s in samplers])
            for s, v in zip(samplers, rk):
                ranks[s].append(float(v))
    return {s: float(np.mean(v)) if v else float("nan") for s, v in ranks.items()}, scores


def report(results: list[dict[str, Any]], samplers: list[str], checkpoints: list[int]) -> str:
    """The rank table and the per-problem median scores at the last checkpoint."""
    mode = results[0]["mode"]
    per_t = {t: mean_ranks(results, samplers, t) for t in checkpoints}
    header = ["sampler", *(f"rank @{t}" for t in checkpoints)]
    if mode == "constrained":
        header += [f"feasible @{t}" for t in checkpoints]
    header.append("s / trial")
    reference = "TPE" if "TPE" in samplers else "OptunaSearch (TPE)"
    tpe = {
        (r["problem"], r["seed"]): cost_per_trial(r) for r in results if r["sampler"] == reference
    }
    if tpe:
        header.append("cost / TPE")
    rows = []
    for s in samplers:
        mine = [r for r in results if r["sampler"] == s]
        row: list[Any] = [s, *(per_t[t][0][s] for t in checkpoints)]
        if mode == "constrained":
            row += [
                float(np.mean([feasible_fraction(r["G"], t) for r in mine])) for t in checkpoints
            ]
        row.append(float(np.mean([cost_per_trial(r) for r in mine])))
        if tpe:
            ratios = [
                cost_per_trial(r) / tpe[(r["problem"], r["seed"])]
                for r in mine
                if (r["problem"], r["seed"]) in tpe
            ]
            row.append(float(np.exp(np.mean(np.log(ratios)))) if ratios else float("nan"))
        rows.append(row)
    last = checkpoints[-1]
    scores = per_t[last][1]
    problems = list(dict.fromkeys(r["problem"] for r in results))
    label = "HV regret" if mode == "moo" else "best feasible regret"
    detail = []
    for p in problems:
        cells = []
        for s in samplers:
            v = [scores[k] for k in scores if k[0] == s and k[1] == p]
            cells.append(fmt(float(np.median(v))) if v and np.isfinite(np.median(v)) else "none")
        detail.append([p, *cells])
    late = violation_table(results, samplers, problems, last) if mode == "constrained" else ""
    return (
        "\n" + md_table(header, rows) + f"\nMedian {label} over seeds at {last} trials "
        "('none': no feasible trial in half the runs or more):\n\n"
        + md_table(["problem", *samplers], detail)
        + late
    )


def paired_table(
    results: list[dict[str, Any]], samplers: list[str], checkpoints: list[int], baseline: str
) -> str:
    """Paired log-ratios of each sampler's score to ``baseline``'s on the same (problem, seed)
    (``_report.paired``: negative is better than the baseline), over the cells where both
    have a finite score (a constrained run with no feasible trial has none)."""
    rows = []
    for t in checkpoints:
        scores = mean_ranks(results, samplers, t)[1]
        for s in samplers:
            if s == baseline:
                continue
            cells = [
                (p, seed) for x, p, seed in scores if x == s and (baseline, p, seed) in scores
            ]
            mine = np.array([scores[(s, p, seed)] for p, seed in cells])
            base = np.array([scores[(baseline, p, seed)] for p, seed in cells])
            ok = np.isfinite(mine) & np.isfinite(base)
            st = paired(mine[ok], base[ok])
            rows.append([str(t), s, f"{int(ok.sum())} of {len(cells)}", str(st), fmt(st.win, 2)])
    header = ["trials", "sampler", "cells", f"log-ratio to {baseline} ± s.e.", "win"]
    return f"\nPaired to {baseline} (negative: better than {baseline}):\n\n" + md_table(
        header, rows
    )


def violation_table(
    results: list[dict[str, Any]], samplers: list[str], problems: list[str], t: int
) -> str:
    """Per problem, the median over seeds of :func:`late_violation` at ``t`` trials."""
    rows = []
    for p in problems:
        cells = []
        for s in samplers:
            v = [
                late_violation(r["G"], t)
                for r in results
                if (r["sampler"], r["problem"]) == (s, p)
            ]
            cells.append(fmt(float(np.median(v)), 4) if v else "")
        rows.append([p, *cells])
    return (
        f"\nMedian total violation of trials {t - t // 4}-{t - 1} (the last quarter; 0: "
        "feasible), median over seeds:\n\n" + md_table(["problem", *samplers], rows)
    )


def _load(paths: str, mode: str, problems: list[str], seeds: range) -> list[dict[str, Any]]:
    """Runs of earlier ``--save`` pickles that match this run's mode, problems and seeds; a
    (sampler, problem, seed) saved in several pickles is taken from the first one named."""
    out: dict[tuple[str, str, int], dict[str, Any]] = {}
    for path in paths.split(","):
        with open(path, "rb") as fh:
            for r in pickle.load(fh):
                if r["mode"] == mode and r["problem"] in problems and r["seed"] in seeds:
                    out.setdefault((r["sampler"], r["problem"], r["seed"]), r)
    return list(out.values())


def run(mode: str, argv: list[str] | None = None) -> None:
    """Run one mode (``"moo"`` or ``"constrained"``) and write ``<mode>.md`` into ``--out``."""
    defaults = MOO_PROBLEMS if mode == "moo" else CONSTRAINED_PROBLEMS
    coco_group = "bbob-biobj" if mode == "moo" else "bbob-constrained"
    coco = COCO_GROUPS[coco_group]
    all_problems = (defaults if mode == "moo" else defaults + INFEASIBLE_PROBLEMS) + coco
    p = make_parser(
        mode,
        __doc__,
        quick=None,
        trials=Quick(200, 50),
        seeds=Quick(3, 1),
        seed_offset=0,
        samplers=None,
        jobs=1,
        name=None,
        save=None,
        load=None,
    )
    p.add_argument(
        "--problems",
        default=",".join(defaults),
        help=f"comma-separated names, of {list(all_problems)}; {coco_group!r} stands for "
        "all its problems",
    )
    p.add_argument(
        "--backend",
        choices=("optuna", "ray"),
        default="optuna",
        help="optuna: Optuna studies; ray: real Tune runs of the searchers of "
        f"benchmarks._moo_ray, {list(RAY_SEARCHERS)} (one process)",
    )
    p.add_argument(
        "--paired",
        default=None,
        metavar="SAMPLER",
        help="Also report each sampler's paired log-ratio to this sampler's score (e.g. GP).",
    )
    a = p.parse(argv)
    require("pymoo", "the ZDT/DTLZ and G-series problems", mode)
    ray = a.backend == "ray"
    known = list(RAY_SEARCHERS if ray else SAMPLERS)
    default = RAY_SEARCHERS if ray else DEFAULT_SAMPLERS
    given = ",".join(default) if a.samplers is None else a.samplers
    samplers = [s for s in given.split(",") if s]
    if not samplers and not a.load:
        p.error("--samplers '' runs nothing: give --load with it, to report saved runs only")
    given_problems = [s for s in a.problems.split(",") if s]
    problems = [n for s in given_problems for n in (coco if s == coco_group else (s,))]
    for s in samplers:
        if s not in known:
            p.error(f"unknown sampler {s!r}; use some of {known}")
    if ray and a.jobs != 1:
        p.error(f"--backend ray runs in one process (its own local Ray); got --jobs {a.jobs}")
    for name in problems:
        if name not in all_problems:
            p.error(f"unknown problem {name!r}; use some of {list(all_problems)}")
    if "GP" in samplers:
        require("torch", "GPSampler", mode, extra="gp")
    if any(pr in coco for pr in problems):
        require("cocoex", f"COCO's {coco_group} suite", mode)
    print(stamp_core(), flush=True)
    started = time.time()
    seeds = range(a.seed_offset, a.seed_offset + a.seeds)
    jobs = [(mode, s, pr, seed, a.trials) for pr in problems for seed in seeds for s in samplers]
    results = pmap(run_one_ray if ray else run_one, jobs, a.jobs)
    if a.save:
        with open(a.save, "wb") as fh:
            pickle.dump(results, fh)
    if a.load:
        old = [r for r in _load(a.load, mode, problems, seeds) if r["sampler"] not in samplers]
        short = [r for r in old if len(r["F"]) < a.trials]
        if short:  # scored at a.trials they would pass for longer runs
            print(f"left out {len(short)} saved runs of fewer than {a.trials} trials", flush=True)
            old = [r for r in old if len(r["F"]) >= a.trials]
        samplers += list(dict.fromkeys(r["sampler"] for r in old))
        results += old
    if not results:
        p.error(f"no saved run of {mode} matches these problems and seeds in {a.load}")
    if a.paired is not None and a.paired not in samplers:
        p.error(f"--paired {a.paired!r} is not among the samplers reported: {samplers}")
    checkpoints = [t for t in (50, 100, 200) if t <= a.trials] or [a.trials]
    what = (
        "hypervolume regret HV* - HV against the true front"
        if mode == "moo"
        else "regret of the best feasible value (none feasible: ranked last)"
    )
    real = [pr for pr in problems if pr in REAL_PROBLEMS]
    cost_note = (
        "Real Tune runs (`--backend ray`, benchmarks/_moo_ray.py), one trial at a time on a "
        "local `ray.init(num_cpus=2)`; s / trial: the searcher's own time (suggest + "
        "on_trial_complete)"
        if ray
        else "s / trial: the study's time without the objective's evaluation"
    )
    real_note = (
        f" The real task ({', '.join(real)}) is scikit-learn's `MLPClassifier` on the bundled "
        "digits (not the paper's Keras MLP: one trial costs about 0.03 s), scored against the "
        "best seen over every run of this table (its true optimum is unknown)."
        if real
        else ""
    )
    if any(pr in coco for pr in problems):
        real_note += " " + COCO_NOTES[mode]
    body = (
        f"# {'Several objectives' if mode == 'moo' else 'Constraints'}\n\n"
        f"{len(problems)} problems ({', '.join(problems)}), {a.seeds} seeds ({a.seed_offset}+), "
        f"{a.trials} trials. Rank: mean over (problem, seed) of the rank among samplers of the "
        f"{what} (1 = best).{real_note} {cost_note}; cost / TPE: its geometric mean ratio to "
        "TPE's on the same (problem, seed), meaningful for samplers run in the same process "
        "as TPE. "
        f"Command: `{command_line(mode, argv)}`.\n"
        + report(results, samplers, checkpoints)
        + (paired_table(results, samplers, checkpoints, a.paired) if a.paired else "")
        + "\n"
        + machine_note(f"{a.seeds} seeds", started)
    )
    out = results_dir(a.out) / f"{a.name or (mode + '_ray' if ray else mode)}.md"
    out.write_text(body)
    print(body)
    print(f"wrote {out}", flush=True)


def main(argv: list[str] | None = None) -> None:
    """``python -m benchmarks moo``."""
    run("moo", argv)


def main_constrained(argv: list[str] | None = None) -> None:
    """``python -m benchmarks constrained``."""
    run("constrained", argv)


if __name__ == "__main__":
    main()
