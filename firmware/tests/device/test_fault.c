// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Fault injection (INJECT_FAULT, ordma_fw_inject_fault()): each fault
 * happens where the device does the work, as many times as asked, only
 * after the command that armed it has completed, is counted in
 * QUERY_STATS, and is gone after a reset.
 */
#include <string.h>

#include "drv.h"
#include "ordma_test.h"
#include "transport/pair.h"

static uint8_t inject(struct drv *d, uint32_t fault, uint32_t count,
		      uint32_t arg)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_INJECT_FAULT);
	cmd.inject_fault.fault = cpu_to_le32(fault);
	cmd.inject_fault.count = cpu_to_le32(count);
	cmd.inject_fault.arg = cpu_to_le32(arg);
	return drv_exec(d, &cmd);
}

/* fault_injected[fault] of QUERY_STATS; UINT64_MAX if the query fails */
static uint64_t injected(struct drv *d, unsigned int fault)
{
	struct ordma_port_stats st;

	memset(&st, 0xff, sizeof(st));
	if (drv_query(d, ORDMA_CMD_QUERY_STATS, ORDMA_PORT_NUM, &st,
		      sizeof(st)) != ORDMA_CMD_STATUS_OK)
		return UINT64_MAX;
	return le64_to_cpu(st.fault_injected[fault]);
}

TEST(test_fault_capability_and_bad_requests)
{
	struct ordma_device_caps caps;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, &caps,
			     sizeof(caps)), ORDMA_CMD_STATUS_OK);
	CHECK(le32_to_cpu(caps.cap_flags) & ORDMA_DEV_CAP_FAULT_INJECT);

	CHECK_EQ(inject(&d, ORDMA_FAULTS, 1, 0), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), offsetof(struct ordma_aq_cmd,
					    inject_fault.fault));
	CHECK_EQ(inject(&d, ORDMA_FAULT_FATAL, 2, 0),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), offsetof(struct ordma_aq_cmd,
					    inject_fault.count));
	CHECK_EQ(inject(&d, ORDMA_FAULT_FATAL, 1, ORDMA_FATAL_INJECTED + 1),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(inject(&d, ORDMA_FAULT_DMA_WRITE, 1, 7),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), offsetof(struct ordma_aq_cmd,
					    inject_fault.arg));
	CHECK_EQ(inject(&d, ORDMA_FAULT_HEARTBEAT_STUCK, 2, 0),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	/* refused requests arm nothing */
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS) & ORDMA_STATUS_FATAL, 0);
	CHECK_EQ(injected(&d, ORDMA_FAULT_FATAL), 0);
	CHECK_EQ(ordma_fw_inject_fault(d.fw, ORDMA_FAULTS, 1, 0), -1);
	CHECK_EQ(ordma_fw_inject_fault(d.fw, ORDMA_FAULT_FATAL, 0, 0), -1);
	drv_close(&d);
}

/* The command's own completion is written; the next DMA write fails */
TEST(test_fault_dma_write_after_its_command)
{
	struct ordma_port_stats st;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(inject(&d, ORDMA_FAULT_DMA_WRITE, 1, 0), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_query(&d, ORDMA_CMD_QUERY_STATS, ORDMA_PORT_NUM, &st,
			   sizeof(st)), ORDMA_CMD_STATUS_DMA_ERROR);
	/* once only */
	CHECK_EQ(injected(&d, ORDMA_FAULT_DMA_WRITE), 1);
	CHECK_EQ(injected(&d, ORDMA_FAULT_DMA_WRITE), 1);
	/* count 0 disarms (from the host: after a command, its completion
	 * would be the next write to fail)
	 */
	CHECK_EQ(ordma_fw_inject_fault(d.fw, ORDMA_FAULT_DMA_WRITE, 5, 0), 0);
	CHECK_EQ(ordma_fw_inject_fault(d.fw, ORDMA_FAULT_DMA_WRITE, 0, 0), 0);
	CHECK_EQ(injected(&d, ORDMA_FAULT_DMA_WRITE), 1);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS) & ORDMA_STATUS_FATAL, 0);
	/* a completion that cannot be written is fatal, as it always was */
	CHECK_EQ(ordma_fw_inject_fault(d.fw, ORDMA_FAULT_DMA_WRITE, 1, 0), 0);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), DRV_STATUS_NO_COMPLETION);
	CHECK(drv_rd(&d, ORDMA_REG_STATUS) & ORDMA_STATUS_FATAL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE), ORDMA_FATAL_ACQ_DMA);
	drv_close(&d);
}

/* An MSI-X lost: the completion is there, its interrupt is not */
TEST(test_fault_msix_drop)
{
	unsigned long before;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(inject(&d, ORDMA_FAULT_MSIX_DROP, 2, 0), ORDMA_CMD_STATUS_OK);
	before = d.hal.msix[ORDMA_ADMIN_VECTOR];
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.msix[ORDMA_ADMIN_VECTOR], before);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.msix[ORDMA_ADMIN_VECTOR], before + 1);
	CHECK_EQ(injected(&d, ORDMA_FAULT_MSIX_DROP), 2);
	drv_close(&d);
}

