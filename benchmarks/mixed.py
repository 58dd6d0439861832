"""Quality on integer-heavy and conditional spaces: groups ``mixint`` and
``conditional`` of :mod:`benchmarks._mixed_problems`.

Every sampler runs the same problems, seeds and budget. Reported at 50/100/200 trials: the mean
rank per group and overall, the geometric mean of the normalised regret and the win rate
against TPE (the tables of ``optimize``), paired log-ratios to a baseline (``--paired``), and
the *lock-in* statistic of the conditional problems: the share of seeds whose incumbent (best
observed trial) is in the best branch after 100 trials (``found``), and the share of trials
51-100 spent in that branch. The best branch is known for the synthetic problems; for a
pipeline it is the model of the best value any run found.

Samplers: the names of ``optimize`` (``TreeUCB``, ``TreeUCB[key=value,...]``, ``TPE``,
``Random``, ...), plus ``TPE multivariate`` (``multivariate=True, group=True``, as Optuna users
run it on conditional spaces; Optuna 5's default ``TPE`` is already multivariate, without
groups, so the two coincide on spaces without conditional parameters). GPSampler (``GP``) needs
torch, which the benchmarks extra does not install.

Usage::

    python -m benchmarks mixed --quick                       # 2 problems, 2 seeds, 30 trials
    python -m benchmarks mixed --seeds 5 --save /tmp/m.pkl   # tuning seeds 0-4, 200 trials
    python -m benchmarks mixed --seed-offset 100 --seeds 5   # report seeds 100-104
    python -m benchmarks mixed --samplers "TreeUCB[group=False]" --load /tmp/m.pkl \
        --paired TreeUCB                                     # a variant against saved runs
"""

from __future__ import annotations

import pickle
import time
import warnings
from typing import Any

import numpy as np

from benchmarks._common import command_line
from benchmarks._common import fmt
from benchmarks._common import machine_note
from benchmarks._common import make_parser
from benchmarks._common import md_table
from benchmarks._common import pmap
from benchmarks._common import results_dir
from benchmarks._common import stamp_core
from benchmarks._mixed_problems import CONDITIONAL_PROBLEMS
from benchmarks._mixed_problems import MIXINT_PROBLEMS
from benchmarks._mixed_problems import make_problem
from benchmarks._samplers import make_sampler as optimize_sampler
from benchmarks._samplers import split_names as split_samplers
from benchmarks.optimize import paired
from benchmarks.optimize import report

SAMPLERS = (
    "TreeUCB",
    "TreeUCB[group=False]",
    "TreeUCB[discrete=region]",
    "TPE multivariate",
    "TPE",
    "Random",
)
LOCK_IN_TRIALS = 100


def make_sampler(name: str, seed: int) -> Any:
    """``optimize``'s samplers plus ``TPE multivariate`` (``multivariate=True, group=True``)."""
    if name == "TPE multivariate":
        import optuna

        return optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True)
    return optimize_sampler(name, seed)


