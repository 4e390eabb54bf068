// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The port's link layer, chosen by the configuration: an InfiniBand port
 * (link-layer=ib) reports itself in QUERY_PORT, waits in INIT for a subnet
 * manager, has none of the Ethernet function, and drops the data packets
 * that arrive while it is not ACTIVE;
 * and the entry table's ABI 1.1 that carries the choice to a firmware
 * image, while an ABI 1.0 caller gets an Ethernet port.
 */
#include <string.h>

#include "fw_priv.h"
#include "ib_pkt.h"
#include "mad.h"
#include "ordma_test.h"

static uint8_t query_port(struct drv *d, struct ordma_port_attr *attr)
{
	memset(attr, 0xa5, sizeof(*attr));
	return drv_query(d, ORDMA_CMD_QUERY_PORT, 1, attr, sizeof(*attr));
}

TEST(test_ib_port_attributes)
{
	static const uint8_t zero[6];
	struct ordma_port_attr attr;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(query_port(&d, &attr), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(attr.link_layer, ORDMA_LINK_LAYER_INFINIBAND);
	/* cabled: trained, and in INIT until a subnet manager arms it */
	CHECK_EQ(attr.state, ORDMA_PORT_INIT);
	CHECK_EQ(attr.phys_state, ORDMA_PORT_PHYS_LINK_UP);
	CHECK_EQ(attr.link_up, 1);
	CHECK_EQ(le16_to_cpu(attr.lid), 0);
	CHECK_EQ(le16_to_cpu(attr.sm_lid), 0);
	CHECK_EQ(le32_to_cpu(attr.active_ib_mtu), 4096);
	CHECK_EQ(le32_to_cpu(attr.max_ib_mtu), 4096);
	CHECK_EQ(le32_to_cpu(attr.speed_mbps), 25000);
	/* PortInfo before a subnet manager has set any of it */
	CHECK_EQ(attr.lmc, 0);
	CHECK_EQ(attr.sm_sl, 0);
	CHECK_EQ(attr.subnet_timeout, 0);
	CHECK_EQ(attr.pkey_table_len, 1);
	CHECK_EQ(le16_to_cpu(attr.pkey), 0xffff);
	CHECK_EQ(le32_to_cpu(attr.port_cap_flags),
		 (1u << 3) | (1u << 6) | (1u << 11) | (1u << 14) | (1u << 25));
	CHECK_EQ(be64_to_cpu(attr.gid_prefix), 0xfe80000000000000ULL);
	/* the EUI-64 of the factory MAC, as QUERY_DEVICE's node GUID */
	CHECK_EQ(be64_to_cpu(attr.port_guid), 0x505400fffe123456ULL);
	CHECK_EQ(le32_to_cpu(attr.max_vl_num), 4);
	CHECK_EQ(attr.rdma_protocol, 0);
	CHECK_EQ(attr.reserved_71, 0);
	/* nothing of Ethernet */
	CHECK(!memcmp(attr.mac, zero, 6));
	CHECK_EQ(le32_to_cpu(attr.mtu), 0);
	CHECK_EQ(le32_to_cpu(attr.max_mtu), 0);
	CHECK_EQ(attr.admin_up, 0);
	CHECK_EQ(attr.rx_mode, 0);

	/* the cable pulled and plugged again: DOWN/POLLING, then INIT */
	ordma_fw_set_link(d.fw, false);
	REQUIRE_EQ(query_port(&d, &attr), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(attr.state, ORDMA_PORT_DOWN);
	CHECK_EQ(attr.phys_state, ORDMA_PORT_PHYS_POLLING);
	ordma_fw_set_link(d.fw, true);
	REQUIRE_EQ(query_port(&d, &attr), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(attr.state, ORDMA_PORT_INIT);
	drv_close(&d);
}

/* A UD SEND of 12 bytes to dlid on VL 0: LRH 8, BTH 12, DETH 8, the
 * payload, ICRC 4 and VCRC 2 are 46 bytes
 */
static size_t ib_data_packet(uint8_t *buf, size_t cap, uint16_t dlid)
{
	const struct ib_ud_pkt p = {
		.dlid = dlid, .slid = 0x22, .dest_qp = 0x55, .src_qp = 2,
		.qkey = 1, .payload_len = 12, .fill = 0x33,
	};

	return ib_ud_packet(buf, cap, &p);
}

TEST(test_ib_port_has_no_ethernet_function)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
	struct ordma_port_stats stats;
	uint8_t frame[64];
	uint32_t eqn, ring;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	CHECK_EQ(drv_set_port(&d, ORDMA_SET_PORT_ADMIN, 0, NULL, 1, 0),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(drv_set_port(&d, ORDMA_SET_PORT_MAC, 0, mac, 0, 0),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	REQUIRE_EQ(drv_create_eq_raw(&d, DRV_EQ_ADDR(0), 4, ORDMA_EQ_TYPE_COMP,
				     1, &eqn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 4,
				     ORDMA_ETH_RING_RX, eqn, &ring),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 4,
				     ORDMA_ETH_RING_TX, eqn, &ring),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);

	/* what arrives is an InfiniBand packet or nothing: an Ethernet
	 * frame fails the LRH's checks
	 */
	memset(frame, 0, sizeof(frame));
	ordma_fw_rx_frame(d.fw, frame, sizeof(frame));
	CHECK_EQ(d.fw->tp.ib_rx_drop[FW_IB_DROP_PKTLEN], 1);
	/* a port in INIT takes no data packet: each is counted */
	d.fw->ib.lid = 0x21;
	REQUIRE(ib_data_packet(frame, sizeof(frame), 0x21) == 46);
	ordma_fw_rx_frame(d.fw, frame, 46);
	ordma_fw_rx_frame(d.fw, frame, 46);
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_STATS, 1, &stats,
			     sizeof(stats)), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le64_to_cpu(stats.rx_drop_link_down), 2);
	CHECK_EQ(le64_to_cpu(stats.rx_frames), 0);
	CHECK_EQ(le64_to_cpu(stats.roce_rx_frames), 0);
	CHECK_EQ(le64_to_cpu(stats.roce_rx_drop), 1);
	drv_close(&d);
}

/* A change of the port's state is reported as an Ethernet port's is */
TEST(test_ib_port_change_event)
{
	struct ordma_eqe eqe;
	struct drv_eq eq;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	ordma_fw_set_link(d.fw, false);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe.type)),
		 ORDMA_EQE_PORT_CHANGE);
	CHECK_EQ(le32_to_cpu(eqe.data[0]), 1);
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_DOWN);
	ordma_fw_set_link(d.fw, true);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_INIT);
	/* the same state again: no event */
	ordma_fw_set_link(d.fw, true);
	CHECK(!drv_eq_next(&d, &eq, &eqe));
	drv_close(&d);
}

