"""``python -m benchmarks mixed_ray``: the branch problems through Ray's OptunaSearch, tiny."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import optuna
import pytest

from benchmarks import __main__ as cli
from benchmarks import mixed_ray
from benchmarks._problems import study as make_study


def test_the_trainable_reports_the_value_the_objective_gives() -> None:
    # the define-by-run space suggests; the trainable re-evaluates through FixedTrial
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    trial = study.ask()
    mixed_ray._Space("branch-3", 100)(trial)
    config = dict(trial.params)
    out = mixed_ray.make_trainable("branch-3", 100)(config)
    direct = make_study("branch-3", 100)
    assert out["loss"] == direct.objective(optuna.trial.FixedTrial(config))
    assert out["branch"] == config["branch"]


def test_the_space_pickles_without_its_problem() -> None:
    # OptunaSearch pickles its space in Tune's checkpoints; the problem holds closures
    space = mixed_ray._Space("branch-4", 101)
    space(optuna.create_study().ask())
    clone = pickle.loads(pickle.dumps(space))
    assert (clone.problem_name, clone.seed, clone._problem) == ("branch-4", 101, None)


def test_report_ranks_and_lock_in_by_hand() -> None:
    results = [
        {"searcher": s, "problem": "branch-3", "seed": 0, "values": np.array(v), "branches": b}
        for s, v, b in (
            ("OptunaSearch (TreeUCB)", [3.0, 1.0], ["a", "best"]),
            ("OptunaSearch (TPE)", [2.0, 2.5], ["a", "best"]),
        )
    ]
    rows = [r.split("|")[1:-1] for r in mixed_ray.report(results, [1, 2]).splitlines()[2:]]
    assert [c.strip() for c in rows[0]] == ["OptunaSearch (TreeUCB)", "2", "1", "1.00"]
    assert [c.strip() for c in rows[1]] == ["OptunaSearch (TPE)", "1", "2", "0.00"]


def test_bad_arguments_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["mixed_ray", "--problems", "pipe-wine"])
    assert "'pipe-wine' is not a branch problem" in capsys.readouterr().err
    with pytest.raises(ValueError, match="'HyperOptSearch'"):
        mixed_ray.make_searcher("HyperOptSearch", "branch-3", 0)


@pytest.mark.slow
@pytest.mark.usefixtures("ray_session")
def test_tune_runs_each_searcher(results_in_tmp: Path) -> None:
    cli.main(["mixed_ray", "--problems", "branch-3", "--seeds", "1", "--trials", "6"])
    text = (results_in_tmp / "mixed_ray.md").read_text()
    rows = [r.split("|")[1:-1] for r in text.splitlines() if r.startswith("| OptunaSearch")]
    assert [r[0].strip() for r in rows] == list(mixed_ray.SEARCHERS)
    assert sum(float(r[1]) for r in rows) == pytest.approx(3.0)  # ranks 1 + 2 (or 1.5 + 1.5)
