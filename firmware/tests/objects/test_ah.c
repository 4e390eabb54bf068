// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Address handles: CREATE_AH/DESTROY_AH, address vector validation with
 * syndromes, ownership, PD references and the lookup the UD send path
 * uses.
 */
#include <string.h>

#include "objects/fw_verbs.h"
#include "drv.h"
#include "ordma_test.h"

#define OFF_PDN		8
#define OFF_UCTX	12
#define OFF_DGID	16
#define OFF_DMAC	32
#define OFF_SGID_INDEX	38
#define OFF_FLOW_LABEL	40
#define OFF_AV_RSVD	45
#define OFF_VLAN	46
#define OFF_RSVD40	48
#define OFF_RSVD44	52

_Static_assert(OFF_SGID_INDEX == FW_CMD_OFF(create_ah.av.sgid_index),
	       "create_ah layout");
_Static_assert(OFF_VLAN == FW_CMD_OFF(create_ah.av.vlan_id), "layout");
_Static_assert(OFF_RSVD44 == FW_CMD_OFF(create_ah.reserved_44), "layout");

static const uint8_t gid_v6[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t gid_v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
static const uint8_t local_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };

struct ah_env {
	struct drv d;
	uint32_t uctx, kpd, upd;
};

static bool env_open(struct ah_env *e)
{
	return drv_open(&e->d, 5) &&
	       drv_add_gid(&e->d, 0, gid_v6, local_mac, ORDMA_VLAN_NONE) ==
	       ORDMA_CMD_STATUS_OK &&
	       drv_add_gid(&e->d, 3, gid_v4, local_mac, 7) ==
	       ORDMA_CMD_STATUS_OK &&
	       drv_alloc_uctx(&e->d, &e->uctx) == ORDMA_CMD_STATUS_OK &&
	       drv_alloc_pd(&e->d, 0, &e->kpd) == ORDMA_CMD_STATUS_OK &&
	       drv_alloc_pd(&e->d, e->uctx, &e->upd) == ORDMA_CMD_STATUS_OK;
}

static void create_ah_init(struct ordma_aq_cmd *cmd, uint32_t pdn,
			   uint32_t uctx)
{
	struct ordma_av *av = &cmd->create_ah.av;

	drv_cmd_init(cmd, ORDMA_CMD_CREATE_AH);
	cmd->create_ah.pdn = cpu_to_le32(pdn);
	cmd->create_ah.uctx = cpu_to_le32(uctx);
	memcpy(av->dgid, gid_v4, 16);
	av->dgid[15] = 9;
	memcpy(av->dmac, peer_mac, 6);
	av->sgid_index = 3;
	av->hop_limit = 64;
	av->flow_label = cpu_to_le32(0xfffff);
	av->traffic_class = 0xb8;
	av->vlan_id = cpu_to_le16(7);
}

static uint8_t create_ah(struct ah_env *e, struct ordma_aq_cmd *cmd,
			 uint32_t *handle)
{
	uint8_t status = drv_exec(&e->d, cmd);

	if (handle)
		*handle = le32_to_cpu(e->d.last_comp.handle.handle);
	return status;
}

