"""Plots of the partition TreeUCB learned, over two parameters.

One code path serves both entry points: :func:`plot_partition` builds the core bandit of an
Optuna study (``TreeUCBSampler.build_model``) and hands it to :func:`plot_bandit_partition`,
which draws any :class:`~optuna_treeucb.core.TreeUCB`.  The numbers drawn come from
:func:`get_partition_slice`, so scripts can save exactly what a figure shows.

With more than two parameters the figure is a *slice*: the other parameters are held at one
point (by default the best observation), the leaves whose boxes contain that point in the
other dimensions are drawn, and their cross-sections tile the plotted rectangle exactly, as
the leaves tile the cube.  Projecting every leaf instead would stack overlapping rectangles
whose picture depends on draw order; a slice shows the model's actual decision regions.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

import numpy as np

from optuna_treeucb.core import TreeUCB
from optuna_treeucb.core import UnitCube
from optuna_treeucb.visualization._imports import import_pyplot
from optuna_treeucb.visualization._param_axis import ParamAxis

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from optuna.study import Study

    from optuna_treeucb._sampler import TreeUCBSampler

SliceAt = Literal["best", "next"] | Mapping[str, Any]
ShowIndex = Literal["auto", "color", "text", "none"]

#: ``gid`` of the artists drawn, for tests and post-processing of the figure.
BOX_GID = "treeucb-box"
TRIALS_GID = "treeucb-trials"
OFF_SLICE_GID = "treeucb-trials-off-slice"
PENDING_GID = "treeucb-pending"
NEXT_BOX_GID = "treeucb-next-box"
NEXT_POINT_GID = "treeucb-next-point"
NEXT_BOX_MARK_GID = "treeucb-next-box-mark"
THIN_BOX = 0.015  # a next box narrower than this (unit coordinates) is circled as well


@dataclass(frozen=True)
class PartitionSlice:
    """The boxes, points and next choice of a TreeUCB model on two parameters.

    Coordinates are unit-cube coordinates (values in [0, 1]); column 0 is ``params[0]``
    (the x axis), column 1 is ``params[1]`` (the y axis).

    Attributes:
        params: The two parameters plotted.
        columns: Their columns in the model's space.
        slice_point: The point at which the other parameters are held, shape (d,); its
            entries for the two plotted columns are unused.
        leaf: Index of each drawn box among ``bandit.fit_leaves()``, shape (k,).
        low, high: Cross-sections of the drawn boxes, shape (k, 2).  They tile [0, 1]^2.
        n_obs: Observations per drawn box, shape (k,).
        mean: Mean reward per drawn box (NaN if empty), shape (k,), values in [0, 1].
        index: TreeUCB (Hoeffding) index per drawn box, shape (k,).
        X: Observations, shape (n, 2).
        values: Objective values of the observations as told, shape (n,).
        in_slice: Whether each observation lies in a drawn box, shape (n,).
        pending: Pending (asked, not told) points, shape (p, 2).
        next_x: The point the model asks next, shape (d,); ``None`` during start-up, when the
            next point is uniform over the cube.
        next_leaf: Index among ``bandit.fit_leaves()`` of the box containing ``next_x``.
        next_row: Row of that box among the drawn boxes (``None`` if it misses the slice).
        next_low, next_high: Projection of that box onto the two parameters, shape (2,).
        n_leaves: Number of leaves of the whole partition.
    """

    params: tuple[str, str]
    columns: tuple[int, int]
    slice_point: np.ndarray
    leaf: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_obs: np.ndarray
    mean: np.ndarray
    index: np.ndarray
    X: np.ndarray
    values: np.ndarray
    in_slice: np.ndarray
    pending: np.ndarray
    next_x: np.ndarray | None
    next_leaf: int | None
    next_row: int | None
    next_low: np.ndarray | None
    next_high: np.ndarray | None
    n_leaves: int


def _resolve_params(
    space: UnitCube,
    params: Sequence[str] | None,
    low: np.ndarray,
    high: np.ndarray,
    n_obs: np.ndarray,
    owner: str,
) -> tuple[int, int]:
    names = list(space.names)
    if params is None:
        if space.dim < 2:
            raise ValueError(
                f"{owner} draws two parameters, but the TreeUCB search space has only {names!r}."
            )
        if space.dim == 2:
            return 0, 1
        # the two parameters along which the observations' boxes are narrowest: the mean over
        # observations of log(1 / width) of their box (volume-weighted if there are none)
        width = np.maximum(high - low, 1e-300)
        weight = n_obs if n_obs.sum() > 0 else np.prod(width, axis=1)
        score = weight @ -np.log(width)
        a, b = sorted(np.argsort(-score, kind="stable")[:2])
        return int(a), int(b)
    if isinstance(params, str) or not isinstance(params, Sequence):
        raise TypeError(
            f"The 'params' argument of {owner} must be a sequence of two parameter names. "
            f"Got {params!r}."
        )
    unknown = [p for p in params if p not in names]
    if unknown:
        raise ValueError(
            f"The 'params' argument of {owner} names parameter(s) {unknown!r} that are not "
            f"in the TreeUCB search space {names!r}."
        )
    if len(params) != 2 or params[0] == params[1]:
        raise ValueError(
            f"The 'params' argument of {owner} must name two different parameters of "
            f"{names!r}. Got {list(params)!r}."
        )
    return space.position(params[0]), space.position(params[1])


def _slice_point(
    bandit: TreeUCB,
    columns: tuple[int, int],
    slice_at: SliceAt,
    next_x: np.ndarray | None,
    owner: str,
) -> np.ndarray:
    space = bandit.space
    point = bandit.best_x if bandit.n_observations else np.full(space.dim, 0.5)
    if isinstance(slice_at, str):
        if slice_at == "next":
            return point if next_x is None else next_x.copy()
        if slice_at != "best":
            raise ValueError(
                f"The 'slice_at' argument of {owner} must be 'best', 'next' or a mapping of "
                f"parameter values. Got {slice_at!r}."
            )
        return point
    if not isinstance(slice_at, Mapping):
        raise TypeError(
            f"The 'slice_at' argument of {owner} must be 'best', 'next' or a mapping of "
            f"parameter values. Got {slice_at!r}."
        )
    plotted = [space.names[c] for c in columns]
    bad = [k for k in slice_at if k not in space.names or k in plotted]
    if bad:
        others = [n for n in space.names if n not in plotted]
        raise ValueError(
            f"The 'slice_at' argument of {owner} may only fix the parameters not plotted "
            f"{others!r}. Got {bad!r}."
        )
    for col, u in space.encode_partial(slice_at).items():
        point[col] = u
    return point


def _get_slice(
    bandit: TreeUCB, params: Sequence[str] | None, slice_at: SliceAt, owner: str
) -> PartitionSlice:
    if not isinstance(bandit, TreeUCB):
        raise TypeError(f"{owner} needs an optuna_treeucb.core.TreeUCB. Got {bandit!r}.")
    # Work on a copy: fitting the leaves and asking the next point must not touch the caller's
    # model, and the copy's random generator is in the same state, so its next point is the
    # one the model itself would ask next.
    model = copy.deepcopy(bandit)
    lv = model.fit_leaves()
    d = model.space.dim  # pruned="context" adds the budget's column after these
    low, high = lv.low[:, :d], lv.high[:, :d]
    columns = _resolve_params(model.space, params, low, high, lv.n_obs, owner)
    next_x = None if model.in_startup else model.ask_x()
    point = _slice_point(bandit, columns, slice_at, next_x, owner)
    cols = np.array(columns, dtype=np.intp)
    others = np.array([j for j in range(d) if j not in columns], dtype=np.intp)
    drawn = lv.containing({int(j): float(point[j]) for j in others})
    X = bandit.X
    if lv.low.shape[1] > d:
        # pruned="context": the last column is the budget; the slice is at the full budget,
        # where points are played, and each observation lies in its box at its own budget
        drawn &= lv.containing({d: 1.0})
        leaf_of_x = model.partition.leaf_of.copy()
    else:
        leaf_of_x = model.partition.locate(X) if X.shape[0] else np.zeros(0, dtype=np.intp)
    rows = np.flatnonzero(drawn)
    next_leaf = next_row = None
    next_low = next_high = None
    if next_x is not None:
        at = np.append(next_x, np.ones(lv.low.shape[1] - d))  # at the full budget
        hits = np.flatnonzero(lv.containing(dict(enumerate(at))))
        assert hits.size >= 1, "the leaves tile the cube"
        next_leaf = int(hits[0])
        next_low, next_high = lv.low[next_leaf, cols], lv.high[next_leaf, cols]
        if drawn[next_leaf]:
            next_row = int(np.searchsorted(rows, next_leaf))
    pending = bandit.pending
    return PartitionSlice(
        params=(model.space.names[columns[0]], model.space.names[columns[1]]),
        columns=columns,
        slice_point=point,
        leaf=rows,
        low=lv.low[np.ix_(rows, cols)],
        high=lv.high[np.ix_(rows, cols)],
        n_obs=lv.n_obs[rows],
        mean=lv.mean[rows],
        index=lv.index[rows],
        X=X[:, cols],
        values=bandit.values,
        in_slice=drawn[leaf_of_x],
        pending=pending[:, cols],
        next_x=next_x,
        next_leaf=next_leaf,
        next_row=next_row,
        next_low=next_low,
        next_high=next_high,
        n_leaves=int(lv.low.shape[0]),
    )


def get_partition_slice(
    bandit: TreeUCB, params: Sequence[str] | None = None, *, slice_at: SliceAt = "best"
) -> PartitionSlice:
    """The numbers :func:`plot_bandit_partition` draws: boxes, points and the next choice.

    The bandit is not modified: the leaves are fitted and the next point is asked on a copy
    (whose random generator is in the same state, so ``next_x`` is the point the bandit
    itself would ask next if nothing else changes).

    Args:
        bandit:
            A :class:`~optuna_treeucb.core.TreeUCB`.
        params:
            Names of the two parameters, x axis first.  By default the two parameters of a
            2-D space, else the two along which the observations' boxes are narrowest (the
            largest mean of ``log(1 / width)`` over the observations).
        slice_at:
            Where to hold the other parameters when the space has more than two:
            ``"best"`` (the best observation), ``"next"`` (the point asked next) or a mapping
            of parameter values (parameters left out are taken from the best observation).

    Returns:
        A :class:`PartitionSlice`.

    Raises:
        ValueError: If ``params`` names unknown parameters, not exactly two different ones,
            or the space has fewer than two parameters; or if ``slice_at`` is not valid.
        TypeError: If ``bandit`` is not a TreeUCB or ``params`` is not a sequence of names.
    """
    return _get_slice(bandit, params, slice_at, "get_partition_slice")


def _format_value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return repr(value) if isinstance(value, str) else str(value)


def _check_plot_args(show_index: ShowIndex, resolution: int, owner: str) -> None:
    if show_index not in ("auto", "color", "text", "none"):
        raise ValueError(
            f"The 'show_index' argument of {owner} must be 'auto', 'color', 'text' or 'none'. "
            f"Got {show_index!r}."
        )
    if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 2:
        raise ValueError(
            f"The 'resolution' argument of {owner} must be an int >= 2. Got {resolution!r}."
        )


@dataclass(frozen=True)
class _Canvas:
    """The axes drawn on and the two parameter axes that map unit coordinates onto them."""

    ax: Axes
    x: ParamAxis
    y: ParamAxis

    @property
    def figure(self) -> Any:
        fig = self.ax.get_figure()
        assert fig is not None
        return fig

    def rect(self, low: np.ndarray, high: np.ndarray, **kwargs: Any) -> Any:
        """A rectangle patch of the unit box ``[low, high]`` (shape (2,) each)."""
        from matplotlib.patches import Rectangle

        x0, x1 = self.x.to_plot(low[0]), self.x.to_plot(high[0])
        y0, y1 = self.y.to_plot(low[1]), self.y.to_plot(high[1])
        return Rectangle((float(x0), float(y0)), float(x1 - x0), float(y1 - y0), **kwargs)


def _draw_reward(
    canvas: _Canvas,
    space: UnitCube,
    info: PartitionSlice,
    reward_fn: Callable[[dict[str, Any]], float],
    resolution: int,
) -> None:
    """Layer 1: the reward function as a grey colour map, on the slice."""
    ax_x, ax_y = canvas.x, canvas.y
    edges = np.linspace(0.0, 1.0, resolution + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    base = space.decode(info.slice_point)
    xs = [ax_x.spec.decode(u) for u in centres]
    ys = [ax_y.spec.decode(u) for u in centres]
    a, b = info.params
    Z = np.array([[float(reward_fn({**base, a: x, b: y})) for x in xs] for y in ys])
    mesh = canvas.ax.pcolormesh(
        ax_x.to_plot(edges), ax_y.to_plot(edges), Z, cmap="Greys_r", shading="flat", zorder=0
    )
    canvas.figure.colorbar(mesh, ax=canvas.ax, label="reward_fn")


def _draw_boxes(canvas: _Canvas, info: PartitionSlice, mode: str, cmap: str) -> None:
    """Layer 2: the boxes, coloured (``mode="color"``) or annotated (``"text"``) by index."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.patheffects import withStroke

    plt = import_pyplot()
    ax, ax_x, ax_y = canvas.ax, canvas.x, canvas.y
    finite = info.index[np.isfinite(info.index)]
    norm = Normalize(
        vmin=float(finite.min()) if finite.size else 0.0,
        vmax=float(finite.max()) if finite.size else 1.0,
    )
    colormap = plt.get_cmap(cmap)
    for k in range(info.low.shape[0]):
        face: Any = colormap(norm(info.index[k])) if mode == "color" else "none"
        ax.add_patch(
            canvas.rect(
                info.low[k],
                info.high[k],
                facecolor=face,
                edgecolor="black",
                linewidth=0.6,
                zorder=1,
                gid=BOX_GID,
            )
        )
        width = info.high[k] - info.low[k]
        if mode == "text" and width[0] >= 0.07 and width[1] >= 0.04:
            mid = (info.low[k] + info.high[k]) / 2
            ax.text(
                float(ax_x.to_plot(mid[0])),
                float(ax_y.to_plot(mid[1])),
                f"{info.index[k]:.2f}",
                ha="center",
                va="center",
                fontsize=6,
                color="white",
                path_effects=[withStroke(linewidth=1.5, foreground="black")],
                zorder=2,
            )
    if mode == "color":
        canvas.figure.colorbar(
            ScalarMappable(norm=norm, cmap=colormap), ax=ax, label="TreeUCB index"
        )


