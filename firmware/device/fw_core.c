// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware core: device lifetime, reset, the BAR0 register file,
 * the enable handshake, the heartbeat timer and the fatal state.
 */
#include <stdlib.h>
#include <string.h>

#include "fw_priv.h"
#include "device/fw_device.h"
#include "device/fw_mad.h"
#include "objects/fw_verbs.h"
#include "objects/fw_qp.h"
#include "platform/fw_platform.h"
#include "tcp/fw_iw_conn.h"
#include "transport/fw_transport.h"

#define FW_AQ_BASE_ALIGN	4096u
#define FW_CTRL_KNOWN_BITS	(ORDMA_CTRL_ENABLE | ORDMA_CTRL_RESET)

/* ------------------------------------------------------------------ */
/* Heartbeat                                                           */
/* ------------------------------------------------------------------ */

static void fw_heartbeat_start(struct ordma_fw *fw)
{
	fw->next_heartbeat_ns = fw_now(fw) + FW_HEARTBEAT_PERIOD_NS;
	fw_timer_arm_at(fw, fw->next_heartbeat_ns);
}

static void fw_heartbeat_stop(struct ordma_fw *fw)
{
	fw->timer_armed_ns = UINT64_MAX;
	fw->hal.timer_arm(fw->hal_ctx, UINT64_MAX);
}

/* Count every full period that has elapsed, even if the timer fired late
 * or the driver reads the register between two timer callbacks.
 */
void fw_heartbeat_catch_up(struct ordma_fw *fw)
{
	uint64_t now, periods;

	if (!fw_ready(fw))
		return;
	now = fw_now(fw);
	if (now < fw->next_heartbeat_ns)
		return;
	periods = (now - fw->next_heartbeat_ns) / FW_HEARTBEAT_PERIOD_NS + 1;
	if (!fw->faults.heartbeat_stuck)
		fw->regs.heartbeat += (uint32_t)periods;
	fw->next_heartbeat_ns += periods * FW_HEARTBEAT_PERIOD_NS;
}

void ordma_fw_timer_expired(struct ordma_fw *fw)
{
	uint64_t next, admin, sma, tcp;

	fw_trace_set_qp(fw, ORDMA_FW_TRACE_NO_QPN);
	if (!fw_ready(fw))
		return;
	fw_heartbeat_catch_up(fw);
	fw->timer_armed_ns = UINT64_MAX;
	if (fw_eth_loopback_run(fw))
		fw_timer_arm_at(fw, fw_now(fw));
	next = fw_tp_timer(fw);
	admin = fw_admin_timer(fw);
	if (admin < next)
		next = admin;
	sma = fw_sma_timer(fw);
	if (sma < next)
		next = sma;
	tcp = fw_iw_timer(fw);
	if (tcp < next)
		next = tcp;
	/* the engine may have armed an earlier deadline meanwhile */
	if (next > fw->timer_armed_ns)
		next = fw->timer_armed_ns;
	fw_timer_arm_at(fw, next);
}

/* ------------------------------------------------------------------ */
/* Fatal state, reset, enable                                          */
/* ------------------------------------------------------------------ */

static const char *fw_fatal_name(enum ordma_fatal_code code)
{
	switch (code) {
	case ORDMA_FATAL_NONE:
		return "none";
	case ORDMA_FATAL_BAD_AQ_CONFIG:
		return "BAD_AQ_CONFIG";
	case ORDMA_FATAL_ACQ_DMA:
		return "ACQ_DMA";
	case ORDMA_FATAL_AQ_DMA:
		return "AQ_DMA";
	case ORDMA_FATAL_INTERNAL:
		return "INTERNAL";
	case ORDMA_FATAL_INJECTED:
		return "INJECTED";
	}
	return "unknown";
}

/* The first fatal error wins; only RESET leaves this state.  Vector 0 is
 * raised so that a driver sleeping on a command wakes up and reads STATUS.
 */
void fw_fatal(struct ordma_fw *fw, enum ordma_fatal_code code, const char *why)
{
	if (fw->regs.status & ORDMA_STATUS_FATAL)
		return;
	fw_heartbeat_catch_up(fw);
	fw->regs.status = ORDMA_STATUS_FATAL;
	fw->regs.fatal_code = code;
	fw_event_log(fw, ORDMA_EVENT_FATAL, 0, (uint8_t)code, 0, 0);
	fw_heartbeat_stop(fw);
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR, "fatal: %s: %s",
	       fw_fatal_name(code), why);
	fw_raise_vector(fw, ORDMA_ADMIN_VECTOR);
}

