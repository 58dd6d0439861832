"""Bad values of an option, derived from its declaration, for the tests of every face."""

from __future__ import annotations

import math
from typing import Any

from optuna_treeucb.core import Option


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
