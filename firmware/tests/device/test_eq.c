// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Event queues: CREATE/DESTROY_EQ, EQE phase, one-shot arming, overruns,
 * PORT_CHANGE and DB_ERROR async events, doorbell rejection rules.
 */
#include <string.h>

#include "drv.h"
#include "ordma_test.h"

#define MS	1000000ULL

static uint32_t eqe_type(const struct ordma_eqe *eqe)
{
	return FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
}

static uint32_t health_overruns(struct drv *d)
{
	struct ordma_comp_health h;

	drv_health(d, &h);
	return le32_to_cpu(h.eq_overruns);
}

/* Toggle the port admin state to make one PORT_CHANGE event. */
static void port_toggle(struct drv *d, bool up)
{
	drv_set_port(d, ORDMA_SET_PORT_ADMIN, 0, NULL, up, 0);
}

TEST(test_create_destroy_eq)
{
	struct drv d;
	uint32_t eqn;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, ORDMA_EQ_TYPE_ASYNC, 0,
				   &eqn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(eqn, 0);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(1), 12, ORDMA_EQ_TYPE_COMP, 7,
				   &eqn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(eqn, 1);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(2), 5, ORDMA_EQ_TYPE_COMP, 0,
				   &eqn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(eqn, 2);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, 1, 0),
		 ORDMA_CMD_STATUS_OK);
	/* lowest free number is reused */
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(1), 4, ORDMA_EQ_TYPE_COMP, 3,
				   &eqn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(eqn, 1);
	/* destroying the async EQ is allowed, a new one may follow */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, 0, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, ORDMA_EQ_TYPE_ASYNC, 0,
				   &eqn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(eqn, 0);
	drv_close(&d);
}

TEST(test_create_eq_validation)
{
	struct drv d;
	uint32_t eqn, i;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(drv_create_eq_raw(&d, 0, 4, 1, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0) + 0x800, 4, 1, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(drv_create_eq_raw(&d, 0xfffffffffffff000ULL, 12, 1, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 3, 1, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 13, 1, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, 2, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 17);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, 1, 8, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 18);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, 0, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 18);

	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, 0, 0, &eqn),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(1), 4, 0, 0, NULL),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_syndrome(&d), 0);
	for (i = 1; i < 32; i++)
		CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(i), 4, 1, i % 8, NULL),
			 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, 1, 1, NULL),
		 ORDMA_CMD_STATUS_NO_RESOURCES);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, 31, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(31), 4, 1, 1, &eqn),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(eqn, 31);
	drv_close(&d);
}

TEST(test_destroy_eq_validation)
{
	struct drv d;
	struct drv_eq eq;
	struct drv_ring ring;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_COMP, 1, 4));
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, 5, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, 32, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, 0xffffffff, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, eq.eqn, 1),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 12);
	REQUIRE(drv_ring_open(&d, &ring, ORDMA_ETH_RING_RX, 4, eq.eqn));
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, eq.eqn, 0),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_ETH_RING, ring.id, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, eq.eqn, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, eq.eqn, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	drv_close(&d);
}

/* 40 events through a 16-entry EQ: the phase flips on every wrap and
 * each entry carries port and state.
 */
TEST(test_eqe_layout_and_phase)
{
	struct ordma_eqe eqe;
	struct drv_eq eq;
	struct drv d;
	unsigned int i;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	for (i = 0; i < 40; i++) {
		const struct ordma_eqe *raw;
		bool up = !(i & 1);

		port_toggle(&d, up);
		raw = drv_mem(&d, eq.addr + (i % 16) * ORDMA_EQE_SIZE, 16);
		CHECK_EQ(!!(le32_to_cpu(raw->type) & ORDMA_EQE_PHASE),
			 !((i / 16) & 1));
		REQUIRE(drv_eq_next(&d, &eq, &eqe));
		CHECK_EQ(eqe_type(&eqe), ORDMA_EQE_PORT_CHANGE);
		CHECK_EQ(le32_to_cpu(eqe.data[0]), 1);
		CHECK_EQ(le32_to_cpu(eqe.data[1]),
			 up ? ORDMA_PORT_ACTIVE : ORDMA_PORT_DOWN);
		CHECK_EQ(le32_to_cpu(eqe.data[2]), 0);
		CHECK_EQ(le32_to_cpu(eqe.type) & ~(ORDMA_EQE_PHASE |
						   ORDMA_EQE_TYPE), 0);
		CHECK(!drv_eq_next(&d, &eq, &eqe));
		drv_eq_update(&d, &eq, false);
	}
	CHECK_EQ(health_overruns(&d), 0);
	drv_close(&d);
}

