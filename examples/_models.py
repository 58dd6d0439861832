"""Keras models of the paper's tuning studies, trained for a number of minibatch steps.

TensorFlow is imported inside the functions, so importing this module (and ``--help``) stays
fast and needs no TensorFlow.

Divergence rule: a configuration *diverges* when a training loss or a validation output becomes
NaN or infinite (for example SGD with a learning rate near 4, or Adam with ``beta1 = 1``, whose
bias correction divides by zero). Training stops at that step and the trial's value is chance
accuracy, ``1 / n_classes``. The trial still completes normally (no exception, no NaN value),
so every sampler sees the region as poor and moves on; the result also records
``diverged=True``.

Epochs: a trial may be cut into ``epochs`` parts of equal length (rounded to whole minibatch
steps, as Keras's ``steps_per_epoch`` defines an epoch), each ending with a validation accuracy
passed to a ``report(epoch, steps, accuracy)`` callback. A pruner or scheduler stops the trial
by raising from the callback; the exception propagates unchanged.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
import tempfile
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any

import numpy as np

if TYPE_CHECKING:
    from types import ModuleType

    import keras

    from examples._datasets import Split

# The paper's learning-rate grid for the CNN studies: 50 log-spaced points from 1e-6 to 1, then
# 49 evenly spaced points from 1.08 to 5. Tuned as an index into this tuple.
LEARNING_RATE_GRID: tuple[float, ...] = tuple(
    [float(v) for v in np.logspace(-6.0, 0.0, 50)] + [float(v) for v in np.linspace(1.08, 5, 49)]
)
# Minibatch size of the CNN studies (not tuned in the paper).
CNN_BATCH_SIZE = 100
_EVAL_BATCH_SIZE = 500

# report(epoch, steps, accuracy): called after each epoch with the minibatch steps run so far.
Report = Callable[[int, int, float], None]


@dataclass(frozen=True)
class Settings:
    """Scaling knobs shared by all trials of a run.

    Args:
        iter_scale:
            Factor applied to the tuned number of training iterations (minibatch steps).
        width_scale:
            Factor applied to the CNN channel counts (200) and dense width (512).
        seed:
            Seed of weight initialisation, dropout and minibatch order.
    """

    iter_scale: float = 1.0
    width_scale: float = 1.0
    seed: int = 0


@dataclass(frozen=True)
class TrialResult:
    """Outcome of training one configuration.

    Args:
        accuracy:
            Validation accuracy in [0, 1]; chance accuracy if the run diverged.
        diverged:
            Whether a loss or output became NaN or infinite (see the module docstring).
        steps:
            Minibatch steps actually run.
    """

    accuracy: float
    diverged: bool
    steps: int


# TensorFlow's start-up notices, no use to a reader of the examples: level 3 hides the E-level
# "failed call to cuInit" of a machine without a GPU. Set before TensorFlow loads; a value the
# user set wins. oneDNN's operations stay on (TensorFlow's default; turning them off to hide
# their notice cost the main job 5-10% more CPU and changed its numbers): their notice is one of
# the lines dropped while TensorFlow loads.
TF_QUIET_ENV = {"TF_CPP_MIN_LOG_LEVEL": "3"}
# Lines TensorFlow writes while it loads, before its log level applies (absl's pre-init log).
_TF_LOAD_NOISE = (
    "absl::InitializeLog()",
    "Could not find cuda drivers",
    "oneDNN custom operations are on",
)


def quiet_tensorflow_env() -> dict[str, str]:
    """Set :data:`TF_QUIET_ENV` in ``os.environ`` where the user has not set a value.

    Returns:
        The values set here (the user's own are left out).
    """
    added = {k: v for k, v in TF_QUIET_ENV.items() if k not in os.environ}
    os.environ.update(added)
    _SET_HERE.update(added)
    return added


# What quiet_tensorflow_env set in this process, whoever called it first (the runner sets the
# values before it starts Ray workers, long before Keras is imported).
_SET_HERE: dict[str, str] = {}


@contextlib.contextmanager
def _stderr_without(noise: tuple[str, ...]) -> Iterator[None]:
    """Hold back the process's stderr (file descriptor 2, which C++ writes to), then replay
    every line but those containing one of ``noise``."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            for line in held.read().decode(errors="replace").splitlines(keepends=True):
                if not any(n in line for n in noise):
                    sys.stderr.write(line)
            sys.stderr.flush()


def import_keras() -> ModuleType:
    """Import Keras with TensorFlow's start-up notices and retracing warnings silenced.

    The notices go through :func:`quiet_tensorflow_env`; the lines TensorFlow prints while it
    loads, before any log level applies, are dropped too unless the user chose
    ``TF_CPP_MIN_LOG_LEVEL`` (every other line comes through).

    Returns:
        The ``keras`` module.
    """
    quiet_tensorflow_env()
    if _SET_HERE.get("TF_CPP_MIN_LOG_LEVEL") == os.environ.get("TF_CPP_MIN_LOG_LEVEL"):
        with _stderr_without(_TF_LOAD_NOISE):
            import keras
    else:
        import keras

    # Every trial builds a new model, so TensorFlow's "tf.function retracing" warning is expected.
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
    return keras


def scaled_iterations(iterations: int, iter_scale: float) -> int:
    """Number of minibatch steps run for a tuned iteration count.

    Args:
        iterations:
            The tuned number of iterations.
        iter_scale:
            The ``--iter-scale`` factor.

    Returns:
        ``round(iterations * iter_scale)``, at least 1.
    """
    return max(1, round(iterations * iter_scale))


def _seeds(seed: int, n: int) -> list[int]:
    return [int(s) for s in np.random.default_rng(seed).integers(0, 2**31 - 1, size=n)]


def build_mlp(
    input_shape: tuple[int, ...],
    n_classes: int,
    *,
    hidden_units: int,
    dropout: float,
    seed: int,
) -> keras.Model:
    """Input, one ReLU hidden layer with dropout, softmax output.

    Args:
        input_shape:
            Shape of one input; it is flattened.
        n_classes:
            Number of output classes.
        hidden_units:
            Width of the hidden layer.
        dropout:
            Fraction of hidden units dropped during training (Keras ``Dropout`` rate).
        seed:
            Seed of the initialisers and the dropout masks.

    Returns:
        An uncompiled model.
    """
    keras = import_keras()
    s = _seeds(seed, 3)
    return keras.Sequential(
        [
            keras.Input(shape=input_shape),
            keras.layers.Flatten(),
            keras.layers.Dense(
                hidden_units,
                activation="relu",
                kernel_initializer=keras.initializers.GlorotUniform(seed=s[0]),
            ),
            keras.layers.Dropout(dropout, seed=s[1]),
            keras.layers.Dense(
                n_classes,
                activation="softmax",
                kernel_initializer=keras.initializers.GlorotUniform(seed=s[2]),
            ),
        ]
    )


def build_cnn(
    input_shape: tuple[int, ...],
    n_classes: int,
    *,
    k1: int,
    k2: int,
    k3: int = 3,
    pool1: int = 3,
    pool2: int = 3,
    pool3: int = 3,
    width_scale: float = 1.0,
    seed: int,
) -> keras.Model:
    """The paper's three-layer CNN (after the cuda-convnet model of Hyperband's study).

    conv(k1) -> maxpool(pool1, stride 1) -> conv(k2) -> maxpool(pool2, stride 2) -> conv(k3)
    -> avgpool(pool3, stride 1) -> dense 512 with batch norm, ReLU and dropout 0.5 -> softmax.
    Convolutions have 200 channels, ReLU and "same" padding; pools use "valid" padding.

    Args:
        input_shape:
            Shape of one image, (height, width, channels).
        n_classes:
            Number of output classes.
        k1:
            Kernel size of the first convolution.
        k2:
            Kernel size of the second convolution.
        k3:
            Kernel size of the third convolution.
        pool1:
            Size of the first (max) pool.
        pool2:
            Size of the second (max) pool.
        pool3:
            Size of the third (average) pool.
        width_scale:
            Factor applied to the 200 channels and the 512 dense units (each at least 1).
        seed:
            Seed of the initialisers and the dropout masks.

    Returns:
        An uncompiled model.
    """
    keras = import_keras()
    layers = keras.layers
    channels = max(1, round(200 * width_scale))
    dense = max(1, round(512 * width_scale))
    s = _seeds(seed, 6)

    def conv(kernel: int, i: int) -> Any:
        init = keras.initializers.GlorotUniform(seed=s[i])
        return layers.Conv2D(
            channels, kernel, padding="same", activation="relu", kernel_initializer=init
        )

    return keras.Sequential(
        [
            keras.Input(shape=input_shape),
            conv(k1, 0),
            layers.MaxPooling2D(pool1, strides=1),
            conv(k2, 1),
            layers.MaxPooling2D(pool2, strides=2),
            conv(k3, 2),
            layers.AveragePooling2D(pool3, strides=1),
            layers.Flatten(),
            layers.Dense(dense, kernel_initializer=keras.initializers.GlorotUniform(seed=s[3])),
            layers.BatchNormalization(),
            layers.ReLU(),
            layers.Dropout(0.5, seed=s[4]),
            layers.Dense(
                n_classes,
                activation="softmax",
                kernel_initializer=keras.initializers.GlorotUniform(seed=s[5]),
            ),
        ]
    )


def _minibatches(n: int, batch_size: int, steps: int, seed: int) -> Iterator[np.ndarray]:
    """Indices of ``steps`` minibatches, reshuffled at every pass over the data."""
    rng = np.random.default_rng(seed)
    size = min(batch_size, n)
    order, pos = rng.permutation(n), 0
    for _ in range(steps):
        if pos + size > n:
            order, pos = rng.permutation(n), 0
        yield order[pos : pos + size]
        pos += size


def _val_accuracy(model: keras.Model, data: Split) -> float | None:
    """Validation accuracy of ``model``, or ``None`` if an output is NaN or infinite."""
    correct = 0
    for start in range(0, len(data.y_val), _EVAL_BATCH_SIZE):
        stop = start + _EVAL_BATCH_SIZE
        probs = np.asarray(model(data.x_val[start:stop], training=False))
        if not np.all(np.isfinite(probs)):
            return None
        correct += int(np.sum(np.argmax(probs, axis=1) == data.y_val[start:stop]))
    return correct / len(data.y_val)


def train_and_evaluate(
    model: keras.Model,
    optimizer: keras.optimizers.Optimizer,
    data: Split,
    *,
    batch_size: int,
    iterations: int,
    lr_drops: int = 0,
    seed: int,
    epochs: int = 1,
    report: Report | None = None,
) -> TrialResult:
    """Train ``model`` for ``iterations`` minibatch steps and measure validation accuracy.

    Args:
        model:
            An uncompiled classifier with softmax outputs.
        optimizer:
            Its optimizer; ``lr_drops`` divides its learning rate.
        data:
            Training and validation arrays.
        batch_size:
            Minibatch size (capped at the training-set size).
        iterations:
            Number of minibatch steps.
        lr_drops:
            How many times the learning rate is divided by 10, at evenly spaced steps
            (``iterations * i / (lr_drops + 1)`` for ``i = 1, ..., lr_drops``).
        seed:
            Seed of the minibatch order.
        epochs:
            Parts the training is cut into; epoch ``e`` ends after
            ``round(iterations * e / epochs)`` steps. At most ``iterations``.
        report:
            Called as ``report(epoch, steps, accuracy)`` after each epoch (the last one
            included), or ``None``. It may raise to stop training (a pruned trial).

    Returns:
        The validation accuracy, or chance accuracy with ``diverged=True`` under the module's
        divergence rule.

    Raises:
        ValueError: If ``epochs`` is not in [1, ``iterations``].
    """
    if not 1 <= epochs <= iterations:
        raise ValueError(
            f"The 'epochs' parameter of train_and_evaluate must be an int in [1, iterations="
            f"{iterations}] (each epoch needs a minibatch step). Got {epochs} instead."
        )
    # XLA compilation (Keras's "auto" default) costs seconds per new model, more than a trial.
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", jit_compile=False)
    base_lr = float(optimizer.learning_rate)
    drops = {iterations * i // (lr_drops + 1): base_lr / 10**i for i in range(1, lr_drops + 1)}
    ends = {round(iterations * e / epochs): e for e in range(1, epochs + 1)}
    chance = 1.0 / data.n_classes
    steps = 0
    accuracy: float | None = None
    for step, idx in enumerate(_minibatches(len(data.y_train), batch_size, iterations, seed)):
        if step in drops:
            optimizer.learning_rate = drops[step]
        loss = model.train_on_batch(data.x_train[idx], data.y_train[idx])
        steps += 1
        if not math.isfinite(float(np.asarray(loss).reshape(-1)[0])):
            return TrialResult(accuracy=chance, diverged=True, steps=steps)
        if report is not None and steps in ends:
            accuracy = _val_accuracy(model, data)
            if accuracy is None:
                return TrialResult(accuracy=chance, diverged=True, steps=steps)
            report(ends[steps], steps, accuracy)
    if accuracy is None:
        accuracy = _val_accuracy(model, data)
    if accuracy is None:
        return TrialResult(accuracy=chance, diverged=True, steps=steps)
    return TrialResult(accuracy=accuracy, diverged=False, steps=steps)


def evaluate_mlp(
    params: Mapping[str, Any],
    data: Split,
    settings: Settings,
    *,
    epochs: int = 1,
    report: Report | None = None,
) -> TrialResult:
    """Objective of the MLP studies (MNIST, digits): plain SGD on the paper's MLP.

    Args:
        params:
            ``hidden_units``, ``learning_rate``, ``dropout``, ``batch_size``, ``iterations``.
        data:
            Training and validation arrays.
        settings:
            Iteration scaling and seed.
        epochs:
            Parts the training is cut into (see :func:`train_and_evaluate`).
        report:
            Called after each epoch (see :func:`train_and_evaluate`), or ``None``.

    Returns:
        The trial's result.
    """
    keras = import_keras()
    keras.backend.clear_session()
    model = build_mlp(
        data.x_train.shape[1:],
        data.n_classes,
        hidden_units=int(params["hidden_units"]),
        dropout=float(params["dropout"]),
        seed=settings.seed,
    )
    optimizer = keras.optimizers.SGD(learning_rate=float(params["learning_rate"]))
    return train_and_evaluate(
        model,
        optimizer,
        data,
        batch_size=int(params["batch_size"]),
        iterations=scaled_iterations(int(params["iterations"]), settings.iter_scale),
        seed=settings.seed,
        epochs=epochs,
        report=report,
    )


def evaluate_cnn(
    params: Mapping[str, Any],
    data: Split,
    settings: Settings,
    *,
    epochs: int = 1,
    report: Report | None = None,
) -> TrialResult:
    """Objective of the CNN studies (SVHN, CIFAR-10): Adam on the paper's CNN.

    Args:
        params:
            ``k1``, ``k2``, ``beta1``, ``beta2``, ``lr_index`` (into
            :data:`LEARNING_RATE_GRID`) and ``iterations``; optionally ``k3``, ``pool1``,
            ``pool2``, ``pool3`` and ``lr_drops`` (fixed at 3, 3, 3, 3 and 0 when absent).
        data:
            Training and validation arrays.
        settings:
            Iteration and width scaling and seed.
        epochs:
            Parts the training is cut into (see :func:`train_and_evaluate`).
        report:
            Called after each epoch (see :func:`train_and_evaluate`), or ``None``.

    Returns:
        The trial's result.
    """
    keras = import_keras()
    keras.backend.clear_session()
    model = build_cnn(
        data.x_train.shape[1:],
        data.n_classes,
        k1=int(params["k1"]),
        k2=int(params["k2"]),
        k3=int(params.get("k3", 3)),
        pool1=int(params.get("pool1", 3)),
        pool2=int(params.get("pool2", 3)),
        pool3=int(params.get("pool3", 3)),
        width_scale=settings.width_scale,
        seed=settings.seed,
    )
    optimizer = keras.optimizers.Adam(
        learning_rate=LEARNING_RATE_GRID[int(params["lr_index"])],
        beta_1=float(params["beta1"]),
        beta_2=float(params["beta2"]),
    )
    return train_and_evaluate(
        model,
        optimizer,
        data,
        batch_size=CNN_BATCH_SIZE,
        iterations=scaled_iterations(int(params["iterations"]), settings.iter_scale),
        lr_drops=int(params.get("lr_drops", 0)),
        seed=settings.seed,
        epochs=epochs,
        report=report,
    )
