// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware admin queue: command fetch, generic validation, dispatch
 * to one handler per opcode, completion with phase bit.  Also the handlers
 * of the device-wide commands (QUERY_FW, QUERY_DEVICE, HEALTH,
 * QUERY_RESOURCES).
 */
#include <assert.h>
#include <string.h>

#include "fw_priv.h"
#include "device/fw_device.h"
#include "device/fw_caps.h"
#include "objects/fw_verbs.h"
#include "objects/fw_qp.h"
#include "platform/fw_platform.h"
#include "tcp/fw_iw_conn.h"

#define FW_MAX_RESERVED_FIELDS	4

struct fw_reserved_field {
	uint8_t offset;		/* in the 64-byte entry */
	uint8_t size;
};

struct fw_cmd_desc {
	uint8_t opcode;
	const char *name;
	uint8_t payload_size;	/* bytes after the header that carry meaning */
	struct fw_reserved_field reserved[FW_MAX_RESERVED_FIELDS];
	uint8_t (*handler)(struct ordma_fw *fw, struct fw_cmd *c);
};

#define FW_RESERVED(member) { FW_CMD_OFF(member), FW_CMD_SIZE(member) }

static uint8_t fw_cmd_query_fw(struct ordma_fw *fw, struct fw_cmd *c);
static uint8_t fw_cmd_query_device(struct ordma_fw *fw, struct fw_cmd *c);
static uint8_t fw_cmd_health(struct ordma_fw *fw, struct fw_cmd *c);
static uint8_t fw_cmd_query_resources(struct ordma_fw *fw, struct fw_cmd *c);

#define FW_CMD(op, payload, fn) \
	.opcode = ORDMA_CMD_##op, .name = #op, .payload_size = (payload), \
	.handler = (fn)

