/* utest.h — the smallest unit-test harness: one line per check, "ok"/"not ok", counted by tests/run.sh.
 *
 *   UTEST(name) { CHECK(cond); CHECK_NEAR(a, b, tol); CHECK_REL(a, b, rel); }
 *   int main(void) { RUN(name); ...; return utest_done(); }
 *
 * Each RUN prints "ok NAME" or "not ok NAME" followed by the failed checks; the exit status is non-zero when any
 * test failed. Header-only so each tests/unit/test_*.c builds into its own binary. */
#ifndef UTEST_H
#define UTEST_H
#include <math.h>
#include <stdio.h>

static int utest_failed_checks, utest_passed, utest_failed;

#define UTEST(name) static void utest_##name(void)

#define CHECK(cond)                                                                                 \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            utest_failed_checks++;                                                                  \
            fprintf(stdout, "#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);           \
        }                                                                                           \
    } while (0)

/* CHECK, and the test stops at a failure: for what the rest of the test cannot go on without. */
#define REQUIRE(cond)                                                                               \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            utest_failed_checks++;                                                                  \
            fprintf(stdout, "#   %s:%d: REQUIRE(%s) failed\n", __FILE__, __LINE__, #cond);         \
            return;                                                                                 \
        }                                                                                           \
    } while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol)                                                                       \
    do {                                                                                            \
        double ua_ = (a), ub_ = (b);                                                                \
        if (!(fabs(ua_ - ub_) <= (tol))) {                                                          \
            utest_failed_checks++;                                                                  \
            fprintf(stdout, "#   %s:%d: %s = %.17g, %s = %.17g, |diff| %.3g > %.3g\n", __FILE__,    \
                    __LINE__, #a, ua_, #b, ub_, fabs(ua_ - ub_), (double)(tol));                    \
        }                                                                                           \
    } while (0)

/* |a - b| <= rel * max(|a|, |b|, 1) */
#define CHECK_REL(a, b, rel)                                                                        \
    do {                                                                                            \
        double ua_ = (a), ub_ = (b), us_ = fmax(1.0, fmax(fabs(ua_), fabs(ub_)));                   \
        if (!(fabs(ua_ - ub_) <= (rel) * us_)) {                                                    \
            utest_failed_checks++;                                                                  \
            fprintf(stdout, "#   %s:%d: %s = %.17g, %s = %.17g, rel diff %.3g > %.3g\n", __FILE__,  \
                    __LINE__, #a, ua_, #b, ub_, fabs(ua_ - ub_) / us_, (double)(rel));              \
        }                                                                                           \
    } while (0)

/* Equal numbers within tol (which may use sb_, the value of b), or the same infinity (absent limits in machine
 * descriptions). */
#define CHECK_SAME_TOL(a, b, tol)                                                                   \
    do {                                                                                            \
        double sa_ = (a), sb_ = (b);                                                                \
        if (isinf(sa_) || isinf(sb_))                                                               \
            CHECK(sa_ == sb_);                                                                      \
        else                                                                                        \
            CHECK_NEAR(sa_, sb_, tol);                                                              \
    } while (0)

#define RUN(name)                                                                                   \
    do {                                                                                            \
        int before_ = utest_failed_checks;                                                          \
        utest_##name();                                                                             \
        if (utest_failed_checks == before_) {                                                       \
            utest_passed++;                                                                         \
            printf("ok %s\n", #name);                                                               \
        } else {                                                                                    \
            utest_failed++;                                                                         \
            printf("not ok %s\n", #name);                                                           \
        }                                                                                           \
        fflush(stdout);                                                                             \
    } while (0)

static inline int utest_done(void) { return utest_failed ? 1 : 0; }

#endif
