// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA replay engine (replay.h): the firmware alone, fed a recorded log.
 *
 * Entry records are replayed as calls into the firmware; each HAL call
 * the firmware makes must be the next record, with the same arguments
 * and bytes for what it puts out (DMA writes, frames, MSI-X vectors,
 * timer deadlines, log lines, what entry points return), and gets the
 * recorded answer for what it takes in (clock, DMA reads, wire
 * counters).  The first mismatch ends the replay; the firmware then gets
 * harmless answers until the call in progress returns.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_admin.h>
#include "replay/ordma_replay.h"
#include "replay/replay.h"

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

struct blob {
	const uint8_t *data;
	size_t len;
};

struct parser {
	struct blob *blobs;
	size_t nblobs, cap;
	char *err;
	size_t errlen;
};

static bool parse_fail(struct parser *ps, size_t off, const char *why)
{
	snprintf(ps->err, ps->errlen, "record at byte %zu: %s", off, why);
	return false;
}

/* The fixed part of each kind's body; payload: whether one follows. */
static bool kind_layout(unsigned int kind, size_t *fixed, bool *payload)
{
	*payload = false;
	switch (kind) {
	case ORDMA_REPLAY_CREATE:
	case ORDMA_REPLAY_DESTROY:
	case ORDMA_REPLAY_RESET:
	case ORDMA_REPLAY_BUS_MASTER_ENABLED:
	case ORDMA_REPLAY_CAN_RECEIVE:
	case ORDMA_REPLAY_TIMER_EXPIRED:
		*fixed = 0;
		return true;
	case ORDMA_REPLAY_REG_READ:
		*fixed = 12;
		return true;
	case ORDMA_REPLAY_REG_WRITE:
	case ORDMA_REPLAY_DB_WRITE:
	case ORDMA_REPLAY_INJECT_FAULT:
		*fixed = 20;
		return true;
	case ORDMA_REPLAY_SET_LINK:
	case ORDMA_REPLAY_MSIX:
		*fixed = 4;
		return true;
	case ORDMA_REPLAY_RX_FRAME:
	case ORDMA_REPLAY_TX_FRAME:
		*fixed = 0;
		*payload = true;
		return true;
	case ORDMA_REPLAY_RETURN:
	case ORDMA_REPLAY_NOW_NS:
	case ORDMA_REPLAY_TIMER_ARM:
		*fixed = 8;
		return true;
	case ORDMA_REPLAY_DMA_READ:
		*fixed = 20;
		*payload = true;
		return true;
	case ORDMA_REPLAY_DMA_WRITE:
		*fixed = 12;
		*payload = true;
		return true;
	case ORDMA_REPLAY_LOG:
		*fixed = 4;
		*payload = true;
		return true;
	case ORDMA_REPLAY_WIRE_DROPS:
		*fixed = 16;
		return true;
	case ORDMA_REPLAY_WIRE_FAULTS:
		*fixed = 8;	/* and the counters */
		return true;
	case ORDMA_REPLAY_TRAILER:
		*fixed = 24;
		return true;
	}
	return false;
}

static bool parse_payload(struct parser *ps, struct ordma_replay_event *e,
			  const uint8_t *p, size_t left)
{
	uint32_t len, ref;

	if (left < ORDMA_REPLAY_PAYLOAD_HDR_SIZE)
		return parse_fail(ps, e->offset, "payload header cut");
	len = get32(p);
	ref = get32(p + 4);
	left -= ORDMA_REPLAY_PAYLOAD_HDR_SIZE;
	p += ORDMA_REPLAY_PAYLOAD_HDR_SIZE;
	e->len = len;
	if (ref) {
		if (left)
			return parse_fail(ps, e->offset,
					  "bytes after a reference");
		if (ref > ps->nblobs || ps->blobs[ref - 1].len != len)
			return parse_fail(ps, e->offset,
					  "bad payload reference");
		e->data = ps->blobs[ref - 1].data;
		e->ref = true;
		return true;
	}
	if (left != len)
		return parse_fail(ps, e->offset, "payload length");
	if (ps->nblobs == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 256;
		struct blob *b = realloc(ps->blobs, cap * sizeof(*b));

		if (!b)
			return parse_fail(ps, e->offset, "out of memory");
		ps->blobs = b;
		ps->cap = cap;
	}
	ps->blobs[ps->nblobs++] = (struct blob){ p, len };
	e->data = p;
	return true;
}

