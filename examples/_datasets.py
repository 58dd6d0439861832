"""Dataset loaders for the example studies.

Each loader reads the files a dataset ships as from ``data_dir`` first. MNIST and CIFAR-10 fall
back to the Keras download (cached in ``~/.keras/datasets``); SVHN has no Keras loader. When the
files are missing and the download is disabled or fails, the loader raises a
:class:`DataNotFoundError` (a ``FileNotFoundError``) that names the files, where to download
them and where to put them.

Images are returned as stored (``uint8``, channels last); :func:`split_train_val` draws the
training and validation sets from the training files and scales pixels to [0, 1]. The test
files are loaded for completeness but never used for tuning.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MNIST_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz"
CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
SVHN_URLS = (
    "http://ufldl.stanford.edu/housenumbers/train_32x32.mat",
    "http://ufldl.stanford.edu/housenumbers/test_32x32.mat",
)


# ((x_train, y_train), (x_test, y_test)), as the keras.datasets loaders return them.
_Arrays = tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


class DataNotFoundError(FileNotFoundError):
    """The dataset files are missing and cannot be downloaded; the message says what to do."""


@dataclass(frozen=True)
class Dataset:
    """Arrays of one labelled image dataset.

    Args:
        x_train:
            Training inputs, shape (n_train, *input_shape), ``uint8`` pixels or floats in [0, 1].
        y_train:
            Training labels, shape (n_train,), ints in [0, n_classes).
        x_test:
            Test inputs, shape (n_test, *input_shape).
        y_test:
            Test labels, shape (n_test,).
        n_classes:
            Number of classes.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    n_classes: int


