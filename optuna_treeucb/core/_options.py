"""The options of TreeUCB, declared once: type, allowed values, default per face, meaning."""

from __future__ import annotations

import difflib
import functools
import math
import numbers
import os
import re
import sys
import textwrap
import warnings
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any
from typing import Literal
from typing import TypeVar
from typing import cast
from typing import get_args

import numpy as np

# The allowed values of the str options, spelled once: OPTIONS takes its choices from them
# (``get_args``), and TreeUCB and TreeUCBSampler annotate their keywords with them.
Direction = Literal["maximize", "minimize"]
Rule = Literal["refit", "incremental"]
Index = Literal["hoeffding", "soft_gp"]
PrunedRule = Literal["last_value", "context"]
Sampling = Literal["uniform", "trust_region", "local_gp"]
Discrete = Literal["box", "region"]

SEED_LIMIT = 2**32
TABLE_START = "<!-- options-table:start -->"
TABLE_END = "<!-- options-table:end -->"
# The line of a docstring's ``Args:`` section that :func:`document_options` replaces by the
# options, rendered from OPTIONS, so that ``help()`` and the API reference list each option
# with its meaning, allowed values and this face's default without restating them by hand.
ARGS_MARKER = "<the options: rendered from optuna_treeucb.core.OPTIONS at import>"

_SAME: Any = object()  # an option whose default is the same on every face
Kind = Literal["int", "float", "str"]
Closed = Literal["both", "left", "right", "neither"]


