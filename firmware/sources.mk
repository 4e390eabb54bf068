# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The firmware's sources, room by room.  Read by firmware/Makefile and by
# tools/qemu/build-qemu.sh, which links the same files into the device
# model.  Dependencies run one way,
#
#	wire <- platform <- objects <- tcp <- transport <- device
#
# (tools/check/fw-rooms.py checks the #include lines and the calls); the
# headers at the top of firmware/ (the public ordma_fw.h and the device
# state fw_priv.h) are shared by every room but wire, which is built
# with its own include path only.

FW_ROOMS := device objects platform tcp transport wire

FW_DEVICE_SRCS := device/fw_core.c device/fw_admin.c device/fw_eq.c \
		  device/fw_doorbell.c device/fw_eth.c device/fw_fault.c \
		  device/fw_entry.c device/fw_flash.c device/fw_mad.c \
		  device/fw_sma.c device/fw_pma.c
FW_OBJECTS_SRCS := objects/fw_resources.c objects/fw_pagelist.c \
		   objects/fw_mr.c objects/fw_cq.c objects/fw_ah.c \
		   objects/fw_mcast.c objects/fw_qp.c objects/fw_qp_state.c \
		   objects/fw_srq.c
FW_TRANSPORT_SRCS := transport/fw_transport.c transport/fw_requester.c \
		     transport/fw_responder.c transport/fw_iw_requester.c \
		     transport/fw_iw_responder.c
# The TCP offload of an iWARP port; its lwIP copies are built by
# tcp/lwip.mk, not listed here
FW_TCP_SRCS := tcp/fw_tcp.c tcp/fw_iw_conn.c
FW_PLATFORM_SRCS := platform/fw_hal.c platform/fw_cmd.c platform/fw_event.c \
		    platform/fw_port.c platform/fw_event_log.c
FW_WIRE_SRCS := wire/fw_roce_wire.c wire/fw_icrc.c wire/fw_ib_wire.c \
		wire/fw_iw_wire.c

FW_SRCS := $(FW_DEVICE_SRCS) $(FW_OBJECTS_SRCS) $(FW_TRANSPORT_SRCS) \
	   $(FW_TCP_SRCS) $(FW_PLATFORM_SRCS) $(FW_WIRE_SRCS)

# What a host links beside the firmware: the recorder (replay/ordma_rec.h),
# with which a host may log a device's inputs for ordma-replay, and the
# writer of the firmware trace file (trace/ordma_trace_file.h).  The QEMU
# device model links these too; FW_HOST_DIRS are the directories whose
# headers go with them.  Not part of the firmware's rooms.
FW_HOST_DIRS := replay trace
FW_HOST_SRCS := replay/ordma_rec.c trace/ordma_trace_file.c

# Firmware images and the flash that holds them (image/ordma_image.h):
# parsing, Ed25519 verification (libsodium) and building.  Used by the
# hosts' tools (tools/fw/ordma-fw-image) and by the device model, which
# checks what a guest hands it; not part of the firmware's rooms.
FW_IMAGE_DIRS := image
FW_IMAGE_SRCS := image/ordma_image.c
