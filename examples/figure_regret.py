"""Figure: cumulative regret of TreeUCB, and the point-scattering sum against its bound.

Runs TreeUCB (``hoeffding`` and ``soft_gp`` indices, ``refit`` and ``incremental`` tree rules)
and uniform random search on a noisy 1-D and a noisy 2-D Lipschitz function, and plots:

* left: cumulative regret ``sum_t f* - f(x_t)`` against the round (mean over seeds, band of
  one standard error; no band with one seed, as in ``--smoke``);
* right: for the nested (``incremental``) partitions, the measured point-scattering sum
  ``S_T = sum_{t <= T} 1 / n_{t-1}(a_t)`` beside the bound of the paper's point-scattering
  inequality ``e |P_T| log(1 + (e - 1) T / |P_T|)`` (Wang et al., arXiv:1901.09277), where
  ``a_t`` is the box played at round t, ``n_{t-1}(a_t)`` the number of earlier points in it
  (an empty box counts as 1, the convention of the Hoeffding index) and ``|P_T|`` the number
  of boxes of the partition the T-th point was played in.  The inequality is stated for nested
  partitions; the sums of the ``refit`` rule, whose partitions are not nested, are drawn
  faintly for comparison only.

Outputs ``figure_regret.png`` and ``figure_regret.csv`` (one row per function, method, seed
and round) in ``--out``.

Usage::

    python -m examples.figure_regret --out docs/figures
    python -m examples.figure_regret --smoke --out /tmp/figs
"""

from __future__ import annotations

import argparse
import csv
import math
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from examples._figure import add_footer
from examples._figure import options_text
from optuna_treeucb.core import TreeUCB

NOISE_SD = 0.1


def f_1d(X: np.ndarray) -> np.ndarray:
    """``0.5 sin(13 x) sin(27 x) + 0.5`` on [0, 1] (Lipschitz, many local maxima)."""
    x = X[..., 0]
    out: np.ndarray = 0.5 * np.sin(13.0 * x) * np.sin(27.0 * x) + 0.5
    return out


def f_2d(X: np.ndarray) -> np.ndarray:
    """Two cones on [0, 1]^2, ``max(1 - 2|x - a|, 0.8 - 2|x - b|)`` (Lipschitz constant 2).

    The maximum 1 is at ``a = (0.7, 0.3)``; ``b = (0.2, 0.75)`` is a decoy of height 0.8.
    """
    a = np.array([0.7, 0.3])
    b = np.array([0.2, 0.75])
    out: np.ndarray = np.maximum(
        1.0 - 2.0 * np.linalg.norm(X - a, axis=-1), 0.8 - 2.0 * np.linalg.norm(X - b, axis=-1)
    )
    return out


@dataclass(frozen=True)
class Problem:
    name: str
    dim: int
    f: Callable[[np.ndarray], np.ndarray]
    f_star: float


PROBLEMS = (
    # the maximum of f_1d on a grid of 10^6 + 1 points (the grid error is below 3e-5)
    Problem("1-D", 1, f_1d, float(f_1d(np.linspace(0.0, 1.0, 1_000_001)[:, None]).max())),
    Problem("2-D", 2, f_2d, 1.0),
)

#: label -> TreeUCB options (``None``: uniform random search); every TreeUCB draws uniformly
#: inside the played box, as the paper's Algorithm 1 does
_PAPER = {"sampling": "uniform"}
METHODS: dict[str, dict[str, Any] | None] = {
    "TreeUCB hoeffding, refit": {"index": "hoeffding", "rule": "refit", **_PAPER},
    "TreeUCB hoeffding, incremental": {"index": "hoeffding", "rule": "incremental", **_PAPER},
    "TreeUCB soft_gp, refit": {"index": "soft_gp", "rule": "refit", **_PAPER},
    "TreeUCB soft_gp, incremental": {"index": "soft_gp", "rule": "incremental", **_PAPER},
    "uniform random": None,
}
COLORS = {
    "TreeUCB hoeffding, refit": "tab:blue",
    "TreeUCB hoeffding, incremental": "tab:cyan",
    "TreeUCB soft_gp, refit": "tab:red",
    "TreeUCB soft_gp, incremental": "tab:orange",
    "uniform random": "grey",
}


