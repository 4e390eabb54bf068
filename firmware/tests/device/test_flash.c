// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Firmware update (FLASH_WRITE, FLASH_COMMIT, QUERY_FLASH, FW_ACTIVATE)
 * against a flash the test plays: the image reaches it in order and
 * exactly as the driver wrote it, a commit names what was written, a
 * refusal comes back as the syndrome, a reset forgets a half-written
 * image, and a device without a flash says so.
 */
#include <string.h>

#include "drv.h"
#include "ordma_test.h"
#include <linux/ordma/ordma_image.h>

#define FLASH_SLOT	(64U << 10)

/* The flash the HAL offers: one process per test, so file scope */
static struct {
	uint8_t image[FLASH_SLOT];
	uint32_t bytes;			/* highest byte written + 1 */
	unsigned int writes;
	uint32_t committed;		/* size of the last commit */
	int commit_result;
	int activate_result;
	unsigned int activations;
} flash;

static int flash_write(void *ctx, uint32_t off, const void *data,
		       uint32_t len)
{
	(void)ctx;
	if (off > FLASH_SLOT || len > FLASH_SLOT - off)
		return -1;
	memcpy(flash.image + off, data, len);
	if (off + len > flash.bytes)
		flash.bytes = off + len;
	flash.writes++;
	return 0;
}

static int flash_commit(void *ctx, uint32_t len)
{
	(void)ctx;
	flash.committed = len;
	return flash.commit_result;
}

static void flash_query(void *ctx, struct ordma_fw_flash_info *info)
{
	(void)ctx;
	memset(info, 0, sizeof(*info));
	info->running = 0;
	info->active = 0;
	info->pending = 1;
	info->activation = ORDMA_FLASH_ACTIVATION_REQUESTED;
	info->slot[0].state = ORDMA_FLASH_SLOT_VALID;
	info->slot[0].fw_major = 1;
	info->slot[0].fw_minor = 2;
	info->slot[0].fw_sub_minor = 3;
	info->slot[0].fw_build = 0x01020304;
	info->slot[1].state = ORDMA_FLASH_SLOT_INVALID;
}

static int flash_activate(void *ctx)
{
	(void)ctx;
	flash.activations++;
	return flash.activate_result;
}

/* A device whose HAL has the flash above */
static bool open_with_flash(struct drv *d)
{
	struct ordma_fw_config cfg;

	memset(&flash, 0, sizeof(flash));
	drv_default_config(&cfg);
	if (!drv_create(d, &cfg))
		return false;
	ordma_fw_destroy(d->fw);
	d->ops.flash_write = flash_write;
	d->ops.flash_commit = flash_commit;
	d->ops.flash_query = flash_query;
	d->ops.flash_activate = flash_activate;
	d->fw = ordma_fw_create(&d->ops, &d->hal, &cfg);
	d->hal.fw = d->fw;
	return d->fw && drv_enable(d, 4);
}

static uint8_t flash_write_cmd(struct drv *d, uint64_t addr, uint32_t len,
			       uint32_t off)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_FLASH_WRITE);
	cmd.flash_write.buf_addr = cpu_to_le64(addr);
	cmd.flash_write.buf_len = cpu_to_le32(len);
	cmd.flash_write.offset = cpu_to_le32(off);
	return drv_exec(d, &cmd);
}

static uint8_t flash_commit_cmd(struct drv *d, uint32_t size)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_FLASH_COMMIT);
	cmd.flash_commit.image_size = cpu_to_le32(size);
	return drv_exec(d, &cmd);
}

/* size bytes of a pattern at DRV_SCRATCH_ADDR, written in 4 KiB chunks */
static uint8_t write_image(struct drv *d, uint32_t size)
{
	uint8_t *src = drv_mem(d, DRV_SCRATCH_ADDR, size);
	uint32_t off, len;
	uint8_t st;

	for (off = 0; off < size; off++)
		src[off] = (uint8_t)(off * 7 + 3);
	for (off = 0; off < size; off += len) {
		len = size - off < ORDMA_AQ_MAX_BUF ? size - off : ORDMA_AQ_MAX_BUF;
		st = flash_write_cmd(d, DRV_SCRATCH_ADDR + off, len, off);
		if (st != ORDMA_CMD_STATUS_OK)
			return st;
	}
	return ORDMA_CMD_STATUS_OK;
}

TEST(test_flash_absent)
{
	struct ordma_device_caps caps;
	struct ordma_flash_info info;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, &caps,
			     sizeof(caps)), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(caps.cap_flags) & ORDMA_DEV_CAP_FLASH, 0);
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, 16, 0),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(flash_commit_cmd(&d, 16), ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(drv_query(&d, ORDMA_CMD_QUERY_FLASH, 0, &info, sizeof(info)),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_FW_ACTIVATE),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	drv_close(&d);
}

