/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA RDMA driver: device and object structures shared by its files.
 */
#ifndef _ORDMA_IB_H_
#define _ORDMA_IB_H_

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/ordma/driver.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * Lock order, outermost first; a lock is only ever taken with the ones
 * above it held, never the other way round:
 *
 *   ordma_cq.lock            kernel CQ: poll_cq, req_notify_cq, cq_clean
 *     xarray lock of qps     ordma_obj_get() of the QP a CQE names
 *     ordma_qp.sq.lock       ordma_wq_complete() retiring the WQE
 *       or ordma_qp.rq.lock
 *     or ordma_srq.wq.lock   (kernel SRQ: its slot is free again)
 *   ordma_qp.sq.lock         modify_qp sets the state under both queue
 *     ordma_qp.rq.lock       locks; post_send/post_recv take one each
 *
 * The xarray locks of cqs, qps and srqs are innermost: nothing is taken
 * under them but a reference.  All of these are IRQ-safe spinlocks,
 * since the core's EQ handlers call in from hard IRQ (under its RCU read
 * lock) and a ULP's comp_handler may poll the CQ from there.  Admin
 * commands sleep, so none is issued with any of these held; the only
 * locks held around one are the RDMA core's hw_stats and counter
 * mutexes and, inside them, ordma_ibdev.counter_lock (ordma_stats.c).
 */

/*
 * Counters rdma statistic shows for a port: per-QP sums, then the port's
 * from roce_rx_frames on that mean something on its link layer, the
 * faults injected into the function last.  Those are optional counters
 * (rdma statistic set ... optional-counters), off until asked for and
 * with short names: the kernel answers rdma statistic show in one netlink
 * message of about 3.7 KiB, which the counters before them fill to within
 * a few hundred bytes.  So an InfiniBand port shows ib_rx_drop_* in place
 * of the RoCEv2 parser's and PAUSE counters, an Ethernet port the reverse
 * (ordma_stats.c).  The Ethernet function's own counters before
 * roce_rx_frames are ethtool -S's.
 */
#define ORDMA_IB_PORT_STATS_FIRST	ORDMA_PORT_STAT_INDEX(roce_rx_frames)
/* the most port counters one link layer shows */
#define ORDMA_IB_PORT_STATS_MAX	\
	(ORDMA_PORT_STATS_NUM - ORDMA_IB_PORT_STATS_FIRST)
#define ORDMA_HW_STATS_MAX	(ORDMA_QP_STATS_NUM + ORDMA_IB_PORT_STATS_MAX)

/* SGE slots of a send WQE an inline address vector takes */
#define ORDMA_AV_SGE_SLOTS	(sizeof(struct ordma_av) / sizeof(struct ordma_sge))

struct ordma_ibdev {
	struct ib_device ibdev;
	struct ordma_core_dev *cdev;
	/* what the core tells about the device, read once at probe */
	struct ordma_core_info info;
	/* QUERY_DEVICE result; the capabilities do not change while bound */
	struct ordma_device_caps caps;
	/* firmware version packed as major << 32 | minor << 16 | sub_minor */
	u64 fw_ver;
	/* kernel doorbell page (page 0) */
	void __iomem *kdb;
	/* the port's link layer (QUERY_PORT at probe; fixed by the device) */
	u8 link_layer;		/* enum ordma_link_layer */
	/* an Ethernet port's RDMA protocol at probe (enum ordma_port_proto) */
	u8 rdma_protocol;
	/*
	 * InfiniBand: port events reach the RDMA core only once the device
	 * is registered (no netdev allocated the port data earlier).
	 */
	bool port_events;
	/*
	 * Objects that events name, by device number.  Events arrive in
	 * hard IRQ context: the arrays use IRQ-safe locking, and a lookup
	 * takes a reference on the object under the array's lock.
	 */
	struct xarray cqs;
	struct xarray qps;
	struct xarray srqs;
	/* iWARP port: listeners, connections, the address (ordma_iw.c) */
	struct ordma_iw *iw;
	/* source of the key variant byte of each new registration */
	atomic_t key_seq;
	/* DESTROY_AH of AHs destroyed in atomic context */
	struct workqueue_struct *wq;
	/*
	 * Names of the hardware counters as the RDMA core wants them: a QP
	 * counter has the first ORDMA_QP_STATS_NUM, the port all of them
	 * (the same per-QP counters summed over the device, then the port's
	 * own for its link layer: hw_stats_num in all, optional from
	 * hw_stats_optional on).
	 */
	struct rdma_stat_desc hw_stat_descs[ORDMA_HW_STATS_MAX];
	/* QUERY_STATS counter of each port counter the port shows */
	u8 port_stat_index[ORDMA_IB_PORT_STATS_MAX];
	unsigned int hw_stats_num;
	unsigned int hw_stats_optional;
	/* QP counters (ordma_stats.c): ordma_counter by rdma_counter id */
	struct mutex counter_lock;
	struct xarray counters;
	/* what QP counters freed since probe had counted */
	u64 counted_by_freed[ORDMA_QP_STATS_NUM];
};

