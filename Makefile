# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# ORDMA top-level build.  The kernel modules are built by kbuild against
# Debian's 6.12 headers (tools/vm/fetch-kernel.sh puts them in the cache
# and prints KDIR); everything else is userspace or a script.
#
#   make            modules, ordma-diag, firmware host tests
#   make check      everything, tested (host + VM); last line
#                   "N passed, N failed, N skipped"
#   make soak       the longer fault, recovery and race checks (an hour
#                   or more; tools/check/soak.sh), same last line
#   make demo       boot a VM with two ORDMA NICs and show them working
#   make fuzz       the firmware's libFuzzer harnesses, FUZZ_TIME seconds
#                   each (FUZZ=name for one; clang only)
#   make siw        Linux's soft-iWARP driver (siw.ko, the iWARP peer),
#                   which Debian's kernel lacks, built out of tree from
#                   linux-source-6.12 into the cache for the test VMs
#                   (tools/vm/build-siw.sh)
#   make qemu-unit  the device model's frame logic (the cable's
#                   impairments, the capture's pcapng blocks) on the
#                   host, under ASan/UBSan; builds pcap-icrc
#   make trace-tool-check  tests of tools/diag/ordma-trace (host,
#                   Python only)
#   make pcap-iwarp-check  tests of tools/vm/pcap-iwarp.sh, the iWARP
#                   check of run-vm.sh --pcap, on made-up captures
#                   (host, tshark)
#   make fw-image   a signed firmware image of this tree's firmware
#                   (FW_VERSION, FW_BUILD) in build/fw/, with the
#                   development key made there on first use; the tool
#                   (make fw-image-tool: build/bin/ordma-fw-image) makes
#                   keys, images and flash files; fw-image-check tests it
#   make vm-impair  RDMA between two NICs over impaired cables
#                   (WIRE=SPEC, see tools/vm/run-vm.sh --wire)
#   make vm-disturb Bus Master Enable, device_del and quit under traffic
#   make deb        the Debian packages (ordma-dkms, ibverbs-provider-ordma,
#                   ordma-tools) into build/deb; make vm-packages installs
#                   and uses them in a VM
#   make qtest-asan the device model's qtests on QEMU built with ASan,
#                   LSan and UBSan (make qemu-asan builds it; not part
#                   of make check: ~25 min cold build)
#
# Caches live under ORDMA_CACHE (default /var/cache/ordma).

ORDMA_CACHE ?= /var/cache/ordma
export ORDMA_CACHE

# Empty: ask tools/vm/fetch-kernel.sh (downloads on first use).
KDIR ?=
JOBS ?= 2
CC ?= cc
# The single-VM run has an IOMMU (strict) unless VM_IOMMU=0.
VM_IOMMU ?= 1
export VM_IOMMU

BUILD := $(CURDIR)/build
DIAG := $(BUILD)/bin/ordma-diag
FW_IMAGE_TOOL := $(BUILD)/bin/ordma-fw-image
KBUILD_ARGS = M=$(CURDIR) CONFIG_ORDMA_CORE=m CONFIG_ORDMA_IB=m CONFIG_ORDMA_DEBUG_RAW_CMD=y
kdir = $${KDIR:-$$(tools/vm/fetch-kernel.sh | tail -n 1)}

.PHONY: soak all modules modules_clean siw diag fw-build fw-check qemu qemu-unit provider lint \
	vm-check vm-smoke vm-impair vm-disturb check demo clean help install fuzz \
	qemu-asan qtest-asan trace-tool-check pcap-iwarp-check deb vm-packages fw-image \
	fw-image-tool fw-image-check

all: modules diag fw-build fw-image-tool

help:
	@sed -n '3,/^[^#]/{/^#/p}' Makefile | sed 's/^# \{0,1\}//'

modules:
	@KDIR=$(kdir) && \
	$(MAKE) -C "$$KDIR" $(KBUILD_ARGS) W=1 -j$(JOBS) modules

siw:
	@tools/vm/build-siw.sh

modules_clean:
	@KDIR=$(kdir) && \
	$(MAKE) -C "$$KDIR" $(KBUILD_ARGS) clean

