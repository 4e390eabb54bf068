// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host unit test of the ORDMA provider's pure data-path helpers
 * (tools/provider/ordma/ordma_dp.c): queue geometry, send/receive WQE
 * encoding (ibv_post_send's encoder and the segment encoders),
 * CQE phase and CQE -> ibv_wc translation.  Built and run by
 * `make -C tools/provider check` against the rdma-core tree of build.sh.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordma/ordma_dp.h"
#include "ordma_test.h"

static uint8_t wqe[512];
static struct ordma_send_wqe *const w = (struct ordma_send_wqe *)wqe;

static const struct ordma_sge *wqe_sge(int i)
{
	return (const struct ordma_sge *)(wqe + ORDMA_SEND_WQE_HDR_SIZE) + i;
}

static uint32_t wqe_ctrl(void)
{
	return le32toh(w->ctrl.ctrl);
}

static uint32_t wqe_opcode(void)
{
	return FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl());
}

/* ------------------------------------------------------------ sizes */

TEST(cq_log_size_is_ceil_log2_at_least_1)
{
	CHECK(ordma_cq_log_size(0) == 1 && ordma_cq_log_size(1) == 1 &&
	      ordma_cq_log_size(2) == 1 && ordma_cq_log_size(3) == 2 &&
	      ordma_cq_log_size(4) == 2 && ordma_cq_log_size(5) == 3);
}

TEST(cq_log_size_up_to_16)
{
	CHECK_EQ(ordma_cq_log_size(65536), 16);
	CHECK_EQ(ordma_cq_log_size(65537), -1);
}

TEST(send_wqe_size_from_sges_48_plus_16_per_sge_pow2_at_least_64)
{
	CHECK(ordma_sq_wqe_shift(0, 0) == 6 && ordma_sq_wqe_shift(1, 0) == 6 &&
	      ordma_sq_wqe_shift(2, 0) == 7 && ordma_sq_wqe_shift(8, 0) == 8);
}

TEST(send_wqe_size_from_inline_48_plus_max_of_sges_and_inline)
{
	CHECK(ordma_sq_wqe_shift(1, 16) == 6 && ordma_sq_wqe_shift(1, 64) == 7 &&
	      ordma_sq_wqe_shift(1, 256) == 9 && ordma_sq_wqe_shift(8, 200) == 8);
}

TEST(send_wqe_above_8_sges_or_256_inline_bytes_refused)
{
	CHECK_EQ(ordma_sq_wqe_shift(9, 0), -1);
	CHECK_EQ(ordma_sq_wqe_shift(1, 257), -1);
}

TEST(recv_wqe_size_16_plus_16_per_sge_pow2_32_to_256)
{
	CHECK(ordma_rq_wqe_shift(0) == 5 && ordma_rq_wqe_shift(1) == 5 &&
	      ordma_rq_wqe_shift(2) == 6 && ordma_rq_wqe_shift(8) == 8 &&
	      ordma_rq_wqe_shift(9) == -1);
}

TEST(sges_that_fit_a_wqe_capped_at_8)
{
	CHECK(ordma_sq_max_sge(6) == 1 && ordma_sq_max_sge(7) == 5 &&
	      ordma_sq_max_sge(9) == 8 && ordma_rq_max_sge(5) == 1 &&
	      ordma_rq_max_sge(6) == 3 && ordma_rq_max_sge(8) == 8);
}

TEST(work_queue_depth_rounded_to_pow2_2_to_4096)
{
	CHECK(ordma_log2_ceil(0, 1, 12) == 1 && ordma_log2_ceil(500, 1, 12) == 9 &&
	      ordma_log2_ceil(4096, 1, 12) == 12 &&
	      ordma_log2_ceil(4097, 1, 12) == -1);
}

/* ------------------------------------------------------------ send WQE */

static struct ibv_sge sg[3] = {
	{ .addr = 0x1122334455667788ULL, .length = 100, .lkey = 0x1201 },
	{ .addr = 0x1000, .length = 8, .lkey = 0x1302 },
	{ .addr = 0x2000, .length = 8, .lkey = 0x1403 },
};
static const struct ordma_send_params rc = { .max_sge = 2, .max_inline = 64 };
static const struct ordma_send_params rc_sig_all = {
	.sig_all = true, .max_sge = 2, .max_inline = 64,
};
static const struct ordma_send_params ud = {
	.ud = true, .max_sge = 1, .qkey = 0x1234, .ah_handle = 7,
};
static const struct ordma_send_params uc = {
	.uc = true, .max_sge = 2, .max_inline = 64,
};
static char payload[300];

