"""``python -m benchmarks COMMAND [--quick] [--out DIR] ...``.

Commands: bandit, ablation, optimize, overhead, paired, memory, core_cost, fidelity, scale, inbox,
ray_compare, async, bagging, moo, constrained.

Results go to ``--out DIR`` (a scratch folder unless given; ``--out benchmarks/results``
updates the committed ones).
"""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "bandit": "benchmarks.bandit",
    "ablation": "benchmarks.ablation",
    "optimize": "benchmarks.optimize",
    "overhead": "benchmarks.overhead",
    "paired": "benchmarks.paired",
    "memory": "benchmarks.memory",
    "core_cost": "benchmarks.core_cost",
    "fidelity": "benchmarks.fidelity",
    "scale": "benchmarks.scale",
    "inbox": "benchmarks.inbox",
    "ray_compare": "benchmarks.ray_compare",
    "async": "benchmarks.asynchronous",
    "bagging": "benchmarks.bagging",
    "moo": "benchmarks.moo",
    "constrained": "benchmarks.constrained",
}


def main(argv: list[str] | None = None) -> None:
    """Dispatch to one benchmark's ``main``."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in COMMANDS:
        print(__doc__)
        print("Each command takes --quick (minutes) or runs its full mode, and --out; see --help.")
        raise SystemExit(2)
    importlib.import_module(COMMANDS[args[0]]).main(args[1:])


if __name__ == "__main__":
    main()
