"""TreeUCB and Contextual TreeUCB as an ask/tell object (framework-free)."""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import Literal

import numpy as np
from threadpoolctl import ThreadpoolController

from optuna_treeucb.core._bagging import BaggedTrees
from optuna_treeucb.core._discrete import draw_categories
from optuna_treeucb.core._discrete import embed
from optuna_treeucb.core._discrete import grid_region
from optuna_treeucb.core._discrete import snap
from optuna_treeucb.core._discrete import step_off_centre
from optuna_treeucb.core._fidelity import PrunedRule
from optuna_treeucb.core._fidelity import budget_contexts
from optuna_treeucb.core._fidelity import budget_rewards
from optuna_treeucb.core._fidelity import full_budget
from optuna_treeucb.core._inbox import CUBE_SIDE
from optuna_treeucb.core._inbox import TrustRegion
from optuna_treeucb.core._inbox import box_candidates
from optuna_treeucb.core._inbox import local_means
from optuna_treeucb.core._inbox import parzen_log_ratio
from optuna_treeucb.core._inbox import region_bounds
from optuna_treeucb.core._inbox import smoothed_best
from optuna_treeucb.core._inbox import trust_region_replay
from optuna_treeucb.core._index import box_diameters
from optuna_treeucb.core._index import gp_posterior
from optuna_treeucb.core._index import hoeffding_index
from optuna_treeucb.core._index import normalize_rewards
from optuna_treeucb.core._index import soft_box_features
from optuna_treeucb.core._index import soft_gp_index
from optuna_treeucb.core._index import update_average_ranks
from optuna_treeucb.core._localgp import condition_on_pending
from optuna_treeucb.core._localgp import fit_gp
from optuna_treeucb.core._localgp import in_cells
from optuna_treeucb.core._localgp import nearest
from optuna_treeucb.core._localgp import posterior_mean
from optuna_treeucb.core._localgp import region_candidates
from optuna_treeucb.core._localgp import thompson_sample
from optuna_treeucb.core._localgp import unit_scale
from optuna_treeucb.core._options import OPTIONS
from optuna_treeucb.core._options import validate_options
from optuna_treeucb.core._partition import IncrementalPartition
from optuna_treeucb.core._partition import RefinedPartition
from optuna_treeucb.core._partition import RefitPartition
from optuna_treeucb.core._partition import box_contains
from optuna_treeucb.core._space import ParamSpec
from optuna_treeucb.core._space import UnitCube

_logger = logging.getLogger(__name__)
_blas: ThreadpoolController | None = None


def _one_blas_thread() -> Any:
    """Context that runs BLAS single-threaded.

    The GP solves are small (L x L with L the number of boxes); multi-threaded BLAS gains
    nothing there and, on a loaded machine (Optuna ``n_jobs``, Ray workers), spinning BLAS
    threads made one 100 x 100 solve 100 times slower in our measurements.
    """
    global _blas
    if _blas is None:
        _blas = ThreadpoolController()
    return _blas.limit(limits=1, user_api="blas")


Rule = Literal["refit", "incremental"]
Index = Literal["hoeffding", "soft_gp"]
Direction = Literal["maximize", "minimize"]
Sampling = Literal["uniform", "trust_region", "parzen", "local_gp"]
Center = Literal["best", "smoothed"]
Discrete = Literal["box", "region"]
Region = Literal["box", "around", "cube"]
PARZEN_GOOD_FRACTION = 0.25  # share of a box's observations that are "good" for parzen
PARZEN_N_TOP = 3  # best points of the box that parzen perturbs
LOCAL_GP_N = 48  # observations nearest to the centre that the local GP is fitted on
LOCAL_GP_CANDIDATES = 128  # Thompson-sampling candidates in the trust region
LOCAL_GP_PENDING = 32  # pending points of the box the local GP conditions on, at most
BAGGING_PSEUDO_COUNT = 2.0  # observations the bagged value counts as in a box's mean
LOCAL_GP_JOINT: int | None = 32  # candidates drawn jointly (best upper bounds); None: all
_PARTITION_OPTIONS = (
    "criterion",
    "min_impurity_decrease",
    "refit_fraction",
    "cap_gamma",
    "gamma",
    "max_leaves_coef",
    "refine",
)


@dataclass(frozen=True)
class Leaves:
    """The current partition and its index.

    Attributes:
        low, high: Box bounds, shape (L, d), values in [0, 1].
        n_obs: Observations per box, shape (L,).
        n_pending: Pending points per box, shape (L,).
        mean: Mean reward per box (NaN for an empty box), shape (L,), values in [0, 1].
        index: Hoeffding index per box, shape (L,).
    """

    low: np.ndarray
    high: np.ndarray
    n_obs: np.ndarray
    n_pending: np.ndarray
    mean: np.ndarray
    index: np.ndarray


def _as_cube(space: Any) -> UnitCube:
    """The ``space`` argument of TreeUCB as a UnitCube."""
    if isinstance(space, UnitCube):
        return space
    if isinstance(space, (int, np.integer)) and not isinstance(space, bool):
        if space < 1:
            raise ValueError(
                "The 'space' parameter of TreeUCB must be an int >= 1, a UnitCube or a "
                f"sequence of ParamSpec. Got {space!r} instead."
            )
        return UnitCube(ParamSpec(f"x{i}", "float", low=0.0, high=1.0) for i in range(int(space)))
    if isinstance(space, Sequence) and not isinstance(space, str):
        return UnitCube(space)
    raise TypeError(
        "The 'space' parameter of TreeUCB must be an int, a UnitCube or a sequence of "
        f"ParamSpec. Got {space!r} instead."
    )


def _new_partition(
    rule: Rule, d: int, opts: Mapping[str, Any]
) -> RefitPartition | IncrementalPartition | RefinedPartition:
    """The empty partition of the cube [0, 1]^d for a tree rule and validated options."""
    base: RefitPartition | IncrementalPartition
    if rule == "refit":
        base = RefitPartition(
            d,
            criterion=opts["criterion"],
            min_impurity_decrease=opts["min_impurity_decrease"],
            refit_fraction=opts["refit_fraction"],
            cap_gamma=opts["cap_gamma"],
            seed=0,
        )
    else:
        base = IncrementalPartition(
            d,
            gamma=opts["gamma"],
            max_leaves_coef=opts["max_leaves_coef"],
            min_impurity_decrease=opts["min_impurity_decrease"],
        )
    return base if opts["refine"] is None else RefinedPartition(base, opts["refine"])


