"""The JSON Schema of memfbench result files, validation against it, and the names it defines.

The schema file (docs/schema/memfbench-run.schema.json) is the one source of truth: the sample
columns and their kinds, and the closed sets of names (stop reasons, warm-up modes, table
origins), are read from it here rather than listed again in Python. Reading a file is
io/reading.py's (bounded, plain or gzip), bringing an older one to this version io/upgrade.py's;
io/load.py's read_result does the three in turn."""
from __future__ import annotations

import json
import math
import re
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .reading import ResultFileError

# docs/schema/ of the repository (the root is two folders above analysis/io/)
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "docs" / "schema"
SCHEMA_PATH = SCHEMA_DIR / "memfbench-run.schema.json"


@lru_cache(maxsize=4)
def load_schema_file(path: Path) -> dict[str, Any]:
    """A JSON Schema of docs/schema/, read once. It is checked to be a valid Draft 2020-12 schema
    where jsonschema first validates against it (checked_validator), and by the tests: reading the
    names it defines (the sample columns, the enums) needs no jsonschema."""
    with open(path, encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


_CHECKED: dict[int, tuple[dict[str, Any], Any]] = {}


def checked_validator(schema: dict[str, Any]) -> Any:
    """jsonschema's Draft 2020-12 validator of a schema, the schema checked against the meta-schema
    the first time (jsonschema is imported here: only a document the fast check (conforms) does not
    pass, and the small documents, pay its import)."""
    import jsonschema
    cached = _CHECKED.get(id(schema))
    if cached is None or cached[0] is not schema:
        jsonschema.Draft202012Validator.check_schema(schema)
        cached = (schema, jsonschema.Draft202012Validator(schema))
        _CHECKED[id(schema)] = cached
    return cached[1]


def document_errors(doc: Any, schema_path: Path) -> list[str]:
    """Every way doc departs from the JSON Schema at schema_path, each "PATH: message", in the
    order of their paths: the small documents (ab, counts) that need no bulk validation."""
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}" for e in
            sorted(checked_validator(load_schema_file(schema_path)).iter_errors(doc),
                   key=lambda e: list(e.absolute_path))]


def read_small_document(path: str | Path, name: str) -> tuple[dict[str, Any], list[str]]:
    """A small document (memfbench-ab, memfbench-counts) read, its "schema" checked to be name
    (ResultFileError otherwise), and its departures from docs/schema/NAME.schema.json: the caller
    adds the rules the schema cannot state and refuses with first_error."""
    from .reading import ResultFileError, read_json
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != name:
        raise ResultFileError(f"{path}: not a {name.replace('-', ' ')} file (its \"schema\" is not \"{name}\")")
    return doc, document_errors(doc, SCHEMA_DIR / f"{name}.schema.json")


def first_error(path: str | Path, what: str, errors: list[str]) -> str:
    """The one line a refused document gets: its first error, and how many more."""
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{path}: not a valid {what}: {errors[0][:300]}{more}"


def load_schema() -> dict[str, Any]:
    """The result file's schema."""
    return load_schema_file(SCHEMA_PATH)


def resolve(node: dict[str, Any], schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The subschema a local `$ref` ("#/$defs/NAME") points to; any other node as it is."""
    ref = node.get("$ref")
    if ref is None:
        return node
    if not ref.startswith("#/"):
        raise ValueError(f"schema: only local references are supported, not {ref!r}")
    target: Any = schema if schema is not None else load_schema()
    for key in ref[2:].split("/"):
        target = target[key]
    return resolve(target, schema)


def subschema(*path: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema of the property at `path` (names of nested properties from the document's top),
    with references resolved: subschema("status", "stop_reason")."""
    node = schema if schema is not None else load_schema()
    for key in path:
        node = resolve(node, schema)["properties"][key]
    return resolve(node, schema)


def schema_enum(*path: str, schema: dict[str, Any] | None = None) -> tuple[str, ...]:
    """The allowed values of the enumerated property at `path`, in the schema's order."""
    node = subschema(*path, schema=schema)
    if "enum" not in node:
        raise ValueError(f"schema: {'/'.join(path)} is not an enum")
    return tuple(node["enum"])


def column_kind(spec: dict[str, Any], schema: dict[str, Any] | None = None) -> str:
    """The kind of one sample column from its schema: "uint" (integers >= 0), "int" (integers >= -1),
    "number" (numbers) or "bool" (booleans)."""
    node = resolve(spec, schema)
    items = resolve(node.get("items", {}), schema)
    if node.get("type") != "array":
        raise ValueError(f"schema: a sample column is not an array: {spec}")
    kind = items.get("type")
    if kind == "boolean":
        return "bool"
    if kind == "number":
        return "number"
    if kind == "integer" and items.get("minimum") == 0:
        return "uint"
    if kind == "integer" and items.get("minimum") == -1:
        return "int"
    raise ValueError(f"schema: a sample column of unknown kind: {spec}")


def sample_column_kinds(schema: dict[str, Any] | None = None) -> dict[str, str]:
    """Every sample column (the required names of `samples` but "count"), in the schema's order,
    with its kind."""
    samples = subschema("samples", schema=schema)
    return {name: column_kind(samples["properties"][name], schema)
            for name in samples["required"] if name != "count"}


def optional_column_kinds(schema: dict[str, Any] | None = None) -> dict[str, str]:
    """The sample columns a file has only sometimes (the properties of `samples` that are not
    required: the --counters columns), with their kinds."""
    samples = subschema("samples", schema=schema)
    return {name: column_kind(spec, schema) for name, spec in samples["properties"].items()
            if name not in samples["required"]}


COLUMN_KINDS: dict[str, str] = sample_column_kinds()
SAMPLE_COLUMNS: tuple[str, ...] = tuple(COLUMN_KINDS)
OPTIONAL_KINDS: dict[str, str] = optional_column_kinds()
OPTIONAL_COLUMNS: tuple[str, ...] = tuple(OPTIONAL_KINDS)
STOP_REASONS: tuple[str, ...] = schema_enum("status", "stop_reason")
WARMUP_MODES: tuple[str, ...] = schema_enum("rounds", "warmup_detail", "mode")
TABLE_ORIGINS: tuple[str, ...] = schema_enum("distribution", "tables", "size", "origin")

# Sample columns are checked with numpy: per-item schema validation of hundreds of thousands of
# numbers in Python takes seconds. The schema still sees a short prefix of each column.
_PREFIX = 16
# Bounds no memfbench document comes near. Deeper nesting would exhaust Python's recursion in the
# schema validator; every memfbench integer (a count, ticks, nanoseconds, bytes) fits in 64 bits,
# and a larger one overflows the float and int64 conversions of the analysis.
MAX_DEPTH = 64
INT_LIMIT = 2 ** 64
# A schema message quotes the offending value, which can be a whole block of the document.
_MESSAGE_MAX = 300


def _is_text(s: str) -> bool:
    """False for strings with lone surrogates: JSON's \\ud800 escapes decode to them, and no
    output (terminal, UTF-8 report, CSV) can encode them."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _node_error(node: Any) -> str | None:
    if isinstance(node, str) and not _is_text(node):
        return "a string that is not Unicode text (a lone surrogate escape)"
    if isinstance(node, int) and not isinstance(node, bool) and abs(node) >= INT_LIMIT:
        return "integer out of range (more than 64 bits)"
    if isinstance(node, float) and not math.isfinite(node):
        return f"{node} is not a finite number"  # NaN, Infinity and 1e999 read as floats
    return None


def _where(path: tuple[Any, ...]) -> str:
    return "/".join(map(str, path)) or "(top)"


def _numbers_fine(values: list[Any]) -> bool:
    """True when every entry of a list is an int, float or bool that _node_error passes: the check
    of a long list in a few passes in C instead of one Python call per entry. False says only that
    the entries must be looked at one by one."""
    types = set(map(type, values))
    if not types <= {int, float, bool}:
        return False
    try:
        return max(map(abs, values)) < INT_LIMIT and (float not in types or all(map(math.isfinite, values)))
    except OverflowError:  # math.isfinite of an integer beyond the largest double
        return False


def _scan(doc: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
    """shape_errors's answer, and the paths of the long lists of numbers outside the samples that it
    checked whole without visiting each entry (the JSON Schema may see only their prefix: _probe)."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(doc, ())]
    long: list[tuple[Any, ...]] = []
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return [f"{_where(path)[:80]}...: nested more than {MAX_DEPTH} levels deep"], []
        problem = _node_error(node)
        if problem:
            return [f"{_where(path)}: {problem}"], []
        if isinstance(node, dict):
            for key, value in node.items():
                if not _is_text(key):
                    return [f"{_where(path)}: a key that is not Unicode text (a lone surrogate escape)"], []
                stack.append((value, path + (key,)))
        elif isinstance(node, list):
            column = len(path) == 2 and path[0] == "samples"
            if not column and len(node) > _PREFIX and len(path) < MAX_DEPTH and _numbers_fine(node):
                long.append(path)
                continue
            stack.extend((value, path + (i,)) for i, value in enumerate(node[:_PREFIX] if column else node))
    return [], long


def shape_errors(doc: Any) -> list[str]:
    """The first problem the JSON Schema cannot see or would crash on, as ['path: message']: nesting
    deeper than MAX_DEPTH, integers of more than 64 bits, NaN and infinities (Python's JSON reader
    accepts them), keys or strings that are not Unicode text. Iterative, so depth cannot exhaust
    the stack. Sample columns are looked at through their first _PREFIX entries, as the schema
    sees them; _column_errors checks every entry's type without descending into it. Any other long
    list of numbers is checked whole at once (_numbers_fine), entry by entry only where that fails."""
    return _scan(doc)[0]


def _column_errors(name: str, values: Any) -> list[str]:
    if not isinstance(values, list):
        return []  # the schema reports the type
    if not values:
        return []
    kind = COLUMN_KINDS.get(name) or OPTIONAL_KINDS.get(name)
    # The set of the entries' exact types, built in C: a per-entry isinstance in Python took a
    # second on a default study's columns. (bool is its own type here, not a kind of int.)
    types = set(map(type, values))
    if kind == "bool":
        return [] if types <= {bool} else [f"samples/{name}: entries must be true or false"]
    if not types <= {int, float}:
        return [f"samples/{name}: entries must be numbers"]
    if kind == "number":
        try:
            arr = np.asarray(values, dtype=np.float64)
        except OverflowError:  # an integer beyond the largest double
            return [f"samples/{name}: entries must be finite and non-negative"]
    else:
        arr = np.asarray(values)
    if kind in ("uint", "int") and arr.dtype.kind == "f":
        return [f"samples/{name}: entries must be integers"]
    if kind in ("uint", "int") and arr.dtype != np.int64:
        # numpy makes Python integers int64 when they all fit, else uint64 or object; the frame
        # holds them as int64
        return [f"samples/{name}: entries must be integers below 2^63"]
    if kind == "uint" and arr.min() < 0:
        return [f"samples/{name}: entries must be non-negative"]
    if kind == "int" and arr.min() < -1:
        return [f"samples/{name}: entries must be -1 or more"]
    if kind == "number" and (not np.all(np.isfinite(arr)) or arr.min() < 0):
        return [f"samples/{name}: entries must be finite and non-negative"]
    return []


# What the analysis computes with (arithmetic, number formats) that the schema file leaves open,
# since it describes what memfbench promises and lets these blocks grow: checked like the schema,
# so a file that lacks them is refused with its path instead of failing inside a report.
_NUMBER = {"type": "number"}
_ROUNDS = {"type": "object", "required": ["count", "warmup", "duration_s"],
           "properties": {"count": _NUMBER, "warmup": _NUMBER, "duration_s": _NUMBER}}
ANALYSIS_NEEDS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rounds": _ROUNDS,
        "distribution": {"properties": {"selfcheck": {"properties": {"mean_size_realized": _NUMBER}}}},
        "host": {"properties": {"frequency": {"properties": {"cpuinfo_mhz": {"type": ["number", "null"]}}}}},
        "processes": {"type": "array", "items": {
            "type": "object", "required": ["index", "rounds"],
            "properties": {
                "index": {"type": "integer", "minimum": 0},
                "rounds": _ROUNDS,
                "harness": {"type": ["object", "null"], "required": ["overhead_ns_per_call"],
                            "properties": {"overhead_ns_per_call": {"type": "number", "minimum": 0}}},
            }}},
    },
}


