/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware internal state, shared by the firmware's own files only.
 * Everything a device owns lives in struct ordma_fw so that any number of
 * devices can run in one process.  Only state and its limits live here:
 * the functions are declared by the room that defines them
 * (platform/fw_platform.h, objects/fw_verbs.h, objects/fw_qp.h,
 * transport/fw_transport.h, device/fw_device.h).
 */
#ifndef ORDMA_FW_PRIV_H
#define ORDMA_FW_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_hw.h>
#include "ordma_fw.h"
#include "wire/fw_roce_wire.h"
#include "wire/fw_ib_wire.h"

/*
 * The firmware's own entry table (device/fw_entry.c), which carries the
 * version it reports: only that file is built again for an image of
 * another version (make -C firmware image-so FW_VERSION=...).
 */
const struct ordma_fw_image *fw_entry_table(void);

#define FW_HW_VERSION \
	(FIELD_PREP(ORDMA_VERSION_MAJOR, ORDMA_HW_VERSION_MAJOR) | \
	 FIELD_PREP(ORDMA_VERSION_MINOR, ORDMA_HW_VERSION_MINOR))

#define FW_READY_TIMEOUT_MS		1000
#define FW_CMD_TIMEOUT_MS		5000
#define FW_HEARTBEAT_PERIOD_NS		100000000ULL	/* 100 ms */
#define FW_DB_ERROR_EVENT_GAP_NS	10000000ULL	/* 10 ms */

#define FW_MAX_EQ			32
#define FW_MAX_ETH_RINGS		8
#define FW_GID_TABLE_LEN		16
#define FW_MAX_PD			1024
#define FW_MIN_ETH_MTU			68
#define FW_RX_MIN_BUF			64
#define FW_MAX_FRAME	(ORDMA_ETH_MAX_MTU + ORDMA_ETH_OVERHEAD)

#define FW_LOG_MSG_MAX			192

/* Byte offset / size of a command field inside the 64-byte AQ entry */
#define FW_CMD_OFF(member)	offsetof(struct ordma_aq_cmd, member)
#define FW_CMD_SIZE(member)	sizeof(((struct ordma_aq_cmd *)0)->member)

#ifdef __GNUC__
#define FW_PRINTF(fmt, args)	__attribute__((format(printf, fmt, args)))
#else
#define FW_PRINTF(fmt, args)
#endif

struct fw_eq {
	bool valid;
	bool armed;		/* one-shot: next EQE raises the vector */
	uint8_t type;		/* enum ordma_eq_type */
	uint8_t log_size;
	uint16_t vector;
	uint64_t ring_addr;
	uint32_t pi;		/* device producer, free running */
	uint32_t ci;		/* driver consumer as last reported */
	/* CQs whose COMP event waits for room or for their previous one
	 * to be consumed (fw_cq.c)
	 */
	uint32_t waiting_cqs;
};

struct fw_eth_ring {
	bool valid;
	bool armed;		/* one-shot: next completion posts an EQE */
	bool error;		/* a write-back failed: stopped until destroyed */
	bool error_posted;	/* ORDMA_EQE_ETH_RING_ERR written to the EQ */
	bool event_waiting;	/* its ORDMA_EQE_ETH could not be written */
	uint8_t type;		/* enum ordma_eth_ring_type */
	uint8_t log_size;
	uint32_t eqn;
	uint64_t ring_addr;
	uint32_t pi;		/* driver producer, free running */
	uint32_t ci;		/* device consumer: next descriptor to use */
};

struct fw_gid {
	bool valid;
	uint8_t type;			/* enum ordma_gid_type */
	uint8_t gid[16];
	uint8_t mac[6];
	uint16_t vlan_id;
};

struct fw_pd {
	bool valid;
	uint32_t owner;		/* uctx */
	uint32_t refs;		/* MRs, QPs, SRQs, AHs in this PD */
};

