"""TreeUCBSearch: TreeUCB as a Ray Tune searcher (a thin wrapper of ``optuna_treeucb.core``).

The only logic of its own is the conversion of a Tune search space into the core's
:class:`~optuna_treeucb.core.ParamSpec` space; asking, telling, pending points and the sign of
the metric are the core's business.
"""

from __future__ import annotations

import copy
import functools
import logging
import math
import operator
import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from optuna_treeucb.core import Face
from optuna_treeucb.core import ParamSpec
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube

try:
    from ray.tune.result import DEFAULT_METRIC
    from ray.tune.search import UNDEFINED_METRIC_MODE
    from ray.tune.search import UNDEFINED_SEARCH_SPACE
    from ray.tune.search import Searcher
    from ray.tune.search.sample import Categorical
    from ray.tune.search.sample import Domain
    from ray.tune.search.sample import Float
    from ray.tune.search.sample import Function
    from ray.tune.search.sample import Integer
    from ray.tune.search.sample import LogUniform
    from ray.tune.search.sample import Normal
    from ray.tune.search.sample import Quantized
    from ray.tune.search.sample import Uniform
    from ray.tune.search.variant_generator import parse_spec_vars
except ImportError as exc:  # pragma: no cover - exercised by a test that hides Ray
    raise ImportError(
        "ray_treeucb.TreeUCBSearch needs Ray Tune, which could not be imported "
        f"({exc}). Install it with: pip install 'optuna-treeucb[ray]' "
        "(or pip install 'ray[tune]')."
    ) from exc

_logger = logging.getLogger(__name__)

KeyPath = tuple[Any, ...]


def _name(path: KeyPath) -> str:
    """Flat parameter name of a path in a nested space: ``("a", 0, "b") -> "a/0/b"``."""
    return "/".join(str(key) for key in path)


def _lookup(spec: Any, path: KeyPath) -> Any:
    """The node of a nested spec at ``path`` (as Tune wrote it, before Ray's resolution)."""
    return functools.reduce(operator.getitem, path, spec)


def _grid_index(bound: float, q: float, round_fn: Any) -> int:
    """Index of ``bound`` on the grid of multiples of ``q``, rounded inwards.

    Mirrors ``Quantized._grid_index`` in ``ray/tune/search/sample.py``.
    """
    scaled = bound / q
    nearest = round(scaled)
    return int(nearest if math.isclose(scaled, nearest) else round_fn(scaled))


def _tune_name(domain: Domain) -> str:
    """How the domain was most likely written, e.g. ``"tune.qrandint(1, 10, q=3)"``."""
    sampler = domain.get_sampler()
    q = sampler.q if isinstance(sampler, Quantized) else None
    base = sampler.get_sampler() if isinstance(sampler, Quantized) else sampler
    prefix = "q" if q is not None else ""
    if isinstance(domain, Categorical):
        return f"tune.choice({domain.categories!r})"
    if isinstance(base, Normal):
        return f"tune.{prefix}randn(mean={base.mean!r}, sd={base.sd!r})"
    log = isinstance(base, LogUniform)
    if isinstance(domain, Integer):
        fn = "lograndint" if log else "randint"
    elif isinstance(domain, Float):
        fn = "loguniform" if log else "uniform"
    else:
        return f"{type(domain).__name__}{domain.domain_str}"
    args = f"{domain.lower!r}, {domain.upper!r}" + (f", q={q!r}" if q is not None else "")
    return f"tune.{prefix}{fn}({args})"


def _convertible(owner: str, node: Any) -> tuple[Domain, Any, Any]:
    """``(domain, sampler, q)`` of a leaf TreeUCB can search, or a ValueError saying why not.

    ``sampler`` is the unquantized sampler and ``q`` the step of a quantized one (else None).
    """
    if isinstance(node, Mapping) and "grid_search" in node:
        raise ValueError(
            f"{owner} (tune.grid_search({node['grid_search']!r})): TreeUCB chooses every "
            "value itself. Use tune.choice(...) with the same values instead, or pass a fixed "
            "value."
        )
    if isinstance(node, Mapping) or isinstance(node, Function):
        raise ValueError(
            f"{owner} (tune.sample_from): its values come from a function TreeUCB cannot see. "
            "Use uniform, loguniform, randint or choice, or pass a fixed value."
        )
    desc = _tune_name(node)
    if node.is_grid():
        raise ValueError(
            f"{owner} ({desc}.grid()): TreeUCB chooses every value itself. Use tune.choice(...) "
            "with the same values instead, or pass a fixed value."
        )
    sampler = node.get_sampler()
    q = None
    if isinstance(sampler, Quantized):
        q = sampler.q
        sampler = sampler.get_sampler()
    if isinstance(sampler, Normal):
        raise ValueError(
            f"{owner} ({desc}): a normal distribution has no bounds, and TreeUCB partitions a "
            "bounded box. Use tune.uniform(low, high) (or tune.quniform) over the range to search."
        )
    if not isinstance(sampler, (Uniform, LogUniform)) or not isinstance(
        node, (Categorical, Float, Integer)
    ):
        raise ValueError(
            f"{owner} ({desc} with sampler {sampler!r}). Use uniform, quniform, loguniform, "
            "qloguniform, randint, qrandint, lograndint, qlograndint or choice, or pass a fixed "
            "value."
        )
    return node, sampler, q


