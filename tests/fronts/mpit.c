/* mpit.c: the tool information interface (MPI_T) through a front, built
 * with each family's header (tests/scripts/abi_front.sh: Debian's Open MPI
 * 4.1 header and ours, build/bin/mpicc_abi; also MPICH's header).
 *
 * First every MPI_T constant the family's header has must exist with the
 * family's value (Open MPI 4.1's from its mpi.h, the standard ABI's from
 * mpi-forum/mpi-abi-stubs, MPICH's): a missing name does not compile.
 * Then, before MPI_Init and inside it, the calls: MPI_T_init_thread,
 * control variables (gmpi's tunables: count, get_info with verbosity,
 * datatype, binding and scope in the caller's ABI, get_index, a handle
 * and a read of GMPI_EAGER_LIMIT, which the job sets, a refused write),
 * categories (count, info, members adding up to the variable count),
 * performance variables (none: index and name errors in the caller's
 * error classes, a session, MPI_T_PVAR_ALL_HANDLES), and MPI_T_finalize
 * (afterwards MPI_T_ERR_NOT_INITIALIZED). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;
#define CHECK(c, ...)                                                                     \
    do {                                                                                  \
        if (!(c)) {                                                                       \
            errs++;                                                                       \
            printf("FAIL line %d: ", __LINE__);                                           \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
        }                                                                                 \
    } while (0)
#define VAL(name, want) CHECK((name) == (want), #name " is %d, want %d", (int)(name), (int)(want))

/* The family's values of every MPI_T constant its header has. */
static void check_constants(void)
{
#if defined(OPEN_MPI)
    VAL(MPI_T_ERR_MEMORY, 54); VAL(MPI_T_ERR_NOT_INITIALIZED, 55); VAL(MPI_T_ERR_CANNOT_INIT, 56);
    VAL(MPI_T_ERR_INVALID_INDEX, 57); VAL(MPI_T_ERR_INVALID_ITEM, 58); VAL(MPI_T_ERR_INVALID_HANDLE, 59);
    VAL(MPI_T_ERR_OUT_OF_HANDLES, 60); VAL(MPI_T_ERR_OUT_OF_SESSIONS, 61);
    VAL(MPI_T_ERR_INVALID_SESSION, 62); VAL(MPI_T_ERR_CVAR_SET_NOT_NOW, 63);
    VAL(MPI_T_ERR_CVAR_SET_NEVER, 64); VAL(MPI_T_ERR_PVAR_NO_STARTSTOP, 65);
    VAL(MPI_T_ERR_PVAR_NO_WRITE, 66); VAL(MPI_T_ERR_PVAR_NO_ATOMIC, 67); VAL(MPI_T_ERR_INVALID, 72);
    VAL(MPI_T_ERR_INVALID_NAME, 73);
    VAL(MPI_T_VERBOSITY_USER_BASIC, 0); VAL(MPI_T_VERBOSITY_USER_DETAIL, 1); VAL(MPI_T_VERBOSITY_USER_ALL, 2);
    VAL(MPI_T_VERBOSITY_TUNER_BASIC, 3); VAL(MPI_T_VERBOSITY_TUNER_DETAIL, 4);
    VAL(MPI_T_VERBOSITY_TUNER_ALL, 5); VAL(MPI_T_VERBOSITY_MPIDEV_BASIC, 6);
    VAL(MPI_T_VERBOSITY_MPIDEV_DETAIL, 7); VAL(MPI_T_VERBOSITY_MPIDEV_ALL, 8);
    VAL(MPI_T_SCOPE_CONSTANT, 0); VAL(MPI_T_SCOPE_READONLY, 1); VAL(MPI_T_SCOPE_LOCAL, 2);
    VAL(MPI_T_SCOPE_GROUP, 3); VAL(MPI_T_SCOPE_GROUP_EQ, 4); VAL(MPI_T_SCOPE_ALL, 5); VAL(MPI_T_SCOPE_ALL_EQ, 6);
    VAL(MPI_T_BIND_NO_OBJECT, 0); VAL(MPI_T_BIND_MPI_COMM, 1); VAL(MPI_T_BIND_MPI_DATATYPE, 2);
    VAL(MPI_T_BIND_MPI_ERRHANDLER, 3); VAL(MPI_T_BIND_MPI_FILE, 4); VAL(MPI_T_BIND_MPI_GROUP, 5);
    VAL(MPI_T_BIND_MPI_OP, 6); VAL(MPI_T_BIND_MPI_REQUEST, 7); VAL(MPI_T_BIND_MPI_WIN, 8);
    VAL(MPI_T_BIND_MPI_MESSAGE, 9); VAL(MPI_T_BIND_MPI_INFO, 10);
    VAL(MPI_T_PVAR_CLASS_STATE, 0); VAL(MPI_T_PVAR_CLASS_LEVEL, 1); VAL(MPI_T_PVAR_CLASS_SIZE, 2);
    VAL(MPI_T_PVAR_CLASS_PERCENTAGE, 3); VAL(MPI_T_PVAR_CLASS_HIGHWATERMARK, 4);
    VAL(MPI_T_PVAR_CLASS_LOWWATERMARK, 5); VAL(MPI_T_PVAR_CLASS_COUNTER, 6);
    VAL(MPI_T_PVAR_CLASS_AGGREGATE, 7); VAL(MPI_T_PVAR_CLASS_TIMER, 8); VAL(MPI_T_PVAR_CLASS_GENERIC, 9);
    CHECK(MPI_T_ENUM_NULL == (MPI_T_enum)0 && MPI_T_CVAR_HANDLE_NULL == (MPI_T_cvar_handle)0 &&
              MPI_T_PVAR_HANDLE_NULL == (MPI_T_pvar_handle)0 &&
              MPI_T_PVAR_SESSION_NULL == (MPI_T_pvar_session)0 &&
              MPI_T_PVAR_ALL_HANDLES == (MPI_T_pvar_handle)-1,
          "Open MPI's MPI_T handle constants");
#elif defined(MPI_ABI_VERSION)
    VAL(MPI_T_ERR_CANNOT_INIT, 1001); VAL(MPI_T_ERR_NOT_ACCESSIBLE, 1002);
    VAL(MPI_T_ERR_NOT_INITIALIZED, 1003); VAL(MPI_T_ERR_NOT_SUPPORTED, 1004); VAL(MPI_T_ERR_MEMORY, 1005);
    VAL(MPI_T_ERR_INVALID, 1006); VAL(MPI_T_ERR_INVALID_INDEX, 1007); VAL(MPI_T_ERR_INVALID_ITEM, 1008);
    VAL(MPI_T_ERR_INVALID_SESSION, 1009); VAL(MPI_T_ERR_INVALID_HANDLE, 1010);
    VAL(MPI_T_ERR_INVALID_NAME, 1011); VAL(MPI_T_ERR_OUT_OF_HANDLES, 1012);
    VAL(MPI_T_ERR_OUT_OF_SESSIONS, 1013); VAL(MPI_T_ERR_CVAR_SET_NOT_NOW, 1014);
    VAL(MPI_T_ERR_CVAR_SET_NEVER, 1015); VAL(MPI_T_ERR_PVAR_NO_WRITE, 1016);
    VAL(MPI_T_ERR_PVAR_NO_STARTSTOP, 1017); VAL(MPI_T_ERR_PVAR_NO_ATOMIC, 1018);
    VAL(MPI_T_VERBOSITY_USER_BASIC, 0x09); VAL(MPI_T_VERBOSITY_USER_DETAIL, 0x0a);
    VAL(MPI_T_VERBOSITY_USER_ALL, 0x0c); VAL(MPI_T_VERBOSITY_TUNER_BASIC, 0x11);
    VAL(MPI_T_VERBOSITY_TUNER_DETAIL, 0x12); VAL(MPI_T_VERBOSITY_TUNER_ALL, 0x14);
    VAL(MPI_T_VERBOSITY_MPIDEV_BASIC, 0x21); VAL(MPI_T_VERBOSITY_MPIDEV_DETAIL, 0x22);
    VAL(MPI_T_VERBOSITY_MPIDEV_ALL, 0x24);
    VAL(MPI_T_BIND_NO_OBJECT, 1); VAL(MPI_T_BIND_MPI_COMM, 2); VAL(MPI_T_BIND_MPI_DATATYPE, 3);
    VAL(MPI_T_BIND_MPI_ERRHANDLER, 4); VAL(MPI_T_BIND_MPI_FILE, 5); VAL(MPI_T_BIND_MPI_GROUP, 6);
    VAL(MPI_T_BIND_MPI_OP, 7); VAL(MPI_T_BIND_MPI_REQUEST, 8); VAL(MPI_T_BIND_MPI_WIN, 9);
    VAL(MPI_T_BIND_MPI_MESSAGE, 10); VAL(MPI_T_BIND_MPI_INFO, 11); VAL(MPI_T_BIND_MPI_SESSION, 12);
    VAL(MPI_T_SCOPE_CONSTANT, 1); VAL(MPI_T_SCOPE_READONLY, 2); VAL(MPI_T_SCOPE_LOCAL, 3);
    VAL(MPI_T_SCOPE_GROUP, 4); VAL(MPI_T_SCOPE_GROUP_EQ, 5); VAL(MPI_T_SCOPE_ALL, 6); VAL(MPI_T_SCOPE_ALL_EQ, 7);
    VAL(MPI_T_PVAR_CLASS_STATE, 1); VAL(MPI_T_PVAR_CLASS_LEVEL, 2); VAL(MPI_T_PVAR_CLASS_SIZE, 3);
    VAL(MPI_T_PVAR_CLASS_PERCENTAGE, 4); VAL(MPI_T_PVAR_CLASS_HIGHWATERMARK, 5);
    VAL(MPI_T_PVAR_CLASS_LOWWATERMARK, 6); VAL(MPI_T_PVAR_CLASS_COUNTER, 7);
    VAL(MPI_T_PVAR_CLASS_AGGREGATE, 8); VAL(MPI_T_PVAR_CLASS_TIMER, 9); VAL(MPI_T_PVAR_CLASS_GENERIC, 10);
    VAL(MPI_T_CB_REQUIRE_NONE, 0x00); VAL(MPI_T_CB_REQUIRE_MPI_RESTRICTED, 0x03);
    VAL(MPI_T_CB_REQUIRE_THREAD_SAFE, 0x0F); VAL(MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 0x3F);
    VAL(MPI_T_SOURCE_ORDERED, 1); VAL(MPI_T_SOURCE_UNORDERED, 2);
    CHECK(MPI_T_ENUM_NULL == (MPI_T_enum)0 && MPI_T_CVAR_HANDLE_NULL == (MPI_T_cvar_handle)0 &&
              MPI_T_PVAR_HANDLE_NULL == (MPI_T_pvar_handle)0 &&
              MPI_T_PVAR_SESSION_NULL == (MPI_T_pvar_session)0 &&
              MPI_T_PVAR_ALL_HANDLES == (MPI_T_pvar_handle)1,
          "the standard's MPI_T handle constants");
#else /* MPICH */
    VAL(MPI_T_VERBOSITY_USER_BASIC, 221); VAL(MPI_T_BIND_NO_OBJECT, 9700);
    VAL(MPI_T_SCOPE_CONSTANT, 60438); VAL(MPI_T_PVAR_CLASS_STATE, 240); VAL(MPI_T_ERR_INVALID_INDEX, 62);
#endif
}

