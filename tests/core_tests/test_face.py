"""The face contract (``core.Face``): the wrappers' option intake, seeds and result reading."""

from __future__ import annotations

import math

import pytest

from optuna_treeucb.core import OPTIONS
from optuna_treeucb.core import Face
from optuna_treeucb.core._options import SEED_LIMIT
from optuna_treeucb.core._options import face_defaults


def test_options_are_the_cores_names_with_the_faces_defaults_and_a_seed() -> None:
    options, seed = Face("TreeUCBSearch").options({"seed": 3, "n_startup_trials": 4})
    expected = face_defaults(wrapper=True) | {"n_startup_trials": 4}
    del expected["seed"]
    assert seed == 3 and options == expected
    _, fresh = Face("TreeUCBSearch").options({})
    assert isinstance(fresh, int) and 0 <= fresh < SEED_LIMIT  # None: a fresh seed
    assert 0 <= Face.fresh_seed() < SEED_LIMIT


def test_options_errors_name_the_face_and_the_closest_option() -> None:
    with pytest.raises(TypeError, match="TreeUCBSampler got an unexpected option 'n_startup'"):
        Face("TreeUCBSampler", former_names=False).options({"n_startup": 4})
    with pytest.raises(ValueError, match="'C' parameter of TreeUCBSearch must be a float >= 0"):
        Face("TreeUCBSearch").options({"C": -1.0})


def test_document_renders_every_face_option_with_the_faces_notes() -> None:
    class Wrapper:
        """Summary.

        Args:
            <the options: rendered from optuna_treeucb.core.OPTIONS at import>
        """

    face = Face("TreeUCBSampler", {"C": "A note of the face."}, former_names=False)
    doc = face.document(Wrapper).__doc__
    assert doc is not None and "A note of the face." in doc
    for option in OPTIONS.values():
        assert (f"{option.name}:" in doc) != option.core_only, option.name
    assert "former name" not in doc  # the sampler never took them


def test_accept_former_names_renames_with_a_future_warning_only_where_asked() -> None:
    def init(**kwargs: object) -> dict[str, object]:
        return kwargs

    renaming = Face("TreeUCBSearch").accept_former_names(init)
    with pytest.warns(FutureWarning, match="'n_startup' parameter of TreeUCBSearch is deprec"):
        assert renaming(n_startup=3, C=0.5) == {"n_startup_trials": 3, "C": 0.5}
    with pytest.raises(TypeError, match="TreeUCBSearch got both 'n_startup_trials' and 'n_st"):
        renaming(n_startup=3, n_startup_trials=3)
    assert Face("TreeUCBSampler", former_names=False).accept_former_names(init) is init


@pytest.mark.parametrize(
    ("values", "constraints", "expected"),
    [
        ([1.0], (), ((1.0,), (), 0.0)),
        ([math.inf, -2], [0.5, -1.0, 2.0], ((math.inf, -2.0), (0.5, -1.0, 2.0), 2.5)),
        ([math.nan], [1.0], (None, (1.0,), 1.0)),  # a NaN value: not an observation
        ([None, 1.0], (), (None, (), 0.0)),  # missing or not a number
    ],
)
def test_result_drops_nan_values_and_sums_the_positive_constraint_values(
    values: list[float | None], constraints: list[float], expected: tuple[object, ...]
) -> None:
    assert tuple(Face.result(values, constraints)) == expected


@pytest.mark.parametrize("constraints", [[math.nan], [None, 0.0]])
def test_result_with_unreadable_constraints_is_not_an_observation(
    constraints: list[float | None],
) -> None:
    result = Face.result([1.0], constraints)
    assert result.constraints is None and math.isnan(result.violation)
