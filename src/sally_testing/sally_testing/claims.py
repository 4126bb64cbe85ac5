"""Every "tested" the README, the docs pages and the package READMEs say, with the test that backs it.

A claim is a paragraph or list item that says ``tested`` (or "a test checks/keeps/runs/fails"). It is
backed when the same paragraph names a test that exists: ``test_x.py`` (a test file of this
repository), ``test_x.py::test_y`` (that test in that file) or a bare ``test_y`` (a test function in
some test file). ``python -m sally_testing.claims [ROOT]`` lists every claim with its tests and ends
with ``claims N untested U``; ``test_claims.py`` holds U at 0. The design notes are history and are
not read.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

CLAIM = re.compile(r"\btested\b|\ba test (?:checks|keeps|runs|fails)\b", re.IGNORECASE)
TEST_REF = re.compile(r"\b(test_\w+\.py)(?:::(test_\w+))?|\b(test_\w+)\b(?!\.py)")
BLOCK_START = re.compile(r"\s*(?:[*-] |\d+\. |\||#)")


@dataclass(frozen=True)
class Claim:
    """One paragraph that says "tested": where it is, its text, the tests it names, which do not exist."""

    page: str
    line: int
    text: str
    tests: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def backed(self) -> bool:
        """Whether it names a test and every test it names exists."""
        return bool(self.tests) and not self.missing


def pages(root: Path) -> list[Path]:
    """The README, every page in docs/ but the design notes, and each package's README."""
    docs = [p for p in sorted((root / "docs").glob("*.md")) if p.name != "design-notes.md"]
    return [root / "README.md", *docs, *sorted(root.glob("src/*/README.md"))]


def test_functions(root: Path) -> dict[str, set[str]]:
    """Each test file's name (``test_x.py``) with the test functions defined in it."""
    found: dict[str, set[str]] = {}
    for path in sorted(root.glob("src/*/test/**/test_*.py")):
        names = set(re.findall(r"^\s*(?:async )?def (test_\w+)", path.read_text(), re.MULTILINE))
        found.setdefault(path.name, set()).update(names)
    return found


def blocks(text: str) -> list[tuple[int, str]]:
    """The paragraphs and list items of a markdown text, each with its first line's number (1-based)."""
    out: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            out.append((number + 1, []))
        elif BLOCK_START.match(line) or not out:
            out.append((number, [line]))
        else:
            out[-1][1].append(line)
    return [(number, " ".join(line.strip() for line in lines)) for number, lines in out if lines]


def resolve(text: str, tests: dict[str, set[str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The test ids ``text`` names and those of them that do not exist in ``tests``."""
    every = set().union(*tests.values()) if tests else set()
    named, missing = [], []
    for match in TEST_REF.finditer(text):
        file, function, bare = match.groups()
        if file:
            ident = f"{file}::{function}" if function else file
            ok = file in tests and (function is None or function in tests[file])
        else:
            ident, ok = bare, bare in every
        named.append(ident)
        if not ok:
            missing.append(ident)
    return tuple(named), tuple(missing)


def claims(root: Path) -> list[Claim]:
    """Every claim of :func:`pages`, with the tests each names."""
    tests = test_functions(root)
    found = []
    for page in pages(root):
        for line, text in blocks(page.read_text()):
            if CLAIM.search(text):
                named, missing = resolve(text, tests)
                found.append(Claim(str(page.relative_to(root)), line, text, named, missing))
    return found


def main(argv: list[str] | None = None) -> int:
    """Print every claim with its tests; the last line ``claims N untested U``; exit 1 when U > 0."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path.cwd()
    found = claims(root)
    for claim in found:
        mark = "ok " if claim.backed else "NO "
        backing = ", ".join(claim.tests) or "no test named"
        if claim.missing:
            backing += f" (missing: {', '.join(claim.missing)})"
        print(f"{mark}{claim.page}:{claim.line}: {backing}\n      {claim.text[:160]}")
    untested = sum(not c.backed for c in found)
    print(f"claims {len(found)} untested {untested}")
    return 1 if untested else 0


if __name__ == "__main__":
    raise SystemExit(main())
