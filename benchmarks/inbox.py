"""Paired comparison of TreeUCB's in-box samplers on the real BBOB suite (core ask/tell).

Every setting (a set of core options, e.g. ``sampling=trust_region``) runs the BBOB suite of
:mod:`benchmarks._bbob` (24 rotated functions x d in ``--dims``, noiseless and with moderate
Gaussian noise) through the core's ask/tell for ``--trials`` trials.  The simple regret is the
noiseless regret of the best *observed* trial divided by the median regret of a uniform
random point.  Reported at 50/100/200 trials, per group (d, noisy) and overall: the
geometric-mean regret, the mean paired log-ratio to the baseline (the first setting) with its
standard error, and the share of runs where the setting beats the baseline.

Seeds 0-999 (``--seed-offset 0``) are tuning seeds on the BBOB instances 1-3; seeds 1000+ are
report seeds on the instances 4-15.  Choose defaults on tuning seeds, report on fresh ones.

Usage::

    python -m benchmarks inbox --settings sampling=uniform sampling=trust_region \\
        sampling=local_gp --dims 5,10 --seeds 5 --jobs 2 --name inbox_tuning
    python -m benchmarks inbox --settings ... --seed-offset 1000 --name inbox_report \\
        --out benchmarks/results

A setting is ``key=value,key=value`` (core options; ``""`` is the core's defaults).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from benchmarks._bbob import FUNCTION_IDS
from benchmarks._bbob import BBOBFunction
from benchmarks._common import command_line
from benchmarks._common import core_regret
from benchmarks._common import fmt
from benchmarks._common import machine_note
from benchmarks._common import make_parser
from benchmarks._common import md_table
from benchmarks._common import pmap
from benchmarks._common import stamp_core
from benchmarks._common import write_result
from benchmarks._samplers import parse_options
from benchmarks._stats import FLOOR
from benchmarks._stats import geomean
from benchmarks._stats import paired

CHECKPOINTS = (50, 100, 200)


def run(job: tuple[dict[str, Any], int, int, bool, int, int]) -> np.ndarray:
    """Normalised simple regret after each trial of one run, shape (n_trials,)."""
    opts, fid, dim, noisy, seed, n_trials = job
    return core_regret(BBOBFunction(fid, dim, seed, noisy), seed, opts, n_trials)


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
    p = make_parser("inbox", __doc__)
    p.add_argument(
        "--settings",
        type=parse_options,
        nargs="+",
        default=[{"sampling": "uniform"}, {"sampling": "trust_region"}, {"sampling": "local_gp"}],
        help="core options per setting, 'key=value,key=value'; the first is the baseline",
    )
    p.add_argument("--dims", default="2,5,10", help="comma-separated dimensions")
    p.add_argument("--functions", default=None, help="comma-separated BBOB ids (all 24)")
    p.add_argument(
        "--noise",
        choices=("both", "noiseless", "noisy"),
        default="both",
        help="which BBOB functions: noiseless, noisy or both",
    )
    p.add_argument("--seeds", type=int, default=5, help="seeds per problem")
    p.add_argument("--seed-offset", type=int, default=0, help="0: tuning, 1000+: report")
    p.add_argument("--trials", type=int, default=200, help="asks per run")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (1: run in this process)")
    p.add_argument("--name", default="inbox", help="stem of the result file")
    a = p.parse_args(argv)
    print(stamp_core(), flush=True)
    started = time.time()
    dims = [int(v) for v in a.dims.split(",")]
    fids = [int(v) for v in a.functions.split(",")] if a.functions else list(FUNCTION_IDS)
    noises = {"both": (False, True), "noiseless": (False,), "noisy": (True,)}[a.noise]
    seeds = list(range(a.seed_offset, a.seed_offset + a.seeds))
    cases = [(f, d, nz, s) for d in dims for f in fids for nz in noises for s in seeds]
    jobs = [(opts, f, d, nz, s, a.trials) for opts in a.settings for (f, d, nz, s) in cases]
    res = np.array(pmap(run, jobs, a.jobs)).reshape(len(a.settings), len(cases), a.trials)
    groups = [f"{d}d" + ("-noisy" if nz else "") for (_, d, nz, _) in cases]
    labels = [",".join(f"{k}={v}" for k, v in o.items()) or "core defaults" for o in a.settings]
    checkpoints = [n for n in CHECKPOINTS if n <= a.trials] or [a.trials]
    text = (
        "# In-box samplers on the BBOB suite (paired)\n\n"
        f"BBOB functions {fids[0]}-{fids[-1]} ({len(fids)}), d in {dims}, noise {a.noise}, "
        f"seeds {seeds[0]}-{seeds[-1]} (BBOB instances "
        f"{'1-3, tuning' if a.seed_offset < 1000 else '4-15, report'}), {a.trials} trials, "
        "core ask/tell. A negative log-ratio is lower regret than the baseline on the same "
        f"runs (regrets floored at {FLOOR:g}). Command: `{command_line('inbox', argv)}`.\n"
        + report(labels, res, groups, checkpoints)
        + "\n"
        + machine_note("full", started)
    )
    write_result(a.out, a.name, text)


if __name__ == "__main__":
    main()