/* RDMA WRITE WITH IMM, signaled and solicited, two SGEs */
static struct ibv_send_wr write_imm_wr(void)
{
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = sg, .num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED,
		.imm_data = htonl(0xdeadbeef),
	};

	wr.wr.rdma.remote_addr = 0xabcdef0012345678ULL;
	wr.wr.rdma.rkey = 0x4567;
	memset(wqe, 0xa5, sizeof(wqe));
	return wr;
}

TEST(rdma_write_imm_ctrl_opcode_num_sge_signaled_solicited_reserved_0)
{
	struct ibv_send_wr wr = write_imm_wr();

	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	CHECK_EQ(wqe_opcode(), ORDMA_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(FIELD_GET(ORDMA_WQE_NUM_SGE, wqe_ctrl()), 2);
	CHECK((wqe_ctrl() & ORDMA_WQE_SIGNALED) &&
	      (wqe_ctrl() & ORDMA_WQE_SOLICITED));
	CHECK(!(wqe_ctrl() & (ORDMA_WQE_FENCE | ORDMA_WQE_INLINE)));
	CHECK(!(wqe_ctrl() & 0xfff0e000));
}

TEST(immediate_stored_as_sent_in_network_byte_order)
{
	struct ibv_send_wr wr = write_imm_wr();
	uint8_t imm[4];

	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	memcpy(imm, &w->ctrl.imm_inv, 4);
	CHECK(imm[0] == 0xde && imm[1] == 0xad && imm[2] == 0xbe &&
	      imm[3] == 0xef);
}

TEST(rdma_segment_remote_addr_rkey_reserved_0)
{
	struct ibv_send_wr wr = write_imm_wr();

	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	CHECK_EQ(le64toh(w->rdma.remote_addr), 0xabcdef0012345678ULL);
	CHECK_EQ(le32toh(w->rdma.rkey), 0x4567);
	CHECK(!w->rdma.reserved_12 && !w->rdma.reserved_16 &&
	      !w->rdma.reserved_24 && !w->ctrl.inline_len &&
	      !w->ctrl.reserved_12);
}

TEST(sges_follow_the_48_byte_header)
{
	struct ibv_send_wr wr = write_imm_wr();

	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	CHECK_EQ(le64toh(wqe_sge(0)->addr), sg[0].addr);
	CHECK_EQ(le32toh(wqe_sge(0)->length), 100);
	CHECK_EQ(le32toh(wqe_sge(0)->lkey), 0x1201);
	CHECK_EQ(le64toh(wqe_sge(1)->addr), 0x1000);
	CHECK_EQ(le32toh(wqe_sge(1)->lkey), 0x1302);
}

TEST(more_sges_than_max_send_sge_einval)
{
	struct ibv_send_wr wr = write_imm_wr();

	wr.num_sge = 3;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), EINVAL);
}

TEST(unknown_opcode_einval)
{
	struct ibv_send_wr wr = write_imm_wr();

	wr.num_sge = 1;
	wr.opcode = 99;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), EINVAL);
}

TEST(send_with_inv_rkey_in_imm_inv_sig_all_signals_fence)
{
	struct ibv_send_wr wr = write_imm_wr();

	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_FENCE;
	wr.invalidate_rkey = 0x778899;
	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc_sig_all), 0);
	CHECK_EQ(wqe_opcode(), ORDMA_WQE_SEND_INV);
	CHECK((wqe_ctrl() & ORDMA_WQE_SIGNALED) &&
	      (wqe_ctrl() & ORDMA_WQE_FENCE));
	CHECK_EQ(le32toh(w->ctrl.imm_inv), 0x778899);
}

/* An inline SEND of 40 + 24 payload bytes */
static struct ibv_send_wr inline_send_wr(struct ibv_sge *list)
{
	struct ibv_send_wr wr = {
		.sg_list = list, .num_sge = 2, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE,
	};
	int i;

	for (i = 0; i < (int)sizeof(payload); i++)
		payload[i] = (char)i;
	list[0] = (struct ibv_sge){ .addr = (uintptr_t)payload, .length = 40 };
	list[1] = (struct ibv_sge){ .addr = (uintptr_t)(payload + 40),
				    .length = 24 };
	memset(wqe, 0xa5, sizeof(wqe));
	return wr;
}

