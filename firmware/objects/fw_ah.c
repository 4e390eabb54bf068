// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware address handles: CREATE_AH/DESTROY_AH and the address
 * vector checks shared with the QP engine.  UD send WQEs name an AH; the
 * device stores the validated AV as the driver gave it.
 */
#include <stdlib.h>
#include <string.h>

#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"

#define FW_FLOW_LABEL_MAX	0xfffffu

struct fw_ah {
	bool valid;
	uint32_t pdn;
	uint32_t uctx;
	struct ordma_av av;
};

static int fw_av_bad(size_t *bad_offset, const char **why, size_t field,
		     const char *what)
{
	*bad_offset = field;
	*why = what;
	return ORDMA_CMD_STATUS_BAD_PARAM;
}

/*
 * An InfiniBand port's AV: LRH fields always, GRH fields only when the AV
 * is global; vlan_id is not read.  The permissive DLID addresses a
 * directed route SMP's next hop: QP0 alone sends to it (the requester
 * refuses it to other QPs), as the MAD layer's AVs for DR SMPs name it.
 */
static int fw_av_check_ib(const struct ordma_av *av,
			  size_t *bad_offset, const char **why)
{
	uint16_t dlid = le16_to_cpu(av->dlid);

	if (av->reserved_21)
		return fw_av_bad(bad_offset, why,
				 offsetof(struct ordma_av, reserved_21),
				 "AV reserved field not zero");
	if (dlid == FW_IB_LID_RESERVED)
		return fw_av_bad(bad_offset, why, offsetof(struct ordma_av, dlid),
				 "dlid 0");
	if (av->sl > FW_IB_SL_MAX)
		return fw_av_bad(bad_offset, why, offsetof(struct ordma_av, sl),
				 "sl above 15");
	if (av->ib_flags & ~ORDMA_AV_IB_GLOBAL)
		return fw_av_bad(bad_offset, why,
				 offsetof(struct ordma_av, ib_flags),
				 "unknown ib_flags bits");
	if (!(av->ib_flags & ORDMA_AV_IB_GLOBAL))
		return ORDMA_CMD_STATUS_OK;
	if (fw_bytes_zero(av->dgid, sizeof(av->dgid)))
		return fw_av_bad(bad_offset, why, offsetof(struct ordma_av, dgid),
				 "destination GID is zero");
	/* the port's one GID: the SM's prefix and the port GUID */
	if (av->sgid_index != 0)
		return fw_av_bad(bad_offset, why,
				 offsetof(struct ordma_av, sgid_index),
				 "an InfiniBand port has GID 0 only");
	if (le32_to_cpu(av->flow_label) > FW_FLOW_LABEL_MAX)
		return fw_av_bad(bad_offset, why,
				 offsetof(struct ordma_av, flow_label),
				 "flow_label wider than 20 bits");
	return ORDMA_CMD_STATUS_OK;
}

int fw_av_check(struct ordma_fw *fw, const struct ordma_av *av,
		size_t *bad_offset, const char **why)
{
	uint16_t vlan_id = le16_to_cpu(av->vlan_id);

	if (av->reserved_29)
		return fw_av_bad(bad_offset, why,
				 offsetof(struct ordma_av, reserved_29),
				 "AV reserved field not zero");
	if (fw_port_is_ib(fw))
		return fw_av_check_ib(av, bad_offset, why);
	if (fw_bytes_zero(av->dgid, sizeof(av->dgid)))
		return fw_av_bad(bad_offset, why, offsetof(struct ordma_av, dgid),
				 "destination GID is zero");
	/* a multicast MAC only for a multicast GID (UD to a group) */
	if (fw_bytes_zero(av->dmac, sizeof(av->dmac)) ||
	    (av->dmac[0] & 1) != fw_gid_is_multicast(av->dgid))
		return fw_av_bad(bad_offset, why, offsetof(struct ordma_av, dmac),
				 "destination MAC zero or not of the GID's kind");
	if (av->sgid_index >= FW_GID_TABLE_LEN || !fw->gids[av->sgid_index].valid)
		return fw_av_bad(bad_offset, why,
				 offsetof(struct ordma_av, sgid_index),
				 "sgid_index names no valid GID");
	if (le32_to_cpu(av->flow_label) > FW_FLOW_LABEL_MAX)
		return fw_av_bad(bad_offset, why,
				 offsetof(struct ordma_av, flow_label),
				 "flow_label wider than 20 bits");
	if (vlan_id > 4095 && vlan_id != ORDMA_VLAN_NONE)
		return fw_av_bad(bad_offset, why,
				 offsetof(struct ordma_av, vlan_id),
				 "vlan_id not 0..4095 or 0xffff");
	return ORDMA_CMD_STATUS_OK;
}