static const struct fw_cmd_desc fw_cmds[] = {
	{ FW_CMD(QUERY_FW, 0, fw_cmd_query_fw) },
	{ FW_CMD(QUERY_DEVICE, sizeof(struct ordma_cmd_query_buf),
		 fw_cmd_query_device) },
	{ FW_CMD(QUERY_PORT, sizeof(struct ordma_cmd_query_buf),
		 fw_cmd_query_port) },
	{ FW_CMD(SET_PORT, sizeof(struct ordma_cmd_set_port),
		 fw_cmd_set_port) },
	{ FW_CMD(HEALTH, 0, fw_cmd_health) },
	{ FW_CMD(QUERY_STATS, sizeof(struct ordma_cmd_query_buf),
		 fw_cmd_query_stats) },
	{ FW_CMD(QUERY_RESOURCES, sizeof(struct ordma_cmd_query_buf),
		 fw_cmd_query_resources) },
	{ FW_CMD(CREATE_EQ, sizeof(struct ordma_cmd_create_eq),
		 fw_cmd_create_eq),
	  .reserved = { FW_RESERVED(create_eq.reserved_12) } },
	{ FW_CMD(DESTROY_EQ, sizeof(struct ordma_cmd_handle),
		 fw_cmd_destroy_eq) },
	{ FW_CMD(CREATE_ETH_RING, sizeof(struct ordma_cmd_create_eth_ring),
		 fw_cmd_create_eth_ring),
	  .reserved = { FW_RESERVED(eth_ring.reserved_10) } },
	{ FW_CMD(DESTROY_ETH_RING, sizeof(struct ordma_cmd_handle),
		 fw_cmd_destroy_eth_ring) },
	{ FW_CMD(INJECT_FAULT, sizeof(struct ordma_cmd_inject_fault),
		 fw_cmd_inject_fault) },
	{ FW_CMD(FLASH_WRITE, sizeof(struct ordma_cmd_flash_write),
		 fw_cmd_flash_write) },
	{ FW_CMD(FLASH_COMMIT, sizeof(struct ordma_cmd_flash_commit),
		 fw_cmd_flash_commit) },
	{ FW_CMD(QUERY_FLASH, sizeof(struct ordma_cmd_query_buf),
		 fw_cmd_query_flash) },
	{ FW_CMD(FW_ACTIVATE, 0, fw_cmd_fw_activate) },
	{ FW_CMD(PROCESS_MAD, sizeof(struct ordma_cmd_process_mad),
		 fw_cmd_process_mad) },
	{ FW_CMD(SET_NODE_DESC, sizeof(struct ordma_cmd_set_node_desc),
		 fw_cmd_set_node_desc) },
	{ FW_CMD(MODIFY_IB_PORT, sizeof(struct ordma_cmd_modify_ib_port),
		 fw_cmd_modify_ib_port) },
	{ FW_CMD(SET_RDMA_PROTOCOL, sizeof(struct ordma_cmd_set_rdma_protocol),
		 fw_cmd_set_rdma_protocol),
	  .reserved = { FW_RESERVED(set_rdma_protocol.reserved_5),
			FW_RESERVED(set_rdma_protocol.reserved_6) } },
	{ FW_CMD(ADD_GID, sizeof(struct ordma_cmd_add_gid),
		 fw_cmd_add_port_gid),
	  .reserved = { FW_RESERVED(add_gid.reserved_5),
			FW_RESERVED(add_gid.reserved_30) } },
	{ FW_CMD(DEL_GID, sizeof(struct ordma_cmd_handle),
		 fw_cmd_del_port_gid) },
	{ FW_CMD(IW_CREATE_LISTEN, sizeof(struct ordma_cmd_iw_create_listen),
		 fw_cmd_iw_create_listen),
	  .reserved = { FW_RESERVED(iw_create_listen.reserved_20) } },
	{ FW_CMD(IW_DESTROY_LISTEN, sizeof(struct ordma_cmd_iw_conn),
		 fw_cmd_iw_destroy_listen),
	  .reserved = { FW_RESERVED(iw_conn.reserved_8) } },
	{ FW_CMD(IW_CONNECT, sizeof(struct ordma_cmd_buf), fw_cmd_iw_connect) },
	{ FW_CMD(IW_ACCEPT, sizeof(struct ordma_cmd_buf), fw_cmd_iw_accept) },
	{ FW_CMD(IW_REJECT, sizeof(struct ordma_cmd_buf), fw_cmd_iw_reject) },
	{ FW_CMD(IW_QUERY_CONN, sizeof(struct ordma_cmd_buf),
		 fw_cmd_iw_query_conn) },
	{ FW_CMD(IW_DESTROY_CONN, sizeof(struct ordma_cmd_iw_conn),
		 fw_cmd_iw_destroy_conn),
	  .reserved = { FW_RESERVED(iw_conn.reserved_8) } },
	{ FW_CMD(ALLOC_UCTX, 0, fw_cmd_alloc_uctx) },
	{ FW_CMD(DEALLOC_UCTX, sizeof(struct ordma_cmd_handle),
		 fw_cmd_dealloc_uctx) },
	{ FW_CMD(ALLOC_PD, sizeof(struct ordma_cmd_alloc_pd), fw_cmd_alloc_pd),
	  .reserved = { FW_RESERVED(alloc_pd.reserved_4) } },
	{ FW_CMD(DEALLOC_PD, sizeof(struct ordma_cmd_handle),
		 fw_cmd_dealloc_pd) },
	{ FW_CMD(CREATE_CQ, sizeof(struct ordma_cmd_create_cq),
		 fw_cmd_create_cq),
	  .reserved = { FW_RESERVED(create_cq.ring.reserved_14),
			FW_RESERVED(create_cq.reserved_33),
			FW_RESERVED(create_cq.reserved_34),
			FW_RESERVED(create_cq.reserved_36) } },
	{ FW_CMD(DESTROY_CQ, sizeof(struct ordma_cmd_handle),
		 fw_cmd_destroy_cq) },
	{ FW_CMD(REG_MR, sizeof(struct ordma_cmd_reg_mr), fw_cmd_reg_mr),
	  .reserved = { FW_RESERVED(reg_mr.pages.reserved_14),
			FW_RESERVED(reg_mr.reserved_52) } },
	{ FW_CMD(DEREG_MR, sizeof(struct ordma_cmd_handle),
		 fw_cmd_dereg_mr) },
	{ FW_CMD(ALLOC_MW, sizeof(struct ordma_cmd_alloc_mw),
		 fw_cmd_alloc_mw),
	  .reserved = { FW_RESERVED(alloc_mw.reserved_10),
			FW_RESERVED(alloc_mw.reserved_12) } },
	{ FW_CMD(DEALLOC_MW, sizeof(struct ordma_cmd_handle),
		 fw_cmd_dealloc_mw) },
	{ FW_CMD(CREATE_AH, sizeof(struct ordma_cmd_create_ah),
		 fw_cmd_create_ah),
	  .reserved = { FW_RESERVED(create_ah.av.reserved_29),
			FW_RESERVED(create_ah.reserved_40),
			FW_RESERVED(create_ah.reserved_44) } },
	{ FW_CMD(DESTROY_AH, sizeof(struct ordma_cmd_handle),
		 fw_cmd_destroy_ah) },
	{ FW_CMD(ATTACH_MCAST, sizeof(struct ordma_cmd_mcast),
		 fw_cmd_attach_mcast),
	  .reserved = { FW_RESERVED(mcast.reserved_24) } },
	{ FW_CMD(DETACH_MCAST, sizeof(struct ordma_cmd_mcast),
		 fw_cmd_detach_mcast),
	  .reserved = { FW_RESERVED(mcast.reserved_24) } },
	{ FW_CMD(CREATE_QP, sizeof(struct ordma_cmd_buf), fw_cmd_create_qp) },
	{ FW_CMD(MODIFY_QP, sizeof(struct ordma_cmd_buf), fw_cmd_modify_qp) },
	{ FW_CMD(QUERY_QP, sizeof(struct ordma_cmd_buf), fw_cmd_query_qp) },
	{ FW_CMD(QUERY_QP_STATS, sizeof(struct ordma_cmd_buf),
		 fw_cmd_query_qp_stats) },
	{ FW_CMD(QUERY_CQ, sizeof(struct ordma_cmd_buf), fw_cmd_query_cq) },
	{ FW_CMD(DESTROY_QP, sizeof(struct ordma_cmd_handle),
		 fw_cmd_destroy_qp) },
	{ FW_CMD(CREATE_SRQ, sizeof(struct ordma_cmd_create_srq),
		 fw_cmd_create_srq),
	  .reserved = { FW_RESERVED(create_srq.ring.reserved_14),
			FW_RESERVED(create_srq.reserved_26),
			FW_RESERVED(create_srq.reserved_36) } },
	{ FW_CMD(MODIFY_SRQ, sizeof(struct ordma_cmd_modify_srq),
		 fw_cmd_modify_srq),
	  .reserved = { FW_RESERVED(modify_srq.reserved_12) } },
	{ FW_CMD(DESTROY_SRQ, sizeof(struct ordma_cmd_handle),
		 fw_cmd_destroy_srq) },
};