/* MPI_T functions return error classes themselves. */
static int cls(int rc) { return rc; }

static int is_verbosity(int v)
{
    static const int all[] = {MPI_T_VERBOSITY_USER_BASIC,    MPI_T_VERBOSITY_USER_DETAIL,
                              MPI_T_VERBOSITY_USER_ALL,      MPI_T_VERBOSITY_TUNER_BASIC,
                              MPI_T_VERBOSITY_TUNER_DETAIL,  MPI_T_VERBOSITY_TUNER_ALL,
                              MPI_T_VERBOSITY_MPIDEV_BASIC,  MPI_T_VERBOSITY_MPIDEV_DETAIL,
                              MPI_T_VERBOSITY_MPIDEV_ALL};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        if (v == all[i])
            return 1;
    return 0;
}

/* One pass over the interface; phase names where it runs. */
static void tool_pass(const char *phase, long eager)
{
    int provided = -1, rc;
    rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    CHECK(rc == MPI_SUCCESS && provided == MPI_THREAD_SINGLE, "%s: MPI_T_init_thread rc %d provided %d",
          phase, rc, provided);
    /* Nested initialization is counted. */
    CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS &&
              provided == MPI_THREAD_MULTIPLE,
          "%s: second MPI_T_init_thread provided %d", phase, provided);
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "%s: inner MPI_T_finalize", phase);

    int ncvar = -1;
    CHECK(MPI_T_cvar_get_num(&ncvar) == MPI_SUCCESS && ncvar > 0, "%s: cvar_get_num %d", phase, ncvar);
    int eager_index = -1, nverb = 0;
    for (int i = 0; i < ncvar; i++) {
        char name[256], desc[1024];
        int nlen = sizeof name, dlen = sizeof desc, verb = -1, bind = -1, scope = -1;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        MPI_T_enum en = (MPI_T_enum)&nlen;
        rc = MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope);
        CHECK(rc == MPI_SUCCESS, "%s: cvar_get_info(%d) rc %d", phase, i, rc);
        if (rc != MPI_SUCCESS)
            continue;
        CHECK(nlen == (int)strlen(name) + 1 && nlen > 1, "%s: cvar %d name '%s' len %d",
              phase, i, name, nlen);
        CHECK(is_verbosity(verb), "%s: %s verbosity %d is none of the header's", phase, name, verb);
        nverb += verb == MPI_T_VERBOSITY_USER_BASIC;
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: %s bind %d, want MPI_T_BIND_NO_OBJECT %d", phase, name, bind,
              (int)MPI_T_BIND_NO_OBJECT);
        CHECK(scope == MPI_T_SCOPE_READONLY, "%s: %s scope %d, want MPI_T_SCOPE_READONLY %d", phase, name,
              scope, (int)MPI_T_SCOPE_READONLY);
        CHECK(dt == MPI_INT || dt == MPI_LONG_LONG || dt == MPI_CHAR, "%s: %s datatype", phase, name);
        CHECK(en == MPI_T_ENUM_NULL, "%s: %s enumtype", phase, name);
        CHECK(dlen > 1, "%s: %s has no description", phase, name);
        if (strcmp(name, "GMPI_EAGER_LIMIT") == 0) {
            eager_index = i;
            CHECK(dt == MPI_LONG_LONG, "%s: GMPI_EAGER_LIMIT is no MPI_LONG_LONG", phase);
        }
    }
    CHECK(nverb > 0 && nverb < ncvar, "%s: %d of %d cvars at MPI_T_VERBOSITY_USER_BASIC", phase, nverb, ncvar);
    /* The length convention: a zero length asks for the length. */
    int need = 0, verb = -1;
    CHECK(MPI_T_cvar_get_info(0, NULL, &need, &verb, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_SUCCESS &&
              need > 1 && is_verbosity(verb),
          "%s: cvar_get_info length query %d", phase, need);
    CHECK(cls(MPI_T_cvar_get_info(ncvar, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)) ==
              MPI_T_ERR_INVALID_INDEX,
          "%s: cvar_get_info(ncvar) is not MPI_T_ERR_INVALID_INDEX", phase);
    int idx = -1;
    CHECK(MPI_T_cvar_get_index("GMPI_EAGER_LIMIT", &idx) == MPI_SUCCESS && idx == eager_index,
          "%s: cvar_get_index %d, get_info found %d", phase, idx, eager_index);
    CHECK(cls(MPI_T_cvar_get_index("GMPI_NO_SUCH_VARIABLE", &idx)) == MPI_T_ERR_INVALID_NAME,
          "%s: cvar_get_index of an unknown name", phase);
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    int count = -1;
    CHECK(MPI_T_cvar_handle_alloc(eager_index, NULL, &h, &count) == MPI_SUCCESS && count == 1 &&
              h != MPI_T_CVAR_HANDLE_NULL,
          "%s: cvar_handle_alloc count %d", phase, count);
    long long v = -1;
    CHECK(MPI_T_cvar_read(h, &v) == MPI_SUCCESS && v == eager, "%s: GMPI_EAGER_LIMIT reads %lld, want %ld",
          phase, v, eager);
    CHECK(cls(MPI_T_cvar_write(h, &v)) == MPI_T_ERR_CVAR_SET_NEVER, "%s: cvar_write not refused", phase);
    CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL, "%s: cvar_handle_free",
          phase);

    int ncat = -1, sum = 0;
    CHECK(MPI_T_category_get_num(&ncat) == MPI_SUCCESS && ncat > 0, "%s: category_get_num %d", phase, ncat);
    for (int c = 0; c < ncat; c++) {
        char name[256];
        int nlen = sizeof name, nc = -1, np = -1, nk = -1, ci = -1;
        CHECK(MPI_T_category_get_info(c, name, &nlen, NULL, NULL, &nc, &np, &nk) == MPI_SUCCESS && nc > 0 &&
                  np == 0 && nk == 0,
              "%s: category %d: %d cvars %d pvars %d categories", phase, c, nc, np, nk);
        CHECK(MPI_T_category_get_index(name, &ci) == MPI_SUCCESS && ci == c, "%s: category_get_index(%s)",
              phase, name);
        int *ix = calloc(nc > 0 ? nc : 1, sizeof(int));
        CHECK(MPI_T_category_get_cvars(c, nc, ix) == MPI_SUCCESS, "%s: category_get_cvars", phase);
        for (int k = 0; k < nc; k++)
            CHECK(ix[k] >= 0 && ix[k] < ncvar, "%s: category %s member %d", phase, name, ix[k]);
        free(ix);
        sum += nc;
    }
    CHECK(sum == ncvar, "%s: the categories hold %d cvars of %d", phase, sum, ncvar);

    int npvar = -1;
    CHECK(MPI_T_pvar_get_num(&npvar) == MPI_SUCCESS && npvar == 0, "%s: pvar_get_num %d", phase, npvar);
    CHECK(cls(MPI_T_pvar_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL)) == MPI_T_ERR_INVALID_INDEX,
          "%s: pvar_get_info(0)", phase);
    CHECK(cls(MPI_T_pvar_get_index("x", MPI_T_PVAR_CLASS_COUNTER, &idx)) == MPI_T_ERR_INVALID_NAME,
          "%s: pvar_get_index", phase);
    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL;
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS && s != MPI_T_PVAR_SESSION_NULL, "%s: session_create",
          phase);
    CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "%s: pvar_start(MPI_T_PVAR_ALL_HANDLES)",
          phase);
    CHECK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "%s: pvar_stop(MPI_T_PVAR_ALL_HANDLES)",
          phase);
    CHECK(cls(MPI_T_pvar_start(s, MPI_T_PVAR_HANDLE_NULL)) == MPI_T_ERR_INVALID_HANDLE,
          "%s: pvar_start(MPI_T_PVAR_HANDLE_NULL)", phase);
    CHECK(cls(MPI_T_pvar_reset(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES)) == MPI_T_ERR_INVALID_SESSION,
          "%s: pvar_reset without a session", phase);
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS && s == MPI_T_PVAR_SESSION_NULL, "%s: session_free",
          phase);

    CHECK(MPI_T_finalize() == MPI_SUCCESS, "%s: MPI_T_finalize", phase);
    CHECK(cls(MPI_T_cvar_get_num(&ncvar)) == MPI_T_ERR_NOT_INITIALIZED,
          "%s: cvar_get_num after MPI_T_finalize", phase);
    CHECK(cls(MPI_T_finalize()) == MPI_T_ERR_NOT_INITIALIZED, "%s: a second MPI_T_finalize", phase);
}

int main(int argc, char **argv)
{
    const char *e = getenv("GMPI_EAGER_LIMIT");
    long eager = e ? atol(e) : 65536;
    check_constants();
    tool_pass("before MPI_Init", eager);
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    tool_pass("after MPI_Init", eager);
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0;
}
