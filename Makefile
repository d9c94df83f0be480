# Front door of the project. `make demo` and `make test` are the README's
# quick start; each installs what it needs through scripts/setup.sh.
JOBS  ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps build models models-torchvision bench-torchvision test test-fast test-asan test-tsan demo bench install deb clean fuzz stress

all: build

deps:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Real models (torchvision exports, PP-OCRv4) and their ONNX Runtime
# reference outputs, for the model-agreement tests and the benchmarks.
models: deps
	@bash scripts/models.sh

# The opt-in torchvision sweep (issue 23) in models/tv/: one variant of every
# torchvision classification and segmentation family (TV_TIER=2: all of
# them); neither `make models` nor `make test` builds it.
TV_TIER ?= 1
models-torchvision: deps
	@bash scripts/models.sh --set torchvision --tier $(TV_TIER)

# The whole suite: the release build's tests, then the runtime and API
# tests again under AddressSanitizer+UBSan and under ThreadSanitizer, then a
# short reproducible libFuzzer run of every parser of untrusted bytes.
test: build models
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900
	$(MAKE) --no-print-directory test-asan test-tsan
	$(MAKE) --no-print-directory fuzz FUZZ_MODE=ci

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

test-asan: deps
	cmake -S . -B $(BUILD)-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENACL_SANITIZE=address $(CMAKE_FLAGS)
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -L sanitize --timeout 900

test-tsan: deps
	cmake -S . -B $(BUILD)-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENACL_SANITIZE=thread $(CMAKE_FLAGS)
	cmake --build $(BUILD)-tsan -j $(JOBS)
	cd $(BUILD)-tsan && TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" ctest --output-on-failure -j $(JOBS) -L tsan --timeout 900

# Fuzzing: libFuzzer targets (clang, ASan+UBSan) for every parser of
# untrusted bytes, each run FUZZ_SECONDS from its seeds; a crash leaves its
# input in $(BUILD)-fuzz/fuzz/<target>/artifacts (commit it under
# tests/fuzz/regressions/<target>/ once fixed). See docs/reliability.md.
# Warnings are not errors here: gcc's release build holds that line, and a
# clang-only warning should not stop the fuzzing.
FUZZ_SECONDS ?= 60
FUZZ_MODE ?=
fuzz: deps
	cmake -S . -B $(BUILD)-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DOPENACL_SANITIZE=address -DOPENACL_FUZZ=ON $(CMAKE_FLAGS) -DOPENACL_WERROR=OFF
	cmake --build $(BUILD)-fuzz -j $(JOBS) --target fuzz_targets
	cd $(BUILD)-fuzz && FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_MODE=$(FUZZ_MODE) ctest --output-on-failure -R '^fuzz_run_' \
	  --timeout $$(( $(FUZZ_SECONDS) * 2 + 600 ))

# Concurrency stress: 8 threads x 4 streams x 3 models with callbacks, every
# output checked and memory sampled; STRESS_ROUNDS rounds in the release
# build, STRESS_TSAN_ROUNDS under ThreadSanitizer (9 executions per thread
# and round).
STRESS_ROUNDS ?= 5000
STRESS_TSAN_ROUNDS ?= 1000
stress: build
	cmake --build $(BUILD) -j $(JOBS) --target stress_test
	$(BUILD)/stress_test --threads 8 --streams 4 --models 3 --rounds $(STRESS_ROUNDS)
	cmake -S . -B $(BUILD)-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENACL_SANITIZE=thread $(CMAKE_FLAGS)
	cmake --build $(BUILD)-tsan -j $(JOBS) --target stress_test
	TSAN_OPTIONS=halt_on_error=1 $(BUILD)-tsan/stress_test --threads 8 --streams 4 --models 3 \
	  --rounds $(STRESS_TSAN_ROUNDS) --max-rss-growth-mb 256

demo: build
	@bash scripts/demo.sh $(BUILD)

# The real-model benchmark against ONNX Runtime (bench/models.sh, see
# BENCHMARKS.md), short by default: 1 thread, one round of 0.5 s per model,
# results in $(BUILD)/bench/ so the committed bench/results stay as they are.
# The published figures: make bench BENCH_ARGS="--threads 1,2 --rounds 7 --bf16 --parallel 2".
BENCH_ARGS ?= --threads 1 --rounds 1 --min-time 0.5 --warmup 2 --out $(abspath $(BUILD))/bench/models.json
bench: build models
	@bash bench/models.sh $(BUILD) $(BENCH_ARGS)

# openacl vs ORT over the torchvision sweep at 1 and 2 threads
# (bench/torchvision.sh; the published table is in BENCHMARKS.md).
TV_BENCH_ARGS ?= --threads 1,2 --rounds 1 --min-time 1 --warmup 2 --out $(abspath $(BUILD))/bench/torchvision.json
bench-torchvision: build
	@bash bench/torchvision.sh $(BUILD) --tier $(TV_TIER) $(TV_BENCH_ARGS)

# A CANN-style toolkit tree (docs/porting.md): runtime/include, runtime/lib64
# (+ stub/), bin/, python/site-packages, set_env.sh.
PREFIX ?= /opt/openacl
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# Debian package of the same tree under /opt/openacl: $(BUILD)/openacl_*.deb.
deb: build
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan
