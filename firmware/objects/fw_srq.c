// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware shared receive queues: CREATE/MODIFY/DESTROY_SRQ, the
 * SRQ doorbell, taking WQEs for the transport engine and the one-shot
 * SRQ_LIMIT event.
 */
#include <string.h>

#include "objects/fw_qp.h"
#include "platform/fw_platform.h"

void fw_srq_reset(struct ordma_fw *fw)
{
	if (fw->srqs)
		memset(fw->srqs, 0, (FW_MAX_SRQ + 1) * sizeof(*fw->srqs));
}

struct fw_srq *fw_srq_lookup(struct ordma_fw *fw, uint32_t srqn)
{
	if (srqn == 0 || srqn > FW_MAX_SRQ || !fw->srqs[srqn].valid)
		return NULL;
	return &fw->srqs[srqn];
}

int fw_srq_check(struct ordma_fw *fw, uint32_t srqn, uint32_t uctx)
{
	struct fw_srq *srq = fw_srq_lookup(fw, srqn);

	if (!srq)
		return ORDMA_CMD_STATUS_BAD_HANDLE;
	if (srq->uctx != uctx)
		return ORDMA_CMD_STATUS_PERM;
	return ORDMA_CMD_STATUS_OK;
}

void fw_srq_get(struct ordma_fw *fw, uint32_t srqn)
{
	struct fw_srq *srq = fw_srq_lookup(fw, srqn);

	if (srq)
		srq->qp_refs++;
}

void fw_srq_put(struct ordma_fw *fw, uint32_t srqn)
{
	struct fw_srq *srq = fw_srq_lookup(fw, srqn);

	if (srq && srq->qp_refs)
		srq->qp_refs--;
}

/* ------------------------------------------------------------------ */
/* Data path                                                           */
/* ------------------------------------------------------------------ */

int fw_srq_take(struct ordma_fw *fw, struct fw_srq *srq, void *wqe,
		size_t len, uint32_t *wqe_idx)
{
	struct fw_wq *wq = &srq->wq;
	int unreadable;

	if (!fw_wq_pending(wq))
		return -1;
	/* taken even if unreadable: the QP fails it rather than RNR for ever */
	unreadable = fw_wq_read_wqe(fw, wq, wq->next, wqe, len) ? 1 : 0;
	*wqe_idx = fw_wq_slot(wq, wq->next);
	wq->next++;
	wq->ci = wq->next;
	/* one event per arm: MODIFY_SRQ arms it again */
	if (srq->limit && fw_wq_pending(wq) < srq->limit) {
		srq->limit = 0;
		fw_async_event(fw, ORDMA_EQE_SRQ_LIMIT, srq->srqn, 0, 0);
	}
	return unreadable;
}

const char *fw_srq_doorbell(struct ordma_fw *fw, uint32_t page,
			    uint32_t srqn, uint32_t pi)
{
	struct fw_srq *srq = fw_srq_lookup(fw, srqn);
	const char *err;

	if (!srq)
		return "no such SRQ";
	if (srq->uctx != page)
		return "SRQ owned by another context";
	err = fw_wq_pi_error(&srq->wq, pi);
	if (err)
		return err;
	srq->wq.pi = pi;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

uint8_t fw_cmd_create_srq(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_create_srq *p = &c->in->create_srq;
	uint32_t uctx = le32_to_cpu(p->uctx);
	uint32_t pdn = le32_to_cpu(p->pdn);
	uint32_t limit = le32_to_cpu(p->limit);
	struct fw_page_list pages;
	struct fw_srq *srq;
	uint32_t srqn;
	uint8_t status;

	if (p->log_size < ORDMA_WQ_MIN_LOG_SIZE || p->log_size > ORDMA_WQ_MAX_LOG_SIZE)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_srq.log_size),
					"log_size not in 1..12");
	if (p->wqe_shift < ORDMA_RECV_WQE_MIN_SHIFT ||
	    p->wqe_shift > ORDMA_RECV_WQE_MAX_SHIFT ||
	    (1u << p->wqe_shift) < FW_RECV_WQE_MIN_BYTES)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_srq.wqe_shift),
					"wqe_shift not in 5..8 (one SGE at least)");
	if (limit > 1u << p->log_size)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_srq.limit),
					"limit above the SRQ size");
	if (p->cqn)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_srq.cqn),
					"cqn is reserved (XRC) and must be 0");
	if (fw_page_list_parse(fw, &p->ring, 1ULL << (p->log_size + p->wqe_shift),
			       &pages) != ORDMA_CMD_STATUS_OK)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_srq.ring) +
					pages.bad_offset,
					pages.error ? pages.error : "bad page list");
	if (!fw_uctx_valid(fw, uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such user context");
	for (srqn = 1; srqn <= FW_MAX_SRQ && fw->srqs[srqn].valid; srqn++)
		;
	if (srqn > FW_MAX_SRQ)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "all SRQs in use");
	status = (uint8_t)fw_pd_get(fw, pdn, uctx);
	if (status != ORDMA_CMD_STATUS_OK)
		return fw_cmd_fail(c, status, "PD missing or not the context's");

	srq = &fw->srqs[srqn];
	memset(srq, 0, sizeof(*srq));
	srq->valid = true;
	srq->srqn = srqn;
	srq->uctx = uctx;
	srq->pdn = pdn;
	srq->limit = limit;
	srq->wq.pages = pages;
	srq->wq.log_size = p->log_size;
	srq->wq.wqe_shift = p->wqe_shift;
	c->out->handle.handle = cpu_to_le32(srqn);
	return ORDMA_CMD_STATUS_OK;
}

static uint8_t fw_srq_owned(struct ordma_fw *fw, struct fw_cmd *c,
			    uint32_t srqn, uint32_t uctx, struct fw_srq **srqp)
{
	uint8_t status = (uint8_t)fw_srq_check(fw, srqn, uctx);

	if (status == ORDMA_CMD_STATUS_BAD_HANDLE)
		return fw_cmd_fail(c, status, "no such SRQ");
	if (status != ORDMA_CMD_STATUS_OK)
		return fw_cmd_fail(c, status, "SRQ owned by another context");
	*srqp = fw_srq_lookup(fw, srqn);
	return ORDMA_CMD_STATUS_OK;
}

/* Sets (and so re-arms) or, with 0, disarms the limit event. */
uint8_t fw_cmd_modify_srq(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_modify_srq *p = &c->in->modify_srq;
	uint32_t limit = le32_to_cpu(p->limit);
	struct fw_srq *srq;
	uint8_t status;

	status = fw_srq_owned(fw, c, le32_to_cpu(p->srqn), le32_to_cpu(p->uctx),
			      &srq);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (limit > fw_wq_size(&srq->wq))
		return fw_cmd_bad_param(c, FW_CMD_OFF(modify_srq.limit),
					"limit above the SRQ size");
	srq->limit = limit;
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_destroy_srq(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct fw_srq *srq;
	uint8_t status;

	status = fw_srq_owned(fw, c, le32_to_cpu(c->in->handle.handle),
			      le32_to_cpu(c->in->handle.uctx), &srq);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (srq->qp_refs)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "SRQ still used by QPs");
	fw_pd_put(fw, srq->pdn);
	memset(srq, 0, sizeof(*srq));
	return ORDMA_CMD_STATUS_OK;
}

/* QUERY_RESOURCES */
uint32_t fw_srq_in_use(const struct ordma_fw *fw)
{
	uint32_t srqn, n = 0;

	for (srqn = 1; fw->srqs && srqn <= FW_MAX_SRQ; srqn++)
		n += fw->srqs[srqn].valid;
	return n;
}
