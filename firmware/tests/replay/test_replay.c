// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Record and replay: two devices record an RC exchange (a SEND whose
 * last packet is lost and goes again on the retry timer, then a READ),
 * and each log replays without divergence; the same log against the
 * firmware with its planted bug armed, or tampered with, diverges at the
 * event where the output first differs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "ordma_test.h"
#include "platform/fw_platform.h"
#include "transport/pair.h"
#include "replay/ordma_replay.h"
#include "replay/replay.h"
#include "trace/ordma_trace_file.h"
#include "planted_bug.h"

#define SEND_LEN	3000
#define READ_LEN	6000
/* the receive CQ ring of each side (side_open: CQ area 1) */
#define RCQ_LO		DRV_CQ_ADDR(1)
#define RCQ_HI		DRV_CQ_ADDR(2)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The exchange; true if both operations completed as they should. */
static bool rc_exchange(void)
{
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;
	bool ok;

	default_cfg(&c);
	if (!env_open(&e, &c))
		return false;
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, SEND_LEN), SEND_LEN, 2);
	post_recv(b, MR1_ADDR + 0x40000, SEND_LEN);
	e.l[0].drop_nth = 3;		/* the last of three packets */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, SEND_LEN, a->key1);
	post(a, &w);
	pump(&e);
	ok = no_cqe(a, true);
	/* past the local ACK timeout (4.2 ms): go-back-N */
	advance(&e, (4096ULL << 10) + 1000);
	ok &= fwqp(a)->counters.retransmits == 1;
	ok &= expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS,
			 SEND_LEN, 0);
	ok &= expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
			 SEND_LEN, 0);
	ok &= !memcmp(mem(b, MR1_ADDR + 0x40000, SEND_LEN),
		      mem(a, MR1_ADDR, SEND_LEN), SEND_LEN);

	pattern(mem(b, MR1_ADDR + 0x80000, READ_LEN), READ_LEN, 5);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x90000, READ_LEN,
		a->key1);
	w.remote_addr = MR1_ADDR + 0x80000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	ok &= expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			 READ_LEN, 1);
	ok &= !memcmp(mem(a, MR1_ADDR + 0x90000, READ_LEN),
		      mem(b, MR1_ADDR + 0x80000, READ_LEN), READ_LEN);
	env_close(&e);
	return ok;
}

/* Records the exchange on both devices with opts; false if it failed. */
static bool record_exchange(const struct ordma_rec_opts *opts)
{
	bool ok;

	rec_test_opts = *opts;
	rec_test_record = true;
	ok = rc_exchange();
	rec_test_record = false;
	return ok;
}

static bool parse(unsigned int dev, struct ordma_replay_log *log)
{
	const uint8_t *buf;
	char err[256];
	size_t len;

	buf = rec_test_log(dev, &len);
	if (!buf)
		return false;
	if (!ordma_replay_parse(buf, len, log, err, sizeof(err))) {
		NOTE("device %u: %s", dev, err);
		return false;
	}
	return true;
}

/* Event number of the first event of kind at an address in [lo, hi) */
static uint64_t first_event(const struct ordma_replay_log *log,
			    unsigned int kind, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < log->n; i++)
		if (log->ev[i].kind == kind && log->ev[i].a >= lo &&
		    log->ev[i].a < hi)
			return i + 1;
	return 0;
}

static void note_sizes(const struct ordma_replay_log *log, size_t len)
{
	char line[200];
	FILE *f;

	NOTE("log of %zu records, %zu bytes:", log->n, len);
	f = fmemopen(NULL, 4096, "w+");
	if (!f)
		return;
	ordma_replay_print_stats(log, f);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		NOTE("  %s", line);
	}
	fclose(f);
}

