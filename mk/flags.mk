# The flags module's extra rules (rts/flags/README.md): the libFuzzer
# harness and the integration-test programs. Included by the top Makefile.

# ---- Fuzzing: make fuzz-flags (FUZZ_SECONDS, default 60), check-fuzz-smoke (10 s)

FUZZ_SECONDS ?= 60
FLAGS_FUZZ_DIR := build/fuzz/flags
FLAGS_FUZZ_SRCS := $(wildcard rts/flags/*.c) rts/messages.c
FLAGS_FUZZ_DEPS := tests/fuzz/fuzz_flags.c $(FLAGS_FUZZ_SRCS) $(wildcard rts/flags/*.h) \
                   rts/messages.h include/RtsAPI.h $(CONFIG_MK)
FLAGS_FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter \
                     -Iinclude -Irts -D_GNU_SOURCE -DDEBUG -fno-omit-frame-pointer

$(FLAGS_FUZZ_DIR)/fuzz_flags: $(FLAGS_FUZZ_DEPS)
	@mkdir -p $(@D)
	@if [ -z "$(CLANG)" ]; then echo "fuzz-flags: clang is not installed" >&2; exit 1; fi
	$(CLANG) $(FLAGS_FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -o $@ tests/fuzz/fuzz_flags.c $(FLAGS_FUZZ_SRCS)

# The seed corpus and dictionary come from the option table.
$(FLAGS_FUZZ_DIR)/seeds.stamp: $(FLAGS_FUZZ_DEPS)
	@mkdir -p $(@D)
	$(CC) $(FLAGS_FUZZ_CFLAGS) -DFLAGS_FUZZ_SEEDGEN -o $(FLAGS_FUZZ_DIR)/gen_seeds \
	    tests/fuzz/fuzz_flags.c $(FLAGS_FUZZ_SRCS)
	rm -rf $(FLAGS_FUZZ_DIR)/seeds && mkdir -p $(FLAGS_FUZZ_DIR)/seeds
	$(FLAGS_FUZZ_DIR)/gen_seeds $(FLAGS_FUZZ_DIR)/seeds $(FLAGS_FUZZ_DIR)/flags.dict
	@touch $@

.PHONY: fuzz-flags check-fuzz-smoke
fuzz-flags: $(FLAGS_FUZZ_DIR)/fuzz_flags $(FLAGS_FUZZ_DIR)/seeds.stamp
	@mkdir -p $(FLAGS_FUZZ_DIR)/corpus
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    $(FLAGS_FUZZ_DIR)/fuzz_flags -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	    -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
	    -dict=$(FLAGS_FUZZ_DIR)/flags.dict -artifact_prefix=$(FLAGS_FUZZ_DIR)/ \
	    $(FLAGS_FUZZ_DIR)/corpus $(FLAGS_FUZZ_DIR)/seeds

# A bounded run for make check.
check-fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz-flags FUZZ_SECONDS=10
