// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The subnet management agent of an InfiniBand port through PROCESS_MAD:
 * each attribute's Get and Set, the MAD status codes, directed route
 * hop handling, M_Key protection and its lease, the port state machine
 * and the PORT_CHANGE events it raises, the traps it sends the SM; and
 * the command's own checks.
 */
#include <string.h>

#include "fake_hal.h"
#include "mad.h"
#include "ordma_test.h"

/* PortInfo offsets */
#define PI_MKEY			0
#define PI_GID_PREFIX		8
#define PI_LID			16
#define PI_SM_LID		18
#define PI_CAP_MASK		20
#define PI_LEASE		26
#define PI_STATE		32	/* speed supported 7:4, state 3:0 */
#define PI_PHYS			33	/* phys state 7:4, down default 3:0 */
#define PI_PROT_LMC		34
#define PI_MTU_SMSL		36
#define PI_MKEY_VIOL		44
#define PI_REREG_TIMEOUT	51

static const uint8_t guid[8] = { 0x50, 0x54, 0x00, 0xff, 0xfe,
				  0x12, 0x34, 0x56 };

static uint64_t guid64(void)
{
	return rd64(guid, 0);
}

static bool pi_get(struct drv *d, uint8_t pi[64])
{
	if (smp_get(d, ATTR_PORT_INFO, 0) != 0)
		return false;
	memcpy(pi, mad_out(d) + SMP_DATA, 64);
	return true;
}

static uint8_t pi_state(struct drv *d)
{
	uint8_t pi[64];

	return pi_get(d, pi) ? pi[PI_STATE] & 0xf : 0xff;
}

/* PortInfo as read, with LIDs a Set accepts and no state change */
static bool pi_base(struct drv *d, uint8_t pi[64])
{
	if (!pi_get(d, pi))
		return false;
	wr16(pi, PI_LID, 1);
	wr16(pi, PI_SM_LID, 1);
	pi[PI_STATE] &= 0xf0;
	pi[PI_PHYS] = 0;
	return true;
}

static uint16_t pi_set_state(struct drv *d, uint8_t state)
{
	uint8_t pi[64];

	if (!pi_base(d, pi))
		return MAD_NO_REPLY;
	pi[PI_STATE] = (uint8_t)((pi[PI_STATE] & 0xf0) | state);
	return smp_set(d, ATTR_PORT_INFO, 0, pi);
}

static bool eq_port_change(struct drv *d, struct drv_eq *eq, uint32_t *state,
			   uint32_t *changes)
{
	struct ordma_eqe eqe;

	if (!drv_eq_next(d, eq, &eqe))
		return false;
	drv_eq_update(d, eq, false);
	if (FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe.type)) !=
	    ORDMA_EQE_PORT_CHANGE || le32_to_cpu(eqe.data[0]) != 1)
		return false;
	*state = le32_to_cpu(eqe.data[1]);
	*changes = le32_to_cpu(eqe.data[2]);
	return true;
}

TEST(test_sma_node_info)
{
	const uint8_t *o;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(smp_get(&d, ATTR_NODE_INFO, 0), 0);
	CHECK_EQ(mad_result(&d),
		 ORDMA_MAD_RESULT_SUCCESS | ORDMA_MAD_RESULT_REPLY);
	CHECK_EQ(mad_drop(&d), 0);
	o = mad_out(&d);
	CHECK_EQ(o[MAD_METHOD], METHOD_GET_RESP);
	CHECK_EQ(rd64(o, MAD_TID), 0x0102030405060708ULL);
	CHECK_EQ(rd16(o, MAD_ATTR_ID), ATTR_NODE_INFO);
	o += SMP_DATA;
	CHECK_EQ(o[0], 1);		/* base version */
	CHECK_EQ(o[1], 1);		/* class version */
	CHECK_EQ(o[2], 1);		/* channel adapter */
	CHECK_EQ(o[3], 1);		/* ports */
	CHECK_EQ(rd64(o, 4), guid64());	/* system image */
	CHECK_EQ(rd64(o, 12), guid64());	/* node */
	CHECK_EQ(rd64(o, 20), guid64());	/* port */
	CHECK_EQ(rd16(o, 28), 1);	/* partition cap */
	CHECK_EQ(rd16(o, 30), 0x4f52);	/* device id */
	CHECK_EQ(rd32(o, 32), 1);	/* revision */
	CHECK_EQ(o[36], 1);		/* local port */
	CHECK_EQ(rd32(o, 36) & 0xffffff, 0x1234);	/* vendor id */
	/* read-only */
	CHECK_EQ(smp_set(&d, ATTR_NODE_INFO, 0, mad_out(&d) + SMP_DATA),
		 MAD_ST_BAD_ATTR);
	drv_close(&d);
}

TEST(test_sma_port_info_defaults)
{
	uint8_t pi[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd64(pi, PI_MKEY), 0);
	CHECK_EQ(rd64(pi, PI_GID_PREFIX), 0xfe80000000000000ULL);
	CHECK_EQ(rd16(pi, PI_LID), 0);
	CHECK_EQ(rd16(pi, PI_SM_LID), 0);
	CHECK_EQ(rd32(pi, PI_CAP_MASK), (1u << 3) | (1u << 6) | (1u << 11) |
					 (1u << 14) | (1u << 25));
	CHECK_EQ(pi[28], 1);			/* local port */
	CHECK_EQ(pi[29], 3);			/* width enabled 1X, 4X */
	CHECK_EQ(pi[30], 3);			/* width supported */
	CHECK_EQ(pi[31], 1);			/* 25 Gb/s: 1X ... */
	CHECK_EQ(pi[PI_STATE], 0x72);		/* SDR-QDR, INIT */
	CHECK_EQ(pi[PI_PHYS], 0x52);		/* LinkUp, Polling */
	CHECK_EQ(pi[PI_PROT_LMC], 0);
	CHECK_EQ(pi[35], 0x17);			/* SDR active, all enabled */
	CHECK_EQ(pi[PI_MTU_SMSL], 0x50);	/* neighbor MTU 4096 */
	CHECK_EQ(pi[37], 0x40);			/* VL0-7 */
	CHECK_EQ(pi[39], 8);
	CHECK_EQ(pi[40], 8);
	CHECK_EQ(pi[41], 5);			/* MTU cap 4096 */
	CHECK_EQ(pi[43], 0x10);			/* operational VLs: VL0 */
	CHECK_EQ(pi[50], 1);			/* GUID cap */
	CHECK_EQ(pi[52], 18);
	CHECK_EQ(pi[62], 0x23);			/* ... EDR; FDR, EDR */
	CHECK_EQ(pi[63], 3);
	/* without link: DOWN, Polling */
	ordma_fw_set_link(d.fw, false);
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(pi[PI_STATE] & 0xf, ORDMA_PORT_DOWN);
	CHECK_EQ(pi[PI_PHYS] >> 4, ORDMA_PORT_PHYS_POLLING);
	drv_close(&d);
}

