# irl — hand-written Makefile.
#   make            release build: build/release/irl
#   make demo       install missing Debian packages, build, dry-run the demo program (outputs in out/demo/)
#   make test       install missing Debian packages; the whole suite: release build, then again under ASan + UBSan
#   make debug      debug build: build/debug/irl      make asan   sanitizer build: build/asan/irl
#   make bench      all benchmarks (bench-vm, ...)     make fuzz   libFuzzer targets (clang), byte-flip campaign
# Sources are discovered: grammar/*.{l,y}, src/*.c, runtime/**/*.c (one level of sub-folders, plus online/drivers/), models/*.c, tests/unit/test_*.c.
# Generated files go to build/gen; objects to build/<config>/.

CC       ?= gcc
NPROC    := $(shell nproc 2>/dev/null || echo 2)
# BUILD_ROOT lets a second job build elsewhere without racing this tree's build/.
BUILD_ROOT ?= build
CFG      ?= release
# SLEEF (libsleef-dev): the numerics' sin, cos, atan2, pow, ... (models/dmath.h), the same bits on any x86-64.
PKGS     := gsl libxml-2.0 libmodbus hdf5 sleef libisal
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libxml2 and libhdf5 are not linked: src/xml_loader.c loads libxml2 on the first URDF file (it brings ICU and
# libstdc++, ~1.5 ms of start-up in every run otherwise), runtime/output/h5_loader.c libhdf5 on the first HDF5 trace
# (~35 libraries: curl, gnutls, krb5, ldap, ...; ~6 ms), each by the soname of the library the headers belong to.
PKG_LIBS   := $(shell pkg-config --libs gsl libmodbus sleef libisal 2>/dev/null || echo -lgsl -lgslcblas -lmodbus -lsleef -lisal)
XML2_SONAME := $(shell objdump -p $$(pkg-config --variable=libdir libxml-2.0 2>/dev/null)/libxml2.so 2>/dev/null | \
                 sed -n 's/^ *SONAME *//p')
# Debian's serial HDF5 lives in a folder of its own, named by -L (pkg-config's libdir variable is unset there).
HDF5_LIBDIR := $(or $(patsubst -L%,%,$(filter -L%,$(shell pkg-config --libs-only-L hdf5 2>/dev/null))),\
                    $(shell pkg-config --variable=libdir hdf5 2>/dev/null))
HDF5_SONAME := $(shell objdump -p $(firstword $(HDF5_LIBDIR))/libhdf5.so 2>/dev/null | sed -n 's/^ *SONAME *//p')
# The unit tests that read a trace back through libhdf5's own filters call it directly.
HDF5_LIBS  := $(shell pkg-config --libs hdf5 2>/dev/null || echo -lhdf5)

# LinuxCNC's HAL (Debian linuxcnc-uspace-dev): the hal driver is built against it where it is installed; without
# it the driver is a stub whose every use says so.
HAL_H    := $(wildcard /usr/include/linuxcnc/hal.h)
ifeq ($(HAL_H),)
  $(info irl: /usr/include/linuxcnc/hal.h not found: --driver hal is built as a stub (install linuxcnc-uspace-dev and rebuild))
endif

# MuJoCo (Debian libmujoco-dev): tests/unit/test_urdf_mujoco.c compares the real robot files' dynamics with it;
# built without it, that test fails saying so.
MUJOCO_H := $(wildcard /usr/include/mujoco/mujoco.h)

WARN     := -Wall -Wextra -Werror -Wno-error=unused-parameter
# -ffp-contract=off: no a * b + c fused into one rounding where the target has FMA (the same bits on any x86-64;
# the baseline target has no FMA, and this keeps it so under -march or another compiler's defaults)
COMMON   := -std=c11 -ffp-contract=off -D_GNU_SOURCE -I$(BUILD_ROOT)/gen -Isrc -Iruntime -Imodels -Igrammar $(PKG_CFLAGS) -MMD -MP
ifeq ($(CFG),release)
  # -fno-math-errno: sqrt and friends inline, without the branch that sets errno (nothing reads errno after a math
  # call); the results are the same bits
  OPT := -O2 -g -DNDEBUG -fno-math-errno
else ifeq ($(CFG),debug)
  OPT := -O0 -g3
else ifeq ($(CFG),asan)
  # -g1: line tables only, all the sanitizers' reports need (file:line in every frame); a fifth less compile time
  OPT := -O1 -g1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(CFG),fuzz)
  # the library for the libFuzzer targets (make fuzz): clang, coverage for the fuzzer, ASan + UBSan
  CC  := $(or $(FUZZ_CC),clang)
  OPT := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
  $(error CFG must be release, debug, asan or fuzz)
