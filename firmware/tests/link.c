// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A wire between two firmware instances (link.h).
 */
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "ordma_fw.h"

void link_push(struct link *l, const void *frame, size_t len)
{
	struct link_frame *f;

	if (l->limit && l->tail - l->head >= l->limit) {
		l->dropped++;
		return;
	}
	if (l->tail - l->head == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64, i;
		struct link_frame *q = calloc(cap, sizeof(*q));

		if (!q)
			abort();
		for (i = l->head; i != l->tail; i++)
			q[i - l->head] = l->q[i % l->cap];
		free(l->q);
		l->q = q;
		l->tail -= l->head;
		l->head = 0;
		l->cap = cap;
	}
	f = &l->q[l->tail % l->cap];
	f->data = malloc(len);
	if (!f->data)
		abort();
	memcpy(f->data, frame, len);
	f->len = len;
	l->tail++;
	if (l->tail - l->head > l->max_queued)
		l->max_queued = l->tail - l->head;
}

/* true with probability per_mille / 1000 (xorshift32, seeded by rng) */
static bool link_chance(struct link *l, unsigned int per_mille)
{
	if (!per_mille)
		return false;
	if (!l->rng)
		l->rng = 0x9e3779b9u;
	l->rng ^= l->rng << 13;
	l->rng ^= l->rng >> 17;
	l->rng ^= l->rng << 5;
	return l->rng % 1000 < per_mille;
}

void link_tx_hook(void *arg, const void *frame, size_t len)
{
	struct link *l = arg;

	l->sent++;
	if (l->sent == l->drop_nth ||
	    (l->drop_from && l->sent >= l->drop_from) ||
	    link_chance(l, l->loss_pm)) {
		l->dropped++;
		return;
	}
	link_push(l, frame, len);
	if (l->tail - l->head >= 2 && link_chance(l, l->reorder_pm)) {
		/* the frame overtakes the one queued before it */
		struct link_frame *a = &l->q[(l->tail - 2) % l->cap];
		struct link_frame *b = &l->q[(l->tail - 1) % l->cap];
		struct link_frame t = *a;

		*a = *b;
		*b = t;
		l->reordered++;
	}
	if (l->sent == l->dup_nth || link_chance(l, l->dup_pm)) {
		link_push(l, frame, len);
		l->duplicated++;
	}
}

bool link_pop(struct link *l, struct link_frame *f)
{
	if (l->head == l->tail)
		return false;
	*f = l->q[l->head % l->cap];
	l->head++;
	return true;
}

bool link_deliver(struct link *l, struct ordma_fw *to)
{
	struct link_frame f;

	if (!link_pop(l, &f))
		return false;
	if (l->rx_hook)
		l->rx_hook(l->rx_hook_arg, f.data, f.len);
	ordma_fw_rx_frame(to, f.data, f.len);
	free(f.data);
	return true;
}

void link_free(struct link *l)
{
	struct link_frame f;

	while (link_pop(l, &f))
		free(f.data);
	free(l->q);
	memset(l, 0, sizeof(*l));
}
