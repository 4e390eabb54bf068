// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware completion queues: CREATE_CQ/DESTROY_CQ, writing CQEs
 * with the phase bit, overrun detection through the consumer's doorbell
 * record, one-shot (optionally solicited-only) arming with COMP events,
 * and the CQ doorbell.
 *
 * An arm whose consumer index is behind the producer fires at once only
 * for CQEs no COMP has announced: those written while the CQ was
 * disarmed (or armed for solicited completions only) after its last
 * event.  That closes the race of a CQE written between the consumer's
 * last poll and its arm, and still lets a consumer re-arm before it
 * polls the CQE an event just announced without being told of it twice.
 *
 * Completion EQs are shared by every context.  So that no CQ can crowd
 * out another's events (a process re-arming in a loop while completions
 * are waiting), a CQ has at most one COMP entry unconsumed in its EQ: a
 * later event of the CQ waits, coalesced into one, until the driver's EQ
 * doorbell reports that entry consumed, and is posted then.  An EQ
 * carries at most as many CQs as it has entries, so there is always room
 * for the one event of each, and no completion event is ever dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"

struct fw_cq {
	bool valid;
	bool armed;		/* one-shot: next qualifying CQE posts COMP */
	bool arm_solicited;	/* armed for solicited/error CQEs only */
	bool error;		/* overrun or ring write failure: no more CQEs */
	bool error_reported;	/* its CQ_ERR event was written */
	bool unannounced;	/* a CQE was written since the last COMP */
	uint8_t log_size;
	uint32_t uctx;
	uint32_t eqn;
	uint32_t refs;		/* QPs/SRQs using the CQ */
	struct fw_page_list ring;
	uint64_t db_record;	/* host __le32 consumer index */
	uint32_t pi;		/* device producer, free running */
	uint32_t ci;		/* consumer as last reported or read */
	bool event_in_eq;	/* COMP EQE at event_pos maybe unconsumed */
	bool event_waiting;	/* a COMP event waits to be posted */
	uint32_t event_pos;	/* EQ producer index of the last COMP EQE */
};

static uint32_t fw_cq_size(const struct fw_cq *cq)
{
	return 1u << cq->log_size;
}

/* cqn 0 is never used, like pdn 0. */
static struct fw_cq *fw_cq_lookup(struct ordma_fw *fw, uint32_t cqn)
{
	if (!fw->cqs || cqn == 0 || cqn > FW_MAX_CQ || !fw->cqs[cqn].valid)
		return NULL;
	return &fw->cqs[cqn];
}

static void fw_cq_set_error(struct ordma_fw *fw, uint32_t cqn,
			    struct fw_cq *cq, const char *why)
{
	cq->error = true;
	cq->armed = false;
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR, "cq: CQ %u error: %s", cqn, why);
	cq->error_reported = fw_async_event(fw, ORDMA_EQE_CQ_ERR, cqn, 0, 0);
}

/* The ring looks full: the consumer may have moved without ringing. */
static bool fw_cq_has_room(struct ordma_fw *fw, struct fw_cq *cq)
{
	uint32_t raw, ci;

	if (cq->pi - cq->ci < fw_cq_size(cq))
		return true;
	if (fw_dma_read(fw, cq->db_record, &raw, sizeof(raw)))
		return false;
	ci = le32_to_cpu(raw);
	/* a record outside the ring is ignored, not believed */
	if (cq->pi - ci <= fw_cq_size(cq))
		cq->ci = ci;
	return cq->pi - cq->ci < fw_cq_size(cq);
}

static void fw_cq_set_waiting(struct ordma_fw *fw, struct fw_cq *cq,
			      bool waiting)
{
	if (cq->event_waiting == waiting)
		return;
	cq->event_waiting = waiting;
	if (waiting)
		fw->eqs[cq->eqn].waiting_cqs++;
	else
		fw->eqs[cq->eqn].waiting_cqs--;
}

/* Posts the CQ's waiting COMP event if its previous one was consumed. */
static void fw_cq_post_event(struct ordma_fw *fw, uint32_t cqn,
			     struct fw_cq *cq)
{
	uint32_t pos;

