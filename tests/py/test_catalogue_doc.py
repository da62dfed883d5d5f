"""docs/catalogue.md is the tests' catalogue as they stand: regenerated from the case tables, it
must equal the committed page (a golden-file check in reverse: the page follows the tests)."""
from __future__ import annotations

from conftest import ROOT
from tools import catalogue_doc


def test_the_catalogue_page_is_current() -> None:
    committed = (ROOT / "docs" / "catalogue.md").read_text(encoding="utf-8")
    assert catalogue_doc.page() == committed, (
        "docs/catalogue.md is stale: /usr/bin/python3 -m tools.catalogue_doc -o docs/catalogue.md")


def test_every_case_has_its_row() -> None:
    import test_catalogue
    import test_catalogue_analysis
    page = catalogue_doc.page()
    for c in test_catalogue.ALL:
        assert f"| {c.id} |" in page
    for name in test_catalogue_analysis.CASES:
        assert f"| {name.replace('_', '-')} |" in page
