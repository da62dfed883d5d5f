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
#   ./bootstrap.sh validate                        regenerate docs/validation.md (several minutes)
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(gcc libc6-dev meson ninja-build pkg-config libcjson-dev zlib1g-dev python3 python3-numpy python3-pandas
          python3-scipy python3-matplotlib python3-jsonschema python3-pytest python3-nbclient
          python3-nbconvert python3-nbformat python3-ipykernel python3-hypothesis python3-pytest-xdist)
PY_MODULES="pandas, scipy, matplotlib, jsonschema, pytest, nbclient, nbformat, ipykernel"
BUILD=${MEMFBENCH_BUILD:-build}
INSTALLED=0  # set when this run installed packages: the build must then look for them again

say() { printf 'bootstrap: %s\n' "$*" >&2; }

install_missing() {
  if ! command -v dpkg-query >/dev/null; then
    say "not a Debian/Ubuntu system: install the equivalents of: ${PACKAGES[*]}"
    return 0
  fi
  local missing=() p installed
  # one query for all of them (one per package cost half a second)
  installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null | grep ' install ok installed$' || true)
  for p in "${PACKAGES[@]}"; do
    grep -q "^$p " <<<"$installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  INSTALLED=1
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  say "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
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
    # starts its own munged, beside any the system runs)
    PACKAGES+=(slurmctld slurmd slurm-client munge)
    install_missing
    build
    status=0
    # two at a time: the C tests beside the Python suite (itself over two workers, tests/meson.build)
    meson test -C "$BUILD" --print-errorlogs --num-processes 2 "$@" || status=$?
    "$PY" -m tools.testlog_summary "$BUILD" || status=1
    # The C tests and the fuzz corpora again under AddressSanitizer and UBSan (any finding fails;
    # the whole suite, Python included, passes there too: docs/reliability.md).
    SAN="$BUILD-san"
    say "sanitizer build ($SAN: address, undefined): C tests and fuzz corpora"
    [ -f "$SAN/build.ninja" ] ||
      meson setup "$SAN" --buildtype=debugoptimized -Db_sanitize=address,undefined -Dpython="$PY" >&2
    # no `meson compile`: meson test builds what the selected tests need (20 s less than building
    # every target of the sanitized tree)
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
  *)
    sed -n '2,8p' "$0" >&2
    exit 2
    ;;
esac
