// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Ethernet function: SET_PORT, ring commands, TX and RX paths, the RX
 * filter, RoCE steering and ETH_ARM.
 */
#include <stddef.h>
#include <string.h>

#include "drv.h"
#include "ordma_test.h"

static const uint8_t other_mac[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };

/* A device with its port up, a COMP EQ (vector 1), a TX and an RX ring */
struct eth_env {
	struct drv d;
	struct drv_eq eq;
	struct drv_ring tx, rx;
};

static bool eth_setup(struct eth_env *e)
{
	if (!drv_open(&e->d, 4))
		return false;
	if (!drv_eq_open(&e->d, &e->eq, ORDMA_EQ_TYPE_COMP, 1, 6) ||
	    !drv_ring_open(&e->d, &e->tx, ORDMA_ETH_RING_TX, 4, e->eq.eqn) ||
	    !drv_ring_open(&e->d, &e->rx, ORDMA_ETH_RING_RX, 4, e->eq.eqn) ||
	    drv_port_up(&e->d) != ORDMA_CMD_STATUS_OK) {
		drv_close(&e->d);
		return false;
	}
	return true;
}

static struct ordma_port_stats stats(struct drv *d)
{
	struct ordma_port_stats s;

	memset(&s, 0xff, sizeof(s));
	drv_stats(d, &s);
	return s;
}

static size_t unicast_frame(struct drv *d, uint8_t *buf, size_t payload)
{
	return drv_build_frame(buf, d->cfg.mac, other_mac, 0x0800, payload);
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

TEST(test_create_destroy_eth_ring)
{
	struct drv_eq comp, async;
	struct drv d;
	uint32_t id, i;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &async, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	REQUIRE(drv_eq_open(&d, &comp, ORDMA_EQ_TYPE_COMP, 2, 4));

	CHECK_EQ(drv_create_ring_raw(&d, 0, 4, 0, comp.eqn, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0) + 16, 4, 0, comp.eqn,
				     NULL), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(drv_create_ring_raw(&d, 0xfffffffffffff000ULL, 12, 0, comp.eqn,
				     NULL), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 3, 0, comp.eqn, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 13, 0, comp.eqn, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 4, 2, comp.eqn, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 17);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 4, 0, 9, NULL),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 4, 0, 32, NULL),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 4, 0, async.eqn,
				     NULL), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 20);

	for (i = 0; i < 8; i++) {
		CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(i), 4 + i, i & 1,
					     comp.eqn, &id), ORDMA_CMD_STATUS_OK);
		CHECK_EQ(id, i);
	}
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 4, 0, comp.eqn, NULL),
		 ORDMA_CMD_STATUS_NO_RESOURCES);

	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_ETH_RING, 8, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_ETH_RING, 3, 1),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 12);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_ETH_RING, 3, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_ETH_RING, 3, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(3), 4, 0, comp.eqn, &id),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(id, 3);
	drv_close(&d);
}

struct bad_set_port {
	const char *what;
	uint32_t port, mask, mtu;
	uint8_t mac[6];
	uint8_t admin_up, rx_mode;
	uint32_t syndrome;
};

TEST(test_set_port_validation)
{
	static const struct bad_set_port cases[] = {
		{ "port 0", 0, 1, 1500, { 0 }, 0, 0, 8 },
		{ "port 2", 2, 1, 1500, { 0 }, 0, 0, 8 },
		{ "empty mask", 1, 0, 0, { 0 }, 0, 0, 12 },
		{ "unknown mask bit", 1, 0x11, 1500, { 0 }, 0, 0, 12 },
		{ "mtu 67", 1, 1, 67, { 0 }, 0, 0, 16 },
		{ "mtu 9001", 1, 1, 9001, { 0 }, 0, 0, 16 },
		{ "mtu not in mask", 1, 4, 1500, { 0 }, 1, 0, 16 },
		{ "mac zero", 1, 2, 0, { 0 }, 0, 0, 20 },
		{ "mac multicast", 1, 2, 0, { 1, 2, 3, 4, 5, 6 }, 0, 0, 20 },
		{ "mac not in mask", 1, 1, 1500, { 2, 2, 3, 4, 5, 6 }, 0, 0, 20 },
		{ "admin_up 2", 1, 4, 0, { 0 }, 2, 0, 26 },
		{ "admin not in mask", 1, 1, 1500, { 0 }, 1, 0, 26 },
		{ "rx_mode 4", 1, 8, 0, { 0 }, 0, 4, 27 },
		{ "rx_mode not in mask", 1, 1, 1500, { 0 }, 0, 1, 27 },
		/* checked before anything applies: mtu is valid, mac is not */
		{ "mtu ok, mac bad", 1, 3, 9000, { 1, 0, 0, 0, 0, 0 }, 0, 0, 20 },
	};
	struct ordma_port_attr attr;
	struct drv d;
	size_t i;

	REQUIRE(drv_open(&d, 4));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_set_port *c = &cases[i];
		struct ordma_aq_cmd cmd;

		drv_cmd_init(&cmd, ORDMA_CMD_SET_PORT);
		cmd.set_port.port = cpu_to_le32(c->port);
		cmd.set_port.field_mask = cpu_to_le32(c->mask);
		cmd.set_port.mtu = cpu_to_le32(c->mtu);
		memcpy(cmd.set_port.mac, c->mac, 6);
		cmd.set_port.admin_up = c->admin_up;
		cmd.set_port.rx_mode = c->rx_mode;
		if (!CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM) ||
		    !CHECK_EQ(drv_syndrome(&d), c->syndrome))
			NOTE("case: %s", c->what);
	}
	/* nothing was applied */
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr)),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(attr.mtu), 1500);
	CHECK(!memcmp(attr.mac, d.cfg.mac, 6));
	CHECK_EQ(attr.admin_up, 0);
	CHECK_EQ(attr.rx_mode, 0);
	/* an Ethernet port has none of InfiniBand's PortInfo */
	CHECK_EQ(le16_to_cpu(attr.lid), 0);
	CHECK_EQ(le16_to_cpu(attr.sm_lid), 0);
	CHECK_EQ(attr.lmc, 0);
	CHECK_EQ(attr.sm_sl, 0);
	CHECK_EQ(attr.subnet_timeout, 0);
	CHECK_EQ(attr.pkey_table_len, 0);
	CHECK_EQ(le32_to_cpu(attr.port_cap_flags), 0);
	CHECK_EQ(attr.gid_prefix, 0);
	CHECK_EQ(attr.port_guid, 0);
	CHECK_EQ(le32_to_cpu(attr.max_vl_num), 0);
	CHECK_EQ(le16_to_cpu(attr.pkey), 0);
	drv_close(&d);
}

