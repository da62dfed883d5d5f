"""A report page as a reader's browser shows it: Debian's Chromium, headless, driven through
chromedriver (python3-selenium), at a laptop's window size. What it measures of the first screen
and of the whole page is what tests/py/test_browser.py asserts and tools/report_screens.py prints.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# A laptop's browser window: what "the first screen" means here.
WINDOW = (1280, 800)

# Run in the page once it has loaded: the verdict table's place, what passes the page's right edge
# (outside an element that scrolls sideways, as a report's wide tables do), and the images that
# did not load.
MEASURE = """
const vw = document.documentElement.clientWidth, vh = window.innerHeight;
const table = document.querySelector('table');
const head = table ? table.rows[0].textContent.toLowerCase() : '';
const firstRow = table && table.rows.length > 1 ? table.rows[1].getBoundingClientRect() : null;
function scrolls(el) {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX;
    if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
  }
  return false;
}
const wide = [];
for (const el of document.body.querySelectorAll('*')) {
  const r = el.getBoundingClientRect();
  if (r.width > 0 && r.right > vw + 1 && !scrolls(el))
    wide.push(el.tagName + ': ' + (el.textContent || el.getAttribute('alt') || '').trim().slice(0, 60));
}
const broken = [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.alt);
return {vw: vw, vh: vh, scroll_width: document.documentElement.scrollWidth,
        table_head: head, table_top: table ? table.getBoundingClientRect().top : -1,
        first_row_bottom: firstRow ? firstRow.bottom : -1, wide: wide.slice(0, 20), wide_count: wide.length,
        images: document.images.length, broken: broken,
        title: document.title, first_heading: (document.querySelector('h1, h2') || {}).textContent || ''};
"""


@dataclass
class PageCheck:
    """What a page showed: the first table's header and where its first row ended (px from the top),
    the window's height and width, how far the page reached past its right edge, the elements
    that did, the images (and those that did not load), and the console's errors."""
    table_head: str
    table_top: float
    first_row_bottom: float
    height: int
    width: int
    scroll_width: int
    wide: list[str]
    images: int
    broken: list[str]
    console_errors: list[str] = field(default_factory=list)
    first_heading: str = ""

    @property
    def verdicts_on_first_screen(self) -> bool:
        """The first table is the verdict table and its first row is in view without scrolling."""
        return "verdict" in self.table_head and 0 <= self.first_row_bottom <= self.height

    @property
    def fits(self) -> bool:
        """Nothing passes the page's right edge (a wide table scrolls inside its own box)."""
        return self.scroll_width <= self.width and not self.wide


def missing() -> str:
    """Why a page cannot be checked here ("" when it can): the browser, its driver or selenium."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists() and not shutil.which(path.name):
            return f"{path} not found (Debian package {package}; ./bootstrap.sh test installs it)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not importable (Debian package python3-selenium; ./bootstrap.sh test installs it)"
    return ""


class Browser:
    """One headless Chromium for several pages (its start is most of a page's cost): `with
    Browser() as b: b.check(page)`."""

    def __init__(self, window: tuple[int, int] = WINDOW) -> None:
        self.window = window
        self.driver = None

    def __enter__(self) -> "Browser":
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        opts = webdriver.ChromeOptions()
        opts.binary_location = str(CHROMIUM)
        # --no-sandbox: Chromium refuses to run as root with its sandbox (CI and these VMs are root)
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    f"--window-size={self.window[0]},{self.window[1]}", "--hide-scrollbars"):
            opts.add_argument(arg)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
        self.driver.set_window_size(*self.window)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.driver is not None:
            self.driver.quit()

    def check(self, page: Path, screenshot: Path | None = None) -> PageCheck:
        """Opens page (a file), measures it (MEASURE), reads the console's errors since the last
        page, and writes the first screen to `screenshot` when given."""
        d = self.driver
        assert d is not None, "use Browser in a with statement"
        d.get_log("browser")  # what an earlier page logged is not this one's
        d.get(page.resolve().as_uri())
        m = d.execute_script(MEASURE)
        if screenshot is not None:
            d.save_screenshot(str(screenshot))
        errors = [e["message"] for e in d.get_log("browser") if e.get("level") == "SEVERE"]
        return PageCheck(m["table_head"], float(m["table_top"]), float(m["first_row_bottom"]), int(m["vh"]),
                         int(m["vw"]), int(m["scroll_width"]), list(m["wide"]), int(m["images"]), list(m["broken"]),
                         errors, m["first_heading"])


def check_page(page: Path, screenshot: Path | None = None, window: tuple[int, int] = WINDOW) -> PageCheck:
    """One page in a browser of its own (Browser.check)."""
    with Browser(window) as b:
        return b.check(page, screenshot)
