/* attrs: communicator attribute caching. Copy callbacks run at
 * MPI_Comm_dup with the right arguments, delete callbacks at
 * MPI_Comm_free/delete_attr/replacement; errors returned by callbacks
 * propagate; MPI-1 names; predefined attributes; MPICHX topology
 * attributes. */
#include "mtest.h"
#include <string.h>

static int ncopy, ndelete, last_keyval, fail_copy, fail_delete;
static MPI_Comm last_comm;
static void *last_val, *last_extra;
static int extra_state_storage;

static int copy_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    ncopy++;
    last_comm = oldcomm;
    last_keyval = keyval;
    last_val = in;
    last_extra = extra;
    if (fail_copy) return MPI_ERR_OTHER;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    ndelete++;
    last_comm = comm;
    last_keyval = keyval;
    last_val = val;
    last_extra = extra;
    if (fail_delete) return MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size, key, key2, flag, rc, cls;
    void *v;
    MPI_Comm dup, dup2;
    static char base[16];

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* predefined attributes */
    {
        int *p;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
        MTEST_CHECK(errs, flag && *p >= 32767, "MPI_TAG_UB");
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag);
        MTEST_CHECK(errs, flag && *p == MPI_PROC_NULL, "MPI_HOST");
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag);
        MTEST_CHECK(errs, flag && (*p == MPI_ANY_SOURCE || *p == rank), "MPI_IO");
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag);
        MTEST_CHECK(errs, !flag || *p == 0 || *p == 1, "MPI_WTIME_IS_GLOBAL");
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag);
        MTEST_CHECK(errs, !flag || *p >= size, "MPI_UNIVERSE_SIZE %d", flag ? *p : -1);
        MPI_Attr_get(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag);
        MTEST_CHECK(errs, !flag || *p == 0, "MPI_APPNUM");
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag);
        MTEST_CHECK(errs, flag && *p >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", flag ? *p : -1);
    }
    /* MPICHX topology attributes */
    {
        int *depths, **colors, i;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag);
        MTEST_CHECK(errs, flag, "no MPICHX_TOPOLOGY_DEPTHS");
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPICHX_TOPOLOGY_COLORS, &colors, &flag);
        MTEST_CHECK(errs, flag, "no MPICHX_TOPOLOGY_COLORS");
        for (i = 0; i < size; i++) {
            MTEST_CHECK(errs, depths[i] >= 3, "depth[%d]=%d", i, depths[i]);
            MTEST_CHECK(errs, colors[i][0] == 0 && colors[i][1] == colors[0][1] && colors[i][2] == colors[0][2],
                        "colors[%d] = %d %d %d (one host)", i, colors[i][0], colors[i][1], colors[i][2]);
        }
    }

    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra_state_storage);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_attr(dup, key, base);
    MPI_Comm_get_attr(dup, key, &v, &flag);
    MTEST_CHECK(errs, flag && v == base, "get after set");

    /* dup: copy callback with (oldcomm, keyval, extra, value) */
    ncopy = ndelete = 0;
    MPI_Comm_dup(dup, &dup2);
    MTEST_CHECK(errs, ncopy == 1, "copy called %d times", ncopy);
    MTEST_CHECK(errs, last_comm == dup && last_keyval == key && last_val == base && last_extra == &extra_state_storage,
                "copy callback arguments");
    MPI_Comm_get_attr(dup2, key, &v, &flag);
    MTEST_CHECK(errs, flag && v == base + 1, "copied value");

    /* replacing calls delete on the old value */
    MPI_Comm_set_attr(dup2, key, base + 5);
    MTEST_CHECK(errs, ndelete == 1 && last_val == base + 1 && last_comm == dup2, "delete on replace");
    /* delete_attr */
    MPI_Comm_delete_attr(dup2, key);
    MTEST_CHECK(errs, ndelete == 2 && last_val == base + 5, "delete_attr");
    MPI_Comm_get_attr(dup2, key, &v, &flag);
    MTEST_CHECK(errs, !flag, "attribute still there after delete");
    MPI_Comm_set_attr(dup2, key, base + 7);
    /* free runs delete */
    {
        MPI_Comm saved = dup2;
        MPI_Comm_free(&dup2);
        MTEST_CHECK(errs, ndelete == 3 && last_val == base + 7 && last_comm == saved && last_keyval == key,
                    "delete at free");
    }
    /* freeing the keyval keeps the attributes working */
    key2 = key;
    MPI_Comm_free_keyval(&key);
    MTEST_CHECK(errs, key == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    ndelete = 0;
    MPI_Comm_free(&dup);
    MTEST_CHECK(errs, ndelete == 1 && last_keyval == key2, "delete after keyval freed: %d", ndelete);

    /* null callbacks and MPI_DUP_FN via MPI-1 names */
    {
        int k1, k2;
        MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k1, NULL);
        MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k2, NULL);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Attr_put(dup, k1, base + 1);
        MPI_Attr_put(dup, k2, base + 2);
        MPI_Comm_dup(dup, &dup2);
        MPI_Attr_get(dup2, k1, &v, &flag);
        MTEST_CHECK(errs, !flag, "MPI_NULL_COPY_FN copied");
        MPI_Attr_get(dup2, k2, &v, &flag);
        MTEST_CHECK(errs, flag && v == base + 2, "MPI_DUP_FN did not copy");
        MPI_Attr_delete(dup2, k2);
        MPI_Attr_get(dup2, k2, &v, &flag);
        MTEST_CHECK(errs, !flag, "Attr_delete");
        MPI_Comm_free(&dup2);
        MPI_Comm_free(&dup);
        MPI_Keyval_free(&k1);
        MPI_Keyval_free(&k2);
    }

    /* errors from callbacks propagate */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_attr(dup, key, base);
    fail_copy = 1;
    dup2 = MPI_COMM_WORLD;
    rc = MPI_Comm_dup(dup, &dup2);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, rc != MPI_SUCCESS && cls == MPI_ERR_OTHER, "failing copy: rc %d class %d", rc, cls);
    MTEST_CHECK(errs, dup2 == MPI_COMM_NULL, "failing dup did not give MPI_COMM_NULL");
    fail_copy = 0;
    fail_delete = 1;
    rc = MPI_Comm_delete_attr(dup, key);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, rc != MPI_SUCCESS && cls == MPI_ERR_OTHER, "failing delete: class %d", cls);
    rc = MPI_Comm_free(&dup);
    MTEST_CHECK(errs, rc != MPI_SUCCESS, "free with failing delete callback succeeded");
    fail_delete = 0;
    MPI_Comm_free(&dup);
    MPI_Comm_free_keyval(&key);

    /* bad keyvals */
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, base);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_KEYVAL, "set with MPI_KEYVAL_INVALID: class %d", cls);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, base);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_KEYVAL, "set of MPI_TAG_UB: class %d", cls);
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, key2, &v, &flag);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_KEYVAL, "get with a freed keyval: class %d", cls);
    rc = MPI_Comm_free_keyval(&key2);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_KEYVAL, "double free_keyval: class %d", cls);

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
