"""The README's main job: TreeUCB beside TPE on the paper's MLP space, in a few minutes on a CPU.

The MNIST study's search space and model (:mod:`examples.mnist`) on scikit-learn's bundled 8x8
digits (1797 images, 64 features), so nothing downloads. Each sampler runs once per seed; the
script prints a comparison table (mean best validation accuracy and mean run time per sampler)
and writes into ``--out``: ``trials.csv``, ``trials.json``, ``best_accuracy.png`` and
``partition.png``, the partition TreeUCB learned over two parameters in the first repeat.

Run from the repository root::

    python -m examples.digits
    python -m examples.digits --repeats 5 --n-trials 50 --samplers treeucb tpe random
    python -m examples.digits --backend ray
    python -m examples.digits --pruner hyperband        # iterations become epochs, the resource
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from examples._cli import StudySpec
from examples._datasets import load_digits
from examples._models import evaluate_mlp
from examples._runner import RunResult
from examples._runner import run_cli
from examples.mnist import SPACE

# Parameters drawn in partition.png (x axis first); the others are held at the best trial's.
PARTITION_PARAMS = ("learning_rate", "iterations")
# With a pruner, iterations is the resource, not tuned: batch size takes its place.
PARTITION_PARAMS_PRUNED = ("learning_rate", "batch_size")
# The colour bar's label: the index U = mean + C sqrt(4 log t / n) + M diameter (the guide's
# formula) has its mean reward in [0, 1], but the two terms added to it can lift it above 1.
INDEX_LABEL = "TreeUCB index: mean reward in [0, 1]\n+ exploration bonus + M × box diameter"

STUDY = StudySpec(
    name="digits",
    description="Tune the paper's MLP on scikit-learn's 8x8 digits: TreeUCB beside TPE.",
    space=SPACE,
    load=load_digits,
    evaluate=evaluate_mlp,
    input_shape=(64,),
    val_size=597,
    n_trials=30,
    samplers=("treeucb", "tpe"),
    repeats=2,
    bundled_data=True,
)


def plot_treeucb_partition(result: RunResult, path: Path) -> Path | None:
    """Draw the partition of the first TreeUCB study over :data:`PARTITION_PARAMS`.

    With a pruner, over :data:`PARTITION_PARAMS_PRUNED`.

    Args:
        result:
            The finished run (Optuna backend).
        path:
            PNG file to write.

    Returns:
        ``path``, or ``None`` when there is no TreeUCB Optuna study to draw.
    """
    study = result.studies.get(("treeucb", 0))
    if study is None:
        return None
    from matplotlib.figure import Figure

    from optuna_treeucb.visualization import plot_partition

    tuned = {name for t in study.get_trials(deepcopy=False) for name in t.params}
    params = PARTITION_PARAMS if set(PARTITION_PARAMS) <= tuned else PARTITION_PARAMS_PRUNED
    fig = Figure(figsize=(6.5, 5), layout="constrained")
    ax = fig.subplots()
    plot_partition(study, params=params, ax=ax)
    for other in fig.axes:  # the colour bar of the index
        if other is not ax and other.get_ylabel() == "TreeUCB index":
            other.set_ylabel(INDEX_LABEL)
    fig.savefig(path, dpi=120)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison from the command line.

    Args:
        argv:
            Arguments without the program name, or ``None`` for ``sys.argv[1:]``.

    Returns:
        The exit status, 0 on success.
    """
    result = run_cli(STUDY, argv)
    if result is None:
        return 2
    path = plot_treeucb_partition(result, result.files["csv"].parent / "partition.png")
    if path is None:
        print("no partition.png: it draws the TreeUCB model of an Optuna study (--backend optuna)")
    else:
        result.files["partition"] = path
        print(f"wrote partition: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
