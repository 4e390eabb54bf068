/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * ORDMA hardware interface: the data path.  Everything the device and
 * software exchange through queues in host memory and doorbell pages:
 * doorbells, work queue elements, completion and event queue entries,
 * Ethernet descriptors, and the queue limits a driver or the userspace
 * provider must respect.  The provider includes only this header.
 */
#ifndef _LINUX_ORDMA_IO_H
#define _LINUX_ORDMA_IO_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#else
#include <assert.h>		/* static_assert */
#include <stddef.h>		/* offsetof */
#endif

/* ------------------------------------------------------------------ */
/* PCI identity (what software matches a device by)                   */
/* ------------------------------------------------------------------ */

#define ORDMA_PCI_VENDOR_ID		0x1234
#define ORDMA_PCI_DEVICE_ID		0x4f52
#define ORDMA_PCI_REVISION		0x01
#define ORDMA_PCI_CLASS			0x020000	/* Ethernet controller */

/* ------------------------------------------------------------------ */
/* Doorbell pages (BAR2, 64-bit writes only)                          */
/* ------------------------------------------------------------------ */

#define ORDMA_DB_PAGE_SHIFT		12
#define ORDMA_DB_PAGE_SIZE		BIT(ORDMA_DB_PAGE_SHIFT)

/* Doorbell page 0 belongs to the kernel driver (uctx 0). */
#define ORDMA_KERNEL_UCTX		0

#define ORDMA_DB_SQ			0x000	/* QN = qpn,  IDX = SQ pi */
#define ORDMA_DB_RQ			0x008	/* QN = qpn,  IDX = RQ pi */
#define ORDMA_DB_SRQ			0x010	/* QN = srqn, IDX = pi */
#define ORDMA_DB_CQ			0x018	/* QN = cqn,  IDX = ci, ARM/SOLICITED */
/* The following are honoured on the kernel page (page 0) only. */
#define ORDMA_DB_EQ			0x020	/* QN = eqn,  IDX = ci, ARM */
#define ORDMA_DB_ETH_PI			0x028	/* QN = ring, IDX = pi */
#define ORDMA_DB_ETH_ARM		0x030	/* QN = ring, IDX = ci, ARM */

#define   ORDMA_DB_QN			GENMASK_ULL(23, 0)
#define   ORDMA_DB_SOLICITED		BIT_ULL(30)
#define   ORDMA_DB_ARM			BIT_ULL(31)
#define   ORDMA_DB_IDX			GENMASK_ULL(63, 32)

/* ------------------------------------------------------------------ */
/* Queue limits                                                       */
/* ------------------------------------------------------------------ */

/* Send and receive queues (RQ, SRQ): 2^log_size WQEs */
#define ORDMA_WQ_MIN_LOG_SIZE		1
#define ORDMA_WQ_MAX_LOG_SIZE		12
/* Completion queues: 2^log_size CQEs */
#define ORDMA_CQ_MIN_LOG_SIZE		1
#define ORDMA_CQ_MAX_LOG_SIZE		16
/* Per WQE; QUERY_DEVICE reports the same numbers */
#define ORDMA_MAX_SEND_SGE		8
#define ORDMA_MAX_RECV_SGE		8
#define ORDMA_MAX_INLINE_DATA		256

/* ------------------------------------------------------------------ */
/* Memory keys and addresses                                          */
/* ------------------------------------------------------------------ */

/* MR access rights (REG_MR access, fast-register WQE access) */
#define ORDMA_ACCESS_LOCAL_WRITE	BIT(0)
#define ORDMA_ACCESS_REMOTE_WRITE	BIT(1)
#define ORDMA_ACCESS_REMOTE_READ	BIT(2)
#define ORDMA_ACCESS_REMOTE_ATOMIC	BIT(3)
#define ORDMA_ACCESS_MW_BIND		BIT(4)	/* MR: windows may be bound */
#define ORDMA_ACCESS_FLUSH_GLOBAL	BIT(5)	/* FLUSH, global visibility */
#define ORDMA_ACCESS_FLUSH_PERSISTENT	BIT(6)	/* FLUSH, persistence */
#define ORDMA_ACCESS_ZERO_BASED		BIT(7)	/* BIND_MW: addresses from 0 */
#define ORDMA_ACCESS_ALL		GENMASK(7, 0)

/* lkey = rkey = index << 8 | key byte chosen by the driver */
#define ORDMA_KEY_INDEX			GENMASK(31, 8)
#define ORDMA_KEY_VARIANT		GENMASK(7, 0)

