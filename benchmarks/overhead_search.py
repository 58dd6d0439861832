"""Overhead of TreeUCBSearch: time of one suggest + on_trial_complete after n trials.

Drives the searcher directly (no Ray cluster) on a 4-parameter mixed space, one trial after
the other, and prints the median and mean time per trial over the last tenth of the trials
before trial 100 and trial 1,000 (the mean includes the periodic refits of the tree).

Run: ``python -m benchmarks.overhead_search [--n-trials 1000] [--rule refit] [--index soft_gp]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from ray import tune

from ray_treeucb import TreeUCBSearch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-trials", type=int, default=1000)
    parser.add_argument("--rule", default=None)
    parser.add_argument("--index", default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    space = {
        "x": tune.uniform(-2.0, 2.0),
        "n": tune.randint(0, 16),
        "lr": tune.loguniform(1e-5, 1.0),
        "act": tune.choice(["relu", "tanh", "sigmoid"]),
    }
    options = {k: v for k, v in (("rule", args.rule), ("index", args.index)) if v is not None}
    searcher = TreeUCBSearch(space, metric="loss", mode="min", seed=args.seed, **options)
    times = np.zeros(args.n_trials)
    for i in range(args.n_trials):
        start = time.perf_counter()
        config = searcher.suggest(str(i))
        assert config is not None
        loss = (config["x"] - 0.5) ** 2 + 0.1 * abs(config["n"] - 7)
        loss += (math.log10(config["lr"]) + 2.0) ** 2 + (config["act"] != "relu")
        searcher.on_trial_complete(str(i), {"loss": loss})
        times[i] = time.perf_counter() - start
    label = f"rule={args.rule or 'default'} index={args.index or 'default'}"
    for n in (100, 1000):
        if n <= args.n_trials:
            window = 1e3 * times[n - n // 10 : n]
            print(
                f"{label}: suggest + on_trial_complete at {n} trials: median "
                f"{np.median(window):.2f} ms, mean {window.mean():.2f} ms "
                f"(trials {n - n // 10 + 1}-{n})"
            )
    print(f"{label}: total {times.sum():.1f} s for {args.n_trials} trials")


if __name__ == "__main__":
    main()
