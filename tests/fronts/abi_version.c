/* abi_version.c: the functions and encodings only the MPI-5 standard ABI
 * has, on gmpi's standard-ABI front (built with build/bin/mpicc_abi by
 * tests/scripts/abi_front.sh): MPI_Abi_get_version reports 1.0,
 * MPI_Abi_get_info describes the integer sizes, the _toint and _fromint
 * converters round-trip predefined and created handles, predefined
 * handles are the standard's small constants, MPI_Status has 8 ints and
 * the standard's constants reach the runtime (MPI_ANY_TAG, MPI_PROC_NULL,
 * thread levels, comparison results, combiners). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errs;

static int atoi_ok(const char *s, int want)
{
    int v = 0;
    return sscanf(s, "%d", &v) == 1 && v == want;
}
#define CHECK(c, ...)                                                                     \
    do {                                                                                  \
        if (!(c)) {                                                                       \
            errs++;                                                                       \
            printf("FAIL line %d: ", __LINE__);                                           \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
        }                                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    int provided, rank, size, major = -1, minor = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
              provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK(sizeof(MPI_Status) == 8 * sizeof(int), "sizeof(MPI_Status) %zu", sizeof(MPI_Status));
    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS && major == 1 && minor == 0,
          "MPI_Abi_get_version %d.%d", major, minor);
    MPI_Info info = MPI_INFO_NULL;
    CHECK(MPI_Abi_get_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL, "MPI_Abi_get_info");
    char val[64];
    int flag = 0;
    MPI_Info_get(info, "mpi_aint_size", sizeof val - 1, val, &flag);
    CHECK(flag && atoi_ok(val, (int)sizeof(MPI_Aint)), "mpi_aint_size %s", flag ? val : "unset");
    MPI_Info_free(&info);
    CHECK(info == MPI_INFO_NULL, "Info_free did not set MPI_INFO_NULL");

    /* Predefined handles are the standard's constants, and the
     * converters round-trip them and created handles. */
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101, "toint(MPI_COMM_WORLD) %#x",
          MPI_Comm_toint(MPI_COMM_WORLD));
    CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_INT)) == MPI_INT, "Type toint/fromint");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(MPI_Comm_fromint(MPI_Comm_toint(dup)) == dup, "Comm toint/fromint of a dup");
    int result = -1;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    CHECK(result == MPI_CONGRUENT, "compare world/dup %d", result);
    MPI_Comm_compare(dup, dup, &result);
    CHECK(result == MPI_IDENT, "compare dup/dup %d", result);

    /* Status: MPI_PROC_NULL receives give MPI_PROC_NULL / MPI_ANY_TAG. */
    MPI_Status st;
    int buf[4] = {0};
    MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 5, dup, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status %d %d",
          st.MPI_SOURCE, st.MPI_TAG);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0, "PROC_NULL count %d", count);

    /* A ring with MPI_ANY_SOURCE / MPI_ANY_TAG. */
    int out[4] = {rank, rank + 1, rank + 2, rank + 3}, in[4] = {0};
    MPI_Sendrecv(out, 4, MPI_INT, (rank + 1) % size, 7, in, 4, MPI_INT, MPI_ANY_SOURCE,
                 MPI_ANY_TAG, dup, &st);
    int left = (rank + size - 1) % size;
    CHECK(in[0] == left && in[3] == left + 3, "ring data %d %d", in[0], in[3]);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "ring status %d %d", st.MPI_SOURCE,
          st.MPI_TAG);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 4, "ring count %d", count);

    /* Collectives with MPI_IN_PLACE and predefined operators. */
    long v[2] = {rank, 1};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_LONG, MPI_SUM, dup);
    CHECK(v[0] == (long)size * (size - 1) / 2 && v[1] == size, "allreduce %ld %ld", v[0], v[1]);

    /* Datatype decoding: the standard's combiner values. */
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &vec);
    int ni, na, nd, combiner = -1;
    MPI_Type_get_envelope(vec, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_VECTOR, "combiner %d", combiner);
    MPI_Datatype inner[1];
    int ints[3];
    MPI_Aint addrs[1];
    MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, inner);
    CHECK(inner[0] == MPI_DOUBLE && ints[0] == 2 && ints[2] == 3, "contents");
    MPI_Type_free(&vec);
    CHECK(vec == MPI_DATATYPE_NULL, "Type_free did not set MPI_DATATYPE_NULL");

    /* Errors come back as the standard's classes. */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int rc = MPI_Send(buf, 1, MPI_INT, size + 3, 0, dup), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "bad rank class %d (want %d)", cls, MPI_ERR_RANK);
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    CHECK(len > 0 && (int)strlen(msg) == len, "error string");
    void *tagub = NULL;
    MPI_Comm_get_attr(dup, MPI_TAG_UB, &tagub, &flag);
    CHECK(flag && *(int *)tagub >= 32767, "MPI_TAG_UB");
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");

    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0;
}