@dataclass(frozen=True)
class Option:
    """One option: its constraint, default and meaning.

    Attributes:
        name, kind, default: Keyword of ``TreeUCB``; ``"int"``, ``"float"`` (ints accepted)
            or ``"str"`` (one of ``choices``); the core's default.
        doc: What the option does and when to change it, one line of Markdown.
        applies: When it has an effect: ``"always"`` or a condition such as ``rule="refit"``.
        low, high, closed: Bounds of a number (``None``: unbounded), which of them belong to
            the range; ``none``: ``None`` is allowed too.
        former_names: Names the option had before, which ``TreeUCB`` and ``TreeUCBSearch``
            still take, with a ``FutureWarning`` (:func:`accept_former_names`).
        core_only: The wrappers set it themselves (from the study or ``mode``).
        wrapper_default: The wrappers' default, when it differs from the core's.
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
    former_names: tuple[str, ...] = ()
    core_only: bool = False
    wrapper_default: Any = _SAME

    def default_of(self, wrapper: bool) -> Any:
        """The default of the core (``wrapper=False``) or of the sampler and the searcher."""
        if wrapper and self.wrapper_default is not _SAME:
            return self.wrapper_default
        return self.default

    def allowed(self) -> str:
        """What is allowed, in words: ``"a float in (0, 1) or None"``."""
        if self.kind == "str":
            text = f"one of {list(self.choices)!r}"
        else:
            text = ("an int" if self.kind == "int" else "a float") + self._range()
        return text + (" or None" if self.none else "")

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
        """``value`` as a plain int, float, str or None; errors name ``owner`` and ``key``."""
        if value is None and self.none:
            return None
        message = f"The {key!r} parameter of {owner} must be {self.allowed()}. Got {value!r}"
        if not self._has_type(value):
            raise TypeError(f"{message} ({type(value).__name__}) instead.")
        if self.kind == "str":
            if value not in self.choices:
                raise ValueError(f"{message} instead.{_did_you_mean(value, self.choices)}")
            return value
        number = int(value) if self.kind == "int" else _as_float(value)
        if not self._in_range(number):
            raise ValueError(f"{message} instead.")
        return number

    def _has_type(self, value: Any) -> bool:
        if self.kind == "str":
            return isinstance(value, str)
        number = numbers.Integral if self.kind == "int" else numbers.Real
        return isinstance(value, number) and not isinstance(value, (bool, np.bool_))

    def _in_range(self, v: float) -> bool:
        if isinstance(v, float) and not math.isfinite(v):
            return False
        lo_in = self.closed in ("both", "left")
        hi_in = self.closed in ("both", "right")
        if self.low is not None and not (v >= self.low if lo_in else v > self.low):
            return False
        return self.high is None or (v <= self.high if hi_in else v < self.high)


def _did_you_mean(given: str, known: Sequence[str]) -> str:
    """`` Did you mean 'x'?`` for the ``known`` name closest to ``given``, or ``""``; case,
    hyphens and spaces are ignored (``'Soft-GP'`` is close to ``'soft_gp'``)."""

    def key(name: str) -> str:
        return name.lower().replace("-", "_").replace(" ", "_")

    by_key = {key(name): name for name in known}
    close = difflib.get_close_matches(key(given), list(by_key), n=1)
    return f" Did you mean {by_key[close[0]]!r}?" if close else ""


def fresh_seed() -> int:
    """A random seed in the range every seed of the package is checked against (32 bits)."""
    return int(np.random.SeedSequence().generate_state(1)[0])


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except OverflowError:  # an int beyond the range of a double
        return math.inf if value > 0 else -math.inf


def _fmt(bound: float) -> str:
    if bound == SEED_LIMIT:
        return "2**32"
    return repr(int(bound)) if float(bound).is_integer() else repr(bound)


_TRUST = 'sampling="trust_region" or sampling="local_gp"'
_OPTIONS = (
    Option(
        "seed",
        "int",
        None,
        doc="Seed of the random draws; set it for reproducible runs.",
        low=0,
        high=SEED_LIMIT,
        closed="left",
        none=True,
    ),
    Option(
        "direction",
        "str",
        "maximize",
        doc="Whether the told values are maximized or minimized: pass `minimize` for losses, "
        "or a list with one per objective for several objectives (the wrappers take it from "
        "the study or from `mode`). A list of one is the same as its string: the attribute "
        "`direction` holds the string with one objective, a tuple with several.",
        choices=get_args(Direction),
        core_only=True,
    ),
    Option(
        "rule",
        "str",
        "refit",
        doc="Tree rule: the paper's CART refitted on all data, or a nested partition grown "
        "online. Choose `incremental` when you need the regret theorem's conditions (with "
        '`sampling="uniform"`) or a cost per trial that stays flat over long runs.',
        choices=get_args(Rule),
    ),
    Option(
        "index",
        "str",
        "hoeffding",
        doc="Index of a box: `m + C sqrt(4 log t / n) + M D`, or the posterior of a GP with "
        "the paper's soft tree kernel. Try `soft_gp` on smooth objectives of a few "
        "dimensions, where it shares information between neighbouring boxes; as a bandit "
        '(`sampling="uniform"`), `soft_gp` with `M=0.3` cut cumulative regret by 16% on '
        "the bandit suite, at about 3x the time per round.",
        choices=get_args(Index),
    ),
    Option(
        "C",
        "float",
        0.01,
        doc="Weight of the confidence bonus; raise it when the objective is noisy or has "
        "many local optima, to explore more.",
        low=0.0,
    ),
    Option(
        "M",
        "float",
        0.1,
        doc="Weight of the box-diameter (Lipschitz) term `D`; raise it for an objective that "
        "changes fast, so that large unexplored boxes are tried first.",
        low=0.0,
    ),
    Option(
        "n_startup_trials",
        "int",
        10,
        doc="Observations drawn uniformly at random before the tree is used; raise it for "
        "many parameters or a rugged objective, lower it for a small budget.",
        low=0,
        former_names=("n_startup",),
    ),
    Option(
        "pruned",
        "str",
        "last_value",
        doc="How observations stopped early (pruned trials, trials a scheduler stopped) "
        "count: by their last value as if final, or with the budget as a context dimension "
        "of the tree, new points played at the full budget. Choose `context` when a pruner "
        'or scheduler stops many trials early; see "Pruning and schedulers".',
        choices=get_args(PrunedRule),
    ),
    Option(
        "max_budget",
        "float",
        None,
        doc='The full budget of `pruned="context"`, in steps (e.g. the pruner\'s '
        "`max_resource`, the scheduler's `max_t`): a step `b` is the context "
        "`log(1 + b) / log(1 + max_budget)`. Set it whenever you know it (None: the "
        "largest step told).",
        applies='pruned="context"',
        low=0.0,
        closed="neither",
        none=True,
    ),
    Option(
        "sampling",
        "str",
        "uniform",
        doc="Where the point goes inside the played box: uniformly (the paper's Algorithm 1, "
        "the bandit that minimises cumulative regret), uniformly in a TuRBO trust region "
        "around the box's best observation, or by Thompson sampling of a local GP in that "
        "region. For optimisation (the best value found) use `local_gp`, the wrappers' "
        'default; `trust_region` costs less per trial. With `index="soft_gp"` the index '
        "scores the region's candidates, so `local_gp` draws as `trust_region`.",
        choices=get_args(Sampling),
        wrapper_default="local_gp",
    ),
    Option(
        "discrete",
        "str",
        "box",
        doc="Discrete parameters in the trust region: they keep the played box's range, or "
        "an int or stepped float shrinks with the region and a categorical is redrawn with "
        "a probability that shrinks with it (the local GP then sees categoricals one-hot). "
        "Try `region` on spaces with many integer or categorical parameters.",
        applies=_TRUST,
        choices=get_args(Discrete),
    ),
)

OPTIONS: Mapping[str, Option] = MappingProxyType({o.name: o for o in _OPTIONS})
"""Every option of :class:`~optuna_treeucb.core.TreeUCB`, by name, in the table's order."""


