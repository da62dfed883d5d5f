"""The analysis command line and notebooks on real short runs, and its handling of bad files."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from itertools import groupby
import os
import subprocess
from pathlib import Path

import pytest

from analysis_runner import analysis
from conftest import GEOMETRY, ROOT, binary
from headline import headline_block, headline_rows, interval_of, word_agrees_with_interval

# The cache geometry is given: what these tests read does not depend on it, and a VM's claimed
# socket-wide LLC (508 MiB on the Zen 5 VM) would make every process fill a 2 GiB arena.
SHORT = ["--rounds", "40", "--warmup-rounds", "4", "--processes", "3", "-q", *GEOMETRY]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, memfbench) -> list[Path]:
    """Fresh short runs of three memcpy variants on three distributions."""
    d = tmp_path_factory.mktemp("runs")
    out = []
    for dist in ("fleetbench/Memcpy_Fleet", "spec2017/memcpy", "fleetbench/Memcpy_3"):
        p = d / f"ab_{dist.replace('/', '_')}.json"
        subprocess.run([memfbench, "run", "-d", dist, "-v", "libc", "-v", "sizeclass", "-v", "bytes", *SHORT,
                        "-o", str(p)], check=True, timeout=120)
        out.append(p)
    return out


def test_summarize(runs):
    p = analysis("summarize", str(runs[0]))
    assert p.returncode == 0, p.stderr
    assert "median ns/call" in p.stdout and "verdicts at a glance" in p.stdout
    # every line of the default output within 80 columns (the whole per-variant table: --detail)
    assert all(len(x) <= 80 for x in p.stdout.splitlines()), [x for x in p.stdout.splitlines() if len(x) > 80]
    detail = analysis("summarize", str(runs[0]), "--detail")
    assert "median_ns_per_call" in detail.stdout and "robust_sd" in detail.stdout
    # the headline: a row for the byte loop, a ratio above libc's, an interval around it (of any
    # width: a loaded machine widens a 3-process study's to [1.25, 17.4]), the verdict's word the
    # one that interval gives, the 3 processes; whatever tags the machine's state adds
    row = headline_rows(headline_block(p.stdout))["bytes"]
    low, high = interval_of(row)
    assert low <= float(row["ratio"]) <= high and float(row["ratio"]) > 1, p.stdout
    assert word_agrees_with_interval(row) and row["procs"] == "3", p.stdout
    assert "- bytes vs libc" not in p.stdout and "--detail" in p.stdout  # the long lines on request only
    assert "**" not in p.stdout and "`" not in p.stdout  # a terminal, not Markdown


def test_compare_json_and_baseline(runs, tmp_path):
    out = tmp_path / "cmp.json"
    p = analysis("compare", *map(str, runs), "--baseline", "sizeclass", "--json", str(out), "--adjust", "bh")
    assert p.returncode == 0, p.stderr
    rows = json.loads(out.read_text())
    assert len(rows) == 6 and {r["baseline"] for r in rows} == {"sizeclass"}
    assert {r["distribution"] for r in rows} == {"fleetbench/Memcpy_Fleet", "spec2017/memcpy", "fleetbench/Memcpy_3"}
    for r in rows:
        assert r["verdict"] in ("faster", "slower", "equivalent", "inconclusive")
        assert r["ci_adj_low"] <= r["ci_low"] <= r["ratio"] <= r["ci_high"] <= r["ci_adj_high"]
        assert r["rounds"] == 3 * 40 and 0 <= r["p_adjusted"] <= 1


def test_report(runs, tmp_path):
    p = analysis("report", *map(str, runs), "-o", str(tmp_path / "rep"), "--svg")
    assert p.returncode == 0, p.stderr
    files = {f.name for f in (tmp_path / "rep").iterdir()}
    figures = {"forest", "by_distribution"} | {f"run{i}_{name}" for i in range(len(runs)) for name in
                                               ("log_ratios", "ratio_over_time", "timeseries", "distributions")}
    assert {"report.md", "report.html"} | {f"{f}.png" for f in figures} | {f"{f}.svg" for f in figures} <= files
    html = (tmp_path / "rep" / "report.html").read_text()
    assert html.count("data:image/png;base64,") == len(figures) and "Verdicts" in html
    # The page's structure, parsed: each Markdown table is one HTML table with a header row and
    # one row per data line, of equal widths; list items sit in lists; no Markdown marks left.
    md = (tmp_path / "rep" / "report.md").read_text()
    md_tables = [list(g) for is_table, g in groupby(md.splitlines(), key=lambda x: x.startswith("|")) if is_table]
    page = PageShape()
    page.feed(html)
    assert [len(t) for t in page.tables] == [len(t) - 1 for t in md_tables]  # less the header rule
    for table, lines in zip(page.tables, md_tables):
        assert table[0][0] == "th" and all(kind == "td" for kind, _ in table[1:])
        assert {width for _, width in table} == {lines[0].count("|") - 1}
    assert page.stray_items == 0 and page.items > 0
    assert "**" not in page.text and "`" not in page.text


class PageShape(HTMLParser):
    """Tables as lists of (cell tag, cells) rows; list items outside a list; the visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[tuple[str, int]]] = []
        self.lists = self.items = self.stray_items = 0
        self.row: list[str] | None = None
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.row = []
        elif tag in ("th", "td") and self.row is not None:
            self.row.append(tag)
        elif tag == "ul":
            self.lists += 1
        elif tag == "li":
            self.items += 1
            self.stray_items += self.lists == 0

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self.row is not None:
            self.tables[-1].append((self.row[0], len(self.row)))
            self.row = None
        elif tag == "ul":
            self.lists -= 1

    def handle_data(self, data: str) -> None:
        self.text += data


