// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libibverbs provider for the ORDMA RoCEv2 RNIC: memory regions, CQs
 * (plain and extended polling), RC/UD QPs (ibv_post_send and the
 * extended ibv_wr_* posting), SRQs and address handles.
 *
 * Queue rings are page-aligned memory of this process that the kernel
 * pins and hands to the device.  Posting and polling need no system
 * call: WQEs are written into the ring and announced with one 64-bit
 * doorbell per post call; CQEs are found by their phase bit and
 * returned to the device through the CQ's doorbell record.  Semantics
 * follow Documentation/ordma/hw-reference.rst ("Completion queues",
 * "Work queues and doorbells", "Work queue entries").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "ordma.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static int ordma_buf_alloc(struct ordma_buf *b, size_t len)
{
	size_t page = sysconf(_SC_PAGESIZE);
	int ret;

	b->length = align(len, page);
	ret = posix_memalign(&b->buf, page, b->length);
	if (ret) {
		b->buf = NULL;
		return ret;
	}
	memset(b->buf, 0, b->length);
	ret = ibv_dontfork_range(b->buf, b->length);
	if (ret) {
		free(b->buf);
		b->buf = NULL;
		return ret;
	}
	return 0;
}

static void ordma_buf_free(struct ordma_buf *b)
{
	if (!b->buf)
		return;
	ibv_dofork_range(b->buf, b->length);
	free(b->buf);
	b->buf = NULL;
}

static void ordma_ring_db(struct ordma_context *ctx, unsigned int offset,
			  uint32_t qn, uint32_t idx, uint64_t flags)
{
	uint64_t val = FIELD_PREP(ORDMA_DB_QN, qn) |
		       FIELD_PREP(ORDMA_DB_IDX, idx) | flags;

	mmio_write64_le((uint8_t *)ctx->db_page + offset, htole64(val));
}

static void *ordma_wq_slot(const struct ordma_wq *wq, uint32_t idx)
{
	return (uint8_t *)wq->ring.buf +
	       ((size_t)(idx & ((1u << wq->log_size) - 1)) << wq->wqe_shift);
}

static void ordma_wq_set_wrid(struct ordma_wq *wq, uint32_t idx,
			      uint64_t wr_id)
{
	wq->wrid[idx & ((1u << wq->log_size) - 1)] = wr_id;
}

/* No free slot at head (the completions up to tail are polled) */
static bool ordma_wq_full(struct ordma_wq *wq, uint32_t head)
{
	return head - __atomic_load_n(&wq->tail, __ATOMIC_ACQUIRE) >=
	       (1u << wq->log_size);
}

/* Announces the WQEs written up to head with one doorbell, if any. */
static void ordma_wq_publish(struct ordma_context *ctx, struct ordma_wq *wq,
			     unsigned int db, uint32_t qpn, uint32_t head)
{
	if (head == wq->head)
		return;
	/* WQEs in memory before the device hears of them */
	udma_to_device_barrier();
	__atomic_store_n(&wq->head, head, __ATOMIC_RELEASE);
	ordma_ring_db(ctx, db, qpn, head, 0);
}

