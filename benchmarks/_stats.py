"""Summary statistics of regrets: geometric means, paired log-ratios, mean ranks.

Regrets are compared on a log scale, so a regret of 0 (a solved problem) needs a floor. There
is one: :data:`FLOOR` = 1e-6 of the normalised regret (the regret divided by that of a median
uniform random point), about the precision to which a tie between two solved runs still
means something. Every geometric mean and paired log-ratio of the benchmarks uses it, except
where a metric is quantised more coarsely (``fidelity``'s validation error moves in steps of
one image); there the caller passes the metric's resolution as ``floor`` and says so in its
table.

A paired log-ratio compares two methods on the same runs (problem, instance, seed):
``log(max(a, floor)) - log(max(b, floor))`` per run; negative means ``a`` has the lower
regret. Reported: the mean over runs, its standard error (``nan`` for a single run) and the
win rate, the share of runs with a negative log-ratio (ties count one half).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass

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
    """Mean rank of each method (rows) over runs (columns); ties share their mean rank, and a
    failed run (NaN) ranks last.

    Args:
        values: shape (n_methods, n_runs), lower is better.

    Returns:
        shape (n_methods,), values in [1, n_methods].
    """
    filled = np.nan_to_num(np.asarray(values, dtype=float), nan=np.inf)
    return rankdata(filled, axis=0).mean(axis=1)  # type: ignore[no-any-return]
