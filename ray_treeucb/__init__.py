"""TreeUCB (Wang et al., arXiv:1901.09277) as a Ray Tune searcher.

Importing this package needs only the core's dependencies; Ray Tune is imported when
``TreeUCBSearch`` is first used, and a missing Ray then raises an ``ImportError`` that names
``pip install 'optuna-treeucb[ray]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

if TYPE_CHECKING:
    from ray_treeucb._search import TreeUCBSearch

__all__ = ["TreeUCBSearch"]


def __getattr__(name: str) -> Any:
    if name == "TreeUCBSearch":
        from ray_treeucb._search import TreeUCBSearch

        return TreeUCBSearch
    raise AttributeError(f"module 'ray_treeucb' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