/* qpn -> QP table; writers hold qp_table_mutex */
static int ordma_qp_table_add(struct ordma_context *ctx, struct ordma_qp *qp)
{
	uint32_t top = (qp->qpn >> ORDMA_QP_TABLE_SHIFT) &
		       (ORDMA_QP_TABLE_SIZE - 1);
	struct ordma_qp **leaf;
	int ret = 0;

	pthread_mutex_lock(&ctx->qp_table_mutex);
	leaf = ctx->qp_table[top];
	if (!leaf) {
		leaf = calloc(ORDMA_QP_TABLE_SIZE, sizeof(*leaf));
		if (!leaf) {
			ret = ENOMEM;
			goto out;
		}
		__atomic_store_n(&ctx->qp_table[top], leaf, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&leaf[qp->qpn & (ORDMA_QP_TABLE_SIZE - 1)], qp,
			 __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	return ret;
}

static void ordma_qp_table_del(struct ordma_context *ctx, uint32_t qpn)
{
	struct ordma_qp **leaf;

	pthread_mutex_lock(&ctx->qp_table_mutex);
	leaf = ctx->qp_table[(qpn >> ORDMA_QP_TABLE_SHIFT) &
			     (ORDMA_QP_TABLE_SIZE - 1)];
	if (leaf)
		__atomic_store_n(&leaf[qpn & (ORDMA_QP_TABLE_SIZE - 1)], NULL,
				 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->qp_table_mutex);
}

static struct ordma_qp *ordma_qp_lookup(struct ordma_context *ctx,
					uint32_t qpn)
{
	struct ordma_qp **leaf;

	if (qpn >> (2 * ORDMA_QP_TABLE_SHIFT))
		return NULL;
	leaf = __atomic_load_n(&ctx->qp_table[qpn >> ORDMA_QP_TABLE_SHIFT],
			       __ATOMIC_ACQUIRE);
	if (!leaf)
		return NULL;
	return __atomic_load_n(&leaf[qpn & (ORDMA_QP_TABLE_SIZE - 1)],
			       __ATOMIC_ACQUIRE);
}

void ordma_qp_table_free(struct ordma_context *ctx)
{
	int i;

	for (i = 0; i < ORDMA_QP_TABLE_SIZE; i++)
		free(ctx->qp_table[i]);
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */
/* ------------------------------------------------------------------ */

struct ibv_mr *ordma_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		verbs_debug(verbs_get_ctx(pd->context), "REG_MR failed: %d\n",
			    ret);
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/*
 * The kernel registers the changed region as a new MR (the keys change,
 * ibv_cmd_rereg_mr stores the new ones); the provider keeps no MR state.
 */
int ordma_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int ret;

	ret = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret)
		verbs_debug(verbs_get_ctx(vmr->ibv_mr.context),
			    "REREG_MR flags %#x failed: %d\n", flags, ret);
	return ret;
}

int ordma_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (ret)
		return ret;
	free(vmr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Memory windows                                                      */
/* ------------------------------------------------------------------ */

struct ibv_mw *ordma_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		verbs_debug(verbs_get_ctx(pd->context), "ALLOC_MW failed: %d\n",
			    ret);
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int ordma_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * ibv_bind_mw (type 1): a BIND_MW work request with the next rkey of the
 * window; mw->rkey becomes that rkey once it is posted.  The device
 * applies it when the WQE executes; a failed bind completes with
 * IBV_WC_MW_BIND_ERR.
 */
int ordma_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = ordma_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

static struct ordma_cqe *ordma_cq_entry(struct ordma_cq *cq, uint32_t idx)
{
	return (struct ordma_cqe *)cq->ring.buf +
	       (idx & ((1u << cq->log_size) - 1));
}

/* Tell the device how far we consumed (read when the ring looks full). */
static void ordma_cq_update_record(struct ordma_cq *cq)
{
	/* the CQEs are read before the device may reuse their slots */
	udma_from_device_barrier();
	__atomic_store_n(cq->db_record, htole32(cq->ci), __ATOMIC_RELAXED);
}

/*
 * A send or RQ completion for slot returns every slot up to it (the
 * queue completes in order); returns the wr_id of the slot.
 */
static uint64_t ordma_wq_complete(struct ordma_wq *wq, uint32_t slot)
{
	uint32_t mask = (1u << wq->log_size) - 1;
	uint32_t tail = wq->tail;
	uint32_t head = __atomic_load_n(&wq->head, __ATOMIC_ACQUIRE);
	uint32_t dist = (slot - tail) & mask;
	uint64_t wr_id = wq->wrid[slot & mask];

	/* a slot outside [tail, head) returns nothing (stale or bogus) */
	if (dist < head - tail)
		__atomic_store_n(&wq->tail, tail + dist + 1, __ATOMIC_RELEASE);
	return wr_id;
}

static uint64_t ordma_srq_complete(struct ordma_srq *srq, uint32_t slot)
{
	uint64_t wr_id;

	slot &= (1u << srq->log_size) - 1;
	pthread_spin_lock(&srq->lock);
	wr_id = srq->wrid[slot];
	if (srq->busy[slot]) {
		srq->busy[slot] = 0;
		srq->posted--;
	}
	pthread_spin_unlock(&srq->lock);
	return wr_id;
}

/*
 * Takes the next CQE with the CQ lock held: 0 with *cqep and *qpp set,
 * ENOENT if the ring is empty, EAGAIN for a CQE of a QP that is gone
 * (consumed and skipped).  *wr_id is the completed work request's.
 */
static int ordma_cq_next(struct ordma_cq *cq, struct ordma_cqe **cqep,
			 struct ordma_qp **qpp, uint64_t *wr_id)
{
	struct ordma_context *ctx = to_ordma_ctx(cq->vcq.cq.context);
	struct ordma_cqe *cqe = ordma_cq_entry(cq, cq->ci);
	struct ordma_qp *qp;
	uint32_t slot;

	if (!ordma_cqe_valid(cqe, cq->ci, cq->log_size))
		return ENOENT;
	/* the rest of the CQE was written before its owner dword */
	udma_from_device_barrier();
	cq->ci++;

	qp = ordma_qp_lookup(ctx, le32toh(cqe->qpn));
	if (!qp)
		return EAGAIN;
	slot = le32toh(cqe->wqe_idx);
	if (!ordma_cqe_is_recv(cqe))
		*wr_id = ordma_wq_complete(&qp->sq, slot);
	else if (qp->srq)
		*wr_id = ordma_srq_complete(qp->srq, slot);
	else
		*wr_id = ordma_wq_complete(&qp->rq, slot);
	*cqep = cqe;
	*qpp = qp;
	return 0;
}

int ordma_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct ordma_cq *cq = to_ordma_cq(ibcq);
	uint32_t start;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	start = cq->ci;
	while (n < num_entries) {
		struct ordma_cqe *cqe;
		struct ordma_qp *qp;
		uint64_t wr_id = 0;
		int ret = ordma_cq_next(cq, &cqe, &qp, &wr_id);

		if (ret == ENOENT)
			break;
		if (ret)
			continue;
		ordma_cqe_to_wc(cqe, &wc[n]);
		wc[n].wr_id = wr_id;
		n++;
	}
	if (cq->ci != start)
		ordma_cq_update_record(cq);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int ordma_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct ordma_cq *cq = to_ordma_cq(ibcq);
	struct ordma_context *ctx = to_ordma_ctx(ibcq->context);
	uint64_t flags = ORDMA_DB_ARM;

	if (solicited_only)
		flags |= ORDMA_DB_SOLICITED;
	pthread_spin_lock(&cq->lock);
	ordma_ring_db(ctx, ORDMA_DB_CQ, cq->cqn, cq->ci, flags);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/*
 * Drops the CQEs of qpn not yet polled (the QP is being destroyed or
 * reset), moving later CQEs of other QPs down over them.  CQ lock held.
 */
static void ordma_cq_clean(struct ordma_cq *cq, struct ordma_qp *qp)
{
	uint32_t qpn = qp->qpn;
	uint32_t size = 1u << cq->log_size;
	uint32_t end = cq->ci, idx, dropped = 0;
	const size_t body = offsetof(struct ordma_cqe, owner);

	while (end - cq->ci < size &&
	       ordma_cqe_valid(ordma_cq_entry(cq, end), end, cq->log_size))
		end++;
	if (end == cq->ci)
		return;
	udma_from_device_barrier();
	for (idx = end; idx != cq->ci;) {
		struct ordma_cqe *cqe = ordma_cq_entry(cq, --idx);

		if (le32toh(cqe->qpn) == qpn) {
			/* an SRQ slot comes back only with its CQE */
			if (qp->srq && ordma_cqe_is_recv(cqe))
				ordma_srq_complete(qp->srq,
						   le32toh(cqe->wqe_idx));
			dropped++;
		}
		else if (dropped)
			/* the destination holds a valid CQE of this pass:
			 * its owner dword already has the right phase
			 */
			memcpy(ordma_cq_entry(cq, idx + dropped), cqe, body);
	}
	if (dropped) {
		cq->ci += dropped;
		ordma_cq_update_record(cq);
	}
}

/* Extended CQ polling (ibv_start_poll & co.) */
static void ordma_cqx_fill(struct ordma_cq *cq, struct ordma_cqe *cqe,
			   struct ordma_qp *qp, uint64_t wr_id)
{
	cq->cur_cqe = cqe;
	cq->cur_qp = qp;
	cq->vcq.cq_ex.wr_id = wr_id;
	cq->vcq.cq_ex.status = (enum ibv_wc_status)cqe->status;
}

static int ordma_cqx_advance(struct ordma_cq *cq)
{
	struct ordma_cqe *cqe;
	struct ordma_qp *qp;
	uint64_t wr_id = 0;
	int ret;

	do {
		ret = ordma_cq_next(cq, &cqe, &qp, &wr_id);
	} while (ret == EAGAIN);
	if (ret)
		return ret;
	ordma_cqx_fill(cq, cqe, qp, wr_id);
	return 0;
}

static int ordma_cqx_start_poll(struct ibv_cq_ex *ibcq,
				struct ibv_poll_cq_attr *attr)
{
	struct ordma_cq *cq = to_ordma_cq_ex(ibcq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	ret = ordma_cqx_advance(cq);
	if (ret) {
		/* skipped CQEs of destroyed QPs are consumed all the same */
		ordma_cq_update_record(cq);
		pthread_spin_unlock(&cq->lock);
	}
	return ret;
}

static int ordma_cqx_next_poll(struct ibv_cq_ex *ibcq)
{
	return ordma_cqx_advance(to_ordma_cq_ex(ibcq));
}

static void ordma_cqx_end_poll(struct ibv_cq_ex *ibcq)
{
	struct ordma_cq *cq = to_ordma_cq_ex(ibcq);

	ordma_cq_update_record(cq);
	cq->cur_cqe = NULL;
	cq->cur_qp = NULL;
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode ordma_cqx_read_opcode(struct ibv_cq_ex *ibcq)
{
	return ordma_wc_opcode(to_ordma_cq_ex(ibcq)->cur_cqe->opcode);
}

static uint32_t ordma_cqx_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint32_t ordma_cqx_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_ordma_cq_ex(ibcq)->cur_cqe->byte_len);
}

static __be32 ordma_cqx_read_imm_data(struct ibv_cq_ex *ibcq)
{
	const struct ordma_cqe *cqe = to_ordma_cq_ex(ibcq)->cur_cqe;
	__be32 imm;

	uint32_t rkey;

	if (le16toh(cqe->flags) & ORDMA_CQE_F_INV) {
		/* ibv_wc_read_invalidated_rkey() takes the bits as they are */
		rkey = le32toh(cqe->imm_inv);
		memcpy(&imm, &rkey, sizeof(imm));
	} else {
		memcpy(&imm, &cqe->imm_inv, sizeof(imm));
	}
	return imm;
}

static uint32_t ordma_cqx_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_ordma_cq_ex(ibcq)->cur_cqe->qpn);
}