endif
CFLAGS   += $(COMMON) $(WARN) $(OPT)
LDFLAGS  += $(filter -fsanitize%,$(OPT))
LDLIBS   += $(PKG_LIBS) $(if $(HAL_H),-llinuxcnchal) -ldl -lpthread -lm

B        := $(BUILD_ROOT)/$(CFG)
GEN      := $(BUILD_ROOT)/gen
LEX_C    := $(GEN)/lexer.c
PARSE_C  := $(GEN)/parser.c

LIB_SRC  := $(wildcard src/*.c runtime/*.c runtime/*/*.c runtime/online/drivers/*.c models/*.c)
LIB_SRC  := $(filter-out src/main.c,$(LIB_SRC))
# Until the grammar exists the rest still builds (models and their tests need no parser).
HAVE_GRAMMAR := $(wildcard grammar/parser.y)
GEN_OBJ  := $(if $(HAVE_GRAMMAR),$(B)/gen/parser.o $(B)/gen/lexer.o)
GEN_DEP  := $(if $(HAVE_GRAMMAR),$(GEN)/parser.h $(GEN)/lexer.h)
LIB_OBJ  := $(patsubst %.c,$(B)/%.o,$(LIB_SRC)) $(GEN_OBJ)

# report.html's libraries, embedded into irl with the page's own glue (runtime/output/html/): uPlot from the npm
# registry (`npm pack` at a pinned version, checked against its SHA-256, unpacked into build/js) and three.js with
# its OrbitControls from Debian's libjs-three (.ci/packages). od turns each file into a byte array in
# build/gen/report_html_assets.c, which report_html.c writes into the page.
UPLOT_VERSION := 1.6.32
UPLOT_SHA256  := 4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d
THREE_DIR     ?= /usr/share/javascript/three
JS            := $(BUILD_ROOT)/js
HTML_ASSETS   := runtime/output/html/report.html runtime/output/html/report.css runtime/output/html/report.js \
                 $(JS)/uPlot.min.css $(JS)/uPlot.iife.min.js $(THREE_DIR)/three.min.js \
                 $(THREE_DIR)/examples/js/controls/OrbitControls.js
LIB_OBJ  += $(B)/gen/report_html_assets.o
# The emulator's register map (drives/emulator.map), built in as the modbus driver's map when none is named.
LIB_OBJ  += $(B)/gen/regmap_emulator.o
TEST_SRC := $(wildcard tests/unit/test_*.c)
TEST_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%,$(TEST_SRC))

.PHONY: all deps release debug asan test test-quick demo bench bench-vm clean fuzz bench-dryrun
all: $(if $(wildcard src/main.c),$(B)/irl) $(TEST_BIN)

# Debian packages the build and the tests need (no-op when installed).
deps: ; .ci/install-deps

release: ; $(MAKE) CFG=release
debug:   ; $(MAKE) CFG=debug
asan:    ; $(MAKE) CFG=asan

$(B)/irl: $(B)/src/main.o $(B)/libirl.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/libirl.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(B)/tests/%: tests/unit/%.c $(B)/libirl.a tests/unit/utest.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(B)/libirl.a $(LDFLAGS) $(LDLIBS)

$(B)/%.o: %.c | $(GEN_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/runtime/online/drivers/hal.o: CFLAGS += $(if $(HAL_H),-DIRL_HAVE_HAL -DULAPI -isystem $(dir $(HAL_H)))

$(B)/tests/test_urdf_mujoco: CFLAGS += $(if $(MUJOCO_H),-DIRL_HAVE_MUJOCO)
$(B)/tests/test_urdf_mujoco: LDLIBS += $(if $(MUJOCO_H),-lmujoco)
$(B)/tests/test_urdf_mujoco: tests/unit/test_rand.h tests/tools/urdf_for_mujoco.py

$(B)/src/xml_loader.o: CFLAGS += $(if $(XML2_SONAME),-DXML2_SONAME='"$(XML2_SONAME)"',\
    $(warning libxml2.so's soname not found (objdump, pkg-config libxml-2.0): URDF files will look for libxml2.so.2))
$(B)/runtime/output/h5_loader.o: CFLAGS += $(if $(HDF5_SONAME),-DHDF5_SONAME='"$(HDF5_SONAME)"',\
    $(warning libhdf5.so's soname not found (objdump, pkg-config hdf5): the HDF5 trace will look for libhdf5_serial.so.103))
$(B)/tests/test_trace: LDLIBS += $(HDF5_LIBS)

# Generated scanner and parser: compiled without the warnings flex and bison's skeletons trip.
$(B)/gen/%.o: $(GEN)/%.c $(GEN)/parser.h $(GEN)/lexer.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-function -Wno-sign-compare -Wno-unused-but-set-variable -c -o $@ $<

# &: one run makes both files (two plain targets would run bison twice at once under -j, into the same files)
$(PARSE_C) $(GEN)/parser.h &: grammar/parser.y
	@mkdir -p $(GEN)
	bison -Wall -Werror --defines=$(GEN)/parser.h -o $(PARSE_C) $<

$(LEX_C) $(GEN)/lexer.h &: grammar/lexer.l $(GEN)/parser.h
	@mkdir -p $(GEN)
	flex --header-file=$(GEN)/lexer.h -o $(LEX_C) $<

$(JS)/uplot-$(UPLOT_VERSION).tgz:
	@mkdir -p $(JS)
	cd $(JS) && npm pack --silent uplot@$(UPLOT_VERSION) >/dev/null
	echo "$(UPLOT_SHA256)  $@" | sha256sum -c --quiet || { rm -f $@; exit 1; }

$(JS)/uPlot.iife.min.js $(JS)/uPlot.min.css: $(JS)/uplot-$(UPLOT_VERSION).tgz
	tar -xzf $< -C $(JS) --strip-components=2 package/dist/$(notdir $@)
	touch $@

$(THREE_DIR)/%.js:
	@echo "missing $@: install Debian's libjs-three (make deps)" >&2; exit 1

$(GEN)/report_html_assets.c: $(HTML_ASSETS)
	@mkdir -p $(GEN)
	{ echo "/* generated by the Makefile: report.html's template, glue and libraries as bytes */"; \
	  echo '#include <stddef.h>'; \
	  for f in $^; do n=$$(basename $$f | tr -c 'A-Za-z0-9\n' '_'); \
	    echo "extern const unsigned char irl_asset_$$n[]; extern const size_t irl_asset_$${n}_len;"; \
	    echo "const unsigned char irl_asset_$$n[] = {"; od -An -v -tx1 $$f | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	    echo '};'; echo "const size_t irl_asset_$${n}_len = sizeof irl_asset_$$n;"; done; } > $@.tmp && mv $@.tmp $@

$(GEN)/regmap_emulator.c: drives/emulator.map
	@mkdir -p $(GEN)
	{ echo "/* generated by the Makefile from $<: the modbus driver's default register map */"; \
	  echo 'extern const char regmap_emulator_file[], regmap_emulator_text[];'; \
	  echo 'const char regmap_emulator_file[] = "$<";'; \
	  echo 'const char regmap_emulator_text[] = {'; od -An -v -tx1 $< | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0};'; } > $@.tmp && mv $@.tmp $@

# The whole suite, plain and under sanitizers, on every core (tests/run.sh: JOBS=N, a filter after --); the runner
# prints "N passed, N failed" last.
test: deps
	$(MAKE) -j$(NPROC) CFG=release all
	$(MAKE) -j$(NPROC) CFG=asan all
	tests/run.sh $(BUILD_ROOT)/release $(BUILD_ROOT)/asan

# Only the release pass (quicker while developing).
test-quick:
	$(MAKE) -j$(NPROC) CFG=release all
	tests/run.sh $(BUILD_ROOT)/release

# Recursive makes re-read pkg-config after `make deps` installed the libraries.
demo: deps
	$(MAKE) -j$(NPROC) CFG=release all
	$(BUILD_ROOT)/release/irl run programs/demo.irl

# Every benchmark, after installing its peers.
bench:
	.ci/install-deps --bench
	$(MAKE) bench-vm bench-compile bench-dynamics bench-cycle bench-dryrun bench-online

bench-vm: all
	bench/vm/run.sh $(B)/irl

# The online mode's timing (bench/online/run.sh): compute time per cycle and wake-up latency with the sim driver,
# then 60 s of streaming to LinuxCNC's HAL (bench/online/hal60.sh).
.PHONY: bench-online
bench-online: all
	bench/online/run.sh $(B)/irl

# Dynamics of the chain back-end vs Orocos KDL and MuJoCo (Debian liborocos-kdl-dev, libmujoco-dev).
.PHONY: bench-dynamics
bench-dynamics: $(B)/libirl.a
	@mkdir -p $(B)/bench
	$(CXX) -O2 -g -std=c++17 -Imodels -Itests/unit $(PKG_CFLAGS) $$(pkg-config --cflags orocos_kdl eigen3) \
	  -o $(B)/bench/bench_dynamics bench/dynamics/bench_dynamics.cpp $(B)/libirl.a \
	  $$(pkg-config --libs orocos_kdl) -lmujoco $(LDLIBS)
	$(B)/bench/bench_dynamics

# Per-cycle model cost (bench/dynamics/bench_*.c): chain IK along a 1 ms PUMA LIN, a planner cycle (+ inverse
# dynamics), and the centrifuge back-end's inverse dynamics against the chain back-end's.
.PHONY: bench-cycle
bench-cycle: $(B)/libirl.a
	@mkdir -p $(B)/bench
	@for b in bench_ik bench_planner bench_centrifuge; do \
	  $(CC) $(CFLAGS) -Itests/unit -o $(B)/bench/$$b bench/dynamics/$$b.c $(B)/libirl.a $(LDFLAGS) $(LDLIBS) || exit 1; \
	  $(B)/bench/$$b || exit 1; done

# docs/FREEFLYER-PAPER.md's figures (seed 004's Figs. 3-8 from the dry-run), redrawn into docs/figures/ (committed)
.PHONY: paper-figures
paper-figures: $(B)/irl
	IRL=$(abspath $(B)/irl) bash docs/figures/freeflyer_paper.sh

clean:
	rm -rf build out

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# libFuzzer targets (tests/fuzz/README.md): fuzz_frontend (scanner, parser, checker), fuzz_loader (.irlc reader and
# verifier, checksum re-stamped), fuzz_machine (.irm, URDF and register map readers), linked against the library built with clang
# in $(BUILD_ROOT)/fuzz. `make fuzz` installs clang, builds them, runs each FUZZ_TIME seconds on its corpus (new
# inputs in $(BUILD_ROOT)/fuzz/corpus_*, crashes as $(BUILD_ROOT)/fuzz/crash-*), then the byte-flip campaign.
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 60
FUZZ_TARGETS := frontend loader machine
FUZZ_BIN     := $(patsubst %,$(BUILD_ROOT)/fuzz/fuzz_%,$(FUZZ_TARGETS))
.PHONY: fuzz fuzz-build fuzz-bins fuzz-run fuzz-bytecode fuzz-loader
fuzz:
	.ci/install-deps --fuzz
	$(MAKE) fuzz-build
	$(MAKE) fuzz-run fuzz-bytecode
fuzz-build:
	$(MAKE) CFG=fuzz fuzz-bins
fuzz-bins: $(FUZZ_BIN)
fuzz-loader:
	$(MAKE) CFG=fuzz $(BUILD_ROOT)/fuzz/fuzz_loader
$(BUILD_ROOT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD_ROOT)/fuzz/libirl.a
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD_ROOT)/fuzz/libirl.a $(LDFLAGS) -fsanitize=fuzzer $(LDLIBS)
# Each target for FUZZ_TIME seconds; the first failure stops make (libFuzzer exits non-zero on a crash or a leak).
fuzz-run:
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(BUILD_ROOT)/fuzz/corpus_$$t; \
	  echo "== fuzz_$$t: $(FUZZ_TIME) s"; \
	  IRL_FUZZ_RESTAMP=1 $(BUILD_ROOT)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 -artifact_prefix=$(BUILD_ROOT)/fuzz/crash-$$t- \
	    $(BUILD_ROOT)/fuzz/corpus_$$t tests/fuzz/corpus_$$t 2>$(BUILD_ROOT)/fuzz/fuzz_$$t.log; rc=$$?; \
	  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ *DONE)' $(BUILD_ROOT)/fuzz/fuzz_$$t.log; \
	  [ $$rc -eq 0 ] || { tail -60 $(BUILD_ROOT)/fuzz/fuzz_$$t.log; exit 1; }; done