static bool parse_body(struct parser *ps, struct ordma_replay_event *e,
		       const uint8_t *p, size_t body)
{
	size_t fixed;
	bool payload;

	if (!kind_layout(e->kind, &fixed, &payload))
		return parse_fail(ps, e->offset, "unknown kind");
	if (body < fixed || (!payload && e->kind != ORDMA_REPLAY_WIRE_FAULTS &&
			     body != fixed))
		return parse_fail(ps, e->offset, "body length");
	switch (e->kind) {
	case ORDMA_REPLAY_REG_READ:
		e->a = get64(p);
		e->size = get32(p + 8);
		break;
	case ORDMA_REPLAY_REG_WRITE:
	case ORDMA_REPLAY_DB_WRITE:
	case ORDMA_REPLAY_INJECT_FAULT:
		e->a = get64(p);
		e->b = get64(p + 8);
		e->size = get32(p + 16);
		break;
	case ORDMA_REPLAY_SET_LINK:
	case ORDMA_REPLAY_MSIX:
	case ORDMA_REPLAY_LOG:
		e->a = get32(p);
		break;
	case ORDMA_REPLAY_RETURN:
	case ORDMA_REPLAY_NOW_NS:
	case ORDMA_REPLAY_TIMER_ARM:
		e->a = get64(p);
		break;
	case ORDMA_REPLAY_DMA_READ:
		e->a = get64(p);
		e->b = get64(p + 8);
		e->status = (int32_t)get32(p + 16);
		break;
	case ORDMA_REPLAY_DMA_WRITE:
		e->a = get64(p);
		e->status = (int32_t)get32(p + 8);
		break;
	case ORDMA_REPLAY_WIRE_DROPS:
		e->a = get64(p);
		e->b = get64(p + 8);
		break;
	case ORDMA_REPLAY_WIRE_FAULTS:
		e->b = get32(p);
		if (e->b > ORDMA_REPLAY_MAX_WIRE_FAULTS ||
		    body != fixed + 8 * e->b)
			return parse_fail(ps, e->offset, "wire fault counters");
		e->data = p + fixed;
		e->len = 8 * e->b;
		return true;
	case ORDMA_REPLAY_TRAILER:
		e->a = get32(p);
		e->b = get64(p + 8);
		e->len = 0;
		/* dedup_saved goes to the log, see ordma_replay_parse */
		break;
	}
	if (!payload)
		return true;
	if (!parse_payload(ps, e, p + fixed, body - fixed))
		return false;
	if (e->kind == ORDMA_REPLAY_DMA_READ &&
	    e->len != (e->status ? 0 : e->b))
		return parse_fail(ps, e->offset, "DMA read data length");
	if (e->kind == ORDMA_REPLAY_DMA_WRITE)
		e->b = e->len;
	return true;
}

static bool parse_header(const uint8_t *h, size_t len,
			 struct ordma_replay_log *log, struct parser *ps)
{
	if (len < ORDMA_REPLAY_HEADER_SIZE ||
	    memcmp(h, ORDMA_REPLAY_MAGIC, 8)) {
		snprintf(ps->err, ps->errlen, "not an ORDMA replay log");
		return false;
	}
	log->version = get16(h + 8);
	if (log->version != ORDMA_REPLAY_VERSION ||
	    get16(h + 10) != ORDMA_REPLAY_HEADER_SIZE) {
		snprintf(ps->err, ps->errlen,
			 "log version %u, this replay reads version %u",
			 log->version, ORDMA_REPLAY_VERSION);
		return false;
	}
	log->hal = get32(h + 12);
	memcpy(log->cfg.mac, h + 16, 6);
	log->cfg.link_layer = h[22];
	memcpy(log->cfg.serial, h + 24, 16);
	log->cfg.num_vectors = get32(h + 40);
	log->cfg.num_db_pages = get32(h + 44);
	log->cfg.speed_mbps = get32(h + 48);
	log->wire_faults = get32(h + 52);
	log->max_bytes = get64(h + 56);
	return true;
}

bool ordma_replay_parse(const void *buf, size_t len,
			struct ordma_replay_log *log, char *err, size_t errlen)
{
	struct parser ps = { .err = err, .errlen = errlen };
	const uint8_t *b = buf;
	size_t off = ORDMA_REPLAY_HEADER_SIZE, cap;

