// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware event queues: CREATE/DESTROY_EQ, posting EQEs with the
 * phase bit, one-shot interrupt arming, overrun accounting and the async
 * events (PORT_CHANGE, rate-limited DB_ERROR).  Completion events wait
 * rather than drop (fw_cq.c): a CQ has at most one COMP entry in its EQ
 * until the driver reports it consumed through the EQ doorbell.
 */
#include <string.h>

#include "fw_priv.h"
#include "device/fw_device.h"
#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"

#define FW_EQ_RING_ALIGN	4096u

const char *fw_eq_doorbell(struct ordma_fw *fw, uint32_t eqn, uint32_t ci,
			   bool arm)
{
	struct fw_eq *eq = fw_eq_lookup(fw, eqn);

	if (!eq)
		return "no such EQ";
	if (eq->pi - ci > fw_eq_size(eq))
		return "EQ consumer index outside the ring";
	eq->ci = ci;
	/* consumed events may let waiting ones in, before the arm looks */
	if (eq->waiting_cqs)
		fw_cq_eq_consumed(fw, eqn);
	if (!arm)
		return NULL;
	if (eq->pi != eq->ci) {
		/* entries are already waiting: interrupt now, stay disarmed */
		eq->armed = false;
		fw_raise_vector(fw, eq->vector);
	} else {
		eq->armed = true;
	}
	return NULL;
}

uint8_t fw_cmd_create_eq(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_create_eq *p = &c->in->create_eq;
	uint64_t ring_addr = le64_to_cpu(p->ring_addr);
	unsigned int vector = le16_to_cpu(p->vector);
	uint32_t eqn, unused;
	struct fw_eq *eq;

	if (!ring_addr || ring_addr % FW_EQ_RING_ALIGN)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_eq.ring_addr),
					"ring address zero or not 4 KiB aligned");
	if (p->log_size < ORDMA_EQ_MIN_LOG_SIZE ||
	    p->log_size > ORDMA_EQ_MAX_LOG_SIZE)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_eq.log_size),
					"log_size not in 4..12");
	if (fw_range_wraps(ring_addr, (uint64_t)ORDMA_EQE_SIZE << p->log_size))
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_eq.ring_addr),
					"ring wraps the address space");
	if (p->type != ORDMA_EQ_TYPE_ASYNC && p->type != ORDMA_EQ_TYPE_COMP)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_eq.type),
					"unknown EQ type");
	if (vector >= fw->cfg.num_vectors)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_eq.vector),
					"vector beyond the MSI-X table");
	if (p->type == ORDMA_EQ_TYPE_ASYNC && vector != ORDMA_ADMIN_VECTOR)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_eq.vector),
					"async EQ must use vector 0");
	if (p->type == ORDMA_EQ_TYPE_ASYNC && fw_async_eq(fw, &unused))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "an async EQ already exists");
	for (eqn = 0; eqn < FW_MAX_EQ && fw->eqs[eqn].valid; eqn++)
		;
	if (eqn == FW_MAX_EQ)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "all EQs in use");

	eq = &fw->eqs[eqn];
	memset(eq, 0, sizeof(*eq));
	eq->valid = true;
	eq->type = p->type;
	eq->log_size = p->log_size;
	eq->vector = (uint16_t)vector;
	eq->ring_addr = ring_addr;
	c->out->handle.handle = cpu_to_le32(eqn);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_destroy_eq(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t eqn = le32_to_cpu(c->in->handle.handle);

	if (c->in->handle.uctx)
		return fw_cmd_bad_param(c, FW_CMD_OFF(handle.uctx),
					"uctx must be 0");
	if (!fw_eq_lookup(fw, eqn))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such EQ");
	if (fw_eq_used_by_eth_ring(fw, eqn))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "EQ still used by an Ethernet ring");
	if (fw_eq_used_by_cq(fw, eqn))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "EQ still used by a CQ");
	memset(&fw->eqs[eqn], 0, sizeof(fw->eqs[eqn]));
	return ORDMA_CMD_STATUS_OK;
}

void fw_eq_reset(struct ordma_fw *fw)
{
	memset(fw->eqs, 0, sizeof(fw->eqs));
}

/* QUERY_RESOURCES */
uint32_t fw_eq_in_use(const struct ordma_fw *fw)
{
	uint32_t eqn, n = 0;

	for (eqn = 0; eqn < FW_MAX_EQ; eqn++)
		n += fw->eqs[eqn].valid;
	return n;
}