/* Everything but the physical link goes back to its reset value. */
static void fw_reset_state(struct ordma_fw *fw)
{
	fw_heartbeat_stop(fw);
	fw_trace_set_qp(fw, ORDMA_FW_TRACE_NO_QPN);
	memset(&fw->regs, 0, sizeof(fw->regs));
	memset(&fw->health, 0, sizeof(fw->health));
	fw->next_heartbeat_ns = 0;
	fw->db_error_event_sent = false;
	fw->last_db_error_event_ns = 0;
	fw_admin_reset(fw);
	fw_eq_reset(fw);
	fw_iw_stop(fw);
	fw_eth_reset(fw);
	fw_sma_reset(fw);
	fw_qp_reset(fw);
	fw_tp_reset(fw);
	fw_mr_reset(fw);
	fw_cq_reset(fw);
	fw_ah_reset(fw);
	fw_mcast_reset(fw);
	fw_resources_reset(fw);
	fw_fault_reset(fw);
	fw_flash_reset(fw);
	fw_event_log_reset(fw);
}

void ordma_fw_reset(struct ordma_fw *fw)
{
	fw_reset_state(fw);
}

void ordma_fw_bus_master_enabled(struct ordma_fw *fw)
{
	fw_trace_set_qp(fw, ORDMA_FW_TRACE_NO_QPN);
	if (!fw_ready(fw))
		return;
	fw_cq_retry_events(fw);
	fw_eth_retry_events(fw);
}

static uint64_t fw_reg_pair(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

/* NULL if the AQ registers describe usable queues, else the reason. */
static const char *fw_aq_config_error(const struct ordma_fw *fw)
{
	uint64_t cmd_base = fw_reg_pair(fw->regs.aq_base_lo,
					fw->regs.aq_base_hi);
	uint64_t comp_base = fw_reg_pair(fw->regs.acq_base_lo,
					 fw->regs.acq_base_hi);
	uint32_t cfg = fw->regs.aq_cfg;
	unsigned int log_depth = FIELD_GET(ORDMA_AQ_CFG_LOG_DEPTH, cfg);

	if (cfg & ~(uint32_t)ORDMA_AQ_CFG_LOG_DEPTH)
		return "AQ_CFG reserved bits set";
	if (log_depth < ORDMA_AQ_MIN_LOG_DEPTH ||
	    log_depth > ORDMA_AQ_MAX_LOG_DEPTH)
		return "AQ_CFG.LOG_DEPTH out of range";
	if (!cmd_base || cmd_base % FW_AQ_BASE_ALIGN)
		return "AQ_BASE zero or not 4 KiB aligned";
	if (!comp_base || comp_base % FW_AQ_BASE_ALIGN)
		return "ACQ_BASE zero or not 4 KiB aligned";
	if (fw_range_wraps(cmd_base, (uint64_t)ORDMA_AQ_CMD_SIZE << log_depth) ||
	    fw_range_wraps(comp_base, (uint64_t)ORDMA_AQ_COMP_SIZE << log_depth))
		return "admin queue wraps the address space";
	return NULL;
}

static void fw_enable(struct ordma_fw *fw)
{
	const char *err;

	fw->regs.ctrl |= ORDMA_CTRL_ENABLE;
	if (fw->regs.status & ORDMA_STATUS_FATAL) {
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "ctrl: enable ignored, device is fatal until reset");
		return;
	}
	err = fw_aq_config_error(fw);
	if (err) {
		fw_fatal(fw, ORDMA_FATAL_BAD_AQ_CONFIG, err);
		return;
	}
	fw->aq.cmd_base = fw_reg_pair(fw->regs.aq_base_lo, fw->regs.aq_base_hi);
	fw->aq.comp_base = fw_reg_pair(fw->regs.acq_base_lo,
				       fw->regs.acq_base_hi);
	fw->aq.log_depth = FIELD_GET(ORDMA_AQ_CFG_LOG_DEPTH, fw->regs.aq_cfg);
	fw->aq.ci = 0;
	fw->regs.status |= ORDMA_STATUS_READY;
	fw_heartbeat_start(fw);
}

/* Objects survive a disable; only RESET destroys them. */
static void fw_disable(struct ordma_fw *fw)
{
	fw_heartbeat_catch_up(fw);
	fw->regs.ctrl &= ~(uint32_t)ORDMA_CTRL_ENABLE;
	fw->regs.status &= ~(uint32_t)ORDMA_STATUS_READY;
	fw_heartbeat_stop(fw);
}

static void fw_ctrl_write(struct ordma_fw *fw, uint32_t val)
{
	bool enable = val & ORDMA_CTRL_ENABLE;
	bool enabled = fw->regs.ctrl & ORDMA_CTRL_ENABLE;

	if (val & ~(uint32_t)FW_CTRL_KNOWN_BITS)
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "ctrl: reserved bits 0x%08x ignored",
		       val & ~(uint32_t)FW_CTRL_KNOWN_BITS);
	if (val & ORDMA_CTRL_RESET) {
		fw_reset_state(fw);
		return;
	}
	if (enable && !enabled)
		fw_enable(fw);
	else if (!enable && enabled)
		fw_disable(fw);
}

