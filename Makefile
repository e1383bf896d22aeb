# gmpi: the two commands of the README.
#
#   make demo   build, then compute pi on 4 ranks with our mpirun
#   make test   build, then go vet, gofmt, go test and ctest
#
# Both first install missing prerequisites (tests/scripts/prereqs.sh).

BUILD ?= build
JOBS  ?= 2
CMAKE_BUILD_TYPE ?= RelWithDebInfo

# The Go toolchain lives in /usr/local/go on our machines.
export PATH := $(PATH):/usr/local/go/bin

.PHONY: all build demo test clean prereqs

all: build

prereqs:
	@tests/scripts/prereqs.sh

build: prereqs
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/mpirun -n 4 $(BUILD)/tests/c/cpi

test: build
	JOBS=$(JOBS) tests/scripts/check.sh $(BUILD)

clean:
	rm -rf $(BUILD)
