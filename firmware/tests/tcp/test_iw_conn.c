// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * iWARP connections through the admin commands (tcp/fw_iw_conn.h), two
 * firmware instances back to back: the port's IP address by ADD_GID,
 * listen, connect with private data, the request event and QUERY_CONN,
 * accept with the RTR exchange, both QPs in RTS; reject with private
 * data, read by the client after the REJECTED event until it frees the
 * handle, and a bound on rejected handles never freed; stale handles
 * refused once their slot serves another connection; MPA and TCP failures (no listener, a peer that is not MPA, a
 * late reply); close by the peer and by DESTROY_CONN; and the commands'
 * validation.
 */
#include <stdio.h>
#include <string.h>

#include "fw_priv.h"
#include "objects/fw_qp.h"
#include "tcp/fw_iw_conn.h"
#include "tcp/fw_tcp.h"
#include "wire/fw_iw_wire.h"
#include "drv.h"
#include "link.h"
#include "ordma_test.h"

#define OK		ORDMA_CMD_STATUS_OK
#define BAD_PARAM	ORDMA_CMD_STATUS_BAD_PARAM
#define BAD_STATE	ORDMA_CMD_STATUS_BAD_STATE
#define BAD_HANDLE	ORDMA_CMD_STATUS_BAD_HANDLE
#define BUSY		ORDMA_CMD_STATUS_BUSY
#define NOT_SUPPORTED	ORDMA_CMD_STATUS_NOT_SUPPORTED
#define PORT_B		4420
#define PARAMS_ADDR	(DRV_BUF_ADDR + 0x3000)
#define NO_EVENT	0xff

struct iside {
	struct drv_verbs v;
	struct link out;
	uint8_t mac[6];
	uint8_t ip[16];
	uint32_t qpn;
};

struct ienv {
	struct iside s[2];
};

static void ip_of(uint8_t ip[16], int i)
{
	memset(ip, 0, 16);
	ip[10] = 0xff;
	ip[11] = 0xff;
	ip[12] = 10;
	ip[15] = (uint8_t)(1 + i);
}

static uint8_t add_ip(struct iside *s, uint32_t index, const uint8_t ip[16])
{
	return drv_add_ip_gid(&s->v.d, index, ip, s->mac);
}

static uint8_t qp_state_of(struct iside *s, uint32_t qpn)
{
	struct ordma_qp_attr a;

	if (drv_query_qp(&s->v.d, qpn, &a) != OK)
		return 0xff;
	return a.state;
}

/* An RC QP in RTR, as rdma_cm leaves it before connecting */
static bool rtr_qp(struct iside *s, unsigned int area, uint32_t *qpn)
{
	return drv_iw_rtr_qp(&s->v, area, qpn);
}

static bool iside_open(struct iside *s, int i)
{
	memset(s, 0, sizeof(*s));
	if (!drv_iw_open_nth(&s->v, i, s->mac, s->ip))
		return false;
	s->v.d.hal.tx_hook = link_tx_hook;
	s->v.d.hal.tx_hook_arg = &s->out;
	return rtr_qp(s, 2, &s->qpn);
}

static bool ienv_open(struct ienv *e)
{
	return iside_open(&e->s[0], 0) && iside_open(&e->s[1], 1);
}

static void ienv_close(struct ienv *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		drv_close(&e->s[i].v.d);
		link_free(&e->s[i].out);
	}
}

static void pump(struct ienv *e)
{
	bool busy;

	do {
		busy = link_deliver(&e->s[0].out, e->s[1].v.d.fw);
		busy |= link_deliver(&e->s[1].out, e->s[0].v.d.fw);
	} while (busy);
}

/* Both clocks forward by ns, the wire pumped at every timer */
static void run_for(struct ienv *e, uint64_t ns)
{
	uint64_t end = e->s[0].v.d.hal.now_ns + ns;

	while (e->s[0].v.d.hal.now_ns < end) {
		uint64_t t0 = e->s[0].v.d.hal.timer_deadline;
		uint64_t t1 = e->s[1].v.d.hal.timer_deadline;
		uint64_t next = t0 < t1 ? t0 : t1;

		pump(e);
		if (next > end)
			next = end;
		if (next < e->s[0].v.d.hal.now_ns)
			next = e->s[0].v.d.hal.now_ns;
		fake_advance(&e->s[0].v.d.hal, next - e->s[0].v.d.hal.now_ns);
		fake_advance(&e->s[1].v.d.hal, next - e->s[1].v.d.hal.now_ns);
	}
	pump(e);
}

/* The next async event of the side but port changes: its type
 * (NO_EVENT if none)
 */
static uint8_t next_event(struct iside *s, uint32_t data[3])
{
	struct ordma_eqe eqe;

	do {
		if (!drv_eq_next(&s->v.d, &s->v.async, &eqe))
			return NO_EVENT;
	} while (FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe.type)) ==
		 ORDMA_EQE_PORT_CHANGE);
	data[0] = le32_to_cpu(eqe.data[0]);
	data[1] = le32_to_cpu(eqe.data[1]);
	data[2] = le32_to_cpu(eqe.data[2]);
	drv_eq_update(&s->v.d, &s->v.async, false);
	return (uint8_t)FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe.type));
}