/* AH number 0 is never used. */
static struct fw_ah *fw_ah_lookup(struct ordma_fw *fw, uint32_t ah_handle)
{
	if (!fw->ahs || ah_handle == 0 || ah_handle > FW_MAX_AH ||
	    !fw->ahs[ah_handle].valid)
		return NULL;
	return &fw->ahs[ah_handle];
}

const struct ordma_av *fw_ah_get(struct ordma_fw *fw, uint32_t ah_handle,
				 uint32_t pdn)
{
	struct fw_ah *ah = fw_ah_lookup(fw, ah_handle);

	if (!ah || ah->pdn != pdn)
		return NULL;
	return &ah->av;
}

uint8_t fw_cmd_create_ah(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_create_ah *p = &c->in->create_ah;
	uint32_t pdn = le32_to_cpu(p->pdn);
	uint32_t uctx = le32_to_cpu(p->uctx);
	const char *why = NULL;
	size_t bad = 0;
	uint32_t handle;
	uint8_t status;
	struct fw_ah *ah;

	if (fw_port_is_iwarp(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an iWARP port has no address handles");
	if (fw_av_check(fw, &p->av, &bad, &why) != ORDMA_CMD_STATUS_OK)
		return fw_cmd_bad_param(c, FW_CMD_OFF(create_ah.av) + bad, why);
	status = (uint8_t)fw_pd_get(fw, pdn, uctx);
	if (status != ORDMA_CMD_STATUS_OK)
		return fw_cmd_fail(c, status, status == ORDMA_CMD_STATUS_PERM ?
				   "PD owned by another context" : "no such PD");
	for (handle = 1; handle <= FW_MAX_AH && fw->ahs[handle].valid; handle++)
		;
	if (handle > FW_MAX_AH) {
		fw_pd_put(fw, pdn);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "all AHs in use");
	}

	ah = &fw->ahs[handle];
	ah->valid = true;
	ah->pdn = pdn;
	ah->uctx = uctx;
	ah->av = p->av;
	c->out->handle.handle = cpu_to_le32(handle);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_destroy_ah(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t handle = le32_to_cpu(c->in->handle.handle);
	uint32_t uctx = le32_to_cpu(c->in->handle.uctx);
	struct fw_ah *ah = fw_ah_lookup(fw, handle);

	if (!ah)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such AH");
	if (ah->uctx != uctx)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "AH owned by another context");
	fw_pd_put(fw, ah->pdn);
	memset(ah, 0, sizeof(*ah));
	return ORDMA_CMD_STATUS_OK;
}

void fw_ah_reset(struct ordma_fw *fw)
{
	if (fw->ahs)
		memset(fw->ahs, 0, (FW_MAX_AH + 1) * sizeof(*fw->ahs));
}

int fw_ah_table_create(struct ordma_fw *fw)
{
	fw->ahs = calloc(FW_MAX_AH + 1, sizeof(*fw->ahs));
	return fw->ahs ? 0 : -1;
}

void fw_ah_table_destroy(struct ordma_fw *fw)
{
	free(fw->ahs);
	fw->ahs = NULL;
}

/* QUERY_RESOURCES */
uint32_t fw_ah_in_use(const struct ordma_fw *fw)
{
	uint32_t handle, n = 0;

	for (handle = 1; fw->ahs && handle <= FW_MAX_AH; handle++)
		n += fw->ahs[handle].valid;
	return n;
}
