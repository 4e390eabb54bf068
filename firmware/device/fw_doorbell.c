// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware doorbell pages (BAR2): decode a doorbell write, check
 * that the page may ring that doorbell, and route it to the queue it
 * names.  Every rejection is a counted DB error with an async event.
 */
#include "fw_priv.h"
#include "device/fw_device.h"
#include "objects/fw_verbs.h"
#include "objects/fw_qp.h"
#include "platform/fw_platform.h"

#define FW_DB_WRITE_SIZE	8
/* bits 29..24 have no meaning yet and must stay zero */
#define FW_DB_RESERVED		GENMASK_ULL(29, 24)

static const char *fw_db_route(struct ordma_fw *fw, uint32_t page,
			       uint32_t reg, uint64_t val)
{
	uint32_t qn = FIELD_GET(ORDMA_DB_QN, val);
	uint32_t idx = FIELD_GET(ORDMA_DB_IDX, val);
	bool arm = val & ORDMA_DB_ARM;

	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_DOORBELL, .qpn = qn, .index = idx,
		 .aux = page, .opcode = (uint8_t)(reg >> 3));

	switch (reg) {
	case ORDMA_DB_SQ:
	case ORDMA_DB_RQ:
	case ORDMA_DB_SRQ:
		/* any page; the queue must belong to the page's context */
		if (val & FW_DB_RESERVED)
			return "reserved bits set";
		if (val & (ORDMA_DB_SOLICITED | ORDMA_DB_ARM))
			return "SOLICITED and ARM are not defined for work queue doorbells";
		if (reg == ORDMA_DB_SRQ)
			return fw_srq_doorbell(fw, page, qn, idx);
		return fw_qp_doorbell(fw, page, reg, qn, idx);
	case ORDMA_DB_CQ:
		/* any page; the CQ must belong to the page's context */
		if (val & FW_DB_RESERVED)
			return "reserved bits set";
		return fw_cq_doorbell(fw, page, qn, idx, arm,
				      val & ORDMA_DB_SOLICITED);
	case ORDMA_DB_EQ:
	case ORDMA_DB_ETH_PI:
	case ORDMA_DB_ETH_ARM:
		break;
	default:
		return "unknown doorbell offset";
	}

	if (page != ORDMA_KERNEL_UCTX)
		return "kernel-only doorbell on a user page";
	if (val & FW_DB_RESERVED)
		return "reserved bits set";
	if (val & ORDMA_DB_SOLICITED)
		return "SOLICITED is only defined for CQ doorbells";

	switch (reg) {
	case ORDMA_DB_EQ:
		return fw_eq_doorbell(fw, qn, idx, arm);
	case ORDMA_DB_ETH_PI:
		if (arm)
			return "ARM is not defined for ETH_PI";
		return fw_eth_pi_doorbell(fw, qn, idx);
	default:
		return fw_eth_arm_doorbell(fw, qn, idx, arm);
	}
}

void ordma_fw_db_write(struct ordma_fw *fw, uint64_t off, uint64_t val,
		       unsigned int size)
{
	uint32_t page = (uint32_t)(off >> ORDMA_DB_PAGE_SHIFT);
	uint32_t reg = (uint32_t)(off & (ORDMA_DB_PAGE_SIZE - 1));
	const char *err;

	fw_trace_set_qp(fw, ORDMA_FW_TRACE_NO_QPN);
	if (!fw_ready(fw)) {
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "doorbell: write at 0x%llx ignored, device not ready",
		       (unsigned long long)off);
		return;
	}
	if (size != FW_DB_WRITE_SIZE)
		err = "only 64-bit writes are accepted";
	else if (off >> ORDMA_DB_PAGE_SHIFT >= fw->cfg.num_db_pages)
		err = "page beyond the doorbell BAR";
	else
		err = fw_db_route(fw, page, reg, val);
	if (err)
		fw_db_error(fw, page, reg, FIELD_GET(ORDMA_DB_QN, val), err);
}