TEST(test_set_port_applies)
{
	static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct ordma_port_attr attr;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(drv_set_port(&d, ORDMA_SET_PORT_ALL_FIELDS, 68, mac, 1,
			      ORDMA_RX_MODE_PROMISC | ORDMA_RX_MODE_ALLMULTI),
		 ORDMA_CMD_STATUS_OK);
	drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr));
	CHECK_EQ(le32_to_cpu(attr.mtu), 68);
	CHECK(!memcmp(attr.mac, mac, 6));
	CHECK_EQ(attr.admin_up, 1);
	CHECK_EQ(attr.rx_mode, 3);
	CHECK_EQ(attr.state, ORDMA_PORT_ACTIVE);

	/* one field at a time leaves the others alone */
	CHECK_EQ(drv_set_port(&d, ORDMA_SET_PORT_RX_MODE, 0, NULL, 0, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_set_port(&d, ORDMA_SET_PORT_MTU, 9000, NULL, 0, 0),
		 ORDMA_CMD_STATUS_OK);
	drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr));
	CHECK_EQ(le32_to_cpu(attr.mtu), 9000);
	CHECK(!memcmp(attr.mac, mac, 6));
	CHECK_EQ(attr.admin_up, 1);
	CHECK_EQ(attr.rx_mode, 0);
	CHECK_EQ(drv_set_port(&d, ORDMA_SET_PORT_ADMIN, 0, NULL, 0, 0),
		 ORDMA_CMD_STATUS_OK);
	drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr));
	CHECK_EQ(attr.admin_up, 0);
	CHECK_EQ(attr.state, ORDMA_PORT_DOWN);
	drv_close(&d);
}

/* ------------------------------------------------------------------ */
/* TX                                                                  */
/* ------------------------------------------------------------------ */

TEST(test_tx_basic)
{
	const struct fake_frame *f;
	struct ordma_port_stats s;
	uint8_t frame[100];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	len = drv_build_frame(frame, other_mac, e.d.cfg.mac, 0x0800, 86);
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	REQUIRE_EQ(e.d.hal.tx_count, 1);
	f = fake_last_tx(&e.d.hal);
	CHECK_EQ(f->len, 100);
	CHECK(!memcmp(f->data, frame, 100));
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 0), 100 | ORDMA_ETH_DESC_DONE);
	s = stats(&e.d);
	CHECK_EQ(s.tx_frames, 1);
	CHECK_EQ(s.tx_bytes, 100);
	CHECK_EQ(s.tx_bad_desc, 0);
	drv_close(&e.d);
}

TEST(test_tx_pads_short_frames)
{
	const struct fake_frame *f;
	uint8_t frame[64] = { 0 };
	struct eth_env e;
	size_t i;

	REQUIRE(eth_setup(&e));
	drv_build_frame(frame, other_mac, e.d.cfg.mac, 0x0806, 6);
	/* stale bytes after the frame in host memory must not leak out */
	memset(drv_mem(&e.d, DRV_FRAME_ADDR(e.tx.area, 0), 64), 0xee, 64);
	drv_tx(&e.d, &e.tx, frame, 20);
	f = fake_last_tx(&e.d.hal);
	REQUIRE(f);
	CHECK_EQ(f->len, 60);
	CHECK(!memcmp(f->data, frame, 20));
	for (i = 20; i < 60; i++)
		CHECK_EQ(f->data[i], 0);
	/* the descriptor reports the driver's length */
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 0), 20 | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(stats(&e.d).tx_bytes, 60);
	/* the minimum of 14, and both sides of 60 */
	drv_tx(&e.d, &e.tx, frame, 14);
	CHECK_EQ(fake_last_tx(&e.d.hal)->len, 60);
	drv_tx(&e.d, &e.tx, frame, 59);
	CHECK_EQ(fake_last_tx(&e.d.hal)->len, 60);
	CHECK_EQ(fake_last_tx(&e.d.hal)->data[59], 0);
	drv_tx(&e.d, &e.tx, frame, 60);
	CHECK_EQ(fake_last_tx(&e.d.hal)->len, 60);
	drv_tx(&e.d, &e.tx, frame, 61);
	CHECK_EQ(fake_last_tx(&e.d.hal)->len, 61);
	CHECK_EQ(e.d.hal.tx_bad_len, 0);
	drv_close(&e.d);
}

