# The symmetric heap's extra rules (rts/shmem/README.md): the PE launcher,
# the MPI variant of the library, and the multi-PE test programs.
# Included by the top Makefile.
#
# Packaging: libhsrts itself holds the symmetric heap with the local
# backend (rts/shmem/*.c are compiled into every way like any other
# subsystem), so any program linked with hsrts, or a plain OpenSHMEM C
# program linked with -lhsrts, runs as several PEs under hsrts-shmemrun.
# With MPI (configure found mpicc, or --with-mpi), libhsrts_mpi is the same
# library with the MPI backend in place of the local one: the vanilla way's
# objects, less shmem_backend_default.o, plus rts/shmem/mpi/shmem_mpi.o
# compiled with mpicc. Programs link it with mpicc (pkg-config hsrts-mpi).

# ---- the launcher ------------------------------------------------------------

SHMEM_LAUNCHER := build/bin/hsrts-shmemrun
SHMEM_LAUNCHER_SRCS := tools/hsrts-shmemrun.c rts/shmem/shmem_env.c
$(SHMEM_LAUNCHER): $(SHMEM_LAUNCHER_SRCS) rts/shmem/shmem_env.h rts/shmem/shmem_local.h $(CONFIG_MK)
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(CC) $(BASE_CFLAGS) -O2 -g -o $@ $(SHMEM_LAUNCHER_SRCS)

all: $(SHMEM_LAUNCHER)

# ---- the MPI variant of the library ------------------------------------------

ifeq ($(HAVE_MPI),yes)
SHMEM_MPI_OBJS := $(filter-out build/v/rts/shmem/shmem_backend_default.o,$(OBJS_v)) \
                  build/mpi/rts/shmem/mpi/shmem_mpi.o
build/mpi/rts/shmem/mpi/shmem_mpi.o: rts/shmem/mpi/shmem_mpi.c $(CONFIG_MK)
	@mkdir -p $(@D)
	$(quiet) CC-mpi $<
	$(Q)$(MPICC) $(BASE_CFLAGS) $(CFLAGS_v) -MMD -MP -c $< -o $@
-include build/mpi/rts/shmem/mpi/shmem_mpi.d
build/lib/libhsrts_mpi.a: $(SHMEM_MPI_OBJS)
	@mkdir -p $(@D)
	$(quiet) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^
build/lib/libhsrts_mpi.so.$(VERSION): $(SHMEM_MPI_OBJS)
	@mkdir -p $(@D)
	$(quiet) LD $@
	$(Q)$(MPICC) -shared -Wl,-soname,libhsrts_mpi.so.$(SOVERSION) $(CFLAGS_v) -o $@ $^ $(RTS_LIBS)
	$(Q)ln -sf libhsrts_mpi.so.$(VERSION) build/lib/libhsrts_mpi.so.$(SOVERSION)
	$(Q)ln -sf libhsrts_mpi.so.$(VERSION) build/lib/libhsrts_mpi.so
$(eval $(call PC_template,hsrts-mpi,hsrts_mpi))
SHMEM_MPI_LIBS := build/lib/libhsrts_mpi.a build/lib/libhsrts_mpi.so.$(VERSION)
libs: $(SHMEM_MPI_LIBS)
all: build/hsrts-mpi.pc
endif

# ---- installing (the top Makefile's install rule puts the headers) -----------

.PHONY: install-shmem uninstall-shmem
install: install-shmem
install-shmem: all
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir)/pkgconfig
	install -m 755 $(SHMEM_LAUNCHER) $(DESTDIR)$(bindir)/hsrts-shmemrun
ifeq ($(HAVE_MPI),yes)
	install -m 644 build/lib/libhsrts_mpi.a $(DESTDIR)$(libdir)/
	install -m 755 build/lib/libhsrts_mpi.so.$(VERSION) $(DESTDIR)$(libdir)/
	ln -sf libhsrts_mpi.so.$(VERSION) $(DESTDIR)$(libdir)/libhsrts_mpi.so.$(SOVERSION)
	ln -sf libhsrts_mpi.so.$(VERSION) $(DESTDIR)$(libdir)/libhsrts_mpi.so
	install -m 644 build/hsrts-mpi.pc $(DESTDIR)$(libdir)/pkgconfig/