/*
 * A host buffer as the device sees it: a page list, plus the table pages
 * of levels 1 and 2 (DMA-coherent, freed with the object).
 */
struct ordma_pbl {
	struct ordma_page_list hw;
	u32 num_tables;		/* level-1 tables (+1 top page for level 2) */
	void **table_va;
	dma_addr_t *table_dma;
};

/* A ring the kernel owns: one DMA-coherent, physically contiguous area */
struct ordma_kbuf {
	void *va;
	dma_addr_t dma;
	size_t size;
};

struct ordma_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	struct ordma_pbl pbl;
	u32 uctx_id;
	int access_flags;		/* user MRs: IB access at registration */
	/* fast-register MRs: the page array REG_MR work requests name */
	__le64 *pages;
	dma_addr_t pages_dma;
	u32 max_pages;
	u32 npages;
};

struct ordma_mw {
	struct ib_mw ibmw;
	u32 uctx_id;
};

/*
 * CQs, QPs and SRQs are looked up by number from event handlers, in hard
 * IRQ context.  A lookup takes a reference under the xarray's lock;
 * destroy erases the entry, then drops the object's own reference and
 * waits until the handlers that found it have put theirs.
 */
struct ordma_obj_ref {
	refcount_t count;
	struct completion free;	/* completed by the last put */
};

static inline void ordma_obj_ref_init(struct ordma_obj_ref *ref)
{
	refcount_set(&ref->count, 1);
	init_completion(&ref->free);
}

static inline void ordma_obj_ref_put(struct ordma_obj_ref *ref)
{
	if (refcount_dec_and_test(&ref->count))
		complete(&ref->free);
}

/* After the object left its xarray: no lookup can find it any more. */
static inline void ordma_obj_ref_drain(struct ordma_obj_ref *ref)
{
	ordma_obj_ref_put(ref);
	wait_for_completion(&ref->free);
}

void *ordma_xa_get(struct xarray *xa, unsigned long index, size_t ref_offset);

/* The @type object numbered @index in @xa with a reference, or NULL. */
#define ordma_obj_get(xa, index, type) \
	((type *)ordma_xa_get(xa, index, offsetof(type, ref)))

struct ordma_cq {
	struct ib_cq ibcq;
	u32 cqn;
	u32 uctx_id;
	u32 log_size;
	struct ordma_obj_ref ref;
	/* user CQ */
	struct ib_umem *umem;
	struct ib_umem *db_umem;
	struct ordma_pbl pbl;
	/* kernel CQ: ring followed by the doorbell record */
	struct ordma_kbuf kbuf;
	__le32 *db_record;
	spinlock_t lock;	/* kernel CQ: ci and polling */
	u32 ci;
	/*
	 * Kernel CQ the device writes no more CQEs to (CQ error, device
	 * fatal): the driver completes the outstanding work requests of its
	 * QPs itself, with IB_WC_WR_FLUSH_ERR, so that their consumers (the
	 * MAD layer, ULPs draining a QP) are not left waiting for ever.
	 * flush_work calls the completion handler to have them polled; after
	 * a CQ error (cq_error) it first takes the CQ's QPs to ERR on the
	 * device, which otherwise keeps running their work requests and
	 * could DMA to buffers the consumer freed on the flush completion.
	 */
	bool sw_flush;
	bool cq_error;
	struct work_struct flush_work;
};

