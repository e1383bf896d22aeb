/* attr_mpich: attribute caching corner cases as MPICH 4.0 behaves.
 * - A keyval freed while attached stays usable (get, set, delete, free
 *   again) until its last attribute is gone; its copy and delete
 *   callbacks still run (comm and datatype, MPI-1 and MPI-2 calls).
 * - Copy callbacks on MPI_Comm_dup/MPI_Type_dup: flag 0 copies nothing,
 *   MPI_NULL_COPY_FN and MPI_COMM_NULL_COPY_FN never copy, MPI_DUP_FN,
 *   MPI_COMM_DUP_FN and MPI_TYPE_DUP_FN copy the value; a copy callback
 *   that fails makes the dup fail with MPI_COMM_NULL/MPI_DATATYPE_NULL and
 *   the attributes already copied to the new object deleted.
 * - A delete callback that fails makes set/delete/free fail and leaves the
 *   attribute in place.
 * - Attributes on MPI_COMM_SELF are deleted first in MPI_Finalize.
 * Any number of processes. */
#include "mtest_err.h"
#include <stdlib.h>

static int ncopy, ndelete;

static int inc_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    ncopy++;
    (*(int *)in)++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int dec_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    ndelete++;
    (*(int *)val)--;
    return MPI_SUCCESS;
}

static int type_inc_copy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    return inc_copy(MPI_COMM_NULL, keyval, extra, in, out, flag);
}

static int type_dec_delete(MPI_Datatype t, int keyval, void *val, void *extra)
{
    return dec_delete(MPI_COMM_NULL, keyval, val, extra);
}

/* noflag_copy runs but asks not to copy: flag 0 with a value written. */
static int noflag_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    ncopy++;
    *(void **)out = (void *)0xdead;
    *flag = 0;
    return MPI_SUCCESS;
}

static int fail_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    ncopy++;
    *flag = 1;
    return MPI_ERR_OTHER;
}

static int type_fail_copy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    return fail_copy(MPI_COMM_NULL, keyval, extra, in, out, flag);
}

static int allow_delete;
static int guarded_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    ndelete++;
    return allow_delete ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* self_free_delete frees its keyval argument (a copy of the handle), as
 * MPICH's keyval_double_free test does. */
static int self_free_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    ndelete++;
    return MPI_Keyval_free(&keyval);
}