static uint32_t ordma_cqx_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_ordma_cq_ex(ibcq)->cur_cqe->src_qp);
}

static unsigned int ordma_cqx_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	struct ibv_wc wc;

	ordma_cqe_to_wc(to_ordma_cq_ex(ibcq)->cur_cqe, &wc);
	return wc.wc_flags;
}

static uint32_t ordma_cqx_read_slid(struct ibv_cq_ex *ibcq)
{
	return le16toh(to_ordma_cq_ex(ibcq)->cur_cqe->slid);
}

static uint8_t ordma_cqx_read_sl(struct ibv_cq_ex *ibcq)
{
	return ordma_wc_sl(to_ordma_cq_ex(ibcq)->cur_cqe);
}

static uint8_t ordma_cqx_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return to_ordma_cq_ex(ibcq)->cur_cqe->dlid_path_bits & 0x7f;
}

#define ORDMA_CQX_WC_FLAGS                                                     \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | \
	 IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |     \
	 IBV_WC_EX_WITH_DLID_PATH_BITS)

static void ordma_cqx_set_ops(struct ordma_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *x = &cq->vcq.cq_ex;

	x->start_poll = ordma_cqx_start_poll;
	x->next_poll = ordma_cqx_next_poll;
	x->end_poll = ordma_cqx_end_poll;
	x->read_opcode = ordma_cqx_read_opcode;
	x->read_vendor_err = ordma_cqx_read_vendor_err;
	x->read_wc_flags = ordma_cqx_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		x->read_byte_len = ordma_cqx_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		x->read_imm_data = ordma_cqx_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		x->read_qp_num = ordma_cqx_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		x->read_src_qp = ordma_cqx_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		x->read_slid = ordma_cqx_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		x->read_sl = ordma_cqx_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		x->read_dlid_path_bits = ordma_cqx_read_dlid_path_bits;
}

static struct ordma_cq *ordma_cq_create(struct ibv_context *ibctx,
					struct ibv_cq_init_attr_ex *attr,
					bool extended)
{
	struct ordma_uverbs_create_cq_resp resp = {};
	struct ordma_uverbs_create_cq cmd = {};
	size_t page = sysconf(_SC_PAGESIZE);
	struct ordma_cq *cq;
	int log, ret;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (extended && (attr->wc_flags & ~(uint64_t)ORDMA_CQX_WC_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	log = ordma_cq_log_size(attr->cqe);
	if (log < 0) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	cq->log_size = log;
	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;
	ret = ordma_buf_alloc(&cq->ring, (size_t)ORDMA_CQE_SIZE << log);
	if (ret)
		goto err_lock;
	/* a page of its own: the kernel pins the page of the record */
	ret = posix_memalign((void **)&cq->db_record, page, page);
	if (ret)
		goto err_ring;
	memset(cq->db_record, 0, page);

	cmd.buf_addr = (uintptr_t)cq->ring.buf;
	cmd.db_record_addr = (uintptr_t)cq->db_record;
	cmd.log_size = log;
	ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				   0);
	if (ret) {
		verbs_err(verbs_get_ctx(ibctx), "CREATE_CQ failed: %d\n", ret);
		goto err_record;
	}
	cq->cqn = resp.cqn;
	/* the device fills every slot of the ring (pi - ci up to the size) */
	cq->vcq.cq.cqe = 1 << log;
	if (extended)
		ordma_cqx_set_ops(cq, attr->wc_flags);
	verbs_debug(verbs_get_ctx(ibctx), "cqn %u, %u CQEs\n", cq->cqn,
		    1u << log);
	return cq;

err_record:
	free(cq->db_record);
err_ring:
	ordma_buf_free(&cq->ring);
err_lock:
	pthread_spin_destroy(&cq->lock);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

struct ibv_cq *ordma_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe,
		.channel = channel,
		.comp_vector = comp_vector,
	};
	struct ordma_cq *cq;

	if (cqe < 1) {
		errno = EINVAL;
		return NULL;
	}
	cq = ordma_cq_create(ibctx, &attr, false);
	return cq ? &cq->vcq.cq : NULL;
}