struct ordma_wq {
	u32 log_size;
	u32 wqe_shift;
	u32 max_sge;
	/* user queue */
	struct ib_umem *umem;
	struct ordma_pbl pbl;
	/* kernel queue */
	struct ordma_kbuf kbuf;
	u64 *wr_id;
	u32 pi;			/* free-running producer index */
	u32 ci;			/* oldest uncompleted WQE */
	spinlock_t lock;
};

struct ordma_qp {
	struct ib_qp ibqp;
	u32 qpn;
	u32 uctx_id;
	u8 type;		/* enum ordma_qp_type */
	/* last state set by MODIFY_QP (posting is refused in RESET) */
	u8 state;
	bool sig_all;
	/* kernel UD/GSI: each send WQE carries its AH's address vector */
	bool av_inline;
	u32 max_inline_data;
	struct ordma_obj_ref ref;
	struct ordma_wq sq;
	struct ordma_wq rq;	/* unused with an SRQ */
	/* iWARP: the connection the QP is bound to, under ordma_iw.lock */
	struct ordma_iw_conn *iw_conn;
	/*
	 * Bound to a QP counter (ibqp.counter): on its list, and the
	 * device's counts of the QP when it was bound, under counter_lock.
	 */
	struct list_head counter_link;
	u64 counter_base[ORDMA_QP_STATS_NUM];
};

/* QP0 and QP1: the port's management QPs, created by the MAD layer */
static inline bool ordma_qp_is_special(const struct ordma_qp *qp)
{
	return qp->type == ORDMA_QPT_GSI || qp->type == ORDMA_QPT_SMI;
}

struct ordma_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	u32 uctx_id;
	u32 limit;
	struct ordma_obj_ref ref;
	/* ring geometry; a kernel SRQ also uses its kbuf, wr_id, pi, lock */
	struct ordma_wq wq;
	/*
	 * Kernel SRQ: slots whose WQE is posted and not yet completed.  The
	 * device takes WQEs in ring order but several QPs complete them in
	 * any order, so a slot is reused only once its CQE was polled.
	 */
	unsigned long *busy;
};

/*
 * A user AH is a device object (handle); a kernel AH is its address
 * vector, copied into every WQE that uses it, so that it can be created
 * where the caller cannot sleep (the MAD layer does).
 */
struct ordma_ah {
	struct ib_ah ibah;
	u32 handle;		/* 0 for a kernel AH */
	u32 uctx_id;
	struct ordma_av av;
};

struct ordma_ucontext {
	struct ib_ucontext ibucontext;
	/* device context id, also the index of its doorbell page in BAR2 */
	u32 uctx_id;
	struct rdma_user_mmap_entry *db_mmap_entry;
};

struct ordma_pd {
	struct ib_pd ibpd;
	u32 pdn;
	/* owning context: ORDMA_KERNEL_UCTX for kernel PDs */
	u32 uctx_id;
};

/* Every mmap entry is a page of device memory (a doorbell page). */
struct ordma_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	phys_addr_t address;
};

static inline struct ordma_ibdev *to_ordma_ibdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct ordma_ibdev, ibdev);
}

static inline struct ordma_ucontext *
to_ordma_ucontext(struct ib_ucontext *ibucontext)
{
	return container_of(ibucontext, struct ordma_ucontext, ibucontext);
}

static inline struct ordma_pd *to_ordma_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct ordma_pd, ibpd);
}

static inline struct ordma_mr *to_ordma_mr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct ordma_mr, ibmr);
}

