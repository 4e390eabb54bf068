/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Two firmware instances in one process, each with its own fake host
 * memory, wired back to back (every frame A transmits is queued for B's
 * RX and the other way round): the fixture of the transport engine's end
 * to end tests.  The queues are pumped by the test, which can drop or
 * duplicate the n-th frame of a direction, and both fake clocks advance
 * together.
 */
#ifndef ORDMA_TESTS_TRANSPORT_PAIR_H
#define ORDMA_TESTS_TRANSPORT_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "objects/fw_qp.h"
#include "transport/fw_transport.h"
#include "drv.h"
#include "link.h"

#define OK		ORDMA_CMD_STATUS_OK
#define A(name)		ORDMA_QP_ATTR_##name
#define QP_AREA		2
#define SQ_LOG		6
#define SQ_SHIFT	8		/* 256-byte send WQEs: 13 SGEs or inline */
#define RQ_LOG		6
#define RQ_SHIFT	6		/* 64-byte receive WQEs: 3 SGEs */
#define MR1_ADDR	DRV_MR_ADDR			/* all access */
#define MR1_LEN		0x100000ULL
#define MR2_ADDR	(DRV_MR_ADDR + MR1_LEN)		/* local write only */
#define MR2_LEN		0x80000ULL
#define GUARD_ADDR	(MR2_ADDR + MR2_LEN)		/* in no MR */
#define GUARD_LEN	0x80000ULL
#define PKT_GUARD	200000

/* ------------------------------------------------------------------ */
/* Two devices and a wire                                              */
/* ------------------------------------------------------------------ */

struct tcfg {
	uint8_t type;
	uint8_t path_mtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint32_t psn[2];		/* SQ_PSN of side i = RQ_PSN of the other */
	uint32_t access;
	uint32_t port_mtu;
	bool ipv6;
	bool srq_b;			/* side 1 receives through an SRQ */
	uint16_t vlan;			/* of both GID entries; 0: none */
	/* InfiniBand ports, ACTIVE with LIDs IB_LID(i) and this LMC; AVs
	 * with this SL and path bits, and a GRH if ib_global
	 */
	bool ib;
	bool ib_global;
	uint8_t lmc;
	uint8_t sl;
	uint8_t path_bits;
	/* iWARP ports: the QPs connected over TCP (B listens on
	 * IW_PORT_B, A connects with IRD and ORD max_rd_atomic)
	 */
	bool iwarp;
};

#define IW_PORT_B	4420

struct side {
	struct drv d;
	struct drv_eq async, comp;
	struct drv_cq scq, rcq;
	uint32_t pdn, key1, key2;
	uint32_t qpn;
	uint32_t srqn;			/* 0: none */
	uint32_t sq_pi, rq_pi, srq_pi;
	unsigned int wq_area;		/* 0: QP_AREA */
	uint8_t gid[16];
	uint8_t mac[6];
	uint16_t lid;			/* InfiniBand port: base LID */
	uint32_t iw_conn;		/* iWARP: the connection's handle */
	struct tcfg cfg;		/* as side_open() was given it */
};


/* Base LID of side i of an InfiniBand pair (room for an LMC up to 4) */
#define IB_LID(i)	((uint16_t)(0x40 + 0x10 * (i)))
/* The SLtoVL table of both ports: SL n on VL (n % 8) ^ 1 */
void ib_sl_to_vl(uint8_t table[8]);

struct env {
	struct side s[2];
	struct link l[2];		/* l[i]: frames sent by side i */
};

/* Some QP of the device has READ response or UC send bursts waiting
 * for the timer
 */
bool read_bursts_due(struct ordma_fw *fw);

/*
 * Delivers frames both ways until the wire is quiet; a device with paced
 * READ responses or UC packets still to send gets its clock moved to the
 * next burst.
 */
unsigned long pump(struct env *e);
void advance(struct env *e, uint64_t ns);
void fill_gid(struct side *s, int i, bool ipv6);
bool side_open(struct side *s, int i, const struct tcfg *c);
/* An AV to peer: RoCEv2, or on InfiniBand by the cfg's IB fields */
void fill_av(struct ordma_av *av, const struct tcfg *c,
	     const struct side *peer, uint8_t hop_limit, uint8_t tclass);
void fill_attr(struct ordma_qp_attr *a, uint32_t mask, uint8_t next,
	       const struct tcfg *c, const struct side *self,
	       const struct side *peer, int i);
uint8_t qp_step(struct env *e, int i, uint8_t cur, uint8_t next,
		const struct tcfg *c);
/* The QP's state as QUERY_QP reports it; 0xff if the query fails */
uint8_t qp_state(struct side *s);
/* The PSN of the next request it sends, the next one it expects (QUERY_QP);
 * UINT32_MAX if the query fails
 */