def scattering_bound(T: np.ndarray, n_boxes: np.ndarray) -> np.ndarray:
    """Point-scattering bound ``e |P_T| log(1 + (e - 1) T / |P_T|)``."""
    e = math.e
    out: np.ndarray = e * n_boxes * np.log1p((e - 1.0) * T / n_boxes)
    return out


def run(
    problem: Problem, options: dict[str, Any] | None, n_rounds: int, seed: int
) -> dict[str, np.ndarray]:
    """One run.

    Returns:
        ``regret`` (instantaneous, shape (T,)) and, for TreeUCB, ``n_prev`` (earlier points in
        the box played) and ``n_boxes`` (boxes of the partition played in), shape (T,).
    """
    noise = np.random.default_rng([seed, 1])
    regret = np.empty(n_rounds)
    if options is None:
        X = np.random.default_rng([seed, 2]).random((n_rounds, problem.dim))
        return {"regret": problem.f_star - problem.f(X)}
    bandit = TreeUCB(problem.dim, seed=seed, **options)
    n_prev = np.empty(n_rounds)
    n_boxes = np.empty(n_rounds)
    for t in range(n_rounds):
        leaves = bandit.fit_leaves()  # the partition the next point is played in
        x = bandit.ask_x()
        box = int(bandit.partition.locate(x[None])[0])
        n_prev[t] = leaves.n_obs[box]
        n_boxes[t] = leaves.low.shape[0]
        fx = float(problem.f(x))
        regret[t] = problem.f_star - fx
        bandit.tell_x(x, fx + NOISE_SD * float(noise.normal()))
    return {"regret": regret, "n_prev": n_prev, "n_boxes": n_boxes}


def compute(n_rounds: int, n_seeds: int) -> list[dict[str, Any]]:
    """All runs, as CSV rows (one per problem, method, seed and round)."""
    rows: list[dict[str, Any]] = []
    for problem in PROBLEMS:
        for method, options in METHODS.items():
            for seed in range(n_seeds):
                res = run(problem, options, n_rounds, seed)
                t = np.arange(1, n_rounds + 1)
                cum = np.cumsum(res["regret"])
                if "n_prev" in res:
                    s = np.cumsum(1.0 / np.maximum(res["n_prev"], 1.0))
                    bound = scattering_bound(t, res["n_boxes"])
                for i in range(n_rounds):
                    row: dict[str, Any] = {
                        "function": problem.name,
                        "method": method,
                        "seed": seed,
                        "t": int(t[i]),
                        "regret": res["regret"][i],
                        "cum_regret": cum[i],
                    }
                    if "n_prev" in res:
                        row.update(
                            n_prev=int(res["n_prev"][i]),
                            n_boxes=int(res["n_boxes"][i]),
                            scatter_sum=s[i],
                            bound=bound[i],
                        )
                    rows.append(row)
    return rows


COLUMNS = (
    "function",
    "method",
    "seed",
    "t",
    "regret",
    "cum_regret",
    "n_prev",
    "n_boxes",
    "scatter_sum",
    "bound",
)


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})


def _series(rows: list[dict[str, Any]], function: str, method: str, key: str) -> np.ndarray:
    """Array (n_seeds, T) of one column."""
    by_seed: dict[int, list[float]] = {}
    for r in rows:
        if r["function"] == function and r["method"] == method:
            by_seed.setdefault(r["seed"], []).append(float(r[key]))
    return np.array([by_seed[s] for s in sorted(by_seed)])


