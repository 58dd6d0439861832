"""TreeUCBSampler: TreeUCB (Wang et al., arXiv:1901.09277) as an Optuna sampler.

A thin wrapper over :class:`optuna_treeucb.core.TreeUCB`: it turns Optuna distributions into
:class:`~optuna_treeucb.core.ParamSpec`, finished trials into observations, running trials into
pending points and fixed parameters into contexts, then asks the core.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import Any

from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.samplers import RandomSampler
from optuna.samplers._base import _process_constraints_after_trial
from optuna.study import Study
from optuna.study import StudyDirection
from optuna.trial import TrialState

from optuna_treeucb._grouping import conditional_names
from optuna_treeucb._grouping import to_spec as _to_spec
from optuna_treeucb._models import Direction
from optuna_treeucb._models import Space
from optuna_treeucb._models import StudyState
from optuna_treeucb._models import contains
from optuna_treeucb._models import share_point
from optuna_treeucb._models import sync_pending
from optuna_treeucb._trial_log import check_constraints_func
from optuna_treeucb._trial_log import draw_seed
from optuna_treeucb._trial_log import fixed_context
from optuna_treeucb._trial_log import running as running_trials
from optuna_treeucb.core import Face
from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube
from optuna_treeucb.core._options import Discrete
from optuna_treeucb.core._options import Index
from optuna_treeucb.core._options import PrunedRule
from optuna_treeucb.core._options import Rule
from optuna_treeucb.core._options import Sampling

if TYPE_CHECKING:
    from optuna.trial import FrozenTrial

_logger = logging.getLogger(__name__)

# the sampler's own arguments; the others are the core's options
_OWN = ("self", "group", "independent_sampler", "warn_independent_sampling", "constraints_func")


# the sampler's own sentences on the core's options, in its Args: section
_OPTION_NOTES = {
    "seed": "The sampler combines it with the trial number (``None``: a fresh seed).",
    "n_startup_trials": "The observations are the finished trials described above; until "
    "there are that many, every parameter comes from ``independent_sampler``, and a group of "
    "conditional parameters with fewer observations of its own is drawn uniformly (given its "
    "context).",
}
# The core's options are declared once, in optuna_treeucb.core.OPTIONS (defaults included).
_FACE = Face("TreeUCBSampler", _OPTION_NOTES, former_names=False)
_DEFAULTS: dict[str, Any] = _FACE.defaults


@_FACE.document
class TreeUCBSampler(BaseSampler):
    """Sampler using TreeUCB, a Lipschitz bandit over a partition learned by a regression tree.

    At every trial a regression tree is fitted on the finished trials; its leaves partition the
    search space into boxes, the box with the largest upper confidence bound is chosen and the
    parameters are drawn inside it (Wang, Ye, Geng and Rudin, "Towards Practical Lipschitz
    Bandits", `arXiv:1901.09277 <https://arxiv.org/abs/1901.09277>`__).  The bandit is
    :class:`optuna_treeucb.core.TreeUCB`; this class only feeds it the study's trials.

    * **Search space.**  Float (``log``, ``step``), int (``log``, ``step``) and categorical
      parameters are modelled; a categorical parameter's choices are ordered as given.
      A parameter whose range changed (widened on resume, or one range per branch) is modelled
      with the range of the last trial in this trial's branch, on the trials whose values lie
      inside it.  Parameters with a single value, and parameters whose kind, log scale or
      choices changed between trials (Optuna refuses a relative value for them), are left out
      of the relative search space.
    * **Define-by-run spaces.**  With ``group=True`` the parameters are split into groups that
      appear in exactly the same trials (as :class:`~optuna.samplers.TPESampler` does with
      ``group=True``).  Each group gets its own tree, fitted on the trials that contain it and
      conditioned, as a context, on the values already chosen in this trial for the parameters
      that always accompany it (e.g. the branch that leads to it).  The categorical
      parameters of a *branch*, a group that other groups depend on (a model choice), are not
      chosen by a tree, which is nearly greedy on a choice's mean and locks onto the branch
      whose random points are best: each combination of their choices is drawn by Thompson
      sampling on its share of the best trials (TPE's top ``min(ceil(0.1 n), 25)``), with a
      choice's evidence weighed as at most that many trials, so a branch whose good region
      is small keeps being played; with more than 4 combinations the prior's good
      pseudo-count 4 is shared among them, so that 50 model variants do not drown the good
      one.  With ``group=False`` the
      relative search space is the intersection search space and the other parameters are
      sampled by ``independent_sampler``.
    * **Trials.**  ``COMPLETE`` trials are observations.  A ``PRUNED`` trial is an observation
      with its last reported intermediate value and, as its budget, the step of that value
      (its largest step in :attr:`~optuna.trial.FrozenTrial.intermediate_values`); with
      ``pruned="last_value"`` the last value counts as if it were final; with
      ``"context"`` the step is a context dimension of the tree (Contextual TreeUCB): every
      finished trial enters at its last step, complete ones included, the tree partitions
      (step, parameters) jointly, and a new trial is sampled at the full budget.  The full
      budget is ``max_budget`` (give the pruner's ``max_resource``, e.g. 27 for
      ``HyperbandPruner(max_resource=27)``) or, when it is ``None``, the largest step any
      finished trial reported; a complete trial that reported nothing counts as full.  A
      study without pruned trials is unaffected by the option.  A pruned trial that reported
      nothing, ``FAIL`` trials and NaN values are ignored; ``±inf`` values rank as the
      best/worst.  ``RUNNING`` trials whose parameters are known are pending points: their
      boxes count as visited, so parallel workers spread out.  A trial's point is known from
      its relative sample on (Optuna draws it at the trial's first ``suggest_*`` call), not
      only once the objective has suggested every parameter: the sampler stores it in the
      trial's system attributes (key ``"treeucb:relative_params:0"``, as TPESampler's
      ``constant_liar`` does), where other processes sharing the storage read it.
    * **Constraints and several objectives.**  A trial is feasible when each of its
      constraint values is <= 0, as for Optuna's own samplers: the values set by
      :meth:`~optuna.trial.Trial.set_constraint` or stored by ``constraints_func``
      (:attr:`~optuna.trial.FrozenTrial.constraints`; a trial without any counts as
      feasible).  A trial's total violation is the sum of the positive values of whatever
      constraints it holds, as Optuna 5 reads them: their number and names may differ between
      trials (a ``"memory"`` constraint set only in one branch); a trial whose constraint
      values are not numbers is skipped, with one warning.  Feasible trials rank above
      infeasible ones, which rank by their total violation; with several objectives
      (``optuna.create_study(directions=[...])``) the feasible ones rank by Pareto front,
      then by hypervolume contribution.  The tree and the trust region see those ranks, so
      the region is centred on a box's best feasible trial (SCBO's centre) or on its front
      trial of largest contribution (MORBO's).  A study where every trial is feasible runs as
      an unconstrained one.
    * **Contexts.**  Parameters fixed by :meth:`~optuna.study.Study.enqueue_trial` (a partial
      dict) or by :class:`~optuna.samplers.PartialFixedSampler` are contexts (Contextual
      TreeUCB): the best box containing the fixed values is played and only the free
      parameters are sampled.
    * **Distributed optimization and resuming.**  The model is derived from the storage's
      trials at every trial, so several processes may share a study (RDB or journal storage)
      and a resumed study continues where it stopped.  Every random draw of a trial, the
      start-up points and the parameters outside the relative search space included, is
      seeded by ``seed``, the trial number and the parameter (or group), and the tree depends
      on the observations only, not on when the process saw them.  So a seeded sequential
      study is reproducible in any process (whatever ``PYTHONHASHSEED``), a study resumed with
      :func:`~optuna.load_study` and ``TreeUCBSampler(seed=s)`` samples what an uninterrupted
      one would, and workers sharing one seed on one storage never repeat each other's
      trials, as their trial numbers differ.  (With ``n_jobs`` > 1, Optuna calls
      :meth:`reseed_rng` for every trial, which replaces ``seed`` by a fresh one: such a run
      is not reproducible.)  This holds for the default
      ``independent_sampler`` only: a sampler you pass draws from its own stream.  The
      sampler's cache belongs to one study: given another study, even of the same name (on
      another storage, or deleted and created again), it starts afresh.
    * **Inspection.**  :meth:`build_model` returns the bandit fitted on a study, e.g. to plot
      its partition.

    The options (``seed``, ``n_startup_trials``, ``rule``, ``index``, ``C``, ...) are the
    core's, with the same allowed values; each is listed below with the sampler's default,
    which differs from the core's for ``sampling`` only (the sampler optimises, the core is
    the paper's bandit).  They are declared once, in :data:`optuna_treeucb.core.OPTIONS`;
    ``python -m optuna_treeucb.core`` prints them as a table.  An unknown keyword raises
    ``TypeError`` naming it, the options and the closest one.

    Args:
        <the options: rendered from optuna_treeucb.core.OPTIONS at import>
        group:
            Model define-by-run (conditional) parameters by groups; see above.
        independent_sampler:
            Sampler of the start-up trials and of the parameters outside the relative search
            space.  ``None`` draws each such parameter with a
            :class:`~optuna.samplers.RandomSampler` seeded by ``seed``, the trial number and
            the parameter's name.  A sampler passed here keeps its own random stream: a
            resumed study or a worker with the same seed repeats its draws unless it is seeded
            differently.
        warn_independent_sampling:
            Log a warning, once per parameter, when a parameter is sampled by
            ``independent_sampler`` after the start-up trials.
        constraints_func:
            As in :class:`~optuna.samplers.TPESampler`: a function of a
            :class:`~optuna.trial.FrozenTrial` returning a sequence of constraint values, each
            feasible when <= 0, called after each ``COMPLETE`` or ``PRUNED`` trial; the values
            are stored in the trial, so ``study.best_trials`` and the plots see them.  Optuna 5
            deprecates it (with a
            ``FutureWarning``, as for its samplers) in favour of
            :meth:`~optuna.trial.Trial.set_constraint`, which needs no sampler argument.

    Raises:
        ValueError: If an option is out of its range.
        TypeError: If an option has the wrong type or an unknown name.

    Example:
        .. code-block:: python

            import optuna

            from optuna_treeucb import TreeUCBSampler


            def objective(trial: optuna.Trial) -> float:
                x = trial.suggest_float("x", -10.0, 10.0)
                kind = trial.suggest_categorical("kind", ["a", "b"])
                return (x - 2.0) ** 2 + (kind == "b")


            study = optuna.create_study(sampler=TreeUCBSampler(seed=0))
            study.optimize(objective, n_trials=30)
            print(study.best_params)
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        n_startup_trials: int = _DEFAULTS["n_startup_trials"],
        rule: Rule = _DEFAULTS["rule"],
        index: Index = _DEFAULTS["index"],
        C: float = _DEFAULTS["C"],
        M: float = _DEFAULTS["M"],
        pruned: PrunedRule = _DEFAULTS["pruned"],
        max_budget: float | None = _DEFAULTS["max_budget"],
        sampling: Sampling = _DEFAULTS["sampling"],
        discrete: Discrete = _DEFAULTS["discrete"],
        group: bool = True,
        independent_sampler: BaseSampler | None = None,
        warn_independent_sampling: bool = True,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
        **unknown: Any,
    ) -> None:
        _check_own_arguments(group, warn_independent_sampling, independent_sampler)
        self._constraints_func = check_constraints_func(constraints_func)
        given = {k: v for k, v in locals().items() if k not in (*_OWN, "unknown")}
        self._core_options, self._base_seed = _FACE.options({**given, **unknown})
        self._n_startup_trials: int = self._core_options.pop("n_startup_trials")
        self._group = group
        self._independent_sampler = independent_sampler  # None: a RandomSampler per draw
        self._warn_independent_sampling = warn_independent_sampling
        self._warned: set[str] = set()
        self._init_derived()

    def _init_derived(self) -> None:
        # Everything derived from the study's trials, rebuilt on demand: never pickled.
        self._lock = threading.Lock()
        self._state = StudyState(self._new_core)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_state")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_derived()

    def reseed_rng(self) -> None:
        with self._lock:
            self._base_seed = _FACE.fresh_seed()
            self._state.models.reseed(self._base_seed)
        if self._independent_sampler is not None:
            self._independent_sampler.reseed_rng()

    # -- search space ---------------------------------------------------------------------------
    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        with self._lock:
            self._state.scan(study, trial.number)  # kept for sample_relative of this trial
            return self._state.tracker.search_space(group=self._group)

    # -- sampling ---------------------------------------------------------------------------------
    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        direction = _direction(study)
        if not search_space:
            return {}
        with self._lock:
            state = self._state
            view = state.view_for(study, trial.number)  # read by infer_relative_search_space
            if view.n_obs < self._n_startup_trials:
                return {}
            running = [t for t in running_trials(study, view) if t.number != trial.number]
            chosen: dict[str, BaseDistribution] = {}  # modelled with, in this trial

            def dist_of(name: str, value: Any) -> BaseDistribution | None:
                """A distribution of ``name`` that holds ``value`` (a decided value)."""
                dists = [chosen.get(name), search_space.get(name)]
                dists += state.tracker.distributions(name)
                return next((d for d in dists if d is not None and contains(d, value)), None)

            decided = fixed_context(study, trial, dist_of)
            free = [name for name in search_space if name not in decided]
            groups = state.tracker.groups(free)
            for k, (group, common) in enumerate(groups):
                ctx_names = sorted(n for n in common if n in decided and n not in group)
                if conditional_names(groups, group):
                    # its categorical parameters by their share of the top trials, the others
                    # by the group's tree given them
                    seed = (self._base_seed, trial.number, k)
                    choice = state.branch(view, group, decided, ctx_names, seed, direction)
                    decided.update(choice)
                    group = [n for n in group if n not in choice]
                    ctx_names = sorted([*ctx_names, *choice])
                    if not group:
                        continue
                context = {n: decided[n] for n in ctx_names}
                chosen.update((n, state.dist_in(n, context, search_space[n])) for n in group)
                dists = {n: d for n, v in context.items() if (d := dist_of(n, v)) is not None}
                assert len(dists) == len(context), "a decided value lies in a distribution"
                dists.update((n, chosen[n]) for n in group)
                core = state.core(tuple(sorted(dists.items())), direction, view, running)
                # pending under the trial number, drawn from [seed, trial number, group]
                params = core.ask(context, key=trial.number, seed_key=(trial.number, k))
                decided.update((n, params[n]) for n in group)
        share_point(study, trial, {n: decided[n] for n in search_space if n in decided})
        return {name: decided[name] for name in free}

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        if self._warn_independent_sampling and param_name not in self._warned:
            self._warn_once(study, trial, param_name, param_distribution)
        sampler = self._independent_sampler
        if sampler is None:
            # a draw of its own, seeded by (seed, trial number, parameter), like the model's
            sampler = RandomSampler(seed=draw_seed(self._base_seed, trial.number, param_name))
        return sampler.sample_independent(study, trial, param_name, param_distribution)

    def _warn_once(
        self, study: Study, trial: FrozenTrial, param_name: str, dist: BaseDistribution
    ) -> None:
        """Warn about a parameter that the model could not sample, once per parameter.

        No warning during the start-up trials, at a parameter's first appearance (as TPESampler)
        or when the parameter is in the relative search space (a trial that started before the
        start-up trials finished).
        """
        with self._lock:
            view, tracker = self._state.scan(study), self._state.tracker
            if (
                view.n_obs < max(1, self._n_startup_trials)
                or param_name in self._warned
                or not tracker.seen(param_name)
                or param_name in tracker.search_space(group=self._group)
            ):
                return
            self._warned.add(param_name)
        _logger.warning(
            "TreeUCBSampler samples the parameter %r (trial #%d) with %s instead of the tree: "
            "it is outside the relative search space because %s. This warning is shown once per "
            "parameter; pass warn_independent_sampling=False to TreeUCBSampler to silence it.",
            param_name,
            trial.number,
            type(self._independent_sampler or RandomSampler()).__name__,
            tracker.why_not_modelled(param_name, group=self._group),
        )

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        if self._independent_sampler is not None:
            self._independent_sampler.before_trial(study, trial)

    def after_trial(
        self,
        study: Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Sequence[float] | None,
    ) -> None:
        if self._constraints_func is not None:
            _process_constraints_after_trial(self._constraints_func, study, trial, state)
        if self._independent_sampler is not None:
            self._independent_sampler.after_trial(study, trial, state, values)

    # -- the model --------------------------------------------------------------------------------
    def _new_core(self, space: Space, direction: Direction) -> TreeUCB:
        return TreeUCB(
            UnitCube(_to_spec(name, dist) for name, dist in space),
            seed=self._base_seed,
            direction=direction,  # type: ignore[arg-type]
            n_startup_trials=self._n_startup_trials,
            **self._core_options,
        )

    def build_model(self, study: Study, params: Sequence[str] | None = None) -> TreeUCB:
        """The TreeUCB bandit fitted on a study's trials, e.g. to inspect or plot its partition.

        The returned object is new (not shared with the sampler's cache): it has been told every
        observation of the study (``COMPLETE`` trials and ``PRUNED`` ones with an intermediate
        value) that has all of ``params``, and holds the ``RUNNING`` trials as pending points.
        Its :attr:`~optuna_treeucb.core.TreeUCB.space` has one column per parameter; call
        :meth:`~optuna_treeucb.core.TreeUCB.fit_leaves` for the boxes and their indices.

        Args:
            study:
                A study (with one or several objectives).
            params:
                Names of the parameters to model, in this order.  ``None`` takes the
                parameters suggested in every finished trial, sorted by name.

        Returns:
            The bandit, a :class:`~optuna_treeucb.core.TreeUCB`.

        Raises:
            ValueError: If the study has no finished trial with a non-constant parameter, or a
                name in ``params`` is not modelled.
        """
        direction = _direction(study)
        with self._lock:
            view = self._state.scan(study)
            space = self._state.tracker.model_space(params, "TreeUCBSampler.build_model")
            items = tuple(space.items())
            model = self._state.build(items, direction, view)  # under the lock: the log grows
        sync_pending(model, items, running_trials(study, view))
        return model.core


# -- helpers -------------------------------------------------------------------------------------
def _check_own_arguments(
    group: Any, warn_independent_sampling: Any, independent_sampler: Any
) -> None:
    """Type checks of the sampler's own arguments (the core's options have the table)."""
    for name, flag in (
        ("group", group),
        ("warn_independent_sampling", warn_independent_sampling),
    ):
        if not isinstance(flag, bool):
            raise TypeError(
                f"The '{name}' parameter of TreeUCBSampler must be a bool. Got {flag!r}."
            )
    if independent_sampler is not None and not isinstance(independent_sampler, BaseSampler):
        raise TypeError(
            "The 'independent_sampler' parameter of TreeUCBSampler must be an "
            f"optuna.samplers.BaseSampler or None. Got {independent_sampler!r}."
        )


def _direction(study: Study) -> Direction:
    """The core's direction, one per objective (a tuple, also of one): the one place the sign
    is decided."""
    minimize = StudyDirection.MINIMIZE
    return tuple("minimize" if d == minimize else "maximize" for d in study.directions)
