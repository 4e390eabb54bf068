// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The ORDMA C test runner (see ordma_test.h): self-registered tests, one
 * child process per test, TAP output.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ordma_test.h"

#define MAX_REPORTS_PER_TEST	20
#define DEFAULT_TIMEOUT_S	300
#define SKIP_REASON_MAX		200

/* Child exit codes; anything else (a sanitizer's, a signal) is a failure. */
#define EXIT_TEST_PASSED	0
#define EXIT_TEST_FAILED	1
#define EXIT_TEST_SKIPPED	2

static struct ordma_test *first_test, **last_test = &first_test;
static unsigned int failed_checks;
static bool skipped;
static char skip_reason[SKIP_REASON_MAX];

void ordma_test_register(struct ordma_test *test)
{
	test->next = NULL;
	*last_test = test;
	last_test = &test->next;
}

unsigned int ordma_test_failures(void)
{
	return failed_checks;
}

static void report(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (++failed_checks > MAX_REPORTS_PER_TEST) {
		if (failed_checks == MAX_REPORTS_PER_TEST + 1)
			printf("#   (further failures of this test not shown)\n");
		return;
	}
	printf("#   %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

bool ordma_test_check(bool ok, const char *file, int line, const char *expr)
{
	if (!ok)
		report(file, line, "check failed: %s", expr);
	return ok;
}

bool ordma_test_check_eq(unsigned long long got, unsigned long long want,
			 const char *file, int line, const char *got_expr,
			 const char *want_expr)
{
	if (got == want)
		return true;
	report(file, line,
	       "%s == %s failed: got %llu (0x%llx), want %llu (0x%llx)",
	       got_expr, want_expr, got, got, want, want);
	return false;
}

void ordma_test_note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void ordma_test_skip(const char *fmt, ...)
{
	va_list ap;

	skipped = true;
	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
}

static bool selected(const struct ordma_test *t, int nfilters, char **filters)
{
	int i;

	if (!nfilters)
		return true;
	for (i = 0; i < nfilters; i++)
		if (strstr(t->name, filters[i]))
			return true;
	return false;
}

const char *ordma_test_current;

static int run_in_process(const struct ordma_test *t)
{
	failed_checks = 0;
	skipped = false;
	skip_reason[0] = '\0';
	ordma_test_current = t->name;
	t->fn();
	ordma_test_current = NULL;
	fflush(stdout);
	if (failed_checks)
		return EXIT_TEST_FAILED;
	return skipped ? EXIT_TEST_SKIPPED : EXIT_TEST_PASSED;
}

/*
 * Run @t in a child; return its exit code, or -signal.  A skip reason
 * comes back through a pipe (the child's memory is gone with it).
 */
static int run_in_child(const struct ordma_test *t, unsigned int timeout_s)
{
	int pipefd[2], status, rc;
	ssize_t len;
	pid_t pid;

	if (pipe(pipefd))
		return -SIGABRT;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -SIGABRT;
	}
	if (!pid) {
		close(pipefd[0]);
		if (timeout_s)
			alarm(timeout_s);
		rc = run_in_process(t);
		if (rc == EXIT_TEST_SKIPPED &&
		    write(pipefd[1], skip_reason, strlen(skip_reason)) < 0)
			rc = EXIT_TEST_FAILED;
		close(pipefd[1]);
		/* exit(), not _exit(): the leak checker runs at exit. */
		exit(rc);
	}
	close(pipefd[1]);
	len = read(pipefd[0], skip_reason, sizeof(skip_reason) - 1);
	skip_reason[len > 0 ? len : 0] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -SIGABRT;
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WEXITSTATUS(status);
}

int ordma_test_main(int argc, char **argv)
{
	const char *nofork = getenv("ORDMA_TEST_NOFORK");
	const char *timeout = getenv("ORDMA_TEST_TIMEOUT");
	unsigned int timeout_s = timeout ? strtoul(timeout, NULL, 0) :
					   DEFAULT_TIMEOUT_S;
	unsigned int planned = 0, n = 0, passed = 0, failed = 0, skips = 0;
	bool in_process = nofork && strcmp(nofork, "0");
	const struct ordma_test *t;
	int rc;

	for (t = first_test; t; t = t->next)
		planned += selected(t, argc - 1, argv + 1);
	printf("TAP version 13\n1..%u\n", planned);

	for (t = first_test; t; t = t->next) {
		if (!selected(t, argc - 1, argv + 1))
			continue;
		n++;
		rc = in_process ? run_in_process(t) :
				  run_in_child(t, timeout_s);
		if (rc == EXIT_TEST_PASSED) {
			passed++;
			printf("ok %u - %s\n", n, t->name);
		} else if (rc == EXIT_TEST_SKIPPED) {
			skips++;
			printf("ok %u - %s # SKIP %s\n", n, t->name,
			       skip_reason);
		} else {
			failed++;
			if (rc == -SIGALRM)
				printf("#   timed out after %u s\n", timeout_s);
			else if (rc < 0)
				printf("#   killed by signal %d (%s)\n", -rc,
				       strsignal(-rc));
			else if (rc != EXIT_TEST_FAILED)
				printf("#   exited with status %d\n", rc);
			printf("not ok %u - %s (%s)\n", n, t->name, t->file);
		}
		fflush(stdout);
	}
	if (skips)
		printf("%u passed, %u failed, %u skipped\n", passed, failed,
		       skips);
	else
		printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* A program with its own main() (setup first) calls ordma_test_main(). */
__attribute__((weak)) int main(int argc, char **argv)
{
	return ordma_test_main(argc, argv);
}
