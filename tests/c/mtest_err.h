/* mtest_err.h: checking error returns under MPI_ERRORS_RETURN.
 *
 * EXPECT_ERR(errs, call, class, "MPI_Fn", "arg") evaluates call, and
 * counts an error unless it failed with an error code of the given class
 * whose MPI_Error_string names the function and (when arg is not NULL)
 * the bad argument. EXPECT_OK(errs, call) counts an error unless call
 * returned MPI_SUCCESS. */
#ifndef GMPI_MTEST_ERR_H
#define GMPI_MTEST_ERR_H

#include "mtest.h"
#include <string.h>

/* mtest_has_word reports whether word occurs in s not as part of a longer
 * identifier ("comm" in "argument comm:" but not in "communicator"). */
static int mtest_has_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    const char *p;
    for (p = strstr(s, word); p; p = strstr(p + 1, word)) {
        char before = p == s ? ' ' : p[-1], after = p[n];
        int idb = (before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
                  (before >= '0' && before <= '9') || before == '_';
        int ida = (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
                  (after >= '0' && after <= '9') || after == '_';
        if (!idb && !ida)
            return 1;
    }
    return 0;
}

static int mtest_expect_err(int rc, int want, const char *fn, const char *arg, const char *call,
                            const char *file, int line)
{
    int cls = -1, len = 0, wrank;
    char str[MPI_MAX_ERROR_STRING + 1] = "";
    const char *why = NULL;

    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (rc == MPI_SUCCESS) {
        why = "returned MPI_SUCCESS";
    } else {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, str, &len);
        if (cls != want)
            why = "wrong error class";
        else if (len <= 0 || (size_t)len != strlen(str))
            why = "bad error string length";
        else if (fn && !strstr(str, fn))
            why = "error string does not name the function";
        else if (arg && !mtest_has_word(str, arg))
            why = "error string does not name the argument";
    }
    if (!why)
        return 0;
    fprintf(stderr, "[%d] %s:%d: %s: %s (class %d, want %d; \"%s\")\n", wrank, file, line, call,
            why, cls, want, str);
    fflush(stderr);
    return 1;
}

#define EXPECT_ERR(errs, call, cls, fn, arg) \
    ((errs) += mtest_expect_err((call), (cls), (fn), (arg), #call, __FILE__, __LINE__))

#define EXPECT_OK(errs, call)                                                         \
    do {                                                                              \
        int mtest_rc_ = (call);                                                       \
        if (mtest_rc_ != MPI_SUCCESS) {                                               \
            char mtest_s_[MPI_MAX_ERROR_STRING];                                      \
            int mtest_l_;                                                             \
            MPI_Error_string(mtest_rc_, mtest_s_, &mtest_l_);                         \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, mtest_s_); \
            (errs)++;                                                                 \
        }                                                                             \
    } while (0)

#endif
