"""The options of TreeUCB, declared once: type, allowed values, default and meaning.

:data:`OPTIONS` is the one table of the options of :class:`~optuna_treeucb.core.TreeUCB`.
Every face checks its options with :func:`validate_options`, giving the class the user
called, so the core, ``TreeUCBSampler`` and ``TreeUCBSearch`` raise the same errors
(``TypeError`` for a wrong type, ``ValueError`` for a value out of range), and
:func:`options_table` renders the table as the README's "Options" section.  The model is
scikit-learn's ``_parameter_constraints`` (``sklearn/utils/_param_validation.py``), kept small
and typed.

Regenerate the README's table after changing the table::

    python -m optuna_treeucb.core --write README.md
"""

from __future__ import annotations

import difflib
import math
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any
from typing import Literal

import numpy as np

# Seeds must suit both np.random.default_rng and np.random.RandomState (Optuna's RandomSampler).
SEED_LIMIT = 2**32
TABLE_START = "<!-- options-table:start -->"
TABLE_END = "<!-- options-table:end -->"

Kind = Literal["int", "float", "str"]
Closed = Literal["both", "left", "right", "neither"]


@dataclass(frozen=True)
class Option:
    """One option: its constraint, default and meaning.

    Attributes:
        name: Keyword of :class:`~optuna_treeucb.core.TreeUCB`.
        kind: ``"int"``, ``"float"`` (ints are accepted too) or ``"str"`` (one of ``choices``).
        default: Default value.
        doc: What the option does, one line of Markdown.
        applies: When it has an effect: ``"always"`` or a condition such as ``rule="refit"``.
        low: Lower bound of an int or float (``None``: unbounded).
        high: Upper bound of an int or float (``None``: unbounded).
        closed: Which of ``low`` and ``high`` belong to the range.
        choices: Allowed values of a ``"str"`` option.
        none: ``None`` is allowed too.
        inf: ``+inf`` is allowed too (floats are finite otherwise).
        wrapper_name: Name in ``TreeUCBSampler`` and ``TreeUCBSearch``, if it differs.
        aliases: Further names the wrappers accept (``TreeUCBSearch`` takes them as keyword
            arguments).
        core_only: The wrappers set it themselves (from the study or ``mode``).
    """

    name: str
    kind: Kind
    default: Any
    doc: str
    applies: str = "always"
    low: float | None = None
    high: float | None = None
    closed: Closed = "both"
    choices: tuple[str, ...] = ()
    none: bool = False
    inf: bool = False
    wrapper_name: str | None = None
    aliases: tuple[str, ...] = ()
    core_only: bool = False

    @property
    def face_name(self) -> str:
        """The name in ``TreeUCBSampler`` and ``TreeUCBSearch``."""
        return self.wrapper_name or self.name

    def allowed(self) -> str:
        """What is allowed, in words: ``"a float in (0, 1) or None"``."""
        if self.kind == "str":
            text = f"one of {list(self.choices)!r}"
        else:
            text = ("an int" if self.kind == "int" else "a float") + self._range()
        if self.inf:
            text += " or inf"
        if self.none:
            text += " or None"
        return text

    def _range(self) -> str:
        lo_in = self.closed in ("both", "left")
        hi_in = self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            left, right = "[" if lo_in else "(", "]" if hi_in else ")"
            return f" in {left}{_fmt(self.low)}, {_fmt(self.high)}{right}"
        if self.low is not None:
            return f" {'>=' if lo_in else '>'} {_fmt(self.low)}"
        if self.high is not None:
            return f" {'<=' if hi_in else '<'} {_fmt(self.high)}"
        return ""

    def check(self, owner: str, key: str, value: Any) -> Any:
        """The value, normalised to a plain ``int``/``float``/``str``/``None``.

        Args:
            owner: The class the user called, named in errors.
            key: The name the user gave (the option's name or an alias).
            value: The value the user gave.

        Raises:
            TypeError: If the value has the wrong type.
            ValueError: If the value is out of range.
        """
        if value is None and self.none:
            return None
        message = f"The {key!r} parameter of {owner} must be {self.allowed()}. Got {value!r}"
        if not self._has_type(value):
            raise TypeError(f"{message} ({type(value).__name__}) instead.")
        if self.kind == "str":
            if value not in self.choices:
                raise ValueError(f"{message} instead.")
            return value
        number = int(value) if self.kind == "int" else _as_float(value)
        if not self._in_range(number):
            raise ValueError(f"{message} instead.")
        return number

    def _has_type(self, value: Any) -> bool:
        if self.kind == "str":
            return isinstance(value, str)
        if isinstance(value, (bool, np.bool_)):
            return False
        if self.kind == "int":
            return isinstance(value, numbers.Integral)
        return isinstance(value, numbers.Real)

    def _in_range(self, v: float) -> bool:
        if isinstance(v, float) and math.isnan(v):
            return False
        if isinstance(v, float) and math.isinf(v):
            return self.inf and v > 0
        lo_in = self.closed in ("both", "left")
        hi_in = self.closed in ("both", "right")
        if self.low is not None and not (v >= self.low if lo_in else v > self.low):
            return False
        return self.high is None or (v <= self.high if hi_in else v < self.high)


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except OverflowError:  # an int beyond the range of a double
        return math.inf if value > 0 else -math.inf


