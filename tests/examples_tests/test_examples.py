"""Every example runs end to end in --smoke mode on tiny files in the real formats (Optuna)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import optuna
import pytest

from examples import cifar10
from examples import digits
from examples import mnist
from examples import svhn
from examples._runner import run_cli

pytestmark = pytest.mark.slow  # TensorFlow training, a few seconds per trial.

# Adam with beta1 = 1 at the grid's largest learning rate (5): NaN from the second step on.
DIVERGING = {"lr_index": 98, "beta1": 1.0}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def check_outputs(out: Path, *, samplers: list[str], repeats: int, n_trials: int) -> list[dict]:
    """Check the CSV, JSON and plot a run wrote; return the CSV rows."""
    rows = _rows(out / "trials.csv")
    assert len(rows) == len(samplers) * repeats * n_trials
    assert sorted({r["sampler"] for r in rows}) == sorted(samplers)
    for sampler in samplers:
        for repeat in range(repeats):
            mine = [r for r in rows if r["sampler"] == sampler and r["repeat"] == str(repeat)]
            assert sorted(int(r["trial"]) for r in mine) == list(range(n_trials))
    values = np.array([float(r["value"]) for r in rows])
    assert np.all((values >= 0.0) & (values <= 1.0))
    assert all(float(r["elapsed_s"]) >= float(r["duration_s"]) > 0 for r in rows)
    trials = json.loads((out / "trials.json").read_text())["trials"]
    assert len(trials) == len(rows) and set(trials[0]["params"]) <= set(rows[0])
    assert (out / "best_accuracy.png").stat().st_size > 10_000
    return rows


def test_mnist_smoke(mnist_files: tuple[Path, dict], tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["--smoke", "--data-dir", str(mnist_files[0]), "--out", str(out)]
    assert mnist.main([*argv, "--samplers", "treeucb", "tpe", "--n-trials", "3"]) == 0
    rows = check_outputs(out, samplers=["treeucb", "tpe"], repeats=1, n_trials=3)
    for r in rows:
        assert 10 <= int(r["hidden_units"]) <= 784 and 1e-4 <= float(r["learning_rate"]) <= 4
        assert 30 <= int(r["iterations"]) <= 243 and int(r["steps"]) <= 3  # --iter-scale 0.01


def test_cifar10_smoke(cifar10_files: tuple[Path, list], tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["--smoke", "--data-dir", str(cifar10_files[0]), "--out", str(out)]
    assert cifar10.main([*argv, "--samplers", "treeucb", "random", "--n-trials", "2"]) == 0
    rows = check_outputs(out, samplers=["treeucb", "random"], repeats=1, n_trials=2)
    assert {"k3", "pool1", "pool2", "pool3", "lr_drops"} <= set(rows[0])


def test_svhn_diverging_configuration_is_a_clean_trial(
    svhn_files: tuple[Path, dict], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    argv = ["--smoke", "--data-dir", str(svhn_files[0]), "--out", str(out), "--n-trials", "3"]
    result = run_cli(
        svhn.STUDY, [*argv, "--samplers", "treeucb", "--enqueue", json.dumps(DIVERGING)]
    )
    assert result is not None
    rows = check_outputs(out, samplers=["treeucb"], repeats=1, n_trials=3)
    first = rows[0]
    assert (first["lr_index"], first["beta1"], first["diverged"]) == ("98", "1.0", "True")
    assert float(first["value"]) == 0.1  # Chance accuracy, the documented rule.
    study = result.studies[("treeucb", 0)]
    states = [t.state for t in study.trials]
    assert states == [optuna.trial.TrialState.COMPLETE] * 3
    assert study.trials[0].value == 0.1 and study.trials[0].user_attrs["diverged"] is True


def test_digits_main_job_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert digits.main(["--smoke", "--out", str(out)]) == 0
    # Defaults of the main job: TreeUCB beside TPE, 2 repeats; --smoke gives 3 trials each.
    check_outputs(out, samplers=["treeucb", "tpe"], repeats=2, n_trials=3)
    assert (out / "partition.png").stat().st_size > 10_000
    printed = capsys.readouterr().out
    table = printed[printed.index("sampler ") :].splitlines()
    assert table[1].split()[:3] == ["treeucb", "2", "3"]  # whole trials, not 3.0
    assert table[2].split()[:3] == ["tpe", "2", "3"]
    assert table[0].split()[-6:] == ["run", "s", "training", "s", "sampler", "s"]
    # one line of interpretation: who is ahead, and that 2 seeds cannot tell
    assert "2 seeds cannot tell them apart" in table[3] or " tie " in table[3]
    assert "SYNTHETIC" not in printed  # digits ships its data


def test_missing_data_prints_what_to_download(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = str(tmp_path / "empty")
    assert svhn.main(["--smoke", "--data-dir", empty]) == 2
    err = capsys.readouterr().err
    assert "train_32x32.mat" in err and "http://ufldl.stanford.edu/housenumbers/" in err
    assert empty in err
    assert mnist.main(["--data-dir", empty, "--no-download"]) == 2
    err = capsys.readouterr().err
    assert "mnist.npz" in err and "Download https://storage.googleapis.com" in err
    assert not (tmp_path / "out").exists()


def test_digits_with_a_pruner_records_pruned_trials(tmp_path: Path) -> None:
    # 24 minibatch steps in 8 epochs; the median pruner stops trials below the median epoch.
    # 14 trials: 9 after the pruner's 5 start-up trials (with 10, a sampler whose every later
    # trial beats the median, as this seed's does with region="cube", prunes none)
    out = tmp_path / "out"
    argv = ["--smoke", "--out", str(out), "--samplers", "treeucb", "--seeds", "0"]
    argv += ["--iter-scale", "0.1", "--n-trials", "14", "--pruner", "median", "--epochs", "8"]
    result = run_cli(digits.STUDY, [*argv, "--pruned", "context"])
    assert result is not None
    study = result.studies[("treeucb", 0)]
    pruned = study.get_trials(states=(optuna.trial.TrialState.PRUNED,))
    complete = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    assert pruned and complete and len(pruned) + len(complete) == 14
    for t in pruned:
        assert 1 <= t.last_step < 8 and sorted(t.intermediate_values) == list(
            range(1, t.last_step + 1)
        )
    for t in complete:
        assert sorted(t.intermediate_values) == list(range(1, 9))
        assert t.value == t.intermediate_values[8] and t.user_attrs["steps"] == 24
    assert all("iterations" not in t.params for t in study.trials)  # the resource
    rows = _rows(out / "trials.csv")
    assert sorted(r["state"] for r in rows) == sorted(t.state.name for t in study.trials)
    by_number = {t.number: t for t in study.trials}
    for r in rows:
        t = by_number[int(r["trial"])]
        assert int(r["epochs"]) == (t.last_step if r["state"] == "PRUNED" else 8)
        assert float(r["value"]) == t.intermediate_values[int(r["epochs"])]
    (run,) = result.runs
    assert run.best == study.best_value and run.n_pruned == len(pruned)
    assert run.epochs == sum(int(r["epochs"]) for r in rows)