static inline struct ordma_mw *to_ordma_mw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct ordma_mw, ibmw);
}

static inline struct ordma_cq *to_ordma_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct ordma_cq, ibcq);
}

static inline struct ordma_qp *to_ordma_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct ordma_qp, ibqp);
}

static inline struct ordma_srq *to_ordma_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct ordma_srq, ibsrq);
}

static inline struct ordma_ah *to_ordma_ah(struct ib_ah *ibah)
{
	return container_of(ibah, struct ordma_ah, ibah);
}

/* Owner of objects created with @udata: the user context, or the kernel */
static inline u32 ordma_udata_uctx(struct ib_udata *udata)
{
	struct ordma_ucontext *uctx;

	if (!udata)
		return ORDMA_KERNEL_UCTX;
	uctx = rdma_udata_to_drv_context(udata, struct ordma_ucontext,
					 ibucontext);
	return uctx->uctx_id;
}

static inline struct ordma_user_mmap_entry *
to_ordma_mmap_entry(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct ordma_user_mmap_entry,
			    rdma_entry);
}

/*
 * Memory the driver hands to the device (queue rings, MTT and page-list
 * tables, fast-register page arrays) is freed only once the device no
 * longer uses it; memory the device may still use is leaked on purpose,
 * never freed.  The object's create command (CREATE_CQ/QP/SRQ, REG_MR,
 * also REREG's new pages) hands it over, its destroy command (DESTROY_*,
 * DEREG_MR) takes it back.
 */
enum ordma_mem_cmd {
	ORDMA_MEM_CREATE,
	ORDMA_MEM_DESTROY,
};

/* ordma_cmd.c */
__printf(3, 4)
void ordma_report_destroy(struct ordma_ibdev *dev, int err,
			  const char *fmt, ...);
/*
 * ordma_device_may_use_memory() - may the device use the memory after
 * the command returned @err?
 *
 * True: keep the memory allocated and DMA-mapped (leak it); false: free
 * it.  After 0, a create hands the memory over (true) and a destroy takes
 * it back (false).  -ENODEV and -ENOENT (no such object in the device):
 * false, the device cannot DMA or holds nothing.  -ETIMEDOUT and -EIO
 * (no answer, or one that is garbled or reports an internal error): true,
 * the device may execute the command late.  Any other error: the device
 * did nothing, so a create gave nothing (false) and a destroy left the
 * object live (true).
 */
bool ordma_device_may_use_memory(enum ordma_mem_cmd cmd, int err);
/*
 * Verbs commands: 0 or the errno of ordma_client_cmd().  The callers fill
 * the command payloads in device layout; reserved fields must be zero.
 * Every object is owned by @uctx (ORDMA_KERNEL_UCTX for kernel objects);
 * destroy commands pass the same owner.
 */
int ordma_cmd_add_gid(struct ordma_ibdev *dev, u32 index, u8 type,
		      const u8 gid[16], const u8 mac[6], u16 vlan_id);
int ordma_cmd_del_gid(struct ordma_ibdev *dev, u32 index);
/* On success *uctx is the context id and its doorbell page index. */
int ordma_cmd_alloc_uctx(struct ordma_ibdev *dev, u32 *uctx);
int ordma_cmd_dealloc_uctx(struct ordma_ibdev *dev, u32 uctx);
int ordma_cmd_alloc_pd(struct ordma_ibdev *dev, u32 uctx, u32 *pdn);
int ordma_cmd_dealloc_pd(struct ordma_ibdev *dev, u32 uctx, u32 pdn);
/* On success *key is the new MR's lkey and rkey. */
int ordma_cmd_reg_mr(struct ordma_ibdev *dev,
		     const struct ordma_cmd_reg_mr *params, u32 *key);
int ordma_cmd_dereg_mr(struct ordma_ibdev *dev, u32 uctx, u32 key);
/* On success *rkey is the new window's first rkey. */
int ordma_cmd_alloc_mw(struct ordma_ibdev *dev,
		       const struct ordma_cmd_alloc_mw *params, u32 *rkey);