TEST(replay_rc_exchange_no_divergence)
{
	struct ordma_rec_opts opts = { 0 };
	unsigned int dev;

	REQUIRE(record_exchange(&opts));
	for (dev = 0; dev < 2; dev++) {
		struct ordma_replay_result res;
		struct ordma_replay_log log;
		size_t len;
		double t;

		REQUIRE(parse(dev, &log));
		rec_test_log(dev, &len);
		CHECK(log.has_trailer);
		CHECK_EQ(log.stop_reason, ORDMA_REPLAY_STOP_DESTROYED);
		CHECK_EQ(log.ev[0].kind, ORDMA_REPLAY_CREATE);
		CHECK(first_event(&log, ORDMA_REPLAY_RX_FRAME, 0, 1));
		/* A's retry timer sent the lost packet again */
		if (dev == 0)
			CHECK(first_event(&log, ORDMA_REPLAY_TIMER_EXPIRED,
					  0, 1));
		t = now_s();
		CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_SAME);
		t = now_s() - t;
		if (res.what[0])
			NOTE("device %u: event %" PRIu64 ": %s", dev,
			     res.event, res.what);
		/* every event but the trailer */
		CHECK_EQ(res.replayed, log.n - 1);
		NOTE("device %u: %" PRIu64 " events replayed in %.1f ms", dev,
		     res.replayed, t * 1e3);
		if (dev == 0)
			note_sizes(&log, len);
		ordma_replay_log_free(&log);
	}
	rec_test_free();
}

struct traced {
	unsigned int n, tx, rx, retransmits;
	uint64_t last_ns;
	bool backwards;
};

static void count_trace(void *arg, uint64_t device_ns,
			const struct ordma_fw_trace *rec)
{
	struct traced *t = arg;

	t->n++;
	t->tx += rec->kind == ORDMA_FW_TRACE_TX;
	t->rx += rec->kind == ORDMA_FW_TRACE_RX;
	t->retransmits += rec->kind == ORDMA_FW_TRACE_RETRANSMIT;
	if (device_ns < t->last_ns)
		t->backwards = true;
	t->last_ns = device_ns;
}

/*
 * A log replayed with the trace on gives the timeline of the recorded
 * run (A's retransmission of the lost packet included) and replays just
 * as it does without: records are not HAL calls of the log.
 */
TEST(replay_traced_gives_the_runs_records)
{
	struct ordma_rec_opts opts = { 0 };
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	struct traced t = { 0 };

	REQUIRE(record_exchange(&opts));
	REQUIRE(parse(0, &log));
	CHECK_EQ(ordma_replay_run_traced(&log, &res, count_trace, &t),
		 ORDMA_REPLAY_SAME);
	CHECK_EQ(res.replayed, log.n - 1);
	CHECK(t.tx > 0 && t.rx > 0);
	CHECK_EQ(t.retransmits, 1);
	CHECK(!t.backwards);
	NOTE("%u records: %u TX, %u RX, %u retransmissions", t.n, t.tx, t.rx,
	     t.retransmits);
	ordma_replay_log_free(&log);
	rec_test_free();
}

/*
 * A fault the host injects is an input of the log: the replay arms it
 * at the same point and the WQE fails the same way.
 */
TEST(replay_injected_fault_no_divergence)
{
	struct ordma_rec_opts opts = { 0 };
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;
	bool opened;

	rec_test_opts = opts;
	rec_test_record = true;
	default_cfg(&c);
	opened = env_open(&e, &c);
	if (opened) {
		a = &e.s[0];
		b = &e.s[1];
		post_recv(b, MR1_ADDR, 64);
		CHECK_EQ(ordma_fw_inject_fault(a->d.fw, ORDMA_FAULT_DMA_READ, 1,
					       0), 0);
		CHECK_EQ(ordma_fw_inject_fault(a->d.fw, ORDMA_FAULTS, 1, 0), -1);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
		post(a, &w);
		pump(&e);
		expect_cqe(a, true, ORDMA_CQE_OP_SEND,
			   ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
		env_close(&e);
	}
	rec_test_record = false;
	REQUIRE(opened);
	REQUIRE(parse(0, &log));
	CHECK(first_event(&log, ORDMA_REPLAY_INJECT_FAULT, ORDMA_FAULT_DMA_READ,
			  ORDMA_FAULT_DMA_READ + 1));
	CHECK(first_event(&log, ORDMA_REPLAY_INJECT_FAULT, ORDMA_FAULTS,
			  ORDMA_FAULTS + 1));
	CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_SAME);
	if (res.what[0])
		NOTE("event %" PRIu64 ": %s", res.event, res.what);
	CHECK_EQ(res.replayed, log.n - 1);
	ordma_replay_log_free(&log);
	rec_test_free();
}