TEST(test_sma_port_info_set)
{
	uint32_t state, changes;
	struct drv_eq eq;
	uint8_t pi[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	REQUIRE(pi_base(&d, pi));
	wr64(pi, PI_GID_PREFIX, 0xfe80000000001234ULL);
	wr16(pi, PI_LID, 0x20);
	wr16(pi, PI_SM_LID, 0x7);
	pi[PI_PROT_LMC] = 2;
	pi[PI_MTU_SMSL] = 0x43;		/* 2048, SL 3 */
	pi[PI_REREG_TIMEOUT] = 18;
	pi[43] = 0x30;			/* VL0-3 */
	pi[29] = 0xff;			/* every width supported */
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	/* the response is the attribute as set */
	memcpy(pi, mad_out(&d) + SMP_DATA, 64);
	CHECK_EQ(mad_out(&d)[MAD_METHOD], METHOD_GET_RESP);
	CHECK_EQ(rd64(pi, PI_GID_PREFIX), 0xfe80000000001234ULL);
	CHECK_EQ(rd16(pi, PI_LID), 0x20);
	CHECK_EQ(rd16(pi, PI_SM_LID), 0x7);
	CHECK_EQ(pi[PI_PROT_LMC], 2);
	CHECK_EQ(pi[PI_MTU_SMSL], 0x43);
	CHECK_EQ(pi[PI_REREG_TIMEOUT], 18);
	CHECK_EQ(pi[43], 0x30);
	CHECK_EQ(pi[29], 3);
	CHECK_EQ(pi[PI_STATE] & 0xf, ORDMA_PORT_INIT);
	REQUIRE(eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(state, ORDMA_PORT_INIT);
	CHECK_EQ(changes, ORDMA_PORT_CHANGE_LID | ORDMA_PORT_CHANGE_SM |
			  ORDMA_PORT_CHANGE_GID);
	/* the same again: no event */
	REQUIRE(pi_base(&d, pi));
	wr16(pi, PI_LID, 0x20);
	wr16(pi, PI_SM_LID, 0x7);
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	CHECK(!eq_port_change(&d, &eq, &state, &changes));
	/* only the SM's SL */
	pi[PI_MTU_SMSL] = 0x44;
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	REQUIRE(eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(changes, ORDMA_PORT_CHANGE_SM);

	/* bad fields refuse the whole Set */
	REQUIRE(pi_base(&d, pi));
	wr16(pi, PI_LID, 0xc000);	/* multicast */
	wr16(pi, PI_SM_LID, 0x9);
	CHECK_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), MAD_ST_BAD_FIELD);
	REQUIRE(pi_base(&d, pi));
	pi[PI_MTU_SMSL] = 0x60;		/* MTU above the cap */
	CHECK_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), MAD_ST_BAD_FIELD);
	REQUIRE(pi_base(&d, pi));
	pi[43] = 0x50;			/* more VLs than VLCap */
	CHECK_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), MAD_ST_BAD_FIELD);
	REQUIRE(pi_base(&d, pi));
	pi[29] = 0x04;			/* 8X */
	CHECK_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), MAD_ST_BAD_FIELD);
	REQUIRE(pi_base(&d, pi));
	pi[PI_PHYS] = 0x10;		/* Sleep */
	CHECK_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), MAD_ST_BAD_FIELD);
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd16(pi, PI_LID), 0x20);
	CHECK_EQ(rd16(pi, PI_SM_LID), 0x7);
	CHECK(!eq_port_change(&d, &eq, &state, &changes));
	/* attribute modifier: the port, 0 or 1 */
	CHECK_EQ(smp_get(&d, ATTR_PORT_INFO, 1), 0);
	CHECK_EQ(smp_get(&d, ATTR_PORT_INFO, 2), MAD_ST_BAD_FIELD);
	drv_close(&d);
}

TEST(test_sma_port_state_machine)
{
	uint32_t state, changes;
	struct drv_eq eq;
	uint8_t pi[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	REQUIRE_EQ(pi_state(&d), ORDMA_PORT_INIT);
	/* ACTIVE only from ARMED, INIT never by the SM */
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_ACTIVE), MAD_ST_BAD_FIELD);
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_INIT), MAD_ST_BAD_FIELD);
	CHECK_EQ(pi_set_state(&d, 5), MAD_ST_BAD_FIELD);
	CHECK_EQ(pi_state(&d), ORDMA_PORT_INIT);
	CHECK(!eq_port_change(&d, &eq, &state, &changes));

	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_ARMED), 0);
	CHECK_EQ(mad_out(&d)[SMP_DATA + PI_STATE] & 0xf, ORDMA_PORT_ARMED);
	REQUIRE(eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(state, ORDMA_PORT_ARMED);
	/* the LID set alongside the state: both causes */
	CHECK_EQ(changes, ORDMA_PORT_CHANGE_STATE | ORDMA_PORT_CHANGE_LID |
			  ORDMA_PORT_CHANGE_SM);
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_ARMED), 0);
	CHECK(!eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_ACTIVE), 0);
	REQUIRE(eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(state, ORDMA_PORT_ACTIVE);
	CHECK_EQ(changes, ORDMA_PORT_CHANGE_STATE);
	/* ARMED from ACTIVE is no transition */
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_ARMED), MAD_ST_BAD_FIELD);
	CHECK_EQ(pi_state(&d), ORDMA_PORT_ACTIVE);

	/* link down: DOWN; up again: INIT, whatever it was */
	ordma_fw_set_link(d.fw, false);
	REQUIRE(eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(state, ORDMA_PORT_DOWN);
	CHECK_EQ(changes, ORDMA_PORT_CHANGE_STATE);
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_ARMED), MAD_ST_BAD_FIELD);
	ordma_fw_set_link(d.fw, true);
	REQUIRE(eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(state, ORDMA_PORT_INIT);
	CHECK_EQ(pi_state(&d), ORDMA_PORT_INIT);

	/* the SM takes an ACTIVE port down: it trains again to INIT */
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_ARMED), 0);
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_ACTIVE), 0);
	CHECK_EQ(pi_set_state(&d, ORDMA_PORT_DOWN), 0);
	CHECK_EQ(pi_state(&d), ORDMA_PORT_INIT);

	/* PortPhysicalState Disabled, then Polling */
	REQUIRE(pi_base(&d, pi));
	pi[PI_PHYS] = ORDMA_PORT_PHYS_DISABLED << 4;
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	CHECK_EQ(mad_out(&d)[SMP_DATA + PI_PHYS] >> 4,
		 ORDMA_PORT_PHYS_DISABLED);
	CHECK_EQ(mad_out(&d)[SMP_DATA + PI_STATE] & 0xf, ORDMA_PORT_DOWN);
	pi[PI_PHYS] = ORDMA_PORT_PHYS_POLLING << 4;
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	CHECK_EQ(mad_out(&d)[SMP_DATA + PI_PHYS] >> 4,
		 ORDMA_PORT_PHYS_LINK_UP);
	CHECK_EQ(pi_state(&d), ORDMA_PORT_INIT);
	drv_close(&d);
}

TEST(test_sma_client_reregister)
{
	uint32_t state, changes;
	struct drv_eq eq;
	uint8_t pi[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(pi_base(&d, pi));
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	pi[PI_REREG_TIMEOUT] = 0x80 | 17;
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	/* the bit is an action: it reads as 0 */
	CHECK_EQ(mad_out(&d)[SMP_DATA + PI_REREG_TIMEOUT], 17);
	REQUIRE(eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(state, ORDMA_PORT_INIT);
	CHECK_EQ(changes, ORDMA_PORT_CHANGE_CLIENT_REREG);
	drv_close(&d);
}

TEST(test_sma_status_codes)
{
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET, ATTR_NODE_INFO, 0);
	mad_in(&d)[MAD_BASE_VERSION] = 2;
	CHECK_EQ(mad_run(&d, 0), MAD_ST_BAD_VERSION);
	CHECK_EQ(mad_out(&d)[MAD_METHOD], METHOD_GET_RESP);
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET, ATTR_NODE_INFO, 0);
	mad_in(&d)[MAD_CLASS_VERSION] = 2;
	CHECK_EQ(mad_run(&d, 0), MAD_ST_BAD_VERSION);
	mad_build(&d, CLASS_SUBN_LID, 0x03, ATTR_NODE_INFO, 0);	/* Send */
	CHECK_EQ(mad_run(&d, 0), MAD_ST_BAD_METHOD);
	mad_build(&d, CLASS_SUBN_LID, 0x12, ATTR_NODE_INFO, 0);	/* GetTable */
	CHECK_EQ(mad_run(&d, 0), MAD_ST_BAD_METHOD);
	CHECK_EQ(smp_get(&d, 0x0030, 0), MAD_ST_BAD_ATTR);	/* VendorDiag */
	CHECK_EQ(smp_get(&d, 0x0012, 0), MAD_ST_BAD_ATTR);	/* SwitchInfo */
	CHECK_EQ(smp_get(&d, ATTR_PKEY_TABLE, 1), MAD_ST_BAD_FIELD);
	CHECK_EQ(smp_get(&d, ATTR_GUID_INFO, 1), MAD_ST_BAD_FIELD);
	CHECK_EQ(smp_get(&d, ATTR_SL_TO_VL, 0x10001), MAD_ST_BAD_FIELD);
	CHECK_EQ(smp_get(&d, ATTR_VL_ARB, 3), MAD_ST_BAD_FIELD);
	CHECK_EQ(smp_get(&d, ATTR_VL_ARB, 0), MAD_ST_BAD_FIELD);
	/* the request's status is not the response's */
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET, ATTR_NODE_INFO, 0);
	wr16(mad_in(&d), MAD_STATUS, 0x001c);
	CHECK_EQ(mad_run(&d, 0), 0);
	drv_close(&d);
}

