// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The unit tests with every device recorded (make -C firmware
 * replay-all): linked into the tests built with recording.h, it records
 * each device a test creates and, when the test destroys it, replays its
 * log against the same firmware.  A divergence fails the test: the
 * recorder missed an input, or the firmware did something its inputs do
 * not explain.
 *
 * Some tests reach below the entry points: they change the firmware's
 * state directly (take references, set counters, move a QP's PSN) to
 * reach a case quickly.  Nothing in the log explains that, so their
 * replays diverge; they are listed here with what they change.  A test
 * that calls a firmware function making HAL calls outside an entry point
 * ends its log there (ORDMA_REPLAY_STOP_OUTSIDE_ENTRY) and replays up to
 * that point.
 */
#include <inttypes.h>
#include <string.h>

#include "ordma_test.h"
#include "recording.h"
#include "replay/ordma_replay.h"
#include "replay/replay.h"

static const char *const state_changed_directly[] = {
	"test_pd_refcounts",			/* fw_pd_get() */
	"test_bind_checks",			/* fw_mw_bind() */
	"test_invalidate",
	"test_rereg_with_windows",
	"test_reset_forgets_windows",
	"test_tp_mw_uc_write",
	"test_tp_mw_flush_atomic",
	"test_tp_mw_atomic_misaligned",
	"test_destroy_cq_and_references",	/* fw_cq_get() */
	"test_qp_every_transition",		/* fw_qp_enter_sqe() */
	"test_qp_query_stats",			/* QP counters */
	"test_tp_uc_reorder",			/* expected_psn */
	"test_tp_device_budget_shared_by_qps",	/* tp_outstanding */
	"test_tp_device_budget_woken_by_ack",
	"test_tp_device_budget_retry_without_ack",
	/* fw_tcp_start() and the TCP calls, below the admin commands (the
	 * tests of tests/tcp/test_iw_conn.c drive it through them, and
	 * replay)
	 */
	"test_tcp_handshake_and_mss",
	"test_tcp_mss_from_mtu",
	"test_tcp_bulk_both_ways",
	"test_tcp_lossy_wire",
	"test_tcp_fin_both_ways",
	"test_tcp_rst",
	"test_tcp_connect_refused_and_unanswered",
	"test_tcp_keepalive",
	"test_tcp_forged_segments",
	"test_tcp_classifier",
	"test_tcp_slots",
	"test_iw_bad_request_resets",		/* fw_tcp_connect() */
	"test_iw_refused_requests_free_their_connections",
	"test_iw_siw_request",
	"test_iw_siw_reply",
};

static bool changes_state_directly(void)
{
	size_t i;

	for (i = 0; i < sizeof(state_changed_directly) /
			sizeof(state_changed_directly[0]); i++)
		if (ordma_test_current &&
		    !strcmp(ordma_test_current, state_changed_directly[i]))
			return true;
	return false;
}

static void replay_all_check(unsigned int n)
{
	struct ordma_replay_result res;
	struct ordma_replay_log log;
	enum ordma_replay_outcome out;
	const uint8_t *buf;
	char err[256];
	size_t len;

	buf = rec_test_log(n, &len);
	if (!CHECK(buf && ordma_replay_parse(buf, len, &log, err,
					     sizeof(err)))) {
		NOTE("device %u: %s", n, buf ? err : "no log");
		return;
	}
	if (log.has_trailer && log.stop_reason != ORDMA_REPLAY_STOP_DESTROYED)
		NOTE("device %u: the recording ended at event %zu: %s", n,
		     log.n, ordma_replay_stop_name(log.stop_reason));
	out = ordma_replay_run(&log, &res);
	if (out == ORDMA_REPLAY_DIVERGED && changes_state_directly())
		NOTE("device %u: diverges at event %" PRIu64 " of %zu, as the "
		     "test changes the firmware's state directly", n,
		     res.event, log.n);
	else if (!CHECK_EQ(out, ORDMA_REPLAY_SAME))
		NOTE("device %u: divergence at event %" PRIu64 " of %zu: %s",
		     n, res.event, log.n, res.what);
	ordma_replay_log_free(&log);
}

__attribute__((constructor)) static void replay_all_init(void)
{
	rec_test_record = true;
	rec_test_on_destroy = replay_all_check;
}
