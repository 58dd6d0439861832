"""Bagged box means (``bagging``): which estimate ranks the boxes best, and what it costs.

``python -m benchmarks bagging [--quick] [--out DIR]`` writes ``bagging.md`` into ``--out``.

1. **Estimators.**  TreeUCB (``sampling="uniform"``; and the default ``"local_gp"`` at noise
   0.1 on every other function) runs 150 trials on BBOB functions (every second one of the 24
   in 2-D and 5-D, 2 tuning seeds) with additive Gaussian noise of 0, 0.1 and 0.5 times the
   median value of a random point.  On its
   final partition, each estimate of the occupied boxes' mean reward is compared with their
   true mean value (the noiseless function averaged over 64 points of each box): Spearman's
   rank correlation (higher is better) and the log regret of the box with the largest
   estimate, paired against the plain box mean (negative is better).  Estimates: the plain
   mean of the box's rewards (the paper's), and from ten Poisson-bootstrap trees
   (:class:`~optuna_treeucb.core._bagging.BaggedTrees`) the mean of their predictions at the
   box's observations (in-bag), the same out of bag, and their prediction at the box's centre
   (the bagged value), and the plain mean shrunk toward that value as 2 observations (what
   ``bagging`` uses).
2. **Cost.**  One ask + tell in 5-D after 200 and 1,000 observations of a noisy function, for
   ``bagging`` off, 5 and 10, timed in the same process on the same data, interleaved; the
   rounds span at least two refits, so the mean amortises them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import spearmanr

from benchmarks._bbob import HIGH
from benchmarks._bbob import LOW
from benchmarks._bbob import BBOBFunction
from benchmarks._common import add_out_argument
from benchmarks._common import command_line
from benchmarks._common import machine_note
from benchmarks._common import md_table
from benchmarks._common import stamp_core
from benchmarks._common import write_result
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._bagging import BaggedTrees
from optuna_treeucb.core._treeucb import BAGGING_PSEUDO_COUNT

N_TREES = 10
ESTIMATES = (
    "plain",
    "in-bag at observations",
    "out-of-bag at observations",
    "at the centre",
    "plain shrunk to the centre (bagging)",
)


def estimates(bandit: TreeUCB) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Occupied boxes (mask, shape (L,)) and each estimate of their mean reward."""
    r = bandit.rewards()
    lv = bandit.fit_leaves()
    part = bandit.partition
    X = bandit.X
    bag = BaggedTrees(
        X.shape[1],
        N_TREES,
        criterion="absolute_error",
        min_impurity_decrease=0.001,
        refit_fraction=0.0,
        entropy=0,
    )
    bag.update(X, r)
    W = bag.weights(r.size)[bag._kept]
    P = np.empty((len(bag._trees), r.size))
    for k, tree in enumerate(bag._trees):
        size = tree.tree_.node_count
        num = np.bincount(bag._leaf[k], weights=W[k] * r, minlength=size)
        den = np.bincount(bag._leaf[k], weights=W[k], minlength=size)
        P[k] = num[bag._leaf[k]] / den[bag._leaf[k]]
    out_of_bag = W == 0
    n_out = out_of_bag.sum(axis=0)
    oob = np.where(
        n_out > 0, np.sum(np.where(out_of_bag, P, 0.0), axis=0) / np.maximum(n_out, 1), P.mean(0)
    )
    occupied = lv.n_obs > 0

    def box_mean(pred: np.ndarray) -> np.ndarray:
        sums = np.bincount(part.leaf_of, weights=pred, minlength=part.n_leaves)
        return sums / np.maximum(lv.n_obs, 1)

    centre = bag.box_means(part.low, part.high, r)
    plain = box_mean(r)
    kappa = BAGGING_PSEUDO_COUNT
    shrunk = (plain * lv.n_obs + kappa * centre) / (lv.n_obs + kappa)
    values = (plain, box_mean(P.mean(axis=0)), box_mean(oob), centre, shrunk)
    return occupied, dict(zip(ESTIMATES, values, strict=True))


