"""Models and the divergence rule of examples/_models.py (tiny TensorFlow models)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from examples._datasets import split_train_val
from examples._datasets import synthetic
from examples._models import LEARNING_RATE_GRID
from examples._models import TF_QUIET_ENV
from examples._models import Settings
from examples._models import build_cnn
from examples._models import evaluate_cnn
from examples._models import evaluate_mlp
from examples._models import scaled_iterations

pytestmark = pytest.mark.slow  # TensorFlow import and training.

REPO_ROOT = Path(__file__).resolve().parents[2]

CNN_PARAMS = {"k1": 3, "k2": 3, "beta1": 0.9, "beta2": 0.95, "lr_index": 30, "iterations": 300}
TINY = Settings(iter_scale=0.01, width_scale=0.02, seed=0)


def test_learning_rate_grid_is_the_papers() -> None:
    # 50 log-spaced points 1e-6..1, then 49 evenly spaced points 1.08..5 (arXiv:1901.09277).
    assert len(LEARNING_RATE_GRID) == 99
    np.testing.assert_allclose(LEARNING_RATE_GRID[:50], np.logspace(-6, 0, 50))
    np.testing.assert_allclose(LEARNING_RATE_GRID[50:], np.linspace(1.08, 5, 49))
    assert LEARNING_RATE_GRID[0] == pytest.approx(1e-6) and LEARNING_RATE_GRID[-1] == 5.0
    assert all(a < b for a, b in zip(LEARNING_RATE_GRID, LEARNING_RATE_GRID[1:]))


@pytest.mark.parametrize(("iterations", "scale", "expected"), [(243, 1.0, 243), (30, 0.1, 3)])
def test_scaled_iterations(iterations: int, scale: float, expected: int) -> None:
    assert scaled_iterations(iterations, scale) == expected
    assert scaled_iterations(30, 1e-6) == 1


def test_cnn_shapes_and_width_scale() -> None:
    model = build_cnn(
        (32, 32, 3), 10, k1=7, k2=1, k3=1, pool1=1, pool2=1, pool3=6, width_scale=0.02, seed=0
    )
    assert model.output_shape == (None, 10)
    convs = [layer for layer in model.layers if "conv" in layer.name]
    assert [layer.filters for layer in convs] == [4, 4, 4]  # round(200 * 0.02)


def test_diverging_adam_gives_chance_accuracy() -> None:
    # beta1 = 1 makes Adam's bias correction 1 - beta1**t zero: the first update is NaN. The
    # paper's grid ends at lr = 5.
    data = split_train_val(
        synthetic((32, 32, 3), 80, n_classes=10, seed=0), train_size=40, val_size=20
    )
    params = {**CNN_PARAMS, "beta1": 1.0, "lr_index": len(LEARNING_RATE_GRID) - 1}
    result = evaluate_cnn(params, data, TINY)
    assert result.diverged
    assert result.accuracy == 0.1
    assert result.steps == 2  # Step 1's loss precedes the NaN update; step 2's loss is NaN.


def test_diverging_sgd_gives_chance_accuracy() -> None:
    # A huge step overflows the ReLU layer's weights to inf, so the next loss is NaN.
    data = split_train_val(
        synthetic((28, 28), 80, n_classes=4, seed=0), train_size=40, val_size=20
    )
    mlp = {"hidden_units": 64, "learning_rate": 1e30, "dropout": 0.1, "batch_size": 10}
    result = evaluate_mlp({**mlp, "iterations": 50}, data, Settings())
    assert result.diverged
    assert result.accuracy == 0.25
    assert result.steps < 50


def test_cnn_with_lr_drops_and_mlp_measure_accuracy() -> None:
    cnn_data = split_train_val(
        synthetic((32, 32, 3), 80, n_classes=10, seed=1), train_size=40, val_size=20
    )
    params = {**CNN_PARAMS, "k3": 1, "pool1": 2, "pool2": 1, "pool3": 6, "lr_drops": 3}
    result = evaluate_cnn(params, cnn_data, TINY)
    assert not result.diverged and result.steps == 3
    assert 0.0 <= result.accuracy <= 1.0 and result.accuracy * 20 == round(result.accuracy * 20)

    mlp_data = split_train_val(
        synthetic((28, 28), 80, n_classes=10, seed=1), train_size=40, val_size=20
    )
    mlp = {
        "hidden_units": 16,
        "learning_rate": 0.1,
        "dropout": 0.5,
        "batch_size": 500,
        "iterations": 243,
    }
    first = evaluate_mlp(mlp, mlp_data, TINY)
    again = evaluate_mlp(mlp, mlp_data, TINY)
    assert first.steps == 2 and not first.diverged
    assert math.isclose(first.accuracy, again.accuracy)  # Seeded: the same run twice.


def test_epochs_report_after_each_part_and_a_raise_stops_training() -> None:
    data = split_train_val(
        synthetic((28, 28), 80, n_classes=10, seed=2), train_size=40, val_size=20
    )
    mlp = {"hidden_units": 16, "learning_rate": 0.1, "dropout": 0.5, "batch_size": 10}
    reports: list[tuple[int, int, float]] = []
    result = evaluate_mlp(
        {**mlp, "iterations": 10},
        data,
        Settings(),
        epochs=3,
        report=lambda e, s, acc: reports.append((e, s, acc)),
    )
    # epoch e ends after round(10 e / 3) steps; the last report is the result
    assert [(e, s) for e, s, _ in reports] == [(1, 3), (2, 7), (3, 10)]
    assert not result.diverged and result.steps == 10 and result.accuracy == reports[-1][2]
    plain = evaluate_mlp({**mlp, "iterations": 10}, data, Settings())
    assert math.isclose(plain.accuracy, result.accuracy)  # reporting does not change training

    class Stop(Exception):
        pass

    def stop_after_first(epoch: int, steps: int, accuracy: float) -> None:
        raise Stop(epoch)

    with pytest.raises(Stop):
        evaluate_mlp(
            {**mlp, "iterations": 10}, data, Settings(), epochs=5, report=stop_after_first
        )
    with pytest.raises(ValueError, match="'epochs' parameter .* Got 11 instead"):
        evaluate_mlp({**mlp, "iterations": 10}, data, Settings(), epochs=11)


# The examples' own import path, then one training step: TensorFlow loads and initialises its
# devices (where a machine without a GPU logs "failed call to cuInit").
_TRAIN_ONE_STEP = """
import os
from examples._datasets import split_train_val, synthetic
from examples._models import Settings, evaluate_mlp
data = split_train_val(synthetic((64,), 40, n_classes=10, seed=0), train_size=24, val_size=16)
params = {"hidden_units": 10, "learning_rate": 0.1, "dropout": 0.5, "batch_size": 8,
          "iterations": 30}
