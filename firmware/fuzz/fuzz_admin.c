// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer harness: the input is a program of device operations (admin
 * commands with the buffers they point at, doorbells, register writes,
 * frames, link and clock changes) run against a freshly enabled device.
 *
 * Commands are 64 raw bytes with two substitutions, so that sequences
 * (create, modify, destroy in any order) and DMA'd parameter buffers are
 * within the fuzzer's reach: a 64-bit field whose upper half is
 * BUF_MAGIC becomes an address in the scratch buffer (offset from the
 * lower half), a 32-bit field HANDLE_MAGIC | n becomes the handle the
 * n-th most recent successful command returned.
 *
 * Checked: sanitizers; every command completes while the device is
 * ready; the device still answers its driver at the end.
 */
#include <stdint.h>
#include <string.h>

#include "../tests/drv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_input {
	const uint8_t *p;
	size_t left;
};

#define BUF_MAGIC		0xb0b0b0b0u
#define HANDLE_MAGIC		0xfeedf000u
#define HANDLE_MASK		0xfffff000u
#define NUM_HANDLES		8
#define SCRATCH_LEN		0x10000u

static uint32_t handles[NUM_HANDLES];
static unsigned int num_handles;

static bool take(struct fuzz_input *in, void *out, size_t len)
{
	if (in->left < len)
		return false;
	memcpy(out, in->p, len);
	in->p += len;
	in->left -= len;
	return true;
}

static void substitute(uint8_t *raw)
{
	size_t off;

	for (off = 8; off + 8 <= ORDMA_AQ_CMD_SIZE; off += 8) {
		uint64_t v;

		memcpy(&v, raw + off, 8);
		v = le64_to_cpu(v);
		if (v >> 32 == BUF_MAGIC) {
			v = DRV_SCRATCH_ADDR + (v & (SCRATCH_LEN - 1));
			v = cpu_to_le64(v);
			memcpy(raw + off, &v, 8);
		}
	}
	for (off = 4; off + 4 <= ORDMA_AQ_CMD_SIZE; off += 4) {
		uint32_t v;

		memcpy(&v, raw + off, 4);
		v = le32_to_cpu(v);
		if ((v & HANDLE_MASK) == HANDLE_MAGIC) {
			v = handles[(num_handles - 1 - (v & 0xff)) % NUM_HANDLES];
			v = cpu_to_le32(v);
			memcpy(raw + off, &v, 4);
		}
	}
}

static void fuzz_command(struct drv *d, struct fuzz_input *in)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	memset(&cmd, 0, sizeof(cmd));
	if (!take(in, &cmd, sizeof(cmd)))
		return;
	substitute((uint8_t *)&cmd);
	status = drv_exec(d, &cmd);
	if (status == ORDMA_CMD_STATUS_OK)
		handles[num_handles++ % NUM_HANDLES] =
			le32_to_cpu(d->last_comp.handle.handle);
	/* with a valid admin queue every command completes */
	if (drv_rd(d, ORDMA_REG_STATUS) == ORDMA_STATUS_READY &&
	    status > ORDMA_CMD_STATUS_INTERNAL)
		__builtin_trap();
}

static void fuzz_doorbell(struct drv *d, struct fuzz_input *in)
{
	uint16_t off;
	uint64_t val;
	uint8_t size;

	if (take(in, &off, 2) && take(in, &val, 8) && take(in, &size, 1))
		ordma_fw_db_write(d->fw, off, val, size % 9);
}

static void fuzz_register(struct drv *d, struct fuzz_input *in)
{
	uint16_t off;
	uint32_t val;

	if (!take(in, &off, 2) || !take(in, &val, 4))
		return;
	ordma_fw_reg_write(d->fw, off % 0x4000, val, 4);
	if (drv_rd(d, ORDMA_REG_STATUS) != ORDMA_STATUS_READY) {
		drv_wr(d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
		drv_enable(d, d->log_depth);
	} else if (off % 0x4000 == ORDMA_REG_AQ_DB) {
		drv_wr(d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
		drv_enable(d, d->log_depth);
	}
}

static void fuzz_frame(struct drv *d, struct fuzz_input *in)
{
	static uint8_t frame[9300];
	uint16_t len;

	if (!take(in, &len, 2))
		return;
	len %= sizeof(frame);
	if (len > in->left)
		len = (uint16_t)in->left;
	take(in, frame, len);
	ordma_fw_rx_frame(d->fw, frame, len);
}

/* What the next commands' buffers hold */
static void fuzz_buffer(struct drv *d, struct fuzz_input *in)
{
	uint16_t off;
	uint8_t len;

	if (!take(in, &off, 2) || !take(in, &len, 1) || len > in->left)
		return;
	off = le16_to_cpu(off);
	if (off > SCRATCH_LEN - len)
		off = (uint16_t)(SCRATCH_LEN - len);
	take(in, drv_mem(d, DRV_SCRATCH_ADDR + off, len), len);
}

static void fuzz_memory(struct drv *d, struct fuzz_input *in)
{
	uint32_t off;
	uint8_t len;

	if (!take(in, &off, 4) || !take(in, &len, 1) || len > in->left)
		return;
	off %= (uint32_t)(FAKE_MEM_SIZE - 256);
	/* keep the admin queue itself intact */
	if (off < 0x20000)
		off += 0x20000;
	take(in, drv_mem(d, FAKE_MEM_BASE + off, len), len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	struct drv d;
	uint8_t op;

	if (!drv_open(&d, 3))
		return 0;
	memset(handles, 0, sizeof(handles));
	num_handles = 0;
	while (take(&in, &op, 1)) {
		switch (op % 9) {
		case 0:
		case 1:
			fuzz_command(&d, &in);
			break;
		case 8:
			fuzz_buffer(&d, &in);
			break;
		case 2:
			fuzz_doorbell(&d, &in);
			break;
		case 3:
			fuzz_frame(&d, &in);
			break;
		case 4:
			fuzz_memory(&d, &in);
			break;
		case 5:
			fuzz_register(&d, &in);
			break;
		case 6:
			ordma_fw_set_link(d.fw, op & 0x80);
			break;
		default:
			fake_advance(&d.hal, (uint64_t)op * 1000000);
			break;
		}
	}
	if (drv_simple(&d, ORDMA_CMD_QUERY_FW) != ORDMA_CMD_STATUS_OK)
		__builtin_trap();
	drv_close(&d);
	return 0;
}