# The diag tool shares the hardware header with the firmware, and with it
# the userspace stand-ins for the kernel's helpers (include/ordma-compat).
HW_HEADERS := $(wildcard include/linux/ordma/ordma_*.h) \
	      include/ordma-compat/ordma_compat.h

# ordma-diag, and the C programs of the selftests (selftests/ordma/Makefile)
# into build/bin, where the test VMs read them.
diag: $(DIAG)
	@$(MAKE) --no-print-directory -C selftests/ordma OUT=$(BUILD)/bin

$(DIAG): tools/diag/ordma-diag.c $(HW_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -o $@ $<

# ordma-fw-image, with the firmware's image library (firmware/image/),
# its board id and entry-table version (firmware/ordma_fw.h); Ed25519
# from libsodium.
FW_IMAGE_SRCS := tools/fw/ordma-fw-image.c firmware/image/ordma_image.c
SODIUM_CFLAGS = $(shell pkg-config --cflags libsodium 2>/dev/null)
SODIUM_LIBS = $(or $(shell pkg-config --libs libsodium 2>/dev/null),-lsodium)

fw-image-tool: $(FW_IMAGE_TOOL)

# The firmware as an image payload (firmware/Makefile image-so), signed
# with FW_KEY (made on first use: a development key, never a product's)
FW_VERSION ?= 1.0.0
FW_BUILD ?= 1
FW_KEY ?= $(BUILD)/fw/ordma-dev
FW_IMAGE := $(BUILD)/fw/ordma-fw-$(FW_VERSION).img

fw-image: $(FW_IMAGE_TOOL)
	@mkdir -p $(BUILD)/fw
	@[ -f $(FW_KEY).key ] || $(FW_IMAGE_TOOL) keygen -o $(FW_KEY)
	@so=$$($(MAKE) -s --no-print-directory -C firmware image-so \
		FW_VERSION=$(FW_VERSION) FW_BUILD=$(FW_BUILD) | tail -n 1) && \
	$(FW_IMAGE_TOOL) sign -k $(FW_KEY).key -v $(FW_VERSION) \
		-b $(FW_BUILD) -o $(FW_IMAGE) "$$so" && \
	echo "$(FW_IMAGE) (key $(FW_KEY).pub)"

$(FW_IMAGE_TOOL): $(FW_IMAGE_SRCS) firmware/image/ordma_image.h \
		firmware/ordma_fw.h $(HW_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -Ifirmware \
		$(SODIUM_CFLAGS) -o $@ $(FW_IMAGE_SRCS) $(SODIUM_LIBS)

# Its tests: keys, images good and bad, a flash file (TAP output), run
# on a copy built with ASan (leaks included) and UBSan, since the tool
# reads files from anywhere.
FW_IMAGE_SAN := $(BUILD)/fw-image-san/ordma-fw-image

$(FW_IMAGE_SAN): $(FW_IMAGE_SRCS) firmware/image/ordma_image.h \
		firmware/ordma_fw.h $(HW_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iinclude -Ifirmware \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer $(SODIUM_CFLAGS) -o $@ $(FW_IMAGE_SRCS) \
		$(SODIUM_LIBS)

fw-image-check: $(FW_IMAGE_SAN)
	ASAN_OPTIONS=detect_leaks=1 bash tools/fw/test-ordma-fw-image.sh \
		$(FW_IMAGE_SAN)

fw-build:
	@if [ -f firmware/Makefile ]; then $(MAKE) -C firmware; \
	else echo "firmware: no Makefile yet"; fi

fw-check:
	$(MAKE) -C firmware check

fuzz:
	$(MAKE) -C firmware fuzz

# Prints the path of qemu-system-x86_64 with -device ordma on its last line.
qemu:
	tools/qemu/build-qemu.sh

# The same QEMU built with AddressSanitizer (and LeakSanitizer) and
# UndefinedBehaviorSanitizer, from a tree and cache of its own; prints its
# path on the last line.  qtest-asan runs the qtests on it and fails on
# any sanitizer report (build/qtest-asan/).
qemu-asan:
	SANITIZE=1 tools/qemu/build-qemu.sh

qtest-asan:
	tools/qemu/qtest-asan.sh

# What the cable's impairments do to a frame (tools/qemu/ordma-wire-frame.c)
# is plain C: tested here without QEMU, under the sanitizers, TAP output.
# Any guest process chooses the frames, so every frame the test hands
# over is a heap block of its exact length.
QEMU_UNIT := $(BUILD)/qemu-unit
QEMU_UNIT_CFLAGS := -std=c11 -O1 -g -Wall -Wextra -Wshadow -Wundef \
	-Wwrite-strings -Wmissing-prototypes -Wstrict-prototypes -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

qemu-unit: $(QEMU_UNIT)/test-wire-frame $(QEMU_UNIT)/test-pcap-format \
		$(QEMU_UNIT)/pcap-icrc $(QEMU_UNIT)/test-ib-capture
	$(QEMU_UNIT)/test-wire-frame
	$(QEMU_UNIT)/test-pcap-format
	$(QEMU_UNIT)/test-ib-capture

# The QEMU-free parts of the device model (tools/qemu/ordma-<name>.c: the
# wire's frame logic, the capture's pcapng blocks), plain C11 and libc:
# no _GNU_SOURCE, no extension; each with its test-<name> on the host.
$(QEMU_UNIT)/ordma-%.o: tools/qemu/ordma-%.c tools/qemu/ordma-%.h
	@mkdir -p $(dir $@)
	$(CC) $(QEMU_UNIT_CFLAGS) -pedantic-errors -DORDMA_WIRE_FRAME_HOST \
		-c $< -o $@

$(QEMU_UNIT)/test-%: tools/qemu/tests/test-%.c $(QEMU_UNIT)/ordma-%.o \
		tools/qemu/ordma-%.h tools/testing/ordma_test.c \
		tools/testing/ordma_test.h
	$(CC) $(QEMU_UNIT_CFLAGS) -D_GNU_SOURCE -Itools/qemu -Itools/testing \
		-o $@ $(filter %.c %.o,$^)

# pcap-icrc: checks the ICRC of every RoCEv2 frame of a capture with the
# firmware's own ICRC code (firmware/wire/fw_icrc.c); also under ASan,
# since it reads files from anywhere.
$(QEMU_UNIT)/pcap-icrc: tools/qemu/tests/pcap-icrc.c \
		$(QEMU_UNIT)/ordma-pcap-format.o tools/qemu/ordma-pcap-format.h \
		firmware/wire/fw_icrc.c firmware/wire/fw_roce_wire.h
	$(CC) $(QEMU_UNIT_CFLAGS) -D_GNU_SOURCE -Itools/qemu -Ifirmware/wire \
		-o $@ $(filter %.c %.o,$^)

# test-ib-capture: native InfiniBand packets of the firmware's wire layer
# (firmware/wire/fw_ib_wire.c) in a capture of LINKTYPE_INFINIBAND, read
# back, dissected by tshark and their CRCs recomputed by the independent
# reference (firmware/tests/wire/vectors/ib_reference.py).
IB_WIRE_SRCS := firmware/wire/fw_ib_wire.c firmware/wire/fw_roce_wire.c \
		firmware/wire/fw_icrc.c
$(QEMU_UNIT)/test-ib-capture: tools/qemu/tests/test-ib-capture.c \
		$(QEMU_UNIT)/ordma-pcap-format.o tools/qemu/ordma-pcap-format.h \
		$(IB_WIRE_SRCS) firmware/wire/fw_ib_wire.h \
		firmware/wire/fw_roce_wire.h tools/testing/ordma_test.c \
		tools/testing/ordma_test.h \
		firmware/tests/wire/vectors/ib_reference.py
	$(CC) $(QEMU_UNIT_CFLAGS) -D_GNU_SOURCE -Itools/qemu -Ifirmware/wire \
		-Itools/testing \
		-DORDMA_IB_REFERENCE='"$(CURDIR)/firmware/tests/wire/vectors/ib_reference.py"' \
		-o $@ $(filter %.c %.o,$^)

# ordma-trace, the one timeline of a run's firmware traces and wire
# captures: its tests build their own inputs (TAP output).
trace-tool-check:
	python3 tools/diag/test-ordma-trace.py

pcap-iwarp-check:
	python3 tools/vm/test-pcap-iwarp.py

provider:
	@if [ -x tools/provider/build.sh ]; then tools/provider/build.sh; \
	else echo "provider: tools/provider/build.sh not in the tree"; fi

lint:
	@KDIR=$(kdir) && tools/check/lint.sh "$$KDIR"

vm-smoke:
	tools/vm/run-vm.sh smoke

# Both ORDMA topologies.
vm-check: diag
	@rc=0; \
	tools/vm/run-vm.sh $(if $(filter 1,$(VM_IOMMU)),--iommu) single || rc=1; \
	tools/vm/run-vm.sh pair || rc=1; \
	exit $$rc

# RC traffic over cables that lose, reorder, duplicate and corrupt frames
# (both directions); make check runs it with the default WIRE.
WIRE ?= loss=1%,reorder=0.5%,dup=0.5%,corrupt=0.5%,seed=12
vm-impair: diag
	tools/vm/run-vm.sh --wire $(WIRE) -T wire_impair single

# Bus Master Enable toggled and a port unplugged under traffic, then a
# pair VM quit while its peer sends (the guests ask the host over QMP).
vm-disturb: diag
	@rc=0; \
	tools/vm/run-vm.sh --iommu --host-requests -T "bus_master device_del" single || rc=1; \
	tools/vm/run-vm.sh --host-requests -T quit_pair pair || rc=1; \
	exit $$rc

# debian/ built from a copy of the tree (what git tracks or would track,
# build/ left out) by dpkg-buildpackage; the .debs, its log and lintian's
# report land in build/deb, the tree stays clean.
DEB_DIR := $(BUILD)/deb
deb:
	@rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	@git ls-files -z -co --exclude-standard | grep -zv '^build/' | \
		tar -cf - --null -T - | tar -xf - -C $(DEB_DIR)/src
	@start=$$(date +%s); \
	if ! (cd $(DEB_DIR)/src && dpkg-buildpackage -b -us -uc) >$(DEB_DIR)/build.log 2>&1; then \
		tail -n 30 $(DEB_DIR)/build.log; echo "make deb: failed, see $(DEB_DIR)/build.log"; exit 1; fi; \
	echo "make deb: built in $$(($$(date +%s) - start)) s"
	@rm -rf $(DEB_DIR)/src
	@lintian --info $(DEB_DIR)/*.deb >$(DEB_DIR)/lintian.txt 2>&1 || true
	@ls -1 $(DEB_DIR)/*.deb; echo "lintian: $$(grep -c '^[EW]:' $(DEB_DIR)/lintian.txt) errors and warnings ($(DEB_DIR)/lintian.txt)"

# The packages installed and used in the single VM
# (selftests/ordma/packages.sh): the repository's modules are loaded
# first, then replaced by those DKMS builds in the guest, which takes
# longer than the selftests' usual timeout under TCG.
vm-packages: deb modules
	@rm -rf $(BUILD)/vm/packages
	tools/vm/run-vm.sh -t 1800 -o $(BUILD)/vm/packages \
		-c "$(CURDIR)/selftests/ordma/run_kselftest.sh -o /mnt/results/selftests -t 1500 packages" single

check:
	@tools/check/run-check.sh

# The longer variants of the fault, recovery and race checks (an hour or
# more; tools/check/soak.sh has the knobs)
soak:
	@tools/check/soak.sh

# The libibverbs provider, built for the system's libibverbs
# (tools/provider/build-system.sh), into it (DESTDIR honoured);
# the kernel modules install with `make -C $$KDIR M=$$PWD modules_install`.
install:
	$(MAKE) -C tools/provider install

demo:
	@tools/vm/demo.sh

clean:
	@if [ -n "$(KDIR)" ] || [ -f "$(ORDMA_CACHE)/kernel/6.12.117+deb12-amd64/headers/.done" ]; then \
		KDIR=$(kdir) && $(MAKE) -C "$$KDIR" $(KBUILD_ARGS) clean; fi
	@if [ -f firmware/Makefile ]; then $(MAKE) -C firmware clean; fi
	rm -rf $(BUILD)
