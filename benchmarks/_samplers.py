"""The one factory of the benchmarks' samplers (Optuna) and searchers (Ray Tune): a registered
name, optionally with constructor options in brackets, ``Name[key=value,...]``
(benchmarks/README.md); a new one is one :class:`Entry` of :data:`SAMPLERS` or
:data:`SEARCHERS`, naming the package it needs (checked up front by :func:`require_packages`).
"""

from __future__ import annotations

import ast
import functools
import importlib
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import optuna
from optuna.distributions import BaseDistribution
from optuna.distributions import CategoricalDistribution
from optuna.samplers import BaseSampler
from optuna.study import Study
from optuna.trial import FrozenTrial
from optuna.trial import TrialState

from optuna_treeucb import TreeUCBSampler


@dataclass(frozen=True)
class Entry:
    """How to build one registered sampler or searcher: ``build(seed, context, **options)``,
    ``context`` holding what a searcher needs besides its options (empty for a sampler); the
    ``package`` it imports beyond the test extra and the ``extra`` that installs it; whether
    it ``owns_space`` (takes the space at construction, and Tune no ``param_space``)."""

    build: Callable[..., Any]
    package: str | None = None
    extra: str = "benchmarks"
    owns_space: bool = False


def parse_options(text: str) -> dict[str, Any]:
    """``"a=1,b=x"`` -> ``{"a": 1, "b": "x"}`` (values parsed as Python literals if possible)."""
    out: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, _, raw = item.partition("=")
        try:
            out[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            out[key] = raw
    return out


def split_names(text: str) -> list[str]:
    """A comma-separated list of names; commas inside ``[...]`` belong to a name's options."""
    names, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"[": 1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            names.append(text[start:i])
            start = i + 1
    names.append(text[start:])
    return [n for n in names if n]


def parse_name(name: str) -> tuple[str, dict[str, Any]]:
    """``"TreeUCB[C=0.03]"`` -> ``("TreeUCB", {"C": 0.03})``."""
    if name.endswith("]") and "[" in name:
        base, _, options = name[:-1].partition("[")
        return base, parse_options(options)
    return name, {}


# -- Optuna samplers ----------------------------------------------------------------------------
def _treeucb(seed: int, context: dict[str, Any], **options: Any) -> Any:
    options.setdefault("warn_independent_sampling", False)  # runs are unattended
    return TreeUCBSampler(seed=seed, **options)


def _optuna(cls: str, **fixed: Any) -> Callable[..., Any]:
    def build(seed: int, context: dict[str, Any], **options: Any) -> Any:
        return getattr(optuna.samplers, cls)(seed=seed, **{**fixed, **options})

    return build


SAMPLERS: dict[str, Entry] = {
    "TreeUCB": Entry(_treeucb),
    "TPE": Entry(_optuna("TPESampler")),
    "GP": Entry(_optuna("GPSampler"), package="torch", extra="gp"),
    "CmaEs": Entry(_optuna("CmaEsSampler"), package="cmaes"),
    "Random": Entry(_optuna("RandomSampler")),
    "QMC": Entry(_optuna("QMCSampler", scramble=True)),
    "NSGA-II": Entry(_optuna("NSGAIISampler")),
    # Optuna users' TPE on conditional spaces (mixed)
    "TPE multivariate": Entry(_optuna("TPESampler", multivariate=True, group=True)),
    # AutoSampler's rule (AutoRuleSampler below)
    "Auto": Entry(lambda seed, context, **o: AutoRuleSampler(seed=seed, **o), "torch", "gp"),
}


# -- Ray Tune searchers -------------------------------------------------------------------------
def _tune_search(module: str, cls: str, seed_argument: str) -> Callable[..., Any]:
    def build(seed: int, context: dict[str, Any], **options: Any) -> Any:
        searcher = getattr(importlib.import_module(module), cls)
        if context.get("constraints"):  # the result keys feasible when <= 0 (TreeUCBSearch)
            options["constraints"] = context["constraints"]
        return searcher(
            context.get("space"),
            metric=context.get("metric"),
            mode=context.get("mode"),
            **{seed_argument: seed},
            **options,
        )

    return build


def _optuna_search(seed: int, context: dict[str, Any], **options: Any) -> Any:
    """Ray's ``OptunaSearch`` (TPE; ``multivariate=True`` gives it
    ``TPESampler(multivariate=True)``, ``sampler=NAME`` the sampler of :data:`SAMPLERS` so
    named).  It has no constraints argument: with ``constraints`` in the context, a subclass
    stores those metrics of each result on its Optuna trial (``Trial.set_constraint``, where
    Optuna 5's samplers read them) before the tell."""
    from ray.tune.search.optuna import OptunaSearch

    constraints = context.get("constraints") or []

    class ConstrainedOptunaSearch(OptunaSearch):  # type: ignore[misc]
        def on_trial_complete(
            self, trial_id: str, result: dict[str, Any] | None = None, error: bool = False
        ) -> None:
            if result and trial_id in self._ot_trials:
                for c in constraints:
                    self._ot_trials[trial_id].set_constraint(c, float(result[c]))
            super().on_trial_complete(trial_id, result=result, error=error)

    if options.pop("multivariate", False):
        options["sampler"] = optuna.samplers.TPESampler(seed=seed, multivariate=True)
    if isinstance(options.get("sampler"), str):
        options["sampler"] = make_sampler(options["sampler"], seed)
    cls = ConstrainedOptunaSearch if constraints else OptunaSearch
    space, metric, mode = (context.get(k) for k in ("space", "metric", "mode"))
    return cls(space=space, metric=metric, mode=mode, seed=seed, **options)


def _nevergrad_cma(seed: int, context: dict[str, Any], **options: Any) -> Any:
    """nevergrad's ``CMA`` told the budget, its parametrization seeded (NevergradSearch has no
    seed; ``NGOpt`` picks Cobyla here, which cannot be pickled, and Tune pickles the searcher).
    """
    import nevergrad as ng
    import numpy as np
    from ray.tune.search.nevergrad import NevergradSearch

    if context.get("space") is None or context.get("budget") is None:
        raise ValueError("NevergradSearch (CMA) needs the space and the budget at construction.")
    parametrization = NevergradSearch.convert_search_space(context["space"])
    parametrization.random_state = np.random.RandomState(seed)  # type: ignore[attr-defined]
    optimizer = ng.optimizers.CMA(parametrization=parametrization, budget=context["budget"])
    return NevergradSearch(
        optimizer=optimizer, metric=context.get("metric"), mode=context.get("mode"), **options
    )


def _random_search(seed: int, context: dict[str, Any], **options: Any) -> Any:
    from ray.tune.search import BasicVariantGenerator

    # its own limit: Tune's max_concurrent_trials ignores a BasicVariantGenerator passed in
    limit = context.get("max_concurrent", 1)
    return BasicVariantGenerator(random_state=seed, max_concurrent=limit, **options)


SEARCHERS: dict[str, Entry] = {
    "TreeUCBSearch": Entry(_tune_search("ray_treeucb", "TreeUCBSearch", "seed")),
    "HyperOptSearch": Entry(
        _tune_search("ray.tune.search.hyperopt", "HyperOptSearch", "random_state_seed"),
        package="hyperopt",
    ),
    "OptunaSearch (TPE)": Entry(_optuna_search),
    "OptunaSearch (TreeUCB)": Entry(functools.partial(_optuna_search, sampler="TreeUCB")),
    "NevergradSearch (CMA)": Entry(_nevergrad_cma, package="nevergrad", owns_space=True),
    "BasicVariantGenerator (random)": Entry(_random_search),
}


def _entry(name: str, registry: dict[str, Entry]) -> tuple[Entry, dict[str, Any]]:
    base, options = parse_name(name)
    if base not in registry:
        kind, example = (
            ("searcher", "TreeUCBSearch[pruned=context]")
            if registry is SEARCHERS
            else ("sampler", "TreeUCB[sampling=uniform]")
        )
        raise ValueError(
            f"Unknown {kind} {name!r}; choose from {', '.join(registry)}, each optionally "
            f"followed by constructor options in brackets, e.g. {example}."
        )
    return registry[base], options


def make_sampler(name: str, seed: int, **fixed: Any) -> Any:
    """A fresh Optuna sampler by name (see the module docstring); ``fixed`` adds constructor
    options (e.g. ``constraints_func``)."""
    entry, options = _entry(name, SAMPLERS)
    return entry.build(seed, {}, **options, **fixed)


def make_searcher(name: str, seed: int, **context: Any) -> Any:
    """A fresh Ray Tune searcher by name; ``context``: ``space``, ``metric``, ``mode`` (given
    to the constructor; leave them out when Tune's ``TuneConfig`` sets them), ``budget``
    (trials), ``max_concurrent`` and ``constraints``."""
    entry, options = _entry(name, SEARCHERS)
    return entry.build(seed, context, **options)


def require(module: str, needed_for: str, command: str, extra: str = "benchmarks") -> None:
    """Exit with a one-line message naming the extra if ``module`` cannot be imported."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise SystemExit(
            f"python -m benchmarks {command}: {needed_for} needs the {module!r} package, which "
            f"could not be imported. Install the {extra} extra: pip install -e '.[{extra}]'."
        ) from None


def require_packages(names: Iterable[str], command: str, searchers: bool = False) -> None:
    """Check the names and the packages they need before anything runs (see
    :func:`require`)."""
    registry = SEARCHERS if searchers else SAMPLERS
    for name in names:
        try:
            entry, _ = _entry(name, registry)
        except ValueError as exc:
            raise SystemExit(f"python -m benchmarks {command}: {exc}") from None
        if entry.package:
            require(entry.package, name, command, entry.extra)


# -- the AutoSampler rule ------------------------------------------------------------------
GP_MAX_TRIALS = 250  # AutoSampler's switch from GPSampler to CMA-ES


class AutoRuleSampler(BaseSampler):
    """GPSampler below :data:`GP_MAX_TRIALS` finished trials on a numeric, fixed space; TPE
    (multivariate, constant liar) once a categorical or conditional parameter is seen; CMA-ES
    after that many trials.  With several objectives or constraints the same rule, each
    sampler handling them as it does; from that many trials on, CMA-ES only for one objective
    without constraints, TPE otherwise (the rule names no sampler there; CMA-ES takes neither).
    ``seed`` seeds every sampler it delegates to."""

    def __init__(self, *, seed: int | None = None) -> None:
        samplers = optuna.samplers
        self._samplers: dict[str, BaseSampler] = {
            "gp": samplers.GPSampler(seed=seed),
            "tpe": samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True),
            "cmaes": samplers.CmaEsSampler(seed=seed),
        }
        self._tree_structured = False  # a categorical or conditional parameter was seen
        self._current = self._samplers["gp"]

    def _choose(self, study: Study) -> BaseSampler:
        trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if not self._tree_structured and trials:
            names = {frozenset(t.params) for t in trials}
            dists = [d for t in trials for d in t.distributions.values()]
            categorical = any(isinstance(d, CategoricalDistribution) for d in dists)
            self._tree_structured = len(names) > 1 or categorical
        if self._tree_structured:
            return self._samplers["tpe"]
        if len(trials) < GP_MAX_TRIALS:
            return self._samplers["gp"]
        constrained = bool(getattr(trials[-1], "constraints", None))
        return self._samplers["tpe" if constrained or len(study.directions) > 1 else "cmaes"]

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