def _categorical_spec(name: str, domain: Categorical) -> ParamSpec:
    _, domains, grids = parse_spec_vars({"choices": list(domain.categories)})
    if domains or grids:
        raise ValueError(
            "its choices contain search-space definitions (a conditional space). TreeUCB needs "
            "a flat space: make them separate parameters, or pass fixed values."
        )
    return ParamSpec(name, "categorical", choices=tuple(domain.categories))


def _float_spec(name: str, domain: Float, q: Any, log: bool) -> ParamSpec:
    low, high = domain.lower, domain.upper
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"a float domain needs finite bounds. Got ({low!r}, {high!r}).")
    if q is not None:  # values k * q between the bounds, both ends included
        low = _grid_index(low, q, math.ceil) * q
        high = _grid_index(high, q, math.floor) * q
    if q is not None and low > high:
        raise ValueError(f"no multiple of q={q!r} lies between its bounds.")
    return ParamSpec(name, "float", low=low, high=high, log=log, step=q)


def _int_spec(name: str, domain: Integer, q: Any, log: bool) -> ParamSpec:
    # randint/lograndint exclude the upper bound; qrandint/qlograndint include it unless
    # q == 1 (the bounds of Quantized.sample in ray/tune/search/sample.py).
    for bound in (domain.lower, domain.upper):
        if isinstance(bound, bool) or not float(bound).is_integer():
            raise ValueError(f"an integer domain needs whole-number bounds. Got {bound!r}.")
    if q is not None and (isinstance(q, bool) or not float(q).is_integer() or q < 1):
        raise ValueError(f"an integer domain needs a whole-number q >= 1. Got q={q!r}.")
    if q is None or q == 1:
        low, high, step = int(domain.lower), int(domain.upper) - 1, 1
    else:
        step = int(q)
        low = _grid_index(domain.lower, step, math.ceil) * step
        high = _grid_index(domain.upper, step, math.floor) * step
    if low > high:
        raise ValueError(
            "it has no values (randint and lograndint exclude the upper bound; qrandint "
            "and qlograndint include it unless q=1)."
        )
    return ParamSpec(name, "int", low=low, high=high, log=log, step=step)


def _to_param_spec(name: str, node: Any) -> ParamSpec:
    """Convert one Tune domain into a ParamSpec with Ray's bounds (see TreeUCBSearch)."""
    owner = f"TreeUCBSearch cannot convert parameter {name!r}"
    domain, sampler, q = _convertible(owner, node)
    try:
        if isinstance(domain, Categorical):
            return _categorical_spec(name, domain)
        if isinstance(domain, Float):
            return _float_spec(name, domain, q, isinstance(sampler, LogUniform))
        assert isinstance(domain, Integer)  # _convertible lets no other domain through
        return _int_spec(name, domain, q, isinstance(sampler, LogUniform))
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{owner} ({_tune_name(domain)}): {exc}") from exc