@pytest.mark.parametrize("content,fragment", [
    ("{not json", ":1: not JSON"),
    ('{"schema": "memfbench-run"}', "not a valid memfbench result"),
    ("", "not JSON"),
])
def test_bad_files(tmp_path, content, fragment):
    f = tmp_path / "bad.json"
    f.write_text(content)
    p = analysis("summarize", str(f))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and str(f) in lines[0] and fragment in lines[0]


def test_truncated_and_inconsistent_files(runs, tmp_path):
    text = runs[0].read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    p = analysis("summarize", str(cut))
    assert p.returncode == 2 and "not JSON" in p.stderr
    doc = json.loads(text)
    doc["samples"]["ns"] = doc["samples"]["ns"][:-1]
    short = tmp_path / "short.json"
    short.write_text(json.dumps(doc))
    p = analysis("summarize", str(short))
    assert p.returncode == 2 and "samples/ns" in p.stderr
    doc = json.loads(text)
    doc["samples"]["ticks"][5] = -1
    neg = tmp_path / "neg.json"
    neg.write_text(json.dumps(doc))
    p = analysis("summarize", str(neg))
    assert p.returncode == 2 and "samples/ticks" in p.stderr


def test_missing_file_and_unknown_baseline(runs, tmp_path):
    p = analysis("summarize", str(tmp_path / "nope.json"))
    assert p.returncode == 2 and "nope.json: cannot read" in p.stderr
    p = analysis("compare", str(runs[0]), "--baseline", "turbo")
    assert p.returncode == 2 and "baseline 'turbo'" in p.stderr


@pytest.mark.skipif(os.environ.get("MEMFBENCH_NOTEBOOKS", "1") == "0", reason="notebook tests disabled")
@pytest.mark.parametrize("name", ["overview.ipynb", "ab_compare.ipynb"])
def test_notebooks_execute_headless(runs, name):
    import nbclient
    import nbformat

    nb_dir = ROOT / "analysis" / "notebooks"
    nb = nbformat.read(nb_dir / name, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed with outputs"
    os.environ["MEMFBENCH_RESULT"] = str(runs[0])
    os.environ["MEMFBENCH_RESULTS"] = os.pathsep.join(map(str, runs))
    # ab_compare's before/after section: two files of the same distribution (two runs' worth)
    os.environ["MEMFBENCH_BEFORE"], os.environ["MEMFBENCH_AFTER"] = str(runs[0]), str(runs[0])
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(nb_dir)}})
    client.execute()
    text = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert "image/png" in text
    assert "slower" in text or "faster" in text or "equivalent" in text
    if name == "ab_compare.ipynb":
        assert "after/before 1.0000" in text and text.count("image/png") >= 1 + 2 * len(runs) + 1


