// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA recorder (ordma_rec.h): the firmware's entry points and HAL
 * calls, written to a log as they happen (ordma_replay.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_admin.h>
#include "replay/ordma_rec.h"
#include "replay/ordma_replay.h"

/* Payloads shorter than this are cheaper inline than looked up */
#define REC_DEDUP_MIN		64
#define REC_DEDUP_SLOTS		1024
#define REC_FILE_BUFFER		(1 << 20)
/* the largest fixed part of a record body (WIRE_FAULTS) */
#define REC_FIXED_MAX		(8 + 8 * ORDMA_REPLAY_MAX_WIRE_FAULTS)

_Static_assert(ORDMA_WIRE_FAULTS <= ORDMA_REPLAY_MAX_WIRE_FAULTS,
	       "WIRE_FAULTS records hold ORDMA_WIRE_FAULTS counters");

struct rec_blob {
	uint64_t hash;
	uint32_t id;		/* blob number in the log, 0: empty slot */
	uint32_t len;
	uint8_t *copy;
	size_t cap;		/* bytes allocated at copy */
};

struct ordma_rec {
	const struct ordma_fw_image *img;	/* the firmware's entries */
	struct ordma_fw *fw;
	const struct ordma_hal_ops *host_ops;
	void *host_ctx;
	struct ordma_hal_ops ops;	/* what the firmware calls */

	bool recording;
	uint32_t stop_reason;
	unsigned int depth;		/* entry calls in progress */
	FILE *file;
	size_t (*write)(void *arg, const void *data, size_t len);
	void *write_arg;
	uint64_t max_bytes;
	uint64_t bytes;
	uint64_t records;

	uint32_t blobs;			/* inline payloads written */
	uint64_t dedup_saved;
	size_t dedup_budget;		/* bytes of copies still allowed */
	struct rec_blob *dedup;		/* REC_DEDUP_SLOTS, or NULL */
};

/* ------------------------------------------------------------------ */
/* Little-endian encoding                                              */
/* ------------------------------------------------------------------ */

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
	return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
	return p + 8;
}

/* ------------------------------------------------------------------ */
/* The log                                                             */
/* ------------------------------------------------------------------ */

static bool rec_put(struct ordma_rec *rec, const void *data, size_t len)
{
	size_t n;

	if (!len)
		return true;
	if (rec->file)
		n = fwrite(data, 1, len, rec->file);
	else
		n = rec->write(rec->write_arg, data, len);
	rec->bytes += n;
	return n == len;
}

static void rec_close(struct ordma_rec *rec)
{
	unsigned int i;

	if (rec->file)
		fclose(rec->file);
	rec->file = NULL;
	rec->write = NULL;
	if (rec->dedup) {
		for (i = 0; i < REC_DEDUP_SLOTS; i++)
			free(rec->dedup[i].copy);
		free(rec->dedup);
		rec->dedup = NULL;
	}
}

/* Ends the log: the trailer (room for it is always kept) says why. */
static void rec_finish(struct ordma_rec *rec, enum ordma_replay_stop why)
{
	uint8_t t[ORDMA_REPLAY_TRAILER_SIZE], *p = t;

	if (!rec->recording)
		return;
	rec->recording = false;
	rec->stop_reason = why;
	if (why != ORDMA_REPLAY_STOP_WRITE_ERROR) {
		p = put16(p, ORDMA_REPLAY_TRAILER);
		p = put16(p, 0);
		p = put32(p, sizeof(t) - ORDMA_REPLAY_REC_HDR_SIZE);
		p = put32(p, why);
		p = put32(p, 0);
		p = put64(p, rec->records);
		put64(p, rec->dedup_saved);
		if (rec_put(rec, t, sizeof(t)) && rec->file)
			fflush(rec->file);
	}
	rec_close(rec);
}

static uint64_t rec_hash(const uint8_t *p, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
	uint64_t w;

	/* word at a time: payloads are DMA bursts and frames, KiB each */
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h ^ (h >> 32);
}

