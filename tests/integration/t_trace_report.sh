#!/bin/bash
# tools/hsrts-report on real runs: what it parses, how many charts it draws,
# its figures against the -s summary of the same run, thinning that keeps
# the extremes, bad inputs, and the page in a headless browser (chromium;
# skipped with a note where it is not installed).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
root=$PWD
report=$root/tools/hsrts-report
bt=$root/build/bench/binarytrees
dir=$(mktemp -d)
trap 'rm -rf "$dir" "$errfile" "$errfile".*' EXIT
cd "$dir"

# field FILE EXPR: a value of the page's report-data (Python expression over d).
field() {
    python3 - "$1" "$2" <<'PY'
import html, json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S).group(1))
def series(cid):
    m = re.search(r'id="%s"[^>]*data-series="([^"]*)"' % cid, page)
    return json.loads(html.unescape(m.group(1)))["series"]
print(eval(sys.argv[2]))
PY
}
# The -s figures of a -S or -s file.
s_num() { grep "$2" "$1" | head -1 | awk '{print $1}' | tr -d ,; }
s_gen() { awk -v g="$2" '$1 == "Gen" && $2 == g {print $3}' "$1"; }
s_col() { awk -v g="$2" -v c="$3" '$1 == "Gen" && $2 == g {print $c}' "$1" | tr -d s; }
eq() { [ "$2" = "$3" ] && ok || bad "$1: $2, want $3"; }

run -- "$bt" 16 +RTS -Sbt.S -l -hT -i0.01 -RTS
rc_is 0

t "all three inputs: six charts, one self-contained page"
run -- "$report" bt.S binarytrees.hp binarytrees.eventlog -o all.html
rc_is 0
err_is ""
eq "charts" "$(grep -o '<svg class="chart"' all.html | wc -l)" 6
eq "chart ids" "$(field all.html 'd["charts"]')" "['memory', 'allocation', 'pauses', 'distribution', 'generations', 'heapprofile']"
eq "external references" "$(grep -Eoc '(src|href)=|https?://' all.html)" 0

t "the figures agree with -s"
eq "collections" "$(field all.html 'd["gcs"]')" $(($(s_gen bt.S 0) + $(s_gen bt.S 1)))
eq "generation 0" "$(field all.html 'd["gcs_per_gen"]["0"]')" "$(s_gen bt.S 0)"
eq "generation 1" "$(field all.html 'd["gcs_per_gen"]["1"]')" "$(s_gen bt.S 1)"
eq "bytes copied" "$(field all.html 'd["copied"]')" "$(s_num bt.S 'bytes copied during GC')"
eq "bytes allocated" "$(field all.html 'd["allocated"]')" "$(s_num bt.S 'bytes allocated in the heap')"
eq "maximum residency" "$(field all.html 'd["max_live"]')" "$(s_num bt.S 'bytes maximum residency')"
maxp=$(printf '%s\n%s\n' "$(s_col bt.S 0 10)" "$(s_col bt.S 1 10)" | sort -g | tail -1)
eq "longest pause (to -s's 4 decimals)" "$(field all.html "abs(d['max_pause'] - $maxp) <= 0.00006")" True
gc_el=$(grep "GC      time" bt.S | sed 's/.*( *\([0-9.]*\)s elapsed.*/\1/')
eq "GC elapsed (to -s's 3 decimals)" "$(field all.html "abs(d['gc_elapsed'] - $gc_el) <= 0.0015")" True
eq "heap samples" "$(field all.html 'd["hp_samples"]')" "$(grep -c '^BEGIN_SAMPLE' binarytrees.hp)"
eq "the summary is -s's" "$(grep -c 'bytes allocated in the heap' all.html)" 1

t "each input alone"
run -- "$report" bt.S -o s.html
rc_is 0
eq "-S alone: charts" "$(field s.html 'd["charts"]')" "['memory', 'allocation', 'pauses', 'distribution', 'generations']"
eq "-S alone: collections" "$(field s.html 'd["gcs_per_gen"]')" "{'0': $(s_gen bt.S 0), '1': $(s_gen bt.S 1)}"
eq "-S alone: bytes allocated (every line, the tail's 0 included)" "$(field s.html 'd["allocated"]')" \
    "$(s_num bt.S 'bytes allocated in the heap')"