@dataclass(frozen=True)
class _Layout:
    """Where the parameters of a nested Tune spec live, to rebuild configs from flat values.

    Attributes:
        spec: The Tune spec as given (domains, constants, nested dicts/lists/tuples).
        paths: ``name -> path`` of every parameter, in the order of the cube's columns.
        inner: Paths of the containers that hold a parameter somewhere below them.
        known: Names of the constants and of every container (not parameters).
    """

    spec: Mapping[str, Any]
    paths: dict[str, KeyPath]
    inner: frozenset[KeyPath]
    known: frozenset[str]

    def build(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The nested config for flat parameter values; constants pass through as given.

        Ray's ``assign_value`` would turn a namedtuple into a plain tuple and cannot assign
        in a tuple nested in a tuple, so the containers on the way are rebuilt here.
        """
        by_path = {self.paths[name]: value for name, value in values.items()}

        def build(node: Any, path: KeyPath) -> Any:
            if path in by_path:
                return by_path[path]
            if path not in self.inner:
                return node
            if isinstance(node, Mapping):
                return {k: build(v, path + (k,)) for k, v in node.items()}
            items = [build(v, path + (i,)) for i, v in enumerate(node)]
            if isinstance(node, tuple):
                return type(node)(*items) if hasattr(node, "_fields") else tuple(items)
            return items

        config: dict[str, Any] = build(self.spec, ())
        return config

    def flatten(self, point: Mapping[str, Any], *, what: str, strict: bool) -> dict[str, Any]:
        """Flat ``{name: value}`` of a (possibly nested, possibly partial) config.

        Ray's ``flatten_dict`` would also flatten a dict that is the value of a parameter
        (a ``tune.choice`` of dicts), so the walk stops at parameter names here.

        Args:
            point: Nested like the space or flat with ``"a/b"`` keys, or a mix.
            what: How to name ``point`` in error messages.
            strict: Raise on keys that are neither parameters nor constants of the space.
        """
        if not isinstance(point, Mapping):
            raise TypeError(f"{what} must be a dict of parameter values. Got {point!r}.")
        out: dict[str, Any] = {}

        def visit(node: Any, path: KeyPath) -> None:
            name = _name(path)
            if name in self.paths:
                out[name] = node
            elif isinstance(node, Mapping):
                for k, v in node.items():
                    visit(v, path + (k,))
            elif isinstance(node, (list, tuple)) and path in self.inner:
                for i, v in enumerate(node):
                    visit(v, path + (i,))
            elif strict and name not in self.known:
                raise ValueError(
                    f"{what} has the key {name!r}, which is not a parameter of the search "
                    f"space. Its parameters are {list(self.paths)!r}."
                )

        for key, value in point.items():
            visit(value, (key,))
        return out


def _layout(spec: Mapping[str, Any]) -> tuple[list[ParamSpec], _Layout]:
    """The parameters of a nested Tune spec, found by Ray's own walk (``parse_spec_vars``).

    On top of Ray's walk: names join nested keys with ``"/"``, so two paths may give one name
    (``{"a/b": ..., "a": {"b": ...}}``), which is an error here rather than a silent overwrite.
    """
    if callable(spec):
        raise TypeError(
            "The 'space' parameter of TreeUCBSearch must be a dict of Tune domains. Got a "
            f"function {spec!r}: for a define-by-run (conditional) space, pass it to Ray's "
            "OptunaSearch with TreeUCB's sampler, OptunaSearch(space=fn, metric=..., mode=..., "
            "sampler=optuna_treeucb.TreeUCBSampler())."
        )
    if not isinstance(spec, Mapping):
        raise TypeError(
            f"The 'space' parameter of TreeUCBSearch must be a dict of Tune domains. Got {spec!r}."
        )
    constants, domains, grids = parse_spec_vars(dict(spec))
    paths: dict[str, KeyPath] = {}
    params: list[ParamSpec] = []
    for path, _ in grids + domains:  # grid searches first: they always raise
        name = _name(path)
        if name in paths:
            raise ValueError(
                f"TreeUCBSearch found two parameters named {name!r} (nested keys are joined "
                f"with '/'): {paths[name]!r} and {path!r}. Rename one of them."
            )
        params.append(_to_param_spec(name, _lookup(spec, path)))  # the node as written
        paths[name] = path
    if not params:
        raise ValueError(
            "TreeUCBSearch got a search space with no parameter to tune (no Tune domain such "
            "as tune.uniform or tune.choice). Add at least one."
        )
    inner = {path[:i] for path in paths.values() for i in range(len(path))}
    known = {_name(p[:i]) for p, _ in constants + domains for i in range(1, len(p))}
    known.update(_name(p) for p, _ in constants)
    clash = known & set(paths)
    if clash:
        raise ValueError(
            f"TreeUCBSearch found the names {sorted(clash)!r} both as parameters and as "
            "constants or containers (nested keys are joined with '/'). Rename them."
        )
    return params, _Layout(spec, paths, frozenset(inner), frozenset(known))


def _direction(mode: str | list[str]) -> Any:
    """The core's direction, one per metric (a list, also of one): the one place where Ray's
    ``mode`` meets the core."""
    modes = [mode] if isinstance(mode, str) else mode
    return ["maximize" if m == "max" else "minimize" for m in modes]


def _as_float(value: Any) -> float | None:
    """The metric as a float, or ``None`` when it is missing or not a number."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# the searcher's own sentences on the core's options, in its Args: section
_OPTION_NOTES = {
    "seed": "The searcher combines it with the configuration's rank (``None``: a fresh seed); "
    'see "Reproducibility" above.',
    "n_startup_trials": "``None`` takes this default.",
}
_FACE = Face("TreeUCBSearch", _OPTION_NOTES)


@_FACE.document
class TreeUCBSearch(Searcher):
    """Ray Tune searcher that suggests configurations with TreeUCB.

    TreeUCB (Wang, Ye, Geng and Rudin, "Towards Practical Lipschitz Bandits",
    arXiv:1901.09277) fits a regression tree to the results so far; its leaves partition the
    search box, and the next configuration is drawn in the leaf with the largest upper
    confidence bound.  Partial ``points_to_evaluate`` are contexts for Contextual TreeUCB: the
    given values are kept and TreeUCB chooses the others.  Running trials are pending points of
    the model, so concurrent trials spread over the box.

    Search space conversion (Ray's bounds, ``ray/tune/search/sample.py``); nested dicts, lists
    and tuples are flattened to names such as ``"model/layers/0"`` and rebuilt on return, and
    constants are passed through:

    =========================  ==========================================================
    Tune domain                ParamSpec
    =========================  ==========================================================
    ``uniform(a, b)``          float in [a, b]
    ``quniform(a, b, q)``      float, step q, multiples of q in [a, b] (both ends)
    ``loguniform(a, b)``       float in [a, b], log
    ``qloguniform(a, b, q)``   float, step q, multiples of q in [a, b], log
    ``randint(a, b)``          int in [a, b - 1]
    ``lograndint(a, b)``       int in [a, b - 1], log
    ``qrandint(a, b, q)``      int, step q, multiples of q in [a, b] (q = 1: [a, b - 1])
    ``qlograndint(a, b, q)``   as ``qrandint``, log
    ``choice(values)``         categorical, any objects; a config holds an equal deep copy
    =========================  ==========================================================

    ``randn``, ``qrandn``, ``grid_search`` and ``sample_from`` raise ``ValueError``.  (In a
    Tuner's ``param_space``, Tune itself replaces ``sample_from`` and non-primitive choices by
    placeholders before the searcher sees them and resolves them afterwards, so they work
    there.)  Discrete values get equal shares of the unit interval (log-midpoint bins for log
    scales), so the start-up points are spread like Optuna's rather than by Ray's floor rule.

    Several metrics and constraints: with ``metric`` and ``mode`` lists (as
    ``OptunaSearch`` takes them) the results are ranked by Pareto front, then hypervolume
    contribution.  ``constraints`` names result keys, each satisfied when its value is <= 0
    (e.g. ``"mem_gb_over"``: memory in GB minus the budget); the names are read from the
    result dict, never evaluated.  Feasible results rank above infeasible ones, which rank by
    their total violation (the sum of the positive values).  A trial's constraint values are
    the latest its results reported; a trial without a number for every constraint (one
    missing, NaN or not a number) is dropped as a NaN metric is, and its point released, with
    one warning per searcher (later ones at INFO).  Report every constraint in every result,
    not only in the final one, so that trials a scheduler stops early count.
    ``evaluated_rewards`` and :meth:`add_evaluated_point` hold no constraint values, so they
    are refused when ``constraints`` is set.

    Results: a trial that errored, whose result lacks a metric, or whose metric is ``None``,
    not a number or NaN is dropped (logged) and its pending point forgotten, as is one whose
    constraints cannot be read; nothing is raised inside Tune's callbacks.  ``+inf`` and
    ``-inf`` are recorded (the core's reward normalisation puts them at the worst or best
    end).  Results for unknown trials are ignored with a warning.

    Schedulers (``ASHAScheduler``, ``HyperBandScheduler``, ``MedianStoppingRule``, ...): every
    trial is recorded when it ends, with its last metric, including trials the scheduler
    stopped (Tune calls :meth:`on_trial_complete` for them too; a paused trial stopped by
    HyperBand has no final result, and its last intermediate result, received through
    :meth:`on_trial_result`, stands in for it).  A trial whose ``time_attr`` (the
    schedulers' name for the resource; ``training_iteration`` unless you name another key)
    is below the largest value any result has shown so far counts as stopped early, at that
    step; the others, and every trial when ``time_attr`` is ``None``, count as full
    evaluations.  The ``pruned`` option of the core decides how a trial stopped early counts:
    with ``"last_value"`` its last metric counts as if final; with ``"context"``
    the step is a context dimension of the tree (Contextual TreeUCB): every trial enters at
    the step it reached, full ones included, the tree partitions (step, configuration)
    jointly, and new configurations are chosen at the full budget.  The full budget is
    ``max_budget`` (give the scheduler's ``max_t``) or, when it is ``None``, the largest step
    of a recorded trial.  Without a scheduler (every trial runs to its end) nothing counts as
    stopped early, so the option has no effect.

    Reproducibility: the draws for the k-th configuration (counting the suggested ones and
    those recorded through ``evaluated_rewards`` or :meth:`add_evaluated_point`) are seeded
    by ``seed`` and k.  A searcher warm-started with a previous run's results, in the order
    they completed, therefore continues that run instead of repeating its first
    configurations; :meth:`save` and :meth:`restore` keep the whole state.

    Options: ``seed``, ``n_startup_trials`` and the core's other options (``rule``, ``index``,
    ``C``, ...), as keywords with the core's allowed values, are listed below with the
    searcher's defaults, which differ from the core's for ``sampling`` only.  They are
    declared once, in :data:`optuna_treeucb.core.OPTIONS`; ``python -m optuna_treeucb.core``
    prints them as a table.

    Args:
        space:
            Tune search space (a dict of domains, possibly nested). If ``None``, it is taken
            from the Tuner's ``param_space`` through ``set_search_properties``.
        metric:
            Name of the metric in the trials' results, or a list of names (several
            objectives).
        mode:
            ``"min"`` or ``"max"``, or a list of them, one per metric.
        points_to_evaluate:
            Configurations to run first, in order, each exactly once (nested or flat
            ``"a/b"`` keys). A point that gives only some parameters is a context: TreeUCB
            chooses the others.
        evaluated_rewards:
            Metric values of ``points_to_evaluate`` measured already, each as the ``value``
            of :meth:`add_evaluated_point`; the points are then recorded instead of run, and
            must give every parameter.
        <the options: rendered from optuna_treeucb.core.OPTIONS at import>
        time_attr:
            Key of the results that measures how far a trial went (as the schedulers'
            ``time_attr``); ``None`` records every trial as a full evaluation.
        constraints:
            Keys of the results that are constraints, each feasible when <= 0; see
            "Several metrics and constraints" above.

    Raises:
        ValueError: If an argument or the search space is not valid.
        TypeError: If an argument has the wrong type, or an option is unknown.

    Example:
        .. code-block:: python

            from ray import tune
            from ray_treeucb import TreeUCBSearch


            def trainable(config):
                return {"loss": (config["x"] - 0.3) ** 2 + config["n"]}


            tuner = tune.Tuner(
                trainable,
                param_space={"x": tune.uniform(-1.0, 1.0), "n": tune.randint(0, 4)},
                tune_config=tune.TuneConfig(
                    search_alg=TreeUCBSearch(seed=0),
                    metric="loss",
                    mode="min",
                    num_samples=20,
                ),
            )
            print(tuner.fit().get_best_result().config)
    """

    @_FACE.accept_former_names
    def __init__(
        self,
        space: dict[str, Any] | None = None,
        metric: str | list[str] | None = None,
        mode: str | list[str] | None = None,
        points_to_evaluate: list[dict[str, Any]] | None = None,
        evaluated_rewards: list[Any] | None = None,
        seed: int | None = None,
        *,
        n_startup_trials: int | None = None,
        time_attr: str | None = "training_iteration",
        constraints: list[str] | None = None,
        **options: Any,
    ) -> None:
        _check_metric_mode(metric, mode)
        self._constraints = _check_constraints(constraints, evaluated_rewards)
        if time_attr is not None and not isinstance(time_attr, str):
            raise TypeError(
                "The 'time_attr' parameter of TreeUCBSearch must be a str (a key of the "
                f"results, e.g. 'training_iteration') or None. Got {time_attr!r}."
            )
        self._time_attr = time_attr
        # trial id -> (its last result's metric(s), step, constraint values)
        self._last_result: dict[str, tuple[Any, float | None, dict[str, Any]]] = {}
        super().__init__(metric=metric, mode=mode)  # type: ignore[arg-type]  # lists: as Optuna
        if "direction" in options:
            raise TypeError(
                "TreeUCBSearch sets the core's 'direction' from 'mode'; pass mode='min' or "
                "mode='max' instead."
            )
        given = dict(options, seed=seed)
        given.update({} if n_startup_trials is None else {"n_startup_trials": n_startup_trials})
        # checked now, not at the first trial; keyed by the core's names.  TreeUCB's draws
        # for the k-th configuration (suggested or added) are seeded by (seed, k), as an
        # Optuna trial's by (seed, trial number).
        self._options, self._base_seed = _FACE.options(given)
        if points_to_evaluate is not None and not isinstance(points_to_evaluate, list):
            raise TypeError(
                "The 'points_to_evaluate' parameter of TreeUCBSearch must be a list of dicts. "
                f"Got {points_to_evaluate!r}."
            )
        self._points_to_evaluate = list(points_to_evaluate or [])
        if evaluated_rewards is not None and len(evaluated_rewards) != len(
            self._points_to_evaluate
        ):
            raise ValueError(
                "The 'evaluated_rewards' parameter of TreeUCBSearch needs one value per point "
                f"of 'points_to_evaluate'. Got {len(evaluated_rewards)} values for "
                f"{len(self._points_to_evaluate)} points."
            )
        self._evaluated_rewards = None if evaluated_rewards is None else list(evaluated_rewards)
        self._cube: UnitCube | None = None
        self._layout: _Layout | None = None
        self._treeucb: TreeUCB | None = None
        self._queue: list[dict[str, Any]] = []  # flat points_to_evaluate not yet suggested
        self._live_trial_mapping: dict[str, dict[str, Any]] = {}  # trial id -> flat params
        if space is not None:
            self._set_space(space)
        self._setup()

    # -- space, metric and mode -----------------------------------------------------------------
    @staticmethod
    def convert_search_space(spec: dict[str, Any]) -> list[ParamSpec]:
        """Convert a Tune search space into the core's parameters.

        Args:
            spec: A dict of Tune domains and constants, possibly nested in dicts, lists and
                tuples.

        Returns:
            One :class:`~optuna_treeucb.core.ParamSpec` per domain, named by its path
            (``"a/b/0"``), in the order of the spec. Constants are not parameters.

        Raises:
            ValueError: If a domain cannot be converted (``randn``, ``grid_search``,
                ``sample_from``, an empty range) or the space has no domain.
            TypeError: If ``spec`` is not a dict.
        """
        return _layout(spec)[0]

    def _set_space(self, spec: dict[str, Any]) -> None:
        params, layout = _layout(spec)
        self._cube = UnitCube(params)
        self._layout = layout

    def _setup(self) -> None:
        """Create the core once the space and the mode are known (and queue the points)."""
        if self._cube is None or self._layout is None or not self._mode:
            return
        if not self._metric and isinstance(self._mode, list):
            raise ValueError(  # as OptunaSearch
                "If the 'mode' parameter of TreeUCBSearch is a list (several objectives), "
                "'metric' must be a list of as many names."
            )
        if not self._metric:
            self._metric = DEFAULT_METRIC  # Ray's idiom: a mode without a metric
        _check_metric_mode(self._metric, self._mode)
        self._treeucb = TreeUCB(
            self._cube, seed=self._base_seed, direction=_direction(self._mode), **self._options
        )
        self._n_configs = 0
        self._warned_constraints = False  # a result was dropped for its constraints
        queue = []
        for i, point in enumerate(self._points_to_evaluate):
            what = f"points_to_evaluate[{i}]"
            flat = self._layout.flatten(point, what=what, strict=True)
            self._check_values(flat, what=what, full=self._evaluated_rewards is not None)
            queue.append(flat)
        if self._evaluated_rewards is None:
            self._queue = queue
            return
        for i, (flat, value) in enumerate(zip(queue, self._evaluated_rewards, strict=True)):
            item = f"Item {i} of the 'evaluated_rewards' parameter of TreeUCBSearch"
            value = self._given_value(value, item)
            self._record(flat, value, f"points_to_evaluate[{i}] (evaluated_rewards[{i}])")
            self._n_configs += 1

    def _check_values(self, flat: dict[str, Any], *, what: str, full: bool) -> None:
        assert self._cube is not None
        missing = [n for n in self._cube.names if n not in flat]
        if full and missing:
            raise ValueError(
                f"{what} must give every parameter of the search space. Missing {missing!r}."
            )
        if not flat:
            raise ValueError(f"{what} gives no parameter of the search space {self._cube!r}.")
        try:
            self._cube.encode_partial(flat)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{what} is not a legal point of the search space: {exc}") from exc

    def set_search_properties(
        self, metric: str | None, mode: str | None, config: dict[str, Any], **spec: Any
    ) -> bool:
        """Take the space, metric and mode from the Tuner (if no space was given).

        Returns:
            ``False`` if the searcher already has a search space, else ``True``.
        """
        _check_metric_mode(metric, mode)
        if self._cube is not None:
            if self._treeucb is None:  # the space came first: adopt a missing metric and mode
                self._metric = self._metric or metric
                self._mode = self._mode or mode
                self._setup()
            return False
        self._set_space(config)
        if metric:
            self._metric = metric
        if mode:
            self._mode = mode
        self._setup()
        return True

    @property
    def model(self) -> TreeUCB | None:
        """The core model that suggests the configurations, for reading.

        ``None`` until the search space, metric and mode are known. It is the live model:
        read it (``best_params``, ``front_params``, ``n_observations``, or draw it with
        :func:`optuna_treeucb.visualization.plot_bandit_partition`), but do not ask or tell it
        directly, which would put it out of step with the trials Tune runs. Its parameters are
        named by their paths in the search space (``"a/b"`` for a nested key).
        """
        return self._treeucb

    # -- suggest and results --------------------------------------------------------------------
    def _check_ready(self) -> TreeUCB:
        if self._cube is None:
            raise RuntimeError(
                UNDEFINED_SEARCH_SPACE.format(cls=type(self).__name__, space="space")
            )
        if not self._metric or not self._mode or self._treeucb is None:
            raise RuntimeError(
                UNDEFINED_METRIC_MODE.format(
                    cls=type(self).__name__, metric=self._metric, mode=self._mode
                )
            )
        return self._treeucb

    def suggest(self, trial_id: str) -> dict[str, Any] | None:
        """Next configuration: a queued point first, then TreeUCB's choice.

        Raises:
            RuntimeError: If the search space, metric or mode is not set yet.
        """
        treeucb = self._check_ready()
        assert self._cube is not None and self._layout is not None
        if trial_id not in self._live_trial_mapping:
            # The core's pending points are the live trials', held by trial id: ask adds its
            # own, a queued point is added here, and on_trial_complete frees them.
            point = self._queue.pop(0) if self._queue else {}
            if len(point) == self._cube.dim:
                params = dict(point)
                treeucb.add_pending(self._cube.encode(params), key=trial_id)
            else:
                seed_key = (self._n_configs,)
                params = treeucb.ask(context=point, key=trial_id, seed_key=seed_key)
            self._n_configs += 1
            self._live_trial_mapping[trial_id] = params
        return copy.deepcopy(self._layout.build(self._live_trial_mapping[trial_id]))

    def _record(
        self,
        params: dict[str, Any],
        value: Any,
        what: str,
        budget: float | None = None,
        constraints: Mapping[str, Any] | None = None,
        *,
        stopped: bool = False,
        trial_id: str | None = None,
    ) -> bool:
        """Tell the core a result (``value``: a list with several metrics, ``constraints``:
        the values of the constraint keys), freeing the pending point of ``trial_id``;
        ``False`` (logged) if a metric or a constraint is missing, NaN or not a number. Never
        raises on a result: Tune calls it from its callbacks (``stopped``: the trial was
        stopped early, which the message explains)."""
        assert self._treeucb is not None
        several = isinstance(self._metric, list)
        values = list(value) if several and isinstance(value, (list, tuple)) else [value]
        n = len(self._metric) if isinstance(self._metric, list) else 1
        cons = constraints or {}
        # the core's rule: a NaN (or missing, or not a number) value or constraint drops it
        read = _FACE.result(
            [_as_float(u) for u in values], [_as_float(cons.get(k)) for k in self._constraints]
        )
        if len(values) != n or read.values is None:
            _logger.warning(
                "TreeUCBSearch drops %s: metric %r is %r, not %s (its configuration is "
                "not counted).",
                what,
                self._metric,
                value,
                f"{n} numbers" if several else "a number",
            )
            return False
        if read.constraints is None:
            self._warn_constraints(cons, what, stopped)
            return False
        self._treeucb.tell(
            params,
            list(read.values) if several else read.values[0],
            key=trial_id,
            budget=budget,
            constraints=list(read.constraints) or None,
        )
        return True

    def _warn_constraints(self, constraints: Mapping[str, Any], what: str, stopped: bool) -> None:
        """Log a result dropped for its constraint values (missing, NaN or not a number): one
        warning per searcher, later ones at INFO."""
        bad = {
            k: constraints.get(k, "nothing")
            for k in self._constraints
            if _FACE.result((), [_as_float(constraints.get(k))]).constraints is None
        }
        level = logging.INFO if self._warned_constraints else logging.WARNING
        self._warned_constraints = True
        _logger.log(
            level,
            "TreeUCBSearch drops %s: its result holds %s for the constraint(s) of the "
            "'constraints' parameter, which must be real numbers, not NaN (its configuration "
            "is not counted).%s Later results dropped for their constraints are logged at INFO.",
            what,
            ", ".join(f"{v!r} for {k!r}" for k, v in bad.items()),
            " It was stopped early by a scheduler: report every constraint in every result "
            "(not only the final one) for such trials to count."
            if stopped
            else "",
        )

    def _given_value(self, value: Any, what: str) -> Any:
        """A metric value the user gave (``evaluated_rewards``, :meth:`add_evaluated_point`)
        as :meth:`_record` takes it: a number, or a list with several metrics. NaN stays (the
        point is then not recorded, with a warning).

        Raises:
            TypeError: If it is not a number, or with several metrics neither a list of
                numbers nor a dict keyed by the metric names.
            ValueError: If it has another number of values, or other keys, than metrics.
        """
        several = isinstance(self._metric, list)
        names = list(self._metric) if isinstance(self._metric, list) else [str(self._metric)]
        allowed = (
            f"a list of {len(names)} real numbers, one per metric of {names!r} in that order, "
            "or a dict keyed by those metric names"
            if several
            else f"a real number, or a dict {{{names[0]!r}: number}}"
        )
        message = f"{what} must be {allowed} (NaN: not recorded). Got {value!r} instead."
        if isinstance(value, Mapping):
            if set(value) != set(names):
                raise ValueError(message)
            values = [value[name] for name in names]
        elif not several:
            values = [value]
        elif isinstance(value, (list, tuple, np.ndarray)):
            values = list(value)
        else:  # e.g. a number for several metrics
            raise TypeError(message)
        if any(_as_float(u) is None for u in values):
            raise TypeError(message)
        if len(values) != len(names):
            raise ValueError(message)
        return values if several else values[0]

    def _metrics(self, result: Mapping[str, Any]) -> Any:
        """The metric value(s) of a result: a list with several metrics; ``None`` if one is
        missing."""
        names = self._metric if isinstance(self._metric, list) else [str(self._metric)]
        if any(name not in result for name in names):
            return None
        values = [result[name] for name in names]
        return values if isinstance(self._metric, list) else values[0]

    def _step(self, result: Mapping[str, Any]) -> float | None:
        """The value of ``time_attr`` in a result (``None`` if absent or not a number >= 0).

        The core notes it: a trial that ends below the furthest step noted was stopped early.
        """
        if self._time_attr is None:
            return None
        step = _as_float(result.get(self._time_attr))
        if step is None or not step >= 0.0:
            return None
        assert self._treeucb is not None  # a result of a live trial: suggest made the core
        self._treeucb.note_step(step)
        return step

    def on_trial_result(self, trial_id: str, result: dict[str, Any]) -> None:
        """Note the trial's last metric and step (used if it is stopped without a final one)."""
        if trial_id not in self._live_trial_mapping or not isinstance(result, Mapping):
            return
        step = self._step(result)
        value = None if self._metric is None else self._metrics(result)
        if value is not None:
            # the latest value of each constraint, also from results before this one
            previous = self._last_result.get(trial_id, (None, None, {}))[2]
            cons = {**previous, **{k: result[k] for k in self._constraints if k in result}}
            self._last_result[trial_id] = (value, step, cons)

    def on_trial_complete(
        self, trial_id: str, result: dict[str, Any] | None = None, error: bool = False
    ) -> None:
        """Record the trial's metric at the step it reached.

        Trials stopped by a scheduler end here too; see the class docstring for how their
        step is used and for dropped results.
        """
        last = self._last_result.pop(trial_id, None)
        params = self._live_trial_mapping.pop(trial_id, None)
        if params is None:
            _logger.warning(
                "TreeUCBSearch got the completion of trial %s, which it did not suggest or "
                "already recorded. Ignored.",
                trial_id,
            )
            return
        assert self._treeucb is not None and self._cube is not None
        told = False
        if error:
            _logger.info("TreeUCBSearch drops trial %s: it errored.", trial_id)
        else:
            assert self._metric is not None  # a trial is live only after suggest checked it
            final: Mapping[str, Any] = {} if result is None else result
            value = self._metrics(final)
            cons: Mapping[str, Any] = {} if last is None else last[2]
            if value is not None:
                step = self._step(final)
                cons = {**cons, **{k: final[k] for k in self._constraints if k in final}}
            elif last is not None:  # the last intermediate result stands in for it
                value, step, cons = last
            else:
                step = None
            stopped = self._treeucb.stopped_early(step)  # some result went further
            budget = self._treeucb.budget_of(step, complete=not stopped)
            what = f"trial {trial_id}"
            told = self._record(
                params, value, what, budget, cons, stopped=stopped, trial_id=trial_id
            )
        if not told:  # a told value freed the trial's pending point itself
            self._treeucb.forget(trial_id)

    def add_evaluated_point(
        self,
        parameters: dict[str, Any],
        value: float,
        error: bool = False,
        pruned: bool = False,
        intermediate_values: list[float] | None = None,
    ) -> None:
        """Record a configuration evaluated outside this searcher.

        Errored points, pruned points without ``intermediate_values``, and NaN values are not
        recorded (and logged).  A pruned point with ``intermediate_values``
        is recorded with ``value`` at the step it reached, ``len(intermediate_values)`` (see
        "Schedulers" in the class docstring).

        Args:
            parameters: A value for every parameter (nested or flat ``"a/b"`` keys); keys that
                are not parameters are ignored.
            value: Its metric value; with several metrics, a list in the order of ``metric``
                or a dict keyed by the metric names (a dict also with one metric).
            error: Whether the evaluation raised.
            pruned: Whether the evaluation was stopped early.
            intermediate_values: The values it reported, one per step, if it was pruned.

        Raises:
            RuntimeError: If the search space, metric or mode is not set yet.
            ValueError: If a parameter is missing or its value is not legal, or ``value``
                holds another number of values, or other keys, than there are metrics.
            TypeError: If ``value`` is not a number (``None``, ``bool``, ``str``), or with
                several metrics neither a list of numbers nor a dict.
        """
        self._check_ready()
        assert self._layout is not None
        if self._constraints:
            raise ValueError(
                "TreeUCBSearch.add_evaluated_point cannot record a point when 'constraints' is "
                "set: it takes no constraint values."
            )
        if error or (pruned and not intermediate_values):
            _logger.info(
                "TreeUCBSearch does not record an %s point: %r.",
                "errored" if error else "pruned",
                parameters,
            )
            self._n_configs += 1
            return
        what = "The 'parameters' of TreeUCBSearch.add_evaluated_point"
        flat = self._layout.flatten(parameters, what=what, strict=False)
        self._check_values(flat, what=what, full=True)
        value = self._given_value(
            value, "The 'value' parameter of TreeUCBSearch.add_evaluated_point"
        )
        budget = float(len(intermediate_values)) if pruned and intermediate_values else None
        # told without a trial id: no live trial's pending point is freed
        self._record(flat, value, f"the evaluated point {parameters!r}", budget=budget)
        self._n_configs += 1

    # -- checkpointing --------------------------------------------------------------------------
    def save(self, checkpoint_path: str) -> None:
        """Pickle the whole state: space, metric, mode, model, running trials, RNG, queue."""
        with open(checkpoint_path, "wb") as f:
            pickle.dump(self.__dict__.copy(), f)

    def restore(self, checkpoint_path: str) -> None:
        """Load a state written by :meth:`save` (replacing the current one)."""
        with open(checkpoint_path, "rb") as f:
            state = pickle.load(f)
        max_step = state.pop("_max_step", -math.inf)  # written before the core noted steps
        self.__dict__.update(state)
        core = self._treeucb
        if core is not None and math.isfinite(max_step):
            core.note_step(max_step)
        if core is not None and set(core.pending_keys) != set(self._live_trial_mapping):
            # written before the core held the live trials' points by trial id
            core.reseed(self._base_seed)
            core.set_pending(np.zeros((0, core.space.dim)))
            for trial_id, params in self._live_trial_mapping.items():
                core.add_pending(core.space.encode(params), key=trial_id)


def _check_constraints(constraints: Any, evaluated_rewards: Any) -> list[str]:
    """The ``constraints`` argument as a list of result keys (TypeError/ValueError naming it)."""
    if constraints is not None and (
        not isinstance(constraints, (list, tuple))
        or not all(isinstance(c, str) and c for c in constraints)
    ):
        raise TypeError(
            "The 'constraints' parameter of TreeUCBSearch must be a list of result keys "
            f"(non-empty str), each feasible when <= 0, or None. Got {constraints!r}."
        )
    if constraints and evaluated_rewards is not None:
        raise ValueError(
            "TreeUCBSearch cannot take 'evaluated_rewards' with 'constraints': they hold no "
            "constraint values. Pass the points in 'points_to_evaluate' alone to run them."
        )
    return list(constraints or [])


def _check_metric_mode(metric: Any, mode: Any) -> None:
    """``metric`` a name or a list of names, ``mode`` "min"/"max" or a list of them, of the
    same kind and length when both are given (``OptunaSearch``'s rules)."""
    names = metric if isinstance(metric, list) else [metric]
    if metric is not None and (
        not names or not all(isinstance(n, str) for n in names) or len(set(names)) < len(names)
    ):
        raise TypeError(
            "The 'metric' parameter of TreeUCBSearch must be a str, or a non-empty list of "
            f"distinct str for several objectives. Got {metric!r}."
        )
    modes = mode if isinstance(mode, list) else [mode]
    if mode is not None and (not modes or any(m not in ("min", "max") for m in modes)):
        raise ValueError(
            "The 'mode' parameter of TreeUCBSearch must be 'min' or 'max', or a non-empty list "
            f"of them, one per metric. Got {mode!r}."
        )
    if (
        metric is not None
        and mode is not None
        and (isinstance(metric, list) != isinstance(mode, list) or len(names) != len(modes))
    ):
        raise ValueError(
            "The 'metric' and 'mode' parameters of TreeUCBSearch must both be a str or both "
            f"lists of the same length. Got metric={metric!r} and mode={mode!r}."
        )
