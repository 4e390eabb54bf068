// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Admin queue: mechanics (phase, wrap, doorbell checks, completion write
 * order), generic validation, and the device-wide commands.
 */
#include <string.h>

#include "drv.h"
#include "ordma_test.h"

/* Payload sizes from the hardware header, spelled out independently of
 * the firmware's own table.
 */
static const struct {
	uint8_t opcode;
	size_t payload;
} opcode_payloads[] = {
	{ ORDMA_CMD_QUERY_FW, 0 },
	{ ORDMA_CMD_QUERY_DEVICE, sizeof(struct ordma_cmd_query_buf) },
	{ ORDMA_CMD_QUERY_PORT, sizeof(struct ordma_cmd_query_buf) },
	{ ORDMA_CMD_SET_PORT, sizeof(struct ordma_cmd_set_port) },
	{ ORDMA_CMD_HEALTH, 0 },
	{ ORDMA_CMD_QUERY_STATS, sizeof(struct ordma_cmd_query_buf) },
	{ ORDMA_CMD_QUERY_RESOURCES, sizeof(struct ordma_cmd_query_buf) },
	{ ORDMA_CMD_CREATE_EQ, sizeof(struct ordma_cmd_create_eq) },
	{ ORDMA_CMD_DESTROY_EQ, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_CREATE_ETH_RING, sizeof(struct ordma_cmd_create_eth_ring) },
	{ ORDMA_CMD_DESTROY_ETH_RING, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_INJECT_FAULT, sizeof(struct ordma_cmd_inject_fault) },
	{ ORDMA_CMD_FLASH_WRITE, sizeof(struct ordma_cmd_flash_write) },
	{ ORDMA_CMD_FLASH_COMMIT, sizeof(struct ordma_cmd_flash_commit) },
	{ ORDMA_CMD_QUERY_FLASH, sizeof(struct ordma_cmd_query_buf) },
	{ ORDMA_CMD_FW_ACTIVATE, 0 },
	{ ORDMA_CMD_PROCESS_MAD, sizeof(struct ordma_cmd_process_mad) },
	{ ORDMA_CMD_SET_NODE_DESC, sizeof(struct ordma_cmd_set_node_desc) },
	{ ORDMA_CMD_MODIFY_IB_PORT, sizeof(struct ordma_cmd_modify_ib_port) },
	{ ORDMA_CMD_ADD_GID, sizeof(struct ordma_cmd_add_gid) },
	{ ORDMA_CMD_DEL_GID, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_ALLOC_UCTX, 0 },
	{ ORDMA_CMD_DEALLOC_UCTX, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_ALLOC_PD, sizeof(struct ordma_cmd_alloc_pd) },
	{ ORDMA_CMD_DEALLOC_PD, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_CREATE_CQ, sizeof(struct ordma_cmd_create_cq) },
	{ ORDMA_CMD_DESTROY_CQ, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_REG_MR, sizeof(struct ordma_cmd_reg_mr) },
	{ ORDMA_CMD_DEREG_MR, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_ALLOC_MW, sizeof(struct ordma_cmd_alloc_mw) },
	{ ORDMA_CMD_DEALLOC_MW, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_CREATE_AH, sizeof(struct ordma_cmd_create_ah) },
	{ ORDMA_CMD_DESTROY_AH, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_ATTACH_MCAST, sizeof(struct ordma_cmd_mcast) },
	{ ORDMA_CMD_DETACH_MCAST, sizeof(struct ordma_cmd_mcast) },
	{ ORDMA_CMD_CREATE_QP, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_MODIFY_QP, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_QUERY_QP, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_QUERY_QP_STATS, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_QUERY_CQ, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_DESTROY_QP, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_CREATE_SRQ, sizeof(struct ordma_cmd_create_srq) },
	{ ORDMA_CMD_MODIFY_SRQ, sizeof(struct ordma_cmd_modify_srq) },
	{ ORDMA_CMD_DESTROY_SRQ, sizeof(struct ordma_cmd_handle) },
	{ ORDMA_CMD_SET_RDMA_PROTOCOL,
	  sizeof(struct ordma_cmd_set_rdma_protocol) },
	{ ORDMA_CMD_IW_CREATE_LISTEN,
	  sizeof(struct ordma_cmd_iw_create_listen) },
	{ ORDMA_CMD_IW_DESTROY_LISTEN, sizeof(struct ordma_cmd_iw_conn) },
	{ ORDMA_CMD_IW_CONNECT, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_IW_ACCEPT, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_IW_REJECT, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_IW_QUERY_CONN, sizeof(struct ordma_cmd_buf) },
	{ ORDMA_CMD_IW_DESTROY_CONN, sizeof(struct ordma_cmd_iw_conn) },
};

#define NUM_OPCODES (sizeof(opcode_payloads) / sizeof(opcode_payloads[0]))

static bool is_v10_opcode(unsigned int op)
{
	size_t i;

	for (i = 0; i < NUM_OPCODES; i++)
		if (opcode_payloads[i].opcode == op)
			return true;
	return false;
}