TEST(test_tx_length_limits)
{
	static uint8_t big[9100];
	struct ordma_port_stats s;
	struct eth_env e;

	REQUIRE(eth_setup(&e));
	drv_build_frame(big, other_mac, e.d.cfg.mac, 0x0800, 9018 - 14);
	drv_tx(&e.d, &e.tx, big, 13);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 0),
		 13 | ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	drv_tx(&e.d, &e.tx, big, 1519);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 1),
		 1519 | ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	drv_tx(&e.d, &e.tx, big, 0);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 2),
		 ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(e.d.hal.tx_count, 0);
	drv_tx(&e.d, &e.tx, big, 1518);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 3), 1518 | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(e.d.hal.tx_count, 1);

	REQUIRE_EQ(drv_set_port(&e.d, ORDMA_SET_PORT_MTU, 9000, NULL, 0, 0),
		   ORDMA_CMD_STATUS_OK);
	drv_tx(&e.d, &e.tx, big, 9018);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 4), 9018 | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(fake_last_tx(&e.d.hal)->len, 9018);
	CHECK(!memcmp(fake_last_tx(&e.d.hal)->data, big, 9018));
	drv_tx(&e.d, &e.tx, big, 9019);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 5),
		 9019 | ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	s = stats(&e.d);
	CHECK_EQ(s.tx_bad_desc, 4);
	CHECK_EQ(s.tx_frames, 2);
	CHECK_EQ(s.tx_bytes, 1518 + 9018);
	drv_close(&e.d);
}

TEST(test_tx_link_down_drops)
{
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	len = unicast_frame(&e.d, frame, 50);
	drv_set_port(&e.d, ORDMA_SET_PORT_ADMIN, 0, NULL, 0, 0);
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 0), len | ORDMA_ETH_DESC_DONE);
	drv_port_up(&e.d);
	ordma_fw_set_link(e.d.fw, false);
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 1), len | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(e.d.hal.tx_count, 0);
	CHECK_EQ(stats(&e.d).tx_drop_link_down, 2);
	CHECK_EQ(stats(&e.d).tx_frames, 0);
	ordma_fw_set_link(e.d.fw, true);
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	CHECK_EQ(e.d.hal.tx_count, 1);
	drv_close(&e.d);
}

TEST(test_tx_bad_descriptors)
{
	struct ordma_eth_desc *desc;
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	len = unicast_frame(&e.d, frame, 50);

	/* frame buffer not readable */
	desc = drv_desc(&e.d, &e.tx, 0);
	desc->addr = cpu_to_le64(DRV_BAD_ADDR);
	desc->len_flags = cpu_to_le32((uint32_t)len);
	e.tx.pi++;
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.tx.id, e.tx.pi, 0);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 0),
		 len | ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);

	/* flags the driver must clear, reserved dword */
	desc = drv_desc(&e.d, &e.tx, 1);
	desc->addr = cpu_to_le64(DRV_FRAME_ADDR(e.tx.area, 1));
	desc->len_flags = cpu_to_le32((uint32_t)len | ORDMA_ETH_DESC_DONE);
	desc = drv_desc(&e.d, &e.tx, 2);
	desc->addr = cpu_to_le64(DRV_FRAME_ADDR(e.tx.area, 2));
	desc->len_flags = cpu_to_le32((uint32_t)len);
	desc->reserved_12 = cpu_to_le32(1);
	e.tx.pi += 2;
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.tx.id, e.tx.pi, 0);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 1),
		 len | ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 2),
		 len | ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(e.d.hal.tx_count, 0);
	CHECK_EQ(stats(&e.d).tx_bad_desc, 3);

	/* the whole descriptor ring unreadable: counted; the DONE of the
	 * slot cannot be written either, so the ring stops (and sends
	 * nothing more); the device lives on
	 */
	e.d.hal.fail_lo = e.tx.addr;
	e.d.hal.fail_hi = e.tx.addr + 0x1000;
	e.tx.pi++;
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.tx.id, e.tx.pi, 0);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	CHECK_EQ(stats(&e.d).tx_bad_desc, 4);
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	CHECK_EQ(e.d.hal.tx_count, 0);
	CHECK_EQ(drv_rd(&e.d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&e.d);
}

TEST(test_tx_ring_wrap_and_pi_checks)
{
	uint8_t frame[128];
	struct eth_env e;
	unsigned int i;
	size_t len;

	REQUIRE(eth_setup(&e));
	len = unicast_frame(&e.d, frame, 100);
	for (i = 0; i < 100; i++) {
		frame[14] = (uint8_t)i;
		drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
		CHECK_EQ(drv_desc_flags(&e.d, &e.tx, i), len | ORDMA_ETH_DESC_DONE);
		CHECK_EQ(fake_last_tx(&e.d.hal)->data[14], i);
	}
	CHECK_EQ(e.d.hal.tx_count, 100);

	/* a whole ring in one doorbell */
	for (i = 0; i < 16; i++) {
		struct ordma_eth_desc *desc = drv_desc(&e.d, &e.tx, e.tx.pi + i);

		memcpy(drv_mem(&e.d, DRV_FRAME_ADDR(e.tx.area, i), len), frame, len);
		desc->addr = cpu_to_le64(DRV_FRAME_ADDR(e.tx.area, i));
		desc->len_flags = cpu_to_le32((uint32_t)len);
	}
	e.tx.pi += 16;
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.tx.id, e.tx.pi, 0);
	CHECK_EQ(e.d.hal.tx_count, 116);

	/* more than a ring ahead, or behind: rejected, nothing sent */
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.tx.id, e.tx.pi + 17, 0);
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.tx.id, e.tx.pi - 1, 0);
	CHECK_EQ(e.d.hal.tx_count, 116);
	CHECK_EQ(drv_db_errors(&e.d), 2);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* RX                                                                  */
