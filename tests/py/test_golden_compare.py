"""tools/lib/golden.py, the judge of tools/golden_compare.py: a change is what differs between before
and after and never between runs before; warnings are known by code, processes and variants by the
shape of their fields."""
from __future__ import annotations

import copy
from typing import Any

from tools.lib import golden

RUN = {
    "created_utc": "2026-11-24T10:00:00Z",
    "config": {"function": "memcpy", "processes": 2},
    "status": {"warnings": [{"code": "isolation", "message": "m"}]},
    "variants": [{"name": "libc", "address": "0x1"}, {"name": "erms", "address": "0x2"}],
    "timer": {"hz": 1.0},
    "processes": [{"index": 0, "timer": {"hz": 1.0}}, {"index": 1, "timer": {"hz": 1.0}}],
    "samples": {"count": 2, "round": [0, 0], "ns": [10.0, 11.0]},
}


def varied(**changes: Any) -> dict:
    """RUN with the values at the given paths (parts joined by "__") replaced."""
    d = copy.deepcopy(RUN)
    for path, value in changes.items():
        node: Any = d
        *head, last = path.split("__")
        for k in head:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[int(last) if isinstance(node, list) else last] = value
    return d


def test_flatten_keeps_columns_whole_and_warnings_by_code() -> None:
    f = golden.flatten(RUN)
    assert f["samples.round"] == [0, 0] and f["samples.count"] == 2
    assert f["status.warnings[isolation].message"] == "m"
    assert f["variants[1].name"] == "erms"


def test_a_measured_field_that_varies_anywhere_is_noise_everywhere() -> None:
    noise = golden.noise(RUN, [varied(samples__ns=[12.0, 9.0], variants__0__address="0x9",
                                      processes__1__timer__hz=2.0)])
    after = varied(samples__ns=[10.5, 11.5], variants__1__address="0x7", timer__hz=3.0,
                   processes__0__timer__hz=3.0, created_utc="2026-11-24T10:00:01Z")
    v = golden.compare(RUN, after, noise)
    assert v.same, v.unexplained
    assert len(v.changed) == 5


def test_a_deterministic_column_or_field_that_changes_is_named() -> None:
    noise = golden.noise(RUN, [varied(samples__ns=[12.0, 9.0])])
    after = varied(samples__round=[0, 1], config__processes=3)
    assert golden.compare(RUN, after, noise).unexplained == ["config.processes", "samples.round"]


def test_a_lost_warning_or_section_is_a_change() -> None:
    after = copy.deepcopy(RUN)
    after["status"]["warnings"] = []
    del after["timer"]
    v = golden.compare(RUN, after, golden.noise(RUN, [RUN]))
    assert "status.warnings[isolation].message" in v.unexplained and "timer.hz" in v.unexplained


def test_one_more_process_in_a_repeat_does_not_make_every_process_field_noise() -> None:
    more = copy.deepcopy(RUN)
    more["processes"].append({"index": 2, "timer": {"hz": 1.0}})
    noise = golden.noise(RUN, [more])
    assert "processes[2].index" in noise and "index" not in noise
    assert golden.compare(RUN, varied(processes__1__index=7), noise).unexplained == ["processes[1].index"]


def test_warnings_a_measured_value_raises_are_noise_and_others_are_not() -> None:
    after = copy.deepcopy(RUN)
    after["status"]["warnings"].append({"code": "batch", "message": "short"})
    after["status"]["warnings"].append({"code": "memory", "message": "new"})
    v = golden.compare(RUN, after, golden.noise(RUN, [RUN]))
    assert v.unexplained == ["status.warnings[memory].code", "status.warnings[memory].message"]
