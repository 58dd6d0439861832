"""Tune the paper's MLP on MNIST (TreeUCB paper, arXiv:1901.09277, Section 6).

An input layer, one ReLU hidden layer with dropout and a softmax output, trained with plain SGD
for a tuned number of minibatch steps; the objective is validation accuracy on examples held out
of the MNIST training file.

Run from the repository root, for example::

    python -m examples.mnist --smoke
    python -m examples.mnist --samplers treeucb tpe --repeats 3 --iter-scale 0.5
    python -m examples.mnist --backend ray --n-trials 40

Data: ``--data-dir/mnist.npz`` (as Keras ships it), else the Keras download.
"""

from __future__ import annotations

from collections.abc import Sequence

from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples._cli import StudySpec
from examples._datasets import load_mnist
from examples._models import evaluate_mlp
from examples._runner import main_for

# The paper's MLP space. Its half-open ranges [1e-4, 4) and [0.1, 0.9) are closed here.
SPACE = {
    "hidden_units": IntDistribution(10, 784),
    "learning_rate": FloatDistribution(1e-4, 4.0, log=True),
    "dropout": FloatDistribution(0.1, 0.9),
    "batch_size": IntDistribution(10, 500),
    "iterations": IntDistribution(30, 243),
}

STUDY = StudySpec(
    name="mnist",
    description="Tune an MLP on MNIST (TreeUCB paper's space) with Optuna or Ray Tune.",
    space=SPACE,
    load=load_mnist,
    evaluate=evaluate_mlp,
    input_shape=(28, 28),
    val_size=10_000,
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
