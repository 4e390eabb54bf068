// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Firmware core: registers, reset/enable handshake, fatal state,
 * heartbeat, configuration checks, independent instances.
 */
#include <string.h>

#include "drv.h"
#include "ordma_test.h"

TEST(test_register_reset_values)
{
	struct ordma_fw_config cfg;
	struct drv d;

	drv_default_config(&cfg);
	REQUIRE(drv_create(&d, &cfg));
	CHECK_EQ(drv_rd(&d, ORDMA_REG_VERSION), 0x00010000);
	CHECK_EQ(FIELD_GET(ORDMA_CAPS_MAX_AQ_LOG, drv_rd(&d, ORDMA_REG_CAPS)), 10);
	CHECK_EQ(FIELD_GET(ORDMA_CAPS_NUM_VECTORS, drv_rd(&d, ORDMA_REG_CAPS)), 8);
	CHECK_EQ(FIELD_GET(ORDMA_DB_CAPS_NUM_PAGES, drv_rd(&d, ORDMA_REG_DB_CAPS)),
		 256);
	CHECK_EQ(FIELD_GET(ORDMA_DB_CAPS_PAGE_SHIFT, drv_rd(&d, ORDMA_REG_DB_CAPS)),
		 12);
	CHECK_EQ(FIELD_GET(ORDMA_TIMEOUTS_READY_MS, drv_rd(&d, ORDMA_REG_TIMEOUTS)),
		 1000);
	CHECK_EQ(FIELD_GET(ORDMA_TIMEOUTS_CMD_MS, drv_rd(&d, ORDMA_REG_TIMEOUTS)),
		 5000);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_CTRL), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_AQ_DB), 0);
	CHECK_EQ(d.hal.timer_deadline, UINT64_MAX);
	drv_close(&d);
}

TEST(test_register_access_rules)
{
	struct drv d;
	unsigned long errors;

	REQUIRE(drv_open(&d, 4));
	drv_wr(&d, ORDMA_REG_SCRATCH, 0xdeadbeef);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_SCRATCH), 0xdeadbeef);

	/* non-32-bit and unaligned accesses: read 0, writes ignored, logged */
	errors = d.hal.log_count[ORDMA_FW_LOG_GUEST_ERROR];
	CHECK_EQ(ordma_fw_reg_read(d.fw, ORDMA_REG_VERSION, 2), 0);
	CHECK_EQ(ordma_fw_reg_read(d.fw, ORDMA_REG_VERSION, 8), 0);
	CHECK_EQ(ordma_fw_reg_read(d.fw, ORDMA_REG_VERSION, 1), 0);
	CHECK_EQ(ordma_fw_reg_read(d.fw, ORDMA_REG_SCRATCH + 2, 4), 0);
	ordma_fw_reg_write(d.fw, ORDMA_REG_SCRATCH, 1, 8);
	ordma_fw_reg_write(d.fw, ORDMA_REG_SCRATCH, 1, 2);
	ordma_fw_reg_write(d.fw, ORDMA_REG_SCRATCH + 1, 1, 4);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_SCRATCH), 0xdeadbeef);
	CHECK_EQ(d.hal.log_count[ORDMA_FW_LOG_GUEST_ERROR], errors + 7);

	/* unknown offsets read 0, writes ignored and logged */
	errors = d.hal.log_count[ORDMA_FW_LOG_GUEST_ERROR];
	CHECK_EQ(drv_rd(&d, 0x100), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_BAR_SIZE - 4), 0);
	CHECK_EQ(ordma_fw_reg_read(d.fw, ORDMA_REG_BAR_SIZE, 4), 0);
	drv_wr(&d, 0x100, 5);
	CHECK_EQ(drv_rd(&d, 0x100), 0);
	CHECK(d.hal.log_count[ORDMA_FW_LOG_GUEST_ERROR] >= errors + 4);

	/* read-only registers ignore writes */
	drv_wr(&d, ORDMA_REG_VERSION, 0);
	drv_wr(&d, ORDMA_REG_STATUS, 0);
	drv_wr(&d, ORDMA_REG_FATAL_CODE, 3);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_VERSION), 0x00010000);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE), 0);
	CHECK(strstr(d.hal.last_log, "read-only") != NULL);
	drv_close(&d);
}

