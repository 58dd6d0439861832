"""Ablation of TreeUCB's options, used to choose the core's defaults by measurement.

Score: each configuration's bandit regret and optimisation regret on tuning seeds, and the
mean of their two ranks. benchmarks/README.md describes the method.

Usage::

    python -m benchmarks ablation --quick   # T=300, 100 trials, 2 seeds, d in {2, 10}
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _problems
from benchmarks import _report
from benchmarks._harness import Quick

C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
M_GRID = (0.0, 0.01, 0.03, 0.1, 1.0)


def configurations() -> list[tuple[str, dict[str, Any]]]:
    """(label, TreeUCB options) for every configuration of the ablation."""
    out: list[tuple[str, dict[str, Any]]] = [("core defaults", {})]
    for C, M in itertools.product(C_GRID, M_GRID):
        out.append((f"C={C:g} M={M:g}", {"C": C, "M": M}))
    out += [
        ("rule=incremental", {"rule": "incremental"}),
        ("index=soft_gp", {"index": "soft_gp"}),
        ("rule=incremental index=soft_gp", {"rule": "incremental", "index": "soft_gp"}),
        ("n_startup_trials=1", {"n_startup_trials": 1}),
        ("n_startup_trials=5", {"n_startup_trials": 5}),
        ("n_startup_trials=20", {"n_startup_trials": 20}),
    ]
    from optuna_treeucb.core import TreeUCB

    accepted = set(inspect.signature(TreeUCB).parameters)
    return [(label, opts) for label, opts in out if set(opts) <= accepted]


def main(argv: list[str] | None = None) -> None:
    """Run the ablation and write <name>.md into ``--out``."""
    common = {"trials": Quick(200, 100), "seeds": Quick(5, 2), "jobs": 1, "name": "ablation"}
    p = _harness.make_parser("ablation", __doc__, quick="2-D and 10-D only", **common)
    p.option("--rounds", Quick(1000, 300), type=int, help="Bandit T")
    p.option("--only", help="Comma-separated configuration labels to run.")
    a = p.parse(argv)
    T, dims = a.rounds, [2, 10] if a.quick else [2, 5, 10]
    seeds = [_problems.TUNING_SEED_OFFSET + s for s in range(a.seeds)]
    configs = [c for c in configurations() if not a.only or c[0] in a.only.split(",")]
    functions = list(_problems.FUNCTIONS)
    bandit_jobs = [
        (_harness.Method(label, "treeucb", opts), f, s, T, 0.1)
        for label, opts in configs
        for f in functions
        for s in seeds
    ]
    b_mean, b_time = _harness.final_regrets(
        _harness.pmap(_harness.run_bandit, bandit_jobs, a.jobs)
    )
    b_gm = {
        label: _report.geomean(float(np.mean(b_mean[(label, f)])) for f in functions)
        for label, _ in configs
    }
    instances = _problems.continuous(tuple(dims))
    opt_jobs = [(opts, pr, s, a.trials) for _, opts in configs for pr in instances for s in seeds]
    # (configurations, instances x seeds); ranked per (instance, seed), the ranks averaged
    o_vals = np.array(_harness.pmap(_harness.core_regret, opt_jobs, a.jobs))[:, -1]
    o_vals = o_vals.reshape(len(configs), -1)
    o_rank = _report.mean_ranks(o_vals)
    noisy = np.array([pr.endswith("-noisy") for pr in instances for _ in seeds])
    o_gm = {label: _report.geomean(o_vals[i]) for i, (label, _) in enumerate(configs)}

    # combined score: mean of the two ranks (bandit geo-mean rank, optimisation mean rank)
    b_order = np.array(list(b_gm.values())).argsort().argsort() + 1.0
    combined = (b_order + o_rank.argsort().argsort() + 1.0) / 2.0
    rows = []
    for i in np.argsort(combined, kind="stable"):
        label = configs[i][0]
        row = [label, b_gm[label], 1e3 * float(np.mean(b_time[label])), o_gm[label]]
        rows.append(
            [*row, _report.geomean(o_vals[i][noisy]), float(o_rank[i]), float(combined[i])]
        )
    header = ["configuration", f"bandit cum. regret T={T} (geo. mean)", "ms / round"]
    header += [f"opt. norm. regret @{a.trials} (geo. mean)", "… noisy only"]
    header += ["opt. mean rank", "combined rank"]
    cm_rows = []
    for C in C_GRID:
        cells = []
        for M in M_GRID:
            lab = f"C={C:g} M={M:g}"
            cells.append(
                f"{_report.fmt(b_gm[lab])} / {_report.fmt(o_gm[lab])}" if lab in b_gm else "-"
            )
        cm_rows.append([f"C={C:g}", *cells])
    _harness.finish(
        a,
        f"Ablation of TreeUCB's options ({a.mode} mode)",
        "Each row changes one option from the core defaults (C and M jointly in the grid). "
        f"Bandit: cumulative regret at T={T}, Gaussian noise sd 0.1, geometric mean over "
        f"{len(functions)} Lipschitz functions ({', '.join(functions)}). Optimisation: simple "
        f"regret after {a.trials} trials (noiseless value of the best observed trial) divided by "
        "the median regret of a uniform random point, on "
        f"{{{', '.join(_problems.ABLATION_FUNCTIONS)}}} x d in {dims} x noise in "
        f"{list(_problems.ABLATION_NOISES)} (noise sd as a fraction of that median), geometric "
        f"mean and mean rank over instances x seeds. {a.seeds} tuning seeds "
        f"({_problems.TUNING_SEED_OFFSET}+), disjoint from the report seeds of the other "
        "benchmarks. Lower is better everywhere. Sorted by the mean of the two ranks. ",
        "\n"
        + _report.md_table(header, rows)
        + "\n## C x M grid (bandit cum. regret / optimisation norm. regret, geometric means)\n\n"
        + _report.md_table(["", *(f"M={M:g}" for M in M_GRID)], cm_rows),
    )