static uint32_t health_cmd_errors(struct drv *d)
{
	struct ordma_comp_health h;

	drv_health(d, &h);
	return le32_to_cpu(h.cmd_errors);
}

TEST(test_query_fw)
{
	struct drv d;
	const struct ordma_comp_query_fw *fw = &d.last_comp.query_fw;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le16_to_cpu(fw->major), 1);
	CHECK_EQ(le16_to_cpu(fw->minor), 0);
	CHECK_EQ(le16_to_cpu(fw->sub_minor), 0);
	CHECK_EQ(fw->reserved_6, 0);
	CHECK(le32_to_cpu(fw->build) != 0);
	CHECK_EQ(le32_to_cpu(fw->hw_version), drv_rd(&d, ORDMA_REG_VERSION));
	CHECK_EQ(d.last_comp.syndrome, 0);
	CHECK_EQ(d.last_comp.reserved_3, 0);
	CHECK_EQ(d.hal.msix[0], 1);
	drv_close(&d);
}

TEST(test_query_device)
{
	static const uint8_t guid[8] = { 0x50, 0x54, 0x00, 0xff, 0xfe,
					 0x12, 0x34, 0x56 };
	struct ordma_device_caps caps;
	uint8_t partial[ORDMA_AQ_MAX_BUF];
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, &caps,
			     sizeof(caps)), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.buf.written), sizeof(caps));
	CHECK(!memcmp(&caps.node_guid, guid, 8));
	CHECK(!memcmp(&caps.sys_image_guid, guid, 8));
	CHECK_EQ(le64_to_cpu(caps.max_mr_size), 1ULL << 40);
	CHECK_EQ(le64_to_cpu(caps.page_size_cap), 0x7ffff000ULL);
	CHECK_EQ(le32_to_cpu(caps.vendor_id), 0x1234);
	CHECK_EQ(le32_to_cpu(caps.vendor_part_id), 0x4f52);
	CHECK_EQ(le32_to_cpu(caps.hw_rev), 1);
	CHECK_EQ(le32_to_cpu(caps.cap_flags),
		 ORDMA_DEV_CAP_RC | ORDMA_DEV_CAP_UD | ORDMA_DEV_CAP_UC |
		 ORDMA_DEV_CAP_SRQ |
		 ORDMA_DEV_CAP_ATOMIC | ORDMA_DEV_CAP_FAST_REG |
		 ORDMA_DEV_CAP_VERBS | ORDMA_DEV_CAP_FLUSH |
		 ORDMA_DEV_CAP_ATOMIC_WRITE | ORDMA_DEV_CAP_MW |
		 ORDMA_DEV_CAP_GSI | ORDMA_DEV_CAP_MCAST |
		 ORDMA_DEV_CAP_FAULT_INJECT | ORDMA_DEV_CAP_IWARP);
	CHECK_EQ(le32_to_cpu(caps.max_qp), 1024);
	CHECK_EQ(le32_to_cpu(caps.max_qp_wr), 4096);
	CHECK_EQ(le32_to_cpu(caps.max_send_sge), 8);
	CHECK_EQ(le32_to_cpu(caps.max_recv_sge), 8);
	CHECK_EQ(le32_to_cpu(caps.max_sge_rd), 8);
	CHECK_EQ(le32_to_cpu(caps.max_cq), 1024);
	CHECK_EQ(le32_to_cpu(caps.max_cqe), 65536);
	CHECK_EQ(le32_to_cpu(caps.max_mr), 4096);
	CHECK_EQ(le32_to_cpu(caps.max_pd), 1024);
	CHECK_EQ(le32_to_cpu(caps.max_srq), 256);
	CHECK_EQ(le32_to_cpu(caps.max_srq_wr), 4096);
	CHECK_EQ(le32_to_cpu(caps.max_srq_sge), 8);
	CHECK_EQ(le32_to_cpu(caps.max_ah), 1024);
	/* rxe's numbers: perftest copies the peer's */
	CHECK_EQ(le32_to_cpu(caps.max_qp_rd_atom), 128);
	CHECK_EQ(le32_to_cpu(caps.max_qp_init_rd_atom), 128);
	CHECK_EQ(le32_to_cpu(caps.max_inline_data), 256);
	CHECK_EQ(le32_to_cpu(caps.max_eq), 32);
	CHECK_EQ(le32_to_cpu(caps.max_uctx), 255);
	CHECK_EQ(le32_to_cpu(caps.max_msg_size), 1U << 31);
	CHECK_EQ(le32_to_cpu(caps.max_eth_mtu), 9000);
	CHECK_EQ(le32_to_cpu(caps.num_ports), 1);
	CHECK_EQ(le32_to_cpu(caps.gid_table_len), 16);
	CHECK_EQ(le32_to_cpu(caps.pkey_table_len), 1);
	CHECK_EQ(le32_to_cpu(caps.local_ca_ack_delay), 15);
	CHECK_EQ(le32_to_cpu(caps.max_eth_rings), 8);
	CHECK_EQ(le32_to_cpu(caps.max_mw), 1024);
	CHECK_EQ(le32_to_cpu(caps.max_mcast_grp), 64);
	CHECK_EQ(le32_to_cpu(caps.max_mcast_qp_attach), 8);
	CHECK_EQ(le32_to_cpu(caps.max_total_mcast_qp_attach), 256);
	CHECK_EQ(caps.rdma_protocol, ORDMA_PORT_PROTO_ROCE);
	CHECK_EQ(caps.reserved_197, 0);
	CHECK_EQ(le16_to_cpu(caps.reserved_198), 0);
	CHECK(!memcmp(caps.serial, "ORD123456\0\0\0\0\0\0\0", 16));
	CHECK(!memcmp(caps.board_id, "ORDMA-RNIC-V1\0\0\0", 16));

	/* a short buffer receives exactly its length */
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, partial, 12),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.buf.written), 12);
	CHECK(!memcmp(partial, &caps, 12));
	CHECK_EQ(*(uint8_t *)drv_mem(&d, DRV_BUF_ADDR + 12, 1), 0xa5);
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, partial, 1),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.buf.written), 1);
	/* a large one receives the structure */
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, partial,
			     ORDMA_AQ_MAX_BUF), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.buf.written), sizeof(caps));
	CHECK_EQ(partial[sizeof(caps)], 0xa5);
	drv_close(&d);
}