TEST(inline_send_gather_list_copied_after_header_with_inline_len)
{
	struct ibv_sge list[2];
	struct ibv_send_wr wr = inline_send_wr(list);

	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	CHECK(wqe_ctrl() & ORDMA_WQE_INLINE);
	CHECK_EQ(FIELD_GET(ORDMA_WQE_NUM_SGE, wqe_ctrl()), 0);
	CHECK_EQ(le32toh(w->ctrl.inline_len), 64);
	CHECK(!memcmp(wqe + ORDMA_SEND_WQE_HDR_SIZE, payload, 64));
}

TEST(inline_data_above_max_inline_data_einval)
{
	struct ibv_sge list[2];
	struct ibv_send_wr wr = inline_send_wr(list);

	list[1].length = 25;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), EINVAL);
}

TEST(inline_rdma_read_einval)
{
	struct ibv_sge list[2];
	struct ibv_send_wr wr = inline_send_wr(list);

	wr.opcode = IBV_WR_RDMA_READ;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), EINVAL);
}

/* CMP_SWP (compare 5, swap 6), unsignaled, one 8-byte SGE */
static struct ibv_send_wr atomic_wr(struct ibv_sge *one)
{
	struct ibv_send_wr wr = {
		.sg_list = one, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
	};

	one[0] = (struct ibv_sge){ .addr = 0x5000, .length = 8 };
	one[1] = one[0];
	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.rkey = 0x99;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 6;
	memset(wqe, 0xa5, sizeof(wqe));
	return wr;
}

TEST(atomic_cmp_and_swp_atomic_segment_unsignaled)
{
	struct ibv_sge one[2];
	struct ibv_send_wr wr = atomic_wr(one);

	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	CHECK_EQ(wqe_opcode(), ORDMA_WQE_ATOMIC_CMP_SWP);
	CHECK(!(wqe_ctrl() & ORDMA_WQE_SIGNALED));
	CHECK_EQ(le64toh(w->atomic.remote_addr), 0x8000);
	CHECK_EQ(le32toh(w->atomic.rkey), 0x99);
	CHECK_EQ(le64toh(w->atomic.compare_add), 5);
	CHECK_EQ(le64toh(w->atomic.swap), 6);
}

TEST(atomic_fetch_and_add_addend_swap_0)
{
	struct ibv_sge one[2];
	struct ibv_send_wr wr = atomic_wr(one);

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	CHECK_EQ(wqe_opcode(), ORDMA_WQE_ATOMIC_FETCH_ADD);
	CHECK(!w->atomic.swap);
}

TEST(atomic_with_2_sges_einval)
{
	struct ibv_sge one[2];
	struct ibv_send_wr wr = atomic_wr(one);

	wr.num_sge = 2;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), EINVAL);
}

/* UD SEND WITH IMM to QPN 0x33, Q_Key 0x11111111 */
static struct ibv_send_wr ud_wr(void)
{
	struct ibv_send_wr wr = {
		.sg_list = sg, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
	};

	wr.wr.ud.remote_qpn = 0x33;
	wr.wr.ud.remote_qkey = 0x11111111;
	memset(wqe, 0xa5, sizeof(wqe));
	return wr;
}

TEST(ud_send_with_imm_ah_handle_remote_qpn_remote_qkey)
{
	struct ibv_send_wr wr = ud_wr();

	REQUIRE_EQ(ordma_build_send_wqe(wqe, 6, &wr, &ud), 0);
	CHECK_EQ(wqe_opcode(), ORDMA_WQE_SEND_IMM);
	CHECK_EQ(le32toh(w->ud.ah), 7);
	CHECK_EQ(le32toh(w->ud.remote_qpn), 0x33);
	CHECK_EQ(le32toh(w->ud.remote_qkey), 0x11111111);
}

TEST(ud_remote_qkey_with_the_high_bit_is_the_qps_qkey)
{
	struct ibv_send_wr wr = ud_wr();

	wr.wr.ud.remote_qkey = 0x80000001;
	REQUIRE_EQ(ordma_build_send_wqe(wqe, 6, &wr, &ud), 0);
	CHECK_EQ(le32toh(w->ud.remote_qkey), 0x1234);
}

TEST(rdma_write_on_ud_einval)
{
	struct ibv_send_wr wr = ud_wr();

	wr.opcode = IBV_WR_RDMA_WRITE;
	CHECK_EQ(ordma_build_send_wqe(wqe, 6, &wr, &ud), EINVAL);
}