/*
 * The firmware with its bug armed corrupts the first completion it
 * writes into B's receive CQ: the replay of B's log must stop exactly at
 * that DMA write, having matched every event before it.
 */
TEST(replay_planted_bug_diverges_at_its_write)
{
	struct ordma_rec_opts opts = { 0 };
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	uint64_t want;

	REQUIRE(record_exchange(&opts));
	REQUIRE(parse(1, &log));
	want = first_event(&log, ORDMA_REPLAY_DMA_WRITE, RCQ_LO, RCQ_HI);
	REQUIRE(want > 0);
	replay_planted_bug = (struct replay_planted_bug){
		.lo = RCQ_LO, .hi = RCQ_HI, .byte = 4,
	};
	CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_DIVERGED);
	CHECK(replay_planted_bug.fired);
	CHECK_EQ(res.event, want);
	CHECK_EQ(res.replayed, want - 1);
	CHECK(strstr(res.what, "byte 4 is") != NULL);
	NOTE("event %" PRIu64 " of %zu: %s", res.event, log.n, res.what);

	/* disarmed, the same firmware replays the log to its end */
	replay_planted_bug = (struct replay_planted_bug){ 0 };
	CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_SAME);
	ordma_replay_log_free(&log);
	rec_test_free();
}

/* A byte flipped in the log's copy of an output is found at its event. */
TEST(replay_tampered_output_diverges_there)
{
	struct ordma_rec_opts opts = { 0 };
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	const uint8_t *buf;
	uint8_t *copy;
	uint64_t want = 0;
	size_t len, i, seen = 0;
	char err[256];

	REQUIRE(record_exchange(&opts));
	buf = rec_test_log(0, &len);
	REQUIRE(buf);
	copy = malloc(len);
	REQUIRE(copy);
	memcpy(copy, buf, len);
	REQUIRE(ordma_replay_parse(copy, len, &log, err, sizeof(err)));
	/* the fourth frame A sent: past the first packets of the SEND */
	for (i = 0; i < log.n && !want; i++)
		if (log.ev[i].kind == ORDMA_REPLAY_TX_FRAME && ++seen == 4)
			want = i + 1;
	REQUIRE(want > 0);
	((uint8_t *)log.ev[want - 1].data)[20] ^= 0x80;
	CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_DIVERGED);
	CHECK_EQ(res.event, want);
	CHECK(strstr(res.what, "tx_frame") != NULL);
	CHECK(strstr(res.what, "byte 20 is") != NULL);
	NOTE("event %" PRIu64 ": %s", res.event, res.what);
	ordma_replay_log_free(&log);

	/* and a register value the device returned */
	memcpy(copy, buf, len);
	REQUIRE(ordma_replay_parse(copy, len, &log, err, sizeof(err)));
	want = 0;
	for (i = 1; i < log.n && !want; i++)
		if (log.ev[i].kind == ORDMA_REPLAY_RETURN &&
		    log.ev[i - 1].kind == ORDMA_REPLAY_REG_READ)
			want = i + 1;
	REQUIRE(want > 0);
	/* the value is the record body's first field */
	copy[log.ev[want - 1].offset + ORDMA_REPLAY_REC_HDR_SIZE] ^= 1;
	ordma_replay_log_free(&log);
	REQUIRE(ordma_replay_parse(copy, len, &log, err, sizeof(err)));
	CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_DIVERGED);
	CHECK_EQ(res.event, want);
	CHECK(strstr(res.what, "got return") != NULL);
	NOTE("event %" PRIu64 ": %s", res.event, res.what);
	ordma_replay_log_free(&log);
	free(copy);
	rec_test_free();
}

