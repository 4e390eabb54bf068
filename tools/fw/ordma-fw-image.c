// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ordma-fw-image: makes, inspects and checks ORDMA firmware images and
 * flash files (include/linux/ordma/ordma_image.h, firmware/image/).
 *
 *   keygen -o PREFIX            PREFIX.key (secret), PREFIX.pub (public)
 *   sign -k KEY -o OUT [...] PAYLOAD
 *   info IMAGE
 *   verify -p PUB [-B BOARD | --any-board] IMAGE
 *   flash -o FLASH [--slot-size BYTES] IMAGE [IMAGE2]
 *   flash-info FLASH
 *
 * Keys are hex text: the secret key is libsodium's 64-byte Ed25519 key
 * (seed, then public key), the public key its last 32 bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_regs.h>
#include "ordma_fw.h"
#include "image/ordma_image.h"

#define PROG		"ordma-fw-image"
#define MIB		(1024 * 1024)
#define MIN_SLOT	(4 * MIB)
#define MAX_IMAGE	ORDMA_IMAGE_SIZE(ORDMA_IMAGE_MAX_PAYLOAD)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " COMMAND ...\n"
		"  keygen -o PREFIX\n"
		"      write a new signing key: PREFIX.key (secret, mode 0600)\n"
		"      and PREFIX.pub; refuses to overwrite either\n"
		"  sign -k KEY -o OUT [-v MAJOR.MINOR.SUB] [-b BUILD] [-B BOARD]\n"
		"       [--interface MAJOR.MINOR] [--abi MAJOR.MINOR] PAYLOAD\n"
		"      sign PAYLOAD into the image OUT (defaults: version 1.0.0,\n"
		"      build 1, board %s, interface %d.%d, abi %d.%d)\n"
		"  info IMAGE\n"
		"      print the header of IMAGE (its signature is not checked)\n"
		"  verify -p PUB [-B BOARD | --any-board] IMAGE\n"
		"      check IMAGE as the device does (board default %s)\n"
		"  flash -o FLASH [--slot-size BYTES] IMAGE [IMAGE2]\n"
		"      write a flash file: IMAGE in slot 0 (active), IMAGE2 or\n"
		"      nothing in slot 1\n"
		"  flash-info FLASH\n"
		"      print the flash header and the image of each slot\n",
		ORDMA_FW_BOARD_ID, ORDMA_HW_VERSION_MAJOR,
		ORDMA_HW_VERSION_MINOR, ORDMA_FW_ABI_MAJOR, ORDMA_FW_ABI_MINOR,
		ORDMA_FW_BOARD_ID);
}

__attribute__((format(printf, 1, 2)))
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* A command line that does not parse: exit status 2 */
__attribute__((format(printf, 1, 2)))
static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": usage: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* ------------------------------------------------------------ files */

/*
 * Reads the whole of path into a malloc'd buffer; a file of more than
 * max bytes is refused.  Returns 0, or 1 after printing why not.
 */
