#!/bin/bash
# The ABI check (HSRTS_ABI_VERSION, include/rts/Config.h): every object
# compiled against the headers refers to hsrts_abi_<version>, so an object
# built against another version fails to link, naming it.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/^#define HSRTS_ABI_VERSION \([0-9]*\)$/\1/p' include/rts/Config.h)
cflags="-std=gnu11 -Iinclude -fno-strict-aliasing -c"
# The runtime's own libraries, as its pkg-config file lists them (libunwind among them).
libs=$(sed -n 's/^Libs.private: //p' build/hsrts.pc)

t "an object compiled against the headers refers to hsrts_abi_$version"
cat > "$tmp/cur.c" <<'C'
#include "Rts.h"
int main(int argc, char **argv) { hs_init(&argc, &argv); hs_exit(); return 0; }
C
run -- cc $cflags -o "$tmp/cur.o" "$tmp/cur.c"
rc_is 0
run -- nm -u "$tmp/cur.o"
out_has "hsrts_abi_$version"
run -- cc -o "$tmp/cur" "$tmp/cur.o" build/lib/libhsrts.a $libs
rc_is 0

t "an object of another ABI version fails to link, naming it"
old=$((version - 1))
# What the version-$old headers put in every object.
cat > "$tmp/old.c" <<C
extern const int hsrts_abi_$old;
__attribute__((used)) static const int *const hsrts_abi_check_ = &hsrts_abi_$old;
C
run -- cc $cflags -o "$tmp/old.o" "$tmp/old.c"
rc_is 0
run -- cc -o "$tmp/mixed" "$tmp/cur.o" "$tmp/old.o" build/lib/libhsrts.a $libs
rc_not 0
err_has "hsrts_abi_$old"
run -- cc -o "$tmp/mixed" "$tmp/cur.o" "$tmp/old.o" -Lbuild/lib -lhsrts
rc_not 0
err_has "hsrts_abi_$old"

finish t_abi
