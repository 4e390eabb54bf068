// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware platform: event posting.  EQEs written with the phase
 * bit and the one-shot interrupt, the async events (with the rate-limited
 * DB_ERROR) and whether the device is ready to write them at all.  The
 * EQs themselves are created, destroyed and rung in device/fw_eq.c.
 */
#include "platform/fw_platform.h"

/* Enabled and not fatal: the only state in which the device works. */
bool fw_ready(const struct ordma_fw *fw)
{
	return (fw->regs.status & (ORDMA_STATUS_READY | ORDMA_STATUS_FATAL)) ==
	       ORDMA_STATUS_READY;
}

static int fw_eq_write_entry(struct ordma_fw *fw, struct fw_eq *eq,
			     uint8_t type, uint32_t d0, uint32_t d1,
			     uint32_t d2)
{
	uint64_t addr = eq->ring_addr +
			(uint64_t)(eq->pi & (fw_eq_size(eq) - 1)) * ORDMA_EQE_SIZE;
	/* phase starts at 1 and toggles on every wrap of the producer */
	bool phase = !((eq->pi >> eq->log_size) & 1);
	struct ordma_eqe eqe;

	eqe.data[0] = cpu_to_le32(d0);
	eqe.data[1] = cpu_to_le32(d1);
	eqe.data[2] = cpu_to_le32(d2);
	eqe.type = cpu_to_le32(FIELD_PREP(ORDMA_EQE_TYPE, type) |
			       (phase ? ORDMA_EQE_PHASE : 0));
	/* type (with the phase) last: it tells the driver the entry is whole */
	if (fw_dma_write(fw, addr, eqe.data, sizeof(eqe.data)))
		return -1;
	return fw_dma_write(fw, addr + sizeof(eqe.data), &eqe.type,
			    sizeof(eqe.type));
}

enum fw_eq_post_result fw_eq_try_post(struct ordma_fw *fw, uint32_t eqn,
				      uint8_t type, uint32_t d0, uint32_t d1,
				      uint32_t d2, uint32_t *pos)
{
	struct fw_eq *eq = fw_eq_lookup(fw, eqn);
	enum fw_eq_post_result res = FW_EQ_POSTED;

	/* never overwrite an entry the driver has not consumed */
	if (!eq)
		res = FW_EQ_LOST;
	else if (eq->pi - eq->ci >= fw_eq_size(eq))
		res = FW_EQ_FULL;
	else if (fw_eq_write_entry(fw, eq, type, d0, d1, d2))
		res = FW_EQ_UNWRITABLE;
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_EQE, .qpn = d0, .aux = eqn,
		 .index = eq ? eq->pi : 0, .opcode = type, .status = res);
	if (res == FW_EQ_UNWRITABLE) {
		fw->health.eq_overruns = fw_count_inc(fw->health.eq_overruns);
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "eq: EQ %u ring not writable, event 0x%02x not posted",
		       eqn, type);
	}
	if (res != FW_EQ_POSTED)
		return res;
	*pos = eq->pi++;
	if (eq->armed) {
		eq->armed = false;
		fw_raise_vector(fw, eq->vector);
	}
	return FW_EQ_POSTED;
}

bool fw_eq_post(struct ordma_fw *fw, uint32_t eqn, uint8_t type,
		uint32_t d0, uint32_t d1, uint32_t d2)
{
	uint32_t pos;

	switch (fw_eq_try_post(fw, eqn, type, d0, d1, d2, &pos)) {
	case FW_EQ_POSTED:
		return true;
	case FW_EQ_FULL:
		fw->health.eq_overruns = fw_count_inc(fw->health.eq_overruns);
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "eq: EQ %u full, event 0x%02x dropped", eqn, type);
		return false;
	default:
		return false;
	}
}

bool fw_eq_unconsumed(const struct ordma_fw *fw, uint32_t eqn, uint32_t pos)
{
	const struct fw_eq *eq;

	if (eqn >= FW_MAX_EQ || !fw->eqs[eqn].valid)
		return false;
	eq = &fw->eqs[eqn];
	/* the unconsumed entries are [ci, pi), free running */
	return pos - eq->ci < eq->pi - eq->ci;
}

struct fw_eq *fw_async_eq(struct ordma_fw *fw, uint32_t *eqn)
{
	uint32_t i;

	for (i = 0; i < FW_MAX_EQ; i++) {
		if (fw->eqs[i].valid && fw->eqs[i].type == ORDMA_EQ_TYPE_ASYNC) {
			*eqn = i;
			return &fw->eqs[i];
		}
	}
	return NULL;
}

bool fw_async_event(struct ordma_fw *fw, uint8_t type,
		    uint32_t d0, uint32_t d1, uint32_t d2)
{
	uint32_t eqn;

	/* a stopped device writes nothing to host memory */
	if (!fw_ready(fw))
		return false;
	if (!fw_async_eq(fw, &eqn)) {
		fw->health.eq_overruns = fw_count_inc(fw->health.eq_overruns);
		fw_log(fw, ORDMA_FW_LOG_TRACE,
		       "eq: no async EQ, event 0x%02x dropped", type);
		return false;
	}
	return fw_eq_post(fw, eqn, type, d0, d1, d2);
}

/* Every rejected doorbell is counted; a flood of them yields at most one
 * event per 10 ms so that it cannot drown the async EQ.
 */
void fw_db_error(struct ordma_fw *fw, uint32_t page, uint32_t reg,
		 uint32_t qn, const char *why)
{
	uint64_t now = fw_now(fw);

	fw->health.db_errors = fw_count_inc(fw->health.db_errors);
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
	       "doorbell: page %u offset 0x%03x QN %u rejected: %s",
	       page, reg, qn, why);
	if (fw->db_error_event_sent &&
	    now - fw->last_db_error_event_ns < FW_DB_ERROR_EVENT_GAP_NS)
		return;
	fw->db_error_event_sent = true;
	fw->last_db_error_event_ns = now;
	fw_async_event(fw, ORDMA_EQE_DB_ERROR, page, reg, qn);
}
