from __future__ import annotations

import math

import numpy as np
import pytest

from optuna_treeucb.core._index import BoxStats
from optuna_treeucb.core._index import SoftGPIndex
from optuna_treeucb.core._index import argmax
from optuna_treeucb.core._index import gp_posterior
from optuna_treeucb.core._index import hoeffding_index
from optuna_treeucb.core._index import soft_box_features
from optuna_treeucb.core._index import soft_gp_index
from optuna_treeucb.core._partition import RefitPartition
from tests.core_tests.partitions import TwoBoxes


def test_hoeffding_index_hand_computed() -> None:
    # U = m + C sqrt(4 log t / n) + M D (Algorithm 1)
    got = hoeffding_index(
        np.array([0.5, 0.2]), np.array([4, 1]), np.array([0.1, 0.5]), 10, 0.3, 0.2
    )
    b = math.sqrt(4 * math.log(10))
    np.testing.assert_allclose(got, [0.5 + 0.3 * b / 2 + 0.02, 0.2 + 0.3 * b + 0.1])


def test_an_empty_box_has_the_papers_prior() -> None:
    # an empty box takes m = 1, n = 1 (Algorithm 1); a pending point there adds to n
    part = TwoBoxes(1)
    X = np.array([[0.1], [0.2]])
    r = np.array([0.25, 0.75])
    part.update(X, r)
    stats = BoxStats.of(part, r, np.array([0.0, 1.0]), t=10, C=0.3, M=0.0)
    assert np.isnan(stats.mean[1]) and stats.n_obs[1] == 0
    np.testing.assert_allclose(stats.index[1], 1.0 + 0.3 * math.sqrt(4 * math.log(10) / 2))


def test_box_stats_hand_computed_for_a_known_partition() -> None:
    # two boxes split at x0 = 0.5; the left holds 2 observations and 1 pending point
    part = TwoBoxes(1)
    X = np.array([[0.1], [0.2], [0.8], [0.9]])
    r = np.array([0.125, 0.375, 0.625, 0.875])
    part.update(X, r)
    stats = BoxStats.of(part, r, np.array([1.0, 0.0]), t=6, C=0.5, M=0.0)
    np.testing.assert_array_equal(stats.n_obs, [2, 2])
    np.testing.assert_allclose(stats.mean, [0.25, 0.75])
    bonus = 0.5 * np.sqrt(4 * math.log(6) / np.array([3.0, 2.0]))  # n: observations + pending
    np.testing.assert_allclose(stats.index, [0.25, 0.75] + bonus)


def test_argmax_breaks_ties_at_random_and_only_among_ties() -> None:
    rng = np.random.default_rng(0)
    picks = {argmax(np.array([0.0, 1.0, 1.0, 0.5]), rng) for _ in range(50)}
    assert picks == {1, 2}
    assert argmax(np.array([3.0, 1.0]), rng) == 0


def test_soft_gp_index_keeps_its_cache_equal_to_a_fresh_one() -> None:
    # the cache is updated by rows and changed columns; a fresh index computes it whole
    rng = np.random.default_rng(4)
    part = RefitPartition(2, refit_fraction=0.0)
    kept = SoftGPIndex()
    X_all = rng.random((35, 2))
    for n in (10, 11, 20, 35):
        X = X_all[:n]
        r = rng.random(n)
        part.update(X, r)
        cand, pend = rng.random((5, 2)), rng.random((2, 2))
        np.testing.assert_allclose(
            kept.posterior(X, part, r, cand, pend),
            SoftGPIndex().posterior(X, part, r, cand, pend),
            atol=1e-12,
        )


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


def test_soft_gp_index_hand_computed() -> None:
    # U = mu + C sqrt(4 log t) sd / s + M D
    mean, std, diam = np.array([0.5, 0.2]), np.array([0.1, 0.4]), np.array([0.3, 0.6])
    t, C, M, noise = 10, 0.3, 0.2, 0.25
    got = soft_gp_index(mean, std, diam, t, C, M, noise)
    b = math.sqrt(4 * math.log(10))
    expected = [0.5 + 0.3 * b * 0.1 / 0.5 + 0.06, 0.2 + 0.3 * b * 0.4 / 0.5 + 0.12]
    np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("noise", [0.01, 0.1, 1.0])
def test_soft_gp_bonus_is_hoeffdings_with_count_n_plus_noise(noise: float) -> None:
    # the derivation in soft_gp_index's docstring: hard boxes, n points in the box of x, so
    # sd / s = sqrt(1 / (n + s^2)) and the bonus is C sqrt(4 log t / (n + s^2))
    low, high = np.array([[0.0], [0.5]]), np.array([[0.5], [1.0]])
    X = np.array([[0.1], [0.2], [0.3], [0.9]])  # n = 3 and 1
    Phi = soft_box_features(X, low, high, math.inf)
    cand = soft_box_features(np.array([[0.25], [0.75]]), low, high, math.inf)
    _, std = gp_posterior(Phi, np.zeros(4), cand, noise)
    t, C = 7, 0.5
    bonus = soft_gp_index(np.zeros(2), std, np.zeros(2), t, C, 0.0, noise)
    n = np.array([3.0, 1.0])
    np.testing.assert_allclose(bonus, C * np.sqrt(4 * math.log(t) / (n + noise)), rtol=1e-12)


@pytest.mark.parametrize("alpha", [math.inf, 20.0])
def test_gp_posterior_equals_the_dense_kernel_solve(alpha: float) -> None:
    # weight-space view (L x L) against the function-space view (n x n) with k = Phi Phi^T:
    # mean = m0 + k(c, X) (K + s^2 I)^-1 (r - m0), var = k(c, c) - k(c, X) (K + s^2 I)^-1 k(X, c)
    rng = np.random.default_rng(5)
    low = np.array([[0.0, 0.0], [0.4, 0.0], [0.4, 0.6]])
    high = np.array([[0.4, 1.0], [1.0, 0.6], [1.0, 1.0]])
    X, pend, cand = rng.random((12, 2)), rng.random((3, 2)), rng.random((6, 2))
    r, s2 = rng.random(12), 0.1
    Phi, Pp, Pc = (soft_box_features(Z, low, high, alpha, 0.02) for Z in (X, pend, cand))
    mean, std = gp_posterior(Phi, r, Pc, s2, Phi_pending=Pp)
    m0 = r.mean()
    K = Phi @ Phi.T + s2 * np.eye(12)
    np.testing.assert_allclose(mean, m0 + Pc @ Phi.T @ np.linalg.solve(K, r - m0), atol=1e-12)
    Pall = np.vstack((Phi, Pp))  # pending points are observations of unknown value
    Kall = Pall @ Pall.T + s2 * np.eye(15)
    kc = Pc @ Pall.T
    var = np.sum(Pc * Pc, axis=1) - np.sum(kc * np.linalg.solve(Kall, kc.T).T, axis=1)
    np.testing.assert_allclose(std**2, var, atol=1e-12)


def test_hard_features_count_a_point_on_an_edge_in_one_box() -> None:
    low = np.array([[0.0, 0.0], [0.5, 0.0], [0.5, 0.5]])
    high = np.array([[0.5, 1.0], [1.0, 0.5], [1.0, 1.0]])
    X = np.array([[0.5, 0.5], [0.0, 0.0], [1.0, 1.0], [0.75, 0.5], [1.0, 0.0], [0.5, 1.0]])
    Phi = soft_box_features(X, low, high, math.inf)
    np.testing.assert_array_equal(
        Phi, [[1, 0, 0], [1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 0], [1, 0, 0]]
    )