static int read_file(const char *path, size_t max, uint8_t **buf,
		     size_t *len)
{
	size_t cap = 4096, n = 0, got;
	uint8_t *p = NULL, *q;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		return fail("%s: %s", path, strerror(errno));
	for (;;) {
		if (n == cap || !p) {
			if (p)
				cap *= 2;
			q = realloc(p, cap);
			if (!q) {
				free(p);
				fclose(f);
				return fail("%s: out of memory", path);
			}
			p = q;
		}
		got = fread(p + n, 1, cap - n, f);
		n += got;
		if (n > max) {
			free(p);
			fclose(f);
			return fail("%s: larger than %zu bytes", path, max);
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(p);
		fclose(f);
		return fail("%s: read error", path);
	}
	fclose(f);
	*buf = p;
	*len = n;
	return 0;
}

/* Writes len bytes to fd; returns 0, or 1 after printing why not. */
static int write_all(int fd, const char *path, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail("%s: %s", path,
				    n < 0 ? strerror(errno) : "short write");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Creates path (O_EXCL if exclusive) with mode, writes buf; 0 or 1 */
static int write_file(const char *path, const void *buf, size_t len,
		      mode_t mode, bool exclusive)
{
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC |
		  (exclusive ? O_EXCL : 0), mode);
	if (fd < 0)
		return fail("%s: %s", path, strerror(errno));
	/* whatever the umask, and for a file that already existed */
	if (fchmod(fd, mode)) {
		err = errno;
		close(fd);
		return fail("%s: %s", path, strerror(err));
	}
	err = write_all(fd, path, buf, len);
	if (close(fd) && !err)
		err = fail("%s: %s", path, strerror(errno));
	return err;
}

/* ------------------------------------------------------------ parsing */

static char *hex_encode(const uint8_t *bin, size_t len)
{
	char *s = malloc(len * 2 + 2);

	if (!s)
		return NULL;
	sodium_bin2hex(s, len * 2 + 1, bin, len);
	strcat(s, "\n");
	return s;
}

/* Reads a key file: exactly 2 * len hex digits and an optional newline */
static int read_key(const char *path, uint8_t *key, size_t len)
{
	size_t n, bin_len;
	uint8_t *text;
	int err = 0;

	if (read_file(path, len * 2 + 1, &text, &n))
		return 1;
	if (n == len * 2 + 1 && text[len * 2] == '\n')
		n--;
	if (n != len * 2 ||
	    sodium_hex2bin(key, len, (const char *)text, n, NULL, &bin_len,
			   NULL) || bin_len != len)
		err = fail("%s: not a key (%zu hex digits expected)", path,
			   len * 2);
	sodium_memzero(text, n);
	free(text);
	return err;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

/*
 * "A.B" (n == 2) or "A.B.C" (n == 3), each part a decimal number of at
 * most 65535.
 */
static bool parse_version(const char *s, unsigned int n, uint16_t *out)
{
	unsigned long v;
	unsigned int i;
	char *end;

	for (i = 0; i < n; i++) {
		if (*s < '0' || *s > '9')
			return false;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || v > UINT16_MAX)
			return false;
		out[i] = (uint16_t)v;
		if (i + 1 < n) {
			if (*end != '.')
				return false;
			s = end + 1;
		} else if (*end) {
			return false;
		}
	}
	return true;
}

/* ------------------------------------------------------------ commands */

static int cmd_keygen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	char *key_path = NULL, *pub_path = NULL, *sk_hex = NULL, *pk_hex = NULL;
	const char *prefix = NULL;
	int c, err = 1;
	size_t len;

	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			prefix = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!prefix || optind != argc)
		return bad_usage("keygen -o PREFIX");

	len = strlen(prefix) + sizeof(".key");
	key_path = malloc(len);
	pub_path = malloc(len);
	if (!key_path || !pub_path) {
		fail("out of memory");
		goto out;
	}
	snprintf(key_path, len, "%s.key", prefix);
	snprintf(pub_path, len, "%s.pub", prefix);
	if (crypto_sign_keypair(pk, sk)) {
		fail("keygen: key generation failed");
		goto out;
	}
	sk_hex = hex_encode(sk, sizeof(sk));
	pk_hex = hex_encode(pk, sizeof(pk));
	if (!sk_hex || !pk_hex) {
		fail("out of memory");
		goto out;
	}
	if (write_file(key_path, sk_hex, strlen(sk_hex), 0600, true))
		goto out;
	if (write_file(pub_path, pk_hex, strlen(pk_hex), 0644, true)) {
		unlink(key_path);
		goto out;
	}
	printf("%s\n%s\n", key_path, pub_path);
	err = 0;
out:
	sodium_memzero(sk, sizeof(sk));
	if (sk_hex)
		sodium_memzero(sk_hex, strlen(sk_hex));
	free(sk_hex);
	free(pk_hex);
	free(key_path);
	free(pub_path);
	return err;
}

enum {
	OPT_INTERFACE = 0x100,
	OPT_ABI,
	OPT_SLOT_SIZE,
	OPT_ANY_BOARD,
};