struct ibv_cq_ex *ordma_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct ordma_cq *cq;

	if (attr->cqe < 1) {
		errno = EINVAL;
		return NULL;
	}
	cq = ordma_cq_create(ibctx, attr, true);
	return cq ? &cq->vcq.cq_ex : NULL;
}

int ordma_destroy_cq(struct ibv_cq *ibcq)
{
	struct ordma_cq *cq = to_ordma_cq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	free(cq->db_record);
	ordma_buf_free(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

static int ordma_wq_init(struct ordma_wq *wq, int log_size, int wqe_shift,
			 uint32_t max_sge)
{
	int ret;

	wq->log_size = log_size;
	wq->wqe_shift = wqe_shift;
	wq->max_sge = max_sge;
	ret = pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		return ret;
	wq->wrid = calloc(1u << log_size, sizeof(*wq->wrid));
	if (!wq->wrid) {
		ret = ENOMEM;
		goto err_lock;
	}
	ret = ordma_buf_alloc(&wq->ring, (size_t)1 << (log_size + wqe_shift));
	if (ret)
		goto err_wrid;
	return 0;

err_wrid:
	free(wq->wrid);
	wq->wrid = NULL;
err_lock:
	pthread_spin_destroy(&wq->lock);
	wq->log_size = 0;
	return ret;
}

static void ordma_wq_fini(struct ordma_wq *wq)
{
	if (!wq->log_size)
		return;
	ordma_buf_free(&wq->ring);
	free(wq->wrid);
	pthread_spin_destroy(&wq->lock);
	wq->log_size = 0;
}

static void ordma_qp_fini(struct ordma_qp *qp)
{
	ordma_wq_fini(&qp->sq);
	ordma_wq_fini(&qp->rq);
	free(qp);
}

/* The QP's real capabilities */
static void ordma_qp_caps(const struct ordma_qp *qp, struct ibv_qp_cap *cap)
{
	cap->max_send_wr = 1u << qp->sq.log_size;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->max_inline;
	if (qp->srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	} else {
		cap->max_recv_wr = 1u << qp->rq.log_size;
		cap->max_recv_sge = qp->rq.max_sge;
	}
}

#define ORDMA_QP_INIT_ATTR_MASK                                        \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |          \
	 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

static struct ordma_qp *ordma_qp_create(struct ibv_context *ibctx,
					struct ibv_qp_init_attr_ex *attr)
{
	struct ordma_context *ctx = to_ordma_ctx(ibctx);
	struct ordma_uverbs_create_qp_resp resp = {};
	struct ordma_uverbs_create_qp cmd = {};
	struct ibv_qp_init_attr_ex kattr;
	int sq_log, sq_shift, rq_log = 0, rq_shift = 0, ret;
	bool ud = attr->qp_type == IBV_QPT_UD;
	bool uc = attr->qp_type == IBV_QPT_UC;
	bool iwarp = ibctx->device->transport_type == IBV_TRANSPORT_IWARP;
	struct ordma_qp *qp;

	if (attr->qp_type != IBV_QPT_RC && !ud && !uc) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* XRCD, RSS, TSO, source QPN, ...: not implemented */
	if (attr->comp_mask & ~(uint32_t)ORDMA_QP_INIT_ATTR_MASK) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (ordma_qpx_check_ops(ud, attr->send_ops_flags) ||
	     (uc && (attr->send_ops_flags & ~(uint64_t)ORDMA_QPX_OPS_UC)) ||
	     (iwarp &&
	      (attr->send_ops_flags & ~(uint64_t)ORDMA_QPX_OPS_IWARP)))) {
		verbs_debug(&ctx->ibv_ctx, "send_ops_flags 0x%llx not supported\n",
			    (unsigned long long)attr->send_ops_flags);
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->send_cq || (!attr->recv_cq && !attr->srq) ||
	    attr->cap.max_inline_data > ctx->max_inline_data) {
		errno = EINVAL;
		return NULL;
	}
	sq_log = ordma_log2_ceil(attr->cap.max_send_wr, 1,
				 ORDMA_WQ_MAX_LOG_SIZE);
	sq_shift = ordma_sq_wqe_shift(attr->cap.max_send_sge,
				      attr->cap.max_inline_data);
	if (!attr->srq) {
		rq_log = ordma_log2_ceil(attr->cap.max_recv_wr, 1,
					 ORDMA_WQ_MAX_LOG_SIZE);
		rq_shift = ordma_rq_wqe_shift(attr->cap.max_recv_sge);
	}
	if (sq_log < 0 || sq_shift < 0 || rq_log < 0 || rq_shift < 0) {
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->ud = ud;
	qp->uc = uc;
	qp->iwarp = iwarp;
	qp->sig_all = attr->sq_sig_all;
	qp->state = IBV_QPS_RESET;
	ret = ordma_wq_init(&qp->sq, sq_log, sq_shift,
			    ordma_sq_max_sge(sq_shift));
	if (ret)
		goto err_free;
	if (attr->srq) {
		qp->srq = to_ordma_srq(attr->srq);
	} else {
		ret = ordma_wq_init(&qp->rq, rq_log, rq_shift,
				    ordma_rq_max_sge(rq_shift));
		if (ret)
			goto err_free;
	}
	qp->send_cq = to_ordma_cq(attr->send_cq);
	qp->recv_cq = attr->recv_cq ? to_ordma_cq(attr->recv_cq) : NULL;

	cmd.sq_buf_addr = (uintptr_t)qp->sq.ring.buf;
	cmd.sq_log_size = sq_log;
	cmd.sq_wqe_shift = sq_shift;
	if (!attr->srq) {
		cmd.rq_buf_addr = (uintptr_t)qp->rq.ring.buf;
		cmd.rq_log_size = rq_log;
		cmd.rq_wqe_shift = rq_shift;
	}

	/* the kernel sees the queues as they are; the rest is ours */
	kattr = *attr;
	kattr.comp_mask &= IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ordma_qp_caps(qp, &kattr.cap);
	kattr.cap.max_inline_data = attr->cap.max_inline_data;
	ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, &kattr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		verbs_err(&ctx->ibv_ctx, "CREATE_QP failed: %d\n", ret);
		goto err_free;
	}
	qp->qpn = resp.qpn;
	qp->max_inline = resp.max_inline_data;
	if (qp->max_inline > ORDMA_MAX_INLINE_DATA ||
	    qp->max_inline > (1u << sq_shift) - ORDMA_SEND_WQE_HDR_SIZE)
		qp->max_inline = 0;	/* a kernel we do not understand */

	ret = ordma_qp_table_add(ctx, qp);
	if (ret)
		goto err_destroy;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		ordma_qpx_set_ops(qp);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	ordma_qp_caps(qp, &attr->cap);
	verbs_debug(&ctx->ibv_ctx,
		    "qpn %u: sq %u x %u B, rq %u x %u B, inline %u%s\n", qp->qpn,
		    1u << sq_log, 1u << sq_shift,
		    attr->srq ? 0 : 1u << rq_log, attr->srq ? 0 : 1u << rq_shift,
		    qp->max_inline,
		    (qp->vqp.comp_mask & VERBS_QP_EX) ? ", extended" : "");
	return qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	ordma_qp_fini(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *ordma_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ordma_qp *qp = ordma_qp_create(pd->context, &attr_ex);

	if (!qp)
		return NULL;
	attr->cap = attr_ex.cap;
	return &qp->vqp.qp;
}

struct ibv_qp *ordma_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct ordma_qp *qp = ordma_qp_create(ibctx, attr);

	return qp ? &qp->vqp.qp : NULL;
}

/* Both CQs of a QP, locked in address order (they may be the same). */
static void ordma_lock_cqs(struct ordma_qp *qp)
{
	struct ordma_cq *a = qp->send_cq, *b = qp->recv_cq;

	if (!b || a == b) {
		pthread_spin_lock(&a->lock);
		return;
	}
	if (a > b) {
		struct ordma_cq *t = a;

		a = b;
		b = t;
	}
	pthread_spin_lock(&a->lock);
	pthread_spin_lock(&b->lock);
}

static void ordma_unlock_cqs(struct ordma_qp *qp)
{
	pthread_spin_unlock(&qp->send_cq->lock);
	if (qp->recv_cq && qp->recv_cq != qp->send_cq)
		pthread_spin_unlock(&qp->recv_cq->lock);
}

static void ordma_clean_cqs(struct ordma_qp *qp)
{
	ordma_cq_clean(qp->send_cq, qp);
	if (qp->recv_cq && qp->recv_cq != qp->send_cq)
		ordma_cq_clean(qp->recv_cq, qp);
}

/* After RESET the device's SQ and RQ indices are 0 and WQEs are gone. */
static void ordma_qp_reset(struct ordma_qp *qp)
{
	ordma_lock_cqs(qp);
	ordma_clean_cqs(qp);
	pthread_spin_lock(&qp->sq.lock);
	qp->sq.head = 0;
	qp->sq.tail = 0;
	pthread_spin_unlock(&qp->sq.lock);
	if (!qp->srq) {
		pthread_spin_lock(&qp->rq.lock);
		qp->rq.head = 0;
		qp->rq.tail = 0;
		pthread_spin_unlock(&qp->rq.lock);
	}
	ordma_unlock_cqs(qp);
}

int ordma_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ibv_modify_qp cmd = {};
	int ret;

	/* FLUSH grants included: the kernel translates every access bit */
	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (attr_mask & IBV_QP_QKEY)
		qp->qkey = attr->qkey;
	if (attr_mask & IBV_QP_STATE) {
		if (attr->qp_state == IBV_QPS_RESET)
			ordma_qp_reset(qp);
		__atomic_store_n(&qp->state, attr->qp_state, __ATOMIC_RELEASE);
	}
	return 0;
}

