// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer harness: a peer that speaks TCP correctly and MPA however the
 * input says, against a device running iWARP connections (the IW_*
 * commands, tcp/fw_iw_conn.c).
 *
 * Device B is the one under test: an iWARP port with an IP address, a
 * listener and RC QPs in RTR.  Device A is the peer: its TCP offload is
 * driven directly (fw_tcp.h), so its segments are real TCP and what the
 * input controls is the byte stream B's MPA layer parses (requests,
 * replies, RTRs, FPDUs, garbage, cut anywhere) and when the peer closes
 * or resets.  The first input byte chooses who connects: A to B's
 * listener, or B (IW_CONNECT) to a TCP listener of A's.  Then records:
 * raw bytes to send, an MPA message built from fields, an RTR, B's
 * ACCEPT / REJECT / QUERY_CONN / DESTROY_CONN with fuzzed fields, the
 * peer's FIN or RST, a new peer connection, time passing.  Kind bytes
 * from 0xf0 on drive the data path once a connection is up: an FPDU
 * framed with a good CRC whose DDP/RDMAP header and payload come from
 * fields (opcode, T and L bits, versions, STag B's MR or any, TO, queue,
 * MSN, MO, length, a Read Request's body), a receive WQE posted on one
 * of B's QPs, a send WQE (Send, Send with Invalidate, Write, Read or any
 * opcode) posted on one.
 *
 * Checked: sanitizers; every command completes; B still answers its
 * driver and tears down cleanly at the end.
 */
#include <string.h>

#include "fw_priv.h"
#include "tcp/fw_tcp.h"
#include "wire/fw_iw_wire.h"
#include "../tests/drv.h"
#include "../tests/link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PORT_B		4420
#define PORT_A		5555
#define IP_A		0x0a000001u
#define PARAMS_ADDR	(DRV_BUF_ADDR + 0x3000)
#define NUM_QPS		3

enum { REC_RAW, REC_MPA, REC_RTR, REC_ACCEPT, REC_REJECT, REC_QUERY,
       REC_DESTROY, REC_PEER_FIN, REC_PEER_RST, REC_PEER_CONNECT,
       REC_TIME, REC_NUM };
/* kind bytes 0xf0 and up (older inputs keep their meaning below) */
#define REC_DATA_FIRST	0xf0
enum { REC_FPDU, REC_B_RECV, REC_B_SEND, REC_DATA_NUM };
#define MR_LEN		0x100000ULL

struct peer {
	uint32_t conn;			/* A's TCP connection to B */
	bool up;
};

static struct peer peer;
static uint32_t last_request;		/* B's latest request handle */

struct fz_in {
	const uint8_t *p;
	size_t left;
};

static bool take(struct fz_in *in, void *out, size_t len)
{
	if (in->left < len)
		return false;
	memcpy(out, in->p, len);
	in->p += len;
	in->left -= len;
	return true;
}

static uint8_t byte(struct fz_in *in)
{
	uint8_t b = 0;

	take(in, &b, 1);
	return b;
}

/* ------------------------------------------------------------------ */
/* A's TCP, as the peer                                                */
/* ------------------------------------------------------------------ */

static void peer_accepted(struct ordma_fw *fw, void *arg, uint32_t listener,
			  uint32_t conn)
{
	(void)fw;
	(void)arg;
	(void)listener;
	peer.conn = conn;
	peer.up = true;
}

static void peer_connected(struct ordma_fw *fw, void *arg, uint32_t conn,
			   int reason)
{
	(void)fw;
	(void)arg;
	peer.conn = conn;
	peer.up = !reason;
}

static void peer_recv(struct ordma_fw *fw, void *arg, uint32_t conn,
		      const void *data, size_t len)
{
	(void)fw;
	(void)arg;
	(void)conn;
	(void)data;
	(void)len;
}

static void peer_fin(struct ordma_fw *fw, void *arg, uint32_t conn)
{
	(void)fw;
	(void)arg;
	(void)conn;
}

static void peer_sent(struct ordma_fw *fw, void *arg, uint32_t conn,
		      uint32_t len)
{
	(void)fw;
	(void)arg;
	(void)conn;
	(void)len;
}

