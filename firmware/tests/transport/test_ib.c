// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The transport on InfiniBand ports: two devices cabled back to back
 * with LIDs set as a subnet manager would (RC SEND/WRITE/READ, UD with
 * the completion's SLID, SL and path bits, with and without a GRH), the
 * LRH the device builds, and every class of received packet an
 * InfiniBand port drops, counted by reason.
 */
#include <stdlib.h>
#include <string.h>

#include "ib_pkt.h"
#include "ordma_test.h"
#include "pair.h"

/* LMC 2: each port answers to 4 LIDs; the AVs use path bits 1 */
static void ib_cfg(struct tcfg *c, bool global)
{
	default_cfg(c);
	c->ib = true;
	c->ib_global = global;
	c->lmc = 2;
	c->sl = 5;
	c->path_bits = 1;
}

/* The first packet each side put on the cable */
struct first_pkt {
	uint8_t buf[FW_MAX_FRAME];
	size_t len;
};

static void keep_first(void *arg, const void *frame, size_t len)
{
	struct first_pkt *f = arg;

	if (f->len || len > sizeof(f->buf))
		return;
	memcpy(f->buf, frame, len);
	f->len = len;
}

/* The packet is one the device would accept, with the LRH the AV says */
static void check_lrh(const struct first_pkt *f, const struct tcfg *c,
		      uint16_t dlid, uint16_t slid, uint32_t dest_qp)
{
	struct fw_ib_pkt p;

	REQUIRE(f->len > 0);
	REQUIRE_EQ(fw_ib_parse(f->buf, f->len, &p), FW_IB_OK);
	/* SL 5 is on VL 4 in the test's SLtoVL table */
	CHECK_EQ(fw_lrh_vl(p.lrh), 4);
	CHECK_EQ(fw_lrh_sl(p.lrh), c->sl);
	CHECK_EQ(fw_lrh_lnh(p.lrh),
		 c->ib_global ? FW_IB_LNH_GLOBAL : FW_IB_LNH_LOCAL);
	CHECK_EQ(fw_lrh_dlid(p.lrh), dlid);
	CHECK_EQ(fw_lrh_slid(p.lrh), slid);
	CHECK_EQ(fw_bth_dest_qp(p.xport.bth), dest_qp);
	CHECK_EQ(p.grh != NULL, c->ib_global);
}

static void ib_rc_case(bool global)
{
	struct first_pkt *fa = calloc(1, sizeof(*fa));
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;

	REQUIRE(fa != NULL);
	ib_cfg(&c, global);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	e.l[0].rx_hook = keep_first;
	e.l[0].rx_hook_arg = fa;

	/* SEND of 3 packets at MTU 1024 */
	pattern(mem(a, MR1_ADDR + 0x1000, 3000), 3000, 11);
	memset(mem(b, MR1_ADDR, 3100), 0xee, 3100);
	post_recv(b, MR1_ADDR, 3016);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x1000, 3000, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 3000, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x1000, 3000), mem(b, MR1_ADDR, 3000),
		      3000));
	CHECK_EQ(mem(b, MR1_ADDR + 3000, 1)[0], 0xee);
	CHECK_EQ(e.l[0].sent, 3);
	check_lrh(fa, &c, IB_LID(1) | 1, IB_LID(0) | 1, b->qpn);

	/* WRITE of 5000 bytes into B's MR */
	pattern(mem(a, MR1_ADDR + 0x4000, 5000), 5000, 12);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + 0x4000, 5000, a->key1);
	w.remote_addr = MR1_ADDR + 0x8000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 5000,
		   1);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x4000, 5000),
		      mem(b, MR1_ADDR + 0x8000, 5000), 5000));

	/* READ of 6000 bytes out of B's MR */
	pattern(mem(b, MR1_ADDR + 0x10000, 6000), 6000, 13);
	memset(mem(a, MR1_ADDR + 0x20000, 6001), 0xdd, 6001);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x20000, 6000, a->key1);
	w.remote_addr = MR1_ADDR + 0x10000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 6000,
		   2);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000, 6000),
		      mem(a, MR1_ADDR + 0x20000, 6000), 6000));
	CHECK_EQ(mem(a, MR1_ADDR + 0x20000 + 6000, 1)[0], 0xdd);

	no_cqe(a, true);
	no_cqe(b, false);
	CHECK_EQ(stats(a).roce_rx_drop, 0);
	CHECK_EQ(stats(b).roce_rx_drop, 0);
	CHECK_EQ(stats(b).rx_drop_link_down, 0);
	CHECK_EQ(fwqp(a)->counters.retransmits, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
	free(fa);
}