TEST(test_query_port)
{
	static const struct {
		uint32_t mtu, ib_mtu;
	} ib_mtus[] = {
		{ 68, 256 }, { 581, 256 }, { 582, 512 }, { 1093, 512 },
		{ 1094, 1024 }, { 1500, 1024 }, { 2118, 2048 },
		{ 4165, 2048 }, { 4166, 4096 }, { 9000, 4096 },
	};
	struct ordma_port_attr attr;
	struct drv d;
	size_t i;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr)),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.buf.written), sizeof(attr));
	CHECK(!memcmp(attr.mac, d.cfg.mac, 6));
	CHECK_EQ(attr.state, ORDMA_PORT_DOWN);
	CHECK_EQ(attr.phys_state, ORDMA_PORT_PHYS_DISABLED);
	CHECK_EQ(le32_to_cpu(attr.mtu), 1500);
	CHECK_EQ(le32_to_cpu(attr.max_mtu), 9000);
	CHECK_EQ(le32_to_cpu(attr.active_ib_mtu), 1024);
	CHECK_EQ(le32_to_cpu(attr.max_ib_mtu), 4096);
	CHECK_EQ(le32_to_cpu(attr.speed_mbps), 25000);
	CHECK_EQ(attr.admin_up, 0);
	CHECK_EQ(attr.link_up, 1);
	CHECK_EQ(attr.rx_mode, 0);
	CHECK_EQ(attr.link_layer, ORDMA_LINK_LAYER_ETHERNET);
	CHECK_EQ(le32_to_cpu(attr.gid_table_len), 16);
	CHECK_EQ(le16_to_cpu(attr.lid), 0);
	CHECK_EQ(le16_to_cpu(attr.sm_lid), 0);

	REQUIRE_EQ(drv_port_up(&d), ORDMA_CMD_STATUS_OK);
	drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr));
	CHECK_EQ(attr.state, ORDMA_PORT_ACTIVE);
	CHECK_EQ(attr.phys_state, ORDMA_PORT_PHYS_LINK_UP);
	CHECK_EQ(attr.admin_up, 1);

	ordma_fw_set_link(d.fw, false);
	drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr));
	CHECK_EQ(attr.state, ORDMA_PORT_DOWN);
	CHECK_EQ(attr.phys_state, ORDMA_PORT_PHYS_POLLING);
	CHECK_EQ(attr.link_up, 0);

	for (i = 0; i < sizeof(ib_mtus) / sizeof(ib_mtus[0]); i++) {
		REQUIRE_EQ(drv_set_port(&d, ORDMA_SET_PORT_MTU, ib_mtus[i].mtu,
					NULL, 0, 0), ORDMA_CMD_STATUS_OK);
		drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr));
		CHECK_EQ(le32_to_cpu(attr.mtu), ib_mtus[i].mtu);
		if (!CHECK_EQ(le32_to_cpu(attr.active_ib_mtu), ib_mtus[i].ib_mtu))
			NOTE("mtu %u", ib_mtus[i].mtu);
	}
	drv_close(&d);
}

TEST(test_query_stats)
{
	struct ordma_port_stats s;
	struct drv d;
	const uint64_t *v = (const uint64_t *)&s;
	size_t i;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_STATS, 1, &s, sizeof(s)),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.buf.written), sizeof(s));
	for (i = 0; i < sizeof(s) / 8; i++)
		CHECK_EQ(v[i], 0);
	drv_close(&d);
}

/* QUERY_RESOURCES entries, in buffer order */
enum res_type {
	RES_UCTX, RES_PD, RES_EQ, RES_ETH_RING, RES_GID, RES_CQ, RES_QP,
	RES_SRQ, RES_MR, RES_MW, RES_AH, RES_MCAST_GRP, RES_MCAST_ATTACH,
	RES_TYPES
};

