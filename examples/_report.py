"""What the example studies produce: the records of trials and runs, ``trials.csv`` and
``trials.json``, the plot of the best accuracy so far, the comparison table and its one-line
interpretation.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class TrialRecord:
    """One finished trial, as written to ``trials.csv`` and ``trials.json``.

    ``state`` is ``"COMPLETE"`` or ``"PRUNED"`` (stopped by a pruner or scheduler; ``value`` is
    its last reported accuracy); ``epochs`` is the epochs it trained, ``None`` without pruning.
    """

    study: str
    backend: str
    sampler: str
    repeat: int
    seed: int
    trial: int
    value: float
    diverged: bool
    steps: int
    duration_s: float
    elapsed_s: float
    params: dict[str, Any] = field(default_factory=dict)
    state: str = "COMPLETE"
    epochs: int | None = None


@dataclass
class RunSummary:
    """One run: one sampler for one repeat.

    ``best`` is the best complete trial's accuracy; ``n_pruned`` and ``epochs`` (spent by all
    trials) are set with pruning only.  ``train_s`` is the trials' training time, summed; set
    for runs whose trials run one at a time (the Optuna backend), where ``wall_s - train_s``
    is the time spent outside training: the sampler's suggestions and Optuna's bookkeeping.
    """

    sampler: str
    repeat: int
    seed: int
    n_trials: int
    best: float
    wall_s: float
    n_pruned: int = 0
    epochs: int | None = None
    train_s: float | None = None


def summarise(
    sampler: str, repeat: int, seed: int, records: list[TrialRecord], wall: float
) -> RunSummary:
    best = max((r.value for r in records if r.state == "COMPLETE"), default=float("nan"))
    epochs = [r.epochs for r in records if r.epochs is not None]
    return RunSummary(
        sampler,
        repeat,
        seed,
        len(records),
        best,
        wall,
        n_pruned=sum(r.state == "PRUNED" for r in records),
        epochs=sum(epochs) if epochs else None,
    )


def write_results(
    records: list[TrialRecord], runs: list[RunSummary], out: Path, meta: dict[str, Any]
) -> dict[str, Path]:
    """Write ``trials.csv`` and ``trials.json`` into ``out``.

    Args:
        records:
            The finished trials.
        runs:
            The run summaries.
        out:
            Output folder (created).
        meta:
            Run options stored in the JSON file.

    Returns:
        The paths by kind, ``"csv"`` and ``"json"``.
    """
    out.mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys(k for r in records for k in r.params))
    csv_path, json_path = out / "trials.csv", out / "trials.json"
    with open(csv_path, "w", newline="") as f:
        writer = csv.writer(f)
        head = [k for k in asdict(records[0]) if k != "params"] if records else []
        writer.writerow(head + names)
        for r in records:
            row = asdict(r)
            writer.writerow([row[k] for k in head] + [r.params.get(n, "") for n in names])
    with open(json_path, "w") as f:
        json.dump(
            {
                "meta": meta,
                "runs": [asdict(r) for r in runs],
                "trials": [asdict(r) for r in records],
            },
            f,
            indent=1,
            default=str,
        )
    return {"csv": csv_path, "json": json_path}


def _best_so_far(records: list[TrialRecord]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Finish times, best complete value so far (NaN before the first) and epochs spent."""
    ordered = sorted(records, key=lambda r: r.elapsed_s)
    times = np.array([r.elapsed_s for r in ordered])
    values = np.array([r.value if r.state == "COMPLETE" else -np.inf for r in ordered])
    best = np.maximum.accumulate(values)
    best[np.isneginf(best)] = np.nan
    spent = np.cumsum([r.epochs or 0 for r in ordered])
    return times, best, spent


