"""A baseline that follows OptunaHub AutoSampler's documented selection rule.

AutoSampler (``optunahub.load_module("samplers/auto_sampler")``) picks a sampler per trial:
GPSampler while the space is numeric and fewer than 250 trials have finished; TPE
(multivariate, with the constant liar) once a categorical or conditional parameter appears;
CMA-ES from 250 trials on.  This class applies that rule to Optuna's own samplers, so tables
that include GPSampler can include the rule too, without the network or optunahub.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

GP_MAX_TRIALS = 250  # AutoSampler's switch from GPSampler to CMA-ES


class AutoRuleSampler(BaseSampler):
    """GPSampler below :data:`GP_MAX_TRIALS` finished trials on a numeric, fixed space; TPE
    (multivariate, constant liar) once a categorical or conditional parameter is seen; CMA-ES
    after that many trials.  With several objectives or constraints the same rule, each
    sampler handling them as it does; from that many trials on, CMA-ES only for one objective
    without constraints, TPE otherwise (the rule names no sampler there; CMA-ES takes neither).

    Args:
        seed: Seed of every sampler it delegates to.
    """

    def __init__(self, *, seed: int | None = None) -> None:
        self._seed = seed
        self._samplers: dict[str, BaseSampler] = {}
        self._tree_structured = False  # a categorical or conditional parameter was seen
        self._current = self._get("gp")

    def _get(self, name: str) -> BaseSampler:
        if name not in self._samplers:
            samplers = optuna.samplers
            self._samplers[name] = {
                "gp": lambda: samplers.GPSampler(seed=self._seed),
                "tpe": lambda: samplers.TPESampler(
                    seed=self._seed, multivariate=True, constant_liar=True
                ),
                "cmaes": lambda: samplers.CmaEsSampler(seed=self._seed),
            }[name]()
        return self._samplers[name]

    def _choose(self, study: Study) -> BaseSampler:
        trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if not self._tree_structured and trials:
            names = {frozenset(t.params) for t in trials}
            dists = [d for t in trials for d in t.distributions.values()]
            categorical = any(isinstance(d, CategoricalDistribution) for d in dists)
            self._tree_structured = len(names) > 1 or categorical
        if self._tree_structured:
            return self._get("tpe")
        if len(trials) < GP_MAX_TRIALS:
            return self._get("gp")
        constrained = bool(getattr(trials[-1], "constraints", None))
        return self._get("tpe" if constrained or len(study.directions) > 1 else "cmaes")

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        return self._current.infer_relative_search_space(study, trial)

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        return self._current.sample_relative(study, trial, search_space)

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        return self._current.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._current = self._choose(study)  # once per trial, before it samples
        self._current.before_trial(study, trial)

    def after_trial(
        self,
        study: Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        self._current.after_trial(study, trial, state, values)
