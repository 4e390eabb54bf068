// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host unit test of the ORDMA provider's pure data-path helpers
 * (tools/provider/ordma/ordma_dp.c): queue geometry, send/receive WQE
 * encoding, CQE phase and CQE -> ibv_wc translation.  Built and run by
 * tools/provider/host-test.sh against the rdma-core 56.1 tree of
 * build.sh; prints TAP lines "ok N - ..." and exits non-zero on failure.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordma/ordma_dp.h"

static int n, failed;

static void check(int cond, const char *what)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
}

static uint8_t wqe[512];

static const struct ordma_sge *wqe_sge(int i)
{
	return (const struct ordma_sge *)(wqe + ORDMA_SEND_WQE_HDR_SIZE) + i;
}

static uint32_t wqe_ctrl(void)
{
	return le32toh(((struct ordma_send_wqe *)wqe)->ctrl.ctrl);
}

static void test_sizes(void)
{
	check(ordma_cq_log_size(0) == 1 && ordma_cq_log_size(1) == 1 &&
	      ordma_cq_log_size(2) == 1 && ordma_cq_log_size(3) == 2 &&
	      ordma_cq_log_size(4) == 2 && ordma_cq_log_size(5) == 3,
	      "CQ log_size = ceil_log2(cqe), at least 1");
	check(ordma_cq_log_size(65536) == 16 && ordma_cq_log_size(65537) == -1,
	      "CQ log_size up to 16");
	check(ordma_sq_wqe_shift(0, 0) == 6 && ordma_sq_wqe_shift(1, 0) == 6 &&
	      ordma_sq_wqe_shift(2, 0) == 7 && ordma_sq_wqe_shift(8, 0) == 8,
	      "send WQE size from SGEs: 48 + 16 * sge, pow2, >= 64");
	check(ordma_sq_wqe_shift(1, 16) == 6 && ordma_sq_wqe_shift(1, 64) == 7 &&
	      ordma_sq_wqe_shift(1, 256) == 9 && ordma_sq_wqe_shift(8, 200) == 8,
	      "send WQE size from inline: 48 + max(16 * sge, inline)");
	check(ordma_sq_wqe_shift(9, 0) == -1 && ordma_sq_wqe_shift(1, 257) == -1,
	      "send WQE: more than 8 SGEs or 256 inline bytes refused");
	check(ordma_rq_wqe_shift(0) == 5 && ordma_rq_wqe_shift(1) == 5 &&
	      ordma_rq_wqe_shift(2) == 6 && ordma_rq_wqe_shift(8) == 8 &&
	      ordma_rq_wqe_shift(9) == -1,
	      "receive WQE size: 16 + 16 * sge, pow2, >= 32, <= 8 SGEs");
	check(ordma_sq_max_sge(6) == 1 && ordma_sq_max_sge(7) == 5 &&
	      ordma_sq_max_sge(9) == 8 && ordma_rq_max_sge(5) == 1 &&
	      ordma_rq_max_sge(6) == 3 && ordma_rq_max_sge(8) == 8,
	      "SGEs that fit a WQE, capped at 8");
	check(ordma_log2_ceil(0, 1, 12) == 1 && ordma_log2_ceil(500, 1, 12) == 9 &&
	      ordma_log2_ceil(4096, 1, 12) == 12 &&
	      ordma_log2_ceil(4097, 1, 12) == -1,
	      "work queue depth rounded to a power of two, 2..4096");
}

