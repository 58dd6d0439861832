"""Cost per trial against the number of parameters, TreeUCBSampler against TPESampler.

Score: median milliseconds per trial of each sampler and their ratio. benchmarks/README.md
describes the method.

Usage::

    python -m benchmarks dims --quick                 # d = 10, 64, 500; 40 trials
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from benchmarks import _harness
from benchmarks._harness import Quick
from benchmarks._report import md_table

DIMS = (10, 63, 64, 100, 250, 500)
QUICK_DIMS = (10, 64, 500)


def _objective(d: int) -> Callable[[Any], float]:
    def objective(trial: Any) -> float:
        return sum((trial.suggest_float(f"x{i}", -1.0, 1.0) - 0.1) ** 2 for i in range(d))

    return objective


def seconds_per_trial(name: str, d: int, n_trials: int, seed: int) -> float:
    """Wall seconds per trial of one seeded study (objective included, which is cheap)."""
    return _harness.optimize(_harness.new_study(name, seed), _objective(d), n_trials) / n_trials


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and write `dims.md` into `--out`."""
    p = _harness.make_parser("dims", __doc__, quick="3 sizes", trials=Quick(100, 40))
    p.option("--repeats", Quick(3, 2), type=int, help="Rounds per sampler")
    a = p.parse(argv)
    _harness.quiet()
    dims = QUICK_DIMS if a.quick else DIMS
    n_trials, repeats = a.trials, a.repeats
    names = ("TreeUCB", "TPE")
    seconds_per_trial("TreeUCB", 3, 12, 0)  # warm-up: imports and first-call costs
    rows = []
    for d in dims:
        times: dict[str, list[float]] = {n: [] for n in names}
        for r, name in _harness.alternating(names, repeats):
            times[name].append(seconds_per_trial(name, d, n_trials, seed=r))
        med = {n: statistics.median(t) for n, t in times.items()}
        rows.append(
            [d, f"{1e3 * med['TreeUCB']:.2f}", f"{1e3 * med['TPE']:.2f}",
             f"{med['TreeUCB'] / med['TPE']:.2f}"]
        )  # fmt: skip
        print(rows[-1], flush=True)
    _harness.finish(
        a,
        "Cost per trial against the number of parameters",
        f"{n_trials} trials per study, {repeats} studies per sampler and size, the samplers "
        "alternating; median wall milliseconds per trial (the objective is a sphere on floats, "
        "so the time is the sampler's and Optuna's). ",
        "\n" + md_table(["d", "TreeUCB ms", "TPE ms", "TreeUCB / TPE"], rows),
    )