#define ORDMA_VLAN_NONE			0xffff

/* ordma_av.ib_flags (InfiniBand port) */
#define ORDMA_AV_IB_GLOBAL		BIT(0)	/* packets carry a GRH */

/*
 * Address vector: where the packets of a QP/AH go.  The port's link layer
 * (QUERY_PORT link_layer) says which half of the union the device reads.
 *
 * Ethernet (RoCEv2): dgid, dmac, sgid_index, hop_limit, flow_label,
 * traffic_class and vlan_id address the frame.
 *
 * InfiniBand: dlid and sl build the LRH; the SLID is the port's LID with
 * src_path_bits in its low LMC bits (bits of src_path_bits at or above
 * the port's LMC are ignored).  Only with ORDMA_AV_IB_GLOBAL does a GRH
 * follow the LRH, built from dgid, sgid_index, hop_limit, flow_label and
 * traffic_class; without it those fields are not read.  vlan_id is
 * ignored.
 */
struct ordma_av {
	__u8	dgid[16];		/* network order; IPv4 as ::ffff:a.b.c.d */
	union {
		__u8	dmac[6];	/* Ethernet */
		struct {		/* InfiniBand */
			__le16	dlid;	/* 1..0xfffe */
			__u8	sl;	/* 0..15 */
			__u8	src_path_bits;
			__u8	ib_flags;	/* ORDMA_AV_IB_* */
			__u8	reserved_21;
		};
	};
	__u8	sgid_index;
	__u8	hop_limit;
	__le32	flow_label;		/* 20 bits */
	__u8	traffic_class;
	__u8	reserved_29;
	__le16	vlan_id;		/* 0..4095 or ORDMA_VLAN_NONE */
};

/* ------------------------------------------------------------------ */
/* Event queues                                                        */
/* ------------------------------------------------------------------ */

#define ORDMA_EQE_SIZE			16
#define ORDMA_EQE_TYPE			GENMASK(7, 0)
#define ORDMA_EQE_PHASE			BIT(31)

enum ordma_eqe_type {
	ORDMA_EQE_COMP			= 0x01,	/* data[0] = cqn */
	ORDMA_EQE_ETH			= 0x02,	/* data[0] = ring id */
	ORDMA_EQE_PORT_CHANGE		= 0x10,	/* data[0] = port, [1] = state */
	ORDMA_EQE_DB_ERROR		= 0x11,	/* data[0] = page, [1] = offset in page,
						 * [2] = QN
						 */
	/* verbs (v1.1) */
	ORDMA_EQE_QP_FATAL		= 0x20,
	ORDMA_EQE_QP_REQ_ERR		= 0x21,
	ORDMA_EQE_QP_ACCESS_ERR		= 0x22,
	ORDMA_EQE_QP_COMM_EST		= 0x23,
	ORDMA_EQE_QP_SQ_DRAINED		= 0x24,
	ORDMA_EQE_QP_LAST_WQE		= 0x25,
	ORDMA_EQE_CQ_ERR		= 0x26,
	ORDMA_EQE_SRQ_LIMIT		= 0x27,
	ORDMA_EQE_ETH_RING_ERR		= 0x28,	/* data[0] = ring id */
	/* iWARP connections (ordma_admin.h, IW_*): data[0] = connection */
	ORDMA_EQE_IW_CONN_REQUEST	= 0x30,	/* [1] = listener */
	ORDMA_EQE_IW_CONN_REPLY		= 0x31,	/* [1] = ordma_iw_status,
						 * [2] = qpn
						 */
	ORDMA_EQE_IW_ESTABLISHED	= 0x32,	/* [2] = qpn */
	ORDMA_EQE_IW_DISCONNECT		= 0x33,	/* peer's FIN; [2] = qpn */
	ORDMA_EQE_IW_CLOSED		= 0x34,	/* [1] = ordma_iw_status,
						 * [2] = qpn
						 */
};

struct ordma_eqe {
	__le32	data[3];
	__le32	type;			/* ORDMA_EQE_TYPE | ORDMA_EQE_PHASE */
};

/* ------------------------------------------------------------------ */
/* Ethernet rings                                                      */
/* ------------------------------------------------------------------ */

#define ORDMA_ETH_DESC_SIZE		16
#define ORDMA_ETH_DESC_LEN		GENMASK(15, 0)
#define ORDMA_ETH_DESC_ERR		BIT(30)
#define ORDMA_ETH_DESC_DONE		BIT(31)

