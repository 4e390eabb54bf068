// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Fake HAL for firmware unit tests and fuzzing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hal.h"

/*
 * ORDMA_HAL_TRACE=FILE appends every output of the firmware to FILE, one
 * line each: frames sent, DMA writes (with a hash of the bytes), MSI-X
 * vectors raised, timer deadlines.  Two firmware builds that behave the
 * same write the same file for the same tests and inputs
 * (`make -C firmware hal-trace`).  The test runner, when linked, names
 * the test.
 */
extern const char *ordma_test_current __attribute__((weak));
static FILE *fake_trace_file;
static unsigned long fake_trace_devices;

static uint32_t fake_fnv1a(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static void fake_trace(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void fake_trace(const char *fmt, ...)
{
	va_list ap;

	if (!fake_trace_file)
		return;
	va_start(ap, fmt);
	vfprintf(fake_trace_file, fmt, ap);
	va_end(ap);
	fputc('\n', fake_trace_file);
}

static bool fake_range_ok(const struct fake_hal *h, uint64_t addr,
			  size_t len)
{
	if (addr < FAKE_MEM_BASE || addr >= FAKE_MEM_END ||
	    len > FAKE_MEM_END - addr)
		return false;
	/* injected fault window */
	return !(addr < h->fail_hi && addr + len > h->fail_lo);
}

void *fake_mem(struct fake_hal *h, uint64_t addr, size_t len)
{
	if (addr < FAKE_MEM_BASE || addr >= FAKE_MEM_END ||
	    len > FAKE_MEM_END - addr)
		return NULL;
	return h->mem + (addr - FAKE_MEM_BASE);
}

static int fake_dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake_hal *h = ctx;

	if (!fake_range_ok(h, addr, len)) {
		h->dma_errors++;
		return -1;
	}
	memcpy(buf, h->mem + (addr - FAKE_MEM_BASE), len);
	return 0;
}

static int fake_dma_write(void *ctx, uint64_t addr, const void *buf,
			  size_t len)
{
	struct fake_hal *h = ctx;
	struct fake_dma_write *w;

	if (!fake_range_ok(h, addr, len)) {
		h->dma_errors++;
		fake_trace("dmaw %llx %zu fail", (unsigned long long)addr, len);
		return -1;
	}
	memcpy(h->mem + (addr - FAKE_MEM_BASE), buf, len);
	fake_trace("dmaw %llx %zu %08x", (unsigned long long)addr, len,
		   fake_fnv1a(buf, len));
	w = &h->writes[h->num_writes++ % FAKE_WRITE_TRACE];
	w->addr = addr;
	w->len = len;
	return 0;
}

static void fake_msix_notify(void *ctx, unsigned int vector)
{
	struct fake_hal *h = ctx;

	if (vector >= h->num_vectors || vector >= FAKE_MAX_VECTORS) {
		h->msix_bad_vector++;
		return;
	}
	h->msix[vector]++;
	h->msix_total++;
	fake_trace("msix %u", vector);
}

static void fake_tx_frame(void *ctx, const void *frame, size_t len)
{
	struct fake_hal *h = ctx;
	struct fake_frame *f = &h->tx[h->tx_count++ % FAKE_TX_KEEP];

	fake_trace("tx %zu %08x", len, fake_fnv1a(frame, len));
	if (h->ib_port ? len < 26 || len > 8190 : len < 60 || len > 9018)
		h->tx_bad_len++;
	f->len = len;
	memcpy(f->data, frame, len < FAKE_FRAME_MAX ? len : FAKE_FRAME_MAX);
	if (h->tx_hook)
		h->tx_hook(h->tx_hook_arg, frame, len);
}

static uint64_t fake_now_ns(void *ctx)
{
	return ((struct fake_hal *)ctx)->now_ns;
}

static void fake_timer_arm(void *ctx, uint64_t expire_ns)
{
	((struct fake_hal *)ctx)->timer_deadline = expire_ns;
	fake_trace("timer %llu", (unsigned long long)expire_ns);
}

static void fake_log(void *ctx, enum ordma_fw_log_level level,
		     const char *msg)
{
	struct fake_hal *h = ctx;

	if ((unsigned int)level < 3)
		h->log_count[level]++;
	snprintf(h->last_log, sizeof(h->last_log), "%s", msg);
	if (h->print_log)
		printf("# fw log %d: %s\n", level, msg);
}

static void fake_wire_drops(void *ctx, uint64_t *tx, uint64_t *rx)
{
	struct fake_hal *h = ctx;

	*tx = h->wire_tx_drop;
	*rx = h->wire_rx_drop;
}

static void fake_wire_faults(void *ctx, uint64_t *faults)
{
	struct fake_hal *h = ctx;

	memcpy(faults, h->wire_fault, sizeof(h->wire_fault));
}

/* Every test's firmware traces (its records cost a call when no test
 * keeps them), so that each trace point runs under the sanitizers.
 */
static void fake_fw_trace(void *ctx, const struct ordma_fw_trace *rec)
{
	struct fake_hal *h = ctx;

	h->fw_trace_count++;
	if (h->fw_trace_hook)
		h->fw_trace_hook(h->fw_trace_hook_arg, rec);
}

const struct ordma_hal_ops fake_hal_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.msix_notify = fake_msix_notify,
	.tx_frame = fake_tx_frame,
	.now_ns = fake_now_ns,
	.timer_arm = fake_timer_arm,
	.log = fake_log,
	.wire_drops = fake_wire_drops,
	.wire_faults = fake_wire_faults,
	.trace = fake_fw_trace,
};

bool fake_hal_untraced;

bool fake_hal_init(struct fake_hal *h)
{
	memset(h, 0, sizeof(*h));
	h->mem = calloc(1, FAKE_MEM_SIZE);
	h->timer_deadline = UINT64_MAX;
	h->num_vectors = FAKE_MAX_VECTORS;
	h->now_ns = 1000000000ULL;	/* device time does not start at 0 */
	h->print_log = getenv("ORDMA_FW_TEST_LOG") != NULL;
	if (!fake_trace_file && getenv("ORDMA_HAL_TRACE"))
		fake_trace_file = fopen(getenv("ORDMA_HAL_TRACE"), "a");
	fake_trace("== %s device %lu",
		   &ordma_test_current && ordma_test_current ?
		   ordma_test_current : "-", fake_trace_devices++);
	return h->mem != NULL;
}

void fake_hal_fini(struct fake_hal *h)
{
	if (fake_trace_file)
		fflush(fake_trace_file);
	free(h->mem);
	h->mem = NULL;
}

void fake_advance(struct fake_hal *h, uint64_t ns)
{
	unsigned int guard = 0;

	h->now_ns += ns;
	while (h->fw && h->timer_deadline <= h->now_ns && guard++ < 1000) {
		h->timer_deadline = UINT64_MAX;
		h->timer_fired++;
		ordma_fw_timer_expired(h->fw);
	}
}

const struct fake_frame *fake_last_tx(const struct fake_hal *h)
{
	if (!h->tx_count)
		return NULL;
	return &h->tx[(h->tx_count - 1) % FAKE_TX_KEEP];
}

const struct fake_dma_write *fake_recent_write(const struct fake_hal *h,
					       unsigned int n)
{
	if (n >= FAKE_WRITE_TRACE || n >= h->num_writes)
		return NULL;
	return &h->writes[(h->num_writes - 1 - n) % FAKE_WRITE_TRACE];
}
