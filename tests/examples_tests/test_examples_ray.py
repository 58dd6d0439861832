"""The examples through Ray Tune (TreeUCBSearch and OptunaSearch) on one shared local Ray."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from examples import digits
from examples import svhn

pytestmark = pytest.mark.slow  # Ray start-up and a TensorFlow import per Ray worker.

# Every parameter, as TreeUCBSearch's points_to_evaluate takes full configurations. Adam with
# beta1 = 1 at the grid's largest learning rate (5) turns NaN on the second step.
DIVERGING = {"k1": 3, "k2": 3, "beta1": 1.0, "beta2": 0.5, "lr_index": 98, "iterations": 300}


@pytest.mark.usefixtures("ray_session")
def test_svhn_smoke_on_ray(svhn_files: tuple[Path, dict], tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = ["--smoke", "--backend", "ray", "--data-dir", str(svhn_files[0]), "--out", str(out)]
    argv += ["--samplers", "treeucb", "tpe", "--n-trials", "2"]
    assert svhn.main([*argv, "--enqueue", json.dumps(DIVERGING)]) == 0
    with (out / "trials.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4
    assert {r["backend"] for r in rows} == {"ray"}
    for sampler in ("treeucb", "tpe"):
        mine = [r for r in rows if r["sampler"] == sampler]
        assert sorted(int(r["trial"]) for r in mine) == [0, 1]
        assert all(0.0 <= float(r["value"]) <= 1.0 for r in mine)
        # The enqueued point ends as a clean trial with chance accuracy, the documented rule.
        enqueued = [r for r in mine if all(float(r[k]) == v for k, v in DIVERGING.items())]
        assert len(enqueued) == 1 and enqueued[0]["diverged"] == "True"
        assert all(float(r["value"]) == 0.1 for r in mine if r["diverged"] == "True")
    assert (out / "best_accuracy.png").stat().st_size > 10_000
    assert any((out / "ray_results").iterdir())


@pytest.mark.usefixtures("ray_session")
def test_digits_with_asha_stops_trials(tmp_path: Path) -> None:
    # one trial at a time, so ASHA's decisions (rungs 1, 3, 9 of 9 epochs) are reproducible
    out = tmp_path / "out"
    argv = ["--smoke", "--backend", "ray", "--out", str(out), "--samplers", "treeucb"]
    argv += ["--seeds", "0", "--n-trials", "8", "--max-concurrent", "1", "--iter-scale", "0.1"]
    assert digits.main([*argv, "--scheduler", "asha", "--epochs", "9", "--pruned", "context"]) == 0
    with (out / "trials.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8 and "iterations" not in rows[0]  # the resource, not tuned
    states = {r["state"] for r in rows}
    assert states == {"COMPLETE", "PRUNED"}
    for r in rows:
        epochs = int(r["epochs"])
        assert epochs == 9 if r["state"] == "COMPLETE" else epochs in (1, 3)
    assert (out / "best_accuracy.png").stat().st_size > 10_000