def _draw_points(canvas: _Canvas, info: PartitionSlice) -> None:
    """Layer 3: the observations (grey off the slice) and the pending points (hollow)."""
    ax, ax_x, ax_y = canvas.ax, canvas.x, canvas.y
    X = info.X
    on = info.in_slice
    ax.scatter(
        ax_x.to_plot(X[on, 0]),
        ax_y.to_plot(X[on, 1]),
        s=10,
        c="black",
        edgecolors="white",
        linewidths=0.4,
        zorder=3,
        label=f"observations ({int(on.sum())})",
        gid=TRIALS_GID,
    )
    if not on.all():
        ax.scatter(
            ax_x.to_plot(X[~on, 0]),
            ax_y.to_plot(X[~on, 1]),
            s=8,
            c="grey",
            alpha=0.4,
            linewidths=0,
            zorder=2,
            label=f"observations off this slice ({int((~on).sum())})",
            gid=OFF_SLICE_GID,
        )
    if info.pending.shape[0]:
        ax.scatter(
            ax_x.to_plot(info.pending[:, 0]),
            ax_y.to_plot(info.pending[:, 1]),
            s=14,
            facecolors="none",
            edgecolors="black",
            zorder=3,
            label=f"pending ({info.pending.shape[0]})",
            gid=PENDING_GID,
        )