static void test_send(void)
{
	struct ibv_sge sg[3] = {
		{ .addr = 0x1122334455667788ULL, .length = 100, .lkey = 0x1201 },
		{ .addr = 0x1000, .length = 8, .lkey = 0x1302 },
		{ .addr = 0x2000, .length = 8, .lkey = 0x1403 },
	};
	struct ordma_send_params rc = { .max_sge = 2, .max_inline = 64 };
	struct ordma_send_params ud = { .ud = true, .max_sge = 1, .qkey = 0x1234,
					.ah_handle = 7 };
	struct ordma_send_params uc = { .uc = true, .max_sge = 2,
					.max_inline = 64 };
	struct ordma_send_wqe *w = (struct ordma_send_wqe *)wqe;
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = sg, .num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED,
		.imm_data = htonl(0xdeadbeef),
	};
	char payload[300];
	uint8_t imm[4];
	int ret;

	wr.wr.rdma.remote_addr = 0xabcdef0012345678ULL;
	wr.wr.rdma.rkey = 0x4567;
	memset(wqe, 0xa5, sizeof(wqe));
	ret = ordma_build_send_wqe(wqe, 7, &wr, &rc);
	memcpy(imm, &w->ctrl.imm_inv, 4);
	check(ret == 0 && FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl()) == ORDMA_WQE_RDMA_WRITE_IMM &&
	      FIELD_GET(ORDMA_WQE_NUM_SGE, wqe_ctrl()) == 2 &&
	      (wqe_ctrl() & ORDMA_WQE_SIGNALED) && (wqe_ctrl() & ORDMA_WQE_SOLICITED) &&
	      !(wqe_ctrl() & (ORDMA_WQE_FENCE | ORDMA_WQE_INLINE)) &&
	      !(wqe_ctrl() & 0xfff0e000),
	      "RDMA_WRITE_WITH_IMM: opcode, NUM_SGE, SIGNALED|SOLICITED, reserved bits 0");
	check(imm[0] == 0xde && imm[1] == 0xad && imm[2] == 0xbe && imm[3] == 0xef,
	      "immediate stored as sent (network byte order bytes)");
	check(le64toh(w->rdma.remote_addr) == 0xabcdef0012345678ULL &&
	      le32toh(w->rdma.rkey) == 0x4567 && !w->rdma.reserved_12 &&
	      !w->rdma.reserved_16 && !w->rdma.reserved_24 &&
	      !w->ctrl.inline_len && !w->ctrl.reserved_12,
	      "rdma segment: remote_addr, rkey, reserved 0");
	check(le64toh(wqe_sge(0)->addr) == sg[0].addr &&
	      le32toh(wqe_sge(0)->length) == 100 && le32toh(wqe_sge(0)->lkey) == 0x1201 &&
	      le64toh(wqe_sge(1)->addr) == 0x1000 && le32toh(wqe_sge(1)->lkey) == 0x1302,
	      "SGEs after the 48-byte header");

	wr.num_sge = 3;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == EINVAL,
	      "more SGEs than max_send_sge: EINVAL");
	wr.num_sge = 1;
	wr.opcode = 99;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == EINVAL, "unknown opcode: EINVAL");

	/* sig_all, fence, SEND_WITH_INV */
	rc.sig_all = true;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_FENCE;
	wr.invalidate_rkey = 0x778899;
	ret = ordma_build_send_wqe(wqe, 7, &wr, &rc);
	check(ret == 0 && FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl()) == ORDMA_WQE_SEND_INV &&
	      (wqe_ctrl() & ORDMA_WQE_SIGNALED) && (wqe_ctrl() & ORDMA_WQE_FENCE) &&
	      le32toh(w->ctrl.imm_inv) == 0x778899,
	      "SEND_WITH_INV: rkey in imm_inv, sq_sig_all signals, FENCE");
	rc.sig_all = false;

	/* inline */
	for (ret = 0; ret < (int)sizeof(payload); ret++)
		payload[ret] = (char)ret;
	sg[0].addr = (uintptr_t)payload;
	sg[0].length = 40;
	sg[1].addr = (uintptr_t)(payload + 40);
	sg[1].length = 24;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	wr.num_sge = 2;
	ret = ordma_build_send_wqe(wqe, 7, &wr, &rc);
	check(ret == 0 && (wqe_ctrl() & ORDMA_WQE_INLINE) &&
	      FIELD_GET(ORDMA_WQE_NUM_SGE, wqe_ctrl()) == 0 &&
	      le32toh(w->ctrl.inline_len) == 64 &&
	      !memcmp(wqe + ORDMA_SEND_WQE_HDR_SIZE, payload, 64),
	      "inline SEND: gather list copied after the header, inline_len");
	sg[1].length = 25;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == EINVAL,
	      "inline data above max_inline_data: EINVAL");
	sg[1].length = 24;
	wr.opcode = IBV_WR_RDMA_READ;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == EINVAL, "inline RDMA_READ: EINVAL");

	/* atomics */
	sg[0].addr = 0x5000;
	sg[0].length = 8;
	wr.send_flags = 0;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.rkey = 0x99;
	wr.wr.atomic.compare_add = 5;
	wr.wr.atomic.swap = 6;
	ret = ordma_build_send_wqe(wqe, 7, &wr, &rc);
	check(ret == 0 && FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl()) == ORDMA_WQE_ATOMIC_CMP_SWP &&
	      !(wqe_ctrl() & ORDMA_WQE_SIGNALED) &&
	      le64toh(w->atomic.remote_addr) == 0x8000 && le32toh(w->atomic.rkey) == 0x99 &&
	      le64toh(w->atomic.compare_add) == 5 && le64toh(w->atomic.swap) == 6,
	      "ATOMIC_CMP_AND_SWP: atomic segment, unsignaled");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	ret = ordma_build_send_wqe(wqe, 7, &wr, &rc);
	check(ret == 0 && FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl()) == ORDMA_WQE_ATOMIC_FETCH_ADD &&
	      !w->atomic.swap, "ATOMIC_FETCH_AND_ADD: addend, swap 0");
	wr.num_sge = 2;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == EINVAL, "atomic with 2 SGEs: EINVAL");

	/* UD */
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.wr.ud.remote_qpn = 0x33;
	wr.wr.ud.remote_qkey = 0x11111111;
	ret = ordma_build_send_wqe(wqe, 6, &wr, &ud);
	check(ret == 0 && FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl()) == ORDMA_WQE_SEND_IMM &&
	      le32toh(w->ud.ah) == 7 && le32toh(w->ud.remote_qpn) == 0x33 &&
	      le32toh(w->ud.remote_qkey) == 0x11111111,
	      "UD SEND_WITH_IMM: ah handle, remote_qpn, remote_qkey");
	wr.wr.ud.remote_qkey = 0x80000001;
	ret = ordma_build_send_wqe(wqe, 6, &wr, &ud);
	check(ret == 0 && le32toh(w->ud.remote_qkey) == 0x1234,
	      "UD remote_qkey with the high bit: the QP's Q_Key");
	wr.opcode = IBV_WR_RDMA_WRITE;
	check(ordma_build_send_wqe(wqe, 6, &wr, &ud) == EINVAL, "RDMA_WRITE on UD: EINVAL");

	/* UC: SEND and RDMA WRITE (with immediate) as on RC, nothing else */
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.wr.rdma.remote_addr = 0x9000;
	wr.wr.rdma.rkey = 0x321;
	ret = ordma_build_send_wqe(wqe, 7, &wr, &uc);
	check(ret == 0 && FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl()) == ORDMA_WQE_RDMA_WRITE_IMM &&
	      le64toh(w->rdma.remote_addr) == 0x9000 && le32toh(w->rdma.rkey) == 0x321,
	      "UC RDMA_WRITE_WITH_IMM: encoded as on RC");
	wr.opcode = IBV_WR_SEND;
	check(ordma_build_send_wqe(wqe, 7, &wr, &uc) == 0 &&
	      FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl()) == ORDMA_WQE_SEND, "UC SEND");
	wr.opcode = IBV_WR_RDMA_READ;
	ret = ordma_build_send_wqe(wqe, 7, &wr, &uc);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	ret |= ordma_build_send_wqe(wqe, 7, &wr, &uc) != EINVAL;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	ret |= ordma_build_send_wqe(wqe, 7, &wr, &uc) != EINVAL;
	wr.opcode = IBV_WR_SEND_WITH_INV;
	ret |= ordma_build_send_wqe(wqe, 7, &wr, &uc) != EINVAL;
	check(ret == EINVAL, "UC RDMA_READ, atomics, SEND_WITH_INV: EINVAL");
}

