"""Cost of one ask + tell of the core in 5-D at 100, 1,000 and 10,000 observations.

Score: median and mean milliseconds per rule and index, and the ratio to one CART fit on the
same data. benchmarks/README.md describes the method.

Usage::

    python -m benchmarks core_cost --quick
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.tree import DecisionTreeRegressor

from benchmarks import _harness
from optuna_treeucb.core import OPTIONS
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._partition import REFIT_FRACTION


def _f(x: np.ndarray) -> float:
    return float(-np.sum((x - 0.3) ** 2))


def measure(n: int, rule: str, index: str, rounds: int, d: int = 5) -> tuple[float, float]:
    """Median and mean seconds of one ask + tell after ``n`` observations."""
    rng = np.random.default_rng(0)
    X = rng.random((n, d))
    y = -np.sum((X - 0.3) ** 2, axis=1) + 0.1 * rng.standard_normal(n)
    bandit = TreeUCB(d, seed=0, rule=rule, index=index)  # type: ignore[arg-type]
    bandit.tell_many(X, y)
    bandit.ask_x()  # builds the model once; later rounds are incremental
    bandit.set_pending([])
    if rule == "refit":  # span at least one lazy refit, so that the mean amortises it
        rounds = max(rounds, int(np.ceil(REFIT_FRACTION * n)) + 1)
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        x = bandit.ask_x()
        bandit.tell_x(x, _f(x) + 0.1 * rng.standard_normal())
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), float(np.mean(times))


def baseline(n: int, reps: int, d: int = 5) -> float:
    """Median seconds of one absolute-error CART fit on ``n`` points (the paper's round)."""
    rng = np.random.default_rng(0)
    X = rng.random((n, d))
    y = -np.sum((X - 0.3) ** 2, axis=1) + 0.1 * rng.standard_normal(n)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        DecisionTreeRegressor(criterion="absolute_error", min_impurity_decrease=0.001).fit(X, y)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main(argv: list[str] | None = None) -> None:
    """Run the measurement and write the markdown table."""
    args = _harness.make_parser("core_cost", __doc__, quick="20 rounds, not 100").parse(argv)
    rounds = 20 if args.quick else 100
    lines = [
        "",
        "| n | rule | index | median ms | mean ms | ratio to one CART fit |",
        "|---|---|---|---|---|---|",
    ]
    for n in (100, 1_000, 10_000):
        base = baseline(n, 5)
        lines.append(f"| {n} | (baseline) | CART fit | {base * 1e3:.2f} | | 1 |")
        for rule in OPTIONS["rule"].choices:
            for index in OPTIONS["index"].choices:
                med, mean = measure(n, rule, index, rounds)
                lines.append(
                    f"| {n} | {rule} | {index} | {med * 1e3:.2f} | {mean * 1e3:.2f} | "
                    f"{med / base:.3f} |"
                )
                print(lines[-1], flush=True)
    _harness.finish(
        args,
        "Core cost per ask + tell (5-D)",
        f"{rounds} rounds each. Ratio = median time / one absolute-error CART fit on the same n "
        "(the paper's per-round refit), measured in the same process. ",
        "\n".join(lines),
    )