static const struct fw_cmd_desc *fw_cmd_lookup(uint8_t opcode)
{
	size_t i;

	for (i = 0; i < sizeof(fw_cmds) / sizeof(fw_cmds[0]); i++)
		if (fw_cmds[i].opcode == opcode)
			return &fw_cmds[i];
	return NULL;
}

/* The unassigned opcodes inside the verbs command range are reserved. */
static bool fw_opcode_reserved(uint8_t opcode)
{
	return opcode >= ORDMA_CMD_CREATE_CQ && opcode <= ORDMA_CMD_QUERY_CQ;
}

/* ------------------------------------------------------------------ */
/* Device-wide commands                                                */
/* ------------------------------------------------------------------ */

static uint8_t fw_cmd_query_fw(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_comp_query_fw *out = &c->out->query_fw;

	const struct ordma_fw_image *self = fw_entry_table();

	(void)fw;
	out->major = cpu_to_le16(self->fw_major);
	out->minor = cpu_to_le16(self->fw_minor);
	out->sub_minor = cpu_to_le16(self->fw_sub_minor);
	out->build = cpu_to_le32(self->fw_build);
	out->hw_version = cpu_to_le32(FW_HW_VERSION);
	return ORDMA_CMD_STATUS_OK;
}

static void fw_fill_device_caps(const struct ordma_fw *fw,
				struct ordma_device_caps *caps)
{
	static const char board_id[] = ORDMA_FW_BOARD_ID;