TEST(test_eqe_type_written_last)
{
	const struct fake_dma_write *w0, *w1;
	struct drv_eq eq;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	ordma_fw_set_link(d.fw, false);		/* admin down: no event */
	port_toggle(&d, true);			/* still down: no event */
	ordma_fw_set_link(d.fw, true);		/* -> ACTIVE: event */
	w0 = fake_recent_write(&d.hal, 0);
	w1 = fake_recent_write(&d.hal, 1);
	REQUIRE(w0 && w1);
	CHECK_EQ(w1->addr, eq.addr + ORDMA_EQE_SIZE * 0);
	CHECK_EQ(w1->len, 12);
	CHECK_EQ(w0->addr, eq.addr + 12);
	CHECK_EQ(w0->len, 4);
	drv_close(&d);
}

TEST(test_one_shot_arming)
{
	struct ordma_eqe eqe;
	struct drv_eq eq;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	d.hal.msix[0] = 0;

	/* starts disarmed: an event is written but raises nothing
	 * (vector 0 counts admin completions too, so count around them)
	 */
	port_toggle(&d, true);
	CHECK_EQ(d.hal.msix[0], 1);		/* the SET_PORT completion */
	CHECK(drv_eq_next(&d, &eq, &eqe));

	/* arm with nothing pending: armed, no interrupt */
	drv_eq_update(&d, &eq, true);
	CHECK_EQ(d.hal.msix[0], 1);
	/* the next event interrupts once and disarms */
	port_toggle(&d, false);
	CHECK_EQ(d.hal.msix[0], 3);		/* completion + event */
	port_toggle(&d, true);
	CHECK_EQ(d.hal.msix[0], 4);		/* completion only */

	/* arm while entries are pending: interrupt now, stay disarmed */
	CHECK(drv_eq_next(&d, &eq, &eqe));	/* consume one of two */
	drv_eq_update(&d, &eq, true);
	CHECK_EQ(d.hal.msix[0], 5);
	port_toggle(&d, false);
	CHECK_EQ(d.hal.msix[0], 6);		/* completion only */

	/* drain, arm: armed again */
	while (drv_eq_next(&d, &eq, &eqe))
		;
	drv_eq_update(&d, &eq, true);
	CHECK_EQ(d.hal.msix[0], 6);
	/* an update without ARM leaves it armed */
	drv_eq_update(&d, &eq, false);
	port_toggle(&d, true);
	CHECK_EQ(d.hal.msix[0], 8);
	drv_close(&d);
}

TEST(test_comp_eq_uses_its_vector)
{
	uint8_t frame[64];
	struct ordma_eqe eqe;
	struct drv_ring rx;
	struct drv_eq eq;
	struct drv d;
	size_t len;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_COMP, 5, 4));
	REQUIRE(drv_ring_open(&d, &rx, ORDMA_ETH_RING_RX, 4, eq.eqn));
	REQUIRE_EQ(drv_port_up(&d), ORDMA_CMD_STATUS_OK);
	drv_rx_post(&d, &rx, 4, 2048);
	drv_eq_update(&d, &eq, true);
	drv_ring_arm(&d, &rx);
	len = drv_build_frame(frame, drv_bcast_mac, d.cfg.mac, 0x0806, 46);
	ordma_fw_rx_frame(d.fw, frame, len);
	CHECK_EQ(d.hal.msix[5], 1);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(eqe_type(&eqe), ORDMA_EQE_ETH);
	CHECK_EQ(le32_to_cpu(eqe.data[0]), rx.id);
	CHECK_EQ(d.hal.msix_bad_vector, 0);
	drv_close(&d);
}

TEST(test_overrun_never_overwrites)
{
	struct ordma_eqe eqe;
	struct drv_eq eq;
	struct drv d;
	unsigned int i;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	for (i = 0; i < 20; i++)
		port_toggle(&d, !(i & 1));
	/* 16 fit; 4 dropped and counted */
	CHECK_EQ(health_overruns(&d), 4);
	for (i = 0; i < 16; i++) {
		REQUIRE(drv_eq_next(&d, &eq, &eqe));
		CHECK_EQ(le32_to_cpu(eqe.data[1]),
			 !(i & 1) ? ORDMA_PORT_ACTIVE : ORDMA_PORT_DOWN);
	}
	CHECK(!drv_eq_next(&d, &eq, &eqe));
	/* still full until the driver reports its consumer index */
	port_toggle(&d, true);
	CHECK_EQ(health_overruns(&d), 5);
	drv_eq_update(&d, &eq, false);
	port_toggle(&d, false);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_DOWN);
	CHECK_EQ(health_overruns(&d), 5);

	/* an EQ ring the device cannot write loses the event, counted */
	d.hal.fail_lo = eq.addr;
	d.hal.fail_hi = eq.addr + 0x1000;
	port_toggle(&d, true);
	CHECK_EQ(health_overruns(&d), 6);
	d.hal.fail_lo = d.hal.fail_hi = 0;
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&d);
}

