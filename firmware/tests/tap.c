// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * TAP runner for the firmware unit tests.  Usage: fw_tests [substring]
 * runs every test whose name contains the substring (all by default).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

#define TAP_MAX_REPORTS_PER_TEST	20

static unsigned int failed_checks;

static void tap_report(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void tap_report(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (++failed_checks > TAP_MAX_REPORTS_PER_TEST) {
		if (failed_checks == TAP_MAX_REPORTS_PER_TEST + 1)
			printf("#   (further failures of this test not shown)\n");
		return;
	}
	printf("#   %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

bool tap_check(bool ok, const char *file, int line, const char *expr)
{
	if (!ok)
		tap_report(file, line, "check failed: %s", expr);
	return ok;
}

bool tap_check_eq(unsigned long long got, unsigned long long want,
		  const char *file, int line, const char *got_expr,
		  const char *want_expr)
{
	if (got == want)
		return true;
	tap_report(file, line, "%s == %s failed: got %llu (0x%llx), want %llu (0x%llx)",
		   got_expr, want_expr, got, got, want, want);
	return false;
}

void tap_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static const struct tap_test *const suites[] = {
	core_tests, admin_tests, eq_tests, eth_tests, resource_tests,
	robust_tests, mr_tests, mw_tests, cq_tests, ah_tests, qp_state_tests, qp_tests,
	srq_tests, wire_tests, transport_tests,
};

#define NUM_SUITES (sizeof(suites) / sizeof(suites[0]))

static bool selected(const struct tap_test *t, const char *filter)
{
	return !filter || strstr(t->name, filter);
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int planned = 0, n = 0, passed = 0, failed = 0;
	size_t s;
	const struct tap_test *t;

	for (s = 0; s < NUM_SUITES; s++)
		for (t = suites[s]; t->name; t++)
			planned += selected(t, filter);
	printf("TAP version 13\n1..%u\n", planned);
	fflush(stdout);

	for (s = 0; s < NUM_SUITES; s++) {
		for (t = suites[s]; t->name; t++) {
			if (!selected(t, filter))
				continue;
			failed_checks = 0;
			t->fn();
			n++;
			if (failed_checks) {
				failed++;
				printf("not ok %u - %s\n", n, t->name);
			} else {
				passed++;
				printf("ok %u - %s\n", n, t->name);
			}
			fflush(stdout);
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
