"""Sampler overhead: time per trial of TreeUCBSampler vs TPESampler at n finished trials.

Each study is pre-filled with the same n random finished trials (5 parameters: 3 floats, an
int and a categorical), then both samplers sample ``--trials`` more trials of a cheap
objective in the same process.  The first trial of TreeUCBSampler builds its cache (it tells
the core all n trials); it is reported apart ("cold") and left out of the per-trial time.

Run: ``python -m benchmarks.overhead_sampler [--sizes 100 1000 5000] [--trials 5]``.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from optuna_treeucb import TreeUCBSampler

DISTRIBUTIONS = {
    "x0": FloatDistribution(-5.0, 5.0),
    "x1": FloatDistribution(-5.0, 5.0),
    "lr": FloatDistribution(1e-5, 1.0, log=True),
    "k": IntDistribution(1, 64, log=True),
    "c": CategoricalDistribution(["a", "b", "c"]),
}


def objective(trial: optuna.Trial) -> float:
    x0 = trial.suggest_float("x0", -5.0, 5.0)
    x1 = trial.suggest_float("x1", -5.0, 5.0)
    lr = trial.suggest_float("lr", 1e-5, 1.0, log=True)
    k = trial.suggest_int("k", 1, 64, log=True)
    c = trial.suggest_categorical("c", ["a", "b", "c"])
    return x0**2 + x1**2 + (math.log10(lr) + 3) ** 2 + abs(k - 8) + (c != "b")


def prefilled(n: int, sampler: optuna.samplers.BaseSampler) -> optuna.Study:
    rng = np.random.default_rng(0)
    study = optuna.create_study(sampler=sampler)
    trials = []
    for _ in range(n):
        params = {
            "x0": float(rng.uniform(-5, 5)),
            "x1": float(rng.uniform(-5, 5)),
            "lr": float(10 ** rng.uniform(-5, 0)),
            "k": int(rng.integers(1, 65)),
            "c": str(rng.choice(["a", "b", "c"])),
        }
        value = params["x0"] ** 2 + params["x1"] ** 2 + abs(params["k"] - 8)
        trials.append(optuna.create_trial(params=params, distributions=DISTRIBUTIONS, value=value))
    study.add_trials(trials)
    return study


def per_trial(
    n: int, make: Callable[[], optuna.samplers.BaseSampler], k: int
) -> tuple[float, float]:
    """(cold seconds of the first trial, median seconds of the next k trials)."""
    study = prefilled(n, make())
    t0 = time.perf_counter()
    study.optimize(objective, n_trials=1)
    cold = time.perf_counter() - t0
    times = []
    for _ in range(k):
        t0 = time.perf_counter()
        study.optimize(objective, n_trials=1)
        times.append(time.perf_counter() - t0)
    return cold, float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    samplers: dict[str, Callable[[], optuna.samplers.BaseSampler]] = {
        "tpe": lambda: optuna.samplers.TPESampler(seed=0),
        "treeucb": lambda: TreeUCBSampler(seed=0),
        "treeucb-incremental": lambda: TreeUCBSampler(seed=0, rule="incremental"),
    }
    print(f"{'n':>6} {'sampler':>28} {'cold s':>9} {'s/trial':>9} {'/ TPE':>7}")
    for n in args.sizes:
        tpe = None
        for name, make in samplers.items():
            cold, warm = per_trial(n, make, args.trials)
            tpe = warm if tpe is None else tpe
            print(f"{n:>6} {name:>28} {cold:>9.4f} {warm:>9.4f} {warm / tpe:>7.2f}", flush=True)


if __name__ == "__main__":
    main()
