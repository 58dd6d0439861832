"""Conditional spaces on Ray (issue #23): TreeUCBSearch takes a dict of Tune domains; a
define-by-run function goes to Ray's OptunaSearch with TreeUCBSampler, driven here without
``ray.init``."""

from __future__ import annotations

import optuna
import pytest
from ray.tune.search.optuna import OptunaSearch

from optuna_treeucb import TreeUCBSampler
from ray_treeucb import TreeUCBSearch

optuna.logging.set_verbosity(optuna.logging.ERROR)


def _space(trial: optuna.Trial) -> None:
    branch = trial.suggest_categorical("branch", ["easy", "best"])
    if branch == "easy":
        trial.suggest_float("e", 0.0, 1.0)
    else:
        for i in range(4):
            trial.suggest_float(f"x{i}", 0.0, 1.0)


def _loss(config: dict) -> float:
    if config["branch"] == "easy":
        return 0.3 + 0.05 * config["e"]
    return 3.0 * sum((config[f"x{i}"] - 0.7) ** 2 for i in range(4))


def test_a_function_space_names_the_define_by_run_route() -> None:
    with pytest.raises(TypeError, match=r"OptunaSearch\(space=fn.*TreeUCBSampler"):
        TreeUCBSearch(space=_space, metric="loss", mode="min")


def test_optuna_search_with_treeucb_sampler_finds_the_best_branch() -> None:
    searcher = OptunaSearch(
        space=_space,
        metric="loss",
        mode="min",
        sampler=TreeUCBSampler(seed=0, n_startup_trials=5),
    )
    best = (float("inf"), "")
    for i in range(80):
        config = searcher.suggest(str(i))
        assert ("e" in config) == (config["branch"] == "easy")
        loss = _loss(config)
        best = min(best, (loss, config["branch"]))
        searcher.on_trial_complete(str(i), {"loss": loss})
    assert best[1] == "best" and best[0] < 0.05
