"""Loaders of examples/_datasets.py on tiny files in the real formats (written by conftest)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from examples import _datasets
from examples._datasets import DataNotFoundError
from examples._datasets import Dataset
from examples._datasets import load_cifar10
from examples._datasets import load_digits
from examples._datasets import load_mnist
from examples._datasets import load_svhn
from examples._datasets import split_train_val
from examples._datasets import synthetic


def test_load_mnist_reads_npz(mnist_files: tuple[Path, dict[str, np.ndarray]]) -> None:
    folder, arrays = mnist_files
    data = load_mnist(folder, download=False)
    np.testing.assert_array_equal(data.x_train, arrays["x_train"])
    np.testing.assert_array_equal(data.y_train, arrays["y_train"])
    np.testing.assert_array_equal(data.x_test, arrays["x_test"])
    assert data.y_train.dtype == np.int64
    assert data.n_classes == 10


def test_load_cifar10_reads_pickled_batches(
    cifar10_files: tuple[Path, list[dict[bytes, object]]],
) -> None:
    folder, batches = cifar10_files
    data = load_cifar10(folder, download=False)
    assert data.x_train.shape == (120, 32, 32, 3)
    assert data.x_test.shape == (20, 32, 32, 3)
    first = np.asarray(batches[0][b"data"])[0]
    # Channel-major rows: value (c, i, j) sits at c * 1024 + i * 32 + j.
    for c, i, j in [(0, 0, 0), (1, 5, 7), (2, 31, 30)]:
        assert data.x_train[0, i, j, c] == first[c * 1024 + i * 32 + j]
    labels = [label for batch in batches[:5] for label in batch[b"labels"]]  # type: ignore[attr-defined]
    np.testing.assert_array_equal(data.y_train, labels)
    np.testing.assert_array_equal(data.y_test, batches[5][b"labels"])


def test_load_svhn_reads_mat_and_maps_10_to_0(
    svhn_files: tuple[Path, dict[str, np.ndarray]],
) -> None:
    folder, arrays = svhn_files
    data = load_svhn(folder)
    np.testing.assert_array_equal(data.x_train, arrays["x_train"].transpose(3, 0, 1, 2))
    expected = arrays["y_train"].reshape(-1).astype(np.int64) % 10
    np.testing.assert_array_equal(data.y_train, expected)
    assert data.y_train[0] == 0
    assert set(np.unique(data.y_test)) <= set(range(10))


def test_load_digits_is_bundled() -> None:
    data = load_digits(Path("nowhere"))
    assert data.x_train.shape == (1797, 64)
    assert 0.0 <= data.x_train.min() and data.x_train.max() <= 1.0


@pytest.mark.parametrize(
    ("loader", "files"),
    [
        (load_mnist, "mnist.npz"),
        (load_cifar10, "cifar-10-batches-py"),
        (load_svhn, "train_32x32.mat"),
    ],
)
def test_missing_data_without_download_says_what_to_do(
    tmp_path: Path, loader: Callable[..., Dataset], files: str
) -> None:
    with pytest.raises(DataNotFoundError, match=files) as info:
        loader(tmp_path, download=False)
    message = str(info.value)
    assert str(tmp_path) in message
    assert "Download http" in message
    assert "--data-dir" in message


@pytest.mark.parametrize(
    ("loader", "keras_name", "url"),
    [
        (load_mnist, "_keras_mnist", _datasets.MNIST_URL),
        (load_cifar10, "_keras_cifar10", _datasets.CIFAR10_URL),
    ],
)
def test_failed_download_says_what_to_do(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    loader: Callable[..., Dataset],
    keras_name: str,
    url: str,
) -> None:
    def offline() -> None:
        # What keras.utils.get_file raises without a network.
        raise Exception("URL fetch failure on ...: [Errno -2] Name or service not known")

    monkeypatch.setattr(_datasets, keras_name, offline)
    with pytest.raises(DataNotFoundError, match="Keras download failed") as info:
        loader(tmp_path, download=True)
    assert url in str(info.value)
    assert isinstance(info.value, FileNotFoundError)


def test_split_is_disjoint_scaled_and_seeded(
    mnist_files: tuple[Path, dict[str, np.ndarray]],
) -> None:
    data = load_mnist(mnist_files[0], download=False)
    a = split_train_val(data, train_size=50, val_size=30, seed=3)
    b = split_train_val(data, train_size=50, val_size=30, seed=3)
    assert a.x_train.shape == (50, 28, 28) and a.x_val.shape == (30, 28, 28)
    assert a.x_train.dtype == np.float32 and 0.0 <= a.x_train.min() <= a.x_train.max() <= 1.0
    np.testing.assert_array_equal(a.x_val, b.x_val)
    rows = {r.tobytes() for r in a.x_train} & {r.tobytes() for r in a.x_val}
    assert not rows


@pytest.mark.parametrize(
    ("train_size", "val_size", "match"),
    [(None, 0, "--val-size"), (None, 120, "--val-size"), (100, 30, "--train-size")],
)
def test_split_rejects_sizes(train_size: int | None, val_size: int, match: str) -> None:
    data = synthetic((4,), 120, n_classes=10, seed=0)
    with pytest.raises(ValueError, match=match):
        split_train_val(data, train_size=train_size, val_size=val_size)
