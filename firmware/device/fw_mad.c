// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware PROCESS_MAD: reads the MAD a driver hands over into the
 * device's own copy, passes it to the subnet or performance management
 * agent, and writes their response back.  The MAD is untrusted: the
 * agents see only the copy, which nobody can change under them.
 */
#include <string.h>

#include "fw_priv.h"
#include "device/fw_device.h"
#include "device/fw_mad.h"
#include "platform/fw_platform.h"

#define FW_MAD_ALIGN		8

static uint8_t fw_mad_check(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_process_mad *p = &c->in->process_mad;
	uint64_t addr = le64_to_cpu(p->buf_addr);

	if (!addr || addr % FW_MAD_ALIGN ||
	    fw_range_wraps(addr, ORDMA_MAD_BUF_SIZE))
		return fw_cmd_bad_param(c, FW_CMD_OFF(process_mad.buf_addr),
					"MAD buffer zero, not 8-byte aligned or wrapping");
	if (le32_to_cpu(p->buf_len) != ORDMA_MAD_BUF_SIZE)
		return fw_cmd_bad_param(c, FW_CMD_OFF(process_mad.buf_len),
					"MAD buffer not 512 bytes");
	if (le32_to_cpu(p->port) != ORDMA_PORT_NUM)
		return fw_cmd_bad_param(c, FW_CMD_OFF(process_mad.port),
					"port must be 1");
	if (p->sl > 15)
		return fw_cmd_bad_param(c, FW_CMD_OFF(process_mad.sl),
					"sl not in 0..15");
	if (p->flags & ~(uint8_t)ORDMA_MAD_FLAGS_ALL)
		return fw_cmd_bad_param(c, FW_CMD_OFF(process_mad.flags),
					"unknown flags");
	if (p->reserved_20)
		return fw_cmd_bad_param(c, FW_CMD_OFF(process_mad.reserved_20),
					"reserved not zero");
	if (!fw_port_is_ib(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an Ethernet port has no management agents");
	return ORDMA_CMD_STATUS_OK;
}

static enum fw_mad_verdict fw_mad_dispatch(struct ordma_fw *fw,
					   struct fw_mad_ctx *m)
{
	switch (m->in->hdr.mgmt_class) {
	case FW_MAD_CLASS_SUBN_LID:
	case FW_MAD_CLASS_SUBN_DR:
		return fw_sma_process(fw, m);
	case FW_MAD_CLASS_PERF:
		return fw_pma_process(fw, m);
	default:
		return FW_MAD_PASS;
	}
}

uint8_t fw_cmd_process_mad(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_process_mad *p = &c->in->process_mad;
	uint64_t addr = le64_to_cpu(p->buf_addr);
	union fw_mad in, out;
	struct fw_mad_ctx m = {
		.in = &in, .out = &out, .slid = le16_to_cpu(p->slid),
		.sl = p->sl, .flags = p->flags,
	};
	uint32_t result = ORDMA_MAD_RESULT_SUCCESS;
	uint32_t written = 0;
	uint8_t status;

	status = fw_mad_check(fw, c);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (fw_dma_read(fw, addr, &in, sizeof(in)))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_DMA_ERROR,
				   "MAD not readable");
	memcpy(&out, &in, sizeof(out));

	switch (fw_mad_dispatch(fw, &m)) {
	case FW_MAD_PASS:
		break;
	case FW_MAD_REPLY:
		/* the response follows the request in the buffer */
		if (fw_dma_write(fw, addr + ORDMA_MAD_SIZE, &out, sizeof(out)))
			return fw_cmd_fail(c, ORDMA_CMD_STATUS_DMA_ERROR,
					   "response MAD not writable");
		result |= ORDMA_MAD_RESULT_REPLY;
		written = ORDMA_MAD_BUF_SIZE;
		break;
	case FW_MAD_CONSUMED:
	case FW_MAD_DROP:
		result |= ORDMA_MAD_RESULT_CONSUMED;
		break;
	}
	c->out->process_mad.written = cpu_to_le32(written);
	c->out->process_mad.result = cpu_to_le32(result);
	c->out->process_mad.drop = cpu_to_le32(m.drop);
	return ORDMA_CMD_STATUS_OK;
}