static uint8_t listen_on(struct iside *s, uint16_t port, uint16_t backlog,
			 uint32_t *listener)
{
	return drv_iw_listen(&s->v.d, port, backlog, listener);
}

static uint8_t conn_cmd(struct iside *s, uint8_t opcode, uint32_t handle,
			uint32_t flags)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, opcode);
	cmd.iw_conn.handle = cpu_to_le32(handle);
	cmd.iw_conn.flags = cpu_to_le32(flags);
	return drv_exec(&s->v.d, &cmd);
}

/* IW_CONNECT/ACCEPT/REJECT with params p; the completion's handle */
static uint8_t params_cmd(struct iside *s, uint8_t opcode,
			  const struct ordma_iw_conn_params *p, uint32_t *h)
{
	return drv_iw_conn_cmd(&s->v.d, opcode, p, h);
}

static void connect_params(struct ordma_iw_conn_params *p,
			   const struct iside *from, const struct iside *to,
			   uint16_t port, const char *pd)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->remote_ip, to->ip, 16);
	p->remote_port = cpu_to_le16(port);
	memcpy(p->next_hop_mac, to->mac, 6);
	p->qpn = cpu_to_le32(from->qpn);
	p->ird = cpu_to_le16(16);
	p->ord = cpu_to_le16(16);
	p->private_data_len = (uint8_t)strlen(pd);
	memcpy(p->private_data, pd, strlen(pd));
}

static uint8_t query_conn(struct iside *s, uint32_t h,
			  struct ordma_iw_conn_info *info)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	memset(drv_mem(&s->v.d, PARAMS_ADDR, sizeof(*info)), 0xa5,
	       sizeof(*info));
	drv_cmd_init(&cmd, ORDMA_CMD_IW_QUERY_CONN);
	cmd.buf.buf_addr = cpu_to_le64(PARAMS_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(*info));
	cmd.buf.handle = cpu_to_le32(h);
	status = drv_exec(&s->v.d, &cmd);
	memcpy(info, drv_mem(&s->v.d, PARAMS_ADDR, sizeof(*info)),
	       sizeof(*info));
	return status;
}

/* A connects to B's listener on port with pd; B's request is in *req */
static bool request_on(struct ienv *e, uint16_t port, const char *pd,
		       uint32_t *listener, uint32_t *active, uint32_t *req)
{
	struct ordma_iw_conn_params p;
	uint32_t d[3];

	if (listen_on(&e->s[1], port, 4, listener) != OK)
		return false;
	connect_params(&p, &e->s[0], &e->s[1], port, pd);
	if (params_cmd(&e->s[0], ORDMA_CMD_IW_CONNECT, &p, active) != OK)
		return false;
	pump(e);
	if (next_event(&e->s[1], d) != ORDMA_EQE_IW_CONN_REQUEST ||
	    d[1] != *listener)
		return false;
	*req = d[0];
	return true;
}

