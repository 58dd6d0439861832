"""core._branch: the index of a categorical branch (issue #23)."""

from __future__ import annotations

import numpy as np
import pytest

from optuna_treeucb.core._branch import branch_index
from optuna_treeucb.core._branch import choose_arm
from optuna_treeucb.core._branch import n_good


def test_n_good_is_tpes_default_gamma() -> None:
    # optuna.samplers._tpe.sampler.default_gamma: min(ceil(0.1 n), 25)
    assert [n_good(n) for n in (1, 10, 11, 100, 1000)] == [1, 1, 2, 10, 25]


@pytest.mark.parametrize("rule", ["share", "quantile", "ucb"])
def test_an_arm_without_trials_is_played_first(rule: str) -> None:
    rng = np.random.default_rng(0)
    arms = np.array([0, 0, 1, 1])
    rewards = np.array([0.9, 0.8, 0.1, 0.2])
    index = branch_index(arms, rewards, 3, rng, rule)  # type: ignore[arg-type]
    assert np.isinf(index[2]) and np.isfinite(index[:2]).all()
    assert choose_arm(arms, rewards, 3, rng, rule) == 2  # type: ignore[arg-type]


def test_quantile_and_ucb_values() -> None:
    arms = np.array([0, 0, 0, 0, 1])
    rewards = np.array([0.1, 0.2, 0.3, 0.9, 0.5])
    rng = np.random.default_rng(0)
    bonus = 0.3 * np.sqrt(np.log(5) / np.array([4.0, 1.0]))
    q = np.quantile([0.1, 0.2, 0.3, 0.9], 0.9)
    np.testing.assert_allclose(branch_index(arms, rewards, 2, rng, "quantile"), [q, 0.5] + bonus)
    np.testing.assert_allclose(branch_index(arms, rewards, 2, rng, "ucb"), [0.375, 0.5] + bonus)


def test_share_prefers_the_arm_of_the_good_trials() -> None:
    # arm 1 has a poor mean but holds the best trials: the share rule plays it most often
    rng = np.random.default_rng(0)
    arms = np.repeat([0, 1], 20)
    rewards = np.concatenate([np.full(20, 0.6), np.r_[np.full(4, 1.0), np.full(16, 0.0)]])
    picks = [choose_arm(arms, rewards, 2, rng, "share") for _ in range(200)]
    assert np.mean(picks) > 0.8


def test_unknown_rule() -> None:
    with pytest.raises(ValueError, match="branch rule"):
        branch_index(np.array([0]), np.array([0.5]), 1, np.random.default_rng(0), "mean")  # type: ignore[arg-type]