def _on_grid(x: np.ndarray, best: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The step function ``best`` (changing at ``x``) read on ``grid``; NaN before ``x[0]``."""
    i = np.searchsorted(x, grid, side="right") - 1
    return np.where(i >= 0, best[np.maximum(i, 0)], np.nan)


def _curves(
    records: list[TrialRecord], sampler: str, by_epochs: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One sampler's runs on common grids: against trials (or epochs) and against time.

    Returns:
        ``x`` (trials or epochs), ``y`` shape (n_runs, len(x)), ``t`` (seconds) and ``y_t``
        shape (n_runs, len(t)); NaN where a run has no complete trial yet or has ended.
    """
    runs = [
        _best_so_far([r for r in records if r.sampler == sampler and r.repeat == k])
        for k in sorted({r.repeat for r in records if r.sampler == sampler})
    ]
    runs = [run for run in runs if len(run[0])]
    if by_epochs:
        x = np.arange(1, max(spent[-1] for _, _, spent in runs) + 1)
        y = np.array([_on_grid(spent, best, x) for _, best, spent in runs])
    else:
        x = np.arange(1, max(len(best) for _, best, _ in runs) + 1)
        y = np.full((len(runs), x.size), np.nan)
        for i, (_, best, _) in enumerate(runs):
            y[i, : len(best)] = best
    # against time, from the moment every run has a trial
    t0 = max(times[0] for times, _, _ in runs)
    t1 = max(times[-1] for times, _, _ in runs)
    t = np.linspace(t0, t1, 200) if t1 > t0 else np.array([t0])
    y_t = np.array([_on_grid(times, best, t) for times, best, _ in runs])
    return x, y, t, y_t


def _zoom(ax: Any, shown: list[np.ndarray]) -> None:
    """Fit the y axis to the values drawn after the first quarter of each run's x axis, where
    the samplers differ; the steep first trials go below it (the label says so)."""
    late = np.concatenate([v[:, v.shape[1] // 4 :].ravel() for v in shown])
    late = late[np.isfinite(late)]
    if late.size == 0:
        return
    lo, hi = float(late.min()), float(late.max())
    pad = max(0.1 * (hi - lo), 0.002)
    ax.set_ylim(lo - pad, hi + pad)


def plot_best(records: list[TrialRecord], path: Path, title: str) -> Path:
    """Plot best validation accuracy against wall-clock time and against trials or epochs.

    One line per sampler, the mean over its repeats, in a band from the worst to the best
    repeat (with two repeats or more): against trials, over the repeats that ran that many
    trials; against time, from the moment every repeat has a complete trial. When the records
    carry epochs (a pruned study), the second panel is against epochs spent by all trials,
    pruned ones included, and the best counts complete trials only. The y axis is fitted to the
    last three quarters of the curves, where the samplers differ; the legend sits outside the
    panels.

    Args:
        records:
            The finished trials.
        path:
            PNG file to write.
        title:
            Figure title.

    Returns:
        ``path``.
    """
    import warnings

    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    by_epochs = bool(records) and all(r.epochs is not None for r in records)
    fig = Figure(figsize=(10, 4.6), layout="constrained")
    ax_time, ax_trials = fig.subplots(1, 2, sharey=True)
    shown = []
    banded = False
    for i, sampler in enumerate(dict.fromkeys(r.sampler for r in records)):
        x, y, t, y_t = _curves(records, sampler, by_epochs)
        n = y.shape[0]
        label = f"{sampler} ({n} run{'s' if n > 1 else ''})"
        banded |= n > 1
        color = f"C{i}"
        for ax, grid, values in ((ax_trials, x, y), (ax_time, t, y_t)):
            with warnings.catch_warnings():  # all-NaN columns: before a run's first trial
                warnings.simplefilter("ignore", RuntimeWarning)
                mean = np.nanmean(values, axis=0)
                lo, hi = np.nanmin(values, axis=0), np.nanmax(values, axis=0)
            # the best so far changes when a trial ends, not between trials
            ax.plot(grid, mean, drawstyle="steps-post", color=color, label=label)
            if n > 1:
                ax.fill_between(grid, lo, hi, step="post", color=color, alpha=0.2, lw=0)
            shown.append(np.vstack([lo, hi]))
    ax_time.set_xlabel("wall-clock time (s)")
    ylabel = "best validation accuracy" + (" (complete trials)" if by_epochs else "")
    ax_time.set_ylabel(ylabel + "\n(axis fitted to the last 3/4 of each curve)")
    ax_trials.set_xlabel("epochs spent (all trials)" if by_epochs else "trials")
    ax_trials.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in (ax_time, ax_trials):
        ax.grid(alpha=0.3)
    if shown:
        _zoom(ax_time, shown)
        ax_trials.legend(
            title="mean over runs; band: worst to best run" if banded else None,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.17),  # below the panel: it never covers a curve
            ncols=len(shown) // 2,
        )
    fig.suptitle(title)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    return path


def format_table(runs: list[RunSummary]) -> str:
    """Comparison table: per sampler, runs, mean trials, mean best accuracy, mean run time.

    With pruning, two more columns: mean pruned trials and mean epochs spent per run.

    Args:
        runs:
            The run summaries.

    Returns:
        The table as text.
    """
    pruning = any(r.epochs is not None for r in runs)
    head = f"{'sampler':<10}{'runs':>5}{'trials':>8}"
    if pruning:
        head += f"{'pruned':>8}{'epochs':>8}"
    head += f"{'best accuracy (mean ± sd)':>28}{'run s':>8}{'training s':>12}{'sampler s':>11}"
    lines = [head]
    for sampler in dict.fromkeys(r.sampler for r in runs):
        mine = [r for r in runs if r.sampler == sampler]
        best = np.array([r.best for r in mine])
        sd = float(np.std(best, ddof=1)) if len(best) > 1 else 0.0
        line = f"{sampler:<10}{len(mine):>5}{_count([r.n_trials for r in mine]):>8}"
        if pruning:
            line += f"{_count([r.n_pruned for r in mine]):>8}"
            line += f"{_count([r.epochs or 0 for r in mine]):>8}"
        wall = float(np.mean([r.wall_s for r in mine]))
        trains = [r.train_s for r in mine if r.train_s is not None]
        train = f"{np.mean(trains):.1f}" if len(trains) == len(mine) else "-"
        other = f"{wall - np.mean(trains):.1f}" if len(trains) == len(mine) else "-"
        lines.append(
            line + f"{f'{np.mean(best):.4f} ± {sd:.4f}':>28}{wall:>8.1f}{train:>12}{other:>11}"
        )
    return "\n".join(lines)


def _count(values: Sequence[int]) -> str:
    """The mean of counts: an int when they are all equal (``30``, not ``30.0``)."""
    return str(values[0]) if len(set(values)) == 1 else f"{np.mean(values):.1f}"


def interpret(runs: list[RunSummary]) -> str:
    """One line: which of the first two samplers is ahead on best accuracy, and whether the
    seeds they share can tell them apart (a paired t-test at 5%, two-sided)."""
    from scipy import stats

    names = list(dict.fromkeys(r.sampler for r in runs))
    if len(names) < 2:
        return "One sampler ran: nothing to compare."
    a, b = names[:2]
    best = {(r.sampler, r.seed): r.best for r in runs}
    seeds = [s for (name, s) in best if name == a and (b, s) in best]
    diff = np.array([best[(a, s)] - best[(b, s)] for s in seeds])
    diff = diff[np.isfinite(diff)]
    n = diff.size
    if n == 0:
        return f"{a} and {b} share no seed with a complete trial: nothing to compare."
    mean = float(diff.mean())
    ahead, behind = (a, b) if mean >= 0 else (b, a)
    wins = int(np.sum(diff > 0 if mean >= 0 else diff < 0))
    head = (
        f"{ahead} is ahead of {behind} by {abs(mean):.4f} best accuracy on average over "
        f"{n} paired seed{'s' if n > 1 else ''} ({wins} of {n} won)"
    )
    if mean == 0:
        return f"{a} and {b} tie on best accuracy over {n} paired seeds."
    if n < 3:
        return (
            head
            + f": {n} seed{'s' if n > 1 else ''} cannot tell them apart; run --repeats 5 or more."
        )
    se = float(diff.std(ddof=1) / np.sqrt(n))
    t = abs(mean) / se if se > 0 else math.inf
    need = float(stats.t.ppf(0.975, n - 1))
    verdict = "the seeds tell them apart" if t > need else "the seeds cannot tell them apart"
    return head + f"; paired t = {t:.2f} against {need:.2f} needed at 5%: {verdict}."
