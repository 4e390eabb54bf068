/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A minimal TAP test runner: each test is a function that records failed
 * checks; the runner prints "ok N - name" / "not ok N - name" per test and
 * "N passed, N failed" as its last line.
 */
#ifndef ORDMA_TESTS_TAP_H
#define ORDMA_TESTS_TAP_H

#include <stdbool.h>

struct tap_test {
	const char *name;
	void (*fn)(void);
};

#define TAP_TEST(fn)	{ #fn, fn }
#define TAP_END		{ 0, 0 }

bool tap_check(bool ok, const char *file, int line, const char *expr);
bool tap_check_eq(unsigned long long got, unsigned long long want,
		  const char *file, int line, const char *got_expr,
		  const char *want_expr);
void tap_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define CHECK(cond)	tap_check(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_EQ(got, want) \
	tap_check_eq((unsigned long long)(got), (unsigned long long)(want), \
		     __FILE__, __LINE__, #got, #want)
/* Stop the current test: later checks would only repeat the failure. */
#define REQUIRE(cond)	do { if (!CHECK(cond)) return; } while (0)
#define REQUIRE_EQ(got, want) \
	do { if (!CHECK_EQ(got, want)) return; } while (0)

/* Test tables, one per file */
extern const struct tap_test core_tests[];
extern const struct tap_test admin_tests[];
extern const struct tap_test eq_tests[];
extern const struct tap_test eth_tests[];
extern const struct tap_test resource_tests[];
extern const struct tap_test robust_tests[];
extern const struct tap_test mr_tests[];
extern const struct tap_test mw_tests[];
extern const struct tap_test cq_tests[];
extern const struct tap_test ah_tests[];
extern const struct tap_test qp_state_tests[];
extern const struct tap_test qp_tests[];
extern const struct tap_test srq_tests[];
extern const struct tap_test wire_tests[];
extern const struct tap_test transport_tests[];

#endif /* ORDMA_TESTS_TAP_H */