def draw(rows: list[dict[str, Any]], path: Path) -> None:
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    fig = Figure(figsize=(12, 8.5), layout="constrained")
    axes = fig.subplots(len(PROBLEMS), 2)
    for i, problem in enumerate(PROBLEMS):
        ax_r, ax_s = axes[i]
        for method, options in METHODS.items():
            cum = _series(rows, problem.name, method, "cum_regret")
            t = np.arange(1, cum.shape[1] + 1)
            mean = cum.mean(axis=0)
            # soft_gp dash-dotted, so that a curve on top of another leaves it visible
            style = "-." if options is not None and options.get("index") == "soft_gp" else "-"
            ax_r.plot(t, mean, c=COLORS[method], ls=style, label=method)
            if cum.shape[0] > 1:  # one seed has no standard error: no band
                se = cum.std(axis=0, ddof=1) / math.sqrt(cum.shape[0])
                ax_r.fill_between(t, mean - se, mean + se, color=COLORS[method], alpha=0.2, lw=0)
            if options is None:
                continue
            s = _series(rows, problem.name, method, "scatter_sum").mean(axis=0)
            bound = _series(rows, problem.name, method, "bound").mean(axis=0)
            if options["rule"] == "incremental":
                ax_s.plot(t, s, c=COLORS[method], label=f"{method}: measured sum")
                ax_s.plot(t, bound, c=COLORS[method], ls="--", label=f"{method}: bound")
            else:
                ax_s.plot(
                    t,
                    s,
                    c=COLORS[method],
                    lw=1.0,
                    alpha=0.7,
                    ls=":",
                    label=f"{method}: measured sum (no bound: not nested)",
                )
        n_seeds = len({r["seed"] for r in rows})
        ax_r.set_title(f"{problem.name} noisy Lipschitz function: cumulative regret")
        ax_r.set_xlabel("round t")
        ax_r.set_ylabel(
            f"cumulative regret (mean of {n_seeds} seeds, band ±1 s.e.)"
            if n_seeds > 1
            else "cumulative regret (1 seed)"
        )
        ax_r.set_yscale("log")  # random search's line would flatten TreeUCB's on a linear axis
        ax_r.legend(fontsize="x-small")
        ax_s.set_title(
            f"{problem.name}: sum 1/n_(t-1)(a_t) vs e|P_T| log(1+(e-1)T/|P_T|)",
            fontsize="medium",
        )
        ax_s.set_xlabel("round T")
        ax_s.set_ylabel(
            f"point-scattering sum (mean of {n_seeds} seeds)"
            if n_seeds > 1
            else "point-scattering sum (1 seed)"
        )
        # colours are the methods of the left panel; the legend names the three line styles
        # only, so that it stays small enough to leave the curves uncovered
        styles = [
            Line2D([], [], c="black", ls="-", label="incremental: measured sum"),
            Line2D([], [], c="black", ls="--", label="incremental: bound"),
            Line2D([], [], c="black", ls=":", label="refit: measured sum (not nested: no bound)"),
        ]
        ax_s.legend(
            handles=styles,
            title="colour: the method, as on the left",
            title_fontsize="x-small",
            fontsize="x-small",
            loc="upper left",
        )
    add_footer(fig, f"{options_text(_PAPER)} with the index and rule of each label, else defaults")
    fig.savefig(path, dpi=120)


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="directory")
    parser.add_argument("--n-trials", type=int, default=None, help="rounds per run")
    parser.add_argument("--n-seeds", type=int, default=None, help="runs per method")
    parser.add_argument("--smoke", "--quick", action="store_true", help="small run (CI)")
    args = parser.parse_args(argv)
    n_rounds = args.n_trials or (60 if args.smoke else 1000)
    n_seeds = args.n_seeds or (1 if args.smoke else 3)
    rows = compute(n_rounds, n_seeds)
    args.out.mkdir(parents=True, exist_ok=True)
    png, table = args.out / "figure_regret.png", args.out / "figure_regret.csv"
    draw(rows, png)
    write_csv(rows, table)
    final = [
        f"{r['function']} {r['method']}: {r['cum_regret']:.1f}"
        for r in rows
        if r["t"] == n_rounds and r["seed"] == 0
    ]
    print(f"wrote {png}, {table}; cumulative regret at T={n_rounds} (seed 0):")
    print("\n".join(final))


if __name__ == "__main__":
    main()
