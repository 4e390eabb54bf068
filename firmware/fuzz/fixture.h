/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the fuzz harnesses share: a device set up as a kernel driver and
 * one process would set it up (RC, UC, UD with a multicast group, an RC
 * QP on an SRQ, three MRs and two bound windows; on an iWARP port the two
 * RC QPs only, connected over TCP), a HAL that checks every DMA against
 * the host memory map, and a wire between two devices.
 *
 * Every object but the EQs belongs to one user context (uctx): what a
 * process may do, the harnesses do through it.
 *
 * Host memory map of one device (besides the test driver's own areas):
 *   MR_ALL   0x600000 +1 MiB    every access right
 *   MR_LW    0x700000 +256 KiB  local write only
 *   MR_BIND  0x740000 +16 KiB   local write, windows may be bound:
 *            type 1 window on [+0x100, +0x1100), type 2 (zero based) on
 *            [+0x2000, +0x3000), both remote read/write
 *   GUARD    0x744000 .. 0x1000000: in no MR, filled with FZ_CANARY; the
 *            device must never read or write it
 *   WQ areas 2..6: SQ/RQ rings of the QPs, then the SRQ ring
 */
#ifndef ORDMA_FUZZ_FIXTURE_H
#define ORDMA_FUZZ_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../tests/drv.h"
#include "../tests/link.h"

#define FZ_MR_ALL		0x600000ULL
#define FZ_MR_ALL_LEN		0x100000ULL
#define FZ_MR_LW		0x700000ULL
#define FZ_MR_LW_LEN		0x40000ULL
#define FZ_MR_BIND		0x740000ULL
#define FZ_MR_BIND_LEN		0x4000ULL
#define FZ_MW1_ADDR		(FZ_MR_BIND + 0x100)
#define FZ_MW2_ADDR		(FZ_MR_BIND + 0x2000)
#define FZ_MW_LEN		0x1000ULL
#define FZ_GUARD		(FZ_MR_BIND + FZ_MR_BIND_LEN)
#define FZ_GUARD_CHECKED	0x800000ULL	/* compared at the end */
#define FZ_GUARD_END		0x1000000ULL
/* Bytes of host memory no process gave the device.  Whatever the
 * harnesses write on a process's behalf never contains this byte, nor
 * does what the device writes into the MRs (the checking HAL keeps it
 * out: received data is the process's to send again), so a run of it in
 * a transmitted payload came from somewhere it must not.
 */
#define FZ_CANARY		0xc7
#define FZ_CANARY_RUN		16

#define FZ_SQ_LOG		6
#define FZ_SQ_SHIFT		8		/* 256-byte send WQEs */
#define FZ_RQ_LOG		6
#define FZ_RQ_SHIFT		6		/* 64-byte receive WQEs */
#define FZ_SRQ_LOG		6
#define FZ_SRQ_SHIFT		5
#define FZ_RQ_OFF		0x8000ULL	/* RQ ring after the SQ ring */
#define FZ_QKEY			0x1234
#define FZ_PATH_MTU		1		/* 512 bytes: many packets */

enum fz_qp {
	FZ_RC,
	FZ_UC,
	FZ_UD,
	FZ_SRQ_RC,	/* RC, receives from the SRQ */
	FZ_NQP
};

#define FZ_IW_PORT		4420	/* device 1's listener */
#define FZ_IW_NCONN		2	/* connections: FZ_RC, FZ_SRQ_RC */

struct fz_dev {
	struct drv d;
	int idx;
	struct drv_eq async, comp;
	struct drv_cq scq, rcq;
	uint32_t uctx;			/* the process; also its doorbell page */
	uint32_t pdn;
	uint32_t key_all, key_lw, key_bind;
	uint32_t mw1, mw2;		/* rkeys of the bound windows */
	uint32_t srqn;
	uint32_t qpn[FZ_NQP];
	uint32_t ah, mcast_ah;
	uint32_t sq_pi[FZ_NQP], rq_pi[FZ_NQP], srq_pi;
	uint8_t gid[16], mac[6];
	/* iWARP (fz_iwarp): the listener of device 1 and the connections
	 * of FZ_RC and FZ_SRQ_RC, with their TCP ports as set up
	 */
	uint32_t iw_listener;
	uint32_t iw_conn[FZ_IW_NCONN];
	uint16_t iw_port[FZ_IW_NCONN][2];	/* local, remote */
};

extern const uint8_t fz_mcast_gid[16];
extern const uint8_t fz_mcast_mac[6];

/* Abort with a message: libFuzzer reports it as a crash. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

void fz_gid(int idx, uint8_t gid[16]);
void fz_mac(int idx, uint8_t mac[6]);

/*
 * Devices fz_dev_open() creates while this is set have an InfiniBand port,
 * ACTIVE at LID fz_lid(idx) with LMC 0 and every SL on VL 0, as a subnet
 * manager would leave it; their AVs address the peer by LID.
 */
extern bool fz_ib;
uint16_t fz_lid(int idx);

/*
 * Devices fz_dev_open() creates while this is set have an iWARP port at
 * the IPv4 address of fz_gid(idx): no UC or UD QP (qpn 0), no AH and no
 * multicast group, no atomic right on the MRs.
 */
extern bool fz_iwarp;
extern const unsigned int fz_iw_qp[FZ_IW_NCONN];

/* A device with every object created; QPs in RESET. */
bool fz_dev_open(struct fz_dev *v, int idx);
/* QPs to RTS towards a peer of the same layout, windows bound, multicast
 * joined, receives posted on every RQ and the SRQ.
 */
bool fz_dev_connect(struct fz_dev *v, int peer_idx,
		    const uint32_t peer_qpn[FZ_NQP]);
void fz_dev_close(struct fz_dev *v);
/* The device never touched the guard area (end-of-run check). */
void fz_dev_check(struct fz_dev *v);

uint64_t fz_wq_base(unsigned int q);		/* q == FZ_NQP: the SRQ */
uint8_t *fz_sq_slot(struct fz_dev *v, unsigned int q, uint32_t idx);
uint8_t *fz_rq_slot(struct fz_dev *v, unsigned int q, uint32_t idx);
uint8_t *fz_srq_slot(struct fz_dev *v, uint32_t idx);
void fz_ring_sq(struct fz_dev *v, unsigned int q);
void fz_post_recv(struct fz_dev *v, unsigned int q, uint64_t addr,
		  uint32_t len, uint32_t key);
void fz_post_srq(struct fz_dev *v, uint64_t addr, uint32_t len, uint32_t key);
/* Consume every CQE of both CQs, re-arm them; the number consumed. */
unsigned int fz_poll(struct fz_dev *v);
/* Copy process-controlled bytes into host memory, never the canary. */
void fz_put(void *dst, const void *src, size_t len);

/* Two devices back to back */
struct fz_env {
	struct fz_dev v[2];
	struct link l[2];		/* l[i]: frames sent by device i */
};

bool fz_env_open(struct fz_env *e);
/*
 * Two iWARP devices (fz_iwarp set): device 0 connects its FZ_RC and
 * FZ_SRQ_RC QPs to device 1's listener, device 1 accepts each on its
 * QP of the same kind; both in RTS, windows bound, receives posted.
 */
bool fz_iw_env_open(struct fz_env *e);
void fz_env_close(struct fz_env *e);
/* Deliver the frame at the head of l[i] to the other device. */
bool fz_deliver(struct fz_env *e, int i);
/* Deliver both ways (moving time on when the wire is quiet) for at most
 * max frames; the number delivered.
 */
unsigned long fz_pump(struct fz_env *e, unsigned long max);
void fz_advance(struct fz_env *e, uint64_t ns);

/* Reading the fuzz input */
struct fz_in {
	const uint8_t *p;
	size_t left;
};

bool fz_take(struct fz_in *in, void *out, size_t len);
uint8_t fz_u8(struct fz_in *in);
uint16_t fz_u16(struct fz_in *in);
uint32_t fz_u32(struct fz_in *in);

#endif /* ORDMA_FUZZ_FIXTURE_H */
