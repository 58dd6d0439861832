"""Observations stopped early (budgets): the budget context and the core's tell path."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core._fidelity import BudgetContext
from optuna_treeucb.core._fidelity import budget_contexts
from optuna_treeucb.core._fidelity import full_budget

INF = math.inf


def _run(pruned: str, budget_kw: dict[str, object], n: int = 40) -> np.ndarray:
    bandit = TreeUCB(3, seed=1, pruned=pruned, n_startup_trials=5)  # type: ignore[arg-type]
    points = []
    for _ in range(n):
        x = bandit.ask_x()
        bandit.tell_x(x, float(-np.sum((x - 0.3) ** 2)), **budget_kw)  # type: ignore[arg-type]
        points.append(x)
    return np.array(points)


def test_full_evaluations_alone_give_the_same_run_under_both_rules() -> None:
    reference = _run("last_value", {})
    for kw in ({}, {"budget": None}, {"budget": INF}):
        np.testing.assert_array_equal(_run("context", kw), reference)


@pytest.mark.parametrize(("pruned", "full"), [("last_value", None), ("context", 7.0)])
def test_the_budget_of_a_complete_evaluation_depends_on_the_rule(
    pruned: str, full: float | None
) -> None:
    bandit = TreeUCB(1, pruned=pruned)  # type: ignore[arg-type]
    assert bandit.budget_of(7.0, complete=True) == full
    assert bandit.budget_of(3.0, complete=False) == 3.0  # stopped early: its step
    assert bandit.budget_of(None, complete=True) is None  # reported nothing: full


def test_an_evaluation_ending_below_the_furthest_step_noted_was_stopped_early() -> None:
    bandit = TreeUCB(1)
    assert not bandit.stopped_early(0.0)  # nothing noted: a full evaluation
    bandit.note_step(3)
    bandit.note_step(1.0)  # the furthest step stays
    assert bandit.stopped_early(2.0) and not bandit.stopped_early(3.0)
    assert not bandit.stopped_early(None)  # no step reported: full
    assert pickle.loads(pickle.dumps(bandit)).stopped_early(2.0)


@pytest.mark.parametrize(("step", "error"), [(-1.0, ValueError), (None, TypeError)])
def test_a_bad_step_names_the_parameter(step: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="'step' parameter of TreeUCB.note_step.*>= 0"):
        TreeUCB(1).note_step(step)  # type: ignore[arg-type]


def test_budget_context_says_when_the_contexts_change() -> None:
    context = BudgetContext("context", None)
    X = np.array([[0.2], [0.4]])
    same, changed = context.columns(X, np.array([INF, INF]))
    assert same is X and not changed and context.n_columns == 0
    cols, changed = context.columns(X, np.array([1.0, 3.0]))  # B = 3 now
    assert changed and context.n_columns == 1
    np.testing.assert_allclose(cols[:, 1], [math.log(2) / math.log(4), 1.0])
    assert not context.columns(X, np.array([1.0, 3.0]))[1]
    np.testing.assert_array_equal(context.at_full(X), [[0.2, 1.0], [0.4, 1.0]])
    assert context.played({0: 0.5}, 1) == {0: 0.5, 1: 1.0}
    off = BudgetContext("last_value", None)
    assert off.columns(X, np.array([1.0, 3.0])) == (X, False) and off.n_columns == 0


def test_tell_many_takes_budgets_and_drops_them_with_nan_values() -> None:
    bandit = TreeUCB(1, seed=0)
    bandit.tell_many(np.array([[0.1], [0.2], [0.3]]), [1.0, math.nan, 3.0], [2, 5, None])
    np.testing.assert_array_equal(bandit.budgets, [2.0, INF])
    np.testing.assert_allclose(bandit.rewards(), [0.25, 0.75])


@pytest.mark.parametrize(
    ("budget", "error", "match"),
    [
        (-1, ValueError, "'budget' parameter of TreeUCB.tell .* >= 0.*Got -1 instead"),
        (math.nan, ValueError, "'budget' .*Got nan instead"),
        ("3", TypeError, "'budget' .* a real number >= 0 .*Got '3' instead"),
        (True, TypeError, "'budget' .* or None or inf .*Got True instead"),
    ],
)
def test_bad_budgets_are_rejected(budget: object, error: type[Exception], match: str) -> None:
    bandit = TreeUCB(1, seed=0)
    with pytest.raises(error, match=match):
        bandit.tell_x([0.5], 1.0, budget=budget)  # type: ignore[arg-type]
    assert bandit.n_observations == 0


def test_tell_many_needs_one_budget_per_value() -> None:
    bandit = TreeUCB(1, seed=0)
    with pytest.raises(
        ValueError, match="'budgets' parameter of TreeUCB.tell_many .*Got 1 budgets for 2 values"
    ):
        bandit.tell_many(np.array([[0.1], [0.2]]), [1.0, 2.0], [3])


def test_best_is_among_the_observations_that_went_furthest() -> None:
    bandit = TreeUCB(1, seed=0, direction="minimize")
    bandit.tell({"x0": 0.2}, 0.1, budget=3)  # a smaller loss, but stopped at step 3
    bandit.tell({"x0": 0.8}, 0.5)
    assert bandit.best_params == {"x0": 0.8}  # the best full evaluation
    np.testing.assert_allclose(bandit.best_x, [0.8])


def test_budgets_survive_pickling() -> None:
    bandit = TreeUCB(2, seed=0, pruned="context")
    for i in range(12):
        bandit.tell_x(bandit.ask_x(), float(i), budget=i % 3 or None)
    again = pickle.loads(pickle.dumps(bandit))
    np.testing.assert_array_equal(again.budgets, bandit.budgets)
    np.testing.assert_array_equal(again.ask_x(), bandit.ask_x())


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
    bandit = TreeUCB(2, seed=0, pruned="context", n_startup_trials=4)
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
    bandit = TreeUCB(2, seed=0, pruned="context", max_budget=9, sampling="trust_region")
    for i in range(15):
        bandit.tell_x(bandit.ask_x(), float(i % 5), budget=(1, 3, None)[i % 3])
    again = pickle.loads(pickle.dumps(bandit))
    np.testing.assert_array_equal(again.ask_x(), bandit.ask_x())
    assert again.max_budget == 9.0


def test_max_budget_without_the_context_rule_is_ignored_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="max_budget=27.0"):
        bandit = TreeUCB(2, max_budget=27)
    assert bandit.max_budget == 27.0  # kept as given; the rule that reads it is off
