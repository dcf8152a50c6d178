#!/bin/bash
# The bench programs under many combinations of RTS flags, each run with the
# sanity checker (-DS) in the debug ways: every run must exit 0 and print
# what the same program prints without flags (the programs print checksums
# of what they computed, so a collector that loses or corrupts an object
# changes the output or trips -DS).
#
#   tests/flag-matrix.sh [quick|full]
#
# quick (CI, a few minutes): three programs on small inputs. full (make
# check-flag-matrix, about half an hour on 2 cores): all seven, larger.
set -u
cd "$(dirname "$0")/.."
mode=${1:-full}
case $mode in
quick) progs=("binarytrees 10" "mapchurn 2000 20000" "lazystream 50000") ;;
full) progs=("binarytrees 12" "mapchurn 3000 60000" "lazystream 200000" "mutarray 2000 200000"
    "largeheap 8 2" "allocdrop 1000 300" "deepstack 20000 20000") ;;
*)
    echo "usage: $0 [quick|full]" >&2
    exit 2
    ;;
esac
flags=("" "-xn" "-xn -G3" "-xn -A8k" "-xn --nonmoving-dense-allocator-count=1" "-xn -F1.1"
    "-xn -n8k -A64k" "-xn -H32m" "-xn -O1m" "-c" "-w" "-G3 -c" "-xn -I0"
    "-xn -A8k -G4 -F1.05" "-xn -Fd2" "-xn -M256m" "-xn -kc8k -kb1k" "-xn --huge-pages=no")
threaded=("-N2" "-N2 -xn" "-N2 -xn -A8k" "-N2 -xn -qg" "-N2 -xn -qn1" "-N2 -xn -G3 -A16k"
    "-N2 -xn -I0.01" "-N2 -w" "-N2 -xn --nonmoving-dense-allocator-count=2 -A8k" "-N2 -qb0 -xn"
    "-xn -N1" "-N2 -xn --huge-pages=no")
err=$(mktemp)
trap 'rm -f "$err"' EXIT
runs=0 failures=0
for way in debug thr_debug; do
    for pa in "${progs[@]}"; do
        read -r -a argv <<<"$pa"
        bin=build/bench/$way/${argv[0]}
        args=("${argv[@]:1}")
        if ! ref=$("$bin" "${args[@]}" 2>"$err"); then
            echo "FAIL $way ${argv[*]} (no flags): $(head -n 1 "$err")"
            failures=$((failures + 1))
            continue
        fi
        set_=("${flags[@]}")
        [ "$way" = thr_debug ] && set_+=("${threaded[@]}")
        for f in "${set_[@]}"; do
            runs=$((runs + 1))
            # shellcheck disable=SC2086 # the flags are words
            out=$(timeout 600 "$bin" "${args[@]}" +RTS $f -DS -RTS 2>"$err")
            rc=$?
            if [ $rc -ne 0 ] || [ "$out" != "$ref" ]; then
                why="exit $rc"
                [ $rc -eq 0 ] && why="output differs"
                echo "FAIL $way ${argv[*]} +RTS $f -DS -RTS: $why: $(head -n 1 "$err")"
                failures=$((failures + 1))
            fi
        done
        echo "flag-matrix: $way ${argv[*]}: done"
    done
done
echo "flag-matrix ($mode): $runs runs, $failures failures"
[ "$failures" -eq 0 ]