def validate_options(
    owner: str, options: Mapping[str, Any], *, wrapper: bool = False
) -> dict[str, Any]:
    """The ``options`` given to ``owner`` (named in every error), checked.

    With ``wrapper`` the options the wrappers set themselves (``direction``) are not taken.
    An option that has no effect warns.  A former name is not taken here: the front doors
    that still take one rename it first (:func:`accept_former_names`).

    Raises:
        TypeError: If an option is unknown or of the wrong type.
        ValueError: If an option is out of range.
    """
    names = {o.name: o for o in OPTIONS.values() if not (wrapper and o.core_only)}
    out: dict[str, Any] = {}
    for key, value in options.items():
        option = names.get(key)
        if option is None:
            raise _unknown(owner, key, list(names))
        out[key] = option.check(owner, key, value)
    for name in ignored_options(out, wrapper=wrapper):
        warnings.warn(
            f"{owner} ignores {name}={out[name]!r}: it has an effect only when "
            f"{OPTIONS[name].applies}. Remove it, or set that option too.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
    return out


def _unknown(owner: str, key: Any, known: list[str]) -> TypeError:
    """The error for an option ``key`` that ``owner`` does not take (``known``: those it
    takes): the closest name, or the option's name when ``key`` is a former one."""
    former = {name: o for o in OPTIONS.values() for name in o.former_names}
    option = former.get(key) if isinstance(key, str) else None
    if option is not None and option.name in known:  # e.g. TreeUCBSampler(n_startup=5)
        hint = (
            f" {owner} takes it as {option.name!r}; {key!r} is its former name (deprecated in "
            "TreeUCB and TreeUCBSearch, never taken by TreeUCBSampler)."
        )
    else:
        hint = _did_you_mean(str(key), known)
    return TypeError(f"{owner} got an unexpected option {key!r}.{hint} The options are {known!r}.")


_F = TypeVar("_F", bound=Callable[..., Any])

# the folders of this distribution's packages (the core's parent holds optuna_treeucb; its
# sibling ray_treeucb is named as a path only: the core imports no face)
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_OWN_DIRS = tuple(os.path.join(_ROOT, name) + os.sep for name in ("optuna_treeucb", "ray_treeucb"))


def user_stacklevel() -> int:
    """The ``stacklevel`` of ``warnings.warn`` that points the warning at the user's line: the
    first caller outside these packages, however many layers (face, core, decorator) lie
    between (Python 3.12's ``skip_file_prefixes``, for 3.11).  Call it in the function that
    warns."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_OWN_DIRS):
        frame = frame.f_back
        level += 1
    return level


def accept_former_names(owner: str) -> Callable[[_F], _F]:
    """Decorator of ``owner``'s ``__init__``: an option given by a former name (``n_startup``)
    is passed on by its name (``n_startup_trials``) after a ``FutureWarning`` that names it,
    as Optuna keeps a renamed argument working for a while.

    Raises:
        TypeError: If both names of an option are given, or the value has the wrong type.
        ValueError: If the value is out of range (the errors name the former name given).
    """
    renamed = {name: o for o in OPTIONS.values() for name in o.former_names}

    def decorate(init: _F) -> _F:
        @functools.wraps(init)
        def renaming(*args: Any, **kwargs: Any) -> Any:
            for former in [key for key in kwargs if key in renamed]:
                option = renamed[former]
                if option.name in kwargs:
                    raise TypeError(
                        f"{owner} got both {option.name!r} and {former!r}, which name the same "
                        f"option ({former!r} is its former name, deprecated). Give only "
                        f"{option.name!r}."
                    )
                value = option.check(owner, former, kwargs.pop(former))
                warnings.warn(
                    f"The {former!r} parameter of {owner} is deprecated and will be removed in "
                    f"a future version: it was renamed {option.name!r}. Pass "
                    f"{option.name}={value!r} instead.",
                    FutureWarning,
                    stacklevel=user_stacklevel(),
                )
                kwargs[option.name] = value
            return init(*args, **kwargs)

        return cast(_F, renaming)

    return decorate


def _has_effect(option: Option, options: Mapping[str, Any]) -> bool:
    """Whether ``option`` has an effect under ``options`` (core names, defaults filled in);
    ``option.applies`` is ``"always"`` or clauses ``name="value"`` joined by ``" or "``."""
    if option.applies == "always":
        return True
    clauses = (clause.partition("=") for clause in option.applies.split(" or "))
    return any(options.get(name) == value.strip('"') for name, _, value in clauses)


def face_defaults(*, wrapper: bool) -> dict[str, Any]:
    """Every option's default on a face, by the core's names (the wrappers pass them on)."""
    return {name: o.default_of(wrapper) for name, o in OPTIONS.items() if not o.core_only}


def ignored_options(options: Mapping[str, Any], *, wrapper: bool = False) -> list[str]:
    """The validated ``options`` set off their default that have no effect, in table order."""
    full = face_defaults(wrapper=wrapper) | dict(options)
    return [
        name
        for name, option in OPTIONS.items()
        if name in options
        and options[name] != option.default_of(wrapper)
        and not _has_effect(option, full)
    ]


def face_options(owner: str, given: Mapping[str, Any]) -> tuple[dict[str, Any], int | None]:
    """A face's keyword options as the core takes them, and the seed given (``None``: none).

    The one intake of both faces: :func:`validate_options` for a wrapper (errors name
    ``owner``), the options without effect dropped (they warned), then the wrappers'
    defaults for the others.

    Returns:
        The core's options, ``seed`` excluded, and the seed.
    """
    options = validate_options(owner, given, wrapper=True)
    for name in ignored_options(options, wrapper=True):  # warned about: not passed on
        del options[name]
    merged = {**face_defaults(wrapper=True), **options}
    seed = merged.pop("seed")
    return merged, seed


def options_table() -> str:
    """The options as a Markdown table (``python -m optuna_treeucb.core`` prints it)."""
    rows = [
        "| option | default | allowed values | applies when | what it does |",
        "|---|---|---|---|---|",
    ]
    for o in OPTIONS.values():
        notes = [f"formerly `{former}`, deprecated" for former in o.former_names]
        notes += ["`TreeUCB` only"] if o.core_only else []
        name = f"`{o.name}`" + (f" ({'; '.join(notes)})" if notes else "")
        applies = "always" if o.applies == "always" else f"`{o.applies}`"
        default = f"`{o.default!r}`"
        if o.default_of(True) != o.default:
            default += f" (`TreeUCB`), `{o.default_of(True)!r}` (sampler, searcher)"
        rows.append(f"| {name} | {default} | {o.allowed()} | {applies} | {o.doc} |")
    return "\n".join(rows) + "\n"


def _rst(markdown: str) -> str:
    """A line of the options' Markdown as reStructuredText: `code` becomes ``code``."""
    return re.sub(r"(?<!`)`([^`]+)`(?!`)", r"``\1``", markdown)


def _allowed_rst(option: Option) -> str:
    if option.kind == "str":
        text = "one of " + ", ".join(f"``{c!r}``" for c in option.choices)
        return text + (" or ``None``" if option.none else "")
    return option.allowed().replace("2**32", "``2**32``").replace("None", "``None``")


FaceName = Literal["TreeUCB", "TreeUCBSampler", "TreeUCBSearch"]


def option_args(
    face: FaceName, extra: Mapping[str, str] | None = None, *, former_names: bool = True
) -> list[str]:
    """The ``Args:`` entries of the options of ``face``: a name line, then the indented text;
    ``extra``: the face's own sentences, by option name; ``former_names``: whether ``face``
    still takes the options' former names (deprecated)."""
    wrapper = face != "TreeUCB"
    lines: list[str] = []
    for o in OPTIONS.values():
        if wrapper and o.core_only:
            continue
        text = [_rst(o.doc), *([extra[o.name]] if extra and o.name in extra else [])]
        if o.applies != "always":
            text.append(f"It has an effect only when ``{o.applies}``.")
        text.append(f"Allowed: {_allowed_rst(o)}; default: ``{o.default_of(wrapper)!r}``.")
        if former_names:
            text += [f"``{former}`` is its former name, deprecated." for former in o.former_names]
        lines.append(f"{o.name}:")
        lines += textwrap.wrap(" ".join(text), 84, initial_indent="    ", subsequent_indent="    ")
    return lines


_Documented = Any  # a class whose docstring holds ARGS_MARKER


def document_options(
    face: FaceName, extra: Mapping[str, str] | None = None, *, former_names: bool = True
) -> Callable[[_Documented], _Documented]:
    """Class decorator: replace the :data:`ARGS_MARKER` line of the docstring by
    :func:`option_args` at the marker's indentation (a docstring stripped by ``-OO`` stays
    ``None``)."""

    def decorate(cls: _Documented) -> _Documented:
        doc = cls.__doc__
        if doc is None:
            return cls
        match = re.search(rf"^( *){re.escape(ARGS_MARKER)}$", doc, flags=re.M)
        assert match is not None, f"{cls.__name__}'s docstring lacks the options marker"
        indent = match.group(1)
        args = option_args(face, extra, former_names=former_names)
        entries = "\n".join(indent + line for line in args)
        cls.__doc__ = doc[: match.start()] + entries + doc[match.end() :]
        return cls

    return decorate


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


def as_directions(direction: Any, owner: str = "TreeUCB") -> tuple[Direction, ...]:
    """``direction`` as one direction per objective: a string is one objective, a sequence
    one per objective (ValueError/TypeError naming ``owner`` and the parameter)."""
    option = OPTIONS["direction"]
    if isinstance(direction, str) or not isinstance(direction, Sequence):
        return (option.check(owner, "direction", direction),)
    if len(direction) == 0:
        raise ValueError(
            f"The 'direction' parameter of {owner} must be 'maximize', 'minimize' or a "
            f"non-empty sequence of them, one per objective. Got {direction!r} instead."
        )
    return tuple(option.check(owner, "direction", d) for d in direction)


def signs(direction: Any) -> np.ndarray:
    """One sign per objective, shape (k,): +1 to maximise, -1 to minimise (a value times its
    sign is larger when better), the one place the direction becomes a sign."""
    return np.array([1.0 if d == "maximize" else -1.0 for d in as_directions(direction)])
