"""Paired check of a few (C, M) settings against a baseline on fresh tuning seeds.

Score: each setting's mean paired log-ratio of the optimisation regret to the first setting's,
with its standard error and win rate. benchmarks/README.md describes the method.

Usage::

    python -m benchmarks paired --index soft_gp --settings 0.03,0.1 0.01,0.1 0.003,0.03
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks._harness import Quick
from benchmarks._problems import ABLATION_FUNCTIONS
from benchmarks._problems import ABLATION_NOISES
from benchmarks._problems import TUNING_SEED_OFFSET
from benchmarks._report import fmt
from benchmarks._report import geomean
from benchmarks._report import md_table
from benchmarks._report import paired
from benchmarks._samplers import parse_options

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
    p = _harness.make_parser(
        "paired",
        __doc__,
        quick=None,
        trials=Quick(200, 100),
        seeds=Quick(10, 3),
        jobs=1,
        name=None,
    )
    p.option(
        "--index",
        "hoeffding",
        choices=("hoeffding", "soft_gp"),
        help="The core's index option for every setting",
    )
    p.option(
        "--settings",
        [(0.03, 0.1, None, {}), (0.01, 0.1, None, {}), (0.003, 0.03, None, {})],
        type=_setting,
        nargs="+",
        help="C,M pairs (or C,M,sampling, then key=value core options); the first is the baseline",
    )
    a = p.parse(argv)
    instances = [
        (n, d, nz) for d in (2, 5, 10) for n in ABLATION_FUNCTIONS for nz in ABLATION_NOISES
    ]
    seeds = [SEED_OFFSET + s for s in range(a.seeds)]
    names = [(f"{n}-{d}d" + ("-noisy" if nz else ""), s) for n, d, nz in instances for s in seeds]
    jobs = [
        ({"C": C, "M": M, "index": a.index, **({"sampling": smp} if smp else {}), **extra}, *job)
        for (C, M, smp, extra) in a.settings
        for job in names
    ]
    res = np.array(
        _harness.pmap(_harness.core_final_regret, [(*j, a.trials) for j in jobs], a.jobs)
    )
    res = res.reshape(len(a.settings), -1)
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
    _harness.finish(
        a,
        f"Paired check of (C, M) and in-box samplers, index={a.index}",
        f"Optimisation suite of the ablation ({len(instances)} instances x {a.seeds} seeds "
        f"{SEED_OFFSET}+, {a.trials} trials); a negative log-ratio is lower regret than the "
        "baseline on the same instances. ",
        "\n" + md_table(header, rows),
        a.name or "paired_" + a.index,
    )


if __name__ == "__main__":
    main()