/* What is not the agent's goes on to the host, or ends with the device */
TEST(test_sma_pass_and_consume)
{
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	CHECK_EQ(smp_get(&d, ATTR_SM_INFO, 0), MAD_NO_REPLY);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS);
	CHECK_EQ(mad_out(&d)[0], 0xee);		/* nothing written */
	/* the node description is answered, never set by an SMP */
	mad_build(&d, CLASS_SUBN_LID, METHOD_SET, ATTR_NODE_DESC, 0);
	CHECK_EQ(mad_run(&d, 0), MAD_ST_BAD_ATTR);
	/* responses and traps are the host's subnet manager's */
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET_RESP, ATTR_NODE_INFO, 0);
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS);
	mad_build(&d, CLASS_SUBN_LID, 0x05, 0x0002, 0);		/* Trap */
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS);
	/* TrapRepress: the agent sends no traps */
	mad_build(&d, CLASS_SUBN_LID, 0x07, 0x0002, 0);
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS |
				 ORDMA_MAD_RESULT_CONSUMED);
	CHECK_EQ(mad_drop(&d), ORDMA_MAD_DROP_NONE);
	/* another class: subnet administration */
	mad_build(&d, 0x03, METHOD_GET, 0x0011, 0);
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS);
	drv_close(&d);
}

static uint16_t dr_get(struct drv *d, uint8_t hop_ptr, uint8_t hop_cnt)
{
	mad_build(d, CLASS_SUBN_DR, METHOD_GET, ATTR_NODE_INFO, 0);
	mad_in(d)[MAD_HOP_PTR] = hop_ptr;
	mad_in(d)[MAD_HOP_CNT] = hop_cnt;
	return mad_run(d, 0);
}

static void check_dr_drop(struct drv *d)
{
	CHECK_EQ(mad_result(d), ORDMA_MAD_RESULT_SUCCESS |
				ORDMA_MAD_RESULT_CONSUMED);
	CHECK_EQ(mad_drop(d), ORDMA_MAD_DROP_DR_PATH);
	CHECK_EQ(mad_out(d)[0], 0xee);
}

TEST(test_sma_directed_route)
{
	const uint8_t *o;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	o = mad_out(&d);
	/* from a subnet manager on this host: no hops */
	CHECK_EQ(dr_get(&d, 0, 0), MAD_ST_DIRECTION);
	CHECK_EQ(o[MAD_METHOD], METHOD_GET_RESP);
	CHECK_EQ(o[MAD_HOP_PTR], 1);
	CHECK_EQ(o[MAD_HOP_CNT], 0);
	CHECK_EQ(rd64(o, SMP_DATA + 12), guid64());
	/* as the host's SMI hands it on, pointer already past the count */
	CHECK_EQ(dr_get(&d, 1, 0), MAD_ST_DIRECTION);
	CHECK_EQ(o[MAD_HOP_PTR], 1);
	/* one hop away: the arrival port goes into the return path */
	mad_build(&d, CLASS_SUBN_DR, METHOD_GET, ATTR_NODE_INFO, 0);
	mad_in(&d)[MAD_HOP_PTR] = 3;
	mad_in(&d)[MAD_HOP_CNT] = 3;
	mad_in(&d)[SMP_INITIAL_PATH + 1] = 1;
	mad_in(&d)[SMP_INITIAL_PATH + 2] = 7;
	mad_in(&d)[SMP_INITIAL_PATH + 3] = 9;
	mad_in(&d)[SMP_RETURN_PATH + 2] = 4;
	CHECK_EQ(mad_run(&d, 0), MAD_ST_DIRECTION);
	CHECK_EQ(o[MAD_HOP_PTR], 4);
	CHECK_EQ(o[MAD_HOP_CNT], 3);
	CHECK_EQ(o[SMP_RETURN_PATH + 3], 1);
	CHECK_EQ(o[SMP_RETURN_PATH + 2], 4);
	CHECK_EQ(o[SMP_INITIAL_PATH + 3], 9);
	/* a DR Set is answered with the D bit too */
	mad_build(&d, CLASS_SUBN_DR, METHOD_SET, ATTR_PKEY_TABLE, 0);
	wr16(mad_in(&d), SMP_DATA, 0xffff);
	CHECK_EQ(mad_run(&d, 0), MAD_ST_DIRECTION);
	/* and so is an error */
	mad_build(&d, CLASS_SUBN_DR, METHOD_GET, 0x0030, 0);
	CHECK_EQ(mad_run(&d, 0), MAD_ST_DIRECTION | MAD_ST_BAD_ATTR);

	/* a CA forwards nothing: pointer inside the path */
	CHECK_EQ(dr_get(&d, 1, 3), MAD_NO_REPLY);
	check_dr_drop(&d);
	/* pointer beyond count + 1 */
	CHECK_EQ(dr_get(&d, 5, 3), MAD_NO_REPLY);
	check_dr_drop(&d);
	CHECK_EQ(dr_get(&d, 2, 0), MAD_NO_REPLY);
	check_dr_drop(&d);
	/* hop count beyond 63 */
	CHECK_EQ(dr_get(&d, 64, 64), MAD_NO_REPLY);
	check_dr_drop(&d);
	/* end of the directed part with a LID-routed part after it */
	mad_build(&d, CLASS_SUBN_DR, METHOD_GET, ATTR_NODE_INFO, 0);
	mad_in(&d)[MAD_HOP_PTR] = 2;
	mad_in(&d)[MAD_HOP_CNT] = 2;
	wr16(mad_in(&d), SMP_DR_DLID, 0x10);
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	check_dr_drop(&d);
	/* a returning SMP (D set) is not a request for this port */
	mad_build(&d, CLASS_SUBN_DR, METHOD_GET, ATTR_NODE_INFO, 0);
	wr16(mad_in(&d), MAD_STATUS, MAD_ST_DIRECTION);
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	check_dr_drop(&d);
	/* the LID-routed class ignores the hop fields */
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET, ATTR_NODE_INFO, 0);
	mad_in(&d)[MAD_HOP_PTR] = 9;
	mad_in(&d)[MAD_HOP_CNT] = 3;
	CHECK_EQ(mad_run(&d, 0), 0);
	CHECK_EQ(o[MAD_HOP_PTR], 9);
	drv_close(&d);
}

static uint16_t get_with_key(struct drv *d, uint16_t attr, uint64_t mkey,
			     uint8_t flags)
{
	mad_build(d, CLASS_SUBN_LID, METHOD_GET, attr, 0);
	wr64(mad_in(d), SMP_MKEY, mkey);
	return mad_run(d, flags);
}

static uint16_t set_with_key(struct drv *d, const uint8_t pi[64],
			     uint64_t mkey)
{
	mad_build(d, CLASS_SUBN_LID, METHOD_SET, ATTR_PORT_INFO, 0);
	wr64(mad_in(d), SMP_MKEY, mkey);
	memcpy(mad_in(d) + SMP_DATA, pi, 64);
	return mad_run(d, 0);
}

static void check_mkey_drop(struct drv *d)
{
	CHECK_EQ(mad_result(d), ORDMA_MAD_RESULT_SUCCESS |
				ORDMA_MAD_RESULT_CONSUMED);
	CHECK_EQ(mad_drop(d), ORDMA_MAD_DROP_MKEY);
	CHECK_EQ(mad_out(d)[0], 0xee);
}

#define KEY	0x1122334455667788ULL

