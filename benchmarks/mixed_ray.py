"""Conditional spaces on the Ray face: the synthetic branch problems of mixed in real Tune runs.

Score: mean rank of the best value at 50 and all trials, and the share of runs whose best
value is in the best branch. benchmarks/README.md describes the method.

Usage::

    python -m benchmarks mixed_ray --quick
"""

from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _report
from benchmarks import _samplers
from benchmarks._harness import Quick
from benchmarks._problems import BRANCHES
from benchmarks._problems import study

SEARCHERS = ("OptunaSearch (TreeUCB)", "OptunaSearch (TPE)")


class _Space:
    """The define-by-run space: the problem's objective, its value dropped.  A class, not a
    closure, because ``OptunaSearch`` pickles its space in Tune's checkpoints."""

    def __init__(self, problem_name: str, seed: int) -> None:
        self.problem_name, self.seed = problem_name, seed
        self._problem: Any = None

    def __call__(self, trial: Any) -> None:
        if self._problem is None:
            self._problem = study(self.problem_name, self.seed)
        self._problem.objective(trial)  # only its suggestions matter here

    def __getstate__(self) -> dict[str, Any]:
        return {"problem_name": self.problem_name, "seed": self.seed, "_problem": None}


def make_searcher(name: str, problem_name: str, seed: int) -> Any:
    """Ray's ``OptunaSearch`` over the problem's define-by-run space, with ``name``'s sampler."""
    if name not in SEARCHERS:
        raise ValueError(f"Unknown searcher {name!r}; known: {', '.join(SEARCHERS)}.")
    space = _Space(problem_name, seed)
    return _samplers.make_searcher(name, seed, space=space, metric="loss", mode="min")


def make_trainable(problem_name: str, seed: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A trainable that evaluates the suggested point (``benchmarks`` imported in the worker)."""

    def trainable(config: dict[str, Any]) -> dict[str, Any]:
        import optuna as _optuna

        from benchmarks._problems import study

        problem = study(problem_name, seed)
        value = problem.objective(_optuna.trial.FixedTrial(config))
        return {"loss": value, "branch": problem.branches[-1], "start": time.time()}

    return trainable


def run_one(job: tuple[str, str, int, int]) -> dict[str, Any]:
    """One Tune run ``(searcher, problem, seed, n_trials)``: per trial, in the order trials
    started, its value and its branch."""
    searcher, problem, seed, n_trials = job
    trainable, search_alg = make_trainable(problem, seed), make_searcher(searcher, problem, seed)
    grid, wall = _harness.fit_tuner(trainable, search_alg, n_trials)
    rows = _harness.trial_results(grid, n_trials)
    out = {"searcher": searcher, "problem": problem, "seed": seed, "wall": wall}
    out.update(values=np.array([m["loss"] for m in rows]), branches=[m["branch"] for m in rows])
    return out


def report(results: Sequence[dict[str, Any]], budgets: Sequence[int]) -> str:
    """Mean rank of the best value at each budget, and the share of runs whose best value is
    in the best branch within the last budget."""
    header = ["searcher", *(f"rank @{b}" for b in budgets), f"best branch @{budgets[-1]}"]
    runs = {(r["searcher"], r["problem"], r["seed"]): r for r in results}
    best = {b: {k: float(np.min(r["values"][:b])) for k, r in runs.items()} for b in budgets}
    ranks = {b: _report.cell_ranks(best[b], list(SEARCHERS)) for b in budgets}
    rows = []
    for i, name in enumerate(SEARCHERS):
        mine = [r for (s, *_), r in runs.items() if s == name]
        found = [r["branches"][int(np.argmin(r["values"][: budgets[-1]]))] == "best" for r in mine]
        rows.append([name, *(float(ranks[b][i]) for b in budgets), f"{np.mean(found):.2f}"])
    return _report.md_table(header, rows)


def main(argv: list[str] | None = None) -> None:
    common = {"trials": Quick(100, 30), "seeds": Quick(3, 1), "seed_offset": 100}
    parser = _harness.make_parser(
        "mixed_ray", __doc__, None, **common, problems="branch-3,branch-4"
    )
    args = parser.parse(argv, stamp=False)
    problems = [p for p in args.problems.split(",") if p]
    for p in problems:
        if p not in BRANCHES:
            parser.error(
                f"--problems: {p!r} is not a branch problem; known: {', '.join(BRANCHES)}"
            )
    if args.seeds < 1 or args.trials < 2:
        parser.error(f"--seeds must be >= 1 and --trials >= 2; got {args.seeds} and {args.trials}")
    _samplers.require("ray", "the Tune runs", "mixed_ray", extra="ray")
    _harness.stamp_core()
    seeds = _harness.seeds(args)
    jobs = [(s, pr, seed, args.trials) for pr in problems for seed in seeds for s in SEARCHERS]
    results = _harness.pmap(run_one, jobs, 1)
    budgets = sorted({min(50, args.trials), args.trials})
    args.mode = f"{args.seeds} seeds"
    _harness.finish(
        args,
        "Conditional spaces on the Ray face",
        f"{len(problems)} problems ({', '.join(problems)}), {args.seeds} seeds "
        f"({args.seed_offset}+), {args.trials} trials, real `tune.Tuner` runs on "
        "`ray.init(num_cpus=2)`, one trial at a time; Ray's `OptunaSearch` with the problem's "
        "define-by-run space, with `TreeUCBSampler` or Optuna's default `TPESampler`. Rank: "
        "mean over (problem, seed) of the rank of the best value (1 = best); best branch: share "
        "of runs whose best value is in the problem's best branch. ",
        f"\n{report(results, budgets)}",
    )
