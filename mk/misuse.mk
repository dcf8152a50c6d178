# The evaluation-misuse integration program (tests/integration/t_misuse.sh),
# built in each way by the top Makefile's rule for tests/integration/progs.
check-integration: build/tests/progs/v/misuse_eval build/tests/progs/debug/misuse_eval