TEST(uc_rdma_write_with_imm_encoded_as_on_rc)
{
	struct ibv_send_wr wr = ud_wr();

	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.wr.rdma.remote_addr = 0x9000;
	wr.wr.rdma.rkey = 0x321;
	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &uc), 0);
	CHECK_EQ(wqe_opcode(), ORDMA_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(le64toh(w->rdma.remote_addr), 0x9000);
	CHECK_EQ(le32toh(w->rdma.rkey), 0x321);
}

TEST(uc_send)
{
	struct ibv_send_wr wr = ud_wr();

	wr.opcode = IBV_WR_SEND;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &uc), 0);
	CHECK_EQ(wqe_opcode(), ORDMA_WQE_SEND);
}

TEST(uc_rdma_read_atomics_send_with_inv_einval)
{
	static const enum ibv_wr_opcode rc_only[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_SEND_WITH_INV,
	};
	struct ibv_send_wr wr = ud_wr();
	size_t i;

	for (i = 0; i < sizeof(rc_only) / sizeof(rc_only[0]); i++) {
		wr.opcode = rc_only[i];
		CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &uc), EINVAL);
	}
}

/* ------------------------------------------------------------ receive WQE */

static struct ibv_sge recv_sg[2] = {
	{ .addr = 0x10, .length = 4096, .lkey = 1 },
	{ .addr = 0x20, .length = 1, .lkey = 2 },
};

TEST(recv_wqe_num_sge_reserved_0_sges_after_16_bytes)
{
	struct ibv_recv_wr wr = { .sg_list = recv_sg, .num_sge = 2 };
	const struct ordma_sge *s = (const struct ordma_sge *)(wqe + 16);
	const struct ordma_recv_wqe *r = (const struct ordma_recv_wqe *)wqe;

	memset(wqe, 0xa5, sizeof(wqe));
	REQUIRE_EQ(ordma_build_recv_wqe(wqe, 6, &wr, 3), 0);
	CHECK_EQ(le32toh(r->num_sge), 2);
	CHECK(!r->reserved_4 && !r->reserved_8);
	CHECK_EQ(le64toh(s[0].addr), 0x10);
	CHECK_EQ(le32toh(s[0].length), 4096);
	CHECK_EQ(le32toh(s[1].lkey), 2);
}

TEST(recv_wqe_more_sges_than_fit_einval)
{
	struct ibv_recv_wr wr = { .sg_list = recv_sg, .num_sge = 2 };

	CHECK_EQ(ordma_build_recv_wqe(wqe, 5, &wr, 8), EINVAL);
}

/* ------------------------------------------------------------ CQE */

TEST(cqe_phase_1_on_first_pass_toggling_each_wrap)
{
	struct ordma_cqe cqe = { .owner = htole32(ORDMA_CQE_PHASE) };

	CHECK(ordma_cqe_valid(&cqe, 0, 1) && ordma_cqe_valid(&cqe, 1, 1) &&
	      !ordma_cqe_valid(&cqe, 2, 1) && ordma_cqe_valid(&cqe, 4, 1));
}

TEST(zeroed_ring_holds_no_cqe_phase_0_on_second_pass)
{
	struct ordma_cqe cqe = {};

	CHECK(!ordma_cqe_valid(&cqe, 0, 1));
	CHECK(ordma_cqe_valid(&cqe, 2, 1));
}

/* A receive CQE of 1234 bytes from QP 0x77 to QP 5 */
static struct ordma_cqe recv_cqe(void)
{
	static const uint8_t imm[4] = { 0x01, 0x02, 0x03, 0x04 };
	struct ordma_cqe cqe = {
		.qpn = htole32(5), .byte_len = htole32(1234),
		.src_qp = htole32(0x77),
		.flags = htole16(ORDMA_CQE_F_IMM | ORDMA_CQE_F_GRH),
		.opcode = ORDMA_CQE_OP_RECV, .status = ORDMA_CQE_SUCCESS,
	};

	memcpy(&cqe.imm_inv, imm, 4);
	return cqe;
}

TEST(recv_cqe_opcode_byte_len_qp_num_src_qp_imm_grh_imm_network_order)
{
	struct ordma_cqe cqe = recv_cqe();
	struct ibv_wc wc;

	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.byte_len, 1234);
	CHECK_EQ(wc.qp_num, 5);
	CHECK_EQ(wc.src_qp, 0x77);
	CHECK_EQ(wc.wc_flags, IBV_WC_WITH_IMM | IBV_WC_GRH);
	CHECK_EQ(ntohl(wc.imm_data), 0x01020304);
}

