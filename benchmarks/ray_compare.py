"""Ray-side comparison: TreeUCBSearch beside Tune's other searchers, in real Tuner runs.

Score: normalised regret on BBOB functions, mean rank and win rate against OptunaSearch at 50
and 100 trials, and the wall and searcher time per trial. benchmarks/README.md describes the
method.

Usage::

    python -m benchmarks ray_compare --quick     # 2 problems, 1 seed, 50 trials
"""

from __future__ import annotations

import traceback
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _report
from benchmarks import _samplers
from benchmarks._harness import Quick
from benchmarks._problems import _functions as _bbob

SEARCHERS = (
    "TreeUCBSearch",
    "HyperOptSearch",
    "OptunaSearch (TPE)",
    "NevergradSearch (CMA)",
    "BasicVariantGenerator (random)",
)
REFERENCE = "OptunaSearch (TPE)"
# a spread of the BBOB groups: separable, low/moderate conditioning, high conditioning,
# multi-modal with global structure, multi-modal with weak structure
PROBLEMS = (
    "bbob-f02-5d",  # separable ellipsoid
    "bbob-f08-5d",  # Rosenbrock
    "bbob-f10-5d",  # rotated ellipsoid
    "bbob-f15-5d",  # rotated Rastrigin
    "bbob-f17-5d",  # Schaffer F7
    "bbob-f21-5d",  # Gallagher 101 peaks
    "bbob-f01-5d-noisy",  # sphere
    "bbob-f08-5d-noisy",  # Rosenbrock
)
QUICK_PROBLEMS = ("bbob-f10-5d", "bbob-f08-5d-noisy")


def make_trainable(fid: int, dim: int, instance: int, seed: int, noisy: bool) -> Any:
    """A zero-cost trainable for one BBOB instance; reports ``loss`` (observed) and ``regret``.

    Self-contained (only ``ioh`` and numpy are imported in the worker), so Ray pickles it by
    value and the workers need not import ``benchmarks``.
    """
    beta = _bbob.MODERATE_BETA

    def trainable(config: dict[str, Any]) -> dict[str, Any]:
        import time as _time

        import ioh
        import numpy as _np

        start = _time.time()
        problem = ioh.get_problem(fid, instance, dim, ioh.ProblemClass.BBOB)
        x = _np.array([config[f"x{i}"] for i in range(dim)], dtype=float)
        regret = float(problem(x)) - float(problem.optimum.y)
        loss = regret
        if noisy:
            key = [seed, fid, dim, *_np.frombuffer(x.tobytes(), dtype=_np.uint32).tolist()]
            loss = regret * float(_np.exp(beta * _np.random.default_rng(key).standard_normal()))
            if loss >= 1e-8:
                loss += 1.01e-8
        return {"loss": loss, "regret": regret, "start": start}

    return trainable


def run_one(job: tuple[str, str, int, int]) -> dict[str, Any]:
    """One Tune run ``(searcher, problem, seed, n_trials)``; per trial (in creation order) the
    observed and the noiseless value."""
    from ray import tune

    name, problem, seed, n_trials = job
    fid, dim, noisy = _bbob.parse(problem)
    bbob = _bbob.BBOBFunction(fid, dim, seed, noisy)
    space = {f"x{i}": tune.uniform(_bbob.LOW, _bbob.HIGH) for i in range(dim)}
    # a searcher that owns the space gets it, metric and mode at construction, Tune none
    owns_space = _samplers.SEARCHERS[_samplers.parse_name(name)[0]].owns_space
    given = {"space": space, "metric": "loss", "mode": "min"} if owns_space else {}
    search_alg = _harness.timed(_samplers.make_searcher(name, seed, budget=n_trials, **given))
    out: dict[str, Any] = {"sampler": name, "problem": problem, "seed": seed, "error": ""}
    out["group"] = "bbob-noisy" if noisy else f"bbob-{dim}d"
    out["scale"] = bbob.median_random
    try:
        trainable = make_trainable(fid, dim, bbob.instance, seed, noisy)
        param_space = None if owns_space else space
        grid, out["wall"] = _harness.fit_tuner(
            trainable, search_alg, n_trials, param_space, metric="loss", mode="min"
        )
        rows = _harness.trial_results(grid, n_trials)
        out["obs"] = np.array([m["loss"] for m in rows])
        out["true"] = np.array([m["regret"] for m in rows])
        out["searcher_s"] = float(getattr(search_alg, "seconds", float("nan")))
    except Exception as exc:  # reported in the table, not raised: the other runs go on
        out["error"] = f"{type(exc).__name__}: {exc}"
        traceback.print_exc()
    return out