/* The blob an earlier payload with these bytes got, or 0. */
static uint32_t rec_dedup_find(struct ordma_rec *rec, const void *data,
			       size_t len, uint64_t hash)
{
	struct rec_blob *b;

	if (!rec->dedup || len < REC_DEDUP_MIN || len > UINT32_MAX)
		return 0;
	b = &rec->dedup[hash % REC_DEDUP_SLOTS];
	if (b->id && b->hash == hash && b->len == len &&
	    !memcmp(b->copy, data, len))
		return b->id;
	return 0;
}

static void rec_dedup_keep(struct ordma_rec *rec, const void *data,
			   size_t len, uint64_t hash, uint32_t id)
{
	struct rec_blob *b;

	if (!rec->dedup || len < REC_DEDUP_MIN || len > UINT32_MAX)
		return;
	b = &rec->dedup[hash % REC_DEDUP_SLOTS];
	b->id = 0;
	/* a slot keeps its buffer: payloads come in a few sizes */
	if (len > b->cap) {
		rec->dedup_budget += b->cap;
		free(b->copy);
		b->copy = NULL;
		b->cap = 0;
		if (len > rec->dedup_budget)
			return;
		b->copy = malloc(len);
		if (!b->copy)
			return;
		b->cap = len;
		rec->dedup_budget -= len;
	}
	memcpy(b->copy, data, len);
	b->hash = hash;
	b->len = (uint32_t)len;
	b->id = id;
}

/*
 * One record: header, the fixed fields, and a payload if has_payload.
 * A record that would leave no room for the trailer ends the log.
 */
static void rec_emit(struct ordma_rec *rec, enum ordma_replay_kind kind,
		     const uint8_t *fixed, size_t fixed_len, bool has_payload,
		     const void *data, size_t len)
{
	uint8_t hdr[ORDMA_REPLAY_REC_HDR_SIZE + ORDMA_REPLAY_PAYLOAD_HDR_SIZE];
	uint64_t hash = 0, body, inline_len = 0;
	uint32_t ref = 0;
	uint8_t *p = hdr;
	bool ok;

	if (!rec->recording)
		return;
	/* The firmware calls the HAL only from its entry points, unless its
	 * internals are called directly: what that did is not in the log.
	 */
	if (kind >= ORDMA_REPLAY_NOW_NS && kind <= ORDMA_REPLAY_WIRE_FAULTS &&
	    !rec->depth) {
		rec_finish(rec, ORDMA_REPLAY_STOP_OUTSIDE_ENTRY);
		return;
	}
	/* body_len is 32 bits */
	if (has_payload && len > UINT32_MAX - REC_FIXED_MAX -
				 ORDMA_REPLAY_PAYLOAD_HDR_SIZE) {
		rec_finish(rec, ORDMA_REPLAY_STOP_SIZE_CAP);
		return;
	}
	if (has_payload && rec->dedup && len >= REC_DEDUP_MIN) {
		hash = rec_hash(data, len);
		ref = rec_dedup_find(rec, data, len, hash);
	}
	if (has_payload && !ref)
		inline_len = len;
	body = fixed_len + (has_payload ? ORDMA_REPLAY_PAYLOAD_HDR_SIZE : 0) +
	       inline_len;
	if (rec->bytes + ORDMA_REPLAY_REC_HDR_SIZE + body +
	    ORDMA_REPLAY_TRAILER_SIZE > rec->max_bytes) {
		rec_finish(rec, ORDMA_REPLAY_STOP_SIZE_CAP);
		return;
	}
	p = put16(p, (uint16_t)kind);
	p = put16(p, 0);
	p = put32(p, (uint32_t)body);
	ok = rec_put(rec, hdr, ORDMA_REPLAY_REC_HDR_SIZE) &&
	     rec_put(rec, fixed, fixed_len);
	if (ok && has_payload) {
		p = put32(hdr, (uint32_t)len);
		put32(p, ref);
		ok = rec_put(rec, hdr, ORDMA_REPLAY_PAYLOAD_HDR_SIZE) &&
		     rec_put(rec, data, inline_len);
	}
	if (!ok) {
		rec_finish(rec, ORDMA_REPLAY_STOP_WRITE_ERROR);
		return;
	}
	rec->records++;
	if (!has_payload)
		return;
	if (ref) {
		rec->dedup_saved += len;
		return;
	}
	rec->blobs++;
	if (hash)
		rec_dedup_keep(rec, data, len, hash, rec->blobs);
}

