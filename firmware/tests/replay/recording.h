/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The unit tests' simulated host (drv.c, link.c, fake_hal.c and the
 * transport pair fixture), built for the replay tests with
 * `-include tests/replay/recording.h`: its calls into the firmware's
 * entry points go through recording.c, which records every device
 * created while rec_test_record is set (replay/ordma_rec.h), as the QEMU
 * device model does with ordma_rec_* when asked to.
 */
#ifndef ORDMA_TESTS_REPLAY_RECORDING_H
#define ORDMA_TESTS_REPLAY_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ordma_fw.h"
#include "replay/ordma_rec.h"

#define REC_TEST_DEVICES	4

/* Record the devices created from now on, with these options; without
 * a path or a write callback in them, each device's log goes to memory.
 */
extern bool rec_test_record;
extern struct ordma_rec_opts rec_test_opts;
/* Called when the log of the n-th recorded device is complete */
extern void (*rec_test_on_destroy)(unsigned int n);

/* The log of the n-th recorded device (complete once it is destroyed) */
const uint8_t *rec_test_log(unsigned int n, size_t *len);
struct ordma_rec *rec_test_recorder(unsigned int n);
void rec_test_free(void);

struct ordma_fw *rec_test_fw_create(const struct ordma_hal_ops *ops,
				    void *ctx,
				    const struct ordma_fw_config *cfg);
void rec_test_fw_destroy(struct ordma_fw *fw);
void rec_test_fw_reset(struct ordma_fw *fw);
void rec_test_fw_bus_master_enabled(struct ordma_fw *fw);
uint64_t rec_test_fw_reg_read(struct ordma_fw *fw, uint64_t off,
			      unsigned int size);
void rec_test_fw_reg_write(struct ordma_fw *fw, uint64_t off, uint64_t val,
			   unsigned int size);
void rec_test_fw_db_write(struct ordma_fw *fw, uint64_t off, uint64_t val,
			  unsigned int size);
bool rec_test_fw_can_receive(struct ordma_fw *fw);
void rec_test_fw_rx_frame(struct ordma_fw *fw, const void *frame,
			  size_t len);
void rec_test_fw_set_link(struct ordma_fw *fw, bool up);
void rec_test_fw_timer_expired(struct ordma_fw *fw);
int rec_test_fw_inject_fault(struct ordma_fw *fw, unsigned int fault,
			     uint32_t count, uint32_t arg);

#ifndef REC_TEST_IMPL
#define ordma_fw_create rec_test_fw_create
#define ordma_fw_destroy rec_test_fw_destroy
#define ordma_fw_reset rec_test_fw_reset
#define ordma_fw_bus_master_enabled rec_test_fw_bus_master_enabled
#define ordma_fw_reg_read rec_test_fw_reg_read
#define ordma_fw_reg_write rec_test_fw_reg_write
#define ordma_fw_db_write rec_test_fw_db_write
#define ordma_fw_can_receive rec_test_fw_can_receive
#define ordma_fw_rx_frame rec_test_fw_rx_frame
#define ordma_fw_set_link rec_test_fw_set_link
#define ordma_fw_timer_expired rec_test_fw_timer_expired
#define ordma_fw_inject_fault rec_test_fw_inject_fault
#endif

#endif /* ORDMA_TESTS_REPLAY_RECORDING_H */