def time_table(results: list[dict[str, Any]], names: list[str], n_trials: int) -> str:
    rows = []
    for s in names:
        ok = [r for r in results if r["sampler"] == s and not r["error"]]
        failed = sum(1 for r in results if r["sampler"] == s and r["error"])
        wall = [r["wall"] / n_trials for r in ok]
        own = [1e3 * r["searcher_s"] / n_trials for r in ok]
        rows.append(
            [s, str(len(ok)), str(failed), *(np.median(v) if v else "-" for v in (wall, own))]
        )
    header = ["searcher", "runs", "failed runs", "wall s per trial (median over runs)"]
    return _report.md_table([*header, "searcher ms per trial"], rows)


def main(argv: list[str] | None = None) -> None:
    """Run every searcher on every problem and seed; write <name>.md and <name>.png."""
    common = {"trials": Quick(100, 50), "seeds": Quick(2, 1), "seed_offset": 0, "problems": None}
    p = _harness.make_parser("ray_compare", __doc__, "2 problems", **common, name="ray_compare")
    p.option("--searchers", help="Comma-separated subset of the searchers.")
    p.option("--no-plot", False, action="store_true", help="Write the table only.")
    a = p.parse(argv, stamp=False)
    _samplers.require("ray.tune", "the Tune runs", "ray_compare")
    _samplers.require("ioh", "the BBOB functions", "ray_compare")
    names = _samplers.split_names(a.searchers) if a.searchers else list(SEARCHERS)
    _samplers.require_packages(names, "ray_compare", searchers=True)
    problems = list(QUICK_PROBLEMS if a.quick else PROBLEMS)
    problems = a.problems.split(",") if a.problems else problems
    for pr in problems:
        try:
            _bbob.parse(pr)
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
    _harness.stamp_core()
    # one Tune run at a time; searchers interleaved so that the load hits all alike
    jobs = [
        (s, pr, seed, a.trials) for pr in problems for seed in _harness.seeds(a) for s in names
    ]
    results = _harness.pmap(run_one, jobs, 1)
    failed = sorted({r["sampler"] for r in results if r["error"]})
    ranked = [s for s in names if s not in failed]
    good = [r for r in results if r["sampler"] in ranked]
    checkpoints = _harness.checkpoints(a.trials, (50, 100))
    text = _report.rank_tables(good, ranked, checkpoints, REFERENCE)[0] if ranked else ""
    parts = [
        text.replace("| sampler |", "| searcher |"),
        "\n## Time per trial\n",
        "Wall: the whole `Tuner.fit` divided by the trials (Tune's scheduling, actors and "
        "result handling included); searcher: `suggest` + `on_trial_complete` "
        "(`next_trial` for BasicVariantGenerator).\n",
        time_table(results, names, a.trials),
    ]
    if failed:
        text = "; ".join(
            f"{r['sampler']} on {r['problem']} seed {r['seed']}: {r['error']}"
            for r in results
            if r["error"]
        )
        parts.append(f"\nFailed runs (these searchers are left out of the ranks): {text}\n")
    if ranked and not a.no_plot:
        _report.plot_regret(good, ranked, _harness.results_dir(a.out) / f"{a.name}.png")
        parts.append(f"\n![best so far]({a.name}.png)\n")
    _harness.finish(
        a,
        "Ray Tune searchers on BBOB functions (issue 15)",
        "",
        f"\n{len(problems)} problems ({', '.join(problems)}), {a.seeds} seed(s) "
        f"({a.seed_offset}+), {a.trials} trials, one trial at a time, every searcher with its "
        "defaults and the run's seed. Rank: mean over (problem, seed) of the rank among "
        "searchers (1 = best). Regret: geometric mean of the normalised regret (floored at "
        f"{_report.FLOOR:g}).\n\n" + "\n".join(parts),
    )
