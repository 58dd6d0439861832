"""The smoothed trust-region centre (``center="smoothed"``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._inbox import RHO_MIN
from optuna_treeucb.core._inbox import SMOOTH_K
from optuna_treeucb.core._inbox import TrustRegion
from optuna_treeucb.core._inbox import local_means
from optuna_treeucb.core._inbox import smoothed_best


def test_local_means_by_hand() -> None:
    # 1-D points 0, 0.1, 0.9, 0.2 with k = 2: each point and its nearest earlier point
    X = np.array([[0.0], [0.1], [0.9], [0.2]])
    y = np.array([1.0, 3.0, 10.0, 5.0])
    np.testing.assert_allclose(local_means(X, y, 0, k=2), [1.0, 2.0, 6.5, 4.0])
    np.testing.assert_allclose(local_means(X, y, 2, k=2), [6.5, 4.0])  # only the new ones


def test_smoothed_best_prefers_good_neighbours_to_a_lucky_outlier() -> None:
    # a cluster of good values around (0.3, 0.3) and one lucky draw far away
    rng = np.random.default_rng(0)
    cluster = 0.3 + 0.02 * rng.standard_normal((8, 2))
    X = np.vstack((cluster, [[0.9, 0.9]], rng.random((20, 2))))
    y = np.concatenate((np.full(8, 1.0), [3.0], np.zeros(20)))
    y[3] = 1.5  # the cluster's own best
    assert int(np.argmax(y)) == 8
    assert smoothed_best(X, y) == 3


def test_smoothed_best_finds_the_optimum_under_heavy_noise() -> None:
    # 200 draws of a bump of height 1 at (0.3, 0.3) under noise of sd 0.5: the raw best is
    # often a lucky draw away from the bump, the smoothed best rarely
    raw, smooth = [], []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        X = rng.random((200, 2))
        y = np.exp(-np.sum((X - 0.3) ** 2, axis=1) / 0.02) + 0.5 * rng.standard_normal(200)
        raw.append(np.linalg.norm(X[np.argmax(y)] - 0.3))
        smooth.append(np.linalg.norm(X[smoothed_best(X, y)] - 0.3))
    assert np.mean(smooth) < 0.6 * np.mean(raw)
    assert np.mean(np.array(smooth) < 0.1) >= np.mean(np.array(raw) < 0.1) + 0.2


def _noisy_sphere(x: np.ndarray, rng: np.random.Generator) -> float:
    return -float(np.sum((x - 0.3) ** 2)) + 0.3 * float(rng.standard_normal())


@pytest.mark.parametrize(("center", "near"), [("best", [0.9, 0.9]), ("smoothed", [0.3, 0.3])])
def test_the_trust_region_sits_on_the_good_cluster_not_the_lucky_draw(
    center: str, near: list[float]
) -> None:
    # one box (no split, no cap): a good cluster at (0.3, 0.3) and a lucky draw at (0.9, 0.9)
    rng = np.random.default_rng(0)
    X = np.vstack((0.3 + 0.02 * rng.standard_normal((8, 2)), [[0.9, 0.9]], rng.random((20, 2))))
    y = np.concatenate((np.full(8, 1.0), [3.0], np.zeros(20)))
    bandit = TreeUCB(
        2,
        seed=0,
        sampling="trust_region",
        center=center,
        cap_gamma=None,
        min_impurity_decrease=10.0,  # type: ignore[arg-type]
    )
    bandit.tell_many(X, y)
    bandit._tr = TrustRegion(rho=RHO_MIN, n_seen=bandit.n_observations, best=np.inf)
    lv = bandit.fit_leaves()
    assert lv.low.shape[0] == 1
    draws = bandit._draw(0, lv, {}, 50)
    assert np.all(np.abs(draws - near) <= 0.05)


def test_successes_are_counted_on_local_means() -> None:
    bandit = TreeUCB(1, seed=0, center="smoothed", sampling="trust_region", n_startup=0)
    X = np.linspace(0.0, 1.0, 12)[:, None]
    y = np.where(np.arange(12) == 11, 100.0, 0.0)  # one lucky value at the end
    bandit.tell_many(X, y)
    means = local_means(X, y, 0)
    assert bandit.trust_region.best == pytest.approx(means.max())
    assert means[-1] == pytest.approx(100.0 / SMOOTH_K)


def test_seeded_runs_repeat_pickles_continue_and_rebuilds_agree() -> None:
    def run(b: TreeUCB, n: int) -> list[np.ndarray]:
        rng = np.random.default_rng(b.n_observations)
        out = []
        for _ in range(n):
            x = b.ask_x()
            b.tell_x(x, _noisy_sphere(x, rng))
            out.append(x)
        return out

    a, b = (
        TreeUCB(3, seed=4, center="smoothed", sampling="trust_region"),
        TreeUCB(3, seed=4, center="smoothed", sampling="trust_region"),
    )
    np.testing.assert_array_equal(run(a, 30), run(b, 30))
    c = pickle.loads(pickle.dumps(a))
    assert c.trust_region == a.trust_region
    np.testing.assert_array_equal(run(a, 20), run(c, 20))
    rebuilt = TreeUCB(3, seed=9, center="smoothed", sampling="trust_region")
    rebuilt.tell_many(a.X, a.values)
    assert rebuilt.trust_region == a.trust_region


def test_bad_center_raises_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"'center' parameter of TreeUCB must be one of"):
        TreeUCB(2, center="median")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"'center' parameter of TreeUCB must be one of"):
        TreeUCB(2, center=1)  # type: ignore[arg-type]


def test_center_without_the_trust_region_warns() -> None:
    with pytest.warns(UserWarning, match=r"TreeUCB ignores center='smoothed'"):
        TreeUCB(2, center="smoothed", sampling="uniform")
