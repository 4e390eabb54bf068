// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ordma-replay: runs the firmware it is linked with against a log that
 * a recording host wrote (replay/ordma_replay.h).
 *
 *	ordma-replay LOG		replay; exit 0 if no divergence, 1 at
 *					the first one (with the events of the
 *					log up to it), 2 for a bad log
 *	ordma-replay --dump LOG		the events, one a line
 *	ordma-replay --stats LOG	records and bytes by kind
 *	ordma-replay --fwtrace OUT LOG	replay, writing the firmware's trace
 *					records to OUT (a trace file for
 *					tools/diag/ordma-trace), each at the
 *					device time the firmware last read
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/ordma_replay.h"
#include "replay/replay.h"
#include "trace/ordma_trace_file.h"

struct trace_out {
	FILE *f;
	uint64_t records;
	bool failed;
};

static void trace_write(void *arg, uint64_t device_ns,
			const struct ordma_fw_trace *rec)
{
	struct trace_out *t = arg;
	uint8_t out[ORDMA_TRACE_FILE_REC_SIZE];

	ordma_trace_file_record(out, device_ns, rec);
	if (fwrite(out, sizeof(out), 1, t->f) != 1)
		t->failed = true;
	t->records++;
}

static FILE *trace_open(const char *path, const char *log_path)
{
	uint8_t hdr[ORDMA_TRACE_FILE_HDR_SIZE];
	const char *name = strrchr(log_path, '/');
	FILE *f = fopen(path, "wb");

	if (!f)
		return NULL;
	ordma_trace_file_header(hdr, name ? name + 1 : log_path);
	if (fwrite(hdr, sizeof(hdr), 1, f) != 1) {
		fclose(f);
		return NULL;
	}
	return f;
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL, *nb;

	if (!f)
		return NULL;
	for (;;) {
		nb = realloc(buf, cap);
		if (!nb)
			break;
		buf = nb;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap) {
			if (ferror(f))
				break;
			fclose(f);
			*len = n;
			return buf;
		}
		cap *= 2;
	}
	free(buf);
	fclose(f);
	return NULL;
}

static void dump(const struct ordma_replay_log *log)
{
	char d[300];
	size_t i;

	printf("# config mac %02x:%02x:%02x:%02x:%02x:%02x serial \"%.16s\" "
	       "vectors %u db_pages %u speed %u Mb/s link %s, cap %" PRIu64
	       " bytes\n",
	       log->cfg.mac[0], log->cfg.mac[1], log->cfg.mac[2],
	       log->cfg.mac[3], log->cfg.mac[4], log->cfg.mac[5],
	       log->cfg.serial, log->cfg.num_vectors, log->cfg.num_db_pages,
	       log->cfg.speed_mbps, log->cfg.link_layer ? "ib" : "eth",
	       log->max_bytes);
	for (i = 0; i < log->n; i++) {
		ordma_replay_describe(&log->ev[i], d, sizeof(d));
		printf("%zu %s%s\n", i + 1, d,
		       log->ev[i].ref ? " (dedup)" : "");
	}
}

/* The recorded events before a divergence and the one it happened at */
static void print_context(const struct ordma_replay_log *log,
			  uint64_t event)
{
	uint64_t first = event > 5 ? event - 5 : 1, i;
	char d[300];

	for (i = first; i <= event && i <= log->n; i++) {
		ordma_replay_describe(&log->ev[i - 1], d, sizeof(d));
		printf("  %s %" PRIu64 " %s\n", i == event ? ">" : " ", i, d);
	}
}

/* How the recording ended, if not with the device */
static const char *end_note(const struct ordma_replay_log *log)
{
	static char note[128];

	if (!log->has_trailer)
		return " (no trailer: the log was cut short)";
	if (log->stop_reason == ORDMA_REPLAY_STOP_DESTROYED)
		return "";
	snprintf(note, sizeof(note), " (the recording ended early: %s)",
		 ordma_replay_stop_name(log->stop_reason));
	return note;
}

int main(int argc, char **argv)
{
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	const char *mode = NULL, *path, *trace_path = NULL;
	struct trace_out trace = { 0 };
	enum ordma_replay_outcome out;
	char err[256];
	void *buf;
	size_t len;

	if (argc == 3 && (!strcmp(argv[1], "--dump") ||
			  !strcmp(argv[1], "--stats")))
		mode = argv[1];
	else if (argc == 4 && !strcmp(argv[1], "--fwtrace"))
		trace_path = argv[2];
	else if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: ordma-replay [--dump|--stats] LOG\n"
			"       ordma-replay --fwtrace OUT LOG\n");
		return 2;
	}
	path = argv[argc - 1];
	buf = read_file(path, &len);
	if (!buf) {
		fprintf(stderr, "ordma-replay: cannot read %s\n", path);
		return 2;
	}
	if (!ordma_replay_parse(buf, len, &log, err, sizeof(err))) {
		printf("%s: bad log: %s\n", path, err);
		free(buf);
		return 2;
	}
	if (mode && !strcmp(mode, "--dump")) {
		dump(&log);
		out = ORDMA_REPLAY_SAME;
	} else if (mode) {
		ordma_replay_print_stats(&log, stdout);
		out = ORDMA_REPLAY_SAME;
	} else {
		if (trace_path) {
			trace.f = trace_open(trace_path, path);
			if (!trace.f)
				trace.failed = true;
		}
		out = trace.f ? ordma_replay_run_traced(&log, &res, trace_write,
							&trace) :
				ordma_replay_run(&log, &res);
		if (out == ORDMA_REPLAY_SAME) {
			printf("%s: %" PRIu64 " events replayed, no divergence"
			       "%s\n", path, res.replayed, end_note(&log));
		} else if (out == ORDMA_REPLAY_DIVERGED) {
			printf("%s: divergence at event %" PRIu64 ": %s\n"
			       "%s: %" PRIu64 " events replayed before it; "
			       "the log there:\n", path, res.event, res.what,
			       path, res.replayed);
			print_context(&log, res.event);
		} else {
			printf("%s: bad log: %s\n", path, res.what);
		}
		if (trace.f && fclose(trace.f))
			trace.failed = true;
		if (trace.failed) {
			fprintf(stderr, "ordma-replay: cannot write %s\n",
				trace_path);
			out = ORDMA_REPLAY_BAD_LOG;
		} else if (trace_path) {
			printf("%s: %" PRIu64 " trace records\n", trace_path,
			       trace.records);
		}
	}
	ordma_replay_log_free(&log);
	free(buf);
	return out;
}