int ordma_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ibv_query_qp cmd = {};
	int ret;

	ret = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (ret)
		return ret;
	ordma_qp_caps(qp, &attr->cap);
	init_attr->cap = attr->cap;
	init_attr->sq_sig_all = qp->sig_all;
	return 0;
}

int ordma_destroy_qp(struct ibv_qp *ibqp)
{
	struct ordma_context *ctx = to_ordma_ctx(ibqp->context);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	/* no poller may be looking at the QP once it leaves the table */
	ordma_lock_cqs(qp);
	ordma_clean_cqs(qp);
	ordma_qp_table_del(ctx, qp->qpn);
	ordma_unlock_cqs(qp);
	ordma_qp_fini(qp);
	return 0;
}

static bool ordma_qp_in_reset(struct ordma_qp *qp)
{
	return __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == IBV_QPS_RESET;
}

int ordma_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct ordma_context *ctx = to_ordma_ctx(ibqp->context);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_wq *sq = &qp->sq;
	struct ordma_send_params p = {
		.ud = qp->ud,
		.uc = qp->uc,
		.iwarp = qp->iwarp,
		.sig_all = qp->sig_all,
		.max_sge = sq->max_sge,
		.max_inline = qp->max_inline,
		.qkey = qp->qkey,
	};
	uint32_t head;
	int ret = 0;

	pthread_spin_lock(&sq->lock);
	head = sq->head;
	/* the device does not refuse WQEs in RESET; IBTA does */
	if (ordma_qp_in_reset(qp))
		ret = EINVAL;
	for (; wr && !ret; wr = wr->next) {
		if (ordma_wq_full(sq, head)) {
			ret = ENOMEM;
			break;
		}
		if (qp->ud) {
			if (!wr->wr.ud.ah) {
				ret = EINVAL;
				break;
			}
			p.ah_handle = to_ordma_ah(wr->wr.ud.ah)->handle;
		}
		ret = ordma_build_send_wqe(ordma_wq_slot(sq, head),
					   sq->wqe_shift, wr, &p);
		if (ret)
			break;
		ordma_wq_set_wrid(sq, head++, wr->wr_id);
	}
	if (ret)
		*bad_wr = wr;
	ordma_wq_publish(ctx, sq, ORDMA_DB_SQ, qp->qpn, head);
	pthread_spin_unlock(&sq->lock);
	return ret;
}

