"""The README and the pages in docs/: every relative link points at a file that exists, and the
README stays short enough to read in one sitting."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("src/*/README.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
README_LINES = 400


def relative_links(page: Path) -> list[str]:
    """The link targets of ``page`` that are files of this repository (no scheme, no bare anchor)."""
    targets = (m.group(1) for m in LINK.finditer(page.read_text()))
    return [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file(page):
    missing = [t for t in relative_links(page) if not (page.parent / t).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_the_readme_links_a_page_for_each_use_and_stays_short():
    readme = ROOT / "README.md"
    lines = readme.read_text().splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines (at most {README_LINES})"
    first = [line.split("#")[0].strip() for line in lines[3:5]]
    assert first == ["bash scripts/main.sh", "bash scripts/test.sh"], "the README starts with the two commands"
    linked = {Path(t).name for t in relative_links(readme)}
    uses = {"running", "controlling", "time", "seeing", "climbing", "hosts", "optimizer", "faults", "benchmarks"}
    uses.add("tests")
    assert {f"{use}.md" for use in uses} <= linked
