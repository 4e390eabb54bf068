// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware resource tables: the GID table, user contexts (one per
 * doorbell page) and protection domains.
 */
#include <string.h>

#include "fw_priv.h"
#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"

/* ------------------------------------------------------------------ */
/* GID table                                                           */
/* ------------------------------------------------------------------ */

bool fw_gid_matches_ip(const struct ordma_fw *fw, const uint8_t ip[16])
{
	size_t i;

	for (i = 0; i < FW_GID_TABLE_LEN; i++)
		if (fw->gids[i].valid && !memcmp(fw->gids[i].gid, ip, 16))
			return true;
	return false;
}

/* ::ffff:a.b.c.d */
bool fw_gid_is_ipv4(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}

uint8_t fw_cmd_add_gid(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_add_gid *p = &c->in->add_gid;
	uint32_t index = le32_to_cpu(p->index);
	uint16_t vlan_id = le16_to_cpu(p->vlan_id);
	struct fw_gid *slot;

	if (index >= FW_GID_TABLE_LEN)
		return fw_cmd_bad_param(c, FW_CMD_OFF(add_gid.index),
					"GID index beyond the table");
	if (p->type == ORDMA_GID_TYPE_ROCE_V1)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "RoCE v1 GIDs are not supported");
	if (p->type != ORDMA_GID_TYPE_ROCE_V2 && p->type != ORDMA_GID_TYPE_IP)
		return fw_cmd_bad_param(c, FW_CMD_OFF(add_gid.type),
					"unknown GID type");
	if (p->type == ORDMA_GID_TYPE_IP && !fw_port_is_iwarp(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "IP addresses are an iWARP port's");
	if (p->type == ORDMA_GID_TYPE_IP && !fw_gid_is_ipv4(p->gid))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "the TCP offload has IPv4 only");
	if (vlan_id > 4095 && vlan_id != ORDMA_VLAN_NONE)
		return fw_cmd_bad_param(c, FW_CMD_OFF(add_gid.vlan_id),
					"vlan_id not 0..4095 or 0xffff");
	if (fw_bytes_zero(p->gid, sizeof(p->gid)))
		return fw_cmd_bad_param(c, FW_CMD_OFF(add_gid.gid),
					"GID is zero");
	if (fw_bytes_zero(p->mac, sizeof(p->mac)) || (p->mac[0] & 1))
		return fw_cmd_bad_param(c, FW_CMD_OFF(add_gid.mac),
					"mac zero or multicast");

	slot = &fw->gids[index];
	slot->valid = true;
	slot->type = p->type;
	memcpy(slot->gid, p->gid, sizeof(slot->gid));
	memcpy(slot->mac, p->mac, sizeof(slot->mac));
	slot->vlan_id = vlan_id;
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_del_gid(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t index = le32_to_cpu(c->in->handle.handle);

	if (index >= FW_GID_TABLE_LEN)
		return fw_cmd_bad_param(c, FW_CMD_OFF(handle.handle),
					"GID index beyond the table");
	if (c->in->handle.uctx)
		return fw_cmd_bad_param(c, FW_CMD_OFF(handle.uctx),
					"uctx must be 0");
	if (!fw->gids[index].valid)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "GID slot is empty");
	memset(&fw->gids[index], 0, sizeof(fw->gids[index]));
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* User contexts                                                       */
/* ------------------------------------------------------------------ */

bool fw_uctx_valid(const struct ordma_fw *fw, uint32_t uctx)
{
	if (uctx == ORDMA_KERNEL_UCTX)
		return true;
	return uctx < fw->cfg.num_db_pages && fw->uctx_allocated[uctx];
}

static bool fw_uctx_owns_pd(const struct ordma_fw *fw, uint32_t uctx)
{
	uint32_t pdn;

	for (pdn = 1; pdn <= FW_MAX_PD; pdn++)
		if (fw->pds[pdn].valid && fw->pds[pdn].owner == uctx)
			return true;
	return false;
}

