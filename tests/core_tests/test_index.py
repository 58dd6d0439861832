from __future__ import annotations

import math

import numpy as np
import pytest

from optuna_treeucb.core import gp_posterior
from optuna_treeucb.core import hoeffding_index
from optuna_treeucb.core import normalize_rewards
from optuna_treeucb.core import soft_box_features


def test_hoeffding_index_hand_computed() -> None:
    # U = m + C sqrt(4 log t / n) + M D (Algorithm 1); empty box: m = 1, n = 1
    means = np.array([0.5, 0.2, np.nan])
    counts = np.array([4, 1, 0])
    diam = np.array([0.1, 0.5, 1.0])
    t, C, M = 10, 0.3, 0.2
    got = hoeffding_index(np.nan_to_num(means, nan=0.0), counts, diam, t, C, M)
    b = math.sqrt(4 * math.log(10))
    expected = [0.5 + 0.3 * b / 2 + 0.02, 0.2 + 0.3 * b + 0.1, 1.0 + 0.3 * b + 0.2]
    np.testing.assert_allclose(got, expected)


def test_rank_rewards_are_invariant_to_monotone_transforms_and_handle_inf() -> None:
    y = np.array([3.0, -1.0, 10.0, 3.0, np.inf, -np.inf])
    r = normalize_rewards(y, "rank")
    np.testing.assert_allclose(r, (np.array([2.5, 1, 4, 2.5, 5, 0]) + 0.5) / 6)
    np.testing.assert_allclose(normalize_rewards(np.exp(y / 10), "rank"), r)
    assert r.min() > 0 and r.max() < 1


def test_minmax_rewards_clip_inf() -> None:
    y = np.array([1.0, 3.0, np.inf, -np.inf, 2.0])
    np.testing.assert_allclose(normalize_rewards(y, "minmax"), [0, 1, 1, 0, 0.5])
    np.testing.assert_allclose(normalize_rewards(np.ones(3), "minmax"), 0.5)
    with pytest.raises(ValueError, match="'rank' or 'minmax'"):
        normalize_rewards(y, "zscore")  # type: ignore[arg-type]


def test_hard_box_gp_variance_is_one_over_one_plus_n_over_s2() -> None:
    low = np.array([[0.0, 0.0], [0.5, 0.0]])
    high = np.array([[0.5, 1.0], [1.0, 1.0]])
    rng = np.random.default_rng(0)
    n_left, n_right, s2 = 7, 2, 0.3
    X = np.vstack((rng.random((n_left, 2)) * [0.5, 1], 0.5 + rng.random((n_right, 2)) * [0.5, 1]))
    r = rng.random(n_left + n_right)
    Phi = soft_box_features(X, low, high, math.inf)
    cand = np.array([[0.25, 0.5], [0.75, 0.5]])
    mean, std = gp_posterior(
        Phi, r, soft_box_features(cand, low, high, math.inf), s2, prior_mean=0.0
    )
    np.testing.assert_allclose(std**2, [1 / (1 + n_left / s2), 1 / (1 + n_right / s2)])
    # the posterior mean shrinks the box sum towards the prior: sum(y) / (n + s^2)
    np.testing.assert_allclose(
        mean, [r[:n_left].sum() / (n_left + s2), r[n_left:].sum() / (n_right + s2)]
    )


def test_pending_points_reduce_variance_only() -> None:
    low, high = np.array([[0.0], [0.5]]), np.array([[0.5], [1.0]])
    X = np.array([[0.1], [0.2], [0.7]])
    r = np.array([0.2, 0.4, 0.9])
    Phi = soft_box_features(X, low, high, math.inf)
    c = soft_box_features(np.array([[0.3]]), low, high, math.inf)
    p = soft_box_features(np.array([[0.4]]), low, high, math.inf)
    m1, s1 = gp_posterior(Phi, r, c, 0.5, prior_mean=0.0)
    m2, s2 = gp_posterior(Phi, r, c, 0.5, prior_mean=0.0, Phi_pending=p)
    np.testing.assert_allclose(m1, m2)
    np.testing.assert_allclose(s2**2, 1 / (1 + 3 / 0.5))
    assert s2 < s1


@pytest.mark.parametrize("alpha", [10.0, 100.0, 1000.0])
@pytest.mark.parametrize("sigma", [0.0, 0.05])
def test_soft_kernel_gram_is_psd_and_soft_membership_is_sane(alpha: float, sigma: float) -> None:
    rng = np.random.default_rng(1)
    low = np.array([[0.0, 0.0], [0.4, 0.0], [0.4, 0.6]])
    high = np.array([[0.4, 1.0], [1.0, 0.6], [1.0, 1.0]])
    X = rng.random((60, 2))
    Phi = soft_box_features(X, low, high, alpha, sigma)
    K = Phi @ Phi.T
    assert np.linalg.eigvalsh(K).min() > -1e-10
    assert np.all((Phi >= 0) & (Phi <= 1))
    # deep inside a box its feature is ~1; on the cube's border it is not softened
    inner = soft_box_features(np.array([[0.0, 0.0], [0.7, 0.3]]), low, high, alpha, sigma)
    if alpha >= 100:
        np.testing.assert_allclose(np.diag(inner[:, :2]), 1.0, atol=1e-3)
    # on an interior edge (far from other edges) the two neighbours share the mass equally
    edge = soft_box_features(np.array([[0.4, 0.3]]), low, high, alpha, sigma)
    if alpha >= 100:
        np.testing.assert_allclose(edge[0, :2], 0.5, rtol=1e-3)


def test_soft_kernel_tends_to_the_hard_one() -> None:
    rng = np.random.default_rng(2)
    low = np.array([[0.0], [0.3]])
    high = np.array([[0.3], [1.0]])
    X = rng.random((200, 1))
    X = X[np.abs(X[:, 0] - 0.3) > 0.01]
    hard = soft_box_features(X, low, high, math.inf)
    np.testing.assert_allclose(soft_box_features(X, low, high, 5000.0), hard, atol=1e-6)


def test_many_points_path_equals_the_dense_path() -> None:
    rng = np.random.default_rng(3)
    low = np.array([[0.0, 0.0], [0.5, 0.0]])
    high = np.array([[0.5, 1.0], [1.0, 1.0]])
    X = rng.random((600_000, 2))  # n * L * d above the dense threshold
    big = soft_box_features(X, low, high, 50.0, 0.02)
    small = soft_box_features(X[:1000], low, high, 50.0, 0.02)
    np.testing.assert_allclose(big[:1000], small, atol=1e-15)
