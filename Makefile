# hsrts top-level Makefile. See README.md for the targets a user needs:
#
#   make            build every way of the library and hsrts.pc
#   make run        set up, build and run the demo (binary-trees)
#   make check      set up, build and run every test
#   make install    install into $(DESTDIR)$(prefix)
#
# Set-up (Debian packages, autoreconf, configure) happens on demand: the
# configuration in mk/config.mk is (re)made whenever it is missing.

SHELL := /bin/bash
.DEFAULT_GOAL := all

# Quiet by default; make V=1 shows every command.
ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-6s %s\n'
endif
.DELETE_ON_ERROR:
.SUFFIXES:

# Which Debian package profile the set-up installs for these goals.
DEPS_PROFILE := $(if $(filter check% fuzz% valgrind%,$(MAKECMDGOALS)),check,$(if $(filter bench%,$(MAKECMDGOALS)),bench,build))

CONFIG_MK := mk/config.mk
NO_CONFIG_GOALS := clean distclean format deps
ifeq ($(filter-out $(NO_CONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
else
-include $(CONFIG_MK)
endif

$(CONFIG_MK): configure.ac mk/config.mk.in
	@mk/deps.sh $(DEPS_PROFILE)
	@if [ ! -x configure ] || [ configure -ot configure.ac ]; then \
	    echo "hsrts: autoreconf"; autoreconf -fi >/dev/null; fi
	./configure -q
	@touch $@

.PHONY: deps
deps:
	@mk/deps.sh $(DEPS_PROFILE)

# --------------------------------------------------------------------------
# Ways. Each way compiles every rts/ source with its own flags into
# build/<way>/ and archives the result as a static and a shared library.

VERSION ?= 0.1.0
SOVERSION := 0

WARN_CFLAGS := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
               -Wno-unused-parameter
BASE_CFLAGS := -std=gnu11 $(WARN_CFLAGS) -fPIC -fvisibility=hidden -fno-strict-aliasing \
               -Iinclude -Irts -D_GNU_SOURCE
# Libraries join RTS_LIBS as the features that use them land (libnuma with
# --numa, libunwind with stack traces); configure already detects them.
RTS_LIBS := -lm -lpthread $(NUMA_LIBS) $(UNWIND_LIBS)

WAYS := v debug thr thr_debug
LIBNAME_v := hsrts
LIBNAME_debug := hsrts_debug
LIBNAME_thr := hsrts_thr
LIBNAME_thr_debug := hsrts_thr_debug
LIBNAME_asan := hsrts_asan
LIBNAME_tsan := hsrts_tsan
CFLAGS_v := -O2 -g -DNDEBUG
CFLAGS_debug := -Og -g3 -DDEBUG
CFLAGS_thr := -O2 -g -DNDEBUG -DTHREADED_RTS
CFLAGS_thr_debug := -Og -g3 -DDEBUG -DTHREADED_RTS
TSANITIZE := -fsanitize=thread -fno-omit-frame-pointer
CFLAGS_tsan := -O1 -g3 -DDEBUG -DTHREADED_RTS $(TSANITIZE)
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
CFLAGS_asan := -O1 -g3 -DDEBUG $(SANITIZE)

RTS_SRCS := $(sort $(wildcard rts/*.c rts/*/*.c))
RTS_HDRS := $(wildcard include/*.h include/rts/*.h rts/*.h rts/*/*.h)

define WAY_template
OBJS_$(1) := $$(patsubst %.c,build/$(1)/%.o,$$(RTS_SRCS))
build/$(1)/%.o: %.c $$(CONFIG_MK)
	@mkdir -p $$(@D)
	$$(quiet) CC-$(1) $$<
	$$(Q)$$(CC) $$(BASE_CFLAGS) $$(CFLAGS_$(1)) -MMD -MP -c $$< -o $$@
build/lib/lib$$(LIBNAME_$(1)).a: $$(OBJS_$(1))
	@mkdir -p $$(@D)
	$$(quiet) AR $$@
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
build/lib/lib$$(LIBNAME_$(1)).so.$(VERSION): $$(OBJS_$(1))
	@mkdir -p $$(@D)
	$$(quiet) LD $$@
	$$(Q)$$(CC) -shared -Wl,--as-needed -Wl,-soname,lib$$(LIBNAME_$(1)).so.$(SOVERSION) $$(CFLAGS_$(1)) \
	    -o $$@ $$^ $$(RTS_LIBS)
	$$(Q)ln -sf lib$$(LIBNAME_$(1)).so.$(VERSION) build/lib/lib$$(LIBNAME_$(1)).so.$(SOVERSION)
	$$(Q)ln -sf lib$$(LIBNAME_$(1)).so.$(VERSION) build/lib/lib$$(LIBNAME_$(1)).so
-include $$(OBJS_$(1):.o=.d)
endef
$(foreach w,$(WAYS) asan tsan,$(eval $(call WAY_template,$(w))))

LIBS_STATIC := $(foreach w,$(WAYS),build/lib/lib$(LIBNAME_$(w)).a)
LIBS_SHARED := $(foreach w,$(WAYS),build/lib/lib$(LIBNAME_$(w)).so.$(VERSION))

.PHONY: all libs
all: libs build/hsrts.pc build/hsrts-debug.pc build/hsrts-thr.pc build/hsrts-thr-debug.pc
libs: $(LIBS_STATIC) $(LIBS_SHARED)

# --------------------------------------------------------------------------
# pkg-config files. prefix may be given to make (make install prefix=/opt).

prefix ?= /usr/local
exec_prefix ?= $(prefix)
libdir ?= $(exec_prefix)/lib
includedir ?= $(prefix)/include
bindir ?= $(exec_prefix)/bin

# A program linked with `pkg-config --libs hsrts` finds the shared library
# where it was installed (an rpath), unless that is a directory the dynamic
# linker searches anyway.
PC_RPATH = $(if $(filter /lib /lib64 /usr/lib /usr/lib64 /usr/lib/%,$(libdir)),,-Wl,-rpath,$${libdir} )

# $(call PC_template,<pc name>,<library name>)
define PC_template
build/$(1).pc: mk/hsrts.pc.in $$(CONFIG_MK) FORCE
	@mkdir -p $$(@D)
	@sed -e 's|@prefix@|$$(prefix)|; s|@libdir@|$$(libdir)|; s|@includedir@|$$(includedir)|' \
	     -e 's|@VERSION@|$$(VERSION)|; s|@NAME@|$(1)|; s|@LIBNAME@|$(2)|; s|@RPATH@|$$(PC_RPATH)|' \
	     -e 's|@LIBS_PRIVATE@|$$(RTS_LIBS)|' $$< > $$@.tmp
	@cmp -s $$@.tmp $$@ || mv $$@.tmp $$@; rm -f $$@.tmp
endef
$(eval $(call PC_template,hsrts,hsrts))
$(eval $(call PC_template,hsrts-debug,hsrts_debug))
$(eval $(call PC_template,hsrts-thr,hsrts_thr))
$(eval $(call PC_template,hsrts-thr-debug,hsrts_thr_debug))

.PHONY: FORCE
FORCE:

.PHONY: install uninstall
install: all
	install -d $(DESTDIR)$(libdir)/pkgconfig $(DESTDIR)$(includedir)/hsrts/rts \
	    $(DESTDIR)$(includedir)/hsrts/mpp
	install -m 644 include/*.h include/README.md $(DESTDIR)$(includedir)/hsrts/
	install -m 644 include/rts/*.h $(DESTDIR)$(includedir)/hsrts/rts/
	install -m 644 include/mpp/*.h $(DESTDIR)$(includedir)/hsrts/mpp/
	install -m 644 $(LIBS_STATIC) $(DESTDIR)$(libdir)/
	install -m 755 $(LIBS_SHARED) $(DESTDIR)$(libdir)/
	for w in $(foreach w,$(WAYS),$(LIBNAME_$(w))); do \
	    ln -sf lib$$w.so.$(VERSION) $(DESTDIR)$(libdir)/lib$$w.so.$(SOVERSION); \
	    ln -sf lib$$w.so.$(VERSION) $(DESTDIR)$(libdir)/lib$$w.so; done
	install -m 644 build/hsrts.pc build/hsrts-debug.pc build/hsrts-thr.pc build/hsrts-thr-debug.pc \
	    $(DESTDIR)$(libdir)/pkgconfig/

uninstall:
	rm -rf $(DESTDIR)$(includedir)/hsrts $(DESTDIR)$(libdir)/pkgconfig/hsrts*.pc
	for w in $(foreach w,$(WAYS),$(LIBNAME_$(w))); do \
	    rm -f $(DESTDIR)$(libdir)/lib$$w.a $(DESTDIR)$(libdir)/lib$$w.so*; done

# --------------------------------------------------------------------------
# Programs linked against a way's static library.

# Clients are built as hsrts.pc tells them to be: without strict aliasing (the
# heap is typed by info tables, not C types; GHC's RTS is built the same way).
PROG_CFLAGS := -std=gnu11 $(WARN_CFLAGS) -Iinclude -D_GNU_SOURCE -fno-strict-aliasing
link_way = build/lib/lib$(LIBNAME_$(1)).a $(RTS_LIBS)

BENCH_SRCS := $(wildcard bench/*.c)
build/bench/%: bench/%.c $(RTS_HDRS) build/lib/libhsrts.a
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(CC) $(PROG_CFLAGS) -O2 -g -o $@ $< $(call link_way,v)
build/bench/debug/%: bench/%.c $(RTS_HDRS) build/lib/libhsrts_debug.a
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(CC) $(PROG_CFLAGS) -O0 -g -o $@ $< $(call link_way,debug)

DEMO_DEPTH ?= 18
.PHONY: run
run: all build/bench/binarytrees
	build/bench/binarytrees $(DEMO_DEPTH) +RTS -s -RTS

# --------------------------------------------------------------------------
# Tests. Every tests/unit/check_*.c is a Check program; tests/support/*.c is
# shared by them (the mock mutator). Integration tests are shell scripts.
# Further test makefiles (one per subsystem) live in mk/*.mk.

TEST_SUPPORT_SRCS := $(wildcard tests/support/*.c)
# check_thr_*.c need the threaded way; the threaded ways also run the suites
# listed in THR_ALSO (check_stress runs its parallel-collector configurations
# there; its threaded counterpart with several mutators is check_thr_stress).
UNIT_SRCS_THR := $(wildcard tests/unit/check_thr_*.c)
UNIT_SRCS := $(filter-out $(UNIT_SRCS_THR),$(wildcard tests/unit/check_*.c))
THR_ALSO := check_api check_barriers check_deep_eval check_eval check_mutable check_stable check_stress \
            check_stack check_threads
UNIT_TESTS_debug := $(patsubst tests/unit/%.c,build/tests/debug/%,$(UNIT_SRCS))
UNIT_TESTS_v := $(patsubst tests/unit/%.c,build/tests/v/%,$(UNIT_SRCS))
UNIT_TESTS_asan := $(patsubst tests/unit/%.c,build/tests/asan/%,$(UNIT_SRCS))
UNIT_TESTS_thr_debug := $(patsubst tests/unit/%.c,build/tests/thr_debug/%,$(UNIT_SRCS_THR)) \
                        $(addprefix build/tests/thr_debug/,$(THR_ALSO))
UNIT_TESTS_thr := $(patsubst tests/unit/%.c,build/tests/thr/%,$(UNIT_SRCS_THR)) build/tests/thr/check_stress
UNIT_TESTS_tsan := $(patsubst tests/unit/%.c,build/tests/tsan/%,$(UNIT_SRCS_THR)) \
                   $(addprefix build/tests/tsan/,check_threads check_eval check_stress)
TEST_CFLAGS := $(PROG_CFLAGS) -Irts -Itests/support $(CHECK_CFLAGS) -Wno-missing-prototypes
TEST_CFLAGS_v := -O2 -g
# The test programs' own code (the mock mutator walks its whole graph twice a
# round) is compiled with -O1 in the debug ways: 4x faster stress suites.
# The debug library itself is -Og (GCC's level for debugging: no sibling
# calls, so the evaluator's tail calls are still checked not to need them),
# with every assertion; at -O0 check-unit took 12 minutes, at -Og 9.
TEST_CFLAGS_debug := -O1 -g3 -DDEBUG
TEST_CFLAGS_asan := -O1 -g3 -DDEBUG $(SANITIZE)
TEST_CFLAGS_thr := -O2 -g -DTHREADED_RTS
TEST_CFLAGS_thr_debug := -O1 -g3 -DDEBUG -DTHREADED_RTS
TEST_CFLAGS_tsan := -O1 -g3 -DDEBUG -DTHREADED_RTS $(TSANITIZE)

define TEST_template
build/tests/$(1)/%: tests/unit/%.c $$(TEST_SUPPORT_SRCS) $$(wildcard tests/support/*.h) $$(RTS_HDRS) build/lib/lib$$(LIBNAME_$(1)).a
	@mkdir -p $$(@D)
	$$(quiet) LINK $$@
	$$(Q)$$(CC) $$(TEST_CFLAGS) $$(TEST_CFLAGS_$(1)) -o $$@ $$< $$(TEST_SUPPORT_SRCS) \
	    build/lib/lib$$(LIBNAME_$(1)).a $$(CHECK_LIBS) $$(RTS_LIBS)
endef
$(foreach w,v debug asan thr thr_debug tsan,$(eval $(call TEST_template,$(w))))

.PHONY: check check-run check-asan check-asan-run check-unit check-integration check-valgrind
check:
	@mk/deps.sh check
	@grep -q '^HAVE_CHECK = yes' $(CONFIG_MK) || ./configure -q
	@$(MAKE) --no-print-directory check-run

CHECK_TARGETS := check-format check-unit check-integration check-valgrind check-notes check-fuzz-smoke \
                 check-bench
check-run: all $(UNIT_TESTS_debug) $(UNIT_TESTS_v) $(UNIT_TESTS_thr_debug) $(UNIT_TESTS_thr)
	@$(MAKE) --no-print-directory $(CHECK_TARGETS)
	@echo "hsrts: all tests passed"

check-unit: $(UNIT_TESTS_debug) $(UNIT_TESTS_v) $(UNIT_TESTS_thr_debug) $(UNIT_TESTS_thr)
	@tests/run-unit.sh $(UNIT_TESTS_debug) $(UNIT_TESTS_v) $(UNIT_TESTS_thr_debug) $(UNIT_TESTS_thr)

# The unit suites of the debug way again with the oldest generation compacted
# (-c) and mark-region (-w), through GHCRTS (a soak, not part of check: it
# doubles check-unit's time; check_stress and check_oldgen cover both there).
OLDGEN_SUITES := check_api check_barriers check_deep_eval check_eval check_mutable check_stable \
                 check_stack check_threads
# Under -xn (issue 14): the suites whose configurations include no -G1
# (-xn refuses it, as GHC) and whose block floors do not assume one-block
# old objects (check_stack: a segment is 8 blocks), and the stress suite's
# -xn configurations with at least 1000 major collections each (-DS).
NONMOVING_SUITES := check_api check_barriers check_mutable check_stable check_threads
NONMOVING_STRESS := "-xn" "-xn -G3" "-xn -A8k" "-xn --nonmoving-dense-allocator-count=2"
.PHONY: check-oldgen
check-oldgen: $(addprefix build/tests/debug/,$(OLDGEN_SUITES) check_stress check_nonmoving)
	@for o in -c -w; do echo "== GHCRTS=$$o"; \
	    GHCRTS=$$o tests/run-unit.sh $(addprefix build/tests/debug/,$(OLDGEN_SUITES)) || exit 1; done
	@echo "== GHCRTS=-xn"; GHCRTS=-xn tests/run-unit.sh $(addprefix build/tests/debug/,$(NONMOVING_SUITES))
	@for o in $(NONMOVING_STRESS); do echo "== stress $$o, 8000 rounds"; \
	    HSRTS_STRESS_ONLY="$$o" HSRTS_STRESS_ITERS=8000 build/tests/debug/check_stress 2>&1 | \
	    grep -E '^stress|Checks' ; [ $${PIPESTATUS[0]} = 0 ] || exit 1; done

# Small programs of the integration tests, in each way.
define PROG_template
build/tests/progs/$(1)/%: tests/integration/progs/%.c $$(RTS_HDRS) build/lib/lib$$(LIBNAME_$(1)).a
	@mkdir -p $$(@D)
	$$(quiet) LINK $$@
	$$(Q)$$(CC) $$(PROG_CFLAGS) -O1 -g -o $$@ $$< $$(call link_way,$(1))
endef
$(foreach w,v debug,$(eval $(call PROG_template,$(w))))

INTEGRATION_PROGS := build/bench/binarytrees build/bench/debug/binarytrees build/bench/largeheap \
                     $(foreach w,v debug,build/tests/progs/$(w)/bad_input build/tests/progs/$(w)/lazy_exits)
check-integration: $(INTEGRATION_PROGS) all build/tests/flags/inst.stamp
	@tests/integration/run.sh

check-valgrind: build/bench/binarytrees
	@if [ -z "$(VALGRIND)" ]; then echo "check-valgrind: valgrind is not installed" >&2; exit 1; fi
	$(quiet) VALGRIND "binarytrees 12 +RTS -A64k (memcheck)"
	$(Q)valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	    build/bench/binarytrees 12 +RTS -A64k -RTS > /dev/null

# The bench programs under many flag combinations with -DS (tests/flag-matrix.sh):
# a soak outside make check; CI runs FLAG_MATRIX=quick.
FLAG_MATRIX ?= full
FLAG_MATRIX_PROGS := binarytrees mapchurn lazystream mutarray largeheap allocdrop deepstack
.PHONY: check-flag-matrix
check-flag-matrix: $(foreach p,$(FLAG_MATRIX_PROGS),build/bench/debug/$(p) build/bench/thr_debug/$(p))
	@tests/flag-matrix.sh $(FLAG_MATRIX)

check-notes:
	@tests/check-notes.sh

# Every C file is as clang-format leaves it (STYLE.md item 11).
check-format:
	@command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed" >&2; exit 1; }
	@clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h' 2>/dev/null || find include rts tests bench -name '*.[ch]') \
	    && echo "check-format: every C file is formatted"

check-asan:
	@mk/deps.sh check
	@grep -q '^HAVE_CHECK = yes' $(CONFIG_MK) || ./configure -q
	@$(MAKE) --no-print-directory check-asan-run

check-asan-run: $(UNIT_TESTS_asan)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    tests/run-unit.sh $(UNIT_TESTS_asan)

# ThreadSanitizer over the threaded suites (TSan needs clang or gcc's libtsan).
.PHONY: check-tsan check-tsan-run
check-tsan:
	@mk/deps.sh check
	@grep -q '^HAVE_CHECK = yes' $(CONFIG_MK) || ./configure -q
	@$(MAKE) --no-print-directory check-tsan-run

check-tsan-run: $(UNIT_TESTS_tsan)
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	    HSRTS_STRESS_ITERS=60 tests/run-unit.sh $(UNIT_TESTS_tsan)

-include $(sort $(wildcard mk/*.mk))

# --------------------------------------------------------------------------

.PHONY: format clean distclean
format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build

distclean: clean
	rm -rf configure config.log config.status autom4te.cache aclocal.m4 mk/aux \
	    mk/config.mk rts/hsrts_config.h rts/hsrts_config.h.in rts/hsrts_config.h.in~
