#!/bin/bash
# Statistics end to end, in each way (rts/stats/README.md): -S, -s, -t and
# --machine-readable from real runs compared with GHC's own output (the
# observed lines of ../shared/reference/ghc-rts-interfaces.md §4) with the
# numbers masked but every field width kept; the stats file and its
# command-line header; destinations and "last flag wins"; statistics after
# a heap or stack overflow, after the error; -B; --internal-counters; the
# -S page-fault column; shutdownHaskellAndExit.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$errfile" "$errfile".*' EXIT

# Fields GHC prints without a width vary in length from run to run: name them N.
normalise() {
    sed -E -e 's/\([0-9]+ sample\(s\)\)/(N sample(s))/' \
        -e 's/\([0-9]+ MiB lost/(N MiB lost/' \
        -e 's/Alloc rate    [0-9,]+ bytes/Alloc rate    N bytes/' \
        -e 's/\([0-9.]+% elapsed\)/(N% elapsed)/' \
        -e 's/user, [0-9.]+% of total elapsed/user, N% of total elapsed/'
}
# Every other number, with the spaces that pad it, becomes that many '#':
# a field printed at another width, or moved, no longer matches.
mask() { normalise | perl -pe 's/( *\d[\d,.]*)/"#" x length($1)/ge'; }

# ---- GHC's output (reference §4, observed from GHC 9.0.2) --------------------
GHC_S_HEADER="    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts
    bytes     bytes     bytes   user   elap     user     elap"
GHC_S_LINE="  1094976    165752    223152  0.000  0.000    0.001    0.001    0    0  (Gen:  0)"
GHC_S_TAIL="        0                      0.000  0.000"
GHC_T_LINE="<<ghc: 995008 bytes, 1 GCs, 44376/44376 avg/max bytes residency (1 samples), 2M in use, 0.000 INIT (0.000 elapsed), 0.001 MUT (0.001 elapsed), 0.000 GC (0.000 elapsed) :ghc>>"
# The -s summary for $1 generations. Two deliberate differences from 9.0.2:
# "MiB lost" (GHC 9.6+) and a real %GC figure (9.x always prints 0.0%;
# the width is the same).
ghc_summary() {
    cat <<'EOF'
     490,610,280 bytes allocated in the heap
     232,545,216 bytes copied during GC
      46,652,544 bytes maximum residency (8 sample(s))
         152,448 bytes maximum slop
              92 MiB total memory in use (0 MiB lost due to fragmentation)

                                     Tot time (elapsed)  Avg pause  Max pause
EOF
    for ((g = 0; g < $1; g++)); do
        printf '  Gen %2d       462 colls,     0 par    0.078s   0.079s     0.0002s    0.0008s\n' $g
    done
    cat <<'EOF'

  INIT    time    0.000s  (  0.000s elapsed)
  MUT     time    0.099s  (  0.103s elapsed)
  GC      time    0.183s  (  0.186s elapsed)
  EXIT    time    0.000s  (  0.000s elapsed)
  Total   time    0.282s  (  0.289s elapsed)

  %GC     time      64.9%  (64.4% elapsed)

  Alloc rate    4,965,328,091 bytes per MUT second

  Productivity  35.0% of total user, 35.6% of total elapsed
EOF
}
# GHC's --machine-readable keys for the vanilla way (§4.4), I = integer, F = %f.
mr_expected() {
    local k first=1
    for k in "bytes allocated=I" num_GCs=I average_bytes_used=I max_bytes_used=I \
        num_byte_usage_samples=I peak_megabytes_allocated=I init_cpu_seconds=F \
        init_wall_seconds=F mut_cpu_seconds=F mut_wall_seconds=F GC_cpu_seconds=F \
        GC_wall_seconds=F exit_cpu_seconds=F exit_wall_seconds=F total_cpu_seconds=F \
        total_wall_seconds=F major_gcs=I allocated_bytes=I max_live_bytes=I \
        max_large_objects_bytes=I max_compact_bytes=I max_slop_bytes=I max_mem_in_use_bytes=I \
        cumulative_live_bytes=I copied_bytes=I par_copied_bytes=I \
        cumulative_par_max_copied_bytes=I cumulative_par_balanced_copied_bytes=I \
        gc_cpu_percent=F gc_wall_percent=F fragmentation_bytes=I alloc_rate=I \
        productivity_cpu_percent=F productivity_wall_percent=F; do
        if [ $first = 1 ]; then printf ' [("%s", "%s")\n' "${k%=*}" "${k#*=}"; first=0
        else printf ' ,("%s", "%s")\n' "${k%=*}" "${k#*=}"; fi
    done
    for ((g = 0; g < $1; g++)); do
        for k in collections=I par_collections=I cpu_seconds=F wall_seconds=F \
            max_pause_seconds=F avg_pause_seconds=F; do
            printf ' ,("gen_%d_%s", "%s")\n' $g "${k%=*}" "${k#*=}"
        done
    done
    echo ' ]'
}
mr_mask() { sed -E -e 's/"[0-9]+\.[0-9]{6}"\)$/"F")/' -e 's/"[0-9]+"\)$/"I")/'; }

