/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A minimal test driver on top of the fake HAL: programs the admin queue,
 * submits commands and checks completions, owns EQ and Ethernet rings in
 * fake host memory.  Tests use it so that each one reads as a scenario.
 */
#ifndef ORDMA_TESTS_DRV_H
#define ORDMA_TESTS_DRV_H

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_hw.h>
#include "fake_hal.h"

/* Fake host memory map */
#define DRV_AQ_ADDR		0x100000ULL	/* 64 KiB: up to 1024 x 64 B */
#define DRV_ACQ_ADDR		0x110000ULL	/* 32 KiB */
#define DRV_BUF_ADDR		0x120000ULL	/* query buffers */
#define DRV_SCRATCH_ADDR	0x130000ULL	/* 64 KiB of anything */
/* The MR rights every firmware version grants */
#define DRV_ACCESS_ALL		(ORDMA_ACCESS_LOCAL_WRITE | \
				 ORDMA_ACCESS_REMOTE_WRITE | \
				 ORDMA_ACCESS_REMOTE_READ | \
				 ORDMA_ACCESS_REMOTE_ATOMIC)
#define DRV_EQ_ADDR(n)		(0x200000ULL + (uint64_t)(n) * 0x10000)
#define DRV_RING_ADDR(n)	(0x400000ULL + (uint64_t)(n) * 0x10000)
#define DRV_FRAME_SLOTS		64
#define DRV_FRAME_SLOT_SIZE	0x4000
#define DRV_FRAME_ADDR(ring, slot) \
	(0x800000ULL + ((uint64_t)(ring) * DRV_FRAME_SLOTS + \
			((slot) % DRV_FRAME_SLOTS)) * DRV_FRAME_SLOT_SIZE)
/* bus addresses outside fake memory */
#define DRV_BAD_ADDR		0x40000000ULL
/* Verbs: CQ rings (64 KiB = 2048 CQEs each), their doorbell records,
 * and 2 MiB for MR pages and page tables.
 */
#define DRV_CQ_AREAS		8
#define DRV_CQ_ADDR(n)		(0x480000ULL + (uint64_t)(n) * 0x10000)
#define DRV_CQ_DBREC_ADDR(n)	(0x500000ULL + (uint64_t)(n) * 64)
#define DRV_MR_ADDR		0x600000ULL
#define DRV_MR_SIZE		0x200000ULL
/* QP/SRQ work queue rings (64 KiB each) and their parameter buffers */
#define DRV_WQ_AREAS		16
#define DRV_WQ_ADDR(n)		(0x1000000ULL + (uint64_t)(n) * 0x10000)
#define DRV_QP_BUF_ADDR		(DRV_BUF_ADDR + 0x2000)

#define DRV_STATUS_NO_COMPLETION	0xff

struct drv {
	struct fake_hal hal;
	struct ordma_hal_ops ops;	/* fake_hal_ops, maybe without trace */
	struct ordma_fw *fw;
	struct ordma_fw_config cfg;
	unsigned int log_depth;
	uint16_t aq_pi;		/* free running, like the device's */
	uint16_t next_token;
	struct ordma_aq_comp last_comp;
	unsigned int eq_areas;		/* EQ ring areas handed out */
	unsigned int ring_areas;	/* Ethernet ring areas handed out */
};

struct drv_eq {
	uint32_t eqn;
	uint64_t addr;
	unsigned int log_size;
	uint32_t ci;
	unsigned int vector;
};

struct drv_ring {
	uint32_t id;
	unsigned int area;	/* which DRV_RING_ADDR/DRV_FRAME_ADDR block */
	uint8_t type;
	uint64_t addr;
	unsigned int log_size;
	uint32_t pi;		/* next descriptor the driver fills */
	uint32_t ci;		/* next descriptor the driver examines */
};

void drv_default_config(struct ordma_fw_config *cfg);
/* Create firmware + fake HAL and run the enable handshake. */
bool drv_open(struct drv *d, unsigned int log_depth);
bool drv_open_cfg(struct drv *d, const struct ordma_fw_config *cfg,
		  unsigned int log_depth);
/* Only create firmware and HAL: registers at reset values. */
bool drv_create(struct drv *d, const struct ordma_fw_config *cfg);
/* Program the AQ registers and set ENABLE; true if READY. */
bool drv_enable(struct drv *d, unsigned int log_depth);
void drv_close(struct drv *d);

uint32_t drv_rd(struct drv *d, uint32_t off);
void drv_wr(struct drv *d, uint32_t off, uint32_t val);
void *drv_mem(struct drv *d, uint64_t addr, size_t len);

void drv_cmd_init(struct ordma_aq_cmd *cmd, uint8_t opcode);
/* Submit one command and wait for its completion; returns its status or
 * DRV_STATUS_NO_COMPLETION.  The completion is kept in d->last_comp.
 */