TEST(test_ib_rc_send_write_read)
{
	ib_rc_case(false);
}

TEST(test_ib_rc_send_write_read_grh)
{
	ib_rc_case(true);
}

static void ib_ud_case(bool global)
{
	struct first_pkt *fa = calloc(1, sizeof(*fa));
	static const uint8_t zero[40];
	struct side *a, *b;
	struct ordma_cqe cqe;
	struct tcfg c;
	struct env e;
	struct wr w;
	uint8_t *grh;
	uint32_t ah;

	REQUIRE(fa != NULL);
	ib_cfg(&c, global);
	c.type = ORDMA_QPT_UD;
	c.ipv6 = true;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	e.l[0].rx_hook = keep_first;
	e.l[0].rx_hook_arg = fa;
	REQUIRE_EQ(create_ah(a, b, &ah), OK);
	pattern(mem(a, MR1_ADDR, 1024), 1024, 8);
	memset(mem(b, MR1_ADDR, 2048), 0xcc, 2048);
	post_recv(b, MR1_ADDR, 40 + 1024);
	wr_init(&w, ORDMA_WQE_SEND_IMM, MR1_ADDR, 1000, a->key1);
	w.ah = ah;
	w.remote_qpn = b->qpn;
	w.remote_qkey = 0x1234;
	w.imm_inv = 0x0a0b0c0d;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 0);
	pump(&e);
	check_lrh(fa, &c, IB_LID(1) | 1, IB_LID(0) | 1, b->qpn);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_RECV);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 40 + 1000);
	CHECK_EQ(le32_to_cpu(cqe.src_qp), a->qpn);
	CHECK_EQ(le32_to_cpu(cqe.imm_inv), 0x0a0b0c0d);
	CHECK_EQ(le16_to_cpu(cqe.slid), IB_LID(0) | 1);
	CHECK_EQ(cqe.sl, 5);
	CHECK_EQ(cqe.dlid_path_bits, 1);
	CHECK_EQ(le16_to_cpu(cqe.flags),
		 ORDMA_CQE_F_IMM | (global ? ORDMA_CQE_F_GRH : 0));
	grh = mem(b, MR1_ADDR, 40);
	if (global) {
		CHECK_EQ(grh[0] >> 4, 6);
		CHECK_EQ(grh[6], FW_IB_GRH_NXTHDR_IBA);
		CHECK_EQ(grh[7], 7);		/* the AH's hop limit */
		CHECK(!memcmp(grh + 8, a->gid, 16));
		CHECK(!memcmp(grh + 24, b->gid, 16));
	} else {
		CHECK(!memcmp(grh, zero, 40));
	}
	CHECK(!memcmp(mem(a, MR1_ADDR, 1000), mem(b, MR1_ADDR + 40, 1000),
		      1000));
	CHECK_EQ(mem(b, MR1_ADDR + 40 + 1000, 1)[0], 0xcc);
	CHECK_EQ(stats(b).roce_rx_drop, 0);
	env_close(&e);
	free(fa);
}

TEST(test_ib_ud_send_completion_slid)
{
	ib_ud_case(false);
}

TEST(test_ib_ud_send_grh)
{
	ib_ud_case(true);
}

