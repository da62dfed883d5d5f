"""The verdicts at a glance (issue 41): summarize and compare print one short line per variant first
(at most 80 characters, sorted by verdict, short tags with a legend), every figure of each verdict
only with --detail (the long lines, as before), the report opens on the headline table and the
forest plot with the rest folded, and no table prints NaN where a value does not exist."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.io import schema
from analysis.io.load import load_runs
from analysis.verdicts.compare import Comparison, compare_runs
from analysis.views.text import (COMPARISON_COLUMNS, READER_COLUMNS, TAGS, WIDTH, dashed,
                                 headline_lines, headline_markdown, plain, table, verdict_line, verdict_lines,
                                 verdict_word)
from conftest import GEOMETRY, ROOT
from analysis_runner import analysis
from headline import ROW, headline_block, headline_rows
from whole_processes import synthetic_study

GOLDEN = ROOT / "tests" / "data" / "golden-run.json"
SHORT = ["--rounds", "40", "--warmup-rounds", "4", "-q", *GEOMETRY]
FORTY = "a_variant_name_of_exactly_forty_chars_xy"  # 40 characters
assert len(FORTY) == 40
# a whole word "nan", as pandas and f-strings print a value that does not exist
NAN = re.compile(r"(?<![\w@./-])nan(?![\w@./-])", re.IGNORECASE)
DETAIL = re.compile(r"^- (?P<name>.+?) vs (?P<base>\S+) on (?P<dist>\S+)(?P<flags>.*?): "
                    r"(?P<verdict>faster|slower|equivalent|inconclusive), ratio ")


# --- files ---------------------------------------------------------------------------------------

def study(template: dict, arms: dict[str, tuple[float, float]], rounds: int, processes: int, seed: int,
          shift: dict[str, float] | None = None) -> dict:
    """A valid result document: libc and the arms (name: (time ratio to libc, per-batch noise sd on
    the log scale)) in every round, in a random order, the rounds dealt over `processes`
    processes; `shift` multiplies an arm's ratio in the second half of the processes (the machine
    changing state part-way through)."""
    d = copy.deepcopy(template)
    base, other = d["variants"][0], d["variants"][1]
    names = [base["name"], *arms]
    d["variants"] = [{**base, "index": 0}] + [{**other, "index": i + 1, "name": n} for i, n in enumerate(arms)]
    d["config"]["variants"] = names
    d["config"]["baseline"] = names[0]
    rng = np.random.default_rng(seed)
    cols: dict[str, list] = {k: [] for k in schema.SAMPLE_COLUMNS}
    nspt = d["timer"]["ns_per_tick"]
    t = 0
    for r in range(rounds):
        proc, rnd = r % processes, r // processes
        work = rng.lognormal(0, 0.2) * 20000
        for pos, v in enumerate(rng.permutation(len(names))):
            ratio, sigma = (1.0, 0.01) if v == 0 else arms[names[v]]
            if shift and names[v] in shift and proc >= processes // 2:
                ratio *= shift[names[v]]
            ticks = int(work * ratio * np.exp(rng.normal(0, sigma)) / nspt)
            row = {"variant": int(v), "round": rnd, "position": pos, "calls": 1000, "bytes": 135000, "ticks": ticks,
                   "ns": round(ticks * nspt, 3), "t_start_ns": t, "cpu": 1, "warmup": False, "process": proc,
                   "size_class": 0}
            for k in schema.SAMPLE_COLUMNS:
                cols[k].append(row[k])
            t += 30000
    d["samples"] = {"count": len(cols["variant"]), **cols}
    d["rounds"] = {**d["rounds"], "count": rounds // processes, "warmup": 0, "measured": rounds // processes}
    return synthetic_study(d)


@pytest.fixture(scope="module")
def files(tmp_path_factory, memfbench) -> dict[str, Path]:
    """Real short runs (no noop: nothing to take the harness off, so the net figures do not exist),
    the golden run, and synthetic studies of every verdict, with a 40-character name, a shift
    part-way through and one process."""
    import subprocess
    d = tmp_path_factory.mktemp("headline")
    out = {"golden": GOLDEN}
    real = {"study": ["-d", "fleetbench/Memcpy_Fleet", "-v", "libc", "-v", "sizeclass", "-v", "bytes", "-v",
                      "rep_movsb", "--processes", "3"],
            "one": ["-d", "fixed:64", "-v", "libc", "-v", "bytes", "-v", "rep_movsb", "--processes", "1"],
            "by_class": ["-v", "libc", "-v", "sizeclass", "--processes", "1", "--by-class"],
            "pressure0": ["-d", "fixed:64", "-v", "libc", "-v", "rep_movsb", "--processes", "2"],
            "pressure16k": ["-d", "fixed:64", "-v", "libc", "-v", "rep_movsb", "--processes", "2",
                            "--icache-pressure", "16K"]}
    for name, args in real.items():
        out[name] = d / f"{name}.json"
        subprocess.run([memfbench, "run", *args, *SHORT, "-o", str(out[name])], check=True, timeout=300)
    # one round: no ratio (fewer than 2 rounds paired), in a run and at every point of a sweep
    one_round = ["--rounds", "1", "--warmup-rounds", "0", "--processes", "1", "-q"]
    out["one_round"], out["sweep"] = d / "one_round.json", d / "sweep.json"
    subprocess.run([memfbench, "run", "-d", "fixed:64", "-v", "libc", "-v", "rep_movsb", *one_round, *GEOMETRY, "-o",
                    str(out["one_round"])], check=True, timeout=300)
    subprocess.run([memfbench, "sweep", "0,64,4K", "-v", "libc", "-v", "sizeclass", *one_round, "-o", str(out["sweep"])],
                   check=True, timeout=300)
    # a variant whose code size is not known (null), as a plugin's may be
    unknown = json.loads(out["pressure16k"].read_text())
    unknown["variants"][1]["code_size"] = None
    out["pressure16k_unknown"] = d / "pressure16k_unknown.json"
    out["pressure16k_unknown"].write_text(json.dumps(unknown))
    template = json.loads(out["pressure0"].read_text())
    arms = {"fast": (0.7, 0.01), "slow": (1.3, 0.01), "same": (1.0, 0.002), "unsure": (1.02, 0.4),
            FORTY: (0.8, 0.01)}
    for name, doc in (("every_verdict", study(template, arms, 32 * 20, 32, seed=1)),
                      ("shifted", study(template, {"fast": (0.7, 0.005)}, 32 * 20, 32, seed=2, shift={"fast": 1.05})),
                      ("one_process", study(template, {"fast": (0.7, 0.01), "slow": (1.3, 0.01)}, 200, 1, seed=3))):
        out[name] = d / f"{name}.json"
        out[name].write_text(json.dumps(doc))
    return out


def detail_rows(stdout: str) -> dict[str, dict[str, str]]:
    rows = {}
    for line in stdout.splitlines():
        m = DETAIL.match(line)
        if m:
            rows[m["name"]] = {**m.groupdict(), "line": line}
    return rows


# --- the headline on real and synthetic files -----------------------------------------------------

CASES = ["golden", "study", "one", "every_verdict", "shifted", "one_process", "pressure16k", "one_round"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["summarize", "compare"])
def test_every_headline_line_fits_and_agrees_with_the_detail(files, case, command, tmp_path):
    """Each headline line is at most 80 characters; its variant's verdict word, ratio, interval and
    processes are the detail line's (rounded); a withheld verdict reads as withheld."""
    out = tmp_path / "c.json"
    p = analysis(command, str(files[case]), "--detail", *(["--json", str(out)] if command == "compare" else []))
    assert p.returncode == 0, p.stderr
    block = headline_block(p.stdout)
    assert all(len(line) <= WIDTH for line in block), "\n".join(x for x in block if len(x) > WIDTH)
    rows, details = headline_rows(block), detail_rows(p.stdout)
    assert rows and set(rows) == set(details), (block, list(details))
    comps = {c.variant: c for c in compare_runs(load_runs([str(files[case])]))}
    for name, row in rows.items():
        detail, c = details[name], comps[name]
        word = row["verdict"].split()[-1]
        if word == "withheld":  # the long line: "no verdict from this study", "no faster/slower verdict ..."
            assert detail["verdict"] == "inconclusive" and re.search(r"no (faster/slower )?verdict", detail["line"])
        else:
            assert word == detail["verdict"] == c.verdict, (row, detail["line"])
        if word in ("faster", "slower"):
            pct = float(row["verdict"].split()[0])
            assert abs(pct - abs(c.ratio - 1) * 100) <= 0.051, (row, c.ratio)
        if np.isnan(c.ratio):  # no ratio: a dash, never "nan"
            assert row["ratio"] == row["interval"] == "—" and "[<2 rounds]" in row["tags"], row
            continue
        assert row["ratio"] == f"{c.ratio:.3f}" or float(row["ratio"]) == float(f"{c.ratio:.4g}"), (row, c.ratio)
        low, high = (float(x) for x in row["interval"].strip("[]").split(", "))
        assert abs(low - c.ci_adj_low) <= 0.0005 * max(1, c.ci_adj_low) and abs(high - c.ci_adj_high) <= \
            0.0005 * max(1, c.ci_adj_high), (row, c.ci_adj_low, c.ci_adj_high)
        assert int(row["procs"]) == c.processes
        assert f"over {c.processes} processes" in detail["line"] if c.processes > 1 else "within-process" in detail["line"]
    if command == "compare":
        assert {r["variant"] for r in json.loads(out.read_text())} == set(rows)


