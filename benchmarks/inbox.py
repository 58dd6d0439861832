"""Paired comparison of TreeUCB's in-box samplers on the real BBOB suite (core ask/tell).

Score: paired log-ratios of each setting's regret to the first setting's, per dimension and
noise, at 50/100/200 trials. benchmarks/README.md describes the method.

Usage::

    python -m benchmarks inbox --settings sampling=uniform sampling=local_gp --dims 5,10
"""

from __future__ import annotations

import numpy as np

from benchmarks import _harness
from benchmarks._harness import Quick
from benchmarks._problems import FUNCTION_IDS
from benchmarks._report import FLOOR
from benchmarks._report import fmt
from benchmarks._report import geomean
from benchmarks._report import md_table
from benchmarks._report import paired
from benchmarks._samplers import parse_options


def report(labels: list[str], res: np.ndarray, groups: list[str], checkpoints: list[int]) -> str:
    """Markdown tables: one per checkpoint, a row per setting and group; ``res`` has shape
    (settings, runs, trials)."""
    text = ""
    names = [*sorted(set(groups), key=_group_key), "overall"]
    garr = np.array(groups)
    for n in checkpoints:
        rows = []
        for i, label in enumerate(labels):
            for g in names:
                sel = np.ones(garr.size, bool) if g == "overall" else garr == g
                st = paired(res[i, sel, n - 1], res[0, sel, n - 1])
                rows.append(
                    [
                        label + (" (baseline)" if i == 0 else ""),
                        g,
                        str(st.n),
                        fmt(geomean(res[i, sel, n - 1])),
                        str(st),
                        fmt(st.win, 3),
                    ]
                )
        header = ["setting", "group", "runs", "regret (geo. mean)", "log-ratio ± s.e.", "win"]
        text += f"\n### After {n} trials\n\n" + md_table(header, rows)
    return text


def _group_key(g: str) -> tuple[int, str]:
    return (int(g.split("d")[0]), g)


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and write results/<out>.md."""
    p = _harness.make_parser(
        "inbox",
        __doc__,
        quick="the BBOB functions 1, 8, 15, 21 in 2-D only",
        trials=Quick(200, 50),
        seeds=Quick(5, 1),
        seed_offset=0,
        jobs=1,
        name="inbox",
    )
    p.option(
        "--settings",
        [{"sampling": "uniform"}, {"sampling": "trust_region"}, {"sampling": "local_gp"}],
        type=parse_options,
        nargs="+",
        help="Core options per setting, 'key=value,key=value'; the first is the baseline",
    )
    p.option("--dims", Quick("2,5,10", "2"), help="Comma-separated dimensions")
    p.option("--functions", help="Comma-separated BBOB ids (all 24; 1, 8, 15, 21 with --quick).")
    p.option(
        "--noise",
        "both",
        choices=("both", "noiseless", "noisy"),
        help="Which BBOB functions: noiseless, noisy or both.",
    )
    a = p.parse(argv)
    dims = [int(v) for v in a.dims.split(",")]
    quick_fids = [1, 8, 15, 21] if a.quick else list(FUNCTION_IDS)
    fids = [int(v) for v in a.functions.split(",")] if a.functions else quick_fids
    noises = {"both": (False, True), "noiseless": (False,), "noisy": (True,)}[a.noise]
    seeds = list(_harness.seeds(a))
    cases = [(f, d, nz, s) for d in dims for f in fids for nz in noises for s in seeds]
    names = [(f"bbob-f{f:02d}-{d}d" + ("-noisy" if nz else ""), s) for f, d, nz, s in cases]
    jobs = [(opts, name, s, a.trials) for opts in a.settings for name, s in names]
    res = np.array(_harness.pmap(_harness.core_regret, jobs, a.jobs))
    res = res.reshape(len(a.settings), len(cases), a.trials)
    groups = [f"{d}d" + ("-noisy" if nz else "") for (_, d, nz, _) in cases]
    labels = [",".join(f"{k}={v}" for k, v in o.items()) or "core defaults" for o in a.settings]
    _harness.finish(
        a,
        "In-box samplers on the BBOB suite (paired)",
        f"BBOB functions {fids[0]}-{fids[-1]} ({len(fids)}), d in {dims}, noise {a.noise}, "
        f"seeds {seeds[0]}-{seeds[-1]} (BBOB instances "
        f"{'1-3, tuning' if a.seed_offset < 1000 else '4-15, report'}), {a.trials} trials, "
        "core ask/tell. A negative log-ratio is lower regret than the baseline on the same "
        f"runs (regrets floored at {FLOOR:g}). ",
        report(labels, res, groups, _harness.checkpoints(a.trials)),
    )


if __name__ == "__main__":
    main()
