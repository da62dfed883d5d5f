"""One number across a suite: each variant's geometric mean of its ratios to the baseline over
several studies (the five functions on their fleet tables, or any set of distributions), with an
interval that carries each study's own.

Each study i gives a ratio r_i with an interval at `level` from a t (or, for one process's sign
test, normal) law; its standard error in log space is se_i = (ln hi_i - ln lo_i) / (2 q_i), q_i
the law's quantile. The suite's estimate is the mean of ln r_i over the k studies, every study
weighing the same (the suite is the population, not a sample of one); its variance is
sum(se_i^2) / k^2 (studies are independent processes), its degrees of freedom Welch and
Satterthwaite's, (sum se_i^2)^2 / sum(se_i^4 / dof_i). The interval is exp(mean +- t(dof) * se)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..stats.laws import norm_quantile, t_quantile
from .compare import Comparison, withheld


@dataclass
class SuiteLine:
    variant: str
    baseline: str
    studies: list[str]        # "function on distribution" of each study it was compared in
    geomean: float            # exp(mean log ratio)
    low: float
    high: float
    dof: float                # Welch-Satterthwaite; inf when every study's interval was a normal one
    level: float
    verdict: str              # faster, slower, equivalent (within the margin) or inconclusive
    withheld: int             # studies whose own verdict was withheld (state change, one process)
    ratios: list[float] = field(default_factory=list)  # each study's own ratio, in studies' order


def log_se(c: Comparison) -> tuple[float, float]:
    """A study's standard error of ln(ratio) from its interval, and that interval's dof (inf: normal)."""
    q = t_quantile(0.5 + c.level / 2, c.dof) if c.dof > 0 else norm_quantile(0.5 + c.level / 2)
    return (math.log(c.ci_high) - math.log(c.ci_low)) / (2 * q), (float(c.dof) if c.dof > 0 else math.inf)


def combine(comps: list[Comparison], level: float, margin: float) -> SuiteLine:
    """The suite line of one variant's comparisons (one per study, the same baseline)."""
    k = len(comps)
    logs = [math.log(c.ratio) for c in comps]
    ses = [log_se(c) for c in comps]
    var = sum(s * s for s, _ in ses) / (k * k)
    denom = sum(s ** 4 / d for s, d in ses if math.isfinite(d))
    dof = (sum(s * s for s, _ in ses) ** 2 / denom) if denom > 0 else math.inf
    q = t_quantile(0.5 + level / 2, dof) if math.isfinite(dof) else norm_quantile(0.5 + level / 2)
    mean = sum(logs) / k
    low, high = math.exp(mean - q * math.sqrt(var)), math.exp(mean + q * math.sqrt(var))
    if low >= 1 / (1 + margin) and high <= 1 + margin:
        verdict = "equivalent"
    elif high < 1:
        verdict = "faster"
    elif low > 1:
        verdict = "slower"
    else:
        verdict = "inconclusive"
    held = sum(1 for c in comps if withheld(c))
    return SuiteLine(comps[0].variant, comps[0].baseline, [f"{c.function} on {c.distribution}" for c in comps],
                     math.exp(mean), low, high, dof, level, verdict, held, [c.ratio for c in comps])


def suite_lines(comps: list[Comparison], level: float, margin: float, min_studies: int = 2) -> list[SuiteLine]:
    """A line per variant compared in at least min_studies studies, against the same baseline
    (a variant's comparisons under another baseline are a suite of their own); a study's noop is
    the harness, never in a suite."""
    usable = [c for c in comps if base_name(c.variant) != "noop" and c.ratio > 0 and c.ci_low > 0
              and math.isfinite(c.ci_high)]
    groups: dict[tuple[str, str], list[Comparison]] = {}
    for c in usable:
        groups.setdefault((base_name(c.variant), base_name(c.baseline)), []).append(c)
    lines = []
    for (variant, baseline), g in groups.items():
        studies = [(c.function, c.distribution) for c in g]
        if len(set(studies)) < min_studies:
            continue
        if len(set(studies)) < len(studies):
            # two codes of one name in one study (files of two builds pooled): each its own suite
            for sub in {c.variant: [x for x in g if x.variant == c.variant] for c in g}.values():
                if len({(c.function, c.distribution) for c in sub}) >= min_studies:
                    lines.append(combine(sub, level, margin))
            continue
        line = combine(g, level, margin)
        line.variant, line.baseline = variant, baseline
        lines.append(line)
    return lines


def base_name(name: str) -> str:
    """A variant's name as the studies gave it: the analysis names different codes of one name
    NAME@ID when files are read together (io/identity.py), and a suite's studies are of different
    functions, whose codes differ by nature."""
    return name.split("@", 1)[0]


def suite_headline(line: SuiteLine) -> str:
    """One line of at most about 80 characters: the variant, the geometric mean and its interval,
    the verdict with its size, the studies."""
    pct = (line.geomean - 1) * 100
    size = f"{abs(pct):.1f} % {'faster' if pct < 0 else 'slower'}" if line.verdict in ("faster", "slower") \
        else line.verdict
    name = line.variant if len(line.variant) <= 16 else line.variant[:15] + "…"
    return (f"{name:<16} {line.geomean:.3f} [{line.low:.3f}, {line.high:.3f}]  {size:<14} "
            f"{len(line.studies)} studies")


def study_ratios(line: SuiteLine, width: int = 80) -> list[str]:
    """The ratios the line's mean is of, one per study, named by its function (and table where the
    functions repeat), wrapped to width under the line: "    memcpy 1.103, memmove 1.050"."""
    import textwrap
    functions = [s.split(" on ", 1)[0] for s in line.studies]
    names = functions if len(set(functions)) == len(functions) else line.studies
    text = ", ".join(f"{n} {r:.3f}" for n, r in zip(names, line.ratios))
    return textwrap.wrap(text, width, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)