/* Minimum frame the device transmits (no FCS); shorter frames are padded */
#define ORDMA_ETH_MIN_FRAME		60
/* Ethernet header plus one VLAN tag on top of the MTU */
#define ORDMA_ETH_OVERHEAD		18
#define ORDMA_ETH_MAX_MTU		9000
#define ORDMA_ETH_DEFAULT_MTU		1500

struct ordma_eth_desc {
	__le64	addr;			/* DMA address of the frame buffer */
	__le32	len_flags;		/* LEN: TX frame / RX buffer length;
					 * device writes back LEN (RX) | DONE
					 */
	__le32	reserved_12;
};

/* ------------------------------------------------------------------ */
/* Verbs data path (v1.1)                                              */
/* ------------------------------------------------------------------ */

/* Work queue elements.  A send WQE is 2^sq_wqe_shift bytes: a 16-byte
 * control segment, a 32-byte operation segment, then SGEs (16 bytes each)
 * or inline data up to the end of the WQE.
 */
#define ORDMA_WQE_OPCODE		GENMASK(7, 0)
#define ORDMA_WQE_NUM_SGE		GENMASK(12, 8)
#define ORDMA_WQE_SIGNALED		BIT(16)
#define ORDMA_WQE_SOLICITED		BIT(17)
#define ORDMA_WQE_FENCE			BIT(18)
#define ORDMA_WQE_INLINE		BIT(19)
/* UD/GSI: a struct ordma_av follows the 48-byte header in place of the
 * first two SGEs (ud.ah is ignored); the SGEs or inline data follow it.
 */
#define ORDMA_WQE_AV_INLINE		BIT(20)
#define ORDMA_SEND_WQE_MIN_SHIFT	6
#define ORDMA_SEND_WQE_MAX_SHIFT	9
#define ORDMA_SEND_WQE_HDR_SIZE		48

enum ordma_wqe_opcode {
	ORDMA_WQE_SEND			= 0x00,
	ORDMA_WQE_SEND_IMM		= 0x01,
	ORDMA_WQE_SEND_INV		= 0x02,
	ORDMA_WQE_RDMA_WRITE		= 0x03,
	ORDMA_WQE_RDMA_WRITE_IMM	= 0x04,
	ORDMA_WQE_RDMA_READ		= 0x05,
	ORDMA_WQE_ATOMIC_CMP_SWP	= 0x06,
	ORDMA_WQE_ATOMIC_FETCH_ADD	= 0x07,
	ORDMA_WQE_LOCAL_INV		= 0x08,
	ORDMA_WQE_REG_MR		= 0x09,
	ORDMA_WQE_BIND_MW		= 0x0a,
	ORDMA_WQE_FLUSH			= 0x0b,
	ORDMA_WQE_ATOMIC_WRITE		= 0x0c,
	/* iWARP ports: an RDMA READ that invalidates its sink's STag (the
	 * lkey of its one SGE) once the data is placed (RDMA Read with
	 * local invalidate); imm_inv is ignored
	 */
	ORDMA_WQE_RDMA_READ_INV		= 0x0d,
};

struct ordma_wqe_ctrl {
	__le32	ctrl;			/* ORDMA_WQE_OPCODE | NUM_SGE | flags */
	__le32	imm_inv;		/* immediate (as sent) or rkey to invalidate */
	__le32	inline_len;		/* with ORDMA_WQE_INLINE */
	__le32	reserved_12;
};

struct ordma_wqe_rdma {			/* WRITE, WRITE_IMM, READ, READ_INV */
	__le64	remote_addr;
	__le32	rkey;
	__le32	reserved_12;
	__le64	reserved_16;
	__le64	reserved_24;
};

struct ordma_wqe_atomic {		/* CMP_SWP, FETCH_ADD */
	__le64	remote_addr;
	__le32	rkey;
	__le32	reserved_12;
	__le64	compare_add;
	__le64	swap;
};

struct ordma_wqe_ud {			/* SEND* on UD */
	__le32	ah;			/* CREATE_AH handle */
	__le32	remote_qpn;
	__le32	remote_qkey;
	__le32	reserved_12;
	__le64	reserved_16;
	__le64	reserved_24;
};

