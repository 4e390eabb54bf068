// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware subnet management agent (IBTA vol. 1 ch. 14) of an
 * InfiniBand port: the endnode's (CA's) side of LID-routed and directed
 * route SMPs, M_Key protection, and the attributes a subnet manager
 * reads and sets to bring the port to ACTIVE, and the traps it sends
 * the SM (144 local changes, 256 bad M_Key) until they are repressed.
 * The port state machine lives here; fw_eth.c reports its changes as
 * PORT_CHANGE events.
 *
 * What a request goes through, in order: the directed route checks of
 * the SMI (a bad path is dropped), the method (responses and traps are
 * not the agent's; a TrapRepress stops a trap), the versions, the M_Key,
 * then the attribute.
 */
#include <string.h>

#include "fw_priv.h"
#include "device/fw_device.h"
#include "device/fw_mad.h"
#include "platform/fw_platform.h"

#define FW_NS_PER_SEC		1000000000ULL

/* NodeInfo */
#define FW_NODE_TYPE_CA		1
#define FW_SMA_PARTITION_CAP	1
/* PortInfo CapabilityMask: traps, SL-to-VL mapping, SystemImageGUID,
 * client reregistration (IBTA 14.2.5.6); no notice queue, no SM on the
 * device.
 */
#define FW_SMA_CAP_TRAP		(1u << 3)
#define FW_SMA_CAP_SL_MAP	(1u << 6)
#define FW_SMA_CAP_SYS_IMAGE	(1u << 11)
#define FW_SMA_CAP_EXT_SPEEDS	(1u << 14)
#define FW_SMA_CAP_CLIENT_REREG	(1u << 25)
#define FW_SMA_CAP_MASK		(FW_SMA_CAP_TRAP | FW_SMA_CAP_SL_MAP | \
				 FW_SMA_CAP_SYS_IMAGE | \
				 FW_SMA_CAP_EXT_SPEEDS | \
				 FW_SMA_CAP_CLIENT_REREG)
/* Link widths 1X and 4X; speeds SDR, DDR, QDR and extended FDR, EDR */
#define FW_WIDTH_1X		0x01
#define FW_WIDTH_4X		0x02
#define FW_WIDTH_SUPPORTED	(FW_WIDTH_1X | FW_WIDTH_4X)
#define FW_WIDTH_SET_SUPPORTED	0xff
#define FW_SPEED_SDR		0x1
#define FW_SPEED_DDR		0x2
#define FW_SPEED_QDR		0x4
#define FW_SPEED_SUPPORTED	(FW_SPEED_SDR | FW_SPEED_DDR | FW_SPEED_QDR)
#define FW_SPEED_SET_SUPPORTED	0xf
#define FW_SPEED_EXT_FDR	0x1
#define FW_SPEED_EXT_EDR	0x2
#define FW_SPEED_EXT_SUPPORTED	(FW_SPEED_EXT_FDR | FW_SPEED_EXT_EDR)
#define FW_SPEED_EXT_SET_SUPPORTED 0x1e
/* MTUCap 4096, VLCap VL0-7 (the data path does not arbitrate VLs) */
#define FW_SMA_MTU_CAP		5
#define FW_SMA_VL_CAP		4
#define FW_SMA_DATA_VLS		8
#define FW_SMA_VL15		15
#define FW_SMA_GUID_CAP		1
#define FW_SMA_RESP_TIME	18	/* 4.096 us * 2^18: about 1 s */
#define FW_SMA_LINK_DOWN_SLEEP	1
#define FW_SMA_LINK_DOWN_POLL	2
#define FW_SMA_DEFAULT_PREFIX	0xfe80000000000000ULL
#define FW_SMA_DEFAULT_PKEY	0xffff
#define FW_SMA_PKEYS_PER_BLOCK	32
#define FW_SMA_GUIDS_PER_BLOCK	8
#define FW_SMA_VL_ARB_BLOCK	32	/* entries per VLArbitration block */
/* VLArbitration attribute modifier: which table */
#define FW_VL_ARB_LOW_0_31	1
#define FW_VL_ARB_HIGH_0_31	2

/* PortInfo offsets (IBTA 14.2.5.6) */
#define PI_MKEY			0
#define PI_GID_PREFIX		8
#define PI_LID			16
#define PI_SM_LID		18
#define PI_CAP_MASK		20
#define PI_LEASE		26
#define PI_LOCAL_PORT		28
#define PI_WIDTH_EN		29
#define PI_WIDTH_SUP		30
#define PI_WIDTH_ACT		31
#define PI_SPEED_SUP_STATE	32
#define PI_PHYS_DOWNDEF		33
#define PI_PROT_LMC		34
#define PI_SPEED_ACT_EN		35
#define PI_MTU_SMSL		36
#define PI_VLCAP_INIT		37
#define PI_VL_HIGH_LIMIT	38
#define PI_VL_ARB_HIGH_CAP	39
#define PI_VL_ARB_LOW_CAP	40
#define PI_MTU_CAP		41
#define PI_HOQ			42
#define PI_OP_VLS		43
#define PI_MKEY_VIOL		44
#define PI_PKEY_VIOL		46
#define PI_QKEY_VIOL		48
#define PI_GUID_CAP		50
#define PI_REREG_TIMEOUT	51
#define PI_RESP_TIME		52
#define PI_PHY_ERRORS		53
#define PI_SPEED_EXT_ACT_SUP	62
#define PI_SPEED_EXT_EN		63
#define PI_CLIENT_REREG		0x80

/*
 * Notice (IBTA 13.4.8.2) as a SubnTrap carries it, without IssuerGID:
 * IsGeneric and Type, ProducerType (24 bits), TrapNumber, IssuerLID,
 * NoticeToggle and NoticeCount, then 54 bytes of DataDetails.
 */
