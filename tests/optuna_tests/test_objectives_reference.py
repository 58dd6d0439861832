"""``core/_objectives.py`` against Optuna's own implementations (the reference values).

Optuna minimises, the core maximises: every comparison negates the values.
"""

from __future__ import annotations

import numpy as np
import pytest
from optuna._hypervolume import compute_hypervolume
from optuna.study._multi_objective import _fast_non_domination_rank

from optuna_treeucb.core._objectives import constrained_rewards
from optuna_treeucb.core._objectives import hypervolume_contributions
from optuna_treeucb.core._objectives import pareto_ranks
from optuna_treeucb.core._objectives import pareto_rewards


@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 3), (2, 4)])
def test_pareto_ranks_match_optunas_non_dominated_sort(seed: int, k: int) -> None:
    Y = np.random.default_rng(seed).integers(0, 6, size=(80, k)).astype(float)
    np.testing.assert_array_equal(pareto_ranks(Y), _fast_non_domination_rank(-Y))


@pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 3), (2, 4)])
def test_hypervolume_contributions_match_optunas(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    P = rng.random((25, k))
    ref = np.full(k, -0.1)
    front = P[pareto_ranks(P) == 0]
    total = compute_hypervolume(-front, -ref)
    expected = [
        total - compute_hypervolume(-np.delete(front, i, 0), -ref) for i in range(len(front))
    ]
    np.testing.assert_allclose(hypervolume_contributions(front, ref), expected, atol=1e-12)


def test_constrained_order_matches_optunas_constrained_non_dominated_sort() -> None:
    # Optuna's constrained sort: the feasible fronts, then the infeasible ones by penalty; the
    # rewards must never order two observations against it
    rng = np.random.default_rng(3)
    Y = rng.integers(0, 4, size=(60, 2)).astype(float)
    v = np.where(rng.random(60) < 0.5, 0.0, rng.integers(1, 4, size=60).astype(float))
    ranks = _fast_non_domination_rank(-Y, penalty=v)
    r = pareto_rewards(Y, v)
    better = ranks[:, None] < ranks[None, :]
    assert (r[:, None] > r[None, :])[better].all()
    r1 = constrained_rewards(Y[:, 0], v)
    ranks1 = _fast_non_domination_rank(-Y[:, :1], penalty=v)
    assert (r1[:, None] > r1[None, :])[ranks1[:, None] < ranks1[None, :]].all()