uint8_t drv_exec(struct drv *d, struct ordma_aq_cmd *cmd);
/* Queue commands without ringing; drv_ring_aq rings for all of them. */
void drv_queue(struct drv *d, struct ordma_aq_cmd *cmd);
void drv_ring_aq(struct drv *d);
/* Completion of the command n positions before the last submitted one */
bool drv_comp(struct drv *d, unsigned int back, struct ordma_aq_comp *comp);
uint32_t drv_syndrome(const struct drv *d);
uint8_t drv_simple(struct drv *d, uint8_t opcode);

uint8_t drv_health(struct drv *d, struct ordma_comp_health *health);
uint8_t drv_query(struct drv *d, uint8_t opcode, uint32_t port, void *out,
		  size_t len);
uint8_t drv_set_port(struct drv *d, uint32_t mask, uint32_t mtu,
		     const uint8_t *mac, uint8_t admin_up, uint8_t rx_mode);
uint8_t drv_port_up(struct drv *d);
uint8_t drv_handle_cmd(struct drv *d, uint8_t opcode, uint32_t handle,
		       uint32_t uctx);
uint8_t drv_create_eq_raw(struct drv *d, uint64_t addr, uint8_t log_size,
			  uint8_t type, uint16_t vector, uint32_t *eqn);
uint8_t drv_create_ring_raw(struct drv *d, uint64_t addr, uint8_t log_size,
			    uint8_t type, uint32_t eqn, uint32_t *id);
uint8_t drv_add_gid(struct drv *d, uint32_t index, const uint8_t gid[16],
		    const uint8_t mac[6], uint16_t vlan_id);
uint8_t drv_alloc_uctx(struct drv *d, uint32_t *uctx);
uint8_t drv_alloc_pd(struct drv *d, uint32_t uctx, uint32_t *pdn);
/* SET_RDMA_PROTOCOL of the port: ORDMA_PORT_PROTO_{ROCE,IWARP} */
uint8_t drv_set_rdma_protocol(struct drv *d, uint8_t proto);

/* Doorbells */
void drv_db(struct drv *d, uint32_t page, uint32_t reg, uint32_t qn,
	    uint32_t idx, uint64_t flags);
uint32_t drv_db_errors(struct drv *d);

/* EQs: the ring is zeroed by the driver as the contract demands */
bool drv_eq_open(struct drv *d, struct drv_eq *eq, uint8_t type,
		 unsigned int vector, unsigned int log_size);
/* Next EQE if the device has written one (phase matches). */
bool drv_eq_next(struct drv *d, struct drv_eq *eq, struct ordma_eqe *eqe);
void drv_eq_update(struct drv *d, struct drv_eq *eq, bool arm);

/* Ethernet rings */
bool drv_ring_open(struct drv *d, struct drv_ring *r, uint8_t type,
		   unsigned int log_size, uint32_t eqn);
struct ordma_eth_desc *drv_desc(struct drv *d, struct drv_ring *r,
				uint32_t index);
/* Fill the next TX descriptor with a copy of frame and ring ETH_PI */
void drv_tx(struct drv *d, struct drv_ring *r, const void *frame,
	    uint32_t len);
/* Post n RX buffers of buf_len bytes and ring ETH_PI */
void drv_rx_post(struct drv *d, struct drv_ring *r, unsigned int n,
		 uint32_t buf_len);
uint32_t drv_desc_flags(struct drv *d, struct drv_ring *r, uint32_t index);
void drv_ring_arm(struct drv *d, struct drv_ring *r);

/* CQs: a level-0 ring in CQ area `area`, zeroed, and its doorbell record */
struct drv_cq {
	uint32_t cqn;
	uint32_t uctx;		/* also the doorbell page */
	uint64_t addr;
	uint64_t dbrec;
	unsigned int log_size;
	uint32_t ci;		/* next CQE the driver examines */
};

bool drv_cq_open(struct drv *d, struct drv_cq *cq, unsigned int area,
		 uint32_t uctx, uint32_t eqn, unsigned int log_size);
/* Next CQE if the device has written one; updates the doorbell record. */
bool drv_cq_next(struct drv *d, struct drv_cq *cq, struct ordma_cqe *cqe);
/* CQ doorbell with the driver's ci: ARM, optionally SOLICITED */
void drv_cq_arm(struct drv *d, struct drv_cq *cq, bool solicited);
uint8_t drv_destroy_cq(struct drv *d, struct drv_cq *cq);
/* REG_MR of a normal MR over a level-0 list of 4 KiB pages starting at
 * bus address addr (4 KiB aligned); iova keeps its offset in the page.
 */
uint8_t drv_reg_mr_contig(struct drv *d, uint32_t pdn, uint32_t uctx,
			  uint64_t iova, uint64_t addr, uint64_t length,
			  uint32_t access, uint8_t key_byte, uint32_t *key);

/* QPs and SRQs.  drv_qp_params: a QP of type on send/recv CQs with
 * 16-entry SQ (64-byte WQEs) and, without an SRQ, 16-entry RQ (32-byte
 * WQEs) in work queue area `area`.
 */
void drv_page_list_contig(struct ordma_page_list *pl, uint64_t addr,
			  uint64_t bytes);