/*
 * Internal loopback: RoCE frames the engine addresses to the port's own
 * MAC (both QPs on this device) never reach the wire.  They wait here
 * and are received from the device timer, outside the engine call that
 * sent them, as a frame from the cable would be.
 */
#define FW_LOOPBACK_SLOTS		128
#define FW_LOOPBACK_BUDGET		256	/* frames per timer callback */

struct fw_loopback {
	uint8_t (*frames)[FW_MAX_FRAME];
	uint32_t len[FW_LOOPBACK_SLOTS];
	uint32_t head;		/* next to receive, free running */
	uint32_t tail;		/* next free slot, free running */
	uint64_t frames_looped;
	uint64_t drop_full;	/* queue full: lost like a frame on a wire */
	uint8_t rx_buf[FW_MAX_FRAME];
};

struct fw_mr;
struct fw_cq;
struct fw_ah;
struct fw_qp;
struct fw_srq;

/* Port counters in host order; QUERY_STATS converts them. */
struct fw_port_stats {
	uint64_t tx_frames;
	uint64_t tx_bytes;
	uint64_t rx_frames;
	uint64_t rx_bytes;
	uint64_t tx_drop_link_down;
	uint64_t tx_bad_desc;
	uint64_t rx_drop_no_buf;
	uint64_t rx_drop_filter;
	uint64_t rx_drop_too_long;
	uint64_t rx_drop_link_down;
	uint64_t roce_rx_frames;
	uint64_t roce_rx_drop;
	uint64_t roce_tx_frames;
	uint64_t pause_rx;
	uint64_t roce_tx_pause_holds;
	/* what the wire had lost when the counters were last reset */
	uint64_t wire_tx_drop_base;
	uint64_t wire_rx_drop_base;
	uint64_t wire_fault_base[ORDMA_WIRE_FAULTS];
};

/*
 * Why the engine dropped a received frame (after a successful parse);
 * the values are the RX_DROP trace record's status (ordma_fw.h).
 */
enum fw_tp_drop {
	/* fw_roce_parse() refused it */
	FW_TP_DROP_PARSE = ORDMA_FW_TRACE_DROP_PARSE,
	/* destination QP does not exist */
	FW_TP_DROP_NO_QP = ORDMA_FW_TRACE_DROP_NO_QP,
	/* opcode of another transport (RC/UC/UD) */
	FW_TP_DROP_TRANSPORT = ORDMA_FW_TRACE_DROP_TRANSPORT,
	/* QP not in a state that takes it */
	FW_TP_DROP_STATE = ORDMA_FW_TRACE_DROP_STATE,
	FW_TP_DROP_PKEY = ORDMA_FW_TRACE_DROP_PKEY,
	/* RC: source address is not the QP's peer */
	FW_TP_DROP_SRC = ORDMA_FW_TRACE_DROP_SRC,
	/* UD: Q_Key mismatch */
	FW_TP_DROP_QKEY = ORDMA_FW_TRACE_DROP_QKEY,
	/* UD, UC: no receive WQE posted */
	FW_TP_DROP_NO_RECV = ORDMA_FW_TRACE_DROP_NO_RECV,
	/* UD: payload above the path MTU */
	FW_TP_DROP_UD_LEN = ORDMA_FW_TRACE_DROP_UD_LEN,
	/* RC: request PSN ahead of the expected one; UC: packet of a lost
	 * or dropped message
	 */
	FW_TP_DROP_SEQ = ORDMA_FW_TRACE_DROP_SEQ,
	/* duplicate request not answered */
	FW_TP_DROP_DUP = ORDMA_FW_TRACE_DROP_DUP,
	/* opcode out of sequence (RC: NAKed) */
	FW_TP_DROP_OPCODE_SEQ = ORDMA_FW_TRACE_DROP_OPCODE_SEQ,
	/* malformed or not permitted request (RC: NAKed; UC: message
	 * dropped)
	 */
	FW_TP_DROP_BAD_REQ = ORDMA_FW_TRACE_DROP_BAD_REQ,
	/* request answered with an RNR NAK */
	FW_TP_DROP_RNR = ORDMA_FW_TRACE_DROP_RNR,
	/* unexpected or stale response */
	FW_TP_DROP_RESP = ORDMA_FW_TRACE_DROP_RESP,
	FW_TP_DROP_NUM
};