/* GSI (QP1) with the AV in the WQE, as the MAD layer sends: by LID */
TEST(test_ib_gsi_inline_av)
{
	struct ordma_cqe cqe;
	struct ordma_av av;
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;

	ib_cfg(&c, false);
	c.type = ORDMA_QPT_GSI;
	c.sl = 0;
	c.path_bits = 2;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(a->qpn, ORDMA_GSI_QPN);
	pattern(mem(a, MR1_ADDR, 256), 256, 4);
	memset(mem(b, MR1_ADDR, 40), 0x77, 40);
	post_recv(b, MR1_ADDR, 40 + 256);
	fill_av(&av, &c, b, 0, 0);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 24, a->key1);
	sge(&w.sge[1], MR1_ADDR + 24, 232, a->key1);
	w.num_sge = 2;
	w.av = &av;
	w.remote_qpn = ORDMA_GSI_QPN;
	w.remote_qkey = ORDMA_GSI_QKEY;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 256, 0);
	pump(&e);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 40 + 256);
	CHECK_EQ(le32_to_cpu(cqe.src_qp), ORDMA_GSI_QPN);
	CHECK_EQ(le16_to_cpu(cqe.slid), IB_LID(0) | 2);
	CHECK_EQ(cqe.sl, 0);
	CHECK_EQ(cqe.dlid_path_bits, 2);
	CHECK_EQ(le16_to_cpu(cqe.flags), 0);
	CHECK(all_bytes(mem(b, MR1_ADDR, 40), 40, 0));
	CHECK(!memcmp(mem(b, MR1_ADDR + 40, 256), mem(a, MR1_ADDR, 256), 256));
	env_close(&e);
}

/*
 * QP0 as the MAD layer sends a directed route SMP: to the permissive LID,
 * on VL15, from a port no subnet manager has configured yet (INIT, LID 0)
 */
TEST(test_ib_smi_permissive_in_init)
{
	struct ordma_cqe cqe;
	struct ordma_av av;
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;

	ib_cfg(&c, false);
	c.type = ORDMA_QPT_SMI;
	c.sl = 0;
	c.path_bits = 0;
	c.lmc = 0;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(a->qpn, ORDMA_SMI_QPN);
	REQUIRE_EQ(b->qpn, ORDMA_SMI_QPN);
	a->d.fw->ib.state = ORDMA_PORT_INIT;
	b->d.fw->ib.state = ORDMA_PORT_INIT;
	a->d.fw->ib.lid = 0;
	b->d.fw->ib.lid = 0;
	pattern(mem(a, MR1_ADDR, 256), 256, 6);
	post_recv(b, MR1_ADDR + 0x1000, 40 + 256);
	fill_av(&av, &c, b, 0, 0);
	av.dlid = cpu_to_le16(0xffff);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 256, a->key1);
	w.av = &av;
	w.remote_qpn = ORDMA_SMI_QPN;
	w.remote_qkey = 0;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 256, 0);
	pump(&e);
	/* on the cable, not looped back: the permissive LID is the next hop */
	CHECK_EQ(e.l[0].sent, 1);
	CHECK_EQ(a->d.fw->loopback.frames_looped, 0);
	CHECK_EQ(stats(b).roce_rx_drop, 0);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 40 + 256);
	CHECK_EQ(le32_to_cpu(cqe.src_qp), ORDMA_SMI_QPN);
	CHECK_EQ(le16_to_cpu(cqe.slid), 0xffff);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x1000 + 40, 256), mem(a, MR1_ADDR, 256),
		      256));
	env_close(&e);
}

/*
 * UD to a multicast group: a multicast DLID and a GRH naming the group;
 * every member hears it, the sender's own port included, and a packet
 * to a multicast LID without a GRH is dropped.
 */
