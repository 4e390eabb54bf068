// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The QP state machine on its own: every (type, from, to) triple against
 * a transcription of the IBTA rules kept here independently of the
 * firmware's table, and the mask checks around each of them.
 */
#include "objects/fw_qp.h"
#include "ordma_test.h"

#define NUM_STATES	(ORDMA_QPS_ERR + 1)
#define A(name)		ORDMA_QP_ATTR_##name

struct expected_rule {
	uint8_t type;
	uint8_t from;
	uint8_t to;
	uint32_t required;
	uint32_t optional;
};

#define RC	ORDMA_QPT_RC
#define UD	ORDMA_QPT_UD
#define UC	ORDMA_QPT_UC
#define RESET	ORDMA_QPS_RESET
#define INIT	ORDMA_QPS_INIT
#define RTR	ORDMA_QPS_RTR
#define RTS	ORDMA_QPS_RTS
#define SQD	ORDMA_QPS_SQD
#define SQE	ORDMA_QPS_SQE
#define ERR	ORDMA_QPS_ERR

/* Every allowed transition; anything not listed must be refused. */
static const struct expected_rule expected[] = {
	/* to RESET and to ERR from everywhere, without attributes */
	{ RC, RESET, RESET, 0, 0 }, { UD, RESET, RESET, 0, 0 },
	{ RC, INIT, RESET, 0, 0 }, { UD, INIT, RESET, 0, 0 },
	{ RC, RTR, RESET, 0, 0 }, { UD, RTR, RESET, 0, 0 },
	{ RC, RTS, RESET, 0, 0 }, { UD, RTS, RESET, 0, 0 },
	{ RC, SQD, RESET, 0, 0 }, { UD, SQD, RESET, 0, 0 },
	{ RC, SQE, RESET, 0, 0 }, { UD, SQE, RESET, 0, 0 },
	{ RC, ERR, RESET, 0, 0 }, { UD, ERR, RESET, 0, 0 },
	{ RC, RESET, ERR, 0, 0 }, { UD, RESET, ERR, 0, 0 },
	{ RC, INIT, ERR, 0, 0 }, { UD, INIT, ERR, 0, 0 },
	{ RC, RTR, ERR, 0, 0 }, { UD, RTR, ERR, 0, 0 },
	{ RC, RTS, ERR, 0, 0 }, { UD, RTS, ERR, 0, 0 },
	{ RC, SQD, ERR, 0, 0 }, { UD, SQD, ERR, 0, 0 },
	{ RC, SQE, ERR, 0, 0 }, { UD, SQE, ERR, 0, 0 },
	{ RC, ERR, ERR, 0, 0 }, { UD, ERR, ERR, 0, 0 },

	{ RC, RESET, INIT, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), 0 },
	{ UD, RESET, INIT, A(PKEY_INDEX) | A(PORT) | A(QKEY), 0 },
	{ RC, INIT, INIT, 0, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS) },
	{ UD, INIT, INIT, 0, A(PKEY_INDEX) | A(PORT) | A(QKEY) },
	{ RC, INIT, RTR,
	  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
	  A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
	  A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) },
	{ UD, INIT, RTR, 0, A(PKEY_INDEX) | A(QKEY) },
	{ RC, RTR, RTS,
	  A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(SQ_PSN) |
	  A(MAX_QP_RD_ATOMIC),
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
	  A(PATH_MIG_STATE) },
	{ UD, RTR, RTS, A(SQ_PSN), A(CUR_STATE) | A(QKEY) },
	{ RC, RTS, RTS, 0,
	  A(CUR_STATE) | A(ACCESS_FLAGS) | A(ALT_PATH) | A(PATH_MIG_STATE) |
	  A(MIN_RNR_TIMER) },
	{ UD, RTS, RTS, 0, A(CUR_STATE) | A(QKEY) },
	{ RC, RTS, SQD, 0, A(EN_SQD_ASYNC) },
	{ UD, RTS, SQD, 0, A(EN_SQD_ASYNC) },
	{ RC, SQD, RTS, 0,
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
	  A(PATH_MIG_STATE) },
	{ UD, SQD, RTS, 0, A(CUR_STATE) | A(QKEY) },
	{ RC, SQD, SQD, 0,
	  A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
	  A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
	  A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(MIN_RNR_TIMER) |
	  A(PATH_MIG_STATE) },
	{ UD, SQD, SQD, 0, A(PKEY_INDEX) | A(QKEY) },
	{ RC, SQE, RTS, 0, 0 },
	{ UD, SQE, RTS, 0, A(CUR_STATE) | A(QKEY) },

	/* UC (IBTA 10.3, as the Linux core checks it) */
	{ UC, RESET, RESET, 0, 0 }, { UC, INIT, RESET, 0, 0 },
	{ UC, RTR, RESET, 0, 0 }, { UC, RTS, RESET, 0, 0 },
	{ UC, SQD, RESET, 0, 0 }, { UC, SQE, RESET, 0, 0 },
	{ UC, ERR, RESET, 0, 0 }, { UC, RESET, ERR, 0, 0 },
	{ UC, INIT, ERR, 0, 0 }, { UC, RTR, ERR, 0, 0 },
	{ UC, RTS, ERR, 0, 0 }, { UC, SQD, ERR, 0, 0 },
	{ UC, SQE, ERR, 0, 0 }, { UC, ERR, ERR, 0, 0 },
	{ UC, RESET, INIT, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), 0 },
	{ UC, INIT, INIT, 0, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS) },
	{ UC, INIT, RTR, A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN),
	  A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) },
	{ UC, RTR, RTS, A(SQ_PSN),
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PATH_MIG_STATE) },
	{ UC, RTS, RTS, 0,
	  A(CUR_STATE) | A(ACCESS_FLAGS) | A(ALT_PATH) | A(PATH_MIG_STATE) },
	{ UC, RTS, SQD, 0, A(EN_SQD_ASYNC) },
	{ UC, SQD, RTS, 0,
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PATH_MIG_STATE) },
	{ UC, SQD, SQD, 0,
	  A(AV) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) |
	  A(PATH_MIG_STATE) },
	{ UC, SQE, RTS, 0, A(CUR_STATE) | A(ACCESS_FLAGS) },
};