def _draw_next(canvas: _Canvas, info: PartitionSlice) -> None:
    """Layer 4: the box chosen next and the point asked in it.

    A thick red outline on a white halo, above the points, so that it shows on dark
    backgrounds and among many observations; a box too thin to see at the plotted size is
    circled as well.
    """
    from matplotlib.patheffects import withStroke

    assert info.next_x is not None
    assert info.next_low is not None and info.next_high is not None
    ax, ax_x, ax_y = canvas.ax, canvas.x, canvas.y
    in_slice = info.next_row is not None
    thin = bool(np.any(info.next_high - info.next_low < THIN_BOX))
    label = "next box" if in_slice else "next box (projection; off this slice)"
    ax.add_patch(
        canvas.rect(
            info.next_low,
            info.next_high,
            fill=False,
            edgecolor="red",
            linewidth=2.5,
            linestyle="-" if in_slice else "--",
            path_effects=[withStroke(linewidth=5.0, foreground="white")],
            zorder=4,
            gid=NEXT_BOX_GID,
            label=label + (" (circled: too thin to see)" if thin else ""),
        )
    )
    if thin:
        centre = (info.next_low + info.next_high) / 2
        ax.scatter(
            ax_x.to_plot(centre[0:1]),
            ax_y.to_plot(centre[1:2]),
            marker="o",
            s=700,
            facecolors="none",
            edgecolors="red",
            linewidths=2.0,
            path_effects=[withStroke(linewidth=4.0, foreground="white")],
            zorder=4,
            gid=NEXT_BOX_MARK_GID,
        )
    # drawn at the value the point decodes to: on a categorical or discrete axis, the row
    # or column of its choice, not anywhere inside the choice's bin
    nx = info.next_x[list(info.columns)]
    ax.scatter(
        ax_x.value_position(nx[0:1]),
        ax_y.value_position(nx[1:2]),
        marker="*",
        s=160,
        c="red",
        edgecolors="white",
        linewidths=0.8,
        zorder=5,
        label="next point",
        gid=NEXT_POINT_GID,
    )


def _draw_frame(canvas: _Canvas, bandit: TreeUCB, info: PartitionSlice) -> None:
    """The axes in the parameters' units, the title (with the slice) and the legend."""
    ax = canvas.ax
    space = bandit.space
    canvas.x.configure(ax, "x")
    canvas.y.configure(ax, "y")
    n = bandit.n_observations
    title = f"TreeUCB partition: {info.n_leaves} boxes, {n} observations"
    if info.next_x is None:
        title += " (start-up: next point uniform)"
    if space.dim > 2:
        fixed = space.decode(info.slice_point)
        title += "\nslice at " + ", ".join(
            f"{k}={_format_value(v)}" for k, v in fixed.items() if k not in info.params
        )
    ax.set_title(title, fontsize="medium")
    ax.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, fontsize="x-small", frameon=False
    )


def _plot(
    bandit: TreeUCB,
    params: Sequence[str] | None,
    *,
    ax: Axes | None,
    reward_fn: Callable[[dict[str, Any]], float] | None,
    slice_at: SliceAt,
    show_index: ShowIndex,
    resolution: int,
    cmap: str,
    owner: str,
) -> Axes:
    plt = import_pyplot()
    _check_plot_args(show_index, resolution, owner)
    info = _get_slice(bandit, params, slice_at, owner)
    space = bandit.space
    ax_x = ParamAxis(space.params[info.columns[0]])
    ax_y = ParamAxis(space.params[info.columns[1]])
    if ax is None:
        _, ax = plt.subplots(layout="constrained")
    canvas = _Canvas(ax, ax_x, ax_y)
    mode = show_index if show_index != "auto" else ("text" if reward_fn is not None else "color")
    if reward_fn is not None:
        _draw_reward(canvas, space, info, reward_fn, resolution)
    _draw_boxes(canvas, info, mode, cmap)
    _draw_points(canvas, info)
    if info.next_x is not None:
        _draw_next(canvas, info)
    _draw_frame(canvas, bandit, info)
    return ax