TEST(test_ib_ud_multicast)
{
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 7 };
	struct ordma_aq_cmd cmd;
	struct side *a, *b;
	struct ordma_cqe cqe;
	struct tcfg c;
	struct env e;
	struct wr w;
	uint32_t ah;

	ib_cfg(&c, true);
	c.type = ORDMA_QPT_UD;
	c.ipv6 = true;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	drv_cmd_init(&cmd, ORDMA_CMD_ATTACH_MCAST);
	cmd.mcast.qpn = cpu_to_le32(b->qpn);
	memcpy(cmd.mcast.gid, mgid, 16);
	REQUIRE_EQ(drv_exec(&b->d, &cmd), OK);
	cmd.mcast.qpn = cpu_to_le32(a->qpn);
	REQUIRE_EQ(drv_exec(&a->d, &cmd), OK);

	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
	cmd.create_ah.pdn = cpu_to_le32(a->pdn);
	fill_av(&cmd.create_ah.av, &c, b, 3, 0);
	memcpy(cmd.create_ah.av.dgid, mgid, 16);
	cmd.create_ah.av.dlid = cpu_to_le16(0xc004);
	REQUIRE_EQ(drv_exec(&a->d, &cmd), OK);
	ah = le32_to_cpu(a->d.last_comp.handle.handle);

	pattern(mem(a, MR1_ADDR, 200), 200, 21);
	post_recv(b, MR1_ADDR, 40 + 1024);
	post_recv(a, MR1_ADDR + 0x10000, 40 + 1024);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 200, a->key1);
	w.ah = ah;
	w.remote_qpn = ORDMA_MCAST_QPN;
	w.remote_qkey = 0x1234;
	post(a, &w);
	fake_advance(&a->d.hal, 1);	/* the loopback copy */
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 200, 0);
	CHECK_EQ(e.l[0].sent, 1);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 240);
	CHECK_EQ(le16_to_cpu(cqe.slid), IB_LID(0) | 1);
	CHECK_EQ(cqe.dlid_path_bits, 0xc004 & 3);
	CHECK_EQ(le16_to_cpu(cqe.flags), ORDMA_CQE_F_GRH);
	CHECK(!memcmp(mem(b, MR1_ADDR + 24, 16), mgid, 16));
	CHECK(!memcmp(mem(b, MR1_ADDR + 40, 200), mem(a, MR1_ADDR, 200), 200));
	REQUIRE(cqe_next(a, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x10000 + 40, 200),
		      mem(a, MR1_ADDR, 200), 200));

	/* the same packet without its GRH is nobody's */
	{
		const struct ib_ud_pkt p = {
			.dlid = 0xc004, .slid = IB_LID(0),
			.dest_qp = ORDMA_MCAST_QPN, .qkey = 0x1234,
			.payload_len = 8, .fill = 1,
		};
		uint8_t pkt[256];
		size_t len = ib_ud_packet(pkt, sizeof(pkt), &p);

		REQUIRE(len > 0);
		ordma_fw_rx_frame(b->d.fw, pkt, len);
		CHECK_EQ(b->d.fw->tp.ib_rx_drop[FW_IB_RX_DROP_DLID], 1);
	}
	no_cqe(b, false);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* What an InfiniBand port drops                                       */
/* ------------------------------------------------------------------ */

/* One IB device, port ACTIVE at LID 0x40 with LMC 1 */
static bool ib_dev_open(struct side *s, uint8_t state)
{
	struct tcfg c;

	ib_cfg(&c, false);
	c.lmc = 1;
	c.type = ORDMA_QPT_UD;
	if (!side_open(s, 0, &c))
		return false;
	s->d.fw->ib.state = state;
	return true;
}

/* A UD SEND of 64 bytes from LID 0x99 to dest_qp at dlid on vl */
static size_t ib_pkt(uint8_t *buf, size_t cap, uint16_t dlid, unsigned int vl,
		     uint32_t dest_qp)
{
	const struct ib_ud_pkt p = {
		.dlid = dlid, .slid = 0x99, .vl = (uint8_t)vl, .sl = 2,
		.dest_qp = dest_qp, .src_qp = 9, .qkey = 0x1234, .psn = 7,
		.payload_len = 64, .fill = 0x5a,
	};

	return ib_ud_packet(buf, cap, &p);
}