static const char *const res_names[RES_TYPES] = {
	"uctx", "pd", "eq", "eth_ring", "gid", "cq", "qp", "srq", "mr", "mw",
	"ah", "mcast_grp", "mcast_attach",
};

static bool query_resources(struct drv *d, struct ordma_res_count *res)
{
	struct ordma_resources r;

	if (drv_query(d, ORDMA_CMD_QUERY_RESOURCES, 0, &r, sizeof(r)) !=
	    ORDMA_CMD_STATUS_OK ||
	    le32_to_cpu(d->last_comp.buf.written) != sizeof(r))
		return false;
	memcpy(res, &r, sizeof(r));
	return true;
}

/* Every count in use is what the test expects after step `what`. */
static void check_in_use(struct drv *d, const uint32_t *expect,
			 const char *what)
{
	struct ordma_res_count res[RES_TYPES];
	size_t t;

	if (!CHECK(query_resources(d, res))) {
		NOTE("QUERY_RESOURCES failed after %s", what);
		return;
	}
	for (t = 0; t < RES_TYPES; t++)
		if (!CHECK_EQ(le32_to_cpu(res[t].in_use), expect[t]))
			NOTE("%s: %s", what, res_names[t]);
}

static uint8_t alloc_mw(struct drv *d, uint32_t pdn, uint32_t uctx,
			uint32_t *rkey)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_ALLOC_MW);
	cmd.alloc_mw.pdn = cpu_to_le32(pdn);
	cmd.alloc_mw.uctx = cpu_to_le32(uctx);
	cmd.alloc_mw.type = ORDMA_MW_TYPE_1;
	status = drv_exec(d, &cmd);
	*rkey = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

static uint8_t create_ah(struct drv *d, uint32_t pdn, uint32_t *handle)
{
	static const uint8_t dmac[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 };
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
	cmd.create_ah.pdn = cpu_to_le32(pdn);
	memset(cmd.create_ah.av.dgid, 0, 16);
	cmd.create_ah.av.dgid[0] = 0xfe;
	cmd.create_ah.av.dgid[1] = 0x80;
	cmd.create_ah.av.dgid[15] = 2;
	memcpy(cmd.create_ah.av.dmac, dmac, 6);
	cmd.create_ah.av.hop_limit = 64;
	cmd.create_ah.av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	status = drv_exec(d, &cmd);
	*handle = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

static uint8_t mcast(struct drv *d, uint8_t opcode, uint32_t qpn,
		     uint8_t group)
{
	/* 239.1.1.<group> as an IPv4-mapped GID */
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 1 };
	struct ordma_aq_cmd cmd;

	gid[15] = group;
	drv_cmd_init(&cmd, opcode);
	cmd.mcast.qpn = cpu_to_le32(qpn);
	memcpy(cmd.mcast.gid, gid, 16);
	return drv_exec(d, &cmd);
}

static uint8_t create_qp(struct drv *d, uint32_t uctx, uint32_t pdn,
			 uint8_t type, uint32_t cqn, uint32_t srqn,
			 unsigned int area, uint32_t *qpn)
{
	struct ordma_qp_create_params p;

	drv_qp_params(&p, uctx, pdn, type, cqn, cqn, srqn, area);
	return drv_create_qp(d, &p, qpn);
}

TEST(test_query_resources_limits)
{
	static const uint32_t max[RES_TYPES] = {
		[RES_UCTX] = 255, [RES_PD] = 1024, [RES_EQ] = 32,
		[RES_ETH_RING] = 8, [RES_GID] = 16, [RES_CQ] = 1024,
		[RES_QP] = 1023, [RES_SRQ] = 256, [RES_MR] = 4096,
		[RES_MW] = 1024, [RES_AH] = 1024, [RES_MCAST_GRP] = 64,
		[RES_MCAST_ATTACH] = 256,
	};
	struct ordma_res_count res[RES_TYPES];
	uint8_t partial[ORDMA_AQ_MAX_BUF];
	struct drv d;
	size_t t;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(query_resources(&d, res));
	for (t = 0; t < RES_TYPES; t++) {
		if (!CHECK_EQ(le32_to_cpu(res[t].in_use), 0) ||
		    !CHECK_EQ(le32_to_cpu(res[t].max), max[t]))
			NOTE("%s", res_names[t]);
	}
	/* a short buffer receives exactly its length, a long one the
	 * structure
	 */
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_RESOURCES, 0, partial, 12),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.buf.written), 12);
	CHECK(!memcmp(partial, res, 12));
	CHECK_EQ(*(uint8_t *)drv_mem(&d, DRV_BUF_ADDR + 12, 1), 0xa5);
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_RESOURCES, 0, partial,
			     ORDMA_AQ_MAX_BUF), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.buf.written),
		 sizeof(struct ordma_resources));
	CHECK_EQ(partial[sizeof(struct ordma_resources)], 0xa5);
	drv_close(&d);
}

/* Each create raises exactly its own count, each destroy lowers it, and
 * what the device drops on its own (a destroyed QP leaving its groups)
 * is counted too.
 */
