"""Figure: the tree estimate, the hard-kernel GP and the soft-kernel GPs on one partition.

TreeUCB's ``soft_gp`` index puts a Gaussian process on the rewards whose kernel is learned by
the tree: ``k(x, x') = sum_b phi_b(x) phi_b(x')`` over the leaf boxes b, where ``phi_b`` is the
indicator of box b (the hard kernel, ``alpha = inf``) or its sigmoid-softened version with
sharpness ``alpha`` (Wang et al., arXiv:1901.09277, Section 4).  This script fits one
partition with the paper's refit rule on noisy samples of a 1-D function and plots, in reward
units:

* the piecewise-constant tree estimate (the mean reward of each leaf);
* GP_H, the GP posterior mean under the hard box kernel;
* GP_S1 .. GP_S5, the posterior means under soft kernels with alpha = 10, 50, 100, 500, 1000;
* two heatmaps of ``k(x, x')``: the hard learned metric and a smoothed one.

Outputs ``figure_gp.png``, ``figure_gp.csv`` (the curves, one row per grid point) and
``figure_gp_kernel.csv`` (the two kernels on a coarse grid) in ``--out``.

Usage::

    python -m examples.figure_gp --out docs/figures
    python -m examples.figure_gp --smoke --out /tmp/figs
"""

from __future__ import annotations

import argparse
import csv
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from examples._figure import add_footer
from examples._figure import options_text
from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._index import GP_NOISE
from optuna_treeucb.core._index import SIGMA
from optuna_treeucb.core._index import gp_posterior
from optuna_treeucb.core._index import soft_box_features

#: Sharpness of GP_S1 .. GP_S5.
ALPHAS = (10.0, 50.0, 100.0, 500.0, 1000.0)
#: Sharpness of the smoothed kernel heatmap.
HEATMAP_ALPHA = 50.0
NOISE_SD = 0.1


def reward_function(x: np.ndarray) -> np.ndarray:
    """The 1-D test function, ``0.5 sin(13 x) sin(27 x) + 0.5`` on [0, 1] (values in [0, 1])."""
    out: np.ndarray = 0.5 * np.sin(13.0 * x) * np.sin(27.0 * x) + 0.5
    return out


def compute(n_samples: int, seed: int, n_grid: int, n_kernel: int) -> dict[str, np.ndarray]:
    """Fit one refit partition and evaluate every curve and kernel.

    Args:
        n_samples: Number of noisy uniform samples.
        seed: Seed of the samples.
        n_grid: Points of the curve grid.
        n_kernel: Points per axis of the kernel heatmaps.

    Returns:
        Arrays by name: ``x`` (grid), ``truth``, ``tree``, ``GP_H``, ``GP_S1`` .. ``GP_S5``,
        ``X``/``r`` (samples, rewards), ``low``/``high`` (boxes), ``kx``, ``k_hard``,
        ``k_soft``.
    """
    rng = np.random.default_rng(seed)
    X = rng.random((n_samples, 1))
    y = reward_function(X[:, 0]) + NOISE_SD * rng.normal(size=n_samples)
    bandit = TreeUCB([ParamSpec("x", "float", low=0.0, high=1.0)], seed=seed, rule="refit")
    bandit.tell_many(X, y)
    leaves = bandit.fit_leaves()
    low, high = leaves.low, leaves.high
    # min-max rewards, an affine map of the values, so the curves keep the function's shape
    # (the bandit ranks them; the figure shows the models on the function's own scale)
    r = (y - y.min()) / (y.max() - y.min())
    x = np.linspace(0.0, 1.0, n_grid)
    grid = x[:, None]
    out: dict[str, np.ndarray] = {"x": x, "X": X[:, 0], "r": r, "low": low, "high": high}
    # the true function on the reward scale of the observations
    out["truth"] = (reward_function(x) - y.min()) / (y.max() - y.min())
    box_mean = np.bincount(bandit.partition.leaf_of, weights=r, minlength=low.shape[0]) / (
        np.maximum(leaves.n_obs, 1)
    )
    out["tree"] = box_mean[bandit.partition.locate(grid)]

    def gp_mean(alpha: float) -> np.ndarray:
        Phi = soft_box_features(X, low, high, alpha, SIGMA)
        Phi_grid = soft_box_features(grid, low, high, alpha, SIGMA)
        mean, _ = gp_posterior(Phi, r, Phi_grid, GP_NOISE)
        return mean

    out["GP_H"] = gp_mean(math.inf)
    for i, alpha in enumerate(ALPHAS, start=1):
        out[f"GP_S{i}"] = gp_mean(alpha)
    kx = np.linspace(0.0, 1.0, n_kernel)[:, None]
    hard = soft_box_features(kx, low, high, math.inf)
    soft = soft_box_features(kx, low, high, HEATMAP_ALPHA, SIGMA)
    out["kx"] = kx[:, 0]
    out["k_hard"] = hard @ hard.T
    out["k_soft"] = soft @ soft.T
    return out


