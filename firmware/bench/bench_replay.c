// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What recording a device costs and what its log weighs (make -C firmware
 * bench): a measuring tool, not a test.  Two devices on the tests'
 * simulated host (built with tests/replay/recording.h) run BENCH_OPS RC
 * SENDs and then BENCH_OPS RDMA READs of BENCH_LEN bytes, one at a time,
 * from the same buffers (as perftest does).  It prints
 *   - the time per operation, both devices and the simulated host
 *     included: not recorded; recorded into a sink that only counts (the
 *     recorder's own work), through stdio into a file, and into memory,
 *     each with and without payload de-duplication;
 *   - the requester's and the responder's log bytes per operation;
 *   - how fast the requester's log replays (replay/replay.h);
 *   - what the firmware trace costs: no trace() at all, a trace() that
 *     drops the records, and one that stamps each with the host clock
 *     and packs it into a buffer under a lock, as the device model's
 *     fwtrace= does (ordma-fwtrace.c); with the records per operation.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport/pair.h"
#include "replay/replay.h"
#include "trace/ordma_trace_file.h"

#define BENCH_OPS	500
#define BENCH_LEN	4096
#define BENCH_ROUNDS	3

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *why)
{
	fprintf(stderr, "bench: %s\n", why);
	exit(1);
}

/* What the device model's trace() does with a record */
#define BENCH_TRACE_BUF	(64 << 20)

static struct bench_trace {
	pthread_mutex_t lock;
	uint8_t *buf;
	size_t len;
	unsigned long records;
	bool pack;		/* else only count */
} bench_trace = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void bench_trace_hook(void *arg, const struct ordma_fw_trace *rec)
{
	struct bench_trace *t = arg;
	struct timespec ts;

	t->records++;
	if (!t->pack)
		return;
	pthread_mutex_lock(&t->lock);
	clock_gettime(CLOCK_REALTIME, &ts);
	if (t->len + ORDMA_TRACE_FILE_REC_SIZE > BENCH_TRACE_BUF)
		t->len = 0;	/* the device model writes it out instead */
	ordma_trace_file_record(t->buf + t->len,
				(uint64_t)ts.tv_sec * 1000000000ULL +
				(uint64_t)ts.tv_nsec, rec);
	t->len += ORDMA_TRACE_FILE_REC_SIZE;
	pthread_mutex_unlock(&t->lock);
}

/* The run; returns the ns per operation of its data phase. */
static double run_ops(void)
{
	struct ordma_cqe cqe;
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;
	double t0, t;
	unsigned int i;

	default_cfg(&c);
	if (!env_open(&e, &c))
		die("cannot open the devices");
	a = &e.s[0];
	b = &e.s[1];
	a->d.hal.fw_trace_hook = bench_trace_hook;
	a->d.hal.fw_trace_hook_arg = &bench_trace;
	b->d.hal.fw_trace_hook = bench_trace_hook;
	b->d.hal.fw_trace_hook_arg = &bench_trace;
	bench_trace.records = 0;
	pattern(mem(a, MR1_ADDR, BENCH_LEN), BENCH_LEN, 1);
	pattern(mem(b, MR1_ADDR + 0x80000, BENCH_LEN), BENCH_LEN, 2);
	t0 = now_ns();
	for (i = 0; i < BENCH_OPS; i++) {
		post_recv(b, MR1_ADDR + 0x40000, BENCH_LEN);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, BENCH_LEN, a->key1);
		post(a, &w);
		pump(&e);
		if (!cqe_next(a, true, &cqe) || !cqe_next(b, false, &cqe) ||
		    cqe.status != ORDMA_CQE_SUCCESS)
			die("a SEND did not complete");
	}
	for (i = 0; i < BENCH_OPS; i++) {
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x90000, BENCH_LEN,
			a->key1);
		w.remote_addr = MR1_ADDR + 0x80000;
		w.rkey = b->key1;
		post(a, &w);
		pump(&e);
		if (!cqe_next(a, true, &cqe) || cqe.status != ORDMA_CQE_SUCCESS)
			die("a READ did not complete");
	}
	t = (now_ns() - t0) / (2 * BENCH_OPS);
	env_close(&e);
	return t;
}

static size_t count_sink(void *arg, const void *data, size_t len)
{
	(void)data;
	*(size_t *)arg += len;
	return len;
}

static size_t file_sink(void *arg, const void *data, size_t len)
{
	return fwrite(data, 1, len, arg);
}