same() { # same NAME GOT WANT: both masked
    if [ "$(mask <<<"$2")" = "$(mask <<<"$3")" ]; then ok; else
        bad "$1 differs from GHC's layout; masked, got:"$'\n'"$(mask <<<"$2")"$'\n'"want:"$'\n'"$(mask <<<"$3")"
    fi
}

for way in v debug; do
    P=build/tests/progs/$way/stats_prog

    t "-S: GHC's header, a line per collection, the allocation tail, then the summary ($way)"
    run -- $P gcs 4 +RTS -S -RTS
    rc_is 0
    out_is ""
    same "-S" "$ERR" "$GHC_S_HEADER
$GHC_S_LINE
$GHC_S_LINE
$GHC_S_LINE
$GHC_S_LINE
${GHC_S_LINE/Gen:  0/Gen:  1}
$GHC_S_TAIL

$(ghc_summary 2)"

    t "-S -G3 with collections the allocation causes: every line in GHC's layout ($way)"
    run -- $P alloc 300000 +RTS -S -G3 -A256k -RTS
    rc_is 0
    lines=$(grep -c '(Gen: ' <<<"$ERR")
    [ "$lines" -gt 10 ] && ok || bad "only $lines -S lines"
    same "-S lines" "$(grep '(Gen: ' <<<"$ERR" | sed -E 's/\(Gen: +[0-9]\)/(Gen:  0)/')" \
        "$(for ((i = 0; i < lines; i++)); do echo "$GHC_S_LINE"; done)"
    same "-S -G3 summary" "$(sed -n '/^$/,$p' <<<"$ERR" | sed 1d)" "$(ghc_summary 3)"
    colls=$(grep -E '^  Gen  [0-9]' <<<"$ERR" | awk '{s += $3} END {print s}')
    [ "$colls" = "$lines" ] && ok || bad "$lines -S lines but the summary counts $colls collections"

    t "-s: the summary alone ($way)"
    run -- $P alloc 100000 +RTS -s -RTS
    rc_is 0
    out_is "done"
    same "-s" "$ERR" "$(ghc_summary 2)"

    t "-t: one line ($way)"
    run -- $P alloc 100000 +RTS -t -RTS
    rc_is 0
    err_lines_is 1
    [ "$(sed -E 's/[0-9]+/N/g' <<<"$ERR")" = "$(sed -E 's/[0-9]+/N/g' <<<"$GHC_T_LINE")" ] && ok ||
        bad "-t line: $ERR"

    t "-t --machine-readable: GHC's keys in GHC's order, integers and %f ($way)"
    run -- $P alloc 100000 +RTS -t --machine-readable -G3 -RTS
    rc_is 0
    [ "$(mr_mask <<<"$ERR")" = "$(mr_expected 3)" ] && ok ||
        bad "machine-readable list:"$'\n'"$(diff <(mr_mask <<<"$ERR") <(mr_expected 3))"
    # INIT + MUT + GC + EXIT = Total (five values rounded to 6 decimals).
    for kind in cpu wall; do
        awk -v k=$kind -F'"' '
            $2 == "init_" k "_seconds" || $2 == "mut_" k "_seconds" || $2 == "GC_" k "_seconds" ||
            $2 == "exit_" k "_seconds" { parts += $4 }
            $2 == "total_" k "_seconds" { total = $4 }
            END { d = parts - total; if (d < 0) d = -d; exit !(d <= 3e-6) }' <<<"$ERR" && ok ||
            bad "$kind phases do not add up to the total"
    done

    t "--machine-readable changes -t only ($way)"
    run -- $P alloc 1000 +RTS -s --machine-readable -RTS
    same "-s --machine-readable" "$ERR" "$(ghc_summary 2)"

    t "the last statistics flag wins ($way)"
    run -- $P alloc 1000 +RTS -s -t -RTS
    err_lines_is 1
    err_has "<<ghc: "
    run -- $P alloc 1000 +RTS -t -s -RTS
    same "-t -s" "$ERR" "$(ghc_summary 2)"
    run -- $P alloc 1000 +RTS -S -T -RTS
    rc_is 0
    err_is ""

    t "a stats file: truncated, the quoted command line, then the report ($way)"
    f=$tmp/stats-$way.txt
    printf 'old contents\nold contents\n' >"$f"
    run GHCRTS="-A1m" -- $P gcs 2 "it's" +RTS -s"$f" -G3 -RTS
    rc_is 0
    err_is ""
    [ "$(head -n 1 "$f")" = "'$P' 'gcs' '2' 'it'\\''s' +RTS '-A1m' '-s$f' '-G3' " ] && ok ||
        bad "header line: $(head -n 1 "$f")"
    same "-s file" "$(tail -n +2 "$f")" "$(ghc_summary 3)"
    run -- $P gcs 2 +RTS -S"$f" -RTS
    same "-S file" "$(tail -n +2 "$f")" "$GHC_S_HEADER
