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

import time
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _report
from benchmarks._harness import Quick
from benchmarks._mixed_problems import CONDITIONAL_PROBLEMS
from benchmarks._mixed_problems import MIXINT_PROBLEMS
from benchmarks._problems import make_problem
from benchmarks._samplers import make_sampler as registered_sampler
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


# ``TPE multivariate`` is Optuna users' TPE on conditional spaces, under the name its rows have
ALIASES = {"TPE multivariate": "TPE[multivariate=True,group=True]"}


def make_sampler(name: str, seed: int) -> Any:
    """A sampler of :mod:`benchmarks._samplers` (or of :data:`ALIASES`)."""
    return registered_sampler(ALIASES.get(name, name), seed)


def run_one(job: tuple[str, str, int, int]) -> dict[str, Any]:
    """One study: per trial the value and the branch, and the wall time."""

    import optuna

    _harness.quiet()
    sampler_name, name, seed, n_trials = job
    prob = make_problem(name, seed)
    study = optuna.create_study(sampler=make_sampler(sampler_name, seed))
    wall = _harness.optimize(study, prob.objective, n_trials)
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
        f"{n // 2 + 1}-{n} in it\n\n" + _report.md_table(header, rows)
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
    a = p.parse(argv)
    print(_harness.stamp_core(), flush=True)
    started = time.time()
    n_trials, n_seeds = a.trials, a.seeds
    samplers = split_names(a.samplers)
    for s in samplers:
        make_sampler(s, 0)  # unknown names fail now
    probs = select(a.problems, a.quick)
    seeds = range(a.seed_offset, a.seed_offset + n_seeds)
    jobs = [(s, pr, seed, n_trials) for pr in probs for seed in seeds for s in samplers]
    jobs.sort(key=lambda j: not j[1].startswith("pipe"))  # slowest first
    results = _harness.pmap(run_one, jobs, a.jobs)
    if a.save:
        _harness.save_runs(a.save, results)
    if a.load:
        old = _harness.load_runs(
            a.load,
            lambda r: (
                r["problem"] in probs and r["seed"] in seeds and r["sampler"] not in samplers
            ),
        )
        samplers += sorted({r["sampler"] for r in old} - set(samplers))
        results += old
    checkpoints = _harness.checkpoints(n_trials)
    text, _ = _report.rank_tables(results, samplers, checkpoints)
    if a.paired:
        text += _report.paired_tables(results, samplers, checkpoints, a.paired)
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
        f"Command: `{_harness.command_line('mixed', argv)}`.\n"
        + text
        + "\nWall time of one study, ratio to TPE's in the same run (objective included): "
        + ", ".join(f"{s} {_report.fmt(float(w / base), 2)}" for s, w in walls.items())
        + "\n\n"
        + _harness.machine_note("quick" if a.quick else "full", started)
    )
    _harness.write_result(a.out, a.name, body)


if __name__ == "__main__":
    main()