static bool request(struct ienv *e, const char *pd, uint32_t *listener,
		    uint32_t *active, uint32_t *req)
{
	return request_on(e, PORT_B, pd, listener, active, req);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

TEST(test_iw_connect_accept)
{
	struct ordma_iw_conn_params p;
	struct ordma_iw_conn_info info;
	uint32_t l, a, req, d[3];
	struct ienv e;

	REQUIRE(ienv_open(&e));
	REQUIRE(request(&e, "hello from A", &l, &a, &req));
	/* the request as the passive side's host sees it */
	REQUIRE_EQ(query_conn(&e.s[1], req, &info), OK);
	CHECK_EQ(info.state, ORDMA_IW_CONN_REQUEST);
	CHECK_EQ(info.mpa_revision, 2);
	CHECK_EQ(info.mpa_flags, FW_MPA_FLAG_CRC | FW_MPA_FLAG_ENHANCED);
	CHECK_EQ(info.private_data_len, 12);
	CHECK(!memcmp(info.private_data, "hello from A", 12));
	CHECK(!memcmp(info.local_ip, e.s[1].ip, 16));
	CHECK(!memcmp(info.remote_ip, e.s[0].ip, 16));
	CHECK_EQ(le16_to_cpu(info.local_port), PORT_B);
	CHECK_EQ(le16_to_cpu(info.peer_ird), FW_MPA_V2_PEER2PEER | 16);
	CHECK_EQ(le16_to_cpu(info.peer_ord), FW_MPA_V2_RTR_WRITE | 16);
	CHECK_EQ(le16_to_cpu(info.mss), 1460);
	/* the active QP waits in RTR */
	CHECK_EQ(qp_state_of(&e.s[0], e.s[0].qpn), ORDMA_QPS_RTR);
	CHECK_EQ(next_event(&e.s[0], d), NO_EVENT);

	memset(&p, 0, sizeof(p));
	p.conn = cpu_to_le32(req);
	p.qpn = cpu_to_le32(e.s[1].qpn);
	p.ird = cpu_to_le16(8);
	p.ord = cpu_to_le16(8);
	p.private_data_len = 3;
	memcpy(p.private_data, "yes", 3);
	REQUIRE_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_ACCEPT, &p, NULL), OK);
	/* accepted once only */
	CHECK_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_ACCEPT, &p, NULL), BAD_STATE);
	pump(&e);
	/* A: reply, RTR sent, RDMA mode; B: the RTR, established */
	REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_CONN_REPLY);
	CHECK_EQ(d[0], a);
	CHECK_EQ(d[1], ORDMA_IW_STATUS_OK);
	CHECK_EQ(d[2], e.s[0].qpn);
	REQUIRE_EQ(next_event(&e.s[1], d), ORDMA_EQE_IW_ESTABLISHED);
	CHECK_EQ(d[0], req);
	CHECK_EQ(d[2], e.s[1].qpn);
	CHECK_EQ(qp_state_of(&e.s[0], e.s[0].qpn), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state_of(&e.s[1], e.s[1].qpn), ORDMA_QPS_RTS);
	REQUIRE_EQ(query_conn(&e.s[0], a, &info), OK);
	CHECK_EQ(info.state, ORDMA_IW_CONN_ESTABLISHED);
	CHECK_EQ(info.private_data_len, 3);
	CHECK(!memcmp(info.private_data, "yes", 3));
	/* our IRD follows the ORD the responder will use */
	CHECK_EQ(le16_to_cpu(info.ird), 8);
	CHECK_EQ(le16_to_cpu(info.peer_ird), FW_MPA_V2_PEER2PEER | 8);
	CHECK_EQ(le16_to_cpu(info.peer_ord), FW_MPA_V2_RTR_WRITE | 8);
	/* a QP with a connection takes no second one */
	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, NULL),
		 BAD_STATE);

	/* B closes gracefully: A hears the FIN, then both are closed */
	CHECK_EQ(conn_cmd(&e.s[1], ORDMA_CMD_IW_DESTROY_CONN, req,
			  ORDMA_IW_CLOSE_GRACEFUL), OK);
	CHECK_EQ(qp_state_of(&e.s[1], e.s[1].qpn), ORDMA_QPS_ERR);
	CHECK_EQ(query_conn(&e.s[1], req, &info), BAD_HANDLE);
	run_for(&e, 2ULL * 1000000000ULL);
	REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_DISCONNECT);
	CHECK_EQ(d[0], a);
	REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_CLOSED);
	CHECK_EQ(d[1], ORDMA_IW_STATUS_GRACEFUL);
	CHECK_EQ(qp_state_of(&e.s[0], e.s[0].qpn), ORDMA_QPS_ERR);
	CHECK_EQ(next_event(&e.s[1], d), NO_EVENT);
	ienv_close(&e);
}

TEST(test_iw_reject)
{
	struct ordma_iw_conn_params p;
	struct ordma_iw_conn_info info;
	uint32_t l, a, req, d[3];
	struct ienv e;

	REQUIRE(ienv_open(&e));
	REQUIRE(request(&e, "may I", &l, &a, &req));
	memset(&p, 0, sizeof(p));
	p.conn = cpu_to_le32(req);
	p.private_data_len = 7;
	memcpy(p.private_data, "go away", 7);
	/* a reject names no QP */
	p.qpn = cpu_to_le32(e.s[1].qpn);
	CHECK_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_REJECT, &p, NULL), BAD_PARAM);
	p.qpn = 0;
	REQUIRE_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_REJECT, &p, NULL), OK);
	pump(&e);
	REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_CONN_REPLY);
	CHECK_EQ(d[0], a);
	CHECK_EQ(d[1], ORDMA_IW_STATUS_REJECTED);
	CHECK_EQ(d[2], e.s[0].qpn);
	/* the QP is in error, the handle stays with the reject's words */
	CHECK_EQ(qp_state_of(&e.s[0], e.s[0].qpn), ORDMA_QPS_ERR);
	REQUIRE_EQ(query_conn(&e.s[0], a, &info), OK);
	CHECK_EQ(info.state, ORDMA_IW_CONN_CLOSED);
	CHECK_EQ(info.mpa_revision, 2);
	CHECK(info.mpa_flags & FW_MPA_FLAG_REJECT);
	CHECK_EQ(info.private_data_len, 7);
	CHECK(!memcmp(info.private_data, "go away", 7));
	CHECK(!memcmp(info.local_ip, e.s[0].ip, 16));
	CHECK(!memcmp(info.remote_ip, e.s[1].ip, 16));
	CHECK_EQ(le16_to_cpu(info.remote_port), PORT_B);
	CHECK_EQ(le16_to_cpu(info.tcp_state), 0);
	/* nothing to accept, reject or close gracefully: still there */
	memset(&p, 0, sizeof(p));
	p.conn = cpu_to_le32(a);
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_REJECT, &p, NULL), BAD_STATE);
	CHECK_EQ(query_conn(&e.s[0], a, &info), OK);
	/* the QP is free for another connection meanwhile */
	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, NULL),
		 BAD_STATE);	/* in error, not RTR */
	/* DESTROY_CONN frees it, without an event */
	CHECK_EQ(conn_cmd(&e.s[0], ORDMA_CMD_IW_DESTROY_CONN, a, 0), OK);
	CHECK_EQ(query_conn(&e.s[0], a, &info), BAD_HANDLE);
	CHECK_EQ(conn_cmd(&e.s[0], ORDMA_CMD_IW_DESTROY_CONN, a, 0),
		 BAD_HANDLE);
	run_for(&e, 2ULL * 1000000000ULL);
	CHECK_EQ(next_event(&e.s[0], d), NO_EVENT);
	CHECK_EQ(next_event(&e.s[1], d), NO_EVENT);
	ienv_close(&e);
}