def total_variation(curve: np.ndarray) -> float:
    """Sum of absolute increments of a curve on a grid."""
    return float(np.abs(np.diff(curve)).sum())


def curve_names() -> list[str]:
    """Names of the plotted curves, in CSV column order."""
    return ["tree", "GP_H", *[f"GP_S{i}" for i in range(1, len(ALPHAS) + 1)]]


def write_csv(res: dict[str, np.ndarray], out: Path) -> tuple[Path, Path]:
    """Write the curves and the kernels; return both paths."""
    curves = out / "figure_gp.csv"
    with curves.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["x", "truth", *curve_names()])
        for i in range(res["x"].size):
            w.writerow([f"{res[k][i]:.6g}" for k in ("x", "truth", *curve_names())])
    kernel = out / "figure_gp_kernel.csv"
    with kernel.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["x", "x_prime", "k_hard", f"k_soft_alpha_{HEATMAP_ALPHA:g}"])
        kx = res["kx"]
        for i in range(kx.size):
            for j in range(kx.size):
                w.writerow(
                    [
                        f"{kx[i]:.6g}",
                        f"{kx[j]:.6g}",
                        f"{res['k_hard'][i, j]:.6g}",
                        f"{res['k_soft'][i, j]:.6g}",
                    ]
                )
    return curves, kernel


def draw(res: dict[str, np.ndarray], path: Path) -> None:
    """Draw the curves and the two kernel heatmaps into ``path``."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 8), layout="constrained")
    grid = fig.add_gridspec(2, 2, height_ratios=(1.1, 1))
    ax = fig.add_subplot(grid[0, :])
    x = res["x"]
    ax.scatter(res["X"], res["r"], s=8, c="lightgrey", label="samples (rewards)", zorder=1)
    ax.plot(x, res["truth"], c="grey", ls=":", lw=1.2, label="true function")
    ax.plot(x, res["tree"], c="black", lw=2.2, label="tree estimate (leaf means)", zorder=3)
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    for i, alpha in enumerate(ALPHAS, start=1):
        ax.plot(
            x,
            res[f"GP_S{i}"],
            c=cmap((i - 1) / (len(ALPHAS) - 1)),
            lw=1.2,
            label=f"GP_S{i} (alpha={alpha:g})",
        )
    ax.plot(x, res["GP_H"], c="tab:red", lw=1.2, ls="--", label="GP_H (hard, alpha=inf)", zorder=4)
    for edge in np.unique(np.concatenate((res["low"][:, 0], res["high"][:, 0])))[1:-1]:
        ax.axvline(edge, c="black", lw=0.4, alpha=0.3, zorder=0)
    ax.set_xlim(0, 1)
    ax.set_xlabel("x")
    ax.set_ylabel("reward (min-max scaled)")
    ax.set_title(
        f"One refit partition ({res['low'].shape[0]} leaves, {res['X'].size} noisy samples): "
        "tree estimate vs GP posterior means"
    )
    # below the axes: inside, any corner covers samples or curves
    ax.legend(fontsize="small", ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    kx = res["kx"]
    for col, (key, title) in enumerate(
        (
            ("k_hard", "hard learned metric: k(x, x') = 1[same leaf]"),
            ("k_soft", f"smoothed: soft tree kernel, alpha={HEATMAP_ALPHA:g}"),
        )
    ):
        hax = fig.add_subplot(grid[1, col])
        im = hax.imshow(
            res[key],
            origin="lower",
            extent=(kx[0], kx[-1], kx[0], kx[-1]),
            cmap="magma",
            vmin=0.0,
            vmax=max(1.0, float(res[key].max())),
        )
        hax.set_xlabel("x")
        hax.set_ylabel("x'")
        hax.set_title(title, fontsize="medium")
        fig.colorbar(im, ax=hax, shrink=0.9)
    add_footer(fig, options_text({"rule": "refit"}), "the tree of the told samples; no ask")
    fig.savefig(path, dpi=120)


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-trials", type=int, default=None, help="number of samples")
    parser.add_argument(
        "--smoke", "--quick", action="store_true", help="small run (CI): fewer samples and points"
    )
    args = parser.parse_args(argv)
    n = args.n_trials or (40 if args.smoke else 200)
    res = compute(n, args.seed, n_grid=1001, n_kernel=50 if args.smoke else 100)
    args.out.mkdir(parents=True, exist_ok=True)
    png = args.out / "figure_gp.png"
    draw(res, png)
    curves, kernel = write_csv(res, args.out)
    tv = ", ".join(f"{k}={total_variation(res[k]):.2f}" for k in curve_names())
    print(f"wrote {png}, {curves}, {kernel}; total variation: {tv}")


if __name__ == "__main__":
    main()
