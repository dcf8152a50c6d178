# The flags module's extra rules (rts/flags/README.md): the libFuzzer
# harness and the integration-test programs. Included by the top Makefile.

# ---- Fuzzing: make fuzz-flags (FUZZ_SECONDS, default 60), check-fuzz-smoke (10 s)

FUZZ_SECONDS ?= 60
FLAGS_FUZZ_DIR := build/fuzz/flags
FLAGS_FUZZ_SRCS := $(wildcard rts/flags/*.c) rts/messages.c rts/os/os_proc.c
FLAGS_FUZZ_DEPS := tests/fuzz/fuzz_flags.c $(FLAGS_FUZZ_SRCS) $(wildcard rts/flags/*.h) \
                   rts/messages.h include/RtsAPI.h $(CONFIG_MK)
FLAGS_FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter \
                     -Iinclude -Irts -D_GNU_SOURCE -DDEBUG -fno-omit-frame-pointer

$(FLAGS_FUZZ_DIR)/fuzz_flags: $(FLAGS_FUZZ_DEPS)
	@mkdir -p $(@D)
	@if [ -z "$(CLANG)" ]; then echo "fuzz-flags: clang is not installed" >&2; exit 1; fi
	$(quiet) FUZZ $@
	$(Q)$(CLANG) $(FLAGS_FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -o $@ tests/fuzz/fuzz_flags.c $(FLAGS_FUZZ_SRCS)

# The seed corpus and dictionary come from the option table.
$(FLAGS_FUZZ_DIR)/seeds.stamp: $(FLAGS_FUZZ_DEPS)
	@mkdir -p $(@D)
	$(quiet) SEEDS $(FLAGS_FUZZ_DIR)/seeds
	$(Q)$(CC) $(FLAGS_FUZZ_CFLAGS) -DFLAGS_FUZZ_SEEDGEN -o $(FLAGS_FUZZ_DIR)/gen_seeds \
	    tests/fuzz/fuzz_flags.c $(FLAGS_FUZZ_SRCS)
	$(Q)rm -rf $(FLAGS_FUZZ_DIR)/seeds && mkdir -p $(FLAGS_FUZZ_DIR)/seeds
	$(Q)$(FLAGS_FUZZ_DIR)/gen_seeds $(FLAGS_FUZZ_DIR)/seeds $(FLAGS_FUZZ_DIR)/flags.dict
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

# ---- Integration: programs linked by tools/hsrts-link from this build tree

FLAGS_ECHO_SRC := tests/integration/progs/flags_echo.c
FLAGS_ECHO_DEPS := $(FLAGS_ECHO_SRC) tools/hsrts-link include/RtsAPI.h rts/flags/flags.h
FLAGS_LINK := CC="$(CC)" tools/hsrts-link --build-tree=. -std=gnu11 -Wall -Wextra -Werror -Irts

# name, hsrts-link options, library
define FLAGS_ECHO_template
build/tests/flags/$(1): $$(FLAGS_ECHO_DEPS) build/lib/lib$(3).a build/hsrts.pc build/hsrts-debug.pc
	@mkdir -p $$(@D)
	$$(quiet) LINK $$@
	$$(Q)$$(FLAGS_LINK) $(2) -o $$@ $$(FLAGS_ECHO_SRC)
FLAGS_INTEGRATION_PROGS += build/tests/flags/$(1)
endef
$(eval $(call FLAGS_ECHO_template,echo_default,,hsrts))
$(eval $(call FLAGS_ECHO_template,echo_all,-rtsopts '-with-rtsopts=-G3 -A2m',hsrts))
$(eval $(call FLAGS_ECHO_template,echo_none,-rtsopts=none,hsrts))
$(eval $(call FLAGS_ECHO_template,echo_ignore,-rtsopts=ignore,hsrts))
$(eval $(call FLAGS_ECHO_template,echo_ignore_all,-rtsopts=ignoreAll -with-rtsopts=-G4,hsrts))
$(eval $(call FLAGS_ECHO_template,echo_quiet,-rtsopts=some -no-rtsopts-suggestions,hsrts))
$(eval $(call FLAGS_ECHO_template,echo_quote,-rtsopts '-with-rtsopts=-A2m -po"x\y',hsrts))
$(eval $(call FLAGS_ECHO_template,echo_debug,-debug -rtsopts,hsrts_debug))

check-integration: $(FLAGS_INTEGRATION_PROGS)

# hsrts-link against an installed hsrts (pkg-config), installed under build/.
FLAGS_INST := $(CURDIR)/build/tests/flags/inst
build/tests/flags/inst.stamp: $(LIBS_STATIC) $(LIBS_SHARED) build/hsrts.pc build/hsrts-debug.pc \
                              build/hsrts-thr.pc build/hsrts-thr-debug.pc
	@rm -rf $(FLAGS_INST)
	@$(MAKE) --no-print-directory install prefix=$(FLAGS_INST) >/dev/null
	@touch $@
build/tests/flags/hello_installed: tests/integration/progs/flags_hello.c tools/hsrts-link \
                                   build/tests/flags/inst.stamp
	$(quiet) LINK $@
	$(Q)PKG_CONFIG_PATH=$(FLAGS_INST)/lib/pkgconfig CC="$(CC)" HSRTS_BUILD_TREE= \
	    tools/hsrts-link -rtsopts -with-rtsopts=-G3 -o $@ $<
FLAGS_INTEGRATION_PROGS += build/tests/flags/hello_installed
check-integration: build/tests/flags/hello_installed
build/tests/flags/hello_installed_thr: tests/integration/progs/flags_hello.c tools/hsrts-link \
                                       build/tests/flags/inst.stamp
	$(quiet) LINK $@
	$(Q)PKG_CONFIG_PATH=$(FLAGS_INST)/lib/pkgconfig CC="$(CC)" HSRTS_BUILD_TREE= \
	    tools/hsrts-link -threaded -rtsopts -o $@ $<
check-integration: build/tests/flags/hello_installed_thr