	memset(log, 0, sizeof(*log));
	if (!parse_header(b, len, log, &ps))
		return false;
	/* no record is shorter than its header */
	cap = (len - off) / ORDMA_REPLAY_REC_HDR_SIZE + 1;
	log->ev = calloc(cap, sizeof(*log->ev));
	if (!log->ev) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	while (len - off >= ORDMA_REPLAY_REC_HDR_SIZE && !log->has_trailer) {
		struct ordma_replay_event *e = &log->ev[log->n];
		uint32_t body = get32(b + off + 4);

		if (body > len - off - ORDMA_REPLAY_REC_HDR_SIZE)
			break;		/* cut short */
		e->kind = get16(b + off);
		e->offset = off;
		e->rec_bytes = ORDMA_REPLAY_REC_HDR_SIZE + body;
		if (!parse_body(&ps, e, b + off + ORDMA_REPLAY_REC_HDR_SIZE,
				body)) {
			free(ps.blobs);
			ordma_replay_log_free(log);
			return false;
		}
		if (e->kind == ORDMA_REPLAY_TRAILER) {
			if (e->b != log->n) {
				snprintf(err, errlen,
					 "the trailer counts %" PRIu64
					 " records, the log has %zu",
					 e->b, log->n);
				free(ps.blobs);
				ordma_replay_log_free(log);
				return false;
			}
			log->has_trailer = true;
			log->stop_reason = (uint32_t)e->a;
			log->dedup_saved = get64(b + off + 8 + 16);
		}
		log->n++;
		off += e->rec_bytes;
	}
	free(ps.blobs);
	return true;
}

void ordma_replay_log_free(struct ordma_replay_log *log)
{
	free(log->ev);
	log->ev = NULL;
	log->n = 0;
}

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

const char *ordma_replay_kind_name(unsigned int kind)
{
	switch (kind) {
	case ORDMA_REPLAY_CREATE: return "create";
	case ORDMA_REPLAY_DESTROY: return "destroy";
	case ORDMA_REPLAY_RESET: return "reset";
	case ORDMA_REPLAY_BUS_MASTER_ENABLED: return "bus_master_enabled";
	case ORDMA_REPLAY_REG_READ: return "reg_read";
	case ORDMA_REPLAY_REG_WRITE: return "reg_write";
	case ORDMA_REPLAY_DB_WRITE: return "db_write";
	case ORDMA_REPLAY_CAN_RECEIVE: return "can_receive";
	case ORDMA_REPLAY_RX_FRAME: return "rx_frame";
	case ORDMA_REPLAY_SET_LINK: return "set_link";
	case ORDMA_REPLAY_TIMER_EXPIRED: return "timer_expired";
	case ORDMA_REPLAY_INJECT_FAULT: return "inject_fault";
	case ORDMA_REPLAY_RETURN: return "return";
	case ORDMA_REPLAY_NOW_NS: return "now_ns";
	case ORDMA_REPLAY_DMA_READ: return "dma_read";
	case ORDMA_REPLAY_DMA_WRITE: return "dma_write";
	case ORDMA_REPLAY_MSIX: return "msix_notify";
	case ORDMA_REPLAY_TX_FRAME: return "tx_frame";
	case ORDMA_REPLAY_TIMER_ARM: return "timer_arm";
	case ORDMA_REPLAY_LOG: return "log";
	case ORDMA_REPLAY_WIRE_DROPS: return "wire_drops";
	case ORDMA_REPLAY_WIRE_FAULTS: return "wire_faults";
	case ORDMA_REPLAY_TRAILER: return "trailer";
	}
	return "unknown";
}

const char *ordma_replay_stop_name(uint32_t reason)
{
	switch (reason) {
	case ORDMA_REPLAY_STOP_DESTROYED: return "device destroyed";
	case ORDMA_REPLAY_STOP_SIZE_CAP: return "size cap reached";
	case ORDMA_REPLAY_STOP_WRITE_ERROR: return "write error";
	case ORDMA_REPLAY_STOP_NESTED: return "entry point inside a HAL call";
	case ORDMA_REPLAY_STOP_CREATE_FAILED: return "create failed";
	case ORDMA_REPLAY_STOP_FINISHED: return "stopped by the host";
	case ORDMA_REPLAY_STOP_OUTSIDE_ENTRY:
		return "HAL call outside an entry point";
	}
	return "unknown reason";
}