TEST(test_query_resources_counts)
{
	static const uint8_t gid[16] = { 0xfe, 0x80, [15] = 1 };
	uint32_t n[RES_TYPES] = { 0 };
	uint32_t uctx, kpd, upd, srqn, rc_qpn, ud_qpn, gsi_qpn, mr_key;
	uint32_t mw_key, ah, ring_id, unused;
	struct drv_eq async_eq, comp_eq;
	struct ordma_aq_cmd cmd;
	struct drv_cq cq;
	struct drv d;

	REQUIRE(drv_open(&d, 5));
	check_in_use(&d, n, "open");

	REQUIRE(drv_eq_open(&d, &async_eq, ORDMA_EQ_TYPE_ASYNC, 0, 6));
	REQUIRE(drv_eq_open(&d, &comp_eq, ORDMA_EQ_TYPE_COMP, 1, 6));
	n[RES_EQ] = 2;
	check_in_use(&d, n, "two EQs");
	REQUIRE_EQ(drv_create_ring_raw(&d, DRV_RING_ADDR(0), 4,
				       ORDMA_ETH_RING_RX, comp_eq.eqn,
				       &ring_id), ORDMA_CMD_STATUS_OK);
	n[RES_ETH_RING]++;
	check_in_use(&d, n, "Ethernet ring");
	REQUIRE_EQ(drv_add_gid(&d, 0, gid, d.cfg.mac, ORDMA_VLAN_NONE),
		   ORDMA_CMD_STATUS_OK);
	n[RES_GID]++;
	check_in_use(&d, n, "GID");
	REQUIRE_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
	n[RES_UCTX]++;
	check_in_use(&d, n, "user context");
	REQUIRE_EQ(drv_alloc_pd(&d, 0, &kpd), ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(drv_alloc_pd(&d, uctx, &upd), ORDMA_CMD_STATUS_OK);
	n[RES_PD] = 2;
	check_in_use(&d, n, "two PDs");
	REQUIRE(drv_cq_open(&d, &cq, 0, 0, comp_eq.eqn, 6));
	n[RES_CQ]++;
	check_in_use(&d, n, "CQ");
	REQUIRE_EQ(drv_create_srq(&d, 0, kpd, 4, 0, 0, &srqn),
		   ORDMA_CMD_STATUS_OK);
	n[RES_SRQ]++;
	check_in_use(&d, n, "SRQ");
	REQUIRE_EQ(create_qp(&d, 0, kpd, ORDMA_QPT_RC, cq.cqn, srqn, 1,
			     &rc_qpn), ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(create_qp(&d, 0, kpd, ORDMA_QPT_UD, cq.cqn, ORDMA_NO_SRQ,
			     2, &ud_qpn), ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(create_qp(&d, 0, kpd, ORDMA_QPT_GSI, cq.cqn,
			     ORDMA_NO_SRQ, 3, &gsi_qpn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(gsi_qpn, ORDMA_GSI_QPN);
	n[RES_QP] = 3;
	check_in_use(&d, n, "RC, UD and GSI QPs");
	REQUIRE_EQ(drv_reg_mr_contig(&d, kpd, 0, DRV_MR_ADDR, DRV_MR_ADDR,
				     0x2000, DRV_ACCESS_ALL |
				     ORDMA_ACCESS_MW_BIND, 0x11, &mr_key),
		   ORDMA_CMD_STATUS_OK);
	n[RES_MR]++;
	check_in_use(&d, n, "MR");
	/* a window takes a key of the MR table but is no MR */
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, &mw_key), ORDMA_CMD_STATUS_OK);
	n[RES_MW]++;
	check_in_use(&d, n, "memory window");
	REQUIRE_EQ(create_ah(&d, kpd, &ah), ORDMA_CMD_STATUS_OK);
	n[RES_AH]++;
	check_in_use(&d, n, "AH");
	REQUIRE_EQ(mcast(&d, ORDMA_CMD_ATTACH_MCAST, ud_qpn, 1),
		   ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(mcast(&d, ORDMA_CMD_ATTACH_MCAST, ud_qpn, 2),
		   ORDMA_CMD_STATUS_OK);
	/* attaching twice is a no-op, and counts as one */
	REQUIRE_EQ(mcast(&d, ORDMA_CMD_ATTACH_MCAST, ud_qpn, 2),
		   ORDMA_CMD_STATUS_OK);
	n[RES_MCAST_GRP] = 2;
	n[RES_MCAST_ATTACH] = 2;
	check_in_use(&d, n, "two multicast groups");

	/* commands that fail change nothing */
	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_CQ);
	cmd.create_cq.eqn = cpu_to_le32(31);
	CHECK(drv_exec(&d, &cmd) != ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_alloc_pd(&d, 200, &unused), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_CQ, cq.cqn, 0),
		 ORDMA_CMD_STATUS_BUSY);
	check_in_use(&d, n, "failed commands");

	/* destroying the UD QP also leaves its groups */
	REQUIRE_EQ(mcast(&d, ORDMA_CMD_DETACH_MCAST, ud_qpn, 1),
		   ORDMA_CMD_STATUS_OK);
	n[RES_MCAST_GRP]--;
	n[RES_MCAST_ATTACH]--;
	check_in_use(&d, n, "one group left");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_QP, ud_qpn, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_QP]--;
	n[RES_MCAST_GRP] = 0;
	n[RES_MCAST_ATTACH] = 0;
	check_in_use(&d, n, "UD QP destroyed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_AH, ah, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_AH]--;
	check_in_use(&d, n, "AH destroyed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, mw_key, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_MW]--;
	check_in_use(&d, n, "window freed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, mr_key, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_MR]--;
	check_in_use(&d, n, "MR freed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_QP, gsi_qpn, 0),
		   ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_QP, rc_qpn, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_QP] = 0;
	check_in_use(&d, n, "QPs destroyed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_SRQ, srqn, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_SRQ]--;
	check_in_use(&d, n, "SRQ destroyed");
	REQUIRE_EQ(drv_destroy_cq(&d, &cq), ORDMA_CMD_STATUS_OK);
	n[RES_CQ]--;
	check_in_use(&d, n, "CQ destroyed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		   ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, kpd, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_PD] = 0;
	check_in_use(&d, n, "PDs freed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, uctx, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_UCTX]--;
	check_in_use(&d, n, "user context freed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEL_GID, 0, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_GID]--;
	check_in_use(&d, n, "GID deleted");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_ETH_RING, ring_id, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_ETH_RING]--;
	check_in_use(&d, n, "Ethernet ring destroyed");
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, comp_eq.eqn, 0),
		   ORDMA_CMD_STATUS_OK);
	REQUIRE_EQ(drv_handle_cmd(&d, ORDMA_CMD_DESTROY_EQ, async_eq.eqn, 0),
		   ORDMA_CMD_STATUS_OK);
	n[RES_EQ] = 0;
	check_in_use(&d, n, "everything destroyed");
	drv_close(&d);
}

TEST(test_query_buffer_validation)
{
	static const uint8_t ops[] = { ORDMA_CMD_QUERY_DEVICE,
				       ORDMA_CMD_QUERY_PORT,
				       ORDMA_CMD_QUERY_STATS,
				       ORDMA_CMD_QUERY_RESOURCES };
	struct ordma_aq_cmd cmd;
	struct drv d;
	size_t i;

	REQUIRE(drv_open(&d, 4));
	for (i = 0; i < sizeof(ops); i++) {
		uint32_t port = ops[i] == ORDMA_CMD_QUERY_DEVICE ||
				ops[i] == ORDMA_CMD_QUERY_RESOURCES ? 0 : 1;

		drv_cmd_init(&cmd, ops[i]);
		cmd.query.buf_len = cpu_to_le32(64);
		cmd.query.port = cpu_to_le32(port);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		CHECK_EQ(drv_syndrome(&d), 8);		/* address zero */
		cmd.query.buf_addr = cpu_to_le64(DRV_BUF_ADDR + 4);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		CHECK_EQ(drv_syndrome(&d), 8);		/* unaligned */
		cmd.query.buf_addr = cpu_to_le64(DRV_BUF_ADDR);
		cmd.query.buf_len = 0;
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		CHECK_EQ(drv_syndrome(&d), 16);
		cmd.query.buf_len = cpu_to_le32(4097);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		CHECK_EQ(drv_syndrome(&d), 16);
		cmd.query.buf_len = cpu_to_le32(4096);
		cmd.query.port = cpu_to_le32(port ? 0 : 1);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		CHECK_EQ(drv_syndrome(&d), 20);
		cmd.query.port = cpu_to_le32(2);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		CHECK_EQ(drv_syndrome(&d), 20);

		/* DMA failures are a status, not a dead device */
		cmd.query.port = cpu_to_le32(port);
		cmd.query.buf_addr = cpu_to_le64(DRV_BAD_ADDR);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
		CHECK_EQ(drv_syndrome(&d), 0);
		cmd.query.buf_addr = cpu_to_le64(FAKE_MEM_END - 8);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
		cmd.query.buf_addr = cpu_to_le64(0xfffffffffffffff8ULL);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
		cmd.query.buf_addr = cpu_to_le64(DRV_BUF_ADDR);
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	}
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&d);
}

TEST(test_health)
{
	struct ordma_comp_health h;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	fake_advance(&d.hal, 500000000ULL);
	REQUIRE_EQ(drv_health(&d, &h), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(h.state), ORDMA_HEALTH_OK);
	CHECK_EQ(le32_to_cpu(h.heartbeat), 5);
	CHECK_EQ(le32_to_cpu(h.cmd_errors), 0);
	CHECK_EQ(le32_to_cpu(h.db_errors), 0);
	CHECK_EQ(le32_to_cpu(h.eq_overruns), 0);

	CHECK_EQ(drv_simple(&d, 0x7f), ORDMA_CMD_STATUS_BAD_OPCODE);
	CHECK_EQ(drv_simple(&d, 0x7e), ORDMA_CMD_STATUS_BAD_OPCODE);
	drv_db(&d, 0, 0x800, 0, 0, 0);
	REQUIRE_EQ(drv_health(&d, &h), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(h.state), ORDMA_HEALTH_DEGRADED);
	CHECK_EQ(le32_to_cpu(h.cmd_errors), 2);
	CHECK_EQ(le32_to_cpu(h.db_errors), 1);
	/* the DB_ERROR event had no async EQ to go to */
	CHECK_EQ(le32_to_cpu(h.eq_overruns), 1);
	drv_close(&d);
}

TEST(test_bad_opcodes)
{
	struct drv d;
	unsigned int op;

	REQUIRE(drv_open(&d, 4));
	for (op = 0; op < 256; op++) {
		if (is_v10_opcode(op))
			continue;
		if (!CHECK_EQ(drv_simple(&d, (uint8_t)op),
			      ORDMA_CMD_STATUS_BAD_OPCODE))
			NOTE("opcode 0x%02x", op);
		CHECK_EQ(drv_syndrome(&d), 0);
	}
	CHECK_EQ(health_cmd_errors(&d), 256 - NUM_OPCODES);
	drv_simple(&d, 0x7f);
	CHECK(strstr(d.hal.last_log, "admin: opcode 0x7f unknown") != NULL);
	/* unassigned opcodes of the verbs range are known to be reserved */
	drv_simple(&d, 0x22);
	CHECK(strstr(d.hal.last_log, "0x22 reserved for a later interface revision") != NULL);
	drv_close(&d);
}

TEST(test_header_reserved_fields)
{
	struct ordma_aq_cmd cmd;
	struct drv d;
	unsigned int byte;

	REQUIRE(drv_open(&d, 4));
	drv_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
	cmd.hdr.reserved_1 = 1;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 1);
	for (byte = 4; byte < 8; byte++) {
		drv_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
		((uint8_t *)&cmd)[byte] = 0x80;
		CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
		CHECK_EQ(drv_syndrome(&d), 4);
	}
	/* header checks come before the opcode check */
	drv_cmd_init(&cmd, 0x7f);
	cmd.hdr.reserved_1 = 1;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 1);
	drv_close(&d);
}

TEST(test_payload_reserved_fields)
{
	static const struct {
		uint8_t opcode;
		size_t offset, size;
	} fields[] = {
		{ ORDMA_CMD_CREATE_EQ, 20, 4 },
		{ ORDMA_CMD_CREATE_ETH_RING, 18, 2 },
		{ ORDMA_CMD_ADD_GID, 13, 1 },
		{ ORDMA_CMD_ADD_GID, 38, 2 },
		{ ORDMA_CMD_ALLOC_PD, 12, 4 },
	};
	struct ordma_aq_cmd cmd;
	struct drv d;
	size_t i, b;

	REQUIRE(drv_open(&d, 4));
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		for (b = 0; b < fields[i].size; b++) {
			drv_cmd_init(&cmd, fields[i].opcode);
			((uint8_t *)&cmd)[fields[i].offset + b] = 0x10;
			CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
			if (!CHECK_EQ(drv_syndrome(&d), fields[i].offset))
				NOTE("opcode 0x%02x byte %zu",
					 fields[i].opcode, fields[i].offset + b);
		}
	}
	drv_close(&d);
}

TEST(test_trailing_bytes)
{
	struct ordma_aq_cmd cmd;
	struct drv d;
	size_t i, b;

	REQUIRE(drv_open(&d, 4));
	for (i = 0; i < NUM_OPCODES; i++) {
		for (b = 8 + opcode_payloads[i].payload; b < 64; b++) {
			drv_cmd_init(&cmd, opcode_payloads[i].opcode);
			((uint8_t *)&cmd)[b] = 0xff;
			if (!CHECK_EQ(drv_exec(&d, &cmd),
				      ORDMA_CMD_STATUS_BAD_PARAM) ||
			    !CHECK_EQ(drv_syndrome(&d), b))
				NOTE("opcode 0x%02x byte %zu",
					 opcode_payloads[i].opcode, b);
		}
	}
	/* the lowest offending byte is reported */
	drv_cmd_init(&cmd, ORDMA_CMD_HEALTH);
	((uint8_t *)&cmd)[40] = 1;
	((uint8_t *)&cmd)[63] = 1;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 40);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&d);
}