	if (cq->event_in_eq && fw_eq_unconsumed(fw, cq->eqn, cq->event_pos))
		return;
	cq->event_in_eq = false;
	switch (fw_eq_try_post(fw, cq->eqn, ORDMA_EQE_COMP, cqn, 0, 0, &pos)) {
	case FW_EQ_POSTED:
		cq->event_in_eq = true;
		cq->event_pos = pos;
		fw_cq_set_waiting(fw, cq, false);
		break;
	case FW_EQ_FULL:
		/* posted when the driver frees an entry */
		break;
	case FW_EQ_UNWRITABLE:
		/*
		 * Bus Master Enable clear, say: a dropped event would leave the
		 * CQ disarmed and its consumer asleep for ever, so it waits
		 * for the next EQ doorbell or fw_cq_retry_events().
		 */
		break;
	default:
		/* counted by the EQ */
		fw_cq_set_waiting(fw, cq, false);
		break;
	}
}

static void fw_cq_notify(struct ordma_fw *fw, uint32_t cqn, struct fw_cq *cq)
{
	cq->armed = false;
	cq->unannounced = false;
	fw_cq_set_waiting(fw, cq, true);
	fw_cq_post_event(fw, cqn, cq);
}

void fw_cq_eq_consumed(struct ordma_fw *fw, uint32_t eqn)
{
	uint32_t cqn;

	for (cqn = 1; cqn <= FW_MAX_CQ && fw->eqs[eqn].waiting_cqs; cqn++) {
		struct fw_cq *cq = &fw->cqs[cqn];

		if (cq->valid && cq->eqn == eqn && cq->event_waiting)
			fw_cq_post_event(fw, cqn, cq);
	}
}

void fw_cq_retry_events(struct ordma_fw *fw)
{
	uint32_t cqn;

	for (cqn = 1; fw->cqs && cqn <= FW_MAX_CQ; cqn++) {
		struct fw_cq *cq = &fw->cqs[cqn];

		if (!cq->valid)
			continue;
		if (cq->error && !cq->error_reported)
			cq->error_reported = fw_async_event(fw, ORDMA_EQE_CQ_ERR,
							    cqn, 0, 0);
		if (cq->event_waiting)
			fw_cq_post_event(fw, cqn, cq);
	}
}

/* CQs on EQ eqn and Ethernet rings posting to it: each may have one
 * event in the EQ.
 */
static uint32_t fw_eq_event_sources(const struct ordma_fw *fw, uint32_t eqn)
{
	uint32_t i, n = 0;

	for (i = 1; i <= FW_MAX_CQ; i++)
		if (fw->cqs[i].valid && fw->cqs[i].eqn == eqn)
			n++;
	for (i = 0; i < FW_MAX_ETH_RINGS; i++)
		if (fw->eth_rings[i].valid && fw->eth_rings[i].eqn == eqn)
			n++;
	return n;
}

int fw_cq_post(struct ordma_fw *fw, uint32_t cqn, const struct ordma_cqe *cqe,
	       bool solicited)
{
	struct fw_cq *cq = fw_cq_lookup(fw, cqn);
	size_t body = offsetof(struct ordma_cqe, owner);
	struct ordma_cqe entry;
	uint64_t dma, contig;
	bool phase;

	if (!cq || cq->error)
		return -1;
	if (!fw_cq_has_room(fw, cq)) {
		fw_cq_set_error(fw, cqn, cq, "overrun");
		return -1;
	}
	entry = *cqe;
	/* phase starts at 1 and toggles on every wrap of the producer */
	phase = !((cq->pi >> cq->log_size) & 1);
	entry.owner = cpu_to_le32(phase ? ORDMA_CQE_PHASE : 0);
	/* a 32-byte CQE never straddles a page (pages are >= 4 KiB) */
	if (fw_page_list_dma(fw, &cq->ring,
			     (uint64_t)(cq->pi & (fw_cq_size(cq) - 1)) *
			     ORDMA_CQE_SIZE, &dma, &contig) ||
	    fw_dma_write(fw, dma, &entry, body) ||
	    fw_dma_write(fw, dma + body, &entry.owner, sizeof(entry.owner))) {
		fw_cq_set_error(fw, cqn, cq, "ring not writable");
		return -1;
	}
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_CQE, .qpn = le32_to_cpu(cqe->qpn),
		 .index = le32_to_cpu(cqe->wqe_idx),
		 .len = le32_to_cpu(cqe->byte_len), .aux = cqn,
		 .opcode = cqe->opcode, .status = cqe->status);
	cq->pi++;
	if (cq->armed && (!cq->arm_solicited || solicited ||
			  cqe->status != ORDMA_CQE_SUCCESS))
		fw_cq_notify(fw, cqn, cq);
	else
		cq->unannounced = true;
	return 0;
}