TEST(test_sma_mkey_protection)
{
	uint8_t pi[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	/* protection level 0: Gets pass and see the key; Sets need it */
	REQUIRE(pi_base(&d, pi));
	wr16(pi, PI_MKEY_VIOL, 1);	/* not 0: leaves the counter */
	wr64(pi, PI_MKEY, KEY);
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	CHECK_EQ(get_with_key(&d, ATTR_PORT_INFO, 0, 0), 0);
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA + PI_MKEY), KEY);
	wr16(pi, PI_LID, 0x33);
	CHECK_EQ(set_with_key(&d, pi, 0), MAD_NO_REPLY);
	check_mkey_drop(&d);
	CHECK_EQ(set_with_key(&d, pi, KEY + 1), MAD_NO_REPLY);
	check_mkey_drop(&d);
	CHECK_EQ(get_with_key(&d, ATTR_PORT_INFO, KEY, 0), 0);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA + PI_LID), 1);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA + PI_MKEY_VIOL), 2);
	CHECK_EQ(set_with_key(&d, pi, KEY), 0);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA + PI_LID), 0x33);

	/* level 1: Gets pass, PortInfo's M_Key reads as 0 */
	pi[PI_PROT_LMC] = 1 << 6;
	REQUIRE_EQ(set_with_key(&d, pi, KEY), 0);
	CHECK_EQ(get_with_key(&d, ATTR_PORT_INFO, 0, 0), 0);
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA + PI_MKEY), 0);
	CHECK_EQ(mad_out(&d)[SMP_DATA + PI_PROT_LMC], 1 << 6);
	CHECK_EQ(get_with_key(&d, ATTR_PORT_INFO, KEY, 0), 0);
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA + PI_MKEY), KEY);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA + PI_MKEY_VIOL), 2);

	/* level 2: Gets need the key too */
	pi[PI_PROT_LMC] = 2 << 6;
	REQUIRE_EQ(set_with_key(&d, pi, KEY), 0);
	CHECK_EQ(get_with_key(&d, ATTR_NODE_INFO, 0, 0), MAD_NO_REPLY);
	check_mkey_drop(&d);
	/* DR as well */
	mad_build(&d, CLASS_SUBN_DR, METHOD_GET, ATTR_NODE_INFO, 0);
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	check_mkey_drop(&d);
	/* the driver's own queries */
	CHECK_EQ(get_with_key(&d, ATTR_PORT_INFO, 0,
			      ORDMA_MAD_FLAG_IGNORE_MKEY), 0);
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA + PI_MKEY), KEY);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA + PI_MKEY_VIOL), 4);
	/* level 3 is level 2 */
	pi[PI_PROT_LMC] = 3 << 6;
	REQUIRE_EQ(set_with_key(&d, pi, KEY), 0);
	CHECK_EQ(get_with_key(&d, ATTR_NODE_INFO, 0, 0), MAD_NO_REPLY);
	check_mkey_drop(&d);
	/* a Set of zero clears the counter */
	wr16(pi, PI_MKEY_VIOL, 0);
	REQUIRE_EQ(set_with_key(&d, pi, KEY), 0);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA + PI_MKEY_VIOL), 0);
	drv_close(&d);
}

TEST(test_sma_mkey_lease)
{
	uint8_t pi[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(pi_base(&d, pi));
	wr64(pi, PI_MKEY, KEY);
	wr16(pi, PI_LEASE, 2);		/* seconds */
	pi[PI_PROT_LMC] = 2 << 6;
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	/* a violation starts the lease */
	CHECK_EQ(get_with_key(&d, ATTR_NODE_INFO, 0, 0), MAD_NO_REPLY);
	fake_advance(&d.hal, 1500000000ULL);
	CHECK_EQ(get_with_key(&d, ATTR_NODE_INFO, 0, 0), MAD_NO_REPLY);
	/* the matching key stops it */
	CHECK_EQ(get_with_key(&d, ATTR_NODE_INFO, KEY, 0), 0);
	fake_advance(&d.hal, 1500000000ULL);
	CHECK_EQ(get_with_key(&d, ATTR_NODE_INFO, 0, 0), MAD_NO_REPLY);
	fake_advance(&d.hal, 1000000000ULL);
	CHECK_EQ(get_with_key(&d, ATTR_NODE_INFO, 0, 0), MAD_NO_REPLY);
	fake_advance(&d.hal, 1000000000ULL);
	/* 2 s after the violation that started it: protection falls to 0,
	 * the key stays
	 */
	CHECK_EQ(get_with_key(&d, ATTR_PORT_INFO, 0, 0), 0);
	CHECK_EQ(mad_out(&d)[SMP_DATA + PI_PROT_LMC] >> 6, 0);
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA + PI_MKEY), KEY);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA + PI_MKEY_VIOL), 4);
	CHECK_EQ(set_with_key(&d, pi, 0), MAD_NO_REPLY);
	drv_close(&d);
}

TEST(test_sma_pkey_table)
{
	uint32_t state, changes;
	uint8_t data[64] = { 0 };
	struct drv_eq eq;
	struct drv d;
	size_t i;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	REQUIRE_EQ(smp_get(&d, ATTR_PKEY_TABLE, 0), 0);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA), 0xffff);
	for (i = 2; i < 64; i++)
		if (!CHECK_EQ(mad_out(&d)[SMP_DATA + i], 0))
			break;
	wr16(data, 0, 0x8001);
	wr16(data, 2, 0x8002);		/* beyond the table: ignored */
	REQUIRE_EQ(smp_set(&d, ATTR_PKEY_TABLE, 0, data), 0);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA), 0x8001);
	CHECK_EQ(rd16(mad_out(&d), SMP_DATA + 2), 0);
	REQUIRE(eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(changes, ORDMA_PORT_CHANGE_PKEY);
	REQUIRE_EQ(smp_set(&d, ATTR_PKEY_TABLE, 0, data), 0);
	CHECK(!eq_port_change(&d, &eq, &state, &changes));
	CHECK_EQ(smp_set(&d, ATTR_PKEY_TABLE, 1, data), MAD_ST_BAD_FIELD);
	drv_close(&d);
}

TEST(test_sma_guid_info)
{
	uint8_t data[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(smp_get(&d, ATTR_GUID_INFO, 0), 0);
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA), guid64());
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA + 8), 0);
	/* GUID 0 is the manufacturer's: a Set leaves it */
	memset(data, 0x77, sizeof(data));
	REQUIRE_EQ(smp_set(&d, ATTR_GUID_INFO, 0, data), 0);
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA), guid64());
	CHECK_EQ(rd64(mad_out(&d), SMP_DATA + 8), 0);
	drv_close(&d);
}

TEST(test_sma_sl_to_vl)
{
	static const uint8_t map[8] = { 0x01, 0x23, 0x45, 0x67,
					0x70, 0x00, 0xff, 0x12 };
	uint8_t data[64] = { 0 };
	struct drv d;
	size_t i;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(smp_get(&d, ATTR_SL_TO_VL, 0), 0);
	for (i = 0; i < 8; i++)
		CHECK_EQ(mad_out(&d)[SMP_DATA + i], 0);
	memcpy(data, map, sizeof(map));
	REQUIRE_EQ(smp_set(&d, ATTR_SL_TO_VL, 0, data), 0);
	CHECK(!memcmp(mad_out(&d) + SMP_DATA, map, sizeof(map)));
	/* VL 8 is beyond VLCap */
	data[3] = 0x68;
	CHECK_EQ(smp_set(&d, ATTR_SL_TO_VL, 0, data), MAD_ST_BAD_FIELD);
	REQUIRE_EQ(smp_get(&d, ATTR_SL_TO_VL, 0), 0);
	CHECK(!memcmp(mad_out(&d) + SMP_DATA, map, sizeof(map)));
	drv_close(&d);
}

