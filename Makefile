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

.PHONY: all build demo test clean prereqs cross

all: build

prereqs:
	@tests/scripts/prereqs.sh

build: prereqs
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/mpirun -n 4 $(BUILD)/tests/c/cpi

# The s390x library for grid_hetero (issue 21) when the cross compiler
# and qemu are installed (prereqs.sh installs them as root); without
# them grid_hetero skips. A failed cross build does not stop the other
# tests: it leaves $(BUILD)/s390x/FAILED, and grid_hetero fails.
test: build
	@if command -v s390x-linux-gnu-gcc >/dev/null && command -v qemu-s390x-static >/dev/null; then \
		$(MAKE) --no-print-directory cross ARCH=s390x BUILD=$(BUILD) || \
			{ mkdir -p $(BUILD)/s390x && echo "make cross ARCH=s390x failed" >$(BUILD)/s390x/FAILED; }; \
	else echo "make test: no s390x cross compiler or qemu-s390x-static: grid_hetero will skip"; fi
	JOBS=$(JOBS) tests/scripts/check.sh $(BUILD)

clean:
	rm -rf $(BUILD)

# make cross ARCH=s390x: our library and an mpicc for another architecture
# in $(BUILD)/ARCH (lib/libmpi.so, include/, bin/mpicc: a host program
# that runs ARCH-linux-gnu-gcc), for the machines of a heterogeneous grid
# (examples/grid-hetero.toml). Needs gcc-ARCH-linux-gnu and
# libc6-dev-ARCH-cross (tests/scripts/prereqs.sh installs s390x's as root).
# The cross mpicc is built with the host's cgo setting, like the CMake
# build's mpicc, so that only its link is new (the Go cache has the rest).
ARCH ?= s390x
CROSS_CC = $(ARCH)-linux-gnu-gcc
GOARCH_s390x = s390x
GOARCH_aarch64 = arm64
GOARCH_x86_64 = amd64
XDIR = $(BUILD)/$(ARCH)

cross:
	@command -v $(CROSS_CC) >/dev/null || { echo "make cross: $(CROSS_CC) is missing (Debian: gcc-$(ARCH)-linux-gnu, libc6-dev-$(ARCH)-cross)" >&2; exit 1; }
	@test -n "$(GOARCH_$(ARCH))" || { echo "make cross: unknown ARCH=$(ARCH) (s390x, aarch64, x86_64)" >&2; exit 1; }
	mkdir -p $(XDIR)/lib $(XDIR)/include $(XDIR)/bin
	rm -f $(XDIR)/FAILED
	cp include/*.h $(XDIR)/include/
	CGO_ENABLED=1 GOOS=linux GOARCH=$(GOARCH_$(ARCH)) CC=$(CROSS_CC) go build -buildmode=c-shared \
		"-ldflags=-extldflags=-Wl,-soname,libmpi.so.12" -o $(XDIR)/lib/libmpi.so ./capi
	rm -f $(XDIR)/lib/libmpi.h
	ln -sf libmpi.so $(XDIR)/lib/libmpi.so.12
	ln -sf libmpi.so $(XDIR)/lib/libmpich.so.12
	CGO_ENABLED=1 CC=cc go build -ldflags "-X main.DefaultCC=$(CROSS_CC)" -o $(XDIR)/bin/mpicc ./mpicc