def _fmt(bound: float) -> str:
    if bound == SEED_LIMIT:
        return "2**32"
    return repr(int(bound)) if float(bound).is_integer() else repr(bound)


_REFIT = 'rule="refit"'
_INCREMENTAL = 'rule="incremental"'
_SOFT_GP = 'index="soft_gp"'
_OPTIONS = (
    Option(
        "seed",
        "int",
        None,
        doc="Seed of the random draws (ties, points inside boxes, start-up points).",
        low=0,
        high=SEED_LIMIT,
        closed="left",
        none=True,
    ),
    Option(
        "direction",
        "str",
        "maximize",
        doc="Whether the told values are maximized or minimized (the wrappers take it from "
        "the study or from `mode`).",
        choices=("maximize", "minimize"),
        core_only=True,
    ),
    Option(
        "rule",
        "str",
        "refit",
        doc="Tree rule: the paper's CART refitted on all data, or a nested partition grown "
        "online that meets the regret theorem's conditions.",
        choices=("refit", "incremental"),
    ),
    Option(
        "index",
        "str",
        "hoeffding",
        doc="Index of a box: `m + C sqrt(4 log t / n) + M D`, or the posterior of a GP with "
        "the paper's soft tree kernel.",
        choices=("hoeffding", "soft_gp"),
    ),
    Option("C", "float", 0.01, doc="Weight of the confidence bonus.", low=0.0),
    Option("M", "float", 0.1, doc="Weight of the box-diameter (Lipschitz) term `D`.", low=0.0),
    Option(
        "n_startup",
        "int",
        10,
        doc="Observations drawn uniformly at random before the tree is used.",
        low=0,
        wrapper_name="n_startup_trials",
        aliases=("n_startup",),
    ),
    Option(
        "reward",
        "str",
        "rank",
        doc="Objective values become rewards in [0, 1] by mid-rank or by min-max scaling.",
        choices=("rank", "minmax"),
    ),
    Option(
        "pruned",
        "str",
        "last_value",
        doc="How observations stopped early (pruned trials, trials a scheduler stopped) rank "
        "against full ones: by last value as if final, by (step reached, value) as TPE does, "
        "BOHB's largest budget with `n_min` observations first, or the budget as a context "
        'dimension of the tree, played at the full budget; see "Pruning and schedulers". '
        "Full evaluations alone rank as without it.",
        choices=("last_value", "tpe", "bohb", "context"),
    ),
    Option(
        "n_min",
        "int",
        None,
        doc="Observations BOHB's rule needs at a budget before it ranks them above those "
        "stopped earlier (None: the number of parameters + 1, as BOHB).",
        applies='pruned="bohb"',
        low=1,
        none=True,
    ),
    Option(
        "max_budget",
        "float",
        None,
        doc='The full budget of `pruned="context"`, in steps (e.g. the pruner\'s '
        "`max_resource`, the scheduler's `max_t`): a step `b` is the context "
        "`log(1 + b) / log(1 + max_budget)` and new points are played at 1 (None: the "
        "largest step told).",
        applies='pruned="context"',
        low=0.0,
        closed="neither",
        none=True,
    ),
    Option(
        "criterion",
        "str",
        "absolute_error",
        doc="Split criterion of scikit-learn's `DecisionTreeRegressor`.",
        applies=_REFIT,
        choices=("absolute_error", "squared_error", "friedman_mse"),
    ),
    Option(
        "min_impurity_decrease",
        "float",
        0.001,
        doc="A split must reduce the tree's criterion by at least this much.",
        low=0.0,
    ),
    Option(
        "refit_fraction",
        "float",
        0.05,
        doc="Refit once the data grew by this fraction since the last fit (0: at every "
        "observation); in between, new points go into the current boxes.",
        applies=_REFIT,
        low=0.0,
    ),
    Option(
        "cap_gamma",
        "float",
        0.3,
        doc="Cut leaves wider than `sqrt(d) t^(-cap_gamma / d)` into grid cells, so that boxes "
        "shrink as the regret theorem needs (None: the paper's bare CART).",
        applies=_REFIT,
        low=0.0,
        high=1.0,
        closed="neither",
        none=True,
    ),
    Option(
        "gamma",
        "float",
        0.5,
        doc="Growth exponent of the leaf budget `c t^gamma` and of the diameter cap "
        "`sqrt(d) t^(-gamma / d)`.",
        applies=_INCREMENTAL,
        low=0.0,
        high=1.0,
        closed="neither",
    ),
    Option(
        "max_leaves_coef",
        "float",
        4.0,
        doc="Coefficient `c` of the leaf budget: data-driven splits stop at `c t^gamma` leaves.",
        applies=_INCREMENTAL,
        low=0.0,
        closed="right",
    ),
    Option(
        "alpha",
        "float",
        100.0,
        doc="Sharpness of the sigmoid box edges of the soft tree kernel (inf: hard boxes).",
        applies=_SOFT_GP,
        low=0.0,
        closed="right",
        inf=True,
    ),
    Option(
        "sigma",
        "float",
        0.01,
        doc="Standard deviation of the jitter of the box edges.",
        applies=_SOFT_GP,
        low=0.0,
    ),
    Option(
        "gp_noise",
        "float",
        0.1,
        doc="Observation-noise variance of the GP on rewards in [0, 1].",
        applies=_SOFT_GP,
        low=0.0,
        closed="right",
    ),
    Option(
        "n_boxes",
        "int",
        4,
        doc="How many of the best boxes (by the Hoeffding index) receive candidate points.",
        applies=_SOFT_GP,
        low=1,
    ),
    Option(
        "n_candidates",
        "int",
        32,
        doc="Candidate points drawn per box.",
        applies=f'{_SOFT_GP} or sampling="parzen"',
        low=1,
    ),
    Option(
        "sampling",
        "str",
        "local_gp",
        doc="Where the point goes inside the played box: uniformly (the paper's Algorithm 1), "
        "in a TuRBO trust region around the box's best observation (its side halves after "
        "`max(4, d)` told values that do not improve the best, plus one per pending point, and "
        "doubles after 3 that do; "
        "discrete parameters keep the box's range), or at the best of `n_candidates` points "
        "by a Parzen good/bad ratio on the box, or by Thompson sampling of a local GP "
        "(TuRBO: isotropic Matern-5/2 on the observations nearest to the box's best, centred "
        "on the best posterior mean, pending points as fantasies) in that trust region.",
        choices=("uniform", "trust_region", "parzen", "local_gp"),
    ),
    Option(
        "center",
        "str",
        "best",
        doc="Centre of the trust region: the box's best observation, or (for noisy "
        "objectives) the box's point whose 5 nearest observations in the box have the best "
        "mean, with successes and failures counted on that local mean too.",
        applies='sampling="trust_region"',
        choices=("best", "smoothed"),
    ),
    Option(
        "discrete",
        "str",
        "box",
        doc="Discrete parameters in the trust region: they keep the played box's range and "
        "the local GP sees their position on the cube, or (`region`) an int or stepped float "
        "shrinks with the region (to the cube's share `0.8 rho` of its values with "
        '`region="cube"`) but keeps 2 values on each side of the centre\'s, a categorical '
        "keeps the centre's choice unless redrawn among the box's (all, with "
        '`region="cube"`) with probability `min(1, s)`, `s` the region\'s side relative to '
        "the box (to the cube), candidates sit on values, and the local GP puts any two "
        "different choices at distance 1 (one-hot).",
        applies='sampling="trust_region" or sampling="local_gp"',
        choices=("box", "region"),
    ),
    Option(
        "region",
        "str",
        "cube",
        doc="Reach of the trust region: inside the played box (side relative to the box), "
        "around it (the same side, clipped to the unit cube only, so it reaches past the box's "
        "faces, across a split), or TuRBO's region around the same centre (side relative to "
        "the cube, 0.8 at the start); discrete parameters keep the box's range unless "
        '`discrete="region"`. Outside `"box"` a point may leave the played box, which the '
        "paper's regret analysis does not cover.",
        applies='sampling="trust_region" or sampling="local_gp"',
        choices=("box", "around", "cube"),
    ),
    Option(
        "refine",
        "int",
        None,
        doc="Deepen the partition where play concentrates: a box holding at least this many "
        "observations is halved along its longest side, and so is the half holding its best "
        "observation, while that half holds as many (None: the tree's boxes as they are).",
        low=2,
        none=True,
    ),
    Option(
        "bagging",
        "int",
        None,
        doc="Shrink a box's mean reward in the index toward the prediction at the box's centre "
        "of this many regression trees fitted on bootstrap replicates of the data (as 2 "
        "observations of that value): less variance under noise; the boxes played stay the "
        "partition's (None: the plain box mean, as the paper).",
        low=1,
        none=True,
    ),
)

