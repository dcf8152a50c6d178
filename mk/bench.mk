# Benchmarks side by side with peers (issue #6). See bench/README.md.
#
#   make bench         build everything, run every workload on hsrts and its
#                      peers (interleaved, several runs) and write
#                      bench/results/<date>-<host>.md with plots
#   make bench-deps    install the peers' Debian packages (mk/deps.sh bench)
#   make check-bench   build everything and run each workload once at a tiny
#                      size, checking its result (no timing)
#
# The runner, bench/run.sh, asks make for each program it needs; a peer whose
# toolchain is missing is skipped with a note in the report.

BENCH_WORKLOADS := binarytrees allocdrop mutarray mapchurn largeheap lazystream

# hsrts's workloads come from the top-level pattern rule; they share bench.h.
$(BENCH_WORKLOADS:%=build/bench/%) $(BENCH_WORKLOADS:%=build/bench/debug/%): bench/bench.h

# The threaded way, for -N2, once the library is built by the top-level
# Makefile (bench/run.sh skips -N2 with a note until then).
build/bench/thr/%: bench/%.c bench/bench.h $(RTS_HDRS) build/lib/libhsrts_thr.a
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(CC) $(PROG_CFLAGS) -O2 -g -o $@ $< build/lib/libhsrts_thr.a $(RTS_LIBS)

# The threaded debug way (tests/integration/t_nonmoving_stacks.sh runs deepstack there with -DS).
build/bench/thr_debug/%: bench/%.c bench/bench.h $(RTS_HDRS) build/lib/libhsrts_thr_debug.a
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(CC) $(PROG_CFLAGS) -O1 -g -o $@ $< build/lib/libhsrts_thr_debug.a $(RTS_LIBS)

# The C peers, one build per allocator (bench/peers/mm.h).
BENCH_PEER_CFLAGS := -std=gnu11 $(WARN_CFLAGS) -O2 -g -D_GNU_SOURCE
BENCH_PEER_DEPS := bench/peers/mm.h bench/bench.h
define BENCH_C_PEER
build/bench/$(1)/%: bench/peers/%.c $$(BENCH_PEER_DEPS)
	@mkdir -p $$(@D)
	$$(quiet) LINK $$@
	$$(Q)$$(CC) $$(BENCH_PEER_CFLAGS) $(2) -o $$@ $$< $(3)
endef
$(eval $(call BENCH_C_PEER,glibc,-DMM_MALLOC,))
$(eval $(call BENCH_C_PEER,jemalloc,-DMM_MALLOC,-ljemalloc))
$(eval $(call BENCH_C_PEER,boehm,-DMM_BOEHM,-lgc))
$(eval $(call BENCH_C_PEER,arena,-DMM_ARENA,))

# GHC: -fno-full-laziness and -fno-cse keep GHC from sharing the structures
# a workload rebuilds on purpose (one tree or list reused across iterations).
BENCH_GHC_FLAGS := -O2 -fno-full-laziness -fno-cse -rtsopts
build/bench/ghc/%: bench/peers/%.hs
	@mkdir -p $(@D)/obj/$*
	$(quiet) GHC $@
	$(Q)ghc $(BENCH_GHC_FLAGS) -outputdir $(@D)/obj/$* -o $@ $< > $(@D)/obj/$*.log \
	    || { cat $(@D)/obj/$*.log >&2; exit 1; }
# The threaded GHC peer, for the -N2 configuration.
build/bench/ghc-thr/%: bench/peers/%.hs
	@mkdir -p $(@D)/obj/$*
	$(quiet) GHC $@
	$(Q)ghc $(BENCH_GHC_FLAGS) -threaded -outputdir $(@D)/obj/$* -o $@ $< > $(@D)/obj/$*.log \
	    || { cat $(@D)/obj/$*.log >&2; exit 1; }

# OCaml: ocamlopt writes its objects beside the sources, so compile copies.
# -unsafe drops bounds checks, as the C and GHC versions have none.
BENCH_OCAML_FLAGS := -unsafe -inline 200
build/bench/ocaml/%: bench/peers/%.ml bench/peers/bench_stats.ml
	@mkdir -p $(@D)/obj/$*
	$(quiet) OCAML $@
	$(Q)cp bench/peers/bench_stats.ml $< $(@D)/obj/$*/
	$(Q)cd $(@D)/obj/$* && ocamlopt $(BENCH_OCAML_FLAGS) \
	    -o ../../$* bench_stats.ml $*.ml

build/bench/tools/%: bench/tools/%.c
	@mkdir -p $(@D)
	$(quiet) LINK $@
	$(Q)$(CC) -std=gnu11 $(WARN_CFLAGS) -O2 -o $@ $<

.PHONY: bench bench-deps check-bench
bench: libs
	@bench/run.sh
	@bench/pargc_run.sh

bench-deps:
	@mk/deps.sh bench

check-bench: libs
	@bench/run.sh --check
