"""Figures docs/validation.md measured per CPU family, which the analysis uses where one study
cannot measure them itself, each with the words that name its source in the output.

- the layout floor: a `[1 layout]` tag's sensitivity (how far identical code moves with its
  placement) is never printed below the median over the validation's studies of the same figure
  on that machine (section 10, the source path's "identical code moved" column): one study's own
  estimate, net of its noise, can be ±0.0 % beside a real 1.9 % alignment effect;
- the between-study sd: how far a study's ratio moves from one study to the next on that machine
  beyond what its own interval holds (the host's drift). Its conservative default is the largest
  study-to-study CV of a ratio in section 1 (and, for absolute times, of libc's ns/call there):
  the CV holds each study's own error too, so it overstates the drift, never understates it.

A family without a section gets the largest figure of the families measured, and says so.
tests/py/test_validated.py reads docs/validation.md and fails when these differ from it (the
lead regenerates the report; the numbers here follow it)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Measured:
    """One CPU model's figures, in relative units (0.0157 is 1.57 %)."""

    key: str                 # as docs/validation.md keys its sections: "VENDOR family F model M"
    layout: float            # median over section 10's source-path studies of 1.96 sd of one placement's effect
    layout_studies: int
    ratio_drift: float       # largest study-to-study CV of a ratio in section 1
    ratio_drift_of: str      # which comparison it is
    time_drift: float        # study-to-study CV of libc's median ns/call in section 1
    studies: int             # section 1's invocations


MEASURED: tuple[Measured, ...] = (
    Measured("AuthenticAMD family 26 model 2", 0.0157, 10, 0.0134, "rep_movsb/libc", 0.0184, 40),
    Measured("GenuineIntel family 6 model 207", 0.0206, 10, 0.0191, "rep_movsb/libc", 0.0868, 20),
    Measured("AuthenticAMD family 25 model 1", 0.0252, 10, 0.0078, "rep_movsb/libc", 0.0372, 40),
    Measured("GenuineIntel family 6 model 167", 0.0147, 10, 0.0056, "rep_movsb/libc", 0.0201, 40),
)

SOURCE = "docs/validation.md"


def family_of(key: str) -> str:
    """'AuthenticAMD family 26 model 2' -> 'AuthenticAMD family 26'."""
    return key.split(" model ")[0]


def measured_for(key: str) -> tuple[Measured | None, str]:
    """The section for a CPU (its model, else one of its family) and how it matched: 'model',
    'family' or '' (none: the caller takes the largest figure of all)."""
    for m in MEASURED:
        if m.key == key:
            return m, "model"
    for m in MEASURED:
        if family_of(m.key) == family_of(key):
            return m, "family"
    return None, ""


def layout_floor(key: str) -> tuple[float, str]:
    """The floor of a [1 layout] sensitivity on this CPU and the words naming it."""
    m, how = measured_for(key)
    if m is not None:
        return m.layout, (f"floor from {SOURCE} section 10, {m.key}: median of {m.layout_studies} studies"
                          + ("" if how == "model" else " (same family)"))
    top = max(MEASURED, key=lambda x: x.layout)
    return top.layout, (f"floor from {SOURCE} section 10: no section for {family_of(key)}, so the largest "
                        f"family's ({top.key})")


def drift_default(key: str, absolute: bool = False) -> tuple[float, str]:
    """The conservative default of the between-study sd (a fraction, on the log scale) for a
    ratio (absolute: for a time per call) on this CPU, and the words naming it."""
    m, how = measured_for(key)
    what = "libc's ns/call" if absolute else "a ratio"
    if m is not None:
        value = m.time_drift if absolute else m.ratio_drift
        of = "" if absolute else f" ({m.ratio_drift_of})"
        return value, (f"default from {SOURCE} section 1, {m.key}: the largest study-to-study CV of {what}{of} "
                       f"over {m.studies} studies" + ("" if how == "model" else " (same family)"))
    top = max(MEASURED, key=lambda x: x.time_drift if absolute else x.ratio_drift)
    value = top.time_drift if absolute else top.ratio_drift
    return value, (f"default from {SOURCE} section 1: no section for {family_of(key)}, so the largest CV of {what} "
                   f"measured ({top.key})")