def plot_bandit_partition(
    bandit: TreeUCB,
    params: Sequence[str] | None = None,
    *,
    ax: Axes | None = None,
    reward_fn: Callable[[dict[str, Any]], float] | None = None,
    slice_at: SliceAt = "best",
    show_index: ShowIndex = "auto",
    resolution: int = 100,
    cmap: str = "viridis",
) -> Axes:
    """Draw the partition a TreeUCB model learned, over two of its parameters.

    Draws the leaf boxes (their edges, and their index as a colour or a number), the
    observations, any pending points, and the box the model chooses next with the point it
    asks there.  Axes are in the parameters' own units: log axes for log parameters, grid
    values for int and stepped parameters (each value owns the interval of its bin in the
    core, so a box covers the values whose bin centres it contains), the choices as ticks for
    categorical ones.  With more than two
    parameters the figure is a slice at ``slice_at`` (see :func:`get_partition_slice`).
    The index shown is the Hoeffding index of every box, which also ranks the boxes that a
    ``soft_gp`` model searches; such a model picks its point by the GP index among them.

    The bandit is not modified.

    Args:
        bandit:
            A :class:`~optuna_treeucb.core.TreeUCB`.
        params:
            Names of the two parameters, x axis first (see :func:`get_partition_slice`).
        ax:
            Axes to draw on; a new figure when ``None``.
        reward_fn:
            A function of a ``{name: value}`` assignment of every parameter, drawn as a grey
            colour map under the boxes (on the slice).  It is called ``resolution ** 2``
            times.
        slice_at:
            ``"best"``, ``"next"`` or a mapping of parameter values: where the other
            parameters are held when there are more than two.
        show_index:
            ``"color"`` fills the boxes by their index, ``"text"`` writes it in boxes large
            enough to hold it, ``"none"`` draws edges only; ``"auto"`` is ``"text"`` when a
            ``reward_fn`` is drawn and ``"color"`` otherwise.
        resolution:
            Cells per axis of the ``reward_fn`` colour map.
        cmap:
            Matplotlib colour map of the index.

    Returns:
        The :class:`matplotlib.axes.Axes` drawn on.

    Raises:
        ImportError: If matplotlib is not installed.
        ValueError: If ``params`` or another argument is not valid.
        TypeError: If ``bandit`` is not a TreeUCB.

    Example:
        .. code-block:: python

            import numpy as np

            from optuna_treeucb.core import TreeUCB
            from optuna_treeucb.visualization import plot_bandit_partition

            bandit = TreeUCB(2, seed=0)
            for _ in range(100):
                x = bandit.ask_x()
                bandit.tell_x(x, -float(np.sum((x - 0.3) ** 2)))
            ax = plot_bandit_partition(bandit)
    """
    return _plot(
        bandit,
        params,
        ax=ax,
        reward_fn=reward_fn,
        slice_at=slice_at,
        show_index=show_index,
        resolution=resolution,
        cmap=cmap,
        owner="plot_bandit_partition",
    )


