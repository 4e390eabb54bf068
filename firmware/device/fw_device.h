/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware device room: what its files (fw_core.c, fw_admin.c,
 * fw_eq.c, fw_eth.c, fw_doorbell.c, fw_mad.c) call of each other.  No room below
 * includes this; the device state itself is in fw_priv.h.
 */
#ifndef ORDMA_FW_DEVICE_H
#define ORDMA_FW_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "fw_priv.h"

/* fw_core.c */
void fw_fatal(struct ordma_fw *fw, enum ordma_fatal_code code,
	      const char *why);
void fw_heartbeat_catch_up(struct ordma_fw *fw);

/* fw_fault.c: fault injection */
uint8_t fw_cmd_inject_fault(struct ordma_fw *fw, struct fw_cmd *c);
/* Arms what the INJECT_FAULT just completed asked for */
void fw_fault_commit(struct ordma_fw *fw);
void fw_fault_reset(struct ordma_fw *fw);

/* fw_flash.c: firmware update, through the HAL's flash */
bool fw_has_flash(const struct ordma_fw *fw);
uint8_t fw_cmd_flash_write(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_flash_commit(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_query_flash(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_fw_activate(struct ordma_fw *fw, struct fw_cmd *c);
void fw_flash_reset(struct ordma_fw *fw);

/* fw_admin.c */
void fw_admin_reset(struct ordma_fw *fw);
void fw_admin_doorbell(struct ordma_fw *fw, uint32_t val);
/* Writes a held-back completion when due, and runs the commands that
 * waited for it; the next deadline, UINT64_MAX for none.
 */
uint64_t fw_admin_timer(struct ordma_fw *fw);

/* fw_eq.c */
void fw_eq_reset(struct ordma_fw *fw);
const char *fw_eq_doorbell(struct ordma_fw *fw, uint32_t eqn, uint32_t ci,
			   bool arm);
uint8_t fw_cmd_create_eq(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_destroy_eq(struct ordma_fw *fw, struct fw_cmd *c);

/* fw_eth.c */
void fw_eth_reset(struct ordma_fw *fw);
/* Receives queued loopback frames; true if some are still queued. */
bool fw_eth_loopback_run(struct ordma_fw *fw);
/* Posts the ring events whose EQE could not be written. */
void fw_eth_retry_events(struct ordma_fw *fw);
const char *fw_eth_pi_doorbell(struct ordma_fw *fw, uint32_t ring_id,
			       uint32_t pi);
const char *fw_eth_arm_doorbell(struct ordma_fw *fw, uint32_t ring_id,
				uint32_t ci, bool arm);
bool fw_eq_used_by_eth_ring(const struct ordma_fw *fw, uint32_t eqn);
/* A PORT_CHANGE event if the port's state is no longer old_state or, on
 * an InfiniBand port, ib_changes (ORDMA_PORT_CHANGE_*) says what else
 * changed; data[2] carries the causes (0 on Ethernet).
 */
void fw_port_report_change(struct ordma_fw *fw, uint8_t old_state,
			   uint32_t ib_changes);
uint8_t fw_cmd_query_port(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_set_port(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_set_rdma_protocol(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_query_stats(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_create_eth_ring(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_destroy_eth_ring(struct ordma_fw *fw, struct fw_cmd *c);

/* fw_mad.c: PROCESS_MAD (the agents are in fw_sma.c, fw_pma.c) */
uint8_t fw_cmd_process_mad(struct ordma_fw *fw, struct fw_cmd *c);
/* fw_sma.c: what the host sets in an InfiniBand port's PortInfo, NodeDesc */
uint8_t fw_cmd_set_node_desc(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_modify_ib_port(struct ordma_fw *fw, struct fw_cmd *c);

/* Objects in use, for QUERY_RESOURCES */
uint32_t fw_eq_in_use(const struct ordma_fw *fw);
uint32_t fw_eth_rings_in_use(const struct ordma_fw *fw);

#endif /* ORDMA_FW_DEVICE_H */