int fw_cq_check(struct ordma_fw *fw, uint32_t cqn, uint32_t uctx)
{
	struct fw_cq *cq = fw_cq_lookup(fw, cqn);

	if (!cq)
		return ORDMA_CMD_STATUS_BAD_HANDLE;
	if (cq->uctx != uctx)
		return ORDMA_CMD_STATUS_PERM;
	return ORDMA_CMD_STATUS_OK;
}

void fw_cq_get(struct ordma_fw *fw, uint32_t cqn)
{
	struct fw_cq *cq = fw_cq_lookup(fw, cqn);

	if (cq)
		cq->refs++;
}

void fw_cq_put(struct ordma_fw *fw, uint32_t cqn)
{
	struct fw_cq *cq = fw_cq_lookup(fw, cqn);

	if (cq && cq->refs)
		cq->refs--;
}

bool fw_eq_used_by_cq(const struct ordma_fw *fw, uint32_t eqn)
{
	uint32_t cqn;

	if (!fw->cqs)
		return false;
	for (cqn = 1; cqn <= FW_MAX_CQ; cqn++)
		if (fw->cqs[cqn].valid && fw->cqs[cqn].eqn == eqn)
			return true;
	return false;
}

bool fw_uctx_owns_cq(const struct ordma_fw *fw, uint32_t uctx)
{
	uint32_t cqn;

	if (!fw->cqs)
		return false;
	for (cqn = 1; cqn <= FW_MAX_CQ; cqn++)
		if (fw->cqs[cqn].valid && fw->cqs[cqn].uctx == uctx)
			return true;
	return false;
}