endif
uninstall: uninstall-shmem
uninstall-shmem:
	rm -f $(DESTDIR)$(bindir)/hsrts-shmemrun $(DESTDIR)$(libdir)/libhsrts_mpi.*

# ---- multi-PE test programs (tests/shmem/, run by tests/integration/t_shmem*.sh)

SHMEM_TEST_NAMES := $(notdir $(basename $(wildcard tests/shmem/*.c)))
SHMEM_TEST_DEPS := tests/shmem/shmem_test.h include/shmem.h include/mpp/shmem.h $(RTS_HDRS)
SHMEM_TEST_CFLAGS := $(PROG_CFLAGS) -O1 -g -Itests/shmem

# local backend, in the vanilla and the debug way
define SHMEM_TEST_template
build/tests/shmem/$(1)/%: tests/shmem/%.c $$(SHMEM_TEST_DEPS) build/lib/lib$$(LIBNAME_$(1)).a
	@mkdir -p $$(@D)
	$$(quiet) LINK $$@
	$$(Q)$$(CC) $$(SHMEM_TEST_CFLAGS) -o $$@ $$< $$(call link_way,$(1))
endef
$(foreach w,v debug,$(eval $(call SHMEM_TEST_template,$(w))))
SHMEM_TEST_PROGS := $(foreach w,v debug,$(SHMEM_TEST_NAMES:%=build/tests/shmem/$(w)/%))

ifeq ($(HAVE_MPI),yes)
build/tests/shmem/mpi/%: tests/shmem/%.c $(SHMEM_TEST_DEPS) build/lib/libhsrts_mpi.a
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(MPICC) $(SHMEM_TEST_CFLAGS) -o $@ $< build/lib/libhsrts_mpi.a $(RTS_LIBS)
SHMEM_TEST_PROGS += $(SHMEM_TEST_NAMES:%=build/tests/shmem/mpi/%)
endif

.PHONY: check-shmem-note
check-integration: $(SHMEM_TEST_PROGS) $(SHMEM_LAUNCHER) check-shmem-note
check-shmem-note:
ifneq ($(HAVE_MPI),yes)
	@echo "note: the symmetric heap's mpi backend is not built or tested: configure found no" \
	      "Open MPI (make deps installs openmpi-bin and libopenmpi-dev)"
endif


# ---- the benchmark (bench/shmem.c, run by bench/shmem_run.sh) -----------------
# build/bench/shmem comes from the top Makefile's rule (libhsrts, local backend).

build/bench/shmem: bench/bench.h
ifeq ($(HAVE_MPI),yes)
build/bench/mpi/shmem: bench/shmem.c bench/bench.h $(RTS_HDRS) build/lib/libhsrts_mpi.a
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(MPICC) $(PROG_CFLAGS) -O2 -g -Ibench -o $@ $< build/lib/libhsrts_mpi.a $(RTS_LIBS)
endif
# The peer: the same program on Open MPI's own OpenSHMEM (Debian's liboshmem).
build/bench/oshmem/shmem: bench/shmem.c bench/bench.h
	@mkdir -p $(@D)
	$(quiet) OSHCC $@
	$(Q)oshcc -std=gnu11 -O2 -g -Wall -Ibench -o $@ $<

# osh_alloc (<mpp/shmem.h>) built against the installed headers and library
# (the flags module installs hsrts under build/), for t_shmem.sh to run with
# the installed launcher: the install rule is complete.
build/tests/shmem/installed/osh_alloc: tests/shmem/osh_alloc.c build/tests/flags/inst.stamp
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(CC) -std=gnu11 -Wall -Werror -O1 -o $@ $< \
	    $$(PKG_CONFIG_PATH=$(FLAGS_INST)/lib/pkgconfig pkg-config --cflags hsrts) \
	    $(FLAGS_INST)/lib/libhsrts.a $(RTS_LIBS)
check-integration: build/tests/shmem/installed/osh_alloc