/* A completion lost: the command ran, its slot never turns over */
TEST(test_fault_admin_drop)
{
	struct ordma_aq_cmd cmd;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(inject(&d, ORDMA_FAULT_ADMIN_DROP, 1, 0), ORDMA_CMD_STATUS_OK);
	drv_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
	CHECK_EQ(drv_exec(&d, &cmd), DRV_STATUS_NO_COMPLETION);
	CHECK_EQ(d.fw->faults.injected[ORDMA_FAULT_ADMIN_DROP], 1);
	CHECK_EQ(d.fw->faults.left[ORDMA_FAULT_ADMIN_DROP], 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS) & ORDMA_STATUS_FATAL, 0);
	drv_close(&d);
}

/* Fatal now, with the code asked for; its completion came first */
TEST(test_fault_fatal)
{
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(inject(&d, ORDMA_FAULT_FATAL, 1, 0), ORDMA_CMD_STATUS_OK);
	CHECK(drv_rd(&d, ORDMA_REG_STATUS) & ORDMA_STATUS_FATAL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE), ORDMA_FATAL_INJECTED);
	CHECK_EQ(d.fw->faults.injected[ORDMA_FAULT_FATAL], 1);
	drv_close(&d);

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(ordma_fw_inject_fault(d.fw, ORDMA_FAULT_FATAL, 1,
				       ORDMA_FATAL_ACQ_DMA), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE), ORDMA_FATAL_ACQ_DMA);
	/* a reset clears the fatal state, the armed faults and the counts */
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	CHECK_EQ(d.fw->faults.injected[ORDMA_FAULT_FATAL], 0);
	drv_close(&d);
}

/* The heartbeat stops while stuck and goes on from there, no jump */
TEST(test_fault_heartbeat_stuck)
{
	uint32_t hb;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	fake_advance(&d.hal, 250000000ULL);
	hb = drv_rd(&d, ORDMA_REG_HEARTBEAT);
	CHECK(hb >= 2);
	CHECK_EQ(inject(&d, ORDMA_FAULT_HEARTBEAT_STUCK, 1, 0),
		 ORDMA_CMD_STATUS_OK);
	fake_advance(&d.hal, 1000000000ULL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), hb);
	CHECK_EQ(injected(&d, ORDMA_FAULT_HEARTBEAT_STUCK), 1);
	CHECK_EQ(inject(&d, ORDMA_FAULT_HEARTBEAT_STUCK, 0, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), hb);
	fake_advance(&d.hal, 200000000ULL);
	CHECK(drv_rd(&d, ORDMA_REG_HEARTBEAT) >= hb + 1);
	CHECK(drv_rd(&d, ORDMA_REG_HEARTBEAT) <= hb + 3);
	drv_close(&d);
}

/*
 * The host arms a DMA read failure: the requester cannot read the next
 * WQE and completes it in error, as for a bus error, and the QP leaves
 * RTS; the responder side is untouched.
 */
TEST(test_fault_dma_read_fails_a_wqe)
{
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 64);
	CHECK_EQ(ordma_fw_inject_fault(a->d.fw, ORDMA_FAULT_DMA_READ, 1, 0), 0);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	CHECK(qp_state(a) != ORDMA_QPS_RTS);
	CHECK_EQ(a->d.fw->faults.injected[ORDMA_FAULT_DMA_READ], 1);
	no_cqe(b, false);
	env_close(&e);
}

/*
 * A completion held back: it arrives when its delay is over, and the
 * command posted behind it waits for it and completes after it, in
 * order; the one after that comes at once again.
 */
TEST(test_fault_admin_delay)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(inject(&d, ORDMA_FAULT_ADMIN_DELAY, 1, 0),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(inject(&d, ORDMA_FAULT_ADMIN_DELAY, 1,
			ORDMA_FAULT_MAX_DELAY_MS + 1), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(inject(&d, ORDMA_FAULT_ADMIN_DELAY, 1, 10),
		 ORDMA_CMD_STATUS_OK);
	drv_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
	CHECK_EQ(drv_exec(&d, &cmd), DRV_STATUS_NO_COMPLETION);
	drv_cmd_init(&cmd, ORDMA_CMD_HEALTH);
	CHECK_EQ(drv_exec(&d, &cmd), DRV_STATUS_NO_COMPLETION);
	fake_advance(&d.hal, 5000000);
	CHECK(!drv_comp(&d, 1, &comp));
	fake_advance(&d.hal, 6000000);
	/* both completed, in order */
	CHECK(drv_comp(&d, 1, &comp));
	CHECK_EQ(comp.status, ORDMA_CMD_STATUS_OK);
	CHECK(drv_comp(&d, 0, &comp));
	CHECK_EQ(le16_to_cpu(comp.token), le16_to_cpu(cmd.hdr.token));
	CHECK_EQ(d.fw->faults.injected[ORDMA_FAULT_ADMIN_DELAY], 1);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(injected(&d, ORDMA_FAULT_ADMIN_DELAY), 1);
	drv_close(&d);
}