/*
 * A connects to B on port, B rejects with pd: A's handle (not freed),
 * and a new QP in RTR for the next connection
 */
static bool rejected(struct ienv *e, uint16_t port, const char *pd,
		     uint32_t *a)
{
	struct ordma_iw_conn_params p;
	uint32_t l, req, d[3];

	if (!request_on(e, port, "", &l, a, &req))
		return false;
	memset(&p, 0, sizeof(p));
	p.conn = cpu_to_le32(req);
	p.private_data_len = (uint8_t)strlen(pd);
	memcpy(p.private_data, pd, strlen(pd));
	if (params_cmd(&e->s[1], ORDMA_CMD_IW_REJECT, &p, NULL) != OK)
		return false;
	pump(e);
	if (next_event(&e->s[0], d) != ORDMA_EQE_IW_CONN_REPLY ||
	    d[0] != *a || d[1] != ORDMA_IW_STATUS_REJECTED)
		return false;
	/* the listener goes, for the next round to listen again */
	return conn_cmd(&e->s[1], ORDMA_CMD_IW_DESTROY_LISTEN, l, 0) == OK &&
	       rtr_qp(&e->s[0], 3, &e->s[0].qpn);
}

/*
 * A handle names one connection: once freed, a command naming it is
 * refused even when its slot serves a new connection, and that one is
 * left alone.
 */
TEST(test_iw_stale_handle)
{
	struct ordma_iw_conn_info info;
	uint32_t a, a2, l, req, d[3];
	struct ienv e;

	REQUIRE(ienv_open(&e));
	REQUIRE(rejected(&e, PORT_B + 1, "no", &a));
	REQUIRE_EQ(conn_cmd(&e.s[0], ORDMA_CMD_IW_DESTROY_CONN, a, 0), OK);
	/* the next connection takes the slot again, under another handle */
	REQUIRE(request(&e, "again", &l, &a2, &req));
	CHECK_EQ(FIELD_GET(FW_IW_HANDLE_SLOT, a2),
		 FIELD_GET(FW_IW_HANDLE_SLOT, a));
	CHECK(a2 != a);
	CHECK_EQ(query_conn(&e.s[0], a, &info), BAD_HANDLE);
	CHECK_EQ(conn_cmd(&e.s[0], ORDMA_CMD_IW_DESTROY_CONN, a, 0),
		 BAD_HANDLE);
	/* the new connection did not notice */
	REQUIRE_EQ(query_conn(&e.s[0], a2, &info), OK);
	CHECK_EQ(info.state, ORDMA_IW_CONN_CONNECTING);
	CHECK_EQ(le32_to_cpu(info.qpn), e.s[0].qpn);
	CHECK_EQ(next_event(&e.s[0], d), NO_EVENT);

	/* the same on the passive side: B rejects, then a new request */
	{
		struct ordma_iw_conn_params p;
		uint32_t req2;

		memset(&p, 0, sizeof(p));
		p.conn = cpu_to_le32(req);
		REQUIRE_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_REJECT, &p, NULL),
			   OK);
		pump(&e);
		REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_CONN_REPLY);
		REQUIRE_EQ(conn_cmd(&e.s[0], ORDMA_CMD_IW_DESTROY_CONN, a2, 0),
			   OK);
		REQUIRE(rtr_qp(&e.s[0], 4, &e.s[0].qpn));
		connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
		REQUIRE_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &a),
			   OK);
		pump(&e);
		REQUIRE_EQ(next_event(&e.s[1], d), ORDMA_EQE_IW_CONN_REQUEST);
		req2 = d[0];
		CHECK(req2 != req);
		CHECK_EQ(FIELD_GET(FW_IW_HANDLE_SLOT, req2),
			 FIELD_GET(FW_IW_HANDLE_SLOT, req));
		/* an ACCEPT or REJECT of the old request names no request */
		memset(&p, 0, sizeof(p));
		p.conn = cpu_to_le32(req);
		CHECK_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_REJECT, &p, NULL),
			 BAD_HANDLE);
		p.qpn = cpu_to_le32(e.s[1].qpn);
		CHECK_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_ACCEPT, &p, NULL),
			 BAD_HANDLE);
		REQUIRE_EQ(query_conn(&e.s[1], req2, &info), OK);
		CHECK_EQ(info.state, ORDMA_IW_CONN_REQUEST);

		/* both slots on their second connection or more: the
		 * QPs still reach theirs for data
		 */
		memset(&p, 0, sizeof(p));
		p.conn = cpu_to_le32(req2);
		p.qpn = cpu_to_le32(e.s[1].qpn);
		REQUIRE_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_ACCEPT, &p, NULL),
			   OK);
		pump(&e);
		REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_CONN_REPLY);
		CHECK_EQ(d[0], a);
		CHECK_EQ(d[1], ORDMA_IW_STATUS_OK);
		REQUIRE_EQ(next_event(&e.s[1], d), ORDMA_EQE_IW_ESTABLISHED);
		CHECK_EQ(d[0], req2);
		CHECK(fw_iw_tx_mulpdu(e.s[0].v.d.fw,
				      fw_qp_lookup(e.s[0].v.d.fw,
						   e.s[0].qpn)) > 0);
		CHECK(fw_iw_tx_mulpdu(e.s[1].v.d.fw,
				      fw_qp_lookup(e.s[1].v.d.fw,
						   e.s[1].qpn)) > 0);
		/* and a peer's FIN names the handle, not TCP's number */
		CHECK_EQ(conn_cmd(&e.s[1], ORDMA_CMD_IW_DESTROY_CONN, req2,
				  ORDMA_IW_CLOSE_GRACEFUL), OK);
		run_for(&e, 2ULL * 1000000000ULL);
		REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_DISCONNECT);
		CHECK_EQ(d[0], a);
		REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_CLOSED);
		CHECK_EQ(d[0], a);
	}
	ienv_close(&e);
}

