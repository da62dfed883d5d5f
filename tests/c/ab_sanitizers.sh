#!/bin/sh
# memfbench ab's own code under the sanitizers (in the sanitized build; in the plain one it checks
# the same paths): a study written whole, a variant refused by the check, a run past its time
# limit, and a stop by SIGTERM. The program, the shim and the plugin are built without the
# sanitizers (a preloaded library comes before any runtime); memfbench ab, and the memfbench run
# children it starts, with them. Any sanitizer report fails the test, whatever the exit status.
#   ab_sanitizers.sh MEMFBENCH PROGRAM ERMS_PLUGIN WRONG_PLUGIN
set -u
M=$1 PROG=$2 ERMS=$3 WRONG=$4
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
check() { # NAME WANTED_STATUS STATUS
    if [ "$3" != "$2" ] || grep -q "Sanitizer\|runtime error" "$W/$1.err"; then
        echo "FAIL $1: exit $3 (want $2)"; cat "$W/$1.err"; fail=1
    else
        echo "ok $1"
    fi
}
"$M" ab -q -v "$ERMS:erms_memcpy=erms" --runs 2 --warmup 0 -o "$W/ab.json" -- "$PROG" 2>"$W/study.err"
check study 0 $?
[ -s "$W/ab.json" ] || { echo "FAIL study: no file"; fail=1; }
"$M" ab -q -v "$WRONG:offset_memcpy" --runs 2 -o "$W/x.json" -- "$PROG" 2>"$W/refused.err"
check refused 1 $?
"$M" ab -q -v "$ERMS:erms_memcpy=erms" --runs 2 --watchdog 0.5 -o "$W/x.json" -- "$PROG" sleep 2>"$W/watchdog.err"
check watchdog 1 $?
"$M" ab -q -v "$ERMS:erms_memcpy=erms" --runs 2 -o "$W/x.json" -- "$PROG" sleep 2>"$W/stopped.err" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid
check stopped 143 $?  # 128 + SIGTERM, as every command ends on a stop
[ ! -e "$W/x.json" ] || { echo "FAIL: a result file after a refusal or a stop"; fail=1; }
exit $fail
