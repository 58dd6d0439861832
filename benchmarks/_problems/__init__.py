"""The problem registry of the benchmark commands: every problem by name, in one place
(benchmarks/README.md, Layout and Problems).

A name resolves to its kind and group with :func:`kind_of` and is built for a seed by
:func:`study` (an Optuna objective), :func:`box` (objectives and constraint values in a box) or
:func:`function` (a function on [-5, 5]^d, for the core's ask/tell); :data:`FUNCTIONS` are the
Lipschitz functions of ``bandit`` and ``ablation``. ``--problems`` takes names and the groups
of :data:`GROUPS` (:func:`select`).
"""

from __future__ import annotations

from benchmarks._problems import _functions
from benchmarks._problems._boxes import COCO_BIOBJ_PROBLEMS
from benchmarks._problems._boxes import COCO_CONSTRAINED_PROBLEMS
from benchmarks._problems._boxes import CONSTRAINED_PROBLEMS
from benchmarks._problems._boxes import INFEASIBLE_PROBLEMS
from benchmarks._problems._boxes import MOO_PROBLEMS
from benchmarks._problems._boxes import Box
from benchmarks._problems._boxes import box
from benchmarks._problems._functions import BASE
from benchmarks._problems._functions import FUNCTION_IDS
from benchmarks._problems._functions import FUNCTIONS
from benchmarks._problems._functions import BanditProblem
from benchmarks._problems._functions import bbob_name
from benchmarks._problems._studies import BRANCHES
from benchmarks._problems._studies import CONDITIONAL_PROBLEMS
from benchmarks._problems._studies import MIXINT_PROBLEMS
from benchmarks._problems._studies import SKLEARN_TASKS
from benchmarks._problems._studies import Study
from benchmarks._problems._studies import function

__all__ = [
    "BRANCHES",
    "FUNCTIONS",
    "FUNCTION_IDS",
    "BanditProblem",
    "Box",
    "Study",
    "bbob_name",
    "box",
    "continuous",
    "function",
    "kind_of",
    "select",
    "study",
]

TUNING_SEED_OFFSET = 1000  # tuning seeds (bandit, ablation) never overlap the report seeds
# the optimisation suite of the ablation and the paired check (and optimize's functions):
# functions x noise, the noisy ones' noise sd 0.1 of the median (see :func:`continuous`)
ABLATION_FUNCTIONS = ("sphere", "ellipsoid", "rosenbrock", "rastrigin", "ackley")
ABLATION_NOISES = (0.0, 0.1)
CONTINUOUS_DIMS = (2, 5, 10)


def continuous(
    dims: tuple[int, ...] = CONTINUOUS_DIMS, names: tuple[str, ...] = ABLATION_FUNCTIONS
) -> list[str]:
    """The BBOB-like problems of ``names`` in ``dims``: per dimension and name, noiseless
    (``sphere-2d``) then noisy (``sphere-2d-noisy``)."""
    return [f"{n}-{d}d{noisy}" for d in dims for n in names for noisy in ("", "-noisy")]


def _bbob_groups() -> dict[str, list[str]]:
    groups = {}
    for group, dims in [
        ("bbob", _functions.DIMS),
        *((f"bbob-{d}d", (d,)) for d in _functions.DIMS),
    ]:
        names = _functions.problem_names(dims)
        groups[group] = names
        groups[f"{group}-noisy"] = [n for n in names if n.endswith("noisy")]
        groups[f"{group}-noiseless"] = [n for n in names if not n.endswith("noisy")]
    return groups


GROUPS: dict[str, list[str]] = {
    **_bbob_groups(),
    "mixint": list(MIXINT_PROBLEMS),
    "conditional": list(CONDITIONAL_PROBLEMS),
    "bbob-biobj": list(COCO_BIOBJ_PROBLEMS),
    "bbob-constrained": list(COCO_CONSTRAINED_PROBLEMS),
}
BOXES = (*MOO_PROBLEMS, *CONSTRAINED_PROBLEMS, *INFEASIBLE_PROBLEMS)
BOXES += (*COCO_BIOBJ_PROBLEMS, *COCO_CONSTRAINED_PROBLEMS)


def kind_of(name: str) -> tuple[str, str] | None:
    """``(kind, group)`` of a problem name, ``None`` for an unknown name.  Kinds: ``box``
    (:func:`box`), and the Optuna problems of :func:`study`: ``function`` (BBOB-like and BBOB
    functions), ``mixed``, ``sklearn``, ``mixint``, ``branch``, ``pipe``."""
    parts = name.split("-")
    if name in BOXES:
        return (
            "box",
            "moo" if name in MOO_PROBLEMS or name in COCO_BIOBJ_PROBLEMS else "constrained",
        )
    if name in SKLEARN_TASKS:
        return "sklearn", "sklearn"
    if name in MIXINT_PROBLEMS:
        return "mixint", "mixint"
    if name in CONDITIONAL_PROBLEMS:
        return ("branch" if name in BRANCHES else "pipe"), "conditional"
    if name in _functions.problem_names():
        return "function", "bbob-noisy" if name.endswith("-noisy") else f"bbob-{parts[2]}"
    dims = parts[-1] if parts[-1] != "noisy" else parts[-2]
    if not (dims.endswith("d") and dims[:-1].isdigit()):
        return None
    if len(parts) == 3 and parts[0] == "mixed" and parts[1] in BASE:
        return "mixed", "mixed"
    if parts[0] in BASE and int(dims[:-1]) in CONTINUOUS_DIMS and len(parts) in (2, 3):
        if len(parts) == 2 or parts[2] == "noisy":
            return "function", "continuous" + ("-noisy" if len(parts) == 3 else "")
    return None


def study(name: str, seed: int) -> Study:
    """The Optuna problem ``name`` for ``seed`` (the instance of a synthetic or COCO problem)."""
    from benchmarks._problems import _studies

    found = kind_of(name)
    if found is None or found[0] == "box":
        raise ValueError(f"Unknown Optuna problem {name!r}.")
    s = Study(name, found[1], best_branch="best" if found[0] == "branch" else None)
    s.objective = getattr(_studies, "_" + found[0])(s, seed)
    return s


def select(text: str, *, kinds: tuple[str, ...] | None = None) -> list[str]:
    """The problems of ``--problems`` (comma-separated names and groups, of ``kinds`` only if
    given); an unknown name exits with a message."""
    out: list[str] = []
    for name in filter(None, text.split(",")):
        for n in GROUPS.get(name, [name]):
            found = kind_of(n)
            if found is None or (kinds is not None and found[0] not in kinds):
                raise SystemExit(f"Unknown problem {name!r}.")
            out.append(n)
    return out
