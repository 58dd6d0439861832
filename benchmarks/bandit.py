"""Cumulative regret of TreeUCB and PyXAB's X-armed bandits on Lipschitz test functions.

Score: cumulative regret at T on the noiseless function (values in [0, 1]), mean over seeds and
geometric mean over functions, with PyXAB's defaults and constants tuned per function.
benchmarks/README.md describes the method.

Usage::

    python -m benchmarks bandit --quick   # T=500, 3 seeds
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _problems
from benchmarks import _report
from benchmarks._harness import Method
from benchmarks._harness import Quick
from benchmarks._samplers import require

INCREMENTAL = {"rule": "incremental"}


# the TreeUCB variants of the comparison (core defaults, then the main options)
TREEUCB_METHODS = [
    Method("TreeUCB (default)", "treeucb"),
    Method("TreeUCB incremental", "treeucb", INCREMENTAL),
    Method("TreeUCB soft_gp", "treeucb", {"index": "soft_gp"}),
    Method("TreeUCB incremental+soft_gp", "treeucb", {**INCREMENTAL, "index": "soft_gp"}),
]


PYXAB_ALGOS = ("HOO", "HCT", "VHCT", "POO", "VPCT", "StroquOOL")
RHOS = (0.25, 0.5, 0.75, 0.9)


def pyxab_grid(algo: str) -> list[dict[str, Any]]:
    """The small grid of constants tried for each PyXAB algorithm (defaults included)."""
    if algo in ("HOO", "HCT", "VHCT"):
        return [{"nu": nu, "rho": rho} for nu in (0.1, 0.3, 1.0, 3.0) for rho in RHOS]
    if algo in ("POO", "VPCT"):
        # rhomax < 0.9 crashes PyXAB 0.3 (POO.pull: no attribute algo_counter)
        return [{"numax": nm, "rhomax": rm} for nm in (0.3, 1.0, 3.0) for rm in (0.9, 0.95)]
    return [{}]  # StroquOOL has no constant


TUNED = tuple(algo for algo in PYXAB_ALGOS if pyxab_grid(algo)[0])  # those with constants


def tune_pyxab(
    functions: list[str], T: int, seeds: list[int], noise: float, jobs: int
) -> dict[tuple[str, str], dict[str, Any]]:
    """Per (algorithm, function): the grid point with the least mean regret on tuning seeds."""
    grid = [Method(f"{a} {o}", "pyxab", o, a) for a in TUNED for o in pyxab_grid(a)]
    tseeds = [_problems.TUNING_SEED_OFFSET + s for s in seeds]
    jobs_list = [(m, f, s, T, noise) for m in grid for f in functions for s in tseeds]
    final, _ = _harness.final_regrets(_harness.pmap(_harness.run_bandit, jobs_list, jobs))
    means = {k: float(np.mean(v)) for k, v in final.items()}
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for algo in TUNED:
        for f in functions:
            cands = [m for m in grid if m.algo == algo]
            m = min(cands, key=lambda m: np.nan_to_num(means[(m.label, f)], nan=np.inf))
            best[(algo, f)] = dict(m.options)
    return best


def plot(
    results: list[dict[str, Any]], labels: list[str], functions: list[str], path: str
) -> None:
    """Cumulative regret curves (mean over seeds), one panel per function."""
    panels: dict[str, dict[str, _report.Curve]] = {}
    for f in functions:
        panels[f] = {}
        for lab in labels:
            curves = [r["cum"] for r in results if r["label"] == lab and r["function"] == f]
            if curves:
                mean = np.mean(curves, axis=0)
                panels[f][lab] = (np.arange(1, mean.size + 1), mean)
    _report.plot_panels(panels, path, xlabel="round", ylabel="cumulative regret")


def main(argv: list[str] | None = None) -> None:
    """Run the bandit benchmark and write bandit.md and bandit.png into ``--out``."""
    p = _harness.make_parser("bandit", __doc__, None, seeds=Quick(10, 3), jobs=1)
    p.option("--rounds", Quick(2000, 500), type=int, help="T")
    p.option("--noise", 0.1, type=float, help="Std of the Gaussian reward noise.")
    p.option("--no-tuning", False, action="store_true", help="Skip the tuned PyXAB rows.")
    a = p.parse(argv, stamp=False)
    require("PyXAB", "the PyXAB baselines", "bandit")
    _harness.stamp_core()
    T, seeds = a.rounds, list(range(a.seeds))
    functions = list(_problems.FUNCTIONS)
    methods = TREEUCB_METHODS + [Method(f"{n} (default)", "pyxab", {}, n) for n in PYXAB_ALGOS]
    methods += [Method(f"{algo} (c=0.01)", "pyxab", {"c": 0.01}, algo) for algo in ("HCT", "VHCT")]
    methods.append(Method("Random", "random"))
    jobs_list = [(m, f, s, T, a.noise) for m in methods for f in functions for s in seeds]
    results = _harness.pmap(_harness.run_bandit, jobs_list, a.jobs)
    write_report(results, a, functions, "")
    if a.no_tuning:
        return
    tseeds = list(range(2 if a.quick else 3))
    best = tune_pyxab(functions, T, tseeds, a.noise, a.jobs)
    tuned_jobs = []
    for algo in TUNED:
        for f in functions:
            m = Method(f"{algo} (tuned)", "pyxab", best[(algo, f)], algo)
            tuned_jobs += [(m, f, s, T, a.noise) for s in seeds]
    results += _harness.pmap(_harness.run_bandit, tuned_jobs, a.jobs)
    choice = [[algo, *[str(best[(algo, f)]) for f in functions]] for algo in TUNED]
    tuned_note = (
        "\nConstants of the tuned PyXAB rows (per function, best mean regret on "
        f"{len(tseeds)} tuning seeds {_problems.TUNING_SEED_OFFSET}+, "
        "disjoint from the report seeds):\n\n"
        + _report.md_table(["algorithm", *functions], choice)
    )
    write_report(results, a, functions, tuned_note)


def write_report(
    results: list[dict[str, Any]], a: argparse.Namespace, functions: list[str], tuned_note: str
) -> None:
    """Write bandit.md (mean cumulative regret ± s.e., geometric mean, rank and ms per round of
    every method) and bandit.png into ``--out``."""
    T, n_seeds = a.rounds, a.seeds
    labels = list(dict.fromkeys(r["label"] for r in results))
    by, secs = _harness.final_regrets(results)
    mean = {k: float(np.mean(v)) for k, v in by.items()}
    se = {
        k: float(np.std(v, ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0 for k, v in by.items()
    }
    ranks = _report.mean_ranks(np.array([[mean[(lab, f)] for f in functions] for lab in labels]))
    rank = dict(zip(labels, ranks))
    gm = {lab: _report.geomean(mean[(lab, f)] for f in functions) for lab in labels}
    fmt = _report.fmt
    rows = []
    for lab in sorted(labels, key=lambda lab: gm[lab]):
        cells = [f"{fmt(mean[(lab, f)])} ± {fmt(se[(lab, f)], 2)}" for f in functions]
        ms = 1e3 * float(np.mean(secs[lab]))
        rows.append([lab, *cells, gm[lab], fmt(float(rank[lab]), 2), ms])
    header = ["method", *functions, "geo. mean", "mean rank", "ms / round"]
    table = _report.md_table(header, rows)
    plot(results, labels, functions, str(_harness.results_dir(a.out) / f"{a.name}.png"))
    best_pyxab = min((v, k) for k, v in gm.items() if not k.startswith(("TreeUCB", "Random")))
    _harness.finish(
        a,
        f"Bandit regret: TreeUCB vs PyXAB ({a.mode} mode)",
        f"Cumulative regret at T={T} on the noiseless function (values scaled to [0, 1], "
        f"Gaussian noise sd {a.noise}, domain shifted at random per seed), mean ± s.e. over "
        f"{n_seeds} seeds; geometric mean over the {len(functions)} functions; mean rank over "
        "functions; time per round (ask + tell). ",
        "\n"
        + table
        + f"\nBest PyXAB row by geometric mean: {best_pyxab[1]} ({fmt(best_pyxab[0])}); "
        f"TreeUCB (default): {fmt(gm['TreeUCB (default)'])}.\n"
        + tuned_note
        + f"\n![cumulative regret]({a.name}.png)\n",
    )
