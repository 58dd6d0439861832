"""Optimisation quality of TreeUCBSampler beside Optuna's samplers.

Score: normalised regret of the best observed trial; mean rank, geometric mean and win rate
against TPE at 50/100/200 trials. benchmarks/README.md describes the problems and the method.
``mixed`` (:func:`main_mixed`) is the same comparison on integer-heavy and conditional spaces.

Usage::

    python -m benchmarks optimize --quick        # 100 trials, 2 seeds, no GPSampler
    python -m benchmarks optimize --problems bbob-5d --seed-offset 1000 \\
        --samplers TPE,Random --save /tmp/base.pkl   # baselines once, --load them later
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _problems
from benchmarks import _report
from benchmarks import _samplers
from benchmarks._harness import Quick

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
MIXED_SAMPLERS = (
    "TreeUCB",
    "TreeUCB[group=False]",
    "TreeUCB[discrete=region]",
    "TPE multivariate",
    "TPE",
    "Random",
)
QUICK_FUNCTIONS = ("sphere", "rosenbrock", "rastrigin")
TASKS = _problems.SKLEARN_TASKS
LOCK_IN_TRIALS = 100


def _run(
    command: str, a: argparse.Namespace, samplers: list[str], probs: list[str]
) -> tuple[str, list[dict[str, Any]]]:
    """Run every (sampler, problem, seed) study, slowest first, with ``--save``/``--load``;
    the rank and paired tables (:mod:`benchmarks._report`)."""
    _harness.stamp_core()
    seeds = _harness.seeds(a)
    jobs = [(s, pr, seed, a.trials) for pr in probs for seed in seeds for s in samplers]
    if command == "optimize":  # slowest first, so that parallel workers finish together
        jobs.sort(key=lambda j: (j[0] != "GP", j[1] not in TASKS))
    else:
        jobs.sort(key=lambda j: not j[1].startswith("pipe"))
    results = _harness.pmap(_harness.run_study, jobs, a.jobs)
    _harness.save_and_load(
        a, results, samplers, lambda r: r["problem"] in probs and r["seed"] in seeds
    )
    checkpoints = _harness.checkpoints(a.trials)
    text, headline = _report.rank_tables(results, samplers, checkpoints)
    if a.paired:
        text += _report.paired_tables(results, samplers, checkpoints, a.paired)
    if command == "optimize":
        print(headline)
    return text, results


def _walls(results: list[dict[str, Any]], samplers: list[str]) -> dict[str, float]:
    return {s: np.mean([r["wall"] for r in results if r["sampler"] == s]) for s in samplers}


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and write <name>.md and <name>.png into ``--out``."""
    quick = "fewer problems and no GPSampler"
    p = _harness.study_parser(
        "optimize", __doc__, quick, Quick(200, 100), Quick(5, 2), "optimize", problems=True
    )
    p.option("--gp", False, action="store_true", help="Include GPSampler in quick mode.")
    a = p.parse(argv, stamp=False)
    # --samplers '' reports saved runs only, as in moo and mixed (it used to run every default)
    samplers = _samplers.split_names(",".join(SAMPLERS) if a.samplers is None else a.samplers)
    if a.samplers is None:
        samplers = [s for s in samplers if s != "GP" or a.gp or not a.quick]
    if not samplers and not a.load:
        p.error("--samplers '' runs nothing: give --load with it, to report saved runs only")
    _samplers.require_packages(samplers, "optimize")
    # by default the BBOB-like functions (noiseless, noisy) and the scikit-learn tasks
    probs = _problems.continuous(names=QUICK_FUNCTIONS) if a.quick else _problems.continuous()
    probs += list(TASKS[:2] if a.quick else TASKS)
    if a.problems:
        probs = _problems.select(a.problems, kinds=("function", "mixed", "sklearn"))
    text, results = _run("optimize", a, samplers, probs)
    _report.plot_regret(results, samplers, _harness.results_dir(a.out) / f"{a.name}.png")
    walls = _walls(results, samplers)
    _harness.finish(
        a,
        f"Optimisation quality vs Optuna samplers ({a.mode} mode)",
        f"{len(probs)} problems ({', '.join(probs)}), {a.seeds} seeds ({a.seed_offset}+), "
        f"{a.trials} trials; samplers with default options (seed only). Rank: mean over "
        "(problem, seed) of the rank among samplers (1 = best). Regret: geometric mean of the "
        f"normalised regret (floored at {_report.FLOOR:g}). ",
        text
        + "\nMean wall time of one study (s): "
        + ", ".join(f"{s} {_report.fmt(float(w))}" for s, w in walls.items())
        + f"\n\n![best so far]({a.name}.png)\n",
    )


