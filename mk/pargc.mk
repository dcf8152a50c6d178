# Parallel GC's integration test (tests/integration/t_pargc.sh) runs the
# threaded benchmark programs (their rule is in mk/bench.mk).
PARGC_INTEGRATION_PROGS := build/bench/thr/largeheap build/bench/thr/binarytrees
check-integration: $(PARGC_INTEGRATION_PROGS)
# Deep stacks under the concurrent mark (tests/integration/t_nonmoving_stacks.sh).
check-integration: build/bench/thr/deepstack build/bench/thr_debug/deepstack

# The parallel-GC table (bench/pargc_run.sh): part of make bench, and its
# tiny --check (every configuration prints the same result) part of
# make check-bench.
.PHONY: bench-pargc check-bench-pargc
bench-pargc: libs
	@bench/pargc_run.sh
check-bench-pargc: libs
	@bench/pargc_run.sh --check
check-bench: check-bench-pargc
