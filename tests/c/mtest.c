/* mtest.c: see mtest.h. Uses only the MPI API. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static int global_errs;

void MTest_Init(int *argc, char ***argv)
{
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag)
        MPI_Init(argc, argv);
}

void MTest_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag)
        MPI_Init_thread(argc, argv, required, provided);
    else
        MPI_Query_thread(provided);
}

void MTest_Finalize(int errs)
{
    int rank, total = 0, rc;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        MTestPrintErrorMsg("MTest_Finalize: MPI_Allreduce", rc);
        total = errs > 0 ? errs : 1;
    }
    global_errs = total;
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
}

int MTestReturnValue(int errs)
{
    return (global_errs != 0 || errs != 0) ? 1 : 0;
}

void MTestPrintErrorMsg(const char *msg, int errcode)
{
    char str[MPI_MAX_ERROR_STRING + 1];
    int len = 0, cls = -1;

    str[0] = '\0';
    MPI_Error_class(errcode, &cls);
    MPI_Error_string(errcode, str, &len);
    fprintf(stderr, "%s: error code %d (class %d): %s\n", msg, errcode, cls, str);
    fflush(stderr);
}

void MTestPrintError(int errcode)
{
    MTestPrintErrorMsg("MPI error", errcode);
}

void MTestError(const char *msg)
{
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Iterator state for MTestGetIntracomm. */
static int intracomm_idx;
static const char *intracomm_name = "";

int MTestGetIntracomm(MPI_Comm *comm, int min_size)
{
    int rank, size;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < min_size) {
        *comm = MPI_COMM_NULL;
        intracomm_idx = 0;
        intracomm_name = "";
        return 0;
    }
    for (;;) {
        int idx = intracomm_idx++;
        *comm = MPI_COMM_NULL;
        switch (idx) {
        case 0:
            intracomm_name = "MPI_COMM_WORLD";
            *comm = MPI_COMM_WORLD;
            break;
        case 1:
            if (min_size > 1)
                continue;
            intracomm_name = "MPI_COMM_SELF";
            *comm = MPI_COMM_SELF;
            break;
        case 2:
            intracomm_name = "dup of MPI_COMM_WORLD";
            MPI_Comm_dup(MPI_COMM_WORLD, comm);
            break;
        case 3:
            intracomm_name = "MPI_COMM_WORLD reversed";
            MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, comm);
            break;
        case 4:
            if ((size + 1) / 2 < min_size)
                continue;
            intracomm_name = "even ranks of MPI_COMM_WORLD";
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, comm);
            break;
        default:
            intracomm_idx = 0;
            intracomm_name = "";
            return 0;
        }
        return 1;
    }
}

const char *MTestGetIntracommName(void)
{
    return intracomm_name;
}

void MTestFreeComm(MPI_Comm *comm)
{
    if (*comm != MPI_COMM_WORLD && *comm != MPI_COMM_SELF && *comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
    *comm = MPI_COMM_NULL;
}

MTestMat MTestMatMul(MTestMat x, MTestMat y)
{
    MTestMat r = {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
    return r;
}

MTestMat MTestMatOf(int r, int i)
{
    MTestMat m = {(uint32_t)(r + 2 + i % 5), 1, (uint32_t)(1 + (i % 3)), (uint32_t)(r % 3)};
    return m;
}

void MTestMatmulFn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    MTestMat *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = MTestMatMul(a[i], b[i]);
}
