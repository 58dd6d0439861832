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
from benchmarks import _report
from benchmarks._harness import Method
from benchmarks._harness import Quick
from benchmarks._problems import ABLATION_FUNCTIONS
from benchmarks._problems import ABLATION_NOISES
from benchmarks._problems import FUNCTIONS
from benchmarks._problems import TUNING_SEED_OFFSET
from benchmarks._problems import continuous

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
    T = a.rounds
    n_trials, n_seeds = a.trials, a.seeds
    dims = [2, 10] if a.quick else [2, 5, 10]
    names = list(ABLATION_FUNCTIONS)
    noises = list(ABLATION_NOISES)
    seeds = [TUNING_SEED_OFFSET + s for s in range(n_seeds)]
    configs = configurations()
    if a.only:
        keep = set(a.only.split(","))
        configs = [c for c in configs if c[0] in keep]
    functions = list(FUNCTIONS)

    bandit_jobs = [
        (Method(label, "treeucb", opts), f, s, T, 0.1)
        for label, opts in configs
        for f in functions
        for s in seeds
    ]
    b_res = _harness.pmap(_harness.run_bandit, bandit_jobs, a.jobs)
    b_mean, b_time = _harness.final_regrets(b_res)
    b_gm = {
        label: _report.geomean(float(np.mean(b_mean[(label, f)])) for f in functions)
        for label, _ in configs
    }

    instances = continuous(tuple(dims))
    opt_jobs = [(opts, pr, s, n_trials) for _, opts in configs for pr in instances for s in seeds]
    o_res = _harness.pmap(_harness.core_final_regret, opt_jobs, a.jobs)
    per = len(instances) * len(seeds)
    o_vals = {
        label: np.array(o_res[i * per : (i + 1) * per]) for i, (label, _) in enumerate(configs)
    }
    # rank of each configuration per (instance, seed), averaged
    mat = np.stack([o_vals[label] for label, _ in configs])  # (n_configs, per)
    o_rank = _report.mean_ranks(mat)
    noisy = np.array([pr.endswith("-noisy") for pr in instances for _ in seeds])
    o_gm = {label: _report.geomean(o_vals[label]) for label, _ in configs}
    o_gm_noisy = {label: _report.geomean(o_vals[label][noisy]) for label, _ in configs}

    # combined score: mean of the two ranks (bandit geo-mean rank, optimisation mean rank)
    b_order = np.array([b_gm[label] for label, _ in configs]).argsort().argsort() + 1.0
    o_order = o_rank.argsort().argsort() + 1.0
    combined = (b_order + o_order) / 2.0
    rows = []
    for i in np.argsort(combined, kind="stable"):
        label = configs[i][0]
        row = [label, b_gm[label], 1e3 * float(np.mean(b_time[label])), o_gm[label]]
        rows.append([*row, o_gm_noisy[label], float(o_rank[i]), float(combined[i])])
    header = ["configuration", f"bandit cum. regret T={T} (geo. mean)", "ms / round"]
    header += [f"opt. norm. regret @{n_trials} (geo. mean)", "… noisy only"]
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
        f"regret after {n_trials} trials (noiseless value of the best observed trial) divided by "
        "the median regret of a uniform random point, on "
        f"{{{', '.join(names)}}} x d in {dims} x noise in {noises} (noise sd as a fraction of "
        f"that median), geometric mean and mean rank over instances x seeds. {n_seeds} tuning "
        f"seeds ({TUNING_SEED_OFFSET}+), disjoint from the report seeds of the other benchmarks. "
        "Lower is better everywhere. Sorted by the mean of the two ranks. ",
        "\n"
        + _report.md_table(header, rows)
        + "\n## C x M grid (bandit cum. regret / optimisation norm. regret, geometric means)\n\n"
        + _report.md_table(["", *(f"M={M:g}" for M in M_GRID)], cm_rows),
    )
