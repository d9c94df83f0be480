/* The check macros of the C tests (one copy for all of them). A failed check
 * prints its file, line, condition and message and counts; the test's main
 * ends with OA_CHECK_EXIT(name), which prints the tally and returns 1 when a
 * check failed:
 *   CHECK(n == 3, "node count %d", n);
 *   return OA_CHECK_EXIT("engine_unit");
 * Counters are per program (static); include this header in one file. */
#ifndef OPENACL_TESTS_OA_CHECK_H
#define OPENACL_TESTS_OA_CHECK_H
#include <stdio.h>

static int oa_checks, oa_failures;

#define CHECK(c, ...)                                                              \
    do {                                                                           \
        oa_checks++;                                                               \
        if (!(c)) {                                                                \
            oa_failures++;                                                         \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #c);                    \
            printf(__VA_ARGS__);                                                   \
            printf("\n");                                                          \
            fflush(stdout);                                                        \
        }                                                                          \
    } while (0)

#define OA_CHECK_EXIT(name)                                                        \
    (printf("%s: %d checks, %d failures\n", (name), oa_checks, oa_failures),       \
     oa_failures ? 1 : 0)

#endif