/* At the size cap the recording stops, says so, and replays as far. */
TEST(replay_size_cap_stops_recording)
{
	struct ordma_rec_opts opts = { .max_bytes = 16 << 10 };
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	size_t len;

	REQUIRE(record_exchange(&opts));
	REQUIRE(parse(0, &log));
	rec_test_log(0, &len);
	CHECK(len <= opts.max_bytes);
	CHECK(len > opts.max_bytes - 2000);
	CHECK(log.has_trailer);
	CHECK_EQ(log.stop_reason, ORDMA_REPLAY_STOP_SIZE_CAP);
	CHECK_EQ(log.max_bytes, opts.max_bytes);
	CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_SAME);
	NOTE("cap %" PRIu64 ": %zu bytes, %" PRIu64 " events replayed",
	     (uint64_t)opts.max_bytes, len, res.replayed);
	ordma_replay_log_free(&log);
	rec_test_free();
}

/* De-duplicated payloads replay the same, in a smaller log. */
TEST(replay_dedup_same_replay_smaller_log)
{
	struct ordma_rec_opts plain = { 0 }, dedup = { .dedup_bytes = 1 << 20 };
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	size_t plain_len[2], len;
	uint64_t saved = 0;
	unsigned int dev;

	REQUIRE(record_exchange(&plain));
	rec_test_log(0, &plain_len[0]);
	rec_test_log(1, &plain_len[1]);
	rec_test_free();
	REQUIRE(record_exchange(&dedup));
	for (dev = 0; dev < 2; dev++) {
		REQUIRE(parse(dev, &log));
		rec_test_log(dev, &len);
		saved += log.dedup_saved;
		CHECK_EQ(len + log.dedup_saved, plain_len[dev]);
		CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_SAME);
		CHECK_EQ(res.replayed, log.n - 1);
		NOTE("device %u: %zu bytes, %zu without de-duplication "
		     "(%" PRIu64 " payload bytes as references)", dev, len,
		     plain_len[dev], log.dedup_saved);
		ordma_replay_log_free(&log);
	}
	/* A reads the SEND's payload again for the retransmission */
	CHECK(saved >= SEND_LEN);
	rec_test_free();
}

/* ------------------------------------------------------------------ */
/* An entry point called from inside a HAL call                        */
/* ------------------------------------------------------------------ */

static struct ordma_rec *nested_rec;
static bool nested_done;

static void nested_log(void *ctx, enum ordma_fw_log_level level,
		       const char *msg)
{
	if (nested_rec && !nested_done) {
		nested_done = true;
		ordma_rec_can_receive(nested_rec);
	}
	fake_hal_ops.log(ctx, level, msg);
}

static bool has_kind(const struct ordma_replay_log *log, unsigned int kind)
{
	size_t i;

	for (i = 0; i < log->n; i++)
		if (log->ev[i].kind == kind)
			return true;
	return false;
}

/* One device through every entry point of ordma_fw.h */
TEST(replay_every_entry_point)
{
	static const uint8_t peer[6] = { 0x02, 0, 0, 0, 0, 0x99 };
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	struct drv_ring tx, rx;
	struct drv_eq eq;
	uint8_t frame[200];
	unsigned int kind;
	struct drv d;
	size_t len;

	rec_test_opts = (struct ordma_rec_opts){ 0 };
	rec_test_record = true;
	REQUIRE(drv_open(&d, 4));
	rec_test_record = false;
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_COMP, 1, 6));
	REQUIRE(drv_ring_open(&d, &tx, ORDMA_ETH_RING_TX, 4, eq.eqn));
	REQUIRE(drv_ring_open(&d, &rx, ORDMA_ETH_RING_RX, 4, eq.eqn));
	REQUIRE_EQ(drv_port_up(&d), OK);
	drv_rx_post(&d, &rx, 4, 2048);
	len = drv_build_frame(frame, d.cfg.mac, peer, 0x0800, 186);
	CHECK(ordma_fw_can_receive(d.fw));
	ordma_fw_rx_frame(d.fw, frame, len);
	CHECK_EQ(drv_desc_flags(&d, &rx, 0), len | ORDMA_ETH_DESC_DONE);
	drv_tx(&d, &tx, frame, len);
	CHECK_EQ(d.hal.tx_count, 1);
	fake_advance(&d.hal, 1000000000ULL);	/* heartbeats */
	CHECK(d.hal.timer_fired > 0);
	ordma_fw_set_link(d.fw, false);
	ordma_fw_set_link(d.fw, true);
	ordma_fw_bus_master_enabled(d.fw);
	ordma_fw_reset(d.fw);
	drv_close(&d);

	REQUIRE(parse(0, &log));
	for (kind = ORDMA_REPLAY_CREATE; kind <= ORDMA_REPLAY_TIMER_EXPIRED;
	     kind++)
		if (!CHECK(has_kind(&log, kind)))
			NOTE("no %s in the log", ordma_replay_kind_name(kind));
	CHECK(has_kind(&log, ORDMA_REPLAY_TX_FRAME));
	CHECK(has_kind(&log, ORDMA_REPLAY_MSIX));
	CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_SAME);
	if (res.what[0])
		NOTE("event %" PRIu64 ": %s", res.event, res.what);
	CHECK_EQ(res.replayed, log.n - 1);
	ordma_replay_log_free(&log);
	rec_test_free();
}

