// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The event log window of BAR0: admin completions and the fatal error,
 * in order, with a sequence number; the last ORDMA_EVENT_LOG_LEN of
 * them; readable from a fatal device; cleared by a reset.
 */
#include <string.h>

#include "drv.h"
#include "ordma_test.h"

/* Event n as the window shows it, read as a driver does: 32 bits at a
 * time
 */
static void read_event(struct drv *d, uint32_t n,
		       struct ordma_event_log_entry *e)
{
	uint32_t base = ORDMA_REG_EVENT_LOG +
			(n % ORDMA_EVENT_LOG_LEN) * ORDMA_EVENT_LOG_ENTRY_SIZE;
	uint32_t dw[ORDMA_EVENT_LOG_ENTRY_SIZE / 4];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dw); i++)
		dw[i] = cpu_to_le32(drv_rd(d, base + 4 * i));
	memcpy(e, dw, sizeof(*e));
}

TEST(test_event_log_admin_in_order)
{
	struct ordma_event_log_entry e;
	uint32_t token_fw, token_bad;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(drv_rd(&d, ORDMA_REG_EVENT_LOG_COUNT), 0);
	token_fw = d.next_token;
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	token_bad = d.next_token;
	CHECK_EQ(drv_simple(&d, 0x7f), ORDMA_CMD_STATUS_BAD_OPCODE);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_EVENT_LOG_COUNT), 2);

	read_event(&d, 0, &e);
	CHECK_EQ(le32_to_cpu(e.seq), 0);
	CHECK_EQ(le16_to_cpu(e.kind), ORDMA_EVENT_ADMIN);
	CHECK_EQ(e.op, ORDMA_CMD_QUERY_FW);
	CHECK_EQ(e.status, ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(e.arg0), token_fw);
	read_event(&d, 1, &e);
	CHECK_EQ(le32_to_cpu(e.seq), 1);
	CHECK_EQ(e.op, 0x7f);
	CHECK_EQ(e.status, ORDMA_CMD_STATUS_BAD_OPCODE);
	CHECK_EQ(le32_to_cpu(e.arg0), token_bad);
	CHECK_EQ(le32_to_cpu(e.reserved_18[0]) | le32_to_cpu(e.reserved_18[1]),
		 0);
	/* the device clock runs on */
	fake_advance(&d.hal, 1000);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	read_event(&d, 2, &e);
	{
		struct ordma_event_log_entry first;

		read_event(&d, 1, &first);
		CHECK(le64_to_cpu(e.time_ns) > le64_to_cpu(first.time_ns));
	}
	drv_close(&d);
}

/* After more than ORDMA_EVENT_LOG_LEN events the window holds the last */
TEST(test_event_log_wraps)
{
	unsigned int i, n = ORDMA_EVENT_LOG_LEN + 9;
	struct ordma_event_log_entry e;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	for (i = 0; i < n; i++)
		REQUIRE_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW),
			   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_EVENT_LOG_COUNT), n);
	for (i = n - ORDMA_EVENT_LOG_LEN; i < n; i++) {
		read_event(&d, i, &e);
		if (!CHECK_EQ(le32_to_cpu(e.seq), i))
			NOTE("slot of event %u", i);
	}
	drv_close(&d);
}

/* The fatal error is logged, and the log still reads once fatal; a
 * reset empties it
 */
TEST(test_event_log_fatal_and_reset)
{
	struct ordma_event_log_entry e;
	uint32_t n;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(ordma_fw_inject_fault(d.fw, ORDMA_FAULT_FATAL, 1,
				       ORDMA_FATAL_INTERNAL), 0);
	CHECK(drv_rd(&d, ORDMA_REG_STATUS) & ORDMA_STATUS_FATAL);
	n = drv_rd(&d, ORDMA_REG_EVENT_LOG_COUNT);
	REQUIRE_EQ(n, 2);
	read_event(&d, n - 1, &e);
	CHECK_EQ(le16_to_cpu(e.kind), ORDMA_EVENT_FATAL);
	CHECK_EQ(e.status, ORDMA_FATAL_INTERNAL);
	read_event(&d, n - 2, &e);
	CHECK_EQ(le16_to_cpu(e.kind), ORDMA_EVENT_ADMIN);

	drv_wr(&d, ORDMA_REG_CTRL, 0);
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_EVENT_LOG_COUNT), 0);
	read_event(&d, 0, &e);
	CHECK_EQ(le16_to_cpu(e.kind), 0);
	drv_close(&d);
}