/* ------------------------------------------------------------------ */

TEST(test_rx_basic)
{
	struct ordma_port_stats s;
	uint8_t frame[200];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	drv_rx_post(&e.d, &e.rx, 4, 2048);
	len = unicast_frame(&e.d, frame, 186);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), len | ORDMA_ETH_DESC_DONE);
	CHECK(!memcmp(drv_mem(&e.d, DRV_FRAME_ADDR(e.rx.area, 0), len), frame,
		      len));
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 1), 2048);
	/* a runt on the wire is delivered as it is, not padded */
	ordma_fw_rx_frame(e.d.fw, frame, 20);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 1), 20 | ORDMA_ETH_DESC_DONE);
	s = stats(&e.d);
	CHECK_EQ(s.rx_frames, 2);
	CHECK_EQ(s.rx_bytes, len + 20);
	CHECK(ordma_fw_can_receive(e.d.fw));
	drv_close(&e.d);
}

static unsigned long long delivered(struct drv *d)
{
	return stats(d).rx_frames;
}

TEST(test_rx_filter)
{
	static const uint8_t l2_mcast[6] = { 0x01, 0x80, 0xc2, 0, 0, 0x0e };
	static const uint8_t v6_mcast[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	static const uint8_t v4_mcast[6] = { 0x01, 0x00, 0x5e, 0, 0, 0xfb };
	static const uint8_t not_v4_mcast[6] = { 0x01, 0x00, 0x5e, 0x80, 0, 1 };
	uint8_t frame[64];
	struct eth_env e;
	unsigned long long n;

	REQUIRE(eth_setup(&e));
	drv_rx_post(&e.d, &e.rx, 16, 2048);
#define RX_TO(mac) do { \
		drv_build_frame(frame, mac, other_mac, 0x0800, 46); \
		ordma_fw_rx_frame(e.d.fw, frame, 60); \
	} while (0)

	n = delivered(&e.d);
	RX_TO(e.d.cfg.mac);
	CHECK_EQ(delivered(&e.d), ++n);
	RX_TO(drv_bcast_mac);
	CHECK_EQ(delivered(&e.d), ++n);
	RX_TO(v6_mcast);
	CHECK_EQ(delivered(&e.d), ++n);
	RX_TO(v4_mcast);
	CHECK_EQ(delivered(&e.d), ++n);
	RX_TO(other_mac);
	RX_TO(l2_mcast);
	RX_TO(not_v4_mcast);
	CHECK_EQ(delivered(&e.d), n);
	CHECK_EQ(stats(&e.d).rx_drop_filter, 3);
	ordma_fw_rx_frame(e.d.fw, frame, 13);	/* no room for a header */
	ordma_fw_rx_frame(e.d.fw, frame, 0);
	CHECK_EQ(stats(&e.d).rx_drop_filter, 5);

	drv_set_port(&e.d, ORDMA_SET_PORT_RX_MODE, 0, NULL, 0,
		     ORDMA_RX_MODE_ALLMULTI);
	RX_TO(l2_mcast);
	RX_TO(not_v4_mcast);
	CHECK_EQ(delivered(&e.d), n += 2);
	RX_TO(other_mac);
	CHECK_EQ(delivered(&e.d), n);

	drv_set_port(&e.d, ORDMA_SET_PORT_RX_MODE, 0, NULL, 0,
		     ORDMA_RX_MODE_PROMISC);
	RX_TO(other_mac);
	RX_TO(l2_mcast);
	CHECK_EQ(delivered(&e.d), n += 2);

	/* a new MAC moves the unicast filter */
	drv_set_port(&e.d, ORDMA_SET_PORT_RX_MODE | ORDMA_SET_PORT_MAC, 0,
		     other_mac, 0, 0);
	RX_TO(other_mac);
	CHECK_EQ(delivered(&e.d), ++n);
	RX_TO(e.d.cfg.mac);
	CHECK_EQ(delivered(&e.d), n);
#undef RX_TO
	drv_close(&e.d);
}

/* The wire's own drops show as port counters, counted from the reset */
TEST(test_wire_drops_in_port_stats)
{
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	d.hal.wire_tx_drop = 3;
	d.hal.wire_rx_drop = 1000;
	CHECK_EQ(stats(&d).wire_tx_drop, 3);
	CHECK_EQ(stats(&d).wire_rx_drop, 1000);
	/* a reset takes what the wire lost so far as the new zero */
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	REQUIRE(drv_enable(&d, 4));
	CHECK_EQ(stats(&d).wire_rx_drop, 0);
	d.hal.wire_rx_drop += 7;
	CHECK_EQ(stats(&d).wire_rx_drop, 7);
	CHECK_EQ(stats(&d).wire_tx_drop, 0);
	drv_close(&d);
}