def test_verdicts_are_grouped_in_order_and_each_word_means_the_rule(files):
    p = analysis("compare", str(files["every_verdict"]))
    assert p.returncode == 0, p.stderr
    block = headline_block(p.stdout)
    rows = headline_rows(block)
    words = {name: row["verdict"].split()[-1] for name, row in rows.items()}
    assert words == {"fast": "faster", FORTY: "faster", "slow": "slower", "same": "equivalent",
                     "unsure": "inconclusive"}, block
    # faster (the greatest speed-up first), slower, equivalent, inconclusive
    order = [name for name in rows]
    assert order == ["fast", FORTY, "slow", "same", "unsure"], block
    # the 40-character name: whole, on a line of its own, its figures on the next
    at = block.index(f"  {FORTY}")
    assert ROW.match(block[at + 1])["name"] is None
    # no tag used: no legend; the key and the way to every figure
    assert not any(x.startswith(TAGS) for x in block), block
    assert block[-1].endswith("--detail") and "- fast vs libc" not in p.stdout


def test_a_shift_part_way_through_is_withheld_and_tagged_with_a_legend(files):
    p = analysis("summarize", str(files["shifted"]))
    assert p.returncode == 0, p.stderr
    block = headline_block(p.stdout)
    row = headline_rows(block)["fast"]
    assert row["verdict"] == "withheld" and row["tags"] == "[state]", block
    assert sum(x.startswith("[state] ") for x in block) == 1  # the legend, once
    line = next(x for x in block if x.startswith("  fast "))
    assert "faster" not in line and "slower" not in line