static void peer_closed(struct ordma_fw *fw, void *arg, uint32_t conn,
			enum fw_tcp_close_reason reason)
{
	(void)fw;
	(void)arg;
	(void)reason;
	if (conn == peer.conn)
		peer.up = false;
}

static const struct fw_tcp_user peer_user = {
	.accepted = peer_accepted,
	.connected = peer_connected,
	.recv = peer_recv,
	.peer_fin = peer_fin,
	.sent = peer_sent,
	.closed = peer_closed,
};

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

struct side {
	struct drv_verbs v;
	struct link out;
	uint8_t mac[6];
	uint8_t ip[16];
	uint32_t qpn[NUM_QPS];
	uint32_t sq_pi[NUM_QPS], rq_pi[NUM_QPS];
	uint32_t key;			/* an MR over DRV_MR_ADDR */
};

static bool side_open(struct side *s, int i)
{
	unsigned int q;

	memset(s, 0, sizeof(*s));
	if (!drv_iw_open_nth(&s->v, i, s->mac, s->ip))
		return false;
	s->v.d.hal.tx_hook = link_tx_hook;
	s->v.d.hal.tx_hook_arg = &s->out;
	for (q = 0; q < NUM_QPS; q++)
		if (!drv_iw_rtr_qp(&s->v, 2 + q, &s->qpn[q]))
			return false;
	return drv_reg_mr_contig(&s->v.d, s->v.pdn, 0, DRV_MR_ADDR,
				 DRV_MR_ADDR, MR_LEN,
				 ORDMA_ACCESS_LOCAL_WRITE |
				 ORDMA_ACCESS_REMOTE_WRITE |
				 ORDMA_ACCESS_REMOTE_READ, 0x33, &s->key) ==
	       ORDMA_CMD_STATUS_OK;
}

static void side_close(struct side *s)
{
	drv_close(&s->v.d);
	link_free(&s->out);
}

static void pump(struct side *a, struct side *b)
{
	bool busy;
	unsigned int guard = 0;

	do {
		busy = link_deliver(&a->out, b->v.d.fw);
		busy |= link_deliver(&b->out, a->v.d.fw);
	} while (busy && ++guard < 100000);
}

/* B's events: remember the latest request */
static void drain_events(struct side *b)
{
	struct ordma_eqe eqe;

	while (drv_eq_next(&b->v.d, &b->v.async, &eqe)) {
		if (FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe.type)) ==
		    ORDMA_EQE_IW_CONN_REQUEST)
			last_request = le32_to_cpu(eqe.data[0]);
		drv_eq_update(&b->v.d, &b->v.async, false);
	}
}