/* Why the engine did not send a frame */
enum fw_tp_tx_drop {
	FW_TP_TX_LINK_DOWN = 0,
	FW_TP_TX_TOO_LONG,	/* above the port MTU */
	FW_TP_TX_NO_GID,	/* sgid_index no longer names a GID */
	FW_TP_TX_BUILD,		/* headers rejected (e.g. address families) */
	FW_TP_TX_DMA,		/* payload could not be read */
	FW_TP_TX_NUM
};

struct fw_tp_timers;
struct fw_qp_engine_ops;

/* Transport engine counters, reported through QUERY_STATS */
/*
 * Why an InfiniBand port dropped a received packet before the transport
 * saw it (fw_tp_rx_ib()): the reasons of fw_ib_parse(), then the port's
 * own.  A packet the port's state does not take counts in
 * rx_drop_link_down instead.
 */
enum fw_ib_rx_drop {
	/* DLID neither the port's LID (under its LMC) nor, for an SMP to
	 * QP0, the permissive LID
	 */
	FW_IB_RX_DROP_DLID = FW_IB_DROP_NUM,
	FW_IB_RX_DROP_NUM
};

struct fw_tp_stats {
	uint64_t rx_drop[FW_TP_DROP_NUM];
	uint64_t rx_parse_drop[FW_ROCE_DROP_NUM];
	uint64_t ib_rx_drop[FW_IB_RX_DROP_NUM];	/* enum fw_ib_rx_drop */
	uint64_t tx_drop[FW_TP_TX_NUM];
	uint64_t acks_sent;
	uint64_t naks_sent;
	uint64_t retransmits;
	uint64_t timeouts;
};

struct fw_port {
	uint8_t mac[6];
	uint32_t mtu;
	bool admin_up;
	bool link_up;
	uint8_t rx_mode;
	uint8_t rdma_proto;	/* enum ordma_port_proto (SET_RDMA_PROTOCOL) */
	/* IEEE 802.3x PAUSE: the partner asked for no data until then */
	uint64_t pause_until_ns;	/* 0: not paused */
};

/*
 * An InfiniBand port as its subnet manager configures it through the
 * subnet management agent (device/fw_sma.c), host order.  The logical
 * state holds while the link is up; without link the port is DOWN.
 */
#define FW_IB_VL_ARB_ENTRIES		8	/* VLArbHighCap, VLArbLowCap */
#define FW_IB_NOTICE_SIZE		64	/* a Notice in an SMP */

/* The traps the subnet management agent sends, one of each at a time */
enum fw_ib_trap_kind {
	FW_IB_TRAP_LOCAL_CHANGES,	/* 144: CapabilityMask, NodeDescription */
	FW_IB_TRAP_BAD_MKEY,		/* 256 */
	FW_IB_TRAPS
};

/* A trap sent again every subnet timeout until the SM represses it */
struct fw_ib_trap {
	bool pending;
	uint64_t tid;
	uint64_t next_ns;		/* when to send it again */
	uint32_t sends;			/* times sent with this TID */
	uint8_t notice[FW_IB_NOTICE_SIZE];
};

