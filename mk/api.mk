# The public API's misuse checks (Note [Calls outside hs_init .. hs_exit] in
# rts/startup.h): the integration-test program, built in each way by the
# top Makefile's rule for tests/integration/progs. Included by the top
# Makefile; tests/integration/t_api.sh runs it.

API_INTEGRATION_PROGS := build/tests/progs/v/api_misuse build/tests/progs/debug/api_misuse
check-integration: $(API_INTEGRATION_PROGS)
