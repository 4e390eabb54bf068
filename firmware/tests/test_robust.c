// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Randomised robustness: seeded, deterministic streams of mutated admin
 * commands, doorbells, register writes, host memory garbage and frames.
 * The firmware must never crash or trip the sanitizers, every command must
 * complete, and the device must answer QUERY_FW at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "drv.h"
#include "tap.h"

#define ROBUST_SEED		0x0d3a5eed0d3a5eedULL
#define ROBUST_ITERATIONS	6000

struct rng {
	uint64_t state;
};

/* xorshift64*: small, good enough, identical on every host */
static uint64_t rng_next(struct rng *r)
{
	r->state ^= r->state >> 12;
	r->state ^= r->state << 25;
	r->state ^= r->state >> 27;
	return r->state * 0x2545f4914f6cdd1dULL;
}

static uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(rng_next(r) % n);
}

static bool rng_chance(struct rng *r, unsigned int percent)
{
	return rng_below(r, 100) < percent;
}

static void rng_fill(struct rng *r, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len--)
		*p++ = (uint8_t)rng_next(r);
}

static const uint8_t robust_opcodes[] = {
	ORDMA_CMD_QUERY_FW, ORDMA_CMD_QUERY_DEVICE, ORDMA_CMD_QUERY_PORT,
	ORDMA_CMD_SET_PORT, ORDMA_CMD_HEALTH, ORDMA_CMD_QUERY_STATS,
	ORDMA_CMD_CREATE_EQ, ORDMA_CMD_DESTROY_EQ, ORDMA_CMD_CREATE_ETH_RING,
	ORDMA_CMD_DESTROY_ETH_RING, ORDMA_CMD_ADD_GID, ORDMA_CMD_DEL_GID,
	ORDMA_CMD_ALLOC_UCTX, ORDMA_CMD_DEALLOC_UCTX, ORDMA_CMD_ALLOC_PD,
	ORDMA_CMD_DEALLOC_PD, ORDMA_CMD_CREATE_QP, 0x00, 0x7f,
};

static uint64_t random_buf_addr(struct rng *r)
{
	switch (rng_below(r, 8)) {
	case 0:
		return DRV_BAD_ADDR;
	case 1:
		return DRV_BUF_ADDR + rng_below(r, 8);
	case 2:
		return FAKE_MEM_END - 8 * rng_below(r, 64);
	case 3:
		return rng_next(r);
	default:
		return DRV_BUF_ADDR;
	}
}

static void random_query(struct rng *r, struct ordma_aq_cmd *cmd,
			 uint32_t port)
{
	cmd->query.buf_addr = cpu_to_le64(random_buf_addr(r));
	cmd->query.buf_len = cpu_to_le32(rng_chance(r, 90) ?
					 1 + rng_below(r, 4096) :
					 (uint32_t)rng_next(r));
	cmd->query.port = cpu_to_le32(rng_chance(r, 90) ? port : rng_below(r, 3));
}

static void random_set_port(struct rng *r, struct ordma_aq_cmd *cmd)
{
	struct ordma_cmd_set_port *p = &cmd->set_port;
	uint32_t mask = 1 + rng_below(r, 15);

	p->port = cpu_to_le32(1);
	p->field_mask = cpu_to_le32(mask);
	if (mask & ORDMA_SET_PORT_MTU)
		p->mtu = cpu_to_le32(68 + rng_below(r, 9000 - 67));
	if (mask & ORDMA_SET_PORT_MAC) {
		rng_fill(r, p->mac, 6);
		p->mac[0] &= 0xfe;
		p->mac[0] |= 0x02;
	}
	if (mask & ORDMA_SET_PORT_ADMIN)
		p->admin_up = rng_chance(r, 80);
	if (mask & ORDMA_SET_PORT_RX_MODE)
		p->rx_mode = (uint8_t)rng_below(r, 4);
}

static void random_add_gid(struct rng *r, struct ordma_aq_cmd *cmd)
{
	struct ordma_cmd_add_gid *g = &cmd->add_gid;

	g->index = cpu_to_le32(rng_below(r, 17));
	g->type = rng_chance(r, 95) ? ORDMA_GID_TYPE_ROCE_V2 : 0;
	g->vlan_id = cpu_to_le16(rng_chance(r, 50) ? ORDMA_VLAN_NONE :
				 (uint16_t)rng_below(r, 4097));
	memset(g->gid, 0, 16);
	if (rng_chance(r, 50)) {
		g->gid[10] = g->gid[11] = 0xff;
		g->gid[12] = 10;
		g->gid[15] = (uint8_t)rng_below(r, 4);
	} else {
		g->gid[0] = 0xfe;
		g->gid[1] = 0x80;
		g->gid[15] = (uint8_t)rng_below(r, 4);
	}
	g->mac[0] = 0x02;
	g->mac[5] = 1;
}