int ordma_cmd_dealloc_mw(struct ordma_ibdev *dev, u32 uctx, u32 rkey);
int ordma_cmd_create_cq(struct ordma_ibdev *dev,
			const struct ordma_cmd_create_cq *params, u32 *cqn);
int ordma_cmd_destroy_cq(struct ordma_ibdev *dev, u32 uctx, u32 cqn);
int ordma_cmd_query_cq(struct ordma_ibdev *dev, u32 cqn,
		       struct ordma_cq_attr *attr);
int ordma_cmd_create_srq(struct ordma_ibdev *dev,
			 const struct ordma_cmd_create_srq *params, u32 *srqn);
int ordma_cmd_modify_srq(struct ordma_ibdev *dev, u32 uctx, u32 srqn,
			 u32 limit);
int ordma_cmd_destroy_srq(struct ordma_ibdev *dev, u32 uctx, u32 srqn);
int ordma_cmd_create_ah(struct ordma_ibdev *dev,
			const struct ordma_cmd_create_ah *params, u32 *ah);
int ordma_cmd_destroy_ah(struct ordma_ibdev *dev, u32 uctx, u32 ah);
int ordma_cmd_mcast(struct ordma_ibdev *dev, bool attach, u32 uctx, u32 qpn,
		    const u8 gid[16]);
/* The QP commands pass their parameters in a buffer of the admin queue. */
int ordma_cmd_create_qp(struct ordma_ibdev *dev,
			const struct ordma_qp_create_params *params, u32 *qpn);
int ordma_cmd_modify_qp(struct ordma_ibdev *dev, u32 qpn,
			const struct ordma_qp_attr *attr);
int ordma_cmd_query_qp(struct ordma_ibdev *dev, u32 qpn,
		       struct ordma_qp_attr *attr);
int ordma_cmd_destroy_qp(struct ordma_ibdev *dev, u32 uctx, u32 qpn);
/* @qpn, or ORDMA_QP_STATS_ALL for the device's totals */
int ordma_cmd_query_qp_stats(struct ordma_ibdev *dev, u32 qpn,
			     struct ordma_qp_stats *stats);

/* iWARP connections; on success *handle names the listener or connection */
int ordma_cmd_iw_create_listen(struct ordma_ibdev *dev, const u8 ip[16],
			       u16 port, u16 backlog, u32 *handle);
int ordma_cmd_iw_destroy_listen(struct ordma_ibdev *dev, u32 handle);
int ordma_cmd_iw_destroy_conn(struct ordma_ibdev *dev, u32 handle,
			      u32 flags);
int ordma_cmd_iw_conn_params(struct ordma_ibdev *dev, u8 opcode,
			     const struct ordma_iw_conn_params *params,
			     u32 *handle);
int ordma_cmd_iw_query_conn(struct ordma_ibdev *dev, u32 handle,
			    struct ordma_iw_conn_info *info);

/* ordma_verbs.c */
int ordma_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata);
int ordma_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr);
int ordma_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer ordma_get_link_layer(struct ib_device *ibdev, u32 port);
int ordma_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int ordma_add_gid(const struct ib_gid_attr *attr, void **context);

/* ordma_iw.c: an iWARP port */
static inline bool ordma_port_is_iwarp(const struct ordma_ibdev *dev)
{
	return dev->link_layer == ORDMA_LINK_LAYER_ETHERNET &&
	       dev->rdma_protocol == ORDMA_PORT_PROTO_IWARP;
}

struct iw_cm_id;
struct iw_cm_conn_param;
struct ordma_eqe;

int ordma_iw_init(struct ordma_ibdev *dev);
void ordma_iw_start(struct ordma_ibdev *dev);
void ordma_iw_stop(struct ordma_ibdev *dev);
void ordma_iw_free(struct ordma_ibdev *dev);
void ordma_iw_event(struct ordma_ibdev *dev, const struct ordma_eqe *eqe);
bool ordma_iw_qp_close(struct ordma_ibdev *dev, struct ordma_qp *qp,
		       bool graceful);

