#!/bin/bash
# Parallel GC at the process level (rts/sm/gc_par.c): which collections are
# parallel under -qg, -qg<n>, -qn, -qb and --parallel-gc-threshold, what -s
# and --internal-counters report, that results do not depend on the number
# of GC threads, and the new flag's bad input. Uses the threaded benchmark
# programs (mk/pargc.mk builds them).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

LH=build/bench/thr/largeheap
BT=build/bench/thr/binarytrees
BTV=build/bench/binarytrees

# gen_counts FILE G: "colls par" of generation G's line in an -s report.
gen_counts() { awk -v g="$2" '$1 == "Gen" && $2 == g { gsub(",", "", $3); print $3, $5 }' "$1"; }
sfile=$(mktemp)
trap 'rm -f "$sfile" "$errfile" "$errfile".*' EXIT

# largeheap's result line for a configuration; its -s report in $sfile.
lh() { run -- "$LH" 24 2 +RTS "$@" -s"$sfile" -RTS; }

t "largeheap, parallel GC off (-qg): no parallel collections, no balance line"
lh -N2 -qg
rc_is 0
serial_out=$OUT
set -- $(gen_counts "$sfile" 0); [ "$2" = 0 ] && ok || bad "Gen 0: $1 colls, $2 par"
set -- $(gen_counts "$sfile" 1); [ "$2" = 0 ] && ok || bad "Gen 1: $1 colls, $2 par"
grep -q 'Parallel GC work balance' "$sfile" && bad "a balance line without parallel GC" || ok

t "every collection parallel (-qb0 --parallel-gc-threshold=0): same result, par = colls, a balance"
lh -N2 -qb0 --parallel-gc-threshold=0
rc_is 0
out_is "$serial_out"
for g in 0 1; do
    set -- $(gen_counts "$sfile" $g)
    [ "$1" -gt 0 ] && [ "$1" = "$2" ] && ok || bad "Gen $g: $1 colls, $2 par"
done
bal=$(sed -n 's/.*Parallel GC work balance: \([0-9.]*\)%.*/\1/p' "$sfile")
awk -v b="${bal:-x}" 'BEGIN { exit !(b + 0 > 0 && b + 0 <= 100) }' && ok || bad "balance '$bal'"
grep -q 'TASKS: 2 (1 bound, 1 peak workers (1 total), using -N2)' "$sfile" && ok ||
    bad "TASKS line: $(grep TASKS "$sfile")"

t "-qg1: minor collections on one thread, major ones parallel"
lh -N2 -qg1 -qb0 --parallel-gc-threshold=0
rc_is 0
out_is "$serial_out"
set -- $(gen_counts "$sfile" 0); [ "$2" = 0 ] && ok || bad "Gen 0: $1 colls, $2 par"
set -- $(gen_counts "$sfile" 1); [ "$1" -gt 0 ] && [ "$1" = "$2" ] && ok || bad "Gen 1: $1 colls, $2 par"

t "-qn1: one GC thread"
lh -N2 -qn1 -qb0 --parallel-gc-threshold=0
rc_is 0
out_is "$serial_out"
set -- $(gen_counts "$sfile" 1); [ "$2" = 0 ] && ok || bad "Gen 1: $1 colls, $2 par"

t "the work rule: a threshold above what any collection copies keeps every collection serial"
lh -N2 -qb0 --parallel-gc-threshold=1g
rc_is 0
out_is "$serial_out"
for g in 0 1; do
    set -- $(gen_counts "$sfile" $g); [ "$2" = 0 ] && ok || bad "Gen $g: $1 colls, $2 par"
done

t "the work rule by default: small nursery collections serial, the big major ones parallel"
lh -N2 -qb0
rc_is 0
out_is "$serial_out"
set -- $(gen_counts "$sfile" 0); [ "$2" -lt "$1" ] && ok || bad "Gen 0: $1 colls, $2 par"
set -- $(gen_counts "$sfile" 1); [ "$2" -gt 0 ] && ok || bad "Gen 1: $1 colls, $2 par"

t "-qb (no load balancing) with one busy capability: the idle one stays out"
lh -N2 -qb --parallel-gc-threshold=0
rc_is 0
out_is "$serial_out"
set -- $(gen_counts "$sfile" 1); [ "$2" = 0 ] && ok || bad "Gen 1: $1 colls, $2 par"

t "-N4 -qn4 (more GC threads than cores): same result"
lh -N4 -qn4 -qb0 --parallel-gc-threshold=0 -A64k
rc_is 0
out_is "$serial_out"
set -- $(gen_counts "$sfile" 0); [ "$1" = "$2" ] && ok || bad "Gen 0: $1 colls, $2 par"

t "binarytrees: the same output with and without parallel GC"
run -- "$BT" 14 +RTS -N2 -qg -RTS
rc_is 0
bt_serial=$OUT
run -- "$BT" 14 +RTS -N2 -qb0 --parallel-gc-threshold=0 -A64k -RTS
rc_is 0
out_is "$bt_serial"

t "--internal-counters: the table, a row per GC thread that took part"
run -- "$LH" 24 2 +RTS -N2 -qb0 --parallel-gc-threshold=0 -s"$sfile" --internal-counters -RTS
rc_is 0
grep -q '^Internal Counters:$' "$sfile" && ok || bad "no table header"
grep -Eq '^    SpinLock +Spins +Yields$' "$sfile" && ok || bad "no SpinLock header"
for row in gc_todo_lists gc_static_marks gc_large_objects steals copy_races; do
    grep -Eq "^    $row +[0-9]+" "$sfile" && ok || bad "no $row row"
done
p1=$(awk '$1 == "gc_thread" && $2 == "1" { print $3 }' "$sfile")
[ "${p1:-0}" -gt 0 ] && ok || bad "gc_thread 1 took part in ${p1:-no} collections"

t "--internal-counters under -xn: megablocks the nonmoving thread populated, and how many the heap took"
run -- "$LH" 64 2 +RTS -N1 -xn -s"$sfile" --internal-counters -RTS
rc_is 0
pf=$(awk '$1 == "mblocks_prefaulted" { print $2 }' "$sfile")
pft=$(awk '$1 == "mblocks_prefaulted_taken" { print $2 }' "$sfile")
[ -n "$pf" ] && [ -n "$pft" ] && ok || bad "no mblocks_prefaulted rows"
[ "${pft:-1}" -le "${pf:-0}" ] && ok || bad "took ${pft:-?} of ${pf:-?} populated"

t "bad input: --parallel-gc-threshold's value"
run -- "$BT" 10 +RTS -N2 --parallel-gc-threshold=abc -RTS
rc_is 1
err_has "error in RTS option --parallel-gc-threshold=abc: unable to parse number 'abc'"
run -- "$BT" 10 +RTS -N2 --parallel-gc-threshold -RTS
rc_is 1
err_has "--parallel-gc-threshold: missing value"

t "--parallel-gc-threshold in the non-threaded way: refused as -qn is"
run -- "$BTV" 10 +RTS --parallel-gc-threshold=1m -RTS
rc_is 1
err_has "requires the program to be built with the threaded runtime"

finish t_pargc
