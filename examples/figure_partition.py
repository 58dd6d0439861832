"""Figure: the partition TreeUCB learned on a 2-D reward function.

Runs TreeUCB (the paper's refit rule and Hoeffding index) for a few hundred rounds on noisy
evaluations of a 2-D function, then draws, with
:func:`optuna_treeucb.visualization.plot_bandit_partition` (the code path of
``optuna_treeucb.visualization.plot_partition`` for Optuna studies):

* the noise-free reward function as a grey colour map;
* the leaf boxes of the learned partition, with the index of the boxes large enough to hold it;
* the points played;
* the box TreeUCB chooses next (red) and the point it asks there (star).

Outputs ``figure_partition.png`` and ``figure_partition.csv`` in ``--out``.  The CSV has one row
per box (``kind=box``: its bounds, observations, mean reward, index and whether it is chosen
next) and one per played point (``kind=point``: its coordinates in ``x_low``/``y_low`` and its
noisy value in ``value``).

Usage::

    python -m examples.figure_partition --out docs/figures
    python -m examples.figure_partition --smoke --out /tmp/figs
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from examples._figure import add_footer
from examples._figure import options_text
from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.visualization import PartitionSlice
from optuna_treeucb.visualization import get_partition_slice
from optuna_treeucb.visualization import plot_bandit_partition

NOISE_SD = 0.1
PARAMS = ("x1", "x2")
COLUMNS = (
    "kind",
    "x_low",
    "x_high",
    "y_low",
    "y_high",
    "n_obs",
    "mean_reward",
    "index",
    "chosen_next",
    "value",
)


def reward(params: Mapping[str, Any]) -> float:
    """A 2-D reward on [0, 1]^2: a sharp peak at (0.7, 0.3) and a broad one at (0.25, 0.7)."""
    x, y = float(params["x1"]), float(params["x2"])
    peak = np.exp(-((x - 0.7) ** 2 + (y - 0.3) ** 2) / 0.01)
    broad = 0.6 * np.exp(-((x - 0.25) ** 2 + (y - 0.7) ** 2) / 0.05)
    return float(peak + broad)


#: the paper's refit rule and Hoeffding index, drawing uniformly in the box (its Algorithm 1)
OPTIONS = {"rule": "refit", "index": "hoeffding", "sampling": "uniform"}


def run(n_rounds: int, seed: int) -> TreeUCB:
    """TreeUCB after ``n_rounds`` noisy rounds."""
    bandit = TreeUCB(
        [ParamSpec(name, "float", low=0.0, high=1.0) for name in PARAMS], seed=seed, **OPTIONS
    )
    noise = np.random.default_rng([seed, 1])
    for _ in range(n_rounds):
        params = bandit.ask()
        bandit.tell(params, reward(params) + NOISE_SD * float(noise.normal()))
    return bandit


def write_csv(info: PartitionSlice, path: Path) -> None:
    """Write the boxes and points of ``info``."""
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for k in range(info.low.shape[0]):
            w.writerow(
                {
                    "kind": "box",
                    "x_low": f"{info.low[k, 0]:.6g}",
                    "x_high": f"{info.high[k, 0]:.6g}",
                    "y_low": f"{info.low[k, 1]:.6g}",
                    "y_high": f"{info.high[k, 1]:.6g}",
                    "n_obs": int(info.n_obs[k]),
                    "mean_reward": f"{info.mean[k]:.6g}",
                    "index": f"{info.index[k]:.6g}",
                    "chosen_next": int(info.next_row == k),
                }
            )
        for i in range(info.X.shape[0]):
            w.writerow(
                {
                    "kind": "point",
                    "x_low": f"{info.X[i, 0]:.6g}",
                    "x_high": f"{info.X[i, 0]:.6g}",
                    "y_low": f"{info.X[i, 1]:.6g}",
                    "y_high": f"{info.X[i, 1]:.6g}",
                    "value": f"{info.values[i]:.6g}",
                }
            )


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/figures"), help="directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-trials", type=int, default=None, help="number of rounds")
    parser.add_argument("--smoke", "--quick", action="store_true", help="small run (CI)")
    args = parser.parse_args(argv)
    n_rounds = args.n_trials or (60 if args.smoke else 400)
    bandit = run(n_rounds, args.seed)

    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 7), layout="constrained")
    ax = fig.add_subplot()
    plot_bandit_partition(
        bandit, PARAMS, ax=ax, reward_fn=reward, resolution=60 if args.smoke else 200
    )
    ax.set_aspect("equal")
    add_footer(fig, options_text({**OPTIONS, "seed": args.seed}), f"{n_rounds} rounds")
    info = get_partition_slice(bandit, PARAMS)  # the numbers just drawn
    args.out.mkdir(parents=True, exist_ok=True)
    png, table = args.out / "figure_partition.png", args.out / "figure_partition.csv"
    fig.savefig(png, dpi=120)
    write_csv(info, table)
    print(
        f"wrote {png}, {table}: {info.low.shape[0]} boxes after {n_rounds} rounds, "
        f"best value {bandit.values.max():.3f}"
    )


if __name__ == "__main__":
    main()