static void rec_simple(struct ordma_rec *rec, enum ordma_replay_kind kind)
{
	rec_emit(rec, kind, NULL, 0, false, NULL, 0);
}

static void rec_u64(struct ordma_rec *rec, enum ordma_replay_kind kind,
		    uint64_t v)
{
	uint8_t f[8];

	put64(f, v);
	rec_emit(rec, kind, f, sizeof(f), false, NULL, 0);
}

/* Before an entry point: a call from inside a HAL callback of this
 * device ends the log.
 */
static void rec_enter(struct ordma_rec *rec)
{
	if (rec->depth++ && rec->recording)
		rec_finish(rec, ORDMA_REPLAY_STOP_NESTED);
}

static void rec_leave(struct ordma_rec *rec)
{
	rec->depth--;
}

/* ------------------------------------------------------------------ */
/* The HAL, as the firmware sees it                                    */
/* ------------------------------------------------------------------ */

static int rec_dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct ordma_rec *rec = ctx;
	int status = rec->host_ops->dma_read(rec->host_ctx, addr, buf, len);
	uint8_t f[20], *p = f;

	p = put64(p, addr);
	p = put64(p, len);
	put32(p, (uint32_t)status);
	/* a failed read leaves nothing the firmware may use */
	rec_emit(rec, ORDMA_REPLAY_DMA_READ, f, sizeof(f), true, buf,
		 status ? 0 : len);
	return status;
}

static int rec_dma_write(void *ctx, uint64_t addr, const void *buf,
			 size_t len)
{
	struct ordma_rec *rec = ctx;
	int status = rec->host_ops->dma_write(rec->host_ctx, addr, buf, len);
	uint8_t f[12], *p = f;

	p = put64(p, addr);
	put32(p, (uint32_t)status);
	rec_emit(rec, ORDMA_REPLAY_DMA_WRITE, f, sizeof(f), true, buf, len);
	return status;
}

static void rec_msix_notify(void *ctx, unsigned int vector)
{
	struct ordma_rec *rec = ctx;
	uint8_t f[4];

	put32(f, vector);
	rec_emit(rec, ORDMA_REPLAY_MSIX, f, sizeof(f), false, NULL, 0);
	rec->host_ops->msix_notify(rec->host_ctx, vector);
}

static void rec_tx_frame(void *ctx, const void *frame, size_t len)
{
	struct ordma_rec *rec = ctx;

	rec_emit(rec, ORDMA_REPLAY_TX_FRAME, NULL, 0, true, frame, len);
	rec->host_ops->tx_frame(rec->host_ctx, frame, len);
}

static uint64_t rec_now_ns(void *ctx)
{
	struct ordma_rec *rec = ctx;
	uint64_t now = rec->host_ops->now_ns(rec->host_ctx);

	rec_u64(rec, ORDMA_REPLAY_NOW_NS, now);
	return now;
}

static void rec_timer_arm(void *ctx, uint64_t expire_ns)
{
	struct ordma_rec *rec = ctx;

	rec_u64(rec, ORDMA_REPLAY_TIMER_ARM, expire_ns);
	rec->host_ops->timer_arm(rec->host_ctx, expire_ns);
}

static void rec_log(void *ctx, enum ordma_fw_log_level level,
		    const char *msg)
{
	struct ordma_rec *rec = ctx;
	uint8_t f[4];

	put32(f, level);
	rec_emit(rec, ORDMA_REPLAY_LOG, f, sizeof(f), true, msg, strlen(msg));
	rec->host_ops->log(rec->host_ctx, level, msg);
}

