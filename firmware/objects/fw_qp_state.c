// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware QP state machine (IBTA 1.x, chapter 10.3 / 11.2.5):
 * which transitions MODIFY_QP may request and which attributes each one
 * requires and accepts, per QP type.  Pure table logic, no device state,
 * so it can be tested exhaustively.
 *
 * The table follows the IBTA rules as the Linux RDMA core checks them,
 * for the QP types the device has (RC, UC, UD), with one deliberate
 * superset: RESET -> ERR is allowed ("any state to Error").
 */
#include "objects/fw_qp.h"

#define FW_QP_NUM_STATES	(ORDMA_QPS_ERR + 1)
#define FW_QP_NUM_TYPES		(ORDMA_QPT_UC + 1)

#define ATTR(name)		ORDMA_QP_ATTR_##name

struct fw_qp_rule {
	bool valid;
	uint32_t required[FW_QP_NUM_TYPES];
	uint32_t optional[FW_QP_NUM_TYPES];
};

/* Attributes RC may change while in RTS, on SQD -> RTS and RTR -> RTS */
#define FW_RC_RTS_OPTIONAL	(ATTR(CUR_STATE) | ATTR(ACCESS_FLAGS) | \
				 ATTR(ALT_PATH) | ATTR(PATH_MIG_STATE) | \
				 ATTR(MIN_RNR_TIMER))
#define FW_UD_RTS_OPTIONAL	(ATTR(CUR_STATE) | ATTR(QKEY))
/* UC: no acknowledgements, so no timeout, retries or RNR timer */
#define FW_UC_RTS_OPTIONAL	(ATTR(CUR_STATE) | ATTR(ACCESS_FLAGS) | \
				 ATTR(ALT_PATH) | ATTR(PATH_MIG_STATE))
#define FW_UC_INIT_ATTRS	(ATTR(PKEY_INDEX) | ATTR(PORT) | \
				 ATTR(ACCESS_FLAGS))

static const struct fw_qp_rule fw_qp_rules[FW_QP_NUM_STATES][FW_QP_NUM_STATES] = {
	[ORDMA_QPS_RESET] = {
		[ORDMA_QPS_RESET] = { .valid = true },
		[ORDMA_QPS_INIT] = {
			.valid = true,
			.required = {
				[ORDMA_QPT_RC] = ATTR(PKEY_INDEX) | ATTR(PORT) |
						 ATTR(ACCESS_FLAGS),
				[ORDMA_QPT_UD] = ATTR(PKEY_INDEX) | ATTR(PORT) |
						 ATTR(QKEY),
				[ORDMA_QPT_UC] = FW_UC_INIT_ATTRS,
			},
		},
		[ORDMA_QPS_ERR] = { .valid = true },
	},
	[ORDMA_QPS_INIT] = {
		[ORDMA_QPS_RESET] = { .valid = true },
		[ORDMA_QPS_INIT] = {
			.valid = true,
			.optional = {
				[ORDMA_QPT_RC] = ATTR(PKEY_INDEX) | ATTR(PORT) |
						 ATTR(ACCESS_FLAGS),
				[ORDMA_QPT_UD] = ATTR(PKEY_INDEX) | ATTR(PORT) |
						 ATTR(QKEY),
				[ORDMA_QPT_UC] = FW_UC_INIT_ATTRS,
			},
		},
		[ORDMA_QPS_RTR] = {
			.valid = true,
			.required = {
				[ORDMA_QPT_RC] = ATTR(AV) | ATTR(PATH_MTU) |
						 ATTR(DEST_QPN) | ATTR(RQ_PSN) |
						 ATTR(MAX_DEST_RD_ATOMIC) |
						 ATTR(MIN_RNR_TIMER),
				[ORDMA_QPT_UC] = ATTR(AV) | ATTR(PATH_MTU) |
						 ATTR(DEST_QPN) | ATTR(RQ_PSN),
			},
			.optional = {
				[ORDMA_QPT_RC] = ATTR(ALT_PATH) |
						 ATTR(ACCESS_FLAGS) |
						 ATTR(PKEY_INDEX),
				[ORDMA_QPT_UD] = ATTR(PKEY_INDEX) | ATTR(QKEY),
				[ORDMA_QPT_UC] = ATTR(ALT_PATH) |
						 ATTR(ACCESS_FLAGS) |
						 ATTR(PKEY_INDEX),
			},
		},
		[ORDMA_QPS_ERR] = { .valid = true },
	},
	[ORDMA_QPS_RTR] = {
		[ORDMA_QPS_RESET] = { .valid = true },
		[ORDMA_QPS_RTS] = {
			.valid = true,
			.required = {
				[ORDMA_QPT_RC] = ATTR(TIMEOUT) | ATTR(RETRY_CNT) |
						 ATTR(RNR_RETRY) | ATTR(SQ_PSN) |
						 ATTR(MAX_QP_RD_ATOMIC),
				[ORDMA_QPT_UD] = ATTR(SQ_PSN),
				[ORDMA_QPT_UC] = ATTR(SQ_PSN),
			},
			.optional = {
				[ORDMA_QPT_RC] = FW_RC_RTS_OPTIONAL,
				[ORDMA_QPT_UD] = FW_UD_RTS_OPTIONAL,
				[ORDMA_QPT_UC] = FW_UC_RTS_OPTIONAL,
			},
		},
		[ORDMA_QPS_ERR] = { .valid = true },
	},
	[ORDMA_QPS_RTS] = {
		[ORDMA_QPS_RESET] = { .valid = true },
		[ORDMA_QPS_RTS] = {
			.valid = true,
			.optional = {
				[ORDMA_QPT_RC] = FW_RC_RTS_OPTIONAL,
				[ORDMA_QPT_UD] = FW_UD_RTS_OPTIONAL,
				[ORDMA_QPT_UC] = FW_UC_RTS_OPTIONAL,
			},
		},
		[ORDMA_QPS_SQD] = {
			.valid = true,
			.optional = {
				[ORDMA_QPT_RC] = ATTR(EN_SQD_ASYNC),
				[ORDMA_QPT_UD] = ATTR(EN_SQD_ASYNC),
				[ORDMA_QPT_UC] = ATTR(EN_SQD_ASYNC),
			},
		},
		[ORDMA_QPS_ERR] = { .valid = true },
	},
	[ORDMA_QPS_SQD] = {
		[ORDMA_QPS_RESET] = { .valid = true },
		[ORDMA_QPS_RTS] = {
			.valid = true,
			.optional = {
				[ORDMA_QPT_RC] = FW_RC_RTS_OPTIONAL,
				[ORDMA_QPT_UD] = FW_UD_RTS_OPTIONAL,
				[ORDMA_QPT_UC] = FW_UC_RTS_OPTIONAL,
			},
		},
		[ORDMA_QPS_SQD] = {
			.valid = true,
			.optional = {
				[ORDMA_QPT_RC] = ATTR(PORT) | ATTR(AV) |
						 ATTR(TIMEOUT) | ATTR(RETRY_CNT) |
						 ATTR(RNR_RETRY) |
						 ATTR(MAX_QP_RD_ATOMIC) |
						 ATTR(MAX_DEST_RD_ATOMIC) |
						 ATTR(ALT_PATH) |
						 ATTR(ACCESS_FLAGS) |
						 ATTR(PKEY_INDEX) |
						 ATTR(MIN_RNR_TIMER) |
						 ATTR(PATH_MIG_STATE),
				[ORDMA_QPT_UD] = ATTR(PKEY_INDEX) | ATTR(QKEY),
				[ORDMA_QPT_UC] = ATTR(AV) | ATTR(ALT_PATH) |
						 ATTR(ACCESS_FLAGS) |
						 ATTR(PKEY_INDEX) |
						 ATTR(PATH_MIG_STATE),
			},
		},
		[ORDMA_QPS_ERR] = { .valid = true },
	},
	[ORDMA_QPS_SQE] = {
		[ORDMA_QPS_RESET] = { .valid = true },
		/* only UD and UC reach SQE; RC takes no attribute here */
		[ORDMA_QPS_RTS] = {
			.valid = true,
			.optional = {
				[ORDMA_QPT_UD] = FW_UD_RTS_OPTIONAL,
				[ORDMA_QPT_UC] = ATTR(CUR_STATE) |
						 ATTR(ACCESS_FLAGS),
			},
		},
		[ORDMA_QPS_ERR] = { .valid = true },
	},
	[ORDMA_QPS_ERR] = {
		[ORDMA_QPS_RESET] = { .valid = true },
		[ORDMA_QPS_ERR] = { .valid = true },
	},
};