uint32_t sq_psn(struct side *s);
uint32_t rq_psn(struct side *s);
struct fw_qp *fwqp(struct side *s);
void default_cfg(struct tcfg *c);

/* Both sides up to RTS with connected QPs. */
bool env_open(struct env *e, const struct tcfg *c);
/* The wire pumped and both clocks moved on by ns, timer by timer (the
 * TCP offload of iWARP ports runs on timers)
 */
void run_for(struct env *e, uint64_t ns);
void env_close(struct env *e);
uint8_t *mem(struct side *s, uint64_t addr, size_t len);
void pattern(uint8_t *p, size_t len, unsigned int seed);

/* ------------------------------------------------------------------ */
/* Work requests                                                       */
/* ------------------------------------------------------------------ */

struct wr {
	uint8_t opcode;
	uint32_t flags;			/* ORDMA_WQE_SIGNALED, ... */
	struct ordma_sge sge[8];
	unsigned int num_sge;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t imm_inv;
	uint64_t compare_add, swap;
	const void *inline_data;
	uint32_t inline_len;
	uint32_t ah, remote_qpn, remote_qkey;
	const struct ordma_av *av;	/* UD: inline AV instead of ah */
	struct ordma_wqe_reg_mr reg;
	uint8_t placement, level;	/* FLUSH */
	uint32_t length;		/* FLUSH */
	uint8_t value[8];		/* ATOMIC_WRITE */
	struct ordma_wqe_bind_mw bind;
};

void sge(struct ordma_sge *g, uint64_t addr, uint32_t len,
	 uint32_t key);
void wr_init(struct wr *w, uint8_t opcode, uint64_t laddr,
	     uint32_t len, uint32_t lkey);
unsigned int wq_area(const struct side *s);
void put_wqe(struct side *s, const struct wr *w);
void ring_sq(struct side *s);
void post(struct side *s, const struct wr *w);
void post_recv_sges(struct side *s, const struct ordma_sge *g,
		    unsigned int n);

/* SRQ WQEs are 32 bytes: header and one SGE */
void post_srq(struct side *s, uint64_t addr, uint32_t len);
void post_recv(struct side *s, uint64_t addr, uint32_t len);
bool cqe_next(struct side *s, bool send, struct ordma_cqe *c);

/* The next CQE of the CQ must have these fields. */
bool expect_cqe(struct side *s, bool send, uint8_t opcode,
		uint8_t status, uint32_t byte_len, uint32_t wqe_idx);
bool no_cqe(struct side *s, bool send);
struct ordma_port_stats stats(struct side *s);
unsigned int eqe_type(const struct ordma_eqe *eqe);
bool has_event(struct side *s, unsigned int type, uint32_t d0);
/* A fast-register MR of s (REG_MR command), registered by s's own
 * signaled REG_MR WQE (SQ index wqe_idx) with every right but atomics
 * at iova over npages 4 KiB pages from addr; its key (key byte 0x44), 0
 * on failure
 */
uint32_t fast_reg_mr(struct side *s, uint64_t iova, uint64_t addr,
		     unsigned int npages, uint32_t wqe_idx);

/* ------------------------------------------------------------------ */
/* Atomics                                                             */
/* ------------------------------------------------------------------ */

uint64_t get64(const uint8_t *p);
void put64(uint8_t *p, uint64_t v);

/* ------------------------------------------------------------------ */
/* UD                                                                  */
/* ------------------------------------------------------------------ */

uint8_t create_ah(struct side *s, const struct side *peer,
		  uint32_t *ah);

/* ------------------------------------------------------------------ */
/* UC                                                                  */
/* ------------------------------------------------------------------ */

void uc_cfg(struct tcfg *c);

/* The receive drop counter for why, as QUERY_STATS reports it */
uint64_t drops(struct side *s, enum ordma_roce_rx_drop why);

/* Nothing ever comes back on UC, and the receiver stays in RTS */
void uc_quiet(struct env *e);
bool all_bytes(const uint8_t *p, size_t len, uint8_t v);

#define FL_QP_ACCESS	(ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_REMOTE_READ | \
			 ORDMA_ACCESS_REMOTE_ATOMIC | \
			 ORDMA_ACCESS_FLUSH_GLOBAL | \
			 ORDMA_ACCESS_FLUSH_PERSISTENT)

void flush_cfg(struct tcfg *c);
void flush_wr(struct wr *w, uint64_t raddr, uint32_t rkey,
	      uint32_t len, uint8_t placement, uint8_t level);
void aw_wr(struct wr *w, uint64_t raddr, uint32_t rkey, uint64_t v);

#endif /* ORDMA_TESTS_TRANSPORT_PAIR_H */