struct fw_ib_port {
	uint8_t state;			/* ORDMA_PORT_INIT, ARMED or ACTIVE */
	/* CapabilityMask bits the host's agents stand for (MODIFY_IB_PORT) */
	uint32_t host_caps;
	/* NodeDescription (SET_NODE_DESC; the board id after a reset) */
	char node_desc[ORDMA_NODE_DESC_SIZE];
	bool phys_disabled;		/* PortPhysicalState Disabled was set */
	uint8_t link_down_default;	/* LinkDownDefaultState */
	uint64_t mkey;
	uint64_t gid_prefix;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t lmc;
	uint8_t sm_sl;
	uint8_t mkey_protect;		/* M_KeyProtectBits */
	uint16_t mkey_lease_period;	/* seconds, 0: the lease never ends */
	uint64_t mkey_lease_end_ns;	/* 0: no lease running */
	uint8_t link_width_enabled;
	uint8_t link_speed_enabled;
	uint8_t neighbor_mtu;
	uint8_t operational_vls;
	uint8_t vl_high_limit;
	uint8_t hoq_life;
	uint8_t subnet_timeout;
	uint8_t phy_error_thresholds;	/* LocalPhyErrors, OverrunErrors */
	uint16_t mkey_violations;
	uint16_t pkey_violations;
	uint16_t qkey_violations;
	uint16_t pkey;			/* the P_Key table's one entry */
	uint8_t sl_to_vl[8];		/* SLtoVLMappingTable, as on the wire */
	uint8_t vl_arb_low[FW_IB_VL_ARB_ENTRIES][2];
	uint8_t vl_arb_high[FW_IB_VL_ARB_ENTRIES][2];
	uint64_t link_downed;		/* link-down events since reset */
	uint64_t dr_drops;		/* directed route SMPs dropped */
	struct fw_ib_trap traps[FW_IB_TRAPS];
	uint64_t trap_tid;		/* TID of the last trap raised */
	uint64_t traps_sent;		/* SubnTrap MADs sent, repeats too */
	uint64_t traps_repressed;
	/* the port counters as they were when the PMA last cleared them */
	uint64_t pma_base[16];
};

/* BAR0 registers as the driver last wrote them */
struct fw_regs {
	uint32_t ctrl;
	uint32_t status;
	uint32_t fatal_code;
	uint32_t heartbeat;
	uint32_t aq_base_lo;
	uint32_t aq_base_hi;
	uint32_t acq_base_lo;
	uint32_t acq_base_hi;
	uint32_t aq_cfg;
	uint32_t scratch;
};

/* Admin queue configuration latched at ENABLE */
struct fw_aq {
	uint64_t cmd_base;
	uint64_t comp_base;
	unsigned int log_depth;
	/* Commands consumed, free running; also the ACQ producer since
	 * every command produces exactly one completion.
	 */
	uint16_t ci;
	uint16_t pi;		/* the driver's producer, last doorbell */
	/* a completion the ADMIN_DELAY fault holds back: the commands
	 * after it wait until it is written
	 */
	bool delayed;
	bool delayed_phase;
	uint8_t delayed_opcode;
	uint32_t delayed_slot;
	uint64_t delayed_due_ns;
	struct ordma_aq_comp delayed_comp;
};

struct fw_health {
	uint32_t cmd_errors;
	uint32_t db_errors;
	uint32_t eq_overruns;
};

/* Fault injection (INJECT_FAULT, ordma_fw_inject_fault()) */
struct fw_faults {
	/* DMA_READ, DMA_WRITE, ADMIN_DROP, MSIX_DROP: how many to come */
	uint32_t left[ORDMA_FAULTS];
	bool heartbeat_stuck;
	uint32_t admin_delay_ms;	/* ADMIN_DELAY's delay */
	/* armed by the command being executed, for after its completion */
	bool staged;
	uint32_t staged_fault;
	uint32_t staged_count;
	uint32_t staged_arg;
	uint64_t injected[ORDMA_FAULTS];	/* QUERY_STATS fault_injected */
};

/* The event log window of BAR0 (ORDMA_REG_EVENT_LOG) */
struct fw_event_log {
	struct ordma_event_log_entry ring[ORDMA_EVENT_LOG_LEN];
	uint32_t count;			/* events since reset */
};

/* An image FLASH_WRITE is handing to the flash */
struct fw_flash {
	bool writing;
	uint32_t written;		/* bytes so far */
};

