"""--by-class: the split reproduces the table's weights, every class batch replays only its sizes
and passes its own self-check; the decomposition's terms add up to the whole difference and find a
known per-class effect and a known mixing effect on synthetic data; bad input is one line."""
from __future__ import annotations

import copy
import json
import subprocess

import numpy as np
import pytest

from analysis.io.load import load_run
from analysis.verdicts.classes import decompose
from analysis_runner import analysis
from conftest import GEOMETRY
from whole_processes import synthetic_study

FAST = ["--rounds", "30", "--warmup-rounds", "2", "--processes", "1", "-q", "-v", "libc", "-v", "sizeclass"]


@pytest.fixture(scope="module")
def by_class(memfbench, tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("bc") / "bc.json"
    p = subprocess.run([memfbench, "run", "--by-class", *FAST, *GEOMETRY, "-o", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


def table_mass(size: dict, lo: int, hi: int) -> float:
    """The table's probability of sizes lo..hi, each row's mass spread evenly over its sizes."""
    total = 0.0
    for a, b, p in zip(size["lo"], size["hi"], size["p"]):
        x, y = max(a, lo), min(b, hi)
        if x <= y:
            total += p * (y - x + 1) / (b - a + 1)
    return total


def test_the_split_reproduces_the_tables_weights(by_class):
    bc = by_class["by_class"]
    size = by_class["distribution"]["tables"]["size"]
    assert bc["edges"] == [0] + [2 ** k for k in range(1, 12)]  # 0, 2, 4, ..., 2048 (small_max)
    classes = bc["classes"]
    assert sum(c["p"] for c in classes) == pytest.approx(1, abs=1e-9)
    for c in classes:
        assert c["p"] == pytest.approx(table_mass(size, c["lo"], c["hi"]), rel=1e-9)
        assert c["lo"] <= c["mean_size"] <= c["hi"]
        assert c["selfcheck"]["passed"] and c["selfcheck"]["draws"] > 0
    # classes follow each other without a gap, from 0 to the table's largest size
    assert classes[0]["lo"] == 0 and classes[-1]["hi"] == size["max"]
    assert all(a["hi"] < b["lo"] for a, b in zip(classes, classes[1:]))


def test_each_round_times_every_class_of_every_variant(by_class):
    s = {k: np.array(v) for k, v in by_class["samples"].items() if k != "count"}
    classes = by_class["by_class"]["classes"]
    nv = len(by_class["variants"])
    for rnd in np.unique(s["round"]):
        sel = s["round"] == rnd
        assert sorted(s["size_class"][sel]) == sorted(list(range(len(classes) + 1)) * nv)
    # a class batch replays only its sizes: bytes per call within its range
    for c in classes:
        sel = s["size_class"] == c["index"]
        per_call = s["bytes"][sel] / s["calls"][sel]
        assert (per_call >= c["lo"]).all() and (per_call <= c["hi"]).all(), c


def test_summarize_and_classes_commands(by_class, tmp_path):
    f = tmp_path / "bc.json"
    f.write_text(json.dumps(by_class))
    p = analysis("classes", str(f), "--csv", str(tmp_path / "c.csv"), timeout=120)
    assert p.returncode == 0, p.stderr
    assert "sizeclass vs libc" in p.stdout and "residual" in p.stdout
    rows = (tmp_path / "c.csv").read_text().splitlines()
    assert len(rows) == 1 + len(by_class["by_class"]["classes"]) + 2
    p = analysis("summarize", str(f), timeout=120)
    assert p.returncode == 0 and "== where the time goes" in p.stdout, p.stderr


def synthetic_classes(doc: dict, effect_class: int, effect: float, mixing: float, rounds: int = 60,
                      processes: int = 6, seed: int = 1) -> dict:
    """Two variants and three classes with known per-call times. The whole distribution's batch
    costs the class mix (sum p_k t_k) plus `mixing` ns per call for the variant only; the variant
    is `effect` times the baseline in class `effect_class`."""
    d = copy.deepcopy(doc)
    d["variants"] = d["variants"][:2]
    d["config"]["variants"] = [v["name"] for v in d["variants"]]
    p = [0.5, 0.3, 0.2]
    base_t = [2.0, 5.0, 40.0]
    d["by_class"] = {"edges": [8, 64], "classes": [
        {"index": i + 1, "lo": lo, "hi": hi, "p": p[i], "mean_size": (lo + hi) / 2, "calls_per_pass": 512, "passes": 1,
         "selfcheck": d["distribution"]["selfcheck"]} for i, (lo, hi) in enumerate([(0, 8), (9, 64), (65, 4096)])]}
    rng = np.random.default_rng(seed)
    cols: dict[str, list] = {k: [] for k in d["samples"] if k != "count"}
    nspt = d["timer"]["ns_per_tick"]
    calls = 1000
    for proc in range(processes):
        layout = np.exp(rng.normal(0, 0.002))
        for rnd in range(rounds):
            noise = rng.lognormal(0, 0.05)
            t_var = [t * (effect if i + 1 == effect_class else 1.0) * layout for i, t in enumerate(base_t)]
            times = {0: {0: sum(pi * t for pi, t in zip(p, base_t)), 1: sum(pi * t for pi, t in zip(p, t_var)) + mixing}}
            for i in range(3):
                times[i + 1] = {0: base_t[i], 1: t_var[i]}
            for cls in range(4):
                for pos, v in enumerate((0, 1) if rnd % 2 == 0 else (1, 0)):
                    ticks = int(round(times[cls][v] * noise * calls / nspt))
                    row = {"variant": v, "round": rnd, "position": pos, "calls": calls, "bytes": 100 * calls,
                           "ticks": ticks, "ns": round(ticks * nspt, 3), "t_start_ns": rnd * 1000, "cpu": 1,
                           "warmup": False, "process": proc, "size_class": cls}
                    for k in cols:
                        cols[k].append(row[k])
    d["samples"] = {"count": len(cols["variant"]), **cols}
    return synthetic_study(d)


@pytest.mark.parametrize("effect,mixing", [(1.5, 0.0), (1.0, 0.0), (0.8, 1.25)])
def test_decomposition_adds_up_and_finds_the_known_effects(by_class, tmp_path, effect, mixing):
    doc = synthetic_classes(by_class, 2, effect, mixing)
    f = tmp_path / "syn.json"
    f.write_text(json.dumps(doc))
    run = load_run(f)
    dec = decompose(run, run.variants[1])
    # the terms add up exactly, process by process, so their means do too
    total = sum(c.contribution.ns for c in dec.classes) + dec.residual.ns
    assert total == pytest.approx(dec.whole.ns, abs=1e-9)
    # the known effect: class 2 (p 0.3, 5 ns) contributes 0.3 * 5 * (effect - 1) ns per call
    c2 = dec.classes[1].contribution
    assert c2.ns == pytest.approx(0.3 * 5.0 * (effect - 1), abs=0.02)
    assert c2.low <= 0.3 * 5.0 * (effect - 1) <= c2.high or effect == 1.0
    for c in (dec.classes[0], dec.classes[2]):
        assert abs(c.contribution.ns) < 0.02
    assert dec.residual.ns == pytest.approx(mixing, abs=0.03)
    assert dec.units == "processes" and dec.n_units == 6


def test_bad_class_input_is_one_line(memfbench, tmp_path, by_class):
    for edges, fragment in (("8,4", "edges must increase"), ("8,x", "edge 2 'x'"), ("8,,16", "edge 2 ''")):
        p = subprocess.run([memfbench, "run", f"--by-class={edges}", *FAST, "-o", str(tmp_path / "x.json")],
                           capture_output=True, text=True)
        lines = [x for x in p.stderr.splitlines() if x.strip()]
        assert p.returncode == 2 and len(lines) == 1 and fragment in lines[0], p.stderr
        assert not (tmp_path / "x.json").exists()
    plain = tmp_path / "plain.json"
    doc = copy.deepcopy(by_class)
    doc["by_class"] = None
    s = doc["samples"]
    keep = [i for i, c in enumerate(s["size_class"]) if c == 0]
    doc["samples"] = {"count": len(keep), **{k: [v[i] for i in keep] for k, v in s.items() if k != "count"}}
    plain.write_text(json.dumps(doc))
    p = analysis("classes", str(plain))
    assert p.returncode == 2 and "run memfbench with --by-class" in p.stderr and len(p.stderr.splitlines()) == 1


def test_a_process_the_run_dropped_is_left_out_of_the_decomposition(by_class, tmp_path):
    """A starved process whose slot the run ran again (processes[].dropped) is in no unit of the
    decomposition, as compare and ab's prediction leave it out: on a loaded machine ab's parts by
    class did not add up to the prediction they split."""
    doc = synthetic_classes(by_class, 2, 1.5, 0.0)
    doc["processes"][0]["dropped"] = {"reason": "starved"}
    f = tmp_path / "dropped.json"
    f.write_text(json.dumps(doc))
    dec = decompose(load_run(f), "sse2" if "sse2" in doc["config"]["variants"] else doc["config"]["variants"][1])
    assert dec.n_units == 5