static uint64_t ib_drops(struct side *s, enum fw_ib_rx_drop why)
{
	return s->d.fw->tp.ib_rx_drop[why];
}

TEST(test_ib_rx_drop_reasons)
{
	uint8_t pkt[256];
	struct side s;
	size_t len;

	REQUIRE(ib_dev_open(&s, ORDMA_PORT_ACTIVE));
	len = ib_pkt(pkt, sizeof(pkt), 0x41, 0, 0x123);
	REQUIRE(len > 0);

	/* link version 1 */
	pkt[0] |= 1;
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(ib_drops(&s, (enum fw_ib_rx_drop)FW_IB_DROP_LVER), 1);
	pkt[0] &= 0xf0;
	/* one byte more than PktLen says */
	ordma_fw_rx_frame(s.d.fw, pkt, len + 1);
	CHECK_EQ(ib_drops(&s, (enum fw_ib_rx_drop)FW_IB_DROP_PKTLEN), 1);
	/* the VCRC damaged */
	pkt[len - 1] ^= 0x40;
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(ib_drops(&s, (enum fw_ib_rx_drop)FW_IB_DROP_VCRC), 1);
	pkt[len - 1] ^= 0x40;
	/* a raw packet (LNH 0), an SLID of 0: not for the transport */
	pkt[1] &= 0xfc;
	ib_revcrc(pkt, len);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(ib_drops(&s, (enum fw_ib_rx_drop)FW_IB_DROP_LNH), 1);
	pkt[1] |= FW_IB_LNH_LOCAL;
	pkt[6] = pkt[7] = 0;
	ib_revcrc(pkt, len);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(ib_drops(&s, (enum fw_ib_rx_drop)FW_IB_DROP_SLID), 1);
	pkt[7] = 0x99;
	/* the ICRC damaged, the VCRC recomputed over it as a hop would */
	pkt[len - 3] ^= 0x01;
	ib_revcrc(pkt, len);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(ib_drops(&s, (enum fw_ib_rx_drop)FW_IB_DROP_ICRC), 1);

	/* not our LID: 0x40/0x41 are (LMC 1), 0x42 and multicast are not */
	len = ib_pkt(pkt, sizeof(pkt), 0x42, 0, 0x123);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	len = ib_pkt(pkt, sizeof(pkt), 0xc001, 0, 0x123);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	/* the permissive LID is for SMPs only */
	len = ib_pkt(pkt, sizeof(pkt), FW_IB_LID_PERMISSIVE, 0, 0x123);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(ib_drops(&s, FW_IB_RX_DROP_DLID), 3);

	/* VL15 not to QP0, QP0 not on VL15 (the builder refuses both:
	 * retarget a valid packet and reseal it)
	 */
	len = ib_pkt(pkt, sizeof(pkt), 0x41, 0, 0x123);
	pkt[0] = (uint8_t)(FW_IB_VL15 << 4);
	ib_revcrc(pkt, len);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(ib_drops(&s, (enum fw_ib_rx_drop)FW_IB_DROP_VL15), 1);
	len = ib_pkt(pkt, sizeof(pkt), 0x41, FW_IB_VL15, FW_IB_QP0);
	REQUIRE(len > 0);
	pkt[0] = 0;		/* VL 0 */
	ib_revcrc(pkt, len);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(ib_drops(&s, (enum fw_ib_rx_drop)FW_IB_DROP_QP0_VL), 1);

	/* every drop is a RoCE engine drop too, and nothing got through */
	CHECK_EQ(stats(&s).roce_rx_drop, 11);
	CHECK_EQ(stats(&s).roce_rx_frames, 0);
	CHECK_EQ(stats(&s).rx_drop_link_down, 0);

	/* a good packet to the other LID of the LMC reaches the transport
	 * (which has no QP 0x123)
	 */
	len = ib_pkt(pkt, sizeof(pkt), 0x40, 0, 0x123);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(stats(&s).roce_rx_frames, 1);
	CHECK_EQ(stats(&s).roce_rx_drop_reason[ORDMA_ROCE_RX_DROP_NO_QP], 1);
	drv_close(&s.d);
}