/*
 * Any prefix of a log (a host that died) replays as far as it goes; a
 * damaged log is refused or diverges, and never takes the replay down.
 */
TEST(replay_cut_or_damaged_logs)
{
	struct ordma_rec_opts opts = { 0 };
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	unsigned int k, outcome[3] = { 0 };
	const uint8_t *buf;
	uint8_t *copy;
	char err[256];
	size_t len;

	REQUIRE(record_exchange(&opts));
	buf = rec_test_log(1, &len);
	REQUIRE(buf);
	copy = malloc(len);
	REQUIRE(copy);
	memcpy(copy, buf, len);
	for (k = 1; k < 8; k++) {
		size_t cut = len * k / 8;

		REQUIRE(ordma_replay_parse(copy, cut, &log, err, sizeof(err)));
		CHECK(!log.has_trailer);
		CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_SAME);
		ordma_replay_log_free(&log);
	}

	copy[3] ^= 1;
	CHECK(!ordma_replay_parse(copy, len, &log, err, sizeof(err)));
	copy[3] ^= 1;
	copy[8] = ORDMA_REPLAY_VERSION + 1;
	CHECK(!ordma_replay_parse(copy, len, &log, err, sizeof(err)));
	CHECK(strstr(err, "version") != NULL);
	copy[8] = ORDMA_REPLAY_VERSION;
	/* the trailer's record count, 8 bytes into its body */
	copy[len - ORDMA_REPLAY_TRAILER_SIZE + ORDMA_REPLAY_REC_HDR_SIZE + 8]++;
	CHECK(!ordma_replay_parse(copy, len, &log, err, sizeof(err)));
	CHECK(strstr(err, "the trailer counts") != NULL);

	for (k = 0; k < 8; k++) {
		size_t pos = ORDMA_REPLAY_HEADER_SIZE +
			     (len - ORDMA_REPLAY_HEADER_SIZE) * k / 8 + 3;

		memcpy(copy, buf, len);
		copy[pos] ^= 0x5a;
		if (!ordma_replay_parse(copy, len, &log, err, sizeof(err))) {
			outcome[ORDMA_REPLAY_BAD_LOG]++;
			continue;
		}
		outcome[ordma_replay_run(&log, &res)]++;
		ordma_replay_log_free(&log);
	}
	NOTE("8 damaged logs: %u replayed, %u diverged, %u refused",
	     outcome[0], outcome[1], outcome[2]);
	free(copy);
	rec_test_free();
}

static size_t count_sink(void *arg, const void *data, size_t len)
{
	(void)data;
	*(size_t *)arg += len;
	return len;
}

/* A log in a fixed buffer: what does not fit is refused */
struct mem_log {
	uint8_t buf[4096];
	size_t len;
};

static size_t mem_sink(void *arg, const void *data, size_t len)
{
	struct mem_log *out = arg;

	if (len > sizeof(out->buf) - out->len)
		return 0;
	memcpy(out->buf + out->len, data, len);
	out->len += len;
	return len;
}