void ordma_replay_describe(const struct ordma_replay_event *e, char *buf,
			   size_t len)
{
	const char *name = ordma_replay_kind_name(e->kind);

	switch (e->kind) {
	case ORDMA_REPLAY_REG_READ:
		snprintf(buf, len, "%s 0x%" PRIx64 " size %u", name, e->a,
			 e->size);
		break;
	case ORDMA_REPLAY_REG_WRITE:
	case ORDMA_REPLAY_DB_WRITE:
		snprintf(buf, len, "%s 0x%" PRIx64 " = 0x%" PRIx64 " size %u",
			 name, e->a, e->b, e->size);
		break;
	case ORDMA_REPLAY_INJECT_FAULT:
		snprintf(buf, len, "%s %" PRIu64 " count %" PRIu64 " arg %u",
			 name, e->a, e->b, e->size);
		break;
	case ORDMA_REPLAY_RX_FRAME:
	case ORDMA_REPLAY_TX_FRAME:
		snprintf(buf, len, "%s of %zu bytes", name, e->len);
		break;
	case ORDMA_REPLAY_SET_LINK:
	case ORDMA_REPLAY_MSIX:
		snprintf(buf, len, "%s %" PRIu64, name, e->a);
		break;
	case ORDMA_REPLAY_RETURN:
	case ORDMA_REPLAY_NOW_NS:
	case ORDMA_REPLAY_TIMER_ARM:
		snprintf(buf, len, "%s 0x%" PRIx64, name, e->a);
		break;
	case ORDMA_REPLAY_DMA_READ:
		snprintf(buf, len, "%s 0x%" PRIx64 " of %" PRIu64 " bytes",
			 name, e->a, e->b);
		break;
	case ORDMA_REPLAY_DMA_WRITE:
		snprintf(buf, len, "%s 0x%" PRIx64 " of %zu bytes", name, e->a,
			 e->len);
		break;
	case ORDMA_REPLAY_LOG:
		snprintf(buf, len, "%s level %" PRIu64 " \"%.*s\"", name, e->a,
			 (int)(e->len > 200 ? 200 : e->len),
			 e->data ? (const char *)e->data : "");
		break;
	case ORDMA_REPLAY_TRAILER:
		snprintf(buf, len, "%s: %s", name,
			 ordma_replay_stop_name((uint32_t)e->a));
		break;
	default:
		snprintf(buf, len, "%s", name);
		break;
	}
}

/* Slots of the statistics: every kind up to WIRE_FAULTS, then the trailer */
#define STATS_TRAILER	(ORDMA_REPLAY_WIRE_FAULTS + 1)
#define STATS_SLOTS	(STATS_TRAILER + 1)

void ordma_replay_print_stats(const struct ordma_replay_log *log, FILE *out)
{
	uint64_t count[STATS_SLOTS] = { 0 }, bytes[STATS_SLOTS] = { 0 };
	uint64_t saved[STATS_SLOTS] = { 0 };
	uint64_t total = ORDMA_REPLAY_HEADER_SIZE;
	unsigned int k;
	size_t i;

	for (i = 0; i < log->n; i++) {
		const struct ordma_replay_event *e = &log->ev[i];

		/* the parser let through no other kind */
		k = e->kind == ORDMA_REPLAY_TRAILER ? STATS_TRAILER : e->kind;
		count[k]++;
		bytes[k] += e->rec_bytes;
		if (e->ref)
			saved[k] += e->len;
		total += e->rec_bytes;
	}
	fprintf(out, "%-20s %10s %12s %10s %12s\n", "kind", "records", "bytes",
		"bytes/rec", "dedup saved");
	for (k = 0; k < STATS_SLOTS; k++) {
		if (!count[k])
			continue;
		fprintf(out, "%-20s %10" PRIu64 " %12" PRIu64 " %10.1f %12"
			PRIu64 "\n",
			ordma_replay_kind_name(k == STATS_TRAILER ?
					       ORDMA_REPLAY_TRAILER : k),
			count[k], bytes[k], (double)bytes[k] / (double)count[k],
			saved[k]);
	}
	fprintf(out, "%-20s %10zu %12" PRIu64 "\n", "total (with header)",
		log->n, total);
}

