# The statistics module's integration-test program (rts/stats/README.md),
# built in each way by the top Makefile's rule for tests/integration/progs.
# Included by the top Makefile.

STATS_INTEGRATION_PROGS := build/tests/progs/v/stats_prog build/tests/progs/debug/stats_prog
check-integration: $(STATS_INTEGRATION_PROGS)