void drv_qp_params(struct ordma_qp_create_params *p, uint32_t uctx,
		   uint32_t pdn, uint8_t type, uint32_t send_cqn,
		   uint32_t recv_cqn, uint32_t srqn, unsigned int area);
uint8_t drv_create_qp(struct drv *d, const struct ordma_qp_create_params *p,
		      uint32_t *qpn);
uint8_t drv_modify_qp(struct drv *d, uint32_t qpn,
		      const struct ordma_qp_attr *attr);
uint8_t drv_query_qp(struct drv *d, uint32_t qpn, struct ordma_qp_attr *attr);
/* QUERY_QP_STATS of qpn (or ORDMA_QP_STATS_ALL) */
uint8_t drv_query_qp_stats(struct drv *d, uint32_t qpn,
			   struct ordma_qp_stats *stats);
/* SRQ of 2^log_size 32-byte WQEs in work queue area `area` */
uint8_t drv_create_srq(struct drv *d, uint32_t uctx, uint32_t pdn,
		       unsigned int log_size, uint32_t limit,
		       unsigned int area, uint32_t *srqn);

/*
 * A device as a verbs user has it: an async EQ (vector 0) and a
 * completion EQ (vector 1), the port's RDMA protocol, optionally GID 0,
 * a user context (or the kernel's), a PD and two 256-entry CQs in CQ
 * areas 0 (send) and 1 (receive).
 */
struct drv_verbs {
	struct drv d;
	struct drv_eq async, comp;
	struct drv_cq scq, rcq;
	uint32_t uctx, pdn;
};

/* proto: ORDMA_PORT_PROTO_*, set only if not RoCE; gid/mac: GID 0, or
 * NULL for none.  false (and the device closed) if any step failed.
 */
bool drv_verbs_open(struct drv_verbs *v, uint8_t proto, bool user,
		    const uint8_t gid[16], const uint8_t mac[6]);
/* drv_qp_params() on v's PD and CQs, work queue area zeroed first */
void drv_verbs_qp_params(struct drv_verbs *v,
			 struct ordma_qp_create_params *p, uint8_t type,
			 uint32_t uctx, unsigned int area);
uint8_t drv_verbs_create_qp(struct drv_verbs *v, uint8_t type, uint32_t uctx,
			    unsigned int area, uint32_t *qpn);

/* ADD_GID of an iWARP port's IP address (ORDMA_GID_TYPE_IP) */
uint8_t drv_add_ip_gid(struct drv *d, uint32_t index, const uint8_t ip[16],
		       const uint8_t mac[6]);
/*
 * An iWARP port as its driver leaves it for connections: drv_verbs_open()
 * with the iWARP protocol (kernel objects), the port's MAC set to mac, the
 * port up, and ip (::ffff:a.b.c.d) its address.
 */
bool drv_iw_open(struct drv_verbs *v, const uint8_t mac[6],
		 const uint8_t ip[16]);
/* drv_iw_open() of the i-th port of a wire: MAC 02:00:00:00:00:(0a + i),
 * address 10.0.0.(1 + i), both written to mac and ip
 */
bool drv_iw_open_nth(struct drv_verbs *v, int i, uint8_t mac[6],
		     uint8_t ip[16]);
/* An existing RC QP of an iWARP port from RESET to RTR, the same way */
bool drv_iw_qp_rtr(struct drv *d, uint32_t qpn);
/* An RC QP in RTR as rdma_cm leaves it before connecting (access only) */
bool drv_iw_rtr_qp(struct drv_verbs *v, unsigned int area, uint32_t *qpn);
/* IW_CREATE_LISTEN on the port's address; the listener's handle */
uint8_t drv_iw_listen(struct drv *d, uint16_t port, uint16_t backlog,
		      uint32_t *listener);
/* IW_CONNECT, IW_ACCEPT or IW_REJECT with p (at DRV_SCRATCH_ADDR); the
 * completion's handle in *h if not NULL
 */
uint8_t drv_iw_conn_cmd(struct drv *d, uint8_t opcode,
			const struct ordma_iw_conn_params *p, uint32_t *h);
/* The same with p at addr (a harness that forbids the scratch area) */
uint8_t drv_iw_conn_cmd_at(struct drv *d, uint64_t addr, uint8_t opcode,
			   const struct ordma_iw_conn_params *p, uint32_t *h);

/* Port counters via QUERY_STATS, in host order */
bool drv_stats(struct drv *d, struct ordma_port_stats *s);

/* Frames */
extern const uint8_t drv_bcast_mac[6];
size_t drv_build_frame(uint8_t *buf, const uint8_t dst[6],
		       const uint8_t src[6], uint16_t ethertype,
		       size_t payload_len);
/* UDP datagram over IPv4 or IPv6 (optionally VLAN tagged) */
size_t drv_build_udp4(uint8_t *buf, const uint8_t dst_mac[6],
		      const uint8_t dst_ip[4], uint16_t dport, bool vlan);
size_t drv_build_udp6(uint8_t *buf, const uint8_t dst_mac[6],
		      const uint8_t dst_ip[16], uint16_t dport);

#endif /* ORDMA_TESTS_DRV_H */