#define NT_TYPE			0
#define NT_PRODUCER		1
#define NT_TRAP_NUM		4
#define NT_ISSUER_LID		6
#define NT_DETAILS		10
#define NT_GENERIC		0x80
#define NT_TYPE_SECURITY	2
#define NT_TYPE_INFO		4
#define NT_PRODUCER_CA		1
/* Trap 144, local changes (IBTA 14.2.5.1) */
#define NT_TRAP_LOCAL_CHANGES	144
#define NT144_LID		(NT_DETAILS + 2)
#define NT144_LOCAL_CHANGES	(NT_DETAILS + 5)	/* bit 0 */
#define NT144_CAP_MASK		(NT_DETAILS + 6)
#define NT144_CHANGE_FLAGS	(NT_DETAILS + 10)
#define NT144_OTHER_CHANGES	0x01	/* a change besides CapabilityMask */
#define NT144_NODE_DESC		0x0001	/* ChangeFlags: NodeDescription */
/* Trap 256, bad M_Key */
#define NT_TRAP_BAD_MKEY	256
#define NT256_LID		(NT_DETAILS + 2)
#define NT256_DR_SLID		(NT_DETAILS + 4)
#define NT256_METHOD		(NT_DETAILS + 6)
#define NT256_ATTR_ID		(NT_DETAILS + 8)
#define NT256_ATTR_MOD		(NT_DETAILS + 10)
#define NT256_MKEY		(NT_DETAILS + 14)
#define NT256_DR_HOPS		(NT_DETAILS + 23)
#define NT256_DR_PATH		(NT_DETAILS + 24)
#define NT256_DR_PATH_LEN	30
#define NT256_DR_NOTICE		0x80	/* the SMP was directed route */
#define NT256_DR_TRUNCATED	0x40	/* its path is longer than 30 */
/* A trap goes again every 4.096 us * 2^SubnetTimeout, not faster, and
 * not more than so many times in all
 */
#define FW_SMA_TRAP_PERIOD_MIN_NS	1000000ULL
#define FW_SMA_TRAP_SENDS_MAX		16

/* NodeInfo offsets (IBTA 14.2.5.3) */
#define NI_BASE_VERSION		0
#define NI_CLASS_VERSION	1
#define NI_NODE_TYPE		2
#define NI_NUM_PORTS		3
#define NI_SYS_IMAGE_GUID	4
#define NI_NODE_GUID		12
#define NI_PORT_GUID		20
#define NI_PARTITION_CAP	28
#define NI_DEVICE_ID		30
#define NI_REVISION		32
#define NI_LOCAL_PORT		36
#define NI_VENDOR_ID		37

/* The port GUID (and node GUID): the EUI-64 of the factory MAC */
static uint64_t fw_sma_guid(const struct ordma_fw *fw)
{
	uint8_t eui[8];

	ordma_fw_mac_to_eui64(fw->cfg.mac, eui);
	return fw_mad_get64(eui, 0);
}


/* ------------------------------------------------------------------ */
/* Port state                                                          */
/* ------------------------------------------------------------------ */

void fw_sma_reset(struct ordma_fw *fw)
{
	struct fw_ib_port *ib = &fw->ib;

	memset(ib, 0, sizeof(*ib));
	ib->state = ORDMA_PORT_INIT;
	ib->link_down_default = FW_SMA_LINK_DOWN_POLL;
	ib->gid_prefix = FW_SMA_DEFAULT_PREFIX;
	ib->pkey = FW_SMA_DEFAULT_PKEY;
	ib->link_width_enabled = FW_WIDTH_SUPPORTED;
	ib->link_speed_enabled = FW_SPEED_SUPPORTED;
	ib->neighbor_mtu = FW_SMA_MTU_CAP;
	ib->operational_vls = 1;
	ib->subnet_timeout = 0;
	memcpy(ib->node_desc, ORDMA_FW_BOARD_ID, sizeof(ORDMA_FW_BOARD_ID));
}

/* CapabilityMask: the device's own bits and those the host set */
static uint32_t fw_sma_cap_mask(const struct ordma_fw *fw)
{
	return FW_SMA_CAP_MASK | fw->ib.host_caps;
}

uint8_t fw_sma_port_state(const struct ordma_fw *fw)
{
	return fw_port_ib_state(fw);
}

static uint8_t fw_sma_phys_state(const struct ordma_fw *fw)
{
	if (fw->ib.phys_disabled)
		return ORDMA_PORT_PHYS_DISABLED;
	return fw->port.link_up ? ORDMA_PORT_PHYS_LINK_UP :
				  ORDMA_PORT_PHYS_POLLING;
}

/* Whatever the logical state was, a port that comes up starts in INIT */
void fw_sma_link_changed(struct ordma_fw *fw, bool up)
{
	if (!up)
		fw->ib.link_downed++;
	fw->ib.state = ORDMA_PORT_INIT;
}

void fw_sma_port_attr(struct ordma_fw *fw, struct ordma_port_attr *attr)
{
	const struct fw_ib_port *ib = &fw->ib;

	attr->lid = cpu_to_le16(ib->lid);
	attr->sm_lid = cpu_to_le16(ib->sm_lid);
	attr->lmc = ib->lmc;
	attr->sm_sl = ib->sm_sl;
	attr->subnet_timeout = ib->subnet_timeout;
	attr->pkey_table_len = 1;
	attr->port_cap_flags = cpu_to_le32(fw_sma_cap_mask(fw));
	attr->gid_prefix = cpu_to_be64(ib->gid_prefix);
	attr->port_guid = cpu_to_be64(fw_sma_guid(fw));
	attr->max_vl_num = cpu_to_le32(FW_SMA_VL_CAP);
	attr->pkey = cpu_to_le16(ib->pkey);
}

/* Width, speed and extended speed the link trained to, by its rate */
static void fw_sma_active_rate(const struct ordma_fw *fw, uint8_t *width,
			       uint8_t *speed, uint8_t *speed_ext)
{
	unsigned int mbps = fw->cfg.speed_mbps;

	*speed_ext = 0;
	*width = FW_WIDTH_1X;
	if (mbps >= 100000) {
		*width = FW_WIDTH_4X;
		*speed = FW_SPEED_SDR;
		*speed_ext = FW_SPEED_EXT_EDR;
	} else if (mbps >= 40000) {
		*width = FW_WIDTH_4X;
		*speed = FW_SPEED_QDR;
	} else if (mbps >= 25000) {
		*speed = FW_SPEED_SDR;
		*speed_ext = FW_SPEED_EXT_EDR;
	} else if (mbps >= 10000) {
		*speed = FW_SPEED_QDR;
	} else if (mbps >= 5000) {
		*speed = FW_SPEED_DDR;
	} else {
		*speed = FW_SPEED_SDR;
	}
}

