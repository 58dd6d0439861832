"""Optimisation quality of TreeUCBSampler beside Optuna's samplers.

Score: normalised regret of the best observed trial; mean rank, geometric mean and win rate
against TPE at 50/100/200 trials. benchmarks/README.md describes the problems and the method.

Usage::

    python -m benchmarks optimize --quick        # 100 trials, 2 seeds, no GPSampler
    python -m benchmarks optimize --problems bbob-5d --seed-offset 1000 \\
        --samplers TPE,Random --save /tmp/base.pkl   # baselines once, --load them later
"""

from __future__ import annotations

import numpy as np

from benchmarks import _harness
from benchmarks import _problems
from benchmarks import _report
from benchmarks._harness import Quick
from benchmarks._samplers import require_packages
from benchmarks._samplers import split_names

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
FUNCTIONS = ("sphere", "ellipsoid", "rosenbrock", "rastrigin", "ackley")
QUICK_FUNCTIONS = ("sphere", "rosenbrock", "rastrigin")
TASKS = ("svc-breast_cancer", "enet-diabetes", "rf-wine", "mlp-digits", "keras-mlp-digits")


def problems(quick: bool) -> list[str]:
    """The default problems: the BBOB-like functions (noiseless, noisy) and the tasks."""
    names = QUICK_FUNCTIONS if quick else FUNCTIONS
    out = [f"{n}-{d}d{noisy}" for d in (2, 5, 10) for n in names for noisy in ("", "-noisy")]
    return out + list(TASKS[:2] if quick else TASKS)


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and write <name>.md and <name>.png into ``--out``."""
    p = _harness.make_parser(
        "optimize",
        __doc__,
        quick="fewer problems and no GPSampler",
        trials=Quick(200, 100),
        seeds=Quick(5, 2),
        seed_offset=0,
        problems=None,
        samplers=None,
        jobs=1,
        name="optimize",
        save=None,
        load=None,
        paired=None,
    )
    p.option("--gp", False, action="store_true", help="Include GPSampler in quick mode.")
    a = p.parse(argv, stamp=False)
    samplers = split_names(a.samplers or ",".join(SAMPLERS))
    if not a.samplers:
        samplers = [s for s in samplers if s != "GP" or a.gp or not a.quick]
    require_packages(samplers, "optimize")
    probs = (
        _problems.select(a.problems, kinds=("function", "mixed", "sklearn"))
        if a.problems
        else problems(a.quick)
    )
    print(_harness.stamp_core(), flush=True)
    seeds = _harness.seeds(a)
    jobs = [(s, pr, seed, a.trials) for pr in probs for seed in seeds for s in samplers]
    # slowest first, so that parallel workers finish together
    jobs.sort(key=lambda j: (j[0] != "GP", j[1] not in TASKS))
    results = _harness.pmap(_harness.run_study, jobs, a.jobs)
    _harness.save_and_load(
        a, results, samplers, lambda r: r["problem"] in probs and r["seed"] in seeds
    )
    checkpoints = _harness.checkpoints(a.trials)
    text, headline = _report.rank_tables(results, samplers, checkpoints)
    if a.paired:
        text += _report.paired_tables(results, samplers, checkpoints, a.paired)
    _report.plot_regret(results, samplers, _harness.results_dir(a.out) / f"{a.name}.png")
    walls = {s: np.mean([r["wall"] for r in results if r["sampler"] == s]) for s in samplers}
    print(headline)
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


if __name__ == "__main__":
    main()