def test_one_process_is_withheld_unless_allowed(files):
    p = analysis("compare", str(files["one_process"]))
    rows = headline_rows(headline_block(p.stdout))
    assert {r["verdict"] for r in rows.values()} == {"withheld"} and {r["tags"] for r in rows.values()} == {"[1 process]"}
    text = "\n".join(headline_block(p.stdout))
    legend = text[text.index("\n[1 process] "):]  # once, below the rows
    assert legend.count("[1 process]") == 1 and "the interval covers one process's" in legend
    assert "--allow-single-process" in legend
    p = analysis("compare", str(files["one_process"]), "--allow-single-process")
    rows = headline_rows(headline_block(p.stdout))
    assert rows["fast"]["verdict"].endswith("% faster") and rows["slow"]["verdict"].endswith("% slower")


# --- --detail: the long lines, as before ----------------------------------------------------------

# The golden run's verdict line as summarize and compare printed it before the headline (commit
# bcb9c25's analysis, the same file): --detail prints it unchanged.
GOLDEN_LINE = ("- bytes vs libc on fixed:64: inconclusive, ratio 7.2430 (+624.30 %), 95% CI [0.0763, 687.2212] over 2 "
               "processes, simultaneous [0.0763, 687.2212]; a re-run would give [0.0116, 4529.7037] (95% prediction); "
               "layout noise ±50.67% per process; within-process interval [4.7262, 10.5375] (one layout's precision, "
               "not the implementation's); net of the harness 13.5515 [0.0063, 29184.4721]; adjusted p 0.114, 6 "
               "rounds; 20355 processes would resolve ±1.0%")


def without_variant_table(text: str) -> str:
    """summarize's output less its per-variant tables (from the header naming variant and batches
    to the blank line after)."""
    out, skip = [], False
    for line in text.splitlines():
        if line.split()[:2] == ["variant", "batches"]:
            skip = True
        elif skip and not line.strip():
            skip = False
        if not skip:
            out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("case", ["golden", "study", "every_verdict", "shifted", "one_process"])
