/* harness.h - the C unit tests' tiny harness: CHECK macros and a runner.
 * Each test file's main() ends with report(). */
#ifndef SGDMA_TEST_HARNESS_H
#define SGDMA_TEST_HARNESS_H

#include <stdio.h>

static int checks_failed_in_test;
static int tests_passed, tests_failed;

#define CHECK(cond) do { \
	if (!(cond)) { \
		checks_failed_in_test++; \
		printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
	if (a_ != b_) { \
		checks_failed_in_test++; \
		printf("  FAIL %s:%d: %s == %s (%llu = 0x%llx != %llu = 0x%llx)\n", __FILE__, __LINE__, \
		       #a, #b, a_, a_, b_, b_); \
	} \
} while (0)

static void run(const char *name, void (*fn)(void))
{
	checks_failed_in_test = 0;
	fn();
	if (checks_failed_in_test) {
		tests_failed++;
		printf("FAIL %s\n", name);
	} else {
		tests_passed++;
		printf("ok   %s\n", name);
	}
}

#define RUN(fn) run(#fn, fn)

/* The closing line test runners read: "N passed, N failed". */
static int report(void)
{
	printf("%d passed, %d failed\n", tests_passed, tests_failed);
	return tests_failed != 0;
}

#endif