TEST(test_enable_handshake)
{
	struct ordma_fw_config cfg;
	struct drv d;
	uint32_t eqn;

	drv_default_config(&cfg);
	REQUIRE(drv_create(&d, &cfg));
	REQUIRE(drv_enable(&d, 3));
	CHECK_EQ(drv_rd(&d, ORDMA_REG_CTRL), ORDMA_CTRL_ENABLE);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_AQ_BASE_LO), (uint32_t)DRV_AQ_ADDR);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_ACQ_BASE_LO), (uint32_t)DRV_ACQ_ADDR);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_AQ_CFG), 3);
	CHECK(d.hal.timer_deadline != UINT64_MAX);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, ORDMA_EQ_TYPE_COMP, 1,
				   &eqn), ORDMA_CMD_STATUS_OK);

	/* disable: READY drops, doorbells ignored, objects persist */
	drv_wr(&d, ORDMA_REG_CTRL, 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_CTRL), 0);
	CHECK_EQ(d.hal.timer_deadline, UINT64_MAX);
	CHECK(!ordma_fw_can_receive(d.fw));

	/* re-enable: queue indices restart at 0 with phase 1 */
	REQUIRE(drv_enable(&d, 3));
	CHECK(ordma_fw_can_receive(d.fw));
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, eqn, 0),
		 ORDMA_CMD_STATUS_OK);
	/* writing ENABLE again while enabled changes nothing */
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_ENABLE);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

TEST(test_reset_clears_everything)
{
	static const uint8_t mac[6] = { 0x02, 1, 2, 3, 4, 5 };
	static const uint8_t gid[16] = { 0xfe, 0x80, [15] = 1 };
	struct ordma_port_attr attr;
	struct ordma_comp_health health;
	struct drv d;
	uint32_t eqn, uctx, pdn;

	REQUIRE(drv_open(&d, 4));
	drv_wr(&d, ORDMA_REG_SCRATCH, 77);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, ORDMA_EQ_TYPE_ASYNC, 0,
				   &eqn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_set_port(&d, ORDMA_SET_PORT_ALL_FIELDS, 9000, mac, 1,
			      ORDMA_RX_MODE_PROMISC), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_add_gid(&d, 0, gid, mac, ORDMA_VLAN_NONE),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_alloc_pd(&d, uctx, &pdn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_simple(&d, 0x7f), ORDMA_CMD_STATUS_BAD_OPCODE);
	fake_advance(&d.hal, 1000000000ULL);
	CHECK(drv_rd(&d, ORDMA_REG_HEARTBEAT) > 0);

	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_CTRL), 0);	/* RESET self-clears */
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_SCRATCH), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_AQ_BASE_LO), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_AQ_CFG), 0);
	CHECK_EQ(d.hal.timer_deadline, UINT64_MAX);

	REQUIRE(drv_enable(&d, 4));
	CHECK_EQ(drv_health(&d, &health), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(health.state), ORDMA_HEALTH_OK);
	CHECK_EQ(le32_to_cpu(health.cmd_errors), 0);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, eqn, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEL_GID, 0, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, pdn, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, uctx, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr)),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(attr.admin_up, 0);
	CHECK_EQ(attr.state, ORDMA_PORT_DOWN);
	CHECK_EQ(le32_to_cpu(attr.mtu), 1500);
	CHECK_EQ(attr.rx_mode, 0);
	CHECK(!memcmp(attr.mac, d.cfg.mac, 6));
	drv_close(&d);
}

TEST(test_reset_wins_over_enable)
{
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET | ORDMA_CTRL_ENABLE);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_CTRL), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), 0);
	/* and from the disabled state too */
	drv_wr(&d, ORDMA_REG_AQ_BASE_LO, (uint32_t)DRV_AQ_ADDR);
	drv_wr(&d, ORDMA_REG_ACQ_BASE_LO, (uint32_t)DRV_ACQ_ADDR);
	drv_wr(&d, ORDMA_REG_AQ_CFG, 4);
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET | ORDMA_CTRL_ENABLE);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_AQ_CFG), 0);
	drv_close(&d);
}