/* The impairments the wire injected show as port counters too */
TEST(test_wire_faults_in_port_stats)
{
	struct ordma_port_stats s;
	struct drv d;
	unsigned int i;

	REQUIRE(drv_open(&d, 4));
	for (i = 0; i < ORDMA_WIRE_FAULTS; i++)
		d.hal.wire_fault[i] = 10 * (i + 1);
	s = stats(&d);
	CHECK_EQ(s.wire_fault[ORDMA_WIRE_FAULT_LOSS], 10);
	CHECK_EQ(s.wire_fault[ORDMA_WIRE_FAULT_REORDER], 20);
	CHECK_EQ(s.wire_fault[ORDMA_WIRE_FAULT_DUP], 30);
	CHECK_EQ(s.wire_fault[ORDMA_WIRE_FAULT_CORRUPT], 40);
	CHECK_EQ(s.wire_fault[ORDMA_WIRE_FAULT_DELAY], 50);
	/* the names ethtool and rdma statistic show, after wire_rx_drop */
	CHECK(!strcmp(ordma_port_stat_name(ORDMA_PORT_STAT_INDEX(
		wire_fault[ORDMA_WIRE_FAULT_LOSS])), "wire_fault_loss"));
	CHECK(!strcmp(ordma_port_stat_name(ORDMA_PORT_STAT_INDEX(
		wire_fault[ORDMA_WIRE_FAULT_DELAY])), "wire_fault_delay"));
	CHECK(!strcmp(ordma_port_stat_name(ORDMA_PORT_STAT_INDEX(
		roce_tx_pause_holds)), "roce_tx_pause_holds"));
	CHECK(!strcmp(ordma_port_stat_name(ORDMA_PORT_STAT_INDEX(
		fault_injected[ORDMA_FAULT_ADMIN_DELAY])),
		      "fault_injected_admin_delay"));
	CHECK(!ordma_port_stat_name(ORDMA_PORT_STATS_NUM));
	CHECK_EQ(ORDMA_PORT_STAT_INDEX(wire_fault[0]),
		 ORDMA_PORT_STAT_INDEX(wire_rx_drop) + 1);
	/* counted from the last reset, like the wire's drops */
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	REQUIRE(drv_enable(&d, 4));
	d.hal.wire_fault[ORDMA_WIRE_FAULT_CORRUPT] += 2;
	s = stats(&d);
	CHECK_EQ(s.wire_fault[ORDMA_WIRE_FAULT_CORRUPT], 2);
	CHECK_EQ(s.wire_fault[ORDMA_WIRE_FAULT_LOSS], 0);
	drv_close(&d);
}

TEST(test_rx_port_down_drops)
{
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	drv_rx_post(&e.d, &e.rx, 4, 2048);
	len = unicast_frame(&e.d, frame, 46);
	ordma_fw_set_link(e.d.fw, false);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	ordma_fw_set_link(e.d.fw, true);
	drv_set_port(&e.d, ORDMA_SET_PORT_ADMIN, 0, NULL, 0, 0);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(stats(&e.d).rx_drop_link_down, 2);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), 2048);
	/* a disabled device neither receives nor counts */
	drv_port_up(&e.d);
	drv_wr(&e.d, ORDMA_REG_CTRL, 0);
	CHECK(!ordma_fw_can_receive(e.d.fw));
	ordma_fw_rx_frame(e.d.fw, frame, len);
	REQUIRE(drv_enable(&e.d, 4));
	CHECK_EQ(stats(&e.d).rx_drop_link_down, 2);
	CHECK_EQ(stats(&e.d).rx_frames, 0);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(stats(&e.d).rx_frames, 1);
	drv_close(&e.d);
}

TEST(test_rx_no_buffer_and_too_long)
{
	static uint8_t big[9300];
	struct ordma_port_stats s;
	struct eth_env e;

	REQUIRE(eth_setup(&e));
	unicast_frame(&e.d, big, 9000);
	ordma_fw_rx_frame(e.d.fw, big, 100);
	CHECK_EQ(stats(&e.d).rx_drop_no_buf, 1);

	drv_rx_post(&e.d, &e.rx, 2, 256);
	/* larger than the buffer: dropped, the buffer stays posted */
	ordma_fw_rx_frame(e.d.fw, big, 257);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), 256);
	ordma_fw_rx_frame(e.d.fw, big, 256);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), 256 | ORDMA_ETH_DESC_DONE);

	/* larger than mtu + 18 even if the buffer would hold it */
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_ETH_RING, e.rx.id, 0),
		   ORDMA_CMD_STATUS_OK);
	REQUIRE(drv_ring_open(&e.d, &e.rx, ORDMA_ETH_RING_RX, 4, e.eq.eqn));
	drv_rx_post(&e.d, &e.rx, 4, 9018);
	ordma_fw_rx_frame(e.d.fw, big, 1519);
	ordma_fw_rx_frame(e.d.fw, big, 9200);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), 9018);
	ordma_fw_rx_frame(e.d.fw, big, 1518);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), 1518 | ORDMA_ETH_DESC_DONE);
	drv_set_port(&e.d, ORDMA_SET_PORT_MTU, 9000, NULL, 0, 0);
	ordma_fw_rx_frame(e.d.fw, big, 9018);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 1), 9018 | ORDMA_ETH_DESC_DONE);
	CHECK(!memcmp(drv_mem(&e.d, DRV_FRAME_ADDR(e.rx.area, 1), 9018), big,
		      9018));

	/* ring full of completed buffers: no buffer */
	ordma_fw_rx_frame(e.d.fw, big, 100);
	ordma_fw_rx_frame(e.d.fw, big, 100);
	ordma_fw_rx_frame(e.d.fw, big, 100);
	s = stats(&e.d);
	CHECK_EQ(s.rx_drop_too_long, 3);
	CHECK_EQ(s.rx_drop_no_buf, 2);
	CHECK_EQ(s.rx_frames, 5);
	drv_close(&e.d);
}

