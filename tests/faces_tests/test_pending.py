"""Running trials are pending points of the core, held under the trial's key (Optuna: its
number; Tune: its trial id): every ask sees exactly the trials still running, and a trial that
ends (told, failed, or dropped for a NaN value) frees its own slot."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.faces_tests.faces import Face
from tests.faces_tests.faces import Float
from tests.faces_tests.faces import Int
from tests.faces_tests.faces import Trial


def _sorted(points: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(tuple(p[k] for k in sorted(p)) for p in points)


def test_running_trials_get_distinct_suggestions_near_the_best(face: Face) -> None:
    # 8 trials asked at once after 30 told ones: each sees the others as pending, and every
    # suggestion is new and as close to the optimum (0.3, 0.6) as the told trials' median
    def objective(p: dict[str, Any]) -> float:
        return (p["x"] - 0.3) ** 2 + (p["y"] - 0.6) ** 2

    run = face.make({"x": Float(0.0, 1.0), "y": Float(0.0, 1.0)}, seed=0)
    told = run.run(30, objective)
    asked = face.watch()
    running: list[Trial] = []
    for _ in range(8):
        running.append(run.ask())
        assert _sorted(asked[-1].points) == _sorted([t.params for t in running[:-1]])
    points = [t.params for t in running]
    assert len(set(_sorted(told + points))) == 38
    assert np.median([objective(p) for p in points]) < np.median([objective(p) for p in told])


@pytest.mark.filterwarnings("ignore:The value nan is not acceptable:UserWarning")
def test_identical_running_points_each_free_their_own_slot(face: Face) -> None:
    point = {"x": 0.25, "n": 1}
    told = [{"x": 0.0, "n": 0}, {"x": 1.0, "n": 2}]  # so that Optuna's next trials are modelled
    run = face.make(
        {"x": Float(0.0, 1.0, step=0.25), "n": Int(0, 2)},
        seed=0,
        n_startup_trials=1,
        points=told + [point] * 3,
    )
    run.run(2, lambda p: p["x"])
    first, second, third = (run.ask() for _ in range(3))  # one point: queued, not sampled
    assert first.params == second.params == third.params == point
    asked = face.watch()
    probe = run.ask()
    assert asked[-1].keys == [first.key, second.key, third.key]
    assert asked[-1].points == [point] * 3
    run.tell(second, 1.0)  # the later one finishes first
    run.ask()
    assert asked[-1].keys == [first.key, third.key, probe.key]
    run.fail(first)
    run.tell(third, float("nan"))  # dropped, as a failed trial
    run.ask()
    assert asked[-1].keys[:1] == [probe.key] and len(asked[-1].keys) == 2
    assert run.model().n_observations == 3


@pytest.mark.filterwarnings("ignore:The value nan is not acceptable:UserWarning")
@pytest.mark.parametrize("seed", [0, 1])
def test_pending_points_are_the_running_trials_on_a_random_schedule(face: Face, seed: int) -> None:
    rng = np.random.default_rng(seed)
    run = face.make(  # a grid of 15 points: duplicates are common
        {"x": Float(0.0, 1.0, step=0.25), "n": Int(0, 2)}, seed=seed, n_startup_trials=3
    )
    asked = face.watch()
    running: list[Trial] = []
    checked = 0
    for _ in range(120):
        if not running or rng.random() < 0.55:
            before = len(asked)
            trial = run.ask()
            if len(asked) > before:  # the core chose it (Optuna's first trial is random)
                assert sorted(asked[-1].keys, key=str) == sorted((t.key for t in running), key=str)
                assert _sorted(asked[-1].points) == _sorted([t.params for t in running])
                checked += 1
            running.append(trial)
            continue
        trial = running.pop(int(rng.integers(len(running))))
        kind = rng.integers(4)
        if kind == 0:
            run.fail(trial)
        elif kind == 1:
            run.tell(trial, float("nan"))  # dropped
        else:
            run.tell(trial, float(rng.random()))
    assert checked >= 50
