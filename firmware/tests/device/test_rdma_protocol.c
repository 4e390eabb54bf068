// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The RDMA protocol of an Ethernet port: SET_RDMA_PROTOCOL's validation
 * (port, protocol, reserved fields, an InfiniBand port, RDMA objects
 * alive), what QUERY_DEVICE and QUERY_PORT report for each protocol, and
 * what an iWARP port refuses: QP types other than RC, atomic and FLUSH
 * access, MODIFY_QP past INIT, address handles, and RoCEv2 frames, which
 * go to the netdev as any other UDP datagram.
 */
#include <string.h>

#include "fw_priv.h"
#include "drv.h"
#include "ordma_test.h"

#define OK		ORDMA_CMD_STATUS_OK
#define BAD_PARAM	ORDMA_CMD_STATUS_BAD_PARAM
#define BAD_STATE	ORDMA_CMD_STATUS_BAD_STATE
#define BUSY		ORDMA_CMD_STATUS_BUSY
#define NOT_SUPPORTED	ORDMA_CMD_STATUS_NOT_SUPPORTED
#define ROCE		ORDMA_PORT_PROTO_ROCE
#define IWARP		ORDMA_PORT_PROTO_IWARP
#define QP_AREA		2

static const uint8_t v4_gid[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
static const uint8_t ip_ours[4] = { 10, 0, 0, 1 };

static uint8_t set_proto_raw(struct drv *d, uint32_t port, uint8_t proto,
			     unsigned int poke_off, uint8_t poke)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_SET_RDMA_PROTOCOL);
	cmd.set_rdma_protocol.port = cpu_to_le32(port);
	cmd.set_rdma_protocol.protocol = proto;
	if (poke_off)
		((uint8_t *)&cmd)[poke_off] = poke;
	return drv_exec(d, &cmd);
}

static uint8_t set_proto(struct drv *d, uint8_t proto)
{
	return drv_set_rdma_protocol(d, proto);
}

static void query(struct drv *d, struct ordma_device_caps *caps,
		  struct ordma_port_attr *attr)
{
	memset(caps, 0xa5, sizeof(*caps));
	memset(attr, 0xa5, sizeof(*attr));
	CHECK_EQ(drv_query(d, ORDMA_CMD_QUERY_DEVICE, 0, caps, sizeof(*caps)),
		 OK);
	CHECK_EQ(drv_query(d, ORDMA_CMD_QUERY_PORT, 1, attr, sizeof(*attr)),
		 OK);
}

TEST(test_rdma_protocol_switch)
{
	const uint32_t not_iwarp = ORDMA_DEV_CAP_UD | ORDMA_DEV_CAP_UC |
				   ORDMA_DEV_CAP_ATOMIC | ORDMA_DEV_CAP_GSI |
				   ORDMA_DEV_CAP_MCAST | ORDMA_DEV_CAP_FLUSH |
				   ORDMA_DEV_CAP_ATOMIC_WRITE;
	struct ordma_device_caps caps;
	struct ordma_port_attr attr;
	uint32_t roce_caps;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	/* RoCEv2 out of reset, iWARP on offer */
	query(&d, &caps, &attr);
	roce_caps = le32_to_cpu(caps.cap_flags);
	CHECK(roce_caps & ORDMA_DEV_CAP_IWARP);
	CHECK_EQ(roce_caps & not_iwarp, not_iwarp);
	CHECK_EQ(caps.rdma_protocol, ROCE);
	CHECK_EQ(attr.rdma_protocol, ROCE);
	CHECK_EQ(attr.reserved_71, 0);

	CHECK_EQ(set_proto(&d, IWARP), OK);
	query(&d, &caps, &attr);
	CHECK_EQ(le32_to_cpu(caps.cap_flags), roce_caps & ~not_iwarp);
	CHECK_EQ(caps.rdma_protocol, IWARP);
	CHECK_EQ(caps.reserved_197, 0);
	CHECK_EQ(le16_to_cpu(caps.reserved_198), 0);
	CHECK_EQ(attr.rdma_protocol, IWARP);
	/* the same choice again is no change */
	CHECK_EQ(set_proto(&d, IWARP), OK);

	CHECK_EQ(set_proto(&d, ROCE), OK);
	query(&d, &caps, &attr);
	CHECK_EQ(le32_to_cpu(caps.cap_flags), roce_caps);
	CHECK_EQ(caps.rdma_protocol, ROCE);
	CHECK_EQ(attr.rdma_protocol, ROCE);

	/* a device reset returns the port to RoCEv2 */
	CHECK_EQ(set_proto(&d, IWARP), OK);
	drv_close(&d);
	REQUIRE(drv_open(&d, 4));
	query(&d, &caps, &attr);
	CHECK_EQ(attr.rdma_protocol, ROCE);
	drv_close(&d);
}