struct ordma_wqe_reg_mr {		/* REG_MR (fast registration) */
	__le64	iova;
	__le64	length;
	__le64	page_list;		/* DMA address of __le64 page addresses */
	__le32	key;			/* new lkey/rkey of the fast-reg MR */
	__le16	num_pages;
	__u8	page_shift;
	__u8	access;			/* ORDMA_ACCESS_* */
};

struct ordma_wqe_bind_mw {		/* BIND_MW (types 1 and 2) */
	__le64	addr;			/* start of the window in the MR */
	__le64	length;			/* 0 unbinds a type 1 window */
	__le32	mw_rkey;		/* window index | new ORDMA_KEY_VARIANT */
	__le32	mr_lkey;		/* the MR the window lies in */
	__le32	access;			/* ORDMA_ACCESS_REMOTE_* | ZERO_BASED */
	__le32	reserved_28;
};

/* FLUSH placement type and selectivity level (IBTA 1.5, FETH) */
#define ORDMA_FLUSH_GLOBAL		BIT(0)
#define ORDMA_FLUSH_PERSISTENT		BIT(1)
#define ORDMA_FLUSH_LEVEL_RANGE		0	/* remote_addr..+length */
#define ORDMA_FLUSH_LEVEL_MR		1	/* the whole MR of rkey */

struct ordma_wqe_flush {			/* FLUSH */
	__le64	remote_addr;
	__le32	rkey;
	__le32	length;
	__u8	placement;		/* ORDMA_FLUSH_GLOBAL | PERSISTENT */
	__u8	level;			/* ORDMA_FLUSH_LEVEL_* */
	__le16	reserved_18;
	__le32	reserved_20;
	__le64	reserved_24;
};

struct ordma_wqe_atomic_write {		/* ATOMIC_WRITE: 8 bytes, aligned */
	__le64	remote_addr;
	__le32	rkey;
	__le32	reserved_12;
	__u8	value[8];		/* written as is, in one access */
	__le64	reserved_24;
};

struct ordma_send_wqe {
	struct ordma_wqe_ctrl ctrl;
	union {
		struct ordma_wqe_rdma	rdma;
		struct ordma_wqe_atomic	atomic;
		struct ordma_wqe_ud	ud;
		struct ordma_wqe_reg_mr	reg_mr;
		struct ordma_wqe_bind_mw bind_mw;
		struct ordma_wqe_flush	flush;
		struct ordma_wqe_atomic_write atomic_write;
		__u8			raw[32];
	};
	/* struct ordma_sge sge[] or inline data follow */
};

struct ordma_sge {
	__le64	addr;
	__le32	length;
	__le32	lkey;
};

/* A receive WQE is 2^rq_wqe_shift bytes: a 16-byte header, then SGEs. */
#define ORDMA_RECV_WQE_MIN_SHIFT	5
#define ORDMA_RECV_WQE_MAX_SHIFT	8

struct ordma_recv_wqe {
	__le32	num_sge;
	__le32	reserved_4;
	__le64	reserved_8;
	/* struct ordma_sge sge[] follow */
};

#define ORDMA_CQE_SIZE			32
#define ORDMA_CQE_PHASE			BIT(31)

#define ORDMA_CQE_F_IMM			BIT(0)
#define ORDMA_CQE_F_INV			BIT(1)
/* UD/GSI/SMI receives: the first 40 bytes of the buffer hold the packet's
 * network header, on RoCEv2 always (IPv4 or IPv6), on InfiniBand the GRH
 * when the packet had one
 */
#define ORDMA_CQE_F_GRH			BIT(2)
#define ORDMA_CQE_F_IPV4		BIT(3)	/* RoCEv2: that header is IPv4 */

enum ordma_cqe_opcode {
	ORDMA_CQE_OP_SEND		= 0x00,
	ORDMA_CQE_OP_RDMA_WRITE		= 0x01,
	ORDMA_CQE_OP_RDMA_READ		= 0x02,
	ORDMA_CQE_OP_CMP_SWP		= 0x03,
	ORDMA_CQE_OP_FETCH_ADD		= 0x04,
	ORDMA_CQE_OP_LOCAL_INV		= 0x05,
	ORDMA_CQE_OP_REG_MR		= 0x06,
	ORDMA_CQE_OP_BIND_MW		= 0x07,
	ORDMA_CQE_OP_FLUSH		= 0x08,
	ORDMA_CQE_OP_ATOMIC_WRITE	= 0x09,
	ORDMA_CQE_OP_RECV		= 0x80,
	ORDMA_CQE_OP_RECV_RDMA_IMM	= 0x81,
};

