"""How the code is laid out, counted at a git revision: the figures issue 40 ("rooms by role")
asks for before and after, so that a later change can be held to them.

    /usr/bin/python3 -m tools.layout_counts [--rev REV] [--json]

- places per option: the functions and file-scope tables of bench/ that hold the option's
  plumbing (OPTIONS below: its row, OPT_ id or case label, "given" flag, default constant, own
  parser, echo, a child's rewrite, the parent's branch). Code that only uses the value is not a
  place, nor is a message that names the option.
- files per folder of bench/ and of the analysis package;
- the longest C functions (test_layout.py's reading of a function) and Python functions;
- raw cJSON members of the child result (the --processes boundary), and the lookups by key the
  parent makes in a child's JSON outside the reader (child.c);
- analysis/cli.py's lines.
A report, not a test: it reads the tree at REV (default: the work tree).
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Each option's plumbing, as a regular expression over C text without comments: the option's long
# name as a whole string literal (a message that mentions it is not a place), its row ({"name", or
# a shared row's macro), its OPT_ id or case label, its "given" flag, its default constant, its
# own parser, its echo or a child's rewrite of it.
OPTIONS = {
    "--processes": r'"--processes"|\{"processes", (?:required|cJSON)|cfg, "processes"|\bOPT_PROCS\b|'
                   r'\bprocesses_given\b|\bprocesses_fitted\b|#define MFB_DEFAULT_PROCESSES|= MFB_DEFAULT_PROCESSES|'
                   r'\bmfb_study_processes_source\b|\bprocesses_source\(|\bprocesses > 1 &&',
    "--cache": r'"--cache"|\{"cache", |\bOPT_CACHE\b|\bparse_cache\b',
    "--cpu": r'"--cpu"|\{"cpu", required|MFB_ROW\("cpu"|\bMFB_ROW_CPU\b|\bcpu_given\b|\bparse_cpu\b|\bmfb_cpu_arg_parse\b|'
             r'"cpu_source"',
}


def files_at(rev: str | None, under: str, suffixes: tuple[str, ...]) -> dict[str, str]:
    """path -> text of every file under `under` at rev (None: the work tree)."""
    if rev is None:
        return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8", errors="replace")
                for p in sorted((ROOT / under).rglob("*")) if p.is_file() and p.suffix in suffixes}
    names = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", rev, under],
                           capture_output=True, text=True, check=True).stdout.split()
    return {n: subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{n}"], capture_output=True, text=True,
                              check=True).stdout for n in names if n.endswith(suffixes)}


def c_units(text: str) -> list[tuple[str, int, str]]:
    """(name, lines, body) of each function (a "{" and "}" in the first column) and of each
    file-scope statement between them (tables, declarations)."""
    lines = text.splitlines()
    units, i, loose = [], 0, []
    while i < len(lines):
        if lines[i] == "{":
            j = lines.index("}", i) if "}" in lines[i:] else len(lines) - 1
            k = i - 1
            while k >= 0 and lines[k].strip() and not lines[k].rstrip().endswith(("*/", ";", "}")) \
                    and not lines[k].startswith("#"):
                k -= 1
            head = " ".join(lines[k + 1:i])
            m = re.search(r"(\w+)\s*\(", head)
            for _ in range(i - 1 - k):
                if loose:
                    loose.pop()
            units.append((m.group(1) if m else head[:40], j - k, "\n".join(lines[k + 1:j + 1])))
            i = j + 1
            continue
        loose.append(lines[i])
        i += 1
    # file-scope code, split at blank lines: each table or declaration block its own place
    block: list[str] = []
    for ln in loose + [""]:
        if ln.strip():
            block.append(ln)
        elif block:
            m = re.search(r"(\w+)\s*(?:\[\]|\[[^\]]*\])?\s*=", " ".join(block)) or re.search(r"(\w+)", block[0])
            units.append(("file scope: " + (m.group(1) if m else "?"), len(block), "\n".join(block)))
            block = []
    return units


def strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def option_places(cfiles: dict[str, str]) -> dict[str, list[str]]:
    out = {}
    for opt, pattern in OPTIONS.items():
        rx = re.compile(pattern)
        places = []
        for path, text in cfiles.items():
            for name, _, body in c_units(strip_comments(text)):
                if rx.search(body):
                    places.append(f"{path}: {name}")
        out[opt] = places
    return out


def python_longest(pyfiles: dict[str, str], n: int = 5) -> list[tuple[int, str]]:
    found = []
    for path, text in pyfiles.items():
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((node.end_lineno - node.lineno + 1, f"{path}: {node.name}"))
    return sorted(found, reverse=True)[:n]


def boundary(cfiles: dict[str, str]) -> dict[str, object]:
    child_h = next((t for p, t in cfiles.items() if p.endswith("/child.h")), "")
    struct = re.search(r"struct mfb_child_result \{(.*?)\n\};", child_h, re.S)
    members = re.findall(r"cJSON \*(\w+);", struct.group(1)) if struct else []
    parent = {p: t for p, t in cfiles.items() if re.search(r"/(processes|merge)\.c$", p)}
    lookups = sum(len(re.findall(r"cJSON_GetObjectItemCaseSensitive\([^,]+,\s*\"", strip_comments(t)))
                  for t in parent.values())
    return {"raw_cjson_members": members, "parent_lookups_by_key": lookups}


def counts(rev: str | None) -> dict[str, object]:
    cfiles = files_at(rev, "bench", (".c", ".h"))
    pyfiles = files_at(rev, "analysis", (".py",))
    folders: dict[str, int] = {}
    for p in cfiles:
        folders[str(Path(p).parent)] = folders.get(str(Path(p).parent), 0) + 1
    for p in pyfiles:
        folders[str(Path(p).parent)] = folders.get(str(Path(p).parent), 0) + 1
    c_long = sorted(((n, f"{p}: {name}") for p, t in cfiles.items() if p.endswith(".c")
                     for name, n, _ in c_units(t) if not name.startswith("file scope")), reverse=True)[:5]
    cli_py = pyfiles.get("analysis/cli.py", "")
    places = option_places(cfiles)
    return {
        "revision": rev or "work tree",
        "places_per_option": {k: len(v) for k, v in places.items()},
        "files_per_option": {k: len({p.split(":")[0] for p in v}) for k, v in places.items()},
        "places": places,
        "files_per_folder": dict(sorted(folders.items())),
        "c_lines_per_folder": {f: sum(len(t.splitlines()) for p, t in cfiles.items() if str(Path(p).parent) == f)
                               for f in sorted({str(Path(p).parent) for p in cfiles})},
        "longest_c_functions": c_long,
        "longest_python_functions": python_longest(pyfiles),
        "boundary": boundary(cfiles),
        "analysis_cli_py_lines": len(cli_py.splitlines()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rev", help="a git revision (default: the work tree)")
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    a = ap.parse_args(argv)
    try:
        c = counts(a.rev)
    except subprocess.CalledProcessError as e:
        print(f"layout_counts: git: {e.stderr.strip() or e}", file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps(c, indent=1))
        return 0
    print(f"layout at {c['revision']}")
    for opt, places in c["places"].items():
        print(f"  {opt}: {len(places)} places in {c['files_per_option'][opt]} files")
        for p in places:
            print(f"      {p}")
    print("  files per folder: " + ", ".join(f"{k} {v}" for k, v in c["files_per_folder"].items()))
    print("  longest C functions: " + "; ".join(f"{n} {w}" for n, w in c["longest_c_functions"]))
    print("  longest Python functions: " + "; ".join(f"{n} {w}" for n, w in c["longest_python_functions"]))
    b = c["boundary"]
    print(f"  child result: raw cJSON members {b['raw_cjson_members']}; the parent's lookups by key in a "
          f"child's JSON outside the reader: {b['parent_lookups_by_key']}")
    print(f"  analysis/cli.py: {c['analysis_cli_py_lines']} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