TEST(test_rdma_protocol_bad_input)
{
	struct ordma_port_attr attr;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(set_proto_raw(&d, 0, IWARP, 0, 0), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(set_proto_raw(&d, 2, IWARP, 0, 0), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(set_proto_raw(&d, 1, 2, 0, 0), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 12);
	CHECK_EQ(set_proto_raw(&d, 1, 0xff, 0, 0), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 12);
	CHECK_EQ(set_proto_raw(&d, 1, IWARP, 13, 1), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 13);
	CHECK_EQ(set_proto_raw(&d, 1, IWARP, 15, 0x80), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 14);
	CHECK_EQ(set_proto_raw(&d, 1, IWARP, 16, 1), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	CHECK_EQ(set_proto_raw(&d, 1, IWARP, 63, 1), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 63);
	/* nothing changed */
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr)),
		   OK);
	CHECK_EQ(attr.rdma_protocol, ROCE);
	drv_close(&d);
}

TEST(test_rdma_protocol_ib_port)
{
	struct ordma_device_caps caps;
	struct ordma_port_attr attr;
	struct ordma_fw_config cfg;
	struct drv d;

	drv_default_config(&cfg);
	cfg.link_layer = ORDMA_LINK_LAYER_INFINIBAND;
	REQUIRE(drv_open_cfg(&d, &cfg, 4));
	query(&d, &caps, &attr);
	CHECK(!(le32_to_cpu(caps.cap_flags) & ORDMA_DEV_CAP_IWARP));
	CHECK_EQ(caps.rdma_protocol, 0);
	CHECK_EQ(attr.rdma_protocol, 0);
	CHECK_EQ(set_proto(&d, IWARP), NOT_SUPPORTED);
	CHECK_EQ(set_proto(&d, ROCE), NOT_SUPPORTED);
	/* a bad field is still a bad field */
	CHECK_EQ(set_proto_raw(&d, 1, 7, 0, 0), BAD_PARAM);
	drv_close(&d);
}

/* EQs, a user context, a PD and two CQs on a port of protocol proto,
 * no GID (drv_verbs_open(), drv.h)
 */
static bool env_open(struct drv_verbs *e, uint8_t proto)
{
	return drv_verbs_open(e, proto, true, NULL, NULL);
}

static uint8_t qp_create(struct drv_verbs *e, uint8_t type, uint32_t uctx,
			 uint32_t *qpn)
{
	return drv_verbs_create_qp(e, type, uctx, QP_AREA, qpn);
}