/* The PCI/FLR entry point: like CTRL.RESET, the link stays as it was */
TEST(test_function_reset)
{
	struct ordma_port_attr attr;
	struct drv d;
	uint32_t uctx;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(drv_port_up(&d), ORDMA_CMD_STATUS_OK);
	ordma_fw_set_link(d.fw, false);
	drv_wr(&d, ORDMA_REG_SCRATCH, 5);
	ordma_fw_reset(d.fw);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_CTRL), 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_SCRATCH), 0);
	CHECK_EQ(d.hal.timer_deadline, UINT64_MAX);
	REQUIRE(drv_enable(&d, 4));
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, uctx, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr));
	CHECK_EQ(attr.admin_up, 0);
	CHECK_EQ(attr.link_up, 0);
	ordma_fw_set_link(d.fw, true);
	drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr));
	CHECK_EQ(attr.link_up, 1);
	drv_close(&d);
}

struct bad_aq_config {
	const char *what;
	uint64_t aq, acq;
	uint32_t cfg;
};

TEST(test_bad_aq_config_is_fatal)
{
	static const struct bad_aq_config cases[] = {
		{ "AQ base zero", 0, DRV_ACQ_ADDR, 4 },
		{ "AQ base unaligned", DRV_AQ_ADDR + 64, DRV_ACQ_ADDR, 4 },
		{ "ACQ base zero", DRV_AQ_ADDR, 0, 4 },
		{ "ACQ base unaligned", DRV_AQ_ADDR, DRV_ACQ_ADDR + 0x800, 4 },
		{ "depth 0", DRV_AQ_ADDR, DRV_ACQ_ADDR, 0 },
		{ "depth 11", DRV_AQ_ADDR, DRV_ACQ_ADDR, 11 },
		{ "depth 31", DRV_AQ_ADDR, DRV_ACQ_ADDR, 31 },
		{ "reserved cfg bits", DRV_AQ_ADDR, DRV_ACQ_ADDR, 4 | 1u << 8 },
		{ "AQ wraps", 0xfffffffffffff000ULL, DRV_ACQ_ADDR, 10 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_aq_config *c = &cases[i];
		struct ordma_fw_config cfg;
		struct drv d;

		drv_default_config(&cfg);
		REQUIRE(drv_create(&d, &cfg));
		drv_wr(&d, ORDMA_REG_AQ_BASE_LO, (uint32_t)c->aq);
		drv_wr(&d, ORDMA_REG_AQ_BASE_HI, (uint32_t)(c->aq >> 32));
		drv_wr(&d, ORDMA_REG_ACQ_BASE_LO, (uint32_t)c->acq);
		drv_wr(&d, ORDMA_REG_ACQ_BASE_HI, (uint32_t)(c->acq >> 32));
		drv_wr(&d, ORDMA_REG_AQ_CFG, c->cfg);
		drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_ENABLE);
		if (!CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_FATAL))
			NOTE("case: %s", c->what);
		CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE),
			 ORDMA_FATAL_BAD_AQ_CONFIG);
		CHECK_EQ(d.hal.msix[0], 1);	/* wakes a sleeping driver */
		CHECK(!ordma_fw_can_receive(d.fw));

		/* sticky: fixing the config and re-enabling does not help */
		drv_wr(&d, ORDMA_REG_CTRL, 0);
		CHECK(!drv_enable(&d, 4));
		CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_FATAL);
		d.log_depth = 4;
		CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW),
			 DRV_STATUS_NO_COMPLETION);

		/* RESET clears it */
		drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
		CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), 0);
		CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE), 0);
		CHECK(drv_enable(&d, 4));
		CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
		drv_close(&d);
	}
}

