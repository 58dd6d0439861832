"""``python -m benchmarks async`` runs end to end at a tiny size and keeps W trials running."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import optuna
import pytest

from benchmarks import __main__ as cli
from benchmarks import asynchronous
from benchmarks._harness import RESULTS_ENV


@pytest.fixture(autouse=True)
def results_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path))
    return tmp_path


def _tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table of ``text`` as rows of cells, header row first."""
    tables: list[list[list[str]]] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("|"):
            if not inside:
                tables.append([])
            inside = True
            if "---" not in line:
                tables[-1].append([c.strip() for c in line.strip("|").split("|")])
        else:
            inside = False
    return tables


def test_async_report_structure(results_in_tmp: Path) -> None:
    samplers = ["TreeUCB", "TPE[constant_liar=True]", "Random"]
    argv = ["--workers", "1,4", "--dims", "2", "--functions", "1"]
    argv += ["--noise", "noiseless", "--seeds", "2", "--trials", "16"]
    saved = str(results_in_tmp / "random.pkl")
    cli.main(["async", "--samplers", "Random", *argv, "--save", saved])
    cli.main(["async", "--samplers", "TreeUCB,TPE[constant_liar=True]", *argv, "--load", saved])
    text = (results_in_tmp / "async.md").read_text()
    # the exact commands, of this run and of the rows it loaded
    command = (
        "python -m benchmarks async --samplers 'TreeUCB,TPE[constant_liar=True]' --workers 1,4"
    )
    assert f"Command: `{command}" in text
    assert "; rows of {Random} from `python -m benchmarks async --samplers Random" in text
    assert (results_in_tmp / "async.png").stat().st_size > 0
    main, paired, running, wall = _tables(text)
    assert main[0] == [
        "sampler",
        "regret W=1",
        "regret W=4",
        "rank W=1",
        "rank W=4",
        "ratio W=4/W=1 (log ± s.e.)",
    ]
    assert [r[0] for r in main[1:]] == samplers
    for col in (3, 4):  # three samplers: the mean ranks sum to 1 + 2 + 3
        assert sum(float(r[col]) for r in main[1:]) == pytest.approx(6.0, abs=0.02)
    assert all(re.fullmatch(r"\S+ \([+-]\d\.\d{3} ± \d\.\d{3}\)", r[5]) for r in main[1:])
    assert [r[:3] for r in paired[1:]] == [["TreeUCB", "1", "2"], ["TreeUCB", "4", "2"]]
    # W trials really ran at once in every run
    assert running[1:] == [[s, "1", "4"] for s in samplers]
    assert len(wall) == 4


def test_run_one_keeps_w_trials_running(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    tell = optuna.Study.tell

    def spy(study: optuna.Study, *args: object, **kwargs: object) -> object:
        states = (optuna.trial.TrialState.RUNNING,)
        seen.append(len(study.get_trials(deepcopy=False, states=states)))
        return tell(study, *args, **kwargs)

    monkeypatch.setattr(optuna.Study, "tell", spy)
    out = asynchronous.run_one(("Random", 1, 2, False, 0, 3, 10))
    # 3 running at every tell until no trial is left to start, then the last ones drain
    assert seen == [3] * 8 + [2, 1]
    assert out["max_running"] == 3 and out["regret"].shape == (10,)
    assert np.all(np.diff(out["regret"]) <= 0)  # best so far never worsens (noiseless)


def test_finishing_order_is_not_first_in_first_out(monkeypatch: pytest.MonkeyPatch) -> None:
    finished: list[int] = []
    tell = optuna.Study.tell

    def spy(study: optuna.Study, trial: optuna.Trial, *args: object, **kwargs: object) -> object:
        finished.append(trial.number)
        return tell(study, trial, *args, **kwargs)

    monkeypatch.setattr(optuna.Study, "tell", spy)
    asynchronous.run_one(("Random", 1, 2, False, 0, 4, 12))
    assert sorted(finished) == list(range(12)) and finished != list(range(12))