int ordma_iw_query_gid(struct ib_device *ibdev, u32 port, int index,
		       union ib_gid *gid);
void ordma_iw_add_ref(struct ib_qp *ibqp);
void ordma_iw_rem_ref(struct ib_qp *ibqp);
struct ib_qp *ordma_iw_get_qp(struct ib_device *ibdev, int qpn);
int ordma_iw_connect(struct iw_cm_id *cm_id,
		     struct iw_cm_conn_param *conn_param);
int ordma_iw_accept(struct iw_cm_id *cm_id,
		    struct iw_cm_conn_param *conn_param);
int ordma_iw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len);
int ordma_iw_create_listen(struct iw_cm_id *cm_id, int backlog);
int ordma_iw_destroy_listen(struct iw_cm_id *cm_id);

/* ordma_ib_port.c: an InfiniBand port */
static inline bool ordma_port_is_ib(const struct ordma_ibdev *dev)
{
	return dev->link_layer == ORDMA_LINK_LAYER_INFINIBAND;
}

void ordma_ib_fill_port_attr(struct ordma_ibdev *dev,
			     const struct ordma_port_attr *hw,
			     struct ib_port_attr *attr);
int ordma_ib_query_pkey(struct ordma_ibdev *dev, u16 index, u16 *pkey);
int ordma_ib_query_gid(struct ib_device *ibdev, u32 port, int index,
		       union ib_gid *gid);
int ordma_ib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			 struct ib_port_modify *props);
int ordma_ib_set_node_desc(struct ordma_ibdev *dev, const char *desc);
int ordma_ib_modify_device(struct ib_device *ibdev, int mask,
			   struct ib_device_modify *props);
int ordma_ib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
			 const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			 const struct ib_mad *in, struct ib_mad *out,
			 size_t *out_mad_size, u16 *out_mad_pkey_index);
void ordma_ib_port_event(struct ordma_ibdev *dev, u32 state, u32 changed);
void ordma_ib_port_registered(struct ordma_ibdev *dev);
int ordma_del_gid(const struct ib_gid_attr *attr, void **context);
void ordma_get_dev_fw_str(struct ib_device *ibdev, char *str);
int ordma_alloc_ucontext(struct ib_ucontext *ibucontext,
			 struct ib_udata *udata);
void ordma_dealloc_ucontext(struct ib_ucontext *ibucontext);
void ordma_disassociate_ucontext(struct ib_ucontext *ibucontext);
int ordma_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma);
void ordma_mmap_free(struct rdma_user_mmap_entry *rdma_entry);
int ordma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int ordma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int ordma_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int ordma_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq);
int ordma_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int ordma_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp);
int ordma_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int ordma_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq);

/* ordma_mr.c */
int ordma_pbl_from_umem(struct ordma_ibdev *dev, struct ib_umem *umem,
			unsigned long pgsz, struct ordma_pbl *pbl);
void ordma_pbl_free(struct ordma_ibdev *dev, struct ordma_pbl *pbl);
int ordma_kbuf_alloc(struct ordma_ibdev *dev, struct ordma_kbuf *kbuf,
		     size_t size, struct ordma_page_list *pl);
void ordma_kbuf_free(struct ordma_ibdev *dev, struct ordma_kbuf *kbuf);
struct ib_umem *ordma_umem_ring(struct ordma_ibdev *dev, u64 addr,
				size_t size, struct ordma_pbl *pbl);
struct ib_mr *ordma_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access_flags,
				struct ib_udata *udata);
struct ib_mr *ordma_get_dma_mr(struct ib_pd *ibpd, int access_flags);
struct ib_mr *ordma_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			     u32 max_num_sg);
int ordma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
struct ib_mr *ordma_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access_flags,
				  struct ib_pd *ibpd, struct ib_udata *udata);
int ordma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int ordma_access_to_hw(int ib_access, u32 *hw_access);
int ordma_access_check_port(const struct ordma_ibdev *dev, int ib_access);

