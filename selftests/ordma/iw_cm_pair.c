// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * iw_cm_pair: one rdma_cm connection, set up and torn down, no data (the
 * iWARP data path is not there yet).
 *
 *   iw_cm_pair server ADDR PORT accept|reject
 *   iw_cm_pair client ADDR PORT accept|reject
 *
 * The server listens on ADDR:PORT and prints "listening" once it does;
 * it takes one connection request and accepts it with private data
 * "ordma-accept" or rejects it with "ordma-reject".  The client connects
 * to ADDR:PORT with private data "ordma-request".  accept: both sides
 * print "ESTABLISHED", the client disconnects, both print "DISCONNECTED".
 * reject: the client prints "REJECTED" and the private data it got.
 * Every wait for an event is bounded (EVENT_TIMEOUT_MS); exit 0 when
 * every step went as said, 1 otherwise.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define EVENT_TIMEOUT_MS	30000

static struct rdma_event_channel *ch;

/* The next event, which must be @want, on @id's channel */
static struct rdma_cm_event *expect(enum rdma_cm_event_type want,
				    const char *who)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int n;

	n = poll(&pfd, 1, EVENT_TIMEOUT_MS);
	if (n <= 0) {
		fprintf(stderr, "%s: no event within %d ms (want %s)\n", who,
			EVENT_TIMEOUT_MS, rdma_event_str(want));
		return NULL;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		return NULL;
	}
	if (ev->event != want) {
		fprintf(stderr, "%s: got %s (status %d), want %s\n", who,
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

static int expect_ack(enum rdma_cm_event_type want, const char *who)
{
	struct rdma_cm_event *ev = expect(want, who);

	if (!ev)
		return -1;
	printf("%s: %s\n", who, rdma_event_str(want));
	fflush(stdout);
	rdma_ack_cm_event(ev);
	return 0;
}

static int create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	if (!cq) {
		perror("ibv_alloc_pd/ibv_create_cq");
		return -1;
	}
	attr.send_cq = cq;
	attr.recv_cq = cq;
	if (rdma_create_qp(id, pd, &attr)) {
		perror("rdma_create_qp");
		return -1;
	}
	return 0;
}

static int print_pdata(const char *who, const void *data, int len)
{
	char buf[64] = "";

	if (len > 0)
		snprintf(buf, sizeof(buf), "%.*s", len, (const char *)data);
	printf("%s: private data \"%s\"\n", who, buf);
	return 0;
}

static int resolve(const char *addr, const char *port, struct addrinfo **ai)
{
	struct addrinfo hints = {
		.ai_family = AF_INET,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	};

	if (getaddrinfo(addr, port, &hints, ai)) {
		fprintf(stderr, "bad address %s:%s\n", addr, port);
		return -1;
	}
	return 0;
}

static int server(struct addrinfo *ai, int accept)
{
	static const char apdata[] = "ordma-accept";
	static const char rpdata[] = "ordma-reject";
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	struct rdma_cm_id *lid, *id;
	struct rdma_cm_event *ev;

	if (rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lid, ai->ai_addr)) {
		perror("rdma_create_id/rdma_bind_addr");
		return 1;
	}
	if (rdma_listen(lid, 4)) {
		perror("rdma_listen");
		return 1;
	}
	printf("server: listening\n");
	fflush(stdout);
	ev = expect(RDMA_CM_EVENT_CONNECT_REQUEST, "server");
	if (!ev)
		return 1;
	id = ev->id;
	printf("server: %s\n", rdma_event_str(ev->event));
	print_pdata("server", ev->param.conn.private_data,
		    ev->param.conn.private_data_len);
	rdma_ack_cm_event(ev);
	if (!accept) {
		if (rdma_reject(id, rpdata, sizeof(rpdata) - 1)) {
			perror("rdma_reject");
			return 1;
		}
		printf("server: rejected\n");
		rdma_destroy_id(id);
		rdma_destroy_id(lid);
		return 0;
	}
	if (create_qp(id))
		return 1;
	param.private_data = apdata;
	param.private_data_len = sizeof(apdata) - 1;
	if (rdma_accept(id, &param)) {
		perror("rdma_accept");
		return 1;
	}
	if (expect_ack(RDMA_CM_EVENT_ESTABLISHED, "server") ||
	    expect_ack(RDMA_CM_EVENT_DISCONNECTED, "server"))
		return 1;
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	rdma_destroy_id(lid);
	return 0;
}

static int client(struct addrinfo *ai, int accept)
{
	static const char qpdata[] = "ordma-request";
	struct rdma_conn_param param = {
		.private_data = qpdata,
		.private_data_len = sizeof(qpdata) - 1,
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) {
		perror("rdma_create_id");
		return 1;
	}
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 5000)) {
		perror("rdma_resolve_addr");
		return 1;
	}
	if (expect_ack(RDMA_CM_EVENT_ADDR_RESOLVED, "client"))
		return 1;
	if (rdma_resolve_route(id, 5000)) {
		perror("rdma_resolve_route");
		return 1;
	}
	if (expect_ack(RDMA_CM_EVENT_ROUTE_RESOLVED, "client"))
		return 1;
	if (create_qp(id))
		return 1;
	if (rdma_connect(id, &param)) {
		perror("rdma_connect");
		return 1;
	}
	ev = expect(accept ? RDMA_CM_EVENT_ESTABLISHED :
			     RDMA_CM_EVENT_REJECTED, "client");
	if (!ev)
		return 1;
	printf("client: %s (status %d)\n", rdma_event_str(ev->event),
	       ev->status);
	print_pdata("client", ev->param.conn.private_data,
		    ev->param.conn.private_data_len);
	fflush(stdout);
	rdma_ack_cm_event(ev);
	if (accept) {
		if (rdma_disconnect(id)) {
			perror("rdma_disconnect");
			return 1;
		}
		if (expect_ack(RDMA_CM_EVENT_DISCONNECTED, "client"))
			return 1;
	}
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	return 0;
}

int main(int argc, char **argv)
{
	struct addrinfo *ai;
	int accept, ret;

	if (argc != 5 || (strcmp(argv[4], "accept") &&
			  strcmp(argv[4], "reject"))) {
		fprintf(stderr,
			"usage: %s server|client ADDR PORT accept|reject\n",
			argv[0]);
		return 2;
	}
	accept = !strcmp(argv[4], "accept");
	if (resolve(argv[2], argv[3], &ai))
		return 2;
	ch = rdma_create_event_channel();
	if (!ch) {
		perror("rdma_create_event_channel");
		return 1;
	}
	if (!strcmp(argv[1], "server"))
		ret = server(ai, accept);
	else
		ret = client(ai, accept);
	freeaddrinfo(ai);
	return ret;
}