/* A command that is valid or nearly so for its opcode */
static void random_command(struct rng *r, struct ordma_aq_cmd *cmd)
{
	uint8_t op = robust_opcodes[rng_below(r, sizeof(robust_opcodes))];

	drv_cmd_init(cmd, op);
	switch (op) {
	case ORDMA_CMD_QUERY_DEVICE:
		random_query(r, cmd, 0);
		break;
	case ORDMA_CMD_QUERY_PORT:
	case ORDMA_CMD_QUERY_STATS:
		random_query(r, cmd, 1);
		break;
	case ORDMA_CMD_SET_PORT:
		random_set_port(r, cmd);
		break;
	case ORDMA_CMD_CREATE_EQ:
		cmd->create_eq.ring_addr = cpu_to_le64(DRV_EQ_ADDR(rng_below(r, 32)));
		cmd->create_eq.log_size = (uint8_t)(4 + rng_below(r, 9));
		cmd->create_eq.type = (uint8_t)rng_below(r, 2);
		cmd->create_eq.vector = cpu_to_le16(cmd->create_eq.type ?
						    rng_below(r, 9) : 0);
		break;
	case ORDMA_CMD_CREATE_ETH_RING:
		cmd->eth_ring.ring_addr = cpu_to_le64(DRV_RING_ADDR(rng_below(r, 8)));
		cmd->eth_ring.log_size = (uint8_t)(4 + rng_below(r, 9));
		cmd->eth_ring.type = (uint8_t)rng_below(r, 2);
		cmd->eth_ring.eqn = cpu_to_le32(rng_below(r, 34));
		break;
	case ORDMA_CMD_ADD_GID:
		random_add_gid(r, cmd);
		break;
	case ORDMA_CMD_DESTROY_EQ:
	case ORDMA_CMD_DESTROY_ETH_RING:
	case ORDMA_CMD_DEL_GID:
	case ORDMA_CMD_DEALLOC_UCTX:
		cmd->handle.handle = cpu_to_le32(rng_below(r, 34));
		break;
	case ORDMA_CMD_ALLOC_PD:
		cmd->alloc_pd.uctx = cpu_to_le32(rng_below(r, 6));
		break;
	case ORDMA_CMD_DEALLOC_PD:
		cmd->handle.handle = cpu_to_le32(rng_below(r, 24));
		cmd->handle.uctx = cpu_to_le32(rng_below(r, 6));
		break;
	default:
		break;
	}
}

static void mutate_command(struct rng *r, struct ordma_aq_cmd *cmd)
{
	uint8_t *raw = (uint8_t *)cmd;
	unsigned int n;

	if (rng_chance(r, 5)) {
		rng_fill(r, cmd, sizeof(*cmd));
		return;
	}
	for (n = rng_below(r, 4); n; n--) {
		unsigned int at = rng_below(r, sizeof(*cmd));

		if (rng_chance(r, 50))
			raw[at] ^= (uint8_t)(1u << rng_below(r, 8));
		else
			raw[at] = (uint8_t)rng_next(r);
	}
}

/* Submit one command: it must complete with a defined status. */
static bool robust_exec(struct drv *d, struct ordma_aq_cmd *cmd)
{
	uint8_t status = drv_exec(d, cmd);

	if (!CHECK(status <= ORDMA_CMD_STATUS_INTERNAL))
		return false;
	if (status == ORDMA_CMD_STATUS_BAD_PARAM && !CHECK(drv_syndrome(d) < 64))
		return false;
	return true;
}

static void random_doorbell(struct rng *r, struct drv *d)
{
	static const uint32_t regs[] = {
		ORDMA_DB_SQ, ORDMA_DB_RQ, ORDMA_DB_SRQ, ORDMA_DB_CQ, ORDMA_DB_EQ,
		ORDMA_DB_ETH_PI, ORDMA_DB_ETH_ARM,
	};
	uint32_t page = rng_chance(r, 80) ? 0 : rng_below(r, 300);
	uint32_t reg = rng_chance(r, 90) ? regs[rng_below(r, 7)] :
					   rng_below(r, 4096);
	unsigned int size = rng_chance(r, 95) ? 8 : 1 + rng_below(r, 8);
	uint64_t val;

	if (rng_chance(r, 80)) {
		val = FIELD_PREP(ORDMA_DB_QN, (uint64_t)rng_below(r, 10)) |
		      FIELD_PREP(ORDMA_DB_IDX, (uint64_t)rng_below(r, 40)) |
		      (rng_chance(r, 50) ? ORDMA_DB_ARM : 0);
	} else {
		val = rng_next(r);
	}
	ordma_fw_db_write(d->fw, (uint64_t)page << 12 | reg, val, size);
}