/* ------------------------------------------------------------------ */
/* Traps                                                               */
/* ------------------------------------------------------------------ */

/*
 * IBTA 14.2.5.1: the SMA reports to the master SM (PortInfo MasterSMLID
 * and MasterSMSL) with SubnTrap(Notice) from QP0 on VL15.  Only a port
 * the SM configured sends traps: one with a LID and an SM LID, ARMED or
 * ACTIVE.  A trap goes again, with its TID, every subnet timeout until a
 * TrapRepress of that TID arrives, the port stops sending traps or it
 * went FW_SMA_TRAP_SENDS_MAX times (no SM listens).  The device holds
 * one trap of each number: a new one replaces the one pending and leaves
 * when that one was due.
 */
static bool fw_sma_trap_allowed(const struct ordma_fw *fw)
{
	uint8_t state = fw_sma_port_state(fw);

	return fw->ib.lid && fw->ib.sm_lid &&
	       (state == ORDMA_PORT_ARMED || state == ORDMA_PORT_ACTIVE);
}

static uint64_t fw_sma_trap_period_ns(const struct ordma_fw *fw)
{
	uint64_t ns = 4096ULL << (fw->ib.subnet_timeout & 0x1f);

	return ns < FW_SMA_TRAP_PERIOD_MIN_NS ? FW_SMA_TRAP_PERIOD_MIN_NS : ns;
}

/* A LID-routed SubnTrap to the master SM; M_Key 0 (IBTA o14-1) */
static void fw_sma_trap_send(struct ordma_fw *fw, const struct fw_ib_trap *t)
{
	struct fw_ib_frame f;
	struct fw_ib_hdrs h;
	union fw_mad mad;

	memset(&mad, 0, sizeof(mad));
	mad.hdr.base_version = FW_MAD_BASE_VERSION;
	mad.hdr.mgmt_class = FW_MAD_CLASS_SUBN_LID;
	mad.hdr.class_version = FW_SMP_CLASS_VERSION;
	mad.hdr.method = FW_MAD_METHOD_TRAP;
	mad.hdr.tid = cpu_to_be64(t->tid);
	mad.hdr.attr_id = cpu_to_be16(FW_SMP_ATTR_NOTICE);
	memcpy(mad.smp.data, t->notice, sizeof(t->notice));

	memset(&h, 0, sizeof(h));
	h.vl = FW_IB_VL15;
	h.sl = fw->ib.sm_sl;
	h.dlid = fw->ib.sm_lid;
	h.slid = fw_port_ib_slid(fw, 0);
	h.xport.opcode = FW_ROCE_UD_SEND_ONLY;
	h.xport.pkey = fw_port_pkey(fw);
	h.xport.dest_qp = FW_IB_QP0;
	h.xport.psn = (uint32_t)fw->ib.traps_sent & FW_ROCE_PSN_MASK;
	h.xport.deth.src_qp = FW_IB_QP0;
	if (fw_ib_frame_init(&f, fw->frame_buf, sizeof(fw->frame_buf), &h,
			     sizeof(mad)))
		return;
	memcpy(fw->frame_buf + f.payload_off, &mad, sizeof(mad));
	fw_ib_frame_seal(&f);
	if (fw_port_ib_tx(fw, fw->frame_buf, f.len, false))
		fw->ib.traps_sent++;
}

static void fw_sma_trap_send_next(struct ordma_fw *fw, struct fw_ib_trap *t,
				  uint64_t now)
{
	fw_sma_trap_send(fw, t);
	t->next_ns = now + fw_sma_trap_period_ns(fw);
	if (++t->sends >= FW_SMA_TRAP_SENDS_MAX)
		t->pending = false;
}

static void fw_sma_trap_raise(struct ordma_fw *fw, enum fw_ib_trap_kind kind,
			      const uint8_t notice[FW_IB_NOTICE_SIZE])
{
	struct fw_ib_trap *t = &fw->ib.traps[kind];
	uint64_t now = fw_now(fw);
	bool queued = t->pending && t->next_ns > now;

	if (!fw_sma_trap_allowed(fw))
		return;
	memcpy(t->notice, notice, sizeof(t->notice));
	t->tid = ++fw->ib.trap_tid;
	t->sends = 0;
	t->pending = true;
	if (queued)
		return;
	fw_sma_trap_send_next(fw, t, now);
	if (t->pending && t->next_ns < fw->timer_armed_ns)
		fw_timer_arm_at(fw, t->next_ns);
}

uint64_t fw_sma_timer(struct ordma_fw *fw)
{
	uint64_t now = fw_now(fw), next = UINT64_MAX;
	struct fw_ib_trap *t;
	size_t i;

	for (i = 0; i < FW_IB_TRAPS; i++) {
		t = &fw->ib.traps[i];
		if (!t->pending)
			continue;
		if (!fw_port_is_ib(fw) || !fw_sma_trap_allowed(fw)) {
			t->pending = false;
			continue;
		}
		if (t->next_ns <= now)
			fw_sma_trap_send_next(fw, t, now);
		if (t->pending && t->next_ns < next)
			next = t->next_ns;
	}
	return next;
}

static void fw_sma_notice_init(const struct ordma_fw *fw, uint8_t *n,
			       uint8_t type, uint16_t trap)
{
	memset(n, 0, FW_IB_NOTICE_SIZE);
	fw_mad_put8(n, NT_TYPE, NT_GENERIC | type);
	fw_mad_put16(n, NT_PRODUCER + 1, NT_PRODUCER_CA);
	fw_mad_put16(n, NT_TRAP_NUM, trap);
	fw_mad_put16(n, NT_ISSUER_LID, fw->ib.lid);
}

/*
 * Trap 144: the CapabilityMask (always in the notice) or what
 * change_flags names changed.  Changes a pending trap 144 reports are
 * reported again with these.
 */
