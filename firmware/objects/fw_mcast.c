// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware multicast: UD QPs attached to multicast GIDs.
 *
 * A group exists while at least one QP is attached.  A RoCEv2 packet to
 * destination QP 0xffffff whose destination IP is a group's GID is given
 * to every QP of the group, each checking its own Q_Key (the engine's
 * UD receive path, fw_transport.c, delivers it); a packet this port
 * sends to a group it has joined is also received (multicast loopback),
 * as a switch would deliver it to every member port.
 */
#include <stdlib.h>
#include <string.h>

#include "objects/fw_qp.h"
#include "platform/fw_platform.h"

struct fw_mcast_group {
	bool valid;
	uint8_t gid[16];
	uint32_t nqp;
	uint32_t qpn[FW_MAX_MCAST_QP_ATTACH];
};

bool fw_gid_is_multicast(const uint8_t gid[16])
{
	static const uint8_t v4_prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	if (!memcmp(gid, v4_prefix, sizeof(v4_prefix)))
		return (gid[12] & 0xf0) == 0xe0;	/* 224.0.0.0/4 */
	return gid[0] == 0xff;				/* ff00::/8 */
}

static struct fw_mcast_group *fw_mcast_find(struct ordma_fw *fw,
					    const uint8_t gid[16])
{
	unsigned int i;

	for (i = 0; fw->mcast && i < FW_MAX_MCAST_GRP; i++)
		if (fw->mcast[i].valid && !memcmp(fw->mcast[i].gid, gid, 16))
			return &fw->mcast[i];
	return NULL;
}

bool fw_mcast_joined(struct ordma_fw *fw, const uint8_t gid[16])
{
	return fw_mcast_find(fw, gid) != NULL;
}

bool fw_gid_is_local(struct ordma_fw *fw, const uint8_t gid[16])
{
	return fw_gid_is_multicast(gid) ? fw_mcast_joined(fw, gid) :
					  fw_gid_matches_ip(fw, gid);
}

static unsigned int fw_mcast_total(const struct ordma_fw *fw)
{
	unsigned int i, n = 0;

	for (i = 0; i < FW_MAX_MCAST_GRP; i++)
		if (fw->mcast[i].valid)
			n += fw->mcast[i].nqp;
	return n;
}

static int fw_mcast_qp_index(const struct fw_mcast_group *g, uint32_t qpn)
{
	uint32_t i;

	for (i = 0; i < g->nqp; i++)
		if (g->qpn[i] == qpn)
			return (int)i;
	return -1;
}

static void fw_mcast_remove(struct fw_mcast_group *g, unsigned int i)
{
	g->qpn[i] = g->qpn[--g->nqp];
	if (!g->nqp)
		memset(g, 0, sizeof(*g));
}

/* Common checks of ATTACH_MCAST and DETACH_MCAST */
static uint8_t fw_mcast_args(struct ordma_fw *fw, struct fw_cmd *c,
			     struct fw_qp **qpp)
{
	const struct ordma_cmd_mcast *p = &c->in->mcast;
	struct fw_qp *qp = fw_qp_lookup(fw, le32_to_cpu(p->qpn));

	if (!fw_gid_is_multicast(p->gid))
		return fw_cmd_bad_param(c, FW_CMD_OFF(mcast.gid),
					"GID is not a multicast address");
	if (!qp)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such QP");
	if (qp->uctx != le32_to_cpu(p->uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "QP owned by another context");
	if (qp->type != ORDMA_QPT_UD || qp->gsi || qp->smi)
		return fw_cmd_bad_param(c, FW_CMD_OFF(mcast.qpn),
					"only UD QPs join multicast groups");
	*qpp = qp;
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_attach_mcast(struct ordma_fw *fw, struct fw_cmd *c)
{
	const uint8_t *gid = c->in->mcast.gid;
	struct fw_mcast_group *g;
	struct fw_qp *qp;
	unsigned int i;
	uint8_t status;

	status = fw_mcast_args(fw, c, &qp);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	g = fw_mcast_find(fw, gid);
	if (g && fw_mcast_qp_index(g, qp->qpn) >= 0)
		return ORDMA_CMD_STATUS_OK;	/* IBTA: attaching twice is a no-op */
	if (fw_mcast_total(fw) >= FW_MAX_TOTAL_MCAST_QP_ATTACH)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "all multicast attachments in use");
	if (!g) {
		for (i = 0; i < FW_MAX_MCAST_GRP && fw->mcast[i].valid; i++)
			;
		if (i == FW_MAX_MCAST_GRP)
			return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
					   "all multicast groups in use");
		g = &fw->mcast[i];
		g->valid = true;
		memcpy(g->gid, gid, 16);
	} else if (g->nqp == FW_MAX_MCAST_QP_ATTACH) {
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "multicast group full");
	}
	g->qpn[g->nqp++] = qp->qpn;
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_detach_mcast(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct fw_mcast_group *g;
	struct fw_qp *qp;
	uint8_t status;
	int i;

	status = fw_mcast_args(fw, c, &qp);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	g = fw_mcast_find(fw, c->in->mcast.gid);
	i = g ? fw_mcast_qp_index(g, qp->qpn) : -1;
	if (i < 0)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "QP not attached to the group");
	fw_mcast_remove(g, (unsigned int)i);
	return ORDMA_CMD_STATUS_OK;
}

void fw_mcast_qp_destroyed(struct ordma_fw *fw, uint32_t qpn)
{
	unsigned int i;
	int j;

	for (i = 0; fw->mcast && i < FW_MAX_MCAST_GRP; i++) {
		struct fw_mcast_group *g = &fw->mcast[i];

		if (!g->valid)
			continue;
		j = fw_mcast_qp_index(g, qpn);
		if (j >= 0)
			fw_mcast_remove(g, (unsigned int)j);
	}
}

int fw_mcast_members(struct ordma_fw *fw, const uint8_t gid[16],
		     uint32_t qpns[FW_MAX_MCAST_QP_ATTACH])
{
	struct fw_mcast_group *g = fw_mcast_find(fw, gid);

	if (!g)
		return -1;
	memcpy(qpns, g->qpn, g->nqp * sizeof(qpns[0]));
	return (int)g->nqp;
}

void fw_mcast_reset(struct ordma_fw *fw)
{
	if (fw->mcast)
		memset(fw->mcast, 0, FW_MAX_MCAST_GRP * sizeof(*fw->mcast));
}

int fw_mcast_table_create(struct ordma_fw *fw)
{
	fw->mcast = calloc(FW_MAX_MCAST_GRP, sizeof(*fw->mcast));
	return fw->mcast ? 0 : -1;
}

void fw_mcast_table_destroy(struct ordma_fw *fw)
{
	free(fw->mcast);
	fw->mcast = NULL;
}

/* QUERY_RESOURCES */
uint32_t fw_mcast_groups_in_use(const struct ordma_fw *fw)
{
	uint32_t i, n = 0;

	for (i = 0; fw->mcast && i < FW_MAX_MCAST_GRP; i++)
		n += fw->mcast[i].valid;
	return n;
}

uint32_t fw_mcast_attach_in_use(const struct ordma_fw *fw)
{
	return fw->mcast ? fw_mcast_total(fw) : 0;
}