static int cmd_sign(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "version", required_argument, NULL, 'v' },
		{ "build", required_argument, NULL, 'b' },
		{ "board", required_argument, NULL, 'B' },
		{ "interface", required_argument, NULL, OPT_INTERFACE },
		{ "abi", required_argument, NULL, OPT_ABI },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t sk[crypto_sign_SECRETKEYBYTES], pk[crypto_sign_PUBLICKEYBYTES];
	uint8_t seed_sk[crypto_sign_SECRETKEYBYTES];
	const char *key = NULL, *out = NULL, *board = ORDMA_FW_BOARD_ID;
	struct ordma_image_info info;
	uint8_t *payload = NULL;
	size_t payload_len, img_len, len;
	uint16_t v[3];
	void *img = NULL;
	uint64_t build;
	int c, ret, err = 1;

	memset(&info, 0, sizeof(info));
	info.fw_major = 1;
	info.fw_build = 1;
	info.if_major = ORDMA_HW_VERSION_MAJOR;
	info.if_minor = ORDMA_HW_VERSION_MINOR;
	info.abi_major = ORDMA_FW_ABI_MAJOR;
	info.abi_minor = ORDMA_FW_ABI_MINOR;

	while ((c = getopt_long(argc, argv, "k:o:v:b:B:", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			key = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'v':
			if (!parse_version(optarg, 3, v))
				return fail("sign: bad version '%s' (MAJOR.MINOR.SUB)",
					    optarg);
			info.fw_major = v[0];
			info.fw_minor = v[1];
			info.fw_sub_minor = v[2];
			break;
		case 'b':
			if (!parse_u64(optarg, UINT32_MAX, &build))
				return fail("sign: bad build number '%s'",
					    optarg);
			info.fw_build = (uint32_t)build;
			break;
		case 'B':
			board = optarg;
			break;
		case OPT_INTERFACE:
			if (!parse_version(optarg, 2, v))
				return fail("sign: bad interface version '%s' (MAJOR.MINOR)",
					    optarg);
			info.if_major = v[0];
			info.if_minor = v[1];
			break;
		case OPT_ABI:
			if (!parse_version(optarg, 2, v))
				return fail("sign: bad ABI version '%s' (MAJOR.MINOR)",
					    optarg);
			info.abi_major = v[0];
			info.abi_minor = v[1];
			break;
		default:
			return 2;
		}
	}
	if (!key || !out || optind + 1 != argc)
		return bad_usage("sign -k KEY -o OUT [options] PAYLOAD");
	len = strlen(board);
	if (len >= sizeof(info.board_id))
		return fail("sign: board id '%s' is longer than %zu characters",
			    board, sizeof(info.board_id) - 1);
	memcpy(info.board_id, board, len + 1);

	if (read_key(key, sk, sizeof(sk)))
		return 1;
	/* The public half must be the seed's: a damaged key signs nothing */
	memcpy(pk, sk + crypto_sign_SEEDBYTES, sizeof(pk));
	if (crypto_sign_seed_keypair(pk, seed_sk, sk) ||
	    memcmp(seed_sk, sk, sizeof(sk))) {
		fail("%s: the secret key's public half does not match its seed",
		     key);
		goto out;
	}
	if (read_file(argv[optind], ORDMA_IMAGE_MAX_PAYLOAD, &payload,
		      &payload_len))
		goto out;

	ret = ordma_image_build(&info, payload, payload_len, sk, &img,
				&img_len);
	if (ret) {
		fail("sign: %s", ordma_image_strerror(ret));
		goto out;
	}
	err = write_file(out, img, img_len, 0644, false);
out:
	sodium_memzero(sk, sizeof(sk));
	sodium_memzero(seed_sk, sizeof(seed_sk));
	free(payload);
	free(img);
	return err;
}

static void print_info(const struct ordma_image_info *info)
{
	char key_id[ORDMA_IMAGE_KEY_ID_SIZE * 2 + 1];

	sodium_bin2hex(key_id, sizeof(key_id), info->key_id,
		       sizeof(info->key_id));
	printf("fw_version %u.%u.%u\n", info->fw_major, info->fw_minor,
	       info->fw_sub_minor);
	printf("fw_build %" PRIu32 "\n", info->fw_build);
	printf("board_id %s\n", info->board_id);
	printf("interface %u.%u\n", info->if_major, info->if_minor);
	printf("abi %u.%u\n", info->abi_major, info->abi_minor);
	printf("sig_type %s\n", info->sig_type == ORDMA_IMAGE_SIG_ED25519 ?
	       "ed25519" : "unknown");
	printf("key_id %s\n", key_id);
	printf("payload_offset %zu\n", info->payload_offset);
	printf("payload_size %zu\n", info->payload_size);
	printf("image_size %zu\n", info->image_size);
}