static void fw_sma_local_changes(struct ordma_fw *fw, uint16_t change_flags)
{
	const struct fw_ib_trap *t = &fw->ib.traps[FW_IB_TRAP_LOCAL_CHANGES];
	uint8_t n[FW_IB_NOTICE_SIZE];

	if (t->pending)
		change_flags |= fw_mad_get16(t->notice, NT144_CHANGE_FLAGS);
	fw_sma_notice_init(fw, n, NT_TYPE_INFO, NT_TRAP_LOCAL_CHANGES);
	fw_mad_put16(n, NT144_LID, fw->ib.lid);
	if (change_flags)
		fw_mad_put8(n, NT144_LOCAL_CHANGES, NT144_OTHER_CHANGES);
	fw_mad_put32(n, NT144_CAP_MASK, fw_sma_cap_mask(fw));
	fw_mad_put16(n, NT144_CHANGE_FLAGS, change_flags);
	fw_sma_trap_raise(fw, FW_IB_TRAP_LOCAL_CHANGES, n);
}

/* ------------------------------------------------------------------ */
/* Directed route and M_Key                                            */
/* ------------------------------------------------------------------ */

static bool fw_smp_is_dr(const struct fw_mad_ctx *m)
{
	return m->in->hdr.mgmt_class == FW_MAD_CLASS_SUBN_DR;
}

/*
 * IBTA 14.2.2.2 as an endnode receives an outgoing (D = 0) directed
 * route SMP: it is the end of the directed part (hop pointer equal to
 * the hop count, then advanced and the arrival port recorded in the
 * return path) with no LID-routed part after it, or it came LID-routed
 * after the directed part (hop pointer one past the hop count).  A CA
 * forwards nothing, so a hop pointer inside the path, a returning SMP
 * or a hop count beyond 63 is dropped.
 */
static bool fw_smp_dr_recv(struct fw_mad_ctx *m)
{
	struct fw_smp *smp = &m->out->smp;
	uint8_t ptr = smp->hdr.hop_ptr, cnt = smp->hdr.hop_cnt;

	if (cnt >= FW_SMP_MAX_HOPS)
		return false;
	if (be16_to_cpu(smp->hdr.status) & FW_SMP_DIRECTION)
		return false;
	if (ptr == cnt) {
		if (be16_to_cpu(smp->dr_dlid) != FW_LID_PERMISSIVE)
			return false;
		if (cnt)
			smp->return_path[ptr] = ORDMA_PORT_NUM;
		smp->hdr.hop_ptr = ptr + 1;
		return true;
	}
	return ptr == cnt + 1;
}

static bool fw_mkey_lease_expired(struct ordma_fw *fw)
{
	struct fw_ib_port *ib = &fw->ib;

	if (!ib->mkey_lease_end_ns || fw_now(fw) < ib->mkey_lease_end_ns)
		return false;
	ib->mkey_lease_end_ns = 0;
	ib->mkey_protect = 0;
	return true;
}

/*
 * IBTA 14.2.4: a request whose M_Key is not the port's passes if the
 * port has none, or if it is a Get and the protection level allows it
 * (0: as is; 1: PortInfo's M_Key reads as zero).  Anything else is a
 * violation: counted, dropped without a response, and the lease starts;
 * when the lease runs out the protection bits fall to 0.  A matching
 * M_Key stops the lease.
 */
enum fw_mkey_verdict {
	FW_MKEY_OK,		/* matched, no M_Key or ignored */
	FW_MKEY_HIDE,		/* Get allowed, PortInfo's M_Key hidden */
	FW_MKEY_VIOLATION,
};

static enum fw_mkey_verdict fw_mkey_check(struct ordma_fw *fw,
					  const struct fw_mad_ctx *m)
{
	struct fw_ib_port *ib = &fw->ib;
	uint64_t key = be64_to_cpu(m->in->smp.mkey);

	fw_mkey_lease_expired(fw);
	if ((m->flags & ORDMA_MAD_FLAG_IGNORE_MKEY) || !ib->mkey)
		return FW_MKEY_OK;
	if (key == ib->mkey) {
		ib->mkey_lease_end_ns = 0;
		return FW_MKEY_OK;
	}
	if (m->in->hdr.method == FW_MAD_METHOD_GET && ib->mkey_protect == 0)
		return FW_MKEY_OK;
	if (m->in->hdr.method == FW_MAD_METHOD_GET && ib->mkey_protect == 1)
		return FW_MKEY_HIDE;
	if (ib->mkey_violations != UINT16_MAX)
		ib->mkey_violations++;
	if (ib->mkey_lease_period && !ib->mkey_lease_end_ns)
		ib->mkey_lease_end_ns = fw_now(fw) +
			(uint64_t)ib->mkey_lease_period * FW_NS_PER_SEC;
	return FW_MKEY_VIOLATION;
}

/*
 * Trap 256 for a request that failed the M_Key check: what it tried and
 * with which key; for a directed route SMP also its DrSLID and return
 * path (entries 1 to DRHopCount, the first 30 of a longer one).
 */
static void fw_sma_bad_mkey(struct ordma_fw *fw, const struct fw_mad_ctx *m)
{
	const struct fw_smp *smp = &m->out->smp;
	uint8_t n[FW_IB_NOTICE_SIZE];
	uint8_t hops = smp->hdr.hop_cnt, flags = NT256_DR_NOTICE;

	fw_sma_notice_init(fw, n, NT_TYPE_SECURITY, NT_TRAP_BAD_MKEY);
	fw_mad_put16(n, NT256_LID, fw->ib.lid);
	fw_mad_put8(n, NT256_METHOD, smp->hdr.method);
	memcpy(n + NT256_ATTR_ID, &smp->hdr.attr_id, sizeof(smp->hdr.attr_id));
	memcpy(n + NT256_ATTR_MOD, &smp->hdr.attr_mod,
	       sizeof(smp->hdr.attr_mod));
	memcpy(n + NT256_MKEY, &smp->mkey, sizeof(smp->mkey));
	if (fw_smp_is_dr(m)) {
		memcpy(n + NT256_DR_SLID, &smp->dr_slid, sizeof(smp->dr_slid));
		/* the DR checks let no hop count above 63 through */
		if (hops > NT256_DR_PATH_LEN) {
			hops = NT256_DR_PATH_LEN;
			flags |= NT256_DR_TRUNCATED;
		}
		fw_mad_put8(n, NT256_DR_HOPS, flags | hops);
		memcpy(n + NT256_DR_PATH, &smp->return_path[1], hops);
	}
	fw_sma_trap_raise(fw, FW_IB_TRAP_BAD_MKEY, n);
}

