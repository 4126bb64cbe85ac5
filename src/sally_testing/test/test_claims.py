"""Every "tested" in the README, the docs pages and the package READMEs names a test that exists
(``sally_testing.claims``), and the checker finds the claims it should."""

from pathlib import Path

from sally_testing.claims import blocks, claims, resolve

ROOT = Path(__file__).resolve().parents[3]


def test_every_claim_names_a_test_that_exists():
    found = claims(ROOT)
    assert len(found) >= 15, f"the checker found only {len(found)} claims: is it reading the pages?"
    untested = [f"{c.page}:{c.line}: {c.text[:120]} ({c.missing or 'no test named'})" for c in found if not c.backed]
    assert not untested, "claims without a test:\n" + "\n".join(untested)


def test_a_claim_naming_no_test_or_a_missing_one_is_untested():
    tests = {"test_f2w_graph.py": {"test_two_lockstep_runs_give_the_same_report"}}
    assert resolve("the same report (tested)", tests) == ((), ())
    assert resolve("(tested: `test_f2w_graph.py::test_two_lockstep_runs_give_the_same_report`)", tests)[1] == ()
    assert resolve("(tested: `test_f2w_graph.py::test_gone`)", tests)[1] == ("test_f2w_graph.py::test_gone",)
    assert resolve("(tested: `test_nowhere.py`)", tests)[1] == ("test_nowhere.py",)
    assert resolve("(`test_two_lockstep_runs_give_the_same_report`)", tests)[1] == ()


def test_a_list_item_and_its_continuation_lines_are_one_block():
    text = "intro\nline two\n\n* item one\n  goes on (tested)\n* item two\n"
    assert blocks(text) == [(1, "intro line two"), (4, "* item one goes on (tested)"), (6, "* item two")]
