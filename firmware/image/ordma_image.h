/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Firmware images and the flash that holds them: parsing, verification
 * and building of the formats of <linux/ordma/ordma_image.h>.
 *
 * Hosts (tools/fw/ordma-fw-image) and the device model use this library;
 * it is not part of the firmware's rooms.  Every input is untrusted: an
 * image comes from a guest, a flash file from disk.  The functions
 * return an enum ordma_image_error (0 on success); the structures they
 * fill are in CPU byte order.
 *
 * Signatures are Ed25519 (libsodium).  ordma_image_verify() and
 * ordma_image_build() call sodium_init() themselves.
 */
#ifndef ORDMA_IMAGE_LIB_H
#define ORDMA_IMAGE_LIB_H

#include <stddef.h>
#include <stdint.h>

#include <linux/ordma/ordma_image.h>

/* enum ordma_image_error is in <linux/ordma/ordma_image.h>: FLASH_COMMIT
 * reports it to the driver.
 */

/* A short fixed message for an enum ordma_image_error */
const char *ordma_image_strerror(int err);

/* The header of an image, in CPU byte order */
struct ordma_image_info {
	uint16_t fw_major;
	uint16_t fw_minor;
	uint16_t fw_sub_minor;
	uint32_t fw_build;
	uint16_t if_major;
	uint16_t if_minor;
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t sig_type;
	uint8_t key_id[ORDMA_IMAGE_KEY_ID_SIZE];
	char board_id[ORDMA_IMAGE_BOARD_ID_SIZE];	/* NUL-terminated */
	size_t payload_offset;		/* from the start of the image */
	size_t payload_size;
	size_t image_size;		/* header, payload and signature */
};

/*
 * Checks the structure of the image of len bytes at img (magic, format,
 * sizes, reserved fields, signature type; len must be exactly the size
 * the header gives) and fills info.  Does not check the signature.
 */
int ordma_image_parse(const void *img, size_t len,
		      struct ordma_image_info *info);

/*
 * ordma_image_parse(), then the image's key id against pubkey, its
 * signature, its board (unless board_id is NULL), its firmware entry
 * table (ORDMA_FW_ABI_*) and its interface (ORDMA_HW_VERSION_MAJOR), in
 * that order.  info may be NULL.
 */
int ordma_image_verify(const void *img, size_t len,
		       const uint8_t pubkey[ORDMA_IMAGE_PUBKEY_SIZE],
		       const char *board_id, struct ordma_image_info *info);

/* libsodium's Ed25519 secret key: seed, then the public key */
#define ORDMA_IMAGE_SECKEY_SIZE		64

/*
 * Builds a signed image of payload_len bytes of payload with the
 * versions and board_id of info (its other fields are ignored; the key
 * id is that of seckey's public half).  On success *img_out is a
 * malloc'd image of *len_out bytes, which the caller frees.
 */
int ordma_image_build(const struct ordma_image_info *info,
		      const void *payload, size_t payload_len,
		      const uint8_t seckey[ORDMA_IMAGE_SECKEY_SIZE],
		      void **img_out, size_t *len_out);

/* The flash header, in CPU byte order */
struct ordma_flash_state {
	uint32_t slot_size;
	uint32_t active;
	uint32_t pending;		/* or ORDMA_FLASH_NO_SLOT */
	uint32_t generation;
	uint64_t image_size[ORDMA_FLASH_SLOTS];	/* 0: empty */
};

/*
 * Checks the header block (block_len bytes, at least ORDMA_FLASH_BLOCK)
 * of a flash of flash_size bytes and fills st.
 */
int ordma_flash_parse(const void *hdr_block, size_t block_len,
		      uint64_t flash_size, struct ordma_flash_state *st);

/* Writes the ORDMA_FLASH_BLOCK bytes of the header block of st. */
void ordma_flash_encode(const struct ordma_flash_state *st, void *hdr_block);

#endif /* ORDMA_IMAGE_LIB_H */