/* ordma_mw.c */
int ordma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int ordma_dealloc_mw(struct ib_mw *ibmw);

/* ordma_cq.c */
int ordma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs);
int ordma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int ordma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int ordma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void ordma_cq_comp_event(struct ordma_ibdev *dev, u32 cqn);
void ordma_cq_async_event(struct ordma_ibdev *dev, u32 cqn,
			  enum ib_event_type type);
void ordma_cq_clean(struct ordma_cq *cq, u32 qpn, struct ordma_srq *srq);
void ordma_cq_kick_sw_flush(struct ordma_ibdev *dev, struct ib_cq *ibcq);
void ordma_cq_flush_all(struct ordma_ibdev *dev);

/* Whether the driver completes @ibcq's work requests (kernel CQs only) */
static inline bool ordma_cq_sw_flushed(struct ib_cq *ibcq)
{
	return ibcq && READ_ONCE(to_ordma_cq(ibcq)->sw_flush);
}

/* ordma_qp.c */
int ordma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		    struct ib_udata *udata);
int ordma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_udata *udata);
int ordma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		   int attr_mask, struct ib_qp_init_attr *init_attr);
int ordma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int ordma_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int ordma_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int ordma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int ordma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
void ordma_qp_async_event(struct ordma_ibdev *dev, u32 qpn,
			  enum ib_event_type type);
void ordma_av_to_ah_attr(struct ordma_ibdev *dev, const struct ordma_av *av,
			 struct rdma_ah_attr *ah_attr);
int ordma_av_from_ah_attr(struct ordma_ibdev *dev,
			  const struct rdma_ah_attr *ah_attr,
			  struct ordma_av *av);

/* ordma_wq.c: kernel rings of QPs and SRQs */
int ordma_kernel_wq_alloc(struct ordma_ibdev *dev, struct ordma_wq *wq,
			  u32 max_wr, u32 wqe_bytes, u32 min_shift,
			  struct ordma_page_list *pl);
/* Bytes of a receive WQE (RQ or SRQ) with @max_sge SGEs (at least one) */
u32 ordma_recv_wqe_bytes(u32 max_sge);
u32 ordma_recv_wqe_sges(u32 wqe_shift);
/* The WQE of free-running index @idx */
void *ordma_wq_slot(struct ordma_wq *wq, u32 idx);
bool ordma_wq_full(const struct ordma_wq *wq);
void ordma_set_sges(struct ordma_sge *dst, const struct ib_sge *src,
		    int num_sge);
void ordma_wq_put_recv(struct ordma_wq *wq, const struct ib_recv_wr *wr);
void ordma_ring_wq_db(struct ordma_ibdev *dev, u32 reg, u32 qn, u32 pi);

/* ordma_srq.c */
int ordma_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		     struct ib_udata *udata);
int ordma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask attr_mask, struct ib_udata *udata);
int ordma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int ordma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int ordma_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
/* Kernel SRQ: the wr_id of the WQE in @slot, whose slot is free again */
u64 ordma_srq_complete(struct ordma_srq *srq, u32 slot);
void ordma_srq_async_event(struct ordma_ibdev *dev, u32 srqn,
			   enum ib_event_type type);

/* ordma_ah.c */
int ordma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata);
int ordma_destroy_ah(struct ib_ah *ibah, u32 flags);
int ordma_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr);

/* ordma_stats.c */
struct rdma_hw_stats *ordma_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port);
int ordma_modify_hw_stat(struct ib_device *ibdev, u32 port,
			 unsigned int index, bool enable);
int ordma_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);
struct rdma_hw_stats *ordma_counter_alloc_stats(struct rdma_counter *counter);
int ordma_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int ordma_counter_unbind_qp(struct ib_qp *ibqp);
int ordma_counter_update_stats(struct rdma_counter *counter);
int ordma_counter_dealloc(struct rdma_counter *counter);

#endif /* _ORDMA_IB_H_ */
