// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The simulated host's way into the firmware for the replay tests
 * (recording.h): through a recorder for the devices being recorded,
 * straight in for the others.
 */
#include <stdlib.h>
#include <string.h>

#define REC_TEST_IMPL
#include "recording.h"

struct rec_test_dev {
	struct ordma_fw *fw;		/* NULL once destroyed */
	struct ordma_rec *rec;
	uint8_t *log;
	size_t len, cap;
};

bool rec_test_record;
struct ordma_rec_opts rec_test_opts;
void (*rec_test_on_destroy)(unsigned int n);
static struct rec_test_dev rec_test_devs[REC_TEST_DEVICES];
static unsigned int rec_test_ndevs;

static size_t rec_test_sink(void *arg, const void *data, size_t len)
{
	struct rec_test_dev *dev = arg;

	if (dev->len + len > dev->cap) {
		size_t cap = dev->cap ? dev->cap : 1 << 16;
		uint8_t *p;

		while (cap < dev->len + len)
			cap *= 2;
		p = realloc(dev->log, cap);
		if (!p)
			return 0;
		dev->log = p;
		dev->cap = cap;
	}
	memcpy(dev->log + dev->len, data, len);
	dev->len += len;
	return len;
}

static struct ordma_rec *rec_of(struct ordma_fw *fw)
{
	unsigned int i;

	for (i = 0; i < rec_test_ndevs; i++)
		if (rec_test_devs[i].fw == fw)
			return rec_test_devs[i].rec;
	return NULL;
}

const uint8_t *rec_test_log(unsigned int n, size_t *len)
{
	if (n >= rec_test_ndevs)
		return NULL;
	*len = rec_test_devs[n].len;
	return rec_test_devs[n].log;
}

struct ordma_rec *rec_test_recorder(unsigned int n)
{
	return n < rec_test_ndevs ? rec_test_devs[n].rec : NULL;
}

void rec_test_free(void)
{
	unsigned int i;

	for (i = 0; i < rec_test_ndevs; i++)
		free(rec_test_devs[i].log);
	memset(rec_test_devs, 0, sizeof(rec_test_devs));
	rec_test_ndevs = 0;
}

struct ordma_fw *rec_test_fw_create(const struct ordma_hal_ops *ops,
				    void *ctx,
				    const struct ordma_fw_config *cfg)
{
	struct ordma_rec_opts opts = rec_test_opts;
	struct rec_test_dev *dev;

	if (!rec_test_record || rec_test_ndevs == REC_TEST_DEVICES)
		return ordma_fw_create(ops, ctx, cfg);
	dev = &rec_test_devs[rec_test_ndevs];
	if (!opts.path && !opts.write) {
		opts.write = rec_test_sink;
		opts.write_arg = dev;
	}
	dev->rec = ordma_rec_create(ops, ctx, cfg, &opts);
	if (!dev->rec)
		return NULL;
	dev->fw = ordma_rec_fw(dev->rec);
	rec_test_ndevs++;
	return dev->fw;
}

void rec_test_fw_destroy(struct ordma_fw *fw)
{
	unsigned int i;

	for (i = 0; i < rec_test_ndevs; i++)
		if (fw && rec_test_devs[i].fw == fw) {
			ordma_rec_destroy(rec_test_devs[i].rec);
			rec_test_devs[i].fw = NULL;
			rec_test_devs[i].rec = NULL;
			if (rec_test_on_destroy)
				rec_test_on_destroy(i);
			return;
		}
	ordma_fw_destroy(fw);
}

void rec_test_fw_reset(struct ordma_fw *fw)
{
	struct ordma_rec *rec = rec_of(fw);

	if (rec)
		ordma_rec_reset(rec);
	else
		ordma_fw_reset(fw);
}

void rec_test_fw_bus_master_enabled(struct ordma_fw *fw)
{
	struct ordma_rec *rec = rec_of(fw);

	if (rec)
		ordma_rec_bus_master_enabled(rec);
	else
		ordma_fw_bus_master_enabled(fw);
}

uint64_t rec_test_fw_reg_read(struct ordma_fw *fw, uint64_t off,
			      unsigned int size)
{
	struct ordma_rec *rec = rec_of(fw);

	return rec ? ordma_rec_reg_read(rec, off, size) :
		     ordma_fw_reg_read(fw, off, size);
}

void rec_test_fw_reg_write(struct ordma_fw *fw, uint64_t off, uint64_t val,
			   unsigned int size)
{
	struct ordma_rec *rec = rec_of(fw);

	if (rec)
		ordma_rec_reg_write(rec, off, val, size);
	else
		ordma_fw_reg_write(fw, off, val, size);
}

void rec_test_fw_db_write(struct ordma_fw *fw, uint64_t off, uint64_t val,
			  unsigned int size)
{
	struct ordma_rec *rec = rec_of(fw);

	if (rec)
		ordma_rec_db_write(rec, off, val, size);
	else
		ordma_fw_db_write(fw, off, val, size);
}

bool rec_test_fw_can_receive(struct ordma_fw *fw)
{
	struct ordma_rec *rec = rec_of(fw);

	return rec ? ordma_rec_can_receive(rec) : ordma_fw_can_receive(fw);
}

void rec_test_fw_rx_frame(struct ordma_fw *fw, const void *frame, size_t len)
{
	struct ordma_rec *rec = rec_of(fw);

	if (rec)
		ordma_rec_rx_frame(rec, frame, len);
	else
		ordma_fw_rx_frame(fw, frame, len);
}

void rec_test_fw_set_link(struct ordma_fw *fw, bool up)
{
	struct ordma_rec *rec = rec_of(fw);

	if (rec)
		ordma_rec_set_link(rec, up);
	else
		ordma_fw_set_link(fw, up);
}

void rec_test_fw_timer_expired(struct ordma_fw *fw)
{
	struct ordma_rec *rec = rec_of(fw);

	if (rec)
		ordma_rec_timer_expired(rec);
	else
		ordma_fw_timer_expired(fw);
}

int rec_test_fw_inject_fault(struct ordma_fw *fw, unsigned int fault,
			     uint32_t count, uint32_t arg)
{
	struct ordma_rec *rec = rec_of(fw);

	if (rec)
		return ordma_rec_inject_fault(rec, fault, count, arg);
	return ordma_fw_inject_fault(fw, fault, count, arg);
}