/* ------------------------------------------------------------------ */
/* Attributes                                                          */
/* ------------------------------------------------------------------ */

/* An attribute's handlers: get fills data, set checks then applies all
 * of it (returns a MAD status; nothing changes unless it is 0) and
 * collects the PORT_CHANGE causes.
 */
struct fw_sma_op {
	struct ordma_fw *fw;
	uint32_t mod;
	bool hide_mkey;
	uint32_t changes;	/* ORDMA_PORT_CHANGE_* */
};

static void fw_node_info_get(struct fw_sma_op *op, uint8_t *d)
{
	const struct ordma_fw *fw = op->fw;
	uint64_t guid = fw_sma_guid(fw);

	fw_mad_put8(d, NI_BASE_VERSION, FW_MAD_BASE_VERSION);
	fw_mad_put8(d, NI_CLASS_VERSION, FW_SMP_CLASS_VERSION);
	fw_mad_put8(d, NI_NODE_TYPE, FW_NODE_TYPE_CA);
	fw_mad_put8(d, NI_NUM_PORTS, ORDMA_PORT_NUM);
	fw_mad_put64(d, NI_SYS_IMAGE_GUID, guid);
	fw_mad_put64(d, NI_NODE_GUID, guid);
	fw_mad_put64(d, NI_PORT_GUID, guid);
	fw_mad_put16(d, NI_PARTITION_CAP, FW_SMA_PARTITION_CAP);
	fw_mad_put16(d, NI_DEVICE_ID, ORDMA_PCI_DEVICE_ID);
	fw_mad_put32(d, NI_REVISION, ORDMA_PCI_REVISION);
	fw_mad_put8(d, NI_LOCAL_PORT, ORDMA_PORT_NUM);
	fw_mad_put8(d, NI_VENDOR_ID, (ORDMA_PCI_VENDOR_ID >> 16) & 0xff);
	fw_mad_put16(d, NI_VENDOR_ID + 1, ORDMA_PCI_VENDOR_ID & 0xffff);
}

/* NodeDescription: 64 bytes of text, what the host last set */
static void fw_node_desc_get(struct fw_sma_op *op, uint8_t *d)
{
	memcpy(d, op->fw->ib.node_desc, ORDMA_NODE_DESC_SIZE);
}

static void fw_port_info_get(struct fw_sma_op *op, uint8_t *d)
{
	struct ordma_fw *fw = op->fw;
	const struct fw_ib_port *ib = &fw->ib;
	uint8_t width, speed, speed_ext;

	fw_mkey_lease_expired(fw);
	fw_sma_active_rate(fw, &width, &speed, &speed_ext);
	fw_mad_put64(d, PI_MKEY, op->hide_mkey ? 0 : ib->mkey);
	fw_mad_put64(d, PI_GID_PREFIX, ib->gid_prefix);
	fw_mad_put16(d, PI_LID, ib->lid);
	fw_mad_put16(d, PI_SM_LID, ib->sm_lid);
	fw_mad_put32(d, PI_CAP_MASK, fw_sma_cap_mask(fw));
	fw_mad_put16(d, PI_LEASE, ib->mkey_lease_period);
	fw_mad_put8(d, PI_LOCAL_PORT, ORDMA_PORT_NUM);
	fw_mad_put8(d, PI_WIDTH_EN, ib->link_width_enabled);
	fw_mad_put8(d, PI_WIDTH_SUP, FW_WIDTH_SUPPORTED);
	fw_mad_put8(d, PI_WIDTH_ACT, width);
	fw_mad_put8(d, PI_SPEED_SUP_STATE,
	     FW_SPEED_SUPPORTED << 4 | fw_sma_port_state(fw));
	fw_mad_put8(d, PI_PHYS_DOWNDEF,
	     fw_sma_phys_state(fw) << 4 | ib->link_down_default);
	fw_mad_put8(d, PI_PROT_LMC, ib->mkey_protect << 6 | ib->lmc);
	fw_mad_put8(d, PI_SPEED_ACT_EN, speed << 4 | ib->link_speed_enabled);
	fw_mad_put8(d, PI_MTU_SMSL, ib->neighbor_mtu << 4 | ib->sm_sl);
	fw_mad_put8(d, PI_VLCAP_INIT, FW_SMA_VL_CAP << 4);
	fw_mad_put8(d, PI_VL_HIGH_LIMIT, ib->vl_high_limit);
	fw_mad_put8(d, PI_VL_ARB_HIGH_CAP, FW_IB_VL_ARB_ENTRIES);
	fw_mad_put8(d, PI_VL_ARB_LOW_CAP, FW_IB_VL_ARB_ENTRIES);
	fw_mad_put8(d, PI_MTU_CAP, FW_SMA_MTU_CAP);
	fw_mad_put8(d, PI_HOQ, ib->hoq_life);
	fw_mad_put8(d, PI_OP_VLS, ib->operational_vls << 4);
	fw_mad_put16(d, PI_MKEY_VIOL, ib->mkey_violations);
	fw_mad_put16(d, PI_PKEY_VIOL, ib->pkey_violations);
	fw_mad_put16(d, PI_QKEY_VIOL, ib->qkey_violations);
	fw_mad_put8(d, PI_GUID_CAP, FW_SMA_GUID_CAP);
	fw_mad_put8(d, PI_REREG_TIMEOUT, ib->subnet_timeout);
	fw_mad_put8(d, PI_RESP_TIME, FW_SMA_RESP_TIME);
	fw_mad_put8(d, PI_PHY_ERRORS, ib->phy_error_thresholds);
	fw_mad_put8(d, PI_SPEED_EXT_ACT_SUP,
	     speed_ext << 4 | FW_SPEED_EXT_SUPPORTED);
	fw_mad_put8(d, PI_SPEED_EXT_EN, FW_SPEED_EXT_SUPPORTED);
}

static bool fw_lid_unicast(uint16_t lid)
{
	return lid && lid <= FW_LID_UNICAST_MAX;
}

/* The logical state the SM asks for, checked against IBTA 14.2.5.6's
 * transitions: ARMED from INIT, ACTIVE from ARMED (either again where it
 * is), DOWN from anywhere (the link retrains: INIT).  0 keeps the state.
 */