/* An InfiniBand port's UD receive: the LRH's SLID, SL and path bits */
TEST(ib_ud_recv_reports_slid_sl_path_bits)
{
	struct ordma_cqe cqe = recv_cqe();
	struct ibv_wc wc;

	cqe.flags = htole16(ORDMA_CQE_F_GRH);
	cqe.slid = htole16(0x1234);
	cqe.sl = 5;
	cqe.dlid_path_bits = 3;
	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.slid, 0x1234);
	CHECK_EQ(wc.sl, 5);		/* not RoCE's packet type */
	CHECK_EQ(wc.dlid_path_bits, 3);
	CHECK_EQ(wc.wc_flags & IBV_WC_GRH, IBV_WC_GRH);
	CHECK_EQ(ordma_wc_sl(&cqe), 5);

	cqe.flags = 0;
	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.wc_flags, 0);
	CHECK_EQ(wc.sl, 5);
}

/* UCX's ud_verbs reads the network header type from the SL (mlx5's way) */
TEST(ud_recv_sl_is_roce_v2_packet_type_ipv4_or_ipv6)
{
	struct ordma_cqe cqe = recv_cqe();
	struct ibv_wc wc;

	cqe.flags = htole16(ORDMA_CQE_F_GRH | ORDMA_CQE_F_IPV4);
	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.wc_flags, IBV_WC_GRH);
	CHECK_EQ(wc.sl, 0xa);
	CHECK_EQ(wc.sl & 0x7, 2);	/* IPv4: the address ends the GRH area */

	cqe.flags = htole16(ORDMA_CQE_F_GRH);
	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.sl, 0x9);
	CHECK_EQ(ordma_wc_sl(&cqe), 0x9);

	/* no GRH (RC, send side): no packet type */
	cqe.flags = htole16(ORDMA_CQE_F_IPV4);
	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.wc_flags, 0);
	CHECK_EQ(wc.sl, 0);
}

TEST(recv_cqe_with_f_inv_invalidated_rkey)
{
	struct ordma_cqe cqe = recv_cqe();
	struct ibv_wc wc;

	cqe.flags = htole16(ORDMA_CQE_F_INV);
	cqe.imm_inv = htole32(0xabcd);
	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.wc_flags, IBV_WC_WITH_INV);
	CHECK_EQ(wc.invalidated_rkey, 0xabcd);
}

TEST(recv_rdma_imm_cqe_is_ibv_wc_recv_rdma_with_imm)
{
	struct ordma_cqe cqe = recv_cqe();
	struct ibv_wc wc;

	cqe.flags = 0;
	cqe.opcode = ORDMA_CQE_OP_RECV_RDMA_IMM;
	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK(!wc.wc_flags);
}

TEST(cqe_status_values_are_ibv_wc_status_rdma_read_opcode)
{
	struct ordma_cqe cqe = recv_cqe();
	struct ibv_wc wc;

	cqe.opcode = ORDMA_CQE_OP_RDMA_READ;
	cqe.status = ORDMA_CQE_WR_FLUSH_ERR;
	ordma_cqe_to_wc(&cqe, &wc);
	CHECK_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc.opcode, IBV_WC_RDMA_READ);
}

TEST(send_side_cqe_opcodes)
{
	CHECK_EQ(ordma_wc_opcode(ORDMA_CQE_OP_SEND), IBV_WC_SEND);
	CHECK_EQ(ordma_wc_opcode(ORDMA_CQE_OP_RDMA_WRITE), IBV_WC_RDMA_WRITE);
	CHECK_EQ(ordma_wc_opcode(ORDMA_CQE_OP_CMP_SWP), IBV_WC_COMP_SWAP);
	CHECK_EQ(ordma_wc_opcode(ORDMA_CQE_OP_FETCH_ADD), IBV_WC_FETCH_ADD);
	CHECK_EQ(ordma_wc_opcode(ORDMA_CQE_OP_LOCAL_INV), IBV_WC_LOCAL_INV);
	CHECK_EQ(ordma_wc_opcode(ORDMA_CQE_OP_FLUSH), IBV_WC_FLUSH);
	CHECK_EQ(ordma_wc_opcode(ORDMA_CQE_OP_ATOMIC_WRITE),
		 IBV_WC_ATOMIC_WRITE);
	CHECK_EQ(ordma_wc_opcode(ORDMA_CQE_OP_BIND_MW), IBV_WC_BIND_MW);
}

TEST(mw_bind_err_is_ibv_wc_mw_bind_err)
{
	CHECK_EQ((int)ORDMA_CQE_MW_BIND_ERR, (int)IBV_WC_MW_BIND_ERR);
}