TEST(replay_nested_entry_stops_recording)
{
	struct ordma_hal_ops ops = fake_hal_ops;
	struct ordma_rec_opts opts = { .write = count_sink };
	struct ordma_fw_config cfg;
	struct ordma_rec_stats st;
	struct fake_hal h;
	size_t bytes = 0;

	opts.write_arg = &bytes;
	ops.log = nested_log;
	drv_default_config(&cfg);
	REQUIRE(fake_hal_init(&h));
	nested_rec = ordma_rec_create(&ops, &h, &cfg, &opts);
	REQUIRE(nested_rec);
	/* a guest error: the firmware logs it */
	ordma_rec_reg_read(nested_rec, 0xfff0, 4);
	CHECK(nested_done);
	ordma_rec_get_stats(nested_rec, &st);
	CHECK(!st.recording);
	CHECK_EQ(st.stop_reason, ORDMA_REPLAY_STOP_NESTED);
	CHECK_EQ(st.bytes, bytes);
	/* the device goes on, unrecorded */
	ordma_rec_reg_read(nested_rec, 0xfff0, 4);
	ordma_rec_get_stats(nested_rec, &st);
	CHECK_EQ(st.bytes, bytes);
	ordma_rec_destroy(nested_rec);
	nested_rec = NULL;
	fake_hal_fini(&h);
}

/*
 * The firmware sees the host's HAL as it is: without log() it formats no
 * log line, without dma_read it refuses to be created; a HAL call from
 * outside any entry point (firmware internals called directly) ends the
 * log, which still replays.
 */
TEST(replay_recorder_mirrors_the_host_hal)
{
	struct ordma_hal_ops ops = fake_hal_ops;
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	struct ordma_fw_config cfg;
	struct ordma_rec_stats st;
	struct ordma_rec *rec;
	struct fake_hal h;
	struct mem_log out = { .len = 0 };
	char err[256];
	size_t counted = 0;
	struct ordma_rec_opts opts = {
		.write = count_sink, .write_arg = &counted,
	};

	drv_default_config(&cfg);
	REQUIRE(fake_hal_init(&h));
	CHECK(!ordma_rec_create(NULL, &h, &cfg, &opts));
	CHECK(!ordma_rec_create(&ops, &h, NULL, &opts));
	ops.dma_read = NULL;
	CHECK(!ordma_rec_create(&ops, &h, &cfg, &opts));
	CHECK(counted > 0);		/* the log of a failed create */

	ops = fake_hal_ops;
	ops.log = NULL;
	opts.write = mem_sink;
	opts.write_arg = &out;
	rec = ordma_rec_create(&ops, &h, &cfg, &opts);
	REQUIRE(rec);
	ordma_rec_reg_read(rec, 0xfff0, 4);	/* a guest error, unlogged */
	/* firmware internals: the clock, read outside any entry point */
	fw_now(ordma_rec_fw(rec));
	ordma_rec_get_stats(rec, &st);
	CHECK(!st.recording);
	CHECK_EQ(st.stop_reason, ORDMA_REPLAY_STOP_OUTSIDE_ENTRY);
	ordma_rec_destroy(rec);
	fake_hal_fini(&h);

	REQUIRE(out.len < sizeof(out.buf));
	REQUIRE(ordma_replay_parse(out.buf, out.len, &log, err, sizeof(err)));
	CHECK(!(log.hal & ORDMA_REPLAY_HAL_LOG));
	CHECK(log.hal & ORDMA_REPLAY_HAL_DMA_READ);
	CHECK(!has_kind(&log, ORDMA_REPLAY_LOG));
	CHECK(has_kind(&log, ORDMA_REPLAY_REG_READ));
	CHECK_EQ(log.stop_reason, ORDMA_REPLAY_STOP_OUTSIDE_ENTRY);
	CHECK_EQ(ordma_replay_run(&log, &res), ORDMA_REPLAY_SAME);
	ordma_replay_log_free(&log);
}

/* ------------------------------------------------------------------ */
/* The tool                                                            */
/* ------------------------------------------------------------------ */

/* Runs the tool on a log; its exit status, or -1.  *found counts the
 * lines of its output that contain one of the n strings of want.
 */