const char *fw_cq_doorbell(struct ordma_fw *fw, uint32_t page, uint32_t cqn,
			   uint32_t ci, bool arm, bool solicited)
{
	struct fw_cq *cq = fw_cq_lookup(fw, cqn);

	if (!cq)
		return "no such CQ";
	if (cq->uctx != page)
		return "CQ owned by another context";
	if (cq->pi - ci > fw_cq_size(cq))
		return "CQ consumer index outside the ring";
	cq->ci = ci;
	if (!arm)
		return NULL;
	/* The unannounced CQEs are the newest: if any CQE is unconsumed,
	 * the newest is, and it was missed.
	 */
	if (cq->pi != ci && cq->unannounced) {
		/* the consumer missed completions: notify now, stay disarmed */
		fw_cq_notify(fw, cqn, cq);
	} else {
		/* a "next completion" arm is not narrowed by a later
		 * solicited-only arm
		 */
		cq->arm_solicited = cq->armed ? cq->arm_solicited && solicited :
						solicited;
		cq->armed = true;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

uint8_t fw_cmd_create_cq(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_create_cq *p = &c->in->create_cq;
	uint32_t uctx = le32_to_cpu(p->uctx);
	uint32_t eqn = le32_to_cpu(p->eqn);
	uint64_t db_record = le64_to_cpu(p->db_record);
	struct fw_page_list ring;
	struct fw_cq *cq;
	uint32_t cqn;

	if (p->log_size < ORDMA_CQ_MIN_LOG_SIZE || p->log_size > ORDMA_CQ_MAX_LOG_SIZE)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_cq.log_size),
					"log_size not in 1..16");
	if (fw_page_list_parse(fw, &p->ring,
			       (uint64_t)ORDMA_CQE_SIZE << p->log_size, &ring) !=
	    ORDMA_CMD_STATUS_OK)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_cq.ring) +
					ring.bad_offset, ring.error);
	if (!db_record || db_record % 4 || fw_range_wraps(db_record, 4))
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_cq.db_record),
					"doorbell record zero or not 4-byte aligned");
	if (!fw_uctx_valid(fw, uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such user context");
	if (eqn >= FW_MAX_EQ || !fw->eqs[eqn].valid)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such EQ");
	if (fw->eqs[eqn].type != ORDMA_EQ_TYPE_COMP)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_cq.eqn),
					"CQ events need a completion EQ");
	for (cqn = 1; cqn <= FW_MAX_CQ && fw->cqs[cqn].valid; cqn++)
		;
	if (cqn > FW_MAX_CQ)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "all CQs in use");
	if (fw_eq_event_sources(fw, eqn) >= 1u << fw->eqs[eqn].log_size)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "EQ has no room for the events of another CQ");

	cq = &fw->cqs[cqn];
	memset(cq, 0, sizeof(*cq));
	cq->valid = true;
	cq->log_size = p->log_size;
	cq->uctx = uctx;
	cq->eqn = eqn;
	cq->ring = ring;
	cq->db_record = db_record;
	c->out->handle.handle = cpu_to_le32(cqn);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_destroy_cq(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t cqn = le32_to_cpu(c->in->handle.handle);
	uint32_t uctx = le32_to_cpu(c->in->handle.uctx);
	struct fw_cq *cq = fw_cq_lookup(fw, cqn);

	if (!cq)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such CQ");
	if (cq->uctx != uctx)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "CQ owned by another context");
	if (cq->refs)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "CQ still used by a queue pair");
	fw_cq_set_waiting(fw, cq, false);
	memset(cq, 0, sizeof(*cq));
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_query_cq(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_cq_attr out;
	struct fw_cq *cq;
	uint8_t status;

	status = fw_cmd_check_buf(c, sizeof(out));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	cq = fw_cq_lookup(fw, le32_to_cpu(c->in->buf.handle));
	if (!cq)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such CQ");
	memset(&out, 0, sizeof(out));
	out.uctx = cpu_to_le32(cq->uctx);
	out.eqn = cpu_to_le32(cq->eqn);
	out.pi = cpu_to_le32(cq->pi);
	out.ci = cpu_to_le32(cq->ci);
	out.refs = cpu_to_le32(cq->refs);
	out.log_size = cq->log_size;
	out.flags = (uint8_t)((cq->armed ? ORDMA_CQ_ATTR_ARMED : 0) |
			      (cq->arm_solicited ? ORDMA_CQ_ATTR_ARM_SOLICITED : 0) |
			      (cq->error ? ORDMA_CQ_ATTR_ERROR : 0));
	out.db_record = cpu_to_le64(cq->db_record);
	return fw_cmd_write_buf(fw, c, &out, sizeof(out));
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                            */
/* ------------------------------------------------------------------ */

void fw_cq_reset(struct ordma_fw *fw)
{
	uint32_t eqn;

	if (fw->cqs)
		memset(fw->cqs, 0, (FW_MAX_CQ + 1) * sizeof(*fw->cqs));
	for (eqn = 0; eqn < FW_MAX_EQ; eqn++)
		fw->eqs[eqn].waiting_cqs = 0;
}

int fw_cq_table_create(struct ordma_fw *fw)
{
	fw->cqs = calloc(FW_MAX_CQ + 1, sizeof(*fw->cqs));
	return fw->cqs ? 0 : -1;
}

void fw_cq_table_destroy(struct ordma_fw *fw)
{
	free(fw->cqs);
	fw->cqs = NULL;
}

/* QUERY_RESOURCES */
uint32_t fw_cq_in_use(const struct ordma_fw *fw)
{
	uint32_t cqn, n = 0;

	for (cqn = 1; fw->cqs && cqn <= FW_MAX_CQ; cqn++)
		n += fw->cqs[cqn].valid;
	return n;
}
