// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Firmware images and flash headers (image/ordma_image.h): what is built
 * parses and verifies, and every way an image or a flash header can be
 * wrong is refused with its own error, structure before key, key before
 * signature, signature before what the image is for.  Every image is a
 * heap block of its exact length, so that a read past it is caught.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include <ordma-compat/ordma_compat.h>
#include "image/ordma_image.h"
#include "ordma_fw.h"
#include "ordma_test.h"
#include <linux/ordma/ordma_regs.h>

#define PAYLOAD_LEN	1000

struct keys {
	uint8_t pk[crypto_sign_PUBLICKEYBYTES];
	uint8_t sk[crypto_sign_SECRETKEYBYTES];
};

static bool keys_new(struct keys *k)
{
	return sodium_init() >= 0 && !crypto_sign_keypair(k->pk, k->sk);
}

/* What the device accepts */
static void info_default(struct ordma_image_info *info)
{
	memset(info, 0, sizeof(*info));
	info->fw_major = 2;
	info->fw_minor = 3;
	info->fw_sub_minor = 4;
	info->fw_build = 0x01020304;
	info->if_major = ORDMA_HW_VERSION_MAJOR;
	info->if_minor = ORDMA_HW_VERSION_MINOR;
	info->abi_major = ORDMA_FW_ABI_MAJOR;
	info->abi_minor = ORDMA_FW_ABI_MINOR;
	strcpy(info->board_id, ORDMA_FW_BOARD_ID);
}

static uint8_t payload[PAYLOAD_LEN];

static void payload_fill(void)
{
	size_t i;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 1);
}

/* A signed image of info; NULL on failure */
static uint8_t *build(const struct ordma_image_info *info,
		      const struct keys *k, size_t *len)
{
	void *img;

	payload_fill();
	if (ordma_image_build(info, payload, sizeof(payload), k->sk, &img,
			      len) != ORDMA_IMAGE_OK)
		return NULL;
	return img;
}

static uint8_t *build_default(const struct keys *k, size_t *len)
{
	struct ordma_image_info info;

	info_default(&info);
	return build(&info, k, len);
}

static struct ordma_image_header *hdr(uint8_t *img)
{
	return (struct ordma_image_header *)img;
}

/* A copy of the len bytes at img in a block of new_len bytes */
static uint8_t *resized(const uint8_t *img, size_t len, size_t new_len)
{
	uint8_t *p = calloc(1, new_len ? new_len : 1);

	if (p)
		memcpy(p, img, len < new_len ? len : new_len);
	return p;
}

static int verify(const uint8_t *img, size_t len, const struct keys *k)
{
	return ordma_image_verify(img, len, k->pk, ORDMA_FW_BOARD_ID, NULL);
}

TEST(test_image_round_trip)
{
	struct ordma_image_info in, out;
	struct keys k;
	uint8_t *img;
	size_t len;

	REQUIRE(keys_new(&k));
	info_default(&in);
	img = build(&in, &k, &len);
	REQUIRE(img);
	CHECK_EQ(len, ORDMA_IMAGE_SIZE(PAYLOAD_LEN));
	CHECK(!memcmp(img, ORDMA_IMAGE_MAGIC, ORDMA_IMAGE_MAGIC_LEN));

	memset(&out, 0xff, sizeof(out));
	CHECK_EQ(ordma_image_parse(img, len, &out), ORDMA_IMAGE_OK);
	CHECK_EQ(out.fw_major, 2);
	CHECK_EQ(out.fw_minor, 3);
	CHECK_EQ(out.fw_sub_minor, 4);
	CHECK_EQ(out.fw_build, 0x01020304);
	CHECK_EQ(out.if_major, ORDMA_HW_VERSION_MAJOR);
	CHECK_EQ(out.if_minor, ORDMA_HW_VERSION_MINOR);
	CHECK_EQ(out.abi_major, ORDMA_FW_ABI_MAJOR);
	CHECK_EQ(out.abi_minor, ORDMA_FW_ABI_MINOR);
	CHECK_EQ(out.sig_type, ORDMA_IMAGE_SIG_ED25519);
	CHECK(!memcmp(out.key_id, k.pk, ORDMA_IMAGE_KEY_ID_SIZE));
	CHECK(!strcmp(out.board_id, ORDMA_FW_BOARD_ID));
	CHECK_EQ(out.payload_offset, sizeof(struct ordma_image_header));
	CHECK_EQ(out.payload_size, PAYLOAD_LEN);
	CHECK_EQ(out.image_size, len);
	CHECK(!memcmp(img + out.payload_offset, payload, PAYLOAD_LEN));

	memset(&out, 0, sizeof(out));
	CHECK_EQ(ordma_image_verify(img, len, k.pk, ORDMA_FW_BOARD_ID, &out),
		 ORDMA_IMAGE_OK);
	CHECK_EQ(out.payload_size, PAYLOAD_LEN);
	CHECK_EQ(ordma_image_verify(img, len, k.pk, NULL, NULL),
		 ORDMA_IMAGE_OK);
	free(img);
}