TEST(test_completion_written_body_first)
{
	const struct fake_dma_write *flags, *body;
	struct drv d;
	unsigned int i;

	REQUIRE(drv_open(&d, 2));
	for (i = 0; i < 6; i++) {
		uint64_t slot = DRV_ACQ_ADDR + (i % 4) * ORDMA_AQ_COMP_SIZE;

		REQUIRE_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW),
			   ORDMA_CMD_STATUS_OK);
		flags = fake_recent_write(&d.hal, 0);
		body = fake_recent_write(&d.hal, 1);
		REQUIRE(flags && body);
		CHECK_EQ(flags->addr, slot + 28);
		CHECK_EQ(flags->len, 4);
		CHECK_EQ(body->addr, slot);
		CHECK_EQ(body->len, 28);
	}
	drv_close(&d);
}

/* Depth 2, one command at a time, across the 16-bit index wrap. */
TEST(test_aq_wrap_depth_2)
{
	struct drv d;
	unsigned int i, bad = 0;

	REQUIRE(drv_open(&d, 1));
	for (i = 0; i < 66000; i++) {
		uint8_t op = i % 3 ? ORDMA_CMD_QUERY_FW : ORDMA_CMD_HEALTH;

		if (drv_simple(&d, op) != ORDMA_CMD_STATUS_OK && bad++ < 5)
			CHECK(!"command failed");
		if (op == ORDMA_CMD_QUERY_FW &&
		    le16_to_cpu(d.last_comp.query_fw.major) != 1 && bad++ < 5)
			CHECK(!"wrong completion body");
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(d.hal.msix[0], 66000);
	/* two at a time still works after the wrap */
	for (i = 0; i < 100; i++) {
		struct ordma_aq_cmd a, b;
		struct ordma_aq_comp ca, cb;

		drv_cmd_init(&a, ORDMA_CMD_QUERY_FW);
		drv_cmd_init(&b, 0x7f);
		drv_queue(&d, &a);
		drv_queue(&d, &b);
		drv_ring_aq(&d);
		if (!CHECK(drv_comp(&d, 1, &ca) && drv_comp(&d, 0, &cb)))
			break;
		CHECK_EQ(ca.token, a.hdr.token);
		CHECK_EQ(ca.status, ORDMA_CMD_STATUS_OK);
		CHECK_EQ(cb.token, b.hdr.token);
		CHECK_EQ(cb.status, ORDMA_CMD_STATUS_BAD_OPCODE);
	}
	drv_close(&d);
}

TEST(test_aq_batch_full_depth)
{
	struct ordma_aq_cmd cmds[8];
	struct ordma_aq_comp comp;
	struct drv d;
	unsigned int round, i;

	REQUIRE(drv_open(&d, 3));
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 8; i++) {
			drv_cmd_init(&cmds[i], i & 1 ? ORDMA_CMD_QUERY_FW : 0x70);
			drv_queue(&d, &cmds[i]);
		}
		drv_ring_aq(&d);
		for (i = 0; i < 8; i++) {
			REQUIRE(drv_comp(&d, 7 - i, &comp));
			CHECK_EQ(comp.token, cmds[i].hdr.token);
			CHECK_EQ(comp.status, i & 1 ? ORDMA_CMD_STATUS_OK :
					      ORDMA_CMD_STATUS_BAD_OPCODE);
		}
	}
	CHECK_EQ(d.hal.msix[0], 40);
	drv_close(&d);
}

