#!/bin/bash
# Run every tests/integration/t_*.sh; each checks a program's output and exit
# status and exits non-zero on a mismatch.
set -u
cd "$(dirname "$0")/../.."
fail=0
for t in tests/integration/t_*.sh; do
    [ -e "$t" ] || continue
    if out=$(bash "$t" 2>&1); then
        echo "PASS $t"
    else
        echo "FAIL $t"
        echo "$out" | tail -n 40
        fail=1
    fi
done
exit $fail
