"""Minimise a 2-D function with TreeUCBSampler loaded through OptunaHub."""

import optuna
import optunahub


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5.0, 5.0)
    y = trial.suggest_int("y", -5, 5)
    return (x - 1.0) ** 2 + (y + 2) ** 2


module = optunahub.load_module("samplers/treeucb")
study = optuna.create_study(sampler=module.TreeUCBSampler(seed=0))
study.optimize(objective, n_trials=60)
print(study.best_params, study.best_value)
