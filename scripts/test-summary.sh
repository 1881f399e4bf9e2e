#!/usr/bin/env bash
# Summarises a `swift test` log: build errors, failed tests, and, when the test process crashed,
# the crash report and the tests that started but never ended (CI shows only a log's tail).
# Usage: scripts/test-summary.sh LOG STATUS
set -uo pipefail

log=$1
status=$2

echo
echo "==== swift test summary (full log: $log) ===="
grep -E '^error:|error: (emit-module|compile|link)' "$log" | sort -u | head -n 20
grep -E '^✘ (Test|Suite) .* failed after' "$log" | head -n 40
if grep -qE 'Fatal error|Program crashed|exited with unexpected signal' "$log"; then
  echo "-- crash --"
  grep -E 'Fatal error|Program crashed|Precondition failed|Assertion failed' "$log" | head -n 5
  # The crashed thread's frames (the Swift backtracer prints them under "Thread N crashed:").
  awk '/^Thread [0-9]+ .*crashed:$/ { on = 1; n = 0 } on && n++ < 30 { print } /^$/ && n > 2 { on = 0 }' "$log"
  echo "-- tests started but not ended --"
  # A test's name is what follows "Test " up to " started." or " passed/failed after".
  comm -23 <(sed -nE 's/^◇ Test (.*) started\.$/\1/p' "$log" | sort) \
    <(sed -nE 's/^[✔✘] Test (.*) (passed|failed) after .*/\1/p' "$log" \
      | sed -E 's/ with [0-9]+ test cases?$//' | sort) | head -n 20
fi
grep -E 'Executed [0-9]+ tests?, with' "$log" | tail -n 1 | sed 's/^[[:space:]]*/XCTest: /'
grep -E 'Test run with [0-9]+ tests?' "$log" | tail -n 1 \
  || echo "(no 'Test run with' line: the test process ended before finishing; see the log)"
if [[ $status -eq 0 ]]; then echo "swift test: passed"; else echo "swift test: FAILED (exit $status)"; fi
passed=$(grep -E '^✔ Test .* passed after' "$log" | grep -vc '^✔ Test run with')
failed=$(grep -E '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with')
echo "Tests: $passed passed, $failed failed"
