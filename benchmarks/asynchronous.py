"""Parallel quality: W trials running at once through a real study's ask/tell.

Score: normalised regret at equal finished trials per sampler and W, ranks per W, the ratio
W / W=1, and TreeUCB's paired log-ratio to TPE with the constant liar. benchmarks/README.md
describes the method.

Usage::

    python -m benchmarks async --quick
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import optuna

from benchmarks import _harness
from benchmarks import _problems
from benchmarks import _report
from benchmarks import _samplers
from benchmarks._harness import Quick

LIAR = "TPE[constant_liar=True]"
SAMPLERS = ("TreeUCB", LIAR, "TPE[constant_liar=False]", "Random")


def run_one(job: tuple[str, int, int, bool, int, int, int]) -> dict[str, Any]:
    """One asynchronous study: per finished trial (in finishing order) the normalised
    ``regret``, the most trials it held ``RUNNING`` at once and its ``wall`` time (s)."""
    _harness.quiet()
    sampler_name, fid, dim, noisy, seed, W, n_trials = job
    name = _problems.bbob_name(fid, dim, noisy)
    fn = _problems.function(name, seed)
    order = np.random.default_rng([seed, fid, dim, int(noisy), W, 17])
    study = optuna.create_study(sampler=_samplers.make_sampler(sampler_name, seed))
    running: list[tuple[Any, np.ndarray]] = []
    seen: list[tuple[float, float]] = []  # (observed, noiseless) per finished trial
    started = max_running = 0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while len(seen) < n_trials:
            while len(running) < W and started < n_trials:
                trial = study.ask()
                x = np.array([trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(dim)])
                running.append((trial, x))
                started += 1
            n_run = len(
                study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))
            )
            max_running = max(max_running, n_run)
            trial, x = running.pop(int(order.integers(len(running))))
            seen.append(fn.observe(x))
            study.tell(trial, seen[-1][0])
    obs, true = np.array(seen).T
    regret = _report.scaled_regret(obs, true, fn.median_random, take_first=False)
    out = {"sampler": sampler_name, "problem": name, "noisy": noisy, "seed": seed, "W": W}
    return {**out, "regret": regret, "max_running": max_running, "wall": time.perf_counter() - t0}


def report(
    results: list[dict[str, Any]], samplers: list[str], workers: list[int], checkpoints: list[int]
) -> str:
    """The Markdown tables of the report (see the module docstring)."""
    keyed = {(r["sampler"], r["problem"], r["seed"], r["W"]): r for r in results}
    cells = sorted({(r["problem"], r["seed"]) for r in results})
    text = ""

    def regrets(W: int, n: int) -> np.ndarray:  # (samplers, cells) after n finished trials
        return np.array([[keyed[(s, *c, W)]["regret"][n - 1] for c in cells] for s in samplers])

    for n in checkpoints:
        R = {W: regrets(W, n) for W in workers}
        ranks = {W: _report.mean_ranks(R[W]) for W in workers}
        rows = []
        for i, s in enumerate(samplers):
            ratios = [_report.paired(R[W][i], R[workers[0]][i]) for W in workers[1:]]
            row = [s, *[_report.geomean(R[W][i]) for W in workers]]
            row += [float(ranks[W][i]) for W in workers]
            rows.append(row + [f"{_report.fmt(st.ratio)} ({st})" for st in ratios])
        header = ["sampler", *[f"{what} W={W}" for what in ("regret", "rank") for W in workers]]
        header += [f"ratio W={W}/W={workers[0]} (log ± s.e.)" for W in workers[1:]]
        text += f"\n### After {n} finished trials\n\n" + _report.md_table(header, rows)
        tree = [s for s in samplers if s.startswith("TreeUCB")]
        if LIAR in samplers and tree:
            prow = []
            for s in tree:
                for W in workers:
                    st = _report.paired(R[W][samplers.index(s)], R[W][samplers.index(LIAR)])
                    prow.append([s, str(W), str(st.n), str(st), st.win])
            text += (
                f"\n{', '.join(tree)} against {LIAR} after {n} finished trials (paired "
                "log-ratio of the regret; negative is better than TPE):\n\n"
                + _report.md_table(["sampler", "W", "runs", "log-ratio ± s.e.", "win rate"], prow)
            )
    return text


def plot(
    results: list[dict[str, Any]], samplers: list[str], workers: list[int], path: str
) -> None:
    """Regret (geometric mean over problems and seeds) vs finished trials, one panel per W."""
    panels: dict[str, dict[str, _report.Curve]] = {}
    for W in workers:
        panels[f"W = {W} running"] = {}
        for s in samplers:
            gm = _report.geomean_curve(
                [r["regret"] for r in results if r["sampler"] == s and r["W"] == W]
            )
            panels[f"W = {W} running"][s] = (np.arange(1, gm.size + 1), gm)
    ylabel = "normalised regret (geo. mean)"
    _report.plot_panels(panels, path, xlabel="finished trials", ylabel=ylabel, sharey=True)


def _samplers_of(results: list[dict[str, Any]], command: str) -> str:
    return ", ".join(sorted({r["sampler"] for r in results if r["command"] == command}))


def main(argv: list[str] | None = None) -> None:
    """Run the asynchronous comparison and write <name>.md and <name>.png into ``--out``."""
    quick, given = "the BBOB functions 1, 8, 15, 21 only", ",".join(SAMPLERS)
    p = _harness.study_parser(
        "async", __doc__, quick, Quick(200, 100), Quick(3, 1), "async", given, paired=False
    )
    p.option("--workers", "1,8,32", help="Comma-separated W; the first is the base.")
    _harness.bbob_options(p, "5")
    a = p.parse(argv, stamp=False)
    samplers = _samplers.split_names(a.samplers) or list(SAMPLERS)
    _samplers.require_packages(samplers, "async")
    _harness.stamp_core()
    workers = [int(v) for v in a.workers.split(",")]
    dims, fids, cases = _harness.bbob_cases(a)
    n_trials = a.trials
    seeds = list(_harness.seeds(a))
    jobs = [(smp, *case, W, n_trials) for smp in samplers for W in workers for case in cases]
    results = _harness.pmap(run_one, jobs, a.jobs)
    for r in results:
        r["command"] = a.command_line
    want = {(_problems.bbob_name(f, d, nz), s) for f, d, nz, s in cases}

    def keep(r: dict[str, Any]) -> bool:
        return (
            (r["problem"], r["seed"]) in want
            and r["W"] in workers
            and r["regret"].size >= n_trials
        )

    _harness.save_and_load(a, results, samplers, keep)
    loaded = sorted({r["command"] for r in results} - {a.command_line})
    checkpoints = _harness.checkpoints(n_trials)
    out = _harness.results_dir(a.out)
    plot(results, samplers, workers, str(out / f"{a.name}.png"))

    def per_w(cell: Any) -> str:  # a table of one figure per sampler and W
        rows = [
            [s, *(cell([r for r in results if (r["sampler"], r["W"]) == (s, W)]) for W in workers)]
            for s in samplers
        ]
        return _report.md_table(["sampler", *[f"W={W}" for W in workers]], rows)

    conc = per_w(lambda mine: str(min(r["max_running"] for r in mine)))
    walls = per_w(lambda mine: _report.fmt(float(np.mean([r["wall"] for r in mine]))))
    _harness.finish(
        a,
        f"Parallel quality: W trials running at once ({a.mode} mode)",
        f"BBOB functions {', '.join(str(f) for f in fids)} ({len(fids)}), d in {dims}, "
        f"noise {a.noise}, seeds {seeds[0]}-{seeds[-1]} (BBOB instances "
        f"{'1-3, tuning' if a.seed_offset < 1000 else '4-15, report'}), {n_trials} finished "
        f"trials, W in {workers} trials kept running through `study.ask()` / `study.tell()` "
        "of an in-memory study, finished in a seeded random order (the same for every "
        "sampler); samplers with default options (seed only). Regret: geometric mean of the "
        f"normalised regret (floored at {_report.FLOOR:g}). Rank: mean over (problem, seed) of "
        "the rank among samplers at that W (1 = best). Ratio: geometric mean over (problem, "
        "seed) of regret(W) / regret(W=1), with the mean log-ratio ± its standard error. ",
        report(results, samplers, workers, checkpoints)
        + "\nThe fewest trials seen `RUNNING` at once at the fullest moment of a run (every "
        "run reaches W):\n\n"
        + conc
        + "\nMean wall time of one study (s):\n\n"
        + walls
        + f"\n![regret vs finished trials]({a.name}.png)\n",
        source="".join(f"; rows of {{{_samplers_of(results, c)}}} from `{c}`" for c in loaded),
    )