TEST(test_image_empty_payload_and_alignment)
{
	struct ordma_image_info info;
	uint8_t *img, *odd;
	struct keys k;
	size_t len;
	void *p;

	REQUIRE(keys_new(&k));
	info_default(&info);
	REQUIRE_EQ(ordma_image_build(&info, NULL, 0, k.sk, &p, &len),
		   ORDMA_IMAGE_OK);
	img = p;
	CHECK_EQ(len, ORDMA_IMAGE_SIZE(0));
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_OK);

	/* An image may sit at any address */
	odd = malloc(len + 1);
	REQUIRE(odd);
	memcpy(odd + 1, img, len);
	CHECK_EQ(verify(odd + 1, len, &k), ORDMA_IMAGE_OK);
	free(odd);
	free(img);
}

TEST(test_image_tampering_breaks_the_signature)
{
	struct keys k;
	uint8_t *img;
	size_t len;

	REQUIRE(keys_new(&k));
	img = build_default(&k, &len);
	REQUIRE(img);

	/* a payload byte */
	img[sizeof(struct ordma_image_header) + 17] ^= 0x01;
	CHECK_EQ(ordma_image_parse(img, len, NULL), ORDMA_IMAGE_OK);
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_BAD_SIGNATURE);
	img[sizeof(struct ordma_image_header) + 17] ^= 0x01;
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_OK);

	/* a header byte the structure checks accept */
	hdr(img)->fw_build ^= cpu_to_le32(0x100);
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_BAD_SIGNATURE);
	hdr(img)->fw_build ^= cpu_to_le32(0x100);

	/* the signature itself, first and last byte */
	img[len - ORDMA_IMAGE_SIG_SIZE] ^= 0x80;
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_BAD_SIGNATURE);
	img[len - ORDMA_IMAGE_SIG_SIZE] ^= 0x80;
	img[len - 1] ^= 0x01;
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_BAD_SIGNATURE);
	img[len - 1] ^= 0x01;

	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_OK);
	free(img);
}

TEST(test_image_wrong_key)
{
	struct keys k, other;
	uint8_t *img;
	size_t len;

	REQUIRE(keys_new(&k));
	REQUIRE(keys_new(&other));
	img = build_default(&k, &len);
	REQUIRE(img);

	CHECK_EQ(verify(img, len, &other), ORDMA_IMAGE_UNKNOWN_KEY);

	/* A key id naming the other key: the header no longer verifies */
	memcpy(hdr(img)->key_id, other.pk, ORDMA_IMAGE_KEY_ID_SIZE);
	CHECK_EQ(verify(img, len, &other), ORDMA_IMAGE_BAD_SIGNATURE);
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_UNKNOWN_KEY);
	free(img);
}