OPTIONS: Mapping[str, Option] = MappingProxyType({o.name: o for o in _OPTIONS})
"""Every option of :class:`~optuna_treeucb.core.TreeUCB`, by name, in the README's order."""


def _names(wrapper: bool) -> dict[str, Option]:
    """Every accepted name -> its option, for the core or for the wrappers."""
    if not wrapper:
        return dict(OPTIONS)
    names: dict[str, Option] = {}
    for option in OPTIONS.values():
        if not option.core_only:
            names.update(dict.fromkeys((option.face_name, *option.aliases), option))
    return names


def validate_options(
    owner: str, options: Mapping[str, Any], *, wrapper: bool = False
) -> dict[str, Any]:
    """Check options against :data:`OPTIONS`.

    Args:
        owner: The class the user called (``"TreeUCB"``, ``"TreeUCBSampler"``, ...), named in
            every error.
        options: The options given, by the names of ``owner``; options not given are not
            filled in.
        wrapper: Whether ``owner`` is a wrapper: its names are the wrappers' (e.g.
            ``n_startup_trials`` and its aliases) and the options the wrappers set themselves
            (``direction``) are not accepted.

    Returns:
        The options by the core's names, as plain ``int``, ``float``, ``str`` or ``None``.

    Raises:
        TypeError: If an option is unknown, given twice (by a name and an alias), or of the
            wrong type.
        ValueError: If an option is out of range.
    """
    names = _names(wrapper)
    out: dict[str, Any] = {}
    given: dict[str, str] = {}  # core name -> the name the user gave
    for key, value in options.items():
        option = names.get(key)
        if option is None:
            known = [o.face_name if wrapper else o.name for o in dict.fromkeys(names.values())]
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise TypeError(
                f"{owner} got an unexpected option {key!r}.{hint} The options are {known!r}."
            )
        if option.name in given:
            keep = option.face_name if wrapper else option.name
            raise TypeError(
                f"{owner} got both {given[option.name]!r} and {key!r}, which name the same "
                f"option. Give only {keep!r}."
            )
        given[option.name] = key
        out[option.name] = option.check(owner, key, value)
    for name in ignored_options(out):
        warnings.warn(
            f"{owner} ignores {given[name]}={out[name]!r}: it has an effect only when "
            f"{OPTIONS[name].applies}. Remove it, or set that option too.",
            UserWarning,
            stacklevel=3,
        )
    return out