/* ------------------------------------------------------------------ */
/* BAR0                                                                */
/* ------------------------------------------------------------------ */

static bool fw_reg_access_ok(struct ordma_fw *fw, uint64_t off,
			     unsigned int size, const char *what)
{
	if (size == 4 && !(off & 3) && off < ORDMA_REG_BAR_SIZE)
		return true;
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
	       "regs: %u-byte %s at 0x%llx rejected (32-bit aligned only)",
	       size, what, (unsigned long long)off);
	return false;
}

uint64_t ordma_fw_reg_read(struct ordma_fw *fw, uint64_t off,
			   unsigned int size)
{
	if (!fw_reg_access_ok(fw, off, size, "read"))
		return 0;

	if (off >= ORDMA_REG_EVENT_LOG &&
	    off < ORDMA_REG_EVENT_LOG +
		  ORDMA_EVENT_LOG_LEN * ORDMA_EVENT_LOG_ENTRY_SIZE)
		return fw_event_log_read(fw, off - ORDMA_REG_EVENT_LOG);
	switch (off) {
	case ORDMA_REG_EVENT_LOG_COUNT:
		return fw->event_log.count;
	case ORDMA_REG_VERSION:
		return FW_HW_VERSION;
	case ORDMA_REG_CAPS:
		return FIELD_PREP(ORDMA_CAPS_MAX_AQ_LOG, ORDMA_AQ_MAX_LOG_DEPTH) |
		       FIELD_PREP(ORDMA_CAPS_NUM_VECTORS, fw->cfg.num_vectors);
	case ORDMA_REG_DB_CAPS:
		return FIELD_PREP(ORDMA_DB_CAPS_NUM_PAGES, fw->cfg.num_db_pages) |
		       FIELD_PREP(ORDMA_DB_CAPS_PAGE_SHIFT, ORDMA_DB_PAGE_SHIFT);
	case ORDMA_REG_TIMEOUTS:
		return FIELD_PREP(ORDMA_TIMEOUTS_READY_MS, FW_READY_TIMEOUT_MS) |
		       FIELD_PREP(ORDMA_TIMEOUTS_CMD_MS, FW_CMD_TIMEOUT_MS);
	case ORDMA_REG_CTRL:
		return fw->regs.ctrl;
	case ORDMA_REG_STATUS:
		return fw->regs.status;
	case ORDMA_REG_FATAL_CODE:
		return fw->regs.fatal_code;
	case ORDMA_REG_HEARTBEAT:
		fw_heartbeat_catch_up(fw);
		return fw->regs.heartbeat;
	case ORDMA_REG_AQ_BASE_LO:
		return fw->regs.aq_base_lo;
	case ORDMA_REG_AQ_BASE_HI:
		return fw->regs.aq_base_hi;
	case ORDMA_REG_ACQ_BASE_LO:
		return fw->regs.acq_base_lo;
	case ORDMA_REG_ACQ_BASE_HI:
		return fw->regs.acq_base_hi;
	case ORDMA_REG_AQ_CFG:
		return fw->regs.aq_cfg;
	case ORDMA_REG_AQ_DB:
		return 0;	/* write-only */
	case ORDMA_REG_SCRATCH:
		return fw->regs.scratch;
	}
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR, "regs: read of unknown offset 0x%llx",
	       (unsigned long long)off);
	return 0;
}

/* The AQ registers may be rewritten at any time; the queue in use keeps
 * the values latched at ENABLE.
 */
static void fw_aq_reg_write(struct ordma_fw *fw, uint32_t *reg, uint32_t val)
{
	*reg = val;
	if (fw->regs.ctrl & ORDMA_CTRL_ENABLE)
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "regs: AQ configuration written while enabled, takes effect at next enable");
}

