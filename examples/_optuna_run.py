"""The Optuna backend of the example studies: samplers and pruners by name, the public
``suggest`` of a distribution, the per-configuration model seed, and one run (one sampler,
one seed) as a study.
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.distributions import FloatDistribution
from optuna.distributions import IntDistribution

from examples._cli import GP_INSTALL
from examples._cli import PRUNERS
from examples._cli import SAMPLERS
from examples._cli import StudySpec
from examples._cli import importable
from examples._cli import tuned_space
from examples._cli import uses_epochs
from examples._datasets import Split
from examples._models import Settings
from examples._report import RunSummary
from examples._report import TrialRecord
from examples._report import summarise


def require_package(module: str, sampler: str, hint: str) -> None:
    if not importable(module):
        raise ImportError(f"The '{sampler}' sampler needs the '{module}' package. {hint}")


def make_optuna_sampler(
    name: str,
    *,
    seed: int,
    n_startup_trials: int | None = None,
    pruned: str | None = None,
    max_budget: int | None = None,
) -> optuna.samplers.BaseSampler:
    """An Optuna sampler by name.

    Args:
        name:
            One of ``"treeucb"``, ``"tpe"``, ``"gp"``, ``"random"``.
        seed:
            Sampler seed.
        n_startup_trials:
            Random trials before the model starts, or ``None`` for the sampler's default.
        pruned:
            TreeUCB's ``pruned`` option, or ``None`` for its default; the other samplers
            have no such option and ignore it.
        max_budget:
            The last step a trial reports (the epochs of a full training): TreeUCB's
            ``max_budget`` with ``pruned="context"``, where new points are played; ignored
            otherwise.

    Returns:
        The sampler.

    Raises:
        ValueError: If ``name`` is unknown.
        ImportError: If the sampler's package is missing.
    """
    startup: dict[str, Any] = {}
    if n_startup_trials is not None:
        startup["n_startup_trials"] = n_startup_trials
    if name == "treeucb":
        require_package("optuna_treeucb", name, "Install this repository: pip install -e .")
        from optuna_treeucb import TreeUCBSampler

        return TreeUCBSampler(seed=seed, **startup, **pruned_rule(pruned, max_budget))
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, **startup)
    if name == "gp":
        require_package("torch", name, f"Optuna's GPSampler needs PyTorch: {GP_INSTALL}.")
        return optuna.samplers.GPSampler(seed=seed, **startup)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"The sampler name must be one of {SAMPLERS}. Got {name!r} instead.")


def pruned_rule(pruned: str | None, max_budget: int | None) -> dict[str, Any]:
    """TreeUCB's options for early-stopped trials: ``pruned``, and with ``"context"`` the full
    budget, so that new points are played at the full training from the first trial on (left
    unset, it is the largest step told so far: under Hyperband a lower rung for a while)."""
    rule: dict[str, Any] = {} if pruned is None else {"pruned": pruned}
    if pruned == "context" and max_budget is not None:
        rule["max_budget"] = max_budget
    return rule


def make_pruner(name: str, *, epochs: int) -> optuna.pruners.BasePruner:
    """An Optuna pruner by ``--pruner`` name.

    Args:
        name:
            One of ``"none"``, ``"median"``, ``"hyperband"``.
        epochs:
            Epochs of a full training (Hyperband's maximum resource).

    Returns:
        ``NopPruner``, ``MedianPruner`` with Optuna's defaults, or ``HyperbandPruner`` from 1
        to ``epochs`` epochs with reduction factor 3.

    Raises:
        ValueError: If ``name`` is unknown.
    """
    if name == "none":
        return optuna.pruners.NopPruner()
    if name == "median":
        return optuna.pruners.MedianPruner()
    if name == "hyperband":
        return optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=epochs, reduction_factor=3
        )
    raise ValueError(f"The pruner name must be one of {PRUNERS}. Got {name!r} instead.")


def suggest(trial: optuna.Trial, name: str, dist: BaseDistribution) -> Any:
    """Ask ``trial`` for parameter ``name`` drawn from ``dist`` through the public API.

    Args:
        trial:
            The running trial.
        name:
            Parameter name.
        dist:
            Its distribution.

    Returns:
        The suggested value.

    Raises:
        TypeError: If ``dist`` is not an Int, Float or Categorical distribution.
    """
    if isinstance(dist, IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, FloatDistribution):
        return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    raise TypeError(
        f"Parameter {name!r} must use IntDistribution, FloatDistribution or "
        f"CategoricalDistribution. Got {type(dist).__name__} instead."
    )


def trial_seed(seed: int, params: Mapping[str, Any]) -> int:
    """Seed of a model: a hash of the run seed and the configuration.

    The same configuration in the same repeat trains identically on either backend.

    Args:
        seed:
            The run's seed.
        params:
            The trial's parameters.

    Returns:
        An int in [0, 2**32).
    """
    text = json.dumps({"seed": seed, "params": dict(params)}, sort_keys=True, default=str)
    return zlib.crc32(text.encode())


def full_training(spec: StudySpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with the resource at its upper bound (trained in epochs)."""
    high = spec.space[spec.resource].high  # type: ignore[attr-defined]
    return {**params, spec.resource: high}


def run_optuna(
    spec: StudySpec, data: Split, sampler_name: str, repeat: int, seed: int, a: argparse.Namespace
) -> tuple[list[TrialRecord], RunSummary, optuna.Study]:
    sampler = make_optuna_sampler(
        sampler_name,
        seed=seed,
        n_startup_trials=a.n_startup_trials,
        pruned=a.pruned,
        max_budget=a.epochs,  # the last step a trial reports
    )
    epochs = uses_epochs(a)
    study = optuna.create_study(
        direction="maximize",
        sampler=sampler,
        pruner=make_pruner(a.pruner, epochs=a.epochs or 1),
        # HyperbandPruner draws each trial's bracket from a hash of the study name: one name
        # per seed gives every sampler the same brackets
        study_name=f"{spec.name}-{a.pruner}-{seed}"
        if epochs
        else f"{spec.name}-{sampler_name}-{seed}",
    )
    for point in a.enqueue:
        study.enqueue_trial(point)
    base = Settings(iter_scale=a.iter_scale, width_scale=a.width_scale, seed=seed)
    space = tuned_space(spec, a)
    start = time.perf_counter()

    def objective(trial: optuna.Trial) -> float:
        params = {name: suggest(trial, name, dist) for name, dist in space.items()}
        settings = replace(base, seed=trial_seed(seed, params))
        t0 = time.perf_counter()

        def timing(steps: int) -> None:
            trial.set_user_attr("steps", steps)
            trial.set_user_attr("duration_s", time.perf_counter() - t0)
            trial.set_user_attr("elapsed_s", time.perf_counter() - start)

        if not epochs:
            result = spec.evaluate(params, data, settings)
        else:

            def report(epoch: int, steps: int, accuracy: float) -> None:
                trial.report(accuracy, epoch)
                trial.set_user_attr("epochs", epoch)
                if epoch < a.epochs and trial.should_prune():
                    timing(steps)
                    raise optuna.TrialPruned(f"pruned after epoch {epoch}")

            trial.set_user_attr("epochs", 0)
            result = spec.evaluate(
                full_training(spec, params), data, settings, epochs=a.epochs, report=report
            )
            if result.diverged:  # it stopped in the epoch after its last report
                trial.set_user_attr("epochs", trial.user_attrs["epochs"] + 1)
        trial.set_user_attr("diverged", result.diverged)
        timing(result.steps)
        return result.accuracy

    study.optimize(objective, n_trials=a.n_trials, timeout=a.timeout, show_progress_bar=True)
    wall = time.perf_counter() - start
    records = []
    states = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
    for t in study.get_trials(deepcopy=False, states=states):
        pruned = t.state == optuna.trial.TrialState.PRUNED
        if pruned and t.last_step is None:  # pruned before its first report: nothing measured
            continue
        value = t.intermediate_values[t.last_step] if pruned else t.value  # type: ignore[index]
        assert value is not None
        records.append(
            TrialRecord(
                study=spec.name,
                backend="optuna",
                sampler=sampler_name,
                repeat=repeat,
                seed=seed,
                trial=t.number,
                value=float(value),
                diverged=bool(t.user_attrs.get("diverged", False)),
                steps=int(t.user_attrs["steps"]),
                duration_s=float(t.user_attrs["duration_s"]),
                elapsed_s=float(t.user_attrs["elapsed_s"]),
                params=dict(t.params),
                state=t.state.name,
                epochs=t.user_attrs.get("epochs"),
            )
        )
    summary = summarise(sampler_name, repeat, seed, records, wall)
    summary.train_s = sum(r.duration_s for r in records)
    return records, summary, study
