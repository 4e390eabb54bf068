// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The firmware trace (struct ordma_fw_trace): a scripted exchange between
 * two devices, one SEND and one RDMA READ whose response the wire loses,
 * must show the engine's events in the order they happen on both ends,
 * the READ request sent again after the ACK timeout included.
 *
 * With ORDMA_TRACE_EXCHANGE_DIR set, the test also writes what a host
 * would: each device's trace file (trace/ordma_trace_file.h) and each
 * port's pcapng capture, on one clock, for tools/diag/ordma-trace
 * (tests/trace/timeline.sh checks the timeline it makes of them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"
#include "trace/ordma_trace_file.h"
#include "ordma-pcap-format.h"

#define TL_MAX_EVENTS	4096
#define TL_EPOCH_NS	1800000000000000000ULL
#define TL_BUF		(FAKE_FRAME_MAX + 256)

/* BTH opcodes of the exchange (RC) */
#define BTH_SEND_ONLY		0x04
#define BTH_READ_REQUEST	0x0c
#define BTH_READ_RESP_ONLY	0x10
#define BTH_ACK			0x11

struct tl_event {
	int side;
	struct ordma_fw_trace rec;
};

struct timeline {
	struct env *env;
	uint64_t last_ns;
	struct tl_event ev[TL_MAX_EVENTS];
	unsigned int n;
	unsigned int overflow;
	/* per side: the files, when asked for */
	FILE *fwtrace[2];
	FILE *pcap[2];
	struct tl_side {
		struct timeline *tl;
		int side;
	} sides[2];
};

/* A host clock both devices share: never back, one tick per event */
static uint64_t tl_clock(struct timeline *tl)
{
	uint64_t a = tl->env->s[0].d.hal.now_ns;
	uint64_t b = tl->env->s[1].d.hal.now_ns;
	uint64_t t = TL_EPOCH_NS + (a > b ? a : b);

	if (t <= tl->last_ns)
		t = tl->last_ns + 1;
	tl->last_ns = t;
	return t;
}

static void tl_record(void *arg, const struct ordma_fw_trace *rec)
{
	struct tl_side *ts = arg;
	struct timeline *tl = ts->tl;
	uint64_t t = tl_clock(tl);

	if (tl->n < TL_MAX_EVENTS)
		tl->ev[tl->n++] = (struct tl_event){ ts->side, *rec };
	else
		tl->overflow++;
	if (tl->fwtrace[ts->side]) {
		uint8_t out[ORDMA_TRACE_FILE_REC_SIZE];

		ordma_trace_file_record(out, t, rec);
		fwrite(out, sizeof(out), 1, tl->fwtrace[ts->side]);
	}
}

static void tl_frame(struct timeline *tl, int side, unsigned int dir,
		     const void *frame, size_t len, const char *comment)
{
	static uint8_t buf[TL_BUF];
	uint64_t t = tl_clock(tl);
	size_t n;

	if (!tl->pcap[side])
		return;
	n = ordma_pcap_epb(buf, sizeof(buf), 0, t, dir, frame, len, 0,
			   comment);
	if (n)
		fwrite(buf, n, 1, tl->pcap[side]);
}

/* What side i transmits: onto its wire, which may lose it */
static void tl_tx(void *arg, const void *frame, size_t len)
{
	struct tl_side *ts = arg;
	struct link *l = &ts->tl->env->l[ts->side];
	unsigned long dropped = l->dropped;

	link_tx_hook(l, frame, len);
	tl_frame(ts->tl, ts->side, ORDMA_PCAP_DIR_OUT, frame, len,
		 l->dropped != dropped ? "loss" : NULL);
}

/* What the wire of side i hands to the other side */
static void tl_rx(void *arg, const void *frame, size_t len)
{
	struct tl_side *ts = arg;

	tl_frame(ts->tl, 1 - ts->side, ORDMA_PCAP_DIR_IN, frame, len, NULL);
}

static FILE *tl_open(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		NOTE("cannot create %s", path);
	return f;
}

static void tl_open_files(struct timeline *tl, const char *dir)
{
	static const char *const dev[2] = { "ordma-a", "ordma-b" };
	static const char *const fw[2] = { "a.fwtrace", "b.fwtrace" };
	static const char *const cap[2] = { "a.pcapng", "b.pcapng" };
	uint8_t buf[512];
	size_t n;
	int i;

	for (i = 0; i < 2; i++) {
		tl->fwtrace[i] = tl_open(dir, fw[i]);
		tl->pcap[i] = tl_open(dir, cap[i]);
		if (tl->fwtrace[i]) {
			ordma_trace_file_header(buf, dev[i]);
			fwrite(buf, ORDMA_TRACE_FILE_HDR_SIZE, 1,
			       tl->fwtrace[i]);
		}
		if (tl->pcap[i]) {
			n = ordma_pcap_shb(buf, sizeof(buf), "ordma fw_tests");
			fwrite(buf, n, 1, tl->pcap[i]);
			n = ordma_pcap_idb(buf, sizeof(buf), dev[i], 0);
			fwrite(buf, n, 1, tl->pcap[i]);
		}
	}
}

static void tl_close_files(struct timeline *tl)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (tl->fwtrace[i])
			CHECK(fclose(tl->fwtrace[i]) == 0);
		if (tl->pcap[i])
			CHECK(fclose(tl->pcap[i]) == 0);
	}
}

