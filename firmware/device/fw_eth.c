// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware Ethernet function: port state and SET/QUERY_PORT, the
 * TX/RX descriptor rings, the RX address filter, RoCE steering (to the
 * transport engine, fw_transport.c) and the port counters.
 */
#include <string.h>

#include "fw_priv.h"
#include "device/fw_device.h"
#include "device/fw_mad.h"
#include "transport/fw_transport.h"
#include "objects/fw_verbs.h"
#include "objects/fw_qp.h"
#include "platform/fw_platform.h"
#include "tcp/fw_iw_conn.h"
#include "tcp/fw_tcp.h"

#define FW_ETH_RING_ALIGN	4096u
/* bits of len_flags the driver must leave clear in a posted descriptor */
#define FW_ETH_DESC_DRIVER_FLAGS	(~(uint32_t)ORDMA_ETH_DESC_LEN)

/* ------------------------------------------------------------------ */
/* Port                                                                */
/* ------------------------------------------------------------------ */

/* An InfiniBand port's state is its subnet management agent's. */
static uint8_t fw_port_state(const struct ordma_fw *fw)
{
	if (fw_port_is_ib(fw))
		return fw_sma_port_state(fw);
	return fw_port_is_active(fw) ? ORDMA_PORT_ACTIVE : ORDMA_PORT_DOWN;
}

/* An InfiniBand port has no administrative state: it trains when cabled. */
static uint8_t fw_port_phys_state(const struct ordma_fw *fw)
{
	if (fw_port_is_ib(fw) && fw->ib.phys_disabled)
		return ORDMA_PORT_PHYS_DISABLED;
	if (!fw->port.admin_up && !fw_port_is_ib(fw))
		return ORDMA_PORT_PHYS_DISABLED;
	return fw->port.link_up ? ORDMA_PORT_PHYS_LINK_UP :
				  ORDMA_PORT_PHYS_POLLING;
}

void fw_port_report_change(struct ordma_fw *fw, uint8_t old_state,
			   uint32_t ib_changes)
{
	uint8_t state = fw_port_state(fw);

	if (!fw_port_is_ib(fw))
		ib_changes = 0;
	else if (state != old_state)
		ib_changes |= ORDMA_PORT_CHANGE_STATE;
	if (state != old_state || ib_changes)
		fw_async_event(fw, ORDMA_EQE_PORT_CHANGE, ORDMA_PORT_NUM, state,
			       ib_changes);
}

void ordma_fw_set_link(struct ordma_fw *fw, bool up)
{
	uint8_t old_state = fw_port_state(fw);
	bool was_up = fw->port.link_up;

	fw->port.link_up = up;
	if (fw_port_is_ib(fw) && up != was_up)
		fw_sma_link_changed(fw, up);
	fw_port_report_change(fw, old_state, 0);
}

uint8_t fw_cmd_query_port(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_port_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.state = fw_port_state(fw);
	attr.phys_state = fw_port_phys_state(fw);
	attr.max_ib_mtu = cpu_to_le32(FW_IB_MTU_MAX);
	attr.speed_mbps = cpu_to_le32(fw->cfg.speed_mbps);
	attr.link_up = fw->port.link_up;
	attr.gid_table_len = cpu_to_le32(FW_GID_TABLE_LEN);
	if (fw_port_is_ib(fw)) {
		/* no Ethernet: no MAC, MTU or RX mode; LIDs come from the SM */
		attr.link_layer = ORDMA_LINK_LAYER_INFINIBAND;
		attr.active_ib_mtu = cpu_to_le32(FW_IB_MTU_MAX);
		fw_sma_port_attr(fw, &attr);
		return fw_cmd_write_query_buf(fw, c, ORDMA_PORT_NUM, &attr,
					      sizeof(attr));
	}
	memcpy(attr.mac, fw->port.mac, sizeof(attr.mac));
	attr.mtu = cpu_to_le32(fw->port.mtu);
	attr.max_mtu = cpu_to_le32(ORDMA_ETH_MAX_MTU);
	attr.active_ib_mtu = cpu_to_le32(fw_port_active_ib_mtu(fw));
	attr.admin_up = fw->port.admin_up;
	attr.rx_mode = fw->port.rx_mode;
	attr.rdma_protocol = fw->port.rdma_proto;
	return fw_cmd_write_query_buf(fw, c, ORDMA_PORT_NUM, &attr, sizeof(attr));
}

/*
 * RDMA objects the port's protocol cannot change under: every verbs
 * object, and the GIDs a RoCE device's driver added.  EQs and Ethernet
 * rings belong to the Ethernet function and stay.
 */
static const char *fw_rdma_objects_alive(const struct ordma_fw *fw)
{
	if (fw_qp_in_use(fw))
		return "QPs exist";
	if (fw_srq_in_use(fw))
		return "SRQs exist";
	if (fw_cq_in_use(fw))
		return "CQs exist";
	if (fw_mw_in_use(fw))
		return "memory windows exist";
	if (fw_mr_in_use(fw))
		return "MRs exist";
	if (fw_ah_in_use(fw))
		return "AHs exist";
	if (fw_mcast_groups_in_use(fw))
		return "multicast groups exist";
	if (fw_pd_in_use(fw))
		return "PDs exist";
	if (fw_uctx_in_use(fw))
		return "user contexts exist";
	if (fw_gid_in_use(fw))
		return "GIDs exist";
	return NULL;
}