TEST(test_sma_vl_arbitration)
{
	uint8_t low[64] = { 0 }, high[64] = { 0 };
	struct drv d;
	size_t i;

	REQUIRE(mad_open_ib(&d));
	for (i = 0; i < 8; i++) {
		low[2 * i] = (uint8_t)i;
		low[2 * i + 1] = (uint8_t)(0x10 + i);
		high[2 * i] = (uint8_t)(7 - i);
		high[2 * i + 1] = 0x40;
	}
	low[20] = 3;		/* entry 10: beyond the capability */
	low[21] = 9;
	REQUIRE_EQ(smp_set(&d, ATTR_VL_ARB, 1, low), 0);
	REQUIRE_EQ(smp_set(&d, ATTR_VL_ARB, 2, high), 0);
	REQUIRE_EQ(smp_get(&d, ATTR_VL_ARB, 1), 0);
	CHECK(!memcmp(mad_out(&d) + SMP_DATA, low, 16));
	CHECK_EQ(mad_out(&d)[SMP_DATA + 20], 0);
	REQUIRE_EQ(smp_get(&d, ATTR_VL_ARB, 0x10002), 0);	/* port 1 */
	CHECK(!memcmp(mad_out(&d) + SMP_DATA, high, 16));
	/* VL15 is not arbitrated */
	high[0] = 15;
	CHECK_EQ(smp_set(&d, ATTR_VL_ARB, 2, high), MAD_ST_BAD_FIELD);
	CHECK_EQ(smp_set(&d, ATTR_VL_ARB, 4, high), MAD_ST_BAD_FIELD);
	CHECK_EQ(smp_get(&d, ATTR_VL_ARB, 0x20001), MAD_ST_BAD_FIELD);
	REQUIRE_EQ(smp_get(&d, ATTR_VL_ARB, 2), 0);
	CHECK_EQ(mad_out(&d)[SMP_DATA], 7);
	drv_close(&d);
}

/* QUERY_PORT reports PortInfo as the subnet manager set it */
TEST(test_sma_query_port)
{
	struct ordma_port_attr attr;
	uint8_t pi[64], pkeys[64] = { 0 };
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(pi_base(&d, pi));
	wr64(pi, PI_GID_PREFIX, 0xfec0000000000042ULL);
	wr16(pi, PI_LID, 0x1234);
	wr16(pi, PI_SM_LID, 0x21);
	pi[PI_PROT_LMC] = 3;
	pi[PI_MTU_SMSL] = 0x59;
	pi[PI_REREG_TIMEOUT] = 0x13;
	pi[PI_STATE] |= ORDMA_PORT_ARMED;
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	wr16(pkeys, 0, 0x7fff);
	REQUIRE_EQ(smp_set(&d, ATTR_PKEY_TABLE, 0, pkeys), 0);
	memset(&attr, 0xa5, sizeof(attr));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr)),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(attr.state, ORDMA_PORT_ARMED);
	CHECK_EQ(le16_to_cpu(attr.lid), 0x1234);
	CHECK_EQ(le16_to_cpu(attr.sm_lid), 0x21);
	CHECK_EQ(attr.lmc, 3);
	CHECK_EQ(attr.sm_sl, 9);
	CHECK_EQ(attr.subnet_timeout, 0x13);
	CHECK_EQ(attr.pkey_table_len, 1);
	CHECK_EQ(le16_to_cpu(attr.pkey), 0x7fff);
	CHECK_EQ(be64_to_cpu(attr.gid_prefix), 0xfec0000000000042ULL);
	CHECK_EQ(be64_to_cpu(attr.port_guid), guid64());
	CHECK_EQ(le32_to_cpu(attr.max_vl_num), 4);
	REQUIRE_EQ(pi_set_state(&d, ORDMA_PORT_ACTIVE), 0);
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr)),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(attr.state, ORDMA_PORT_ACTIVE);
	/* without link: DOWN, the SM's settings kept */
	ordma_fw_set_link(d.fw, false);
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr)),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(attr.state, ORDMA_PORT_DOWN);
	CHECK_EQ(attr.phys_state, ORDMA_PORT_PHYS_POLLING);
	CHECK_EQ(le16_to_cpu(attr.lid), 1);	/* pi_set_state's */
	CHECK_EQ(attr.lmc, 3);
	CHECK_EQ(attr.sm_sl, 9);
	drv_close(&d);
}

/* A device reset forgets what the subnet manager set */
TEST(test_sma_reset)
{
	uint8_t pi[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE(pi_base(&d, pi));
	wr16(pi, PI_LID, 9);
	pi[PI_STATE] |= ORDMA_PORT_ARMED;
	REQUIRE_EQ(smp_set(&d, ATTR_PORT_INFO, 0, pi), 0);
	ordma_fw_reset(d.fw);
	REQUIRE(drv_enable(&d, 4));
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd16(pi, PI_LID), 0);
	CHECK_EQ(pi[PI_STATE] & 0xf, ORDMA_PORT_INIT);
	drv_close(&d);
}

TEST(test_process_mad_checks)
{
	struct ordma_aq_cmd cmd;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET, ATTR_NODE_INFO, 0);
#define MAD_CMD(field, value) do {					\
		drv_cmd_init(&cmd, ORDMA_CMD_PROCESS_MAD);		\
		cmd.process_mad.buf_addr = cpu_to_le64(MAD_IN_ADDR);	\
		cmd.process_mad.buf_len = cpu_to_le32(ORDMA_MAD_BUF_SIZE); \
		cmd.process_mad.port = cpu_to_le32(1);			\
		cmd.process_mad.field = (value);			\
	} while (0)
	/* the syndrome: the bad field's offset in the command */
	MAD_CMD(buf_addr, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	MAD_CMD(buf_addr, cpu_to_le64(MAD_IN_ADDR + 4));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	MAD_CMD(buf_addr, cpu_to_le64(0xffffffffffffff80ULL));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	MAD_CMD(buf_len, cpu_to_le32(ORDMA_MAD_SIZE));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	MAD_CMD(port, cpu_to_le32(2));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 20);
	MAD_CMD(port, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	MAD_CMD(sl, 16);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 26);
	MAD_CMD(flags, 0x04);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 27);
	MAD_CMD(reserved_20, cpu_to_le32(1));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 28);
	/* the MAD not readable */
	MAD_CMD(buf_addr, cpu_to_le64(DRV_BAD_ADDR));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
	/* the request readable at the end of host memory, the response
	 * beyond it not writable: an error only when there is a response
	 */
	memcpy(drv_mem(&d, FAKE_MEM_END - ORDMA_MAD_SIZE, ORDMA_MAD_SIZE),
	       mad_in(&d), ORDMA_MAD_SIZE);
	MAD_CMD(buf_addr, cpu_to_le64(FAKE_MEM_END - ORDMA_MAD_SIZE));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET, ATTR_SM_INFO, 0);
	memcpy(drv_mem(&d, FAKE_MEM_END - ORDMA_MAD_SIZE, ORDMA_MAD_SIZE),
	       mad_in(&d), ORDMA_MAD_SIZE);
	MAD_CMD(buf_addr, cpu_to_le64(FAKE_MEM_END - ORDMA_MAD_SIZE));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS);
	CHECK_EQ(le32_to_cpu(d.last_comp.process_mad.written), 0);
	/* every flag and SL accepted; a response reports the whole buffer */
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET, ATTR_NODE_INFO, 0);
	MAD_CMD(flags, ORDMA_MAD_FLAG_LOCAL | ORDMA_MAD_FLAG_IGNORE_MKEY);
	cmd.process_mad.sl = 15;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(mad_result(&d),
		 ORDMA_MAD_RESULT_SUCCESS | ORDMA_MAD_RESULT_REPLY);
	CHECK_EQ(le32_to_cpu(d.last_comp.process_mad.written),
		 ORDMA_MAD_BUF_SIZE);
#undef MAD_CMD
	drv_close(&d);
}

/* SET_NODE_DESC of 64 bytes at DRV_SCRATCH_ADDR */
static uint8_t set_node_desc(struct drv *d, const char *text, uint32_t len,
			     uint32_t port)
{
	struct ordma_aq_cmd cmd;

	memset(drv_mem(d, DRV_SCRATCH_ADDR, 64), 0, 64);
	memcpy(drv_mem(d, DRV_SCRATCH_ADDR, 64), text, strlen(text));
	drv_cmd_init(&cmd, ORDMA_CMD_SET_NODE_DESC);
	cmd.set_node_desc.buf_addr = cpu_to_le64(DRV_SCRATCH_ADDR);
	cmd.set_node_desc.buf_len = cpu_to_le32(len);
	cmd.set_node_desc.port = cpu_to_le32(port);
	return drv_exec(d, &cmd);
}

