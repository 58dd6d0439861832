"""Constraints and several objectives (issue #24): Optuna's ``trial.set_constraint`` and
``directions``, Tune's ``constraints`` result keys and ``metric``/``mode`` lists, reach the
core as the same values, violations and constraint columns."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from optuna_treeucb.core import TreeUCB
from tests.faces_tests.faces import Choice
from tests.faces_tests.faces import Face
from tests.faces_tests.faces import Float
from tests.faces_tests.faces import Int


def _bowl(p: dict[str, Any]) -> float:
    """Minimised at (1, 1), which the constraint x + y <= 0 makes infeasible."""
    return (p["x"] - 1.0) ** 2 + (p["y"] - 1.0) ** 2


def test_one_objective_with_a_constraint(face: Face) -> None:
    run = face.make({"x": Float(-2.0, 2.0), "y": Float(-2.0, 2.0)}, n_constraints=1, seed=0)
    sums = []
    for _ in range(20):
        trial = run.ask()
        sums.append(trial.params["x"] + trial.params["y"])
        run.tell(trial, _bowl(trial.params), constraints=[sums[-1]])
    model = run.model()
    assert (model.violations > 0).any()  # the constraint is active
    np.testing.assert_allclose(model.violations, np.maximum(sums, 0.0))
    assert model.constraints is not None  # and each constraint's value, for its GP
    np.testing.assert_allclose(model.constraints[:, 0], sums)
    best = model.best_params
    assert best["x"] + best["y"] <= 0.0  # the best feasible point, not the smallest value
    assert run.best_params() == best  # the face's own best (Optuna's best_params) agrees


def _zdt1(p: dict[str, Any]) -> list[float]:
    """A ZDT1-like pair of losses; the constraint 0.2 - x is satisfied when x >= 0.2."""
    g = 1.0 + 9.0 * p["y"]
    return [p["x"], g * (1.0 - math.sqrt(p["x"] / g))]


def test_two_objectives_with_a_constraint(face: Face) -> None:
    run = face.make(
        {"x": Float(0.0, 1.0), "y": Float(0.0, 1.0)},
        directions=["minimize", "minimize"],
        n_constraints=1,
        seed=0,
        n_startup_trials=5,
    )
    params = []
    for _ in range(45):
        trial = run.ask()
        params.append(trial.params)
        run.tell(trial, _zdt1(trial.params), constraints=[0.2 - trial.params["x"]])
    core = run.model()
    assert core.direction == ("minimize", "minimize")
    np.testing.assert_allclose(core.values, [_zdt1(p) for p in params])
    np.testing.assert_allclose(core.violations, [max(0.0, 0.2 - p["x"]) for p in params])
    assert core.constraints is not None
    np.testing.assert_allclose(core.constraints[:, 0], [0.2 - p["x"] for p in params])
    front = run.front_params()  # Optuna's best_trials; the searcher's core front
    assert front and all(p["x"] >= 0.2 for p in front)
    assert sorted(map(sorted, (p.items() for p in front))) == sorted(
        map(sorted, (p.items() for p in core.front_params))
    )
    # after start-up feasible points are asked more often than their share of the box, 0.8:
    # 37 or more of 40 would happen with probability 0.03 if they were drawn uniformly
    assert sum(p["x"] >= 0.2 for p in params[5:]) >= 37


def test_when_nothing_is_feasible_the_violation_falls(face: Face) -> None:
    # 1 + x^2 + y^2 <= 0 is never met: the face descends the violation (SCBO's rule)
    run = face.make({"x": Float(-1.0, 1.0), "y": Float(-1.0, 1.0)}, n_constraints=1, seed=0)
    violations = []
    for _ in range(120):
        trial = run.ask()
        x, y = trial.params["x"], trial.params["y"]
        violations.append(1.0 + x**2 + y**2)
        run.tell(trial, x + y, constraints=[violations[-1]])
    assert np.median(violations[80:]) < 1.1  # uniform draws: about 1.6


@pytest.mark.parametrize("directions", [["minimize"], ["maximize"]])
def test_one_objective_reaches_the_core_as_a_list_that_suggests_as_the_string(
    face: Face, directions: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # both faces hand the core one direction per objective, always; with one objective that
    # list must suggest exactly what the plain string did
    space = {"x": Float(-2.0, 2.0), "k": Int(0, 5), "c": Choice(("a", "b", "c"))}

    def objective(p: dict[str, Any]) -> float:
        return (p["x"] - 0.5) ** 2 + abs(p["k"] - 2) + (p["c"] != "b")

    def run() -> list[dict[str, Any]]:
        made = face.make(space, directions=directions, seed=0, n_startup_trials=4)
        return made.run(20, objective)

    init, handed = TreeUCB.__init__, []

    def as_string(core: TreeUCB, *args: Any, direction: Any, **kwargs: Any) -> None:
        handed.append(direction)
        plain = direction[0] if not isinstance(direction, str) else direction
        init(core, *args, direction=plain, **kwargs)

    listed = run()
    monkeypatch.setattr(TreeUCB, "__init__", as_string)
    assert run() == listed
    assert handed and all(list(d) == directions for d in handed)  # a list or tuple, not a str
    assert all(not isinstance(d, str) for d in handed)