class TreeUCB:
    """TreeUCB: a Lipschitz bandit over a box whose partition is learned by a regression tree.

    At every round a regression tree is fitted on the observations so far; its leaves
    partition the unit cube into boxes, the box with the largest index is played and a point
    is drawn uniformly inside it (Wang, Ye, Geng and Rudin, "Towards Practical Lipschitz
    Bandits", arXiv:1901.09277, Algorithm 1).  With ``index="hoeffding"`` the index is
    ``U = m + C sqrt(4 log t / n) + M D``.  With ``index="soft_gp"`` the paper's
    hierarchical Bayesian model replaces ``m`` and the bonus by the posterior mean and
    deviation of a GP whose kernel is the soft tree kernel of the current partition,
    evaluated at candidate points inside the best boxes.

    Given a context (values of some parameters, fixed by the caller), Contextual TreeUCB
    plays the best box that contains the context and samples only the other parameters.

    Objective values are turned into rewards in [0, 1] (larger is better) before the tree
    sees them; see :func:`~optuna_treeucb.core._index.normalize_rewards`.  NaN values are
    ignored with a warning; ``±inf`` are ranked as the best/worst values.

    An observation may carry a budget: the step its evaluation reached when a pruner or a
    scheduler stopped it early (``None`` or ``inf``: a full evaluation).  The ``pruned`` option
    decides how such observations rank against full ones (see
    :mod:`optuna_treeucb.core._fidelity`); observations that are all full, or all of one
    budget, give the same rewards under every rule.  With ``pruned="context"`` the budget is
    a context dimension instead: while some observation is below the full budget, the
    partition has one more column, last, the budget's context in [0, 1] (see
    ``max_budget``), every observation enters at its own budget and :meth:`ask` plays at
    the full budget (context 1); :meth:`fit_leaves` then returns boxes with that column.

    The options below are declared, with their allowed values and defaults, in
    :data:`~optuna_treeucb.core.OPTIONS` (the README's options table).

    Args:
        space:
            A :class:`UnitCube`, a sequence of :class:`ParamSpec`, or an int d for the plain
            cube [0, 1]^d (parameters ``"x0"``, ``"x1"``, ...).
        seed:
            Seed of the random generator (ties, points inside boxes, start-up points).
        direction:
            ``"maximize"`` or ``"minimize"`` the told values.
        rule:
            ``"refit"`` (the paper's CART refitted on all data) or ``"incremental"`` (a nested
            partition grown online with the guarantees of the regret theorem, which also
            need every point inside its played box: ``region="box"``).
        index:
            ``"hoeffding"`` or ``"soft_gp"``.
        C:
            Weight of the confidence bonus.
        M:
            Weight of the box-diameter (Lipschitz) term.
        n_startup:
            Number of uniformly random points before the tree is used.
        reward:
            Reward normalisation, ``"rank"`` or ``"minmax"``.
        pruned:
            Rank of observations stopped early: ``"last_value"`` (their last value, as if
            final), ``"tpe"`` (by (budget, value): one that went further is better) or
            ``"bohb"`` (the largest budget reached by ``n_min`` observations ranks by value
            above the rest, ordered by (budget, value)) or ``"context"`` (the budget is a
            context dimension of the partition; points are played at the full budget).
        n_min:
            ``pruned="bohb"``: observations the model's budget needs (``None``: the number of
            parameters + 1).
        max_budget:
            ``pruned="context"``: the full budget, in the unit of the budgets told (e.g. the
            pruner's ``max_resource``).  A budget ``b`` has the context ``log(1 + b) /
            log(1 + max_budget)``, capped at 1; a full evaluation (budget ``None``) has 1.
            ``None``: the largest budget told, so an evaluation that ran to the end may be
            told with its budget (the step it reached) to set it.
        criterion:
            Split criterion of the refit rule (a DecisionTreeRegressor criterion).
        min_impurity_decrease:
            The tree stops splitting when the best split reduces the criterion by less.
        refit_fraction:
            Refit rule: refit once the data grew by this fraction since the last fit (0 refits
            every round, as the paper does); in between, new points are routed into the
            current boxes and their counts and means stay exact.  This keeps the amortised
            cost of a round at O(refit cost / (fraction * n)) instead of a full CART fit.
        cap_gamma:
            Refit rule: cut CART leaves wider than ``sqrt(d) t^(-cap_gamma / d)`` into a grid
            of smaller cells, so that box diameters shrink as the regret theorem requires
            even where noisy data stop CART from splitting; an empty cell takes its leaf's
            mean.  In (0, 1); ``None`` is the paper's bare CART.
        gamma:
            Incremental rule: growth exponent in (0, 1) of the leaf budget ``c t^gamma`` and
            of the diameter cap ``sqrt(d) t^(-gamma / d)``.
        max_leaves_coef:
            Incremental rule: data-driven splits stop at ``max_leaves_coef * t^gamma`` leaves.
        alpha:
            soft_gp: sharpness of the sigmoid box edges (> 0, ``inf`` for hard boxes).
        sigma:
            soft_gp: standard deviation of the box-edge jitter.
        gp_noise:
            soft_gp: observation-noise variance of the GP on rewards in [0, 1].
        n_boxes:
            soft_gp: how many of the best boxes (by the Hoeffding index) receive candidates.
        n_candidates:
            soft_gp and ``sampling="parzen"``: candidate points drawn per box.
        sampling:
            How the point is drawn inside the played box.  ``"uniform"`` is the paper's
            Algorithm 1.  ``"trust_region"`` draws uniformly in a trust region around the
            box's best observation, intersected with the box; its side, relative to the
            box, halves after ``max(4, d)`` told values in a row that do not improve the
            best value, plus as many as points are pending (values drawn before the best
            was known), and doubles after 3 that do (TuRBO's rule, Eriksson et al., NeurIPS
            2019); it depends only on the sequence of told values and the pending counts
            when they were consumed.  Discrete parameters
            (ints, grids, categories) are drawn in the whole box.  ``"parzen"`` draws
            ``n_candidates`` points (uniform in the box, and perturbations of the box's
            best observations) and keeps the one with the largest ratio of Parzen densities
            of the box's good and bad observations (pending points count as bad).
            ``"local_gp"`` is TuRBO's full recipe in that trust region: a GP with an
            isotropic Matern-5/2 kernel (rotation-invariant) and a noise term, fitted on the
            observations nearest to the box's best one (a fixed number, so the cost per ask
            does not grow with the trials), its hyperparameters chosen by marginal
            likelihood; the region is centred on the box's observation of best posterior
            mean (robust to noise), and the point is the best of candidates in the region
            under one Thompson draw of the GP (joint over the candidates of largest upper
            bound), with the box's pending points told to the GP at its posterior mean
            (kriging believer), so concurrent asks avoid them; a candidate that repeats a
            point already observed or pending is not asked.  With
            ``index="soft_gp"`` the sampler draws each box's candidates and the soft GP
            scores them (``"local_gp"`` then draws as ``"trust_region"``).  See
            :mod:`optuna_treeucb.core._inbox` and :mod:`optuna_treeucb.core._localgp`.
        center:
            ``sampling="trust_region"``: ``"best"`` centres the trust region on the box's
            best observation.  ``"smoothed"`` centres it on the box's point whose nearest
            observations in the box have the best mean value (a noisy objective's best raw
            value is its luckiest draw), and counts a told value as a success when the mean
            of its nearest observations so far beats the best such mean so far.
        discrete:
            ``sampling="trust_region"`` or ``"local_gp"``: how discrete parameters (ints,
            stepped floats, categoricals) enter the trust region.  ``"box"``: they keep the
            played box's range, and the local GP sees their position on the cube (a
            categorical's position follows the order of its choices).  ``"region"``: an int or
            stepped float shrinks with the trust region, but keeps two values on each side of
            the centre's (as the box permits); a categorical keeps the centre's choice or,
            with probability ``min(1, rho)`` (``rho`` the region's side relative to the box),
            takes one of the box's choices uniformly, a Hamming neighbourhood that narrows as
            the region does (CASMOPOLITAN, Wan et al., ICML 2021); candidates sit on the values
            they decode to, a perturbation moves a grid by at least one value, and the local
            GP sees a categorical as a one-hot block, so any two different choices are at
            distance 1 (the cube's side), whatever their order.  See
            :mod:`optuna_treeucb.core._discrete`.
        region:
            ``sampling="trust_region"`` or ``"local_gp"``: how far the trust region reaches.
            ``"box"`` keeps it inside the played box, its side relative to the box's side;
            once the boxes are small it cannot move past them, even when the optimum lies
            just across a split.  ``"around"`` keeps that side but clips the region to the
            unit cube only, so it reaches up to half its side past the box's faces.
            ``"cube"`` is TuRBO's region around the same centre: its side is relative to the
            cube (0.8 of the cube's at the start, between 0.8 / 128 and 1.6 as the rule
            halves and doubles it) and does not shrink with the box, which then only
            chooses the centre and the local GP's data.  Discrete parameters keep the box's
            range (with ``discrete="box"``; see ``discrete`` for ``"region"``), and context
            columns stay fixed, with every ``region``.  Outside
            ``"box"`` the drawn point may lie outside the played box, and the paper's regret
            analysis (Theorem 1) no longer applies: it charges each round to the played box,
            whose count ``n`` and index then do not include the point (the point counts in
            the box that holds it).  The theorem's guarantee, where it holds (see ``rule``),
            holds only with ``region="box"``.  The local GP conditions on the pending points
            in the region rather than in the box.
        refine:
            Adaptive refinement (as HOO and HCT deepen their trees where they play): every
            box of the tree holding at least ``refine`` observations is halved along its
            longest side, and the half holding the box's best observation is halved again
            while it holds as many (:class:`~optuna_treeucb.core._partition.RefinedPartition`).
            The boxes thus shrink around the incumbents, where play concentrates, and stay
            whole elsewhere; the leaves still tile the cube.  ``None`` keeps the tree's boxes.
            Of the conditions of the paper's regret theorem (Theorem 1), the refinement keeps
            a deterministic tree rule (a function of the observations) and drives the leaf
            diameters to 0 where play goes, but not the other two: a box's halves are drawn
            again when its incumbent moves to the other half, so the partitions are not
            nested, and each box adds up to one leaf per halving, so ``|P_t|`` may grow
            linearly in ``t`` (at most ``32 t / refine`` extra leaves), not as
            ``o(t^gamma)``.  The theorem therefore covers neither ``rule="incremental"``
            with ``refine`` nor ``rule="refit"`` (whose refits are not nested either).
        bagging:
            Bagged box means, for noisy objectives: ``bagging`` regression trees are fitted,
            with the partition's criterion and ``min_impurity_decrease``, on bootstrap
            replicates of the observations (Poisson(1) weights drawn from ``seed``, so a model
            rebuilt from the same data gets the same trees) and refitted on the partition's
            schedule; a leaf's value is the weighted mean of today's rewards of its
            observations. The trees' mean prediction at a box's centre pools the observations
            of overlapping leaves and so varies less than the box's own mean; the box's mean
            ``m`` in the index becomes ``(n m + 2 b) / (n + 2)``, its ``n`` rewards and the
            bagged value ``b`` counted as 2 observations (the bagged value alone, or averaged
            over the box's observations, lost more in our measurements; see
            :mod:`optuna_treeucb.core._bagging`). An empty box keeps its prior (the paper's 1;
            for a cell of the diameter cap, the mean of its CART leaf, here the count-weighted
            mean of the shrunk means of the leaf's other cells). The boxes played are the
            partition's, unchanged, so the regret theorem's conditions on the partition (a
            deterministic rule, nested partitions, ``|P_t| = o(t^gamma)``, diameters going to 0
            where play goes) hold or fail exactly as without it (see ``rule``, ``refine``). Its
            proof, however, bounds the error of each box's empirical mean by Hoeffding's
            inequality on that box's own ``n`` observations, and the shrunk mean is not such a
            mean: it borrows observations of neighbouring boxes (a bias of the order of the
            Lipschitz constant times the trees' leaf diameters, weighted ``2 / (n + 2)``) and
            its bootstrap weights are random, so the theorem does not cover the index with
            ``bagging``. ``None`` keeps the plain box mean.

    Raises:
        ValueError: If an option is out of its range.
        TypeError: If an option has the wrong type.

    Example:
        .. code-block:: python

            from optuna_treeucb.core import ParamSpec, TreeUCB

            space = [
                ParamSpec("x", "float", low=-2.0, high=2.0),
                ParamSpec("k", "int", low=1, high=5),
            ]
            bandit = TreeUCB(
                space,
                seed=0,
                direction="minimize",
            )
            for _ in range(30):
                params = bandit.ask()
                bandit.tell(params, (params["x"] - 0.5) ** 2 + params["k"])
            print(bandit.best_params)
    """

    def __init__(
        self,
        space: UnitCube | Sequence[ParamSpec] | int,
        *,
        seed: int | None = None,
        direction: Direction = "maximize",
        rule: Rule = "refit",
        index: Index = "hoeffding",
        C: float = 0.01,
        M: float = 0.1,
        n_startup: int = 10,
        reward: Literal["rank", "minmax"] = "rank",
        pruned: PrunedRule = "last_value",
        n_min: int | None = None,
        max_budget: float | None = None,
        criterion: str = "absolute_error",
        min_impurity_decrease: float = 0.001,
        refit_fraction: float = 0.05,
        cap_gamma: float | None = 0.3,
        gamma: float = 0.5,
        max_leaves_coef: float = 4.0,
        alpha: float = 100.0,
        sigma: float = 0.01,
        gp_noise: float = 0.1,
        n_boxes: int = 4,
        n_candidates: int = 32,
        sampling: Sampling = "local_gp",
        center: Center = "best",
        discrete: Discrete = "box",
        region: Region = "cube",
        refine: int | None = None,
        bagging: int | None = None,
    ) -> None:
        self.space = _as_cube(space)
        # the arguments are the only locals so far; they are checked against the one table
        opts = validate_options("TreeUCB", {k: v for k, v in locals().items() if k in OPTIONS})
        self.seed: int | None = opts["seed"]
        self.direction: Direction = opts["direction"]
        self.rule: Rule = opts["rule"]
        self.index: Index = opts["index"]
        self.C: float = opts["C"]
        self.M: float = opts["M"]
        self.n_startup: int = opts["n_startup"]
        self.reward: Literal["rank", "minmax"] = opts["reward"]
        self.pruned: PrunedRule = opts["pruned"]
        self.n_min: int = opts["n_min"] if opts["n_min"] is not None else self.space.dim + 1
        self.max_budget: float | None = opts["max_budget"]
        self.alpha: float = opts["alpha"]
        self.sigma: float = opts["sigma"]
        self.gp_noise: float = opts["gp_noise"]
        self.n_boxes: int = opts["n_boxes"]
        self.n_candidates: int = opts["n_candidates"]
        self._init_inbox(opts)
        self._rng = np.random.default_rng(self.seed)
        self._init_partition(opts)
        self._init_observations()
        self._init_pending()
        self._clear_gp_cache()

    def _init_inbox(self, opts: Mapping[str, Any]) -> None:
        """The options of where a point goes in (or around) the played box and of the box
        means, and which columns are discrete (the trust region keeps them whole)."""
        self.sampling: Sampling = opts["sampling"]
        self.center: Center = opts["center"]
        self.region: Region = opts["region"]
        self.refine: int | None = opts["refine"]
        self.bagging: int | None = opts["bagging"]
        self.discrete: Discrete = opts["discrete"]
        self._discrete = np.array([p.is_discrete for p in self.space.params], dtype=bool)

    def _init_observations(self) -> None:
        """Empty observation buffers; they grow geometrically, so appending is amortised O(d)."""
        self._Xbuf = np.zeros((16, self.space.dim))
        self._ybuf = np.zeros(16)  # internal values: larger is better
        self._bbuf = np.full(16, np.inf)  # budgets: the step reached, inf for a full evaluation
        self._n = 0
        d = self.space.dim  # value cells of the observations (UnitCube.value_cells), filled
        self._cells: tuple[np.ndarray, np.ndarray, int] = (np.zeros((0, d)), np.zeros((0, d)), 0)
        self._told: dict[int, dict[str, Any]] = {}  # observation -> parameters as told
        self._ranks = np.zeros(0)  # average ranks of the first values, kept up to date
        self._tr = TrustRegion()  # the trust-region rule, replayed over the values told
        self._local = np.zeros(0)  # local means of the observations (center="smoothed")

    def _init_partition(self, opts: Mapping[str, Any]) -> None:
        """The empty partition of the parameters' cube, the options to rebuild it and the
        bagged trees' seed."""
        self._partition_opts = {k: opts[k] for k in _PARTITION_OPTIONS}
        # the trees' bootstrap weights come from the seed, not from the draws of ``_rng``
        entropy = np.random.SeedSequence(self.seed).entropy  # the seed itself, if given
        assert isinstance(entropy, int)
        self._bag_entropy = entropy
        self.partition = _new_partition(self.rule, self.space.dim, opts)
        self._context_B: float | None = None  # pruned="context": the B of the partition
        self._bag = self._new_bagging()

    def _new_bagging(self) -> BaggedTrees | None:
        """The bootstrap trees of ``bagging`` on the partition's columns (``None``: off)."""
        if self.bagging is None:
            return None
        opts = self._partition_opts
        fraction = (
            opts["refit_fraction"] if self.rule == "refit" else OPTIONS["refit_fraction"].default
        )
        return BaggedTrees(
            self._mdim,
            self.bagging,
            criterion=opts["criterion"],
            min_impurity_decrease=opts["min_impurity_decrease"],
            refit_fraction=fraction,
            entropy=self._bag_entropy,
        )

    def _clear_gp_cache(self) -> None:
        """Drop the soft_gp cache (features and Gram matrix of the observations for one
        partition); it is rebuilt on demand."""
        d = self._mdim
        self._gp_version = -1
        self._gp_low = np.zeros((0, d))
        self._gp_high = np.zeros((0, d))
        self._Phi = np.zeros((0, 0))
        self._gram = np.zeros((0, 0))

    def reseed(self, seed: int | Sequence[int] | None) -> None:
        """Replace the random generator by ``np.random.default_rng(seed)``.

        Wrappers use it to draw each trial from its own seed, so that results do not depend
        on the order in which workers ask.
        """
        self._rng = np.random.default_rng(seed)

    # -- observations -------------------------------------------------------------------------
    @property
    def n_observations(self) -> int:
        """Number of observations told (NaN values excluded)."""
        return int(self._y.size)

    @property
    def X(self) -> np.ndarray:
        """Observed points, shape (n, d), values in [0, 1]."""
        return self._X.copy()

    @property
    def budgets(self) -> np.ndarray:
        """Budget of each observation (``inf``: a full evaluation), shape (n,)."""
        return self._b.copy()

    @property
    def values(self) -> np.ndarray:
        """Observed values as told (not negated), shape (n,)."""
        return self._y.copy() if self.direction == "maximize" else -self._y

    @property
    def best_params(self) -> dict[str, Any]:
        """Parameters of the best observation among those of the largest budget (full ones).

        Raises:
            RuntimeError: If nothing was told yet.
        """
        best = self._best("best_params")
        if best in self._told:
            return dict(self._told[best])
        return self.space.decode(self._X[best])

    @property
    def best_x(self) -> np.ndarray:
        """Point of the best observation, shape (d,), values in [0, 1].

        Raises:
            RuntimeError: If nothing was told yet.
        """
        return self._X[self._best("best_x")].copy()

    def _best(self, what: str) -> int:
        """The best observation: among those that went furthest (the full ones, if any), the
        first of the largest internal values (larger is better)."""
        if self._y.size == 0:
            raise RuntimeError(f"TreeUCB.{what} needs at least one told value.")
        furthest = np.flatnonzero(self._b == np.max(self._b))
        return int(furthest[np.argmax(self._y[furthest])])

    @property
    def in_startup(self) -> bool:
        """Whether the next point is a start-up point (uniform, not chosen by the tree).

        The tree is used once ``n_startup`` values (at least one) are told.
        """
        return self.n_observations < max(self.n_startup, 1)

    def _as_point(self, x: Any, what: str) -> np.ndarray:
        arr = np.asarray(x, dtype=float)
        if arr.ndim != 1 or arr.shape[0] != self.space.dim:
            raise ValueError(
                f"{what} needs a point of shape ({self.space.dim},). Got shape {arr.shape}."
            )
        if not np.all(np.isfinite(arr)) or np.any(arr < 0.0) or np.any(arr > 1.0):
            raise ValueError(f"{what} needs coordinates in [0, 1]. Got {arr.tolist()!r}.")
        return arr

    def tell(
        self, params: Mapping[str, Any], value: float, *, budget: float | None = None
    ) -> None:
        """Record the objective value of a full assignment of the parameters.

        Args:
            params: A legal value for every parameter of the space.
            value: The objective value (NaN is ignored with a warning).
            budget: The step the evaluation reached if it was stopped early (a pruned
                trial), ``None`` or ``inf`` for a full evaluation; a number >= 0.  The
                ``pruned`` option decides how it ranks.
        """
        n = self._n
        self.tell_x(self.space.encode(params), value, budget=budget)
        if self._n > n:  # keep the values as told, so best_params returns them exactly
            self._told[n] = dict(params)

    def tell_x(
        self, x: np.ndarray | Sequence[float], value: float, *, budget: float | None = None
    ) -> None:
        """Record the objective value of a point of the cube.

        Args:
            x: Shape (d,), values in [0, 1].
            value: The objective value (NaN is ignored with a warning).
            budget: The step reached by an evaluation stopped early, ``None`` or ``inf`` for
                a full one (see :meth:`tell`).
        """
        point = self._as_point(x, "TreeUCB.tell_x")
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise TypeError(f"TreeUCB.tell needs a numeric value. Got {value!r}.")
        b = self._as_budgets([budget], 1, "TreeUCB.tell")
        self._drop_pending(point)
        v = float(value)
        if math.isnan(v):
            _logger.warning(
                "TreeUCB ignores a NaN objective value at %s.", self.space.decode(point)
            )
            return
        self._append(point[None], np.array([v]), b)

    def tell_many(
        self,
        X: np.ndarray,
        values: np.ndarray | Sequence[float],
        budgets: np.ndarray | Sequence[float | None] | None = None,
        *,
        drop_pending: bool = True,
    ) -> None:
        """Record many observations at once (NaN values are dropped with one warning).

        Args:
            X: Shape (n, d), values in [0, 1].
            values: Shape (n,).
            budgets: Shape (n,): the step each evaluation reached if stopped early, ``None``
                or ``inf`` for a full one (see :meth:`tell`); ``None``: all full.
            drop_pending: Whether each point drops one equal pending point, as :meth:`tell`
                does.  ``False`` leaves the pending points alone, for a caller that keeps them
                itself with :meth:`add_pending` and :meth:`forget_pending`.
        """
        X = np.asarray(X, dtype=float).reshape(-1, self.space.dim)
        v = np.asarray(values, dtype=float)
        if v.shape != (X.shape[0],):
            raise ValueError(
                f"TreeUCB.tell_many needs one value per point: X has {X.shape[0]} rows, "
                f"values has shape {v.shape}."
            )
        if not np.all(np.isfinite(X)) or np.any(X < 0.0) or np.any(X > 1.0):
            raise ValueError("TreeUCB.tell_many needs coordinates in [0, 1].")
        b = self._as_budgets(
            [None] * v.shape[0] if budgets is None else budgets, v.shape[0], "TreeUCB.tell_many"
        )
        nan = np.isnan(v)
        if nan.any():
            _logger.warning("TreeUCB ignores %d NaN objective value(s).", int(nan.sum()))
        if drop_pending:
            for row in X:
                self._drop_pending(row)
        self._append(X[~nan], v[~nan], b[~nan])

    @staticmethod
    def _as_budgets(budgets: Any, n: int, what: str) -> np.ndarray:
        """Budgets as floats, ``None`` as ``inf``; shape (n,), values in [0, inf]."""
        try:
            items = list(budgets)
        except TypeError:
            raise TypeError(
                f"{what} needs budgets as a sequence of numbers or None. Got {budgets!r}."
            ) from None
        out = np.empty(len(items))
        for i, b in enumerate(items):
            if b is None:
                out[i] = np.inf
            elif isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, float, np.number)):
                raise TypeError(f"{what} needs a budget that is a number or None. Got {b!r}.")
            elif not float(b) >= 0.0:
                raise ValueError(
                    f"{what} needs a budget >= 0 (the step reached) or None/inf for a full "
                    f"evaluation. Got {b!r}."
                )
            else:
                out[i] = float(b)
        if out.shape != (n,):
            raise ValueError(
                f"{what} needs one budget per value: got {out.shape[0]} budgets for {n} values."
            )
        return out

    def _append(self, X: np.ndarray, values: np.ndarray, budgets: np.ndarray) -> None:
        n, k = self._n, X.shape[0]
        if n + k > self._ybuf.size:
            size = max(2 * self._ybuf.size, n + k)
            Xbuf, ybuf = np.zeros((size, self.space.dim)), np.zeros(size)
            bbuf = np.full(size, np.inf)
            Xbuf[:n], ybuf[:n], bbuf[:n] = self._Xbuf[:n], self._ybuf[:n], self._bbuf[:n]
            self._Xbuf, self._ybuf, self._bbuf = Xbuf, ybuf, bbuf
        self._Xbuf[n : n + k] = X
        self._ybuf[n : n + k] = values if self.direction == "maximize" else -values
        self._bbuf[n : n + k] = budgets
        self._n = n + k

    @property
    def _X(self) -> np.ndarray:
        return self._Xbuf[: self._n]

    @property
    def _y(self) -> np.ndarray:
        return self._ybuf[: self._n]

    @property
    def _b(self) -> np.ndarray:
        return self._bbuf[: self._n]

    # -- pending points -----------------------------------------------------------------------
    # Pending points are kept incrementally: ``_pending`` maps an id to the point, in the order
    # added; ``_pending_ids`` maps the bytes of a point to the ids holding it, oldest first (a
    # duplicate is a point of its own), so that dropping one is O(1).  Their boxes are found
    # once per partition version: ``_pending_box`` holds the box of each located id and
    # ``_pending_counts`` the points per box; points added since are located in one batch when
    # the boxes are next needed, and every point is located again only after a refit.
    def _init_pending(self) -> None:
        self._pending: dict[int, np.ndarray] = {}
        self._pending_ids: dict[bytes, list[int]] = {}
        self._pending_next = 0
        self._pending_version = -1  # partition version the boxes below belong to
        self._pending_box: dict[int, int] = {}
        self._pending_counts = np.zeros(0)
        self._unlocated: set[int] = set()  # ids added since the boxes were last counted

    @property
    def pending(self) -> np.ndarray:
        """Points asked and not yet told, shape (p, d), in the order they were added."""
        if not self._pending:
            return np.zeros((0, self.space.dim))
        return np.array(list(self._pending.values()))

    @property
    def n_pending(self) -> int:
        """Number of pending points (duplicates counted each)."""
        return len(self._pending)

    def set_pending(self, X: np.ndarray | Sequence[Sequence[float]]) -> None:
        """Replace the pending points (points being evaluated elsewhere).

        Args:
            X: Shape (p, d), values in [0, 1].
        """
        arr = np.asarray(X, dtype=float).reshape(-1, self.space.dim)
        points = [self._as_point(row, "TreeUCB.set_pending") for row in arr]
        self._init_pending()
        for point in points:
            self._add_pending(point)

    def add_pending(self, x: np.ndarray | Sequence[float]) -> None:
        """Add a pending point (a point being evaluated elsewhere), in O(1).

        A point added twice counts twice.  :meth:`tell` of an equal point, or
        :meth:`forget_pending`, drops one copy.

        Args:
            x: Shape (d,), values in [0, 1].
        """
        self._add_pending(self._as_point(x, "TreeUCB.add_pending"))

    def _add_pending(self, x: np.ndarray) -> None:
        point = np.array(x, dtype=float) + 0.0  # a copy; -0.0 becomes 0.0, as equality has it
        i = self._pending_next
        self._pending_next += 1
        self._pending[i] = point
        self._pending_ids.setdefault(point.tobytes(), []).append(i)
        self._unlocated.add(i)

    def _drop_pending(self, x: np.ndarray) -> None:
        """Drop the oldest pending point equal to ``x``, if any (O(1))."""
        key = (np.asarray(x, dtype=float) + 0.0).tobytes()
        ids = self._pending_ids.get(key)
        if not ids:
            return
        i = ids.pop(0)
        if not ids:
            del self._pending_ids[key]
        del self._pending[i]
        box = self._pending_box.pop(i, None)
        if box is None:
            self._unlocated.discard(i)
        else:
            self._pending_counts[box] -= 1.0

    def forget_pending(self, x: np.ndarray | Sequence[float]) -> None:
        """Drop a pending point without a value (e.g. its evaluation failed)."""
        self._drop_pending(self._as_point(x, "TreeUCB.forget_pending"))

    def _pending_per_box(self) -> np.ndarray:
        """Pending points per box of the current partition, shape (L,).

        Every point is located again after the partition changed; otherwise only the points
        added since the last call are.
        """
        part = self.partition
        if self._pending_version != part.version or self._pending_counts.size != part.n_leaves:
            self._pending_version = part.version
            self._pending_box = {}
            self._pending_counts = np.zeros(part.n_leaves)
            self._unlocated = set(self._pending)
        if self._unlocated:
            new = sorted(self._unlocated)
            boxes = part.locate(self._at_full(np.array([self._pending[i] for i in new])))
            self._pending_box.update(zip(new, boxes.tolist(), strict=True))
            self._pending_counts += np.bincount(boxes, minlength=part.n_leaves)
            self._unlocated = set()
        return self._pending_counts.copy()

    # -- the model ----------------------------------------------------------------------------
    def rewards(self) -> np.ndarray:
        """Rewards of the observations, shape (n,), values in [0, 1].

        The values' ranks (or min-max scaling, see ``reward``), with the observations
        stopped early ranked by the ``pruned`` rule.
        """
        return self._rewards_of(self._n)

    def _rewards_of(self, m: int) -> np.ndarray:
        """The rewards the first ``m`` observations have on their own, shape (m,)."""
        y, b = self._y[:m], self._b[:m]
        if self.pruned in ("last_value", "context") or m == 0 or np.all(b == b[0]):
            if self.reward == "rank" and m == self._n > 0:  # the ranks of every value
                self._ranks = update_average_ranks(self._ranks, y)
                return normalize_rewards(y, self.reward, self._ranks)
            return normalize_rewards(y, self.reward)  # today's rewards, bit for bit
        return budget_rewards(y, b, self.reward, self.pruned, self.n_min)

    def fit_leaves(self) -> Leaves:
        """Fit the partition to the data and return its boxes with their statistics."""
        return self._leaves(self.rewards())

    def leaves(self) -> Leaves:
        """Deprecated name of :meth:`fit_leaves`, which fits the partition before it answers.

        Warns:
            FutureWarning: Always; call :meth:`fit_leaves` instead.
        """
        warnings.warn(
            "TreeUCB.leaves() is deprecated and will be removed; call TreeUCB.fit_leaves(), "
            "which fits the partition to the data and returns its boxes.",
            FutureWarning,
            stacklevel=2,
        )
        return self.fit_leaves()

    # -- the budget as a context (pruned="context") ------------------------------------------
    @property
    def _mdim(self) -> int:
        """Columns of the partition: the parameters, and the budget context when it is on."""
        return self.space.dim + (self._context_B is not None)

    def _model_X(self) -> np.ndarray:
        """The observations as the partition sees them, shape (n, d) or (n, d + 1).

        With ``pruned="context"`` and some observation below the full budget ``B``, a last
        column holds each budget's context.  When ``B`` changes (a larger budget told, or the
        first observation below it), the contexts of every observation change, so the
        partition starts afresh: it is refitted on all observations at the next update.
        """
        if self.pruned != "context":
            return self._X
        B = full_budget(self._b, self.max_budget)
        if B != self._context_B:
            version = self.partition.version
            self._context_B = B
            self.partition = _new_partition(self.rule, self._mdim, self._partition_opts)
            self.partition.version = version + 1  # pending points are located again
            self._bag = self._new_bagging()
            self._clear_gp_cache()
        if B is None:
            return self._X
        return np.column_stack((self._X, budget_contexts(self._b, B)))

    def _at_full(self, P: np.ndarray) -> np.ndarray:
        """Points of the cube as the partition sees them at the full budget (context 1)."""
        if self._context_B is None:
            return P
        return np.column_stack((P, np.ones(P.shape[0])))

    def _leaves(self, r: np.ndarray) -> Leaves:
        X = self._model_X()
        part = self.partition
        part.update(X, r, self._rewards_of)
        L = part.n_leaves
        n_obs = np.bincount(part.leaf_of, minlength=L).astype(float)
        if self._bag is not None:  # bagging: a box's mean is the bagged trees' at its centre
            self._bag.update(X, r, self._rewards_of)
            bagged = self._bag.box_means(part.low, part.high, r)
            plain = np.bincount(part.leaf_of, weights=r, minlength=L)
            # the box's mean shrunk toward the bagged value, counted as that many observations
            shrunk = (plain + BAGGING_PSEUDO_COUNT * bagged) / (n_obs + BAGGING_PSEUDO_COUNT)
            sums = np.where(n_obs > 0, shrunk * n_obs, 0.0)
        else:
            sums = np.bincount(part.leaf_of, weights=r, minlength=L)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n_obs > 0, sums / np.maximum(n_obs, 1), np.nan)
        n_pend = self._pending_per_box()
        counts = n_obs + n_pend
        prior = np.ones(L)  # the paper's m = 1 (and n = 1) for an empty box
        parent = getattr(part, "parent", None)
        if parent is not None and parent.size == L:
            # An empty cell of a CART leaf (cut by the diameter cap or by ``refine``) is not
            # unexplored space: it takes the mean of its leaf, so only cells of good leaves
            # get tried.
            p_n = np.bincount(parent, weights=n_obs)
            p_sum = np.bincount(parent, weights=sums)
            parent_mean = np.where(p_n > 0, p_sum / np.maximum(p_n, 1), 1.0)
            prior = parent_mean[parent]
        t = self._round()
        # A box without observations holds its prior as one virtual observation (the paper's
        # m = 1, n = 1 for an empty box); its pending points add to that n, as elsewhere.
        idx = hoeffding_index(
            np.where(n_obs > 0, mean, prior),
            counts + (n_obs == 0),
            box_diameters(part.low, part.high),
            t,
            self.C,
            self.M,
            empty_mean=prior,
        )
        return Leaves(part.low, part.high, n_obs, n_pend, mean, idx)

    def ask(self, context: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Choose the next parameters (and record them as pending until told).

        Args:
            context: Values of some parameters, fixed by the caller (Contextual TreeUCB).
                The box played is the best one containing them; only the other
                parameters are chosen.

        Returns:
            ``{name: value}`` for every parameter, the context's values included as given.
        """
        ctx = {} if context is None else dict(context)
        cols = self.space.encode_partial(ctx)
        x = self.ask_x(cols)
        params = self.space.decode(x)
        params.update(ctx)  # the very objects the caller gave
        # pending under the point that tell(params) will encode to (bin centres for grids)
        self._drop_pending(x)
        self._add_pending(self.space.encode(params))
        return params

    def ask_x(self, context: Mapping[int, float] | None = None) -> np.ndarray:
        """Choose the next point of the cube (and record it as pending until told).

        Args:
            context: Column -> coordinate in [0, 1] for the fixed (context) dimensions.

        Returns:
            Shape (d,), values in [0, 1].
        """
        d = self.space.dim
        ctx = {} if context is None else dict(context)
        for j, u in ctx.items():
            if not (isinstance(j, (int, np.integer)) and 0 <= j < d):
                raise ValueError(f"A context column must be an int in [0, {d}). Got {j!r}.")
            if not (isinstance(u, (int, float, np.number)) and 0.0 <= float(u) <= 1.0):
                raise ValueError(f"A context coordinate must be in [0, 1]. Got {u!r}.")
        if self.in_startup:
            low, high = np.zeros((1, d)), np.ones((1, d))
            x = self._sample_in(low, high, ctx)[0]
        else:
            x = self._select(ctx)[:d]  # without the budget context (pruned="context")
        self._add_pending(x)
        return x

    def _sample_in(
        self, low: np.ndarray, high: np.ndarray, ctx: Mapping[int, float]
    ) -> np.ndarray:
        pts = low + self._rng.random(low.shape) * (high - low)
        for j, u in ctx.items():
            pts[:, j] = u
        return pts

    def _admissible(
        self, low: np.ndarray, high: np.ndarray, ctx: Mapping[int, float]
    ) -> np.ndarray:
        ok = np.ones(low.shape[0], dtype=bool)
        for j, u in ctx.items():
            ok &= box_contains(low[:, j], high[:, j], u)
        return ok

    def _argmax(self, values: np.ndarray) -> int:
        best = np.flatnonzero(values >= np.max(values) - 1e-12)
        return int(best[0] if best.size == 1 else self._rng.choice(best))

    def _select(self, ctx: Mapping[int, float]) -> np.ndarray:
        r = self.rewards()  # ranked once per ask, shared by the boxes and the GP
        lv = self._leaves(r)
        if self._context_B is not None:  # pruned="context": played at the full budget
            ctx = {**ctx, self.space.dim: 1.0}
        ok = self._admissible(lv.low, lv.high, ctx)
        assert ok.any(), "the leaves tile the cube, so some leaf contains the context"
        idx = np.where(ok, lv.index, -np.inf)
        if self.index == "hoeffding":
            b = self._argmax(idx)
            return self._draw(b, lv, ctx, 1)[0]
        # soft_gp: candidates in the best boxes, scored by the GP-UCB index
        k = min(self.n_boxes, int(ok.sum()))
        top = np.argsort(-idx, kind="stable")[:k]
        cand = np.vstack([self._draw(b, lv, ctx, self.n_candidates) for b in top])
        mean, std = self._gp(cand, r)
        t = self._round()
        diam = np.repeat(box_diameters(lv.low[top], lv.high[top]), self.n_candidates)
        ucb = soft_gp_index(mean, std, diam, t, self.C, self.M, self.gp_noise)
        return cand[self._argmax(ucb)]

    def _round(self) -> int:
        """The round t of the index: observations and pending points so far, plus this one."""
        return self.n_observations + self.n_pending + 1

    @property
    def trust_region(self) -> TrustRegion:
        """State of the trust-region rule after the values told so far (any ``sampling``).

        With ``sampling="trust_region"`` or ``"local_gp"``, values told since the last call
        are consumed with the number of points pending now (see
        :func:`~optuna_treeucb.core._inbox.failure_tolerance`), as each ask does before it
        draws; otherwise the state is a function of the told values only.  With
        ``center="smoothed"`` it consumes the local means of the values
        (:func:`~optuna_treeucb.core._inbox.local_means`) instead of the values.
        """
        values = self._y
        if self.center == "smoothed":
            if self._local.size < self._n:
                new = local_means(self._X, self._y, self._local.size)
                self._local = np.concatenate((self._local, new))
            values = self._local
        n_pending = self.n_pending if self.sampling in ("trust_region", "local_gp") else 0
        self._tr = trust_region_replay(self._tr, values, self.space.dim, self.n_startup, n_pending)
        return self._tr

    def _draw(self, b: int, lv: Leaves, ctx: Mapping[int, float], n: int) -> np.ndarray:
        """Draw ``n`` points in box ``b`` with the in-box sampler, shape (n, d).

        With the Hoeffding index ``n`` is 1 and parzen returns its best-scored candidate;
        with the soft-GP index parzen returns its unscored candidates for the GP to score.
        """
        low, high = lv.low[b], lv.high[b]
        if self.sampling == "uniform":
            return self._sample_in(np.repeat(low[None], n, 0), np.repeat(high[None], n, 0), ctx)
        mine = np.flatnonzero(self.partition.leaf_of == b)
        if mine.size == 0:  # an empty cell: nothing to refine around
            return self._sample_in(np.repeat(low[None], n, 0), np.repeat(high[None], n, 0), ctx)
        # the values scaled into [0.5, 1) (exactly): _argmax's tie tolerance is absolute, so on
        # raw values near 1e-150 every value would tie with the best
        y = unit_scale(self._y[mine])[0]
        X = self._model_X()
        if self.sampling == "local_gp" and self.index == "hoeffding":
            return self._draw_local_gp(X, b, low, high, ctx, mine[self._argmax(y)])
        if self.sampling in ("trust_region", "local_gp"):
            best = self._argmax(y) if self.center == "best" else smoothed_best(X[mine], y)
            # the tree routes float32 copies of the points: keep the centre in the box
            center = np.clip(X[mine[best]], low, high)
            lo, hi = self._region(center, low, high)
            pts = self._sample_in(np.repeat(lo[None], n, 0), np.repeat(hi[None], n, 0), ctx)
            if self.discrete == "region":
                pts = self._discrete_candidates(pts, center, lo, hi, ctx)
            return pts
        # parzen: candidates around the box's best points, scored by l(x) / g(x) on the box
        order = mine[np.argsort(-y, kind="stable")]
        rng = self._rng
        cand = box_candidates(rng, low, high, X[order[:PARZEN_N_TOP]], self.n_candidates)
        for j, u in ctx.items():
            cand[:, j] = u
        if self.index == "soft_gp":
            return cand[:n]
        n_good = max(1, math.ceil(PARZEN_GOOD_FRACTION * order.size))
        pend = self._at_full(self.pending)
        if pend.shape[0]:
            pend = pend[self.partition.locate(pend) == b]
        free = np.array([j for j in range(self._mdim) if j not in ctx], dtype=np.intp)
        score = parzen_log_ratio(
            cand[:, free],
            X[order[:n_good]][:, free],
            np.vstack((X[order[n_good:]], pend))[:, free],
            low[free],
            high[free],
        )
        return cand[[self._argmax(score)]]

    def _region(
        self, center: np.ndarray, low: np.ndarray, high: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The trust region around ``center`` (reaching past the box with ``region`` other
        than ``"box"``).

        With ``discrete="box"`` discrete columns (ints, grids, categories) keep the box.  With
        ``"region"`` a grid's side is the region's, as a float's, widened to keep a few values
        on each side of the centre's
        (:func:`~optuna_treeucb.core._discrete.grid_region`) and clipped to the region's
        reach (the box with ``region="box"``, the cube otherwise).  With ``region="cube"``
        ``rho`` is thus relative to the cube for a grid too: the region holds about
        ``0.8 rho`` of the grid's values (of its log-range for a log grid), however small
        the box.  A categorical's side is the range its candidates draw from
        (:meth:`_discrete_candidates`): the box's choices, or with ``region="cube"`` all of
        them.
        """
        t_lo, t_hi = region_bounds(center, low, high, self.trust_region.rho, self.region)
        discrete = np.zeros(self._mdim, dtype=bool)
        discrete[: self.space.dim] = self._discrete
        lo, hi = np.where(discrete, low, t_lo), np.where(discrete, high, t_hi)
        if self.discrete == "region":
            for j in np.flatnonzero(self._discrete):
                a, z = (low[j], high[j]) if self.region == "box" else (0.0, 1.0)
                if self.space.params[j].kind == "categorical":
                    if self.region == "cube":
                        lo[j], hi[j] = a, z
                    continue
                lo[j], hi[j] = grid_region(self.space.params[j], center[j], t_lo[j], t_hi[j], a, z)
        return lo, hi

    def _discrete_candidates(
        self,
        cand: np.ndarray,
        center: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
        ctx: Mapping[int, float],
        moved: np.ndarray | None = None,
    ) -> np.ndarray:
        """``discrete="region"``: the candidates' discrete columns in the trust region.

        A categorical keeps the centre's choice or, with probability ``min(1, s)``, takes one
        of the choices in ``[lo, hi]`` (:meth:`_region`: the box's, or all with
        ``region="cube"``), ``s`` the region's side relative to the box (``rho``) or, with
        ``region="cube"``, to the cube (``0.8 rho``); a grid is snapped to its bins' centres,
        and a coordinate that a perturbation of the centre moved (``moved``, shape (m, d))
        moves by at least one value (see :mod:`optuna_treeucb.core._discrete`).  Context
        columns stay as given.

        Args:
            cand: Candidates, shape (m, d) (changed in place and returned).
            center: The trust region's centre, shape (d,).
            lo, hi: The trust region, shape (d,).
            ctx: Column -> coordinate of the context.
            moved: Which coordinates a perturbation moved (``None``: none).
        """
        m = cand.shape[0]
        rho = self.trust_region.rho
        side = CUBE_SIDE * rho if self.region == "cube" else rho
        for j in np.flatnonzero(self._discrete):
            if j in ctx:
                continue
            spec = self.space.params[j]
            if spec.kind == "categorical":
                cand[:, j] = draw_categories(self._rng, spec, center[j], lo[j], hi[j], side, m)
            elif moved is None:
                cand[:, j] = snap(spec, cand[:, j])[1]
            else:
                cand[:, j] = step_off_centre(
                    self._rng, spec, center[j], cand[:, j], moved[:, j], lo[j], hi[j]
                )
        return cand

    def _features(self, P: np.ndarray) -> np.ndarray:
        """Inputs of the local GP for points ``P`` of the model's cube (shape (m, d')):
        the points themselves, or with ``discrete="region"`` their categoricals one-hot
        (:func:`~optuna_treeucb.core._discrete.embed`)."""
        if self.discrete == "box" or all(p.kind != "categorical" for p in self.space.params):
            return P
        return embed(P, self.space.params)

    def _draw_local_gp(
        self,
        X: np.ndarray,
        b: int,
        low: np.ndarray,
        high: np.ndarray,
        ctx: Mapping[int, float],
        best: int,
    ) -> np.ndarray:
        """``sampling="local_gp"``: Thompson sampling of a local GP in the trust region.

        The GP is fitted on the observations ``X`` (as the partition sees them) nearest to
        the box's best observation ``best``; the region's centre is the box's observation of
        largest posterior mean among them (robust to noise); the pending points in the box
        (in the region, when ``region`` reaches past the box) are fantasies at the posterior
        mean (kriging believer): the variance shrinks there, the mean stays, so concurrent
        draws avoid them without leaving the good part of the region.
        A constant liar at the lowest local value, tried on tuning seeds, pushed them out of
        it: paired log-ratio of the regret at W = 8 +0.81 ± 0.21 after 200 finished trials
        (``benchmarks/results/async_pending_tuning.md``).  If the draw's best candidate
        repeats an observed or pending point (a perturbation clipped onto a split at an
        observed value can), the draw is made again on the candidates that do not
        (:meth:`_new_points`).  Returns shape (1, d).
        """
        Z = self._features(X)
        local = nearest(Z, Z[best], LOCAL_GP_N)
        with _one_blas_thread():
            y = self._local_targets(local)
            # with one-hot categoricals the lengthscales still scale with the square root of
            # the model's columns, whose diameter the one-hot blocks keep
            gp = fit_gp(Z[local], y, dim=None if Z.shape[1] == self._mdim else self._mdim)
            own = local[self.partition.leaf_of[local] == b]
            center = np.clip(X[own[self._argmax(posterior_mean(gp, Z[own]))]], low, high)
            lo, hi = self._region(center, low, high)
            for j, u in ctx.items():
                center[j] = lo[j] = hi[j] = u
            cand = region_candidates(self._rng, lo, hi, center, LOCAL_GP_CANDIDATES)
            if self.discrete == "region":
                moved = cand != center
                moved[: cand.shape[0] - cand.shape[0] // 2] = False  # the uniform half
                cand = self._discrete_candidates(cand, center, lo, hi, ctx, moved)
            pend = self._pending_in(b) if self.region == "box" else self._pending_within(lo, hi)
            pend = pend[:LOCAL_GP_PENDING]
            gp = condition_on_pending(gp, self._features(pend))  # kriging believer
            score = thompson_sample(gp, self._features(cand), self._rng, LOCAL_GP_JOINT)
            best_cand = cand[[self._argmax(score)]]
            if not self._repeats(best_cand)[0]:
                return best_cand
            # the draw's best repeats a tried point: draw again on the candidates that do not
            fresh = self._new_points(cand, low, high, ctx)
            if fresh is None:  # every value of the box has been tried
                return best_cand
            score = thompson_sample(gp, self._features(fresh), self._rng, LOCAL_GP_JOINT)
        return fresh[[self._argmax(score)]]

    def _new_points(
        self, cand: np.ndarray, low: np.ndarray, high: np.ndarray, ctx: Mapping[int, float]
    ) -> np.ndarray | None:
        """The candidates that repeat no observed or pending point (as decoded values).

        A perturbation clipped onto the region's edge can land on an observed point when the
        edge is a split at an observed value (discrete columns compare by bin).  If every
        candidate repeats one, as many uniform draws in the box (``low``, ``high``) are tried
        instead; ``None`` if they all repeat one too (a box whose values have all been tried).
        """
        new = ~self._repeats(cand)
        if new.any():
            return cand[new]
        m = cand.shape[0]
        uni = self._sample_in(np.repeat(low[None], m, 0), np.repeat(high[None], m, 0), ctx)
        new = ~self._repeats(uni)
        return uni[new] if new.any() else None

    def _repeats(self, P: np.ndarray) -> np.ndarray:
        """Whether each point of ``P`` (p, d or more columns) decodes to an observed or
        pending point, shape (p,)."""
        d = self.space.dim
        lo, hi = self._observed_cells()
        out = in_cells(P[:, :d], lo, hi)
        if self._pending:
            out |= in_cells(P[:, :d], *self.space.value_cells(self.pending))
        return out

    def _observed_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`UnitCube.value_cells` of the observations, kept up to date, each (n, d)."""
        lo, hi, k = self._cells
        n = self._n
        if k < n:
            new_lo, new_hi = self.space.value_cells(self._X[k:])
            if n > lo.shape[0]:  # grow geometrically, as the observations do
                size = max(2 * lo.shape[0], n)
                lo = np.concatenate((lo[:k], np.zeros((size - k, self.space.dim))))
                hi = np.concatenate((hi[:k], np.zeros((size - k, self.space.dim))))
            lo[k:n], hi[k:n] = new_lo, new_hi
            self._cells = (lo, hi, n)
        return lo[:n], hi[:n]

    def _local_targets(self, local: np.ndarray) -> np.ndarray:
        """The told values of ``local`` (larger is better), infinities clipped to the finite
        range, times a power of two that brings the largest into [0.5, 1) (exact, so the
        draws do not depend on the objective's scale, and the GP's variances of values near
        1e160 do not overflow): the GP standardises them (their global ranks, tried on tuning
        seeds, did worse: they flatten the bowl that the GP should see)."""
        y = self._y[local]
        fin = np.isfinite(y)
        if not fin.all():
            lo, hi = (y[fin].min(), y[fin].max()) if fin.any() else (0.0, 0.0)
            y = np.clip(np.nan_to_num(y, posinf=hi, neginf=lo), lo, hi)
        return unit_scale(y)[0]

    def _pending_in(self, b: int) -> np.ndarray:
        """The pending points located in box ``b``, oldest first, shape (p, d)."""
        self._pending_per_box()  # locates the points added since the last call
        ids = [i for i, box in self._pending_box.items() if box == b]
        if not ids:
            return np.zeros((0, self._mdim))
        return self._at_full(np.array([self._pending[i] for i in sorted(ids)]))

    def _pending_within(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """The pending points inside the region ``[lo, hi]`` (model columns), oldest first,
        shape (p, d): a region that reaches past the played box spreads concurrent draws
        away from the points pending there, whichever box holds them."""
        if not self._pending:
            return np.zeros((0, self._mdim))
        pend = self._at_full(np.array([self._pending[i] for i in sorted(self._pending)]))
        tol = 1e-9  # encoded parameters may differ from the drawn point by rounding
        inside = np.all((pend >= lo - tol) & (pend <= hi + tol), axis=1)
        return pend[inside]

    def _gp(self, cand: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with _one_blas_thread():
            return self._gp_unlimited(cand, r)

    def _gp_unlimited(self, cand: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self._refresh_features()
        part = self.partition
        low, high = part.low, part.high
        pend = self._at_full(self.pending)
        return gp_posterior(
            self._Phi,
            r,
            soft_box_features(cand, low, high, self.alpha, self.sigma),
            self.gp_noise,
            Phi_pending=(
                soft_box_features(pend, low, high, self.alpha, self.sigma) if pend.size else None
            ),
            gram=self._gram,
        )

    def _refresh_features(self) -> None:
        """Bring the cached features ``Phi`` (n, L) and Gram ``Phi^T Phi`` up to date.

        A column depends only on its own box, so after a split (incremental rule) only the
        columns of changed boxes are recomputed; new observations append rows and a
        rank-k update of the Gram matrix.
        """
        part = self.partition
        low, high = part.low, part.high
        n, L = self.n_observations, part.n_leaves
        X = self._model_X()
        if self._gp_version != part.version:
            k = min(L, self._gp_low.shape[0])
            same = np.zeros(L, dtype=bool)
            same[:k] = np.all(self._gp_low[:k] == low[:k], axis=1) & np.all(
                self._gp_high[:k] == high[:k], axis=1
            )
            n_old = self._Phi.shape[0]
            keep, changed = np.flatnonzero(same), np.flatnonzero(~same)
            Phi = np.zeros((n_old, L))
            Phi[:, keep] = self._Phi[:, keep]
            if changed.size:
                Phi[:, changed] = soft_box_features(
                    X[:n_old], low[changed], high[changed], self.alpha, self.sigma
                )
            gram = np.zeros((L, L))
            gram[np.ix_(keep, keep)] = self._gram[np.ix_(keep, keep)]
            if changed.size:
                cross = Phi.T @ Phi[:, changed]
                gram[:, changed] = cross
                gram[changed, :] = cross.T
            self._Phi, self._gram = Phi, gram
            self._gp_low, self._gp_high = low.copy(), high.copy()
            self._gp_version = part.version
        if self._Phi.shape[0] < n:
            new = soft_box_features(X[self._Phi.shape[0] :], low, high, self.alpha, self.sigma)
            self._Phi = np.vstack((self._Phi, new))
            self._gram = self._gram + new.T @ new

    def posterior(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """GP posterior mean and standard deviation of the reward under the soft tree kernel.

        Args:
            X: Shape (m, d), values in [0, 1].

        Returns:
            Mean and standard deviation, each shape (m,).

        Raises:
            RuntimeError: If nothing was told yet.
        """
        if self.n_observations == 0:
            raise RuntimeError("TreeUCB.posterior needs at least one told value.")
        r = self.rewards()
        self._leaves(r)  # brings the partition up to date
        return self._gp(self._at_full(np.atleast_2d(np.asarray(X, dtype=float))), r)

    # -- pickling ----------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        d = self._mdim  # derived caches are rebuilt on demand
        state["_gp_version"] = -1
        state["_gp_low"] = np.zeros((0, d))
        state["_gp_high"] = np.zeros((0, d))
        state["_Phi"] = np.zeros((0, 0))
        state["_gram"] = np.zeros((0, 0))
        state["_pending_version"] = -1  # the pending points' boxes are found again
        dim = self.space.dim
        state["_cells"] = (np.zeros((0, dim)), np.zeros((0, dim)), 0)
        state["_pending_box"] = {}
        state["_pending_counts"] = np.zeros(0)
        state["_unlocated"] = set()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # a state pickled before budgets existed: every observation was a full one
        if "_bbuf" not in state:
            state["_bbuf"] = np.full(state["_ybuf"].size, np.inf)
            state["pruned"] = "last_value"
            state["n_min"] = state["space"].dim + 1
        if "_partition_opts" not in state:  # pickled before pruned="context" existed
            part = state["partition"]
            state["_partition_opts"] = {
                k: getattr(part, k, OPTIONS[k].default) for k in _PARTITION_OPTIONS
            }
            state["max_budget"] = None
            state["_context_B"] = None
        state.setdefault("center", "best")  # pickled before the smoothed centre existed
        state.setdefault("discrete", "box")  # pickled before discrete="region" existed
        state.setdefault("region", "box")  # pickled before the region's reach was an option
        state.setdefault("_local", np.zeros(0))
        state.setdefault("refine", None)
        state.setdefault("bagging", None)  # pickled before bagging existed
        state.setdefault("_bag", None)
        state.setdefault("_bag_entropy", 0)
        state.setdefault("_ranks", np.zeros(0))  # pickled before the ranks were kept
        d = state["space"].dim
        state.setdefault("_cells", (np.zeros((0, d)), np.zeros((0, d)), 0))
        state["_partition_opts"].setdefault("refine", None)
        pending = state.get("_pending")
        self.__dict__.update(state)
        if isinstance(pending, list):  # pickled before pending points were kept by id
            self._init_pending()
            for point in pending:
                self._add_pending(point)
