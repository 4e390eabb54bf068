// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware platform: the helpers every command handler answers
 * with (failure and its reason, a bad parameter's offset, the answer of
 * a query written to the driver's buffer) and the host buffer of the
 * commands whose parameters do not fit the 64-byte entry.
 */
#include "platform/fw_platform.h"

#define FW_CMD_BUF_ALIGN	8

uint8_t fw_cmd_fail(struct fw_cmd *c, uint8_t status, const char *why)
{
	c->error = why;
	return status;
}

uint8_t fw_cmd_bad_param(struct fw_cmd *c, size_t offset, const char *why)
{
	c->out->syndrome = cpu_to_le32((uint32_t)offset);
	return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_PARAM, why);
}

/*
 * Shared tail of QUERY_DEVICE/QUERY_PORT/QUERY_STATS: validate the buffer
 * description and copy as much of the answer as the buffer holds.
 */
uint8_t fw_cmd_write_query_buf(struct ordma_fw *fw, struct fw_cmd *c,
			       uint32_t expected_port, const void *data,
			       size_t size)
{
	const struct ordma_cmd_query_buf *q = &c->in->query;
	uint64_t addr = le64_to_cpu(q->buf_addr);
	uint32_t len = le32_to_cpu(q->buf_len);
	size_t written;

	if (!addr || addr % 8)
		return fw_cmd_bad_param(c, FW_CMD_OFF(query.buf_addr),
					"buffer address zero or not 8-byte aligned");
	if (!len || len > ORDMA_AQ_MAX_BUF)
		return fw_cmd_bad_param(c, FW_CMD_OFF(query.buf_len),
					"buffer length not in 1..4096");
	if (le32_to_cpu(q->port) != expected_port)
		return fw_cmd_bad_param(c, FW_CMD_OFF(query.port),
					"wrong port number");
	written = len < size ? len : size;
	if (fw_dma_write(fw, addr, data, written))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_DMA_ERROR,
				   "query buffer not writable");
	c->out->buf.written = cpu_to_le32((uint32_t)written);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_check_buf(struct fw_cmd *c, size_t len)
{
	const struct ordma_cmd_buf *b = &c->in->buf;
	uint64_t addr = le64_to_cpu(b->buf_addr);

	if (!addr || addr % FW_CMD_BUF_ALIGN || fw_range_wraps(addr, len))
		return fw_cmd_bad_param(c, FW_CMD_OFF(buf.buf_addr),
					"buffer address zero, not 8-byte aligned or wrapping");
	if (le32_to_cpu(b->buf_len) != len)
		return fw_cmd_bad_param(c, FW_CMD_OFF(buf.buf_len),
					"buffer length is not the parameter structure's size");
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_read_buf(struct ordma_fw *fw, struct fw_cmd *c, void *buf,
			size_t len)
{
	uint8_t status = fw_cmd_check_buf(c, len);

	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (fw_dma_read(fw, le64_to_cpu(c->in->buf.buf_addr), buf, len))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_DMA_ERROR,
				   "parameter buffer not readable");
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_write_buf(struct ordma_fw *fw, struct fw_cmd *c,
			 const void *buf, size_t len)
{
	if (fw_dma_write(fw, le64_to_cpu(c->in->buf.buf_addr), buf, len))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_DMA_ERROR,
				   "query buffer not writable");
	c->out->buf.written = cpu_to_le32((uint32_t)len);
	return ORDMA_CMD_STATUS_OK;
}