static bool fw_port_state_set_ok(const struct ordma_fw *fw, uint8_t want)
{
	uint8_t now = fw_sma_port_state(fw);

	switch (want) {
	case 0:
	case ORDMA_PORT_DOWN:
		return true;
	case ORDMA_PORT_ARMED:
		return now == ORDMA_PORT_INIT || now == ORDMA_PORT_ARMED;
	case ORDMA_PORT_ACTIVE:
		return now == ORDMA_PORT_ARMED || now == ORDMA_PORT_ACTIVE;
	default:
		return false;
	}
}

static bool fw_enable_ok(uint8_t want, uint8_t supported, uint8_t all)
{
	return want == 0 || want == all || !(want & ~supported);
}

static uint16_t fw_port_info_set(struct fw_sma_op *op, const uint8_t *d)
{
	struct ordma_fw *fw = op->fw;
	struct fw_ib_port *ib = &fw->ib;
	uint16_t lid = fw_mad_get16(d, PI_LID), sm_lid = fw_mad_get16(d, PI_SM_LID);
	uint64_t prefix = fw_mad_get64(d, PI_GID_PREFIX);
	uint8_t state = d[PI_SPEED_SUP_STATE] & 0xf;
	uint8_t phys = d[PI_PHYS_DOWNDEF] >> 4;
	uint8_t down_def = d[PI_PHYS_DOWNDEF] & 0xf;
	uint8_t width = d[PI_WIDTH_EN], speed = d[PI_SPEED_ACT_EN] & 0xf;
	uint8_t mtu = d[PI_MTU_SMSL] >> 4, sm_sl = d[PI_MTU_SMSL] & 0xf;
	uint8_t op_vls = d[PI_OP_VLS] >> 4;
	uint8_t lmc = d[PI_PROT_LMC] & 0x7;

	if (!fw_lid_unicast(lid) || !fw_lid_unicast(sm_lid) ||
	    !fw_port_state_set_ok(fw, state) ||
	    (phys && phys != ORDMA_PORT_PHYS_POLLING &&
	     phys != ORDMA_PORT_PHYS_DISABLED) ||
	    (down_def && down_def != FW_SMA_LINK_DOWN_SLEEP &&
	     down_def != FW_SMA_LINK_DOWN_POLL) ||
	    !fw_enable_ok(width, FW_WIDTH_SUPPORTED, FW_WIDTH_SET_SUPPORTED) ||
	    !fw_enable_ok(speed, FW_SPEED_SUPPORTED, FW_SPEED_SET_SUPPORTED) ||
	    mtu < 1 || mtu > FW_SMA_MTU_CAP ||
	    op_vls > FW_SMA_VL_CAP)
		return FW_MAD_STATUS_BAD_FIELD;

	if (lid != ib->lid || lmc != ib->lmc)
		op->changes |= ORDMA_PORT_CHANGE_LID;
	if (sm_lid != ib->sm_lid || sm_sl != ib->sm_sl)
		op->changes |= ORDMA_PORT_CHANGE_SM;
	if (prefix != ib->gid_prefix)
		op->changes |= ORDMA_PORT_CHANGE_GID;
	if (d[PI_REREG_TIMEOUT] & PI_CLIENT_REREG)
		op->changes |= ORDMA_PORT_CHANGE_CLIENT_REREG;
	ib->mkey = fw_mad_get64(d, PI_MKEY);
	ib->gid_prefix = prefix;
	ib->lid = lid;
	ib->sm_lid = sm_lid;
	ib->lmc = lmc;
	ib->sm_sl = sm_sl;
	ib->mkey_lease_period = fw_mad_get16(d, PI_LEASE);
	ib->mkey_protect = d[PI_PROT_LMC] >> 6;
	if (width)
		ib->link_width_enabled = width == FW_WIDTH_SET_SUPPORTED ?
					 FW_WIDTH_SUPPORTED : width;
	if (speed)
		ib->link_speed_enabled = speed == FW_SPEED_SET_SUPPORTED ?
					 FW_SPEED_SUPPORTED : speed;
	if (down_def)
		ib->link_down_default = down_def;
	ib->neighbor_mtu = mtu;
	if (op_vls)
		ib->operational_vls = op_vls;
	ib->vl_high_limit = d[PI_VL_HIGH_LIMIT];
	ib->hoq_life = d[PI_HOQ] & 0x1f;
	ib->subnet_timeout = d[PI_REREG_TIMEOUT] & 0x1f;
	ib->phy_error_thresholds = d[PI_PHY_ERRORS];
	/* the violation counters: a Set of zero clears them */
	if (!fw_mad_get16(d, PI_MKEY_VIOL))
		ib->mkey_violations = 0;
	if (!fw_mad_get16(d, PI_PKEY_VIOL))
		ib->pkey_violations = 0;
	if (!fw_mad_get16(d, PI_QKEY_VIOL))
		ib->qkey_violations = 0;

	if (phys == ORDMA_PORT_PHYS_DISABLED) {
		if (fw_sma_port_state(fw) != ORDMA_PORT_DOWN)
			ib->link_downed++;
		ib->phys_disabled = true;
		ib->state = ORDMA_PORT_INIT;
	} else if (phys == ORDMA_PORT_PHYS_POLLING) {
		ib->phys_disabled = false;
	}
	if (state == ORDMA_PORT_DOWN) {
		/* the link goes down and trains again */
		if (fw_sma_port_state(fw) != ORDMA_PORT_DOWN)
			ib->link_downed++;
		ib->state = ORDMA_PORT_INIT;
	} else if (state) {
		ib->state = state;
	}
	return 0;
}

/* P_Key table and GUIDInfo: one block, the first */
static uint16_t fw_block0_check_mod(const struct fw_sma_op *op)
{
	return op->mod ? FW_MAD_STATUS_BAD_FIELD : 0;
}

static void fw_pkey_get(struct fw_sma_op *op, uint8_t *d)
{
	memset(d, 0, FW_SMP_DATA_SIZE);
	fw_mad_put16(d, 0, op->fw->ib.pkey);
}

static uint16_t fw_pkey_set(struct fw_sma_op *op, const uint8_t *d)
{
	uint16_t pkey = fw_mad_get16(d, 0);

	if (pkey != op->fw->ib.pkey)
		op->changes |= ORDMA_PORT_CHANGE_PKEY;
	op->fw->ib.pkey = pkey;
	return 0;
}