$GHC_S_LINE
$GHC_S_LINE
${GHC_S_LINE/Gen:  0/Gen:  1}
$GHC_S_TAIL

$(ghc_summary 2)"
    run -- $P gcs 2 +RTS -t"$f" --machine-readable -RTS
    [ "$(tail -n +2 "$f" | mr_mask)" = "$(mr_expected 2)" ] && ok || bad "machine-readable file"

    t "the file name 'stderr' is stderr ($way)"
    (cd "$tmp" && run -- "$OLDPWD/$P" alloc 1000 +RTS -tstderr -RTS && [ ! -e stderr ]) && ok ||
        bad "a file named stderr was created"
    run -- $P alloc 1000 +RTS -tstderr -RTS
    err_has "<<ghc: "

    t "a stats file that cannot be opened: GHC's message, the usage, exit 1 ($way)"
    run -- $P alloc 1000 +RTS -s"$tmp/no/such/dir" -RTS
    rc_is 1
    out_is ""
    [ "$(head -n 4 <<<"$ERR")" = "stats_prog: Can't open stats file $tmp/no/such/dir

stats_prog: 
stats_prog: Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS <args>" ] && ok ||
        bad "message: $(head -n 4 <<<"$ERR")"
    err_has "Summary  GC statistics (if <file> omitted, uses stderr)"

    t "heap overflow: the error first, then the statistics, exit 251 ($way)"
    run -- $P heap-overflow +RTS -M8m -s -RTS
    rc_is 251
    [ "$(head -n 1 <<<"$ERR")" = "stats_prog: Heap exhausted;" ] && ok || bad "first line: $ERR"
    # Whether a major collection came first is the collector's business: no residency line.
    same "-s after heap overflow" "$(sed 1,3d <<<"$ERR" | grep -v residency)" \
        "$(ghc_summary 2 | grep -v residency)"
    run -- $P heap-overflow +RTS -M8m -t"$f" -RTS
    rc_is 251
    err_has "stats_prog: Heap exhausted;"
    [ "$(sed -n 2p "$f" | sed -E 's/[0-9]+/N/g')" = "$(sed -E 's/[0-9]+/N/g' <<<"$GHC_T_LINE")" ] &&
        ok || bad "-t file after heap overflow: $(cat "$f")"

    t "stack overflow: the error first, then the statistics, exit 2 ($way)"
    run -- $P stack-overflow +RTS -K64k -t -RTS
    rc_is 2
    case $(head -n 1 <<<"$ERR") in
    "stats_prog: Stack space overflow: current size "*" bytes.") ok ;;
    *) bad "first line: $ERR" ;;
    esac
    [ "$(sed -n 3p <<<"$ERR" | sed -E 's/[0-9]+/N/g')" = "$(sed -E 's/[0-9]+/N/g' <<<"$GHC_T_LINE")" ] &&
        ok || bad "-t after stack overflow: $ERR"

    t "shutdownHaskellAndExit: statistics, then the exit code; none with fastExit ($way)"
    run -- $P exit 3 +RTS -t -RTS
    rc_is 3
    out_is "exiting"
    err_lines_is 1
    err_has "<<ghc: "
    run -- $P fast-exit 4 +RTS -t -RTS
    rc_is 4
    err_is ""

    t "the program's output comes before the statistics ($way)"
    both=$($P alloc 1000 +RTS -t -RTS 2>&1)
    [ "$(head -n 1 <<<"$both")" = "done" ] && ok || bad "order: $both"

    t "-B rings the bell once per collection ($way)"
    run -- $P gcs 5 +RTS -B -S -RTS
    bells=$(tr -cd '\a' <<<"$ERR" | wc -c)
    [ "$bells" = 6 ] && ok || bad "$bells bells for 6 collections"
    run -- $P gcs 5 +RTS -S -RTS
    [ "$(tr -cd '\a' <<<"$ERR" | wc -c)" = 0 ] && ok || bad "a bell without -B"

    t "--internal-counters: GHC's vanilla message, no newline, at the end ($way)"
    run -- $P gcs 1 +RTS -s"$f" --internal-counters -RTS
    msg="Internal Counters require the threaded RTS"
    [ "$(tail -c ${#msg} "$f")" = "$msg" ] && ok || bad "end of file: $(tail -c 80 "$f")"
    same "-s --internal-counters" "$(tail -n +2 "$f" | sed "s/$msg//")" "$(ghc_summary 2)"

    t "the nonmoving collector's lines, at zero while its mark is stop-the-world ($way)"
    run -- $P gcs 1 +RTS -s --nonmoving-gc -RTS
    err_has "  Gen  1         1 syncs,                       0.000s     0.0000s    0.0000s"
    err_has "  Gen  1      concurrent,              0.000s   0.000s     0.0000s    0.0000s"
    err_has "  CONC GC time    0.000s  (  0.000s elapsed)"
    err_has "  Gen  1      segments, occupancy "

    t "the segments line gives the occupancy as each mark began, once marks found segments ($way)"
    run -- $P alloc 300000 +RTS -s --nonmoving-gc -A256k -RTS
    rc_is 0
    err_has " (slots in use / slots as each mark began)"

    t "-S page-fault columns count the process's major faults ($way)"
    run -- $P faults +RTS -S -RTS
    rc_is 0
    seen=${OUT##*: }
    between=$(grep '(Gen: ' <<<"$ERR" | sed -n 2p | awk '{print $9}')
    if [ "$seen" -gt 0 ]; then
        [ "$between" -ge "$seen" ] && ok ||
            bad "the program saw $seen major faults, the -S line says $between"
    else
        echo "note: no major page faults on this file system; column not checked"
    fi

    t "-T prints nothing ($way)"
    run -- $P alloc 1000 +RTS -T -RTS
    rc_is 0
    err_is ""
done

finish t_stats
