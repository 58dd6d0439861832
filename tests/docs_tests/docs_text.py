"""The README and the user guide as the docs tests read them: code blocks and quoted figures.

The README is Markdown; the user guide (``docs/guide/*.rst``) is reStructuredText, and links
each results file as ``../../benchmarks/results/<file>.md``.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
GUIDE = {
    f"docs/guide/{p.name}": p.read_text() for p in sorted((ROOT / "docs" / "guide").glob("*.rst"))
}
_RST_BLOCK = re.compile(r"^\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)", flags=re.M)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_LINK = {
    "md": re.compile(r"\[[^]]*\]\(((?:benchmarks/results|docs)/[\w.]+\.md)\)"),
    "rst": re.compile(r"`[^`<]*<\.\./\.\./((?:benchmarks/results|docs)/[\w.]+\.md)>`__"),
}


def python_blocks(name: str, text: str) -> list[str]:
    """The python code blocks of a README (fenced) or a guide page (``code-block``)."""
    if name.endswith(".md"):
        return re.findall(r"```python\n(.*?)```", text, flags=re.S)
    return [textwrap.dedent(b).strip("\n") + "\n" for b in _RST_BLOCK.findall(text)]


def all_python_blocks() -> list[tuple[str, int, str]]:
    """(file, index in the file, code) of every python block of the README and the guide."""
    texts = {"README.md": README, **GUIDE}
    return [(n, i, b) for n, t in texts.items() for i, b in enumerate(python_blocks(n, t))]


def prose(name: str, text: str) -> str:
    """``text`` without its code blocks."""
    if name.endswith(".md"):
        return re.sub(r"```.*?```", "", text, flags=re.S)
    return _RST_BLOCK.sub("", text)


def claims(name: str, text: str) -> list[tuple[str, list[str]]]:
    """Each paragraph, list item or table row of ``text`` that links a results file, with the
    files it links (paths from the repository root)."""
    kind = "md" if name.endswith(".md") else "rst"
    units: list[str] = []
    for paragraph in re.split(r"\n\s*\n", prose(name, text)):
        current: list[str] = []
        for line in paragraph.splitlines():
            if re.match(r"\s*(?:[-*] |\|)", line) and current:
                units.append("\n".join(current))
                current = []
            current.append(line)
        units.append("\n".join(current))
    found = []
    for unit in units:
        files = _LINK[kind].findall(unit)
        if files:
            found.append((unit, files))
    return found


def numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def quoted_numbers(name: str, unit: str) -> list[str]:
    """The numbers a claim quotes: not those of link targets, options or code."""
    unit = _LINK["md" if name.endswith(".md") else "rst"].sub("", unit)  # link and file name
    unit = re.sub(r"``[^`]*``|`[^`]*`", "", unit)  # inline code: options, names, formulas
    unit = re.sub(r"\bof (?:[2-9]|1[0-2])\b", "of", unit)  # "rank 1.81 of 3": rows of a table
    return [n.replace(",", "") for n in _NUMBER.findall(unit)]