static void test_recv(void)
{
	struct ibv_sge sg[2] = {
		{ .addr = 0x10, .length = 4096, .lkey = 1 },
		{ .addr = 0x20, .length = 1, .lkey = 2 },
	};
	struct ibv_recv_wr wr = { .sg_list = sg, .num_sge = 2 };
	const struct ordma_sge *s = (const struct ordma_sge *)(wqe + 16);

	memset(wqe, 0xa5, sizeof(wqe));
	check(ordma_build_recv_wqe(wqe, 6, &wr, 3) == 0 &&
	      le32toh(((struct ordma_recv_wqe *)wqe)->num_sge) == 2 &&
	      !((struct ordma_recv_wqe *)wqe)->reserved_4 &&
	      !((struct ordma_recv_wqe *)wqe)->reserved_8 &&
	      le64toh(s[0].addr) == 0x10 && le32toh(s[0].length) == 4096 &&
	      le32toh(s[1].lkey) == 2,
	      "receive WQE: num_sge, reserved 0, SGEs after 16 bytes");
	check(ordma_build_recv_wqe(wqe, 5, &wr, 8) == EINVAL,
	      "receive WQE: more SGEs than fit: EINVAL");
}

static void test_cqe(void)
{
	struct ordma_cqe cqe = {};
	struct ibv_wc wc;
	uint8_t imm[4] = { 0x01, 0x02, 0x03, 0x04 };

	cqe.owner = htole32(ORDMA_CQE_PHASE);
	check(ordma_cqe_valid(&cqe, 0, 1) && ordma_cqe_valid(&cqe, 1, 1) &&
	      !ordma_cqe_valid(&cqe, 2, 1) && ordma_cqe_valid(&cqe, 4, 1),
	      "phase 1 on the first pass, toggling each wrap");
	cqe.owner = 0;
	check(!ordma_cqe_valid(&cqe, 0, 1) && ordma_cqe_valid(&cqe, 2, 1),
	      "a zeroed ring holds no CQE; phase 0 on the second pass");

	cqe.qpn = htole32(5);
	cqe.byte_len = htole32(1234);
	cqe.src_qp = htole32(0x77);
	memcpy(&cqe.imm_inv, imm, 4);
	cqe.flags = htole16(ORDMA_CQE_F_IMM | ORDMA_CQE_F_GRH);
	cqe.opcode = ORDMA_CQE_OP_RECV;
	cqe.status = ORDMA_CQE_SUCCESS;
	ordma_cqe_to_wc(&cqe, &wc);
	check(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
	      wc.byte_len == 1234 && wc.qp_num == 5 && wc.src_qp == 0x77 &&
	      wc.wc_flags == (IBV_WC_WITH_IMM | IBV_WC_GRH) &&
	      ntohl(wc.imm_data) == 0x01020304,
	      "receive CQE: opcode, byte_len, qp_num, src_qp, IMM|GRH, imm in network order");
	cqe.flags = htole16(ORDMA_CQE_F_INV);
	cqe.imm_inv = htole32(0xabcd);
	ordma_cqe_to_wc(&cqe, &wc);
	check(wc.wc_flags == IBV_WC_WITH_INV && wc.invalidated_rkey == 0xabcd,
	      "receive CQE with F_INV: invalidated_rkey");
	cqe.flags = 0;
	cqe.opcode = ORDMA_CQE_OP_RECV_RDMA_IMM;
	ordma_cqe_to_wc(&cqe, &wc);
	check(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && !wc.wc_flags,
	      "RECV_RDMA_IMM -> IBV_WC_RECV_RDMA_WITH_IMM");
	cqe.opcode = ORDMA_CQE_OP_RDMA_READ;
	cqe.status = ORDMA_CQE_WR_FLUSH_ERR;
	ordma_cqe_to_wc(&cqe, &wc);
	check(wc.status == IBV_WC_WR_FLUSH_ERR && wc.opcode == IBV_WC_RDMA_READ,
	      "status values are ibv_wc_status; RDMA_READ opcode");
	check(ordma_wc_opcode(ORDMA_CQE_OP_SEND) == IBV_WC_SEND &&
	      ordma_wc_opcode(ORDMA_CQE_OP_RDMA_WRITE) == IBV_WC_RDMA_WRITE &&
	      ordma_wc_opcode(ORDMA_CQE_OP_CMP_SWP) == IBV_WC_COMP_SWAP &&
	      ordma_wc_opcode(ORDMA_CQE_OP_FETCH_ADD) == IBV_WC_FETCH_ADD &&
	      ordma_wc_opcode(ORDMA_CQE_OP_LOCAL_INV) == IBV_WC_LOCAL_INV &&
	      ordma_wc_opcode(ORDMA_CQE_OP_FLUSH) == IBV_WC_FLUSH &&
	      ordma_wc_opcode(ORDMA_CQE_OP_ATOMIC_WRITE) == IBV_WC_ATOMIC_WRITE &&
	      ordma_wc_opcode(ORDMA_CQE_OP_BIND_MW) == IBV_WC_BIND_MW,
	      "send-side CQE opcodes");
	check((int)ORDMA_CQE_MW_BIND_ERR == (int)IBV_WC_MW_BIND_ERR,
	      "MW_BIND_ERR is IBV_WC_MW_BIND_ERR");
	check((int)ORDMA_CQE_LOC_LEN_ERR == (int)IBV_WC_LOC_LEN_ERR &&
	      (int)ORDMA_CQE_LOC_PROT_ERR == (int)IBV_WC_LOC_PROT_ERR &&
	      (int)ORDMA_CQE_WR_FLUSH_ERR == (int)IBV_WC_WR_FLUSH_ERR &&
	      (int)ORDMA_CQE_REM_ACCESS_ERR == (int)IBV_WC_REM_ACCESS_ERR &&
	      (int)ORDMA_CQE_RETRY_EXC_ERR == (int)IBV_WC_RETRY_EXC_ERR &&
	      (int)ORDMA_CQE_RNR_RETRY_EXC_ERR == (int)IBV_WC_RNR_RETRY_EXC_ERR &&
	      (int)ORDMA_CQE_REM_ABORT_ERR == (int)IBV_WC_REM_ABORT_ERR &&
	      (int)ORDMA_CQE_GENERAL_ERR == (int)IBV_WC_GENERAL_ERR,
	      "ordma_cqe_status values equal ibv_wc_status");
}

