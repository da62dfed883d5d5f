"""What a result file's `host` block says about the machine, as sentences for a report: CPU,
caches, virtualization, the pinned CPU and its isolation, frequency control, SMT and performance
counters. Pure functions of the host dictionary; nothing here reads the running machine."""
from __future__ import annotations

from typing import Any, Mapping

Host = Mapping[str, Any]

ISOLATED_FILE = "/sys/devices/system/cpu/isolated"


def cpu_list(text: str | None) -> list[int]:
    """CPU numbers of a kernel CPU list such as "2-3,6" (the format of sysfs `isolated`)."""
    cpus: list[int] = []
    for part in (text or "").replace(" ", "").split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus += range(int(lo), int(hi or lo) + 1)
    return cpus


def is_virtualized(host: Host) -> bool:
    """Whether the CPU reports the `hypervisor` flag (set by every common hypervisor)."""
    return "hypervisor" in host["cpu"].get("flags", [])


def pinned_cpu_isolated(host: Host) -> bool | None:
    """Whether the CPU the run was pinned to is in the kernel's isolated list; None when the run
    was not pinned or the list was not readable."""
    cpu = host.get("pinned_cpu")
    listed = host.get("isolated_cpus")
    if cpu is None or listed is None:
        return None
    return cpu in cpu_list(listed)


def frequency_controlled(host: Host) -> bool:
    """A cpufreq governor that holds the clock (`performance`) and no boost/turbo."""
    f = host.get("frequency", {})
    return f.get("governor") == "performance" and f.get("boost") != "1" and f.get("intel_no_turbo") != "0"


def smt_active(host: Host) -> bool:
    return host.get("smt", {}).get("active") == "1"


def perf_cycles_available(host: Host) -> bool | None:
    """host.perf_counters.cycles_available; None when the file does not say."""
    pc = host.get("perf_counters")
    return None if pc is None else bool(pc["cycles_available"])


def hardware_sentence(host: Host) -> str:
    c = host["caches"]
    kernel = f", kernel {host['kernel']}" if host.get("kernel") else ""
    return (f"{host['cpu']['model']}, {int(host['cpu']['online'])} CPUs online{kernel}, caches "
            f"L1d {c['l1d'] // 1024} KiB / L2 {c['l2'] // 1024} KiB / LLC {c['llc'] // 1024} KiB.")


def virtualization_sentence(host: Host) -> str:
    if is_virtualized(host):
        return "A virtual machine (the CPU reports the `hypervisor` flag)."
    return "Not virtualized as far as the CPU tells (no `hypervisor` flag)."


def pinning_sentence(host: Host) -> str:
    cpu = host.get("pinned_cpu")
    if cpu is None:
        return "The runs were not pinned to a CPU."
    isolated = pinned_cpu_isolated(host)
    if isolated is None:
        state = f"whose isolation is unknown ({ISOLATED_FILE} not readable)"
    elif isolated:
        state = f"which is isolated ({ISOLATED_FILE}: {host['isolated_cpus']})"
    else:
        listed = host.get("isolated_cpus") or "empty"
        state = f"which is not isolated ({ISOLATED_FILE}: {listed})"
    return f"The process was pinned to CPU {cpu}, {state}."


def frequency_sentence(host: Host) -> str:
    f = host.get("frequency", {})
    governor = f.get("governor")
    if governor is None:
        text = "No frequency control: the kernel exposes no cpufreq governor"
    elif governor == "performance":
        text = "Frequency governor `performance`"
    else:
        text = f"Frequency governor `{governor}`: the clock follows the load"
    if f.get("boost") == "1" or f.get("intel_no_turbo") == "0":
        text += ", with boost/turbo on"
    return text + "."


def smt_sentence(host: Host) -> str:
    active = host.get("smt", {}).get("active")
    if active is None:
        return "SMT state unknown."
    return "SMT active: a sibling thread shares the core." if active == "1" else "SMT off."


def perf_sentence(host: Host) -> str:
    available = perf_cycles_available(host)
    if available is None:
        return "Performance counters not checked."
    if available:
        return "Hardware cycle counters available."
    error = host["perf_counters"].get("error")
    return f"No hardware performance counters{f' (perf_event_open: {error})' if error else ''}."


def noise_sources(host: Host) -> list[str]:
    """The facts of `host` that let other work or the clock disturb a measurement."""
    out = []
    if is_virtualized(host):
        out.append("virtualization")
    if pinned_cpu_isolated(host) is not True:
        out.append("no CPU isolation")
    if not frequency_controlled(host):
        out.append("no frequency control")
    if smt_active(host):
        out.append("SMT")
    return out


def describe_machine(host: Host) -> str:
    """One paragraph on the machine a result file was measured on, every statement read from its
    host block, closing with the noise those facts allow."""
    noise = noise_sources(host)
    closing = (f"The figures include the noise this allows ({', '.join(noise)}), which is the point."
               if noise else "None of the usual noise sources (virtualization, shared CPU, varying clock, SMT) "
                             "applies.")
    return " ".join([hardware_sentence(host), virtualization_sentence(host), pinning_sentence(host),
                     frequency_sentence(host), smt_sentence(host), perf_sentence(host), closing])