static void fw_guid_get(struct fw_sma_op *op, uint8_t *d)
{
	memset(d, 0, FW_SMP_DATA_SIZE);
	fw_mad_put64(d, 0, fw_sma_guid(op->fw));
}

/* GUID 0 is the manufacturer's: a Set changes nothing */
static uint16_t fw_guid_set(struct fw_sma_op *op, const uint8_t *d)
{
	(void)op;
	(void)d;
	return 0;
}

static void fw_sl2vl_get(struct fw_sma_op *op, uint8_t *d)
{
	memset(d, 0, FW_SMP_DATA_SIZE);
	memcpy(d, op->fw->ib.sl_to_vl, sizeof(op->fw->ib.sl_to_vl));
}

static bool fw_vl_ok(uint8_t vl)
{
	return vl < FW_SMA_DATA_VLS || vl == FW_SMA_VL15;
}

static uint16_t fw_sl2vl_set(struct fw_sma_op *op, const uint8_t *d)
{
	size_t i;

	for (i = 0; i < sizeof(op->fw->ib.sl_to_vl); i++)
		if (!fw_vl_ok(d[i] >> 4) || !fw_vl_ok(d[i] & 0xf))
			return FW_MAD_STATUS_BAD_FIELD;
	memcpy(op->fw->ib.sl_to_vl, d, sizeof(op->fw->ib.sl_to_vl));
	return 0;
}

/* Attribute modifier: the table in bits 15:0 (1 low, 2 high priority,
 * entries 0-31; both tables have 8 entries), the port in bits 23:16.
 */
static uint8_t (*fw_vl_arb_table(const struct fw_sma_op *op))[2]
{
	uint32_t port = op->mod >> 16;

	if (port > ORDMA_PORT_NUM)
		return NULL;
	switch (op->mod & 0xffff) {
	case FW_VL_ARB_LOW_0_31:
		return op->fw->ib.vl_arb_low;
	case FW_VL_ARB_HIGH_0_31:
		return op->fw->ib.vl_arb_high;
	default:
		return NULL;
	}
}

static uint16_t fw_vl_arb_check_mod(const struct fw_sma_op *op)
{
	return fw_vl_arb_table(op) ? 0 : FW_MAD_STATUS_BAD_FIELD;
}

static void fw_vl_arb_get(struct fw_sma_op *op, uint8_t *d)
{
	memset(d, 0, FW_SMP_DATA_SIZE);
	memcpy(d, fw_vl_arb_table(op),
	       sizeof(uint8_t[FW_IB_VL_ARB_ENTRIES][2]));
}

/* Entries past the capability are ignored, as the SM's table may be
 * longer; the VL must be a data VL.
 */
static uint16_t fw_vl_arb_set(struct fw_sma_op *op, const uint8_t *d)
{
	uint8_t (*t)[2] = fw_vl_arb_table(op);
	size_t i;

	for (i = 0; i < FW_IB_VL_ARB_ENTRIES; i++)
		if ((d[2 * i] & 0xf) >= FW_SMA_DATA_VLS)
			return FW_MAD_STATUS_BAD_FIELD;
	for (i = 0; i < FW_IB_VL_ARB_ENTRIES; i++) {
		t[i][0] = d[2 * i] & 0xf;
		t[i][1] = d[2 * i + 1];
	}
	return 0;
}

static uint16_t fw_port_mod_check(const struct fw_sma_op *op)
{
	return op->mod > ORDMA_PORT_NUM ? FW_MAD_STATUS_BAD_FIELD : 0;
}

static uint16_t fw_sl2vl_check_mod(const struct fw_sma_op *op)
{
	return op->mod ? FW_MAD_STATUS_BAD_FIELD : 0;
}

struct fw_sma_attr {
	uint16_t id;
	/* the attribute modifier: 0 or a MAD status */
	uint16_t (*check_mod)(const struct fw_sma_op *op);
	void (*get)(struct fw_sma_op *op, uint8_t *d);
	uint16_t (*set)(struct fw_sma_op *op, const uint8_t *d); /* NULL: RO */
};

static const struct fw_sma_attr fw_sma_attrs[] = {
	{ FW_SMP_ATTR_NODE_DESC, NULL, fw_node_desc_get, NULL },
	{ FW_SMP_ATTR_NODE_INFO, NULL, fw_node_info_get, NULL },
	{ FW_SMP_ATTR_PORT_INFO, fw_port_mod_check, fw_port_info_get,
	  fw_port_info_set },
	{ FW_SMP_ATTR_PKEY_TABLE, fw_block0_check_mod, fw_pkey_get,
	  fw_pkey_set },
	{ FW_SMP_ATTR_GUID_INFO, fw_block0_check_mod, fw_guid_get,
	  fw_guid_set },
	{ FW_SMP_ATTR_SL_TO_VL, fw_sl2vl_check_mod, fw_sl2vl_get,
	  fw_sl2vl_set },
	{ FW_SMP_ATTR_VL_ARB, fw_vl_arb_check_mod, fw_vl_arb_get,
	  fw_vl_arb_set },
};

static const struct fw_sma_attr *fw_sma_attr_find(uint16_t id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fw_sma_attrs); i++)
		if (fw_sma_attrs[i].id == id)
			return &fw_sma_attrs[i];
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

static enum fw_mad_verdict fw_sma_reply(struct fw_mad_ctx *m, uint16_t status)
{
	struct fw_smp *smp = &m->out->smp;

	if (fw_smp_is_dr(m))
		status |= FW_SMP_DIRECTION;
	smp->hdr.method = FW_MAD_METHOD_GET_RESP;
	smp->hdr.status = cpu_to_be16(status);
	return FW_MAD_REPLY;
}

static enum fw_mad_verdict fw_sma_drop(struct fw_mad_ctx *m, uint32_t why)
{
	m->drop = why;
	return FW_MAD_DROP;
}

/*
 * TrapRepress(Notice): the SM has the trap of this TID, which is not sent
 * again.  Nothing is answered; a bad M_Key is a violation as for a Set.
 */