static int cmd_info(int argc, char **argv)
{
	struct ordma_image_info info;
	uint8_t *img;
	size_t len;
	int ret;

	if (argc != 2)
		return bad_usage("info IMAGE");
	if (read_file(argv[1], MAX_IMAGE, &img, &len))
		return 1;
	ret = ordma_image_parse(img, len, &info);
	free(img);
	if (ret)
		return fail("%s: %s", argv[1], ordma_image_strerror(ret));
	print_info(&info);
	return 0;
}

static int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pubkey", required_argument, NULL, 'p' },
		{ "board", required_argument, NULL, 'B' },
		{ "any-board", no_argument, NULL, OPT_ANY_BOARD },
		{ NULL, 0, NULL, 0 },
	};
	const char *pub = NULL, *board = ORDMA_FW_BOARD_ID;
	uint8_t pk[crypto_sign_PUBLICKEYBYTES];
	uint8_t *img;
	size_t len;
	int c, ret;

	while ((c = getopt_long(argc, argv, "p:B:", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pub = optarg;
			break;
		case 'B':
			board = optarg;
			break;
		case OPT_ANY_BOARD:
			board = NULL;
			break;
		default:
			return 2;
		}
	}
	if (!pub || optind + 1 != argc)
		return bad_usage("verify -p PUB [-B BOARD | --any-board] IMAGE");
	if (read_key(pub, pk, sizeof(pk)))
		return 1;
	if (read_file(argv[optind], MAX_IMAGE, &img, &len))
		return 1;
	ret = ordma_image_verify(img, len, pk, board, NULL);
	free(img);
	if (ret)
		return fail("%s: %s", argv[optind], ordma_image_strerror(ret));
	printf("ok\n");
	return 0;
}

static int cmd_flash(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "slot-size", required_argument, NULL, OPT_SLOT_SIZE },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t *img[ORDMA_FLASH_SLOTS] = { NULL };
	struct ordma_flash_state st;
	uint64_t slot_size = 0, largest = 0;
	const char *out = NULL;
	uint8_t *block = NULL;
	unsigned int i, n;
	int c, fd, ret, err = 1;
	size_t len;

	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_SLOT_SIZE:
			if (!parse_u64(optarg, UINT32_MAX, &slot_size) ||
			    !slot_size || slot_size % ORDMA_FLASH_BLOCK)
				return fail("flash: bad slot size '%s' (a multiple of %d, below 4 GiB)",
					    optarg, ORDMA_FLASH_BLOCK);
			break;
		default:
			return 2;
		}
	}
	n = (unsigned int)(argc - optind);
	if (!out || n < 1 || n > ORDMA_FLASH_SLOTS)
		return bad_usage("flash -o FLASH [--slot-size BYTES] IMAGE [IMAGE2]");

	memset(&st, 0, sizeof(st));
	for (i = 0; i < n; i++) {
		const char *path = argv[optind + i];

		if (read_file(path, MAX_IMAGE, &img[i], &len))
			goto out;
		ret = ordma_image_parse(img[i], len, NULL);
		if (ret) {
			fail("%s: %s", path, ordma_image_strerror(ret));
			goto out;
		}
		st.image_size[i] = len;
		if (len > largest)
			largest = len;
	}
	if (!slot_size) {
		slot_size = (largest + MIB - 1) / MIB * MIB;
		if (slot_size < MIN_SLOT)
			slot_size = MIN_SLOT;
	} else if (slot_size < largest) {
		fail("flash: slot size %" PRIu64 " is smaller than an image (%" PRIu64 " bytes)",
		     slot_size, largest);
		goto out;
	}
	st.slot_size = (uint32_t)slot_size;
	st.active = 0;
	st.pending = ORDMA_FLASH_NO_SLOT;
	st.generation = 1;

	block = malloc(ORDMA_FLASH_BLOCK);
	if (!block) {
		fail("out of memory");
		goto out;
	}
	ordma_flash_encode(&st, block);

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fail("%s: %s", out, strerror(errno));
		goto out;
	}
	/* Unwritten bytes read as zero: the file is sparse where empty */
	err = ftruncate(fd, (off_t)ORDMA_FLASH_SLOT_OFFSET(slot_size,
							   ORDMA_FLASH_SLOTS));
	if (err)
		fail("%s: %s", out, strerror(errno));
	if (!err)
		err = write_all(fd, out, block, ORDMA_FLASH_BLOCK);
	for (i = 0; i < n && !err; i++) {
		if (lseek(fd, (off_t)ORDMA_FLASH_SLOT_OFFSET(slot_size, i),
			  SEEK_SET) < 0)
			err = fail("%s: %s", out, strerror(errno));
		else
			err = write_all(fd, out, img[i],
					(size_t)st.image_size[i]);
	}
	if (close(fd) && !err)
		err = fail("%s: %s", out, strerror(errno));