TEST(test_rdma_protocol_busy_while_objects_exist)
{
	uint32_t qpn, key, kernel_pdn;
	struct drv_verbs e;

	REQUIRE(env_open(&e, ROCE));
	/* user context, PD, CQs: each one alone keeps the protocol */
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, e.uctx, &qpn), OK);
	CHECK_EQ(set_proto(&e.d, IWARP), BUSY);
	CHECK_EQ(set_proto(&e.d, ROCE), OK);	/* no change is no change */
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, qpn, e.uctx), OK);
	REQUIRE_EQ(drv_reg_mr_contig(&e.d, e.pdn, e.uctx, DRV_MR_ADDR,
				     DRV_MR_ADDR, 0x1000,
				     ORDMA_ACCESS_LOCAL_WRITE, 1, &key), OK);
	CHECK_EQ(set_proto(&e.d, IWARP), BUSY);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEREG_MR, key, e.uctx), OK);
	CHECK_EQ(set_proto(&e.d, IWARP), BUSY);
	REQUIRE_EQ(drv_destroy_cq(&e.d, &e.scq), OK);
	REQUIRE_EQ(drv_destroy_cq(&e.d, &e.rcq), OK);
	CHECK_EQ(set_proto(&e.d, IWARP), BUSY);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, e.uctx),
		   OK);
	CHECK_EQ(set_proto(&e.d, IWARP), BUSY);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_UCTX, e.uctx, 0), OK);
	/* a kernel PD and a GID too */
	REQUIRE_EQ(drv_alloc_pd(&e.d, 0, &kernel_pdn), OK);
	CHECK_EQ(set_proto(&e.d, IWARP), BUSY);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, kernel_pdn, 0),
		   OK);
	REQUIRE_EQ(drv_add_gid(&e.d, 3, v4_gid, e.d.cfg.mac, ORDMA_VLAN_NONE),
		   OK);
	CHECK_EQ(set_proto(&e.d, IWARP), BUSY);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEL_GID, 3, 0), OK);
	/* EQs are the Ethernet function's and do not count */
	CHECK_EQ(set_proto(&e.d, IWARP), OK);
	drv_close(&e.d);
}

TEST(test_iwarp_refuses_what_iwarp_lacks)
{
	struct ordma_cmd_create_ah *ah;
	struct ordma_qp_attr a;
	struct ordma_aq_cmd cmd;
	uint32_t qpn = 0, rc;
	struct drv_verbs e;

	REQUIRE(env_open(&e, IWARP));
	CHECK_EQ(qp_create(&e, ORDMA_QPT_UD, e.uctx, &qpn), NOT_SUPPORTED);
	CHECK_EQ(qp_create(&e, ORDMA_QPT_UC, e.uctx, &qpn), NOT_SUPPORTED);
	CHECK_EQ(qp_create(&e, ORDMA_QPT_GSI, 0, &qpn), NOT_SUPPORTED);
	CHECK_EQ(qp_create(&e, ORDMA_QPT_SMI, 0, &qpn), NOT_SUPPORTED);
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, e.uctx, &rc), OK);

	/* RESET -> INIT with atomics or FLUSH: refused; without: taken */
	memset(&a, 0, sizeof(a));
	a.attr_mask = cpu_to_le32(ORDMA_QP_ATTR_STATE |
				  ORDMA_QP_ATTR_ACCESS_FLAGS |
				  ORDMA_QP_ATTR_PKEY_INDEX | ORDMA_QP_ATTR_PORT);
	a.state = ORDMA_QPS_INIT;
	a.port = 1;
	a.access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE |
				     ORDMA_ACCESS_REMOTE_ATOMIC);
	CHECK_EQ(drv_modify_qp(&e.d, rc, &a), NOT_SUPPORTED);
	a.access_flags = cpu_to_le32(ORDMA_ACCESS_FLUSH_GLOBAL);
	CHECK_EQ(drv_modify_qp(&e.d, rc, &a), NOT_SUPPORTED);
	a.access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE |
				     ORDMA_ACCESS_REMOTE_READ);
	CHECK_EQ(drv_modify_qp(&e.d, rc, &a), OK);
	/* INIT -> INIT may not add atomics either */
	a.access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_ATOMIC);
	CHECK_EQ(drv_modify_qp(&e.d, rc, &a), NOT_SUPPORTED);

	/* INIT -> RTR with a RoCE address vector: not how iWARP connects */
	memset(&a, 0, sizeof(a));
	a.attr_mask = cpu_to_le32(ORDMA_QP_ATTR_STATE | ORDMA_QP_ATTR_AV |
				  ORDMA_QP_ATTR_PATH_MTU |
				  ORDMA_QP_ATTR_DEST_QPN |
				  ORDMA_QP_ATTR_RQ_PSN |
				  ORDMA_QP_ATTR_MAX_DEST_RD_ATOMIC |
				  ORDMA_QP_ATTR_MIN_RNR_TIMER);
	a.state = ORDMA_QPS_RTR;
	a.path_mtu = 3;
	a.dest_qpn = cpu_to_le32(0x42);
	a.av.hop_limit = 64;
	a.av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	CHECK_EQ(drv_modify_qp(&e.d, rc, &a), BAD_PARAM);
	/* rdma_cm's iWARP RTR: the state (and access) only */
	memset(&a, 0, sizeof(a));
	a.attr_mask = cpu_to_le32(ORDMA_QP_ATTR_STATE);
	a.state = ORDMA_QPS_RTR;
	CHECK_EQ(drv_modify_qp(&e.d, rc, &a), OK);
	/* RTS comes with the connection, never through MODIFY_QP */
	a.state = ORDMA_QPS_RTS;
	a.attr_mask = cpu_to_le32(ORDMA_QP_ATTR_STATE |
				  ORDMA_QP_ATTR_SQ_PSN);
	CHECK_EQ(drv_modify_qp(&e.d, rc, &a), BAD_STATE);
	/* ERR and RESET remain */
	memset(&a, 0, sizeof(a));
	a.attr_mask = cpu_to_le32(ORDMA_QP_ATTR_STATE);
	a.state = ORDMA_QPS_ERR;
	CHECK_EQ(drv_modify_qp(&e.d, rc, &a), OK);

	/* no address handles */
	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
	ah = &cmd.create_ah;
	ah->pdn = cpu_to_le32(e.pdn);
	ah->uctx = cpu_to_le32(e.uctx);
	memcpy(ah->av.dgid, v4_gid, 16);
	ah->av.hop_limit = 64;
	ah->av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	CHECK_EQ(drv_exec(&e.d, &cmd), NOT_SUPPORTED);

	/* objects alive: back to RoCE is refused as well */
	CHECK_EQ(set_proto(&e.d, ROCE), BUSY);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, rc, e.uctx), OK);
	REQUIRE_EQ(drv_destroy_cq(&e.d, &e.scq), OK);
	REQUIRE_EQ(drv_destroy_cq(&e.d, &e.rcq), OK);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, e.uctx),
		   OK);
	REQUIRE_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_UCTX, e.uctx, 0), OK);
	CHECK_EQ(set_proto(&e.d, ROCE), OK);
	/* and RoCE has its UD QPs again */
	REQUIRE_EQ(drv_alloc_uctx(&e.d, &e.uctx), OK);
	REQUIRE_EQ(drv_alloc_pd(&e.d, e.uctx, &e.pdn), OK);
	REQUIRE(drv_cq_open(&e.d, &e.scq, 0, e.uctx, e.comp.eqn, 8));
	REQUIRE(drv_cq_open(&e.d, &e.rcq, 1, e.uctx, e.comp.eqn, 8));
	CHECK_EQ(qp_create(&e, ORDMA_QPT_UD, e.uctx, &qpn), OK);
	drv_close(&e.d);
}