void ordma_fw_reg_write(struct ordma_fw *fw, uint64_t off, uint64_t val,
			unsigned int size)
{
	uint32_t val32 = (uint32_t)val;

	fw_trace_set_qp(fw, ORDMA_FW_TRACE_NO_QPN);
	if (!fw_reg_access_ok(fw, off, size, "write"))
		return;

	switch (off) {
	case ORDMA_REG_CTRL:
		fw_ctrl_write(fw, val32);
		return;
	case ORDMA_REG_AQ_BASE_LO:
		fw_aq_reg_write(fw, &fw->regs.aq_base_lo, val32);
		return;
	case ORDMA_REG_AQ_BASE_HI:
		fw_aq_reg_write(fw, &fw->regs.aq_base_hi, val32);
		return;
	case ORDMA_REG_ACQ_BASE_LO:
		fw_aq_reg_write(fw, &fw->regs.acq_base_lo, val32);
		return;
	case ORDMA_REG_ACQ_BASE_HI:
		fw_aq_reg_write(fw, &fw->regs.acq_base_hi, val32);
		return;
	case ORDMA_REG_AQ_CFG:
		fw_aq_reg_write(fw, &fw->regs.aq_cfg, val32);
		return;
	case ORDMA_REG_AQ_DB:
		fw_admin_doorbell(fw, val32);
		return;
	case ORDMA_REG_SCRATCH:
		fw->regs.scratch = val32;
		return;
	case ORDMA_REG_VERSION:
	case ORDMA_REG_CAPS:
	case ORDMA_REG_DB_CAPS:
	case ORDMA_REG_TIMEOUTS:
	case ORDMA_REG_STATUS:
	case ORDMA_REG_FATAL_CODE:
	case ORDMA_REG_HEARTBEAT:
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
		       "regs: write to read-only offset 0x%llx ignored",
		       (unsigned long long)off);
		return;
	}
	fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR,
	       "regs: write to unknown offset 0x%llx ignored",
	       (unsigned long long)off);
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                            */
/* ------------------------------------------------------------------ */

static bool fw_hal_ops_valid(const struct ordma_hal_ops *ops)
{
	return ops->dma_read && ops->dma_write && ops->msix_notify &&
	       ops->tx_frame && ops->now_ns && ops->timer_arm;
}

static bool fw_config_valid(const struct ordma_fw_config *cfg)
{
	static const uint8_t zero_mac[6];

	return cfg->num_vectors >= ORDMA_FW_MIN_VECTORS &&
	       cfg->num_vectors <= ORDMA_FW_MAX_VECTORS &&
	       cfg->num_db_pages >= ORDMA_FW_MIN_DB_PAGES &&
	       cfg->num_db_pages <= ORDMA_FW_MAX_DB_PAGES &&
	       !(cfg->mac[0] & 1) && memcmp(cfg->mac, zero_mac, 6) &&
	       (cfg->link_layer == ORDMA_LINK_LAYER_ETHERNET ||
		cfg->link_layer == ORDMA_LINK_LAYER_INFINIBAND);
}

struct ordma_fw *ordma_fw_create_sized(const struct ordma_hal_ops *ops,
				       void *ctx,
				       const struct ordma_fw_config *cfg,
				       size_t cfg_size)
{
	struct ordma_fw_config own = { 0 };

	if (!cfg || cfg_size < ORDMA_FW_CONFIG_SIZE_1_0)
		return NULL;
	memcpy(&own, cfg, cfg_size < sizeof(own) ? cfg_size : sizeof(own));
	return ordma_fw_create(ops, ctx, &own);
}

struct ordma_fw *ordma_fw_create(const struct ordma_hal_ops *ops, void *ctx,
				 const struct ordma_fw_config *cfg)
{
	struct ordma_fw *fw;

	if (!ops || !cfg || !fw_hal_ops_valid(ops) || !fw_config_valid(cfg))
		return NULL;
	fw = calloc(1, sizeof(*fw));
	if (!fw)
		return NULL;
	fw->uctx_allocated = calloc(cfg->num_db_pages,
				    sizeof(*fw->uctx_allocated));
	fw->tp_ctx_held = calloc(cfg->num_db_pages, sizeof(*fw->tp_ctx_held));
	fw->loopback.frames = calloc(FW_LOOPBACK_SLOTS,
				     sizeof(*fw->loopback.frames));
	if (!fw->uctx_allocated || !fw->tp_ctx_held || !fw->loopback.frames ||
	    fw_verbs_create(fw) || fw_qp_tables_create(fw) || fw_tp_create(fw)) {
		fw_qp_tables_destroy(fw);
		fw_verbs_destroy(fw);
		free(fw->loopback.frames);
		free(fw->tp_ctx_held);
		free(fw->uctx_allocated);
		free(fw);
		return NULL;
	}
	fw->hal = *ops;
	fw->hal_ctx = ctx;
	fw->cfg = *cfg;
	fw->port.link_up = true;	/* cable plugged until told otherwise */
	fw_reset_state(fw);
	return fw;
}

void ordma_fw_destroy(struct ordma_fw *fw)
{
	if (!fw)
		return;
	fw_heartbeat_stop(fw);
	fw_iw_stop(fw);
	fw_tp_destroy(fw);
	fw_qp_tables_destroy(fw);
	fw_verbs_destroy(fw);
	free(fw->loopback.frames);
	free(fw->tp_ctx_held);
	free(fw->uctx_allocated);
	free(fw);
}
