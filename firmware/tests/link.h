/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A wire between two firmware instances in one process: the frames one
 * transmits (its fake HAL's tx_hook), queued in order for the other's
 * RX.  The transport tests make a link lose the n-th frame, every frame
 * from the n-th on, or carry the n-th twice, or lose, duplicate and
 * reorder frames at random rates; the fuzz harnesses give it
 * a limit, above which frames are lost as on a full wire.
 */
#ifndef ORDMA_TESTS_LINK_H
#define ORDMA_TESTS_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ordma_fw;

struct link_frame {
	size_t len;
	uint8_t *data;
};

struct link {
	struct link_frame *q;
	size_t head, tail, cap;
	size_t limit;			/* frames queued at most; 0: no limit */
	unsigned long sent;		/* frames the sender transmitted */
	unsigned long drop_nth;		/* 1-based, 0: none */
	unsigned long drop_from;	/* drop every frame from this one on */
	unsigned long dup_nth;
	unsigned long dropped;
	/* random impairment, in frames per thousand, from seed rng */
	unsigned int loss_pm, dup_pm, reorder_pm;
	uint32_t rng;
	unsigned long duplicated, reordered;
	size_t max_queued;
	/* called with each frame as it is handed to the receiving device */
	void (*rx_hook)(void *arg, const void *frame, size_t len);
	void *rx_hook_arg;
};

/* Queues a copy of frame (lost if the link is at its limit). */
void link_push(struct link *l, const void *frame, size_t len);
/* The oldest frame, which the caller frees; false if none is queued. */
bool link_pop(struct link *l, struct link_frame *f);
/* Hands the oldest frame to the receiving device; false if none. */
bool link_deliver(struct link *l, struct ordma_fw *to);
void link_free(struct link *l);
/* A fake HAL tx_hook (arg: the link): counts, drops, duplicates, queues. */
void link_tx_hook(void *arg, const void *frame, size_t len);

#endif /* ORDMA_TESTS_LINK_H */