bool fw_qp_transition_rule(uint8_t type, uint8_t cur, uint8_t next,
			   struct fw_qp_transition *rule)
{
	const struct fw_qp_rule *r;

	rule->valid = false;
	rule->required = 0;
	rule->optional = 0;
	if (type >= FW_QP_NUM_TYPES || cur >= FW_QP_NUM_STATES ||
	    next >= FW_QP_NUM_STATES)
		return false;
	r = &fw_qp_rules[cur][next];
	rule->valid = r->valid;
	rule->required = r->required[type];
	rule->optional = r->optional[type];
	return true;
}

enum fw_qp_check fw_qp_check_transition(uint8_t type, uint8_t cur,
					uint8_t next, uint32_t mask,
					uint32_t *bits)
{
	struct fw_qp_transition rule;
	uint32_t allowed;

	*bits = 0;
	if (!fw_qp_transition_rule(type, cur, next, &rule) || !rule.valid)
		return FW_QP_CHECK_BAD_TRANSITION;
	if ((mask & rule.required) != rule.required) {
		*bits = rule.required & ~mask;
		return FW_QP_CHECK_MISSING;
	}
	allowed = rule.required | rule.optional | ATTR(STATE);
	if (mask & ~allowed) {
		*bits = mask & ~allowed;
		return FW_QP_CHECK_EXTRA;
	}
	return FW_QP_CHECK_OK;
}

const char *fw_qp_state_name(uint8_t state)
{
	static const char *const names[FW_QP_NUM_STATES] = {
		[ORDMA_QPS_RESET] = "RESET",
		[ORDMA_QPS_INIT] = "INIT",
		[ORDMA_QPS_RTR] = "RTR",
		[ORDMA_QPS_RTS] = "RTS",
		[ORDMA_QPS_SQD] = "SQD",
		[ORDMA_QPS_SQE] = "SQE",
		[ORDMA_QPS_ERR] = "ERR",
	};

	return state < FW_QP_NUM_STATES ? names[state] : "?";
}
