/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA recorder: the public API of ordma_fw.h, with a log.
 *
 * A host that may record a device calls ordma_rec_* instead of
 * ordma_fw_*: ordma_rec_create() creates the firmware with HAL ops that
 * wrap the host's, and each ordma_rec_* entry point logs its call, calls
 * the firmware and logs what it returns.  The log (replay/ordma_replay.h)
 * is what ordma-replay runs the firmware against.  Without options the
 * recorder records nothing and only passes calls through, so a host can
 * use this API whether or not recording was asked for.
 *
 * Memory is bounded: the recorder itself, the copies kept for payload
 * de-duplication (dedup_bytes) and, for a file, a 1 MiB stdio buffer.
 * The log never grows past max_bytes: when the next record would not
 * fit, the recording stops, the trailer says so and calls pass through.
 *
 * The same lock rule as ordma_fw.h holds: every ordma_rec_* call with
 * the host's lock for this device held.  An entry point called from
 * inside one of the device's own HAL callbacks stops the recording (the
 * log could not say where it happened).  Plain C11 and stdio, so that
 * the QEMU device model can link it.
 */
#ifndef ORDMA_REC_H
#define ORDMA_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ordma_fw.h"

#define ORDMA_REC_DEFAULT_MAX_BYTES	(64ULL << 20)

struct ordma_rec;

struct ordma_rec_opts {
	/* The log goes to this file (created or truncated)... */
	const char *path;
	/* ...or, if path is NULL, to this callback, which returns how
	 * many bytes it took (fewer than len ends the recording).
	 */
	size_t (*write)(void *arg, const void *data, size_t len);
	void *write_arg;
	/* Size cap of the log, header and trailer included; 0 for
	 * ORDMA_REC_DEFAULT_MAX_BYTES.
	 */
	uint64_t max_bytes;
	/* Memory for copies of recent payloads, so that a payload seen
	 * again is logged as a reference; 0 disables de-duplication.
	 */
	size_t dedup_bytes;
};

struct ordma_rec_stats {
	bool recording;
	uint32_t stop_reason;	/* enum ordma_replay_stop, once stopped */
	uint64_t records;
	uint64_t bytes;		/* of the log so far */
	uint64_t dedup_saved;	/* payload bytes logged as references */
};

/*
 * Creates the firmware as ordma_fw_create() does.  opts NULL: no log.
 * Returns NULL if the firmware could not be created (the log, if any,
 * says so; without ops or cfg there is none) or the log could not be
 * opened or allocated.
 */
struct ordma_rec *ordma_rec_create(const struct ordma_hal_ops *ops, void *ctx,
				   const struct ordma_fw_config *cfg,
				   const struct ordma_rec_opts *opts);
/* The same with the firmware of an entry table: a loaded image's, or
 * ordma_fw_builtin (what ordma_rec_create() uses).  The table must stay
 * valid until ordma_rec_destroy().
 */
struct ordma_rec *ordma_rec_create_image(const struct ordma_fw_image *img,
					 const struct ordma_hal_ops *ops,
					 void *ctx,
					 const struct ordma_fw_config *cfg,
					 const struct ordma_rec_opts *opts);
/* Destroys the firmware, ends and closes the log, frees the recorder. */
void ordma_rec_destroy(struct ordma_rec *rec);
/* The firmware behind the recorder: for inspection, not for entry calls,
 * which would be missing from the log.
 */
struct ordma_fw *ordma_rec_fw(struct ordma_rec *rec);
/* Ends the log now (the device goes on, unrecorded). */
void ordma_rec_stop(struct ordma_rec *rec);
void ordma_rec_get_stats(const struct ordma_rec *rec,
			 struct ordma_rec_stats *stats);

/* The entry points of ordma_fw.h */
void ordma_rec_reset(struct ordma_rec *rec);
void ordma_rec_bus_master_enabled(struct ordma_rec *rec);
uint64_t ordma_rec_reg_read(struct ordma_rec *rec, uint64_t off,
			    unsigned int size);
void ordma_rec_reg_write(struct ordma_rec *rec, uint64_t off, uint64_t val,
			 unsigned int size);
void ordma_rec_db_write(struct ordma_rec *rec, uint64_t off, uint64_t val,
			unsigned int size);
bool ordma_rec_can_receive(struct ordma_rec *rec);
void ordma_rec_rx_frame(struct ordma_rec *rec, const void *frame, size_t len);
void ordma_rec_set_link(struct ordma_rec *rec, bool up);
void ordma_rec_timer_expired(struct ordma_rec *rec);
int ordma_rec_inject_fault(struct ordma_rec *rec, unsigned int fault,
			   uint32_t count, uint32_t arg);

#endif /* ORDMA_REC_H */