out:
	for (i = 0; i < ORDMA_FLASH_SLOTS; i++)
		free(img[i]);
	free(block);
	return err ? 1 : 0;
}

/* Prints what slot n holds; returns 0, or 1 if its image is invalid. */
static int print_slot(FILE *f, const char *path,
		      const struct ordma_flash_state *st, unsigned int n)
{
	struct ordma_image_info info;
	uint64_t size = st->image_size[n];
	uint8_t *img;
	int ret;

	if (!size) {
		printf("slot%u empty\n", n);
		return 0;
	}
	if (size > MAX_IMAGE) {
		printf("slot%u invalid %s\n", n,
		       ordma_image_strerror(ORDMA_IMAGE_TOO_LARGE));
		return 1;
	}
	img = malloc((size_t)size);
	if (!img)
		return fail("out of memory");
	if (fseeko(f, (off_t)ORDMA_FLASH_SLOT_OFFSET(st->slot_size, n),
		   SEEK_SET) || fread(img, 1, (size_t)size, f) != size) {
		free(img);
		return fail("%s: cannot read slot %u", path, n);
	}
	ret = ordma_image_parse(img, (size_t)size, &info);
	free(img);
	if (ret) {
		printf("slot%u invalid %s\n", n, ordma_image_strerror(ret));
		return 1;
	}
	printf("slot%u version %u.%u.%u build %" PRIu32 " board %s size %zu\n",
	       n, info.fw_major, info.fw_minor, info.fw_sub_minor,
	       info.fw_build, info.board_id, info.image_size);
	return 0;
}

static int cmd_flash_info(int argc, char **argv)
{
	struct ordma_flash_state st;
	uint8_t *block;
	struct stat sb;
	unsigned int i;
	int ret, err = 0;
	FILE *f;

	if (argc != 2)
		return bad_usage("flash-info FLASH");
	f = fopen(argv[1], "rb");
	if (!f)
		return fail("%s: %s", argv[1], strerror(errno));
	block = calloc(1, ORDMA_FLASH_BLOCK);
	if (!block) {
		fclose(f);
		return fail("out of memory");
	}
	if (fstat(fileno(f), &sb)) {
		err = fail("%s: %s", argv[1], strerror(errno));
		goto out;
	}
	if (fread(block, 1, ORDMA_FLASH_BLOCK, f) != ORDMA_FLASH_BLOCK) {
		err = fail("%s: %s", argv[1],
			   ordma_image_strerror(ORDMA_FLASH_TRUNCATED));
		goto out;
	}
	ret = ordma_flash_parse(block, ORDMA_FLASH_BLOCK, (uint64_t)sb.st_size,
				&st);
	if (ret) {
		err = fail("%s: %s", argv[1], ordma_image_strerror(ret));
		goto out;
	}
	printf("format %d\n", ORDMA_FLASH_FORMAT);
	printf("slot_size %" PRIu32 "\n", st.slot_size);
	printf("active %" PRIu32 "\n", st.active);
	if (st.pending == ORDMA_FLASH_NO_SLOT)
		printf("pending none\n");
	else
		printf("pending %" PRIu32 "\n", st.pending);
	printf("generation %" PRIu32 "\n", st.generation);
	for (i = 0; i < ORDMA_FLASH_SLOTS; i++)
		err |= print_slot(f, argv[1], &st, i);
out:
	free(block);
	fclose(f);
	return err;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "keygen", cmd_keygen },
		{ "sign", cmd_sign },
		{ "info", cmd_info },
		{ "verify", cmd_verify },
		{ "flash", cmd_flash },
		{ "flash-info", cmd_flash_info },
	};
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (sodium_init() < 0)
		return fail("libsodium failed to initialise");
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fail("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
