"""``python -m benchmarks {bandit,ablation,optimize,overhead,paired,inbox} [--quick] ...``."""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "bandit": "benchmarks.bandit",
    "ablation": "benchmarks.ablation",
    "optimize": "benchmarks.optimize",
    "overhead": "benchmarks.overhead",
    "paired": "benchmarks.paired",
    "inbox": "benchmarks.inbox",
}


def main(argv: list[str] | None = None) -> None:
    """Dispatch to one benchmark's ``main``."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in COMMANDS:
        print(__doc__)
        print("Each command takes --quick (minutes) or runs its full mode; see --help.")
        raise SystemExit(2)
    importlib.import_module(COMMANDS[args[0]]).main(args[1:])


if __name__ == "__main__":
    main()