/* Completion status, same meaning as enum ib_wc_status */
enum ordma_cqe_status {
	ORDMA_CQE_SUCCESS		= 0,
	ORDMA_CQE_LOC_LEN_ERR		= 1,
	ORDMA_CQE_LOC_QP_OP_ERR		= 2,
	ORDMA_CQE_LOC_PROT_ERR		= 4,
	ORDMA_CQE_WR_FLUSH_ERR		= 5,
	ORDMA_CQE_MW_BIND_ERR		= 6,
	ORDMA_CQE_BAD_RESP_ERR		= 7,
	ORDMA_CQE_LOC_ACCESS_ERR	= 8,
	ORDMA_CQE_REM_INV_REQ_ERR	= 9,
	ORDMA_CQE_REM_ACCESS_ERR	= 10,
	ORDMA_CQE_REM_OP_ERR		= 11,
	ORDMA_CQE_RETRY_EXC_ERR		= 12,
	ORDMA_CQE_RNR_RETRY_EXC_ERR	= 13,
	ORDMA_CQE_REM_ABORT_ERR		= 16,
	ORDMA_CQE_GENERAL_ERR		= 21,
};

struct ordma_cqe {
	__le32	qpn;
	__le32	wqe_idx;		/* SQ/RQ/SRQ index of the WQE */
	__le32	byte_len;
	__le32	imm_inv;		/* immediate data or invalidated rkey */
	__le32	src_qp;			/* UD */
	__le16	flags;			/* ORDMA_CQE_F_* */
	__u8	opcode;			/* enum ordma_cqe_opcode */
	__u8	status;			/* enum ordma_cqe_status */
	/* UD/GSI/SMI receives on an InfiniBand port, else 0: the LRH's
	 * SLID and SL, and the DLID bits below the port's LMC (the path
	 * bits the sender chose)
	 */
	__le16	slid;
	__u8	sl;
	__u8	dlid_path_bits;
	__le32	owner;			/* ORDMA_CQE_PHASE; written last */
};

/* Every WQE has room for at least one SGE after its header. */
static_assert(BIT(ORDMA_SEND_WQE_MIN_SHIFT) ==
	      ORDMA_SEND_WQE_HDR_SIZE + sizeof(struct ordma_sge),
	      "smallest send WQE: header and one SGE");
static_assert(BIT(ORDMA_RECV_WQE_MIN_SHIFT) ==
	      sizeof(struct ordma_recv_wqe) + sizeof(struct ordma_sge),
	      "smallest receive WQE: header and one SGE");

/* The device reads and writes these byte for byte: their sizes are ABI. */
static_assert(sizeof(struct ordma_av) == 32, "av");
static_assert(offsetof(struct ordma_av, dlid) == 16 &&
	      offsetof(struct ordma_av, sgid_index) == 22, "av union");
static_assert(offsetof(struct ordma_cqe, slid) == 24, "cqe slid");
static_assert(sizeof(struct ordma_eqe) == ORDMA_EQE_SIZE, "eqe");
static_assert(sizeof(struct ordma_eth_desc) == ORDMA_ETH_DESC_SIZE, "eth_desc");
static_assert(sizeof(struct ordma_wqe_ctrl) == 16, "wqe_ctrl");
static_assert(sizeof(struct ordma_wqe_rdma) == 32, "wqe_rdma");
static_assert(sizeof(struct ordma_wqe_atomic) == 32, "wqe_atomic");
static_assert(sizeof(struct ordma_wqe_ud) == 32, "wqe_ud");
static_assert(sizeof(struct ordma_wqe_reg_mr) == 32, "wqe_reg_mr");
static_assert(sizeof(struct ordma_wqe_bind_mw) == 32, "wqe_bind_mw");
static_assert(sizeof(struct ordma_wqe_flush) == 32, "wqe_flush");
static_assert(sizeof(struct ordma_wqe_atomic_write) == 32, "wqe_atomic_write");
static_assert(sizeof(struct ordma_send_wqe) == ORDMA_SEND_WQE_HDR_SIZE,
	      "send_wqe");
static_assert(sizeof(struct ordma_sge) == 16, "sge");
static_assert(sizeof(struct ordma_recv_wqe) == 16, "recv_wqe");
static_assert(sizeof(struct ordma_cqe) == ORDMA_CQE_SIZE, "cqe");

#endif /* _LINUX_ORDMA_IO_H */