static void rec_wire_drops(void *ctx, uint64_t *tx, uint64_t *rx)
{
	struct ordma_rec *rec = ctx;
	uint8_t f[16];

	rec->host_ops->wire_drops(rec->host_ctx, tx, rx);
	put64(f, *tx);
	put64(f + 8, *rx);
	rec_emit(rec, ORDMA_REPLAY_WIRE_DROPS, f, sizeof(f), false, NULL, 0);
}

static void rec_wire_faults(void *ctx, uint64_t *faults)
{
	struct ordma_rec *rec = ctx;
	uint8_t f[REC_FIXED_MAX], *p = f;
	unsigned int i;

	rec->host_ops->wire_faults(rec->host_ctx, faults);
	p = put32(p, ORDMA_WIRE_FAULTS);
	p = put32(p, 0);
	for (i = 0; i < ORDMA_WIRE_FAULTS; i++)
		p = put64(p, faults[i]);
	rec_emit(rec, ORDMA_REPLAY_WIRE_FAULTS, f, (size_t)(p - f), false,
		 NULL, 0);
}

static void rec_trace(void *ctx, const struct ordma_fw_trace *t)
{
	struct ordma_rec *rec = ctx;

	rec->host_ops->trace(rec->host_ctx, t);
}

/* ------------------------------------------------------------------ */
/* Creation                                                            */
/* ------------------------------------------------------------------ */

static uint32_t rec_hal_mask(const struct ordma_hal_ops *ops)
{
	return (ops->dma_read ? ORDMA_REPLAY_HAL_DMA_READ : 0) |
	       (ops->dma_write ? ORDMA_REPLAY_HAL_DMA_WRITE : 0) |
	       (ops->msix_notify ? ORDMA_REPLAY_HAL_MSIX_NOTIFY : 0) |
	       (ops->tx_frame ? ORDMA_REPLAY_HAL_TX_FRAME : 0) |
	       (ops->now_ns ? ORDMA_REPLAY_HAL_NOW_NS : 0) |
	       (ops->timer_arm ? ORDMA_REPLAY_HAL_TIMER_ARM : 0) |
	       (ops->log ? ORDMA_REPLAY_HAL_LOG : 0) |
	       (ops->wire_drops ? ORDMA_REPLAY_HAL_WIRE_DROPS : 0) |
	       (ops->wire_faults ? ORDMA_REPLAY_HAL_WIRE_FAULTS : 0);
}

static bool rec_open(struct ordma_rec *rec, const struct ordma_fw_config *cfg,
		     const struct ordma_rec_opts *opts)
{
	uint8_t h[ORDMA_REPLAY_HEADER_SIZE] = { 0 }, *p;
	uint32_t flags;

	rec->max_bytes = opts->max_bytes ? opts->max_bytes :
			 ORDMA_REC_DEFAULT_MAX_BYTES;
	if (rec->max_bytes < ORDMA_REPLAY_HEADER_SIZE +
			     ORDMA_REPLAY_TRAILER_SIZE)
		return false;
	if (opts->dedup_bytes) {
		rec->dedup = calloc(REC_DEDUP_SLOTS, sizeof(*rec->dedup));
		if (!rec->dedup)
			return false;
		rec->dedup_budget = opts->dedup_bytes;
	}
	if (opts->path) {
		rec->file = fopen(opts->path, "wb");
		if (!rec->file)
			return false;
		/* fewer, larger writes: a DMA payload alone exceeds BUFSIZ */
		setvbuf(rec->file, NULL, _IOFBF, REC_FILE_BUFFER);
	} else if (opts->write) {
		rec->write = opts->write;
		rec->write_arg = opts->write_arg;
	} else {
		return false;
	}

	flags = rec_hal_mask(rec->host_ops);
	memcpy(h, ORDMA_REPLAY_MAGIC, 8);
	p = put16(h + 8, ORDMA_REPLAY_VERSION);
	p = put16(p, ORDMA_REPLAY_HEADER_SIZE);
	put32(p, flags);
	memcpy(h + 16, cfg->mac, 6);
	h[22] = cfg->link_layer;
	memcpy(h + 24, cfg->serial, 16);
	p = put32(h + 40, cfg->num_vectors);
	p = put32(p, cfg->num_db_pages);
	p = put32(p, cfg->speed_mbps);
	p = put32(p, ORDMA_WIRE_FAULTS);
	put64(p, rec->max_bytes);
	if (!rec_put(rec, h, sizeof(h)))
		return false;
	rec->recording = true;
	return true;
}