static void advance(struct side *a, struct side *b, uint64_t ns)
{
	fake_advance(&a->v.d.hal, ns);
	fake_advance(&b->v.d.hal, ns);
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

static void peer_send(struct side *a, const uint8_t *buf, size_t len)
{
	if (peer.up)
		fw_tcp_send(a->v.d.fw, peer.conn, buf, len);
}

static void rec_mpa(struct side *a, struct fz_in *in)
{
	uint8_t f[8] = { 0 }, pd[FW_MPA_MAX_PD], buf[sizeof(pd) + 32];
	struct fw_mpa_msg m;

	take(in, f, sizeof(f));
	memset(&m, 0, sizeof(m));
	m.kind = f[0] & 1 ? FW_MPA_REPLY : FW_MPA_REQUEST;
	m.flags = f[1];
	m.revision = f[2] % 4;
	m.ird = (uint16_t)(f[3] << 8 | f[4]);
	m.ord = (uint16_t)(f[5] << 8 | f[6]);
	m.pd_len = (uint16_t)(f[7] * 3 % (FW_MPA_MAX_PD - 4));
	memset(pd, 0x5a, m.pd_len);
	m.pd = pd;
	peer_send(a, buf, fw_mpa_build(buf, &m));
}

static void rec_params(struct side *b, struct fz_in *in, uint8_t opcode)
{
	struct ordma_iw_conn_params p;
	struct ordma_aq_cmd cmd;
	uint8_t f[6] = { 0 };

	take(in, f, sizeof(f));
	memset(&p, 0, sizeof(p));
	p.conn = cpu_to_le32(f[0] & 0x80 ? f[0] & 0x1f : last_request);
	if (opcode == ORDMA_CMD_IW_ACCEPT)
		p.qpn = cpu_to_le32(b->qpn[f[1] % NUM_QPS]);
	p.ird = cpu_to_le16(f[2]);
	p.ord = cpu_to_le16(f[3]);
	p.private_data_len = f[4];
	memset(p.private_data, f[5], sizeof(p.private_data));
	memcpy(drv_mem(&b->v.d, PARAMS_ADDR, sizeof(p)), &p, sizeof(p));
	drv_cmd_init(&cmd, opcode);
	cmd.buf.buf_addr = cpu_to_le64(PARAMS_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(p));
	drv_exec(&b->v.d, &cmd);
}

static void rec_conn_cmd(struct side *b, struct fz_in *in, uint8_t opcode)
{
	struct ordma_aq_cmd cmd;
	uint8_t f[2] = { 0 };

	take(in, f, sizeof(f));
	drv_cmd_init(&cmd, opcode);
	if (opcode == ORDMA_CMD_IW_QUERY_CONN) {
		cmd.buf.buf_addr = cpu_to_le64(PARAMS_ADDR);
		cmd.buf.buf_len = cpu_to_le32(sizeof(struct ordma_iw_conn_info));
		cmd.buf.handle = cpu_to_le32(f[0] & 0x80 ? f[0] & 0x1f :
					     last_request);
	} else {
		cmd.iw_conn.handle = cpu_to_le32(f[0] & 0x80 ? f[0] & 0x1f :
						 last_request);
		cmd.iw_conn.flags = cpu_to_le32(f[1] & 3);
	}
	drv_exec(&b->v.d, &cmd);
}

/* A DDP segment from fields, framed with a good CRC, to B */
static void rec_fpdu(struct side *a, struct side *b, struct fz_in *in)
{
	static uint8_t buf[FW_MPA_LEN_FIELD + FW_DDP_UNTAGGED_HLEN +
			   FW_RDMAP_RREQ_LEN + 2048 + 8];
	uint8_t f[10] = { 0 }, *seg = buf + FW_MPA_LEN_FIELD;
	struct fw_ddp_hdr h;
	size_t hlen, plen, i;
	uint32_t any;

	take(in, f, sizeof(f));
	any = (uint32_t)f[7] << 24 | (uint32_t)f[8] << 16 | f[9];
	memset(&h, 0, sizeof(h));
	h.opcode = f[0] & 7;
	h.tagged = (h.opcode == FW_RDMAP_WRITE ||
		    h.opcode == FW_RDMAP_READ_RESP) ^ !!(f[0] & 0x08);
	h.last = !(f[0] & 0x10);
	h.stag = f[1] & 0x80 ? any : b->key;
	/* 0x80 in f[2]: from where B's send WQEs gather and READs land */
	h.to = DRV_MR_ADDR + (f[2] & 0x80 ? 0x80000 : 0) +
	       ((uint64_t)(f[2] & 0x7f) << 8 | f[3]) * 40;
	h.qn = f[1] & 0x40 ? f[1] & 3 :
	       h.opcode == FW_RDMAP_READ_REQ ? FW_RDMAP_QN_READ_REQ :
	       h.opcode == FW_RDMAP_TERMINATE ? FW_RDMAP_QN_TERMINATE :
					     FW_RDMAP_QN_SEND;
	h.msn = f[4] & 0x80 ? any : f[4];
	h.mo = (uint32_t)f[5] * 8;
	hlen = fw_ddp_build(seg, &h);
	if (f[0] & 0x20)
		seg[0] ^= 0x03;		/* another DDP version */
	if (f[0] & 0x40)
		seg[1] ^= 0xc0;		/* another RDMAP version */
	plen = (size_t)f[6] * 8;
	for (i = 0; i < plen; i++)
		seg[hlen + i] = (uint8_t)(0xa5 ^ i);
	if (h.opcode == FW_RDMAP_READ_REQ && !h.tagged && !(f[0] & 0x80)) {
		struct fw_rdmap_rreq rr = {
			.sink_stag = any,
			.sink_to = h.to,
			.size = (uint32_t)f[6] * 64,
			.src_stag = f[1] & 0x20 ? any : b->key,
			.src_to = DRV_MR_ADDR + ((uint64_t)f[3] << 8 | f[2]),
		};

		fw_rdmap_rreq_put(seg + hlen, &rr);
		plen = FW_RDMAP_RREQ_LEN;
	}
	peer_send(a, buf, fw_fpdu_seal(buf, hlen + plen));
}

/* A receive WQE on one of B's QPs: one SGE in B's MR */
static void rec_b_recv(struct side *b, struct fz_in *in)
{
	uint8_t f[2] = { 0 };
	unsigned int q;
	struct ordma_recv_wqe *r;
	struct ordma_sge *g;
	uint8_t *p;

	take(in, f, sizeof(f));
	q = f[0] % NUM_QPS;
	p = drv_mem(&b->v.d, DRV_WQ_ADDR(2 + q) + 0x8000 +
		    (b->rq_pi[q] & 15) * 32, 32);
	memset(p, 0, 32);
	r = (struct ordma_recv_wqe *)p;
	g = (struct ordma_sge *)(p + sizeof(*r));
	r->num_sge = cpu_to_le32(f[0] & 0x80 ? 2 : 1);
	g->addr = cpu_to_le64(DRV_MR_ADDR + 0x10000 * q);
	g->length = cpu_to_le32((uint32_t)f[1] * 64);
	g->lkey = cpu_to_le32(b->key);
	b->rq_pi[q]++;
	drv_db(&b->v.d, 0, ORDMA_DB_RQ, b->qpn[q], b->rq_pi[q], 0);
}

/* A send WQE on one of B's QPs: one SGE in B's MR, to A's memory */
static void rec_b_send(struct side *b, struct fz_in *in)
{
	static const uint8_t ops[] = { ORDMA_WQE_SEND, ORDMA_WQE_SEND_INV,
				       ORDMA_WQE_RDMA_WRITE,
				       ORDMA_WQE_RDMA_READ };
	uint8_t f[5] = { 0 }, op;
	struct ordma_send_wqe *w;
	struct ordma_sge *g;
	unsigned int q;
	uint8_t *p;

	take(in, f, sizeof(f));
	q = f[0] % NUM_QPS;
	op = f[1] & 0x80 ? f[1] & 0x1f : ops[f[1] % sizeof(ops)];
	p = drv_mem(&b->v.d, DRV_WQ_ADDR(2 + q) + (b->sq_pi[q] & 15) * 64, 64);
	memset(p, 0, 64);
	w = (struct ordma_send_wqe *)p;
	g = (struct ordma_sge *)(p + ORDMA_SEND_WQE_HDR_SIZE);
	w->ctrl.ctrl = cpu_to_le32(FIELD_PREP(ORDMA_WQE_OPCODE, op) |
				   FIELD_PREP(ORDMA_WQE_NUM_SGE, 1) |
				   ((f[3] & 1) ? ORDMA_WQE_SIGNALED : 0) |
				   ((f[3] & 2) ? ORDMA_WQE_FENCE : 0) |
				   ((f[3] & 4) ? ORDMA_WQE_SOLICITED : 0));
	w->ctrl.imm_inv = cpu_to_le32(f[4]);
	w->rdma.remote_addr = cpu_to_le64(DRV_MR_ADDR + (uint64_t)f[4] * 64);
	w->rdma.rkey = cpu_to_le32(f[3] & 8 ? f[4] : 0x100);
	g->addr = cpu_to_le64(DRV_MR_ADDR + 0x80000 + (uint64_t)q * 0x10000);
	g->length = cpu_to_le32((uint32_t)f[2] * 32);
	g->lkey = cpu_to_le32(b->key);
	b->sq_pi[q]++;
	drv_db(&b->v.d, 0, ORDMA_DB_SQ, b->qpn[q], b->sq_pi[q], 0);
}

/* B connects to A's TCP listener on its first QP */
static void b_connects(struct side *a, struct side *b)
{
	struct ordma_iw_conn_params p;
	struct ordma_aq_cmd cmd;

	memset(&p, 0, sizeof(p));
	memcpy(p.remote_ip, a->ip, 16);
	p.remote_port = cpu_to_le16(PORT_A);
	memcpy(p.next_hop_mac, a->mac, 6);
	p.qpn = cpu_to_le32(b->qpn[0]);
	p.ird = cpu_to_le16(4);
	p.ord = cpu_to_le16(4);
	memcpy(drv_mem(&b->v.d, PARAMS_ADDR, sizeof(p)), &p, sizeof(p));
	drv_cmd_init(&cmd, ORDMA_CMD_IW_CONNECT);
	cmd.buf.buf_addr = cpu_to_le64(PARAMS_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(p));
	drv_exec(&b->v.d, &cmd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	static struct side a, b;
	struct ordma_aq_cmd cmd;
	struct ordma_comp_health h;
	uint8_t mode = byte(&in);
	unsigned int steps = 0;

	memset(&peer, 0, sizeof(peer));
	last_request = 0;
	if (!side_open(&a, 0) || !side_open(&b, 1))
		__builtin_trap();
	/* A's TCP is the peer's own, not an iWARP connection layer */
	fw_tcp_set_user(a.v.d.fw, &peer_user, NULL);
	drv_cmd_init(&cmd, ORDMA_CMD_IW_CREATE_LISTEN);
	cmd.iw_create_listen.port = cpu_to_le16(PORT_B);
	cmd.iw_create_listen.backlog = cpu_to_le16(2);
	if (drv_exec(&b.v.d, &cmd))
		__builtin_trap();
	if (mode & 1) {
		fw_tcp_listen(a.v.d.fw, PORT_A, 4);
		b_connects(&a, &b);
	} else {
		fw_tcp_connect(a.v.d.fw, 0x0a000002u, PORT_B, 0, b.mac);
	}
	pump(&a, &b);

	while (in.left && steps++ < 64) {
		uint8_t raw_kind = byte(&in), kind = raw_kind % REC_NUM;
		uint8_t buf[FW_MPA_HDR_LEN + FW_MPA_MAX_PD + 64];
		size_t len;

		if (raw_kind >= REC_DATA_FIRST) {
			switch ((raw_kind - REC_DATA_FIRST) % REC_DATA_NUM) {
			case REC_FPDU:
				rec_fpdu(&a, &b, &in);
				break;
			case REC_B_RECV:
				rec_b_recv(&b, &in);
				break;
			default:
				rec_b_send(&b, &in);
				break;
			}
			pump(&a, &b);
			drain_events(&b);
			continue;
		}
		switch (kind) {
		case REC_RAW:
			len = byte(&in);
			if (len > in.left)
				len = in.left;
			take(&in, buf, len);
			peer_send(&a, buf, len);
			break;
		case REC_MPA:
			rec_mpa(&a, &in);
			break;
		case REC_RTR: {
			/* the RTR, with one bit flipped if the input says */
			uint8_t at = byte(&in), flip = byte(&in);

			len = fw_iw_build_rtr_write(buf);
			buf[at % len] ^= (uint8_t)(flip & 0x80 ? 1u << (flip & 7) : 0);
			peer_send(&a, buf, len);
			break;
		}
		case REC_ACCEPT:
			rec_params(&b, &in, ORDMA_CMD_IW_ACCEPT);
			break;
		case REC_REJECT:
			rec_params(&b, &in, ORDMA_CMD_IW_REJECT);
			break;
		case REC_QUERY:
			rec_conn_cmd(&b, &in, ORDMA_CMD_IW_QUERY_CONN);
			break;
		case REC_DESTROY:
			rec_conn_cmd(&b, &in, ORDMA_CMD_IW_DESTROY_CONN);
			break;
		case REC_PEER_FIN:
			if (peer.up)
				fw_tcp_shutdown(a.v.d.fw, peer.conn);
			break;
		case REC_PEER_RST:
			if (peer.up) {
				fw_tcp_abort(a.v.d.fw, peer.conn);
				peer.up = false;
			}
			break;
		case REC_PEER_CONNECT:
			if (!peer.up)
				fw_tcp_connect(a.v.d.fw, 0x0a000002u, PORT_B, 0,
					       b.mac);
			break;
		default:
			advance(&a, &b, (uint64_t)(byte(&in) + 1) * 100000000ULL);
			break;
		}
		pump(&a, &b);
		drain_events(&b);
	}
	/* B answers its driver and goes away cleanly */
	if (drv_health(&b.v.d, &h) != ORDMA_CMD_STATUS_OK)
		__builtin_trap();
	side_close(&a);
	side_close(&b);
	return 0;
}
