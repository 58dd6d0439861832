"""core._branch: the index of a categorical branch (issue #23)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from optuna_treeucb.core._branch import BranchChooser
from optuna_treeucb.core._branch import BranchStats
from optuna_treeucb.core._branch import arm_choices
from optuna_treeucb.core._branch import arm_index
from optuna_treeucb.core._branch import branch_index
from optuna_treeucb.core._branch import choose_arm
from optuna_treeucb.core._branch import n_good
from optuna_treeucb.core._branch import scores


def test_n_good_is_tpes_default_gamma() -> None:
    # optuna.samplers._tpe.sampler.default_gamma: min(ceil(0.1 n), 25)
    assert [n_good(n) for n in (1, 10, 11, 100, 1000)] == [1, 1, 2, 10, 25]


def test_an_arm_without_trials_is_played_first() -> None:
    rng = np.random.default_rng(0)
    arms = np.array([0, 0, 1, 1])
    rewards = np.array([0.9, 0.8, 0.1, 0.2])
    index = branch_index(arms, rewards, 3, rng)
    assert np.isinf(index[2]) and np.isfinite(index[:2]).all()
    assert choose_arm(arms, rewards, 3, rng) == 2


def test_draws_are_beta_posteriors_of_the_good_share() -> None:
    # 20 trials: n_good = 2, both in arm 1 (rewards 1.0, 0.9); arm 0 has 0 of 10
    arms = np.repeat([0, 1], 10)
    rewards = np.r_[np.full(10, 0.5), 1.0, 0.9, np.zeros(8)]
    rng = np.random.default_rng(1)
    draws = np.array([branch_index(arms, rewards, 2, rng) for _ in range(4000)])
    for a, (k, n) in enumerate([(0, 10), (2, 10)]):
        p = scipy.stats.kstest(draws[:, a], scipy.stats.beta(k + 1, n - k + 1).cdf).pvalue
        assert p > 1e-3


def test_the_arm_of_the_good_trials_wins_despite_a_poor_mean() -> None:
    rng = np.random.default_rng(0)
    arms = np.repeat([0, 1], 20)
    rewards = np.concatenate([np.full(20, 0.6), np.r_[np.full(4, 1.0), np.full(16, 0.0)]])
    picks = [choose_arm(arms, rewards, 2, rng) for _ in range(200)]
    assert np.mean(picks) > 0.8


def test_the_incremental_stats_choose_as_choose_arm_on_a_random_sequence() -> None:
    # ties (scores on a grid of 5 values), several arms, and more than GOOD_CAP good trials
    data = np.random.default_rng(7)
    n_arms, n = 4, 400
    arms = data.integers(n_arms, size=n)
    scores = data.integers(5, size=n).astype(float) + np.where(data.random(n) < 0.5, 0.0, 0.5)
    stats = BranchStats(n_arms)
    picks = []
    for i in range(n):
        a = stats.choose(np.random.default_rng([3, i]))
        b = choose_arm(arms[:i], scores[:i], n_arms, np.random.default_rng([3, i]))
        assert a == b, i
        picks.append(a)
        stats.tell(int(arms[i]), float(scores[i]))
    assert len(set(picks)) == n_arms  # the sequence exercised every arm's draw


def test_the_incremental_stats_reject_an_arm_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"arm=3 is outside \[0, 3\)"):
        BranchStats(3).tell(3, 1.0)


def test_capped_draws_weigh_an_arm_as_at_most_n_good_trials() -> None:
    # 100 trials: n_good = 10, all in arm 1 (90 trials); arm 0 has 0 of 10 (not scaled)
    arms = np.r_[np.zeros(10, dtype=int), np.ones(90, dtype=int)]
    rewards = np.r_[np.zeros(10), np.ones(10), np.full(80, 0.5)]
    rng = np.random.default_rng(2)
    draws = np.array([branch_index(arms, rewards, 2, rng, capped=True) for _ in range(4000)])
    s = 10 / 90
    for a, (k, n) in enumerate([(0.0, 10.0), (10 * s, 90 * s)]):
        p = scipy.stats.kstest(draws[:, a], scipy.stats.beta(k + 1, n - k + 1).cdf).pvalue
        assert p > 1e-3
    stats = BranchStats(2)
    for a, r in zip(arms, rewards):
        stats.tell(int(a), float(r))
    for i in range(50):
        picks = [
            f(np.random.default_rng([i, 1]))
            for f in (
                lambda g: stats.choose(g, capped=True),
                lambda g: choose_arm(arms, rewards, 2, g, capped=True),
            )
        ]
        assert picks[0] == picks[1]


def test_many_arms_share_one_prior_pseudo_count() -> None:
    # 50 arms (PRIOR_ARMS = 4): a = 4 / 50; n = 20 trials, n_good = 2, both in arm 1
    arms = np.r_[np.zeros(10, dtype=int), np.ones(10, dtype=int)]
    rewards = np.r_[np.full(10, 0.5), 1.0, 0.9, np.zeros(8)]
    rng = np.random.default_rng(2)
    draws = np.array([branch_index(arms, rewards, 50, rng) for _ in range(4000)])
    a = 4 / 50
    for arm, dist in [
        (0, scipy.stats.beta(0 + a, 10 + 1)),
        (1, scipy.stats.beta(2 + a, 8 + 1)),
        (7, scipy.stats.beta(a, 1)),  # no trials: drawn from the prior, not tried first
    ]:
        assert scipy.stats.kstest(draws[:, arm], dist.cdf).pvalue > 1e-3


def test_a_good_arm_among_50_is_chosen_over_once_tried_poor_ones() -> None:
    # arm 37 tried 5 times, all among the 6 good trials of 54; the 49 others once each.  With
    # Beta(1, 1) priors the 49 draws of Beta(1, 2) together won often (issue 31, item 6)
    arms = np.r_[np.full(5, 37), np.delete(np.arange(50), 37)]
    rewards = np.r_[np.linspace(1.0, 0.96, 5), -np.linspace(0.0, 1.0, 49)]
    rng = np.random.default_rng(3)
    picks = np.array([choose_arm(arms, rewards, 50, rng, capped=True) for _ in range(2000)])
    assert np.mean(picks == 37) > 0.65  # 0.75 here; 0.46 with Beta(1, 1) priors


def test_up_to_four_arms_the_rule_is_beta_one_one() -> None:
    arms = np.array([0, 0, 1, 2, 3])
    rewards = np.array([0.1, 0.2, 0.9, 0.3, 0.4])
    a = branch_index(arms, rewards, 4, np.random.default_rng(5))
    b = np.random.default_rng(5).beta([1.0, 2.0, 1.0, 1.0], [3.0, 1.0, 2.0, 2.0])
    np.testing.assert_array_equal(a, b)


def test_arm_index_and_arm_choices_are_inverse() -> None:
    sizes = [3, 1, 4]
    arms = [arm_index(c, sizes) for c in np.ndindex(*sizes)]
    assert arms == list(range(12))  # mixed radix, the last parameter fastest
    assert [arm_choices(a, sizes) for a in arms] == [list(c) for c in np.ndindex(*sizes)]


def test_scores_sign_one_objective_and_rank_otherwise() -> None:
    np.testing.assert_array_equal(scores([1.0, 3.0], [0.0, 0.0], "minimize"), [-1.0, -3.0])
    np.testing.assert_array_equal(scores([1.0, 3.0], [0.0, 0.0], "maximize"), [1.0, 3.0])
    # a violation: infeasible below feasible whatever the value (rewards in [0, 1])
    s = scores([1.0, 3.0, 0.0], [0.0, 0.0, 2.0], "minimize")
    assert s[0] > s[1] > s[2]
    front = scores([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], [0.0] * 3, ["minimize", "minimize"])
    assert front[0] == front[1] > front[2]


@pytest.mark.parametrize("violated", [False, True])
def test_the_chooser_folding_a_growing_log_chooses_as_reading_it_in_full(violated: bool) -> None:
    # one objective: summaries folded incrementally; a violation switches to reading in full
    rng = np.random.default_rng(7)
    log = [(int(a), float(v), 0.0) for a, v in zip(rng.integers(5, size=80), rng.normal(size=80))]
    if violated:
        log[40] = (log[40][0], log[40][1], 0.5)
    cached, full = BranchChooser("minimize"), BranchChooser("minimize")
    for end in range(1, len(log) + 1):

        def read(start: int, end: int = end) -> list[tuple[int, float, float]]:
            return log[start:end]

        a = cached.choose("k", 5, read, end, np.random.default_rng(end))
        b = full.choose("k", 5, read, end, np.random.default_rng(end), subset=True)
        assert a == b


@pytest.mark.parametrize("violated", [False, True])
def test_one_direction_in_a_list_chooses_as_the_string(violated: bool) -> None:
    # a branch of two categorical parameters (2 x 3 combinations) over a growing log: a list of
    # one direction takes the string's path, folded incrementally until a violation
    rng = np.random.default_rng(11)
    log = [
        ([int(rng.integers(2)), int(rng.integers(3))], float(v), 0.0) for v in rng.normal(size=80)
    ]
    if violated:
        log[30] = (log[30][0], log[30][1], 0.5)
    plain, listed = BranchChooser("minimize"), BranchChooser(["minimize"])
    assert plain.direction == listed.direction == ("minimize",)
    for end in range(1, len(log) + 1):

        def read(start: int, end: int = end) -> list[tuple[list[int], float, float]]:
            return log[start:end]

        for key in ("k", ("k", "other context")):
            a = plain.choose_combination(key, [2, 3], read, end, (3, end))
            b = listed.choose_combination(key, [2, 3], read, end, (3, end))
            assert a == b and a is not None


@pytest.mark.parametrize(
    ("direction", "error", "match"),
    [
        ("up", ValueError, r"'direction' parameter of BranchChooser must be one of .*Got 'up'"),
        ([], ValueError, r"'direction' parameter of BranchChooser .* non-empty sequence"),
        (1, TypeError, r"'direction' parameter of BranchChooser must be one of .*Got 1"),
    ],
)
def test_a_bad_direction_names_the_chooser(direction: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        BranchChooser(direction)  # type: ignore[arg-type]
