"""The report of the benchmark commands: ranks, paired log-ratios, Markdown tables, plots.

Regrets are compared on a log scale, floored at :data:`FLOOR` (1e-6 of the normalised regret)
unless a caller passes its metric's resolution as ``floor``; a paired log-ratio is
``log(max(a, floor)) - log(max(b, floor))`` per run (benchmarks/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata

FLOOR = 1e-6


def log_regret(values: np.ndarray | Sequence[float], floor: float = FLOOR) -> np.ndarray:
    """``log(max(values, floor))``, elementwise."""
    return np.log(np.maximum(np.asarray(values, dtype=float), floor))


def geomean(values: Iterable[float], floor: float = FLOOR) -> float:
    """Geometric mean of non-negative values, each floored at ``floor``."""
    return float(np.exp(log_regret(np.fromiter(values, dtype=float), floor).mean()))


def geomean_curve(curves: np.ndarray | Sequence[np.ndarray], floor: float = FLOOR) -> np.ndarray:
    """Geometric mean over runs of regret curves: shape (n_runs, n_trials) -> (n_trials,)."""
    return np.exp(log_regret(np.asarray(curves, dtype=float), floor).mean(axis=0))


@dataclass(frozen=True)
class Paired:
    """A paired log-ratio over ``n`` runs: mean, standard error, win rate."""

    mean: float
    se: float
    win: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:+.3f} ± {self.se:.3f}"

    @property
    def ratio(self) -> float:
        """The geometric mean of the per-run ratios, ``exp(mean)``."""
        return float(np.exp(self.mean))


def paired(
    values: np.ndarray | Sequence[float],
    baseline: np.ndarray | Sequence[float],
    floor: float = FLOOR,
) -> Paired:
    """The paired log-ratio of ``values`` to ``baseline`` (regrets of the same runs)."""
    diff = log_regret(values, floor) - log_regret(baseline, floor)
    if diff.size == 0:
        return Paired(float("nan"), float("nan"), float("nan"), 0)
    se = float(diff.std(ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else float("nan")
    win = float(np.mean(diff < 0) + 0.5 * np.mean(diff == 0))
    return Paired(float(diff.mean()), se, win, int(diff.size))


def mean_ranks(values: np.ndarray) -> np.ndarray:
    """Mean rank (in [1, n_methods]) of each method over runs, ``values`` of shape
    (n_methods, n_runs), lower is better; ties share their mean rank, a NaN ranks last."""
    filled = np.nan_to_num(np.asarray(values, dtype=float), nan=np.inf)
    return rankdata(filled, axis=0).mean(axis=1)  # type: ignore[no-any-return]


def cell_ranks(score_of: dict[tuple[Any, ...], float], samplers: list[str]) -> np.ndarray:
    """Mean rank per sampler over the cells (keys ``(sampler, *cell)``) that every sampler has;
    NaN where none has all."""
    cells = sorted({k[1:] for k in score_of})
    done = [c for c in cells if all((s, *c) in score_of for s in samplers)]
    values = np.array([[score_of[(s, *c)] for c in done] for s in samplers])
    return mean_ranks(values) if done else np.full(len(samplers), np.nan)


def paired_cells(
    score_of: dict[tuple[Any, ...], float], sampler: str, baseline: str
) -> tuple[Paired, int]:
    """:func:`paired` of ``sampler``'s scores to ``baseline``'s over the cells both have with
    finite scores, and the number of cells both have."""
    cells = [k[1:] for k in score_of if k[0] == sampler and (baseline, *k[1:]) in score_of]
    mine = np.array([score_of[(sampler, *c)] for c in cells])
    base = np.array([score_of[(baseline, *c)] for c in cells])
    ok = np.isfinite(mine) & np.isfinite(base)
    return paired(mine[ok], base[ok]), len(cells)


def fmt(v: float, digits: int = 3) -> str:
    """A compact number: fixed for moderate magnitudes, scientific otherwise."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    a = abs(v)
    if a != 0 and (a < 10 ** -(digits - 1) or a >= 10**5):
        return f"{v:.{digits - 1}e}"
    return f"{v:.{digits}g}" if a >= 1 else f"{v:.{digits}f}"


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub Markdown table; a cell that is not a string is a number (:func:`fmt`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [c if isinstance(c, str) else fmt(float(c)) for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


Curve = tuple[Sequence[float] | np.ndarray, Sequence[float] | np.ndarray]


def plot_panels(
    panels: dict[str, dict[str, Curve]],
    path: Path | str,
    *,
    xlabel: str,
    ylabel: str,
    xlog: bool = False,
    marker: str = "",
    sharey: bool = False,
) -> None:
    """One panel per key of ``panels``, one curve ``(x, y)`` per label, log-scale y.

    A label keeps its colour in every panel, so one legend below the panels names them all;
    TreeUCB's curves are solid, the others dashed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(label for curves in panels.values() for label in curves))
    cmap = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20")
    # two panels a row at 900 px, so the README's width shows 10 pt text at about its size
    cols = min(2, len(panels))
    rows = -(-len(panels) // cols)
    columns = min(3, len(labels))
    legend_rows = -(-len(labels) // columns)
    size = (9, 3.4 * rows + 0.3 * legend_rows + 0.4)
    options: dict[str, Any] = {"squeeze": False, "sharey": sharey, "layout": "constrained"}
    fig, grid = plt.subplots(rows, cols, figsize=size, **options)
    axes = list(grid.flat)
    for ax in axes[len(panels) :]:
        ax.remove()
    axes = axes[: len(panels)]
    for ax, (title, curves) in zip(axes, panels.items(), strict=True):
        for label, (x, y) in curves.items():
            style = marker + ("-" if label.lower().startswith("treeucb") else "--")
            color = cmap(labels.index(label) % cmap.N)
            ax.plot(x, y, style, color=color, label=label, lw=1.4)
        ax.set_yscale("log")
        if xlog:
            ax.set_xscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3, which="both")
    for ax in grid[:, 0]:
        ax.set_ylabel(ylabel)
    handles = {h.get_label(): h for ax in axes for h in ax.get_lines()}
    lines = [handles[label] for label in labels]
    fig.legend(lines, labels, loc="outside lower center", ncol=columns, fontsize=10)
    fig.savefig(path, dpi=100)
    plt.close(fig)


# -- the regret of Optuna runs: normalised, ranked, paired, plotted --------------------
def best_observed(obs: np.ndarray, true: np.ndarray, take_first: bool) -> np.ndarray:
    """Noiseless value of the best observed trial so far, shape (n_trials,): a trial is taken
    when its observed value is below that of the one taken before.  ``take_first``: the first
    trial is taken whatever its value (a NaN there is never beaten); else a NaN is never taken,
    and the value is ``inf`` until a trial is."""
    out = np.empty(len(obs))
    best_obs, best_true = (obs[0], true[0]) if take_first and len(obs) else (np.inf, np.inf)
    for i, (o, t) in enumerate(zip(obs, true, strict=True)):
        if o < best_obs:
            best_obs, best_true = o, t
        out[i] = best_true
    return out


def scaled_regret(obs: np.ndarray, true: np.ndarray, scale: float, take_first: bool) -> np.ndarray:
    """The noiseless value of :func:`best_observed`, floored at 0, over ``scale``."""
    return np.maximum(best_observed(obs, true, take_first), 0.0) / scale


def normalised_regret(results: list[dict[str, Any]]) -> None:
    """Add ``"regret"`` (shape (n_trials,)) to every result, in place.  Without a known scale
    it is relative to the best value of any run of the problem, of the same seed if the seed
    draws the instance (``"seeded"``: COCO's mixint, whose instances' optima differ: measured
    against the best of all seeds, most runs carried an offset that pulled log-ratios to 0)."""
    by_problem: dict[Any, list[dict[str, Any]]] = {}
    for r in results:
        key = (r["problem"], r["seed"]) if r.get("seeded", False) else r["problem"]
        by_problem.setdefault(key, []).append(r)
    for rs in by_problem.values():
        if np.isfinite(rs[0]["scale"]):
            for r in rs:
                r["regret"] = scaled_regret(r["obs"], r["true"], r["scale"], True)
            continue
        best = min(float(np.min(r["true"])) for r in rs)
        rand = [r["true"] for r in rs if r["sampler"] == "Random"]
        pool = np.concatenate(rand) if rand else np.concatenate([r["true"] for r in rs])
        spread = max(float(np.median(pool)) - best, 1e-12)
        for r in rs:
            r["regret"] = (best_observed(r["obs"], r["true"], True) - best) / spread


def regret_matrix(
    results: list[dict[str, Any]], samplers: list[str], n: int
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Regrets after ``n`` trials, shape (n_samplers, n_runs) (a run is a (problem, seed);
    needs :func:`normalised_regret` first), and which runs each group holds, then "overall"."""
    keyed = {(r["sampler"], r["problem"], r["seed"]): r for r in results}
    cells = sorted({(r["problem"], r["seed"], r["group"]) for r in results})
    values = np.array(
        [[keyed[(s, p, seed)]["regret"][n - 1] for p, seed, _ in cells] for s in samplers]
    )
    groups = [g for _, _, g in cells]
    cols = [*sorted(set(groups)), "overall"]
    return values, {g: np.array([g in (h, "overall") for h in groups]) for g in cols}


def rank_tables(
    results: list[dict[str, Any]],
    samplers: list[str],
    checkpoints: list[int],
    reference: str = "TPE",
) -> tuple[str, dict[int, Any]]:
    """Markdown tables (rank, regret, win rate vs ``reference``) and a dict of headline
    numbers."""
    normalised_regret(results)
    text = ""
    headline: dict[int, Any] = {}
    for n in checkpoints:
        values, sel = regret_matrix(results, samplers, n)
        cols = list(sel)
        ranks = {g: mean_ranks(values[:, sel[g]]) for g in cols}
        rows = []
        order = np.argsort(ranks["overall"], kind="stable")
        for i in order:
            win = "-"
            if reference in samplers:
                win = fmt(paired(values[i], values[samplers.index(reference)]).win, 2)
            row = [samplers[i], *[float(ranks[g][i]) for g in cols]]
            rows.append([*row, *[geomean(values[i, sel[g]]) for g in cols], win])
        header = ["sampler", *[f"{what} {g}" for what in ("rank", "regret") for g in cols]]
        header.append(f"win rate vs {reference}")
        text += f"\n### After {n} trials\n\n" + md_table(header, rows)
        headline[n] = {
            "best_overall": samplers[order[0]],
            "rank": dict(zip(samplers, ranks["overall"].tolist(), strict=True)),
        }
    return text, headline


def medians(
    results: list[dict[str, Any]],
    samplers: list[str],
    value: Callable[[dict[str, Any]], float],
    digits: int = 3,
    missing: str = "none",
) -> list[list[str]]:
    """Per problem, the median over seeds of ``value(run)`` per sampler (``missing`` where it
    is infinite or the sampler has no run)."""
    rows = []
    for p in dict.fromkeys(r["problem"] for r in results):
        cells = []
        for s in samplers:
            v = [value(r) for r in results if (r["sampler"], r["problem"]) == (s, p)]
            m = float(np.median(v)) if v else np.inf
            cells.append(fmt(m, digits) if np.isfinite(m) else missing)
        rows.append([p, *cells])
    return rows


def problem_table(results: list[dict[str, Any]], samplers: list[str], n: int) -> str:
    """Markdown table of each problem's median regret over seeds after ``n`` trials, a column
    per sampler (needs :func:`normalised_regret` first): where a sampler wins or stalls, which
    the ranks over every problem hide.  A run shorter than ``n`` trials counts as infinite."""

    def regret(r: dict[str, Any]) -> float:
        return float(r["regret"][n - 1]) if len(r["regret"]) >= n else math.inf

    rows = medians(results, samplers, regret, missing="-")
    return f"\n### Median regret over seeds after {n} trials\n\n" + md_table(
        ["problem", *samplers], rows
    )


def paired_tables(
    results: list[dict[str, Any]], samplers: list[str], checkpoints: list[int], baseline: str
) -> str:
    """Markdown tables of the paired log-ratio of each sampler's regret to ``baseline``'s,
    per group and overall (:func:`paired`; needs :func:`normalised_regret`
    first).  Negative is better than the baseline."""
    text = ""
    for n in checkpoints:
        values, groups = regret_matrix(results, samplers, n)
        base = values[samplers.index(baseline)]
        rows = []
        for i, s in enumerate(samplers):
            if s == baseline:
                continue
            for g, sel in groups.items():
                st = paired(values[i, sel], base[sel])
                rows.append([s, g, str(st.n), str(st), fmt(st.win, 2)])
        header = ["sampler", "group", "runs", f"log-ratio to {baseline} ± s.e.", "win"]
        text += f"\n### Paired to {baseline}, after {n} trials\n\n" + md_table(header, rows)
    return text


def plot_regret(results: list[dict[str, Any]], samplers: list[str], path: str | Path) -> None:
    """Best-so-far normalised regret (geometric mean over problems and seeds) per group."""
    panels: dict[str, dict[str, Curve]] = {}
    for g in sorted({r["group"] for r in results}):
        panels[g] = {}
        for s in samplers:
            curves = [r["regret"] for r in results if r["sampler"] == s and r["group"] == g]
            if curves:
                gm = geomean_curve(curves)
                panels[g][s] = (np.arange(1, gm.size + 1), gm)
    plot_panels(panels, path, xlabel="trials", ylabel="normalised regret (geo. mean)")