uint8_t fw_cmd_set_rdma_protocol(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_set_rdma_protocol *p = &c->in->set_rdma_protocol;
	const char *alive;

	if (le32_to_cpu(p->port) != ORDMA_PORT_NUM)
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_rdma_protocol.port),
					"port must be 1");
	if (p->protocol != ORDMA_PORT_PROTO_ROCE &&
	    p->protocol != ORDMA_PORT_PROTO_IWARP)
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_rdma_protocol.protocol),
					"protocol not RoCEv2 or iWARP");
	if (fw_port_is_ib(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an InfiniBand port has no RDMA protocol choice");
	if (p->protocol == fw->port.rdma_proto)
		return ORDMA_CMD_STATUS_OK;
	alive = fw_rdma_objects_alive(fw);
	if (alive)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY, alive);
	fw->port.rdma_proto = p->protocol;
	return ORDMA_CMD_STATUS_OK;
}

/* The engine's drop reasons as the interface numbers them */
static const uint8_t fw_rx_drop_index[FW_TP_DROP_NUM] = {
	[FW_TP_DROP_PARSE]	= ORDMA_ROCE_RX_DROP_PARSE,
	[FW_TP_DROP_NO_QP]	= ORDMA_ROCE_RX_DROP_NO_QP,
	[FW_TP_DROP_TRANSPORT]	= ORDMA_ROCE_RX_DROP_TRANSPORT,
	[FW_TP_DROP_STATE]	= ORDMA_ROCE_RX_DROP_STATE,
	[FW_TP_DROP_PKEY]	= ORDMA_ROCE_RX_DROP_PKEY,
	[FW_TP_DROP_SRC]	= ORDMA_ROCE_RX_DROP_SRC,
	[FW_TP_DROP_QKEY]	= ORDMA_ROCE_RX_DROP_QKEY,
	[FW_TP_DROP_NO_RECV]	= ORDMA_ROCE_RX_DROP_NO_RECV,
	[FW_TP_DROP_UD_LEN]	= ORDMA_ROCE_RX_DROP_UD_LEN,
	[FW_TP_DROP_SEQ]	= ORDMA_ROCE_RX_DROP_SEQ,
	[FW_TP_DROP_DUP]	= ORDMA_ROCE_RX_DROP_DUP,
	[FW_TP_DROP_OPCODE_SEQ]	= ORDMA_ROCE_RX_DROP_OPCODE_SEQ,
	[FW_TP_DROP_BAD_REQ]	= ORDMA_ROCE_RX_DROP_BAD_REQ,
	[FW_TP_DROP_RNR]	= ORDMA_ROCE_RX_DROP_RNR,
	[FW_TP_DROP_RESP]	= ORDMA_ROCE_RX_DROP_RESP,
};

/* Parse reasons; FW_ROCE_OK (0) is no drop */
static const uint8_t fw_parse_drop_index[FW_ROCE_DROP_NUM] = {
	[FW_ROCE_DROP_ETH_SHORT]	= ORDMA_ROCE_PARSE_ETH_SHORT,
	[FW_ROCE_DROP_ETHERTYPE]	= ORDMA_ROCE_PARSE_ETHERTYPE,
	[FW_ROCE_DROP_IPV4_SHORT]	= ORDMA_ROCE_PARSE_IPV4_SHORT,
	[FW_ROCE_DROP_IPV4_VERSION]	= ORDMA_ROCE_PARSE_IPV4_VERSION,
	[FW_ROCE_DROP_IPV4_IHL]		= ORDMA_ROCE_PARSE_IPV4_IHL,
	[FW_ROCE_DROP_IPV4_LENGTH]	= ORDMA_ROCE_PARSE_IPV4_LENGTH,
	[FW_ROCE_DROP_IPV4_CHECKSUM]	= ORDMA_ROCE_PARSE_IPV4_CHECKSUM,
	[FW_ROCE_DROP_IPV4_FRAGMENT]	= ORDMA_ROCE_PARSE_IPV4_FRAGMENT,
	[FW_ROCE_DROP_IPV6_SHORT]	= ORDMA_ROCE_PARSE_IPV6_SHORT,
	[FW_ROCE_DROP_IPV6_VERSION]	= ORDMA_ROCE_PARSE_IPV6_VERSION,
	[FW_ROCE_DROP_IPV6_LENGTH]	= ORDMA_ROCE_PARSE_IPV6_LENGTH,
	[FW_ROCE_DROP_IP_PROTO]		= ORDMA_ROCE_PARSE_IP_PROTO,
	[FW_ROCE_DROP_UDP_SHORT]	= ORDMA_ROCE_PARSE_UDP_SHORT,
	[FW_ROCE_DROP_UDP_PORT]		= ORDMA_ROCE_PARSE_UDP_PORT,
	[FW_ROCE_DROP_UDP_LENGTH]	= ORDMA_ROCE_PARSE_UDP_LENGTH,
	[FW_ROCE_DROP_UDP_CHECKSUM]	= ORDMA_ROCE_PARSE_UDP_CHECKSUM,
	[FW_ROCE_DROP_BTH_SHORT]	= ORDMA_ROCE_PARSE_BTH_SHORT,
	[FW_ROCE_DROP_TVER]		= ORDMA_ROCE_PARSE_TVER,
	[FW_ROCE_DROP_OPCODE]		= ORDMA_ROCE_PARSE_OPCODE,
	[FW_ROCE_DROP_EXT_SHORT]	= ORDMA_ROCE_PARSE_EXT_SHORT,
	[FW_ROCE_DROP_PAD]		= ORDMA_ROCE_PARSE_PAD,
	[FW_ROCE_DROP_ICRC]		= ORDMA_ROCE_PARSE_ICRC,
};

