"""Rules for observations stopped early (budgets): exact toy rewards and the core's tell path."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import bohb_budget
from optuna_treeucb.core import budget_rewards
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


@pytest.mark.parametrize("rule", ["last_value", "tpe", "bohb"])
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
    for pruned in ("tpe", "bohb"):
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