def _can_model(sampler: TreeUCBSampler, study: Study, name: str) -> bool:
    """Whether the sampler can model parameter ``name`` of the study (alone)."""
    try:
        sampler.build_model(study, params=[name])
    except ValueError:
        return False
    return True


def plot_partition(
    study: Study,
    params: Sequence[str] | None = None,
    *,
    ax: Axes | None = None,
    sampler: TreeUCBSampler | None = None,
    slice_at: SliceAt = "best",
    show_index: ShowIndex = "auto",
    cmap: str = "viridis",
) -> Axes:
    """Plot the partition TreeUCB learned on a study, over two parameters, with Matplotlib.

    The model is the one the sampler fits on the study's trials
    (:meth:`TreeUCBSampler.build_model`); it is drawn by :func:`plot_bandit_partition`: the
    leaf boxes and their index, the completed trials as points, running trials as hollow
    points and the box the model chooses next.  Axes are in the parameters' own units.  With
    more than two parameters the figure is a slice through the best trial (``slice_at``).
    The next point drawn is the model's own draw; the sampler's next trial is drawn with a
    per-trial seed, so it lands elsewhere in the chosen box (``"hoeffding"`` index) or, for
    ``"soft_gp"``, possibly in another of the best boxes.

    Args:
        study:
            A single-objective :class:`~optuna.study.Study`.
        params:
            Names of the two parameters, x axis first.  By default the two parameters of a
            2-D search space, else the two along which the partition is finest (see
            :func:`get_partition_slice`).
        ax:
            Axes to draw on; a new figure when ``None``.
        sampler:
            The :class:`~optuna_treeucb.TreeUCBSampler` whose model is drawn.  By default the
            study's sampler if it is one, else a ``TreeUCBSampler()`` with default options.
        slice_at:
            ``"best"`` (the best trial), ``"next"`` (the point asked next) or a mapping of
            parameter values: where the other parameters are held when there are more than
            two.
        show_index:
            ``"color"``, ``"text"``, ``"none"`` or ``"auto"`` (see
            :func:`plot_bandit_partition`).
        cmap:
            Matplotlib colour map of the index.

    Returns:
        The :class:`matplotlib.axes.Axes` drawn on.

    Raises:
        ImportError: If matplotlib is not installed.
        ValueError: If ``params`` names parameters that are not in the sampler's search
            space, the study is multi-objective, or another argument is not valid.
        TypeError: If ``sampler`` is not a TreeUCBSampler.

    Example:
        .. code-block:: python

            import optuna

            from optuna_treeucb import TreeUCBSampler
            from optuna_treeucb.visualization import plot_partition


            def objective(trial: optuna.Trial) -> float:
                x = trial.suggest_float("x", -5, 5)
                return x**2 + trial.suggest_float("y", 1e-3, 1, log=True)

            study = optuna.create_study(sampler=TreeUCBSampler(seed=0))
            study.optimize(objective, n_trials=40)
            ax = plot_partition(study, params=("x", "y"))
    """
    from optuna_treeucb._sampler import TreeUCBSampler

    if len(study.directions) > 1:
        raise ValueError(
            "plot_partition draws single-objective studies; this study has "
            f"{len(study.directions)} objectives."
        )
    if sampler is None:
        sampler = study.sampler if isinstance(study.sampler, TreeUCBSampler) else TreeUCBSampler()
    elif not isinstance(sampler, TreeUCBSampler):
        raise TypeError(
            f"The 'sampler' argument of plot_partition must be a TreeUCBSampler. Got {sampler!r}."
        )
    bandit = sampler.build_model(study)
    if params is not None and not isinstance(params, str) and isinstance(params, Sequence):
        missing = [p for p in params if p not in bandit.space.names]
        if missing:
            # e.g. conditional parameters outside the intersection search space: model them alone
            try:
                bandit = sampler.build_model(study, params=list(params))
            except ValueError:
                unknown = [p for p in missing if not _can_model(sampler, study, p)]
                raise ValueError(
                    f"The 'params' argument of plot_partition names parameter(s) "
                    f"{unknown or missing!r} that TreeUCBSampler does not model in this study; "
                    f"it models {list(bandit.space.names)!r} in every trial."
                ) from None
    return _plot(
        bandit,
        params,
        ax=ax,
        reward_fn=None,
        slice_at=slice_at,
        show_index=show_index,
        resolution=100,
        cmap=cmap,
        owner="plot_partition",
    )


__all__ = [
    "PartitionSlice",
    "get_partition_slice",
    "plot_bandit_partition",
    "plot_partition",
]