TEST(test_events_without_async_eq)
{
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	port_toggle(&d, true);
	ordma_fw_set_link(d.fw, false);
	CHECK_EQ(health_overruns(&d), 2);
	drv_close(&d);
}

TEST(test_eq_doorbell_validation)
{
	struct drv_eq eq;
	struct drv d;
	unsigned int i;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_COMP, 1, 4));
	drv_db(&d, 0, ORDMA_DB_EQ, 9, 0, 0);		/* no such EQ */
	CHECK_EQ(drv_db_errors(&d), 1);
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 1, 0);	/* ci beyond pi */
	CHECK_EQ(drv_db_errors(&d), 2);
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 0x80000000, 0);
	CHECK_EQ(drv_db_errors(&d), 3);
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 0, ORDMA_DB_ARM);
	CHECK_EQ(drv_db_errors(&d), 3);
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 0, ORDMA_DB_SOLICITED);
	CHECK_EQ(drv_db_errors(&d), 4);
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 0, 1ULL << 24);
	CHECK_EQ(drv_db_errors(&d), 5);
	drv_close(&d);

	/* the reported consumer may trail the producer by one ring at most */
	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	for (i = 0; i < 16; i++)
		port_toggle(&d, !(i & 1));
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 0, 0);	/* 16 behind: fine */
	CHECK_EQ(drv_db_errors(&d), 0);
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 16, 0);
	port_toggle(&d, true);				/* pi = 17 */
	CHECK_EQ(health_overruns(&d), 0);
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 0, 0);	/* 17 behind */
	CHECK_EQ(drv_db_errors(&d), 1);
	/* that rejection queued a DB_ERROR here too: pi = 18 */
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 1, 0);
	CHECK_EQ(drv_db_errors(&d), 2);
	drv_db(&d, 0, ORDMA_DB_EQ, eq.eqn, 2, 0);
	CHECK_EQ(drv_db_errors(&d), 2);
	drv_close(&d);
}

TEST(test_port_change_events)
{
	struct ordma_eqe eqe;
	struct drv_eq eq;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));

	/* admin down: link changes do not change the port state */
	ordma_fw_set_link(d.fw, false);
	ordma_fw_set_link(d.fw, true);
	CHECK(!drv_eq_next(&d, &eq, &eqe));

	port_toggle(&d, true);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(eqe_type(&eqe), ORDMA_EQE_PORT_CHANGE);
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_ACTIVE);
	/* same state again, or another field: no event */
	port_toggle(&d, true);
	drv_set_port(&d, ORDMA_SET_PORT_MTU, 9000, NULL, 0, 0);
	CHECK(!drv_eq_next(&d, &eq, &eqe));

	ordma_fw_set_link(d.fw, false);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), 1);
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_DOWN);
	ordma_fw_set_link(d.fw, false);
	CHECK(!drv_eq_next(&d, &eq, &eqe));
	/* admin down while the link is down: still DOWN, no event */
	port_toggle(&d, false);
	CHECK(!drv_eq_next(&d, &eq, &eqe));
	port_toggle(&d, true);
	CHECK(!drv_eq_next(&d, &eq, &eqe));
	ordma_fw_set_link(d.fw, true);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_ACTIVE);
	port_toggle(&d, false);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_DOWN);

	/* a disabled device writes no events; the state still follows */
	port_toggle(&d, true);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	drv_wr(&d, ORDMA_REG_CTRL, 0);
	ordma_fw_set_link(d.fw, false);
	CHECK(!drv_eq_next(&d, &eq, &eqe));
	drv_close(&d);
}

struct bad_db {
	const char *what;
	uint32_t page, reg, qn;
	unsigned int size;
	uint64_t flags;
};