def run_one(job: tuple[str, str, int, int]) -> dict[str, Any]:
    """One study: per trial the value and the branch, and the wall time."""

    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    sampler_name, name, seed, n_trials = job
    prob = make_problem(name, seed)
    study = optuna.create_study(sampler=make_sampler(sampler_name, seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        study.optimize(prob.objective, n_trials=n_trials)
        wall = time.perf_counter() - t0
    values = np.array(prob.trues, dtype=float)
    return {
        "sampler": sampler_name,
        "problem": name,
        "group": prob.group,
        "seed": seed,
        "obs": values,
        "true": values,
        "scale": float("nan"),
        "wall": wall,
        "branches": list(prob.branches),
        "best_branch": prob.best_branch,
    }


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
        f"{n // 2 + 1}-{n} in it\n\n" + md_table(header, rows)
    )


def select(names: str | None, quick: bool) -> list[str]:
    """Problem names: ``--problems`` (names or the groups ``mixint``, ``conditional``)."""
    if not names:
        return ["branch-3", "pipe-wine"] if quick else [*MIXINT_PROBLEMS, *CONDITIONAL_PROBLEMS]
    out: list[str] = []
    for name in names.split(","):
        if name == "mixint":
            out += MIXINT_PROBLEMS
        elif name == "conditional":
            out += CONDITIONAL_PROBLEMS
        elif name in MIXINT_PROBLEMS or name in CONDITIONAL_PROBLEMS:
            out.append(name)
        else:
            raise SystemExit(f"Unknown problem {name!r}.")
    return out


def load(paths: str, problems: list[str], seeds: range, samplers: list[str]) -> list[Any]:
    """Runs of earlier pickles on these problems and seeds, for samplers not run now."""
    out = []
    for path in paths.split(","):
        with open(path, "rb") as fh:
            out += [
                r
                for r in pickle.load(fh)
                if r["problem"] in problems and r["seed"] in seeds and r["sampler"] not in samplers
            ]
    return out


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and write ``<name>.md`` into ``--out``."""
    p = make_parser("mixed", __doc__)
    p.add_argument(
        "--quick", action="store_true", help="2 problems, 2 seeds, 30 trials (a smoke run)"
    )
    p.add_argument("--trials", type=int, default=None, help="trials per study (200; 30 quick)")
    p.add_argument("--seeds", type=int, default=None, help="seeds per problem (5; 2 quick)")
    p.add_argument("--seed-offset", type=int, default=0, help="first seed (100+: report)")
    p.add_argument("--problems", default=None, help="names, or the groups mixint, conditional")
    p.add_argument(
        "--samplers", default=None, help='comma-separated sampler names ("": only --load)'
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes (1: run in this process)")
    p.add_argument("--name", default="mixed", help="stem of the result file")
    p.add_argument("--save", default=None, help="pickle the raw results to this path")
    p.add_argument("--load", default=None, help="comma-separated pickles to report with")
    p.add_argument("--paired", default=None, help="paired log-ratios to this sampler")
    a = p.parse_args(argv)
    print(stamp_core(), flush=True)
    started = time.time()
    n_trials = a.trials or (30 if a.quick else 200)
    n_seeds = a.seeds or (2 if a.quick else 5)
    samplers = split_samplers(a.samplers) if a.samplers is not None else list(SAMPLERS)
    for s in samplers:
        make_sampler(s, 0)  # unknown names fail now
    probs = select(a.problems, a.quick)
    seeds = range(a.seed_offset, a.seed_offset + n_seeds)
    jobs = [(s, pr, seed, n_trials) for pr in probs for seed in seeds for s in samplers]
    jobs.sort(key=lambda j: not j[1].startswith("pipe"))  # slowest first
    results = pmap(run_one, jobs, a.jobs)
    if a.save:
        with open(a.save, "wb") as fh:
            pickle.dump(results, fh)
    if a.load:
        old = load(a.load, probs, seeds, samplers)
        samplers += sorted({r["sampler"] for r in old} - set(samplers))
        results += old
    checkpoints = [n for n in (50, 100, 200) if n <= n_trials] or [n_trials]
    text, _ = report(results, samplers, checkpoints)
    if a.paired:
        text += paired(results, samplers, checkpoints, a.paired)
    if n_trials >= LOCK_IN_TRIALS:
        text += lock_in(results, samplers)
    walls = {s: np.mean([r["wall"] for r in results if r["sampler"] == s]) for s in samplers}
    base = walls.get("TPE") or 1.0  # seconds when TPE did not run
    body = (
        "# Mixed-integer and conditional spaces (issue #23)\n\n"
        f"{len(probs)} problems ({', '.join(probs)}), seeds {seeds.start}-{seeds.stop - 1}, "
        f"{n_trials} trials. Rank: mean over (problem, seed) of the rank among samplers "
        "(1 = best). Regret: `(v - best of any run) / (median of Random's trials - best)`, "
        "geometric mean (floored at 1e-6). "
        f"Command: `{command_line('mixed', argv)}`.\n"
        + text
        + "\nWall time of one study, ratio to TPE's in the same run (objective included): "
        + ", ".join(f"{s} {fmt(float(w / base), 2)}" for s, w in walls.items())
        + "\n\n"
        + machine_note("quick" if a.quick else "full", started)
    )
    (results_dir(a.out) / f"{a.name}.md").write_text(body)
    print(body)
    print(f"wrote {results_dir(a.out) / a.name}.md", flush=True)


if __name__ == "__main__":
    main()
