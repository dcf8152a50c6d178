#!/bin/bash
# Run test programs two at a time (the CI machine has two cores), keep each
# one's output in build/test-logs/, print the log of every failure.
set -u
logdir=build/test-logs
mkdir -p "$logdir"
jobs=${TEST_JOBS:-2}

run_one() {
    local t=$1 log
    log="build/test-logs/$(echo "$t" | tr '/' '_').log"
    local start=$SECONDS
    if "$t" >"$log" 2>&1; then
        echo "PASS $t ($((SECONDS - start))s)"
    else
        echo "FAIL $t (exit $?, log $log)"
    fi
}
export -f run_one

results=$(printf '%s\n' "$@" | xargs -P "$jobs" -I{} bash -c 'run_one {}')
echo "$results"
failed=$(echo "$results" | grep '^FAIL' | awk '{print $2}')
if [ -n "$failed" ]; then
    for t in $failed; do
        echo "---- log of $t"
        tail -n 60 "build/test-logs/$(echo "$t" | tr '/' '_').log"
    done
    echo "$(echo "$failed" | wc -l) test program(s) failed"
    exit 1
fi
