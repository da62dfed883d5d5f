#!/usr/bin/env bash
# memfbench set-up and entry point. Installs what is missing (Debian/Ubuntu packages), builds
# with meson, then either runs the default study or every test.
#
#   ./bootstrap.sh study [--force] [memfbench run options]
#                                                  default: fleet memcpy, libc vs built-ins, then
#                                                  the analysis summary and results/report/ (an
#                                                  earlier study is kept: the next goes to
#                                                  results/default-2.json.gz; --force replaces it)
#   ./bootstrap.sh test                            meson test (C and Python, notebooks included),
#                                                  then the C tests under ASan and UBSan
#   ./bootstrap.sh validate                        regenerate docs/validation.md (over an hour)
#   ./bootstrap.sh cross-test aarch64              cross-build for aarch64 and, under qemu-user: the
#                                                  C tests, every built-in verified on every call
#                                                  shape of the fleet tables, a 2-process study that
#                                                  this machine's analysis reads (docs/user-guide.md,
#                                                  "Running on Arm")
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(gcc libc6-dev meson ninja-build pkg-config libcjson-dev zlib1g-dev python3 python3-numpy python3-pandas
          python3-scipy python3-matplotlib python3-jsonschema python3-pytest python3-nbclient
          python3-nbconvert python3-nbformat python3-ipykernel python3-hypothesis python3-pytest-xdist)
PY_MODULES="pandas, scipy, matplotlib, jsonschema, pytest, nbclient, nbformat, ipykernel"
BUILD=${MEMFBENCH_BUILD:-build}
INSTALLED=0  # set when this run installed packages: the build must then look for them again
OPTIONAL=()  # packages of PACKAGES installed only where the distribution ships them as .deb

say() { printf 'bootstrap: %s\n' "$*" >&2; }

