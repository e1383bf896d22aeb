/* attrs_err: communicator attribute misuse under MPI_ERRORS_RETURN
 * (predefined keyvals cannot be set, deleted or freed; freed keyvals and
 * keyvals of another object kind are MPI_ERR_KEYVAL; NULL arguments are
 * MPI_ERR_ARG), both with the MPI-2 and the MPI-1 names, and the callback
 * protocol around the errors: a copy callback that sets flag 0 copies
 * nothing, MPI_Comm_idup runs the copy callbacks, a failing delete
 * callback on replacement is reported and keeps the old value, the
 * predefined attributes are on MPI_COMM_SELF too, and MPI_Finalize runs
 * the delete callbacks of MPI_COMM_SELF's attributes first. */
#include "mtest_err.h"

static int ncopy, ndel, fail_del; /* fail_del: the code del returns */

static int copy_none(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)k; (void)extra; (void)in; (void)out;
    ncopy++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int copy_val(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c; (void)k; (void)extra;
    ncopy++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int del(MPI_Comm c, int k, void *v, void *extra)
{
    (void)c; (void)k; (void)v; (void)extra;
    ndel++;
    return fail_del;
}

/* Delete callbacks of attributes on MPI_COMM_SELF run at MPI_Finalize,
 * newest first, while MPI is not yet finalized. */
static int self_order[2], nself, self_after_finalize;

static int del_self(MPI_Comm c, int k, void *v, void *extra)
{
    int fin = 1;
    (void)c; (void)k; (void)extra;
    MPI_Finalized(&fin);
    if (fin)
        self_after_finalize = 1;
    if (nself < 2)
        self_order[nself] = *(int *)v;
    nself++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int errs = 0, size, key, freed, tkey, flag, i;
    int predef[7] = {MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM,
                     MPI_LASTUSEDCODE};
    static char a, b;
    void *v;
    MPI_Comm dup, d2;

    MTest_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* Predefined keyvals: readable, never writable. */
    for (i = 0; i < 7; i++) {
        int k = predef[i];
        EXPECT_ERR(errs, MPI_Comm_set_attr(MPI_COMM_WORLD, k, &a), MPI_ERR_KEYVAL, "MPI_Comm_set_attr", "comm_keyval");
        EXPECT_ERR(errs, MPI_Attr_put(MPI_COMM_WORLD, k, &a), MPI_ERR_KEYVAL, "MPI_Attr_put", "keyval");
        EXPECT_ERR(errs, MPI_Comm_delete_attr(MPI_COMM_WORLD, k), MPI_ERR_KEYVAL, "MPI_Comm_delete_attr", "comm_keyval");
        EXPECT_ERR(errs, MPI_Attr_delete(MPI_COMM_WORLD, k), MPI_ERR_KEYVAL, "MPI_Attr_delete", "keyval");
        EXPECT_ERR(errs, MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL, "MPI_Comm_free_keyval", "comm_keyval");
        MTEST_CHECK(errs, k == predef[i], "failed free_keyval changed the handle");
        EXPECT_ERR(errs, MPI_Keyval_free(&k), MPI_ERR_KEYVAL, "MPI_Keyval_free", "keyval");
    }
    /* they are still there, also on MPI_COMM_SELF */
    {
        int *p;
        EXPECT_OK(errs, MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
        MTEST_CHECK(errs, flag && *p >= 32767, "MPI_TAG_UB after the failed calls");
        EXPECT_OK(errs, MPI_Comm_get_attr(MPI_COMM_SELF, MPI_TAG_UB, &p, &flag));
        MTEST_CHECK(errs, flag && *p >= 32767, "MPI_TAG_UB on MPI_COMM_SELF");
        EXPECT_OK(errs, MPI_Attr_get(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag));
        MTEST_CHECK(errs, !flag || *p == 0 || *p == 1, "MPI_WTIME_IS_GLOBAL %d", flag ? *p : -1);
    }

    /* Freed keyvals, MPI_KEYVAL_INVALID and a datatype keyval. */
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &freed, NULL);
    key = freed;
    MPI_Comm_free_keyval(&key);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tkey, NULL);
    {
        int bad[3], j;
        bad[0] = freed;
        bad[1] = MPI_KEYVAL_INVALID;
        bad[2] = tkey;
        for (j = 0; j < 3; j++) {
            EXPECT_ERR(errs, MPI_Comm_set_attr(MPI_COMM_WORLD, bad[j], &a), MPI_ERR_KEYVAL, "MPI_Comm_set_attr",
                       "comm_keyval");
            EXPECT_ERR(errs, MPI_Comm_get_attr(MPI_COMM_WORLD, bad[j], &v, &flag), MPI_ERR_KEYVAL,
                       "MPI_Comm_get_attr", "comm_keyval");
            EXPECT_ERR(errs, MPI_Comm_delete_attr(MPI_COMM_WORLD, bad[j]), MPI_ERR_KEYVAL, "MPI_Comm_delete_attr",
                       "comm_keyval");
            EXPECT_ERR(errs, MPI_Attr_put(MPI_COMM_WORLD, bad[j], &a), MPI_ERR_KEYVAL, "MPI_Attr_put", "keyval");
            EXPECT_ERR(errs, MPI_Attr_get(MPI_COMM_WORLD, bad[j], &v, &flag), MPI_ERR_KEYVAL, "MPI_Attr_get",
                       "keyval");
            key = bad[j];
            EXPECT_ERR(errs, MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL, "MPI_Comm_free_keyval", "comm_keyval");
        }
    }
    MPI_Type_free_keyval(&tkey);

    /* NULL arguments. */
    EXPECT_ERR(errs, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL),
               MPI_ERR_ARG, "MPI_Comm_create_keyval", "comm_keyval");
    EXPECT_ERR(errs, MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG,
               "MPI_Keyval_create", "keyval");
    EXPECT_ERR(errs, MPI_Comm_free_keyval(NULL), MPI_ERR_ARG, "MPI_Comm_free_keyval", "comm_keyval");
    EXPECT_ERR(errs, MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, NULL), MPI_ERR_ARG, "MPI_Comm_get_attr",
               "flag");
    EXPECT_ERR(errs, MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &flag), MPI_ERR_ARG, "MPI_Comm_get_attr",
               "attribute_val");

    /* Copy callbacks: flag 0 copies nothing; idup copies like dup. */
    MPI_Comm_create_keyval(copy_none, del, &key, NULL);
    {
        int key2;
        MPI_Comm_create_keyval(copy_val, del, &key2, NULL);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        MPI_Comm_set_attr(dup, key, &a);
        MPI_Comm_set_attr(dup, key2, &b);
        ncopy = ndel = 0;
        {
            MPI_Request req;
            MPI_Comm_idup(dup, &d2, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MTEST_CHECK(errs, ncopy == 2, "idup ran %d copy callbacks, want 2", ncopy);
        MPI_Comm_get_attr(d2, key, &v, &flag);
        MTEST_CHECK(errs, !flag, "flag 0 from the copy callback still copied");
        MPI_Comm_get_attr(d2, key2, &v, &flag);
        MTEST_CHECK(errs, flag && v == &b, "idup lost the copied attribute");
        MPI_Comm_free(&d2);
        MTEST_CHECK(errs, ndel == 1, "free ran %d delete callbacks, want 1", ndel);
        MPI_Comm_delete_attr(dup, key2);
        MPI_Comm_free_keyval(&key2);
    }

    /* A failing delete callback on replacement is reported; the old value
     * stays. */
    fail_del = MPI_ERR_OTHER;
    EXPECT_ERR(errs, MPI_Comm_set_attr(dup, key, &b), MPI_ERR_OTHER, "MPI_Comm_set_attr", NULL);
    /* An error code the user added comes back unchanged (as in MPICH). */
    {
        int ucode, rc;
        MPI_Add_error_code(MPI_ERR_ARG, &ucode);
        fail_del = ucode;
        rc = MPI_Comm_set_attr(dup, key, &b);
        MTEST_CHECK(errs, rc == ucode, "user code from a delete callback: got %d, want %d", rc, ucode);
    }
    fail_del = 0;
    MPI_Comm_get_attr(dup, key, &v, &flag);
    MTEST_CHECK(errs, flag && v == &a, "value after a failed replacement: %p (want %p)", v, (void *)&a);
    ndel = 0;
    EXPECT_OK(errs, MPI_Comm_delete_attr(dup, key));
    MTEST_CHECK(errs, ndel == 1, "delete_attr ran %d callbacks", ndel);
    MPI_Comm_free(&dup);
    MTEST_CHECK(errs, ndel == 1, "free ran the delete callback of a deleted attribute");
    MPI_Comm_free_keyval(&key);

    {
        static int one = 1, two = 2;
        int k1, k2;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_self, &k1, NULL);
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_self, &k2, NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, k1, &one);
        MPI_Comm_set_attr(MPI_COMM_SELF, k2, &two);
        MPI_Comm_free_keyval(&k1);
        MPI_Comm_free_keyval(&k2);
    }
    MTest_Finalize(errs);
    if (nself != 2 || self_order[0] != 2 || self_order[1] != 1 || self_after_finalize) {
        fprintf(stderr, "MPI_Finalize ran %d MPI_COMM_SELF delete callbacks (want 2), order %d %d (want 2 1)%s\n",
                nself, self_order[0], self_order[1], self_after_finalize ? ", after finalizing" : "");
        return 1;
    }
    return MTestReturnValue(errs);
}
