"""Rewards of constrained and multi-objective observations (``core/_objectives.py``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from optuna_treeucb.core._objectives import RESORT_MIN
from optuna_treeucb.core._objectives import ParetoFronts
from optuna_treeucb.core._objectives import best_feasible
from optuna_treeucb.core._objectives import constrained_rewards
from optuna_treeucb.core._objectives import crowding_distances
from optuna_treeucb.core._objectives import domination_gaps
from optuna_treeucb.core._objectives import front_indices
from optuna_treeucb.core._objectives import hypervolume_contributions
from optuna_treeucb.core._objectives import hypervolume_improvements
from optuna_treeucb.core._objectives import objective_rewards
from optuna_treeucb.core._objectives import pareto_ranks
from optuna_treeucb.core._objectives import pareto_rewards
from optuna_treeucb.core._objectives import progress
from optuna_treeucb.core._objectives import total_violation
from optuna_treeucb.core._observations import Observations
from optuna_treeucb.core._observations import rank_rewards
from optuna_treeucb.core._space import as_cube


def _values_with_ties(seed: int, n: int, k: int) -> np.ndarray:
    """Values on a coarse grid (so ties and equal vectors occur), a few of them infinite."""
    rng = np.random.default_rng(seed)
    Y = rng.integers(0, 5, size=(n, k)).astype(float)
    Y[rng.random((n, k)) < 0.05] = np.inf
    Y[rng.random((n, k)) < 0.05] = -np.inf
    return Y


def _violation(seed: int, n: int, p_feasible: float = 0.5) -> np.ndarray:
    rng = np.random.default_rng([seed, 1])
    v = rng.integers(1, 4, size=n).astype(float)
    v[rng.random(n) < p_feasible] = 0.0
    return v


# -- identities with today's rank rewards ------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_one_objective_without_constraints_is_exactly_todays_rank_reward(seed: int) -> None:
    y = _values_with_ties(seed, 40, 1)[:, 0]
    expected = rank_rewards(y)
    np.testing.assert_array_equal(constrained_rewards(y), expected)
    np.testing.assert_array_equal(constrained_rewards(y, np.zeros(40)), expected)
    np.testing.assert_array_equal(pareto_rewards(y[:, None]), expected)
    np.testing.assert_array_equal(pareto_rewards(y[:, None], tie_break="crowding"), expected)
    np.testing.assert_array_equal(objective_rewards(y), expected)


@pytest.mark.parametrize("seed", range(3))
def test_one_objective_with_constraints_is_the_same_under_every_rule(seed: int) -> None:
    y, v = _values_with_ties(seed, 30, 1), _violation(seed, 30)
    expected = constrained_rewards(y[:, 0], v)
    np.testing.assert_array_equal(pareto_rewards(y, v), expected)
    np.testing.assert_array_equal(objective_rewards(y[:, 0], v), expected)


# -- hand-computed values ----------------------------------------------------------------------
def test_total_violation_is_the_sum_of_positive_parts() -> None:
    c = np.array([[-1.0, 2.0], [0.0, 0.0], [0.5, 0.5], [-3.0, -0.0]])
    np.testing.assert_array_equal(total_violation(c), [2.0, 0.0, 1.0, 0.0])


def test_constrained_rewards_hand_computed() -> None:
    # infeasible 2 (v=2) rank 1, infeasible 3 (v=1) rank 2, feasible 1 (y=1) 3, feasible 0 4
    y = np.array([3.0, 1.0, 2.0, 5.0])
    v = np.array([0.0, 0.0, 2.0, 1.0])
    np.testing.assert_allclose(constrained_rewards(y, v), [0.875, 0.625, 0.125, 0.375])
    # ties average: infeasible ranks 1.5, 1.5 whatever their values; feasible 3.5, 3.5
    y2, v2 = np.array([1.0, 1.0, 9.0, 0.0]), np.array([0.0, 0.0, 1.0, 1.0])
    np.testing.assert_allclose(constrained_rewards(y2, v2), [0.75, 0.75, 0.25, 0.25])


def test_pareto_ranks_of_a_hand_made_set() -> None:
    # maximised: (3,1), (1,3), (2,2) and the duplicate (3,1) are non-dominated; (2,1) is
    # dominated by (3,1) and (2,2); (1,1) by (2,1); (0,0) by everything
    Y = np.array([[3, 1], [1, 3], [2, 2], [1, 1], [2, 1], [0, 0], [3, 1]], dtype=float)
    np.testing.assert_array_equal(pareto_ranks(Y), [0, 0, 0, 2, 1, 3, 0])


def test_pareto_rewards_hand_computed() -> None:
    # per-objective rank rewards (x4): (3.5, 1), (0.5, 3.5), (2, 2.5), (2, 1); front 0 holds
    # the first three, whose exclusive areas (x16) are 1.5, 0.5 and 2.25
    Y = np.array([[3, 1], [1, 3], [2, 2], [2, 1]], dtype=float)
    np.testing.assert_allclose(pareto_rewards(Y), [0.625, 0.375, 0.875, 0.125])
    # crowding: both extremes inf (tie, rank 3.5), the knee 1 + 1 = 2 (rank 2)
    np.testing.assert_allclose(pareto_rewards(Y, tie_break="crowding"), [0.75, 0.75, 0.375, 0.125])
    # the knee infeasible: it drops below every feasible point
    v = np.array([0.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(pareto_rewards(Y, v), [0.875, 0.625, 0.125, 0.375])


def test_hypervolume_contributions_2d_hand_computed() -> None:
    P = np.array([[3.0, 1.0], [1.0, 3.0], [2.0, 2.0]])
    np.testing.assert_array_equal(hypervolume_contributions(P, np.zeros(2)), [1.0, 1.0, 1.0])
    # against (0.5, 0.5): (3, 1) keeps 1 x 0.5, (1, 3) 0.5 x 1, the knee 1 x 1
    np.testing.assert_array_equal(hypervolume_contributions(P, np.full(2, 0.5)), [0.5, 0.5, 1.0])


def _unit_cells(P: np.ndarray) -> int:
    """Hypervolume of integer points in {1..4}^3 against the origin: the unit cells
    [c, c+1) whose upper corner c+1 some point dominates."""
    cells = np.array(list(itertools.product(range(4), repeat=3))) + 1.0
    return int((P[None, :, :] >= cells[:, None, :]).all(axis=2).any(axis=1).sum())


@pytest.mark.parametrize("seed", range(4))
def test_hypervolume_contributions_3d_count_unit_cells(seed: int) -> None:
    P = np.random.default_rng(seed).integers(1, 5, size=(8, 3)).astype(float)
    front = np.unique(P[pareto_ranks(P) == 0], axis=0)
    for i, c in enumerate(hypervolume_contributions(front, np.zeros(3))):
        assert c == _unit_cells(front) - _unit_cells(np.delete(front, i, axis=0))


def test_beyond_three_objectives_the_hypervolume_tie_break_is_the_crowding_distance() -> None:
    Y = np.random.default_rng(0).normal(size=(30, 4))
    np.testing.assert_array_equal(pareto_rewards(Y), pareto_rewards(Y, tie_break="crowding"))


def test_hypervolume_improvements_2d_hand_computed() -> None:
    front = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])  # HV above (0, 0): 6
    points = np.array([[2.5, 2.5], [2.0, 2.0], [1.5, 1.5], [4.0, 0.5], [-1.0, 5.0], [1.0, 4.0]])
    hvi = hypervolume_improvements(points, front, np.zeros(2))
    # (2.5, 2.5) adds [1, 2] x [2, 2.5] and [2, 2.5] x [1, 2.5]: 0.5 + 0.75;
    # a front point and a dominated point add nothing; (4, 0.5) adds 1 x 0.5; a point below
    # the reference adds nothing; (1, 4) adds 1 x 1
    np.testing.assert_allclose(hvi, [1.25, 0.0, 0.0, 0.5, 0.0, 1.0])


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("seed", range(3))
def test_hypervolume_improvements_are_the_hypervolume_gained(k: int, seed: int) -> None:
    import moocore

    rng = np.random.default_rng(seed)
    front = rng.random((7, k))
    points = rng.random((20, k)) * 1.2
    ref = np.full(k, 0.0)
    hv = moocore.hypervolume(front, ref=ref, maximise=True)
    want = [
        moocore.hypervolume(np.vstack((front, p)), ref=ref, maximise=True) - hv for p in points
    ]
    got = hypervolume_improvements(points, front, ref)
    np.testing.assert_allclose(got, want, atol=1e-12)
    # with an empty front, the improvement is the box above the reference
    np.testing.assert_allclose(hypervolume_improvements(points, front[:0], ref), points.prod(1))


def test_domination_gaps_hand_computed() -> None:
    front = np.array([[1.0, 3.0], [3.0, 1.0]])
    points = np.array([[0.5, 2.0], [2.0, 2.0], [0.0, 0.0]])
    # (0.5, 2) must rise 0.5 to leave (1, 3)'s dominance; (2, 2) is not dominated: 1 - 2 and
    # 3 - 2 give -1; (0, 0) must rise 1 (min(1, 3) vs min(3, 1) = 1)
    np.testing.assert_allclose(domination_gaps(points, front), [0.5, -1.0, 1.0])


def test_crowding_distance_hand_computed() -> None:
    P = np.array([[0.0, 4.0], [1.0, 3.0], [3.0, 1.0], [4.0, 0.0]])
    # (1,3): (3-0)/4 + (4-1)/4 = 1.5; (3,1): (4-1)/4 + (3-0)/4 = 1.5
    np.testing.assert_allclose(crowding_distances(P), [np.inf, 1.5, 1.5, np.inf])
    assert np.isinf(crowding_distances(P[:2])).all()


def test_best_feasible_and_front_indices() -> None:
    y = np.array([5.0, 3.0, 4.0, 4.0])
    assert best_feasible(y) == 0
    assert best_feasible(y, np.array([1.0, 0.0, 0.0, 0.0])) == 2  # first of the tie
    assert best_feasible(y, np.array([1.0, 2.0, 0.5, 3.0])) == 2  # none feasible
    Y = np.array([[3, 1], [1, 3], [2, 2], [2, 1]], dtype=float)
    np.testing.assert_array_equal(front_indices(Y), [0, 1, 2])
    np.testing.assert_array_equal(front_indices(Y, np.array([0.0, 1.0, 0.0, 0.0])), [0, 2])
    np.testing.assert_array_equal(front_indices(Y, np.array([2.0, 1.0, 1.0, 3.0])), [1, 2])


def test_progress_grows_exactly_at_a_new_best_feasible_observation() -> None:
    y = np.array([[1.0], [3.0], [5.0], [2.0], [4.0]])
    v = np.array([0.0, 0.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(progress(y, v), [1.0, 3.0, -np.inf, 2.0, 4.0])
    # two objectives: (2, 2) enters the front, (1, 1) does not, (3, 0) does, (4, 4) is
    # infeasible, (2, 2) again is weakly dominated
    Y = np.array([[2.0, 2.0], [1.0, 1.0], [3.0, 0.0], [4.0, 4.0], [2.0, 2.0]])
    v = np.array([0.0, 0.0, 0.0, 2.0, 0.0])
    np.testing.assert_array_equal(progress(Y, v), [1.0, 1.0, 2.0, -np.inf, 2.0])


# -- invariants --------------------------------------------------------------------------------
RULES = {
    "constrained": lambda Y, v: constrained_rewards(Y[:, 0], v),
    "pareto-hv": lambda Y, v: pareto_rewards(Y, v),
    "pareto-crowding": lambda Y, v: pareto_rewards(Y, v, tie_break="crowding"),
}


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 2), (2, 3), (3, 3)])
def test_rewards_in_unit_interval_feasible_above_infeasible(rule: str, seed: int, k: int) -> None:
    Y, v = _values_with_ties(seed, 50, k), _violation(seed, 50)
    r = RULES[rule](Y, v)
    assert r.shape == (50,) and (r >= 0).all() and (r <= 1).all()
    assert r[v == 0].min() > r[v > 0].max()
    # infeasible ones by violation only
    for a, b in itertools.combinations(np.flatnonzero(v > 0), 2):
        assert np.sign(r[a] - r[b]) == np.sign(v[b] - v[a])
    # the mid-ranks of n observations sum to n / 2
    np.testing.assert_allclose(r.sum(), 25.0)


@pytest.mark.parametrize("tie_break", ["hypervolume", "crowding"])
@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 3)])
def test_pareto_rewards_order_fronts_and_share_equal_vectors(
    tie_break: str, seed: int, k: int
) -> None:
    Y = _values_with_ties(seed, 60, k)
    r = pareto_rewards(Y, tie_break=tie_break)  # type: ignore[arg-type]
    fronts = pareto_ranks(Y)
    for f in range(fronts.max()):
        assert r[fronts == f].min() > r[fronts == f + 1].max()
    for a, b in itertools.combinations(range(60), 2):
        if (Y[a] == Y[b]).all():
            assert r[a] == r[b]


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rewards_are_invariant_to_increasing_transforms_and_permutations(rule: str) -> None:
    rng = np.random.default_rng(7)
    Y, v = rng.normal(size=(40, 3)), _violation(7, 40)
    r = RULES[rule](Y, v)
    transformed = np.column_stack([np.exp(Y[:, 0]), 3 * Y[:, 1] - 1, Y[:, 2] ** 3])
    np.testing.assert_array_equal(RULES[rule](transformed, v), r)
    perm = rng.permutation(40)
    np.testing.assert_allclose(RULES[rule](Y[perm], v[perm]), r[perm])


def test_empty_inputs() -> None:
    assert constrained_rewards(np.zeros(0), np.zeros(0)).shape == (0,)
    assert pareto_rewards(np.zeros((0, 2))).shape == (0,)
    assert front_indices(np.zeros((0, 2))).shape == (0,)


# -- errors ------------------------------------------------------------------------------------
def test_shape_errors_name_the_parameter_and_the_shapes() -> None:
    with pytest.raises(
        ValueError, match=r"'violation' .* shape \(n,\) = \(3,\).*Got shape \(2,\)"
    ):
        constrained_rewards(np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match=r"'values' .* shape \(n, k\).*Got shape \(3,\)"):
        pareto_rewards(np.zeros(3))
    with pytest.raises(ValueError, match=r"'constraints' .* shape \(n, c\).*Got shape \(4,\)"):
        total_violation(np.zeros(4))
    with pytest.raises(ValueError, match=r"'y' parameter of constrained_rewards .*\(n,\)"):
        constrained_rewards(np.zeros((2, 2)))


def test_value_errors() -> None:
    with pytest.raises(ValueError, match="'constraints' .* NaN"):
        total_violation(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="'violation' .* >= 0"):
        constrained_rewards(np.zeros(2), np.array([0.0, -1.0]))
    with pytest.raises(ValueError, match="'values' .* NaN"):
        pareto_rewards(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="'tie_break' .* Got 'knee'"):
        pareto_rewards(np.zeros((2, 2)), tie_break="knee")  # type: ignore[arg-type]


def test_observations_keep_progress_up_to_date_as_the_pure_function_computes_it() -> None:
    # the store extends improvements() by the new rows only; it must equal a full recompute
    rng = np.random.default_rng(0)
    obs = Observations(as_cube(2), ("maximize", "minimize", "maximize"))
    for m in (1, 3, 1, 7, 2, 10):
        Y = np.round(rng.random((m, 3)) * 4)  # ties, so weak domination matters
        v = np.where(rng.random(m) < 0.3, rng.random(m), 0.0)
        obs.append(rng.random((m, 2)), Y, np.full(m, np.inf), violations=v)
        np.testing.assert_array_equal(obs.progress(), progress(obs.Y, obs.violations))
    assert obs.progress()[np.isfinite(obs.progress())].max() > 1  # the front grew


@pytest.mark.parametrize("seed", range(6))
def test_pareto_fronts_kept_up_to_date_equal_the_full_sort(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, k = 300, 2 + seed % 2
    # ties and repeated vectors (a coarse grid) or distinct floats, a few infinities
    Y = rng.integers(0, 6, (n, k)).astype(float) if seed % 2 else rng.random((n, k))
    Y[rng.random((n, k)) < 0.02] = np.inf
    fronts = ParetoFronts(k)
    cuts = [1, 2, 40, 41, 41 + RESORT_MIN + 1, 250, n]  # one at a time, and many at once
    start = 0
    for end in cuts:
        got = fronts.extend(Y[start:end])
        np.testing.assert_array_equal(got, pareto_ranks(Y[:end]))
        start = end
    # the rewards from the kept fronts are the full computation's, bit for bit
    v = np.where(rng.random(n) < 0.2, rng.random(n), 0.0)
    kept = ParetoFronts(k)
    for row in Y[v == 0.0]:
        kept.extend(row[None])
    np.testing.assert_array_equal(pareto_rewards(Y, v, fronts=kept.fronts), pareto_rewards(Y, v))


def test_observations_rewards_with_kept_fronts_equal_the_pure_function() -> None:
    rng = np.random.default_rng(7)
    obs = Observations(as_cube(2), ["minimize", "maximize"])
    for _ in range(5):
        m = int(rng.integers(1, 90))
        Y = rng.integers(0, 8, (m, 2)).astype(float)
        v = np.where(rng.random(m) < 0.3, rng.random(m), 0.0)
        obs.append(rng.random((m, 2)), Y, np.full(m, np.inf), None, v)
        np.testing.assert_array_equal(obs.rewards(), pareto_rewards(obs.Y, obs.violations))
        assert obs.rewards(obs.n - 1).shape == (obs.n - 1,)  # a prefix: the full sort