	memset(caps, 0, sizeof(*caps));
	ordma_fw_mac_to_eui64(fw->cfg.mac, (uint8_t *)&caps->node_guid);
	caps->sys_image_guid = caps->node_guid;
	caps->max_mr_size = cpu_to_le64(FW_CAP_MAX_MR_SIZE);
	caps->page_size_cap = cpu_to_le64(FW_CAP_PAGE_SIZE_CAP);
	caps->vendor_id = cpu_to_le32(ORDMA_PCI_VENDOR_ID);
	caps->vendor_part_id = cpu_to_le32(ORDMA_PCI_DEVICE_ID);
	caps->hw_rev = cpu_to_le32(ORDMA_PCI_REVISION);
	caps->cap_flags = cpu_to_le32(ORDMA_DEV_CAP_RC | ORDMA_DEV_CAP_UD |
				      ORDMA_DEV_CAP_UC |
				      ORDMA_DEV_CAP_SRQ | ORDMA_DEV_CAP_ATOMIC |
				      ORDMA_DEV_CAP_FAST_REG |
				      ORDMA_DEV_CAP_VERBS | ORDMA_DEV_CAP_MW |
				      ORDMA_DEV_CAP_FLUSH |
				      ORDMA_DEV_CAP_ATOMIC_WRITE);
	caps->cap_flags |= cpu_to_le32(ORDMA_DEV_CAP_GSI | ORDMA_DEV_CAP_MCAST |
				       ORDMA_DEV_CAP_FAULT_INJECT);
	if (fw_has_flash(fw))
		caps->cap_flags |= cpu_to_le32(ORDMA_DEV_CAP_FLASH);
	if (fw_port_is_ib(fw))
		caps->cap_flags |= cpu_to_le32(ORDMA_DEV_CAP_SMI);
	else
		caps->cap_flags |= cpu_to_le32(ORDMA_DEV_CAP_IWARP);
	/* what the port's protocol offers: iWARP has RC only, no atomics */
	if (fw_port_is_iwarp(fw))
		caps->cap_flags &= ~cpu_to_le32(FW_CAP_NOT_IWARP);
	caps->rdma_protocol = fw->port.rdma_proto;
	caps->max_mcast_grp = cpu_to_le32(FW_CAP_MAX_MCAST_GRP);
	caps->max_mcast_qp_attach = cpu_to_le32(FW_CAP_MAX_MCAST_QP_ATTACH);
	caps->max_total_mcast_qp_attach =
		cpu_to_le32(FW_CAP_MAX_TOTAL_MCAST_QP_ATTACH);
	caps->max_qp = cpu_to_le32(FW_CAP_MAX_QP);
	caps->max_qp_wr = cpu_to_le32(FW_CAP_MAX_QP_WR);
	caps->max_send_sge = cpu_to_le32(FW_CAP_MAX_SEND_SGE);
	caps->max_recv_sge = cpu_to_le32(FW_CAP_MAX_RECV_SGE);
	caps->max_sge_rd = cpu_to_le32(FW_CAP_MAX_SGE_RD);
	caps->max_cq = cpu_to_le32(FW_CAP_MAX_CQ);
	caps->max_cqe = cpu_to_le32(FW_CAP_MAX_CQE);
	caps->max_mr = cpu_to_le32(FW_CAP_MAX_MR);
	caps->max_mw = cpu_to_le32(FW_CAP_MAX_MW);
	caps->max_pd = cpu_to_le32(FW_CAP_MAX_PD);
	caps->max_srq = cpu_to_le32(FW_CAP_MAX_SRQ);
	caps->max_srq_wr = cpu_to_le32(FW_CAP_MAX_SRQ_WR);
	caps->max_srq_sge = cpu_to_le32(FW_CAP_MAX_SRQ_SGE);
	caps->max_ah = cpu_to_le32(FW_CAP_MAX_AH);
	caps->max_qp_rd_atom = cpu_to_le32(FW_CAP_MAX_QP_RD_ATOM);
	caps->max_qp_init_rd_atom = cpu_to_le32(FW_CAP_MAX_QP_INIT_RD_ATOM);
	caps->max_inline_data = cpu_to_le32(FW_CAP_MAX_INLINE_DATA);
	caps->max_eq = cpu_to_le32(FW_CAP_MAX_EQ);
	caps->max_uctx = cpu_to_le32(fw->cfg.num_db_pages - 1);
	caps->max_msg_size = cpu_to_le32(FW_CAP_MAX_MSG_SIZE);
	caps->max_eth_mtu = cpu_to_le32(FW_CAP_MAX_ETH_MTU);
	caps->num_ports = cpu_to_le32(FW_CAP_NUM_PORTS);
	caps->gid_table_len = cpu_to_le32(FW_CAP_GID_TABLE_LEN);
	caps->pkey_table_len = cpu_to_le32(FW_CAP_PKEY_TABLE_LEN);
	caps->local_ca_ack_delay = cpu_to_le32(FW_CAP_LOCAL_CA_ACK_DELAY);
	caps->max_eth_rings = cpu_to_le32(FW_CAP_MAX_ETH_RINGS);
	memcpy(caps->serial, fw->cfg.serial, sizeof(caps->serial));
	memcpy(caps->board_id, board_id, sizeof(board_id));
}