static void tl_attach(struct timeline *tl, struct env *e)
{
	int i;

	tl->env = e;
	for (i = 0; i < 2; i++) {
		tl->sides[i] = (struct tl_side){ tl, i };
		e->s[i].d.hal.fw_trace_hook = tl_record;
		e->s[i].d.hal.fw_trace_hook_arg = &tl->sides[i];
		e->s[i].d.hal.tx_hook = tl_tx;
		e->s[i].d.hal.tx_hook_arg = &tl->sides[i];
		e->l[i].rx_hook = tl_rx;
		e->l[i].rx_hook_arg = &tl->sides[i];
	}
}

/* One step the timeline must show; opcode/status -1: any */
struct tl_want {
	int side;
	uint16_t kind;
	int opcode;
	uint32_t psn_off;	/* from the first PSN of the exchange */
	int status;
	const char *what;
};

static bool tl_matches(const struct tl_event *ev, const struct tl_want *w,
		       uint32_t qpn, uint32_t psn)
{
	bool has_psn = w->kind == ORDMA_FW_TRACE_WQE ||
		       w->kind == ORDMA_FW_TRACE_TX ||
		       w->kind == ORDMA_FW_TRACE_RX ||
		       w->kind == ORDMA_FW_TRACE_RETRANSMIT;

	return ev->side == w->side && ev->rec.kind == w->kind &&
	       ev->rec.qpn == qpn &&
	       (w->opcode < 0 || ev->rec.opcode == w->opcode) &&
	       (w->status < 0 || ev->rec.status == w->status) &&
	       (!has_psn || ev->rec.psn == ((psn + w->psn_off) & 0xffffff));
}

TEST(test_trace_exchange)
{
	static const struct tl_want want[] = {
		{ 0, ORDMA_FW_TRACE_WQE, ORDMA_WQE_SEND, 0, -1, "A starts the SEND" },
		{ 0, ORDMA_FW_TRACE_TX, BTH_SEND_ONLY, 0, 0, "A sends SEND_ONLY" },
		{ 1, ORDMA_FW_TRACE_RX, BTH_SEND_ONLY, 0, 0, "B receives it" },
		{ 1, ORDMA_FW_TRACE_CQE, ORDMA_CQE_OP_RECV, 0, ORDMA_CQE_SUCCESS,
		  "B completes the receive" },
		{ 1, ORDMA_FW_TRACE_TX, BTH_ACK, 0, -1, "B acknowledges" },
		{ 0, ORDMA_FW_TRACE_RX, BTH_ACK, 0, -1, "A receives the ACK" },
		{ 0, ORDMA_FW_TRACE_CQE, ORDMA_CQE_OP_SEND, 0, ORDMA_CQE_SUCCESS,
		  "A completes the SEND" },
		{ 0, ORDMA_FW_TRACE_WQE, ORDMA_WQE_RDMA_READ, 1, -1,
		  "A starts the READ" },
		{ 0, ORDMA_FW_TRACE_TX, BTH_READ_REQUEST, 1, 0,
		  "A sends the READ request" },
		{ 1, ORDMA_FW_TRACE_RX, BTH_READ_REQUEST, 1, 0, "B receives it" },
		{ 1, ORDMA_FW_TRACE_TX, BTH_READ_RESP_ONLY, 1, -1,
		  "B answers (the wire loses it)" },
		{ 0, ORDMA_FW_TRACE_RETRANSMIT, -1, 1,
		  ORDMA_FW_TRACE_REXMIT_TIMEOUT, "A times out and goes back" },
		{ 0, ORDMA_FW_TRACE_TX, BTH_READ_REQUEST, 1, 0,
		  "A sends the READ request again" },
		{ 1, ORDMA_FW_TRACE_RX, BTH_READ_REQUEST, 1, 0,
		  "B receives the duplicate" },
		{ 1, ORDMA_FW_TRACE_TX, BTH_READ_RESP_ONLY, 1, -1,
		  "B answers again" },
		{ 0, ORDMA_FW_TRACE_RX, BTH_READ_RESP_ONLY, 1, -1,
		  "A receives the response" },
		{ 0, ORDMA_FW_TRACE_CQE, ORDMA_CQE_OP_RDMA_READ, 0,
		  ORDMA_CQE_SUCCESS, "A completes the READ" },
	};
	const char *dir = getenv("ORDMA_TRACE_EXCHANGE_DIR");
	struct timeline *tl = calloc(1, sizeof(*tl));
	unsigned int i, k = 0, placed = 0;
	struct side *a, *b;
	struct env e;
	struct tcfg c;
	struct wr w;
	uint32_t psn;

	REQUIRE(tl);
	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	psn = c.psn[0];
	tl_attach(tl, &e);
	if (dir)
		tl_open_files(tl, dir);

	pattern(mem(a, MR1_ADDR, 64), 64, 3);
	pattern(mem(b, MR1_ADDR + 0x1000, 256), 256, 4);
	post_recv(b, MR1_ADDR + 0x8000, 64);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 64, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 64, 0);

	e.l[1].drop_nth = e.l[1].sent + 1;	/* the READ response */
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x2000, 256, a->key1);
	w.remote_addr = MR1_ADDR + 0x1000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 10000000);		/* past the 4.2 ms ACK timeout */
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 256, 1);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x2000, 256),
		      mem(b, MR1_ADDR + 0x1000, 256), 256));

	CHECK_EQ(tl->overflow, 0);
	for (i = 0; i < tl->n && k < ARRAY_SIZE(want); i++) {
		const struct tl_want *step = &want[k];

		if (tl_matches(&tl->ev[i], step,
			       step->side ? b->qpn : a->qpn, psn))
			k++;
	}
	if (k < ARRAY_SIZE(want))
		NOTE("the trace lacks step %u: %s", k, want[k].what);
	CHECK_EQ(k, ARRAY_SIZE(want));

	/* B placed the SEND's payload by DMA, working for its QP */
	for (i = 0; i < tl->n; i++) {
		const struct ordma_fw_trace *r = &tl->ev[i].rec;

		if (tl->ev[i].side == 1 && r->kind == ORDMA_FW_TRACE_DMA_WRITE &&
		    r->qpn == b->qpn && r->addr == MR1_ADDR + 0x8000 &&
		    r->len == 64 && !r->status)
			placed++;
	}
	CHECK_EQ(placed, 1);
	CHECK(a->d.hal.fw_trace_count >= tl->n / 2);
	if (dir)
		tl_close_files(tl);
	env_close(&e);
	free(tl);
}

