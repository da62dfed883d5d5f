"""tools/lib/machine.py: the report's description of the machine is read from a host block, never
assumed. Synthetic host blocks: a virtual machine and bare metal, isolated and not."""
from __future__ import annotations

from typing import Any

import pytest

from tools.lib import machine


def host(**changes: Any) -> dict[str, Any]:
    """A host block as memfbench writes it (a 2-CPU VM without cpufreq or perf), with `changes`
    merged in one level deep."""
    h: dict[str, Any] = {
        "hostname": "h", "kernel": "6.1.0",
        "cpu": {"model": "Test CPU", "flags": ["sse2", "avx2", "hypervisor"], "online": 2},
        "pinned_cpu": 1,
        "caches": {"l1d": 48 * 1024, "l2": 2048 * 1024, "llc": 32768 * 1024, "line": 64, "source": "sysfs"},
        "frequency": {"governor": None, "driver": None, "boost": None, "intel_no_turbo": None},
        "smt": {"active": "0", "control": "notsupported"},
        "transparent_hugepages": {"enabled": "madvise"}, "aslr": 2,
        "isolated_cpus": "",
        "perf_counters": {"cycles_available": False, "error": "No such file or directory"},
    }
    for k, v in changes.items():
        h[k] = {**h[k], **v} if isinstance(v, dict) and isinstance(h.get(k), dict) else v
    return h


BARE_METAL = dict(cpu={"flags": ["sse2", "avx2"], "online": 16}, pinned_cpu=3, isolated_cpus="2-3",
                  frequency={"governor": "performance", "boost": "0"},
                  perf_counters={"cycles_available": True, "error": None})


@pytest.mark.parametrize("text,cpus", [("", []), (None, []), ("3", [3]), ("2-3,6", [2, 3, 6]),
                                       ("0-1, 8-9", [0, 1, 8, 9])])
def test_cpu_list(text, cpus):
    assert machine.cpu_list(text) == cpus


def test_virtual_machine_without_isolation():
    text = machine.describe_machine(host())
    assert "Test CPU, 2 CPUs online, kernel 6.1.0" in text
    assert "virtual machine (the CPU reports the `hypervisor` flag)" in text
    assert "pinned to CPU 1, which is not isolated (/sys/devices/system/cpu/isolated: empty)" in text
    assert "No frequency control" in text
    assert "No hardware performance counters (perf_event_open: No such file or directory)" in text
    assert "noise this allows (virtualization, no CPU isolation, no frequency control)" in text


def test_bare_metal_isolated_and_controlled():
    h = host(**BARE_METAL)
    text = machine.describe_machine(h)
    assert "16 CPUs online" in text and "virtual machine" not in text and "Not virtualized" in text
    assert "pinned to CPU 3, which is isolated (/sys/devices/system/cpu/isolated: 2-3)" in text
    assert "governor `performance`" in text and "boost" not in text
    assert "Hardware cycle counters available" in text
    assert machine.noise_sources(h) == [] and "noise this allows" not in text


def test_counts_come_from_the_host_block():
    text = machine.describe_machine(host(cpu={"online": 64}, pinned_cpu=17))
    assert "64 CPUs online" in text and "CPU 17" in text and "2 CPUs" not in text and "CPU 1," not in text


@pytest.mark.parametrize("changes,isolated", [
    (dict(pinned_cpu=5, isolated_cpus="2-3"), False),
    (dict(pinned_cpu=2, isolated_cpus="2-3"), True),
    (dict(pinned_cpu=None, isolated_cpus="2-3"), None),
    (dict(pinned_cpu=2, isolated_cpus=None), None),
])
def test_pinned_cpu_isolation(changes, isolated):
    assert machine.pinned_cpu_isolated(host(**changes)) is isolated


def test_unpinned_and_unknown_states():
    text = machine.describe_machine(host(pinned_cpu=None))
    assert "not pinned to a CPU" in text
    text = machine.describe_machine(host(isolated_cpus=None))
    assert "isolation is unknown" in text
    h = host()
    del h["perf_counters"]
    assert "Performance counters not checked" in machine.describe_machine(h)


@pytest.mark.parametrize("frequency,phrase,controlled", [
    ({"governor": "powersave"}, "governor `powersave`: the clock follows the load", False),
    ({"governor": "performance", "boost": "1"}, "with boost/turbo on", False),
    ({"governor": "performance", "intel_no_turbo": "0"}, "with boost/turbo on", False),
    ({"governor": "performance", "intel_no_turbo": "1"}, "governor `performance`.", True),
])
def test_frequency_control(frequency, phrase, controlled):
    h = host(frequency=frequency)
    assert phrase in machine.describe_machine(h)
    assert machine.frequency_controlled(h) is controlled
    assert ("no frequency control" in machine.noise_sources(h)) is not controlled


def test_smt_is_a_noise_source():
    h = host(**BARE_METAL, smt={"active": "1"})
    assert machine.noise_sources(h) == ["SMT"] and "SMT active" in machine.describe_machine(h)
