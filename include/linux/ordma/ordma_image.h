/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * ORDMA firmware image and flash formats.
 *
 * A firmware image is what `devlink dev flash` hands to the device: a
 * header, the firmware payload (the code the device runs), and an Ed25519
 * signature over the header and the payload together.  The device checks
 * the signature against the public key it was manufactured with before it
 * stores an image as bootable, and again before it runs one.  The driver
 * reads the header only, to refuse an image for another board or with an
 * interface it does not speak before sending it.
 *
 * The flash is the device's non-volatile store: a header block saying
 * which slot runs and which is pending, then two slots of equal size,
 * each holding one image or nothing.  The running image is never written:
 * an update goes to the other slot, and becomes the running one only when
 * it is activated and passes its self-test; otherwise the device goes
 * back to the image it ran before.
 *
 * Documentation/ordma/hw-reference.rst ("Firmware images") describes
 * every field.  All multi-byte fields are little endian.
 */
#ifndef _LINUX_ORDMA_IMAGE_H
#define _LINUX_ORDMA_IMAGE_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>		/* static_assert */
#endif

/* ------------------------------------------------------------------ */
/* Image                                                               */
/* ------------------------------------------------------------------ */

#define ORDMA_IMAGE_MAGIC		"ORDMAFWI"	/* 8 bytes, no NUL */
#define ORDMA_IMAGE_MAGIC_LEN		8
#define ORDMA_IMAGE_FORMAT		1

#define ORDMA_IMAGE_SIG_ED25519		1
#define ORDMA_IMAGE_SIG_SIZE		64	/* after the payload */
#define ORDMA_IMAGE_PUBKEY_SIZE		32
#define ORDMA_IMAGE_KEY_ID_SIZE		8	/* first bytes of the key */

/* Largest payload a device accepts */
#define ORDMA_IMAGE_MAX_PAYLOAD		(16U << 20)

#define ORDMA_IMAGE_BOARD_ID_SIZE	32

struct ordma_image_header {
	__u8	magic[ORDMA_IMAGE_MAGIC_LEN];
	__le32	format;			/* ORDMA_IMAGE_FORMAT */
	__le32	header_size;		/* sizeof(struct ordma_image_header) */
	__le64	payload_size;		/* bytes between header and signature */
	__le16	fw_major;		/* the version QUERY_FW reports */
	__le16	fw_minor;
	__le16	fw_sub_minor;
	__le16	reserved_1e;
	__le32	fw_build;
	__le16	if_major;		/* the VERSION register it presents */
	__le16	if_minor;
	__le16	abi_major;		/* the device's firmware entry table */
	__le16	abi_minor;
	__le32	sig_type;		/* ORDMA_IMAGE_SIG_* */
	__u8	key_id[ORDMA_IMAGE_KEY_ID_SIZE];	/* of the signing key */
	__u8	board_id[ORDMA_IMAGE_BOARD_ID_SIZE];	/* NUL padded */
	__u8	reserved_58[40];
};

/* The whole image: header, payload, signature */
#define ORDMA_IMAGE_SIZE(payload) \
	(sizeof(struct ordma_image_header) + (payload) + ORDMA_IMAGE_SIG_SIZE)

/*
 * Why an image (or a flash header) is refused: the checks in the order
 * the device makes them.  FLASH_COMMIT reports the value as its
 * BAD_PARAM syndrome; the *_ARGUMENT, *_MEMORY and *_CRYPTO values are
 * the image library's own (firmware/image/).
 */
enum ordma_image_error {
	ORDMA_IMAGE_OK = 0,
	/* the image: structure */
	ORDMA_IMAGE_TRUNCATED,		/* shorter than its header says */
	ORDMA_IMAGE_BAD_MAGIC,
	ORDMA_IMAGE_BAD_FORMAT,
	ORDMA_IMAGE_BAD_HEADER,		/* header_size, reserved, board_id, length */
	ORDMA_IMAGE_TOO_LARGE,		/* payload > ORDMA_IMAGE_MAX_PAYLOAD */
	ORDMA_IMAGE_BAD_SIG_TYPE,
	/* the image: signature */
	ORDMA_IMAGE_UNKNOWN_KEY,	/* key_id is not the key's */
	ORDMA_IMAGE_BAD_SIGNATURE,
	/* the image: does it fit this device */
	ORDMA_IMAGE_WRONG_BOARD,
	ORDMA_IMAGE_BAD_ABI,
	ORDMA_IMAGE_BAD_INTERFACE,
	/* building (the library, not the device) */
	ORDMA_IMAGE_BAD_ARGUMENT,
	ORDMA_IMAGE_NO_MEMORY,
	ORDMA_IMAGE_CRYPTO_FAILED,	/* libsodium failed to initialise or sign */
	/* the flash header */
	ORDMA_FLASH_TRUNCATED,		/* block or file too short */
	ORDMA_FLASH_BAD_MAGIC,
	ORDMA_FLASH_BAD_FORMAT,
	ORDMA_FLASH_BAD_HEADER,		/* reserved field set */
	ORDMA_FLASH_BAD_SLOT_SIZE,
	ORDMA_FLASH_BAD_ACTIVE,
	ORDMA_FLASH_BAD_PENDING,
	ORDMA_FLASH_BAD_IMAGE_SIZE,	/* larger than its slot */

	ORDMA_IMAGE_ERRORS
};

/* ------------------------------------------------------------------ */
/* Flash                                                               */
/* ------------------------------------------------------------------ */

#define ORDMA_FLASH_MAGIC		"ORDMAFLS"	/* 8 bytes, no NUL */
#define ORDMA_FLASH_FORMAT		1
#define ORDMA_FLASH_SLOTS		2
#define ORDMA_FLASH_BLOCK		4096	/* header; slot alignment */
#define ORDMA_FLASH_NO_SLOT		0xffffffffU

struct ordma_flash_header {
	__u8	magic[ORDMA_IMAGE_MAGIC_LEN];
	__le32	format;			/* ORDMA_FLASH_FORMAT */
	__le32	slot_size;		/* multiple of ORDMA_FLASH_BLOCK */
	__le32	active;			/* slot the device runs: 0 or 1 */
	__le32	pending;		/* slot to run after activation, or NO_SLOT */
	__le32	generation;		/* +1 on every update of this header */
	__le32	reserved_1c;
	__le64	image_size[ORDMA_FLASH_SLOTS];	/* 0: slot empty */
};

/* Slot n starts at ORDMA_FLASH_BLOCK + n * slot_size. */
#define ORDMA_FLASH_SLOT_OFFSET(slot_size, n) \
	(ORDMA_FLASH_BLOCK + (__u64)(n) * (slot_size))

static_assert(sizeof(struct ordma_image_header) == 128, "image_header");
static_assert(sizeof(struct ordma_flash_header) == 48, "flash_header");

#endif /* _LINUX_ORDMA_IMAGE_H */