static const uint8_t fw_tx_drop_index[FW_TP_TX_NUM] = {
	[FW_TP_TX_LINK_DOWN]	= ORDMA_ROCE_TX_DROP_LINK_DOWN,
	[FW_TP_TX_TOO_LONG]	= ORDMA_ROCE_TX_DROP_TOO_LONG,
	[FW_TP_TX_NO_GID]	= ORDMA_ROCE_TX_DROP_NO_GID,
	[FW_TP_TX_BUILD]	= ORDMA_ROCE_TX_DROP_BUILD,
	[FW_TP_TX_DMA]		= ORDMA_ROCE_TX_DROP_DMA,
};

static const uint8_t fw_ib_rx_drop_index[FW_IB_RX_DROP_NUM] = {
	[FW_IB_DROP_SHORT]		= ORDMA_IB_RX_DROP_SHORT,
	[FW_IB_DROP_LVER]		= ORDMA_IB_RX_DROP_LVER,
	[FW_IB_DROP_PKTLEN]		= ORDMA_IB_RX_DROP_PKTLEN,
	[FW_IB_DROP_VCRC]		= ORDMA_IB_RX_DROP_VCRC,
	[FW_IB_DROP_LNH]		= ORDMA_IB_RX_DROP_LNH,
	[FW_IB_DROP_SLID]		= ORDMA_IB_RX_DROP_SLID,
	[FW_IB_DROP_GRH_SHORT]		= ORDMA_IB_RX_DROP_GRH_SHORT,
	[FW_IB_DROP_GRH_VERSION]	= ORDMA_IB_RX_DROP_GRH_VERSION,
	[FW_IB_DROP_GRH_NXTHDR]		= ORDMA_IB_RX_DROP_GRH_NXTHDR,
	[FW_IB_DROP_GRH_PAYLEN]		= ORDMA_IB_RX_DROP_GRH_PAYLEN,
	[FW_IB_DROP_BTH_SHORT]		= ORDMA_IB_RX_DROP_BTH_SHORT,
	[FW_IB_DROP_TVER]		= ORDMA_IB_RX_DROP_TVER,
	[FW_IB_DROP_OPCODE]		= ORDMA_IB_RX_DROP_OPCODE,
	[FW_IB_DROP_EXT_SHORT]		= ORDMA_IB_RX_DROP_EXT_SHORT,
	[FW_IB_DROP_PAD]		= ORDMA_IB_RX_DROP_PAD,
	[FW_IB_DROP_VL15]		= ORDMA_IB_RX_DROP_VL15,
	[FW_IB_DROP_QP0_VL]		= ORDMA_IB_RX_DROP_QP0_VL,
	[FW_IB_DROP_ICRC]		= ORDMA_IB_RX_DROP_ICRC,
	[FW_IB_RX_DROP_DLID]		= ORDMA_IB_RX_DROP_DLID,
};

_Static_assert(FW_TP_DROP_NUM == ORDMA_ROCE_RX_DROP_REASONS,
	       "every receive drop reason is reported");
_Static_assert(FW_ROCE_DROP_NUM == ORDMA_ROCE_PARSE_DROP_REASONS + 1,
	       "every parse drop reason is reported");
_Static_assert(FW_IB_RX_DROP_NUM == ORDMA_IB_RX_DROP_REASONS + 1,
	       "every InfiniBand link drop reason is reported");
_Static_assert(FW_TP_TX_NUM == ORDMA_ROCE_TX_DROP_REASONS,
	       "every transmit drop reason is reported");

/* Frames the wire lost since the device was created (HAL, optional) */
static void fw_wire_drops(struct ordma_fw *fw, uint64_t *tx, uint64_t *rx)
{
	*tx = 0;
	*rx = 0;
	if (fw->hal.wire_drops)
		fw->hal.wire_drops(fw->hal_ctx, tx, rx);
}

/* Faults the wire injected since the device was created (HAL, optional) */
static void fw_wire_faults(struct ordma_fw *fw,
			   uint64_t faults[ORDMA_WIRE_FAULTS])
{
	memset(faults, 0, ORDMA_WIRE_FAULTS * sizeof(faults[0]));
	if (fw->hal.wire_faults)
		fw->hal.wire_faults(fw->hal_ctx, faults);
}

/* An iWARP port's TCP offload and MPA counters (zero on other ports) */
static void fw_query_iw_stats(struct ordma_fw *fw, struct ordma_port_stats *out)
{
	struct fw_tcp_stats t;
	struct fw_iw_stats w;

	fw_iw_tcp_stats(fw, &t);
	fw_iw_stats(fw, &w);
	out->iw_tcp_rx_segments = cpu_to_le64(t.rx_segments);
	out->iw_tcp_tx_segments = cpu_to_le64(t.tx_segments);
	out->iw_tcp_rx_bad_checksum = cpu_to_le64(t.rx_checksum);
	out->iw_tcp_rx_bad_header = cpu_to_le64(t.rx_bad_header);
	out->iw_tcp_rx_no_conn = cpu_to_le64(t.rx_no_pcb);
	out->iw_tcp_rx_out_of_window = cpu_to_le64(t.rx_out_of_window);
	out->iw_tcp_rx_rst_ignored = cpu_to_le64(t.rx_rst_ignored);
	out->iw_tcp_rx_rst_challenged = cpu_to_le64(t.rx_rst_challenged);
	out->iw_tcp_syn_backlog_full = cpu_to_le64(t.rx_backlog_full);
	out->iw_tcp_tx_no_neighbour = cpu_to_le64(t.tx_no_neighbour);
	out->iw_tcp_tx_queue_full = cpu_to_le64(t.tx_queue_full);
	out->iw_tcp_mem_errors = cpu_to_le64(t.mem_errors);
	out->iw_mpa_bad = cpu_to_le64(w.mpa_bad);
	out->iw_mpa_rejected = cpu_to_le64(w.mpa_rejected);
	out->iw_mpa_timeouts = cpu_to_le64(w.mpa_timeouts);
	out->iw_rtr_bad = cpu_to_le64(w.rtr_bad);
	out->iw_mpa_backlog_full = cpu_to_le64(w.backlog_full);
	out->iw_rx_fpdus = cpu_to_le64(w.rx_fpdus);
	out->iw_tx_fpdus = cpu_to_le64(w.tx_fpdus);
	out->iw_rx_fpdu_crc_bad = cpu_to_le64(w.fpdu_crc_bad);
	out->iw_rx_fpdu_bad_len = cpu_to_le64(w.fpdu_bad_len);
	out->iw_rx_fpdu_bytes_dropped = cpu_to_le64(w.rx_fpdu_bytes);
	out->iw_terminates_sent = cpu_to_le64(w.terminates_sent);
	out->iw_terminates_received = cpu_to_le64(w.terminates_received);
}