/*
 * A host that never frees its rejected connections: the device keeps
 * FW_IW_MAX_REJECTED of them, the oldest goes for a newer one, and
 * connections still get through.  A new address drops them all.
 */
TEST(test_iw_rejected_never_freed)
{
	uint32_t held[FW_IW_MAX_REJECTED + 4];
	struct ordma_iw_conn_info info;
	struct fw_iw_stats st;
	uint32_t a, l, req;
	unsigned int i;
	struct ienv e;
	char pd[8];

	REQUIRE(ienv_open(&e));
	for (i = 0; i < FW_IW_MAX_REJECTED + 4; i++) {
		snprintf(pd, sizeof(pd), "no %u", i);
		REQUIRE(rejected(&e, (uint16_t)(PORT_B + 1 + i), pd,
				 &held[i]));
	}
	fw_iw_stats(e.s[0].v.d.fw, &st);
	CHECK_EQ(st.mpa_rejected, FW_IW_MAX_REJECTED + 4);
	CHECK_EQ(st.rejected_reclaimed, 4);
	/* the 4 oldest are gone, the others hold their private data */
	for (i = 0; i < 4; i++)
		CHECK_EQ(query_conn(&e.s[0], held[i], &info), BAD_HANDLE);
	for (i = 4; i < FW_IW_MAX_REJECTED + 4; i++) {
		snprintf(pd, sizeof(pd), "no %u", i);
		REQUIRE_EQ(query_conn(&e.s[0], held[i], &info), OK);
		CHECK_EQ(info.state, ORDMA_IW_CONN_CLOSED);
		CHECK_EQ(info.private_data_len, strlen(pd));
		CHECK(!memcmp(info.private_data, pd, strlen(pd)));
	}
	/* and every TCP connection is still there for new ones */
	REQUIRE(request(&e, "still", &l, &a, &req));
	REQUIRE_EQ(query_conn(&e.s[1], req, &info), OK);
	CHECK_EQ(info.state, ORDMA_IW_CONN_REQUEST);
	/* a new address ends them all, the handles stay refused */
	CHECK_EQ(drv_handle_cmd(&e.s[0].v.d, ORDMA_CMD_DEL_GID, 0, 0), OK);
	REQUIRE_EQ(add_ip(&e.s[0], 0, e.s[0].ip), OK);
	for (i = 0; i < FW_IW_MAX_REJECTED + 4; i++)
		CHECK_EQ(query_conn(&e.s[0], held[i], &info), BAD_HANDLE);
	CHECK_EQ(query_conn(&e.s[0], a, &info), BAD_HANDLE);
	ienv_close(&e);
}