def _process_errors(doc: dict[str, Any], process: list[int]) -> list[str]:
    """A batch must be of a process the file has: one of processes[].index, or process 0 in a file
    without that block (one process). A batch of another would be pooled as a process of its own,
    and move every interval over processes."""
    if not process:
        return []
    procs = doc.get("processes")
    known = sorted({p["index"] for p in procs}) if isinstance(procs, list) and procs else [0]
    arr = np.asarray(process, dtype=np.int64)  # integers below 2^63: _column_errors checked them
    beyond = ~np.isin(arr, known) if known != list(range(len(known))) else arr >= len(known)
    if not beyond.any():
        return []
    have = (f"its {len(known)} processes (processes[].index {known[0]} to {known[-1]})" if len(known) > 1
            else f"its one process ({known[0]})")
    k = int(beyond.sum())
    return [f"samples/process: {k} {'batch names' if k == 1 else 'batches name'} process {int(arr[beyond][0])}, "
            f"not one of {have}"]


# A list of numbers longer than _PREFIX (a distribution's tables: thousands of rows) is shown to the
# JSON Schema through its first _PREFIX entries when that changes nothing the schema decides: every
# schema node that applies to it only says it is an array (type, items) and every node that applies
# to its entries only gives their type and bounds, which the rest of the list is checked against at
# once (_tail_fits). Anything else (minItems, enum, a keyword whose subschemas _schema_nodes does not
# follow) leaves the list whole. Validating each entry in Python cost 10 ms of the 14 ms a small
# result took to validate.
# keywords that say nothing about a list or a number (required is about an object's keys)
_INERT = {"description", "title", "$comment", "required"}
_UNFOLLOWED = {"additionalProperties", "patternProperties", "propertyNames", "prefixItems", "contains", "if",
               "then", "else", "not", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties",
               "$dynamicRef"}
