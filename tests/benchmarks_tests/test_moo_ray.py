"""``python -m benchmarks moo --backend ray`` and ``constrained --backend ray``, tiny."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import __main__ as cli
from benchmarks import moo
from benchmarks._problems import box


def _rows(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("| ") and "---" not in ln]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]


def test_optuna_search_stores_the_constraint_metrics_on_its_trials() -> None:
    # Ray's OptunaSearch has no constraints argument: the subclass must hand them to TPE
    searcher = moo.ray_searcher("OptunaSearch (TPE)", box("gramacy", 0), seed=0)
    config = searcher.suggest("t0")
    assert set(config) == {"x0", "x1"}
    searcher.on_trial_complete("t0", {"f0": 1.2, "c0": 0.25, "c1": -0.5})
    (trial,) = searcher._ot_study.trials
    assert trial.constraints == {"c0": 0.25, "c1": -0.5} and trial.values == [1.2]


def test_an_unknown_searcher_is_named() -> None:
    with pytest.raises(ValueError, match="'HyperOptSearch'"):
        moo.ray_searcher("HyperOptSearch", box("gramacy", 0), seed=0)


def test_ray_backend_needs_one_process(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["moo", "--backend", "ray", "--jobs", "2"])
    assert "--jobs 2" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["moo", "--backend", "ray", "--samplers", "TPE"])
    assert "unknown sampler 'TPE'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.usefixtures("ray_session")
@pytest.mark.parametrize(
    ("mode", "problem", "header"),
    [
        ("moo", "zdt1-5d", ["sampler", "rank @8", "s / trial", "cost / TPE"]),
        (
            "constrained",
            "gramacy",
            ["sampler", "rank @8", "feasible @8", "s / trial", "cost / TPE"],
        ),
    ],
)
def test_ray_backend_runs_tune_with_each_searcher(
    results_in_tmp: Path, mode: str, problem: str, header: list[str]
) -> None:
    argv = ["--backend", "ray", "--problems", problem, "--seeds", "1", "--trials", "8"]
    cli.main([mode, *argv])
    text = (results_in_tmp / f"{mode}_ray.md").read_text()
    assert "Real Tune runs" in text
    rows = _rows(text)
    assert rows[0] == header
    assert [r[0] for r in rows[1:3]] == list(moo.RAY_SEARCHERS)
    assert sum(float(r[1]) for r in rows[1:3]) == pytest.approx(3.0)  # ranks 1 + 2
    assert rows[2][-1] == "1"  # OptunaSearch (TPE) is the cost reference