static void test_bind_mw(void)
{
	struct ordma_send_params rc = { .max_sge = 2, .max_inline = 64 };
	struct ordma_send_params ud = { .ud = true, .max_sge = 1 };
	struct ordma_send_wqe *w = (struct ordma_send_wqe *)wqe;
	struct ibv_mr mr = { .lkey = 0x3344 };
	struct ibv_mw mw = { .rkey = 0x1200, .type = IBV_MW_TYPE_2 };
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
	};
	uint32_t hw = 0;

	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0x1201;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x7000;
	wr.bind_mw.bind_info.length = 0x100;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ZERO_BASED;
	memset(wqe, 0xa5, sizeof(wqe));
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == 0 &&
	      FIELD_GET(ORDMA_WQE_OPCODE, wqe_ctrl()) == ORDMA_WQE_BIND_MW &&
	      FIELD_GET(ORDMA_WQE_NUM_SGE, wqe_ctrl()) == 0 &&
	      (wqe_ctrl() & ORDMA_WQE_SIGNALED) &&
	      le64toh(w->bind_mw.addr) == 0x7000 &&
	      le64toh(w->bind_mw.length) == 0x100 &&
	      le32toh(w->bind_mw.mw_rkey) == 0x1201 &&
	      le32toh(w->bind_mw.mr_lkey) == 0x3344 &&
	      le32toh(w->bind_mw.access) ==
	      (ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_ZERO_BASED) &&
	      !w->bind_mw.reserved_28,
	      "BIND_MW: segment fields, local write dropped from the rights");
	check(ordma_build_send_wqe(wqe, 7, &wr, &ud) == EINVAL,
	      "BIND_MW on UD: EINVAL");
	wr.bind_mw.rkey = 0x1301;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == EINVAL,
	      "BIND_MW: new rkey of another window: EINVAL");
	wr.bind_mw.rkey = 0x1201;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_MW_BIND;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == EINVAL,
	      "BIND_MW: a right a window cannot have: EINVAL");
	wr.bind_mw.bind_info.mw_access_flags = 0;
	wr.bind_mw.bind_info.mr = NULL;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == EINVAL,
	      "BIND_MW: length without an MR: EINVAL");
	wr.bind_mw.bind_info.length = 0;
	check(ordma_build_send_wqe(wqe, 7, &wr, &rc) == 0 &&
	      !w->bind_mw.mr_lkey && !w->bind_mw.length,
	      "BIND_MW: zero length without an MR (type 1 unbind)");
	check(ordma_mw_access_to_hw(IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC, &hw) == 0 &&
	      hw == (ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_REMOTE_ATOMIC),
	      "window rights: remote read and atomic");
	check(ordma_mw_access_to_hw(IBV_ACCESS_FLUSH_GLOBAL |
				    IBV_ACCESS_FLUSH_PERSISTENT, &hw) == 0 &&
	      hw == (ORDMA_ACCESS_FLUSH_GLOBAL | ORDMA_ACCESS_FLUSH_PERSISTENT),
	      "window rights: both FLUSH placement types");
}