def test_detail_reproduces_the_long_lines_and_changes_nothing_else(files, case):
    path = str(files[case])
    expected = [plain(x) for x in verdict_lines(compare_runs(load_runs([path])))]
    out = {}
    for command in ("summarize", "compare"):
        brief, full = analysis(command, path), analysis(command, path, "--detail")
        assert brief.returncode == 0 and full.returncode == 0, brief.stderr + full.stderr
        assert [x for x in full.stdout.splitlines() if x.startswith("- ") and " vs " in x] == expected
        assert not any(x in brief.stdout for x in expected)
        # the headline is the same with and without --detail, less its last line (how to see them)
        assert headline_block(full.stdout) == headline_block(brief.stdout)[:-1]
        assert headline_block(brief.stdout)[-1].endswith("--detail")
        out[command] = brief.stdout, full.stdout
    # summarize --detail is summarize with the verdict section of before inserted, nothing else
    brief, full = out["summarize"]
    section = full[full.index("\n== verdicts (ratio"):]
    section = section[:section.index("(simultaneous: Bonferroni)\n") + len("(simultaneous: Bonferroni)\n")]
    # and every column of the per-variant table where the default has the narrow one
    assert without_variant_table(full.replace(section, "", 1)) == \
        without_variant_table(brief.replace(headline_block(brief)[-1] + "\n", "", 1))
    assert "median_ns_per_call" in full and "median ns/call" in brief
    # compare --detail: the table of every comparison, then the long lines, after the headline
    full = out["compare"][1]
    assert full.split("\n\n", 1)[1].splitlines()[0].split() == COMPARISON_COLUMNS
    if case == "golden":
        assert GOLDEN_LINE in full.splitlines() and GOLDEN_LINE in out["summarize"][1].splitlines()


# --- synthetic comparisons: names, tags and lines at the edges ------------------------------------

def comparison(variant: str, ratio: float, low: float, high: float, verdict: str, **kw) -> Comparison:
    c = Comparison("f.json", "memcpy", "fleetbench/Memcpy_Fleet", variant, "libc", 1000, ratio, low, high, low, high,
                   0.95, 1e-9, 1e-9, ratio, low, high, "bootstrap", 0.0, ratio, False, 0, 0.001, 100, 0.01, verdict,
                   across_processes=True, processes=32)
    for k, v in kw.items():
        setattr(c, k, v)
    return c


def test_long_names_wrap_whole_and_every_tag_fits_below():
    comps = [comparison(FORTY, 0.677, 0.668, 0.686, "faster"),
             comparison("n" * 120, 1.2, 1.1, 1.3, "slower", placement_failed="small-call windows not in L1d in 2 of "
                        "32 processes", one_layout="n" * 120, layout_sensitivity=0.025),
             comparison("mid_length_name_x", 1.01, 0.95, 1.08, "inconclusive", state_change_at=5, state_before=0.9,
                        state_after=1.1, one_layout="mid_length_name_x", placement_failed="x")]
    lines = headline_lines(comps, "hint")
    assert all(len(x) <= WIDTH for x in lines), [x for x in lines if len(x) > WIDTH]
    assert f"  {FORTY}" in lines  # whole, on its own line
    cut = next(x for x in lines if "…" in x)  # longer than a line: cut in the middle
    assert len(cut) == WIDTH and cut.strip().startswith("n") and cut.endswith("n")
    assert any(x.strip() == "[state] [placement] [1 layout]" or x.endswith("[state] [placement] [1 layout]")
               for x in lines)
    legend = [x.split()[0] + (" " + x.split()[1] if x.startswith("[1 ") else "") for x in lines if x.startswith(TAGS)]
    assert legend == ["[state]", "[placement]", "[1 layout]"], lines
    assert lines[-1] == "hint"
    # the same comparisons as Markdown: the whole names, the words, the flags
    md = "\n".join(headline_markdown(comps))
    assert FORTY in md and "n" * 120 in md and "**32.3 % faster**" in md and "[state] [placement] [1 layout]" in md


def test_words_for_every_verdict_and_a_missing_ratio():
    assert verdict_word(comparison("a", 0.677, 0.668, 0.686, "faster")) == "32.3 % faster"
    assert verdict_word(comparison("a", 2.8034, 2.77, 2.83, "slower")) == "180.3 % slower"
    assert verdict_word(comparison("a", 1.001, 0.995, 1.006, "equivalent")) == "equivalent"
    assert verdict_word(comparison("a", 1.001, 0.9, 1.1, "inconclusive")) == "inconclusive"
    # the figures say faster, the rule withholds it: never printed as faster
    held = comparison("a", 0.6489, 0.6446, 0.6533, "inconclusive", state_change_at=5)
    assert verdict_word(held) == "withheld" and "no verdict" in verdict_line(held)
    none = comparison("a", float("nan"), float("nan"), float("nan"), "inconclusive", rounds=1, across_processes=False,
                      processes=1)
    line = next(x for x in headline_lines([none]) if x.startswith("  a "))
    assert "—" in line and "[<2 rounds]" in line and not NAN.search(line), line