TEST(test_rx_bad_descriptors)
{
	struct ordma_eth_desc *desc;
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	len = unicast_frame(&e.d, frame, 46);
	drv_rx_post(&e.d, &e.rx, 4, 2048);
	drv_desc(&e.d, &e.rx, 0)->addr = cpu_to_le64(DRV_BAD_ADDR);
	drv_desc(&e.d, &e.rx, 1)->len_flags = cpu_to_le32(63);
	desc = drv_desc(&e.d, &e.rx, 2);
	desc->len_flags = cpu_to_le32(2048 | ORDMA_ETH_DESC_DONE);
	drv_desc(&e.d, &e.rx, 3)->reserved_12 = cpu_to_le32(5);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0),
		 ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 1),
		 ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 2),
		 ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 3),
		 ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(stats(&e.d).rx_frames, 0);
	CHECK_EQ(stats(&e.d).rx_drop_no_buf, 3);

	/* producer index checks */
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.rx.id, e.rx.pi + 17, 0);
	CHECK_EQ(drv_db_errors(&e.d), 1);
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.rx.id, e.rx.pi + 16, 0);
	CHECK_EQ(drv_db_errors(&e.d), 1);

	/* unreadable descriptor ring: the slot's DONE cannot be written
	 * either, so the ring stops; no crash, the device stays ready
	 */
	drv_rx_post(&e.d, &e.rx, 1, 2048);
	e.d.hal.fail_lo = e.rx.addr;
	e.d.hal.fail_hi = e.rx.addr + 0x1000;
	ordma_fw_rx_frame(e.d.fw, frame, len);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	drv_rx_post(&e.d, &e.rx, 1, 2048);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 5), 2048);
	CHECK_EQ(stats(&e.d).rx_frames, 0);
	CHECK_EQ(stats(&e.d).rx_drop_no_buf, 5);
	CHECK_EQ(drv_rd(&e.d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&e.d);
}

/* A buffer the IOMMU refuses: the frame is dropped, the slot given up,
 * the next buffer receives.
 */
TEST(test_rx_buffer_dma_fault)
{
	struct ordma_port_stats s;
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	len = unicast_frame(&e.d, frame, 46);
	drv_rx_post(&e.d, &e.rx, 2, 2048);
	e.d.hal.fail_lo = DRV_FRAME_ADDR(e.rx.area, 0);
	e.d.hal.fail_hi = e.d.hal.fail_lo + 1;
	ordma_fw_rx_frame(e.d.fw, frame, len);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0),
		 ORDMA_ETH_DESC_ERR | ORDMA_ETH_DESC_DONE);
	s = stats(&e.d);
	CHECK_EQ(s.rx_frames, 0);
	CHECK_EQ(s.rx_drop_no_buf, 0);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 1), len | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(stats(&e.d).rx_frames, 1);
	CHECK_EQ(drv_rd(&e.d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* RoCE steering                                                       */
/* ------------------------------------------------------------------ */

TEST(test_roce_steering)
{
	static const uint8_t v4_gid[16] = { [10] = 0xff, [11] = 0xff,
					    10, 0, 0, 1 };
	static const uint8_t v6_gid[16] = { 0xfe, 0x80, [14] = 0x12,
					    [15] = 0x34 };
	static const uint8_t ip_ours[4] = { 10, 0, 0, 1 };
	static const uint8_t ip_other[4] = { 10, 0, 0, 2 };
	static const uint8_t ip6_other[16] = { 0xfe, 0x80, [15] = 0x35 };
	struct ordma_port_stats s;
	uint8_t frame[128];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	drv_rx_post(&e.d, &e.rx, 16, 2048);
	REQUIRE_EQ(drv_add_gid(&e.d, 0, v4_gid, e.d.cfg.mac, ORDMA_VLAN_NONE),
		   ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(drv_add_gid(&e.d, 5, v6_gid, e.d.cfg.mac, 5),
		   ORDMA_CMD_STATUS_OK);

	/* to a GID address on UDP 4791: the RoCE engine's, counted drop */
	len = drv_build_udp4(frame, e.d.cfg.mac, ip_ours, 4791, false);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	len = drv_build_udp4(frame, e.d.cfg.mac, ip_ours, 4791, true);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	len = drv_build_udp6(frame, e.d.cfg.mac, v6_gid, 4791);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	s = stats(&e.d);
	CHECK_EQ(s.roce_rx_frames, 3);
	CHECK_EQ(s.roce_rx_drop, 3);
	CHECK_EQ(s.rx_frames, 0);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), 2048);

	/* everything else is the netdev's */
	len = drv_build_udp4(frame, e.d.cfg.mac, ip_other, 4791, false);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	len = drv_build_udp4(frame, e.d.cfg.mac, ip_ours, 4792, false);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	len = drv_build_udp6(frame, e.d.cfg.mac, ip6_other, 4791);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	len = drv_build_udp4(frame, e.d.cfg.mac, ip_ours, 4791, false);
	frame[14 + 9] = 6;				/* TCP */
	ordma_fw_rx_frame(e.d.fw, frame, len);
	frame[14 + 9] = 17;
	frame[14 + 6] = 0x20;				/* more fragments */
	ordma_fw_rx_frame(e.d.fw, frame, len);
	frame[14 + 6] = 0x40;
	ordma_fw_rx_frame(e.d.fw, frame, 14 + 20 + 3);	/* cut in the UDP header */
	frame[14] = 0x44;				/* IHL 4: invalid */
	ordma_fw_rx_frame(e.d.fw, frame, len);
	s = stats(&e.d);
	CHECK_EQ(s.roce_rx_frames, 3);
	CHECK_EQ(s.rx_frames, 7);

	/* not for our MAC: the filter comes first */
	len = drv_build_udp4(frame, other_mac, ip_ours, 4791, false);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(stats(&e.d).rx_drop_filter, 1);

	/* after DEL_GID the address is an ordinary one */
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEL_GID, 0, 0),
		   ORDMA_CMD_STATUS_OK);
	len = drv_build_udp4(frame, e.d.cfg.mac, ip_ours, 4791, false);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	s = stats(&e.d);
	CHECK_EQ(s.roce_rx_frames, 3);
	CHECK_EQ(s.rx_frames, 8);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* ETH_ARM                                                             */
