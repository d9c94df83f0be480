# Front door of the project. `make demo` and `make test` are the README's
# quick start; each installs what it needs through scripts/setup.sh.
JOBS  ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps build models test test-fast test-asan test-tsan demo bench install clean

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

# The whole suite: the release build's tests, then the runtime and API
# tests again under AddressSanitizer+UBSan and under ThreadSanitizer.
test: build models
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900
	$(MAKE) --no-print-directory test-asan test-tsan

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 900

test-asan: deps
	cmake -S . -B $(BUILD)-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENACL_SANITIZE=address $(CMAKE_FLAGS)
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS) -L sanitize --timeout 900

test-tsan: deps
	cmake -S . -B $(BUILD)-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENACL_SANITIZE=thread $(CMAKE_FLAGS)
	cmake --build $(BUILD)-tsan -j $(JOBS)
	cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j $(JOBS) -L tsan --timeout 900

demo: build
	@bash scripts/demo.sh $(BUILD)

bench: build models
	@bash bench/run.sh $(BUILD)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan
