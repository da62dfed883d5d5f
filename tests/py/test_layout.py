"""The layout shows the design: bench/ is one folder per stage of the data path, in the order
bench/meson.build builds them, no stage includes a header of a later one, and no two files of a
folder include each other, directly or round a circle. The sample column
names appear as string literals in exactly one C file (the column table)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def stage_order() -> list[str]:
    """The stages as bench/meson.build lists them: its subdir() order is the dependency order."""
    text = (BENCH / "meson.build").read_text(encoding="utf-8")
    return re.findall(r"^subdir\('([a-z_]+)'\)", text, re.M)


def c_files() -> list[Path]:
    return sorted(p for p in BENCH.rglob("*") if p.suffix in (".c", ".h"))


def test_every_stage_is_a_folder_with_its_own_build() -> None:
    stages = stage_order()
    assert stages[0] == "base" and stages[-1] == "cli", stages
    folders = sorted(p.name for p in BENCH.iterdir() if p.is_dir())
    assert folders == sorted(stages), "every folder of bench/ is a stage and every stage a folder"
    for s in stages:
        assert (BENCH / s / "meson.build").is_file(), f"bench/{s} has no meson.build"
    assert not [p.name for p in BENCH.iterdir() if p.suffix in (".c", ".h")], "no sources left at the top of bench/"


def wrong_way_includes() -> list[str]:
    rank = {s: i for i, s in enumerate(stage_order())}
    bad = []
    for path in c_files():
        own = path.relative_to(BENCH).parts[0]
        for header in INCLUDE.findall(path.read_text(encoding="utf-8")):
            parts = header.split("/")
            if len(parts) == 1:
                # Only the generated headers (config.h at configure time, revision.h at build
                # time) and same-folder .c includes (impl/copies.c) may go without a folder.
                assert header in ("config.h", "revision.h") or (path.parent / header).exists(), \
                    f"{path}: #include \"{header}\""
                continue
            if parts[0] in rank and rank[parts[0]] > rank[own]:
                bad.append(f"{path.relative_to(BENCH.parent)} includes {header}")
    return bad


def test_no_stage_includes_a_later_stage() -> None:
    assert wrong_way_includes() == []


def test_the_include_check_catches_a_wrong_way_include(tmp_path: Path, monkeypatch) -> None:
    """The check above is only worth something if it fails on a wrong-way include."""
    fake = tmp_path / "bench"
    for p in [*c_files(), BENCH / "meson.build"]:
        dst = fake / p.relative_to(BENCH)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    (fake / "workload" / "call.h").write_text('#include "measure/run.h"\n', encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "BENCH", fake)
    assert any("workload/call.h includes measure/run.h" in b for b in wrong_way_includes())


def include_circles() -> list[list[str]]:
    """Circles between the files of one folder. A file pair a.c/a.h is one unit; a unit depends
    on another of its folder when either of its files includes the other's header. A circle
    (a -> b -> ... -> a) means neither can be read, tested or replaced without the other."""
    circles = []
    for folder in sorted(p for p in BENCH.iterdir() if p.is_dir()):
        deps: dict[str, set[str]] = {}
        for path in sorted(folder.iterdir()):
            if path.suffix not in (".c", ".h"):
                continue
            own = deps.setdefault(path.stem, set())
            for header in INCLUDE.findall(path.read_text(encoding="utf-8")):
                parts = header.split("/")
                if len(parts) == 2 and parts[0] == folder.name and Path(parts[1]).stem != path.stem:
                    own.add(Path(parts[1]).stem)
        # a depth-first walk from every unit; a unit met again on the current path closes a circle
        def walk(unit: str, path: list[str]) -> None:
            for nxt in sorted(deps.get(unit, ())):
                if nxt in path:
                    circle = path[path.index(nxt):]
                    if min(circle) == circle[0]:  # each circle once, from its smallest unit
                        circles.append([f"{folder.name}/{u}" for u in circle])
                elif nxt in deps:
                    walk(nxt, path + [nxt])
        for unit in sorted(deps):
            walk(unit, [unit])
    return circles


def test_no_include_circle_within_a_folder() -> None:
    assert include_circles() == []


def test_the_circle_check_catches_a_circle(tmp_path: Path, monkeypatch) -> None:
    fake = tmp_path / "bench"
    for p in c_files():
        dst = fake / p.relative_to(BENCH)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    team = fake / "measure" / "team.c"
    team.write_text('#include "measure/run.h"\n' + team.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "BENCH", fake)
    assert ["measure/run", "measure/team"] in include_circles()


FUNC_VALUE = r"MFB_(?:MEMCPY|MEMMOVE|MEMSET|MEMCMP|BCMP)\b"
FUNC_BRANCH = re.compile(rf"(?:==|!=)\s*{FUNC_VALUE}|{FUNC_VALUE}\s*(?:==|!=)|\bcase\s+{FUNC_VALUE}")


def files_branching_on_a_function() -> list[str]:
    """Files that compare a function value or switch on one (the traits table itself aside): code
    that should ask for a trait (family, roles, overlap, auxiliary parameter, result) instead."""
    table = BENCH / "base" / "functions.c"
    return sorted(str(p.relative_to(BENCH)) for p in c_files()
                  if p != table and FUNC_BRANCH.search(p.read_text(encoding="utf-8")))


def test_code_asks_for_traits_not_functions() -> None:
    assert len(files_branching_on_a_function()) <= 3, files_branching_on_a_function()


def test_the_branch_check_sees_a_branch() -> None:
    assert FUNC_BRANCH.search("    if (f == MFB_MEMSET && d->src_align.n) {")
    assert FUNC_BRANCH.search("    case MFB_BCMP:")
    assert not FUNC_BRANCH.search("    {\"bytes\", MFB_BCMP, MFB_ORIGIN_BUILTIN,")  # a table row is data


# The command line turns argv into a request and dispatches: what a command does with it is its
# driver's (orchestrate/study_run.c, probe_run.c, record_run.c, recordings_merge.c; ab/abstudy.c;
# tune/race.c, whose request and families are tune/race.h and tune/family.h).
# So a cli/ file reads the request's vocabulary (base/, study/, the data headers of the catalogue:
# impl/variants.h, workload/distribution.h and trace.h for `list` and record's limits, probe/plan.h
# for the probe's) and calls a driver; it never reaches a mechanism (machine/, measure/), the
# result file (report/, processes/, cJSON) or the code under test's set-up (impl/ beyond the list).
CLI_MAY_INCLUDE = ("base/", "files/inputs.h", "cli/", "study/", "orchestrate/", "ab/ab.h", "ab/abstudy.h", "counts/counts.h", "probe/plan.h",
                   "tune/race.h", "tune/family.h", "impl/variants.h", "workload/distribution.h", "workload/trace.h", "config.h")


def cli_reaches_past_its_room(bench: Path | None = None) -> list[str]:
    bench = bench or BENCH
    bad = []
    for path in sorted((bench / "cli").iterdir()):
        if path.suffix not in (".c", ".h"):
            continue
        text = path.read_text(encoding="utf-8")
        for header in INCLUDE.findall(text):
            if not header.startswith(CLI_MAY_INCLUDE):
                bad.append(f"bench/cli/{path.name} includes {header}: put what needs it in the command's "
                           "driver (bench/orchestrate/<command>_run.c) or the stage that owns the header")
        if "<cJSON.h>" in text:
            bad.append(f"bench/cli/{path.name} builds JSON: the result file is report/'s, a driver's to call")
    return bad


def test_the_command_line_only_reads_argv_and_dispatches() -> None:
    assert cli_reaches_past_its_room() == []


def test_the_command_line_rule_names_where_code_goes(tmp_path: Path) -> None:
    fake = tmp_path / "bench"
    (fake / "cli").mkdir(parents=True)
    (fake / "cli" / "cmd_x.c").write_text('#include "measure/run.h"\n#include <cJSON.h>\n', encoding="utf-8")
    found = cli_reaches_past_its_room(fake)
    assert len(found) == 2 and "bench/orchestrate/<command>_run.c" in found[0] and "report/" in found[1]


# A function longer than this holds more than one step: each step gets a name of its own.
MAX_FUNCTION_LINES = 100


def function_lengths(path: Path) -> list[tuple[int, str]]:
    """(lines, first line) of every function in a C file: a body opens with "{" and closes with "}"
    in the first column (the code's style), and its signature is the lines just above the "{" back
    to a blank line, a comment's end, a declaration or a preprocessor line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        if lines[i] == "{":
            j = lines.index("}", i)
            k = i - 1
            while k >= 0 and lines[k].strip() and not lines[k].rstrip().endswith(("*/", ";", "}")) \
                    and not lines[k].startswith("#"):
                k -= 1
            out.append((j - k, lines[k + 1]))
            i = j
        i += 1
    return out


def test_no_function_is_longer_than_100_lines() -> None:
    long = [f"{p.relative_to(BENCH)}: {n} lines: {head}" for p in c_files() if p.suffix == ".c"
            for n, head in function_lengths(p) if n > MAX_FUNCTION_LINES]
    assert long == []


def test_the_length_check_measures_signature_and_body(tmp_path: Path) -> None:
    f = tmp_path / "x.c"
    f.write_text("/* a */\nstatic int\nf(int a)\n{\n" + "    a++;\n" * 3 + "    return a;\n}\n", encoding="utf-8")
    assert function_lengths(f) == [(8, "static int")]


def sample_columns() -> list[str]:
    schema = json.loads((ROOT / "docs" / "schema" / "memfbench-run.schema.json").read_text(encoding="utf-8"))
    return [c for c in schema["properties"]["samples"]["required"] if c != "count"]


def other_document_keys() -> set[str]:
    """Every property name the schema uses outside the samples block."""
    schema = json.loads((ROOT / "docs" / "schema" / "memfbench-run.schema.json").read_text(encoding="utf-8"))
    keys: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for k in ("properties",):
                if isinstance(node.get(k), dict):
                    keys.update(node[k])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    top = dict(schema["properties"])
    top.pop("samples")
    walk({"properties": top, "$defs": schema.get("$defs", {})})
    return keys


def test_sample_columns_are_named_in_one_c_file() -> None:
    """The column list lives in bench/report/columns.c. Some names are also ordinary words of
    the tool (a batch's "calls", the "bytes" variant, the --variant option), so other files may
    hold a few of them; a file holding more than half of them would be another column list."""
    columns = sample_columns()
    counts = {p.relative_to(ROOT).as_posix(): sum(f'"{c}"' in p.read_text(encoding="utf-8") for c in columns)
              for p in c_files()}
    assert [p for p, k in counts.items() if k == len(columns)] == ["bench/report/columns.c"]
    others = {p: k for p, k in counts.items() if p != "bench/report/columns.c" and k > len(columns) // 2}
    assert others == {}, f"files that list sample columns: {others}"
    # Columns that are no other key of the document appear nowhere else.
    for name in ("t_start_ns", "ticks", "position"):
        assert name not in other_document_keys()
        assert [p for p in c_files() if f'"{name}"' in p.read_text(encoding="utf-8")] == [BENCH / "report" / "columns.c"]


# The --processes parent reads a child's file once into a typed result (processes/child.c) and
# builds the merged file from the study and those results (processes/merge.c): editing a tree in
# place would be the merge patching a child's document again.
TREE_EDIT = re.compile(r"\bcJSON_(?:Replace\w*|Delete\w+|Detach\w*|InsertItemInArray)\s*\(")


def tree_edits_in_the_merge_path() -> list[str]:
    return sorted(f"{p.relative_to(BENCH)}: {m.group(0)}" for p in (BENCH / "orchestrate").glob("*.c")
                  for m in TREE_EDIT.finditer(p.read_text(encoding="utf-8")))


def test_the_merge_never_edits_a_childs_document() -> None:
    assert tree_edits_in_the_merge_path() == []


def test_the_tree_edit_check_sees_an_edit() -> None:
    assert TREE_EDIT.search('cJSON_ReplaceItemInObjectCaseSensitive(c, "processes", n);')
    assert TREE_EDIT.search('cJSON_DeleteItemFromObjectCaseSensitive(doc, "samples");')
    assert not TREE_EDIT.search("cJSON_Delete(doc);")  # freeing a whole tree is not editing it


# --- the chassis's rooms (issue 51): each mechanism lives in one room, and the test names it ---

# orchestrate/ holds the command drivers (<command>_run.c, recordings_merge.c) and the assembly of a
# study (its variants, CPU plan and its application, the guard around the code under test, the
# default label, the analysis run in place of `memfbench analyze`); nothing else.
ORCHESTRATE_ASSEMBLY = {"assemble", "cpus", "plan", "guard", "gitlabel", "analysis", "recordings_merge"}
# Where code that is not a driver goes, by what it does.
ROOMS = ("programs/ (starting a program, stop requests, the reply channel), files/ (inputs, temporaries), "
         "source/ (building the user's code), counts/ and ab/ (a command's wing), processes/ (a study's processes)")


def strays_in_orchestrate(bench: Path | None = None) -> list[str]:
    bench = bench or BENCH
    return [f"bench/orchestrate/{p.name}: neither a command's driver (<command>_run.c) nor the assembly of a study; "
            f"put it in its room: {ROOMS}" for p in sorted((bench / "orchestrate").glob("*.c"))
            if not p.stem.endswith("_run") and p.stem not in ORCHESTRATE_ASSEMBLY]


def test_orchestrate_holds_only_drivers_and_a_studys_assembly() -> None:
    assert strays_in_orchestrate() == []


def test_the_orchestrate_rule_names_the_rooms(tmp_path: Path) -> None:
    (tmp_path / "orchestrate").mkdir()
    (tmp_path / "orchestrate" / "valgrind_parse.c").write_text("", encoding="utf-8")
    (tmp_path / "orchestrate" / "counts_run.c").write_text("", encoding="utf-8")
    found = strays_in_orchestrate(tmp_path)
    assert len(found) == 1 and "valgrind_parse.c" in found[0] and "programs/" in found[0]


# One way to start a program (programs/run.c), one stop request (programs/stop.c), one maker of
# temporaries (files/temporaries.c). The analysis is exec'd in place of the process (nothing waits
# for it: orchestrate/analysis.c); programs/reexec.c runs this binary again for the runner.
MECHANISMS = [
    (re.compile(r"\b(?:fork|vfork|posix_spawnp?|execv|execvp|execve|execl\w*|system|popen|waitpid|wait4|wait)\s*\("),
     "starts or waits for a program: use programs/run.h (mfb_prog_run)",
     {"programs/run.c", "programs/reexec.c", "orchestrate/analysis.c"}),
    (re.compile(r"\bsigaction\s*\(\s*SIG(?:INT|TERM|HUP)\b|\bsignal\s*\(\s*SIG(?:INT|TERM|HUP)\b"),
     "takes stop requests itself: use programs/stop.h (mfb_stop_install, mfb_stop_signal)",
     {"programs/stop.c", "programs/run.c"}),
    (re.compile(r"\b(?:mkstemp|mkdtemp|tmpfile|tmpnam|tempnam)\s*\("),
     "makes a temporary itself: use files/temporaries.h (mfb_temp_make), which registers it",
     {"files/temporaries.c"}),
]


def mechanisms_out_of_their_room(bench: Path | None = None) -> list[str]:
    bench = bench or BENCH
    bad = []
    for path in sorted(bench.rglob("*.c")):
        rel = path.relative_to(bench).as_posix()
        if rel.startswith("ab/shim/"):
            continue  # the shim runs inside the user's program, not memfbench
        text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
        for pattern, why, allowed in MECHANISMS:
            if rel not in allowed and pattern.search(text):
                bad.append(f"bench/{rel} {why}")
    return bad


def test_each_mechanism_lives_in_its_room() -> None:
    assert mechanisms_out_of_their_room() == []


def test_the_mechanism_check_sees_a_fork(tmp_path: Path) -> None:
    (tmp_path / "counts").mkdir()
    (tmp_path / "counts" / "x.c").write_text("int f(void) { return fork(); } /* fork() in a comment */\n",
                                             encoding="utf-8")
    (tmp_path / "counts" / "y.c").write_text("/* mkstemp( only in a comment */\n", encoding="utf-8")
    found = mechanisms_out_of_their_room(tmp_path)
    assert len(found) == 1 and "bench/counts/x.c starts or waits" in found[0]
