# Shared by tests/integration/t_shmem.sh and t_shmem_mpi.sh (after lib.sh).

# Every PE 0..n-1 printed its pass line: "<test>: PE <k>: <n> checks passed" or "... Passed".
pes_passed() { # n test
    local k miss=""
    for ((k = 0; k < $1; k++)); do
        grep -qE "^$2: PE $k: ([0-9]+ checks passed|Passed)\$" <<<"$OUT" || miss="$miss $k"
    done
    [ -z "$miss" ] && ok || bad "no pass line from PE$miss:"$'\n'"$OUT"$'\n'"$ERR"
}