/* ------------------------------------------------------------------ */
/* Running                                                             */
/* ------------------------------------------------------------------ */

struct rp {
	const struct ordma_replay_log *log;
	struct ordma_replay_result *res;
	struct ordma_hal_ops ops;
	size_t next;		/* index of the next event to match */
	bool diverged;
	bool ended;		/* the log ended inside a call */
	uint64_t last_now;
	ordma_replay_trace_fn trace;
	void *trace_arg;
	const char *entry;	/* the entry point being replayed */
	uint64_t entry_event;
};

static bool is_hal_kind(unsigned int kind)
{
	return kind >= ORDMA_REPLAY_NOW_NS && kind <= ORDMA_REPLAY_WIRE_FAULTS;
}

static bool is_entry_kind(unsigned int kind)
{
	return kind >= ORDMA_REPLAY_CREATE &&
	       kind <= ORDMA_REPLAY_INJECT_FAULT;
}

static void rp_diverge(struct rp *r, const struct ordma_replay_event *want,
		       const char *got, const char *detail)
{
	char w[300];

	if (r->diverged)
		return;
	r->diverged = true;
	ordma_replay_describe(want, w, sizeof(w));
	r->res->event = r->next + 1;
	snprintf(r->res->what, sizeof(r->res->what),
		 "expected %s, got %s%s%s (in %s of event %" PRIu64 ")", w, got,
		 detail ? ": " : "", detail ? detail : "", r->entry,
		 r->entry_event);
}

/* Where two byte strings first differ, as text; false if they do not. */
static bool bytes_differ(const uint8_t *want, size_t want_len,
			 const uint8_t *got, size_t got_len, char *buf,
			 size_t len)
{
	size_t i, n = want_len < got_len ? want_len : got_len;

	for (i = 0; i < n; i++)
		if (want[i] != got[i]) {
			snprintf(buf, len,
				 "byte %zu is 0x%02x, recorded 0x%02x", i,
				 got[i], want[i]);
			return true;
		}
	if (want_len != got_len) {
		snprintf(buf, len, "%zu bytes, recorded %zu", got_len,
			 want_len);
		return true;
	}
	return false;
}

/*
 * The recorded event the firmware's HAL call (got) must be; NULL after a
 * divergence, at the end of the log, or if it is not.
 */
static const struct ordma_replay_event *
rp_match(struct rp *r, const struct ordma_replay_event *got)
{
	const struct ordma_replay_event *want;
	char g[300], detail[160];
	bool same;

	if (r->diverged || r->ended)
		return NULL;
	if (r->next >= r->log->n ||
	    r->log->ev[r->next].kind == ORDMA_REPLAY_TRAILER) {
		r->ended = true;
		return NULL;
	}
	want = &r->log->ev[r->next];
	ordma_replay_describe(got, g, sizeof(g));
	detail[0] = 0;
	same = want->kind == got->kind;
	if (same) {
		switch (got->kind) {
		case ORDMA_REPLAY_DMA_READ:
			same = want->a == got->a && want->b == got->b;
			break;
		case ORDMA_REPLAY_DMA_WRITE:
			same = want->a == got->a &&
			       !bytes_differ(want->data, want->len, got->data,
					     got->len, detail, sizeof(detail));
			break;
		case ORDMA_REPLAY_TX_FRAME:
		case ORDMA_REPLAY_LOG:
			same = want->a == got->a &&
			       !bytes_differ(want->data, want->len, got->data,
					     got->len, detail, sizeof(detail));
			break;
		case ORDMA_REPLAY_MSIX:
		case ORDMA_REPLAY_TIMER_ARM:
		case ORDMA_REPLAY_RETURN:
			same = want->a == got->a;
			break;
		case ORDMA_REPLAY_WIRE_FAULTS:
			same = want->b == got->b;
			if (!same)
				snprintf(detail, sizeof(detail), "%" PRIu64
					 " counters, recorded %" PRIu64,
					 got->b, want->b);
			break;
		}
	}
	if (!same) {
		rp_diverge(r, want, g, detail[0] ? detail : NULL);
		return NULL;
	}
	r->next++;
	return want;
}

