# The allocation API's size checks (Note [Impossible sizes] in
# rts/sm/alloc.c): the integration-test program, built in each way by the
# top Makefile's rule for tests/integration/progs. Included by the top
# Makefile; tests/integration/t_sizes.sh runs it.

SIZES_INTEGRATION_PROGS := build/tests/progs/v/alloc_sizes build/tests/progs/debug/alloc_sizes
check-integration: $(SIZES_INTEGRATION_PROGS)
