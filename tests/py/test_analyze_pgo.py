"""analyze pgo and the summary's PGO lines: the gain of NAME-pgo over NAME is the ratio compare
gives between the two variants of the study (same estimand, same interval), the trained-on x
tested-on table puts each file's pair in its cell, each training row is labelled by where the
gain holds, and a file without a pair or with a malformed pair is refused in one line.

memfbench run writes build.pgo only with --pgo (the C side, bench/): the files here are real runs
of one source variant twice, the second copy renamed NAME-pgo and given the members run --pgo
writes (pgo_fixtures.py); every sample is the run's own."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from analysis_runner import analysis
from conftest import GEOMETRY, ROOT, one_line_refusal
from pgo_fixtures import add_pgo, write

SHORT = ["--rounds", "16", "--warmup-rounds", "2", "--processes", "2", "-q", *GEOMETRY]
SOURCE = "examples/source/copy_at.c:copy_at"
FLEET, SPEC = "fleetbench/Memcpy_Fleet", "spec2017/memcpy"


@pytest.fixture(scope="module")
def studies(tmp_path_factory, memfbench) -> dict[str, dict]:
    """A real run per distribution of libc and the source variant twice (at, at2)."""
    d = tmp_path_factory.mktemp("pgo")
    out = {}
    for dist in (FLEET, SPEC):
        p = d / f"{dist.replace('/', '_')}.json"
        subprocess.run([memfbench, "run", "-d", dist, "-v", "libc", "-v", f"{SOURCE}=at", "-v", f"{SOURCE}=at2",
                        *SHORT, "-o", str(p)], check=True, timeout=300, cwd=ROOT, capture_output=True)
        out[dist] = json.loads(p.read_text())
    return out


def compare_ratio(path: str, baseline: str, variant: str) -> dict:
    """compare's own figures for variant against baseline in one file (its --json)."""
    out = Path(path).with_suffix(".compare.json")
    p = analysis("compare", path, "--baseline", baseline, "--json", str(out))
    assert p.returncode == 0, p.stderr
    return next(c for c in json.loads(out.read_text()) if c["variant"] == variant)


def test_one_file_gives_the_pgo_gain_compare_gives(studies, tmp_path: Path) -> None:
    f = write(add_pgo(studies[FLEET], "at", "at2"), tmp_path / "own.json")
    out = tmp_path / "t.json"
    p = analysis("pgo", f, "--json", str(out))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    (group,) = doc["groups"]
    assert group["compiler_family"] == "gcc" and group["source"] == SOURCE
    assert group["trained_on"] == [FLEET] and group["tested_on"] == [FLEET]
    (cell,) = group["cells"]
    # the renamed copy: compare of at2 against at in the file before the renaming
    plain = write(studies[FLEET], tmp_path / "plain.json")
    c = compare_ratio(plain, "at", "at2")
    assert (cell["ratio"], cell["ci_low"], cell["ci_high"]) == pytest.approx((c["ratio"], c["ci_low"], c["ci_high"]))
    assert cell["ci_low"] <= cell["ratio"] <= cell["ci_high"]
    # the printed cell is that ratio as a signed percent with its interval
    pct = [100 * (cell[k] - 1) for k in ("ratio", "ci_low", "ci_high")]
    shown = f"{pct[0]:+.1f} % [{pct[1]:+.1f}, {pct[2]:+.1f}]"
    assert shown in p.stdout
    assert p.stdout.splitlines()[1].startswith("verdict: trained on " + FLEET)


def test_the_summary_has_a_line_per_pair(studies, tmp_path: Path) -> None:
    f = write(add_pgo(studies[FLEET], "at", "at2", family="clang"), tmp_path / "own.json")
    for command in ("summarize", "compare"):
        p = analysis(command, f)
        assert p.returncode == 0, p.stderr
        said: list[str] = []  # each line wrapped to 80 columns, whole again
        for x in p.stdout.splitlines():
            if x.startswith("  ") and said and said[-1].startswith("at-pgo vs at "):
                said[-1] += " " + x.strip()
            else:
                said.append(x)
        block = p.stdout.split("== PGO gain:", 1)[1].split("\n\n", 1)[0]
        assert all(len(x) <= 80 for x in block.splitlines()), block
        lines = [x for x in said if x.startswith("at-pgo vs at ")]
        assert len(lines) == 1, p.stdout
        m = re.fullmatch(rf"at-pgo vs at \(clang profile, trained on {FLEET}, the study's own\): "
                         r"(\d+\.\d) % (faster|slower) \[(-?\d+\.\d), (-?\d+\.\d)\]( \(interval includes no change\))?",
                         lines[0])
        assert m, lines[0]
        # the interval is of the same figure: it holds the estimate
        assert float(m.group(3)) <= float(m.group(1)) <= float(m.group(4))