static uint8_t fw_cmd_query_device(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_device_caps caps;

	fw_fill_device_caps(fw, &caps);
	return fw_cmd_write_query_buf(fw, c, 0, &caps, sizeof(caps));
}

static uint8_t fw_cmd_health(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_comp_health *out = &c->out->health;
	const struct fw_health *h = &fw->health;
	uint32_t state = ORDMA_HEALTH_OK;

	fw_heartbeat_catch_up(fw);
	if (fw->regs.status & ORDMA_STATUS_FATAL)
		state = ORDMA_HEALTH_FATAL;
	else if (h->cmd_errors || h->db_errors || h->eq_overruns)
		state = ORDMA_HEALTH_DEGRADED;
	out->state = cpu_to_le32(state);
	out->heartbeat = cpu_to_le32(fw->regs.heartbeat);
	out->cmd_errors = cpu_to_le32(h->cmd_errors);
	out->db_errors = cpu_to_le32(h->db_errors);
	out->eq_overruns = cpu_to_le32(h->eq_overruns);
	return ORDMA_CMD_STATUS_OK;
}

static void fw_res_count(struct ordma_res_count *out, uint32_t in_use,
			 uint32_t max)
{
	out->in_use = cpu_to_le32(in_use);
	out->max = cpu_to_le32(max);
}

/* Counted from the object tables themselves, so the answer is what the
 * device holds, whatever the driver believes it created.
 */
static uint8_t fw_cmd_query_resources(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_resources res;

	fw_res_count(&res.uctx, fw_uctx_in_use(fw), fw->cfg.num_db_pages - 1);
	fw_res_count(&res.pd, fw_pd_in_use(fw), FW_MAX_PD);
	fw_res_count(&res.eq, fw_eq_in_use(fw), FW_MAX_EQ);
	fw_res_count(&res.eth_ring, fw_eth_rings_in_use(fw), FW_MAX_ETH_RINGS);
	fw_res_count(&res.gid, fw_gid_in_use(fw), FW_GID_TABLE_LEN);
	fw_res_count(&res.cq, fw_cq_in_use(fw), FW_MAX_CQ);
	/* QPN 0 is never used: QP1 and FW_FIRST_QPN.. */
	fw_res_count(&res.qp, fw_qp_in_use(fw), FW_MAX_QP - FW_FIRST_QPN + 1);
	fw_res_count(&res.srq, fw_srq_in_use(fw), FW_MAX_SRQ);
	fw_res_count(&res.mr, fw_mr_in_use(fw), FW_MAX_MR);
	fw_res_count(&res.mw, fw_mw_in_use(fw), FW_MAX_MW);
	fw_res_count(&res.ah, fw_ah_in_use(fw), FW_MAX_AH);
	fw_res_count(&res.mcast_grp, fw_mcast_groups_in_use(fw),
		     FW_MAX_MCAST_GRP);
	fw_res_count(&res.mcast_attach, fw_mcast_attach_in_use(fw),
		     FW_MAX_TOTAL_MCAST_QP_ATTACH);
	return fw_cmd_write_query_buf(fw, c, 0, &res, sizeof(res));
}

/* ------------------------------------------------------------------ */
/* Validation and dispatch                                             */
/* ------------------------------------------------------------------ */

/* Checks that need no knowledge of the opcode's semantics: header and
 * payload reserved fields, and the unused tail of the 56-byte payload.
 */
static uint8_t fw_cmd_check_layout(const struct fw_cmd_desc *desc,
				   struct fw_cmd *c)
{
	const uint8_t *raw = (const uint8_t *)c->in;
	size_t i;

