from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

from optuna_treeucb.core._observations import rank_rewards
from optuna_treeucb.core._partition import IncrementalPartition
from optuna_treeucb.core._partition import RefitPartition
from optuna_treeucb.core._partition import box_contains
from optuna_treeucb.core._partition import tree_boxes


def _contains(low: np.ndarray, high: np.ndarray, X: np.ndarray) -> np.ndarray:
    """(n, L) membership with the tree's convention low < x <= high (0 on the border)."""
    inside = ((X[:, None, :] > low[None]) | ((X[:, None, :] == 0) & (low[None] == 0))) & (
        X[:, None, :] <= high[None]
    )
    return np.all(inside, axis=2)


def _assert_tiles(low: np.ndarray, high: np.ndarray, rng: np.random.Generator) -> None:
    np.testing.assert_allclose(np.prod(high - low, axis=1).sum(), 1.0)
    X = rng.random((2000, low.shape[1]))
    X[:10] = 0.0
    X[10:20] = 1.0
    np.testing.assert_array_equal(_contains(low, high, X).sum(axis=1), 1)


def test_one_split_gives_two_boxes_with_volumes_summing_to_one() -> None:
    X = np.array([[0.1, 0.5], [0.2, 0.5], [0.8, 0.5], [0.9, 0.5]])
    y = np.array([0.0, 0.0, 1.0, 1.0])
    tree = DecisionTreeRegressor(criterion="absolute_error").fit(X, y)
    low, high, nodes = tree_boxes(tree.tree_, 2)
    np.testing.assert_allclose(low, [[0.0, 0.0], [0.5, 0.0]])
    np.testing.assert_allclose(high, [[0.5, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(np.prod(high - low, axis=1), [0.5, 0.5])
    assert nodes.size == 2


@pytest.mark.parametrize("criterion", ["absolute_error", "squared_error"])
def test_refit_leaves_tile_the_cube_and_locate_agrees(criterion: str) -> None:
    rng = np.random.default_rng(0)
    X = rng.random((300, 3))
    r = (np.sin(6 * X[:, 0]) + X[:, 1] > 0.8).astype(float) * 0.7 + 0.1 * rng.random(300)
    part = RefitPartition(3, criterion=criterion)
    part.update(X, r)
    assert part.n_leaves > 2
    _assert_tiles(part.low, part.high, rng)
    member = _contains(part.low, part.high, X)
    np.testing.assert_array_equal(np.argmax(member, axis=1), part.leaf_of)


def test_refit_is_lazy_with_refit_fraction() -> None:
    rng = np.random.default_rng(1)
    X = rng.random((200, 2))
    r = X[:, 0]
    part = RefitPartition(2, refit_fraction=0.1)
    part.update(X[:100], r[:100])
    m = part.fit_size(100)
    assert m == 94  # the schedule 1, 2, ..., 10, 11, 13, ... (+ceil(10%)) passes 94, then 104
    v = part.version
    for n in range(101, 104):  # fewer new points than 10% of 94: no refit, only routing
        part.update(X[:n], r[:n])
        assert part.version == v and part.leaf_of.size == n
    part.update(X[:104], r[:104])
    assert part.version == v + 1 and part.fit_size(104) == 104


@pytest.mark.parametrize("refit_fraction", [0.0, 0.05, 0.3])
def test_refit_partition_depends_on_the_data_only(refit_fraction: float) -> None:
    # Fed one point at a time, or 37 points at once (a model rebuilt on resume), the tree is
    # fitted on the same prefix with the same rewards, so the partitions are equal.
    rng = np.random.default_rng(3)
    X = rng.random((37, 2))
    y = np.sin(6 * X[:, 0]) + X[:, 1]
    step = RefitPartition(2, refit_fraction=refit_fraction)
    for n in range(1, 38):
        step.update(X[:n], rank_rewards(y[:n]))
    batch = RefitPartition(2, refit_fraction=refit_fraction)
    batch.update(X, rank_rewards(y), lambda m: rank_rewards(y[:m]))
    np.testing.assert_array_equal(batch.low, step.low)
    np.testing.assert_array_equal(batch.high, step.high)
    np.testing.assert_array_equal(batch.leaf_of, step.leaf_of)


def test_incremental_partition_depends_on_the_data_only() -> None:
    rng = np.random.default_rng(4)
    X = rng.random((120, 2))
    y = np.sin(6 * X[:, 0]) + X[:, 1]
    step = IncrementalPartition(2)
    for n in range(1, 121):
        step.update(X[:n], rank_rewards(y[:n]))
    batch = IncrementalPartition(2)
    batch.update(X, rank_rewards(y), lambda m: rank_rewards(y[:m]))
    np.testing.assert_array_equal(batch.low, step.low)
    np.testing.assert_array_equal(batch.high, step.high)
    np.testing.assert_array_equal(batch.leaf_of, step.leaf_of)


def _run_incremental(
    X: np.ndarray, r: np.ndarray, part: IncrementalPartition
) -> list[tuple[np.ndarray, np.ndarray]]:
    history = []
    for t in range(1, X.shape[0] + 1):
        part.update(X[:t], r[:t])
        history.append((part.low.copy(), part.high.copy()))
    return history


def test_incremental_meets_the_regret_theorem_conditions() -> None:
    rng = np.random.default_rng(2)
    d, T = 2, 1500
    X = rng.random((T, d)) ** 2  # denser near the origin
    r = np.exp(-20 * np.sum((X - 0.2) ** 2, axis=1)) + 0.05 * rng.standard_normal(T)
    r = (r - r.min()) / (r.max() - r.min())
    part = IncrementalPartition(d, gamma=0.5, max_leaves_coef=2.0)
    history = _run_incremental(X, r, part)
    probe = rng.random((3000, d))
    prev_leaf = None
    for t, (low, high) in enumerate(history, start=1):
        # (iii) every leaf diameter is within the shrinking cap
        assert np.sqrt(np.sum((high - low) ** 2, axis=1)).max() <= part.cap(t) + 1e-12
        # (ii) |P_t| = O(t^gamma): data splits stop at c t^gamma, cap cells add 4^d t^gamma
        assert low.shape[0] <= (part.max_leaves_coef + 4**d) * t**part.gamma + 1
        if t % 50 == 0:
            _assert_tiles(low, high, rng)
            # (i) nested: every leaf of P_t lies inside one leaf of P_{t-50}
            leaf = np.argmax(_contains(low, high, probe), axis=1)
            if prev_leaf is not None:
                for b in np.unique(leaf):
                    assert np.unique(prev_leaf[leaf == b]).size == 1
            prev_leaf = leaf
    assert part.cap(T) < 0.5 * part.cap(10)
    # (iv) deterministic given the data
    again = _run_incremental(X, r, IncrementalPartition(d, gamma=0.5, max_leaves_coef=2.0))
    np.testing.assert_array_equal(again[-1][0], history[-1][0])
    np.testing.assert_array_equal(again[-1][1], history[-1][1])


def test_incremental_locate_matches_boxes() -> None:
    rng = np.random.default_rng(3)
    X = rng.random((400, 3))
    r = X[:, 0] * X[:, 1]
    part = IncrementalPartition(3)
    part.update(X, r)
    member = _contains(part.low, part.high, X)
    np.testing.assert_array_equal(np.argmax(member, axis=1), part.leaf_of)
    np.testing.assert_array_equal(part.locate(X), part.leaf_of)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("clustered", [False, True])
def test_point_scattering_inequality_on_random_sequences(seed: int, clustered: bool) -> None:
    """sum_t 1 / n_{t-1}(a_t) <= e |P_T| log(1 + (e - 1) T / |P_T|) for nested partitions.

    n_{t-1}(a_t) counts the earlier points in the box of P_{t-1} holding x_t (1 if none),
    Lemma 2 of Wang et al. (arXiv:1901.09277).
    """
    rng = np.random.default_rng(seed)
    d, T = 2, 1000
    X = rng.random((T, d))
    if clustered:
        X = 0.5 + 0.05 * rng.standard_normal((T, d)).clip(-9, 9)
        X = X.clip(0, 1)
    r = rng.random(T)
    part = IncrementalPartition(d)
    total = 0.0
    for t in range(T):
        if t > 0:
            leaf = int(part.locate(X[t : t + 1])[0])
            n_prev = int(np.sum(part.leaf_of == leaf))
        else:
            n_prev = 0
        total += 1.0 / max(n_prev, 1)
        part.update(X[: t + 1], r[: t + 1])
    P = part.n_leaves
    bound = math.e * P * math.log(1 + (math.e - 1) * T / P)
    assert total <= bound
    assert total > math.log(T)  # the sum is not trivially small: at least the harmonic part


def test_box_contains_puts_a_point_on_a_shared_edge_in_the_lower_box() -> None:
    # 1-D boxes [0, 0.5] and (0.5, 1]: the tree routes x <= 0.5 to the left child
    low, high = np.array([0.0, 0.5]), np.array([0.5, 1.0])
    cases = {0.0: [True, False], 0.25: [True, False], 0.5: [True, False], 1.0: [False, True]}
    for x, expected in cases.items():
        np.testing.assert_array_equal(box_contains(low, high, x), expected, err_msg=str(x))


def test_box_contains_opens_only_the_borders_of_the_cube() -> None:
    # an inner box (0.2, 0.6] holds neither 0.2 nor 0 nor 1; a box starting at 0 holds 0 and
    # a box ending at 1 holds 1
    inner = box_contains(np.array(0.2), np.array(0.6), np.array([0.0, 0.2, 0.6, 1.0]))
    np.testing.assert_array_equal(inner, [False, False, True, False])
    assert box_contains(np.array(0.0), np.array(0.2), 0.0)
    assert box_contains(np.array(0.6), np.array(1.0), 1.0)


@pytest.mark.parametrize("rule", ["refit", "incremental"])
def test_points_on_leaf_edges_lie_in_exactly_one_leaf(rule: str) -> None:
    rng = np.random.default_rng(4)
    X = rng.random((200, 2))
    r = (X[:, 0] > 0.3).astype(float) + 0.5 * (X[:, 1] > 0.6) + 0.05 * rng.random(200)
    part: RefitPartition | IncrementalPartition = (
        RefitPartition(2, refit_fraction=0.0) if rule == "refit" else IncrementalPartition(2)
    )
    part.update(X, r)
    assert part.n_leaves > 2
    # every corner of every leaf: points on shared edges, on 0 and on 1
    corners = np.array(
        [
            [a, b]
            for lo, hi in zip(part.low, part.high)
            for a in (lo[0], hi[0])
            for b in (lo[1], hi[1])
        ]
    )
    member = np.all(box_contains(part.low[None], part.high[None], corners[:, None, :]), axis=2)
    np.testing.assert_array_equal(member.sum(axis=1), 1)
    if rule == "incremental":  # routes x <= threshold in float64, as box_contains reads it
        np.testing.assert_array_equal(np.argmax(member, axis=1), part.locate(corners))
