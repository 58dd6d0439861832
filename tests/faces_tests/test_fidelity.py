"""Trials stopped early (an Optuna pruner, a Tune scheduler) are observations at the step they
reached: under ``pruned="last_value"`` their last value counts as if final, under
``pruned="context"`` the step is a context dimension of the tree (Contextual TreeUCB)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.faces_tests.faces import Face
from tests.faces_tests.faces import Float

SPACE = {"x": Float(0.0, 1.0)}


@pytest.mark.parametrize(
    ("pruned", "budgets"),
    [("last_value", [2.0, math.inf, math.inf]), ("context", [2.0, 4.0, math.inf])],
)
def test_a_trial_stopped_early_is_told_at_the_step_it_reached(
    face: Face, pruned: str, budgets: list[float]
) -> None:
    run = face.make(SPACE, seed=0, pruned=pruned)
    stopped, full, plain = run.ask(), run.ask(), run.ask()
    for step, value in zip(range(1, 4), (1.0, 0.75, 0.6)):
        run.report(full, value, step)
    run.report(stopped, 1.0, 1)
    run.report(stopped, 0.5, 2)
    run.stop(stopped)  # at step 2, with 0.5, while another trial went further
    run.tell(full, 0.5, step=4)  # ran to its end, step 4
    run.tell(plain, 0.9)  # ran without steps
    model = run.model()
    # "context" tells every trial at its step (a trial without steps is full)
    np.testing.assert_array_equal(model.budgets, budgets)
    np.testing.assert_allclose(model.values, [0.5, 0.5, 0.9])
    # ranked by value alone: the stopped trial's 0.5 is worth the full trial's 0.5
    np.testing.assert_allclose(model.rewards(), [2 / 3, 2 / 3, 1 / 6])
    columns = 2 if pruned == "context" else 1  # x, and the step's context
    assert model.fit_leaves().low.shape[1] == columns


@pytest.mark.parametrize(("max_budget", "full"), [(None, 3.0), (9, 9.0)])
def test_the_context_rule_puts_every_trial_in_its_box_at_its_step(
    face: Face, max_budget: int | None, full: float
) -> None:
    run = face.make(SPACE, seed=0, n_startup_trials=4, pruned="context", max_budget=max_budget)
    for i in range(12):
        trial = run.ask()
        x = trial.params["x"]
        run.report(trial, x, 1)
        if i % 3 == 0:  # every third trial runs to the end, step 3
            run.tell(trial, 1.0 - x, step=3)
        else:
            run.stop(trial)
    core = run.model()
    np.testing.assert_array_equal(core.budgets, [3.0 if i % 3 == 0 else 1.0 for i in range(12)])
    leaves = core.fit_leaves()
    assert leaves.low.shape[1] == 2  # x, and the step's context
    # the full budget is max_budget or, when it is None, the largest step told; the points
    # lie in their boxes at their contexts log(1 + step) / log(1 + full)
    points = np.column_stack((core.X, np.log1p(core.budgets) / math.log1p(full)))
    box = core.partition.leaf_of
    assert np.all((leaves.low[box] <= points) & (points <= leaves.high[box]))
    assert 0.0 <= run.ask().params["x"] <= 1.0  # and the next point is chosen


def test_without_early_stops_both_rules_suggest_the_same(face: Face) -> None:
    # every trial reaches the same last step: nothing is stopped early, and the step's context
    # is the same for all, so "context" changes nothing
    runs = {p: face.make(SPACE, seed=3, pruned=p) for p in ("context", "last_value")}
    params = {}
    for pruned, run in runs.items():
        params[pruned] = []
        for _ in range(15):
            trial = run.ask()
            params[pruned].append(trial.params)
            run.tell(trial, (trial.params["x"] - 0.3) ** 2, step=3)
    assert params["context"] == params["last_value"]
    assert set(runs["last_value"].model().budgets.tolist()) == {math.inf}
    assert set(runs["context"].model().budgets.tolist()) == {3.0}