TEST(test_aq_fetch_dma_error_is_fatal)
{
	struct ordma_aq_cmd cmd;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	d.hal.fail_lo = DRV_AQ_ADDR;
	d.hal.fail_hi = DRV_AQ_ADDR + 0x10000;
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), DRV_STATUS_NO_COMPLETION);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_FATAL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE), ORDMA_FATAL_AQ_DMA);
	CHECK_EQ(d.hal.timer_deadline, UINT64_MAX);

	/* no more commands, no doorbells, no frames */
	d.hal.fail_lo = d.hal.fail_hi = 0;
	drv_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
	CHECK_EQ(drv_exec(&d, &cmd), DRV_STATUS_NO_COMPLETION);
	drv_db(&d, 0, 0xff8, 0, 0, 0);
	CHECK(strstr(d.hal.last_log, "not ready") != NULL);
	CHECK(!ordma_fw_can_receive(d.fw));
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	REQUIRE(drv_enable(&d, 4));
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

TEST(test_acq_write_dma_error_is_fatal)
{
	struct ordma_fw_config cfg;
	struct drv d;

	drv_default_config(&cfg);
	REQUIRE(drv_create(&d, &cfg));
	d.log_depth = 4;
	drv_wr(&d, ORDMA_REG_AQ_BASE_LO, (uint32_t)DRV_AQ_ADDR);
	drv_wr(&d, ORDMA_REG_ACQ_BASE_LO, (uint32_t)DRV_BAD_ADDR);
	drv_wr(&d, ORDMA_REG_AQ_CFG, 4);
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_ENABLE);
	REQUIRE_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), DRV_STATUS_NO_COMPLETION);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_FATAL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_FATAL_CODE), ORDMA_FATAL_ACQ_DMA);
	CHECK_EQ(d.hal.msix[0], 1);
	drv_close(&d);
}

TEST(test_heartbeat)
{
	struct ordma_comp_health health;
	struct drv d;
	uint32_t beat;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 0);
	fake_advance(&d.hal, 99000000ULL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 0);
	fake_advance(&d.hal, 1000000ULL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 1);
	CHECK(d.hal.timer_fired == 1);
	fake_advance(&d.hal, 900000000ULL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 10);
	CHECK_EQ(drv_health(&d, &health), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(health.heartbeat), 10);

	/* a late timer (or none at all) still counts elapsed time */
	d.hal.now_ns += 350000000ULL;
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 13);
	fake_advance(&d.hal, 60000000ULL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 14);
	/* a spurious early callback neither counts nor loses the deadline */
	ordma_fw_timer_expired(d.fw);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), 14);
	CHECK(d.hal.timer_deadline > d.hal.now_ns &&
	      d.hal.timer_deadline != UINT64_MAX);

	/* stops while disabled */
	drv_wr(&d, ORDMA_REG_CTRL, 0);
	beat = drv_rd(&d, ORDMA_REG_HEARTBEAT);
	d.hal.now_ns += 1000000000ULL;
	ordma_fw_timer_expired(d.fw);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), beat);
	CHECK_EQ(d.hal.timer_deadline, UINT64_MAX);

	/* resumes on enable, counting from where it stopped */
	REQUIRE(drv_enable(&d, 4));
	fake_advance(&d.hal, 200000000ULL);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_HEARTBEAT), beat + 2);
	drv_close(&d);
}

