/* info_err: the MPI_Info API at its limits and on bad arguments: keys of
 * exactly MPI_MAX_INFO_KEY and values of exactly MPI_MAX_INFO_VAL
 * characters work, one more is MPI_ERR_INFO_KEY / MPI_ERR_INFO_VALUE in
 * every call that takes a key; empty keys; missing keys
 * (MPI_ERR_INFO_NOKEY on delete, flag 0 elsewhere); nthkey out of range;
 * invalid, freed and null info handles (MPI_ERR_INFO); MPI_INFO_ENV is
 * read-only; MPI_Info_get_string's buffer protocol; dup independence and
 * key order after deletes. Built against Open MPI's ABI or the MPI-5
 * standard ABI the longest key is one character shorter (their
 * MPI_MAX_INFO_KEY counts the NUL: Open MPI refuses keys of
 * MPI_MAX_INFO_KEY characters, the standard's 256 is above the 255 the MPI
 * standard allows). */
#include "mtest_err.h"
#include <stdlib.h>

#if defined(OPEN_MPI) || defined(MPI_ABI_VERSION)
#define KEY_MAX (MPI_MAX_INFO_KEY - 1)
#else
#define KEY_MAX MPI_MAX_INFO_KEY
#endif

int main(int argc, char **argv)
{
    int errs = 0, flag, n, len, i;
    char *key, *longkey, *val, *longval, buf[MPI_MAX_INFO_VAL + 2], k[MPI_MAX_INFO_KEY + 1];
    MPI_Info in, d, freed;

    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    key = malloc(KEY_MAX + 1);
    longkey = malloc(KEY_MAX + 2);
    val = malloc(MPI_MAX_INFO_VAL + 1);
    longval = malloc(MPI_MAX_INFO_VAL + 2);
    memset(key, 'k', KEY_MAX);
    key[KEY_MAX] = 0;
    memset(longkey, 'k', KEY_MAX + 1);
    longkey[KEY_MAX + 1] = 0;
    memset(val, 'v', MPI_MAX_INFO_VAL);
    val[MPI_MAX_INFO_VAL] = 0;
    memset(longval, 'v', MPI_MAX_INFO_VAL + 1);
    longval[MPI_MAX_INFO_VAL + 1] = 0;

    MPI_Info_create(&in);
    /* the limits themselves are fine */
    EXPECT_OK(errs, MPI_Info_set(in, key, val));
    EXPECT_OK(errs, MPI_Info_get_valuelen(in, key, &len, &flag));
    MTEST_CHECK(errs, flag && len == MPI_MAX_INFO_VAL, "valuelen of the longest value %d", len);
    EXPECT_OK(errs, MPI_Info_get(in, key, MPI_MAX_INFO_VAL, buf, &flag));
    MTEST_CHECK(errs, flag && strcmp(buf, val) == 0, "longest value not returned whole");
    EXPECT_OK(errs, MPI_Info_get_nthkey(in, 0, k));
    MTEST_CHECK(errs, strcmp(k, key) == 0, "longest key not returned whole");

    /* one past the limits */
    EXPECT_ERR(errs, MPI_Info_set(in, longkey, "x"), MPI_ERR_INFO_KEY, "MPI_Info_set", "key");
    EXPECT_ERR(errs, MPI_Info_set(in, "x", longval), MPI_ERR_INFO_VALUE, "MPI_Info_set", "value");
    EXPECT_ERR(errs, MPI_Info_get(in, longkey, 10, buf, &flag), MPI_ERR_INFO_KEY, "MPI_Info_get", "key");
    EXPECT_ERR(errs, MPI_Info_get_valuelen(in, longkey, &len, &flag), MPI_ERR_INFO_KEY, "MPI_Info_get_valuelen",
               "key");
    len = 10;
    EXPECT_ERR(errs, MPI_Info_get_string(in, longkey, &len, buf, &flag), MPI_ERR_INFO_KEY, "MPI_Info_get_string",
               "key");
    EXPECT_ERR(errs, MPI_Info_delete(in, longkey), MPI_ERR_INFO_KEY, "MPI_Info_delete", "key");
    /* empty keys */
    EXPECT_ERR(errs, MPI_Info_set(in, "", "x"), MPI_ERR_INFO_KEY, "MPI_Info_set", "key");
    EXPECT_ERR(errs, MPI_Info_get(in, "", 10, buf, &flag), MPI_ERR_INFO_KEY, "MPI_Info_get", "key");
    /* nothing above changed the object */
    MPI_Info_get_nkeys(in, &n);
    MTEST_CHECK(errs, n == 1, "nkeys after the failed calls %d", n);

    /* missing keys */
    EXPECT_ERR(errs, MPI_Info_delete(in, "absent"), MPI_ERR_INFO_NOKEY, "MPI_Info_delete", "key");
    flag = 1;
    EXPECT_OK(errs, MPI_Info_get_valuelen(in, "absent", &len, &flag));
    MTEST_CHECK(errs, !flag, "valuelen of a missing key set flag");
    flag = 1;
    len = 10;
    EXPECT_OK(errs, MPI_Info_get_string(in, "absent", &len, buf, &flag));
    MTEST_CHECK(errs, !flag, "get_string of a missing key set flag");

    /* other bad arguments */
    EXPECT_ERR(errs, MPI_Info_get_nthkey(in, 1, k), MPI_ERR_ARG, "MPI_Info_get_nthkey", "n");
    EXPECT_ERR(errs, MPI_Info_get_nthkey(in, -1, k), MPI_ERR_ARG, "MPI_Info_get_nthkey", "n");
    EXPECT_ERR(errs, MPI_Info_get(in, key, -1, buf, &flag), MPI_ERR_ARG, "MPI_Info_get", "valuelen");
    EXPECT_ERR(errs, MPI_Info_get(in, key, 10, buf, NULL), MPI_ERR_ARG, "MPI_Info_get", "flag");
    EXPECT_ERR(errs, MPI_Info_get(in, NULL, 10, buf, &flag), MPI_ERR_ARG, "MPI_Info_get", "key");
    EXPECT_ERR(errs, MPI_Info_set(in, "x", NULL), MPI_ERR_ARG, "MPI_Info_set", "value");
    EXPECT_ERR(errs, MPI_Info_get_nkeys(in, NULL), MPI_ERR_ARG, "MPI_Info_get_nkeys", "nkeys");
    len = -2;
    EXPECT_ERR(errs, MPI_Info_get_string(in, key, &len, buf, &flag), MPI_ERR_ARG, "MPI_Info_get_string", "buflen");
    EXPECT_ERR(errs, MPI_Info_create(NULL), MPI_ERR_ARG, "MPI_Info_create", "info");
    EXPECT_ERR(errs, MPI_Info_dup(in, NULL), MPI_ERR_ARG, "MPI_Info_dup", "newinfo");

    /* invalid handles */
    MPI_Info_create(&freed);
    d = freed;
    MPI_Info_free(&d);
    {
        MPI_Info bad[3];
        int j;
        bad[0] = MPI_INFO_NULL;
        bad[1] = freed;
        bad[2] = (MPI_Info)MPI_COMM_WORLD;
        for (j = 0; j < 3; j++) {
            EXPECT_ERR(errs, MPI_Info_set(bad[j], "a", "b"), MPI_ERR_INFO, "MPI_Info_set", "info");
            EXPECT_ERR(errs, MPI_Info_get(bad[j], "a", 10, buf, &flag), MPI_ERR_INFO, "MPI_Info_get", "info");
            EXPECT_ERR(errs, MPI_Info_get_nkeys(bad[j], &n), MPI_ERR_INFO, "MPI_Info_get_nkeys", "info");
            EXPECT_ERR(errs, MPI_Info_get_nthkey(bad[j], 0, k), MPI_ERR_INFO, "MPI_Info_get_nthkey", "info");
            EXPECT_ERR(errs, MPI_Info_get_valuelen(bad[j], "a", &len, &flag), MPI_ERR_INFO, "MPI_Info_get_valuelen",
                       "info");
            len = 10;
            EXPECT_ERR(errs, MPI_Info_get_string(bad[j], "a", &len, buf, &flag), MPI_ERR_INFO, "MPI_Info_get_string",
                       "info");
            EXPECT_ERR(errs, MPI_Info_delete(bad[j], "a"), MPI_ERR_INFO, "MPI_Info_delete", "info");
            EXPECT_ERR(errs, MPI_Info_dup(bad[j], &d), MPI_ERR_INFO, "MPI_Info_dup", "info");
            d = bad[j];
            EXPECT_ERR(errs, MPI_Info_free(&d), MPI_ERR_INFO, "MPI_Info_free", "info");
        }
    }
    /* MPI_INFO_ENV is read-only but readable and dup-able */
    EXPECT_ERR(errs, MPI_Info_delete(MPI_INFO_ENV, "command"), MPI_ERR_INFO, "MPI_Info_delete", "info");
    d = MPI_INFO_ENV;
    EXPECT_ERR(errs, MPI_Info_free(&d), MPI_ERR_INFO, "MPI_Info_free", "info");
    EXPECT_OK(errs, MPI_Info_dup(MPI_INFO_ENV, &d));
    EXPECT_OK(errs, MPI_Info_set(d, "command", "changed"));
    MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, buf, &flag);
    MTEST_CHECK(errs, !flag || strcmp(buf, "changed") != 0, "changing a dup of MPI_INFO_ENV changed it");
    MPI_Info_free(&d);

    /* get_string: a short buffer gets a truncated, terminated value and the
     * size needed; buflen 0 asks for the size only. */
    MPI_Info_set(in, "word", "abcdef");
    len = 4;
    memset(buf, 'z', sizeof buf);
    EXPECT_OK(errs, MPI_Info_get_string(in, "word", &len, buf, &flag));
    MTEST_CHECK(errs, flag && len == 7 && strcmp(buf, "abc") == 0, "short get_string: len %d \"%.8s\"", len, buf);
    len = 0;
    EXPECT_OK(errs, MPI_Info_get_string(in, "word", &len, NULL, &flag));
    MTEST_CHECK(errs, flag && len == 7, "size query len %d", len);
    /* MPI_Info_get with a short valuelen truncates too */
    EXPECT_OK(errs, MPI_Info_get(in, "word", 2, buf, &flag));
    MTEST_CHECK(errs, flag && strcmp(buf, "ab") == 0, "short get \"%s\"", buf);

    /* dup is deep; order is insertion order and survives deletes */
    MPI_Info_set(in, "third", "3");
    MPI_Info_dup(in, &d);
    MPI_Info_set(d, "word", "other");
    MPI_Info_delete(d, key);
    MPI_Info_get(in, "word", MPI_MAX_INFO_VAL, buf, &flag);
    MTEST_CHECK(errs, flag && strcmp(buf, "abcdef") == 0, "dup shares values: %s", buf);
    MPI_Info_get_nkeys(in, &n);
    MTEST_CHECK(errs, n == 3, "original lost a key: %d", n);
    MPI_Info_get_nkeys(d, &n);
    MTEST_CHECK(errs, n == 2, "dup nkeys %d", n);
    MPI_Info_get_nthkey(d, 0, k);
    MTEST_CHECK(errs, strcmp(k, "word") == 0, "dup key 0 %s", k);
    MPI_Info_get_nthkey(d, 1, k);
    MTEST_CHECK(errs, strcmp(k, "third") == 0, "dup key 1 %s", k);
    for (i = 0; i < 3; i++) {
        MPI_Info_get_nthkey(in, i, k);
        MPI_Info_get_valuelen(in, k, &len, &flag);
        MTEST_CHECK(errs, flag, "nthkey %d (%.20s) has no value", i, k);
    }
    MPI_Info_free(&d);
    MPI_Info_free(&in);
    MTEST_CHECK(errs, in == MPI_INFO_NULL, "free did not null the handle");

    free(key);
    free(longkey);
    free(val);
    free(longval);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
