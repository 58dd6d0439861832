"""The runner of the example studies: every sampler for every seed, then the files and the table.

A study (``examples/mnist.py`` and the others) declares only a :class:`StudySpec`: its search
space as Optuna distributions, its data loader and its objective. This module turns the spec
into a command line, runs each requested sampler for each repeat through Optuna or Ray Tune,
and writes the results:

* ``trials.csv`` and ``trials.json``: one row per finished trial (sampler, repeat, seed, trial
  number in completion order, value, diverged, minibatch steps, trial seconds, seconds since
  the start of its run, and the parameters);
* ``best_accuracy.png``: best validation accuracy so far against wall-clock time and against
  trials, one line per sampler, averaged over repeats;
* a comparison table on stdout (sampler, runs, trials, mean best accuracy, mean run time).

Pruning (``--pruner`` on Optuna, ``--scheduler asha`` on Ray): the training length is then the
resource, not a tuned parameter. The study's ``resource`` parameter (``iterations``) leaves the
search space; every trial trains up to its upper bound, cut into ``--epochs`` epochs of equal
length, and reports its validation accuracy after each. The pruner or scheduler stops the
trials it judges unpromising; the files then list pruned trials too (``state``, ``epochs``), the
best accuracy counts complete trials only, and the plot's second panel is against epochs spent.

Progress shows as Optuna's tqdm bar or as Ray Tune's trial table.

The parts: :mod:`examples._cli` (the command line), :mod:`examples._optuna_run` and
:mod:`examples._ray_run` (the two backends), :mod:`examples._report` (files, plot, table).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples._cli import SYNTHETIC_NOTE
from examples._cli import StudySpec
from examples._cli import build_parser
from examples._cli import resolve_args
from examples._cli import uses_epochs
from examples._datasets import DataNotFoundError
from examples._datasets import Split
from examples._datasets import split_train_val
from examples._datasets import synthetic
from examples._models import Settings
from examples._optuna_run import make_optuna_sampler
from examples._optuna_run import run_optuna
from examples._ray_run import make_ray_searcher
from examples._ray_run import ray_init
from examples._ray_run import run_ray
from examples._report import RunSummary
from examples._report import TrialRecord
from examples._report import format_table
from examples._report import interpret
from examples._report import plot_best
from examples._report import write_results


@dataclass
class RunResult:
    """Everything :func:`run` produced.

    Args:
        records:
            Finished trials of all runs.
        runs:
            One summary per (sampler, repeat).
        studies:
            The Optuna studies by (sampler, repeat); empty for the Ray backend.
        files:
            Written files by kind (``"csv"``, ``"json"``, ``"plot"``).
        table:
            The printed comparison table.
    """

    records: list[TrialRecord]
    runs: list[RunSummary]
    studies: dict[tuple[str, int], optuna.Study]
    files: dict[str, Path]
    table: str


def synthetic_data(spec: StudySpec, a: argparse.Namespace) -> bool:
    """Whether synthetic arrays stand in for the data (``--smoke`` without ``--data-dir``)."""
    return bool(a.smoke and a.data_dir is None and not spec.bundled_data)


def load_split(spec: StudySpec, a: argparse.Namespace) -> Split:
    """Load the study's data as the resolved options ask and split off validation.

    With ``--smoke`` and no ``--data-dir``, synthetic arrays of the real shapes stand in for
    the data (unless the data ship with a package); ``--smoke`` never downloads.

    Args:
        spec:
            The study.
        a:
            Resolved options.

    Returns:
        The training and validation arrays.

    Raises:
        DataNotFoundError: If the data are missing and cannot be downloaded.
        ValueError: If ``--train-size`` or ``--val-size`` do not fit the data.
    """
    if synthetic_data(spec, a):
        data = synthetic(
            spec.input_shape, a.train_size + a.val_size, n_classes=10, seed=min(a.seeds)
        )
    else:
        data_dir = a.data_dir if a.data_dir is not None else Path("data")
        data = spec.load(data_dir, download=not (a.smoke or a.no_download))
    return split_train_val(data, train_size=a.train_size, val_size=a.val_size)


def _warm_up(spec: StudySpec, data: Split, a: argparse.Namespace) -> None:
    """Train one tiny configuration, untimed, so that the first run is not charged for it.

    Importing TensorFlow and its first graph take seconds, which the first sampler's first
    trial would otherwise pay, skewing its time in the table and the time plot.
    """
    params: dict[str, Any] = {}
    for name, dist in spec.space.items():
        if isinstance(dist, (FloatDistribution, IntDistribution)):
            params[name] = dist.low
        elif isinstance(dist, CategoricalDistribution):
            params[name] = dist.choices[0]
    t0 = time.perf_counter()
    spec.evaluate(params, data, Settings(iter_scale=1e-9, width_scale=a.width_scale, seed=0))
    print(f"[{spec.name}] warm-up (untimed): {time.perf_counter() - t0:.1f} s", flush=True)


def run(spec: StudySpec, a: argparse.Namespace) -> RunResult:
    """Run every sampler for every seed, then write the results, plot and table.

    Args:
        spec:
            The study.
        a:
            Options resolved by :func:`resolve_args`.

    Returns:
        The trials, run summaries, Optuna studies and written files.
    """
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for name in a.samplers:  # Fail before any training if a sampler is unavailable.
        if a.backend == "ray":
            make_ray_searcher(name, seed=0)
        else:
            make_optuna_sampler(name, seed=0)
    data = load_split(spec, a)
    pruning = ""
    if uses_epochs(a):
        how = f"pruner {a.pruner}" if a.backend == "optuna" else f"scheduler {a.scheduler}"
        pruning = f"; {how}, {a.epochs} epochs, '{spec.resource}' is the resource"
    if synthetic_data(spec, a):
        print(f"[{spec.name}] {SYNTHETIC_NOTE}", flush=True)
    print(
        f"[{spec.name}] {len(data.y_train)} training / {len(data.y_val)} validation examples; "
        f"backend {a.backend}; samplers {', '.join(a.samplers)}; seeds {a.seeds}; "
        f"{a.n_trials} trials per run" + (f" or {a.timeout:g} s" if a.timeout else "") + pruning,
        flush=True,
    )
    if a.backend == "optuna":
        _warm_up(spec, data, a)
    started_ray = ray_init() if a.backend == "ray" else False
    records: list[TrialRecord] = []
    runs: list[RunSummary] = []
    studies: dict[tuple[str, int], optuna.Study] = {}
    try:
        for repeat, seed in enumerate(a.seeds):
            for name in a.samplers:
                print(f"[{spec.name}] {name}, repeat {repeat + 1}/{len(a.seeds)} (seed {seed})")
                if a.backend == "ray":
                    recs, summary = run_ray(spec, data, name, repeat, seed, a)
                else:
                    recs, summary, study = run_optuna(spec, data, name, repeat, seed, a)
                    studies[(name, repeat)] = study
                records += recs
                runs.append(summary)
    finally:
        if started_ray:
            import ray

            ray.shutdown()
    meta = {
        k: (str(v) if isinstance(v, Path) else v)
        for k, v in vars(a).items()
        if k not in ("enqueue",)
    }
    meta["enqueue"] = a.enqueue
    files = write_results(records, runs, Path(a.out), meta)
    if records:
        title = f"{spec.name}: best validation accuracy ({a.backend})"
        files["plot"] = plot_best(records, Path(a.out) / "best_accuracy.png", title)
    table = format_table(runs)
    print(table)
    print(interpret(runs))
    if synthetic_data(spec, a):
        print(SYNTHETIC_NOTE)
    for kind, path in files.items():
        print(f"wrote {kind}: {path}")
    return RunResult(records, runs, studies, files, table)


def run_cli(spec: StudySpec, argv: Sequence[str] | None = None) -> RunResult | None:
    """Parse ``argv`` and run the study; missing data print a message instead of a traceback.

    Args:
        spec:
            The study.
        argv:
            Arguments without the program name, or ``None`` for ``sys.argv[1:]``.

    Returns:
        The result, or ``None`` if the data were missing (the message went to stderr).
    """
    parser = build_parser(spec)
    a = resolve_args(spec, parser.parse_args(argv), parser)
    try:
        return run(spec, a)
    except DataNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def main_for(spec: StudySpec, argv: Sequence[str] | None = None) -> int:
    """``main()`` of a study: exit status 0 on success, 2 if the data are missing.

    Args:
        spec:
            The study.
        argv:
            Arguments without the program name, or ``None`` for ``sys.argv[1:]``.

    Returns:
        The exit status.
    """
    return 0 if run_cli(spec, argv) is not None else 2