TEST(test_aq_doorbell_checks)
{
	struct ordma_comp_health h;
	struct ordma_aq_cmd cmd;
	struct drv d;
	unsigned int i;

	REQUIRE(drv_open(&d, 2));		/* depth 4 */
	for (i = 0; i < 4; i++) {
		drv_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
		drv_queue(&d, &cmd);
	}
	/* 5 ahead of a 4-deep queue: rejected, nothing processed */
	drv_wr(&d, ORDMA_REG_AQ_DB, 5);
	CHECK_EQ(d.hal.msix[0], 0);
	CHECK(strstr(d.hal.last_log, "admin: doorbell") != NULL);
	/* behind the consumer: rejected */
	drv_wr(&d, ORDMA_REG_AQ_DB, 0xffff);
	CHECK_EQ(d.hal.msix[0], 0);
	/* bits above PI: rejected */
	drv_wr(&d, ORDMA_REG_AQ_DB, 1u << 16 | 1);
	CHECK_EQ(d.hal.msix[0], 0);
	/* exactly the depth is fine */
	drv_ring_aq(&d);
	CHECK_EQ(d.hal.msix[0], 4);
	drv_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.msix[0], 5);
	/* ringing the same PI again does nothing */
	drv_ring_aq(&d);
	CHECK_EQ(d.hal.msix[0], 5);
	REQUIRE_EQ(drv_health(&d, &h), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(h.db_errors), 3);
	CHECK_EQ(le32_to_cpu(h.cmd_errors), 0);
	drv_close(&d);
}

TEST(test_aq_doorbell_ignored_when_not_ready)
{
	struct ordma_fw_config cfg;
	struct drv d;

	drv_default_config(&cfg);
	REQUIRE(drv_create(&d, &cfg));
	drv_wr(&d, ORDMA_REG_AQ_DB, 1);
	CHECK_EQ(d.hal.msix[0], 0);
	CHECK_EQ(d.hal.num_writes, 0);
	REQUIRE(drv_enable(&d, 2));
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

/* A guest that rewrites AQ registers while enabled does not disturb the
 * running queue.
 */
TEST(test_aq_registers_latched_at_enable)
{
	struct drv d;

	REQUIRE(drv_open(&d, 2));
	drv_wr(&d, ORDMA_REG_AQ_BASE_LO, 0);
	drv_wr(&d, ORDMA_REG_ACQ_BASE_LO, 0);
	drv_wr(&d, ORDMA_REG_AQ_CFG, 0);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_AQ_CFG), 0);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_rd(&d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&d);
}