/*
 * Extended posting (ibv_wr_*).  wr_start takes the SQ lock and
 * wr_complete or wr_abort drops it.  Each wr_<opcode> call starts a work
 * request in the batch's next slot (wr_id and wr_flags read from the
 * ibv_qp_ex at that point) and the setters that follow add its SGEs,
 * inline data or UD address, all with the segment encoders of
 * ibv_post_send.  A request is checked when the next one starts or at
 * wr_complete.  The first error (queue full, bad setter, too many SGEs,
 * inline too long, an opcode the QP type lacks) is latched: the rest of
 * the batch is ignored and wr_complete returns it with the SQ's head
 * where wr_start found it, so nothing of the batch is rung.  Otherwise
 * wr_complete publishes the new head with one barrier and one doorbell.
 */
static void ordma_qpx_latch(struct ordma_qp *qp, int err)
{
	if (!err)
		return;
	if (!qp->x.err)
		qp->x.err = err;
	qp->x.wqe = NULL;
}

/* Ends the request being built: checked, it takes its slot. */
static void ordma_qpx_finish(struct ordma_qp *qp)
{
	struct ordma_qpx *x = &qp->x;
	int err;

	if (!x->wqe)
		return;
	if (x->no_data)
		ordma_wqe_set_sges(x->wqe, qp->sq.wqe_shift, 0, NULL, 0);
	err = x->need_ah ? EINVAL : ordma_wqe_check(x->wqe);
	if (!err && qp->iwarp)
		err = ordma_wqe_check_iwarp(x->wqe);
	if (err) {
		ordma_qpx_latch(qp, err);
		return;
	}
	x->wqe = NULL;
	x->head++;
}

/* Starts a request of opcode op; NULL once the batch failed. */
static struct ordma_send_wqe *ordma_qpx_begin(struct ibv_qp_ex *ibqpx,
					      enum ibv_wr_opcode op)
{
	struct ordma_qp *qp = to_ordma_qpx(ibqpx);
	struct ordma_qpx *x = &qp->x;
	unsigned int flags = ibqpx->wr_flags;
	int opcode;

	ordma_qpx_finish(qp);
	if (x->err)
		return NULL;
	if (ordma_wq_full(&qp->sq, x->head)) {
		ordma_qpx_latch(qp, ENOMEM);
		return NULL;
	}
	opcode = ordma_wqe_opcode(op, qp->ud, qp->uc);
	if (opcode < 0 || flags & ~(unsigned int)ORDMA_QPX_WR_FLAGS) {
		ordma_qpx_latch(qp, EINVAL);
		return NULL;
	}
	x->need_ah = qp->ud;
	x->no_data = opcode == ORDMA_WQE_FLUSH ||
		     opcode == ORDMA_WQE_ATOMIC_WRITE;
	/* FLUSH and ATOMIC WRITE take no solicited event */
	if (x->no_data)
		flags &= ~(unsigned int)IBV_SEND_SOLICITED;
	x->wqe = ordma_wq_slot(&qp->sq, x->head);
	ordma_wqe_set_ctrl(x->wqe, opcode, flags, qp->sig_all);
	ordma_wq_set_wrid(&qp->sq, x->head, ibqpx->wr_id);
	return x->wqe;
}

/* The request a setter adds to; NULL (EINVAL latched) if none. */
static struct ordma_send_wqe *ordma_qpx_cur(struct ordma_qp *qp)
{
	if (!qp->x.wqe)
		ordma_qpx_latch(qp, EINVAL);
	return qp->x.wqe;
}

static void ordma_qpx_start(struct ibv_qp_ex *ibqpx)
{
	struct ordma_qp *qp = to_ordma_qpx(ibqpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->x.err = 0;
	qp->x.wqe = NULL;
	qp->x.head = qp->sq.head;
	/* as ibv_post_send: refused in RESET */
	if (ordma_qp_in_reset(qp))
		qp->x.err = EINVAL;
}

static void ordma_qpx_abort(struct ibv_qp_ex *ibqpx)
{
	struct ordma_qp *qp = to_ordma_qpx(ibqpx);

	qp->x.err = 0;
	qp->x.wqe = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

static int ordma_qpx_complete(struct ibv_qp_ex *ibqpx)
{
	struct ordma_context *ctx = to_ordma_ctx(ibqpx->qp_base.context);
	struct ordma_qp *qp = to_ordma_qpx(ibqpx);
	int err;

	ordma_qpx_finish(qp);
	err = qp->x.err;
	/* on error the slots written stay unannounced: the batch is gone */
	if (!err)
		ordma_wq_publish(ctx, &qp->sq, ORDMA_DB_SQ, qp->qpn, qp->x.head);
	ordma_qpx_abort(ibqpx);
	return err;
}

static void ordma_qpx_send(struct ibv_qp_ex *ibqpx)
{
	ordma_qpx_begin(ibqpx, IBV_WR_SEND);
}

static void ordma_qpx_send_imm(struct ibv_qp_ex *ibqpx, __be32 imm_data)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx, IBV_WR_SEND_WITH_IMM);

	if (w)
		ordma_wqe_set_imm(w, imm_data);
}

static void ordma_qpx_send_inv(struct ibv_qp_ex *ibqpx,
			       uint32_t invalidate_rkey)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx, IBV_WR_SEND_WITH_INV);

	if (w)
		ordma_wqe_set_inv(w, invalidate_rkey);
}

static void ordma_qpx_rdma_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				 uint64_t remote_addr)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx, IBV_WR_RDMA_WRITE);

	if (w)
		ordma_wqe_set_rdma(w, rkey, remote_addr);
}

static void ordma_qpx_rdma_write_imm(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				     uint64_t remote_addr, __be32 imm_data)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx,
						   IBV_WR_RDMA_WRITE_WITH_IMM);

	if (!w)
		return;
	ordma_wqe_set_imm(w, imm_data);
	ordma_wqe_set_rdma(w, rkey, remote_addr);
}