_ARRAY_KEYS = {"type", "items", "allOf", "anyOf", "oneOf", "$ref"} | _INERT
_ENTRY_KEYS = {"type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "allOf", "anyOf", "oneOf",
               "$ref"} | _INERT


@dataclass(frozen=True)
class _SchemaNodes:
    """Every node of a schema by the document path it applies to ("*" for any entry of a list), and
    the paths below which a keyword this module does not follow may apply more."""
    at: dict[tuple[str, ...], list[dict[str, Any]]]
    opaque: frozenset[tuple[str, ...]]


_NODES: dict[int, tuple[dict[str, Any], _SchemaNodes]] = {}


def _schema_nodes(schema: dict[str, Any]) -> _SchemaNodes:
    cached = _NODES.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    at: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    opaque: set[tuple[str, ...]] = set()
    todo: list[tuple[Any, tuple[str, ...]]] = [(schema, ())]
    while todo:
        node, path = todo.pop()
        if not isinstance(node, dict) or len(path) > MAX_DEPTH or len(at) > 100_000:
            opaque.add(path)  # a boolean schema, or a recursive one: nothing below is shortened
            continue
        at.setdefault(path, []).append(node)
        if _UNFOLLOWED & node.keys():
            opaque.add(path)
        if "$ref" in node:
            todo.append((resolve({"$ref": node["$ref"]}, schema), path))
        todo += [(sub, path + (key,)) for key, sub in (node.get("properties") or {}).items()]
        if "items" in node:
            todo.append((node["items"], path + ("*",)))
        todo += [(sub, path) for key in ("allOf", "anyOf", "oneOf") for sub in node.get(key) or []]
    nodes = _SchemaNodes(at, frozenset(opaque))
    _NODES[id(schema)] = (schema, nodes)
    return nodes