def best_branches(results: list[dict[str, Any]]) -> dict[str, str]:
    """Per conditional problem, its best branch: known, or that of the best value of any run."""
    out: dict[str, str] = {}
    best: dict[str, float] = {}
    for r in results:
        if r["group"] != "conditional":
            continue
        if r["best_branch"] is not None:
            out[r["problem"]] = r["best_branch"]
            continue
        i = int(np.argmin(r["true"]))
        if r["true"][i] < best.get(r["problem"], np.inf):
            best[r["problem"]] = float(r["true"][i])
            out[r["problem"]] = r["branches"][i]
    return out


def lock_in(results: list[dict[str, Any]], samplers: list[str], n: int = LOCK_IN_TRIALS) -> str:
    """Markdown table of the lock-in statistic per sampler and conditional problem."""
    best = best_branches(results)
    if not best:
        return ""
    problems = sorted(best)
    rows = []
    for s in samplers:
        found_all: list[float] = []
        share_all: list[float] = []
        cells = []
        for p in problems:
            runs = [r for r in results if r["sampler"] == s and r["problem"] == p]
            if not runs or len(runs[0]["true"]) < n:
                cells.append("-")
                continue
            found = [float(r["branches"][int(np.argmin(r["true"][:n]))] == best[p]) for r in runs]
            share = [
                float(np.mean([b == best[p] for b in r["branches"][n // 2 : n]])) for r in runs
            ]
            found_all += found
            share_all += share
            cells.append(f"{np.mean(found):.2f} / {np.mean(share):.2f}")
        overall = f"{np.mean(found_all):.2f} / {np.mean(share_all):.2f}" if found_all else "-"
        rows.append([s, *cells, overall])
    header = ["sampler", *[f"{p} ({best[p]})" for p in problems], "overall"]
    return (
        f"\n### Lock-in: best branch found within {n} trials / share of trials "
        f"{n // 2 + 1}-{n} in it\n\n" + _report.md_table(header, rows)
    )


def main_mixed(argv: list[str] | None = None) -> None:
    """Quality on integer-heavy and conditional spaces: the groups mixint and conditional.

    Score: the tables of optimize (rank, regret, win rate against TPE) and the lock-in statistic
    of the conditional problems. benchmarks/README.md describes the problems and the method.

    Usage::

        python -m benchmarks mixed --quick                   # 2 problems, 2 seeds, 30 trials
    """
    doc, given = main_mixed.__doc__, ",".join(MIXED_SAMPLERS)
    p = _harness.study_parser(
        "mixed", doc, "2 problems", Quick(200, 30), Quick(5, 2), "mixed", given, problems=True
    )
    a = p.parse(argv, stamp=False)
    samplers = _samplers.split_names(a.samplers)
    _samplers.require_packages(samplers, "mixed")  # unknown names fail now
    default = (
        ["branch-3", "pipe-wine"]
        if a.quick
        else _problems.GROUPS["mixint"] + _problems.GROUPS["conditional"]
    )
    probs = (
        _problems.select(a.problems, kinds=("mixint", "branch", "pipe")) if a.problems else default
    )
    text, results = _run("mixed", a, samplers, probs)
    text += _report.problem_table(results, samplers, a.trials)
    if a.trials >= LOCK_IN_TRIALS:
        text += lock_in(results, samplers)
    walls = _walls(results, samplers)
    base = walls.get("TPE") or 1.0  # seconds when TPE did not run
    seeds = _harness.seeds(a)
    _harness.finish(
        a,
        "Mixed-integer and conditional spaces (issue #23)",
        f"{len(probs)} problems ({', '.join(probs)}), seeds {seeds.start}-{seeds.stop - 1}, "
        f"{a.trials} trials. Rank: mean over (problem, seed) of the rank among samplers "
        "(1 = best). Regret: `(v - best) / (median - best)`, with the best value of any run "
        "(of the same seed on mixint, whose seed draws the COCO instance) and the median of "
        "Random's trials (of all trials without Random), geometric mean (floored at 1e-6). ",
        text
        + "\nWall time of one study, ratio to TPE's in the same run (objective included): "
        + ", ".join(f"{s} {_report.fmt(float(w / base), 2)}" for s, w in walls.items())
        + "\n",
    )