static int rp_dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct ordma_replay_event got = {
		.kind = ORDMA_REPLAY_DMA_READ, .a = addr, .b = len,
	};
	const struct ordma_replay_event *e = rp_match(ctx, &got);

	if (!e)
		return -1;
	if (!e->status)
		memcpy(buf, e->data, len);
	return e->status;
}

static int rp_dma_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct ordma_replay_event got = {
		.kind = ORDMA_REPLAY_DMA_WRITE, .a = addr, .data = buf,
		.len = len, .b = len,
	};
	const struct ordma_replay_event *e = rp_match(ctx, &got);

	return e ? e->status : 0;
}

static void rp_msix_notify(void *ctx, unsigned int vector)
{
	struct ordma_replay_event got = {
		.kind = ORDMA_REPLAY_MSIX, .a = vector,
	};

	rp_match(ctx, &got);
}

static void rp_tx_frame(void *ctx, const void *frame, size_t len)
{
	struct ordma_replay_event got = {
		.kind = ORDMA_REPLAY_TX_FRAME, .data = frame, .len = len,
	};

	rp_match(ctx, &got);
}

static uint64_t rp_now_ns(void *ctx)
{
	struct ordma_replay_event got = { .kind = ORDMA_REPLAY_NOW_NS };
	struct rp *r = ctx;
	const struct ordma_replay_event *e = rp_match(r, &got);

	if (e)
		r->last_now = e->a;
	return r->last_now;
}

static void rp_timer_arm(void *ctx, uint64_t expire_ns)
{
	struct ordma_replay_event got = {
		.kind = ORDMA_REPLAY_TIMER_ARM, .a = expire_ns,
	};

	rp_match(ctx, &got);
}

static void rp_log(void *ctx, enum ordma_fw_log_level level, const char *msg)
{
	struct ordma_replay_event got = {
		.kind = ORDMA_REPLAY_LOG, .a = (uint64_t)level,
		.data = (const uint8_t *)msg, .len = strlen(msg),
	};

	rp_match(ctx, &got);
}

static void rp_wire_drops(void *ctx, uint64_t *tx, uint64_t *rx)
{
	struct ordma_replay_event got = { .kind = ORDMA_REPLAY_WIRE_DROPS };
	const struct ordma_replay_event *e = rp_match(ctx, &got);

	*tx = e ? e->a : 0;
	*rx = e ? e->b : 0;
}

static void rp_wire_faults(void *ctx, uint64_t *faults)
{
	struct ordma_replay_event got = {
		.kind = ORDMA_REPLAY_WIRE_FAULTS, .b = ORDMA_WIRE_FAULTS,
	};
	const struct ordma_replay_event *e = rp_match(ctx, &got);
	unsigned int i;

	for (i = 0; i < ORDMA_WIRE_FAULTS; i++)
		faults[i] = e ? get64(e->data + 8 * i) : 0;
}

/* Calls the entry point e stands for; *ret gets what it returned, if it
 * returns something.
 */
static bool rp_call(struct rp *r, struct ordma_fw **fw,
		    const struct ordma_replay_event *e, uint64_t *ret)
{
	switch (e->kind) {
	case ORDMA_REPLAY_CREATE:
		*fw = ordma_fw_create(&r->ops, r, &r->log->cfg);
		*ret = *fw != NULL;
		return true;
	case ORDMA_REPLAY_DESTROY:
		ordma_fw_destroy(*fw);
		*fw = NULL;
		break;
	case ORDMA_REPLAY_RESET:
		ordma_fw_reset(*fw);
		break;
	case ORDMA_REPLAY_BUS_MASTER_ENABLED:
		ordma_fw_bus_master_enabled(*fw);
		break;
	case ORDMA_REPLAY_REG_READ:
		*ret = ordma_fw_reg_read(*fw, e->a, e->size);
		return true;
	case ORDMA_REPLAY_REG_WRITE:
		ordma_fw_reg_write(*fw, e->a, e->b, e->size);
		break;
	case ORDMA_REPLAY_DB_WRITE:
		ordma_fw_db_write(*fw, e->a, e->b, e->size);
		break;
	case ORDMA_REPLAY_CAN_RECEIVE:
		*ret = ordma_fw_can_receive(*fw);
		return true;
	case ORDMA_REPLAY_RX_FRAME:
		ordma_fw_rx_frame(*fw, e->data, e->len);
		break;
	case ORDMA_REPLAY_SET_LINK:
		ordma_fw_set_link(*fw, e->a != 0);
		break;
	case ORDMA_REPLAY_TIMER_EXPIRED:
		ordma_fw_timer_expired(*fw);
		break;
	case ORDMA_REPLAY_INJECT_FAULT:
		*ret = (uint64_t)(int64_t)ordma_fw_inject_fault(*fw,
				(unsigned int)e->a, (uint32_t)e->b, e->size);
		return true;
	}
	return false;
}

