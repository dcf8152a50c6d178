# rts/trace's test programs (rts/trace/README.md), built in each way by the
# top Makefile's rule for tests/integration/progs. Included by the top Makefile.

TRACE_INTEGRATION_PROGS := build/tests/progs/v/trace_prog build/tests/progs/debug/trace_prog
check-integration: $(TRACE_INTEGRATION_PROGS)