TEST(test_iw_connect_failures)
{
	struct ordma_iw_conn_params p;
	uint32_t a, l, d[3];
	struct ienv e;

	REQUIRE(ienv_open(&e));
	/* nobody listens: TCP gives up, the QP goes to error */
	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	REQUIRE_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &a), OK);
	run_for(&e, 900ULL * 1000000000ULL);
	REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_CONN_REPLY);
	CHECK_EQ(d[0], a);
	CHECK_EQ(d[1], ORDMA_IW_STATUS_TIMEOUT);
	CHECK_EQ(qp_state_of(&e.s[0], e.s[0].qpn), ORDMA_QPS_ERR);

	/* a listener whose request is never answered: the MPA reply timer */
	REQUIRE(rtr_qp(&e.s[0], 3, &e.s[0].qpn));
	REQUIRE_EQ(listen_on(&e.s[1], PORT_B, 4, &l), OK);
	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	REQUIRE_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &a), OK);
	run_for(&e, 6ULL * 1000000000ULL);
	REQUIRE_EQ(next_event(&e.s[1], d), ORDMA_EQE_IW_CONN_REQUEST);
	REQUIRE_EQ(next_event(&e.s[0], d), ORDMA_EQE_IW_CONN_REPLY);
	CHECK_EQ(d[1], ORDMA_IW_STATUS_TIMEOUT);
	/* B's request is reset with it */
	run_for(&e, 1000000000ULL);
	REQUIRE_EQ(next_event(&e.s[1], d), ORDMA_EQE_IW_CLOSED);
	CHECK_EQ(d[1], ORDMA_IW_STATUS_RESET);
	ienv_close(&e);
}

/* B's TCP stream as a peer that is not MPA: a bad request */
TEST(test_iw_bad_request_resets)
{
	struct fw_iw_stats st;
	uint32_t l, d[3];
	struct ienv e;
	struct fw_mpa_msg m = {
		.kind = FW_MPA_REQUEST, .flags = FW_MPA_FLAG_MARKERS,
		.revision = 2,
	};
	uint8_t buf[64];
	size_t len;
	int64_t h;

	REQUIRE(ienv_open(&e));
	REQUIRE_EQ(listen_on(&e.s[1], PORT_B, 4, &l), OK);
	/* A's TCP, driven directly: a request with markers */
	h = fw_tcp_connect(e.s[0].v.d.fw, 0x0a000002u, PORT_B, 0, e.s[1].mac);
	REQUIRE(h >= 0);
	pump(&e);
	len = fw_mpa_build(buf, &m);
	fw_tcp_send(e.s[0].v.d.fw, (uint32_t)h, buf, len);
	pump(&e);
	fw_iw_stats(e.s[1].v.d.fw, &st);
	CHECK_EQ(st.mpa_bad, 1);
	CHECK_EQ(next_event(&e.s[1], d), NO_EVENT);
	/* and a request with a bad key */
	h = fw_tcp_connect(e.s[0].v.d.fw, 0x0a000002u, PORT_B, 0, e.s[1].mac);
	REQUIRE(h >= 0);
	pump(&e);
	memcpy(buf, "MPA ID Rep Frame", 16);
	fw_tcp_send(e.s[0].v.d.fw, (uint32_t)h, buf, len);
	pump(&e);
	fw_iw_stats(e.s[1].v.d.fw, &st);
	CHECK_EQ(st.mpa_bad, 2);
	CHECK_EQ(next_event(&e.s[1], d), NO_EVENT);
	ienv_close(&e);
}

/* ------------------------------------------------------------------ */
/* Linux siw as the peer, its MPA messages as captured                 */
/* ------------------------------------------------------------------ */

/* tests/wire/vectors/README.md, frames 4 and 6 of siw-capture.pcap */
static const uint8_t siw_request[24] = {
	'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a',
	'm', 'e', 0x10, 0x02, 0x00, 0x04, 0x00, 0x01, 0x00, 0x01,
};
static const uint8_t siw_reply[24] = {
	'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a',
	'm', 'e', 0x10, 0x02, 0x00, 0x04, 0x00, 0x01, 0x00, 0x01,
};

/* A's TCP as a raw peer: what it accepted and received */
struct raw_peer {
	uint32_t conn;
	bool up;
	size_t rx_len;
	uint8_t rx[512];
};

static void raw_accepted(struct ordma_fw *fw, void *arg, uint32_t listener,
			 uint32_t conn)
{
	struct raw_peer *r = arg;

	(void)fw;
	(void)listener;
	r->conn = conn;
	r->up = true;
}

static void raw_connected(struct ordma_fw *fw, void *arg, uint32_t conn,
			  int reason)
{
	struct raw_peer *r = arg;

	(void)fw;
	r->conn = conn;
	r->up = !reason;
}

static void raw_recv(struct ordma_fw *fw, void *arg, uint32_t conn,
		     const void *data, size_t len)
{
	struct raw_peer *r = arg;

	(void)fw;
	(void)conn;
	if (len > sizeof(r->rx) - r->rx_len)
		len = sizeof(r->rx) - r->rx_len;
	memcpy(r->rx + r->rx_len, data, len);
	r->rx_len += len;
}

static const struct fw_tcp_user raw_user = {
	.accepted = raw_accepted,
	.connected = raw_connected,
	.recv = raw_recv,
};

