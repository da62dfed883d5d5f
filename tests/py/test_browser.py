"""Every report kind, as a reader's browser shows it (issue 54): the report of one study, of a suite
(two distributions in one report), of a study with a PGO pair, and diff's before/after report,
each opened in headless Chromium (tools/lib/browser.py) at a laptop's window size. On each: the
first table is the verdict table and its first row is on the first screen; nothing passes the
page's right edge (a wide table scrolls inside its own box); every image loads; the console
shows no error. The first screens are written beside the reports for a person to look at
(tools/report_screens.py, which makes the same reports, writes them into docs/img)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tools import report_screens
from tools.lib import browser

pytestmark = pytest.mark.skipif(bool(browser.missing()), reason=browser.missing() or "")

@pytest.fixture(scope="module")
def pages(tmp_path_factory, memfbench) -> dict[str, tuple[Path, browser.PageCheck]]:
    """Each report kind's page (tools/report_screens.py make_reports) and what the browser measured."""
    d = tmp_path_factory.mktemp("browser")
    made = report_screens.make_reports(memfbench, d)
    with browser.Browser() as b:
        return {kind: (page, b.check(page, d / f"{kind}.png")) for kind, page in made.items()}


KINDS = list(report_screens.KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_the_first_screen_holds_the_verdict_table(pages, kind):
    page, c = pages[kind]
    assert "verdict" in c.table_head, (kind, c.table_head)
    assert c.verdicts_on_first_screen, (kind, c.first_row_bottom, c.height)
    assert page.with_name("report.md").read_text().index("## Verdicts") < 200


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_passes_the_right_edge(pages, kind):
    _, c = pages[kind]
    assert c.fits, (kind, c.scroll_width, c.width, c.wide)


@pytest.mark.parametrize("kind", KINDS)
def test_every_image_loads_and_the_console_is_quiet(pages, kind):
    page, c = pages[kind]
    shown = page.read_text().count("<img ")
    assert c.images == shown >= 1 and not c.broken, (kind, c.images, shown, c.broken)
    assert not c.console_errors, (kind, c.console_errors)


def test_the_screenshots_are_pictures_of_the_window(pages):
    for kind in KINDS:
        shot = pages[kind][0].parent.with_name(f"{kind}.png")
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (width, height) == (pages[kind][1].width, pages[kind][1].height)