static void test_qpx(void)
{
	const uint64_t rc_only = IBV_QP_EX_WITH_SEND_WITH_INV |
		IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_FLUSH |
		IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_BIND_MW;
	const uint64_t never[] = {
		IBV_QP_EX_WITH_LOCAL_INV, IBV_QP_EX_WITH_TSO, 1ULL << 40,
	};
	char a[] = "abc", b[] = "defgh";
	struct ibv_data_buf list[3] = {
		{ .addr = a, .length = 3 },
		{ .addr = NULL, .length = 0 },
		{ .addr = b, .length = 5 },
	};
	uint8_t dst[16];
	uint32_t len = 99;
	int ok = 1;
	size_t i;

	check(ordma_qpx_check_ops(true, 0) == 0 &&
	      ordma_qpx_check_ops(true, IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM) == 0 &&
	      ordma_qpx_check_ops(false, IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM | rc_only) == 0,
	      "send_ops_flags: UD SEND/SEND_IMM, RC those plus INV/WRITE(_IMM)/READ/atomics/FLUSH/ATOMIC_WRITE/BIND_MW");
	for (i = 0; i < 64; i++)
		if (rc_only & (1ULL << i))
			ok &= ordma_qpx_check_ops(true, IBV_QP_EX_WITH_SEND |
						  (1ULL << i)) == EOPNOTSUPP;
	check(ok && ordma_qpx_check_ops(true, rc_only) == EOPNOTSUPP,
	      "send_ops_flags: RC-only operations on UD: EOPNOTSUPP");
	ok = 1;
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		ok &= ordma_qpx_check_ops(false, IBV_QP_EX_WITH_SEND | never[i]) ==
			      EOPNOTSUPP &&
		      ordma_qpx_check_ops(true, never[i]) == EOPNOTSUPP;
	check(ok, "send_ops_flags: LOCAL_INV, TSO, unknown: EOPNOTSUPP");

	memset(dst, 0, sizeof(dst));
	check(ordma_gather_bufs(dst, 8, list, 3, &len) == 0 && len == 8 &&
	      !memcmp(dst, "abcdefgh", 8) && !dst[8],
	      "inline data list gathered in order, exactly filling the room");
	len = 99;
	check(ordma_gather_bufs(dst, 7, list, 3, &len) == EINVAL && len == 99,
	      "inline data list longer than the room: EINVAL");
	check(ordma_gather_bufs(dst, 0, list + 1, 1, &len) == 0 && len == 0 &&
	      ordma_gather_bufs(dst, 0, NULL, 0, &len) == 0 && len == 0,
	      "empty inline data (zero-length buffer, no buffers) fits no room");
	check((ORDMA_QPX_WR_FLAGS & IBV_SEND_IP_CSUM) == 0,
	      "wr_flags: IBV_SEND_IP_CSUM not accepted");
}

