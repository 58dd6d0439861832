"""The mixed-integer and conditional benchmark (issue #23) at tiny sizes: problems, lock-in
statistic and the command end to end (no network: COCO's suite ships with coco-experiment and
the datasets with scikit-learn)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import optuna
import pytest

from benchmarks import __main__ as cli
from benchmarks import optimize as mixed
from benchmarks._harness import RESULTS_ENV
from benchmarks._problems import _functions
from benchmarks._problems import _studies
from benchmarks._problems import study as make_study

optuna.logging.set_verbosity(optuna.logging.ERROR)


@pytest.fixture(autouse=True)
def results_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("name", ["mixint-f1-5d", "mixint-f21-10d", "branch-4", "pipe-wine"])
def test_problem_records_values_and_branches(name: str) -> None:
    prob = make_study(name, 0)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(prob.objective, n_trials=4)
    np.testing.assert_allclose(prob.trues, [t.value for t in study.trials])
    assert len(prob.branches) == 4
    if prob.group == "mixint":
        params = study.trials[0].params
        assert sum(isinstance(v, int) for v in params.values()) == 4 * len(params) // 5


@pytest.mark.parametrize("name", list(_studies.BRANCHES))
def test_easiest_branch_is_not_the_best(name: str) -> None:
    """The branch with the best random points has a higher optimum than the best branch."""
    spec = _studies.BRANCHES[name]
    rng = np.random.default_rng(0)
    medians = {}
    for branch, (fname, dim, level, scale) in spec.items():
        tf = _functions.TestFunction(fname, dim, 0)
        x = rng.uniform(_functions.LOW, _functions.HIGH, size=(2000, dim))
        medians[branch] = np.median(level + scale * tf.f(x) / tf.median_random)
        np.testing.assert_allclose(level + scale * tf.f(tf.xopt) / tf.median_random, level)
    assert min(medians, key=medians.__getitem__) == "easy"
    assert min(spec, key=lambda b: spec[b][2]) == "best"


def test_mixint_instances_split_tuning_and_report_seeds() -> None:
    assert {_functions.coco_instance(s) for s in range(5)} == {1, 2, 3, 4, 5}
    assert {_functions.coco_instance(s) for s in range(100, 110)} == set(range(6, 16))


def _run(sampler: str, problem: str, seed: int, values: list[float], branches: list[str]) -> dict:
    v = np.array(values)
    return {
        "sampler": sampler,
        "problem": problem,
        "group": "conditional",
        "seed": seed,
        "obs": v,
        "true": v,
        "branches": branches,
        "best_branch": None,
    }


def test_lock_in_counts_the_incumbents_branch() -> None:
    # "a" holds the best value (0.0); sampler S finds it in one seed of two
    results = [
        _run("S", "p", 0, [1.0, 0.5, 0.0, 0.6], ["b", "b", "a", "b"]),
        _run("S", "p", 1, [1.0, 0.5, 0.7, 0.6], ["b", "b", "a", "b"]),
    ]
    assert mixed.best_branches(results) == {"p": "a"}
    text = mixed.lock_in(results, ["S"], n=4)
    assert "| S | 0.50 / 0.50 | 0.50 / 0.50 |" in text  # trials 3-4: one of two in "a"


def test_command_end_to_end(results_in_tmp: Path) -> None:
    argv = ["--problems", "branch-3,mixint-f1-5d", "--seeds", "1", "--trials", "12"]
    cli.main(["mixed", *argv, "--samplers", "TreeUCB,TPE multivariate,Random"])
    text = (results_in_tmp / "mixed.md").read_text()
    assert "### After 12 trials" in text
    for name in ("TreeUCB", "TPE multivariate", "Random"):
        assert f"| {name} |" in text