/* siw connects (its request, no peer to peer): accepted at once */
TEST(test_iw_siw_request)
{
	struct ordma_iw_conn_params p;
	struct ordma_iw_conn_info info;
	struct raw_peer raw = { 0 };
	struct fw_mpa_msg m;
	uint32_t l, d[3];
	struct ienv e;

	REQUIRE(ienv_open(&e));
	fw_tcp_set_user(e.s[0].v.d.fw, &raw_user, &raw);
	REQUIRE_EQ(listen_on(&e.s[1], PORT_B, 4, &l), OK);
	REQUIRE(fw_tcp_connect(e.s[0].v.d.fw, 0x0a000002u, PORT_B, 0,
			       e.s[1].mac) >= 0);
	pump(&e);
	REQUIRE(raw.up);
	fw_tcp_send(e.s[0].v.d.fw, raw.conn, siw_request, sizeof(siw_request));
	pump(&e);
	REQUIRE_EQ(next_event(&e.s[1], d), ORDMA_EQE_IW_CONN_REQUEST);
	REQUIRE_EQ(query_conn(&e.s[1], d[0], &info), OK);
	CHECK_EQ(info.mpa_flags, FW_MPA_FLAG_ENHANCED);
	CHECK_EQ(le16_to_cpu(info.peer_ird), 1);
	CHECK_EQ(le16_to_cpu(info.peer_ord), 1);
	CHECK_EQ(info.private_data_len, 0);
	memset(&p, 0, sizeof(p));
	p.conn = cpu_to_le32(d[0]);
	p.qpn = cpu_to_le32(e.s[1].qpn);
	p.ird = cpu_to_le16(1);
	p.ord = cpu_to_le16(1);
	REQUIRE_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_ACCEPT, &p, NULL), OK);
	/* no peer to peer asked: no RTR awaited, RDMA mode at once */
	REQUIRE_EQ(next_event(&e.s[1], d), ORDMA_EQE_IW_ESTABLISHED);
	CHECK_EQ(qp_state_of(&e.s[1], e.s[1].qpn), ORDMA_QPS_RTS);
	pump(&e);
	/* our reply: enhanced, CRC on (siw takes it), our words, no P2P */
	REQUIRE_EQ(fw_mpa_parse(raw.rx, raw.rx_len, FW_MPA_REPLY, &m),
		   FW_MPA_OK);
	CHECK_EQ(raw.rx_len, 24);
	CHECK_EQ(m.flags, FW_MPA_FLAG_CRC | FW_MPA_FLAG_ENHANCED);
	CHECK_EQ(m.revision, 2);
	CHECK_EQ(m.ird, 1);
	CHECK_EQ(m.ord, 1);
	ienv_close(&e);
}

/* We connect to siw: its reply (no peer to peer) means no RTR */
TEST(test_iw_siw_reply)
{
	struct ordma_iw_conn_params p;
	struct raw_peer raw = { 0 };
	struct fw_mpa_msg m;
	uint32_t a, d[3];
	struct ienv e;

	REQUIRE(ienv_open(&e));
	fw_tcp_set_user(e.s[0].v.d.fw, &raw_user, &raw);
	REQUIRE(fw_tcp_listen(e.s[0].v.d.fw, 5555, 4) >= 0);
	connect_params(&p, &e.s[1], &e.s[0], 5555, "");
	p.ird = cpu_to_le16(1);
	p.ord = cpu_to_le16(1);
	REQUIRE_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_CONNECT, &p, &a), OK);
	pump(&e);
	REQUIRE(raw.up);
	/* our request as siw sees it */
	REQUIRE_EQ(fw_mpa_parse(raw.rx, raw.rx_len, FW_MPA_REQUEST, &m),
		   FW_MPA_OK);
	CHECK_EQ(m.flags, FW_MPA_FLAG_CRC | FW_MPA_FLAG_ENHANCED);
	CHECK_EQ(m.ird, FW_MPA_V2_PEER2PEER | 1);
	CHECK_EQ(m.ord, FW_MPA_V2_RTR_WRITE | 1);
	raw.rx_len = 0;
	fw_tcp_send(e.s[0].v.d.fw, raw.conn, siw_reply, sizeof(siw_reply));
	pump(&e);
	REQUIRE_EQ(next_event(&e.s[1], d), ORDMA_EQE_IW_CONN_REPLY);
	CHECK_EQ(d[0], a);
	CHECK_EQ(d[1], ORDMA_IW_STATUS_OK);
	CHECK_EQ(qp_state_of(&e.s[1], e.s[1].qpn), ORDMA_QPS_RTS);
	/* and no RTR went to a peer that did not ask for one */
	CHECK_EQ(raw.rx_len, 0);
	ienv_close(&e);
}

/*
 * Requests refused from inside TCP's receive callback, again and again:
 * each connection must go back to TCP's pools (16 of them), or the
 * listener soon has none to take the next one with.
 */