def _tail_fits(values: list[Any], entry: dict[str, Any]) -> bool:
    """True when every entry of values meets the type and bounds of one entry schema (_ENTRY_KEYS):
    ints for "integer", ints and floats for "number", never a bool. False when it cannot tell at
    once (then the validator sees the whole list)."""
    kind = entry.get("type")
    types = set(map(type, values))
    if kind == "integer" and not types <= {int}:
        return False
    if kind == "number" and not types <= {int, float}:
        return False
    if kind not in (None, "integer", "number"):
        return False
    bounds = [(k, entry[k]) for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") if k in entry]
    if not bounds:
        return True
    if not types <= {int, float} or not all(isinstance(b, (int, float)) for _, b in bounds):
        return False
    low, high = min(values), max(values)  # finite: _scan let no NaN or infinity through
    return all({"minimum": low >= b, "maximum": high <= b, "exclusiveMinimum": low > b,
                "exclusiveMaximum": high < b}[k] for k, b in bounds)


def _may_shorten(schema: dict[str, Any], path: tuple[Any, ...], values: list[Any]) -> bool:
    nodes = _schema_nodes(schema)
    where = tuple("*" if isinstance(k, int) else k for k in path)
    if any(where[:i] in nodes.opaque for i in range(len(where) + 1)) or (where + ("*",)) in nodes.opaque:
        return False
    if any(not node.keys() <= _ARRAY_KEYS for node in nodes.at.get(where, [])):
        return False
    return all(node.keys() <= _ENTRY_KEYS and _tail_fits(values[_PREFIX:], node)
               for node in nodes.at.get(where + ("*",), []))


def _probe(doc: dict[str, Any], long: list[tuple[Any, ...]], schemas: list[dict[str, Any]],
           column_prefix: int = _PREFIX) -> dict[str, Any]:
    """doc as the JSON Schema is shown it: each sample column cut to its first column_prefix entries,
    and each long list of numbers that _may_shorten allows for every schema to its first _PREFIX;
    the containers on the way copied, doc itself unchanged."""
    probe = dict(doc)
    samples = doc.get("samples")
    if isinstance(samples, dict):
        probe["samples"] = {k: (v[:column_prefix] if isinstance(v, list) else v) for k, v in samples.items()}
    copied = {id(probe)}
    for path in long:
        node: Any = probe
        values = doc
        for key in path:
            values = values[key]
        if not all(_may_shorten(s, path, values) for s in schemas):
            continue
        for key in path[:-1]:
            child = node[key]
            if id(child) not in copied:
                child = dict(child) if isinstance(child, dict) else list(child)
                node[key] = child
                copied.add(id(child))
            node = child
        node[path[-1]] = values[:_PREFIX]
    return probe


# A schema whose top says only what the document's blocks are (properties) and which must be there
# validates each block apart: the errors of a block depend on its content alone, and the files of a
# series (one build, one distribution, one machine) repeat most of their blocks, so each block's
# errors are kept by its JSON text, for the last _BLOCKS blocks of at most _BLOCK_TEXT characters
# (the validator took 1.6 of the 7 ms a small result cost history; a block seen before costs its
# serialization, some microseconds). What is printed is what validating the whole document gives.
_TOP_KEYS = {"$schema", "$id", "title", "description", "$comment", "type", "required", "properties", "$defs"}
_BLOCKS = 256
_BLOCK_TEXT = 1 << 16
_block_errors: OrderedDict[tuple[int, str, str], list[tuple[list[Any], str]]] = OrderedDict()
_VALIDATORS: dict[int, tuple[dict[str, Any], Any, Any]] = {}


def _validators(schema: dict[str, Any]) -> tuple[Any, Any]:
    """The schema's validator, and one of its top alone (type, required) where it splits by block."""
    cached = _VALIDATORS.get(id(schema))
    if cached is None or cached[0] is not schema:
        import jsonschema
        top = ({k: v for k, v in schema.items() if k != "properties"} if schema.keys() <= _TOP_KEYS
               and isinstance(schema.get("properties", {}), dict) else None)
        cached = (schema, checked_validator(schema),
                  None if top is None else jsonschema.Draft202012Validator(top))
        _VALIDATORS[id(schema)] = cached
    return cached[1], cached[2]


def _found(errors: Any) -> list[tuple[list[Any], str]]:
    return [(list(e.absolute_path), f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}")
            for e in errors]


def _schema_errors(schema: dict[str, Any], doc: Any) -> list[str]:
    validator, top = _validators(schema)
    if top is None or not isinstance(doc, dict):
        found = _found(validator.iter_errors(doc))
    else:
        found = _found(top.iter_errors(doc))
        for key, sub in schema.get("properties", {}).items():  # the order the whole schema takes them
            if key not in doc:
                continue
            text = json.dumps(doc[key])
            cache = (id(schema), key, text)
            block = _block_errors.get(cache)
            if block is None:
                block = _found(validator.descend(doc[key], sub, path=key, schema_path=key))
                if len(text) <= _BLOCK_TEXT:
                    _block_errors[cache] = block
                    while len(_block_errors) > _BLOCKS:
                        _block_errors.popitem(last=False)
            else:
                _block_errors.move_to_end(cache)
            found += block
    return [message for _, message in sorted(found, key=lambda f: f[0])]


# The fast check: the schema's keywords interpreted as jsonschema's Draft 2020-12 validator does
# (jsonschema/_validators.py), for the keywords memfbench's schemas use. It only says whether a
# document passes: one that passes needs no validator (nor its import, the meta-schema check and
# the walk of the whole document, most of what validation cost a command); one that does not, or
# any keyword or value it does not know, goes to jsonschema, whose messages the refusal quotes. So
# it must never pass what jsonschema refuses: tests/py/test_schema.py checks it against jsonschema
# on real files and on their mutations.
class _Unsure(Exception):
    """The fast check cannot tell: jsonschema decides."""


# keywords that say nothing about the document (jsonschema has no validator for them), and those
# the fast check interprets: every other keyword leaves the decision to jsonschema
_ANNOTATION_KEYS = frozenset({"description", "title", "$comment", "$schema", "$id", "$defs", "examples", "default",
                              "deprecated", "readOnly", "writeOnly"})
FAST_KEYWORDS = _ANNOTATION_KEYS | {
    "type", "$ref", "properties", "required", "patternProperties", "additionalProperties", "items", "minItems",
    "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "enum", "const", "oneOf", "anyOf", "allOf"}
_JSON_SCALARS = (str, int, float, bool, type(None))


def _is_type(kind: Any, x: Any) -> bool:
    if kind == "object":
        return isinstance(x, dict)
    if kind == "array":
        return isinstance(x, list)
    if kind == "string":
        return isinstance(x, str)
    if kind == "boolean":
        return isinstance(x, bool)
    if kind == "null":
        return x is None
    if kind == "number":
        return isinstance(x, (int, float)) and not isinstance(x, bool)
    if kind == "integer":  # Draft 6 on: a float with no fraction is an integer
        return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer())
    raise _Unsure(kind)


def _same(a: Any, b: Any) -> bool:
    """jsonschema's equality of two JSON scalars (true is not 1, false is not 0)."""
    if not isinstance(a, _JSON_SCALARS) or not isinstance(b, _JSON_SCALARS):
        raise _Unsure("const of a container")
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return (a is b) if isinstance(a, bool) or isinstance(b, bool) else a == b


def _one_of(x: Any, enum: list[Any]) -> bool:
    """jsonschema's enum: `in`, but true and 1, false and 0 apart."""
    if isinstance(x, (dict, list)) or any(isinstance(e, (dict, list)) for e in enum):
        raise _Unsure("enum of containers")
    if isinstance(x, bool) or (not isinstance(x, str) and (x == 0 or x == 1)):
        return any(_same(x, e) for e in enum)
    return x in enum


def _fits(node: Any, x: Any, root: dict[str, Any]) -> bool:
    """Whether x meets the schema node (root: the schema its references point into)."""
    if node is True:
        return True
    if node is False:
        return False
    if not isinstance(node, dict) or not isinstance(x, (dict, list) + _JSON_SCALARS):
        raise _Unsure("a schema or value of another kind")
    number = isinstance(x, (int, float)) and not isinstance(x, bool)
    for key, arg in node.items():
        if key in _ANNOTATION_KEYS:
            continue
        if key == "type":
            ok = any(_is_type(k, x) for k in arg) if isinstance(arg, list) else _is_type(arg, x)
        elif key == "$ref":
            if not isinstance(arg, str) or not arg.startswith("#/") or "~" in arg or "%" in arg:
                raise _Unsure(arg)
            ok = _fits(resolve({"$ref": arg}, root), x, root)
        elif key == "properties":
            ok = not isinstance(x, dict) or all(_fits(sub, x[k], root) for k, sub in arg.items() if k in x)
        elif key == "required":
            ok = not isinstance(x, dict) or all(k in x for k in arg)
        elif key == "patternProperties":
            ok = not isinstance(x, dict) or all(_fits(sub, v, root) for p, sub in arg.items()
                                                for k, v in x.items() if re.search(p, k))
        elif key == "additionalProperties":
            if not isinstance(x, dict):
                continue
            known, patterns = node.get("properties", {}), "|".join(node.get("patternProperties", {}))
            extra = [k for k in x if k not in known and not (patterns and re.search(patterns, k))]
            ok = all(_fits(arg, x[k], root) for k in extra) if isinstance(arg, dict) else bool(arg) or not extra
        elif key == "items":
            if "prefixItems" in node:
                raise _Unsure(key)
            ok = not isinstance(x, list) or (bool(x) is False if arg is False else
                                             all(_fits(arg, v, root) for v in x))
        # each as jsonschema words it: refused when `x < minimum`, and so on
        elif key in ("minItems", "maxItems"):
            ok = not isinstance(x, list) or not (len(x) < arg if key == "minItems" else len(x) > arg)
        elif key in ("minLength", "maxLength"):
            ok = not isinstance(x, str) or not (len(x) < arg if key == "minLength" else len(x) > arg)
        elif key == "pattern":
            ok = not isinstance(x, str) or bool(re.search(arg, x))
        elif key == "minimum":
            ok = not number or not x < arg
        elif key == "maximum":
            ok = not number or not x > arg
        elif key == "exclusiveMinimum":
            ok = not number or not x <= arg
        elif key == "exclusiveMaximum":
            ok = not number or not x >= arg
        elif key == "enum":
            ok = _one_of(x, arg)
        elif key == "const":
            ok = _same(x, arg)
        elif key == "oneOf":
            ok = sum(_fits(sub, x, root) for sub in arg) == 1
        elif key in ("anyOf", "allOf"):
            found = [_fits(sub, x, root) for sub in arg]
            ok = any(found) if key == "anyOf" else all(found)
        else:
            raise _Unsure(key)
        if not ok:
            return False
    return True


def conforms(doc: Any, schema: dict[str, Any]) -> bool:
    """True when doc meets the schema for sure, without jsonschema; False when it does not, or when
    the check cannot tell (a keyword or value it does not know): jsonschema must say then."""
    try:
        return _fits(schema, doc, schema)
    except (_Unsure, RecursionError):
        return False


def validation_errors(doc: Any) -> list[str]:
    """Every schema violation plus the cross-field rules a schema cannot state, as 'path: message'."""
    errors, long = _scan(doc)
    if errors:
        return errors  # the validator may not survive them
    samples = doc.get("samples") if isinstance(doc, dict) else None
    present = (SAMPLE_COLUMNS + tuple(c for c in OPTIONAL_COLUMNS if c in samples)) if isinstance(samples, dict) else ()
    columns = [e for col in present for e in _column_errors(col, samples.get(col))]
    # Sample columns that are lists _column_errors passes hold only entries their schema accepts
    # (it is the stricter: integers as ints, not 1.0): the schema then sees one entry of each, and
    # finds what it finds in sixteen; otherwise sixteen, so an early entry's message is the schema's.
    whole = not columns and all(isinstance(samples.get(col), list) for col in present)
    probe = _probe(doc, long, [load_schema(), ANALYSIS_NEEDS], 1 if whole else _PREFIX) if isinstance(doc, dict) \
        else doc
    errors = ([] if conforms(probe, load_schema()) and conforms(probe, ANALYSIS_NEEDS) else
              _schema_errors(load_schema(), probe) or _schema_errors(ANALYSIS_NEEDS, probe))
    if errors or columns:
        return errors or columns
    n = samples["count"]
    for col in present:
        if len(samples[col]) != n:
            errors.append(f"samples/{col}: {len(samples[col])} entries, count says {n}")
    nvar = len(doc["variants"])
    if any(v >= nvar for v in samples["variant"]):
        errors.append(f"samples/variant: an index is not below the {nvar} variants")
    errors += _process_errors(doc, samples["process"])
    nthreads = (doc["config"].get("threads") or {}).get("count", 1)
    if samples.get("thread") and max(samples["thread"]) >= nthreads:
        errors.append(f"samples/thread: an index is not below the {nthreads} threads of config/threads")
    if samples["calls"] and min(samples["calls"]) < 1:
        errors.append("samples/calls: a batch of 0 calls (its time per call does not exist)")
    names = [v["name"] for v in doc["variants"]]
    if names != doc["config"]["variants"]:
        errors.append("variants: names differ from config/variants")
    if len(set(names)) != len(names):
        errors.append("variants: a name appears twice")
    return errors


def _clip(message: str) -> str:
    return message if len(message) <= _MESSAGE_MAX else message[:_MESSAGE_MAX - 3] + "..."


def validate(doc: Any, source: str = "<document>") -> None:
    """Raises ResultFileError naming the first problem."""
    errors = validation_errors(doc)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ResultFileError(f"{source}: not a valid memfbench result: {_clip(errors[0])}{more}")