static size_t random_frame(struct rng *r, struct drv *d, uint8_t *buf,
			   size_t cap)
{
	static const uint8_t ip4[4] = { 10, 0, 0, 1 };
	static const uint8_t ip6[16] = { 0xfe, 0x80, [15] = 1 };
	size_t len;

	switch (rng_below(r, 6)) {
	case 0:
		len = drv_build_udp4(buf, d->cfg.mac, ip4, 4791, rng_chance(r, 30));
		break;
	case 1:
		len = drv_build_udp6(buf, d->cfg.mac, ip6, 4791);
		break;
	case 2:
		len = drv_build_frame(buf, drv_bcast_mac, d->cfg.mac, 0x0806,
				      rng_below(r, 200));
		break;
	case 3:
		len = drv_build_frame(buf, d->cfg.mac, drv_bcast_mac, 0x0800,
				      rng_below(r, 1600));
		break;
	default:
		len = rng_below(r, (uint32_t)cap);
		rng_fill(r, buf, len);
		return len;
	}
	if (rng_chance(r, 50))
		buf[rng_below(r, (uint32_t)len)] = (uint8_t)rng_next(r);
	if (rng_chance(r, 10))
		len = rng_below(r, (uint32_t)len + 1);
	return len;
}

/* Host memory the device reads: rings, EQs, descriptors, buffers */
static void scribble(struct rng *r, struct drv *d)
{
	uint64_t base;
	size_t len = 1 + rng_below(r, 256);

	switch (rng_below(r, 3)) {
	case 0:
		base = DRV_EQ_ADDR(rng_below(r, 32));
		break;
	case 1:
		base = DRV_RING_ADDR(rng_below(r, 8));
		break;
	default:
		base = DRV_FRAME_ADDR(rng_below(r, 8), rng_below(r, 64));
		break;
	}
	base += rng_below(r, 0x10000 - 256);
	rng_fill(r, drv_mem(d, base, len), len);
}

/* Valid descriptors in every ring area so that doorbells find work */
static void post_plausible_descriptors(struct rng *r, struct drv *d)
{
	unsigned int area = rng_below(r, 8), i;

	for (i = 0; i < 64; i++) {
		struct ordma_eth_desc *desc =
			drv_mem(d, DRV_RING_ADDR(area) + i * 16, 16);

		desc->addr = cpu_to_le64(DRV_FRAME_ADDR(area, i));
		desc->len_flags = cpu_to_le32(60 + rng_below(r, 2000));
		desc->reserved_12 = 0;
	}
}