static int run_tool(const char *tool, const char *opts, const uint8_t *buf,
		    size_t len, const char *const *want, unsigned int n,
		    unsigned int *found)
{
	char path[] = "/tmp/ordma-replay-test.XXXXXX";
	char cmd[512], line[512];
	unsigned int i;
	int fd, status;
	FILE *f, *p;

	*found = 0;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		if (f)
			fclose(f);
		unlink(path);
		return -1;
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s %s %s 2>&1", tool, opts, path);
	p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return -1;
	}
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		NOTE("%s", line);
		for (i = 0; i < n; i++)
			if (strstr(line, want[i]))
				(*found)++;
	}
	status = pclose(p);
	unlink(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(replay_tool_replays_a_log_file)
{
	const char *tool = getenv("ORDMA_REPLAY_TOOL");
	struct ordma_rec_opts opts = { 0 };
	struct ordma_replay_log log;
	const char *ok = "events replayed, no divergence";
	char diverged[64], marked[64], err[256];
	const char *want[] = { diverged, marked };
	unsigned int found;
	const uint8_t *buf;
	uint64_t event = 0;
	uint8_t *copy;
	size_t len, i;

	if (!tool)
		SKIP("ORDMA_REPLAY_TOOL not set");
	REQUIRE(record_exchange(&opts));
	buf = rec_test_log(1, &len);
	REQUIRE(buf);
	CHECK_EQ(run_tool(tool, "", buf, len, &ok, 1, &found), 0);
	CHECK_EQ(found, 1);

	/* the first frame B sent, one bit off: exit status 1, the event
	 * named and marked in the events shown
	 */
	copy = malloc(len);
	REQUIRE(copy);
	memcpy(copy, buf, len);
	REQUIRE(ordma_replay_parse(copy, len, &log, err, sizeof(err)));
	for (i = 0; i < log.n && !event; i++)
		if (log.ev[i].kind == ORDMA_REPLAY_TX_FRAME && !log.ev[i].ref)
			event = i + 1;
	REQUIRE(event > 0);
	((uint8_t *)log.ev[event - 1].data)[30] ^= 4;
	ordma_replay_log_free(&log);
	snprintf(diverged, sizeof(diverged), "divergence at event %" PRIu64
		 ":", event);
	snprintf(marked, sizeof(marked), "> %" PRIu64 " tx_frame", event);
	CHECK_EQ(run_tool(tool, "", copy, len, want, 2, &found), 1);
	CHECK_EQ(found, 2);
	free(copy);
	rec_test_free();
}

/* --fwtrace OUT: the replay writes the firmware's trace file */
TEST(replay_tool_writes_the_trace)
{
	const char *tool = getenv("ORDMA_REPLAY_TOOL");
	const char *want[] = { "trace records", "no divergence" };
	char out[] = "/tmp/ordma-replay-trace.XXXXXX", opts[64];
	struct ordma_rec_opts rec_opts = { 0 };
	uint8_t hdr[ORDMA_TRACE_FILE_HDR_SIZE];
	unsigned int found;
	const uint8_t *buf;
	long size = 0;
	size_t len;
	FILE *f;
	int fd;

	if (!tool)
		SKIP("ORDMA_REPLAY_TOOL not set");
	REQUIRE(record_exchange(&rec_opts));
	buf = rec_test_log(0, &len);
	REQUIRE(buf);
	fd = mkstemp(out);
	REQUIRE(fd >= 0);
	close(fd);
	snprintf(opts, sizeof(opts), "--fwtrace %s", out);
	CHECK_EQ(run_tool(tool, opts, buf, len, want, 2, &found), 0);
	CHECK_EQ(found, 2);
	f = fopen(out, "rb");
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(fread(hdr, sizeof(hdr), 1, f), 1);
		CHECK(!memcmp(hdr, ORDMA_TRACE_FILE_MAGIC, 8));
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		fclose(f);
	}
	/* a whole number of records, and more than a few */
	CHECK_EQ((size - ORDMA_TRACE_FILE_HDR_SIZE) %
		 ORDMA_TRACE_FILE_REC_SIZE, 0);
	CHECK(size > ORDMA_TRACE_FILE_HDR_SIZE + 10 * ORDMA_TRACE_FILE_REC_SIZE);
	unlink(out);
	rec_test_free();
}