def _has_effect(option: Option, options: Mapping[str, Any]) -> bool:
    """Whether ``option`` has an effect under ``options`` (core names, defaults filled in).

    ``option.applies`` is ``"always"`` or clauses ``name="value"`` joined by ``" or "``, all
    written in this module (never user input).
    """
    if option.applies == "always":
        return True
    for clause in option.applies.split(" or "):
        name, _, value = clause.partition("=")
        if options.get(name) == value.strip('"'):
            return True
    return False


def ignored_options(options: Mapping[str, Any]) -> list[str]:
    """Options (core names) set to a value other than their default that have no effect.

    Args:
        options: Validated options by the core's names (missing ones take their defaults).

    Returns:
        Their names, in the table's order: e.g. ``gamma`` given with ``rule="refit"``.
    """
    full = {name: o.default for name, o in OPTIONS.items()} | dict(options)
    return [
        name
        for name, option in OPTIONS.items()
        if name in options and options[name] != option.default and not _has_effect(option, full)
    ]


def invalid_values(option: Option) -> list[tuple[Any, type[Exception]]]:
    """Values the option rejects and the error each raises, derived from its constraint.

    For tests (as ``generate_invalid_param_val`` in scikit-learn's ``_param_validation.py``).
    """
    bad: list[tuple[Any, type[Exception]]] = [(True, TypeError), ([], TypeError)]
    if not option.none:
        bad.append((None, TypeError))
    if option.kind == "str":
        return [*bad, (1, TypeError), ("not-" + option.choices[0], ValueError)]
    bad.append(("1", TypeError))
    if option.kind == "int":
        bad.append((1.5, TypeError))
    else:
        bad.append((math.nan, ValueError))
        if not option.inf:
            bad.append((math.inf, ValueError))
    step = 1 if option.kind == "int" else 0.5
    lo_in = option.closed in ("both", "left")
    hi_in = option.closed in ("both", "right")
    if option.low is not None:
        bad.append((option.low - step if lo_in else option.low, ValueError))
    if option.high is not None:
        bad.append((option.high + step if hi_in else option.high, ValueError))
        if option.kind == "int":
            bad.append((2**70, ValueError))
    return [(_typed(option, v), e) for v, e in bad]


