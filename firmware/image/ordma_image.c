// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Firmware images and flash headers (image/ordma_image.h).
 *
 * The headers are copied out of the caller's buffer before they are
 * read, so that an image may sit at any alignment, and every size is
 * checked against its bound before any sum is formed with it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_regs.h>
#include "ordma_fw.h"
#include "image/ordma_image.h"

#define HDR_SIZE	sizeof(struct ordma_image_header)

static_assert(ORDMA_IMAGE_SECKEY_SIZE == crypto_sign_SECRETKEYBYTES,
	      "secret key size");
static_assert(ORDMA_IMAGE_PUBKEY_SIZE == crypto_sign_PUBLICKEYBYTES,
	      "public key size");
static_assert(ORDMA_IMAGE_SIG_SIZE == crypto_sign_BYTES, "signature size");
static_assert(ORDMA_IMAGE_KEY_ID_SIZE <= ORDMA_IMAGE_PUBKEY_SIZE, "key id");
/* A whole image's size fits a size_t and a uint64_t without overflow */
static_assert(ORDMA_IMAGE_MAX_PAYLOAD <= SIZE_MAX - HDR_SIZE -
	      ORDMA_IMAGE_SIG_SIZE, "image size");

static const char *const messages[ORDMA_IMAGE_ERRORS] = {
	[ORDMA_IMAGE_OK]		= "ok",
	[ORDMA_IMAGE_TRUNCATED]		= "image is truncated",
	[ORDMA_IMAGE_BAD_MAGIC]		= "not a firmware image (bad magic)",
	[ORDMA_IMAGE_BAD_FORMAT]	= "unknown image format",
	[ORDMA_IMAGE_BAD_HEADER]	= "malformed image header",
	[ORDMA_IMAGE_TOO_LARGE]		= "image payload is too large",
	[ORDMA_IMAGE_BAD_SIG_TYPE]	= "unknown signature type",
	[ORDMA_IMAGE_UNKNOWN_KEY]	= "image is signed with an unknown key",
	[ORDMA_IMAGE_BAD_SIGNATURE]	= "signature does not verify",
	[ORDMA_IMAGE_WRONG_BOARD]	= "image is for another board",
	[ORDMA_IMAGE_BAD_ABI]		= "image needs another firmware entry table version",
	[ORDMA_IMAGE_BAD_INTERFACE]	= "image presents another interface major version",
	[ORDMA_IMAGE_BAD_ARGUMENT]	= "invalid image parameters",
	[ORDMA_IMAGE_NO_MEMORY]		= "out of memory",
	[ORDMA_IMAGE_CRYPTO_FAILED]	= "cryptographic library failed",
	[ORDMA_FLASH_TRUNCATED]		= "flash is truncated",
	[ORDMA_FLASH_BAD_MAGIC]		= "not a flash file (bad magic)",
	[ORDMA_FLASH_BAD_FORMAT]	= "unknown flash format",
	[ORDMA_FLASH_BAD_HEADER]	= "malformed flash header",
	[ORDMA_FLASH_BAD_SLOT_SIZE]	= "invalid flash slot size",
	[ORDMA_FLASH_BAD_ACTIVE]	= "invalid active flash slot",
	[ORDMA_FLASH_BAD_PENDING]	= "invalid pending flash slot",
	[ORDMA_FLASH_BAD_IMAGE_SIZE]	= "flash image larger than its slot",
};

const char *ordma_image_strerror(int err)
{
	if (err < 0 || err >= ORDMA_IMAGE_ERRORS || !messages[err])
		return "unknown error";
	return messages[err];
}

static bool all_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * The board id is a string of at most ORDMA_IMAGE_BOARD_ID_SIZE - 1
 * characters, NUL padded: a NUL, and only NULs after it.
 */
static bool board_id_valid(const uint8_t id[ORDMA_IMAGE_BOARD_ID_SIZE])
{
	const uint8_t *nul = memchr(id, 0, ORDMA_IMAGE_BOARD_ID_SIZE);

	if (!nul)
		return false;
	return all_zero(nul, ORDMA_IMAGE_BOARD_ID_SIZE - (size_t)(nul - id));
}

int ordma_image_parse(const void *img, size_t len,
		      struct ordma_image_info *info)
{
	struct ordma_image_header h;
	uint64_t payload_size;

	if (len < HDR_SIZE)
		return ORDMA_IMAGE_TRUNCATED;
	memcpy(&h, img, HDR_SIZE);

	if (memcmp(h.magic, ORDMA_IMAGE_MAGIC, ORDMA_IMAGE_MAGIC_LEN))
		return ORDMA_IMAGE_BAD_MAGIC;
	if (le32_to_cpu(h.format) != ORDMA_IMAGE_FORMAT)
		return ORDMA_IMAGE_BAD_FORMAT;
	if (le32_to_cpu(h.header_size) != HDR_SIZE ||
	    h.reserved_1e || !all_zero(h.reserved_58, sizeof(h.reserved_58)) ||
	    !board_id_valid(h.board_id))
		return ORDMA_IMAGE_BAD_HEADER;