#define NUM_EXPECTED	(sizeof(expected) / sizeof(expected[0]))

static const struct expected_rule *find_expected(uint8_t type, uint8_t from,
						 uint8_t to)
{
	size_t i;

	for (i = 0; i < NUM_EXPECTED; i++)
		if (expected[i].type == type && expected[i].from == from &&
		    expected[i].to == to)
			return &expected[i];
	return NULL;
}

TEST(test_qp_state_table_matches_ibta)
{
	struct fw_qp_transition rule;
	unsigned int type, from, to, valid = 0;

	for (type = RC; type <= UC; type++) {
		for (from = 0; from < NUM_STATES; from++) {
			for (to = 0; to < NUM_STATES; to++) {
				const struct expected_rule *e =
					find_expected(type, from, to);

				REQUIRE(fw_qp_transition_rule(type, from, to,
							      &rule));
				if (!CHECK_EQ(rule.valid, e != NULL)) {
					NOTE("type %u %s -> %s", type,
						 fw_qp_state_name(from),
						 fw_qp_state_name(to));
					continue;
				}
				if (!e)
					continue;
				valid++;
				CHECK_EQ(rule.required, e->required);
				CHECK_EQ(rule.optional, e->optional);
			}
		}
	}
	CHECK_EQ(valid, NUM_EXPECTED);
	/* out of range values have no rule */
	CHECK(!fw_qp_transition_rule(0x7f, RESET, INIT, &rule));
	CHECK(!fw_qp_transition_rule(RC, 7, INIT, &rule));
	CHECK(!fw_qp_transition_rule(RC, RESET, 7, &rule));
	CHECK(!rule.valid);
}

TEST(test_qp_state_masks_per_transition)
{
	unsigned int type, from, to, bit;
	uint32_t bits;

	for (type = RC; type <= UC; type++) {
		for (from = 0; from < NUM_STATES; from++) {
			for (to = 0; to < NUM_STATES; to++) {
				const struct expected_rule *e =
					find_expected(type, from, to);
				uint32_t req, allowed;

				if (!e) {
					CHECK_EQ(fw_qp_check_transition(type, from, to,
									A(STATE), &bits),
						 FW_QP_CHECK_BAD_TRANSITION);
					continue;
				}
				req = e->required | A(STATE);
				allowed = req | e->optional;
				CHECK_EQ(fw_qp_check_transition(type, from, to,
								req, &bits),
					 FW_QP_CHECK_OK);
				CHECK_EQ(fw_qp_check_transition(type, from, to,
								allowed, &bits),
					 FW_QP_CHECK_OK);
				for (bit = 0; bit <= 20; bit++) {
					uint32_t b = 1u << bit;

					if (e->required & b) {
						CHECK_EQ(fw_qp_check_transition(type, from, to,
										req & ~b, &bits),
							 FW_QP_CHECK_MISSING);
						CHECK_EQ(bits, b);
					} else if (!(allowed & b)) {
						CHECK_EQ(fw_qp_check_transition(type, from, to,
										req | b, &bits),
							 FW_QP_CHECK_EXTRA);
						CHECK_EQ(bits, b);
					}
				}
			}
		}
	}
	/* without STATE the target is the current state */
	CHECK_EQ(fw_qp_check_transition(RC, RTS, RTS, A(MIN_RNR_TIMER), &bits),
		 FW_QP_CHECK_OK);
	CHECK_EQ(fw_qp_check_transition(UD, RESET, RESET, 0, &bits),
		 FW_QP_CHECK_OK);
	CHECK_EQ(fw_qp_check_transition(RC, RTR, RTR, 0, &bits),
		 FW_QP_CHECK_BAD_TRANSITION);
}

/* Properties of the rules that hold however the table is spelled. */
TEST(test_qp_state_invariants)
{
	struct fw_qp_transition rule;
	unsigned int type, from, to;

	for (type = RC; type <= UC; type++) {
		for (from = 0; from < NUM_STATES; from++) {
			/* RESET and ERR: from anywhere, with nothing */
			fw_qp_transition_rule(type, from, RESET, &rule);
			CHECK(rule.valid && !rule.required && !rule.optional);
			fw_qp_transition_rule(type, from, ERR, &rule);
			CHECK(rule.valid && !rule.required && !rule.optional);
			/* SQE is entered by the device only */
			fw_qp_transition_rule(type, from, SQE, &rule);
			CHECK(!rule.valid);
			for (to = 0; to < NUM_STATES; to++) {
				fw_qp_transition_rule(type, from, to, &rule);
				/* CUR_STATE only from RTR, RTS, SQD, SQE */
				if ((rule.optional | rule.required) & A(CUR_STATE))
					CHECK(from == RTR || from == RTS ||
					      from == SQD || from == SQE);
				/* the driver never names STATE itself here */
				CHECK(!((rule.optional | rule.required) & A(STATE)));
				CHECK(!(rule.required & rule.optional));
			}
		}
	}
	CHECK(fw_qp_state_name(7)[0] == '?');
	CHECK_EQ(fw_qp_state_name(SQE)[2], 'E');
}