/* ------------------------------------------------------------------ */

static unsigned int eth_events(struct eth_env *e, uint32_t ring)
{
	struct ordma_eqe eqe;
	unsigned int n = 0;

	while (drv_eq_next(&e->d, &e->eq, &eqe)) {
		CHECK_EQ(FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe.type)),
			 ORDMA_EQE_ETH);
		CHECK_EQ(le32_to_cpu(eqe.data[0]), ring);
		n++;
	}
	drv_eq_update(&e->d, &e->eq, false);
	return n;
}

TEST(test_eth_arm)
{
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	len = unicast_frame(&e.d, frame, 46);
	drv_rx_post(&e.d, &e.rx, 8, 2048);

	/* disarmed: completions post nothing */
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);

	/* driver has not seen descriptor 0 yet: arming reports at once */
	drv_ring_arm(&e.d, &e.rx);
	CHECK_EQ(eth_events(&e, e.rx.id), 1);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);	/* still disarmed */

	/* caught up: armed; the next completion posts once */
	e.rx.ci = 2;
	drv_ring_arm(&e.d, &e.rx);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);
	drv_eq_update(&e.d, &e.eq, true);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(eth_events(&e, e.rx.id), 1);
	CHECK_EQ(e.d.hal.msix[1], 1);

	/* ETH_ARM without ARM changes nothing */
	e.rx.ci = 4;
	drv_db(&e.d, 0, ORDMA_DB_ETH_ARM, e.rx.id, e.rx.ci, 0);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);

	/* a consumer index the device never produced is a DB error */
	drv_db(&e.d, 0, ORDMA_DB_ETH_ARM, e.rx.id, 6, ORDMA_DB_ARM);
	CHECK_EQ(drv_db_errors(&e.d), 1);
	drv_db(&e.d, 0, ORDMA_DB_ETH_ARM, e.rx.id, 5, ORDMA_DB_ARM);
	CHECK_EQ(drv_db_errors(&e.d), 1);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);

	/* TX completions arm the same way */
	drv_ring_arm(&e.d, &e.tx);
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	CHECK_EQ(eth_events(&e, e.tx.id), 1);

	/* the driver may lag by at most one ring (16) */
	while (e.tx.pi < 20)
		drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	drv_db(&e.d, 0, ORDMA_DB_ETH_ARM, e.tx.id, 3, ORDMA_DB_ARM);
	CHECK_EQ(drv_db_errors(&e.d), 2);
	CHECK_EQ(eth_events(&e, e.tx.id), 0);
	drv_db(&e.d, 0, ORDMA_DB_ETH_ARM, e.tx.id, 4, ORDMA_DB_ARM);
	CHECK_EQ(drv_db_errors(&e.d), 2);
	CHECK_EQ(eth_events(&e, e.tx.id), 1);
	drv_close(&e.d);
}

TEST(test_destroy_ring_abandons_pending)
{
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	drv_rx_post(&e.d, &e.rx, 4, 2048);
	drv_ring_arm(&e.d, &e.rx);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_ETH_RING, e.rx.id, 0),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), 2048);
	len = unicast_frame(&e.d, frame, 46);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), 2048);
	CHECK_EQ(stats(&e.d).rx_drop_no_buf, 1);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);
	drv_db(&e.d, 0, ORDMA_DB_ETH_PI, e.rx.id, 1, 0);
	CHECK_EQ(drv_db_errors(&e.d), 1);
	drv_close(&e.d);
}

static uint32_t eqe_kind(const struct ordma_eqe *eqe)
{
	return FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
}

/*
 * A descriptor whose DONE cannot be written (Bus Master Enable off, an
 * IOMMU fault) would stall the driver's in-order walk: the ring stops,
 * says so once on the async EQ, takes nothing more (frames are dropped
 * and counted, arming posts nothing) and is destroyed and created again
 * by the driver.  The other ring carries on.
 */