TEST(test_image_wrong_board)
{
	struct ordma_image_info info;
	struct keys k, other;
	uint8_t *img;
	size_t len;

	REQUIRE(keys_new(&k));
	REQUIRE(keys_new(&other));
	info_default(&info);
	strcpy(info.board_id, "ORDMA-RNIC-V2");
	img = build(&info, &k, &len);
	REQUIRE(img);

	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_WRONG_BOARD);
	CHECK_EQ(ordma_image_verify(img, len, k.pk, "ORDMA-RNIC-V2", NULL),
		 ORDMA_IMAGE_OK);
	CHECK_EQ(ordma_image_verify(img, len, k.pk, NULL, NULL),
		 ORDMA_IMAGE_OK);
	/* A prefix of the board is another board */
	CHECK_EQ(ordma_image_verify(img, len, k.pk, "ORDMA-RNIC", NULL),
		 ORDMA_IMAGE_WRONG_BOARD);

	/* The key and the signature are checked first */
	CHECK_EQ(verify(img, len, &other), ORDMA_IMAGE_UNKNOWN_KEY);
	img[len - 1] ^= 0x01;
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_BAD_SIGNATURE);
	free(img);
}

/* verify() of a good image of info changed by field() */
static int verify_modified(void (*field)(struct ordma_image_info *))
{
	struct ordma_image_info info;
	struct keys k;
	uint8_t *img;
	size_t len;
	int err;

	if (!keys_new(&k))
		return -1;
	info_default(&info);
	field(&info);
	img = build(&info, &k, &len);
	if (!img)
		return -1;
	err = verify(img, len, &k);
	free(img);
	return err;
}

static void abi_major_up(struct ordma_image_info *i) { i->abi_major++; }
static void abi_major_down(struct ordma_image_info *i) { i->abi_major--; }
static void abi_minor_up(struct ordma_image_info *i) { i->abi_minor++; }
static void if_major_up(struct ordma_image_info *i) { i->if_major++; }
static void if_major_down(struct ordma_image_info *i) { i->if_major--; }
static void if_minor_up(struct ordma_image_info *i) { i->if_minor++; }
static void fw_version_any(struct ordma_image_info *i)
{
	i->fw_major = 0xffff;
	i->fw_minor = 0;
	i->fw_sub_minor = 0xffff;
	i->fw_build = 0xffffffff;
}

TEST(test_image_abi_and_interface)
{
	CHECK_EQ(verify_modified(abi_major_up), ORDMA_IMAGE_BAD_ABI);
	CHECK_EQ(verify_modified(abi_major_down), ORDMA_IMAGE_BAD_ABI);
	/* a newer entry table of the same major only appends: it works */
	CHECK_EQ(verify_modified(abi_minor_up), ORDMA_IMAGE_OK);
	CHECK_EQ(verify_modified(if_major_up), ORDMA_IMAGE_BAD_INTERFACE);
	CHECK_EQ(verify_modified(if_major_down), ORDMA_IMAGE_BAD_INTERFACE);
	/* a minor interface change is compatible */
	CHECK_EQ(verify_modified(if_minor_up), ORDMA_IMAGE_OK);
	CHECK_EQ(verify_modified(fw_version_any), ORDMA_IMAGE_OK);
}