@pytest.mark.parametrize("name", ["overview.ipynb", "ab_compare.ipynb"])
def test_notebooks_name_commands_as_a_user_runs_them(name):
    """A notebook's Markdown gives the commands of the checkout's wrapper (./memfbench run, ./memfbench
    analyze), not the build folder's binary or the bare module, and no process count that is not
    the default's (issue 54: "10 fresh processes", build/bench/memfbench, python3 -m analysis)."""
    nb = json.loads((ROOT / "analysis" / "notebooks" / name).read_text())
    md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "build/bench/memfbench" not in md and "python3 -m analysis" not in md and "10 fresh" not in md
    if name == "ab_compare.ipynb":
        assert "./memfbench run -v libc" in md and "-m nbconvert --to notebook --execute" in md


def test_a_notebook_parameter_that_matches_nothing_names_what_it_looked_for(tmp_path, monkeypatch):
    from analysis.io import load
    from analysis.io.reading import ResultFileError
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.json").write_text("{}")
    assert load.files_matching(f"nothing*.json{os.pathsep}a.json", "MEMFBENCH_RESULTS") == ["a.json"]
    with pytest.raises(ResultFileError) as e:
        load.files_matching("../results/mine*.json*", "MEMFBENCH_RESULTS")
    assert "MEMFBENCH_RESULTS: no result file matches '../results/mine*.json*'" in str(e.value)
    assert str(tmp_path) in str(e.value)


@pytest.mark.all_cpus  # --cpu 0
def test_memfbench_analyze_works_from_any_folder_whatever_python3_comes_first(run, tmp_path: Path) -> None:
    """The README's analysis command: `memfbench analyze` runs the package with the interpreter the
    build found, from a folder outside the checkout, with a `python3` first on PATH that lacks numpy
    and no PYTHONPATH; the command a run prints is that one, and runs as printed."""
    r = run("-d", "fixed:64", "-v", "libc", "-v", "rep_movsb", "--processes", "2", "--rounds", "20",
            "--warmup-rounds", "2", "--cpu", "0")
    assert r.code == 0, r.stderr
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3").write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'numpy'\" >&2\nexit 1\n")
    (fake / "python3").chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{fake}:/usr/bin:/bin"
    printed = [ln.split(": ", 1)[1] for ln in (r.stdout + r.stderr).splitlines()
               if ln.strip().startswith("Intervals and verdicts: ")]
    assert printed and " analyze summarize " in printed[-1] and "-m analysis" not in printed[-1], printed
    assert subprocess.run(["python3", "-c", "import numpy"], env=env, capture_output=True).returncode != 0
    p = subprocess.run(printed[-1].split(), cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "memcpy on fixed:64 vs libc" in p.stdout and re.search(r"^  rep_movsb .* 2 proc", p.stdout, re.M)
    usage = subprocess.run([binary(), "analyze", "--help"], cwd=elsewhere, env=env, capture_output=True, text=True)
    assert usage.returncode == 0 and usage.stdout.startswith("usage: memfbench analyze"), usage.stdout[:200]
    # another checkout's package in the current folder does not answer in place of this build's
    (elsewhere / "analysis").mkdir()
    (elsewhere / "analysis" / "__init__.py").write_text("")
    (elsewhere / "analysis" / "__main__.py").write_text("raise SystemExit('the folder\\'s own analysis ran')\n")
    usage = subprocess.run([binary(), "analyze", "--help"], cwd=elsewhere, env=env, capture_output=True, text=True)
    assert usage.returncode == 0 and usage.stdout.startswith("usage: memfbench analyze"), usage.stderr[:200]