# --- no NaN in any table ------------------------------------------------------------------------

def test_tables_print_a_dash_where_a_value_does_not_exist():
    df = pd.DataFrame({"variant": ["libc", "noop"], "net": [1.5, float("nan")], "size": [64, None],
                       "n": pd.array([1, None], dtype="Int64")})
    text = table(df)
    assert not NAN.search(text) and "None" not in text and "<NA>" not in text and text.count("—") == 3, text
    assert dashed("size  libc\n  64  3.000 ns xnan [nan, nan]") == "size  libc\n  64  3.000 ns x  — [  —,   —]"
    assert dashed("head nan\n banana nan") == "head nan\n banana   —"  # a name's letters are not a value
    assert sorted(READER_COLUMNS) == sorted(COMPARISON_COLUMNS) and READER_COLUMNS.index("verdict") < 3


def test_no_table_prints_nan(files, tmp_path):
    from test_threads_analysis import threaded_doc
    threads = tmp_path / "threads.json"
    threads.write_text(json.dumps(threaded_doc()))
    commands = [["summarize", str(files["study"]), "--detail"], ["summarize", str(files["golden"]), "--detail"],
                ["summarize", str(files["one"]), "--detail"], ["compare", str(files["study"]), "--detail"],
                ["compare", str(files["golden"]), "--detail"], ["compare", str(files["one"]), "--detail"],
                ["gate", str(files["golden"]), "--fail-if-slower", "5", "--json", str(tmp_path / "g.json")],
                ["gate", str(files["one"]), "--fail-if-slower", "5", "--json", str(tmp_path / "g1.json")],
                ["summarize", str(files["one_round"])], ["compare", str(files["one_round"]), "--detail"],
                ["gate", str(files["one_round"]), "--fail-if-slower", "5", "--json", str(tmp_path / "g0.json")],
                ["classes", str(files["by_class"])], ["summarize", str(files["by_class"])],
                ["sweep", str(files["sweep"])], ["summarize", str(files["sweep"]), "--detail"],
                ["pressure", str(files["pressure0"]), str(files["pressure16k_unknown"])],
                ["threads", str(threads)], ["summarize", str(threads), "--detail"]]
    for args in commands:
        p = analysis(*args)
        assert p.returncode in (0, 1), (args, p.stderr)
        # every line but --detail's long ones (as before: a comparison without a ratio says "ratio nan")
        tables = [x for x in p.stdout.splitlines() if not DETAIL.match(x)]
        assert not any(NAN.search(x) for x in tables), (args, [x for x in tables if NAN.search(x)])
        assert "None" not in p.stdout and "<NA>" not in p.stdout, (args, p.stdout)
        if args[0] == "gate":  # the headline's layout: a status per variant line, every line in 80 columns
            statuses = [r["gate"] for r in json.loads(Path(args[args.index("--json") + 1]).read_text())["comparisons"]]
            rows = [x for x in p.stdout.splitlines() if re.search(r" \d+ proc\b", x)]
            # every line in 80 columns but the verdict file's, a path as the user gave it
            assert len(rows) == len(statuses) and all(len(x) <= 80 for x in p.stdout.splitlines()
                                                      if not x.startswith("verdict: ")), p.stdout
            assert all(any(s in x for x in rows) for s in statuses), (statuses, p.stdout)


# --- the report's first screen --------------------------------------------------------------------

def test_the_report_opens_on_the_headline_and_the_forest_plot(files, tmp_path):
    rep = tmp_path / "rep"
    p = analysis("report", str(files["every_verdict"]), "-o", str(rep))
    assert p.returncode == 0, p.stderr
    md = (rep / "report.md").read_text(encoding="utf-8")
    order = [md.index(x) for x in ("## Verdicts", "| variant | ratio |", "![forest plot]", "<details><summary>Every figure",
                                   "- **fast** vs libc", "<details><summary>Every column", "| variant | verdict | ratio |",
                                   "## memcpy on")]
    assert order == sorted(order), order
    html = (rep / "report.html").read_text(encoding="utf-8")
    first_table = html[html.index("<table>"):html.index("</table>")]
    assert "<th>verdict</th>" in first_table and first_table.count("<tr>") == 1 + 5
    assert html.index("<table>") < html.index('alt="forest.png"') < html.index("<details>")
    # the wide table is folded: after a <details>, before its end
    wide = html.index("<th>simultaneous low</th>")  # the report's header for ci_adj_low
    assert html.rfind("<details>", 0, wide) > html.rfind("</details>", 0, wide)
