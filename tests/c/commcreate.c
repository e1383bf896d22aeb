/* commcreate: MPI_Comm_dup/dup_with_info/idup/split/split_type/create/
 * create_group/free/compare/names/info, and MPI_Comm_split of the world
 * into random color/key patterns checked against a locally computed
 * reference (the same pseudo-random patterns on every rank). */
#include "mtest.h"
#include <stdlib.h>
#include <string.h>

static unsigned lcg(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }

/* Checks that newcomm holds exactly the ranks with my color ordered by
 * (key, world rank), by allgathering world ranks over newcomm. */
static int check_split(MPI_Comm nc, const int *colors, const int *keys, int size, int rank)
{
    int errs = 0, i, j, n = 0, want[256], got[256], ns, nr;
    if (colors[rank] == MPI_UNDEFINED) {
        MTEST_CHECK(errs, nc == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
        return errs;
    }
    for (i = 0; i < size; i++)
        if (colors[i] == colors[rank]) {
            /* insertion by (key, rank) */
            for (j = n; j > 0 && keys[want[j - 1]] > keys[i]; j--) want[j] = want[j - 1];
            want[j] = i;
            n++;
        }
    MPI_Comm_size(nc, &ns);
    MPI_Comm_rank(nc, &nr);
    MTEST_CHECK(errs, ns == n, "split size %d want %d", ns, n);
    if (ns != n) return errs;
    /* gather world ranks with point-to-point over nc */
    for (i = 0; i < n; i++) {
        if (i == nr) got[i] = rank;
        MPI_Bcast(&got[i], 1, MPI_INT, i, nc);
        MTEST_CHECK(errs, got[i] == want[i], "split rank %d is world %d, want %d", i, got[i], want[i]);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size, res, i;
    MPI_Comm dup, dup2, split, c;
    char name[MPI_MAX_OBJECT_NAME];
    int len;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    MTEST_CHECK(errs, strcmp(name, "MPI_COMM_WORLD") == 0, "world name %s", name);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
    MTEST_CHECK(errs, res == MPI_CONGRUENT, "compare dup %d", res);
    MPI_Comm_compare(dup, dup, &res);
    MTEST_CHECK(errs, res == MPI_IDENT, "compare self %d", res);
    MPI_Comm_get_name(dup, name, &len);
    MTEST_CHECK(errs, len == 0, "dup has a name: %s", name);
    MPI_Comm_set_name(dup, "my dup");
    MPI_Comm_get_name(dup, name, &len);
    MTEST_CHECK(errs, strcmp(name, "my dup") == 0 && len == 6, "name %s", name);
    {
        int flag = 1;
        MPI_Comm_test_inter(dup, &flag);
        MTEST_CHECK(errs, flag == 0, "test_inter true");
    }
    /* traffic on dup does not match traffic on world */
    if (size > 1) {
        int a = -1, b = -1;
        if (rank == 0) {
            int x = 1, y = 2;
            MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Send(&y, 1, MPI_INT, 1, 0, dup);
        } else if (rank == 1) {
            MPI_Recv(&b, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
            MPI_Recv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MTEST_CHECK(errs, a == 1 && b == 2, "contexts mixed: %d %d", a, b);
        }
    }

    /* dup_with_info and info hints */
    {
        MPI_Info in, got;
        char v[64];
        int flag;
        MPI_Info_create(&in);
        MPI_Info_set(in, "mpi_assert_exact_length", "true"); /* a hint gmpi knows */
        MPI_Comm_dup_with_info(dup, in, &dup2);
        MPI_Info_free(&in);
        MPI_Comm_get_info(dup2, &got);
        MPI_Info_get(got, "mpi_assert_exact_length", 63, v, &flag);
        MTEST_CHECK(errs, flag && strcmp(v, "true") == 0, "hint lost: flag %d", flag);
        MPI_Info_free(&got);
        MPI_Comm_free(&dup2);
        MTEST_CHECK(errs, dup2 == MPI_COMM_NULL, "free did not null the handle");
    }
    /* idup: completed request usable with MPI_Wait */
    {
        MPI_Request req;
        MPI_Comm_idup(dup, &dup2, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MTEST_CHECK(errs, req == MPI_REQUEST_NULL, "idup request not freed by wait");
        MPI_Barrier(dup2);
        MPI_Comm_free(&dup2);
    }
    /* split reversed */
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &split);
    {
        int r;
        MPI_Comm_rank(split, &r);
        MTEST_CHECK(errs, r == size - 1 - rank, "reversed rank %d", r);
        MPI_Comm_compare(MPI_COMM_WORLD, split, &res);
        MTEST_CHECK(errs, res == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare reversed %d", res);
    }
    MPI_Comm_free(&split);

    /* split_type shared: all ranks on one host here */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &c);
    {
        int n;
        MPI_Comm_size(c, &n);
        MTEST_CHECK(errs, n == size, "shared comm size %d", n);
        MPI_Comm_free(&c);
    }
    {
        MPI_Info in;
        int n;
        MPI_Info_create(&in);
        MPI_Info_set(in, "mpi_hw_resource_type", "mpi_shared_memory");
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, in, &c);
        MPI_Comm_size(c, &n);
        MTEST_CHECK(errs, n == size, "hw_guided shared memory size %d", n);
        MPI_Comm_free(&c);
        MPI_Info_set(in, "mpi_hw_resource_type", "gmpi_site");
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, in, &c);
        MPI_Comm_size(c, &n);
        MTEST_CHECK(errs, n == size, "hw_guided site size %d", n);
        MPI_Comm_free(&c);
        MPI_Info_set(in, "mpi_hw_resource_type", "no_such_thing");
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, in, &c);
        MTEST_CHECK(errs, c == MPI_COMM_NULL, "unknown resource type gave a communicator");
        MPI_Info_free(&in);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c);
        MTEST_CHECK(errs, c == MPI_COMM_NULL, "MPI_UNDEFINED split type gave a communicator");
    }

    /* create and create_group with the odd ranks */
    {
        MPI_Group wg, odd;
        int range[1][3] = {{1, size - 1, 2}};
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        if (size > 1)
            MPI_Group_range_incl(wg, 1, range, &odd);
        else
            odd = MPI_GROUP_EMPTY;
        MPI_Comm_create(MPI_COMM_WORLD, odd, &c);
        MTEST_CHECK(errs, (c != MPI_COMM_NULL) == (rank % 2 == 1), "create membership");
        if (c != MPI_COMM_NULL) {
            int r;
            MPI_Comm_rank(c, &r);
            MTEST_CHECK(errs, r == rank / 2, "create rank %d", r);
            MPI_Comm_free(&c);
        }
        if (rank % 2 == 1) {
            int r;
            MPI_Comm_create_group(MPI_COMM_WORLD, odd, 42, &c);
            MPI_Comm_rank(c, &r);
            MTEST_CHECK(errs, r == rank / 2, "create_group rank %d", r);
            MPI_Barrier(c);
            MPI_Comm_free(&c);
        }
        if (odd != MPI_GROUP_EMPTY) MPI_Group_free(&odd);
        MPI_Group_free(&wg);
    }

    /* random split patterns */
    {
        unsigned seed = 12345;
        int colors[256], keys[256], round;
        for (round = 0; round < 50; round++) {
            int nc = 1 + lcg(&seed) % 4;
            for (i = 0; i < size; i++) {
                colors[i] = lcg(&seed) % nc;
                if (lcg(&seed) % 6 == 0) colors[i] = MPI_UNDEFINED;
                keys[i] = (int)(lcg(&seed) % 5) - 2;
            }
            MPI_Comm_split(dup, colors[rank], keys[rank], &c);
            errs += check_split(c, colors, keys, size, rank);
            if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
        }
    }

    /* error cases */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    {
        int rc, cls;
        c = MPI_COMM_WORLD;
        rc = MPI_Comm_free(&c);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_COMM, "freeing MPI_COMM_WORLD: class %d", cls);
        c = MPI_COMM_NULL;
        rc = MPI_Comm_dup(MPI_COMM_NULL, &c);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_COMM, "dup of MPI_COMM_NULL: class %d", cls);
        rc = MPI_Comm_split_type(dup, -5, 0, MPI_INFO_NULL, &c);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_ARG, "negative split_type: class %d", cls);
        rc = MPI_Comm_create(dup, MPI_GROUP_NULL, &c);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_GROUP, "create with MPI_GROUP_NULL: class %d", cls);
        rc = MPI_Comm_compare(dup, MPI_COMM_NULL, &res);
        MPI_Error_class(rc, &cls);
        MTEST_CHECK(errs, cls == MPI_ERR_COMM, "compare with MPI_COMM_NULL: class %d", cls);
    }
    MPI_Comm_free(&dup);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
