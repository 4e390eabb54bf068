# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The firmware's copies of lwIP (tcp/fw_tcp_slot.h), included by the
# firmware's Makefile.  lwIP 2.1.3 is fetched from Debian's source
# package into $(LWIP_DIR) by tools/fw/fetch-lwip.sh (cached there, and
# the tarball under $(ORDMA_CACHE)/lwip).
#
# For a build variant V (a directory under $(O)), compiler C, flags F
# and the glue's warnings W (default: the firmware's WARNINGS, for gcc),
# $(call lwip_slots,V,C,F[,W]) defines the rules of
#   $(O)/V/tcp/stack.o	lwIP's TCP/IPv4 core and fw_tcp_stack.c in one
#			relocatable object (ld -r)
#   $(O)/V/tcp/slotN.o	copy N of it (N < FW_TCP_SLOTS): every symbol
#			made local but fw_tcp_slot_ops, renamed
#			fw_tcp_slotN_ops
# and $(call lwip_slot_objs,V) lists the copies.  lwIP's own sources
# are built with its warnings off (they are not ours to fix); the glue
# with the firmware's.

LWIP_DIR ?= $(O)/lwip-src
LWIP_FETCH := $(abspath $(CURDIR)/../tools/fw/fetch-lwip.sh)
LWIP_SLOT_NUMS := 0 1 2 3
LWIP_SRCS := core/init.c core/def.c core/inet_chksum.c core/ip.c \
	     core/mem.c core/memp.c core/netif.c core/pbuf.c core/stats.c \
	     core/tcp.c core/tcp_in.c core/tcp_out.c core/timeouts.c \
	     core/ipv4/ip4.c core/ipv4/ip4_addr.c
LWIP_CPPFLAGS := -I$(CURDIR)/tcp -I$(LWIP_DIR)/src/include
LWIP_HEADERS := $(wildcard $(CURDIR)/tcp/*.h $(CURDIR)/tcp/arch/*.h)

$(LWIP_DIR)/.done: $(LWIP_FETCH)
	$(LWIP_FETCH) $(LWIP_DIR)

$(LWIP_SRCS:%=$(LWIP_DIR)/src/%): $(LWIP_DIR)/.done ;

lwip_slot_objs = $(LWIP_SLOT_NUMS:%=$(O)/$(1)/tcp/slot%.o)

define lwip_slots
$(O)/$(1)/lwip/%.o: $(LWIP_DIR)/src/%.c $(LWIP_HEADERS) | $(LWIP_DIR)/.done
	@mkdir -p $$(dir $$@)
	$(2) $(LWIP_CPPFLAGS) $(3) -w -c $$< -o $$@

$(O)/$(1)/tcp/fw_tcp_stack.o: tcp/fw_tcp_stack.c $(LWIP_HEADERS) | $(LWIP_DIR)/.done
	@mkdir -p $$(dir $$@)
	$(2) -D_GNU_SOURCE $(LWIP_CPPFLAGS) $(3) $(or $(4),$$(WARNINGS)) \
		$$(WERROR) -c $$< -o $$@

$(O)/$(1)/tcp/stack.o: $(LWIP_SRCS:%.c=$(O)/$(1)/lwip/%.o) \
		       $(O)/$(1)/tcp/fw_tcp_stack.o
	$$(LD) -r -o $$@ $$^

$(O)/$(1)/tcp/slot%.o: $(O)/$(1)/tcp/stack.o
	objcopy --keep-global-symbol=fw_tcp_slot_ops $$< $$@.tmp
	objcopy --redefine-sym fw_tcp_slot_ops=fw_tcp_slot$$*_ops $$@.tmp $$@
	@rm -f $$@.tmp
endef
