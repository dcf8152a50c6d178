# Shared by the integration tests: run a command and check its exit status,
# stdout and stderr. Source it, then: t "name"; run [VAR=v ...] -- cmd args;
# rc_is N; out_is/err_is TEXT; out_has/err_has TEXT; finish NAME.
errfile=$(mktemp)
trap 'rm -f "$errfile" "$errfile".*' EXIT
passed=0
failed=0
name=

# run [VAR=value ...] -- command args...   (GHCRTS is unset unless given)
run() {
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    OUT=$(env -u GHCRTS "${envs[@]}" "$@" 2>"$errfile")
    RC=$?
    ERR=$(cat "$errfile")
}

t() { name=$1; }
ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    printf 'FAIL %s: %s\n' "$name" "$1"
}
rc_is() { [ "$RC" = "$1" ] && ok || bad "exit status $RC, want $1 (stderr: $ERR)"; }
rc_not() { [ "$RC" != "$1" ] && ok || bad "exit status $RC, want anything else (stderr: $ERR)"; }
out_is() { [ "$OUT" = "$1" ] && ok || bad "stdout:"$'\n'"$OUT"$'\n'"want:"$'\n'"$1"; }
err_is() { [ "$ERR" = "$1" ] && ok || bad "stderr:"$'\n'"$ERR"$'\n'"want:"$'\n'"$1"; }
out_has() { case $OUT in *"$1"*) ok ;; *) bad "stdout lacks '$1':"$'\n'"$OUT" ;; esac; }
err_has() { case $ERR in *"$1"*) ok ;; *) bad "stderr lacks '$1':"$'\n'"$ERR" ;; esac; }
err_lines_is() {
    local n
    n=$(printf '%s' "$ERR" | grep -c '')
    [ "$n" = "$1" ] && ok || bad "stderr has $n lines, want $1:"$'\n'"$ERR"
}

finish() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" = 0 ]
}
