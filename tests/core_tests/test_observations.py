"""Observations (values, rewards by rank, GP targets, best) and Pending (the id multiset)."""

from __future__ import annotations

import numpy as np
import pytest

from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube
from optuna_treeucb.core._observations import RANK_UPDATE_MAX
from optuna_treeucb.core._observations import Observations
from optuna_treeucb.core._observations import Pending
from optuna_treeucb.core._observations import average_ranks
from optuna_treeucb.core._observations import rank_rewards
from optuna_treeucb.core._observations import update_average_ranks
from optuna_treeucb.core._partition import RefitPartition
from tests.core_tests.partitions import TwoBoxes


def test_rank_rewards_are_invariant_to_monotone_transforms_and_handle_inf() -> None:
    y = np.array([3.0, -1.0, 10.0, 3.0, np.inf, -np.inf])
    r = rank_rewards(y)
    np.testing.assert_allclose(r, (np.array([2.5, 1, 4, 2.5, 5, 0]) + 0.5) / 6)
    np.testing.assert_allclose(rank_rewards(np.exp(y / 10)), r)
    assert r.min() > 0 and r.max() < 1


@pytest.mark.parametrize("n", [0, 1, 2, 7, 300])
def test_average_ranks_equal_scipy_rankdata_bit_for_bit(n: int) -> None:
    # reference: scipy.stats.rankdata(method="average"), which the core used before
    from scipy.stats import rankdata

    rng = np.random.default_rng(n)
    y = np.round(rng.normal(size=n), 1)  # many ties
    if n >= 2:
        y[0], y[-1] = np.inf, -np.inf
    got = average_ranks(y)
    assert got.dtype == np.float64
    assert np.array_equal(got, rankdata(y, method="average"))


@pytest.mark.parametrize("seed", range(6))
def test_updated_ranks_equal_a_full_ranking_bit_for_bit(seed: int) -> None:
    # values arrive in batches of 1 to RANK_UPDATE_MAX + 10 (past it the update sorts), with
    # ties, infinities and repeated values; every intermediate ranking equals a full one
    rng = np.random.default_rng(seed)
    n = 400
    y = np.round(rng.normal(size=n), 1) if seed % 2 else rng.integers(0, 5, n).astype(float)
    y[rng.integers(0, n, 5)] = np.inf
    y[rng.integers(0, n, 5)] = -np.inf
    ranks, k = np.zeros(0), 0
    while k < n:
        k = min(n, k + int(rng.integers(1, RANK_UPDATE_MAX + 10)))
        ranks = update_average_ranks(ranks, y[:k])
        assert np.array_equal(ranks, average_ranks(y[:k]))


def test_the_core_keeps_its_rank_rewards_up_to_date() -> None:
    # one at a time and in a batch: the core's rewards are the values' ranks as if recomputed

    rng = np.random.default_rng(0)
    bandit = TreeUCB(2, seed=0)
    bandit.tell_many(rng.random((30, 2)), np.round(rng.normal(size=30), 1))
    for _ in range(20):
        bandit.tell_x(rng.random(2), float(np.round(rng.normal(), 1)))
        assert np.array_equal(bandit.rewards(), rank_rewards(bandit.values))


def test_observations_store_values_as_told_and_reward_by_rank_larger_is_better() -> None:
    obs = Observations(UnitCube([ParamSpec("x", "float", low=0.0, high=1.0)]), "minimize")
    obs.append(np.array([[0.1], [0.5], [0.9]]), np.array([3.0, 1.0, 2.0]), np.full(3, np.inf))
    np.testing.assert_array_equal(obs.values, [3.0, 1.0, 2.0])
    np.testing.assert_array_equal(obs.y, [-3.0, -1.0, -2.0])  # inside: larger is better
    np.testing.assert_allclose(obs.rewards(), [1 / 6, 5 / 6, 3 / 6])
    np.testing.assert_allclose(obs.rewards(2), [1 / 4, 3 / 4])  # the first two on their own
    assert obs.best("best_x") == 1
    assert obs.best_params() == {"x": 0.5}