/* RoCEv2 to one of the port's GIDs is the host's on an iWARP port */
TEST(test_iwarp_port_passes_roce_frames_to_the_netdev)
{
	struct ordma_port_stats s;
	struct drv_ring rx;
	struct drv_eq eq;
	uint8_t frame[128];
	struct drv d;
	size_t len;

	REQUIRE(drv_open(&d, 4));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_COMP, 1, 6));
	REQUIRE(drv_ring_open(&d, &rx, ORDMA_ETH_RING_RX, 4, eq.eqn));
	REQUIRE_EQ(drv_port_up(&d), OK);
	drv_rx_post(&d, &rx, 16, 2048);
	REQUIRE_EQ(set_proto(&d, IWARP), OK);
	REQUIRE_EQ(drv_add_gid(&d, 0, v4_gid, d.cfg.mac, ORDMA_VLAN_NONE), OK);
	len = drv_build_udp4(frame, d.cfg.mac, ip_ours, 4791, false);
	ordma_fw_rx_frame(d.fw, frame, len);
	memset(&s, 0xff, sizeof(s));
	REQUIRE(drv_stats(&d, &s));
	CHECK_EQ(s.roce_rx_frames, 0);
	CHECK_EQ(s.roce_rx_drop, 0);
	CHECK_EQ(s.rx_frames, 1);
	drv_close(&d);
}