TEST(test_create_ah)
{
	const struct ordma_av *av;
	struct ordma_aq_cmd cmd;
	struct ah_env e;
	uint32_t ah, ah2;

	REQUIRE(env_open(&e));
	create_ah_init(&cmd, e.upd, e.uctx);
	CHECK_EQ(create_ah(&e, &cmd, &ah), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(ah, 1);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.handle.db_page), 0);
	/* the device keeps the AV exactly as given */
	av = fw_ah_get(e.d.fw, ah, e.upd);
	REQUIRE(av != NULL);
	CHECK(!memcmp(av, &cmd.create_ah.av, sizeof(*av)));
	CHECK(fw_ah_get(e.d.fw, ah, e.kpd) == NULL);
	CHECK(fw_ah_get(e.d.fw, 0, e.upd) == NULL);
	CHECK(fw_ah_get(e.d.fw, 2, e.upd) == NULL);
	CHECK(fw_ah_get(e.d.fw, FW_MAX_AH + 1, e.upd) == NULL);
	CHECK(fw_ah_get(e.d.fw, UINT32_MAX, e.upd) == NULL);

	/* IPv6 GID, untagged, VLAN 0, every hop_limit/traffic class */
	create_ah_init(&cmd, e.kpd, 0);
	memcpy(cmd.create_ah.av.dgid, gid_v6, 16);
	cmd.create_ah.av.sgid_index = 0;
	cmd.create_ah.av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	cmd.create_ah.av.hop_limit = 255;
	cmd.create_ah.av.traffic_class = 255;
	cmd.create_ah.av.flow_label = 0;
	CHECK_EQ(create_ah(&e, &cmd, &ah2), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(ah2, 2);
	cmd.create_ah.av.vlan_id = 0;
	CHECK_EQ(create_ah(&e, &cmd, NULL), ORDMA_CMD_STATUS_OK);
	cmd.create_ah.av.vlan_id = cpu_to_le16(4095);
	CHECK_EQ(create_ah(&e, &cmd, NULL), ORDMA_CMD_STATUS_OK);
	CHECK(fw_ah_get(e.d.fw, ah2, e.kpd) != NULL);
	drv_close(&e.d);
}

struct ah_case {
	const char *what;
	uint32_t syndrome;
	void (*mutate)(struct ordma_av *av, struct ordma_aq_cmd *cmd);
};

static void m_dgid_zero(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	memset(av->dgid, 0, 16);
}
static void m_dmac_zero(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	memset(av->dmac, 0, 6);
}
static void m_dmac_mcast(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	av->dmac[0] = 0x33;
}
static void m_dmac_bcast(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	memset(av->dmac, 0xff, 6);
}
static void m_sgid_beyond(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	av->sgid_index = 16;
}
static void m_sgid_empty(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	av->sgid_index = 1;
}
static void m_flow_label(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	av->flow_label = cpu_to_le32(0x100000);
}
static void m_vlan(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	av->vlan_id = cpu_to_le16(4096);
}
static void m_vlan_fffe(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	av->vlan_id = cpu_to_le16(0xfffe);
}
static void m_av_reserved(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)c;
	av->reserved_29 = 1;
}
static void m_rsvd40(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)av;
	c->create_ah.reserved_40 = cpu_to_le32(0x80000000);
}
static void m_rsvd44(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)av;
	c->create_ah.reserved_44 = cpu_to_le32(1);
}
static void m_trailing(struct ordma_av *av, struct ordma_aq_cmd *c)
{
	(void)av;
	c->raw[50] = 1;
}