uint8_t fw_cmd_query_stats(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct fw_port_stats *s = &fw->stats;
	const struct fw_tp_stats *tp = &fw->tp;
	struct ordma_port_stats out;
	uint64_t faults[ORDMA_WIRE_FAULTS];
	uint64_t wire_tx, wire_rx;
	size_t i;

	fw_wire_drops(fw, &wire_tx, &wire_rx);
	fw_wire_faults(fw, faults);
	for (i = 0; i < ORDMA_WIRE_FAULTS; i++)
		out.wire_fault[i] = cpu_to_le64(faults[i] -
						s->wire_fault_base[i]);
	out.wire_tx_drop = cpu_to_le64(wire_tx - s->wire_tx_drop_base);
	out.wire_rx_drop = cpu_to_le64(wire_rx - s->wire_rx_drop_base);
	out.tx_frames = cpu_to_le64(s->tx_frames);
	out.tx_bytes = cpu_to_le64(s->tx_bytes);
	out.rx_frames = cpu_to_le64(s->rx_frames);
	out.rx_bytes = cpu_to_le64(s->rx_bytes);
	out.tx_drop_link_down = cpu_to_le64(s->tx_drop_link_down);
	out.tx_bad_desc = cpu_to_le64(s->tx_bad_desc);
	out.rx_drop_no_buf = cpu_to_le64(s->rx_drop_no_buf);
	out.rx_drop_filter = cpu_to_le64(s->rx_drop_filter);
	out.rx_drop_too_long = cpu_to_le64(s->rx_drop_too_long);
	out.rx_drop_link_down = cpu_to_le64(s->rx_drop_link_down);
	out.roce_rx_frames = cpu_to_le64(s->roce_rx_frames);
	out.roce_rx_drop = cpu_to_le64(s->roce_rx_drop);
	out.roce_tx_frames = cpu_to_le64(s->roce_tx_frames);
	out.pause_rx = cpu_to_le64(s->pause_rx);
	out.roce_tx_pause_holds = cpu_to_le64(s->roce_tx_pause_holds);
	out.roce_acks_sent = cpu_to_le64(tp->acks_sent);
	out.roce_naks_sent = cpu_to_le64(tp->naks_sent);
	out.roce_retransmits = cpu_to_le64(tp->retransmits);
	out.roce_timeouts = cpu_to_le64(tp->timeouts);
	for (i = 0; i < FW_TP_DROP_NUM; i++)
		out.roce_rx_drop_reason[fw_rx_drop_index[i]] =
			cpu_to_le64(tp->rx_drop[i]);
	for (i = FW_ROCE_OK + 1; i < FW_ROCE_DROP_NUM; i++)
		out.roce_rx_parse_drop[fw_parse_drop_index[i]] =
			cpu_to_le64(tp->rx_parse_drop[i]);
	for (i = 0; i < FW_TP_TX_NUM; i++)
		out.roce_tx_drop[fw_tx_drop_index[i]] =
			cpu_to_le64(tp->tx_drop[i]);
	for (i = 0; i < ORDMA_FAULTS; i++)
		out.fault_injected[i] = cpu_to_le64(fw->faults.injected[i]);
	/* index 0 is FW_IB_OK, never counted */
	for (i = FW_IB_OK + 1; i < FW_IB_RX_DROP_NUM; i++)
		out.ib_rx_drop[fw_ib_rx_drop_index[i]] =
			cpu_to_le64(tp->ib_rx_drop[i]);
	fw_query_iw_stats(fw, &out);
	return fw_cmd_write_query_buf(fw, c, ORDMA_PORT_NUM, &out, sizeof(out));
}

static bool fw_mac_is_zero(const uint8_t mac[6])
{
	return fw_bytes_zero(mac, 6);
}

static bool fw_mac_is_multicast(const uint8_t mac[6])
{
	return mac[0] & 1;
}

