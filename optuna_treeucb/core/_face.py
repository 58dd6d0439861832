"""The contract between the core and its faces, the wrappers ``TreeUCBSampler`` (Optuna) and
``TreeUCBSearch`` (Ray Tune).

A face translates: it turns its framework's objects into the core's arrays and options once and
hands them to :class:`~optuna_treeucb.core.TreeUCB`.  The rules both faces need live here once:
the intake of their keyword options (checked, the ignored ones dropped, the faces' defaults
merged), the rendering of those options in their docstrings, their seeds, and which results
count as observations (NaN values and unreadable constraints do not).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any
from typing import Literal
from typing import TypeVar

from optuna_treeucb.core._observations import Result
from optuna_treeucb.core._observations import read_result
from optuna_treeucb.core._options import accept_former_names
from optuna_treeucb.core._options import document_options
from optuna_treeucb.core._options import face_defaults
from optuna_treeucb.core._options import face_options
from optuna_treeucb.core._options import fresh_seed
from optuna_treeucb.core._options import user_stacklevel

_Class = TypeVar("_Class", bound=type)
_Init = TypeVar("_Init", bound=Callable[..., Any])


class Face:
    """Face contract: what a wrapper of :class:`~optuna_treeucb.core.TreeUCB` takes from the core.

    One instance per wrapper class, made at import.  It is the one intake of the wrapper's
    keyword options (:meth:`options`), renders them in the wrapper's docstring
    (:meth:`document`), keeps their former names working for a while
    (:meth:`accept_former_names`) and makes its seeds (:meth:`fresh_seed`), so that both
    wrappers accept, reject, default and document every option of
    :data:`~optuna_treeucb.core.OPTIONS` alike, and reads its results (:meth:`result`) by the
    core's rule.

    Args:
        name:
            The wrapper's class name, which every error about its options names.
        notes:
            The wrapper's own sentences on some options, by the core's option names, added to
            their entries in its docstring.
        former_names:
            Whether the wrapper still takes the options' former names, deprecated (Ray's
            ``n_startup`` for ``n_startup_trials``); ``TreeUCBSampler`` never took them.
    """

    def __init__(
        self,
        name: Literal["TreeUCBSampler", "TreeUCBSearch"],
        notes: Mapping[str, str] | None = None,
        *,
        former_names: bool = True,
    ) -> None:
        self.name = name
        self.notes = dict(notes or {})
        self.former_names = former_names

    @property
    def defaults(self) -> dict[str, Any]:
        """Every option's default on the wrappers, by the core's names (``seed`` included)."""
        return face_defaults(wrapper=True)

    def document(self, cls: _Class) -> _Class:
        """Class decorator: render the options into the ``Args:`` section of ``cls``'s
        docstring, at its marker line, with this wrapper's defaults and notes."""
        document = document_options(self.name, self.notes, former_names=self.former_names)
        decorated: _Class = document(cls)
        return decorated

    def accept_former_names(self, init: _Init) -> _Init:
        """Decorator of the wrapper's ``__init__``: with ``former_names``, an option given by
        its former name (``n_startup``) is passed on by its name (``n_startup_trials``) after
        a ``FutureWarning``; both names given raise a TypeError naming both.  Without
        ``former_names``, ``init`` unchanged (a former name is then an unknown option)."""
        if not self.former_names:
            return init
        renaming: _Init = accept_former_names(self.name)(init)
        return renaming

    def options(self, given: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
        """The wrapper's keyword options as :class:`~optuna_treeucb.core.TreeUCB` takes them,
        and the seed of its draws.

        Args:
            given: The options the user passed, by the wrapper's names (``seed`` among them).

        Returns:
            Every option but ``seed``, by the core's names: those given (checked, the ones
            without effect dropped after a warning), the wrappers' defaults for the others.
            And the seed given, or a fresh one when it is ``None``.

        Raises:
            TypeError: If an option is unknown (naming the closest one, or the option's name
                for a former one) or of the wrong type.
            ValueError: If an option is out of range.
        """
        options, seed = face_options(self.name, given)
        return options, fresh_seed() if seed is None else seed

    @staticmethod
    def warn(message: str, category: type[Warning] = UserWarning) -> None:
        """Warn ``message``, pointed at the user's line: the first caller outside these
        packages, as the options' own warnings are."""
        warnings.warn(message, category, stacklevel=user_stacklevel())

    @staticmethod
    def fresh_seed() -> int:
        """A fresh random seed, in the range every seed of the package is checked against; a
        wrapper replaces its seed by one when asked to reseed (Optuna's ``reseed_rng``)."""
        return fresh_seed()

    @staticmethod
    def result(values: Sequence[float | None], constraints: Sequence[float | None] = ()) -> Result:
        """A result as the core counts it, by the one rule of the core's ``tell``: an
        evaluation with a NaN value is not an observation, nor is one whose constraint values
        cannot be read, and its total violation is the sum of the positive parts of its
        constraint values.

        Args:
            values: One per objective, ``None`` for a value missing or not a number (what a
                number is, and the warning for a result dropped, are the wrapper's).
            constraints: Its constraint values (any number of them), ``None`` likewise.

        Returns:
            ``(values, constraints, violation)``: the values as floats or ``None`` (not an
            observation), the constraint values or ``None`` (unreadable: not an observation),
            the total violation (NaN when unreadable).
        """
        return read_result(values, constraints)