TEST(test_image_length_must_match)
{
	struct keys k;
	uint8_t *img, *p;
	size_t len, n;

	REQUIRE(keys_new(&k));
	img = build_default(&k, &len);
	REQUIRE(img);

	p = resized(img, len, len - 1);
	REQUIRE(p);
	CHECK_EQ(ordma_image_parse(p, len - 1, NULL), ORDMA_IMAGE_TRUNCATED);
	CHECK_EQ(verify(p, len - 1, &k), ORDMA_IMAGE_TRUNCATED);
	free(p);

	p = resized(img, len, len + 1);
	REQUIRE(p);
	CHECK_EQ(ordma_image_parse(p, len + 1, NULL), ORDMA_IMAGE_BAD_HEADER);
	CHECK_EQ(verify(p, len + 1, &k), ORDMA_IMAGE_BAD_HEADER);
	free(p);

	/* Shorter than a header, down to nothing */
	for (n = 0; n < sizeof(struct ordma_image_header); n += 9) {
		p = resized(img, len, n);
		REQUIRE(p);
		CHECK_EQ(ordma_image_parse(p, n, NULL), ORDMA_IMAGE_TRUNCATED);
		free(p);
	}
	p = resized(img, len, sizeof(struct ordma_image_header));
	REQUIRE(p);
	CHECK_EQ(ordma_image_parse(p, sizeof(struct ordma_image_header), NULL),
		 ORDMA_IMAGE_TRUNCATED);
	free(p);
	free(img);
}

TEST(test_image_payload_size_bounds)
{
	static const uint64_t sizes[] = {
		ORDMA_IMAGE_MAX_PAYLOAD + 1ULL,
		UINT32_MAX, 1ULL << 32, 1ULL << 63,
		/* header + payload + signature wraps around */
		UINT64_MAX - sizeof(struct ordma_image_header) + 1,
		UINT64_MAX - ORDMA_IMAGE_SIG_SIZE, UINT64_MAX,
	};
	struct keys k;
	uint8_t *img;
	size_t len, i;

	REQUIRE(keys_new(&k));
	img = build_default(&k, &len);
	REQUIRE(img);

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		hdr(img)->payload_size = cpu_to_le64(sizes[i]);
		CHECK_EQ(ordma_image_parse(img, len, NULL),
			 ORDMA_IMAGE_TOO_LARGE);
		CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_TOO_LARGE);
	}
	/* The largest payload is allowed, but this image is far shorter */
	hdr(img)->payload_size = cpu_to_le64(ORDMA_IMAGE_MAX_PAYLOAD);
	CHECK_EQ(ordma_image_parse(img, len, NULL), ORDMA_IMAGE_TRUNCATED);
	/* One byte more or less than the image holds */
	hdr(img)->payload_size = cpu_to_le64(PAYLOAD_LEN + 1);
	CHECK_EQ(ordma_image_parse(img, len, NULL), ORDMA_IMAGE_TRUNCATED);
	hdr(img)->payload_size = cpu_to_le64(PAYLOAD_LEN - 1);
	CHECK_EQ(ordma_image_parse(img, len, NULL), ORDMA_IMAGE_BAD_HEADER);
	hdr(img)->payload_size = cpu_to_le64(0);
	CHECK_EQ(ordma_image_parse(img, len, NULL), ORDMA_IMAGE_BAD_HEADER);
	hdr(img)->payload_size = cpu_to_le64(PAYLOAD_LEN);
	CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_OK);
	free(img);
}