/* The replay's HAL has the operations the recording host had */
#define HAL_OP(log, name, fn) \
	((log)->hal & ORDMA_REPLAY_HAL_##name ? (fn) : NULL)

static enum ordma_replay_outcome bad_log(struct ordma_replay_result *res,
					 size_t i, const char *why)
{
	snprintf(res->what, sizeof(res->what), "event %zu: %s", i + 1, why);
	return ORDMA_REPLAY_BAD_LOG;
}

/* Not a HAL call of the log: trace records are outputs it does not hold */
static void rp_trace(void *ctx, const struct ordma_fw_trace *rec)
{
	struct rp *r = ctx;

	r->trace(r->trace_arg, r->last_now, rec);
}

enum ordma_replay_outcome ordma_replay_run(const struct ordma_replay_log *log,
					   struct ordma_replay_result *res)
{
	return ordma_replay_run_traced(log, res, NULL, NULL);
}

enum ordma_replay_outcome
ordma_replay_run_traced(const struct ordma_replay_log *log,
			struct ordma_replay_result *res,
			ordma_replay_trace_fn trace, void *arg)
{
	struct rp r = { .log = log, .res = res, .entry = "nothing",
			.trace = trace, .trace_arg = arg };
	enum ordma_replay_outcome out = ORDMA_REPLAY_SAME;
	struct ordma_fw *fw = NULL;
	bool created = false;

	memset(res, 0, sizeof(*res));
	r.ops = (struct ordma_hal_ops) {
		.dma_read = HAL_OP(log, DMA_READ, rp_dma_read),
		.dma_write = HAL_OP(log, DMA_WRITE, rp_dma_write),
		.msix_notify = HAL_OP(log, MSIX_NOTIFY, rp_msix_notify),
		.tx_frame = HAL_OP(log, TX_FRAME, rp_tx_frame),
		.now_ns = HAL_OP(log, NOW_NS, rp_now_ns),
		.timer_arm = HAL_OP(log, TIMER_ARM, rp_timer_arm),
		.log = HAL_OP(log, LOG, rp_log),
		.wire_drops = HAL_OP(log, WIRE_DROPS, rp_wire_drops),
		.wire_faults = HAL_OP(log, WIRE_FAULTS, rp_wire_faults),
		.trace = trace ? rp_trace : NULL,
	};
	while (r.next < log->n && !r.diverged && !r.ended) {
		const struct ordma_replay_event *e = &log->ev[r.next];
		struct ordma_replay_event got = { .kind = ORDMA_REPLAY_RETURN };
		char g[80];

		if (e->kind == ORDMA_REPLAY_TRAILER)
			break;
		if (!is_entry_kind(e->kind))
			return bad_log(res, r.next, "not an entry point");
		if ((e->kind == ORDMA_REPLAY_CREATE) == created)
			return bad_log(res, r.next, created ?
				       "second create" : "no create first");
		if (e->kind != ORDMA_REPLAY_CREATE && !fw)
			return bad_log(res, r.next, "no device");
		created = true;
		r.entry = ordma_replay_kind_name(e->kind);
		r.entry_event = ++r.next;
		if (rp_call(&r, &fw, e, &got.a))
			rp_match(&r, &got);
		if (r.diverged || r.ended)
			break;
		if (r.next < log->n && (is_hal_kind(log->ev[r.next].kind) ||
					log->ev[r.next].kind ==
					ORDMA_REPLAY_RETURN)) {
			snprintf(g, sizeof(g), "the return from %s", r.entry);
			rp_diverge(&r, &log->ev[r.next], g, NULL);
		}
	}
	if (r.diverged)
		out = ORDMA_REPLAY_DIVERGED;
	res->replayed = r.diverged ? res->event - 1 : r.next;
	/* what the firmware does from here is not in the log */
	r.ended = true;
	if (fw)
		ordma_fw_destroy(fw);
	return out;
}