TEST(cqe_status_values_equal_ibv_wc_status)
{
	CHECK_EQ((int)ORDMA_CQE_LOC_LEN_ERR, (int)IBV_WC_LOC_LEN_ERR);
	CHECK_EQ((int)ORDMA_CQE_LOC_PROT_ERR, (int)IBV_WC_LOC_PROT_ERR);
	CHECK_EQ((int)ORDMA_CQE_WR_FLUSH_ERR, (int)IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ((int)ORDMA_CQE_REM_ACCESS_ERR, (int)IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ((int)ORDMA_CQE_RETRY_EXC_ERR, (int)IBV_WC_RETRY_EXC_ERR);
	CHECK_EQ((int)ORDMA_CQE_RNR_RETRY_EXC_ERR,
		 (int)IBV_WC_RNR_RETRY_EXC_ERR);
	CHECK_EQ((int)ORDMA_CQE_REM_ABORT_ERR, (int)IBV_WC_REM_ABORT_ERR);
	CHECK_EQ((int)ORDMA_CQE_GENERAL_ERR, (int)IBV_WC_GENERAL_ERR);
}

/* ------------------------------------------------------------ BIND_MW */

static struct ibv_mr bind_mr = { .lkey = 0x3344 };
static struct ibv_mw bind_mw = { .rkey = 0x1200, .type = IBV_MW_TYPE_2 };

/* Bind 0x100 bytes at 0x7000 with remote write, zero based: rkey 0x1201 */
static struct ibv_send_wr bind_wr(void)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
	};

	wr.bind_mw.mw = &bind_mw;
	wr.bind_mw.rkey = 0x1201;
	wr.bind_mw.bind_info.mr = &bind_mr;
	wr.bind_mw.bind_info.addr = 0x7000;
	wr.bind_mw.bind_info.length = 0x100;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ZERO_BASED;
	memset(wqe, 0xa5, sizeof(wqe));
	return wr;
}

TEST(bind_mw_segment_fields_local_write_dropped_from_rights)
{
	struct ibv_send_wr wr = bind_wr();

	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	CHECK_EQ(wqe_opcode(), ORDMA_WQE_BIND_MW);
	CHECK_EQ(FIELD_GET(ORDMA_WQE_NUM_SGE, wqe_ctrl()), 0);
	CHECK(wqe_ctrl() & ORDMA_WQE_SIGNALED);
	CHECK_EQ(le64toh(w->bind_mw.addr), 0x7000);
	CHECK_EQ(le64toh(w->bind_mw.length), 0x100);
	CHECK_EQ(le32toh(w->bind_mw.mw_rkey), 0x1201);
	CHECK_EQ(le32toh(w->bind_mw.mr_lkey), 0x3344);
	CHECK_EQ(le32toh(w->bind_mw.access),
		 ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_ZERO_BASED);
	CHECK(!w->bind_mw.reserved_28);
}

TEST(bind_mw_on_ud_einval)
{
	struct ibv_send_wr wr = bind_wr();
	struct ordma_send_params ud_bind = { .ud = true, .max_sge = 1 };

	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &ud_bind), EINVAL);
}

TEST(bind_mw_new_rkey_of_another_window_einval)
{
	struct ibv_send_wr wr = bind_wr();

	wr.bind_mw.rkey = 0x1301;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), EINVAL);
}

TEST(bind_mw_right_a_window_cannot_have_einval)
{
	struct ibv_send_wr wr = bind_wr();

	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_MW_BIND;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), EINVAL);
}

TEST(bind_mw_length_without_an_mr_einval)
{
	struct ibv_send_wr wr = bind_wr();

	wr.bind_mw.bind_info.mw_access_flags = 0;
	wr.bind_mw.bind_info.mr = NULL;
	CHECK_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), EINVAL);
}

TEST(bind_mw_zero_length_without_an_mr_type_1_unbind)
{
	struct ibv_send_wr wr = bind_wr();

	wr.bind_mw.bind_info.mw_access_flags = 0;
	wr.bind_mw.bind_info.mr = NULL;
	wr.bind_mw.bind_info.length = 0;
	REQUIRE_EQ(ordma_build_send_wqe(wqe, 7, &wr, &rc), 0);
	CHECK(!w->bind_mw.mr_lkey && !w->bind_mw.length);
}

TEST(window_rights_remote_read_and_atomic)
{
	uint32_t hw = 0;

	CHECK_EQ(ordma_mw_access_to_hw(IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC, &hw), 0);
	CHECK_EQ(hw, ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_REMOTE_ATOMIC);
}

