/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA replay: runs the firmware linked with it against a recorded log
 * (ordma_replay.h) and reports the first place where it does something
 * else.  Used by the ordma-replay tool and the unit tests; host only.
 */
#ifndef ORDMA_REPLAY_ENGINE_H
#define ORDMA_REPLAY_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ordma_fw.h"

/* One record of a parsed log; what a, b and size hold depends on kind. */
struct ordma_replay_event {
	uint16_t kind;		/* enum ordma_replay_kind */
	uint32_t size;		/* REG_READ/REG_WRITE/DB_WRITE: access size */
	int32_t status;		/* DMA_READ/DMA_WRITE: the HAL's answer */
	uint64_t a;		/* offset, address, value, vector, level... */
	uint64_t b;		/* write value, DMA length, count... */
	const uint8_t *data;	/* payload (resolved), WIRE_FAULTS counters */
	size_t len;		/* payload bytes */
	size_t offset;		/* of the record in the log */
	size_t rec_bytes;	/* header and body */
	bool ref;		/* payload stored as a reference */
};

struct ordma_replay_log {
	uint16_t version;
	uint32_t hal;			/* ORDMA_REPLAY_HAL_* */
	struct ordma_fw_config cfg;
	uint32_t wire_faults;
	uint64_t max_bytes;
	struct ordma_replay_event *ev;	/* events 1..n are ev[0..n-1] */
	size_t n;			/* the trailer included */
	bool has_trailer;
	uint32_t stop_reason;		/* if has_trailer */
	uint64_t dedup_saved;		/* if has_trailer */
};

/* Parses a log held in memory (which must outlive the result); false
 * with a reason in err if it is malformed.  A log cut short (the host
 * died) parses up to its last whole record.
 */
bool ordma_replay_parse(const void *buf, size_t len,
			struct ordma_replay_log *log, char *err, size_t errlen);
void ordma_replay_log_free(struct ordma_replay_log *log);

enum ordma_replay_outcome {
	ORDMA_REPLAY_SAME	= 0,
	ORDMA_REPLAY_DIVERGED	= 1,
	ORDMA_REPLAY_BAD_LOG	= 2,
};

struct ordma_replay_result {
	uint64_t replayed;	/* events that matched */
	uint64_t event;		/* DIVERGED: the first event that did not */
	char what[1024];	/* what was expected, what came (or why bad) */
};

enum ordma_replay_outcome ordma_replay_run(const struct ordma_replay_log *log,
					   struct ordma_replay_result *res);

/*
 * The same, handing each trace record the replayed firmware makes to
 * trace (with the device time the firmware last read): a recorded run
 * gives its timeline on the host, traced then or not.
 */
typedef void (*ordma_replay_trace_fn)(void *arg, uint64_t device_ns,
				      const struct ordma_fw_trace *rec);
enum ordma_replay_outcome
ordma_replay_run_traced(const struct ordma_replay_log *log,
			struct ordma_replay_result *res,
			ordma_replay_trace_fn trace, void *arg);

const char *ordma_replay_kind_name(unsigned int kind);
const char *ordma_replay_stop_name(uint32_t reason);
/* One event as text, for reports and dumps */
void ordma_replay_describe(const struct ordma_replay_event *e, char *buf,
			   size_t len);
/* Records, bytes and de-duplicated bytes by kind */
void ordma_replay_print_stats(const struct ordma_replay_log *log, FILE *out);

#endif /* ORDMA_REPLAY_ENGINE_H */
