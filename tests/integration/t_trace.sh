#!/bin/bash
# rts/trace: the event log's files and writers, the .hp file (read back by
# hp2ps), unwritable outputs, the fatal exits, -D traces and crash stack
# traces, with real programs (binary-trees, tests/integration/progs/
# trace_prog.c). Decoding the event log with ghc-events, and its figures
# against -s, is t_trace_ghc_events.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
root=$PWD
bt=$root/build/bench/binarytrees
tp=$root/build/tests/progs/v/trace_prog
tpd=$root/build/tests/progs/debug/trace_prog
dir=$(mktemp -d)
trap 'rm -rf "$dir" "$errfile" "$errfile".*' EXIT
cd "$dir"

# The event log's frame: GHC's header magic first, the end marker last.
eventlog_framed() {
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 6864726268657462 ] &&
        [ "$(tail -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = ffff ] &&
        grep -q datb "$1"
}
file_ok() {
    if eventlog_framed "$1"; then ok; else bad "$1 is not a complete event log"; fi
}
# The .hp grammar: the four header lines, then samples; each BEGIN_SAMPLE t
# has its END_SAMPLE t; times never decrease; band lines are label<TAB>bytes.
hp_ok() {
    if awk -F'\t' '
        NR == 1 && !/^JOB "/ { exit 1 }
        NR == 2 && !/^DATE "/ { exit 1 }
        NR == 3 && $0 != "SAMPLE_UNIT \"seconds\"" { exit 1 }
        NR == 4 && $0 != "VALUE_UNIT \"bytes\"" { exit 1 }
        NR > 4 && /^BEGIN_SAMPLE / { if (open || $0 !~ /^BEGIN_SAMPLE [0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$/) exit 1;
                                     t = substr($0, 14); if (t + 0 < last) exit 1; last = t; open = 1; n++; next }
        NR > 4 && /^END_SAMPLE / { if (!open || substr($0, 12) != t) exit 1; open = 0; next }
        NR > 4 { if (!open || NF != 2 || $2 !~ /^[0-9]+$/ || $2 == 0) exit 1 }
        END { if (open || n < 2) exit 1 }' "$1"; then ok; else bad "$1 is not a well-formed .hp file"; fi
}
hp2ps_ok() {
    if ! command -v hp2ps >/dev/null; then
        echo "note: hp2ps is not installed (Debian package ghc); skipping its check"
        return
    fi
    local out
    out=$(hp2ps "$1" 2>&1)
    if [ $? = 0 ] && [ -z "$out" ] && [ -s "${1%.hp}.ps" ]; then ok; else bad "hp2ps $1: $out"; fi
}

t "binary-trees with -l and -hT: both files, complete"
run -- "$bt" 14 +RTS -l -hT -i0.001 -RTS
rc_is 0
file_ok binarytrees.eventlog
hp_ok binarytrees.hp
hp2ps_ok binarytrees.hp
t "the .hp file counts the program's constructors by name and the rest by closure type"
grep -q $'^main:Main.Node\t' binarytrees.hp && grep -q $'^STACK\t' binarytrees.hp && grep -q $'^TSO\t' binarytrees.hp &&
    ok || bad "bands: $(cut -f1 binarytrees.hp | sort -u | tr '\n' ' ')"
t "the first sample is empty at 0, the last is the empty closing one"
[ "$(sed -n 5,6p binarytrees.hp)" = $'BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000' ] && ok || bad "$(sed -n 5,6p binarytrees.hp)"
[ "$(tail -n 2 binarytrees.hp | cut -d' ' -f1)" = $'BEGIN_SAMPLE\nEND_SAMPLE' ] && ok || bad "$(tail -n 3 binarytrees.hp)"

t "-hi: every kind of object under its info table's name"
run -- "$tp" alloc 200000 +RTS -hi -i0 -RTS
rc_is 0
hp_ok trace_prog.hp
hp2ps_ok trace_prog.hp
for band in test:Cell test:lazyTail TSO STACK ARR_WORDS MUT_VAR_CLEAN; do
    grep -q "^$band"$'\t' trace_prog.hp && ok || bad "-hi: no band $band: $(cut -f1 trace_prog.hp | sort -u | tr '\n' ' ')"
done
t "-hT: the thunk is THUNK, the cell its constructor name"
run -- "$tp" alloc 200000 +RTS -hT -i0 -RTS
grep -q $'^THUNK\t24$' trace_prog.hp && grep -q $'^test:Cell\t' trace_prog.hp && ok || bad "$(sort -u trace_prog.hp | head -20)"
t "-hT under -xn: the census reads the nonmoving segments' live slots"
run -- "$tp" alloc 200000 +RTS -hT -i0 -xn -RTS
rc_is 0
hp_ok trace_prog.hp
grep -q $'^THUNK\t24$' trace_prog.hp && grep -q $'^test:Cell\t' trace_prog.hp && ok || bad "$(sort -u trace_prog.hp | head -20)"
t "-L cuts labels"
run -- "$tp" alloc 200000 +RTS -hT -i0 -L4 -RTS
rc_is 0
grep -q $'^test\t' trace_prog.hp && ! grep -q $'^test:Cell\t' trace_prog.hp && ok || bad "$(cut -f1 trace_prog.hp | sort -u | tr '\n' ' ')"

t "-ol and -po name the files"
run -- "$tp" alloc 20000 +RTS -l -olrun1.eventlog -hT -porun1 -RTS
rc_is 0
file_ok run1.eventlog
hp_ok run1.hp
[ ! -e trace_prog.eventlog.new ] && ok

t "--null-eventlog-writer writes nothing"
rm -f trace_prog.eventlog
run -- "$tp" alloc 20000 +RTS -l --null-eventlog-writer -RTS
rc_is 0
[ ! -e trace_prog.eventlog ] && ok || bad "a file was written"

t "RtsConfig.eventlog_writer: called once to start and stop, the file is its own"
rm -f trace_prog.eventlog
run TRACE_WRITER_FILE=copy.eventlog -- "$tp" writer 100000 +RTS -l -RTS
rc_is 0
out_has "writer calls: init 1, write "
out_has ", stop 1"
file_ok copy.eventlog
[ ! -e trace_prog.eventlog ] && ok || bad "the file writer ran too"

t "--eventlog-flush-interval hands events to the writer while the program runs"
run -- "$tp" flush +RTS -l --eventlog-flush-interval=0.02 -RTS
out_is "written during the pause: yes"
run -- "$tp" flush +RTS -l -RTS
out_is "written during the pause: no"
run -- "$tp" flush +RTS -l --eventlog-flush-interval=x -RTS
rc_is 1
err_has "error in RTS option --eventlog-flush-interval=x"

t "startEventLogging / endEventLogging without -l"
rm -f trace_prog.eventlog
run -- "$tp" start 20000
rc_is 0
out_is $'status before: 1\nstart: 1\nstart again: 0\nstatus: 2\ndone\nstatus after: 1\ndone'
file_ok trace_prog.eventlog

t "the accepted-but-no-effect warnings are gone for -l and -h"
run -- "$tp" alloc 1000 +RTS -l -hT -RTS
rc_is 0
err_is ""

t "an unwritable event log: GHC's message, exit 1"
run -- "$tp" alloc 10 +RTS -l -ol/nonexistent/dir/x.eventlog -RTS
rc_is 1
err_is "trace_prog: initEventLogFileWriter: can't open /nonexistent/dir/x.eventlog: No such file or directory"
out_is ""
t "an unwritable heap profile: GHC's message, exit 1"
run -- "$tp" alloc 10 +RTS -hT -po/nonexistent/dir/x -RTS
rc_is 1
err_is "trace_prog: Can't open profiling report file /nonexistent/dir/x.hp: No such file or directory"

# Every way a program ends leaves complete files.
t "heap overflow: exit 251, event log and .hp complete"
rm -f trace_prog.eventlog trace_prog.hp
run -- "$tp" heap-overflow +RTS -M16m -l -hT -i0 -RTS
rc_is 251
file_ok trace_prog.eventlog
hp_ok trace_prog.hp
t "stack overflow: exit 2, event log and .hp complete"
rm -f trace_prog.eventlog trace_prog.hp
run -- "$tp" stack-overflow +RTS -K256k -l -hT -RTS
rc_is 2
file_ok trace_prog.eventlog
hp_ok trace_prog.hp
t "nested evaluation past -K (the evaluation stacks' guard): exit 2, no crash report, log complete"
rm -f lazy_exits.eventlog
run -- "$root/build/tests/progs/v/lazy_exits" deep 100000000 +RTS -K100m -l -RTS
rc_is 2
err_has "Stack space overflow"
if printf '%s' "$ERR" | grep -q "fatal error\|stack trace"; then bad "a crash report: $ERR"; else ok; fi
file_ok lazy_exits.eventlog
t "shutdownHaskellAndExit: its code, event log and .hp complete"
rm -f trace_prog.eventlog trace_prog.hp
run -- "$tp" exit 7 +RTS -l -hT -RTS
rc_is 7
file_ok trace_prog.eventlog
hp_ok trace_prog.hp

t "-D is refused in the vanilla way"
run -- "$tp" alloc 10 +RTS -Ds -RTS
rc_is 1
err_has "-Ds requires the program to be built with"
t "-D classes in the debug way: one line per event, nothing when off"
run -- "$tpd" alloc 20000 +RTS -Ds -RTS
rc_is 0
# rts_lock, rts_unlock in the program; hs_exit takes the capability again.
err_is $'sched: cap 0: created thread 1\nsched: cap 0: running thread 1\nsched: cap 0: thread 1 gives the capability back\nsched: cap 0: running thread 1\nsched: cap 0: thread 1 gives the capability back\nsched: thread 1 finished'
run -- "$tpd" alloc 20000 +RTS -Dp -hT -i0 -RTS
err_has "prof: census 1 at "
run -- "$tpd" alloc 20000 +RTS -Dg -RTS
err_has "gc: collection starts"
run -- "$tpd" alloc 20000 +RTS -hT -i0 -RTS
err_is ""
t "-Dw -Dt -DG -Da: weak pointers, stable pointers and names, CAFs, application"
run -- "$tpd" objects +RTS -Dw -RTS
rc_is 0
out_has "finalizers run: 1"
err_has "weak: new weak pointer "
err_has "'s key died; its finalizer is queued"
err_has "weak: running 1 finalizers"
run -- "$tpd" objects +RTS -Dt -RTS
err_has "stable: stable pointer 1 to "
err_has "stable: stable pointer 1 freed"
err_has "already has stable name 0"
err_has "stable: 1 of 1 stable names died"
run -- "$tpd" objects +RTS -DG -RTS
err_has "(test:aCaf) entered"
err_has "(test:aCaf) is unreachable: reverted"
run -- "$tpd" objects +RTS -Da -RTS
err_has "apply: test:const (arity 2) to 1 arguments: a PAP"
err_has "apply: a PAP of test:const (1 held, 1 missing) to 1 arguments"
run -- "$tpd" objects +RTS -DwtGa -RTS
printf '%s\n' "$ERR" | grep -v '^\(weak\|stable\|gccafs\|apply\): ' | grep -q . && bad "other lines: $ERR" || ok
t "-D classes of subsystems hsrts lacks: accepted, one warning each"
run -- "$tpd" alloc 10 +RTS -Dir -RTS
rc_is 0
err_has "warning: debug class 'i' (interpreter) of -Dir traces nothing: hsrts has no bytecode interpreter"
err_has "warning: debug class 'r' (sparks) of -Dir traces nothing: hsrts has no sparks"

t "-v (debug way): the events as text on stderr, by class, with times under t"
run -- "$tpd" alloc 200000 +RTS -v-ag -RTS
rc_is 0
printf '%s\n' "$ERR" | head -3 | tr '\n' '|' |
    grep -qx 'cap 0: requesting sequential GC|cap 0: starting GC|cap 0: finished GC (generation 0, [1-9][0-9]* bytes copied)|' &&
    ok || bad "$(printf '%s\n' "$ERR" | head -3)"
printf '%s\n' "$ERR" | grep -qv '^cap 0: \(requesting\|starting\|finished\)' && bad "other classes: $ERR" || ok
run -- "$tpd" alloc 200000 +RTS -vt -RTS
err_has "cap 0: cells so far: 20000"
err_has "cap 0: marker: tick"
printf '%s\n' "$ERR" | grep -q '^ *[0-9][0-9]*: cap 0: created thread 1$' && ok || bad "$ERR"
run -- "$tp" alloc 10 +RTS -v -RTS
rc_is 1
err_has "-v requires the program to be built with"

t "SIGSEGV in the program: the signal, a stack trace with names, death by the signal"
run -- "$tp" segv
rc_is 139
err_has "trace_prog: fatal error: SIGSEGV (invalid memory access) at address"
err_has "trace_prog: stack trace:"
err_has "#0  0x"
err_has " in trace_prog_crash_here+0x"
err_has " in main+0x"
t "SIGFPE sent to the process: reported, then it dies by it"
run -- "$tp" fpe
rc_is 136
err_has "trace_prog: fatal error: SIGFPE (arithmetic exception)"
err_has " in main+0x"
t "--install-signal-handlers=no leaves the signals alone"
run -- "$tp" segv +RTS --install-signal-handlers=no -RTS
rc_is 139
err_is ""
t "an internal error (a corrupt heap under -DS): message, stack trace from the failing check, abort"
run -- "$tpd" barf +RTS -DS -RTS
rc_is 134
err_has "trace_prog: internal error: object "
err_has "#0  0x"
err_has " in check_object_shape+0x"
err_has " in sanity_check_heap+0x"
if printf '%s' "$ERR" | grep -q " in msg_barf+0x"; then bad "the trace starts inside msg_barf"; else ok; fi

finish t_trace