	payload_size = le64_to_cpu(h.payload_size);
	if (payload_size > ORDMA_IMAGE_MAX_PAYLOAD)
		return ORDMA_IMAGE_TOO_LARGE;
	/* Bounded above: no sum below overflows */
	if ((uint64_t)len < ORDMA_IMAGE_SIZE(payload_size))
		return ORDMA_IMAGE_TRUNCATED;
	if ((uint64_t)len > ORDMA_IMAGE_SIZE(payload_size))
		return ORDMA_IMAGE_BAD_HEADER;
	if (le32_to_cpu(h.sig_type) != ORDMA_IMAGE_SIG_ED25519)
		return ORDMA_IMAGE_BAD_SIG_TYPE;

	if (!info)
		return ORDMA_IMAGE_OK;
	memset(info, 0, sizeof(*info));
	info->fw_major = le16_to_cpu(h.fw_major);
	info->fw_minor = le16_to_cpu(h.fw_minor);
	info->fw_sub_minor = le16_to_cpu(h.fw_sub_minor);
	info->fw_build = le32_to_cpu(h.fw_build);
	info->if_major = le16_to_cpu(h.if_major);
	info->if_minor = le16_to_cpu(h.if_minor);
	info->abi_major = le16_to_cpu(h.abi_major);
	info->abi_minor = le16_to_cpu(h.abi_minor);
	info->sig_type = le32_to_cpu(h.sig_type);
	memcpy(info->key_id, h.key_id, sizeof(info->key_id));
	/* NUL-terminated: board_id_valid() */
	memcpy(info->board_id, h.board_id, sizeof(info->board_id));
	info->payload_offset = HDR_SIZE;
	info->payload_size = (size_t)payload_size;
	info->image_size = len;
	return ORDMA_IMAGE_OK;
}

int ordma_image_verify(const void *img, size_t len,
		       const uint8_t pubkey[ORDMA_IMAGE_PUBKEY_SIZE],
		       const char *board_id, struct ordma_image_info *info)
{
	struct ordma_image_info local;
	size_t signed_len;
	int err;

	if (!info)
		info = &local;
	err = ordma_image_parse(img, len, info);
	if (err)
		return err;

	if (memcmp(info->key_id, pubkey, ORDMA_IMAGE_KEY_ID_SIZE))
		return ORDMA_IMAGE_UNKNOWN_KEY;
	if (sodium_init() < 0)
		return ORDMA_IMAGE_CRYPTO_FAILED;
	signed_len = HDR_SIZE + info->payload_size;
	if (crypto_sign_verify_detached((const uint8_t *)img + signed_len,
					img, signed_len, pubkey))
		return ORDMA_IMAGE_BAD_SIGNATURE;

	if (board_id && strcmp(info->board_id, board_id))
		return ORDMA_IMAGE_WRONG_BOARD;
	/* A minor only appends (ordma_fw.h): any minor of the major works. */
	if (info->abi_major != ORDMA_FW_ABI_MAJOR)
		return ORDMA_IMAGE_BAD_ABI;
	if (info->if_major != ORDMA_HW_VERSION_MAJOR)
		return ORDMA_IMAGE_BAD_INTERFACE;
	return ORDMA_IMAGE_OK;
}

