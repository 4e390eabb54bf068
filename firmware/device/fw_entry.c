// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The firmware's entry table (struct ordma_fw_image in ordma_fw.h).
 *
 * Linked into a device model, the table is ordma_fw_builtin.  Built as
 * a firmware image's payload (make -C firmware image-so), the same table
 * is the one symbol the shared object exports, ORDMA_FW_IMAGE_SYMBOL;
 * everything else is hidden and bound inside the object.
 */

#include "fw_priv.h"

/* An image build sets its own (make -C firmware image-so FW_VERSION=). */
#ifndef FW_VERSION_MAJOR
#define FW_VERSION_MAJOR		1
#define FW_VERSION_MINOR		0
#define FW_VERSION_SUB_MINOR		0
#endif
#ifndef FW_BUILD_NUMBER
#define FW_BUILD_NUMBER			1
#endif

/* Known answers of the CRC engine every RoCEv2 frame goes through */
static int fw_self_test(void)
{
	static const uint8_t check[] = "123456789";

#ifdef FW_SELF_TEST_FAIL
	/* An image built to fail here, to test the model's rollback */
	return -1;
#endif
	/* CRC-32/ISO-HDLC of "123456789": 0xcbf43926 */
	if ((fw_crc32_le(0xffffffffu, check, sizeof(check) - 1) ^
	     0xffffffffu) != 0xcbf43926u)
		return -1;
	return 0;
}

/* ABI 1.0's create: its model's configuration ends before link_layer */
static struct ordma_fw *fw_create_abi_1_0(const struct ordma_hal_ops *ops,
					  void *ctx,
					  const struct ordma_fw_config *cfg)
{
	return ordma_fw_create_sized(ops, ctx, cfg, ORDMA_FW_CONFIG_SIZE_1_0);
}

#define FW_ENTRY_TABLE {						\
	.abi_major = ORDMA_FW_ABI_MAJOR,				\
	.abi_minor = ORDMA_FW_ABI_MINOR,				\
	.fw_major = FW_VERSION_MAJOR,					\
	.fw_minor = FW_VERSION_MINOR,					\
	.fw_sub_minor = FW_VERSION_SUB_MINOR,				\
	.fw_build = FW_BUILD_NUMBER,					\
	.create = fw_create_abi_1_0,					\
	.destroy = ordma_fw_destroy,					\
	.reset = ordma_fw_reset,					\
	.bus_master_enabled = ordma_fw_bus_master_enabled,		\
	.reg_read = ordma_fw_reg_read,					\
	.reg_write = ordma_fw_reg_write,				\
	.db_write = ordma_fw_db_write,					\
	.can_receive = ordma_fw_can_receive,				\
	.rx_frame = ordma_fw_rx_frame,					\
	.set_link = ordma_fw_set_link,					\
	.timer_expired = ordma_fw_timer_expired,			\
	.inject_fault = ordma_fw_inject_fault,				\
	.self_test = fw_self_test,					\
	.create_sized = ordma_fw_create_sized,				\
}

#ifdef FW_IMAGE_BUILD
__attribute__((visibility("default")))
extern const struct ordma_fw_image ordma_fw_image_entry;
const struct ordma_fw_image ordma_fw_image_entry = FW_ENTRY_TABLE;
#define FW_SELF ordma_fw_image_entry
#else
const struct ordma_fw_image ordma_fw_builtin = FW_ENTRY_TABLE;
#define FW_SELF ordma_fw_builtin
#endif

const struct ordma_fw_image *fw_entry_table(void)
{
	return &FW_SELF;
}
