/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The ORDMA C test runner, shared by the firmware unit tests, the
 * provider's host tests and the selftest programs run in the VM.
 *
 * A test registers itself where it is defined:
 *
 *	TEST(cq_overflow_reports_error)
 *	{
 *		REQUIRE(setup() == 0);
 *		CHECK_EQ(read_status(), ORDMA_CQE_STATUS_OK);
 *	}
 *
 * Each test runs in its own child process (so a sanitizer abort, a crash
 * or a hang ends that test only) and prints one TAP line; the last line is
 * "N passed, N failed[, N skipped]".  The program's arguments are name
 * substrings: only matching tests run.  ORDMA_TEST_NOFORK=1 runs the tests
 * in the runner's own process (for a debugger); ORDMA_TEST_TIMEOUT sets the
 * per-test bound in seconds (default 300, 0 for none).
 */
#ifndef ORDMA_TEST_H
#define ORDMA_TEST_H

#include <stdbool.h>

struct ordma_test {
	const char *name;
	const char *file;
	void (*fn)(void);
	struct ordma_test *next;
};

void ordma_test_register(struct ordma_test *test);
/* Name of the test running in this process, NULL between tests */
extern const char *ordma_test_current;

#define ORDMA_TEST_REGISTER(fn_name)					\
	static struct ordma_test ordma_test_desc_##fn_name = {		\
		.name = #fn_name, .file = __FILE__, .fn = fn_name,	\
	};								\
	__attribute__((constructor))					\
	static void ordma_test_register_##fn_name(void)			\
	{								\
		ordma_test_register(&ordma_test_desc_##fn_name);	\
	}

/* Define and register a test; tests run in the order they are defined. */
#define TEST(fn_name)							\
	static void fn_name(void);					\
	ORDMA_TEST_REGISTER(fn_name)					\
	static void fn_name(void)

bool ordma_test_check(bool ok, const char *file, int line, const char *expr);
bool ordma_test_check_eq(unsigned long long got, unsigned long long want,
			 const char *file, int line, const char *got_expr,
			 const char *want_expr);
void ordma_test_note(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void ordma_test_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Failed checks so far in the running test. */
unsigned int ordma_test_failures(void);
/* Runs the selected tests; for a program with its own main(). */
int ordma_test_main(int argc, char **argv);

#define CHECK(cond)	ordma_test_check(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_EQ(got, want)						\
	ordma_test_check_eq((unsigned long long)(got),			\
			    (unsigned long long)(want),			\
			    __FILE__, __LINE__, #got, #want)
/* Stop the current test: later checks would only repeat the failure. */
#define REQUIRE(cond)	do { if (!CHECK(cond)) return; } while (0)
#define REQUIRE_EQ(got, want)						\
	do { if (!CHECK_EQ(got, want)) return; } while (0)
#define NOTE(...)	ordma_test_note(__VA_ARGS__)
/* Report the test as skipped (with a reason) and stop it. */
#define SKIP(...)	do { ordma_test_skip(__VA_ARGS__); return; } while (0)

#endif /* ORDMA_TEST_H */
