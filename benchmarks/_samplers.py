"""The one factory of the benchmarks' samplers (Optuna) and searchers (Ray Tune).

One naming rule for every command: a registered name, optionally followed by constructor
options in brackets, ``Name[key=value,...]`` (values parsed as Python literals when they
are). So ``TreeUCB`` is ``TreeUCBSampler(seed=seed)``, ``TreeUCB[sampling=uniform]`` the
paper's in-box draw, ``TPE[constant_liar=True]`` Optuna's TPE with the constant liar, and
``TreeUCBSearch[pruned=context,max_budget=27]`` the Ray searcher with those options.

Add a sampler or searcher by adding one :class:`Entry` to :data:`SAMPLERS` or
:data:`SEARCHERS`, naming the package it needs (checked up front by
:func:`require_packages`, so that a run stops at once with the install command instead of
failing in a worker).
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from benchmarks._harness import require


@dataclass(frozen=True)
class Entry:
    """How to build one registered sampler or searcher.

    Args:
        build: ``build(seed, context, **options)``; ``context`` holds what a searcher may need
            besides its options (``space``, ``metric``, ``mode``, ``budget``,
            ``max_concurrent``), empty for an Optuna sampler.
        package: The module it imports beyond the test extra, if any.
        extra: The extra of ``pyproject.toml`` that installs ``package``.
        owns_space: A searcher that needs the space at construction; Tune then gets no
            ``param_space``.
    """

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
    from optuna_treeucb import TreeUCBSampler

    options.setdefault("warn_independent_sampling", False)  # runs are unattended
    return TreeUCBSampler(seed=seed, **options)


def _optuna(cls: str, **fixed: Any) -> Callable[..., Any]:
    def build(seed: int, context: dict[str, Any], **options: Any) -> Any:
        import optuna

        return getattr(optuna.samplers, cls)(seed=seed, **{**fixed, **options})

    return build


def _auto(seed: int, context: dict[str, Any], **options: Any) -> Any:
    from benchmarks._auto import AutoRuleSampler

    return AutoRuleSampler(seed=seed, **options)


SAMPLERS: dict[str, Entry] = {
    "TreeUCB": Entry(_treeucb),
    "TPE": Entry(_optuna("TPESampler")),
    "GP": Entry(_optuna("GPSampler"), package="torch", extra="gp"),
    "CmaEs": Entry(_optuna("CmaEsSampler"), package="cmaes"),
    "Random": Entry(_optuna("RandomSampler")),
    "QMC": Entry(_optuna("QMCSampler", scramble=True)),
    "Auto": Entry(_auto, package="torch", extra="gp"),  # AutoSampler's rule (benchmarks._auto)
}


# -- Ray Tune searchers -------------------------------------------------------------------------
def _tune_search(module: str, cls: str, seed_argument: str) -> Callable[..., Any]:
    def build(seed: int, context: dict[str, Any], **options: Any) -> Any:
        searcher = getattr(importlib.import_module(module), cls)
        return searcher(
            context.get("space"),
            metric=context.get("metric"),
            mode=context.get("mode"),
            **{seed_argument: seed},
            **options,
        )

    return build


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
    "OptunaSearch (TPE)": Entry(_tune_search("ray.tune.search.optuna", "OptunaSearch", "seed")),
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


def make_sampler(name: str, seed: int) -> Any:
    """A fresh Optuna sampler by name (see the module docstring)."""
    entry, options = _entry(name, SAMPLERS)
    return entry.build(seed, {}, **options)


def make_searcher(name: str, seed: int, **context: Any) -> Any:
    """A fresh Ray Tune searcher by name; ``context``: ``space``, ``metric``, ``mode`` (given
    to the constructor; leave them out when Tune's ``TuneConfig`` sets them), ``budget``
    (trials) and ``max_concurrent``."""
    entry, options = _entry(name, SEARCHERS)
    return entry.build(seed, context, **options)


def searcher_owns_space(name: str) -> bool:
    """Whether the searcher ``name`` takes the space at construction (see :class:`Entry`)."""
    return _entry(name, SEARCHERS)[0].owns_space


def require_packages(names: Iterable[str], command: str, searchers: bool = False) -> None:
    """Check the names and the packages they need before anything runs (see :func:`require`)."""
    registry = SEARCHERS if searchers else SAMPLERS
    for name in names:
        try:
            entry, _ = _entry(name, registry)
        except ValueError as exc:
            raise SystemExit(f"python -m benchmarks {command}: {exc}") from None
        if entry.package:
            require(entry.package, name, command, entry.extra)