/* QUERY_STATS reports the link drops by reason, apart from the engine's */
TEST(test_ib_rx_drop_query_stats)
{
	struct ordma_port_stats st;
	uint8_t pkt[256];
	uint64_t sum = 0;
	struct side s;
	size_t len, i;

	REQUIRE(ib_dev_open(&s, ORDMA_PORT_ACTIVE));
	/* a bad VCRC, twice */
	len = ib_pkt(pkt, sizeof(pkt), 0x41, 0, 0x123);
	REQUIRE(len > 0);
	pkt[len - 2] ^= 0x01;
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	/* a DLID that is not the port's */
	len = ib_pkt(pkt, sizeof(pkt), 0x42, 0, 0x123);
	REQUIRE(len > 0);
	ordma_fw_rx_frame(s.d.fw, pkt, len);

	st = stats(&s);
	CHECK_EQ(le64_to_cpu(st.ib_rx_drop[ORDMA_IB_RX_DROP_VCRC]), 2);
	CHECK_EQ(le64_to_cpu(st.ib_rx_drop[ORDMA_IB_RX_DROP_DLID]), 1);
	for (i = 0; i < ORDMA_IB_RX_DROP_REASONS; i++)
		sum += le64_to_cpu(st.ib_rx_drop[i]);
	CHECK_EQ(sum, 3);
	/* in the total, but in none of the transport's or the parser's */
	CHECK_EQ(le64_to_cpu(st.roce_rx_drop), 3);
	for (i = 0; i < ORDMA_ROCE_RX_DROP_REASONS; i++)
		CHECK_EQ(le64_to_cpu(st.roce_rx_drop_reason[i]), 0);
	for (i = 0; i < ORDMA_ROCE_PARSE_DROP_REASONS; i++)
		CHECK_EQ(le64_to_cpu(st.roce_rx_parse_drop[i]), 0);
	CHECK(!strcmp(ordma_port_stat_name(ORDMA_PORT_STAT_INDEX(
		ib_rx_drop[ORDMA_IB_RX_DROP_VCRC])), "ib_rx_drop_vcrc"));
	CHECK(!strcmp(ordma_port_stat_name(ORDMA_PORT_STAT_INDEX(
		ib_rx_drop[ORDMA_IB_RX_DROP_DLID])), "ib_rx_drop_dlid"));
	/* the iWARP offload's counters follow, and end the structure */
	CHECK(!strcmp(ordma_port_stat_name(ORDMA_PORT_STAT_INDEX(
		ib_rx_drop[ORDMA_IB_RX_DROP_DLID]) + 1), "iw_tcp_rx_segments"));
	CHECK(!strcmp(ordma_port_stat_name(ORDMA_PORT_STATS_NUM - 1),
		      "iw_terminates_received"));
	for (i = 0; i < ORDMA_PORT_STATS_NUM; i++)
		if (!CHECK(ordma_port_stat_name((unsigned int)i)))
			NOTE("counter %zu has no name", (size_t)i);
	drv_close(&s.d);
}

/*
 * The port's state: data needs ACTIVE, SMPs (QP0 on VL15, to the port's
 * LID or the permissive one) pass in INIT and ARMED; the first data
 * packet an ARMED port receives makes it ACTIVE, with an event.
 */