def test_gp_targets_clip_infinities_to_the_finite_range() -> None:
    obs = Observations(UnitCube([ParamSpec("x", "float", low=0.0, high=1.0)]), "maximize")
    y = np.array([1.0, np.inf, -np.inf, 3.0])
    obs.append(np.linspace(0, 1, 4)[:, None], y, np.full(4, np.inf))
    # clipped to [1, 3], then scaled by 2**-2 so that the largest is in [0.5, 1) (exact)
    np.testing.assert_array_equal(obs.targets(np.arange(4)), [0.25, 0.75, 0.25, 0.75])
    np.testing.assert_array_equal(obs.targets(np.array([0, 3])), [0.25, 0.75])


def test_best_needs_a_told_value() -> None:
    obs = Observations(UnitCube([ParamSpec("x", "float", low=0.0, high=1.0)]), "maximize")
    with pytest.raises(RuntimeError, match="TreeUCB.best_x needs at least one told value"):
        obs.best("best_x")


SPACE = UnitCube(
    [ParamSpec("x", "float", low=0.0, high=1.0), ParamSpec("k", "int", low=0, high=3)]
)


def test_pending_drops_the_oldest_equal_point_then_one_in_the_same_cell() -> None:
    pending = Pending(SPACE)
    for x in ([0.3, 0.1], [0.3, 0.1], [0.3, 0.2], [0.6, 0.9]):
        pending.add(np.array(x))
    assert len(pending) == 4
    assert pending.drop(np.array([0.3, 0.1]))  # equal
    # k = 0 is the bin [0, 0.25): [0.3, 0.2] decodes like the pending [0.3, 0.1]
    assert pending.drop(np.array([0.3 + 1e-12, 0.2]))
    np.testing.assert_array_equal(pending.points, [[0.3, 0.2], [0.6, 0.9]])
    assert not pending.drop(np.array([0.31, 0.2]))  # another float value: kept
    assert not pending.drop(np.array([0.6, 0.2]))  # another bin: kept
    assert len(pending) == 2


def test_pending_counts_per_box_follow_adds_drops_and_new_partitions() -> None:
    part = TwoBoxes(2)
    pending = Pending(SPACE)
    pending.add(np.array([0.1, 0.1]))
    np.testing.assert_array_equal(pending.per_box(part, lambda P: P), [1, 0])
    pending.add(np.array([0.9, 0.9]))
    pending.add(np.array([0.95, 0.9]))
    np.testing.assert_array_equal(pending.per_box(part, lambda P: P), [1, 2])
    pending.drop(np.array([0.9, 0.9]))
    np.testing.assert_array_equal(pending.per_box(part, lambda P: P), [1, 1])
    fresh = RefitPartition(2)  # one box, another version: every point located again
    fresh.version = part.version + 1
    np.testing.assert_array_equal(pending.per_box(fresh, lambda P: P), [2])


def test_pending_cells_are_the_value_cells_of_the_pending_points() -> None:
    # kept per point when it is added (not recomputed at every ask), in the order added
    pending = Pending(SPACE)
    rng = np.random.default_rng(0)
    points = rng.uniform(size=(12, SPACE.dim))
    for x in points:
        pending.add(x)
    for x in points[[3, 7, 0]]:
        assert pending.drop(x)
    lo, hi = pending.cells()
    want_lo, want_hi = SPACE.value_cells(pending.points)
    np.testing.assert_array_equal(lo, want_lo)
    np.testing.assert_array_equal(hi, want_hi)
    pending.add(points[3])  # a change after a read is seen
    assert pending.cells()[0].shape == (10, SPACE.dim)


def test_pending_pickled_without_cells_finds_them_again() -> None:
    import pickle

    pending = Pending(SPACE)
    pending.add(np.full(SPACE.dim, 0.3))
    state = pending.__getstate__()
    del state["_cells"]  # a checkpoint written before the cells were kept
    old = Pending.__new__(Pending)
    old.__setstate__(state)
    np.testing.assert_array_equal(old.cells()[0], SPACE.value_cells(old.points)[0])
    again = pickle.loads(pickle.dumps(old))
    assert len(again) == 1 and again.cells()[0].shape == (1, SPACE.dim)
