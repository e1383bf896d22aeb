/* info_preinit: MPI 4.0 lets the MPI_Info_* calls run before MPI_Init and
 * after MPI_Finalize (create, set, get_string, dup, get_nkeys, free,
 * MPI_Info_create_env, MPI_INFO_ENV); objects made before MPI_Init stay
 * usable inside and after. MPI_Comm_set_info ignores keys it does not
 * know and MPI_Comm_get_info reports the hints in force: the four
 * mpi_assert_* keys, "false" unless set, as MPICH does. Any number of
 * processes. */
#include "mtest.h"
#include <string.h>

static int has(MPI_Info in, const char *key, const char *want)
{
    char v[256];
    int flag = 0, len = sizeof(v);
    MPI_Info_get_string(in, key, &len, v, &flag);
    return want ? flag && !strcmp(v, want) : !flag;
}

int main(int argc, char **argv)
{
    int errs = 0, n = -1, rc, flag, len, rank;
    char v[64];
    MPI_Info a, d, env, ci;
    MPI_Comm dup;

    /* Before MPI_Init (no error handler can be set yet: a failure here is
     * fatal, and the checks count below). */
    rc = MPI_Info_create(&a);
    errs += rc != MPI_SUCCESS;
    errs += MPI_Info_set(a, "foo", "bar") != MPI_SUCCESS;
    len = sizeof(v);
    flag = 0;
    errs += MPI_Info_get_string(a, "foo", &len, v, &flag) != MPI_SUCCESS;
    errs += !(flag && !strcmp(v, "bar") && len == 4);
    errs += MPI_Info_dup(a, &d) != MPI_SUCCESS;
    errs += MPI_Info_get_nkeys(d, &n) != MPI_SUCCESS || n != 1;
    errs += MPI_Info_create_env(argc, argv, &env) != MPI_SUCCESS;
    errs += MPI_Info_get_nkeys(MPI_INFO_ENV, &n) != MPI_SUCCESS;
    errs += MPI_Info_free(&d) != MPI_SUCCESS || d != MPI_INFO_NULL;
    if (errs)
        fprintf(stderr, "%d info calls failed before MPI_Init\n", errs);

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MTEST_CHECK(errs, has(a, "foo", "bar"), "info made before MPI_Init lost its key");
    MPI_Info_get_nkeys(env, &n);
    MTEST_CHECK(errs, n >= 0, "MPI_Info_create_env before MPI_Init: %d keys", n);

    /* Communicator hints. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Info_set(a, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(a, "nonsense_key", "1");
    MPI_Comm_set_info(dup, a);
    MPI_Comm_get_info(dup, &ci);
    MPI_Info_get_nkeys(ci, &n);
    MTEST_CHECK(errs, n >= 4, "Comm_get_info: %d keys, want at least the 4 assertions", n);
    MTEST_CHECK(errs, has(ci, "mpi_assert_no_any_tag", "true"), "mpi_assert_no_any_tag not in force");
    MTEST_CHECK(errs, has(ci, "mpi_assert_no_any_source", "false"), "mpi_assert_no_any_source not reported false");
    MTEST_CHECK(errs, has(ci, "nonsense_key", NULL) && has(ci, "foo", NULL), "unknown keys reported");
    MPI_Info_free(&ci);
    MPI_Comm_get_info(MPI_COMM_WORLD, &ci);
    MTEST_CHECK(errs, has(ci, "mpi_assert_allow_overtaking", "false") && has(ci, "foo", NULL), "world's hints");
    MPI_Info_free(&ci);
    MPI_Comm_free(&dup);
    MPI_Info_delete(a, "mpi_assert_no_any_tag");
    MPI_Info_delete(a, "nonsense_key");

    MTest_Finalize(errs);

    /* After MPI_Finalize. */
    if (!has(a, "foo", "bar") || MPI_Info_free(&a) != MPI_SUCCESS || MPI_Info_create(&a) != MPI_SUCCESS ||
        MPI_Info_set(a, "k", "v") != MPI_SUCCESS || MPI_Info_free(&a) != MPI_SUCCESS ||
        MPI_Info_free(&env) != MPI_SUCCESS) {
        printf("info calls failed after MPI_Finalize\n");
        return 1;
    }
    return MTestReturnValue(errs);
}