/* Three chunks reach the flash as written; the commit names their sum */
TEST(test_flash_write_and_commit)
{
	struct ordma_device_caps caps;
	uint32_t size = 2 * ORDMA_AQ_MAX_BUF + 100;
	struct drv d;

	REQUIRE(open_with_flash(&d));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, &caps,
			     sizeof(caps)), ORDMA_CMD_STATUS_OK);
	CHECK(le32_to_cpu(caps.cap_flags) & ORDMA_DEV_CAP_FLASH);
	CHECK_EQ(write_image(&d, size), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(flash.writes, 3);
	CHECK_EQ(flash.bytes, size);
	CHECK(!memcmp(flash.image, drv_mem(&d, DRV_SCRATCH_ADDR, size), size));
	CHECK_EQ(flash_commit_cmd(&d, size), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(flash.committed, size);
	/* committed: a second commit has nothing to commit */
	CHECK_EQ(flash_commit_cmd(&d, size), ORDMA_CMD_STATUS_BAD_STATE);
	drv_close(&d);
}

TEST(test_flash_write_bad_requests)
{
	struct drv d;

	REQUIRE(open_with_flash(&d));
	CHECK_EQ(flash_write_cmd(&d, 0, 16, 0), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d),
		 offsetof(struct ordma_aq_cmd, flash_write.buf_addr));
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR + 4, 16, 0),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, 0, 0),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d),
		 offsetof(struct ordma_aq_cmd, flash_write.buf_len));
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, ORDMA_AQ_MAX_BUF + 1, 0),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	/* not where the image ends: nothing started, then a gap */
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, 16, 16),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d),
		 offsetof(struct ordma_aq_cmd, flash_write.offset));
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, 16, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, 16, 32),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	/* the image goes on where it ended */
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, 16, 16),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(flash.writes, 2);
	/* a read the bus refuses ends the image */
	CHECK_EQ(flash_write_cmd(&d, DRV_BAD_ADDR, 16, 32),
		 ORDMA_CMD_STATUS_DMA_ERROR);
	CHECK_EQ(flash_commit_cmd(&d, 32), ORDMA_CMD_STATUS_BAD_STATE);
	/* the flash is full: the image is forgotten */
	CHECK_EQ(write_image(&d, FLASH_SLOT), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, 16, FLASH_SLOT),
		 ORDMA_CMD_STATUS_NO_RESOURCES);
	CHECK_EQ(flash_commit_cmd(&d, FLASH_SLOT), ORDMA_CMD_STATUS_BAD_STATE);
	drv_close(&d);
}

TEST(test_flash_commit_refused)
{
	struct drv d;

	REQUIRE(open_with_flash(&d));
	CHECK_EQ(flash_commit_cmd(&d, 0), ORDMA_CMD_STATUS_BAD_STATE);
	CHECK_EQ(write_image(&d, 100), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(flash_commit_cmd(&d, 99), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d),
		 offsetof(struct ordma_aq_cmd, flash_commit.image_size));
	CHECK_EQ(flash.committed, 0);
	/* the flash's verdict is the syndrome */
	flash.commit_result = ORDMA_IMAGE_BAD_SIGNATURE;
	CHECK_EQ(write_image(&d, 100), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(flash_commit_cmd(&d, 100), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d),
		 ORDMA_SYNDROME_IMAGE_BASE + ORDMA_IMAGE_BAD_SIGNATURE);
	CHECK_EQ(flash.committed, 100);
	drv_close(&d);
}

/* A reset forgets the image being written */
TEST(test_flash_reset_forgets)
{
	struct drv d;

	REQUIRE(open_with_flash(&d));
	CHECK_EQ(write_image(&d, 100), ORDMA_CMD_STATUS_OK);
	drv_wr(&d, ORDMA_REG_CTRL, 0);
	drv_wr(&d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	REQUIRE(drv_enable(&d, 4));
	CHECK_EQ(flash_commit_cmd(&d, 100), ORDMA_CMD_STATUS_BAD_STATE);
	CHECK_EQ(flash_write_cmd(&d, DRV_SCRATCH_ADDR, 16, 100),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	drv_close(&d);
}

TEST(test_flash_query_and_activate)
{
	struct ordma_flash_info info;
	struct drv d;

	REQUIRE(open_with_flash(&d));
	memset(&info, 0xaa, sizeof(info));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_FLASH, 0, &info, sizeof(info)),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(info.running), 0);
	CHECK_EQ(le32_to_cpu(info.pending), 1);
	CHECK_EQ(le32_to_cpu(info.activation),
		 ORDMA_FLASH_ACTIVATION_REQUESTED);
	CHECK_EQ(le32_to_cpu(info.slot[0].state), ORDMA_FLASH_SLOT_VALID);
	CHECK_EQ(le16_to_cpu(info.slot[0].fw_major), 1);
	CHECK_EQ(le16_to_cpu(info.slot[0].fw_minor), 2);
	CHECK_EQ(le16_to_cpu(info.slot[0].fw_sub_minor), 3);
	CHECK_EQ(le32_to_cpu(info.slot[0].fw_build), 0x01020304);
	CHECK_EQ(le16_to_cpu(info.slot[0].reserved_a), 0);
	CHECK_EQ(le32_to_cpu(info.slot[1].state), ORDMA_FLASH_SLOT_INVALID);

	flash.activate_result = -1;
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_FW_ACTIVATE),
		 ORDMA_CMD_STATUS_BAD_STATE);
	flash.activate_result = 0;
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_FW_ACTIVATE), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(flash.activations, 2);
	drv_close(&d);
}