/* Checks every field of SET_PORT; nothing is applied unless all pass. */
static uint8_t fw_set_port_check(struct fw_cmd *c, uint32_t mask)
{
	const struct ordma_cmd_set_port *p = &c->in->set_port;
	uint32_t mtu = le32_to_cpu(p->mtu);

	if (mask & ORDMA_SET_PORT_MTU) {
		if (mtu < FW_MIN_ETH_MTU || mtu > ORDMA_ETH_MAX_MTU)
			return fw_cmd_bad_param(c, FW_CMD_OFF(set_port.mtu),
						"mtu not in 68..9000");
	} else if (mtu) {
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_port.mtu),
					"mtu set but not in field_mask");
	}
	if (mask & ORDMA_SET_PORT_MAC) {
		if (fw_mac_is_zero(p->mac) || fw_mac_is_multicast(p->mac))
			return fw_cmd_bad_param(c, FW_CMD_OFF(set_port.mac),
						"mac zero or multicast");
	} else if (!fw_mac_is_zero(p->mac)) {
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_port.mac),
					"mac set but not in field_mask");
	}
	if (p->admin_up > 1 ||
	    (!(mask & ORDMA_SET_PORT_ADMIN) && p->admin_up))
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_port.admin_up),
					"admin_up not 0/1 or not in field_mask");
	if (p->rx_mode & ~(ORDMA_RX_MODE_PROMISC | ORDMA_RX_MODE_ALLMULTI) ||
	    (!(mask & ORDMA_SET_PORT_RX_MODE) && p->rx_mode))
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_port.rx_mode),
					"rx_mode unknown bits or not in field_mask");
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_set_port(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_set_port *p = &c->in->set_port;
	uint32_t mask = le32_to_cpu(p->field_mask);
	uint8_t old_state = fw_port_state(fw);
	uint8_t status;

	if (le32_to_cpu(p->port) != ORDMA_PORT_NUM)
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_port.port),
					"port must be 1");
	if (fw_port_is_ib(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an InfiniBand port has no Ethernet settings");
	if (!mask || mask & ~(uint32_t)ORDMA_SET_PORT_ALL_FIELDS)
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_port.field_mask),
					"field_mask empty or unknown bits");
	status = fw_set_port_check(c, mask);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;

	if (mask & ORDMA_SET_PORT_MTU)
		fw->port.mtu = le32_to_cpu(p->mtu);
	if (mask & ORDMA_SET_PORT_MAC)
		memcpy(fw->port.mac, p->mac, sizeof(fw->port.mac));
	if (mask & ORDMA_SET_PORT_ADMIN)
		fw->port.admin_up = p->admin_up;
	if (mask & ORDMA_SET_PORT_RX_MODE)
		fw->port.rx_mode = p->rx_mode;
	fw_port_report_change(fw, old_state, 0);
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Rings                                                               */
/* ------------------------------------------------------------------ */

static uint32_t fw_ring_size(const struct fw_eth_ring *ring)
{
	return 1u << ring->log_size;
}

static struct fw_eth_ring *fw_eth_ring_lookup(struct ordma_fw *fw,
					      uint32_t id)
{
	if (id >= FW_MAX_ETH_RINGS || !fw->eth_rings[id].valid)
		return NULL;
	return &fw->eth_rings[id];
}

static uint32_t fw_ring_id(const struct ordma_fw *fw,
			   const struct fw_eth_ring *ring)
{
	return (uint32_t)(ring - fw->eth_rings);
}

bool fw_eq_used_by_eth_ring(const struct ordma_fw *fw, uint32_t eqn)
{
	uint32_t i;

	for (i = 0; i < FW_MAX_ETH_RINGS; i++)
		if (fw->eth_rings[i].valid && fw->eth_rings[i].eqn == eqn)
			return true;
	return false;
}

static void fw_eth_ring_event(struct ordma_fw *fw, struct fw_eth_ring *ring)
{
	ring->armed = false;
	ring->event_waiting = !fw_eq_post(fw, ring->eqn, ORDMA_EQE_ETH,
					  fw_ring_id(fw, ring), 0, 0);
}

/* Called once per completed descriptor: an armed ring reports it. */
static void fw_eth_ring_completed(struct ordma_fw *fw,
				  struct fw_eth_ring *ring)
{
	if (ring->armed)
		fw_eth_ring_event(fw, ring);
}

static uint64_t fw_desc_addr(const struct fw_eth_ring *ring, uint32_t index)
{
	return ring->ring_addr +
	       (uint64_t)(index & (fw_ring_size(ring) - 1)) * ORDMA_ETH_DESC_SIZE;
}

/*
 * The ring's error event, until one was written: the DMA that failed the
 * ring (Bus Master Enable clear, say) may fail the event too, so each
 * doorbell and received frame of a stopped ring tries again.
 */
static void fw_eth_ring_report(struct ordma_fw *fw, struct fw_eth_ring *ring)
{
	if (ring->error && !ring->error_posted)
		ring->error_posted = fw_async_event(fw, ORDMA_EQE_ETH_RING_ERR,
						    fw_ring_id(fw, ring), 0, 0);
}

void fw_eth_retry_events(struct ordma_fw *fw)
{
	uint32_t i;

	for (i = 0; i < FW_MAX_ETH_RINGS; i++) {
		struct fw_eth_ring *ring = &fw->eth_rings[i];

		if (!ring->valid)
			continue;
		if (ring->event_waiting)
			fw_eth_ring_event(fw, ring);
		fw_eth_ring_report(fw, ring);
	}
}

/*
 * A descriptor whose completion the driver can never see would stall the
 * driver's in-order walk of the ring for ever.  The ring stops instead,
 * reports it once, and takes nothing more until it is destroyed.
 */
static void fw_eth_ring_fail(struct ordma_fw *fw, struct fw_eth_ring *ring,
			     const char *why)
{
	if (ring->error)
		return;
	ring->error = true;
	ring->armed = false;
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR, "eth: ring %u descriptor %u: %s",
	       fw_ring_id(fw, ring), ring->ci, why);
	fw_eth_ring_report(fw, ring);
}

/* One 32-bit write: the driver sees LEN and DONE together. */
static void fw_desc_write_back(struct ordma_fw *fw, struct fw_eth_ring *ring,
			       uint32_t len_flags)
{
	uint64_t addr = fw_desc_addr(ring, ring->ci) +
			offsetof(struct ordma_eth_desc, len_flags);
	uint32_t le = cpu_to_le32(len_flags);

	if (fw_dma_write(fw, addr, &le, sizeof(le)))
		fw_eth_ring_fail(fw, ring, "write-back failed");
}

/* A descriptor the driver filled wrongly or that cannot be used: counted,
 * logged and handed back with ERR.
 */
