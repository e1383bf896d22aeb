/* info: the MPI_Info API, MPI_INFO_ENV and the error cases. */
#include "mtest.h"
#include <string.h>

int main(int argc, char **argv)
{
    int errs = 0, flag, n, len, rc, cls, i;
    char v[MPI_MAX_INFO_VAL + 1], k[MPI_MAX_INFO_KEY + 1];
    MPI_Info in, d;

    MTest_Init(&argc, &argv);
    MPI_Info_create(&in);
    MPI_Info_get_nkeys(in, &n);
    MTEST_CHECK(errs, n == 0, "new info has %d keys", n);
    MPI_Info_set(in, "alpha", "1");
    MPI_Info_set(in, "beta", "two");
    MPI_Info_set(in, "gamma", "3");
    MPI_Info_set(in, "alpha", "one"); /* replace keeps the position */
    MPI_Info_get_nkeys(in, &n);
    MTEST_CHECK(errs, n == 3, "nkeys %d", n);
    MPI_Info_get_nthkey(in, 0, k);
    MTEST_CHECK(errs, strcmp(k, "alpha") == 0, "key 0 %s", k);
    MPI_Info_get_nthkey(in, 2, k);
    MTEST_CHECK(errs, strcmp(k, "gamma") == 0, "key 2 %s", k);
    MPI_Info_get(in, "alpha", MPI_MAX_INFO_VAL, v, &flag);
    MTEST_CHECK(errs, flag && strcmp(v, "one") == 0, "alpha=%s", v);
    MPI_Info_get(in, "nokey", MPI_MAX_INFO_VAL, v, &flag);
    MTEST_CHECK(errs, !flag, "nokey found");
    MPI_Info_get_valuelen(in, "beta", &len, &flag);
    MTEST_CHECK(errs, flag && len == 3, "valuelen %d", len);
    /* truncated get */
    MPI_Info_get(in, "beta", 1, v, &flag);
    MTEST_CHECK(errs, flag && strcmp(v, "t") == 0, "truncated %s", v);
    /* get_string: buflen in/out */
    len = 0;
    MPI_Info_get_string(in, "beta", &len, v, &flag);
    MTEST_CHECK(errs, flag && len == 4, "get_string size query %d", len);
    len = sizeof v;
    MPI_Info_get_string(in, "beta", &len, v, &flag);
    MTEST_CHECK(errs, flag && len == 4 && strcmp(v, "two") == 0, "get_string %s %d", v, len);

    MPI_Info_dup(in, &d);
    MPI_Info_delete(in, "beta");
    MPI_Info_get_nkeys(in, &n);
    MTEST_CHECK(errs, n == 2, "after delete nkeys %d", n);
    MPI_Info_get(d, "beta", MPI_MAX_INFO_VAL, v, &flag);
    MTEST_CHECK(errs, flag && strcmp(v, "two") == 0, "dup lost beta");
    MPI_Info_free(&d);
    MTEST_CHECK(errs, d == MPI_INFO_NULL, "free did not null");

    /* MPI_INFO_ENV */
    MPI_Info_get_nkeys(MPI_INFO_ENV, &n);
    MTEST_CHECK(errs, n >= 1, "MPI_INFO_ENV empty");
    MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, v, &flag);
    MTEST_CHECK(errs, flag && strstr(v, "info") != NULL, "command=%s", flag ? v : "(none)");
    MPI_Info_create_env(argc, argv, &d);
    MPI_Info_get(d, "maxprocs", MPI_MAX_INFO_VAL, v, &flag);
    MTEST_CHECK(errs, flag, "create_env without maxprocs");
    MPI_Info_free(&d);

    /* error cases */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Info_delete(in, "beta");
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_INFO_NOKEY, "delete missing: class %d", cls);
    rc = MPI_Info_get_nthkey(in, 5, k);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_ARG, "nthkey out of range: class %d", cls);
    {
        char longkey[MPI_MAX_INFO_KEY + 10];
        for (i = 0; i < (int)sizeof longkey - 1; i++) longkey[i] = 'k';
        longkey[sizeof longkey - 1] = 0;
        rc = MPI_Info_set(in, longkey, "x");
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_INFO_KEY, "long key: class %d", cls);
    }
    rc = MPI_Info_set(MPI_INFO_NULL, "a", "b");
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_INFO, "set on MPI_INFO_NULL: class %d", cls);
    rc = MPI_Info_set(MPI_INFO_ENV, "a", "b");
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_INFO, "set on MPI_INFO_ENV: class %d", cls);
    d = in;
    MPI_Info_free(&in);
    rc = MPI_Info_free(&d);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_INFO, "double free: class %d", cls);

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
