"""Time spent inside each sampler per trial, as a function of the number of finished trials.

Score: mean (amortised) milliseconds inside the sampler per trial, and the ratio to TPE's at
the same size. benchmarks/README.md describes the method.

Usage::

    python -m benchmarks overhead --quick   # n up to 2,000
"""

from __future__ import annotations

import warnings

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import FloatDistribution

from benchmarks import _harness
from benchmarks import _report
from benchmarks import _samplers
from benchmarks._harness import Quick

DIM = 5
SAMPLER_NAMES = (
    "TreeUCB",
    "TreeUCB[sampling=trust_region]",
    "TreeUCB[index=soft_gp]",
    "TPE",
    "GP",
    "CmaEs",
    "Random",
)
_HOOKS = (
    "infer_relative_search_space",
    "sample_relative",
    "sample_independent",
    "before_trial",
    "after_trial",
)


def values_of(X: np.ndarray, objectives: int) -> np.ndarray:
    """The test values of points ``X`` (n, DIM): the sphere around 1, and with two objectives
    also the sphere around -1 (a convex front), shape (n,) or (n, 2)."""
    first = np.sum((X - 1.0) ** 2, axis=-1)
    return first if objectives == 1 else np.stack((first, np.sum((X + 1.0) ** 2, axis=-1)), -1)


def measure(
    name: str, n: int, k: int, budget: float = 60.0, objectives: int = 1
) -> tuple[float, float]:
    """(cold, mean per-trial) seconds inside the sampler with n finished trials.

    The mean is over ``max(k, n // 10)`` trials after the first (amortised cost), or fewer
    (at least two) once the timed trials add up to ``budget`` seconds.
    """
    dists: dict[str, BaseDistribution] = {
        f"x{i}": FloatDistribution(-5.0, 5.0) for i in range(DIM)
    }
    rng = np.random.default_rng(n)
    X = rng.uniform(-5.0, 5.0, size=(n, DIM))
    values = values_of(X, objectives)
    sampler = _samplers.make_sampler(name, 0)
    study = optuna.create_study(sampler=sampler, directions=["minimize"] * objectives)
    study.add_trials(
        [
            optuna.trial.create_trial(
                params={f"x{i}": float(x[i]) for i in range(DIM)},
                distributions=dists,
                values=np.atleast_1d(v).tolist(),
            )
            for x, v in zip(X, values, strict=True)
        ]
    )
    clock = _harness.Clock(sampler, *_HOOKS)
    times = []
    for _ in range(1 + max(k, n // 10)):
        before = clock.seconds
        trial = study.ask()
        x = np.array([trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(DIM)])
        study.tell(trial, np.atleast_1d(values_of(x, objectives)).tolist())
        times.append(clock.seconds - before)
        if len(times) >= 3 and sum(times) > budget:
            break
    return times[0], float(np.mean(times[1:]))


def main(argv: list[str] | None = None) -> None:
    """Run the overhead benchmark and write overhead.md and overhead.png into ``--out``."""
    quick = "up to 2,000 finished trials instead of 10,000"
    common = {"samplers": ",".join(SAMPLER_NAMES), "name": "overhead"}
    p = _harness.make_parser("overhead", __doc__, quick, **common)
    p.option("--max-seconds", Quick(20.0, 5.0), type=float, help="Drop a sampler above this")
    text = "2: two spheres (a study of two objectives)"
    p.option("--objectives", 1, type=int, choices=(1, 2), help=text)
    default = Quick("10,100,200,500,1000,2000,5000,10000", "10,100,200,500,1000,2000")
    p.option("--sizes", default, help="Comma-separated numbers of finished trials")
    a = p.parse(argv, stamp=False)
    names = _samplers.split_names(a.samplers)
    _samplers.require_packages(names, "overhead")
    out = _harness.results_dir(a.out)
    _harness.stamp_core()
    _harness.quiet()
    warnings.simplefilter("ignore")
    sizes = [int(n) for n in a.sizes.split(",")]
    k = 5 if a.quick else 10
    limit = a.max_seconds
    for name in names:  # warm-up: imports and first-call costs
        measure(name, 10, 2, objectives=a.objectives)
    per: dict[tuple[str, int], float] = {}
    cold: dict[tuple[str, int], float] = {}
    alive = set(names)
    for n in sizes:
        for name in names:
            if name not in alive:
                continue
            c, m = measure(name, n, k, objectives=a.objectives)
            per[(name, n)], cold[(name, n)] = m, c
            line = f"n={n:6d} {name:8s} cold {c * 1e3:9.2f} ms  per trial {m * 1e3:9.2f} ms"
            print(line, flush=True)
            if max(c, m) > limit:
                alive.discard(name)
    rows = []
    for n in sizes:
        tpe = per.get(("TPE", n))
        cells = []
        for name in names:
            if (name, n) not in per:
                cells.append("-")
                continue
            ratio = f" ({per[(name, n)] / tpe:.2g}x)" if tpe else ""
            cells.append(f"{_report.fmt(1e3 * per[(name, n)])}{ratio}")
        tree_cold = _report.fmt(1e3 * cold[("TreeUCB", n)]) if ("TreeUCB", n) in cold else "-"
        rows.append([str(n), *cells, tree_cold])
    header = ["finished trials", *[f"{s} ms (x TPE)" for s in names], "TreeUCB cold ms"]
    curves: dict[str, _report.Curve] = {}
    for name in names:
        ns = [n for n in sizes if (name, n) in per]
        curves[name] = (ns, [1e3 * per[(name, n)] for n in ns])
    path, ylabel = out / f"{a.name}.png", "ms inside the sampler per trial"
    panels, xlabel = {"5-D, continuous": curves}, "finished trials"
    _report.plot_panels(panels, path, xlabel=xlabel, ylabel=ylabel, xlog=True, marker="o")
    what = "two objectives (spheres around 1 and -1)" if a.objectives == 2 else "one objective"
    _harness.finish(
        a,
        f"Sampler overhead ({a.mode} mode, {what})",
        "Mean (amortised) time inside the sampler per trial (ms; in parentheses the ratio "
        f"to TPE at the same size, same process), 5-D continuous space, max({k}, n/10) timed "
        "trials after n finished trials were added; '-' = not run (a trial exceeded "
        f"{limit:g} s at a smaller size). 'cold' = first trial, caches built from scratch. ",
        "\n" + _report.md_table(header, rows) + f"\n![{a.name}]({a.name}.png)\n",
    )