run -- "$report" binarytrees.hp -o hp.html
rc_is 0
eq ".hp alone" "$(field hp.html 'd["charts"]')" "['heapprofile']"
run -- "$report" binarytrees.eventlog -o ev.html
rc_is 0
eq "event log alone" "$(field ev.html 'len(d["charts"])')" 6
run -- "$bt" 12 +RTS -sbt.s -RTS
run -- "$report" bt.s -o sum.html
rc_is 0
eq "-s alone: the generation chart" "$(field sum.html 'd["charts"]')" "['generations']"

t "a long run is thinned, its extremes kept"
run -- "$bt" 16 +RTS -A16k -Slong.S -RTS
rc_is 0
run -- "$report" --max-points 100 long.S -o long.html
rc_is 0
n=$(field long.html 'd["gcs"]')
[ "$n" -gt 1000 ] && ok || bad "only $n collections: not a long run"
eq "pauses drawn" "$(field long.html 'd["points"]["pauses"]["drawn"] <= 2 * 100')" True
eq "pauses read" "$(field long.html 'd["points"]["pauses"]["input"]')" "$n"
eq "the longest pause is drawn" \
    "$(field long.html 'max(p[1] for s in series("pauses") for p in s["points"]) == d["max_pause"]')" True
eq "live data drawn" "$(field long.html 'd["points"]["memory"]["drawn"] <= 100 + 2')" True
eq "the peak of live data is drawn" \
    "$(field long.html 'max(p[1] for p in series("memory")[0]["points"])')" \
    "$(awk '/\(Gen:/ {print $3}' long.S | sort -n | tail -1)"
eq "the last point of allocation is drawn" \
    "$(field long.html 'series("allocation")[0]["points"][-1][1] == d["allocated"]')" True

t "bad inputs: one line, exit 1"
run -- "$report" nope.S
rc_is 1
err_is "hsrts-report: cannot read nope.S: No such file or directory"
echo "hello" >garbage
run -- "$report" garbage
rc_is 1
err_is "hsrts-report: garbage: not a statistics file, heap profile or event log"
# Cut inside an event. Which byte ends one depends on the run (heap-sample
# events hold closure names, and when they come depends on the clock): an
# event is longer than a byte, so of two neighbouring cuts one is inside.
for c in 3000 3001; do
    head -c $c binarytrees.eventlog >cut.eventlog
    "$report" cut.eventlog >/dev/null 2>&1 || break
done
run -- "$report" cut.eventlog
rc_is 1
err_is "hsrts-report: cut.eventlog: the event log ends in the middle of an event"
run -- "$report" bt.S bt.S
rc_is 1
err_is "hsrts-report: bt.S: a second stats file; give one of each"
run -- "$report" bt.S -o /nonexistent/dir/r.html
rc_is 1
err_is "hsrts-report: /nonexistent/dir/r.html: No such file or directory"

t "the page in a headless browser: no script errors, every chart drawn"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "note: chromium is not installed (Debian package chromium); the page is not loaded in a browser"
else
    for page in all.html long.html hp.html; do
        dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$dir/$page" 2>/dev/null)
        charts=$(printf '%s' "$dom" | sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p' | head -1)
        drawn=$(printf '%s' "$dom" | sed -n 's/.*data-charts-rendered="\([0-9]*\)".*/\1/p' | head -1)
        errors=$(printf '%s' "$dom" | sed -n 's/.*<pre id="script-errors">\([^<]*\)<\/pre>.*/\1/p')
        [ -n "$charts" ] && [ "$charts" -gt 0 ] && [ "$charts" = "$drawn" ] && ok ||
            bad "$page: $drawn of ${charts:-?} charts have content"
        [ -z "$errors" ] && printf '%s' "$dom" | grep -q '<pre id="script-errors"></pre>' && ok ||
            bad "$page: script errors: $errors"
    done
fi

finish t_trace_report