static void ordma_qpx_rdma_read(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				uint64_t remote_addr)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx, IBV_WR_RDMA_READ);

	if (w)
		ordma_wqe_set_rdma(w, rkey, remote_addr);
}

static void ordma_qpx_atomic_cmp_swp(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				     uint64_t remote_addr, uint64_t compare,
				     uint64_t swap)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx,
						   IBV_WR_ATOMIC_CMP_AND_SWP);

	if (w)
		ordma_wqe_set_atomic(w, rkey, remote_addr, compare, swap);
}

static void ordma_qpx_atomic_fetch_add(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				       uint64_t remote_addr, uint64_t add)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx,
						   IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (w)
		ordma_wqe_set_atomic(w, rkey, remote_addr, add, 0);
}

static void ordma_qpx_atomic_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				   uint64_t remote_addr, const void *atomic_wr)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx, IBV_WR_ATOMIC_WRITE);

	if (w)
		ordma_wqe_set_atomic_write(w, rkey, remote_addr, atomic_wr);
}

#ifndef ORDMA_VERBS_NO_FLUSH
static void ordma_qpx_flush(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			    uint64_t remote_addr, size_t len, uint8_t type,
			    uint8_t level)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx, IBV_WR_FLUSH);

	if (w)
		ordma_qpx_latch(to_ordma_qpx(ibqpx),
				ordma_wqe_set_flush(w, rkey, remote_addr, len,
						    type, level));
}
#endif

/* The rkey a type 2 window gets is the caller's to track, as with
 * ibv_post_send; mw->rkey is left alone.
 */
static void ordma_qpx_bind_mw(struct ibv_qp_ex *ibqpx, struct ibv_mw *mw,
			      uint32_t rkey,
			      const struct ibv_mw_bind_info *bind_info)
{
	struct ordma_send_wqe *w = ordma_qpx_begin(ibqpx, IBV_WR_BIND_MW);

	if (w)
		ordma_qpx_latch(to_ordma_qpx(ibqpx),
				ordma_wqe_set_bind_mw(w, mw, rkey, bind_info));
}

/* Operations create_qp_ex refuses; reached only by calling them anyway */
static void ordma_qpx_local_inv(struct ibv_qp_ex *ibqpx,
				uint32_t invalidate_rkey)
{
	ordma_qpx_latch(to_ordma_qpx(ibqpx), EOPNOTSUPP);
}

static void ordma_qpx_send_tso(struct ibv_qp_ex *ibqpx, void *hdr,
			       uint16_t hdr_sz, uint16_t mss)
{
	ordma_qpx_latch(to_ordma_qpx(ibqpx), EOPNOTSUPP);
}

static void ordma_qpx_set_xrc_srqn(struct ibv_qp_ex *ibqpx,
				   uint32_t remote_srqn)
{
	ordma_qpx_latch(to_ordma_qpx(ibqpx), EOPNOTSUPP);
}

static void ordma_qpx_set_ud_addr(struct ibv_qp_ex *ibqpx, struct ibv_ah *ah,
				  uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ordma_qp *qp = to_ordma_qpx(ibqpx);
	struct ordma_send_wqe *w = ordma_qpx_cur(qp);

	if (!w)
		return;
	if (!qp->ud || !ah) {
		ordma_qpx_latch(qp, EINVAL);
		return;
	}
	ordma_wqe_set_ud(w, to_ordma_ah(ah)->handle, remote_qpn, remote_qkey,
			 qp->qkey);
	qp->x.need_ah = false;
}

static void ordma_qpx_set_sge_list(struct ibv_qp_ex *ibqpx, size_t num_sge,
				   const struct ibv_sge *sg_list)
{
	struct ordma_qp *qp = to_ordma_qpx(ibqpx);
	struct ordma_send_wqe *w = ordma_qpx_cur(qp);

	if (w)
		ordma_qpx_latch(qp, ordma_wqe_set_sges(w, qp->sq.wqe_shift,
						       qp->sq.max_sge,
						       sg_list, num_sge));
}

static void ordma_qpx_set_sge(struct ibv_qp_ex *ibqpx, uint32_t lkey,
			      uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	ordma_qpx_set_sge_list(ibqpx, 1, &sge);
}

static void ordma_qpx_set_inline_data_list(struct ibv_qp_ex *ibqpx,
					   size_t num_buf,
					   const struct ibv_data_buf *buf_list)
{
	struct ordma_qp *qp = to_ordma_qpx(ibqpx);
	struct ordma_send_wqe *w = ordma_qpx_cur(qp);
	size_t i;

	if (!w)
		return;
	ordma_wqe_start_inline(w);
	for (i = 0; i < num_buf; i++)
		if (ordma_wqe_add_inline(w, qp->sq.wqe_shift, qp->max_inline,
					 buf_list[i].addr, buf_list[i].length)) {
			ordma_qpx_latch(qp, EINVAL);
			return;
		}
}

static void ordma_qpx_set_inline_data(struct ibv_qp_ex *ibqpx, void *addr,
				      size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	ordma_qpx_set_inline_data_list(ibqpx, 1, &buf);
}

void ordma_qpx_set_ops(struct ordma_qp *qp)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;

	x->comp_mask = 0;
	x->wr_start = ordma_qpx_start;
	x->wr_complete = ordma_qpx_complete;
	x->wr_abort = ordma_qpx_abort;
	/* every entry is set: an opcode the QP type lacks fails the batch */
	x->wr_send = ordma_qpx_send;
	x->wr_send_imm = ordma_qpx_send_imm;
	x->wr_send_inv = ordma_qpx_send_inv;
	x->wr_rdma_write = ordma_qpx_rdma_write;
	x->wr_rdma_write_imm = ordma_qpx_rdma_write_imm;
	x->wr_rdma_read = ordma_qpx_rdma_read;
	x->wr_atomic_cmp_swp = ordma_qpx_atomic_cmp_swp;
	x->wr_atomic_fetch_add = ordma_qpx_atomic_fetch_add;
	x->wr_local_inv = ordma_qpx_local_inv;
	x->wr_bind_mw = ordma_qpx_bind_mw;
	x->wr_send_tso = ordma_qpx_send_tso;
	x->wr_atomic_write = ordma_qpx_atomic_write;