TEST(window_rights_both_flush_placement_types)
{
	uint32_t hw = 0;

	CHECK_EQ(ordma_mw_access_to_hw(IBV_ACCESS_FLUSH_GLOBAL |
				       IBV_ACCESS_FLUSH_PERSISTENT, &hw), 0);
	CHECK_EQ(hw, ORDMA_ACCESS_FLUSH_GLOBAL | ORDMA_ACCESS_FLUSH_PERSISTENT);
}

/* ------------------------------------------------------------ extended QP */

static const uint64_t rc_only_ops = IBV_QP_EX_WITH_SEND_WITH_INV |
	IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
	IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
	IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_FLUSH |
	IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_BIND_MW;

TEST(send_ops_ud_send_and_imm_rc_those_plus_rc_only_operations)
{
	CHECK_EQ(ordma_qpx_check_ops(true, 0), 0);
	CHECK_EQ(ordma_qpx_check_ops(true, IBV_QP_EX_WITH_SEND |
				     IBV_QP_EX_WITH_SEND_WITH_IMM), 0);
	CHECK_EQ(ordma_qpx_check_ops(false, IBV_QP_EX_WITH_SEND |
				     IBV_QP_EX_WITH_SEND_WITH_IMM |
				     rc_only_ops), 0);
}

TEST(send_ops_rc_only_operations_on_ud_eopnotsupp)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (rc_only_ops & (1ULL << i))
			CHECK_EQ(ordma_qpx_check_ops(true, IBV_QP_EX_WITH_SEND |
						     (1ULL << i)), EOPNOTSUPP);
	CHECK_EQ(ordma_qpx_check_ops(true, rc_only_ops), EOPNOTSUPP);
}

TEST(send_ops_local_inv_tso_unknown_eopnotsupp)
{
	static const uint64_t never[] = {
		IBV_QP_EX_WITH_LOCAL_INV, IBV_QP_EX_WITH_TSO, 1ULL << 40,
	};
	size_t i;

	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		CHECK_EQ(ordma_qpx_check_ops(false, IBV_QP_EX_WITH_SEND |
					     never[i]), EOPNOTSUPP);
		CHECK_EQ(ordma_qpx_check_ops(true, never[i]), EOPNOTSUPP);
	}
}

/* An inline SEND WQE of 2^6 bytes: 16 bytes of room for inline data */
static void start_inline_send(void)
{
	memset(wqe, 0, sizeof(wqe));
	ordma_wqe_set_ctrl(w, ORDMA_WQE_SEND, 0, false);
	ordma_wqe_start_inline(w);
}

TEST(inline_data_pieces_appended_in_order_exactly_filling_the_room)
{
	start_inline_send();
	CHECK_EQ(ordma_wqe_add_inline(w, 6, 8, "abc", 3), 0);
	CHECK_EQ(ordma_wqe_add_inline(w, 6, 8, NULL, 0), 0);
	CHECK_EQ(ordma_wqe_add_inline(w, 6, 8, "defgh", 5), 0);
	CHECK_EQ(le32toh(w->ctrl.inline_len), 8);
	CHECK(!memcmp(wqe + ORDMA_SEND_WQE_HDR_SIZE, "abcdefgh", 8));
	CHECK(!wqe[ORDMA_SEND_WQE_HDR_SIZE + 8]);
	CHECK(wqe_ctrl() & ORDMA_WQE_INLINE);
}

TEST(inline_data_longer_than_the_room_einval)
{
	start_inline_send();
	CHECK_EQ(ordma_wqe_add_inline(w, 6, 7, "abc", 3), 0);
	CHECK_EQ(ordma_wqe_add_inline(w, 6, 7, "defgh", 5), EINVAL);
	CHECK_EQ(le32toh(w->ctrl.inline_len), 3);
	/* the WQE's room bounds max_inline_data too */
	CHECK_EQ(ordma_wqe_add_inline(w, 6, 256, payload, 14), EINVAL);
}

TEST(empty_inline_data_fits_no_room)
{
	start_inline_send();
	CHECK_EQ(ordma_wqe_add_inline(w, 6, 0, NULL, 0), 0);
	CHECK_EQ(le32toh(w->ctrl.inline_len), 0);
	CHECK(wqe_ctrl() & ORDMA_WQE_INLINE);
}

TEST(wr_flags_ip_csum_not_accepted)
{
	CHECK_EQ(ORDMA_QPX_WR_FLAGS & IBV_SEND_IP_CSUM, 0);
}

