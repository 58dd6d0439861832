"""``python -m benchmarks COMMAND [--quick] [--out DIR] ...``: the benchmark commands.

Results go to ``--out DIR`` (a scratch folder unless given; ``--out benchmarks/results``
updates the committed ones). ``python -m benchmarks COMMAND --help`` describes a command.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from benchmarks._harness import plain

COMMANDS = {
    "bandit": "benchmarks.bandit",
    "ablation": "benchmarks.ablation",
    "optimize": "benchmarks.optimize",
    "paired": "benchmarks.inbox:main_paired",
    "inbox": "benchmarks.inbox",
    "async": "benchmarks.asynchronous",
    "fidelity": "benchmarks.fidelity",
    "ray_compare": "benchmarks.ray_compare",
    "overhead": "benchmarks.overhead",
    "core_cost": "benchmarks.core_cost",
    "scale": "benchmarks.scale",
    "memory": "benchmarks.memory",
    "dims": "benchmarks.dims",
    "mixed": "benchmarks.optimize:main_mixed",
    "moo": "benchmarks.moo",
    "constrained": "benchmarks.moo:main_constrained",
    "mixed_ray": "benchmarks.mixed_ray",
    "changing_spaces": "benchmarks.changing_spaces",
}


def _first_sentence(text: str) -> str:
    """The first sentence of the first paragraph, on one line (a summary may span lines)."""
    paragraph = " ".join(text.split("\n\n")[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[: end + 1]


def usage() -> str:
    """The top-level help: what the entry point does and one line per command."""
    width = max(map(len, COMMANDS))
    lines = [
        "usage: python -m benchmarks COMMAND [--quick] [--out DIR] [options]",
        "",
        plain(__doc__ or "").split("\n", 1)[1].strip(),
        "",
        "commands:",
    ]
    for command in COMMANDS:
        fn = _main(command)
        doc = (
            fn.__doc__ if fn.__name__ != "main" else importlib.import_module(fn.__module__).__doc__
        )
        lines.append(f"  {command:<{width}}  {_first_sentence(plain(doc or ''))}")
    return "\n".join(lines)


def _main(command: str) -> Callable[[list[str]], None]:
    """The function of a command: ``module:function``, or ``module``'s ``main`` (whose
    summary is the module docstring's; another function's is its own)."""
    module, _, name = COMMANDS[command].partition(":")
    return getattr(importlib.import_module(module), name or "main")  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> None:
    """Dispatch to one benchmark's ``main``."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["-h"], ["--help"]):
        print(usage())
        return
    if not args or args[0] not in COMMANDS:
        if args:
            print(f"python -m benchmarks: unknown command {args[0]!r}", file=sys.stderr)
        print(usage())
        raise SystemExit(2)
    _main(args[0])(args[1:])


if __name__ == "__main__":
    main()