struct fw_tcp_slot_ops;
struct fw_tcp_user;
struct fw_iw;

/* The TCP offload of an iWARP port (tcp/fw_tcp.h) */
struct fw_tcp_dev {
	const struct fw_tcp_slot_ops *slot;	/* NULL: no copy claimed */
	unsigned int slot_index;
	unsigned int depth;		/* calls into the stack under way */
	uint8_t *txq;			/* frames to send once it returned */
	size_t txq_used;
	const struct fw_tcp_user *user;
	void *user_arg;
	struct fw_iw *iw;		/* connections (tcp/fw_iw_conn.c) */
	uint32_t ip;			/* the address the stack runs on */
};

struct ordma_fw {
	struct ordma_hal_ops hal;
	void *hal_ctx;
	struct ordma_fw_config cfg;

	struct fw_regs regs;
	struct fw_aq aq;
	uint64_t next_heartbeat_ns;
	/* deadline the HAL timer is armed for (UINT64_MAX: none) */
	uint64_t timer_armed_ns;

	struct fw_port port;
	struct fw_ib_port ib;
	struct fw_port_stats stats;
	struct fw_health health;
	struct fw_faults faults;
	struct fw_flash flash;
	struct fw_event_log event_log;
	struct fw_tp_stats tp;		/* transport engine counters */
	struct fw_tp_timers *tp_timers;	/* QP deadlines (fw_transport.c) */
	/* QPs the timer callbacks examined, since the device was created:
	 * what a callback costs follows the QPs due, not the QPs there are
	 */
	uint64_t tp_timer_visits;
	/* the engine's QP hooks (objects/fw_qp.h), set by fw_tp_create() */
	const struct fw_qp_engine_ops *qp_engine;
	uint16_t tp_ip_id;		/* IPv4 identification of RoCE frames */
	/* RC PSNs in flight (fw_requester.c): all QPs, user QPs, per user
	 * context (num_db_pages entries), user contexts holding any
	 */
	uint32_t tp_outstanding;
	uint32_t tp_user_outstanding;
	uint32_t *tp_ctx_held;
	uint32_t tp_ctx_active;
	bool db_error_event_sent;
	uint64_t last_db_error_event_ns;

	struct fw_eq eqs[FW_MAX_EQ];
	struct fw_eth_ring eth_rings[FW_MAX_ETH_RINGS];
	struct fw_gid gids[FW_GID_TABLE_LEN];
	struct fw_pd pds[FW_MAX_PD + 1];	/* pdn 0 is never used */
	bool *uctx_allocated;			/* num_db_pages entries */
	/* verbs objects (fw_verbs.h); index 0 of each table is never used */
	struct fw_mr *mrs;
	struct fw_cq *cqs;
	struct fw_ah *ahs;
	struct fw_mcast_group *mcast;		/* FW_MAX_MCAST_GRP groups */
	/* QPs and SRQs (fw_qp.h): qps[qpn], srqs[srqn] */
	struct fw_qp *qps;
	struct fw_srq *srqs;
	/* QUERY_QP_STATS of QPs gone or reset, host order, indexed as the
	 * __le64 fields of struct ordma_qp_stats
	 */
	uint64_t qp_stats_retired[ORDMA_QP_STATS_SIZE / sizeof(uint64_t)];

	struct fw_loopback loopback;
	struct fw_tcp_dev tcp;
	uint8_t frame_buf[FW_MAX_FRAME];	/* TX staging */

	/* trace (FW_TRACE): the QP the engine works for, for its DMA, and
	 * the received packet being handled, for its drop
	 */
	uint32_t trace_qpn;
	uint32_t trace_rx_qpn;
	uint32_t trace_rx_psn;
	uint8_t trace_rx_opcode;
};

/* One admin command being executed */
struct fw_cmd {
	const struct ordma_aq_cmd *in;
	struct ordma_aq_comp *out;
	const char *error;	/* why it failed, for the log */
};

#endif /* ORDMA_FW_PRIV_H */