static void fw_tx_reject(struct ordma_fw *fw, struct fw_eth_ring *ring,
			 uint32_t len, const char *why)
{
	fw->stats.tx_bad_desc++;
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR, "eth: TX ring %u descriptor %u: %s",
	       fw_ring_id(fw, ring), ring->ci, why);
	fw_desc_write_back(fw, ring, len | ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
}

/* Only LEN may be set by the driver, and the frame must fit the MTU. */
static bool fw_tx_desc_valid(const struct ordma_fw *fw,
			     const struct ordma_eth_desc *desc, uint32_t len)
{
	return !(le32_to_cpu(desc->len_flags) & FW_ETH_DESC_DRIVER_FLAGS) &&
	       !desc->reserved_12 && len >= FW_ROCE_ETH_HLEN &&
	       len <= fw_port_max_frame(fw);
}

/* Transmit (or reject) the descriptor at the ring's consumer index. */
static void fw_eth_tx_one(struct ordma_fw *fw, struct fw_eth_ring *ring)
{
	struct ordma_eth_desc desc;
	uint32_t len;
	size_t wire_len;

	if (fw_dma_read(fw, fw_desc_addr(ring, ring->ci), &desc, sizeof(desc))) {
		fw_tx_reject(fw, ring, 0, "descriptor not readable");
		return;
	}
	len = FIELD_GET(ORDMA_ETH_DESC_LEN, le32_to_cpu(desc.len_flags));
	if (!fw_tx_desc_valid(fw, &desc, len)) {
		fw_tx_reject(fw, ring, len, "bad length or flags");
		return;
	}
	if (!fw_port_is_active(fw)) {
		fw->stats.tx_drop_link_down++;
		fw_desc_write_back(fw, ring, len | ORDMA_ETH_DESC_DONE);
		return;
	}
	if (fw_dma_read(fw, le64_to_cpu(desc.addr), fw->frame_buf, len)) {
		fw_tx_reject(fw, ring, len, "frame not readable");
		return;
	}
	wire_len = len;
	if (wire_len < ORDMA_ETH_MIN_FRAME) {
		memset(fw->frame_buf + wire_len, 0, ORDMA_ETH_MIN_FRAME - wire_len);
		wire_len = ORDMA_ETH_MIN_FRAME;
	}
	fw->hal.tx_frame(fw->hal_ctx, fw->frame_buf, wire_len);
	fw->stats.tx_frames++;
	fw->stats.tx_bytes += wire_len;
	fw_desc_write_back(fw, ring, len | ORDMA_ETH_DESC_DONE);
}

bool fw_eth_loopback_run(struct ordma_fw *fw)
{
	struct fw_loopback *lb = &fw->loopback;
	unsigned int budget = FW_LOOPBACK_BUDGET;

	/* Receiving may queue more (ACKs, READ responses): they are taken
	 * in this loop too, up to the budget.  The frame is copied out of
	 * its slot first so that those can reuse it.
	 */
	while (lb->head != lb->tail && budget--) {
		uint32_t slot = lb->head % FW_LOOPBACK_SLOTS;
		uint32_t len = lb->len[slot];

		memcpy(lb->rx_buf, lb->frames[slot], len);
		lb->head++;
		ordma_fw_rx_frame(fw, lb->rx_buf, len);
	}
	return lb->head != lb->tail;
}

static void fw_eth_tx_process(struct ordma_fw *fw, struct fw_eth_ring *ring)
{
	while (ring->valid && !ring->error && ring->ci != ring->pi) {
		fw_eth_tx_one(fw, ring);
		ring->ci++;
		fw_eth_ring_completed(fw, ring);
	}
}

const char *fw_eth_pi_doorbell(struct ordma_fw *fw, uint32_t ring_id,
			       uint32_t pi)
{
	struct fw_eth_ring *ring = fw_eth_ring_lookup(fw, ring_id);

	if (!ring)
		return "no such Ethernet ring";
	if (pi - ring->ci > fw_ring_size(ring))
		return "producer index more than a ring ahead";
	ring->pi = pi;
	fw_eth_ring_report(fw, ring);
	if (ring->type == ORDMA_ETH_RING_TX)
		fw_eth_tx_process(fw, ring);
	return NULL;
}

const char *fw_eth_arm_doorbell(struct ordma_fw *fw, uint32_t ring_id,
				uint32_t ci, bool arm)
{
	struct fw_eth_ring *ring = fw_eth_ring_lookup(fw, ring_id);

	if (!ring)
		return "no such Ethernet ring";
	if (ring->ci - ci > fw_ring_size(ring))
		return "consumer index outside the ring";
	/* a stopped ring completes nothing more: no event to wait for */
	fw_eth_ring_report(fw, ring);
	if (!arm || ring->error)
		return NULL;
	if (ring->ci != ci)
		fw_eth_ring_event(fw, ring);	/* work is already waiting */
	else
		ring->armed = true;
	return NULL;
}