TEST(test_db_error_events)
{
	static const struct bad_db cases[] = {
		{ "EQ on a user page", 1, ORDMA_DB_EQ, 0, 8, 0 },
		{ "ETH_PI on a user page", 3, ORDMA_DB_ETH_PI, 0, 8, 0 },
		{ "ETH_ARM on a user page", 255, ORDMA_DB_ETH_ARM, 0, 8, 0 },
		{ "32-bit write", 0, ORDMA_DB_EQ, 0, 4, 0 },
		{ "16-bit write", 0, ORDMA_DB_EQ, 0, 2, 0 },
		{ "unknown offset", 0, 0x038, 0, 8, 0 },
		{ "unknown offset high", 0, 0xff8, 0, 8, 0 },
		{ "unaligned", 0, 0x004, 0, 8, 0 },
		{ "bad EQ number", 0, ORDMA_DB_EQ, 17, 8, 0 },
		{ "bad ring number", 0, ORDMA_DB_ETH_PI, 7, 8, 0 },
		{ "bad ring number arm", 0, ORDMA_DB_ETH_ARM, 100, 8, 0 },
		{ "SQ (v1.1)", 1, ORDMA_DB_SQ, 1, 8, 0 },
		{ "RQ (v1.1)", 1, ORDMA_DB_RQ, 1, 8, 0 },
		{ "SRQ (v1.1)", 0, ORDMA_DB_SRQ, 1, 8, 0 },
		{ "CQ (v1.1)", 2, ORDMA_DB_CQ, 1, 8, ORDMA_DB_ARM },
		{ "page beyond BAR", 256, ORDMA_DB_EQ, 0, 8, 0 },
		{ "ARM on ETH_PI", 0, ORDMA_DB_ETH_PI, 0, 8, ORDMA_DB_ARM },
	};
	struct ordma_eqe eqe;
	struct drv_eq eq;
	struct drv d;
	size_t i;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 6));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_db *c = &cases[i];
		uint64_t val = FIELD_PREP(ORDMA_DB_QN, (uint64_t)c->qn) | c->flags;

		d.hal.now_ns += 10 * MS;	/* stay clear of the rate limit */
		ordma_fw_db_write(d.fw, (uint64_t)c->page << 12 | c->reg, val,
				  c->size);
		if (!CHECK(drv_eq_next(&d, &eq, &eqe))) {
			NOTE("case: %s", c->what);
			continue;
		}
		CHECK_EQ(eqe_type(&eqe), ORDMA_EQE_DB_ERROR);
		CHECK_EQ(le32_to_cpu(eqe.data[0]), c->page);
		CHECK_EQ(le32_to_cpu(eqe.data[1]), c->reg);
		CHECK_EQ(le32_to_cpu(eqe.data[2]), c->qn);
		CHECK(strstr(d.hal.last_log, "doorbell: page") != NULL);
		if (c->page >= 256)
			CHECK(strstr(d.hal.last_log, "beyond the doorbell BAR"));
	}
	CHECK_EQ(drv_db_errors(&d), sizeof(cases) / sizeof(cases[0]));
	/* BAR2 reads are the shim's business; valid doorbells are silent */
	drv_eq_update(&d, &eq, false);
	CHECK(!drv_eq_next(&d, &eq, &eqe));
	drv_close(&d);
}

TEST(test_db_error_rate_limit)
{
	struct ordma_eqe eqe;
	struct drv_eq eq;
	struct drv d;
	unsigned int i, events = 0;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 6));
	for (i = 0; i < 50; i++) {
		drv_db(&d, 0, 0x800, i, 0, 0);
		d.hal.now_ns += MS / 2;
	}
	/* 25 ms of errors: events at 0, 10 and 20 ms */
	while (drv_eq_next(&d, &eq, &eqe)) {
		CHECK_EQ(eqe_type(&eqe), ORDMA_EQE_DB_ERROR);
		CHECK_EQ(le32_to_cpu(eqe.data[2]), events * 20);
		events++;
	}
	CHECK_EQ(events, 3);
	CHECK_EQ(drv_db_errors(&d), 50);
	/* quiet for 10 ms: the next error is reported at once */
	d.hal.now_ns += 10 * MS;
	drv_db(&d, 0, 0x800, 99, 0, 0);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[2]), 99);
	CHECK_EQ(health_overruns(&d), 0);
	drv_close(&d);
}

TEST(test_doorbells_ignored_when_not_ready)
{
	struct ordma_fw_config cfg;
	struct drv d;

	drv_default_config(&cfg);
	REQUIRE(drv_create(&d, &cfg));
	drv_db(&d, 0, 0x800, 0, 0, 0);
	drv_db(&d, 1, ORDMA_DB_EQ, 0, 0, 0);
	REQUIRE(drv_enable(&d, 4));
	CHECK_EQ(drv_db_errors(&d), 0);
	drv_wr(&d, ORDMA_REG_CTRL, 0);
	drv_db(&d, 0, 0x800, 0, 0, 0);
	REQUIRE(drv_enable(&d, 4));
	CHECK_EQ(drv_db_errors(&d), 0);
	drv_close(&d);
}