TEST(test_sma_node_desc)
{
	struct drv d;
	uint8_t *data;

	REQUIRE(mad_open_ib(&d));
	/* the board id until the host sets another */
	CHECK_EQ(smp_get(&d, ATTR_NODE_DESC, 0), 0);
	data = mad_out(&d) + SMP_DATA;
	CHECK(!memcmp(data, "ORDMA-RNIC-V1\0", 14));
	CHECK_EQ(set_node_desc(&d, "host1 ordma0", 64, 1),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(smp_get(&d, ATTR_NODE_DESC, 0), 0);
	CHECK(!memcmp(data, "host1 ordma0\0", 13));
	CHECK_EQ(data[63], 0);
	/* bad length or port: refused, the description kept */
	CHECK_EQ(set_node_desc(&d, "other", 32, 1), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	CHECK_EQ(set_node_desc(&d, "other", 64, 2), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 20);
	CHECK_EQ(smp_get(&d, ATTR_NODE_DESC, 0), 0);
	CHECK(!memcmp(data, "host1 ordma0\0", 13));
	/* a reset makes it the board id again */
	ordma_fw_reset(d.fw);
	REQUIRE(drv_enable(&d, 4));
	CHECK_EQ(smp_get(&d, ATTR_NODE_DESC, 0), 0);
	CHECK(!memcmp(data, "ORDMA-RNIC-V1\0", 14));
	drv_close(&d);
}

static uint8_t modify_ib_port(struct drv *d, uint32_t set, uint32_t clr,
			      uint32_t port)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_MODIFY_IB_PORT);
	cmd.modify_ib_port.port = cpu_to_le32(port);
	cmd.modify_ib_port.set_cap_mask = cpu_to_le32(set);
	cmd.modify_ib_port.clr_cap_mask = cpu_to_le32(clr);
	return drv_exec(d, &cmd);
}

TEST(test_sma_host_capabilities)
{
	const uint32_t own = (1u << 3) | (1u << 6) | (1u << 11) | (1u << 14) |
			     (1u << 25);
	struct ordma_port_attr attr;
	uint8_t pi[64];
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	/* the communication manager's bit, as ib_cm sets it */
	CHECK_EQ(modify_ib_port(&d, 1u << 16, 0, 1), ORDMA_CMD_STATUS_OK);
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd32(pi, PI_CAP_MASK), own | (1u << 16));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_PORT, 1, &attr, sizeof(attr)),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(attr.port_cap_flags), own | (1u << 16));
	CHECK_EQ(modify_ib_port(&d, 1u << 19, 1u << 16, 1), ORDMA_CMD_STATUS_OK);
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd32(pi, PI_CAP_MASK), own | (1u << 19));
	/* IsSM, as opening issm sets it, and its clearing */
	CHECK_EQ(modify_ib_port(&d, 1u << 1, 0, 1), ORDMA_CMD_STATUS_OK);
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd32(pi, PI_CAP_MASK), own | (1u << 19) | (1u << 1));
	CHECK_EQ(modify_ib_port(&d, 0, 1u << 1, 1), ORDMA_CMD_STATUS_OK);
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd32(pi, PI_CAP_MASK), own | (1u << 19));
	/* the device's own bits, both masks, a bad port: refused */
	CHECK_EQ(modify_ib_port(&d, 1u << 6, 0, 1), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 12);
	CHECK_EQ(modify_ib_port(&d, 0, 1u << 25, 1), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 16);
	CHECK_EQ(modify_ib_port(&d, 1u << 16, 1u << 16, 1),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(modify_ib_port(&d, 1u << 16, 0, 0), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), 8);
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd32(pi, PI_CAP_MASK), own | (1u << 19));
	/* a reset clears what the host set */
	ordma_fw_reset(d.fw);
	REQUIRE(drv_enable(&d, 4));
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd32(pi, PI_CAP_MASK), own);
	drv_close(&d);
}

