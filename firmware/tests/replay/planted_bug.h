/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A firmware with a planted bug, for the replay tests: its sources are
 * compiled with `-include tests/replay/planted_bug.h` (all but
 * platform/fw_hal.c, which defines fw_dma_write, and wire/, which does no
 * DMA), so that every DMA write of the device goes through
 * replay_planted_dma_write() in planted_bug.c.  Unarmed, it is the
 * firmware; armed, it flips a bit of the first DMA write into a given
 * range, as a bug in the code that builds that structure would.
 */
#ifndef ORDMA_TESTS_REPLAY_PLANTED_BUG_H
#define ORDMA_TESTS_REPLAY_PLANTED_BUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ordma_fw;

/* The first DMA write that starts in [lo, hi) gets bit 0 of its byte
 * `byte` flipped; lo == hi: unarmed.
 */
struct replay_planted_bug {
	uint64_t lo, hi;
	size_t byte;
	bool fired;
};

extern struct replay_planted_bug replay_planted_bug;

int replay_planted_dma_write(struct ordma_fw *fw, uint64_t addr,
			     const void *buf, size_t len);

#ifndef REPLAY_PLANTED_IMPL
#define fw_dma_write replay_planted_dma_write
#endif

#endif /* ORDMA_TESTS_REPLAY_PLANTED_BUG_H */
