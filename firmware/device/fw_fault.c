// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware fault injection: what INJECT_FAULT (the driver) and
 * ordma_fw_inject_fault() (the host) arm, for bring-up and for testing
 * a driver against a device that fails.  The faults themselves happen
 * where the device does the work: DMA and MSI-X in the platform's HAL
 * wrappers (fw_fault_take()), lost admin completions in fw_admin.c, the
 * heartbeat in fw_core.c.  Every fault injected is counted and reported
 * in QUERY_STATS' fault_injected[].
 */
#include <string.h>

#include "fw_priv.h"
#include "device/fw_device.h"
#include "platform/fw_platform.h"

/*
 * NULL if fault, count and arg make a valid request, else why not, with
 * the offset of the command field at fault in *field
 */
static const char *fw_fault_check(unsigned int fault, uint32_t count,
				  uint32_t arg, size_t *field)
{
	*field = FW_CMD_OFF(inject_fault.arg);
	switch (fault) {
	case ORDMA_FAULT_DMA_READ:
	case ORDMA_FAULT_DMA_WRITE:
	case ORDMA_FAULT_ADMIN_DROP:
	case ORDMA_FAULT_MSIX_DROP:
		return arg ? "arg must be 0 for this fault" : NULL;
	case ORDMA_FAULT_FATAL:
		if (arg > ORDMA_FATAL_INJECTED)
			return "unknown fatal code";
		*field = FW_CMD_OFF(inject_fault.count);
		return count != 1 ? "FATAL takes a count of 1" : NULL;
	case ORDMA_FAULT_HEARTBEAT_STUCK:
		if (arg)
			return "arg must be 0 for this fault";
		*field = FW_CMD_OFF(inject_fault.count);
		return count > 1 ? "HEARTBEAT_STUCK takes a count of 0 or 1" :
				   NULL;
	case ORDMA_FAULT_ADMIN_DELAY:
		if (count && (!arg || arg > ORDMA_FAULT_MAX_DELAY_MS))
			return "arg: a delay of 1 to 60000 ms";
		return NULL;
	default:
		*field = FW_CMD_OFF(inject_fault.fault);
		return "unknown fault";
	}
}

static void fw_fault_apply(struct ordma_fw *fw, unsigned int fault,
			   uint32_t count, uint32_t arg)
{
	struct fw_faults *f = &fw->faults;

	switch (fault) {
	case ORDMA_FAULT_FATAL:
		f->injected[fault]++;
		fw_fatal(fw, arg ? (enum ordma_fatal_code)arg :
			 ORDMA_FATAL_INJECTED, "injected");
		break;
	case ORDMA_FAULT_HEARTBEAT_STUCK:
		/* the periods that passed before count, those after do not */
		fw_heartbeat_catch_up(fw);
		if (count && !f->heartbeat_stuck)
			f->injected[fault]++;
		f->heartbeat_stuck = count != 0;
		break;
	case ORDMA_FAULT_ADMIN_DELAY:
		f->admin_delay_ms = arg;
		f->left[fault] = count;
		break;
	default:
		f->left[fault] = count;
		break;
	}
	fw_log(fw, ORDMA_FW_LOG_TRACE, "fault: %u armed, count %u, arg %u",
	       fault, count, arg);
}

int ordma_fw_inject_fault(struct ordma_fw *fw, unsigned int fault,
			  uint32_t count, uint32_t arg)
{
	size_t field;
	const char *why = fw_fault_check(fault, count, arg, &field);

	fw_trace_set_qp(fw, ORDMA_FW_TRACE_NO_QPN);
	if (why) {
		fw_log(fw, ORDMA_FW_LOG_GUEST_ERROR, "fault: %u refused: %s",
		       fault, why);
		return -1;
	}
	fw_fault_apply(fw, fault, count, arg);
	return 0;
}

uint8_t fw_cmd_inject_fault(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_inject_fault *in = &c->in->inject_fault;
	uint32_t fault = le32_to_cpu(in->fault);
	uint32_t count = le32_to_cpu(in->count);
	uint32_t arg = le32_to_cpu(in->arg);
	size_t field;
	const char *why = fw_fault_check(fault, count, arg, &field);

	if (why)
		return fw_cmd_bad_param(c, field, why);
	/* the command's own completion must not be the first victim */
	fw->faults.staged = true;
	fw->faults.staged_fault = fault;
	fw->faults.staged_count = count;
	fw->faults.staged_arg = arg;
	return ORDMA_CMD_STATUS_OK;
}

void fw_fault_commit(struct ordma_fw *fw)
{
	struct fw_faults *f = &fw->faults;

	if (!f->staged)
		return;
	f->staged = false;
	fw_fault_apply(fw, f->staged_fault, f->staged_count, f->staged_arg);
}

void fw_fault_reset(struct ordma_fw *fw)
{
	memset(&fw->faults, 0, sizeof(fw->faults));
}