# The byte-flip campaign of tests/sh/bytecode_corrupt.sh (the default suite keeps 96 region-targeted files).
fuzz-bytecode:
	$(MAKE) CFG=release all
	$(MAKE) CFG=asan all
	@for c in release asan; do \
	  echo "== bytecode_corrupt.sh --campaign [$$c]"; \
	  IRL=$(abspath $(BUILD_ROOT))/$$c/irl BUILD=$(abspath $(BUILD_ROOT))/$$c bash tests/sh/bytecode_corrupt.sh --campaign \
	    || exit 1; done

# Compile speed: a generated 100,000-line program, median of 3, lines per second.
.PHONY: bench-compile
bench-compile: all
	bench/compile/run.sh $(B)/irl

# Model plugins for the tests (tests/plugin/example_plugin.c, a 1-DoF pendulum back-end), built as shared
# objects in $(B)/plugin/ under every CFG; three broken variants exercise model_load_plugin's error paths.
PLUGIN_SO := $(B)/plugin/example_plugin.so $(B)/plugin/example_plugin_noentry.so $(B)/plugin/example_plugin_incomplete.so \
             $(B)/plugin/example_plugin_old_abi.so
all: $(PLUGIN_SO)
$(B)/tests/test_plugin: | $(PLUGIN_SO)
$(B)/plugin/example_plugin.so: tests/plugin/example_plugin.c models/model.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< $(LDFLAGS) -lm
$(B)/plugin/example_plugin_noentry.so: tests/plugin/example_plugin.c models/model.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DEXAMPLE_PLUGIN_NO_ENTRY -fPIC -shared -o $@ $< $(LDFLAGS) -lm
$(B)/plugin/example_plugin_incomplete.so: tests/plugin/example_plugin.c models/model.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DEXAMPLE_PLUGIN_INCOMPLETE -fPIC -shared -o $@ $< $(LDFLAGS) -lm
$(B)/plugin/example_plugin_old_abi.so: tests/plugin/example_plugin.c models/model.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DEXAMPLE_PLUGIN_OLD_ABI -fPIC -shared -o $@ $< $(LDFLAGS) -lm

# The Modbus TCP drive emulator of the online tests (tests/tools/drive_emulator.c, docs/ONLINE-DRIVERS.md).
EMULATOR := $(B)/tools/irl-drive-emulator
all: $(EMULATOR)
$(EMULATOR): tests/tools/drive_emulator.c runtime/online/drivers/modbus_map.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Iruntime -o $@ $< $(LDFLAGS) $(PKG_LIBS) -lm

# Dry-run speed (issue 4 item 8): simulated s per CPU s, us per cycle, with and without the trace; 1 h memory.
bench-dryrun: $(B)/irl
	bench/dryrun/run.sh $(B)/irl
