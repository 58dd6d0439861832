"""Rules for observations stopped early (budgets): exact toy rewards and the core's tell path."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import bohb_budget
from optuna_treeucb.core import budget_contexts
from optuna_treeucb.core import budget_rewards
from optuna_treeucb.core import full_budget
from optuna_treeucb.core import normalize_rewards

INF = math.inf
# values (larger is better) and the step each evaluation reached (inf: full)
Y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
B = np.array([INF, 1.0, 3.0, INF, 1.0])


def test_tpe_rule_ranks_by_step_then_value() -> None:
    # order by (budget, value): (1, 2) < (1, 5) < (3, 3) < (inf, 1) < (inf, 4);
    # mid-ranks (k + 0.5) / 5 by hand
    np.testing.assert_allclose(
        budget_rewards(Y, B, "rank", "tpe"), [0.7, 0.1, 0.5, 0.9, 0.3], atol=1e-15
    )


def test_tpe_rule_with_minmax_scales_each_budget_inside_its_band() -> None:
    # bands by budget: step 1 -> [0, 0.4], step 3 -> [0.4, 0.6], full -> [0.6, 1]
    np.testing.assert_allclose(
        budget_rewards(Y, B, "minmax", "tpe"), [0.6, 0.0, 0.5, 1.0, 0.4], atol=1e-15
    )


@pytest.mark.parametrize(("n_min", "expected"), [(1, INF), (2, INF), (3, 3.0), (4, 1.0), (9, 1.0)])
def test_bohb_budget_is_the_largest_reached_by_n_min_observations(
    n_min: int, expected: float
) -> None:
    assert bohb_budget(B, n_min) == expected


def test_bohb_rule_ranks_the_model_budget_by_value_above_the_rest() -> None:
    # n_min = 3: b* = 3, so {inf, 3, inf} (values 1, 3, 4) rank by value above step 1 (2, 5)
    np.testing.assert_allclose(
        budget_rewards(Y, B, "rank", "bohb", n_min=3), [0.5, 0.1, 0.7, 0.9, 0.3], atol=1e-15
    )
    # n_min = 2: two full evaluations suffice, and the rule is TPE's
    np.testing.assert_array_equal(
        budget_rewards(Y, B, "rank", "bohb", n_min=2), budget_rewards(Y, B, "rank", "tpe")
    )


def test_last_value_rule_ignores_budgets() -> None:
    np.testing.assert_array_equal(
        budget_rewards(Y, B, "rank", "last_value"), normalize_rewards(Y, "rank")
    )


@pytest.mark.parametrize("rule", ["last_value", "tpe", "bohb", "context"])
@pytest.mark.parametrize("kind", ["rank", "minmax"])
@pytest.mark.parametrize("budget", [INF, 7.0])
def test_equal_budgets_give_the_rewards_without_budgets(
    rule: str, kind: str, budget: float
) -> None:
    y = np.random.default_rng(0).normal(size=20)
    b = np.full(20, budget)
    np.testing.assert_array_equal(
        budget_rewards(y, b, kind, rule, n_min=3),  # type: ignore[arg-type]
        normalize_rewards(y, kind),  # type: ignore[arg-type]
    )


def _run(pruned: str, budget_kw: dict[str, object], n: int = 40) -> np.ndarray:
    bandit = TreeUCB(3, seed=1, pruned=pruned, n_startup=5)  # type: ignore[arg-type]
    points = []
    for _ in range(n):
        x = bandit.ask_x()
        bandit.tell_x(x, float(-np.sum((x - 0.3) ** 2)), **budget_kw)  # type: ignore[arg-type]
        points.append(x)
    return np.array(points)


def test_full_evaluations_alone_give_the_same_run_under_every_rule() -> None:
    reference = _run("last_value", {})
    for pruned in ("tpe", "bohb", "context"):
        for kw in ({}, {"budget": None}, {"budget": INF}):
            np.testing.assert_array_equal(_run(pruned, kw), reference)


def test_the_rule_changes_the_run_once_budgets_differ() -> None:
    def run(pruned: str) -> np.ndarray:
        bandit = TreeUCB(2, seed=0, pruned=pruned, n_startup=4)  # type: ignore[arg-type]
        for _ in range(30):
            x = bandit.ask_x()
            # fast learners (large x0) look good early and are stopped at step 1
            bandit.tell_x(x, float(x[0]), budget=1 if x[0] > 0.5 else None)
            assert bandit.budgets[-1] == (1.0 if x[0] > 0.5 else INF)
        return bandit.rewards()

    last, tpe = run("last_value"), run("tpe")
    assert not np.array_equal(last, tpe)


def test_tell_many_takes_budgets_and_drops_them_with_nan_values() -> None:
    bandit = TreeUCB(1, seed=0)
    bandit.tell_many(np.array([[0.1], [0.2], [0.3]]), [1.0, math.nan, 3.0], [2, 5, None])
    np.testing.assert_array_equal(bandit.budgets, [2.0, INF])
    np.testing.assert_allclose(bandit.rewards(), [0.25, 0.75])


def test_tell_with_a_budget_ranks_below_a_full_evaluation_of_worse_value() -> None:
    bandit = TreeUCB(1, seed=0, direction="minimize", pruned="tpe")
    bandit.tell({"x0": 0.2}, 0.1, budget=3)  # a smaller loss, but stopped at step 3
    bandit.tell({"x0": 0.8}, 0.5)
    np.testing.assert_allclose(bandit.rewards(), [0.25, 0.75])
    assert bandit.best_params == {"x0": 0.8}  # the best full evaluation
    np.testing.assert_allclose(bandit.best_x, [0.8])  # one rule for both (TreeUCB._best)


@pytest.mark.parametrize(
    ("budget", "error", "match"),
    [
        (-1, ValueError, "budget >= 0.*Got -1"),
        (math.nan, ValueError, "budget >= 0.*Got nan"),
        ("3", TypeError, "a number or None. Got '3'"),
        (True, TypeError, "a number or None. Got True"),
    ],
)
def test_bad_budgets_are_rejected(budget: object, error: type[Exception], match: str) -> None:
    bandit = TreeUCB(1, seed=0)
    with pytest.raises(error, match=match):
        bandit.tell_x([0.5], 1.0, budget=budget)  # type: ignore[arg-type]
    assert bandit.n_observations == 0


def test_tell_many_needs_one_budget_per_value() -> None:
    bandit = TreeUCB(1, seed=0)
    with pytest.raises(ValueError, match="TreeUCB.tell_many needs one budget per value: got 1"):
        bandit.tell_many(np.array([[0.1], [0.2]]), [1.0, 2.0], [3])


def test_n_min_defaults_to_the_number_of_parameters_plus_one() -> None:
    assert TreeUCB(4).n_min == 5
    assert TreeUCB(4, n_min=2, pruned="bohb").n_min == 2


def test_budgets_survive_pickling_and_an_old_state_reads_as_full() -> None:
    bandit = TreeUCB(2, seed=0, pruned="bohb")
    for i in range(12):
        bandit.tell_x(bandit.ask_x(), float(i), budget=i % 3 or None)
    again = pickle.loads(pickle.dumps(bandit))
    np.testing.assert_array_equal(again.budgets, bandit.budgets)
    np.testing.assert_array_equal(again.ask_x(), bandit.ask_x())
    # a state pickled before budgets existed
    state = bandit.__getstate__()
    for name in ("_bbuf", "pruned", "n_min"):
        del state[name]
    old = TreeUCB.__new__(TreeUCB)
    old.__setstate__(state)
    assert old.pruned == "last_value" and set(old.budgets) == {INF}


# -- the budget as a context (pruned="context") ---------------------------------------------
def test_context_of_a_budget_is_its_log_step_over_the_full_budget() -> None:
    # log(1 + b) / log(1 + 27) by hand; a budget above the full one, or full, is 1
    contexts = budget_contexts(np.array([0.0, 1.0, 3.0, 9.0, 27.0, 40.0, INF]), 27.0)
    expected = [0.0, math.log(2) / math.log(28), math.log(4) / math.log(28)]
    np.testing.assert_allclose(contexts, [*expected, math.log(10) / math.log(28), 1, 1, 1])


@pytest.mark.parametrize(
    ("budget", "max_budget", "expected"),
    [
        ([1.0, 3.0, INF], None, 3.0),  # the largest step told
        ([1.0, 3.0, INF], 27.0, 27.0),  # the one given
        ([3.0, 3.0, INF], None, None),  # nothing below the full budget: no context column
        ([INF, INF], 27.0, None),
        ([27.0, 30.0], 27.0, None),
        ([], None, None),
    ],
)
def test_full_budget_is_max_budget_or_the_largest_step_if_some_budget_is_below(
    budget: list[float], max_budget: float | None, expected: float | None
) -> None:
    assert full_budget(np.array(budget), max_budget) == expected


def test_context_rule_rewards_are_the_values_ranks_whatever_the_budgets() -> None:
    np.testing.assert_array_equal(budget_rewards(Y, B, "rank", "context"), normalize_rewards(Y))


def _crossing(pruned: str, seed: int) -> TreeUCB:
    """Losses whose ranking flips with the budget: at step 1, small x0 look best; at the full
    budget (27, told as None), large x0 are best (fast learners end worse)."""
    extra = {"max_budget": 27} if pruned == "context" else {}
    bandit = TreeUCB(1, seed=seed, direction="minimize", C=0.0, M=0.0, pruned=pruned, **extra)  # type: ignore[arg-type]
    x = np.linspace(0.0125, 0.9875, 40)
    bandit.tell_many(x[:, None], x, np.ones(40))  # stopped at step 1: loss x0
    bandit.tell_many(x[::2, None], 1.0 - x[::2])  # full: loss 1 - x0
    return bandit


def test_context_rule_partitions_the_budget_and_plays_at_the_full_budget() -> None:
    bandit = _crossing("context", seed=0)
    leaves = bandit.fit_leaves()
    assert leaves.low.shape[1] == 2  # x0, and the budget's context last
    assert np.any((leaves.high[:, 1] > 0.0) & (leaves.high[:, 1] < 1.0))  # split on the budget
    # every observation lies in its box at its context log(2) / log(28) or 1
    ctx = np.where(np.isinf(bandit.budgets), 1.0, math.log(2) / math.log(28))
    points = np.column_stack((bandit.X, ctx))
    box = bandit.partition.leaf_of
    assert np.all((leaves.low[box] <= points) & (points <= leaves.high[box]))
    for seed in range(5):
        bandit.reseed(seed)
        # the best box at context 1 is where full evaluations are good
        assert bandit.ask()["x0"] > 0.5


def test_last_value_rule_mixes_the_budgets_on_the_same_data() -> None:
    # the same data under "last_value": the 40 good losses at step 1 outweigh the full ones
    asked = []
    for seed in range(5):
        bandit = _crossing("last_value", seed)
        asked.append(bandit.ask()["x0"])
        assert bandit.fit_leaves().low.shape[1] == 1
    assert min(asked) < 0.5


def test_a_larger_step_told_changes_every_context_and_refits_the_partition() -> None:
    bandit = TreeUCB(2, seed=0, pruned="context", n_startup=4)
    for i in range(20):
        bandit.tell_x(bandit.ask_x(), float(i % 7), budget=1 + i % 3)  # steps 1..3
    before = bandit.fit_leaves()
    bandit.tell_x(bandit.ask_x(), 1.0, budget=9)  # the full budget is now 9, not 3
    after = bandit.fit_leaves()
    assert bandit.partition.leaf_of.size == 21
    ctx = np.log1p(bandit.budgets) / math.log(10)
    points = np.column_stack((bandit.X, ctx))
    box = bandit.partition.leaf_of
    assert np.all((after.low[box] <= points) & (points <= after.high[box]))
    assert before.low.shape[1] == after.low.shape[1] == 3


def test_context_rule_survives_pickling() -> None:
    bandit = TreeUCB(2, seed=0, pruned="context", max_budget=9, sampling="parzen")
    for i in range(15):
        bandit.tell_x(bandit.ask_x(), float(i % 5), budget=(1, 3, None)[i % 3])
    again = pickle.loads(pickle.dumps(bandit))
    np.testing.assert_array_equal(again.ask_x(), bandit.ask_x())
    assert again.max_budget == 9.0
    # a state pickled before pruned="context" existed
    state = TreeUCB(2, seed=0, rule="incremental", gamma=0.4).__getstate__()
    for name in ("_partition_opts", "max_budget", "_context_B"):
        del state[name]
    old = TreeUCB.__new__(TreeUCB)
    old.__setstate__(state)
    assert old.max_budget is None and old._partition_opts["gamma"] == 0.4


def test_max_budget_without_the_context_rule_is_ignored_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="max_budget=27.0"):
        bandit = TreeUCB(2, max_budget=27)
    assert bandit.max_budget == 27.0  # kept as given; the rule that reads it is off
