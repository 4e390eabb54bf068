/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware platform: the services every room of the firmware uses,
 * below the verbs objects, the transport engine and the device.  They
 * work on the device state (fw_priv.h) and the HAL, and call nothing
 * above them.
 */
#ifndef ORDMA_FW_PLATFORM_H
#define ORDMA_FW_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_priv.h"

/* Health counters saturate instead of wrapping back to "healthy". */
static inline uint32_t fw_count_inc(uint32_t counter)
{
	return counter == UINT32_MAX ? counter : counter + 1;
}

/*
 * One fault of a kind that is armed for a number of events (DMA_READ,
 * DMA_WRITE, ADMIN_DROP, MSIX_DROP): true if this event gets it.
 */
static inline bool fw_fault_take(struct ordma_fw *fw, unsigned int fault)
{
	if (!fw->faults.left[fault])
		return false;
	fw->faults.left[fault]--;
	fw->faults.injected[fault]++;
	return true;
}

/* Reserved bytes of a command or a structure are all zero */
static inline bool fw_bytes_zero(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/* fw_hal.c: HAL wrappers */
void fw_log(struct ordma_fw *fw, enum ordma_fw_log_level level,
	    const char *fmt, ...) FW_PRINTF(3, 4);
/* True if [addr, addr + len) does not fit in the 64-bit address space. */
bool fw_range_wraps(uint64_t addr, uint64_t len);
int fw_dma_read(struct ordma_fw *fw, uint64_t addr, void *buf, size_t len);
int fw_dma_write(struct ordma_fw *fw, uint64_t addr, const void *buf,
		 size_t len);
/*
 * An address space the device reaches by DMA (a page list, an MR):
 * translates byte offset off of space into a DMA address and the bytes
 * contiguous from there (at least 1).  0, or -1 if it cannot.
 */
typedef int (*fw_dma_xlate_fn)(struct ordma_fw *fw, const void *space,
			       uint64_t off, uint64_t *dma, uint64_t *contig);
/*
 * Copy len bytes out of (read) or into (write) space from offset off,
 * crossing its runs; 0, or -1 if a translation or a DMA access fails.
 */
int fw_dma_read_through(struct ordma_fw *fw, fw_dma_xlate_fn xlate,
			const void *space, uint64_t off, void *buf, size_t len);
int fw_dma_write_through(struct ordma_fw *fw, fw_dma_xlate_fn xlate,
			 const void *space, uint64_t off, const void *buf,
			 size_t len);
void fw_raise_vector(struct ordma_fw *fw, unsigned int vector);
uint64_t fw_now(struct ordma_fw *fw);
/* Arms the HAL timer for the earlier of the heartbeat and deadline. */
void fw_timer_arm_at(struct ordma_fw *fw, uint64_t deadline);

/*
 * fw_hal.c: the firmware trace (struct ordma_fw_trace in ordma_fw.h).
 * FW_TRACE(fw, .kind = ..., .qpn = ...) hands one record to the HAL when
 * the host asked for records, and costs a test of a pointer when not.
 */
void fw_trace(struct ordma_fw *fw, const struct ordma_fw_trace *rec);
#define FW_TRACE(fw, ...)						\
	do {								\
		if ((fw)->hal.trace) {					\
			const struct ordma_fw_trace fw_trace_rec = {	\
				__VA_ARGS__				\
			};						\
			fw_trace(fw, &fw_trace_rec);			\
		}							\
	} while (0)
/* The QP the engine works for from here on, for the trace of its DMA */
static inline void fw_trace_set_qp(struct ordma_fw *fw, uint32_t qpn)
{
	fw->trace_qpn = qpn;
}

/*
 * fw_event_log.c: the event log of BAR0 (ORDMA_REG_EVENT_LOG), kept
 * whether or not the host asked for trace records
 */
void fw_event_log(struct ordma_fw *fw, enum ordma_event_kind kind,
		  uint8_t op, uint8_t status, uint32_t arg0, uint32_t arg1);
/* The dword of the window at offset off from ORDMA_REG_EVENT_LOG */
uint32_t fw_event_log_read(const struct ordma_fw *fw, uint64_t off);
void fw_event_log_reset(struct ordma_fw *fw);

/* fw_cmd.c: what a command handler answers with */
uint8_t fw_cmd_fail(struct fw_cmd *c, uint8_t status, const char *why);
uint8_t fw_cmd_bad_param(struct fw_cmd *c, size_t offset, const char *why);
uint8_t fw_cmd_write_query_buf(struct ordma_fw *fw, struct fw_cmd *c,
			       uint32_t expected_port, const void *data,
			       size_t size);
/*
 * Commands with a host buffer of a fixed structure (struct ordma_cmd_buf:
 * CREATE_QP, MODIFY_QP, QUERY_QP, QUERY_QP_STATS, QUERY_CQ): check its
 * address and that its length is len; read the parameters from it; write
 * a query's answer to it (after fw_cmd_check_buf()).
 */
uint8_t fw_cmd_check_buf(struct fw_cmd *c, size_t len);
uint8_t fw_cmd_read_buf(struct ordma_fw *fw, struct fw_cmd *c, void *buf,
			size_t len);
uint8_t fw_cmd_write_buf(struct ordma_fw *fw, struct fw_cmd *c,
			 const void *buf, size_t len);

/* fw_event.c: event posting */
/* Enabled and not fatal: the only state in which the device works. */
bool fw_ready(const struct ordma_fw *fw);

static inline uint32_t fw_eq_size(const struct fw_eq *eq)
{
	return 1u << eq->log_size;
}

static inline struct fw_eq *fw_eq_lookup(struct ordma_fw *fw, uint32_t eqn)
{
	if (eqn >= FW_MAX_EQ || !fw->eqs[eqn].valid)
		return NULL;
	return &fw->eqs[eqn];
}

bool fw_eq_post(struct ordma_fw *fw, uint32_t eqn, uint8_t type,
		uint32_t d0, uint32_t d1, uint32_t d2);
/* fw_eq_post() for an event that may wait: FW_EQ_FULL is not counted,
 * the caller posts again later; *pos gets the entry's producer index.
 */
enum fw_eq_post_result {	/* the status of the EQE trace record */
	FW_EQ_POSTED,
	FW_EQ_FULL,
	FW_EQ_UNWRITABLE,	/* the EQE write failed (counted) */
	FW_EQ_LOST,		/* no such EQ */
};
enum fw_eq_post_result fw_eq_try_post(struct ordma_fw *fw, uint32_t eqn,
				      uint8_t type, uint32_t d0, uint32_t d1,
				      uint32_t d2, uint32_t *pos);
/* The entry posted at producer index pos is still unconsumed as far as
 * the driver has reported (EQ doorbell consumer index).
 */
bool fw_eq_unconsumed(const struct ordma_fw *fw, uint32_t eqn, uint32_t pos);
/* false if the event could not be written (counted in eq_overruns) */
bool fw_async_event(struct ordma_fw *fw, uint8_t type,
		    uint32_t d0, uint32_t d1, uint32_t d2);
void fw_db_error(struct ordma_fw *fw, uint32_t page, uint32_t reg,
		 uint32_t qn, const char *why);
/* The async EQ, if the driver created one (its number in *eqn) */
struct fw_eq *fw_async_eq(struct ordma_fw *fw, uint32_t *eqn);

/* fw_port.c: the port as the rooms above see it */
/* IPv6 40 + UDP 8 + BTH 12 + extra headers 6 + ICRC 4 */
#define FW_ROCE_HEADROOM	70
#define FW_IB_MTU_MIN		256
#define FW_IB_MTU_MAX		4096
/* IB path MTU enum (1: 256 .. 5: 4096 bytes) in bytes; 0 for any other */
uint32_t fw_ib_mtu_bytes(uint8_t path_mtu);
/* QUERY_PORT active_ib_mtu in bytes (256..4096); MODIFY_QP's path_mtu limit */
uint32_t fw_port_active_ib_mtu(const struct ordma_fw *fw);
/* The port is InfiniBand's (link-layer=ib), not Ethernet's */
bool fw_port_is_ib(const struct ordma_fw *fw);
/*
 * The Ethernet port's RDMA protocol is iWARP (SET_RDMA_PROTOCOL): its
 * engine takes no RoCEv2 frames and objects iWARP lacks are refused
 */
bool fw_port_is_iwarp(const struct ordma_fw *fw);
/*
 * Frames may be sent and received: an Ethernet port admin up with link;
 * an InfiniBand port with link that its subnet manager made ACTIVE (in
 * INIT and ARMED the IBTA lets data packets be dropped)
 */
bool fw_port_is_active(const struct ordma_fw *fw);
/*
 * InfiniBand port: its logical state, ORDMA_PORT_DOWN without link, else
 * the subnet manager's (fw->ib.state: ARMED, ACTIVE, else INIT)
 */
uint8_t fw_port_ib_state(const struct ordma_fw *fw);
/* The low LID bits the port's LMC leaves to the path */
uint16_t fw_port_ib_lmc_mask(const struct ordma_fw *fw);
/*
 * A packet's DLID is one of the port's LIDs (its LID under the LMC mask);
 * the permissive LID only for an SMP to QP0 (qp0).  Never a multicast
 * LID: which of those the port takes is the transport's to judge.
 */
bool fw_port_ib_dlid_ours(const struct ordma_fw *fw, uint16_t dlid, bool qp0);
/* SLID of the port's packets: its LID with the AV's path bits */
uint16_t fw_port_ib_slid(const struct ordma_fw *fw, uint8_t src_path_bits);
/* The port's one GID: the SM's GID prefix and the port GUID (EUI-64 of
 * the MAC), network order
 */
void fw_port_ib_gid(const struct ordma_fw *fw, uint8_t gid[16]);
/* The P_Key the packet carries takes it: QP0 ignores P_Keys, others
 * match the port's (the default on RoCE) with one side a full member
 */
bool fw_port_pkey_takes(const struct ordma_fw *fw, uint16_t pkey,
			uint32_t dest_qpn);
/* The P_Key the port's packets carry */
uint16_t fw_port_pkey(const struct ordma_fw *fw);
/* The data VL of a service level (the subnet manager's SLtoVL table) */
uint8_t fw_port_ib_sl_to_vl(const struct ordma_fw *fw, uint8_t sl);
/* The end of a PAUSE the link partner asked for, or 0 if none is on. */
uint64_t fw_port_paused_until(struct ordma_fw *fw);
/* The longest frame the port sends or delivers: its MTU plus the
 * Ethernet header and one VLAN tag
 */
uint32_t fw_port_max_frame(const struct ordma_fw *fw);
/*
 * Puts one frame of the RoCE engine on the wire (counted); false if the
 * port is down or the frame is not of a length the port sends (counted
 * as drops).  A frame to the port's own MAC goes to the internal
 * loopback (fw_priv.h) instead of the wire; a multicast frame the port
 * is itself a receiver of (heard_here, the caller's finding) goes to
 * both, as a switch would deliver it back.
 */
bool fw_port_roce_tx(struct ordma_fw *fw, const uint8_t *frame, size_t len,
		     bool heard_here);
/*
 * Puts one InfiniBand packet (LRH to VCRC) on the wire, or on the internal
 * loopback if its DLID is the port's own, or on both for a multicast
 * packet the port is a receiver of (heard_here); counted as
 * fw_port_roce_tx() counts.  false if the port's state does not send it
 * (data: ACTIVE, VL15: any state with link) or its length is not one a
 * link carries.
 */
bool fw_port_ib_tx(struct ordma_fw *fw, const uint8_t *pkt, size_t len,
		   bool heard_here);

#endif /* ORDMA_FW_PLATFORM_H */
