"""COCO's ``bbob-constrained`` and ``bbob-biobj`` problems (issue 32): they build offline,
evaluate, give constraint values or two objectives, take their instance from the seed, and run
through ``constrained`` and ``moo`` at tiny sizes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import optuna
import pytest

from benchmarks import __main__ as cli
from benchmarks import moo
from benchmarks._harness import load_runs
from benchmarks._problems._boxes import COCO_BIOBJ_PROBLEMS
from benchmarks._problems._boxes import COCO_CONSTRAINED_PROBLEMS
from benchmarks._problems._boxes import box

optuna.logging.set_verbosity(optuna.logging.ERROR)


@pytest.mark.parametrize("name", COCO_CONSTRAINED_PROBLEMS)
def test_constrained_problem_gives_one_value_and_its_constraints(name: str) -> None:
    problem = box(name, 100)
    d = int(name.rsplit("-", 1)[1][:-1])
    assert problem.dim == d and problem.n_objectives == 1 and problem.n_constraints >= 1
    np.testing.assert_array_equal(problem.low, -5.0)
    np.testing.assert_array_equal(problem.high, 5.0)
    assert math.isnan(problem.optimum)  # cocoex exposes none: the report takes the best seen
    x = np.random.default_rng(0).uniform(problem.low, problem.high)
    F, G = problem.evaluate(x)
    assert F.shape == (1,) and G.shape == (problem.n_constraints,)
    assert np.all(np.isfinite(F)) and np.all(np.isfinite(G))
    F2, G2 = box(name, 100).evaluate(x)  # the same instance again
    np.testing.assert_array_equal(F, F2)
    np.testing.assert_array_equal(G, G2)


@pytest.mark.parametrize("name", COCO_BIOBJ_PROBLEMS)
def test_biobj_problem_gives_two_values_and_cocos_reference(name: str) -> None:
    problem = box(name, 100)
    assert problem.n_objectives == 2 and problem.n_constraints == 0
    assert problem.reference is not None and problem.reference.shape == (2,)
    F, G = problem.evaluate(np.zeros(problem.dim))
    assert F.shape == (2,) and G.shape == (0,) and np.all(np.isfinite(F))


def test_seed_picks_the_instance() -> None:
    x = np.full(2, 0.5)
    values = {
        seed: box("bbob-constrained-f1-2d", seed).evaluate(x)[0][0] for seed in (0, 5, 100, 101)
    }
    assert values[0] == values[5]  # instance 1 for both tuning seeds
    assert len({values[0], values[100], values[101]}) == 3


def test_commands_run_cocos_suites(results_in_tmp: Path) -> None:
    argv = ["--seeds", "1", "--seed-offset", "100", "--trials", "8", "--samplers", "TPE,Random"]
    cli.main(["constrained", "--problems", "bbob-constrained-f2-2d", *argv])
    text = (results_in_tmp / "constrained.md").read_text()
    assert "COCO's bbob-constrained problems" in text and "feasible @8" in text
    saved = str(results_in_tmp / "runs.pkl")
    cli.main(["moo", "--problems", "bbob-biobj-f1-2d", *argv, "--save", saved])
    assert "COCO's bbob-biobj problems" in (results_in_tmp / "moo.md").read_text()
    runs = load_runs(saved, lambda r: r["problem"] == "bbob-biobj-f1-2d")
    assert all(r["F"].shape == (8, 2) for r in runs)


def test_best_seen_is_per_instance() -> None:
    """Each seed is its own COCO instance: its own best seen, so the best run of each seed
    scores 0 (a best over every instance would clip some seeds' regrets to 0)."""
    runs = [
        moo.run_one(("moo", s, "bbob-biobj-f1-2d", seed, 12))
        for seed in (100, 101)
        for s in ("TPE", "Random")
    ]
    optima = moo.best_seen(runs)
    assert set(optima) == {"bbob-biobj-f1-2d@100", "bbob-biobj-f1-2d@101"}
    for seed in (100, 101):
        mine = [moo.score(r, 12, optima) for r in runs if r["seed"] == seed]
        assert min(mine) == 0.0 and max(mine) > 0.0


def test_group_name_stands_for_the_suite(results_in_tmp: Path) -> None:
    argv = ["--seeds", "1", "--seed-offset", "100", "--trials", "2", "--samplers", "Random"]
    cli.main(["moo", "--problems", "bbob-biobj", *argv])
    text = (results_in_tmp / "moo.md").read_text()
    assert f"{len(COCO_BIOBJ_PROBLEMS)} problems ({', '.join(COCO_BIOBJ_PROBLEMS)})" in text
    with pytest.raises(SystemExit):  # not a problem of the subset
        cli.main(["moo", "--problems", "bbob-biobj-f2-2d", *argv])