/* Context N rings doorbell page N; page 0 is the kernel's. */
uint8_t fw_cmd_alloc_uctx(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t uctx;

	for (uctx = 1; uctx < fw->cfg.num_db_pages; uctx++) {
		if (!fw->uctx_allocated[uctx]) {
			fw->uctx_allocated[uctx] = true;
			c->out->handle.handle = cpu_to_le32(uctx);
			c->out->handle.db_page = cpu_to_le32(uctx);
			return ORDMA_CMD_STATUS_OK;
		}
	}
	return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
			   "every doorbell page is in use");
}

uint8_t fw_cmd_dealloc_uctx(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t uctx = le32_to_cpu(c->in->handle.handle);

	if (uctx == ORDMA_KERNEL_UCTX)
		return fw_cmd_bad_param(c, FW_CMD_OFF(handle.handle),
					"the kernel context cannot be freed");
	if (c->in->handle.uctx)
		return fw_cmd_bad_param(c, FW_CMD_OFF(handle.uctx),
					"uctx must be 0");
	if (!fw_uctx_valid(fw, uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such user context");
	if (fw_uctx_owns_pd(fw, uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "user context still owns PDs");
	if (fw_uctx_owns_cq(fw, uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "user context still owns CQs");
	fw->uctx_allocated[uctx] = false;
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Protection domains                                                  */
/* ------------------------------------------------------------------ */

uint8_t fw_cmd_alloc_pd(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t owner = le32_to_cpu(c->in->alloc_pd.uctx);
	uint32_t pdn;

	if (!fw_uctx_valid(fw, owner))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such user context");
	for (pdn = 1; pdn <= FW_MAX_PD; pdn++) {
		if (!fw->pds[pdn].valid) {
			fw->pds[pdn].valid = true;
			fw->pds[pdn].owner = owner;
			c->out->handle.handle = cpu_to_le32(pdn);
			return ORDMA_CMD_STATUS_OK;
		}
	}
	return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES, "all PDs in use");
}

uint8_t fw_cmd_dealloc_pd(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t pdn = le32_to_cpu(c->in->handle.handle);
	uint32_t uctx = le32_to_cpu(c->in->handle.uctx);

	if (pdn == 0 || pdn > FW_MAX_PD || !fw->pds[pdn].valid)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such PD");
	if (fw->pds[pdn].owner != uctx)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "PD owned by another context");
	if (fw->pds[pdn].refs)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "PD still holds MRs, QPs, SRQs or AHs");
	fw->pds[pdn].valid = false;
	fw->pds[pdn].owner = 0;
	return ORDMA_CMD_STATUS_OK;
}

int fw_pd_get(struct ordma_fw *fw, uint32_t pdn, uint32_t uctx)
{
	if (pdn == 0 || pdn > FW_MAX_PD || !fw->pds[pdn].valid)
		return ORDMA_CMD_STATUS_BAD_HANDLE;
	if (fw->pds[pdn].owner != uctx)
		return ORDMA_CMD_STATUS_PERM;
	fw->pds[pdn].refs++;
	return ORDMA_CMD_STATUS_OK;
}

void fw_pd_put(struct ordma_fw *fw, uint32_t pdn)
{
	if (pdn && pdn <= FW_MAX_PD && fw->pds[pdn].refs)
		fw->pds[pdn].refs--;
}

void fw_resources_reset(struct ordma_fw *fw)
{
	memset(fw->gids, 0, sizeof(fw->gids));
	memset(fw->pds, 0, sizeof(fw->pds));
	memset(fw->uctx_allocated, 0,
	       fw->cfg.num_db_pages * sizeof(*fw->uctx_allocated));
}

/* QUERY_RESOURCES */
uint32_t fw_uctx_in_use(const struct ordma_fw *fw)
{
	uint32_t uctx, n = 0;

	for (uctx = 1; uctx < fw->cfg.num_db_pages; uctx++)
		n += fw->uctx_allocated[uctx];
	return n;
}

uint32_t fw_pd_in_use(const struct ordma_fw *fw)
{
	uint32_t pdn, n = 0;

	for (pdn = 1; pdn <= FW_MAX_PD; pdn++)
		n += fw->pds[pdn].valid;
	return n;
}

uint32_t fw_gid_in_use(const struct ordma_fw *fw)
{
	uint32_t i, n = 0;

	for (i = 0; i < FW_GID_TABLE_LEN; i++)
		n += fw->gids[i].valid;
	return n;
}