TEST(test_ring_stops_on_failed_write_back)
{
	struct ordma_eqe eqe;
	struct drv_eq async;
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	REQUIRE(drv_eq_open(&e.d, &async, ORDMA_EQ_TYPE_ASYNC, 0, 6));
	len = unicast_frame(&e.d, frame, 46);
	drv_rx_post(&e.d, &e.rx, 4, 2048);

	/* descriptor 0's dword len_flags: its read and its write-back fail */
	e.d.hal.fail_lo = e.rx.addr + offsetof(struct ordma_eth_desc, len_flags);
	e.d.hal.fail_hi = e.d.hal.fail_lo + 4;
	ordma_fw_rx_frame(e.d.fw, frame, len);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	REQUIRE(drv_eq_next(&e.d, &async, &eqe));
	CHECK_EQ(eqe_kind(&eqe), ORDMA_EQE_ETH_RING_ERR);
	CHECK_EQ(le32_to_cpu(eqe.data[0]), e.rx.id);
	drv_eq_update(&e.d, &async, false);

	/* stopped: the next frame is dropped, not written to descriptor 1 */
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 1), 2048);
	CHECK_EQ(stats(&e.d).rx_frames, 0);
	CHECK_EQ(stats(&e.d).rx_drop_no_buf, 2);
	/* arming a stopped ring posts nothing, and the error is not repeated */
	drv_ring_arm(&e.d, &e.rx);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);
	CHECK(!drv_eq_next(&e.d, &async, &eqe));
	CHECK_EQ(drv_rd(&e.d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);

	/* TX is a ring of its own and still sends */
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	CHECK_EQ(e.d.hal.tx_count, 1);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 0), len | ORDMA_ETH_DESC_DONE);

	/* a TX write-back failure stops TX the same way */
	e.d.hal.fail_lo = e.tx.addr + ORDMA_ETH_DESC_SIZE +	/* descriptor 1 */
			  offsetof(struct ordma_eth_desc, len_flags);
	e.d.hal.fail_hi = e.d.hal.fail_lo + 4;
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	CHECK_EQ(e.d.hal.tx_count, 1);	/* unreadable: not sent */
	REQUIRE(drv_eq_next(&e.d, &async, &eqe));
	CHECK_EQ(eqe_kind(&eqe), ORDMA_EQE_ETH_RING_ERR);
	CHECK_EQ(le32_to_cpu(eqe.data[0]), e.tx.id);
	drv_eq_update(&e.d, &async, false);
	drv_tx(&e.d, &e.tx, frame, (uint32_t)len);
	CHECK_EQ(e.d.hal.tx_count, 1);
	CHECK_EQ(drv_desc_flags(&e.d, &e.tx, 2), len);

	/* destroyed and created again, the ring works */
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_ETH_RING, e.rx.id, 0),
		   ORDMA_CMD_STATUS_OK);
	REQUIRE(drv_ring_open(&e.d, &e.rx, ORDMA_ETH_RING_RX, 4, e.eq.eqn));
	drv_rx_post(&e.d, &e.rx, 2, 2048);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), len | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(stats(&e.d).rx_frames, 1);
	drv_close(&e.d);
}

/* A ring event whose EQE could not be written waits for Bus Master
 * Enable; without it the ring would stay disarmed and its frames unseen.
 */
TEST(test_ring_event_waits_for_bus_master)
{
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	len = unicast_frame(&e.d, frame, 46);
	drv_rx_post(&e.d, &e.rx, 4, 2048);
	drv_ring_arm(&e.d, &e.rx);
	e.d.hal.fail_lo = e.eq.addr;
	e.d.hal.fail_hi = e.eq.addr + 0x10000;
	ordma_fw_rx_frame(e.d.fw, frame, len);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	/* the frame is in, its event is not */
	CHECK_EQ(drv_desc_flags(&e.d, &e.rx, 0), len | ORDMA_ETH_DESC_DONE);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);
	ordma_fw_bus_master_enabled(e.d.fw);
	CHECK_EQ(eth_events(&e, e.rx.id), 1);
	ordma_fw_bus_master_enabled(e.d.fw);
	CHECK_EQ(eth_events(&e, e.rx.id), 0);
	drv_close(&e.d);
}

/* With the EQ unwritable too (Bus Master Enable clear) the error event
 * is lost; the ring's next received frame or doorbell posts it.
 */
TEST(test_ring_error_event_retried)
{
	struct ordma_eqe eqe;
	struct drv_eq async;
	uint8_t frame[64];
	struct eth_env e;
	size_t len;

	REQUIRE(eth_setup(&e));
	REQUIRE(drv_eq_open(&e.d, &async, ORDMA_EQ_TYPE_ASYNC, 0, 6));
	len = unicast_frame(&e.d, frame, 46);
	drv_rx_post(&e.d, &e.rx, 4, 2048);
	e.d.hal.fail_lo = 0;
	e.d.hal.fail_hi = ~0ULL;	/* every DMA fails */
	ordma_fw_rx_frame(e.d.fw, frame, len);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	CHECK(!drv_eq_next(&e.d, &async, &eqe));
	CHECK_EQ(drv_rd(&e.d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	ordma_fw_rx_frame(e.d.fw, frame, len);
	REQUIRE(drv_eq_next(&e.d, &async, &eqe));
	CHECK_EQ(eqe_kind(&eqe), ORDMA_EQE_ETH_RING_ERR);
	CHECK_EQ(le32_to_cpu(eqe.data[0]), e.rx.id);
	drv_eq_update(&e.d, &async, false);
	/* posted once */
	ordma_fw_rx_frame(e.d.fw, frame, len);
	drv_ring_arm(&e.d, &e.rx);
	CHECK(!drv_eq_next(&e.d, &async, &eqe));
	CHECK_EQ(stats(&e.d).rx_drop_no_buf, 3);
	drv_close(&e.d);
}