struct ordma_rec *ordma_rec_create(const struct ordma_hal_ops *ops, void *ctx,
				   const struct ordma_fw_config *cfg,
				   const struct ordma_rec_opts *opts)
{
	return ordma_rec_create_image(&ordma_fw_builtin, ops, ctx, cfg, opts);
}

struct ordma_rec *ordma_rec_create_image(const struct ordma_fw_image *img,
					 const struct ordma_hal_ops *ops,
					 void *ctx,
					 const struct ordma_fw_config *cfg,
					 const struct ordma_rec_opts *opts)
{
	struct ordma_rec *rec;

	/* as ordma_fw_create(): no device without a HAL and a config */
	if (!img || !ops || !cfg)
		return NULL;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		return NULL;
	rec->img = img;
	rec->host_ops = ops;
	rec->host_ctx = ctx;
	rec->ops = (struct ordma_hal_ops) {
		/* the firmware sees the calls the host has, and no others */
		.dma_read = ops->dma_read ? rec_dma_read : NULL,
		.dma_write = ops->dma_write ? rec_dma_write : NULL,
		.msix_notify = ops->msix_notify ? rec_msix_notify : NULL,
		.tx_frame = ops->tx_frame ? rec_tx_frame : NULL,
		.now_ns = ops->now_ns ? rec_now_ns : NULL,
		.timer_arm = ops->timer_arm ? rec_timer_arm : NULL,
		.log = ops->log ? rec_log : NULL,
		.wire_drops = ops->wire_drops ? rec_wire_drops : NULL,
		.wire_faults = ops->wire_faults ? rec_wire_faults : NULL,
		/* records are outputs the inputs decide: not in the log */
		.trace = ops->trace ? rec_trace : NULL,
	};
	if (!opts) {
		rec->fw = ordma_fw_image_create(img, ops, ctx, cfg);
	} else {
		if (!rec_open(rec, cfg, opts)) {
			rec_close(rec);
			free(rec);
			return NULL;
		}
		rec_simple(rec, ORDMA_REPLAY_CREATE);
		rec_enter(rec);
		rec->fw = ordma_fw_image_create(img, &rec->ops, rec, cfg);
		rec_leave(rec);
		rec_u64(rec, ORDMA_REPLAY_RETURN, rec->fw != NULL);
		if (!rec->fw)
			rec_finish(rec, ORDMA_REPLAY_STOP_CREATE_FAILED);
	}
	if (!rec->fw) {
		rec_close(rec);
		free(rec);
		return NULL;
	}
	return rec;
}

void ordma_rec_destroy(struct ordma_rec *rec)
{
	if (!rec)
		return;
	rec_enter(rec);
	rec_simple(rec, ORDMA_REPLAY_DESTROY);
	rec->img->destroy(rec->fw);
	rec_leave(rec);
	rec_finish(rec, ORDMA_REPLAY_STOP_DESTROYED);
	rec_close(rec);
	free(rec);
}

struct ordma_fw *ordma_rec_fw(struct ordma_rec *rec)
{
	return rec->fw;
}

void ordma_rec_stop(struct ordma_rec *rec)
{
	rec_finish(rec, ORDMA_REPLAY_STOP_FINISHED);
}

