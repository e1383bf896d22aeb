/* errhandler: with MPI_ERRORS_RETURN on MPI_COMM_WORLD, bad arguments come
 * back as error codes of the right class: rank, tag, count, communicator
 * (errors on MPI_COMM_NULL go to MPI_COMM_WORLD's handler), datatype,
 * buffer, root, and truncation. MPI_Error_class and MPI_Error_string
 * describe the codes; MPI_Comm_get_errhandler returns what was set; the
 * job still communicates after the errors. */
#include "mtest.h"

#include <string.h>

/* expect checks that rc is an error of class want and that its string is
 * usable. */
static int expect(int rc, int want, const char *what)
{
    int errs = 0, cls = -1, len = -1, rc2;
    char str[MPI_MAX_ERROR_STRING + 1];

    if (rc == MPI_SUCCESS) {
        MTEST_CHECK(errs, rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, want class %d", what, want);
        return errs;
    }
    rc2 = MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, rc2 == MPI_SUCCESS, "%s: MPI_Error_class(%d) failed with %d", what, rc, rc2);
    MTEST_CHECK(errs, cls == want, "%s: error code %d has class %d, want %d", what, rc, cls, want);
    memset(str, 0, sizeof str);
    rc2 = MPI_Error_string(rc, str, &len);
    MTEST_CHECK(errs, rc2 == MPI_SUCCESS && len > 0 && len < MPI_MAX_ERROR_STRING &&
                          (size_t)len == strlen(str),
                "%s: MPI_Error_string gave rc %d, length %d, \"%s\"", what, rc2, len, str);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size, rc, buf[16], i, cls = -1, len = -1;
    char str[MPI_MAX_ERROR_STRING + 1];
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Datatype uncommitted;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    MTEST_CHECK(errs, eh == MPI_ERRORS_ARE_FATAL, "default handler of MPI_COMM_WORLD is %#x",
                (unsigned)eh);
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "MPI_Comm_set_errhandler returned %d", rc);
    eh = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    MTEST_CHECK(errs, eh == MPI_ERRORS_RETURN, "handler after set is %#x, want MPI_ERRORS_RETURN",
                (unsigned)eh);

    /* The code <-> class mapping of the classes themselves. */
    MPI_Error_class(MPI_SUCCESS, &cls);
    MTEST_CHECK(errs, cls == MPI_SUCCESS, "class of MPI_SUCCESS is %d", cls);
    MPI_Error_class(MPI_ERR_RANK, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_RANK, "class of MPI_ERR_RANK is %d", cls);
    MPI_Error_string(MPI_ERR_TRUNCATE, str, &len);
    MTEST_CHECK(errs, len > 0 && (size_t)len == strlen(str), "string of MPI_ERR_TRUNCATE: \"%s\"",
                str);

    for (i = 0; i < 16; i++)
        buf[i] = i;

    /* Ranks. */
    errs += expect(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK,
                   "MPI_Send to rank size");
    errs += expect(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK,
                   "MPI_Send to rank -5");
    errs += expect(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   MPI_ERR_RANK, "MPI_Recv from rank size+3");

    /* Tags: negative tags other than MPI_ANY_TAG; MPI_ANY_TAG on a send. */
    errs += expect(MPI_Send(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG,
                   "MPI_Send with tag -5");
    errs += expect(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG,
                   "MPI_Send with tag MPI_ANY_TAG");
    errs += expect(MPI_Recv(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   MPI_ERR_TAG, "MPI_Recv with tag -7");

    /* Counts. */
    errs += expect(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT,
                   "MPI_Send with count -1");
    errs += expect(MPI_Recv(buf, -3, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   MPI_ERR_COUNT, "MPI_Recv with count -3");

    /* Communicators: the error is raised on MPI_COMM_WORLD's handler. */
    errs += expect(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM,
                   "MPI_Send on MPI_COMM_NULL");
    errs += expect(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, MPI_STATUS_IGNORE),
                   MPI_ERR_COMM, "MPI_Recv on MPI_COMM_NULL");
    errs += expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier on MPI_COMM_NULL");
    {
        int r = -1;
        errs += expect(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM,
                       "MPI_Comm_rank on MPI_COMM_NULL");
    }

    /* Datatypes: the null type, and a derived type that is not committed. */
    errs += expect(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
                   "MPI_Send with MPI_DATATYPE_NULL");
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    errs += expect(MPI_Send(buf, 1, uncommitted, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
                   "MPI_Send with an uncommitted type");
    MPI_Type_free(&uncommitted);

    /* A NULL buffer with a positive count. */
    errs += expect(MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                   "MPI_Send from NULL");

    /* Roots of collectives (every rank makes the same call). */
    errs += expect(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT,
                   "MPI_Bcast with root size");
    errs += expect(MPI_Bcast(buf, 1, MPI_INT, -2, MPI_COMM_WORLD), MPI_ERR_ROOT,
                   "MPI_Bcast with root -2");

    /* Truncation: rank 0 sends 10 ints, rank 1 has room for 5. */
    if (size >= 2) {
        if (rank == 0) {
            rc = MPI_Send(buf, 10, MPI_INT, 1, 99, MPI_COMM_WORLD);
            MTEST_CHECK(errs, rc == MPI_SUCCESS, "send of the truncated message: %d", rc);
        } else if (rank == 1) {
            MPI_Status st;
            int small[5];
            st.MPI_ERROR = MPI_SUCCESS;
            rc = MPI_Recv(small, 5, MPI_INT, 0, 99, MPI_COMM_WORLD, &st);
            errs += expect(rc, MPI_ERR_TRUNCATE, "MPI_Recv of 10 ints into 5");
            MTEST_CHECK(errs, st.MPI_SOURCE == 0 && st.MPI_TAG == 99,
                        "truncated receive: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        }
    }

    /* The job still works: a ring exchange and a reduction. */
    if (size >= 2) {
        int token = rank, got = -1;
        rc = MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
                          (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MTEST_CHECK(errs, rc == MPI_SUCCESS && got == (rank + size - 1) % size,
                    "exchange after errors: rc %d got %d", rc, got);
    }
    {
        int one = 1, sum = 0;
        rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MTEST_CHECK(errs, rc == MPI_SUCCESS && sum == size, "allreduce after errors: rc %d sum %d",
                    rc, sum);
    }

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
