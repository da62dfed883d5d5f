"""A variant is its code: files whose same-named variant ran different machine code are never pooled.

Each variant of a result file carries `code_identity` (bench/impl/identity.c): a plugin is known by
its shared object's SHA-256 and symbol, the C library by its file's SHA-256 and the entry the loader
picked, memfbench's own variants by the build (compiler, flags, source revision). Where files given
together disagree on a name's identity, every one of that name's codes gets its own label,
`NAME@ID` (the id's first six hex digits, more where six collide), and one note says so. Files
from before the field have no identity; their variants keep their names."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from .load import Run

# Six hex digits, as in a short commit id: enough to tell apart the few codes one comparison
# holds; more are taken only where six collide.
SHORT_ID = 6


def code_id(variant: dict[str, Any]) -> str | None:
    """The variant's code id from its `code_identity`, None in a file from before the field."""
    ident = variant.get("code_identity")
    return str(ident["id"]) if isinstance(ident, dict) and ident.get("id") else None


def describe(variant: dict[str, Any]) -> str:
    """What the identity rests on, short: 'plugin file 80bd27c1', 'library file 6b4a4535 +0x16d800',
    'build 7a9713b5fced' (the source revision), 'source build 3f2a9c01 of f.c (cc -O2)', for notes a
    person reads."""
    ident = variant.get("code_identity") or {}
    basis = str(ident.get("basis", "unknown"))
    if ident.get("file_sha256"):
        text = f"{basis} sha256 {str(ident['file_sha256'])[:8]}"
        return text + (f" +{ident['offset']}" if ident.get("offset") else "")
    build = str(ident.get("build") or "")
    if "revision " in build:
        return f"build of revision {build.rsplit('revision ', 1)[1]}"
    made = variant.get("build")
    if basis == "source build" and isinstance(made, dict):
        # the file, the flags and the key's first digits: what a person changed between two builds
        return (f"source build {str(made.get('key', ''))[:8]} of {made.get('file', '?')} "
                f"({made.get('compiler', '?')} {made.get('flags', '')})")
    return basis


def _labels(ids: list[str]) -> dict[str, str]:
    """Each id's shortest prefix of at least SHORT_ID digits that no other id shares."""
    out = {}
    for i in ids:
        n = SHORT_ID
        while n < len(i) and any(j != i and j[:n] == i[:n] for j in ids):
            n += 1
        out[i] = i[:n]
    return out


def renamed(run: Run, mapping: dict[str, str]) -> Run:
    """The run with its variants renamed (old name -> new), in its document and all its batches."""
    if not mapping:
        return run
    doc = dict(run.doc)
    doc["variants"] = [{**v, "name": mapping.get(v["name"], v["name"])} for v in run.doc["variants"]]
    cfg = dict(run.doc["config"])
    cfg["variants"] = [mapping.get(n, n) for n in cfg["variants"]]
    cfg["baseline"] = mapping.get(cfg["baseline"], cfg["baseline"])
    doc["config"] = cfg
    return replace(run, doc=doc, table=run.table.renamed(mapping), class_table=run.class_table.renamed(mapping),
                   thread_table=None if run.thread_table is None else run.thread_table.renamed(mapping))


def separate(runs: list[Run]) -> tuple[list[Run], list[str]]:
    """The runs with every name whose code differs between them split into NAME@ID, and one note
    per such name. Within one file a name has one code (the run refuses a name twice)."""
    codes: dict[str, dict[str, list[tuple[Run, dict[str, Any]]]]] = {}
    for r in runs:
        for v in r.doc["variants"]:
            i = code_id(v)
            if i is not None:
                codes.setdefault(v["name"], {}).setdefault(i, []).append((r, v))
    split = {name: ids for name, ids in codes.items() if len(ids) > 1}
    if not split:
        return runs, []
    notes = []
    mappings: dict[int, dict[str, str]] = {}
    for name, ids in split.items():
        short = _labels(list(ids))
        parts = []
        for i, where in ids.items():
            label = f"{name}@{short[i]}"
            for r, _ in where:
                mappings.setdefault(id(r), {})[name] = label
            files = ", ".join(dict.fromkeys(r.path.rsplit("/", 1)[-1] for r, _ in where))
            parts.append(f"{label} ({describe(where[0][1])}: {files})")
        notes.append(f"{name} names {len(ids)} different codes in these files; kept apart as " + "; ".join(parts))
    return [renamed(r, mappings.get(id(r), {})) for r in runs], notes


def code_changes(before: list[Run], after: list[Run]) -> list[str]:
    """A line per variant of both sides whose code differs between them: 'erms: plugin file sha256
    80bd27c1 -> plugin file sha256 1f2e3d4c', the code change a before/after comparison is about."""
    def by_name(runs: list[Run]) -> dict[str, dict[str, dict[str, Any]]]:
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for r in runs:
            for v in r.doc["variants"]:
                i = code_id(v)
                if i is not None:
                    out.setdefault(v["name"], {}).setdefault(i, v)
        return out

    b, a = by_name(before), by_name(after)
    lines = []
    for name in b:
        if name in a and set(b[name]) != set(a[name]):
            lines.append(f"{name}: " + " | ".join(describe(v) for v in b[name].values()) + " -> "
                         + " | ".join(describe(v) for v in a[name].values()))
    return lines