/* ------------------------------------------------------------ FLUSH, ATOMIC WRITE */

static uint8_t buf64[64];
static struct ordma_send_wqe *const w64 = (struct ordma_send_wqe *)buf64;

TEST(flush_encoded)
{
	memset(buf64, 0xff, sizeof(buf64));
	ordma_wqe_set_ctrl(w64, ORDMA_WQE_FLUSH, IBV_SEND_SIGNALED, false);
	CHECK_EQ(ordma_wqe_set_flush(w64, 0x1234, 0x1000, 4096,
				     IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE), 0);
}

TEST(flush_wqe_address_rkey_length_placement_level_no_sge)
{
	uint32_t ctrl;

	memset(buf64, 0xff, sizeof(buf64));
	ordma_wqe_set_ctrl(w64, ORDMA_WQE_FLUSH, IBV_SEND_SIGNALED, false);
	REQUIRE_EQ(ordma_wqe_set_flush(w64, 0x1234, 0x1000, 4096,
				       IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE), 0);
	ctrl = le32toh(w64->ctrl.ctrl);
	CHECK_EQ(FIELD_GET(ORDMA_WQE_OPCODE, ctrl), ORDMA_WQE_FLUSH);
	CHECK(ctrl & ORDMA_WQE_SIGNALED);
	CHECK_EQ(FIELD_GET(ORDMA_WQE_NUM_SGE, ctrl), 0);
	CHECK_EQ(le64toh(w64->flush.remote_addr), 0x1000);
	CHECK_EQ(le32toh(w64->flush.rkey), 0x1234);
	CHECK_EQ(le32toh(w64->flush.length), 4096);
	CHECK_EQ(w64->flush.placement, ORDMA_FLUSH_GLOBAL);
	CHECK_EQ(w64->flush.level, ORDMA_FLUSH_LEVEL_RANGE);
	CHECK(!w64->flush.reserved_18 && !w64->flush.reserved_20 &&
	      !w64->flush.reserved_24);
}

TEST(flush_at_mr_level_any_length_sent_as_0_sig_all_signals)
{
	ordma_wqe_set_ctrl(w64, ORDMA_WQE_FLUSH, 0, true);
	REQUIRE_EQ(ordma_wqe_set_flush(w64, 1, 0, 1ULL << 40,
				       IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT,
				       IBV_FLUSH_MR), 0);
	CHECK(!w64->flush.length);
	CHECK_EQ(w64->flush.level, ORDMA_FLUSH_LEVEL_MR);
	CHECK_EQ(w64->flush.placement, 3);
	CHECK(le32toh(w64->ctrl.ctrl) & ORDMA_WQE_SIGNALED);
}

TEST(flush_no_or_unknown_type_unknown_level_range_above_2_31_einval)
{
	CHECK_EQ(ordma_wqe_set_flush(w64, 1, 0, 8, 0, IBV_FLUSH_RANGE), EINVAL);
	CHECK_EQ(ordma_wqe_set_flush(w64, 1, 0, 8, 4, IBV_FLUSH_RANGE), EINVAL);
	CHECK_EQ(ordma_wqe_set_flush(w64, 1, 0, 8, IBV_FLUSH_GLOBAL, 2),
		 EINVAL);
	CHECK_EQ(ordma_wqe_set_flush(w64, 1, 0, (1ULL << 31) + 1,
				     IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE),
		 EINVAL);
}

TEST(atomic_write_wqe_address_rkey_the_8_bytes_as_given)
{
	static const uint8_t val[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint32_t ctrl;

	memset(buf64, 0xff, sizeof(buf64));
	ordma_wqe_set_ctrl(w64, ORDMA_WQE_ATOMIC_WRITE, IBV_SEND_FENCE, false);
	ordma_wqe_set_atomic_write(w64, 0x55, 0x2008, val);
	ctrl = le32toh(w64->ctrl.ctrl);
	CHECK_EQ(FIELD_GET(ORDMA_WQE_OPCODE, ctrl), ORDMA_WQE_ATOMIC_WRITE);
	CHECK(ctrl & ORDMA_WQE_FENCE);
	CHECK(!(ctrl & ORDMA_WQE_SIGNALED));
	CHECK_EQ(le64toh(w64->atomic_write.remote_addr), 0x2008);
	CHECK_EQ(le32toh(w64->atomic_write.rkey), 0x55);
	CHECK(!memcmp(w64->atomic_write.value, val, 8));
	CHECK(!w64->atomic_write.reserved_12 && !w64->atomic_write.reserved_24);
}