@dataclass(frozen=True)
class Split:
    """Training and validation arrays fed to a model.

    Args:
        x_train:
            Shape (n_train, *input_shape), float32 values in [0, 1].
        y_train:
            Shape (n_train,), int64 labels in [0, n_classes).
        x_val:
            Shape (n_val, *input_shape), float32 values in [0, 1].
        y_val:
            Shape (n_val,), int64 labels in [0, n_classes).
        n_classes:
            Number of classes.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray
    n_classes: int


def _missing(
    name: str, expected: str, put: str, urls: tuple[str, ...], folder: Path, why: str
) -> str:
    return (
        f"{name} data not found in the data directory '{folder}': expected {expected} ({why}). "
        f"Download {' and '.join(urls)}, then put {put} into '{folder}' (or pass --data-dir DIR)."
    )


def _keras_fallback(
    name: str,
    expected: str,
    put: str,
    urls: tuple[str, ...],
    data_dir: Path,
    download: bool,
    keras_loader: Callable[[], _Arrays],
) -> Dataset:
    if not download:
        why = "downloads are disabled"
        raise DataNotFoundError(_missing(name, expected, put, urls, data_dir, why))
    try:
        (x_train, y_train), (x_test, y_test) = keras_loader()
    except Exception as exc:  # Keras raises a bare Exception("URL fetch failure ...").
        why = f"the Keras download failed: {type(exc).__name__}: {exc}"
        raise DataNotFoundError(_missing(name, expected, put, urls, data_dir, why)) from exc
    return Dataset(
        x_train=np.asarray(x_train),
        y_train=np.asarray(y_train, dtype=np.int64).reshape(-1),
        x_test=np.asarray(x_test),
        y_test=np.asarray(y_test, dtype=np.int64).reshape(-1),
        n_classes=10,
    )


def _keras_mnist() -> _Arrays:
    from examples._models import import_keras

    return import_keras().datasets.mnist.load_data()


def _keras_cifar10() -> _Arrays:
    from examples._models import import_keras

    return import_keras().datasets.cifar10.load_data()


def load_mnist(data_dir: Path, *, download: bool = True) -> Dataset:
    """Load MNIST from ``data_dir/mnist.npz``, else through ``keras.datasets.mnist``.

    Args:
        data_dir:
            Directory searched for ``mnist.npz`` (keys ``x_train``, ``y_train``, ``x_test``,
            ``y_test``, as Keras ships it).
        download:
            Whether the Keras loader may download the file when it is missing.

    Returns:
        28x28 ``uint8`` images, shape (n, 28, 28), with labels 0-9.

    Raises:
        DataNotFoundError: If the file is missing and cannot be downloaded.
    """
    path = Path(data_dir) / "mnist.npz"
    if path.is_file():
        with np.load(path) as f:
            return Dataset(
                x_train=f["x_train"],
                y_train=f["y_train"].astype(np.int64),
                x_test=f["x_test"],
                y_test=f["y_test"].astype(np.int64),
                n_classes=10,
            )
    return _keras_fallback(
        "MNIST", "mnist.npz", "it", (MNIST_URL,), Path(data_dir), download, _keras_mnist
    )


def _read_cifar_batch(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with open(path, "rb") as f:
        batch = pickle.load(f, encoding="bytes")
    data = np.asarray(batch[b"data"], dtype=np.uint8)
    x = data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return x, np.asarray(batch[b"labels"], dtype=np.int64)


def load_cifar10(data_dir: Path, *, download: bool = True) -> Dataset:
    """Load CIFAR-10 from ``data_dir/cifar-10-batches-py``, else through ``keras.datasets``.

    Args:
        data_dir:
            Directory searched for the extracted ``cifar-10-batches-py`` folder (pickled
            ``data_batch_1`` ... ``data_batch_5`` and ``test_batch``, each a dict with
            ``b"data"`` of shape (n, 3072) and ``b"labels"``).
        download:
            Whether the Keras loader may download the archive when it is missing.

    Returns:
        32x32x3 ``uint8`` images, shape (n, 32, 32, 3), with labels 0-9.

    Raises:
        DataNotFoundError: If the files are missing and cannot be downloaded.
    """
    folder = Path(data_dir) / "cifar-10-batches-py"
    names = [f"data_batch_{i}" for i in range(1, 6)]
    if all((folder / name).is_file() for name in [*names, "test_batch"]):
        parts = [_read_cifar_batch(folder / name) for name in names]
        x_test, y_test = _read_cifar_batch(folder / "test_batch")
        return Dataset(
            x_train=np.concatenate([x for x, _ in parts]),
            y_train=np.concatenate([y for _, y in parts]),
            x_test=x_test,
            y_test=y_test,
            n_classes=10,
        )
    expected = "cifar-10-batches-py/data_batch_1 ... data_batch_5 and test_batch"
    put = "the extracted cifar-10-batches-py folder"
    return _keras_fallback(
        "CIFAR-10", expected, put, (CIFAR10_URL,), Path(data_dir), download, _keras_cifar10
    )


def _read_svhn(path: Path) -> tuple[np.ndarray, np.ndarray]:
    import scipy.io

    mat = scipy.io.loadmat(path)
    x = np.ascontiguousarray(np.asarray(mat["X"], dtype=np.uint8).transpose(3, 0, 1, 2))
    y = np.asarray(mat["y"], dtype=np.int64).reshape(-1)
    return x, np.where(y == 10, 0, y)


def load_svhn(data_dir: Path, *, download: bool = True) -> Dataset:
    """Load SVHN (cropped digits) from ``train_32x32.mat`` and ``test_32x32.mat``.

    Args:
        data_dir:
            Directory holding both files (MATLAB files with ``X`` of shape (32, 32, 3, n) and
            ``y`` of shape (n, 1), where label 10 means digit 0).
        download:
            Unused: there is no Keras loader for SVHN, so the files must be present.

    Returns:
        32x32x3 ``uint8`` images, shape (n, 32, 32, 3), with labels 0-9.

    Raises:
        DataNotFoundError: If either file is missing.
    """
    del download
    folder = Path(data_dir)
    train, test = folder / "train_32x32.mat", folder / "test_32x32.mat"
    if not (train.is_file() and test.is_file()):
        why = "SVHN has no Keras loader, so nothing is downloaded"
        files = "train_32x32.mat and test_32x32.mat"
        raise DataNotFoundError(_missing("SVHN", files, "both files", SVHN_URLS, folder, why))
    x_train, y_train = _read_svhn(train)
    x_test, y_test = _read_svhn(test)
    return Dataset(x_train, y_train, x_test, y_test, n_classes=10)


def load_digits(data_dir: Path, *, download: bool = True) -> Dataset:
    """Load scikit-learn's bundled 8x8 digits (1797 images, no download).

    Args:
        data_dir:
            Unused; the data ship with scikit-learn.
        download:
            Unused.

    Returns:
        Flattened images, shape (1797, 64), float32 values in [0, 1], with labels 0-9, all in
        the training part (the test part is empty).
    """
    del data_dir, download
    from sklearn.datasets import load_digits as sk_load_digits

    x, y = sk_load_digits(return_X_y=True)
    x = (np.asarray(x) / 16.0).astype(np.float32)
    y = np.asarray(y, dtype=np.int64)
    return Dataset(x, y, x[:0], y[:0], n_classes=10)


def synthetic(input_shape: tuple[int, ...], n: int, *, n_classes: int, seed: int) -> Dataset:
    """Random ``uint8`` images of a dataset's real shape, for ``--smoke`` runs without files.

    Args:
        input_shape:
            Shape of one input, for example ``(28, 28)``.
        n:
            Number of training images (the test part gets ``n // 4``).
        n_classes:
            Number of classes.
        seed:
            Seed of the generator.

    Returns:
        Random images whose mean brightness depends on the label, so a model can learn a
        little.
    """
    rng = np.random.default_rng(seed)

    def draw(m: int) -> tuple[np.ndarray, np.ndarray]:
        y = rng.integers(0, n_classes, size=m)
        base = (y * (255 // n_classes)).reshape(-1, *([1] * len(input_shape)))
        noise = rng.integers(0, 64, size=(m, *input_shape))
        return np.clip(base + noise, 0, 255).astype(np.uint8), y.astype(np.int64)

    x_train, y_train = draw(n)
    x_test, y_test = draw(max(n // 4, 1))
    return Dataset(x_train, y_train, x_test, y_test, n_classes=n_classes)


def _to_unit(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.uint8:
        return x.astype(np.float32) / np.float32(255.0)
    return x.astype(np.float32, copy=False)


def split_train_val(
    data: Dataset, *, train_size: int | None, val_size: int, seed: int = 0
) -> Split:
    """Draw disjoint training and validation sets from the training part of ``data``.

    The split depends on ``seed`` only, so every sampler and repeat sees the same data.

    Args:
        data:
            The loaded dataset.
        train_size:
            Number of training examples, or ``None`` for all those not used for validation.
        val_size:
            Number of validation examples.
        seed:
            Seed of the shuffle.

    Returns:
        The split, with pixels scaled to [0, 1].

    Raises:
        ValueError: If the sizes are not positive or exceed the training part.
    """
    n = len(data.y_train)
    if val_size < 1 or val_size >= n:
        raise ValueError(
            f"The validation size (--val-size) must be an int in [1, {n - 1}] for this dataset "
            f"of {n} training examples. Got {val_size} instead."
        )
    available = n - val_size
    if train_size is None:
        train_size = available
    if train_size < 1 or train_size > available:
        raise ValueError(
            f"The training size (--train-size) must be an int in [1, {available}] for this "
            f"dataset of {n} training examples with {val_size} held out for validation. "
            f"Got {train_size} instead."
        )
    order = np.random.default_rng(seed).permutation(n)
    val_idx, train_idx = order[:val_size], order[val_size : val_size + train_size]
    return Split(
        x_train=_to_unit(data.x_train[train_idx]),
        y_train=data.y_train[train_idx].astype(np.int64),
        x_val=_to_unit(data.x_train[val_idx]),
        y_val=data.y_train[val_idx].astype(np.int64),
        n_classes=data.n_classes,
    )