def estimator_run(fid: int, dim: int, seed: int, noise: float, sampling: str, n: int) -> dict:
    """Spearman correlation and log regret of the top box, per estimate, for one run."""
    fn = BBOBFunction(fid, dim, seed, False)
    sd = noise * fn.median_random
    rng = np.random.default_rng([seed, fid, dim, 7])
    bandit = TreeUCB(dim, seed=seed, direction="minimize", sampling=sampling)  # type: ignore[arg-type]
    for _ in range(n):
        x = bandit.ask_x()
        bandit.tell_x(x, float(fn.f(LOW + x * (HIGH - LOW))) + sd * rng.standard_normal())
    occupied, est = estimates(bandit)
    part = bandit.partition
    mc = np.random.default_rng(0).random((64, dim))
    true = np.array(
        [
            np.mean(fn.f(LOW + (part.low[j] + mc * (part.high[j] - part.low[j])) * (HIGH - LOW)))
            for j in np.flatnonzero(occupied)
        ]
    ) / max(fn.median_random, 1e-300)
    out = {}
    for name, m in est.items():
        rho = float(spearmanr(m[occupied], -true).statistic)
        top = int(np.argmax(m[occupied]))
        out[name] = (rho, float(np.log(max(true[top], 1e-8))))
    return out


def cost(n: int, bagging: int | None, bandits: dict, d: int = 5) -> float:
    """Seconds of one ask + tell after ``n`` observations (a bandit per setting, reused)."""
    key = (n, bagging)
    if key not in bandits:
        rng = np.random.default_rng(0)
        X = rng.random((n, d))
        y = -np.sum((X - 0.3) ** 2, axis=1) + 0.1 * rng.standard_normal(n)
        bandit = TreeUCB(d, seed=0, bagging=bagging)
        bandit.tell_many(X, y)
        bandit.ask_x()  # the first fit, not timed
        bandit.set_pending([])
        bandits[key] = bandit
    bandit = bandits[key]
    t0 = time.perf_counter()
    x = bandit.ask_x()
    bandit.tell_x(x, float(-np.sum((x - 0.3) ** 2)))
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    """Run both parts and write results/<name>.md."""
    p = argparse.ArgumentParser(prog="python -m benchmarks bagging", description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer functions and rounds")
    p.add_argument("--name", default="bagging", help="stem of the result file")
    add_out_argument(p)
    a = p.parse_args(argv)
    print(stamp_core(), flush=True)
    started = time.time()
    fids = [1, 8, 15] if a.quick else list(range(1, 25, 2))
    text = "# Bagged box means: estimators and cost\n\n" + (__doc__ or "").split("\n\n", 2)[2]
    text += f"\nCommand: `{command_line('bagging', argv)}`.\n\n## Estimators\n"
    for sampling, noises, step in (("uniform", (0.0, 0.1, 0.5), 1), ("local_gp", (0.1,), 2)):
        rows = []
        for noise in noises:
            runs = [
                estimator_run(f, d, s, noise, sampling, 150)
                for d in (2, 5)
                for f in fids[::step]
                for s in range(2)
            ]
            base = np.array([r["plain"][1] for r in runs])
            for name in ESTIMATES:
                rho = np.array([r[name][0] for r in runs])
                diff = np.array([r[name][1] for r in runs]) - base
                se = diff.std(ddof=1) / np.sqrt(diff.size) if name != "plain" else 0.0
                rows.append(
                    [
                        f"{noise:g}",
                        name,
                        f"{np.nanmean(rho):.3f}",
                        f"{diff.mean():+.3f} ± {se:.3f}",
                    ]
                )
            print(f"  estimators: sampling={sampling} noise={noise} done", flush=True)
        header = ["noise", "estimate", "Spearman (mean)", "log regret of top box vs plain"]
        text += f"\n### sampling={sampling!r}, {len(runs)} runs per noise\n\n"
        text += md_table(header, rows)
    text += "\n## Cost of one ask + tell (5-D, ms)\n\n"
    rounds = 30 if a.quick else 120
    rows = []
    for n in (200, 1000):
        k = max(rounds, int(0.11 * n))  # at least two refits of the 5 % schedule
        bandits: dict = {}
        times: dict[int | None, list[float]] = {None: [], 5: [], 10: []}
        for _ in range(k):
            for bagging in times:  # interleaved, so that load hits every setting alike
                times[bagging].append(cost(n, bagging, bandits))
        for bagging, ts in times.items():
            t = np.array(ts) * 1e3
            rows.append([str(n), str(bagging), f"{np.median(t):.2f}", f"{t.mean():.2f}", str(k)])
    text += md_table(
        ["observations", "bagging", "median", "mean (refits amortised)", "rounds"], rows
    )
    text += "\n" + machine_note("quick" if a.quick else "full", started)
    write_result(a.out, a.name, text)


if __name__ == "__main__":
    main()