#ifndef ORDMA_VERBS_NO_FLUSH
	x->wr_flush = ordma_qpx_flush;
#endif
	x->wr_set_xrc_srqn = ordma_qpx_set_xrc_srqn;
	x->wr_set_ud_addr = ordma_qpx_set_ud_addr;
	x->wr_set_sge = ordma_qpx_set_sge;
	x->wr_set_sge_list = ordma_qpx_set_sge_list;
	x->wr_set_inline_data = ordma_qpx_set_inline_data;
	x->wr_set_inline_data_list = ordma_qpx_set_inline_data_list;
}

int ordma_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct ordma_context *ctx = to_ordma_ctx(ibqp->context);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_wq *rq = &qp->rq;
	uint32_t head;
	int ret = 0;

	if (qp->srq) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&rq->lock);
	head = rq->head;
	if (ordma_qp_in_reset(qp))
		ret = EINVAL;
	for (; wr && !ret; wr = wr->next) {
		if (ordma_wq_full(rq, head)) {
			ret = ENOMEM;
			break;
		}
		ret = ordma_build_recv_wqe(ordma_wq_slot(rq, head),
					   rq->wqe_shift, wr, rq->max_sge);
		if (ret)
			break;
		ordma_wq_set_wrid(rq, head++, wr->wr_id);
	}
	if (ret)
		*bad_wr = wr;
	ordma_wq_publish(ctx, rq, ORDMA_DB_RQ, qp->qpn, head);
	pthread_spin_unlock(&rq->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

static void ordma_srq_fini(struct ordma_srq *srq)
{
	ordma_buf_free(&srq->ring);
	free(srq->busy);
	free(srq->wrid);
	pthread_spin_destroy(&srq->lock);
	free(srq);
}

struct ibv_srq *ordma_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr)
{
	struct ordma_uverbs_create_srq_resp resp = {};
	struct ordma_uverbs_create_srq cmd = {};
	struct ibv_srq_init_attr kattr;
	struct ordma_srq *srq;
	int log, shift, ret;

	log = ordma_log2_ceil(attr->attr.max_wr, 1, ORDMA_WQ_MAX_LOG_SIZE);
	shift = ordma_rq_wqe_shift(attr->attr.max_sge);
	if (log < 0 || shift < 0 || attr->attr.srq_limit > (1u << log)) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	ret = pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret) {
		free(srq);
		errno = ret;
		return NULL;
	}
	srq->log_size = log;
	srq->wqe_shift = shift;
	srq->max_sge = ordma_rq_max_sge(shift);
	srq->wrid = calloc(1u << log, sizeof(*srq->wrid));
	srq->busy = calloc(1u << log, sizeof(*srq->busy));
	if (!srq->wrid || !srq->busy) {
		ret = ENOMEM;
		goto err;
	}
	ret = ordma_buf_alloc(&srq->ring, (size_t)1 << (log + shift));
	if (ret)
		goto err;

	cmd.buf_addr = (uintptr_t)srq->ring.buf;
	cmd.log_size = log;
	cmd.wqe_shift = shift;
	kattr = *attr;
	kattr.attr.max_wr = 1u << log;
	kattr.attr.max_sge = srq->max_sge;
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, &kattr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		verbs_err(verbs_get_ctx(pd->context), "CREATE_SRQ failed: %d\n",
			  ret);
		goto err;
	}
	srq->srqn = resp.srqn;
	attr->attr.max_wr = 1u << log;
	attr->attr.max_sge = srq->max_sge;
	return &srq->vsrq.srq;

err:
	ordma_srq_fini(srq);
	errno = ret;
	return NULL;
}

int ordma_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	/* the ring cannot be resized */
	if (attr_mask & IBV_SRQ_MAX_WR)
		return EINVAL;
	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int ordma_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ordma_srq *srq = to_ordma_srq(ibsrq);
	struct ibv_query_srq cmd = {};
	int ret;

	ret = ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	attr->max_wr = 1u << srq->log_size;
	attr->max_sge = srq->max_sge;
	return 0;
}

int ordma_destroy_srq(struct ibv_srq *ibsrq)
{
	int ret = ibv_cmd_destroy_srq(ibsrq);

	if (ret)
		return ret;
	ordma_srq_fini(to_ordma_srq(ibsrq));
	return 0;
}

/*
 * The device takes SRQ WQEs in ring order, but their CQEs may come back
 * in any order (several QPs): a post needs the slot at the producer
 * index to have been polled.
 */
int ordma_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct ordma_context *ctx = to_ordma_ctx(ibsrq->context);
	struct ordma_srq *srq = to_ordma_srq(ibsrq);
	uint32_t mask = (1u << srq->log_size) - 1, head;
	int ret = 0;

	pthread_spin_lock(&srq->lock);
	head = srq->head;
	for (; wr; wr = wr->next) {
		uint32_t slot = head & mask;

		if (srq->busy[slot]) {
			ret = ENOMEM;
			break;
		}
		ret = ordma_build_recv_wqe((uint8_t *)srq->ring.buf +
					   ((size_t)slot << srq->wqe_shift),
					   srq->wqe_shift, wr, srq->max_sge);
		if (ret)
			break;
		srq->wrid[slot] = wr->wr_id;
		srq->busy[slot] = 1;
		srq->posted++;
		head++;
	}
	if (ret)
		*bad_wr = wr;
	if (head != srq->head) {
		udma_to_device_barrier();
		srq->head = head;
		ordma_ring_db(ctx, ORDMA_DB_SRQ, srq->srqn, head, 0);
	}
	pthread_spin_unlock(&srq->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Address handles                                                     */
/* ------------------------------------------------------------------ */

struct ibv_ah *ordma_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ordma_uverbs_create_ah_resp resp = {};
	struct ordma_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		verbs_debug(verbs_get_ctx(pd->context), "CREATE_AH failed: %d\n",
			    ret);
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->handle = resp.ah_handle;
	return &ah->ibv_ah;
}

int ordma_destroy_ah(struct ibv_ah *ibah)
{
	int ret = ibv_cmd_destroy_ah(ibah);

	if (ret)
		return ret;
	free(to_ordma_ah(ibah));
	return 0;
}