static void random_register_write(struct rng *r, struct drv *d)
{
	static const uint32_t offs[] = {
		ORDMA_REG_VERSION, ORDMA_REG_CTRL, ORDMA_REG_STATUS,
		ORDMA_REG_HEARTBEAT, ORDMA_REG_AQ_BASE_LO, ORDMA_REG_AQ_CFG,
		ORDMA_REG_SCRATCH, 0x100, ORDMA_REG_AQ_DB,
	};
	uint32_t off = offs[rng_below(r, sizeof(offs) / sizeof(offs[0]))];
	uint32_t val = (uint32_t)rng_next(r);
	bool anywhere = rng_chance(r, 5);

	if (anywhere)
		ordma_fw_reg_write(d->fw, rng_below(r, 0x5000), val,
				   1 + rng_below(r, 8));
	else
		ordma_fw_reg_write(d->fw, off, val, 4);
	(void)ordma_fw_reg_read(d->fw, rng_below(r, 0x4100),
				1 + rng_below(r, 8));
	/* the driver's view of the AQ may be lost: start over like a
	 * driver that detected it
	 */
	if (anywhere || off == ORDMA_REG_AQ_DB || off == ORDMA_REG_CTRL ||
	    drv_rd(d, ORDMA_REG_STATUS) != ORDMA_STATUS_READY) {
		drv_wr(d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
		CHECK(drv_enable(d, d->log_depth));
	}
}

static void robust_actions(struct drv *d, struct rng *r, unsigned int count,
			   uint8_t *frame, size_t frame_cap)
{
	struct ordma_aq_cmd cmd;
	unsigned int i, failures = 0;

	for (i = 0; i < count && failures < 5; i++) {
		unsigned int action = rng_below(r, 100);

		if (action < 40) {
			random_command(r, &cmd);
			if (rng_chance(r, 60))
				mutate_command(r, &cmd);
			failures += !robust_exec(d, &cmd);
		} else if (action < 60) {
			random_doorbell(r, d);
		} else if (action < 80) {
			ordma_fw_rx_frame(d->fw, frame,
					  random_frame(r, d, frame, frame_cap));
		} else if (action < 86) {
			scribble(r, d);
		} else if (action < 90) {
			post_plausible_descriptors(r, d);
		} else if (action < 93) {
			ordma_fw_set_link(d->fw, rng_chance(r, 70));
		} else if (action < 97) {
			fake_advance(&d->hal, rng_below(r, 30000000));
		} else {
			random_register_write(r, d);
		}
		failures += drv_rd(d, ORDMA_REG_STATUS) != ORDMA_STATUS_READY;
	}
	CHECK_EQ(failures, 0);
}

static void check_still_answers(struct drv *d)
{
	struct ordma_comp_health h;

	CHECK_EQ(d->hal.msix_bad_vector, 0);
	CHECK_EQ(d->hal.tx_bad_len, 0);
	CHECK_EQ(drv_rd(d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	CHECK_EQ(drv_simple(d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le16_to_cpu(d->last_comp.query_fw.major), 1);
	CHECK_EQ(drv_health(d, &h), ORDMA_CMD_STATUS_OK);
	/* and after a full reset, as a driver reload would do */
	drv_wr(d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	CHECK(drv_enable(d, d->log_depth));
	CHECK_EQ(drv_simple(d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_health(d, &h), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(h.state), ORDMA_HEALTH_OK);
}

static void test_random_device_storm(void)
{
	static uint8_t frame[9300];
	struct drv_eq async, comp;
	struct drv_ring tx, rx;
	struct rng r = { ROBUST_SEED };
	struct drv d;

	REQUIRE(drv_open(&d, 5));
	REQUIRE(drv_eq_open(&d, &async, ORDMA_EQ_TYPE_ASYNC, 0, 8));
	REQUIRE(drv_eq_open(&d, &comp, ORDMA_EQ_TYPE_COMP, 1, 6));
	REQUIRE(drv_ring_open(&d, &tx, ORDMA_ETH_RING_TX, 6, comp.eqn));
	REQUIRE(drv_ring_open(&d, &rx, ORDMA_ETH_RING_RX, 6, comp.eqn));
	REQUIRE_EQ(drv_port_up(&d), ORDMA_CMD_STATUS_OK);
	drv_rx_post(&d, &rx, 64, 2048);

	robust_actions(&d, &r, ROBUST_ITERATIONS, frame, sizeof(frame));
	check_still_answers(&d);
	drv_close(&d);
}

/* Every opcode, each byte of the entry mutated in turn. */
static void test_every_byte_of_every_opcode(void)
{
	struct ordma_aq_cmd cmd, base;
	struct rng r = { ROBUST_SEED ^ 1 };
	struct drv d;
	unsigned int op, byte, failures = 0;

	REQUIRE(drv_open(&d, 3));
	for (op = 0; op < sizeof(robust_opcodes); op++) {
		do
			random_command(&r, &base);
		while (base.hdr.opcode != robust_opcodes[op]);
		for (byte = 0; byte < sizeof(cmd) && failures < 5; byte++) {
			cmd = base;
			((uint8_t *)&cmd)[byte] ^= (uint8_t)(1 + rng_below(&r, 255));
			failures += !robust_exec(&d, &cmd);
		}
	}
	CHECK_EQ(failures, 0);
	check_still_answers(&d);
	drv_close(&d);
}

/* A small admin queue and a tiny doorbell BAR under the same storm */
static void test_random_storm_small_device(void)
{
	static uint8_t frame[2048];
	struct ordma_fw_config cfg;
	struct rng r = { ROBUST_SEED ^ 2 };
	struct drv d;

	drv_default_config(&cfg);
	cfg.num_vectors = 2;
	cfg.num_db_pages = 2;
	REQUIRE(drv_open_cfg(&d, &cfg, 1));
	robust_actions(&d, &r, ROBUST_ITERATIONS / 2, frame, sizeof(frame));
	check_still_answers(&d);
	drv_close(&d);
}

const struct tap_test robust_tests[] = {
	TAP_TEST(test_random_device_storm),
	TAP_TEST(test_every_byte_of_every_opcode),
	TAP_TEST(test_random_storm_small_device),
	TAP_END,
};
