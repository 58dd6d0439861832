"""Paired comparison of TreeUCB's in-box samplers on the real BBOB suite (core ask/tell).

Score: paired log-ratios of each setting's regret to the first setting's, per dimension and
noise, at 50/100/200 trials. benchmarks/README.md describes the method. ``paired``
(:func:`main_paired`) is the same check of (C, M) settings on the ablation's suite.

Usage::

    python -m benchmarks inbox --settings sampling=uniform sampling=local_gp --dims 5,10
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from benchmarks import _harness
from benchmarks import _problems
from benchmarks import _report
from benchmarks._harness import Quick
from benchmarks._samplers import parse_options
from optuna_treeucb.core import OPTIONS

SEED_OFFSET = _problems.TUNING_SEED_OFFSET + 100  # paired: tuning seeds the ablation does not use


def report(labels: list[str], res: np.ndarray, groups: list[str], checkpoints: list[int]) -> str:
    """A table per checkpoint, a row per setting and group; ``res``: (settings, runs, trials)."""
    text = ""
    garr = np.array(groups)
    header = ["setting", "group", "runs", "regret (geo. mean)", "log-ratio ± s.e.", "win"]
    for n in checkpoints:
        rows = []
        for i, label in enumerate(labels):
            for g in [*sorted(set(groups), key=lambda g: (int(g.split("d")[0]), g)), "overall"]:
                sel = np.ones(garr.size, bool) if g == "overall" else garr == g
                st = _report.paired(res[i, sel, n - 1], res[0, sel, n - 1])
                name = label + (" (baseline)" if i == 0 else "")
                regret = _report.geomean(res[i, sel, n - 1])
                rows.append([name, g, str(st.n), regret, str(st), st.win])
        text += f"\n### After {n} trials\n\n" + _report.md_table(header, rows)
    return text


def main(argv: list[str] | None = None) -> None:
    """Run the comparison and write <name>.md into ``--out``."""
    quick = "the BBOB functions 1, 8, 15, 21 in 2-D only"
    common = {"trials": Quick(200, 50), "seeds": Quick(5, 1), "seed_offset": 0, "jobs": 1}
    p = _harness.make_parser("inbox", __doc__, quick, **common, name="inbox")
    settings = [{"sampling": "uniform"}, {"sampling": "trust_region"}, {"sampling": "local_gp"}]
    text = "Core options per setting, 'key=value,key=value'; the first is the baseline"
    p.option("--settings", settings, type=parse_options, nargs="+", help=text)
    _harness.bbob_options(p, Quick("2,5,10", "2"))
    a = p.parse(argv)
    dims, fids, cases = _harness.bbob_cases(a)
    names = [(_problems.bbob_name(f, d, nz), s) for f, d, nz, s in cases]
    jobs = [(opts, name, s, a.trials) for opts in a.settings for name, s in names]
    res = np.array(_harness.pmap(_harness.core_regret, jobs, a.jobs))
    res = res.reshape(len(a.settings), len(cases), a.trials)
    groups = [f"{d}d" + ("-noisy" if nz else "") for (_, d, nz, _) in cases]
    labels = [",".join(f"{k}={v}" for k, v in o.items()) or "core defaults" for o in a.settings]
    _harness.finish(
        a,
        "In-box samplers on the BBOB suite (paired)",
        f"BBOB functions {fids[0]}-{fids[-1]} ({len(fids)}), d in {dims}, noise {a.noise}, "
        f"seeds {a.seed_offset}-{a.seed_offset + a.seeds - 1} (BBOB instances "
        f"{'1-3, tuning' if a.seed_offset < 1000 else '4-15, report'}), {a.trials} trials, "
        "core ask/tell. A negative log-ratio is lower regret than the baseline on the same "
        f"runs (regrets floored at {_report.FLOOR:g}). ",
        report(labels, res, groups, _harness.checkpoints(a.trials)),
    )


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


def main_paired(argv: list[str] | None = None) -> None:
    """Paired check of a few (C, M) settings against a baseline on fresh tuning seeds.

    Score: each setting's mean paired log-ratio of the optimisation regret to the first
    setting's, with its standard error and win rate. benchmarks/README.md describes the method.

    Usage::

        python -m benchmarks paired --index soft_gp --settings 0.03,0.1 0.01,0.1 0.003,0.03
    """
    common = {"trials": Quick(200, 100), "seeds": Quick(10, 3), "jobs": 1, "name": None}
    p = _harness.make_parser("paired", main_paired.__doc__, None, **common)
    text = "The core's index option for every setting"
    p.option("--index", "hoeffding", choices=OPTIONS["index"].choices, help=text)
    pairs: list[Any] = [(0.03, 0.1, None, {}), (0.01, 0.1, None, {}), (0.003, 0.03, None, {})]
    text = "C,M pairs (or C,M,sampling, then key=value core options); the first is the baseline"
    p.option("--settings", pairs, type=_setting, nargs="+", help=text)
    a = p.parse(argv)
    instances = _problems.continuous()
    seeds = [SEED_OFFSET + s for s in range(a.seeds)]
    jobs = [
        ({"C": C, "M": M, "index": a.index, **({"sampling": smp} if smp else {}), **extra}, *job)
        for (C, M, smp, extra) in a.settings
        for job in ((pr, s, a.trials) for pr in instances for s in seeds)
    ]
    # the final regret of each run, (settings, instances x seeds)
    res = np.array(_harness.pmap(_harness.core_regret, jobs, a.jobs))[:, -1]
    res = res.reshape(len(a.settings), -1)
    rows = []
    noisy = np.array([pr.endswith("-noisy") for pr in instances for _ in seeds])
    for i, (C, M, smp, extra) in enumerate(a.settings):
        st = _report.paired(res[i], res[0])
        label = f"C={C:g} M={M:g}" + (f" sampling={smp}" if smp else "")
        label += "".join(f" {k}={v}" for k, v in extra.items()) + (" (baseline)" if i == 0 else "")
        by_noise = [str(_report.paired(res[i, sel], res[0, sel])) for sel in (~noisy, noisy)]
        rows.append([label, _report.geomean(res[i]), str(st), st.win, *by_noise])
    header = ["setting", "norm. regret (geo. mean)", "log-ratio to baseline ± s.e.", "win rate"]
    header += [f"log-ratio {noise}" for noise in ("noiseless", "noisy")]
    _harness.finish(
        a,
        f"Paired check of (C, M) and in-box samplers, index={a.index}",
        f"Optimisation suite of the ablation ({len(instances)} instances x {a.seeds} seeds "
        f"{SEED_OFFSET}+, {a.trials} trials); a negative log-ratio is lower regret than the "
        "baseline on the same instances. ",
        "\n" + _report.md_table(header, rows),
        a.name or "paired_" + a.index,
    )