uint8_t fw_cmd_create_eth_ring(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_create_eth_ring *p = &c->in->eth_ring;
	uint64_t ring_addr = le64_to_cpu(p->ring_addr);
	uint32_t eqn = le32_to_cpu(p->eqn);
	struct fw_eth_ring *ring;
	uint32_t id;

	if (fw_port_is_ib(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an InfiniBand port has no Ethernet rings");
	if (!ring_addr || ring_addr % FW_ETH_RING_ALIGN)
		return fw_cmd_bad_param(c, FW_CMD_OFF(eth_ring.ring_addr),
					"ring address zero or not 4 KiB aligned");
	if (p->log_size < ORDMA_ETH_RING_MIN_LOG_SIZE ||
	    p->log_size > ORDMA_ETH_RING_MAX_LOG_SIZE)
		return fw_cmd_bad_param(c, FW_CMD_OFF(eth_ring.log_size),
					"log_size not in 4..12");
	if (fw_range_wraps(ring_addr,
			   (uint64_t)ORDMA_ETH_DESC_SIZE << p->log_size))
		return fw_cmd_bad_param(c, FW_CMD_OFF(eth_ring.ring_addr),
					"ring wraps the address space");
	if (p->type != ORDMA_ETH_RING_TX && p->type != ORDMA_ETH_RING_RX)
		return fw_cmd_bad_param(c, FW_CMD_OFF(eth_ring.type),
					"unknown ring type");
	if (eqn >= FW_MAX_EQ || !fw->eqs[eqn].valid)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such EQ");
	if (fw->eqs[eqn].type != ORDMA_EQ_TYPE_COMP)
		return fw_cmd_bad_param(c, FW_CMD_OFF(eth_ring.eqn),
					"ring events need a completion EQ");
	for (id = 0; id < FW_MAX_ETH_RINGS && fw->eth_rings[id].valid; id++)
		;
	if (id == FW_MAX_ETH_RINGS)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "all Ethernet rings in use");

	ring = &fw->eth_rings[id];
	memset(ring, 0, sizeof(*ring));
	ring->valid = true;
	ring->type = p->type;
	ring->log_size = p->log_size;
	ring->eqn = eqn;
	ring->ring_addr = ring_addr;
	c->out->handle.handle = cpu_to_le32(id);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_destroy_eth_ring(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t id = le32_to_cpu(c->in->handle.handle);

	if (c->in->handle.uctx)
		return fw_cmd_bad_param(c, FW_CMD_OFF(handle.uctx),
					"uctx must be 0");
	if (!fw_eth_ring_lookup(fw, id))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such Ethernet ring");
	/* pending descriptors are abandoned without write-back */
	memset(&fw->eth_rings[id], 0, sizeof(fw->eth_rings[id]));
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Receive                                                             */
/* ------------------------------------------------------------------ */

static bool fw_mac_is_broadcast(const uint8_t *mac)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	return !memcmp(mac, bcast, sizeof(bcast));
}

/* 33:33:xx (IPv6) and 01:00:5e:0xxxxxxx (IPv4) multicast groups */
static bool fw_mac_is_ip_multicast(const uint8_t *mac)
{
	if (mac[0] == 0x33 && mac[1] == 0x33)
		return true;
	return mac[0] == 0x01 && mac[1] == 0x00 && mac[2] == 0x5e &&
	       !(mac[3] & 0x80);
}

static bool fw_rx_filter_accepts(const struct ordma_fw *fw,
				 const uint8_t *dst)
{
	if (fw->port.rx_mode & ORDMA_RX_MODE_PROMISC)
		return true;
	if (!memcmp(dst, fw->port.mac, sizeof(fw->port.mac)) ||
	    fw_mac_is_broadcast(dst) || fw_mac_is_ip_multicast(dst))
		return true;
	return fw_mac_is_multicast(dst) &&
	       (fw->port.rx_mode & ORDMA_RX_MODE_ALLMULTI);
}

static uint16_t fw_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool fw_rx_is_roce_for_us(struct ordma_fw *fw, const uint8_t *frame,
				 size_t len)
{
	uint8_t gid[16];

	return fw_roce_frame_dgid(frame, len, gid) && fw_gid_is_local(fw, gid);
}

static struct fw_eth_ring *fw_rx_ring(struct ordma_fw *fw)
{
	uint32_t i;

	for (i = 0; i < FW_MAX_ETH_RINGS; i++)
		if (fw->eth_rings[i].valid &&
		    fw->eth_rings[i].type == ORDMA_ETH_RING_RX)
			return &fw->eth_rings[i];
	return NULL;
}

static void fw_rx_consume(struct ordma_fw *fw, struct fw_eth_ring *ring,
			  uint32_t len_flags)
{
	fw_desc_write_back(fw, ring, len_flags);
	ring->ci++;
	fw_eth_ring_completed(fw, ring);
}

/* A posted descriptor that cannot take the frame: given back with ERR;
 * the frame is lost for want of a usable buffer.
 */
static void fw_rx_reject(struct ordma_fw *fw, struct fw_eth_ring *ring,
			 const char *why)
{
	fw->stats.rx_drop_no_buf++;
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR, "eth: RX ring %u descriptor %u: %s",
	       fw_ring_id(fw, ring), ring->ci, why);
	fw_rx_consume(fw, ring, ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
}

static bool fw_rx_desc_valid(const struct ordma_eth_desc *desc,
			     uint32_t buf_len)
{
	return !(le32_to_cpu(desc->len_flags) & FW_ETH_DESC_DRIVER_FLAGS) &&
	       !desc->reserved_12 && buf_len >= FW_RX_MIN_BUF;
}

/* Place a frame that passed the filter into the next posted buffer. */
static void fw_rx_deliver(struct ordma_fw *fw, const uint8_t *frame,
			  size_t len)
{
	struct fw_eth_ring *ring = fw_rx_ring(fw);
	struct ordma_eth_desc desc;
	uint32_t buf_len;

	if (ring)
		fw_eth_ring_report(fw, ring);
	if (!ring || ring->error || ring->ci == ring->pi) {
		fw->stats.rx_drop_no_buf++;
		return;
	}
	if (fw_dma_read(fw, fw_desc_addr(ring, ring->ci), &desc, sizeof(desc))) {
		fw_rx_reject(fw, ring, "descriptor not readable");
		return;
	}
	buf_len = FIELD_GET(ORDMA_ETH_DESC_LEN, le32_to_cpu(desc.len_flags));
	if (!fw_rx_desc_valid(&desc, buf_len)) {
		fw_rx_reject(fw, ring, "bad buffer length or flags");
		return;
	}
	if (len > buf_len) {
		fw->stats.rx_drop_too_long++;	/* buffer stays posted */
		return;
	}
	if (fw_dma_write(fw, le64_to_cpu(desc.addr), frame, len)) {
		/* not a lack of buffers: the driver gave a bad address */
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "eth: RX ring %u descriptor %u: buffer not writable",
		       fw_ring_id(fw, ring), ring->ci);
		fw_rx_consume(fw, ring, ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
		return;
	}
	fw->stats.rx_frames++;
	fw->stats.rx_bytes += len;
	fw_rx_consume(fw, ring, (uint32_t)len | ORDMA_ETH_DESC_DONE);
}

/*
 * IEEE 802.3 MAC Control (Annex 31B): frames of EtherType 0x8808 are the
 * MAC's own and never reach the host.  PAUSE (opcode 1, to the reserved
 * multicast address or the port's own) stops the port's RoCE data for
 * its pause_time in quanta of 512 bit times at the port speed, replacing
 * any PAUSE before it; 0 ends it.  Other opcodes (PFC among them) are
 * not supported and are dropped.
 */
#define FW_ETH_P_MAC_CONTROL		0x8808
#define FW_MAC_CONTROL_PAUSE		0x0001
#define FW_PAUSE_QUANTUM_BITS		512

static const uint8_t fw_pause_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

static bool fw_rx_mac_control(struct ordma_fw *fw, const uint8_t *frame,
			      size_t len)
{
	uint64_t speed = fw->cfg.speed_mbps ? fw->cfg.speed_mbps : 1;
	uint16_t quanta;

	if (len < FW_ROCE_ETH_HLEN ||
	    fw_get_be16(frame + 12) != FW_ETH_P_MAC_CONTROL)
		return false;
	if (len < FW_ROCE_ETH_HLEN + 4 ||
	    fw_get_be16(frame + FW_ROCE_ETH_HLEN) != FW_MAC_CONTROL_PAUSE ||
	    (memcmp(frame, fw_pause_dst, 6) &&
	     memcmp(frame, fw->port.mac, 6))) {
		fw->stats.rx_drop_filter++;
		return true;
	}
	fw->stats.pause_rx++;
	quanta = fw_get_be16(frame + FW_ROCE_ETH_HLEN + 2);
	/* bits / (Mbit/s) = microseconds */
	fw->port.pause_until_ns = quanta ?
		fw_now(fw) + (uint64_t)quanta * FW_PAUSE_QUANTUM_BITS * 1000 /
			     speed : 0;
	fw_tp_pause_changed(fw);
	return true;
}

void ordma_fw_rx_frame(struct ordma_fw *fw, const void *data, size_t len)
{
	const uint8_t *frame = data;

	fw_trace_set_qp(fw, ORDMA_FW_TRACE_NO_QPN);
	if (!fw_ready(fw))
		return;		/* a stopped device does not receive */
	if (fw_port_is_ib(fw)) {
		/* InfiniBand packets: the transport engine's, checked there */
		fw_tp_rx_ib(fw, frame, len);
		return;
	}
	if (!fw_port_is_active(fw)) {
		fw->stats.rx_drop_link_down++;
		return;
	}
	if (fw_rx_mac_control(fw, frame, len))
		return;
	if (len < FW_ROCE_ETH_HLEN || !fw_rx_filter_accepts(fw, frame)) {
		fw->stats.rx_drop_filter++;
		return;
	}
	/* the TCP segments of offloaded connections and listeners */
	if (fw_port_is_iwarp(fw) && fw_tcp_rx(fw, frame, len))
		return;
	/* an iWARP port's engine takes no RoCEv2: such frames are the host's */
	if (!fw_port_is_iwarp(fw) && fw_rx_is_roce_for_us(fw, frame, len)) {
		/* the transport engine's, never the netdev's */
		fw->stats.roce_rx_frames++;
		fw_tp_rx(fw, frame, len);
		return;
	}
	if (len > fw_port_max_frame(fw)) {
		fw->stats.rx_drop_too_long++;
		return;
	}
	fw_rx_deliver(fw, frame, len);
}

bool ordma_fw_can_receive(struct ordma_fw *fw)
{
	return fw_ready(fw);
}

void fw_eth_reset(struct ordma_fw *fw)
{
	memset(fw->eth_rings, 0, sizeof(fw->eth_rings));
	memset(&fw->stats, 0, sizeof(fw->stats));
	/* the wire's counters run on: a reset takes them as the new zero */
	fw_wire_drops(fw, &fw->stats.wire_tx_drop_base,
		      &fw->stats.wire_rx_drop_base);
	fw_wire_faults(fw, fw->stats.wire_fault_base);
	fw->loopback.head = fw->loopback.tail = 0;
	fw->loopback.frames_looped = fw->loopback.drop_full = 0;
	memcpy(fw->port.mac, fw->cfg.mac, sizeof(fw->port.mac));
	fw->port.mtu = ORDMA_ETH_DEFAULT_MTU;
	fw->port.admin_up = false;
	fw->port.rx_mode = 0;
	fw->port.rdma_proto = ORDMA_PORT_PROTO_ROCE;
	fw->port.pause_until_ns = 0;
}

/* QUERY_RESOURCES */
uint32_t fw_eth_rings_in_use(const struct ordma_fw *fw)
{
	uint32_t id, n = 0;

	for (id = 0; id < FW_MAX_ETH_RINGS; id++)
		n += fw->eth_rings[id].valid;
	return n;
}