/* Every QP state change is in the trace, with the state it left */
TEST(test_trace_qp_states)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	uint8_t seen[8] = { 0 };
	struct env e;
	struct tcfg c;
	unsigned int i;

	REQUIRE(tl);
	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	tl_attach(tl, &e);
	CHECK_EQ(qp_step(&e, 0, ORDMA_QPS_RTS, ORDMA_QPS_ERR, &c), OK);
	CHECK_EQ(qp_step(&e, 0, ORDMA_QPS_ERR, ORDMA_QPS_RESET, &c), OK);
	for (i = 0; i < tl->n; i++) {
		const struct ordma_fw_trace *r = &tl->ev[i].rec;

		if (tl->ev[i].side || r->kind != ORDMA_FW_TRACE_QP_STATE ||
		    r->qpn != e.s[0].qpn)
			continue;
		if (r->opcode == ORDMA_QPS_RTS && r->status == ORDMA_QPS_ERR)
			seen[0]++;
		if (r->opcode == ORDMA_QPS_ERR && r->status == ORDMA_QPS_RESET)
			seen[1]++;
	}
	CHECK_EQ(seen[0], 1);
	CHECK_EQ(seen[1], 1);
	/* the admin commands that did it are there too, successful */
	for (i = 0; i < tl->n; i++)
		if (tl->ev[i].rec.kind == ORDMA_FW_TRACE_ADMIN &&
		    tl->ev[i].rec.status == ORDMA_CMD_STATUS_OK)
			seen[2]++;
	CHECK_EQ(seen[2], 2);
	env_close(&e);
	free(tl);
}

/*
 * A frame that fails its ICRC is dropped by the parser, and its record
 * still names the QP and PSN of its BTH: a filter by either finds it.
 */
TEST(test_trace_icrc_drop_names_its_bth)
{
	struct timeline *tl = calloc(1, sizeof(*tl));
	const struct fake_frame *sent;
	uint8_t frame[FAKE_FRAME_MAX];
	unsigned int i, found = 0;
	struct side *a, *b;
	struct env e;
	struct tcfg c;
	struct wr w;

	REQUIRE(tl);
	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	tl_attach(tl, &e);
	post_recv(b, MR1_ADDR + 0x8000, 64);
	e.l[0].drop_nth = e.l[0].sent + 1;	/* B gets the copy below only */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
	post(a, &w);
	pump(&e);
	sent = fake_last_tx(&a->d.hal);
	REQUIRE(sent && sent->len <= sizeof(frame) && sent->len > 42);
	memcpy(frame, sent->data, sent->len);
	/* no UDP checksum (IPv4 allows it) to catch the ICRC's bad byte */
	frame[40] = 0;
	frame[41] = 0;
	frame[sent->len - 1] ^= 0x10;
	ordma_fw_rx_frame(b->d.fw, frame, sent->len);
	for (i = 0; i < tl->n; i++) {
		const struct ordma_fw_trace *r = &tl->ev[i].rec;

		if (tl->ev[i].side == 1 && r->kind == ORDMA_FW_TRACE_RX_DROP &&
		    r->status == ORDMA_FW_TRACE_DROP_PARSE &&
		    r->aux == FW_ROCE_DROP_ICRC && r->qpn == b->qpn &&
		    r->psn == c.psn[0] && r->opcode == BTH_SEND_ONLY)
			found++;
	}
	CHECK_EQ(found, 1);
	no_cqe(b, false);
	env_close(&e);
	free(tl);
}
