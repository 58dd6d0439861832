"""Tune the paper's CNN on CIFAR-10 (TreeUCB paper, arXiv:1901.09277, Section 6).

The SVHN network (:func:`examples._models.build_cnn`) with more of it tuned: all three kernel
sizes, the three pool sizes, Adam's beta1 and beta2, the learning rate (an index into
:data:`examples._models.LEARNING_RATE_GRID`), how many times it is divided by 10 at evenly
spaced steps, and the number of minibatch steps.

Run from the repository root, for example::

    python -m examples.cifar10 --smoke
    python -m examples.cifar10 --width-scale 0.1 --iter-scale 0.2 --train-size 20000

Data: the extracted ``cifar-10-batches-py`` folder in ``--data-dir``, else the Keras download.
"""

from __future__ import annotations

from collections.abc import Sequence

from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples._cli import StudySpec
from examples._datasets import load_cifar10
from examples._models import LEARNING_RATE_GRID
from examples._models import evaluate_cnn
from examples._runner import main_for

SPACE = {
    "k1": IntDistribution(1, 7),
    "k2": IntDistribution(1, 7),
    "k3": IntDistribution(1, 3),
    "pool1": IntDistribution(1, 3),
    "pool2": IntDistribution(1, 3),
    "pool3": IntDistribution(1, 6),
    "beta1": FloatDistribution(0.0, 1.0, step=0.05),
    "beta2": FloatDistribution(0.0, 1.0, step=0.05),
    "lr_index": IntDistribution(0, len(LEARNING_RATE_GRID) - 1),
    "lr_drops": IntDistribution(1, 3),
    "iterations": IntDistribution(200, 3000, step=200),
}

STUDY = StudySpec(
    name="cifar10",
    description="Tune a CNN on CIFAR-10 (TreeUCB paper's space) with Optuna or Ray Tune.",
    space=SPACE,
    load=load_cifar10,
    evaluate=evaluate_cnn,
    input_shape=(32, 32, 3),
    val_size=10_000,
    width_scale=0.1,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the study from the command line.

    Args:
        argv:
            Arguments without the program name, or ``None`` for ``sys.argv[1:]``.

    Returns:
        The exit status: 0 on success, 2 if the data are missing.
    """
    return main_for(STUDY, argv)


if __name__ == "__main__":
    raise SystemExit(main())
