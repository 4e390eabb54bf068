// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The planted bug of the replay tests' firmware (planted_bug.h).
 */
#include <stdlib.h>
#include <string.h>

#define REPLAY_PLANTED_IMPL
#include "planted_bug.h"
#include "platform/fw_platform.h"

struct replay_planted_bug replay_planted_bug;

int replay_planted_dma_write(struct ordma_fw *fw, uint64_t addr,
			     const void *buf, size_t len)
{
	struct replay_planted_bug *bug = &replay_planted_bug;
	uint8_t *copy;
	int ret;

	if (bug->fired || addr < bug->lo || addr >= bug->hi ||
	    bug->byte >= len)
		return fw_dma_write(fw, addr, buf, len);
	bug->fired = true;
	copy = malloc(len);
	if (!copy)
		return fw_dma_write(fw, addr, buf, len);
	memcpy(copy, buf, len);
	copy[bug->byte] ^= 1;
	ret = fw_dma_write(fw, addr, copy, len);
	free(copy);
	return ret;
}