TEST(test_iw_refused_requests_free_their_connections)
{
	struct fw_mpa_msg m = {
		.kind = FW_MPA_REQUEST, .flags = FW_MPA_FLAG_MARKERS,
		.revision = 2,
	};
	struct fw_iw_stats st;
	uint32_t l, a, req;
	uint8_t buf[64];
	unsigned int i;
	struct ienv e;
	int64_t h;
	size_t len = fw_mpa_build(buf, &m);

	REQUIRE(ienv_open(&e));
	REQUIRE_EQ(listen_on(&e.s[1], PORT_B + 1, 4, &l), OK);
	for (i = 0; i < 40; i++) {
		h = fw_tcp_connect(e.s[0].v.d.fw, 0x0a000002u, PORT_B + 1, 0,
				   e.s[1].mac);
		REQUIRE(h >= 0);
		pump(&e);
		fw_tcp_send(e.s[0].v.d.fw, (uint32_t)h, buf, len);
		pump(&e);
		fw_tcp_abort(e.s[0].v.d.fw, (uint32_t)h);
		pump(&e);
	}
	fw_iw_stats(e.s[1].v.d.fw, &st);
	CHECK_EQ(st.mpa_bad, 40);
	/* and a proper connection still gets through */
	REQUIRE(request(&e, "", &l, &a, &req));
	ienv_close(&e);
}

TEST(test_iw_command_checks)
{
	struct ordma_iw_conn_params p;
	uint32_t l, l2, h;
	struct ienv e;
	uint8_t other[16];

	REQUIRE(ienv_open(&e));
	REQUIRE_EQ(listen_on(&e.s[1], PORT_B, 4, &l), OK);
	/* one listener per port */
	CHECK_EQ(listen_on(&e.s[1], PORT_B, 4, &l2), BUSY);
	CHECK_EQ(listen_on(&e.s[1], 0, 4, &l2), BAD_PARAM);
	CHECK_EQ(listen_on(&e.s[1], PORT_B + 1, 0, &l2), BAD_PARAM);
	CHECK_EQ(listen_on(&e.s[1], PORT_B + 1, ORDMA_IW_MAX_BACKLOG + 1, &l2),
		 BAD_PARAM);
	CHECK_EQ(conn_cmd(&e.s[1], ORDMA_CMD_IW_DESTROY_LISTEN, l + 1, 0),
		 BAD_HANDLE);
	CHECK_EQ(conn_cmd(&e.s[1], ORDMA_CMD_IW_DESTROY_LISTEN, l, 1),
		 BAD_PARAM);
	CHECK_EQ(conn_cmd(&e.s[1], ORDMA_CMD_IW_DESTROY_LISTEN, l, 0), OK);
	CHECK_EQ(listen_on(&e.s[1], PORT_B, 4, &l2), OK);

	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	p.private_data_len = ORDMA_IW_MAX_PRIVATE_DATA + 1;
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &h), BAD_PARAM);
	connect_params(&p, &e.s[0], &e.s[1], 0, "");
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &h), BAD_PARAM);
	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	p.next_hop_mac[0] = 1;
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &h), BAD_PARAM);
	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	p.ird = cpu_to_le16(129);
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &h), BAD_PARAM);
	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	ip_of(other, 7);
	memcpy(p.local_ip, other, 16);
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &h), BAD_PARAM);
	connect_params(&p, &e.s[0], &e.s[1], PORT_B, "");
	p.qpn = cpu_to_le32(e.s[0].qpn + 100);
	CHECK_EQ(params_cmd(&e.s[0], ORDMA_CMD_IW_CONNECT, &p, &h), BAD_HANDLE);
	/* ACCEPT of what is no request */
	memset(&p, 0, sizeof(p));
	p.conn = cpu_to_le32(3);
	p.qpn = cpu_to_le32(e.s[1].qpn);
	CHECK_EQ(params_cmd(&e.s[1], ORDMA_CMD_IW_ACCEPT, &p, NULL),
		 BAD_HANDLE);
	CHECK_EQ(conn_cmd(&e.s[1], ORDMA_CMD_IW_DESTROY_CONN, 3, 0),
		 BAD_HANDLE);
	CHECK_EQ(conn_cmd(&e.s[1], ORDMA_CMD_IW_DESTROY_CONN, 3, 2),
		 BAD_PARAM);

	/* without its address the port has no TCP */
	CHECK_EQ(drv_handle_cmd(&e.s[1].v.d, ORDMA_CMD_DEL_GID, 0, 0), OK);
	CHECK_EQ(listen_on(&e.s[1], PORT_B, 4, &l2), BAD_STATE);
	/* IPv6, and IP addresses on a RoCE port, are refused */
	memset(other, 0, 16);
	other[0] = 0xfd;
	other[15] = 1;
	CHECK_EQ(add_ip(&e.s[1], 1, other), NOT_SUPPORTED);
	ienv_close(&e);

	REQUIRE(drv_verbs_open(&e.s[0].v, ORDMA_PORT_PROTO_ROCE, false, NULL,
			       NULL));
	ip_of(other, 0);
	e.s[0].mac[0] = 2;
	CHECK_EQ(add_ip(&e.s[0], 0, other), NOT_SUPPORTED);
	drv_close(&e.s[0].v.d);
}