TEST(test_image_header_fields)
{
	struct ordma_image_header *h;
	struct keys k;
	uint8_t *img;
	size_t len, i;

	REQUIRE(keys_new(&k));
	img = build_default(&k, &len);
	REQUIRE(img);
	h = hdr(img);

#define EXPECT_FIELD(change, restore, err) do {				\
		change;							\
		CHECK_EQ(ordma_image_parse(img, len, NULL), err);	\
		CHECK_EQ(verify(img, len, &k), err);			\
		restore;						\
		CHECK_EQ(verify(img, len, &k), ORDMA_IMAGE_OK);		\
	} while (0)

	EXPECT_FIELD(h->magic[0] ^= 0x20, h->magic[0] ^= 0x20,
		     ORDMA_IMAGE_BAD_MAGIC);
	EXPECT_FIELD(h->magic[7] = 0, h->magic[7] = 'I',
		     ORDMA_IMAGE_BAD_MAGIC);
	EXPECT_FIELD(h->format = cpu_to_le32(ORDMA_IMAGE_FORMAT + 1),
		     h->format = cpu_to_le32(ORDMA_IMAGE_FORMAT),
		     ORDMA_IMAGE_BAD_FORMAT);
	EXPECT_FIELD(h->format = 0, h->format = cpu_to_le32(ORDMA_IMAGE_FORMAT),
		     ORDMA_IMAGE_BAD_FORMAT);
	EXPECT_FIELD(h->header_size = cpu_to_le32(129),
		     h->header_size = cpu_to_le32(128),
		     ORDMA_IMAGE_BAD_HEADER);
	EXPECT_FIELD(h->header_size = cpu_to_le32(64),
		     h->header_size = cpu_to_le32(128),
		     ORDMA_IMAGE_BAD_HEADER);
	EXPECT_FIELD(h->reserved_1e = cpu_to_le16(1), h->reserved_1e = 0,
		     ORDMA_IMAGE_BAD_HEADER);
	for (i = 0; i < sizeof(h->reserved_58); i += 13)
		EXPECT_FIELD(h->reserved_58[i] = 0x40, h->reserved_58[i] = 0,
			     ORDMA_IMAGE_BAD_HEADER);
	EXPECT_FIELD(h->reserved_58[39] = 1, h->reserved_58[39] = 0,
		     ORDMA_IMAGE_BAD_HEADER);
	EXPECT_FIELD(h->sig_type = cpu_to_le32(ORDMA_IMAGE_SIG_ED25519 + 1),
		     h->sig_type = cpu_to_le32(ORDMA_IMAGE_SIG_ED25519),
		     ORDMA_IMAGE_BAD_SIG_TYPE);
	EXPECT_FIELD(h->sig_type = 0,
		     h->sig_type = cpu_to_le32(ORDMA_IMAGE_SIG_ED25519),
		     ORDMA_IMAGE_BAD_SIG_TYPE);
	/* The board id: NUL-terminated and NUL padded */
	EXPECT_FIELD(h->board_id[ORDMA_IMAGE_BOARD_ID_SIZE - 1] = 'X',
		     h->board_id[ORDMA_IMAGE_BOARD_ID_SIZE - 1] = 0,
		     ORDMA_IMAGE_BAD_HEADER);
	EXPECT_FIELD(h->board_id[sizeof(ORDMA_FW_BOARD_ID) + 2] = 'X',
		     h->board_id[sizeof(ORDMA_FW_BOARD_ID) + 2] = 0,
		     ORDMA_IMAGE_BAD_HEADER);
#undef EXPECT_FIELD

	/* A board id of every byte but the terminating NUL */
	memset(h->board_id, 'A', sizeof(h->board_id));
	CHECK_EQ(ordma_image_parse(img, len, NULL), ORDMA_IMAGE_BAD_HEADER);
	free(img);
}

TEST(test_image_build_refuses)
{
	struct ordma_image_info info;
	struct keys k;
	size_t len = 1;
	void *img = &len;

	REQUIRE(keys_new(&k));
	info_default(&info);
	/* checked before the payload is read */
	CHECK_EQ(ordma_image_build(&info, NULL, ORDMA_IMAGE_MAX_PAYLOAD + 1,
				   k.sk, &img, &len), ORDMA_IMAGE_TOO_LARGE);
	CHECK(!img);
	CHECK_EQ(len, 0);
	CHECK_EQ(ordma_image_build(&info, NULL, 1, k.sk, &img, &len),
		 ORDMA_IMAGE_BAD_ARGUMENT);

	/* The board id needs its NUL within the field */
	memset(info.board_id, 'B', sizeof(info.board_id));
	CHECK_EQ(ordma_image_build(&info, payload, 1, k.sk, &img, &len),
		 ORDMA_IMAGE_BAD_ARGUMENT);
	CHECK(!img);
	info.board_id[sizeof(info.board_id) - 1] = 0;
	REQUIRE_EQ(ordma_image_build(&info, payload, 1, k.sk, &img, &len),
		   ORDMA_IMAGE_OK);
	CHECK_EQ(ordma_image_verify(img, len, k.pk, info.board_id, NULL),
		 ORDMA_IMAGE_OK);
	free(img);
}