TEST(test_ib_rx_port_state)
{
	struct ordma_eqe eqe;
	uint8_t pkt[256];
	struct side s;
	size_t len;

	REQUIRE(ib_dev_open(&s, ORDMA_PORT_INIT));
	len = ib_pkt(pkt, sizeof(pkt), 0x41, 0, 0x123);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(stats(&s).rx_drop_link_down, 1);
	CHECK_EQ(stats(&s).roce_rx_frames, 0);
	len = ib_pkt(pkt, sizeof(pkt), FW_IB_LID_PERMISSIVE, FW_IB_VL15,
		     FW_IB_QP0);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	len = ib_pkt(pkt, sizeof(pkt), 0x40, FW_IB_VL15, FW_IB_QP0);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(stats(&s).roce_rx_frames, 2);
	CHECK_EQ(stats(&s).rx_drop_link_down, 1);
	CHECK_EQ(s.d.fw->ib.state, ORDMA_PORT_INIT);

	/* ARMED: the SMP leaves the state alone, data activates */
	s.d.fw->ib.state = ORDMA_PORT_ARMED;
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(s.d.fw->ib.state, ORDMA_PORT_ARMED);
	CHECK(!drv_eq_next(&s.d, &s.async, &eqe));
	len = ib_pkt(pkt, sizeof(pkt), 0x41, 0, 0x123);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(s.d.fw->ib.state, ORDMA_PORT_ACTIVE);
	CHECK_EQ(stats(&s).roce_rx_frames, 4);
	CHECK_EQ(stats(&s).rx_drop_link_down, 1);
	REQUIRE(drv_eq_next(&s.d, &s.async, &eqe));
	CHECK_EQ(eqe_type(&eqe), ORDMA_EQE_PORT_CHANGE);
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_ACTIVE);
	CHECK_EQ(le32_to_cpu(eqe.data[2]), ORDMA_PORT_CHANGE_STATE);

	/* no link: nothing at all */
	ordma_fw_set_link(s.d.fw, false);
	ordma_fw_rx_frame(s.d.fw, pkt, len);
	CHECK_EQ(stats(&s).rx_drop_link_down, 2);
	CHECK_EQ(stats(&s).roce_rx_frames, 4);
	drv_close(&s.d);
}

/* An InfiniBand AV is checked by its own rules; data is not sent before
 * the port is ACTIVE
 */
TEST(test_ib_tx_needs_active_and_valid_av)
{
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;

	ib_cfg(&c, false);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	{
		struct ordma_aq_cmd cmd;

		drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
		cmd.create_ah.pdn = cpu_to_le32(a->pdn);
		fill_av(&cmd.create_ah.av, &c, b, 7, 0);
		cmd.create_ah.av.ib_flags = 0x80;
		CHECK_EQ(drv_exec(&a->d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		fill_av(&cmd.create_ah.av, &c, b, 7, 0);
		cmd.create_ah.av.dlid = 0;
		CHECK_EQ(drv_exec(&a->d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		fill_av(&cmd.create_ah.av, &c, b, 7, 0);
		cmd.create_ah.av.sl = 16;
		CHECK_EQ(drv_exec(&a->d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		/* global without a valid source GID */
		fill_av(&cmd.create_ah.av, &c, b, 7, 0);
		cmd.create_ah.av.ib_flags = ORDMA_AV_IB_GLOBAL;
		cmd.create_ah.av.sgid_index = 9;
		CHECK_EQ(drv_exec(&a->d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		/* no MAC, no GID: a valid local AV */
		fill_av(&cmd.create_ah.av, &c, b, 7, 0);
		memset(cmd.create_ah.av.dgid, 0, 16);
		CHECK_EQ(drv_exec(&a->d, &cmd), OK);
	}
	a->d.fw->ib.state = ORDMA_PORT_ARMED;
	{
		uint32_t ah;

		REQUIRE_EQ(create_ah(a, b, &ah), OK);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 10, a->key1);
		w.ah = ah;
		w.remote_qpn = b->qpn;
		w.remote_qkey = 0x1234;
		post(a, &w);
		pump(&e);
	}
	CHECK_EQ(e.l[0].sent, 0);
	CHECK_EQ(stats(a).tx_drop_link_down, 1);
	CHECK_EQ(stats(a).roce_tx_drop[ORDMA_ROCE_TX_DROP_LINK_DOWN], 1);
	env_close(&e);
}