install_missing() {
  if ! command -v dpkg-query >/dev/null; then
    say "not a Debian/Ubuntu system: install the equivalents of: ${PACKAGES[*]}"
    return 0
  fi
  local missing=() p installed native
  native=$(dpkg --print-architecture)
  # one query for all of them (one per package cost half a second); binary:Package keeps the
  # architecture of a multiarch package (libcjson-dev:arm64), which plain Package drops
  installed=$(dpkg-query -W -f='${binary:Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null | grep ' install ok installed$' || true)
  for p in "${PACKAGES[@]}"; do
    if [[ $p == *:* ]]; then
      grep -q "^$p " <<<"$installed" || missing+=("$p")
    else
      grep -Eq "^$p(:$native)? " <<<"$installed" || missing+=("$p")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  INSTALLED=1
  local sudo=() want=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get update -q >&2
  # a package of OPTIONAL this distribution does not ship as a .deb (Ubuntu's chromium is a snap)
  # is left out, and the tests that need it say so when they skip
  for p in "${missing[@]}"; do
    if [[ " ${OPTIONAL[*]} " == *" $p "* ]] && ! apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then
      say "not installed, no such package here: $p (the tests that need it are skipped)"
    else
      want+=("$p")
    fi
  done
  [ ${#want[@]} -eq 0 ] && return 0
  say "installing: ${want[*]}"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${want[@]}" >&2
}

# python3 on PATH may be a separate build without Debian's packages: take the first
# interpreter that has the whole analysis stack and can import numpy, the compiled part a
# mismatched interpreter breaks on (finding the modules costs 0.1 s; importing them all, 1 s).
find_python() {
  local cand
  for cand in ${MEMFBENCH_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null &&
       "$cand" -c "import importlib.util as u, sys, numpy
sys.exit(any(u.find_spec(m.strip()) is None for m in sys.argv[1].split(',')))" "${PY_MODULES}" 2>/dev/null; then
      command -v "$cand"
      return 0
    fi
  done
  say "no Python interpreter has ${PY_MODULES}"
  return 1
}

# The interpreter an existing build directory was configured with (empty: none recorded).
configured_python() {
  "$PY" -c 'import json, sys
opts = json.load(open(sys.argv[1]))
print(next((o["value"] for o in opts if o["name"] == "python"), ""))' \
    "$BUILD/meson-info/intro-buildoptions.json" 2>/dev/null || true
}

build() {
  PY=$(find_python)
  if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" --buildtype=release -Dpython="$PY" >&2
  elif [ "$INSTALLED" = 1 ] || [ "$(configured_python)" != "$PY" ]; then
    # --reconfigure picks up compilers and libraries installed since (g++, libbenchmark-dev) and
    # another interpreter; otherwise ninja re-runs meson itself when a meson.build changed, and a
    # reconfigure would only cost its 5-8 s
    meson setup --reconfigure "$BUILD" -Dpython="$PY" >/dev/null
  fi
  meson compile -C "$BUILD" >&2
}

# ./bootstrap.sh cross-test aarch64: the arm64 libraries come from Debian's multiarch (dpkg
# --add-architecture arm64), the compiler from gcc-aarch64-linux-gnu, the emulator from qemu-user.
# Under emulation every instruction is translated, so nothing here is timed or compared: the tests
# assert correctness and structure only (a placement check that fails under qemu is expected).
cross_test_aarch64() {
  install_missing  # the native build: its analysis reads the aarch64 study
  if command -v dpkg >/dev/null && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    say "adding the arm64 architecture to dpkg (for libcjson-dev:arm64, zlib1g-dev:arm64)"
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" dpkg --add-architecture arm64
    INSTALLED=1
  fi
  PACKAGES=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross libcjson-dev:arm64 zlib1g-dev:arm64 qemu-user)
  install_missing
  build
  local xb="$BUILD-aarch64" t0=$SECONDS status=0 f out
  [ -f "$xb/build.ninja" ] ||
    meson setup "$xb" --cross-file cross/aarch64-linux-gnu.ini --wrap-mode=nofallback -Dpython="$PY" >&2
  # memfbench itself; `meson test` below builds what the C tests need (a third of the targets are
  # neither: examples, tools, fuzz drivers)
  meson compile -C "$xb" memfbench >&2
  # -L /: loader and C library from libc6:arm64, one package (cross/aarch64-linux-gnu.ini says why);
  # the wrapper runs each --processes child under the emulator too
  local run=(qemu-aarch64 -L / "$xb/bench/memfbench")
  export QEMU_LD_PREFIX=/ MEMFBENCH_EXEC_WRAPPER
  MEMFBENCH_EXEC_WRAPPER=$(command -v qemu-aarch64)
  say "aarch64: memfbench list (the Arm built-ins, and why any is not available here)"
  "${run[@]}" list | sed -n '/^functions/,/^  bcmp/p' >&2
  say "aarch64: C tests under qemu (meson's exe_wrapper)"
  meson test -C "$xb" --print-errorlogs --num-processes 2 --suite core || status=$?
  local dir="$xb/cross-test"
  rm -rf "$dir" && mkdir -p "$dir"
  # every built-in (the default variants) verified on every call shape of each fleet table before
  # its 0.2 s of rounds; the file says the verification was complete
  for f in memcpy memmove memset memcmp; do
    say "aarch64: $f: every variant verified on every call shape (one short process)"
    "${run[@]}" run -f "$f" -t 0.2 --processes 1 --allow-single-process -q -o "$dir/$f.json" || { status=1; continue; }
    "$PY" - "$dir/$f.json" <<'PYEOF' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verification"]
names = [x["name"] for x in d["variants"]]
bad = [x["name"] for x in d["variants"] if x["verified_calls"] < 1]
if not v["complete"] or v["shapes"] < 1 or bad:
    sys.exit(f"{sys.argv[1]}: verification incomplete (shapes {v['shapes']}, unverified {bad})")
print(f"  {d['config']['function']}: {', '.join(names)}: {v['shapes']} call shapes each, complete", file=sys.stderr)
PYEOF
  done
  say "aarch64: a 2-process study, read by this machine's analysis (schema-validated)"
  out="$dir/study.json.gz"
  if "${run[@]}" run -t 1 --processes 2 -q -o "$out"; then
    "$BUILD/bench/memfbench" analyze summarize "$out" >&2 || status=1
    "$PY" - "$out" <<'PYEOF' || status=1
import gzip, json, sys
from analysis.io import load, schema
d = json.load(gzip.open(sys.argv[1]))
schema.validate(d, sys.argv[1])  # the contract, docs/schema/memfbench-run.schema.json
load.load_run(sys.argv[1])       # and the analysis's own reader
cpu = d["host"]["cpu"]
assert d["host"]["machine"] == "aarch64", d["host"]["machine"]
assert cpu.get("implementer") and cpu.get("part"), cpu
assert d["timer"]["name"] == "cntvct", d["timer"]
print(f"  study: {len(d['processes'])} processes on {cpu['model']} (MIDR implementer {cpu['implementer']}, "
      f"part {cpu['part']}), clock {d['timer']['name']} at {d['timer']['min_step_ns']:.0f} ns a step", file=sys.stderr)
PYEOF
  else
    status=1
  fi
  say "cross-test aarch64: $([ $status = 0 ] && echo passed || echo FAILED) in $((SECONDS - t0)) s (after the native build)"
  return $status
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  study)
    # an earlier study is kept: this one takes the next free name (--force: replace the first)
    force=0
    if [ "${1:-}" = "--force" ]; then force=1; shift; fi
    install_missing
    build
    mkdir -p results
    out=results/default.json.gz report=results/report k=2
    while [ "$force" = 0 ] && [ -e "$out" ]; do
      out=results/default-$k.json.gz report=results/report-$k k=$((k + 1))
    done
    [ "$out" != results/default.json.gz ] &&
      say "results/default.json.gz holds an earlier study: this one goes to $out (--force replaces the first)"
    "$BUILD/bench/memfbench" run -o "$out" "$@"
    say "analysis (intervals, verdicts, report)"
    "$BUILD/bench/memfbench" analyze summarize "$out" --report "$report"
    ;;
  test)
    # the one-node Slurm cluster tests/py/test_slurm.py runs docs/scaling.md's job array on
    # (installing them starts no Slurm daemon, which waits for an /etc/slurm/slurm.conf; the test
    # starts its own munged, beside any the system runs); valgrind for memfbench counts; clang and
    # llvm (llvm-profdata) for run --pgo's clang path (tests/py/test_pgo.py); libbenchmark-tools
    # for Google Benchmark's compare.py, run on our exports (tests/py/test_interop.py); chromium,
    # its driver and selenium to open every report kind as a reader's browser does (test_browser.py)
    OPTIONAL=(chromium chromium-driver)
    PACKAGES+=(slurmctld slurmd slurm-client munge valgrind clang llvm libbenchmark-tools python3-selenium
               "${OPTIONAL[@]}")
    install_missing
    build
    status=0
    # two at a time: the C tests beside the Python suite (itself over two workers, tests/meson.build)
    meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@" || status=$?
    "$PY" -m tools.testlog_summary "$BUILD" || status=1
    # The C tests and the fuzz corpora again under AddressSanitizer and UBSan (any finding fails;
    # the whole suite, Python included, passes there too: docs/reliability.md). The tree is built
    # at -O0 (buildtype debug): a third of the compiler's time at -O2 (19 s of CPU against 64 s
    # for every target on the Intel VM), the same checks (ASan instruments every access at any
    # level; UBSan's object-size check alone wants -O1), and its tests take about as long.
    SAN="$BUILD-san"
    say "sanitizer build ($SAN: address, undefined): C tests and fuzz corpora"
    [ -f "$SAN/build.ninja" ] ||
      meson setup "$SAN" --buildtype=debug -Db_sanitize=address,undefined -Dpython="$PY" >&2
    # no `meson compile`: meson test builds what the selected tests need (20 s less than building
    # every target of the sanitized tree at -O2)
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      meson test -C "$SAN" --print-errorlogs --num-processes 2 --suite core --suite fuzz || status=$?
    exit $status
    ;;
  validate)
    PACKAGES+=(g++ libbenchmark-dev)
    install_missing
    build
    "$PY" -m tools.validation --build "$BUILD" -o docs/validation.md "$@"
    ;;
  cross-test)
    arch=${1:-}
    [ "$arch" = aarch64 ] || { say "cross-test: the one target is aarch64 (./bootstrap.sh cross-test aarch64)"; exit 2; }
    cross_test_aarch64
    ;;
  *)
    sed -n '2,/^set -euo/{/^set -euo/!p}' "$0" >&2
    exit 2
    ;;
esac
