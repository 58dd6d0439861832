"""Quality on integer-heavy and conditional spaces: the groups mixint and conditional.

Score: the tables of optimize (rank, regret, win rate against TPE) and the lock-in statistic
of the conditional problems. benchmarks/README.md describes the problems and the method.

Usage::

    python -m benchmarks mixed --quick                       # 2 problems, 2 seeds, 30 trials
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _problems
from benchmarks import _report
from benchmarks._harness import Quick
from benchmarks._samplers import require_packages
from benchmarks._samplers import split_names

SAMPLERS = (
    "TreeUCB",
    "TreeUCB[group=False]",
    "TreeUCB[discrete=region]",
    "TPE multivariate",
    "TPE",
    "Random",
)
LOCK_IN_TRIALS = 100


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


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and write ``<name>.md`` into ``--out``."""
    p = _harness.make_parser(
        "mixed",
        __doc__,
        quick="2 problems",
        trials=Quick(200, 30),
        seeds=Quick(5, 2),
        seed_offset=0,
        problems=None,
        samplers=",".join(SAMPLERS),
        jobs=1,
        name="mixed",
        save=None,
        load=None,
        paired=None,
    )
    a = p.parse(argv, stamp=False)
    samplers = split_names(a.samplers)
    require_packages(samplers, "mixed")  # unknown names fail now
    default = (
        ["branch-3", "pipe-wine"]
        if a.quick
        else _problems.GROUPS["mixint"] + _problems.GROUPS["conditional"]
    )
    probs = (
        _problems.select(a.problems, kinds=("mixint", "branch", "pipe")) if a.problems else default
    )
    print(_harness.stamp_core(), flush=True)
    seeds = _harness.seeds(a)
    jobs = [(s, pr, seed, a.trials) for pr in probs for seed in seeds for s in samplers]
    jobs.sort(key=lambda j: not j[1].startswith("pipe"))  # slowest first
    results = _harness.pmap(_harness.run_study, jobs, a.jobs)
    _harness.save_and_load(
        a, results, samplers, lambda r: r["problem"] in probs and r["seed"] in seeds
    )
    checkpoints = _harness.checkpoints(a.trials)
    text, _ = _report.rank_tables(results, samplers, checkpoints)
    if a.paired:
        text += _report.paired_tables(results, samplers, checkpoints, a.paired)
    if a.trials >= LOCK_IN_TRIALS:
        text += lock_in(results, samplers)
    walls = {s: np.mean([r["wall"] for r in results if r["sampler"] == s]) for s in samplers}
    base = walls.get("TPE") or 1.0  # seconds when TPE did not run
    _harness.finish(
        a,
        "Mixed-integer and conditional spaces (issue #23)",
        f"{len(probs)} problems ({', '.join(probs)}), seeds {seeds.start}-{seeds.stop - 1}, "
        f"{a.trials} trials. Rank: mean over (problem, seed) of the rank among samplers "
        "(1 = best). Regret: `(v - best of any run) / (median of Random's trials - best)`, "
        "geometric mean (floored at 1e-6). ",
        text
        + "\nWall time of one study, ratio to TPE's in the same run (objective included): "
        + ", ".join(f"{s} {_report.fmt(float(w / base), 2)}" for s, w in walls.items())
        + "\n",
    )


if __name__ == "__main__":
    main()