void ordma_rec_get_stats(const struct ordma_rec *rec,
			 struct ordma_rec_stats *stats)
{
	stats->recording = rec->recording;
	stats->stop_reason = rec->stop_reason;
	stats->records = rec->records;
	stats->bytes = rec->bytes;
	stats->dedup_saved = rec->dedup_saved;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

void ordma_rec_reset(struct ordma_rec *rec)
{
	rec_enter(rec);
	rec_simple(rec, ORDMA_REPLAY_RESET);
	rec->img->reset(rec->fw);
	rec_leave(rec);
}

void ordma_rec_bus_master_enabled(struct ordma_rec *rec)
{
	rec_enter(rec);
	rec_simple(rec, ORDMA_REPLAY_BUS_MASTER_ENABLED);
	rec->img->bus_master_enabled(rec->fw);
	rec_leave(rec);
}

uint64_t ordma_rec_reg_read(struct ordma_rec *rec, uint64_t off,
			    unsigned int size)
{
	uint8_t f[12];
	uint64_t val;

	rec_enter(rec);
	put64(f, off);
	put32(f + 8, size);
	rec_emit(rec, ORDMA_REPLAY_REG_READ, f, sizeof(f), false, NULL, 0);
	val = rec->img->reg_read(rec->fw, off, size);
	rec_u64(rec, ORDMA_REPLAY_RETURN, val);
	rec_leave(rec);
	return val;
}

static void rec_write_entry(struct ordma_rec *rec, enum ordma_replay_kind kind,
			    uint64_t off, uint64_t val, unsigned int size)
{
	uint8_t f[20];

	put64(f, off);
	put64(f + 8, val);
	put32(f + 16, size);
	rec_emit(rec, kind, f, sizeof(f), false, NULL, 0);
}

void ordma_rec_reg_write(struct ordma_rec *rec, uint64_t off, uint64_t val,
			 unsigned int size)
{
	rec_enter(rec);
	rec_write_entry(rec, ORDMA_REPLAY_REG_WRITE, off, val, size);
	rec->img->reg_write(rec->fw, off, val, size);
	rec_leave(rec);
}

void ordma_rec_db_write(struct ordma_rec *rec, uint64_t off, uint64_t val,
			unsigned int size)
{
	rec_enter(rec);
	rec_write_entry(rec, ORDMA_REPLAY_DB_WRITE, off, val, size);
	rec->img->db_write(rec->fw, off, val, size);
	rec_leave(rec);
}

bool ordma_rec_can_receive(struct ordma_rec *rec)
{
	bool ok;

	rec_enter(rec);
	rec_simple(rec, ORDMA_REPLAY_CAN_RECEIVE);
	ok = rec->img->can_receive(rec->fw);
	rec_u64(rec, ORDMA_REPLAY_RETURN, ok);
	rec_leave(rec);
	return ok;
}

void ordma_rec_rx_frame(struct ordma_rec *rec, const void *frame, size_t len)
{
	rec_enter(rec);
	rec_emit(rec, ORDMA_REPLAY_RX_FRAME, NULL, 0, true, frame, len);
	rec->img->rx_frame(rec->fw, frame, len);
	rec_leave(rec);
}

void ordma_rec_set_link(struct ordma_rec *rec, bool up)
{
	uint8_t f[4];

	rec_enter(rec);
	put32(f, up);
	rec_emit(rec, ORDMA_REPLAY_SET_LINK, f, sizeof(f), false, NULL, 0);
	rec->img->set_link(rec->fw, up);
	rec_leave(rec);
}

int ordma_rec_inject_fault(struct ordma_rec *rec, unsigned int fault,
			   uint32_t count, uint32_t arg)
{
	int ret;

	rec_enter(rec);
	rec_write_entry(rec, ORDMA_REPLAY_INJECT_FAULT, fault, count, arg);
	ret = rec->img->inject_fault(rec->fw, fault, count, arg);
	rec_u64(rec, ORDMA_REPLAY_RETURN, (uint64_t)(int64_t)ret);
	rec_leave(rec);
	return ret;
}

void ordma_rec_timer_expired(struct ordma_rec *rec)
{
	rec_enter(rec);
	rec_simple(rec, ORDMA_REPLAY_TIMER_EXPIRED);
	rec->img->timer_expired(rec->fw);
	rec_leave(rec);
}
