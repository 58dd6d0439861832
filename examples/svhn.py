"""Tune the paper's CNN on SVHN (TreeUCB paper, arXiv:1901.09277, Section 6).

Three convolutions with pooling, a 512-unit dense layer with batch norm and dropout, softmax,
trained with Adam (see :func:`examples._models.build_cnn`). Tuned: the first two kernel sizes,
Adam's beta1 and beta2, the learning rate (an index into the paper's 99-point grid,
:data:`examples._models.LEARNING_RATE_GRID`) and the number of minibatch steps.

Run from the repository root, for example::

    python -m examples.svhn --smoke
    python -m examples.svhn --width-scale 0.1 --iter-scale 0.2 --train-size 20000

Data: ``train_32x32.mat`` and ``test_32x32.mat`` from http://ufldl.stanford.edu/housenumbers/
in ``--data-dir`` (there is no Keras loader).
"""

from __future__ import annotations

from collections.abc import Sequence

from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples._cli import StudySpec
from examples._datasets import load_svhn
from examples._models import LEARNING_RATE_GRID
from examples._models import evaluate_cnn
from examples._runner import main_for

SPACE = {
    "k1": IntDistribution(1, 7),
    "k2": IntDistribution(1, 7),
    "beta1": FloatDistribution(0.0, 1.0, step=0.05),
    "beta2": FloatDistribution(0.0, 1.0, step=0.05),
    "lr_index": IntDistribution(0, len(LEARNING_RATE_GRID) - 1),
    "iterations": IntDistribution(300, 1500, step=100),
}

STUDY = StudySpec(
    name="svhn",
    description="Tune a CNN on SVHN (TreeUCB paper's space) with Optuna or Ray Tune.",
    space=SPACE,
    load=load_svhn,
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