TEST(test_process_mad_refused_on_ethernet)
{
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	mad_build(&d, CLASS_SUBN_LID, METHOD_GET, ATTR_NODE_INFO, 0);
	CHECK_EQ(mad_exec(&d, 0), ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(mad_out(&d)[0], 0xee);
	mad_build(&d, CLASS_PERF, METHOD_GET, 0x0012, 0);
	CHECK_EQ(mad_exec(&d, 0), ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(set_node_desc(&d, "x", 64, 1), ORDMA_CMD_STATUS_NOT_SUPPORTED);
	CHECK_EQ(modify_ib_port(&d, 1u << 16, 0, 1),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	drv_close(&d);
}

/* An Ethernet port's PORT_CHANGE events carry no causes */
TEST(test_ethernet_port_change_unchanged)
{
	struct ordma_eqe eqe;
	struct drv_eq eq;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(drv_port_up(&d), ORDMA_CMD_STATUS_OK);
	REQUIRE(drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_ASYNC, 0, 4));
	ordma_fw_set_link(d.fw, false);
	REQUIRE(drv_eq_next(&d, &eq, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_PORT_DOWN);
	CHECK_EQ(le32_to_cpu(eqe.data[2]), 0);
	ordma_fw_set_link(d.fw, false);
	CHECK(!drv_eq_next(&d, &eq, &eqe));
	drv_close(&d);
}

struct smi_env {
	struct drv d;
	struct drv_eq comp;
	struct drv_cq scq, rcq;
	uint32_t uctx, pdn;
};

static bool smi_env_open(struct smi_env *e, bool ib)
{
	memset(e, 0, sizeof(*e));
	if (!(ib ? mad_open_ib(&e->d) : drv_open(&e->d, 4)))
		return false;
	if (!drv_eq_open(&e->d, &e->comp, ORDMA_EQ_TYPE_COMP, 1, 8) ||
	    drv_alloc_uctx(&e->d, &e->uctx) != ORDMA_CMD_STATUS_OK ||
	    drv_alloc_pd(&e->d, 0, &e->pdn) != ORDMA_CMD_STATUS_OK ||
	    !drv_cq_open(&e->d, &e->scq, 0, 0, e->comp.eqn, 8) ||
	    !drv_cq_open(&e->d, &e->rcq, 1, 0, e->comp.eqn, 8)) {
		drv_close(&e->d);
		return false;
	}
	return true;
}

static uint8_t smi_create(struct smi_env *e, uint8_t type, uint32_t uctx,
			  unsigned int area, uint32_t *qpn)
{
	struct ordma_qp_create_params p;

	memset(drv_mem(&e->d, DRV_WQ_ADDR(area), 0x10000), 0, 0x10000);
	drv_qp_params(&p, 0, e->pdn, type, e->scq.cqn, e->rcq.cqn,
		      ORDMA_NO_SRQ, area);
	p.uctx = cpu_to_le32(uctx);
	return drv_create_qp(&e->d, &p, qpn);
}

static uint32_t cap_flags(struct drv *d)
{
	struct ordma_device_caps caps;

	if (drv_query(d, ORDMA_CMD_QUERY_DEVICE, 0, &caps, sizeof(caps)) !=
	    ORDMA_CMD_STATUS_OK)
		return 0;
	return le32_to_cpu(caps.cap_flags);
}

/* QP0: the subnet management QP of an InfiniBand port */
TEST(test_smi_qp)
{
	struct ordma_qp_attr attr;
	struct smi_env e;
	uint32_t qpn = 77, gsi, ud;

	REQUIRE(smi_env_open(&e, true));
	CHECK(cap_flags(&e.d) & ORDMA_DEV_CAP_SMI);
	CHECK(!(cap_flags(&e.d) & ORDMA_DEV_CAP_IWARP));
	REQUIRE_EQ(smi_create(&e, ORDMA_QPT_SMI, 0, 0, &qpn),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(qpn, ORDMA_SMI_QPN);
	REQUIRE_EQ(drv_query_qp(&e.d, qpn, &attr), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(attr.state, ORDMA_QPS_RESET);
	/* one per port */
	CHECK_EQ(smi_create(&e, ORDMA_QPT_SMI, 0, 1, &qpn),
		 ORDMA_CMD_STATUS_BUSY);
	/* the kernel's only */
	CHECK_EQ(smi_create(&e, ORDMA_QPT_SMI, e.uctx, 1, &qpn),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	/* QP1 and ordinary QPs beside it */
	REQUIRE_EQ(smi_create(&e, ORDMA_QPT_GSI, 0, 2, &gsi),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(gsi, ORDMA_GSI_QPN);
	REQUIRE_EQ(smi_create(&e, ORDMA_QPT_UD, 0, 3, &ud),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(ud, 2);
	/* gone with DESTROY_QP, and made again */
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, ORDMA_SMI_QPN, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_query_qp(&e.d, ORDMA_SMI_QPN, &attr),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, ORDMA_SMI_QPN, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	REQUIRE_EQ(smi_create(&e, ORDMA_QPT_SMI, 0, 1, &qpn),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(qpn, ORDMA_SMI_QPN);
	drv_close(&e.d);
}

TEST(test_smi_qp_refused_on_ethernet)
{
	struct ordma_qp_attr attr;
	struct smi_env e;
	uint32_t qpn = 77;

	REQUIRE(smi_env_open(&e, false));
	CHECK(!(cap_flags(&e.d) & ORDMA_DEV_CAP_SMI));
	CHECK_EQ(smi_create(&e, ORDMA_QPT_SMI, 0, 0, &qpn),
		 ORDMA_CMD_STATUS_NOT_SUPPORTED);
	/* QP0 is no QP on Ethernet */
	CHECK_EQ(drv_query_qp(&e.d, 0, &attr), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, 0, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* Traps                                                               */
/* ------------------------------------------------------------------ */

#define TRAP_SM_LID		2
#define TRAP_SM_SL		3
#define TRAP_TIMEOUT		10	/* 4.096 us * 2^10: 4.2 ms */
#define TRAP_PERIOD_NS		(4096ULL << TRAP_TIMEOUT)
/* a SubnTrap on the wire: LRH, BTH, DETH, MAD, ICRC, VCRC */
#define TRAP_MAD		28
#define TRAP_LEN		(TRAP_MAD + 256 + 4 + 2)
/* Notice */
#define NT_DETAILS		10

/* PortInfo: LID 1, the SM at TRAP_SM_LID, the port in state, M_Key
 * mkey protected at level prot (the port's M_Key must be mkey already,
 * or 0)
 */
static uint16_t trap_port(struct drv *d, uint8_t state, uint64_t mkey,
			  uint8_t prot)
{
	uint8_t pi[64];

	if (!pi_base(d, pi))
		return MAD_NO_REPLY;
	wr16(pi, PI_SM_LID, TRAP_SM_LID);
	pi[PI_MTU_SMSL] = (uint8_t)((pi[PI_MTU_SMSL] & 0xf0) | TRAP_SM_SL);
	pi[PI_REREG_TIMEOUT] = TRAP_TIMEOUT;
	wr64(pi, PI_MKEY, mkey);
	pi[PI_PROT_LMC] = (uint8_t)(prot << 6);
	pi[PI_STATE] = (uint8_t)((pi[PI_STATE] & 0xf0) | state);
	return set_with_key(d, pi, mkey);
}

/* The MAD of the packet sent last, if it is a SubnTrap to the SM */
static const uint8_t *trap_sent(struct drv *d)
{
	const struct fake_frame *f = fake_last_tx(&d->hal);
	const uint8_t *p;

	if (!f || f->len != TRAP_LEN)
		return NULL;
	p = f->data;
	/* VL15, LNH local; DLID the SM's, SLID ours; UD SEND_ONLY QP0 to
	 * QP0
	 */
	if (p[0] >> 4 != 15 || (p[1] >> 4) != TRAP_SM_SL || (p[1] & 3) != 2 ||
	    rd16(p, 2) != TRAP_SM_LID || rd16(p, 6) != 1 || p[8] != 0x64 ||
	    (rd32(p, 12) & 0xffffff) || (rd32(p, 24) & 0xffffff))
		return NULL;
	p += TRAP_MAD;
	if (p[MAD_BASE_VERSION] != 1 || p[MAD_CLASS] != CLASS_SUBN_LID ||
	    p[MAD_CLASS_VERSION] != 1 || p[MAD_METHOD] != 0x05 ||
	    rd16(p, MAD_ATTR_ID) != 0x0002 || rd64(p, SMP_MKEY))
		return NULL;
	return p;
}

static uint16_t trap_repress(struct drv *d, uint64_t tid, uint64_t mkey)
{
	mad_build(d, CLASS_SUBN_LID, 0x07, 0x0002, 0);
	wr64(mad_in(d), MAD_TID, tid);
	wr64(mad_in(d), SMP_MKEY, mkey);
	return mad_run(d, 0);
}

/* Trap 144 for a new node description: sent, repeated, repressed */
TEST(test_sma_trap_node_desc)
{
	const uint8_t *mad, *n;
	unsigned long sent;
	unsigned int i;
	uint64_t tid;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	/* no SM yet: nothing to tell */
	sent = d.hal.tx_count;
	CHECK_EQ(set_node_desc(&d, "before", 64, 1), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.tx_count, sent);
	/* INIT with an SM LID: still nothing */
	REQUIRE_EQ(trap_port(&d, 0, 0, 0), 0);
	CHECK_EQ(set_node_desc(&d, "init", 64, 1), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.tx_count, sent);

	REQUIRE_EQ(trap_port(&d, ORDMA_PORT_ARMED, 0, 0), 0);
	CHECK_EQ(set_node_desc(&d, "newdesc", 64, 1), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.tx_count, sent + 1);
	mad = trap_sent(&d);
	REQUIRE(mad);
	tid = rd64(mad, MAD_TID);
	n = mad + SMP_DATA;
	CHECK_EQ(n[0], 0x84);			/* generic, informational */
	CHECK_EQ(rd32(n, 0) & 0xffffff, 1);	/* from a CA */
	CHECK_EQ(rd16(n, 4), 144);
	CHECK_EQ(rd16(n, 6), 1);		/* issuer LID */
	CHECK_EQ(rd16(n, NT_DETAILS + 2), 1);
	CHECK_EQ(n[NT_DETAILS + 5], 1);		/* other local changes */
	CHECK_EQ(rd32(n, NT_DETAILS + 6), (1u << 3) | (1u << 6) | (1u << 11) |
					  (1u << 14) | (1u << 25));
	CHECK_EQ(rd16(n, NT_DETAILS + 10), 0x0001);	/* NodeDescription */
	/* the same description again is no change */
	CHECK_EQ(set_node_desc(&d, "newdesc", 64, 1), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.tx_count, sent + 1);

	/* not repressed: the same trap once per subnet timeout */
	fake_advance(&d.hal, TRAP_PERIOD_NS / 2);
	CHECK_EQ(d.hal.tx_count, sent + 1);
	fake_advance(&d.hal, TRAP_PERIOD_NS);
	CHECK_EQ(d.hal.tx_count, sent + 2);
	mad = trap_sent(&d);
	REQUIRE(mad);
	CHECK_EQ(rd64(mad, MAD_TID), tid);
	/* a TrapRepress of another TID changes nothing; of this one, the
	 * repeating stops; neither is answered
	 */
	CHECK_EQ(trap_repress(&d, tid + 1, 0), MAD_NO_REPLY);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS |
				 ORDMA_MAD_RESULT_CONSUMED);
	fake_advance(&d.hal, TRAP_PERIOD_NS + 1);
	CHECK_EQ(d.hal.tx_count, sent + 3);
	CHECK_EQ(trap_repress(&d, tid, 0), MAD_NO_REPLY);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS |
				 ORDMA_MAD_RESULT_CONSUMED);
	CHECK_EQ(mad_drop(&d), ORDMA_MAD_DROP_NONE);
	fake_advance(&d.hal, 4 * TRAP_PERIOD_NS);
	CHECK_EQ(d.hal.tx_count, sent + 3);

	/* no SM represses it: sent 16 times, then given up */
	sent = d.hal.tx_count;
	CHECK_EQ(set_node_desc(&d, "unheard", 64, 1), ORDMA_CMD_STATUS_OK);
	for (i = 0; i < 40; i++)
		fake_advance(&d.hal, TRAP_PERIOD_NS);
	CHECK_EQ(d.hal.tx_count, sent + 16);
	drv_close(&d);
}

/* Trap 144 for a CapabilityMask the host changed; changes add up */
TEST(test_sma_trap_cap_mask)
{
	const uint32_t own = (1u << 3) | (1u << 6) | (1u << 11) | (1u << 14) |
			     (1u << 25);
	const uint8_t *mad, *n;
	unsigned long sent;
	uint64_t tid;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(trap_port(&d, ORDMA_PORT_ARMED, 0, 0), 0);
	REQUIRE_EQ(trap_port(&d, ORDMA_PORT_ACTIVE, 0, 0), 0);
	sent = d.hal.tx_count;
	CHECK_EQ(modify_ib_port(&d, 1u << 16, 0, 1), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.tx_count, sent + 1);
	mad = trap_sent(&d);
	REQUIRE(mad);
	tid = rd64(mad, MAD_TID);
	n = mad + SMP_DATA;
	CHECK_EQ(rd16(n, 4), 144);
	CHECK_EQ(n[NT_DETAILS + 5], 0);		/* only the mask */
	CHECK_EQ(rd32(n, NT_DETAILS + 6), own | (1u << 16));
	CHECK_EQ(rd16(n, NT_DETAILS + 10), 0);
	/* no change, no trap */
	CHECK_EQ(modify_ib_port(&d, 1u << 16, 0, 1), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.tx_count, sent + 1);
	/* a change while the first is pending: one trap with both, in
	 * place of the first, when the first was due
	 */
	CHECK_EQ(set_node_desc(&d, "other", 64, 1), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(modify_ib_port(&d, 0, 1u << 16, 1), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(d.hal.tx_count, sent + 1);
	fake_advance(&d.hal, TRAP_PERIOD_NS + 1);
	CHECK_EQ(d.hal.tx_count, sent + 2);
	mad = trap_sent(&d);
	REQUIRE(mad);
	CHECK(rd64(mad, MAD_TID) != tid);
	n = mad + SMP_DATA;
	CHECK_EQ(n[NT_DETAILS + 5], 1);
	CHECK_EQ(rd32(n, NT_DETAILS + 6), own);
	CHECK_EQ(rd16(n, NT_DETAILS + 10), 0x0001);
	/* the first TID no longer represses anything */
	CHECK_EQ(trap_repress(&d, tid, 0), MAD_NO_REPLY);
	fake_advance(&d.hal, TRAP_PERIOD_NS + 1);
	CHECK_EQ(d.hal.tx_count, sent + 3);
	/* a port that stops taking traps drops the pending one */
	ordma_fw_set_link(d.fw, false);
	ordma_fw_set_link(d.fw, true);
	sent = d.hal.tx_count;
	fake_advance(&d.hal, 4 * TRAP_PERIOD_NS);
	CHECK_EQ(d.hal.tx_count, sent);
	drv_close(&d);
}

/* Trap 256 for an SMP with a bad M_Key, LID-routed and directed route */
TEST(test_sma_trap_bad_mkey)
{
	const uint8_t *mad, *n;
	unsigned long sent;
	uint8_t pi[64];
	uint64_t tid;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(trap_port(&d, ORDMA_PORT_ARMED, KEY, 0), 0);
	sent = d.hal.tx_count;
	REQUIRE(pi_base(&d, pi));
	CHECK_EQ(set_with_key(&d, pi, KEY + 1), MAD_NO_REPLY);
	check_mkey_drop(&d);
	CHECK_EQ(d.hal.tx_count, sent + 1);
	mad = trap_sent(&d);
	REQUIRE(mad);
	tid = rd64(mad, MAD_TID);
	n = mad + SMP_DATA;
	CHECK_EQ(n[0], 0x82);			/* generic, security */
	CHECK_EQ(rd16(n, 4), 256);
	CHECK_EQ(rd16(n, NT_DETAILS + 2), 1);
	CHECK_EQ(n[NT_DETAILS + 6], METHOD_SET);
	CHECK_EQ(rd16(n, NT_DETAILS + 8), ATTR_PORT_INFO);
	CHECK_EQ(rd32(n, NT_DETAILS + 10), 0);
	CHECK_EQ(rd64(n, NT_DETAILS + 14), KEY + 1);
	CHECK_EQ(n[NT_DETAILS + 23], 0);	/* not directed route */

	/* a TrapRepress needs the M_Key too: a violation, not a repress */
	CHECK_EQ(trap_repress(&d, tid, KEY + 2), MAD_NO_REPLY);
	check_mkey_drop(&d);
	CHECK_EQ(trap_repress(&d, tid, KEY), MAD_NO_REPLY);
	CHECK_EQ(mad_drop(&d), ORDMA_MAD_DROP_NONE);
	/* the violating repress raised a trap of its own, sent when due */
	fake_advance(&d.hal, TRAP_PERIOD_NS + 1);
	CHECK_EQ(d.hal.tx_count, sent + 2);
	mad = trap_sent(&d);
	REQUIRE(mad);
	CHECK_EQ(mad[SMP_DATA + NT_DETAILS + 6], 0x07);
	CHECK_EQ(rd64(mad, SMP_DATA + NT_DETAILS + 14), KEY + 2);
	CHECK_EQ(trap_repress(&d, rd64(mad, MAD_TID), KEY), MAD_NO_REPLY);

	/* directed route, protection level 2: the DR SLID and return path */
	REQUIRE_EQ(trap_port(&d, 0, KEY, 2), 0);
	sent = d.hal.tx_count;
	mad_build(&d, CLASS_SUBN_DR, METHOD_GET, ATTR_NODE_INFO, 0);
	mad_in(&d)[MAD_HOP_PTR] = 2;
	mad_in(&d)[MAD_HOP_CNT] = 2;
	mad_in(&d)[SMP_RETURN_PATH + 1] = 5;
	wr16(mad_in(&d), SMP_DR_SLID, 0x44);
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	check_mkey_drop(&d);
	/* nothing pending: sent at once */
	CHECK_EQ(d.hal.tx_count, sent + 1);
	mad = trap_sent(&d);
	REQUIRE(mad);
	n = mad + SMP_DATA;
	CHECK_EQ(n[NT_DETAILS + 6], METHOD_GET);
	CHECK_EQ(rd16(n, NT_DETAILS + 8), ATTR_NODE_INFO);
	CHECK_EQ(rd16(n, NT_DETAILS + 4), 0x44);
	CHECK_EQ(n[NT_DETAILS + 23], 0x80 | 2);	/* DR, two hops */
	CHECK_EQ(n[NT_DETAILS + 24], 5);
	CHECK_EQ(n[NT_DETAILS + 25], 1);	/* arrived on port 1 */
	drv_close(&d);
}

/* A flood of bad M_Keys (or of new descriptions) costs one trap per
 * subnet timeout, the latest
 */
TEST(test_sma_trap_flood)
{
	unsigned long sent;
	const uint8_t *mad;
	uint8_t pi[64];
	unsigned int i;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(trap_port(&d, ORDMA_PORT_ARMED, KEY, 0), 0);
	REQUIRE(pi_base(&d, pi));
	sent = d.hal.tx_count;
	for (i = 0; i < 100; i++) {
		CHECK_EQ(set_with_key(&d, pi, i), MAD_NO_REPLY);
		CHECK_EQ(set_node_desc(&d, i % 2 ? "odd" : "even", 64, 1),
			 ORDMA_CMD_STATUS_OK);
	}
	CHECK_EQ(d.hal.tx_count, sent + 2);	/* one 256, one 144 */
	fake_advance(&d.hal, TRAP_PERIOD_NS + 1);
	CHECK_EQ(d.hal.tx_count, sent + 4);
	/* the 256 goes last, the last violation's */
	mad = trap_sent(&d);
	REQUIRE(mad);
	CHECK_EQ(rd16(mad, SMP_DATA + 4), 256);
	CHECK_EQ(rd64(mad, SMP_DATA + NT_DETAILS + 14), 99);
	REQUIRE(pi_get(&d, pi));
	CHECK_EQ(rd16(pi, PI_MKEY_VIOL), 100);
	drv_close(&d);
}
