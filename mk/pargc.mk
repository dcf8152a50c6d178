# Parallel GC's integration test (tests/integration/t_pargc.sh) runs the
# threaded benchmark programs (their rule is in mk/bench.mk).
PARGC_INTEGRATION_PROGS := build/bench/thr/largeheap build/bench/thr/binarytrees
check-integration: $(PARGC_INTEGRATION_PROGS)