result = evaluate_mlp(params, data, Settings(iter_scale=0.01, seed=0))
env = os.environ
print(result.steps, env["TF_CPP_MIN_LOG_LEVEL"], env.get("TF_ENABLE_ONEDNN_OPTS", "-"))
"""


def _run_example_import(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in TF_QUIET_ENV and k != "TF_ENABLE_ONEDNN_OPTS"
    }
    return subprocess.run(
        [sys.executable, "-c", _TRAIN_ONE_STEP],
        env={**base, "PYTHONPATH": str(REPO_ROOT), **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )


def test_tensorflow_start_up_notices_are_silenced(tmp_path: Path) -> None:
    proc = _run_example_import(tmp_path)
    assert proc.stdout.split() == ["1", "3", "-"]  # oneDNN left at its default
    for notice in ("oneDNN", "cuInit", "cuda drivers", "absl::InitializeLog"):
        assert notice not in proc.stderr, proc.stderr


def test_tensorflow_settings_the_user_chose_are_kept(tmp_path: Path) -> None:
    proc = _run_example_import(tmp_path, TF_CPP_MIN_LOG_LEVEL="0", TF_ENABLE_ONEDNN_OPTS="1")
    assert proc.stdout.split() == ["1", "0", "1"]
    assert "oneDNN custom operations are on" in proc.stderr  # the user asked for INFO logs