	for (i = 0; i < FW_MAX_RESERVED_FIELDS && desc->reserved[i].size; i++) {
		const struct fw_reserved_field *r = &desc->reserved[i];

		if (!fw_bytes_zero(raw + r->offset, r->size))
			return fw_cmd_bad_param(c, r->offset,
						"reserved field not zero");
	}
	for (i = sizeof(c->in->hdr) + desc->payload_size;
	     i < ORDMA_AQ_CMD_SIZE; i++)
		if (raw[i])
			return fw_cmd_bad_param(c, i,
						"bytes beyond the payload not zero");
	return ORDMA_CMD_STATUS_OK;
}

static uint8_t fw_cmd_execute(struct ordma_fw *fw, struct fw_cmd *c,
			      const struct fw_cmd_desc **descp)
{
	const struct ordma_aq_cmd_hdr *hdr = &c->in->hdr;
	const struct fw_cmd_desc *desc;
	uint8_t status;

	if (hdr->reserved_1)
		return fw_cmd_bad_param(c, FW_CMD_OFF(hdr.reserved_1),
					"header reserved field not zero");
	if (hdr->reserved_4)
		return fw_cmd_bad_param(c, FW_CMD_OFF(hdr.reserved_4),
					"header reserved field not zero");
	desc = fw_cmd_lookup(hdr->opcode);
	*descp = desc;
	if (!desc)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_OPCODE,
				   fw_opcode_reserved(hdr->opcode) ?
				   "reserved for a later interface revision" :
				   "unknown");
	status = fw_cmd_check_layout(desc, c);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	return desc->handler(fw, c);
}

static void fw_cmd_log_failure(struct ordma_fw *fw,
			       const struct fw_cmd_desc *desc,
			       const struct fw_cmd *c)
{
	const struct ordma_aq_comp *out = c->out;
	uint8_t status = out->status;

	if (status == ORDMA_CMD_STATUS_BAD_OPCODE) {
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "admin: opcode 0x%02x %s", c->in->hdr.opcode,
		       c->error ? c->error : "rejected");
		return;
	}
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
	       "admin: %s (0x%02x) token 0x%04x failed: %s (syndrome %u): %s",
	       desc ? desc->name : "command", c->in->hdr.opcode,
	       le16_to_cpu(out->token), ordma_cmd_status_name(status),
	       le32_to_cpu(out->syndrome), c->error ? c->error : "?");
}

/* Completion bytes up to the flags dword go first so that the driver
 * never sees the new phase with a stale body.
 */
static int fw_write_completion(struct ordma_fw *fw, uint64_t addr,
			       struct ordma_aq_comp *comp, bool phase)
{
	size_t body = offsetof(struct ordma_aq_comp, flags);

	comp->flags = cpu_to_le32(phase ? ORDMA_COMP_PHASE : 0);
	if (fw_dma_write(fw, addr, comp, body))
		return -1;
	return fw_dma_write(fw, addr + body, &comp->flags, sizeof(comp->flags));
}

static bool fw_admin_complete(struct ordma_fw *fw, uint32_t slot, bool phase,
			      uint8_t opcode, struct ordma_aq_comp *comp);

/* Returns false when the queue must stop (the device went fatal, or a
 * completion is held back).
 */
