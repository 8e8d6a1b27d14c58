# Thin wrapper around meson: `make demo` and `make check` work on a fresh
# Debian 12 machine (they install missing packages first).
BUILD      ?= build
BUILD_SAN  ?= build-san
MESON_OPTS ?= --buildtype=debugoptimized -Dwerror=true -Dtests=enabled

.PHONY: all deps build build-san check demo deb-check clean

# `make check` builds and tests the filter for a second QEMU too: bookworm-backports'
# QEMU 10, unpacked beside the system's by scripts/qemu-private (cached after the first
# time).  EXTRA_QEMU= (empty) leaves it out; any qemu-system-x86_64 path works.

all: build

deps:
	@scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

$(BUILD_SAN)/build.ninja:
	meson setup $(BUILD_SAN) $(MESON_OPTS) -Db_sanitize=address,undefined -Db_lundef=false -Dsanitized=true

build: deps $(BUILD)/build.ninja
	$(if $(EXTRA_QEMU),meson configure $(BUILD) -Dextra_qemu=$(EXTRA_QEMU) || \
		meson setup --reconfigure $(BUILD) -Dextra_qemu=$(EXTRA_QEMU))
	ninja -C $(BUILD)

build-san: deps $(BUILD_SAN)/build.ninja
	ninja -C $(BUILD_SAN)

check: EXTRA_QEMU ?= $(shell scripts/qemu-private || echo /qemu-private-failed)
check: build build-san
	meson test -C $(BUILD) --print-errorlogs
	meson test -C $(BUILD_SAN) --print-errorlogs --suite unit --suite probe --suite fuzz

demo: build
	$(BUILD)/host-tools/iogap demo

# the Debian package: build, lintian, apt-get install, demo and run from
# /usr/bin, remove (root; after `make check`, which prepares QEMU's headers)
deb-check: deps
	tests/install/test_deb.sh

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
