"""Studies whose parameter ranges change: widened on resume, or one range per branch (the
objectives of ``python -m benchmarks changing_spaces``)."""

from __future__ import annotations

import logging

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution

from benchmarks.changing_spaces import per_branch_objective
from benchmarks.changing_spaces import widen_objective
from optuna_treeucb import TreeUCBSampler

optuna.logging.set_verbosity(optuna.logging.WARNING)


def test_a_range_widened_on_resume_stays_modelled(caplog: pytest.LogCaptureFixture) -> None:
    # issue 31, item 4: x in [0, 1], then [0, 2]; x used to be drawn at random from then on
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0))
    study.optimize(widen_objective(1.0), n_trials=50)
    study.sampler = TreeUCBSampler(seed=1)  # resumed, as from storage
    with caplog.at_level(logging.WARNING, logger="optuna_treeucb"):
        study.optimize(widen_objective(2.0), n_trials=60)
    assert not [r for r in caplog.records if "instead of the tree" in r.message]
    model = study.sampler.build_model(study, ["x", "y", "z"])
    assert model.space.params[0].high == 2.0
    assert model.n_observations == 110  # the old trials lie inside the new range
    after = [t.value for t in study.trials[80:]]
    assert np.median(after) < 0.05  # 0.29 when x was left to random sampling


def test_one_range_per_branch_is_modelled_per_branch() -> None:
    # issue 31, item 5: "lr" in [0, 0.1] under a, [0, 1] under b; lr used to leave the model
    # and the branch rule settled on the worse branch b (best 0.034 here)
    study = optuna.create_study(sampler=TreeUCBSampler(seed=0))
    study.optimize(per_branch_objective, n_trials=100)
    assert study.best_value < 0.01 and study.best_params["branch"] == "a"
    space = study.sampler.infer_relative_search_space(study, study.trials[-1])
    assert isinstance(space["lr"], FloatDistribution)  # modelled, with the last range
    late = study.trials[50:]
    assert sum(t.params["branch"] == "a" for t in late) > len(late) / 2