def test_the_cross_distribution_table(studies, tmp_path: Path) -> None:
    """Trained on each distribution, tested on each: a 2 x 2 table, every cell the file's own pair."""
    files = {}
    for tested in (FLEET, SPEC):
        for trained in (FLEET, SPEC):
            doc = add_pgo(studies[tested], "at", "at2", train=None if trained == tested else trained)
            files[trained, tested] = write(doc, tmp_path / f"{len(files)}.json")
    out = tmp_path / "t.json"
    p = analysis("pgo", *files.values(), "--json", str(out))
    assert p.returncode == 0, p.stderr
    (group,) = json.loads(out.read_text())["groups"]
    assert group["trained_on"] == [FLEET, SPEC] and group["tested_on"] == [FLEET, SPEC]
    cells = {(c["trained_on"], c["tested_on"]): c for c in group["cells"]}
    assert set(cells) == set(files)
    for key, c in cells.items():
        assert c["files"] == [files[key]]
    # each study's two cells are of the same two variants of one file: the same figures
    for tested in (FLEET, SPEC):
        assert cells[FLEET, tested]["ratio"] == pytest.approx(cells[SPEC, tested]["ratio"])
    assert [r["trained_on"] for r in group["rows"]] == [FLEET, SPEC]
    assert group["verdict"].startswith(f"trained on {FLEET}: ")
    head = next(x for x in p.stdout.splitlines() if x.startswith("trained on \\ tested on"))
    assert head.split()[5:7] == [FLEET, SPEC]


def gains(**cells: tuple[bool, bool]) -> dict[str, SimpleNamespace]:
    return {k: SimpleNamespace(faster=f, slower=s) for k, (f, s) in cells.items()}


def test_row_labels_say_where_the_gain_holds() -> None:
    from analysis.verdicts.pgo import HOLDS, NO_GAIN_OWN, ONLY_OWN, ONLY_TESTED, SLOWER_OWN, row_label
    fast, flat, slow = (True, False), (False, False), (False, True)
    assert row_label("a", gains(a=fast, b=fast, c=fast)) == HOLDS
    assert row_label("a", gains(a=fast)) == ONLY_TESTED
    assert row_label("a", gains(a=fast, b=flat)).startswith(ONLY_OWN) and "b" in row_label("a", gains(a=fast, b=flat))
    assert row_label("a", gains(a=flat, b=fast)).startswith(NO_GAIN_OWN)
    assert row_label("a", gains(a=slow, b=slow)) == SLOWER_OWN
    assert "not tested on its training distribution" in row_label("x", gains(a=fast, b=fast))


def test_refusals_are_one_line(studies, tmp_path: Path) -> None:
    plain = write(studies[FLEET], tmp_path / "plain.json")
    one_line_refusal(analysis("pgo", plain), plain, "no NAME-pgo variant")
    # a NAME-pgo beside NAME without the member: for every command that reads the pairs
    bare = studies[FLEET] | {"variants": [dict(v, name="at-pgo") if v["name"] == "at2" else v
                                          for v in studies[FLEET]["variants"]]}
    bare["config"] = dict(bare["config"], variants=["libc", "at", "at-pgo"])
    f = write(bare, tmp_path / "bare.json")
    for command in ("pgo", "summarize", "compare"):
        one_line_refusal(analysis(command, f), f, "variants[2] (at-pgo)", "build.pgo")
    # a member whose `of` names no variant of the file
    doc = add_pgo(studies[FLEET], "at", "at2")
    doc["variants"][2]["build"]["pgo"]["of"] = "nosuch"
    one_line_refusal(analysis("pgo", write(doc, tmp_path / "of.json")), "of.json", "build.pgo.of 'nosuch'")
    # what the schema says of the member: a compiler family it does not know, a member missing
    doc = add_pgo(studies[FLEET], "at", "at2")
    doc["variants"][2]["build"]["pgo"]["compiler_family"] = "icc"
    one_line_refusal(analysis("pgo", write(doc, tmp_path / "icc.json")), "icc.json", "compiler_family")
    doc = add_pgo(studies[FLEET], "at", "at2")
    del doc["variants"][2]["build"]["pgo"]["train"]
    one_line_refusal(analysis("summarize", write(doc, tmp_path / "train.json")), "train.json", "train")
    good = write(add_pgo(studies[FLEET], "at", "at2"), tmp_path / "good.json")
    before = Path(good).read_bytes()
    one_line_refusal(analysis("pgo", good, "--json", good), "--json")
    assert Path(good).read_bytes() == before
    one_line_refusal(analysis("pgo", good, "--level", "2"), "--level")


def test_the_schema_takes_the_new_fields_as_optional(studies) -> None:
    from analysis.io import schema
    schema.validate(studies[FLEET])  # no config.pgo, no build.pgo
    schema.validate(add_pgo(studies[FLEET], "at", "at2", train=SPEC))
    doc = add_pgo(studies[FLEET], "at", "at2")
    doc["config"]["pgo"] = None
    schema.validate(doc)
    doc["config"]["pgo"] = {"train": None, "calls": 0}
    with pytest.raises(Exception, match="calls"):
        schema.validate(doc)


def test_the_report_has_the_pairs(studies, tmp_path: Path) -> None:
    f = write(add_pgo(studies[FLEET], "at", "at2"), tmp_path / "own.json")
    p = analysis("report", f, "-o", str(tmp_path / "r"))
    assert p.returncode == 0, p.stderr
    md = (tmp_path / "r" / "report.md").read_text()
    section = md.split("## PGO gain\n", 1)[1].split("\n## ", 1)[0]
    line = next(x for x in section.splitlines() if x.startswith("- at-pgo vs at "))
    assert line.startswith("- at-pgo vs at (gcc profile, trained on " + FLEET)
    # and the seed-000 table gives at's row the same gain
    table = md.split("### Time, code size and friendliness, one line per variant", 1)[1]
    row = next(x for x in table.splitlines() if x.startswith("| at |"))
    assert line.split("): ", 1)[1].split(" [", 1)[0] in row