TEST(test_image_strerror)
{
	int i, j;

	for (i = 0; i < ORDMA_IMAGE_ERRORS; i++) {
		CHECK(ordma_image_strerror(i));
		CHECK(strcmp(ordma_image_strerror(i), "unknown error"));
		for (j = 0; j < i; j++)
			CHECK(strcmp(ordma_image_strerror(i),
				     ordma_image_strerror(j)));
	}
	CHECK(!strcmp(ordma_image_strerror(ORDMA_IMAGE_BAD_SIGNATURE),
		      "signature does not verify"));
	CHECK(!strcmp(ordma_image_strerror(-1), "unknown error"));
	CHECK(!strcmp(ordma_image_strerror(ORDMA_IMAGE_ERRORS),
		      "unknown error"));
}

/* ------------------------------------------------------------ flash */

#define SLOT_SIZE	(64 * 4096)
#define FLASH_SIZE	(ORDMA_FLASH_BLOCK + 2ULL * SLOT_SIZE)

static void flash_good(uint8_t *block)
{
	struct ordma_flash_state st = {
		.slot_size = SLOT_SIZE,
		.active = 1,
		.pending = 0,
		.generation = 42,
		.image_size = { SLOT_SIZE, ORDMA_IMAGE_SIZE(100) },
	};

	memset(block, 0xa5, ORDMA_FLASH_BLOCK);
	ordma_flash_encode(&st, block);
}

static struct ordma_flash_header *fhdr(uint8_t *block)
{
	return (struct ordma_flash_header *)block;
}

static int flash_parse(const uint8_t *block)
{
	struct ordma_flash_state st;

	return ordma_flash_parse(block, ORDMA_FLASH_BLOCK, FLASH_SIZE, &st);
}

TEST(test_flash_round_trip)
{
	struct ordma_flash_state st;
	uint8_t *block;
	size_t i;

	block = malloc(ORDMA_FLASH_BLOCK);
	REQUIRE(block);
	flash_good(block);
	CHECK(!memcmp(block, ORDMA_FLASH_MAGIC, ORDMA_IMAGE_MAGIC_LEN));
	for (i = sizeof(struct ordma_flash_header); i < ORDMA_FLASH_BLOCK; i++)
		if (block[i])
			break;
	CHECK_EQ(i, ORDMA_FLASH_BLOCK);

	memset(&st, 0, sizeof(st));
	CHECK_EQ(ordma_flash_parse(block, ORDMA_FLASH_BLOCK, FLASH_SIZE, &st),
		 ORDMA_IMAGE_OK);
	CHECK_EQ(st.slot_size, SLOT_SIZE);
	CHECK_EQ(st.active, 1);
	CHECK_EQ(st.pending, 0);
	CHECK_EQ(st.generation, 42);
	CHECK_EQ(st.image_size[0], SLOT_SIZE);
	CHECK_EQ(st.image_size[1], ORDMA_IMAGE_SIZE(100));

	/* a longer file, empty slots, nothing pending */
	fhdr(block)->pending = cpu_to_le32(ORDMA_FLASH_NO_SLOT);
	fhdr(block)->image_size[0] = 0;
	fhdr(block)->image_size[1] = 0;
	CHECK_EQ(ordma_flash_parse(block, ORDMA_FLASH_BLOCK, FLASH_SIZE + 1,
				   &st), ORDMA_IMAGE_OK);
	CHECK_EQ(st.pending, ORDMA_FLASH_NO_SLOT);
	CHECK_EQ(st.image_size[0], 0);
	free(block);
}

