// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The simulated host's side of PROCESS_MAD (mad.h) */
#include <string.h>

#include "mad.h"

bool mad_open_ib(struct drv *d)
{
	struct ordma_fw_config cfg;

	drv_default_config(&cfg);
	cfg.link_layer = ORDMA_LINK_LAYER_INFINIBAND;
	return drv_open_cfg(d, &cfg, 4);
}

uint8_t *mad_in(struct drv *d)
{
	return drv_mem(d, MAD_IN_ADDR, ORDMA_MAD_SIZE);
}

uint8_t *mad_out(struct drv *d)
{
	return drv_mem(d, MAD_OUT_ADDR, ORDMA_MAD_SIZE);
}

uint16_t rd16(const uint8_t *p, size_t off)
{
	return (uint16_t)(p[off] << 8 | p[off + 1]);
}

uint32_t rd32(const uint8_t *p, size_t off)
{
	return (uint32_t)rd16(p, off) << 16 | rd16(p, off + 2);
}

uint64_t rd64(const uint8_t *p, size_t off)
{
	return (uint64_t)rd32(p, off) << 32 | rd32(p, off + 4);
}

void wr16(uint8_t *p, size_t off, uint16_t v)
{
	p[off] = v >> 8;
	p[off + 1] = v & 0xff;
}

void wr32(uint8_t *p, size_t off, uint32_t v)
{
	wr16(p, off, v >> 16);
	wr16(p, off + 2, v & 0xffff);
}

void wr64(uint8_t *p, size_t off, uint64_t v)
{
	wr32(p, off, v >> 32);
	wr32(p, off + 4, v & 0xffffffff);
}

void mad_build(struct drv *d, uint8_t mgmt_class, uint8_t method,
	       uint16_t attr, uint32_t mod)
{
	uint8_t *m = mad_in(d);

	memset(m, 0, ORDMA_MAD_SIZE);
	m[MAD_BASE_VERSION] = 1;
	m[MAD_CLASS] = mgmt_class;
	m[MAD_CLASS_VERSION] = 1;
	m[MAD_METHOD] = method;
	wr64(m, MAD_TID, 0x0102030405060708ULL);
	wr16(m, MAD_ATTR_ID, attr);
	wr32(m, MAD_ATTR_MOD, mod);
	if (mgmt_class == CLASS_SUBN_DR) {
		wr16(m, SMP_DR_SLID, 0xffff);
		wr16(m, SMP_DR_DLID, 0xffff);
	}
}

uint8_t mad_exec(struct drv *d, uint8_t flags)
{
	struct ordma_aq_cmd cmd;

	memset(mad_out(d), 0xee, ORDMA_MAD_SIZE);
	drv_cmd_init(&cmd, ORDMA_CMD_PROCESS_MAD);
	cmd.process_mad.buf_addr = cpu_to_le64(MAD_IN_ADDR);
	cmd.process_mad.buf_len = cpu_to_le32(ORDMA_MAD_BUF_SIZE);
	cmd.process_mad.port = cpu_to_le32(1);
	cmd.process_mad.slid = cpu_to_le16(1);
	cmd.process_mad.flags = flags;
	return drv_exec(d, &cmd);
}

uint32_t mad_result(const struct drv *d)
{
	return le32_to_cpu(d->last_comp.process_mad.result);
}

uint32_t mad_drop(const struct drv *d)
{
	return le32_to_cpu(d->last_comp.process_mad.drop);
}

uint16_t mad_run(struct drv *d, uint8_t flags)
{
	if (mad_exec(d, flags) != ORDMA_CMD_STATUS_OK ||
	    !(mad_result(d) & ORDMA_MAD_RESULT_REPLY))
		return MAD_NO_REPLY;
	return rd16(mad_out(d), MAD_STATUS);
}

uint16_t smp_get(struct drv *d, uint16_t attr, uint32_t mod)
{
	mad_build(d, CLASS_SUBN_LID, METHOD_GET, attr, mod);
	return mad_run(d, 0);
}

uint16_t smp_set(struct drv *d, uint16_t attr, uint32_t mod,
		 const uint8_t data[64])
{
	mad_build(d, CLASS_SUBN_LID, METHOD_SET, attr, mod);
	memcpy(mad_in(d) + SMP_DATA, data, 64);
	return mad_run(d, 0);
}