static void test_flush_atomic_write(void)
{
	static const uint8_t val[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t buf[64];
	struct ordma_send_wqe *w = (struct ordma_send_wqe *)buf;
	uint32_t ctrl;

	memset(buf, 0xff, sizeof(buf));
	check(ordma_build_flush_wqe(buf, IBV_SEND_SIGNALED, false, 0x1234,
				    0x1000, 4096, IBV_FLUSH_GLOBAL,
				    IBV_FLUSH_RANGE) == 0, "FLUSH: encoded");
	ctrl = le32toh(w->ctrl.ctrl);
	check(FIELD_GET(ORDMA_WQE_OPCODE, ctrl) == ORDMA_WQE_FLUSH &&
	      (ctrl & ORDMA_WQE_SIGNALED) &&
	      !FIELD_GET(ORDMA_WQE_NUM_SGE, ctrl) &&
	      le64toh(w->flush.remote_addr) == 0x1000 &&
	      le32toh(w->flush.rkey) == 0x1234 &&
	      le32toh(w->flush.length) == 4096 &&
	      w->flush.placement == ORDMA_FLUSH_GLOBAL &&
	      w->flush.level == ORDMA_FLUSH_LEVEL_RANGE &&
	      !w->flush.reserved_18 && !w->flush.reserved_20 &&
	      !w->flush.reserved_24,
	      "FLUSH WQE: address, rkey, length, placement, level, no SGE");
	check(ordma_build_flush_wqe(buf, 0, true, 1, 0, 1ULL << 40,
				    IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT,
				    IBV_FLUSH_MR) == 0 &&
	      !w->flush.length && w->flush.level == ORDMA_FLUSH_LEVEL_MR &&
	      w->flush.placement == 3 &&
	      (le32toh(w->ctrl.ctrl) & ORDMA_WQE_SIGNALED),
	      "FLUSH at MR level: any length (sent as 0); sq_sig_all signals");
	check(ordma_build_flush_wqe(buf, 0, false, 1, 0, 8, 0,
				    IBV_FLUSH_RANGE) == EINVAL &&
	      ordma_build_flush_wqe(buf, 0, false, 1, 0, 8, 4,
				    IBV_FLUSH_RANGE) == EINVAL &&
	      ordma_build_flush_wqe(buf, 0, false, 1, 0, 8, IBV_FLUSH_GLOBAL,
				    2) == EINVAL &&
	      ordma_build_flush_wqe(buf, 0, false, 1, 0, (1ULL << 31) + 1,
				    IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE) == EINVAL,
	      "FLUSH: no/unknown type, unknown level, range above 2^31: EINVAL");
	memset(buf, 0xff, sizeof(buf));
	ordma_build_atomic_write_wqe(buf, IBV_SEND_FENCE, false, 0x55, 0x2008,
				     val);
	ctrl = le32toh(w->ctrl.ctrl);
	check(FIELD_GET(ORDMA_WQE_OPCODE, ctrl) == ORDMA_WQE_ATOMIC_WRITE &&
	      (ctrl & ORDMA_WQE_FENCE) && !(ctrl & ORDMA_WQE_SIGNALED) &&
	      le64toh(w->atomic_write.remote_addr) == 0x2008 &&
	      le32toh(w->atomic_write.rkey) == 0x55 &&
	      !memcmp(w->atomic_write.value, val, 8) &&
	      !w->atomic_write.reserved_12 && !w->atomic_write.reserved_24,
	      "ATOMIC WRITE WQE: address, rkey, the 8 bytes as given");
}

int main(void)
{
	test_sizes();
	test_send();
	test_recv();
	test_cqe();
	test_bind_mw();
	test_qpx();
	test_flush_atomic_write();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