TEST(test_flash_bad_fields)
{
	struct ordma_flash_header *h;
	struct ordma_flash_state st;
	uint8_t *block;

	block = malloc(ORDMA_FLASH_BLOCK);
	REQUIRE(block);
	flash_good(block);
	h = fhdr(block);

#define EXPECT_FLASH(change, err) do {					\
		change;							\
		CHECK_EQ(flash_parse(block), err);			\
		flash_good(block);					\
	} while (0)

	EXPECT_FLASH(h->magic[3] ^= 1, ORDMA_FLASH_BAD_MAGIC);
	EXPECT_FLASH(memcpy(h->magic, ORDMA_IMAGE_MAGIC, 8),
		     ORDMA_FLASH_BAD_MAGIC);
	EXPECT_FLASH(h->format = cpu_to_le32(ORDMA_FLASH_FORMAT + 1),
		     ORDMA_FLASH_BAD_FORMAT);
	EXPECT_FLASH(h->reserved_1c = cpu_to_le32(1 << 24),
		     ORDMA_FLASH_BAD_HEADER);
	EXPECT_FLASH(h->slot_size = 0, ORDMA_FLASH_BAD_SLOT_SIZE);
	EXPECT_FLASH(h->slot_size = cpu_to_le32(SLOT_SIZE + 1),
		     ORDMA_FLASH_BAD_SLOT_SIZE);
	EXPECT_FLASH(h->slot_size = cpu_to_le32(SLOT_SIZE - 512),
		     ORDMA_FLASH_BAD_SLOT_SIZE);
	EXPECT_FLASH(h->slot_size = cpu_to_le32(0xfffff000),
		     ORDMA_FLASH_TRUNCATED);
	EXPECT_FLASH(h->active = cpu_to_le32(2), ORDMA_FLASH_BAD_ACTIVE);
	EXPECT_FLASH(h->active = cpu_to_le32(ORDMA_FLASH_NO_SLOT),
		     ORDMA_FLASH_BAD_ACTIVE);
	EXPECT_FLASH(h->pending = cpu_to_le32(1), ORDMA_FLASH_BAD_PENDING);
	EXPECT_FLASH(h->pending = cpu_to_le32(2), ORDMA_FLASH_BAD_PENDING);
	EXPECT_FLASH(h->pending = cpu_to_le32(ORDMA_FLASH_NO_SLOT - 1),
		     ORDMA_FLASH_BAD_PENDING);
	EXPECT_FLASH(h->image_size[0] = cpu_to_le64(SLOT_SIZE + 1ULL),
		     ORDMA_FLASH_BAD_IMAGE_SIZE);
	EXPECT_FLASH(h->image_size[1] = cpu_to_le64(UINT64_MAX),
		     ORDMA_FLASH_BAD_IMAGE_SIZE);
#undef EXPECT_FLASH

	/* The smallest slot holds an image with no payload */
	h->slot_size = cpu_to_le32(ORDMA_FLASH_BLOCK);
	h->image_size[0] = cpu_to_le64(ORDMA_IMAGE_SIZE(0));
	h->image_size[1] = 0;
	CHECK_EQ(ordma_flash_parse(block, ORDMA_FLASH_BLOCK,
				   3 * ORDMA_FLASH_BLOCK, &st),
		 ORDMA_IMAGE_OK);
	flash_good(block);

	/* Both slots must be inside the file; the block must be whole */
	CHECK_EQ(ordma_flash_parse(block, ORDMA_FLASH_BLOCK, FLASH_SIZE - 1,
				   &st), ORDMA_FLASH_TRUNCATED);
	CHECK_EQ(ordma_flash_parse(block, ORDMA_FLASH_BLOCK, 0, &st),
		 ORDMA_FLASH_TRUNCATED);
	CHECK_EQ(ordma_flash_parse(block, ORDMA_FLASH_BLOCK - 1, FLASH_SIZE,
				   &st), ORDMA_FLASH_TRUNCATED);
	CHECK_EQ(flash_parse(block), ORDMA_IMAGE_OK);
	free(block);
}
