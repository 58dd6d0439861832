"""Paired check of a few (C, M) settings against a baseline on fresh tuning seeds.

The ablation ranks many configurations; this check asks a narrower question with a standard
error: is a candidate's optimisation regret lower than the baseline's on the *same* instances?
Every setting runs the ablation's optimisation suite (BBOB-like functions x d in {2, 5, 10} x
noise in {0, 0.1}, simple regret after ``--trials`` through the core's ask/tell) on seeds
1100+ (tuning seeds not used by the ablation's default 5 or 10). Reported per setting: the
geometric-mean normalised regret, the mean paired log-ratio to the baseline (first setting)
with its standard error, and the share of instances where the setting beats the baseline.

Usage::

    python -m benchmarks paired --index hoeffding --settings 0.03,0.1 0.01,0.1 0.003,0.03
    python -m benchmarks paired --index soft_gp --settings 0.03,0.1 0.01,0.1 0.003,0.03
    python -m benchmarks paired --settings 0.01,0.1,uniform 0.01,0.1,local_gp \\
        --name paired_sampling   # a third field names the in-box sampler
    python -m benchmarks paired --settings 0.01,0.1,local_gp \\
        0.01,0.1,local_gp,rule=incremental   # then key=value core options
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from benchmarks._common import command_line
from benchmarks._common import fmt
from benchmarks._common import machine_note
from benchmarks._common import make_parser
from benchmarks._common import md_table
from benchmarks._common import pmap
from benchmarks._common import stamp_core
from benchmarks._common import write_result
from benchmarks._samplers import parse_options
from benchmarks._stats import geomean
from benchmarks._stats import paired
from benchmarks.ablation import FUNCTION_NAMES
from benchmarks.ablation import NOISES
from benchmarks.ablation import simple_regret_run
from benchmarks.bandit import TUNING_SEED_OFFSET

SEED_OFFSET = TUNING_SEED_OFFSET + 100


def _setting(text: str) -> tuple[float, float, str | None, dict[str, Any]]:
    parts = text.split(",")
    extra = parse_options(",".join(p for p in parts if "=" in p))
    parts = [p for p in parts if "=" not in p]
    sampling = parts.pop() if len(parts) == 3 else None
    try:
        C, M = (float(v) for v in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            "a setting is 'C,M' with two numbers, e.g. 0.01,0.1, optionally followed by an "
            "in-box sampler and core options, e.g. 0.01,0.1,local_gp,rule=incremental; "
            f"got {text!r}"
        ) from None
    return C, M, sampling, extra


def main(argv: list[str] | None = None) -> None:
    """Run the paired check and write paired_<index>.md into ``--out``."""
    p = make_parser("paired", __doc__)
    p.add_argument(
        "--index",
        choices=("hoeffding", "soft_gp"),
        default="hoeffding",
        help="the core's index option for every setting",
    )
    p.add_argument(
        "--settings",
        type=_setting,
        nargs="+",
        default=[(0.03, 0.1, None, {}), (0.01, 0.1, None, {}), (0.003, 0.03, None, {})],
        help="C,M pairs (or C,M,sampling, then key=value core options); the first is the baseline",
    )
    p.add_argument("--quick", action="store_true", help="3 seeds, 100 trials")
    p.add_argument("--seeds", type=int, default=None, help="seeds (default 10; 3 with --quick)")
    p.add_argument("--trials", type=int, default=None, help="default 200; 100 with --quick")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (1: run in this process)")
    p.add_argument("--name", default=None, help="stem of the result file (paired_<index>)")
    a = p.parse_args(argv)
    a.seeds = a.seeds or (3 if a.quick else 10)
    a.trials = a.trials or (100 if a.quick else 200)
    print(stamp_core(), flush=True)
    started = time.time()
    instances = [(n, d, nz) for d in (2, 5, 10) for n in FUNCTION_NAMES for nz in NOISES]
    seeds = [SEED_OFFSET + s for s in range(a.seeds)]
    jobs = [
        (
            {"C": C, "M": M, "index": a.index, **({"sampling": smp} if smp else {}), **extra},
            n,
            d,
            s,
            nz,
            a.trials,
        )
        for (C, M, smp, extra) in a.settings
        for (n, d, nz) in instances
        for s in seeds
    ]
    res = np.array(pmap(simple_regret_run, jobs, a.jobs)).reshape(len(a.settings), -1)
    rows = []
    noisy = np.array([nz > 0 for (_, _, nz) in instances for _ in seeds])
    for i, (C, M, smp, extra) in enumerate(a.settings):
        st = paired(res[i], res[0])
        by_noise = [str(paired(res[i, sel], res[0, sel])) for sel in (~noisy, noisy)]
        rows.append(
            [
                f"C={C:g} M={M:g}"
                + (f" sampling={smp}" if smp else "")
                + "".join(f" {k}={v}" for k, v in extra.items())
                + (" (baseline)" if i == 0 else ""),
                fmt(geomean(res[i])),
                str(st),
                fmt(st.win, 3),
                *by_noise,
            ]
        )
    header = [
        "setting",
        "norm. regret (geo. mean)",
        "log-ratio to baseline ± s.e.",
        "win rate",
        "log-ratio noiseless",
        "log-ratio noisy",
    ]
    text = (
        f"# Paired check of (C, M) and in-box samplers, index={a.index}\n\n"
        f"Optimisation suite of the ablation ({len(instances)} instances x {a.seeds} seeds "
        f"{SEED_OFFSET}+, {a.trials} trials); a negative log-ratio is lower regret than the "
        "baseline on the same instances. "
        f"Command: `{command_line('paired', argv)}`.\n\n"
        + md_table(header, rows)
        + "\n"
        + machine_note("quick" if a.quick else "full", started)
    )
    write_result(a.out, a.name or "paired_" + a.index, text)


if __name__ == "__main__":
    main()