static double best_of(const struct ordma_rec_opts *opts, size_t len[2])
{
	double best = 0, t;
	unsigned int r;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		rec_test_free();
		if (opts)
			rec_test_opts = *opts;
		rec_test_record = opts != NULL;
		t = run_ops();
		rec_test_record = false;
		if (!r || t < best)
			best = t;
	}
	if (len) {
		rec_test_log(0, &len[0]);
		rec_test_log(1, &len[1]);
	}
	return best;
}

static void bench_replay(void)
{
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	const uint8_t *buf;
	double best = 0, t0, t;
	char err[256];
	size_t len;
	unsigned int r;

	buf = rec_test_log(0, &len);
	for (r = 0; r < BENCH_ROUNDS; r++) {
		t0 = now_ns();
		if (!ordma_replay_parse(buf, len, &log, err, sizeof(err)))
			die(err);
		if (ordma_replay_run(&log, &res) != ORDMA_REPLAY_SAME)
			die(res.what);
		t = now_ns() - t0;
		ordma_replay_log_free(&log);
		if (!r || t < best)
			best = t;
	}
	printf("replay of the requester's log: %llu events in %.1f ms, "
	       "%.0f ns/event\n", (unsigned long long)res.replayed, best / 1e6,
	       best / (double)res.replayed);
}

/* Not recorded; traced as mode says: 0 none, 1 dropped, 2 packed */
static double best_traced(int mode, unsigned long *records)
{
	double best = 0, t;
	unsigned int r;

	fake_hal_untraced = mode == 0;
	bench_trace.pack = mode == 2;
	for (r = 0; r < BENCH_ROUNDS; r++) {
		rec_test_free();
		t = run_ops();
		if (!r || t < best)
			best = t;
	}
	*records = bench_trace.records;
	fake_hal_untraced = false;
	bench_trace.pack = false;
	return best;
}

static void report(const char *what, double t, double base,
		   const size_t *len)
{
	printf("  %-28s %9.0f ns/op", what, t);
	if (base)
		printf(" (%+.0f%%)", (t / base - 1) * 100);
	if (len)
		printf(", log %.0f + %.0f bytes/op", (double)len[0] /
		       (2 * BENCH_OPS), (double)len[1] / (2 * BENCH_OPS));
	printf("\n");
}

int main(void)
{
	struct ordma_rec_opts opts = { .max_bytes = 1ULL << 34 };
	char path[] = "/tmp/ordma-bench-replay.XXXXXX";
	size_t len[2], counted = 0;
	double t;
	FILE *f;
	int fd;

	unsigned long records;
	double base;

	printf("RC %u SENDs + %u READs of %u bytes, two devices:\n",
	       BENCH_OPS, BENCH_OPS, BENCH_LEN);
	bench_trace.buf = malloc(BENCH_TRACE_BUF);
	if (!bench_trace.buf)
		die("no trace buffer");
	/* as the device model's buffers are after their first fill */
	memset(bench_trace.buf, 0, BENCH_TRACE_BUF);
	base = best_traced(0, &records);
	report("no trace()", base, 0, NULL);
	report("trace(), records dropped", best_traced(1, &records), base,
	       NULL);
	t = best_traced(2, &records);
	report("trace(), records packed", t, base, NULL);
	printf("  %.1f trace records/op (both devices, DMA included)\n",
	       (double)records / (2 * BENCH_OPS));
	free(bench_trace.buf);

	t = best_of(NULL, NULL);
	report("not recorded", t, 0, NULL);

	opts.write = count_sink;
	opts.write_arg = &counted;
	report("recorded, counted", best_of(&opts, NULL), t, NULL);
	opts.dedup_bytes = 4 << 20;
	report("recorded, counted, dedup", best_of(&opts, NULL), t, NULL);

	/* both devices into one file: only the cost is of interest */
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f)
		die("no file to write");
	/* as the recorder buffers a log file it opens itself */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	opts.write = file_sink;
	opts.write_arg = f;
	opts.dedup_bytes = 0;
	report("recorded to a file", best_of(&opts, NULL), t, NULL);
	opts.dedup_bytes = 4 << 20;
	report("recorded to a file, dedup", best_of(&opts, NULL), t, NULL);
	opts.dedup_bytes = 0;
	fclose(f);
	unlink(path);

	opts.write = NULL;
	report("recorded into memory", best_of(&opts, len), t, len);
	bench_replay();
	opts.dedup_bytes = 4 << 20;
	report("recorded into memory, dedup", best_of(&opts, len), t, len);
	rec_test_free();
	return 0;
}
