#!/bin/sh
# Make sure the Debian packages a make target needs are installed.
#
#   mk/deps.sh build|check|bench
#
# As root with apt-get, missing packages are installed (the list is printed
# first). Otherwise the exact apt-get line is printed and the script fails.
set -eu

build_pkgs="gcc make autoconf automake pkgconf libnuma-dev libunwind-dev libjemalloc-dev"
# Open MPI: the symmetric heap's mpi backend (libhsrts_mpi) and its tests;
# for the benchmark, also its own OpenSHMEM (oshrun), the peer.
mpi_pkgs="openmpi-bin libopenmpi-dev"
# ghc + libghc-ghc-events-dev: the event log is read back by ghc-events and
# the .hp rendered by hp2ps (tests/integration/t_trace*.sh; about 12 s and
# 780 MB to install). chromium: the hsrts-report page is loaded in a headless
# browser (tests/integration/t_trace_report.sh; about 22 s and 360 MB).
trace_pkgs="ghc libghc-ghc-events-dev chromium"
check_pkgs="$build_pkgs check valgrind clang clang-format libclang-rt-14-dev git $mpi_pkgs $trace_pkgs"
bench_pkgs="$build_pkgs ghc ocaml-nox libgc-dev hyperfine gnuplot-nox $mpi_pkgs"

case "${1:-build}" in
    build) want=$build_pkgs ;;
    check) want=$check_pkgs ;;
    bench) want=$bench_pkgs ;;
    *) echo "mk/deps.sh: unknown profile '$1' (build, check or bench)" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "mk/deps.sh: not a Debian system; make sure these are installed: $want" >&2
    exit 0
fi

missing=""
for p in $want; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "hsrts: installing missing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    # Refresh the package lists once if they are missing or a first try fails.
    if [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ]; then
        apt-get update -qq
    fi
    # shellcheck disable=SC2086
    if ! apt-get install -y -qq $missing >/dev/null; then
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq $missing >/dev/null
    fi
    exit 0
fi

echo "hsrts: missing Debian packages:$missing" >&2
echo "hsrts: install them with:" >&2
echo "    sudo apt-get install -y$missing" >&2
exit 1