int ordma_image_build(const struct ordma_image_info *info,
		      const void *payload, size_t payload_len,
		      const uint8_t seckey[ORDMA_IMAGE_SECKEY_SIZE],
		      void **img_out, size_t *len_out)
{
	const uint8_t *pubkey = seckey + crypto_sign_SEEDBYTES;
	struct ordma_image_header h;
	size_t board_len, len;
	uint8_t *img;

	*img_out = NULL;
	*len_out = 0;
	if (payload_len > ORDMA_IMAGE_MAX_PAYLOAD)
		return ORDMA_IMAGE_TOO_LARGE;
	if (payload_len && !payload)
		return ORDMA_IMAGE_BAD_ARGUMENT;
	board_len = strnlen(info->board_id, sizeof(info->board_id));
	if (board_len >= sizeof(info->board_id))
		return ORDMA_IMAGE_BAD_ARGUMENT;
	if (sodium_init() < 0)
		return ORDMA_IMAGE_CRYPTO_FAILED;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, ORDMA_IMAGE_MAGIC, ORDMA_IMAGE_MAGIC_LEN);
	h.format = cpu_to_le32(ORDMA_IMAGE_FORMAT);
	h.header_size = cpu_to_le32(HDR_SIZE);
	h.payload_size = cpu_to_le64(payload_len);
	h.fw_major = cpu_to_le16(info->fw_major);
	h.fw_minor = cpu_to_le16(info->fw_minor);
	h.fw_sub_minor = cpu_to_le16(info->fw_sub_minor);
	h.fw_build = cpu_to_le32(info->fw_build);
	h.if_major = cpu_to_le16(info->if_major);
	h.if_minor = cpu_to_le16(info->if_minor);
	h.abi_major = cpu_to_le16(info->abi_major);
	h.abi_minor = cpu_to_le16(info->abi_minor);
	h.sig_type = cpu_to_le32(ORDMA_IMAGE_SIG_ED25519);
	memcpy(h.key_id, pubkey, ORDMA_IMAGE_KEY_ID_SIZE);
	memcpy(h.board_id, info->board_id, board_len);

	len = ORDMA_IMAGE_SIZE(payload_len);
	img = malloc(len);
	if (!img)
		return ORDMA_IMAGE_NO_MEMORY;
	memcpy(img, &h, HDR_SIZE);
	if (payload_len)
		memcpy(img + HDR_SIZE, payload, payload_len);
	if (crypto_sign_detached(img + HDR_SIZE + payload_len, NULL, img,
				 HDR_SIZE + payload_len, seckey)) {
		free(img);
		return ORDMA_IMAGE_CRYPTO_FAILED;
	}
	*img_out = img;
	*len_out = len;
	return ORDMA_IMAGE_OK;
}

int ordma_flash_parse(const void *hdr_block, size_t block_len,
		      uint64_t flash_size, struct ordma_flash_state *st)
{
	struct ordma_flash_header h;
	uint64_t image_size[ORDMA_FLASH_SLOTS];
	uint32_t slot_size, active, pending;
	unsigned int i;

	if (block_len < ORDMA_FLASH_BLOCK || flash_size < ORDMA_FLASH_BLOCK)
		return ORDMA_FLASH_TRUNCATED;
	memcpy(&h, hdr_block, sizeof(h));

	if (memcmp(h.magic, ORDMA_FLASH_MAGIC, ORDMA_IMAGE_MAGIC_LEN))
		return ORDMA_FLASH_BAD_MAGIC;
	if (le32_to_cpu(h.format) != ORDMA_FLASH_FORMAT)
		return ORDMA_FLASH_BAD_FORMAT;
	if (h.reserved_1c)
		return ORDMA_FLASH_BAD_HEADER;

	slot_size = le32_to_cpu(h.slot_size);
	if (slot_size % ORDMA_FLASH_BLOCK ||
	    slot_size < ORDMA_IMAGE_SIZE(0))
		return ORDMA_FLASH_BAD_SLOT_SIZE;
	active = le32_to_cpu(h.active);
	if (active >= ORDMA_FLASH_SLOTS)
		return ORDMA_FLASH_BAD_ACTIVE;
	pending = le32_to_cpu(h.pending);
	if (pending == active ||
	    (pending >= ORDMA_FLASH_SLOTS && pending != ORDMA_FLASH_NO_SLOT))
		return ORDMA_FLASH_BAD_PENDING;
	for (i = 0; i < ORDMA_FLASH_SLOTS; i++) {
		image_size[i] = le64_to_cpu(h.image_size[i]);
		if (image_size[i] > slot_size)
			return ORDMA_FLASH_BAD_IMAGE_SIZE;
	}
	/* slot_size < 2^32: no overflow */
	if (flash_size < ORDMA_FLASH_SLOT_OFFSET(slot_size, ORDMA_FLASH_SLOTS))
		return ORDMA_FLASH_TRUNCATED;

	st->slot_size = slot_size;
	st->active = active;
	st->pending = pending;
	st->generation = le32_to_cpu(h.generation);
	for (i = 0; i < ORDMA_FLASH_SLOTS; i++)
		st->image_size[i] = image_size[i];
	return ORDMA_IMAGE_OK;
}

void ordma_flash_encode(const struct ordma_flash_state *st, void *hdr_block)
{
	struct ordma_flash_header h;
	unsigned int i;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, ORDMA_FLASH_MAGIC, ORDMA_IMAGE_MAGIC_LEN);
	h.format = cpu_to_le32(ORDMA_FLASH_FORMAT);
	h.slot_size = cpu_to_le32(st->slot_size);
	h.active = cpu_to_le32(st->active);
	h.pending = cpu_to_le32(st->pending);
	h.generation = cpu_to_le32(st->generation);
	for (i = 0; i < ORDMA_FLASH_SLOTS; i++)
		h.image_size[i] = cpu_to_le64(st->image_size[i]);

	memset(hdr_block, 0, ORDMA_FLASH_BLOCK);
	memcpy(hdr_block, &h, sizeof(h));
}