TEST(test_create_ah_validation)
{
	static const struct ah_case cases[] = {
		{ "dgid zero", OFF_DGID, m_dgid_zero },
		{ "dmac zero", OFF_DMAC, m_dmac_zero },
		{ "dmac multicast", OFF_DMAC, m_dmac_mcast },
		{ "dmac broadcast", OFF_DMAC, m_dmac_bcast },
		{ "sgid_index 16", OFF_SGID_INDEX, m_sgid_beyond },
		{ "sgid_index of an empty slot", OFF_SGID_INDEX, m_sgid_empty },
		{ "flow_label 21 bits", OFF_FLOW_LABEL, m_flow_label },
		{ "vlan 4096", OFF_VLAN, m_vlan },
		{ "vlan 0xfffe", OFF_VLAN, m_vlan_fffe },
		{ "av reserved_29", OFF_AV_RSVD, m_av_reserved },
		{ "reserved_40", OFF_RSVD40, m_rsvd40 },
		{ "reserved_44", OFF_RSVD44, m_rsvd44 },
		{ "trailing", 58, m_trailing },
	};
	struct ordma_aq_cmd cmd;
	struct ah_env e;
	size_t i, bad;
	const char *why;
	uint32_t ah;

	REQUIRE(env_open(&e));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		create_ah_init(&cmd, e.upd, e.uctx);
		cases[i].mutate(&cmd.create_ah.av, &cmd);
		if (!CHECK_EQ(create_ah(&e, &cmd, NULL),
			      ORDMA_CMD_STATUS_BAD_PARAM) ||
		    !CHECK_EQ(drv_syndrome(&e.d), cases[i].syndrome))
			NOTE("case: %s", cases[i].what);
	}
	/* the same checks for the QP engine's AVs, offsets within the AV */
	create_ah_init(&cmd, e.upd, e.uctx);
	CHECK_EQ(fw_av_check(e.d.fw, &cmd.create_ah.av, &bad, &why),
		 ORDMA_CMD_STATUS_OK);
	cmd.create_ah.av.sgid_index = 2;
	CHECK_EQ(fw_av_check(e.d.fw, &cmd.create_ah.av, &bad, &why),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(bad, offsetof(struct ordma_av, sgid_index));
	CHECK(why != NULL);
	cmd.create_ah.av.sgid_index = 0;
	cmd.create_ah.av.reserved_29 = 0x80;
	CHECK_EQ(fw_av_check(e.d.fw, &cmd.create_ah.av, &bad, &why),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(bad, offsetof(struct ordma_av, reserved_29));

	/* PD and ownership */
	create_ah_init(&cmd, 0, 0);
	CHECK_EQ(create_ah(&e, &cmd, NULL), ORDMA_CMD_STATUS_BAD_HANDLE);
	create_ah_init(&cmd, 999, 0);
	CHECK_EQ(create_ah(&e, &cmd, NULL), ORDMA_CMD_STATUS_BAD_HANDLE);
	create_ah_init(&cmd, e.upd, 0);
	CHECK_EQ(create_ah(&e, &cmd, NULL), ORDMA_CMD_STATUS_PERM);
	create_ah_init(&cmd, e.kpd, e.uctx);
	CHECK_EQ(create_ah(&e, &cmd, NULL), ORDMA_CMD_STATUS_PERM);
	/* none created an AH or took a PD reference */
	create_ah_init(&cmd, e.upd, e.uctx);
	CHECK_EQ(create_ah(&e, &cmd, &ah), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(ah, 1);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.kpd, 0),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&e.d);
}

TEST(test_destroy_ah)
{
	struct ordma_aq_cmd cmd;
	struct ah_env e;
	uint32_t ah, i;

	REQUIRE(env_open(&e));
	create_ah_init(&cmd, e.upd, e.uctx);
	REQUIRE_EQ(create_ah(&e, &cmd, &ah), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.upd, e.uctx),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, 0, e.uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, ah + 1, e.uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, 0x80000001, e.uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, ah, 0),
		 ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, ah, e.uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK(fw_ah_get(e.d.fw, ah, e.upd) == NULL);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, ah, e.uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.upd, e.uctx),
		 ORDMA_CMD_STATUS_OK);

	/* device limit; a deleted GID does not affect existing AHs */
	create_ah_init(&cmd, e.kpd, 0);
	for (i = 1; i <= FW_MAX_AH; i++)
		if (!CHECK_EQ(create_ah(&e, &cmd, &ah), ORDMA_CMD_STATUS_OK))
			break;
	CHECK_EQ(ah, FW_MAX_AH);
	CHECK_EQ(create_ah(&e, &cmd, NULL), ORDMA_CMD_STATUS_NO_RESOURCES);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEL_GID, 3, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK(fw_ah_get(e.d.fw, 17, e.kpd) != NULL);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, 17, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(create_ah(&e, &cmd, NULL), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), OFF_SGID_INDEX);
	cmd.create_ah.av.sgid_index = 0;
	CHECK_EQ(create_ah(&e, &cmd, &ah), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(ah, 17);
	for (i = 1; i <= FW_MAX_AH; i++)
		if (!CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, i, 0),
			      ORDMA_CMD_STATUS_OK))
			break;
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.kpd, 0),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&e.d);
}