static bool fw_admin_process_one(struct ordma_fw *fw)
{
	uint32_t slot = fw->aq.ci & ((1u << fw->aq.log_depth) - 1);
	/* ACQ phase starts at 1 and toggles each time the producer wraps */
	bool phase = !((fw->aq.ci >> fw->aq.log_depth) & 1);
	const struct fw_cmd_desc *desc = NULL;
	struct ordma_aq_cmd cmd;
	struct ordma_aq_comp comp;
	struct fw_cmd c = { &cmd, &comp, NULL };

	if (fw_dma_read(fw, fw->aq.cmd_base + (uint64_t)slot * ORDMA_AQ_CMD_SIZE,
			&cmd, sizeof(cmd))) {
		fw_fatal(fw, ORDMA_FATAL_AQ_DMA, "admin command fetch failed");
		return false;
	}
	memset(&comp, 0, sizeof(comp));
	comp.token = cmd.hdr.token;
	comp.status = fw_cmd_execute(fw, &c, &desc);
	if (comp.status != ORDMA_CMD_STATUS_OK) {
		fw->health.cmd_errors = fw_count_inc(fw->health.cmd_errors);
		fw_cmd_log_failure(fw, desc, &c);
	}
	if (fw_fault_take(fw, ORDMA_FAULT_ADMIN_DROP)) {
		/* lost: the driver's wait for this slot times out */
		fw->faults.staged = false;
		fw->aq.ci++;
		return true;
	}
	if (fw_fault_take(fw, ORDMA_FAULT_ADMIN_DELAY)) {
		/* held back; the queue waits behind it (fw_admin_timer()) */
		fw->aq.delayed = true;
		fw->aq.delayed_phase = phase;
		fw->aq.delayed_slot = slot;
		fw->aq.delayed_opcode = cmd.hdr.opcode;
		fw->aq.delayed_comp = comp;
		fw->aq.delayed_due_ns = fw_now(fw) +
			(uint64_t)fw->faults.admin_delay_ms * 1000000;
		fw->aq.ci++;
		/* an earlier deadline armed stays: its callback re-arms */
		if (fw->aq.delayed_due_ns < fw->timer_armed_ns)
			fw_timer_arm_at(fw, fw->aq.delayed_due_ns);
		return false;
	}
	fw->aq.ci++;
	return fw_admin_complete(fw, slot, phase, cmd.hdr.opcode, &comp);
}

/* Writes the completion of the command in slot (the consumer index is
 * past it already); false if the queue must stop.
 */
static bool fw_admin_complete(struct ordma_fw *fw, uint32_t slot, bool phase,
			      uint8_t opcode, struct ordma_aq_comp *comp)
{
	if (fw_write_completion(fw, fw->aq.comp_base +
				(uint64_t)slot * ORDMA_AQ_COMP_SIZE,
				comp, phase)) {
		fw_fatal(fw, ORDMA_FATAL_ACQ_DMA, "admin completion write failed");
		return false;
	}
	fw_event_log(fw, ORDMA_EVENT_ADMIN, opcode, comp->status,
		     le16_to_cpu(comp->token), le32_to_cpu(comp->syndrome));
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_ADMIN, .qpn = ORDMA_FW_TRACE_NO_QPN,
		 .index = (uint16_t)(fw->aq.ci - 1),
		 .aux = le16_to_cpu(comp->token), .opcode = opcode,
		 .status = comp->status);
	fw_raise_vector(fw, ORDMA_ADMIN_VECTOR);
	fw_fault_commit(fw);
	return fw_ready(fw);
}

/* Runs the commands the driver posted, up to its last doorbell */
static void fw_admin_run(struct ordma_fw *fw)
{
	while (fw->aq.ci != fw->aq.pi && fw_ready(fw) && !fw->aq.delayed)
		if (!fw_admin_process_one(fw))
			break;
}

uint64_t fw_admin_timer(struct ordma_fw *fw)
{
	struct fw_aq *aq = &fw->aq;

	if (!aq->delayed)
		return UINT64_MAX;
	if (fw_now(fw) < aq->delayed_due_ns)
		return aq->delayed_due_ns;
	aq->delayed = false;
	if (fw_admin_complete(fw, aq->delayed_slot, aq->delayed_phase,
			      aq->delayed_opcode, &aq->delayed_comp))
		fw_admin_run(fw);
	return aq->delayed ? aq->delayed_due_ns : UINT64_MAX;
}

void fw_admin_doorbell(struct ordma_fw *fw, uint32_t val)
{
	uint16_t pi = FIELD_GET(ORDMA_AQ_DB_PI, val);
	uint16_t pending = (uint16_t)(pi - fw->aq.ci);

	if (!fw_ready(fw)) {
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "admin: doorbell ignored, device not ready");
		return;
	}
	if (val & ~(uint32_t)ORDMA_AQ_DB_PI || pending > (1u << fw->aq.log_depth)) {
		fw->health.db_errors = fw_count_inc(fw->health.db_errors);
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "admin: doorbell 0x%08x rejected (consumer %u, depth %u)",
		       val, fw->aq.ci, 1u << fw->aq.log_depth);
		return;
	}
	fw->aq.pi = pi;
	fw_admin_run(fw);
}

void fw_admin_reset(struct ordma_fw *fw)
{
	memset(&fw->aq, 0, sizeof(fw->aq));
}