static enum fw_mad_verdict fw_sma_trap_repress(struct ordma_fw *fw,
					       struct fw_mad_ctx *m)
{
	const struct fw_mad_hdr *h = &m->in->hdr;
	uint64_t tid = be64_to_cpu(h->tid);
	struct fw_ib_trap *t;
	size_t i;

	if (h->base_version != FW_MAD_BASE_VERSION ||
	    h->class_version != FW_SMP_CLASS_VERSION ||
	    be16_to_cpu(h->attr_id) != FW_SMP_ATTR_NOTICE)
		return FW_MAD_CONSUMED;
	if (fw_mkey_check(fw, m) == FW_MKEY_VIOLATION) {
		fw_sma_bad_mkey(fw, m);
		return fw_sma_drop(m, ORDMA_MAD_DROP_MKEY);
	}
	for (i = 0; i < FW_IB_TRAPS; i++) {
		t = &fw->ib.traps[i];
		if (t->pending && t->tid == tid) {
			t->pending = false;
			fw->ib.traps_repressed++;
		}
	}
	return FW_MAD_CONSUMED;
}

enum fw_mad_verdict fw_sma_process(struct ordma_fw *fw, struct fw_mad_ctx *m)
{
	const struct fw_mad_hdr *h = &m->in->hdr;
	uint16_t attr_id = be16_to_cpu(h->attr_id);
	struct fw_sma_op op = { .fw = fw, .mod = be32_to_cpu(h->attr_mod) };
	const struct fw_sma_attr *attr;
	uint8_t old_state = fw_sma_port_state(fw);
	uint16_t status = 0;

	/* responses go to the host's subnet manager; traps too */
	if (h->method & FW_MAD_METHOD_RESP || h->method == FW_MAD_METHOD_TRAP)
		return FW_MAD_PASS;
	if (fw_smp_is_dr(m) && !fw_smp_dr_recv(m)) {
		fw->ib.dr_drops++;
		return fw_sma_drop(m, ORDMA_MAD_DROP_DR_PATH);
	}
	if (h->method == FW_MAD_METHOD_TRAP_REPRESS)
		return fw_sma_trap_repress(fw, m);
	if (h->base_version != FW_MAD_BASE_VERSION ||
	    h->class_version != FW_SMP_CLASS_VERSION)
		return fw_sma_reply(m, FW_MAD_STATUS_BAD_VERSION);
	if (h->method != FW_MAD_METHOD_GET && h->method != FW_MAD_METHOD_SET)
		return fw_sma_reply(m, FW_MAD_STATUS_BAD_METHOD);
	/* SMInfo is the subnet manager's, should one run on this host */
	if (attr_id == FW_SMP_ATTR_SM_INFO)
		return FW_MAD_PASS;

	switch (fw_mkey_check(fw, m)) {
	case FW_MKEY_VIOLATION:
		fw_sma_bad_mkey(fw, m);
		return fw_sma_drop(m, ORDMA_MAD_DROP_MKEY);
	case FW_MKEY_HIDE:
		op.hide_mkey = true;
		break;
	case FW_MKEY_OK:
		break;
	}

	attr = fw_sma_attr_find(attr_id);
	if (!attr || (h->method == FW_MAD_METHOD_SET && !attr->set))
		return fw_sma_reply(m, FW_MAD_STATUS_BAD_METHOD_ATTR);
	if (attr->check_mod)
		status = attr->check_mod(&op);
	if (!status && h->method == FW_MAD_METHOD_SET) {
		status = attr->set(&op, m->in->smp.data);
		if (!status)
			fw_port_report_change(fw, old_state, op.changes);
	}
	if (!status)
		attr->get(&op, m->out->smp.data);
	return fw_sma_reply(m, status);
}

/* ------------------------------------------------------------------ */
/* What the host sets                                                  */
/* ------------------------------------------------------------------ */

uint8_t fw_cmd_set_node_desc(struct ordma_fw *fw, struct fw_cmd *c)
{
	char desc[ORDMA_NODE_DESC_SIZE];
	uint8_t status;

	if (le32_to_cpu(c->in->set_node_desc.port) != ORDMA_PORT_NUM)
		return fw_cmd_bad_param(c, FW_CMD_OFF(set_node_desc.port),
					"port must be 1");
	if (!fw_port_is_ib(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an Ethernet port has no node description");
	status = fw_cmd_read_buf(fw, c, desc, sizeof(desc));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (!memcmp(fw->ib.node_desc, desc, sizeof(desc)))
		return ORDMA_CMD_STATUS_OK;
	memcpy(fw->ib.node_desc, desc, sizeof(desc));
	fw_sma_local_changes(fw, NT144_NODE_DESC);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_modify_ib_port(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_modify_ib_port *p = &c->in->modify_ib_port;
	uint32_t set = le32_to_cpu(p->set_cap_mask);
	uint32_t clr = le32_to_cpu(p->clr_cap_mask);
	uint32_t old;

	if (le32_to_cpu(p->port) != ORDMA_PORT_NUM)
		return fw_cmd_bad_param(c, FW_CMD_OFF(modify_ib_port.port),
					"port must be 1");
	if (set & ~(uint32_t)ORDMA_IB_PORT_HOST_CAPS)
		return fw_cmd_bad_param(c,
					FW_CMD_OFF(modify_ib_port.set_cap_mask),
					"not a capability the host sets");
	if (clr & ~(uint32_t)ORDMA_IB_PORT_HOST_CAPS)
		return fw_cmd_bad_param(c,
					FW_CMD_OFF(modify_ib_port.clr_cap_mask),
					"not a capability the host sets");
	if (set & clr)
		return fw_cmd_bad_param(c,
					FW_CMD_OFF(modify_ib_port.clr_cap_mask),
					"a capability both set and cleared");
	if (p->reserved_12)
		return fw_cmd_bad_param(c,
					FW_CMD_OFF(modify_ib_port.reserved_12),
					"reserved not zero");
	if (!fw_port_is_ib(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an Ethernet port has no PortInfo");
	old = fw_sma_cap_mask(fw);
	fw->ib.host_caps = (fw->ib.host_caps | set) & ~clr;
	if (fw_sma_cap_mask(fw) != old)
		fw_sma_local_changes(fw, 0);
	return ORDMA_CMD_STATUS_OK;
}