def _typed(option: Option, value: Any) -> Any:
    """A numeric bad value of the option's own type (an int bound of a float option is a float)."""
    if option.kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def options_table() -> str:
    """The options as a Markdown table (the README's "Options" section)."""
    rows = [
        "| option | default | allowed values | applies when | what it does |",
        "|---|---|---|---|---|",
    ]
    for o in OPTIONS.values():
        notes = [f"`{o.name}` in `TreeUCB`"] if o.face_name != o.name else []
        notes += [f"alias `{alias}` in `TreeUCBSearch`" for alias in o.aliases]
        notes += ["`TreeUCB` only"] if o.core_only else []
        name = f"`{o.face_name}`" + (f" ({'; '.join(notes)})" if notes else "")
        applies = "always" if o.applies == "always" else f"`{o.applies}`"
        rows.append(f"| {name} | `{o.default!r}` | {o.allowed()} | {applies} | {o.doc} |")
    return "\n".join(rows) + "\n"


def splice_table(text: str) -> str:
    """``text`` with the table between its marker comments replaced by :func:`options_table`.

    Raises:
        ValueError: If ``text`` lacks the markers.
    """
    start, end = text.find(TABLE_START), text.find(TABLE_END)
    if start < 0 or end < start:
        raise ValueError(f"The text has no {TABLE_START} ... {TABLE_END} markers.")
    head = text[: start + len(TABLE_START)]
    return f"{head}\n{options_table()}{text[end:]}"