TEST(test_link_layer_unknown_refused)
{
	struct ordma_fw_config cfg;
	struct fake_hal h;

	REQUIRE(fake_hal_init(&h));
	drv_default_config(&cfg);
	cfg.link_layer = 2;
	CHECK(!ordma_fw_create(&fake_hal_ops, &h, &cfg));
	fake_hal_fini(&h);
}

/* Its firmware made by an entry of img, then enabled as drv_open() does */
static bool open_by(struct drv *d, const struct ordma_fw_image *img,
		    const struct ordma_fw_config *cfg, size_t sized)
{
	memset(d, 0, sizeof(*d));
	if (!fake_hal_init(&d->hal))
		return false;
	d->cfg = *cfg;
	d->hal.num_vectors = cfg->num_vectors;
	d->ops = fake_hal_ops;
	d->next_token = 0x100;
	if (sized)
		d->fw = img->create_sized(&d->ops, &d->hal, cfg, sized);
	else
		d->fw = img->create(&d->ops, &d->hal, cfg);
	d->hal.fw = d->fw;
	if (!d->fw) {
		fake_hal_fini(&d->hal);
		return false;
	}
	return drv_enable(d, 4);
}

static uint8_t link_layer_of(struct drv *d)
{
	struct ordma_port_attr attr;

	if (query_port(d, &attr) != ORDMA_CMD_STATUS_OK)
		return 0xff;
	return attr.link_layer;
}

/*
 * The entry table: create() is ABI 1.0's and never reads link_layer (a
 * 1.0 model's configuration ends before it); create_sized() reads what
 * the caller's size covers, and refuses less than ABI 1.0's.
 */
TEST(test_link_layer_entry_table)
{
	const struct ordma_fw_image *img = &ordma_fw_builtin;
	struct ordma_fw_config cfg;
	struct drv d;

	CHECK_EQ(img->abi_major, 1);
	CHECK_EQ(img->abi_minor, 1);
	REQUIRE(img->create_sized);
	drv_default_config(&cfg);
	cfg.link_layer = ORDMA_LINK_LAYER_INFINIBAND;

	REQUIRE(open_by(&d, img, &cfg, 0));
	CHECK_EQ(link_layer_of(&d), ORDMA_LINK_LAYER_ETHERNET);
	drv_close(&d);
	REQUIRE(open_by(&d, img, &cfg, ORDMA_FW_CONFIG_SIZE_1_0));
	CHECK_EQ(link_layer_of(&d), ORDMA_LINK_LAYER_ETHERNET);
	drv_close(&d);
	REQUIRE(open_by(&d, img, &cfg, sizeof(cfg)));
	CHECK_EQ(link_layer_of(&d), ORDMA_LINK_LAYER_INFINIBAND);
	drv_close(&d);
	CHECK(!open_by(&d, img, &cfg, ORDMA_FW_CONFIG_SIZE_1_0 - 1));
}

/* What a model calls: an image of ABI 1.0 is given Ethernet ports only */
TEST(test_link_layer_image_create)
{
	struct ordma_fw_image old_image = ordma_fw_builtin;
	struct ordma_fw_config cfg;
	struct ordma_fw *fw;
	struct fake_hal h;

	REQUIRE(fake_hal_init(&h));
	h.num_vectors = 8;
	drv_default_config(&cfg);
	cfg.link_layer = ORDMA_LINK_LAYER_INFINIBAND;
	fw = ordma_fw_image_create(&ordma_fw_builtin, &fake_hal_ops, &h, &cfg);
	CHECK(fw != NULL);
	ordma_fw_destroy(fw);

	old_image.abi_minor = 0;
	old_image.create_sized = NULL;
	CHECK(!ordma_fw_image_create(&old_image, &fake_hal_ops, &h, &cfg));
	cfg.link_layer = ORDMA_LINK_LAYER_ETHERNET;
	fw = ordma_fw_image_create(&old_image, &fake_hal_ops, &h, &cfg);
	CHECK(fw != NULL);
	ordma_fw_destroy(fw);
	fake_hal_fini(&h);
}