TEST(test_create_rejects_bad_config)
{
	struct ordma_fw_config cfg;
	struct ordma_hal_ops ops = fake_hal_ops;
	struct fake_hal h;
	struct ordma_fw *fw;

	REQUIRE(fake_hal_init(&h));
	drv_default_config(&cfg);
	fw = ordma_fw_create(&fake_hal_ops, &h, &cfg);
	CHECK(fw != NULL);
	ordma_fw_destroy(fw);
	ordma_fw_destroy(NULL);

	CHECK(!ordma_fw_create(NULL, &h, &cfg));
	CHECK(!ordma_fw_create(&fake_hal_ops, &h, NULL));
	cfg.num_vectors = 1;
	CHECK(!ordma_fw_create(&fake_hal_ops, &h, &cfg));
	cfg.num_vectors = 65;
	CHECK(!ordma_fw_create(&fake_hal_ops, &h, &cfg));
	drv_default_config(&cfg);
	cfg.num_db_pages = 1;
	CHECK(!ordma_fw_create(&fake_hal_ops, &h, &cfg));
	cfg.num_db_pages = 65536;
	CHECK(!ordma_fw_create(&fake_hal_ops, &h, &cfg));
	drv_default_config(&cfg);
	cfg.mac[0] |= 1;
	CHECK(!ordma_fw_create(&fake_hal_ops, &h, &cfg));
	memset(cfg.mac, 0, 6);
	CHECK(!ordma_fw_create(&fake_hal_ops, &h, &cfg));
	drv_default_config(&cfg);
	ops.dma_read = NULL;
	CHECK(!ordma_fw_create(&ops, &h, &cfg));
	ops = fake_hal_ops;
	ops.log = NULL;		/* logging is optional */
	fw = ordma_fw_create(&ops, &h, &cfg);
	CHECK(fw != NULL);
	ordma_fw_reg_read(fw, 0x100, 4);
	ordma_fw_destroy(fw);

	/* the limits themselves are fine */
	cfg.num_vectors = 64;
	cfg.num_db_pages = 65535;
	fw = ordma_fw_create(&fake_hal_ops, &h, &cfg);
	CHECK(fw != NULL);
	ordma_fw_destroy(fw);
	fake_hal_fini(&h);
}

TEST(test_two_instances_are_independent)
{
	struct ordma_device_caps caps_a, caps_b;
	struct ordma_fw_config cfg;
	struct drv a, b;
	uint32_t eqn, uctx;

	drv_default_config(&cfg);
	REQUIRE(drv_open_cfg(&a, &cfg, 4));
	cfg.mac[5] = 0x99;
	memcpy(cfg.serial, "ORD123499", 9);
	cfg.num_db_pages = 8;
	if (!drv_open_cfg(&b, &cfg, 2)) {
		drv_close(&a);
		REQUIRE(false);
	}
	CHECK_EQ(drv_create_eq_raw(&a, DRV_EQ_ADDR(0), 4, ORDMA_EQ_TYPE_ASYNC, 0,
				   &eqn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_alloc_uctx(&a, &uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(uctx, 1);
	CHECK_EQ(drv_alloc_uctx(&b, &uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(uctx, 1);
	CHECK_EQ(drv_handle_cmd(&b, ORDMA_CMD_DESTROY_EQ, eqn, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);

	CHECK_EQ(drv_query(&a, ORDMA_CMD_QUERY_DEVICE, 0, &caps_a,
			   sizeof(caps_a)), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_query(&b, ORDMA_CMD_QUERY_DEVICE, 0, &caps_b,
			   sizeof(caps_b)), ORDMA_CMD_STATUS_OK);
	CHECK(caps_a.node_guid != caps_b.node_guid);
	CHECK_EQ(le32_to_cpu(caps_a.max_uctx), 255);
	CHECK_EQ(le32_to_cpu(caps_b.max_uctx), 7);
	CHECK(!memcmp(caps_b.serial, "ORD123499", 10));

	/* a fatal error on one leaves the other running */
	drv_wr(&a, ORDMA_REG_CTRL, 0);
	drv_wr(&a, ORDMA_REG_AQ_CFG, 0);
	drv_wr(&a, ORDMA_REG_CTRL, ORDMA_CTRL_ENABLE);
	CHECK_EQ(drv_rd(&a, ORDMA_REG_STATUS), ORDMA_STATUS_FATAL);
	CHECK_EQ(drv_rd(&b, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	fake_advance(&b.hal, 300000000ULL);
	CHECK_EQ(drv_rd(&b, ORDMA_REG_HEARTBEAT), 3);
	CHECK_EQ(drv_rd(&a, ORDMA_REG_HEARTBEAT), 0);
	CHECK_EQ(drv_simple(&b, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	drv_close(&a);
	drv_close(&b);
}
