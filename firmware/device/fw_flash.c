// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware: firmware update (FLASH_WRITE, FLASH_COMMIT, QUERY_FLASH,
 * FW_ACTIVATE; hw-reference, "Firmware update").
 *
 * The flash itself is the silicon's, behind the HAL: it checks an image
 * (its key and signature among the rest) and stores it in the slot that
 * does not run.  The firmware's part is the protocol: the image arrives
 * in order, chunk by chunk, each read once from host memory into a
 * buffer of its own before it reaches the flash, and a commit of exactly
 * the bytes written.  A reset forgets an image being written.
 */

#include "fw_priv.h"
#include "device/fw_device.h"
#include "platform/fw_platform.h"

bool fw_has_flash(const struct ordma_fw *fw)
{
	return fw->hal.flash_write && fw->hal.flash_commit &&
	       fw->hal.flash_query && fw->hal.flash_activate;
}

void fw_flash_reset(struct ordma_fw *fw)
{
	fw->flash.writing = false;
	fw->flash.written = 0;
}

static uint8_t fw_flash_unsupported(struct fw_cmd *c)
{
	return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
			   "the device has no flash");
}

uint8_t fw_cmd_flash_write(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_flash_write *w = &c->in->flash_write;
	uint64_t addr = le64_to_cpu(w->buf_addr);
	uint32_t len = le32_to_cpu(w->buf_len);
	uint32_t off = le32_to_cpu(w->offset);
	uint8_t buf[ORDMA_AQ_MAX_BUF];

	if (!fw_has_flash(fw))
		return fw_flash_unsupported(c);
	if (!addr || addr % 8)
		return fw_cmd_bad_param(c, FW_CMD_OFF(flash_write.buf_addr),
					"buffer address zero or not 8-byte aligned");
	if (!len || len > ORDMA_AQ_MAX_BUF)
		return fw_cmd_bad_param(c, FW_CMD_OFF(flash_write.buf_len),
					"buffer length not in 1..4096");
	if (off && (!fw->flash.writing || off != fw->flash.written))
		return fw_cmd_bad_param(c, FW_CMD_OFF(flash_write.offset),
					"offset is not where the image ends");
	if (!off) {
		fw->flash.writing = true;
		fw->flash.written = 0;
	}
	if (fw_dma_read(fw, addr, buf, len)) {
		fw_flash_reset(fw);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_DMA_ERROR,
				   "image buffer not readable");
	}
	if (fw->hal.flash_write(fw->hal_ctx, off, buf, len)) {
		fw_flash_reset(fw);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "image larger than a flash slot");
	}
	fw->flash.written = off + len;
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_flash_commit(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t size = le32_to_cpu(c->in->flash_commit.image_size);
	uint32_t written = fw->flash.written;
	bool writing = fw->flash.writing;
	int err;

	if (!fw_has_flash(fw))
		return fw_flash_unsupported(c);
	/* Whatever happens, the next image starts afresh. */
	fw_flash_reset(fw);
	if (!writing)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "no image is being written");
	if (size != written)
		return fw_cmd_bad_param(c, FW_CMD_OFF(flash_commit.image_size),
					"size is not the bytes written");
	err = fw->hal.flash_commit(fw->hal_ctx, size);
	if (err) {
		/* The image's fault, not a field's: above the field offsets */
		c->out->syndrome = cpu_to_le32(ORDMA_SYNDROME_IMAGE_BASE +
					       (uint32_t)err);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_PARAM,
				   "the flash refused the image");
	}
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_query_flash(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_fw_flash_info fi = { 0 };
	struct ordma_flash_info info = { 0 };
	unsigned int i;

	if (!fw_has_flash(fw))
		return fw_flash_unsupported(c);
	fw->hal.flash_query(fw->hal_ctx, &fi);
	info.running = cpu_to_le32(fi.running);
	info.active = cpu_to_le32(fi.active);
	info.pending = cpu_to_le32(fi.pending);
	info.activation = cpu_to_le32(fi.activation);
	for (i = 0; i < ARRAY_SIZE(info.slot); i++) {
		info.slot[i].state = cpu_to_le32(fi.slot[i].state);
		info.slot[i].fw_major = cpu_to_le16(fi.slot[i].fw_major);
		info.slot[i].fw_minor = cpu_to_le16(fi.slot[i].fw_minor);
		info.slot[i].fw_sub_minor = cpu_to_le16(fi.slot[i].fw_sub_minor);
		info.slot[i].fw_build = cpu_to_le32(fi.slot[i].fw_build);
	}
	return fw_cmd_write_query_buf(fw, c, 0, &info, sizeof(info));
}

uint8_t fw_cmd_fw_activate(struct ordma_fw *fw, struct fw_cmd *c)
{
	if (!fw_has_flash(fw))
		return fw_flash_unsupported(c);
	if (fw->hal.flash_activate(fw->hal_ctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "no image is pending activation");
	return ORDMA_CMD_STATUS_OK;
}
