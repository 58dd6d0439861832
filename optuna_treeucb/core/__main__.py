"""Print the options table (Markdown), or ``--write FILE`` it between the marker comments of
a Markdown file.  The docstrings' ``Args:`` sections are rendered from the same declaration,
:data:`~optuna_treeucb.core.OPTIONS`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from optuna_treeucb.core._options import options_table
from optuna_treeucb.core._options import splice_table


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m optuna_treeucb.core",
        description="Print TreeUCB's options table (Markdown), or write it between its markers.",
    )
    parser.add_argument(
        "--write",
        metavar="FILE",
        help="a Markdown file holding the marker comments, whose table is replaced",
    )
    args = parser.parse_args(argv)
    if args.write is None:
        print(options_table(), end="")
        return
    path = Path(args.write)
    path.write_text(splice_table(path.read_text()))


if __name__ == "__main__":
    main()
