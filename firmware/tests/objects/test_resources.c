// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Resource tables: GIDs, user contexts, protection domains.
 */
#include <string.h>

#include "drv.h"
#include "ordma_test.h"

static const uint8_t gid_a[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t gid_b[16] = { [10] = 0xff, [11] = 0xff, 192, 168, 1, 1 };
static const uint8_t src_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static uint8_t add_gid_raw(struct drv *d, uint32_t index, uint8_t type,
			   uint16_t vlan, const uint8_t *gid, const uint8_t *mac)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_ADD_GID);
	cmd.add_gid.index = cpu_to_le32(index);
	cmd.add_gid.type = type;
	cmd.add_gid.vlan_id = cpu_to_le16(vlan);
	memcpy(cmd.add_gid.gid, gid, 16);
	memcpy(cmd.add_gid.mac, mac, 6);
	return drv_exec(d, &cmd);
}

TEST(test_gid_add_del)
{
	struct drv d;
	uint32_t i;

	REQUIRE(drv_open(&d, 4));
	for (i = 0; i < 16; i++)
		CHECK_EQ(drv_add_gid(&d, i, gid_a, src_mac, (uint16_t)i),
			 ORDMA_CMD_STATUS_OK);
	/* overwriting a valid slot is fine */
	CHECK_EQ(drv_add_gid(&d, 3, gid_b, src_mac, ORDMA_VLAN_NONE),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_add_gid(&d, 3, gid_b, src_mac, 4095), ORDMA_CMD_STATUS_OK);
	for (i = 0; i < 16; i++)
		CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEL_GID, i, 0),
			 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEL_GID, 3, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	drv_close(&d);
}

TEST(test_gid_validation)
{
	static const uint8_t zero[16];
	static const uint8_t mcast_mac[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(add_gid_raw(&d, 16, 1, 0, gid_a, src_mac),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(add_gid_raw(&d, 0, ORDMA_GID_TYPE_ROCE_V1, 0, gid_a, src_mac),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	/* an IP address is an iWARP port's */
	CHECK_EQ(add_gid_raw(&d, 0, ORDMA_GID_TYPE_IP, 0, gid_a, src_mac),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(add_gid_raw(&d, 0, 3, 0, gid_a, src_mac),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 12);
	CHECK_EQ(add_gid_raw(&d, 0, 1, 4096, gid_a, src_mac),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 14);
	CHECK_EQ(add_gid_raw(&d, 0, 1, 0xfffe, gid_a, src_mac),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 14);
	CHECK_EQ(add_gid_raw(&d, 0, 1, 0, zero, src_mac),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	CHECK_EQ(add_gid_raw(&d, 0, 1, 0, gid_a, zero),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 32);
	CHECK_EQ(add_gid_raw(&d, 0, 1, 0, gid_a, mcast_mac),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 32);
	/* none of them created the slot */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEL_GID, 0, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);

	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEL_GID, 16, 0),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(drv_add_gid(&d, 0, gid_a, src_mac, 0), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEL_GID, 0, 1),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 12);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEL_GID, 0, 0),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

TEST(test_uctx_alloc_dealloc)
{
	struct ordma_fw_config cfg;
	struct drv d;
	uint32_t uctx, pdn;

	drv_default_config(&cfg);
	cfg.num_db_pages = 4;
	REQUIRE(drv_open_cfg(&d, &cfg, 4));
	CHECK_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(uctx, 1);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.db_page), 1);
	CHECK_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(uctx, 2);
	CHECK_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(uctx, 3);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.db_page), 3);
	CHECK_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_NO_RESOURCES);

	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, 0, 0),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, 4, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, 0xffffffff, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, 2, 2),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 12);

	/* a context that owns a PD stays */
	CHECK_EQ(drv_alloc_pd(&d, 2, &pdn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, 2, 0),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, pdn, 2),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, 2, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, 2, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	/* lowest free id is handed out again */
	CHECK_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(uctx, 2);
	drv_close(&d);
}

TEST(test_pd_alloc_dealloc)
{
	struct drv d;
	uint32_t uctx, pdn, i;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_alloc_pd(&d, 0, &pdn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(pdn, 1);		/* 0 is never a PD number */
	CHECK_EQ(drv_alloc_pd(&d, uctx, &pdn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(pdn, 2);
	CHECK_EQ(drv_alloc_pd(&d, 7, &pdn), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_alloc_pd(&d, 256, &pdn), ORDMA_CMD_STATUS_BAD_HANDLE);

	/* owner check */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, 2, 0),
		 ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, 1, uctx),
		 ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, 2, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, 2, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, 0, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, 1025, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);

	/* exhaustion: 1024 PDs */
	for (i = 1; i < 1024; i++)
		if (!CHECK_EQ(drv_alloc_pd(&d, 0, &pdn), ORDMA_CMD_STATUS_OK))
			break;
	CHECK_EQ(pdn, 1024);
	CHECK_EQ(drv_alloc_pd(&d, 0, &pdn), ORDMA_CMD_STATUS_NO_RESOURCES);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, 500, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_alloc_pd(&d, 0, &pdn), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(pdn, 500);
	drv_close(&d);
}
