# hdprotect: the single entry point. `make run` boots the lean kernel with
# a demo and a shell; `make check` runs every test. See README.md.

SHELL := /bin/bash
TESTS ?=
CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
NL_CFLAGS = $(shell pkg-config --cflags libnl-genl-3.0)
NL_LIBS = $(shell pkg-config --libs libnl-genl-3.0)

# Programs the guest tests use; qemu/mkinitramfs copies them and the shared
# libraries they need into the initramfs. They include the kernel's UAPI
# headers as `make headers_install` installs them (qemu/build-kernel).
GUEST_BIN := $(patsubst tests/guest-bin/%.c,build/guest-bin/%,$(wildcard tests/guest-bin/*.c))

.PHONY: all deps kernel kernel-test kernel-lean kernel-tree export-patches \
	initramfs-test initramfs-lean guest-bin run check check-host bench clean help
.DEFAULT_GOAL := all

all: deps
	@qemu/build-kernel test
	@qemu/build-kernel lean

help:
	@echo "make deps             install the Debian packages the project needs"
	@echo "make kernel           build the test and the lean kernel (build/obj-*)"
	@echo "make kernel-tree      extract build/linux and apply kernel/patches/"
	@echo "make export-patches   write kernel/patches/ from build/linux's commits"
	@echo "make run              boot the lean kernel: demo, then a shell"
	@echo "make check            run every test (TESTS='a b' for some guest tests)"
	@echo "make bench            run the benchmarks on the lean kernel, print figures"
	@echo "make clean            remove build/ (the compiler cache stays)"

deps:
	@qemu/deps

kernel: all

kernel-test kernel-lean: kernel-%: deps
	@qemu/build-kernel $*

kernel-tree: deps
	@qemu/kernel-tree
	@echo "build/linux: commit your changes there, then 'make export-patches'"

export-patches:
	@qemu/export-patches

initramfs-test initramfs-lean: initramfs-%: kernel-% guest-bin
	@qemu/mkinitramfs $*

guest-bin: $(GUEST_BIN)

build/guest-bin/%: tests/guest-bin/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -I build/uapi/include $(NL_CFLAGS) -o $@ $< $(NL_LIBS) -lpthread

run: deps
	@qemu/build-kernel lean
	@$(MAKE) --no-print-directory guest-bin
	@qemu/mkinitramfs lean
	@qemu/run --config lean --exec 'sh /hdp/demo' --shell; rc=$$?; \
	echo; echo "Power commands the disks received (QEMU's trace, via tests/devtrace):"; \
	tests/devtrace | grep -E ' (E0|E1|E5)h ' || echo "  none"; exit $$rc

check: deps
	@qemu/build-kernel test
	@$(MAKE) --no-print-directory guest-bin
	@qemu/mkinitramfs test
	@tests/check $(TESTS)

check-host:
	@tests/check --host-only

# Benchmarks print figures; they assert nothing. They run on the lean
# kernel, under TCG unless KVM works: figures are the emulator's.
bench: deps
	@qemu/build-kernel lean
	@$(MAKE) --no-print-directory guest-bin
	@qemu/mkinitramfs lean
	@qemu/run --config lean --quiet --timeout 1200 \
		--exec 'sh /hdp/bench/park-latency.sh 200 && sh /hdp/bench/netlink-latency.sh 200'; rc=$$?; \
	grep -E '^(park latency|configfs|unload_heads|park-latency|netlink latency|event latency|listeners=|park-all)' \
		build/runs/last/console.log | tr -d '\r'; exit $$rc

clean:
	rm -rf build
