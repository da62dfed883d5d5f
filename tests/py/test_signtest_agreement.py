"""The sign-test interval exists twice: in C (the --target-ci stop rule, bench/base/signtest.c)
and in Python (the verdicts, analysis.stats.intervals.sign_test_ci). Fed the same data, they must give the
same interval, endpoint for endpoint. So must the design mean over processes (bench/base/strata.c
and analysis.stats.placement_model.design_estimate) that the process-level stop rule and the verdicts use."""
from __future__ import annotations

import math
import os
import subprocess

import numpy as np
import pytest

from analysis.stats.intervals import sign_test_ci
from analysis.stats.placement_model import design_estimate


def helper() -> str:
    path = os.environ.get("MEMFBENCH_SIGNTEST_HELPER")
    if not path:
        pytest.skip("MEMFBENCH_SIGNTEST_HELPER not set (run under meson test)")
    return path


def c_interval(x: np.ndarray, level: float) -> tuple[float, float, float] | None:
    text = f"{level!r}\n" + "\n".join(repr(float(v)) for v in x) + "\n"
    out = subprocess.run([helper()], input=text, capture_output=True, text=True, check=True).stdout.split()
    if out == ["none"]:
        return None
    return float(out[1]), float(out[2]), float(out[3])


@pytest.mark.parametrize("n", [1, 2, 5, 6, 7, 8, 9, 10, 17, 50, 101, 1000, 2000, 2001, 5000, 20001])
@pytest.mark.parametrize("level", [0.95, 0.99])
def test_c_and_python_sign_test_intervals_agree(n: int, level: float) -> None:
    rng = np.random.default_rng(n * 1000 + int(level * 100))
    x = rng.normal(0.0, 0.01, n) + rng.standard_t(3, n) * 1e-3
    py = sign_test_ci(x, level)
    c = c_interval(x, level)
    if c is None:
        assert math.isinf(py.low) and math.isinf(py.high), f"C finds n = {n} too small, Python does not"
        return
    lo, med, hi = c
    assert (lo, hi) == (py.low, py.high)
    assert med == pytest.approx(py.estimate, rel=1e-12, abs=1e-15)


def test_c_t_quantile_agrees_with_scipy() -> None:
    """The process-level --target-ci stop rule needs Student's t quantile in C (bench/base/tdist.c);
    the analysis takes it from scipy. Levels as the rule uses them: two-sided 95 %, Bonferroni over
    up to 31 comparisons, 1 to 63 degrees of freedom. Tolerance 1e-7: scipy's ppf itself strays by
    a few 1e-9 from its own cdf (df 3, p 0.9: ppf 1.6377443572, where cdf already reaches 0.9 at
    1.6377443537); far below what an interval's width can show."""
    from scipy import stats as st

    cases = [(p, df) for df in (1, 2, 3, 4, 5, 9, 19, 39, 63)
             for p in (0.5, 0.9, 0.975, 1 - 0.025 / 5, 1 - 0.025 / 31, 0.025, 1e-4)]
    text = "t\n" + "\n".join(f"{p!r} {df}" for p, df in cases) + "\n"
    out = subprocess.run([helper()], input=text, capture_output=True, text=True, check=True).stdout.split()
    assert len(out) == len(cases)
    for (p, df), c in zip(cases, out):
        want = float(st.t.ppf(p, df))
        assert math.isclose(float(c), want, rel_tol=1e-7, abs_tol=1e-9), f"p={p} df={df}: C {c}, scipy {want}"


def balanced_levels(rng: np.random.Generator, n: int, placed: tuple[bool, bool, bool], blocks: bool) -> np.ndarray:
    """Placements as a balanced study draws them: per block of 8 processes a permutation for the
    loop and one for the variants with a start each (blocks False: one set for the whole study)."""
    rows = []
    for b in range(-(-n // 8)):
        r = rng if blocks or b == 0 else np.random.default_rng(0)
        if blocks or b == 0:
            kperm, perm, shift = r.permutation(8), r.permutation(8), r.integers(0, 8, 2)
        for t in range(8):
            rows.append([kperm[t] if placed[0] else -1, perm[(t + shift[0]) % 8] if placed[1] else -1,
                         perm[(t + shift[1]) % 8] if placed[2] else -1])
    return np.array(rows[:n])


@pytest.mark.parametrize("n", [1, 2, 8, 16, 24, 32, 64])
@pytest.mark.parametrize("placed", [(True, True, False), (True, True, True), (True, False, False)])
@pytest.mark.parametrize("blocks", [True, False])
def test_c_and_python_design_means_agree(n: int, placed: tuple[bool, bool, bool], blocks: bool) -> None:
    """Placement effects of several per cent, which the model must leave out of the mean's error, in
    both designs: independent blocks, and one set of placements repeated (the design before)."""
    rng = np.random.default_rng(n)
    levels = balanced_levels(rng, n, placed, blocks)
    effects = rng.normal(0, 0.03, (3, 8))
    x = 0.01 + sum(np.where(levels[:, f] >= 0, effects[f][levels[:, f]], 0) for f in range(3)) + rng.normal(0, 0.004, n)
    text = "d\n" + "\n".join(f"{float(v)!r} {a} {b} {c}" for v, (a, b, c) in zip(x, levels)) + "\n"
    mean, se, df, rank = subprocess.run([helper()], input=text, capture_output=True, text=True,
                                        check=True).stdout.split()
    py = design_estimate(x, levels)
    assert float(mean) == pytest.approx(py.estimate, rel=1e-9, abs=1e-12)
    assert int(df) == py.df and int(rank) == py.parameters
    if math.isinf(py.se):
        assert math.isinf(float(se))
    else:
        assert float(se) == pytest.approx(py.se, rel=1e-8)