static int self_order[4], nself;
static int finalize_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    if (nself < 4)
        self_order[nself++] = comm == MPI_COMM_SELF ? 1 : comm == MPI_COMM_WORLD ? 2 : 3;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, key, saved, key2, flag, val, i, dummies[16];
    void *got;
    MPI_Comm dup, dup2;
    MPI_Datatype t, tdup;

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* Freed while attached, MPI-1 calls (MPICH's fkeyval). */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    EXPECT_OK(errs, MPI_Keyval_create(inc_copy, dec_delete, &key, NULL));
    saved = key;
    val = 1;
    EXPECT_OK(errs, MPI_Attr_put(dup, key, &val));
    EXPECT_OK(errs, MPI_Keyval_free(&key));
    MTEST_CHECK(errs, key == MPI_KEYVAL_INVALID, "Keyval_free left %d", key);
    for (i = 0; i < 16; i++) /* in case the handle were reused */
        MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &dummies[i], NULL);
    EXPECT_OK(errs, MPI_Comm_dup(dup, &dup2));
    MTEST_CHECK(errs, val == 2, "copy callback of a freed keyval: value %d, want 2", val);
    flag = 0;
    EXPECT_OK(errs, MPI_Attr_get(dup2, saved, &got, &flag));
    MTEST_CHECK(errs, flag && got == &val, "freed keyval on the dup: flag %d", flag);
    EXPECT_OK(errs, MPI_Comm_free(&dup2));
    MTEST_CHECK(errs, val == 1, "delete callback of a freed keyval: value %d, want 1", val);
    /* Still usable on dup: get, set again (delete runs on the old value),
     * free again (no effect). */
    EXPECT_OK(errs, MPI_Comm_get_attr(dup, saved, &got, &flag));
    MTEST_CHECK(errs, flag && got == &val, "get with the freed keyval: flag %d", flag);
    EXPECT_OK(errs, MPI_Comm_set_attr(dup, saved, &val));
    MTEST_CHECK(errs, val == 0, "set over the old value: %d, want 0", val);
    val = 1;
    key = saved;
    EXPECT_OK(errs, MPI_Comm_free_keyval(&key));
    EXPECT_OK(errs, MPI_Comm_free(&dup));
    MTEST_CHECK(errs, val == 0, "freeing the comm ran the delete callback: value %d, want 0", val);
    for (i = 0; i < 16; i++)
        MPI_Keyval_free(&dummies[i]);

    /* A delete callback that frees its own keyval, then free again through
     * copies of the handle (MPICH's keyval_double_free). */
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    EXPECT_OK(errs, MPI_Keyval_create(MPI_NULL_COPY_FN, self_free_delete, &key, NULL));
    saved = key;
    EXPECT_OK(errs, MPI_Attr_put(MPI_COMM_SELF, key, NULL));
    EXPECT_OK(errs, MPI_Attr_put(dup, key, NULL));
    ndelete = 0;
    EXPECT_OK(errs, MPI_Comm_free(&dup));
    MTEST_CHECK(errs, ndelete == 1, "delete callbacks %d, want 1", ndelete);
    EXPECT_OK(errs, MPI_Keyval_free(&key));
    key = saved;
    EXPECT_OK(errs, MPI_Keyval_free(&key));
    EXPECT_OK(errs, MPI_Attr_delete(MPI_COMM_SELF, saved));
    MTEST_CHECK(errs, ndelete == 2, "delete callbacks %d, want 2", ndelete);

    /* Same on a datatype (MPICH's fkeyvaltype). */
    MPI_Type_contiguous(3, MPI_INT, &t);
    EXPECT_OK(errs, MPI_Type_create_keyval(type_inc_copy, type_dec_delete, &key, NULL));
    saved = key;
    val = 1;
    EXPECT_OK(errs, MPI_Type_set_attr(t, key, &val));
    EXPECT_OK(errs, MPI_Type_free_keyval(&key));
    EXPECT_OK(errs, MPI_Type_dup(t, &tdup));
    MTEST_CHECK(errs, val == 2, "type copy callback of a freed keyval: %d", val);
    EXPECT_OK(errs, MPI_Type_get_attr(tdup, saved, &got, &flag));
    MTEST_CHECK(errs, flag && got == &val, "type attr on the dup: flag %d", flag);
    EXPECT_OK(errs, MPI_Type_free(&tdup));
    MTEST_CHECK(errs, val == 1, "type delete callback of a freed keyval: %d", val);
    EXPECT_OK(errs, MPI_Type_free(&t));
    MTEST_CHECK(errs, val == 0, "type delete callback on free: %d", val);

    /* Copy callback flags and the predefined copy functions. */
    {
        struct {
            MPI_Comm_copy_attr_function *fn;
            int copied;
            const char *name;
        } cases[] = {
            {noflag_copy, 0, "flag 0"},
            {MPI_COMM_NULL_COPY_FN, 0, "MPI_COMM_NULL_COPY_FN"},
            {MPI_COMM_DUP_FN, 1, "MPI_COMM_DUP_FN"},
            {inc_copy, 1, "flag 1"},
        };
        int keys[4], vals[4], kold;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        for (i = 0; i < 4; i++) {
            vals[i] = 10 * i;
            EXPECT_OK(errs, MPI_Comm_create_keyval(cases[i].fn, MPI_COMM_NULL_DELETE_FN, &keys[i], NULL));
            EXPECT_OK(errs, MPI_Comm_set_attr(dup, keys[i], &vals[i]));
        }
        EXPECT_OK(errs, MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kold, NULL));
        EXPECT_OK(errs, MPI_Attr_put(dup, kold, (void *)(MPI_Aint)42));
        EXPECT_OK(errs, MPI_Comm_dup(dup, &dup2));
        for (i = 0; i < 4; i++) {
            flag = -1;
            got = NULL;
            EXPECT_OK(errs, MPI_Comm_get_attr(dup2, keys[i], &got, &flag));
            MTEST_CHECK(errs, flag == cases[i].copied, "%s: flag %d", cases[i].name, flag);
            if (flag)
                MTEST_CHECK(errs, got == &vals[i], "%s: value %p, want %p", cases[i].name, got, (void *)&vals[i]);
        }
        EXPECT_OK(errs, MPI_Attr_get(dup2, kold, &got, &flag));
        MTEST_CHECK(errs, flag && got == (void *)(MPI_Aint)42, "MPI_DUP_FN: flag %d value %p", flag, got);
        MPI_Comm_free(&dup2);
        MPI_Comm_free(&dup);
        for (i = 0; i < 4; i++)
            MPI_Comm_free_keyval(&keys[i]);
        MPI_Keyval_free(&kold);
        EXPECT_OK(errs, MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kold, NULL));
        EXPECT_OK(errs, MPI_Attr_put(MPI_COMM_WORLD, kold, (void *)(MPI_Aint)7));
        EXPECT_OK(errs, MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        EXPECT_OK(errs, MPI_Attr_get(dup, kold, &got, &flag));
        MTEST_CHECK(errs, !flag, "MPI_NULL_COPY_FN copied");
        MPI_Comm_free(&dup);
        MPI_Attr_delete(MPI_COMM_WORLD, kold);
        MPI_Keyval_free(&kold);
    }

    /* Failing callbacks (MPICH's attrerr), comm then datatype. */
    {
        int kok, kfail, vok = 5;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        EXPECT_OK(errs, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, guarded_delete, &key, NULL));
        allow_delete = 0;
        EXPECT_OK(errs, MPI_Comm_set_attr(dup, key, (void *)(MPI_Aint)1));
        MTEST_CHECK(errs, MPI_Comm_set_attr(dup, key, (void *)(MPI_Aint)2) != MPI_SUCCESS,
                    "set over a value whose delete fails succeeded");
        MTEST_CHECK(errs, MPI_Comm_delete_attr(dup, key) != MPI_SUCCESS, "delete whose callback fails succeeded");
        EXPECT_OK(errs, MPI_Comm_get_attr(dup, key, &got, &flag));
        MTEST_CHECK(errs, flag && got == (void *)(MPI_Aint)1, "attribute after failed delete: flag %d value %p",
                    flag, got);
        allow_delete = 1;
        EXPECT_OK(errs, MPI_Comm_delete_attr(dup, key));
        MPI_Comm_free_keyval(&key);

        EXPECT_OK(errs, MPI_Comm_create_keyval(inc_copy, dec_delete, &kok, NULL));
        EXPECT_OK(errs, MPI_Comm_create_keyval(fail_copy, MPI_COMM_NULL_DELETE_FN, &kfail, NULL));
        EXPECT_OK(errs, MPI_Comm_set_attr(dup, kok, &vok));
        EXPECT_OK(errs, MPI_Comm_set_attr(dup, kfail, NULL));
        dup2 = MPI_COMM_WORLD;
        MTEST_CHECK(errs, MPI_Comm_dup(dup, &dup2) != MPI_SUCCESS, "dup with a failing copy callback succeeded");
        MTEST_CHECK(errs, dup2 == MPI_COMM_NULL, "failed dup did not give MPI_COMM_NULL");
        MTEST_CHECK(errs, vok == 5, "failed dup left the copied attribute undeleted: %d", vok);
        dup2 = MPI_COMM_WORLD;
        MTEST_CHECK(errs, MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dup2) != MPI_SUCCESS,
                    "dup_with_info with a failing copy callback succeeded");
        MTEST_CHECK(errs, dup2 == MPI_COMM_NULL, "failed dup_with_info did not give MPI_COMM_NULL");
        MPI_Comm_free(&dup);
        MTEST_CHECK(errs, vok == 4, "free: %d", vok);
        MPI_Comm_free_keyval(&kok);
        MPI_Comm_free_keyval(&kfail);

        MPI_Type_contiguous(2, MPI_INT, &t);
        EXPECT_OK(errs, MPI_Type_create_keyval(type_fail_copy, MPI_TYPE_NULL_DELETE_FN, &key, NULL));
        EXPECT_OK(errs, MPI_Type_set_attr(t, key, NULL));
        tdup = MPI_INT;
        MTEST_CHECK(errs, MPI_Type_dup(t, &tdup) != MPI_SUCCESS, "Type_dup with a failing copy callback succeeded");
        MTEST_CHECK(errs, tdup == MPI_DATATYPE_NULL, "failed Type_dup gave 0x%x, not MPI_DATATYPE_NULL",
                    (unsigned)tdup);
        MPI_Type_free(&t);
        MPI_Type_free_keyval(&key);
    }

    /* MPI_Finalize deletes MPI_COMM_SELF's attributes before any other. */
    EXPECT_OK(errs, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &key, NULL));
    EXPECT_OK(errs, MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &key2, NULL));
    EXPECT_OK(errs, MPI_Comm_set_attr(MPI_COMM_WORLD, key2, NULL));
    EXPECT_OK(errs, MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL));
    MPI_Comm_free_keyval(&key);
    MPI_Comm_free_keyval(&key2);

    MTest_Finalize(errs);
    if (nself < 1 || self_order[0] != 1) {
        printf("MPI_Finalize did not delete MPI_COMM_SELF's attributes first (%d calls)\n", nself);
        return 1;
    }
    return MTestReturnValue(errs);
}
