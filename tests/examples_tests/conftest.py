"""Fixtures of the example tests: tiny datasets in the real file formats, one shared Ray."""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
N_TRAIN = 120  # Enough for --smoke's 64 training + 32 validation examples.
N_TEST = 20


def write_mnist(folder: Path, *, seed: int = 0) -> dict[str, np.ndarray]:
    """Write ``mnist.npz`` as Keras ships it (uint8 images and labels); return the arrays."""
    rng = np.random.default_rng(seed)
    arrays = {
        "x_train": rng.integers(0, 256, size=(N_TRAIN, 28, 28), dtype=np.uint8),
        "y_train": rng.integers(0, 10, size=N_TRAIN).astype(np.uint8),
        "x_test": rng.integers(0, 256, size=(N_TEST, 28, 28), dtype=np.uint8),
        "y_test": rng.integers(0, 10, size=N_TEST).astype(np.uint8),
    }
    folder.mkdir(parents=True, exist_ok=True)
    np.savez(folder / "mnist.npz", **arrays)
    return arrays


def write_cifar10(folder: Path, *, seed: int = 0) -> list[dict[bytes, object]]:
    """Write ``cifar-10-batches-py`` as the Python archive holds it; return the batches.

    Each batch is a pickled dict with ``b"data"``, uint8 of shape (n, 3072) in channel-major
    order (1024 red, 1024 green, 1024 blue values, each row-major), and ``b"labels"``, a list.
    """
    rng = np.random.default_rng(seed)
    batches = []
    base = folder / "cifar-10-batches-py"
    base.mkdir(parents=True, exist_ok=True)
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    for name in names:
        n = N_TEST if name == "test_batch" else N_TRAIN // 5
        batch: dict[bytes, object] = {
            b"batch_label": name.encode(),
            b"labels": [int(v) for v in rng.integers(0, 10, size=n)],
            b"data": rng.integers(0, 256, size=(n, 3072), dtype=np.uint8),
            b"filenames": [f"img_{i}.png".encode() for i in range(n)],
        }
        with open(base / name, "wb") as f:
            pickle.dump(batch, f, protocol=2)
        batches.append(batch)
    return batches


def write_svhn(folder: Path, *, seed: int = 0) -> dict[str, np.ndarray]:
    """Write ``train_32x32.mat`` and ``test_32x32.mat`` (``X`` (32, 32, 3, n), ``y`` 1..10)."""
    import scipy.io

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for split, n in (("train", N_TRAIN), ("test", N_TEST)):
        x = rng.integers(0, 256, size=(32, 32, 3, n), dtype=np.uint8)
        y = rng.integers(1, 11, size=(n, 1)).astype(np.uint8)
        y[0, 0] = 10  # Always exercise the "10 means digit 0" rule.
        scipy.io.savemat(folder / f"{split}_32x32.mat", {"X": x, "y": y})
        arrays[f"x_{split}"], arrays[f"y_{split}"] = x, y
    return arrays


@pytest.fixture
def mnist_files(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """A data folder holding a tiny ``mnist.npz``, and the arrays written."""
    return tmp_path / "data", write_mnist(tmp_path / "data")


@pytest.fixture
def cifar10_files(tmp_path: Path) -> tuple[Path, list[dict[bytes, object]]]:
    """A data folder holding a tiny ``cifar-10-batches-py``, and the batches written."""
    return tmp_path / "data", write_cifar10(tmp_path / "data")


@pytest.fixture
def svhn_files(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """A data folder holding tiny SVHN ``.mat`` files, and the arrays written."""
    return tmp_path / "data", write_svhn(tmp_path / "data")


@pytest.fixture(scope="module")
def ray_session() -> Iterator[None]:
    """One local Ray with 2 CPUs shared by a module's tests (started here unless already up).

    Module scope, not session scope: Ray is down again before ``tests/ray_tests`` starts its own.
    """
    import ray

    started = not ray.is_initialized()
    if started:
        path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p)
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            runtime_env={"env_vars": {"PYTHONPATH": path}},  # workers quiet TensorFlow
        )
    yield
    if started:
        ray.shutdown()
