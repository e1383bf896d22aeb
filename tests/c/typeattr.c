/* typeattr: attribute caching on datatypes (MPI_Type_create_keyval and
 * friends: copy callbacks at MPI_Type_dup, delete callbacks at
 * MPI_Type_free / MPI_Type_delete_attr / replacement, callback errors,
 * predefined datatypes), window keyvals and attribute calls (no windows
 * exist: MPI_ERR_WIN), and window/file error handlers (MPI_FILE_NULL). */
#include "mtest.h"
#include <stdint.h>

static int errs = 0;
static int ncopy, ndelete, fail_copy, fail_delete;
static MPI_Datatype last_type;

static int errclass(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static int copy_fn(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)key;
    ncopy++;
    last_type = t;
    if (fail_copy)
        return MPI_ERR_OTHER;
    MTEST_CHECK(errs, *(int *)extra == 42, "extra_state %d", *(int *)extra);
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)key; (void)val; (void)extra;
    ndelete++;
    last_type = t;
    return fail_delete ? MPI_ERR_ARG : MPI_SUCCESS;
}

static int file_eh_calls, file_eh_code;
static MPI_File file_eh_file = (MPI_File)1;
static void file_eh(MPI_File *f, int *code, ...)
{
    file_eh_calls++;
    file_eh_file = *f;
    file_eh_code = *code;
}

static void win_eh(MPI_Win *w, int *code, ...) { (void)w; (void)code; }
static void comm_eh(MPI_Comm *c, int *code, ...) { (void)c; (void)code; }

static void test_type_attrs(void)
{
    int extra = 42, key, key2, keynull, flag, rc;
    void *v;
    MPI_Datatype t, d, d2;

    MPI_Type_create_keyval(copy_fn, delete_fn, &key, &extra);
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &key2, NULL);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fn, &keynull, NULL);
    MPI_Type_contiguous(2, MPI_INT, &t); /* not committed: attributes work anyway */

    rc = MPI_Type_get_attr(t, key, &v, &flag);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && flag == 0, "get before set: rc %d flag %d", rc, flag);
    MPI_Type_set_attr(t, key, (void *)10);
    MPI_Type_set_attr(t, key2, (void *)20);
    MPI_Type_set_attr(t, keynull, (void *)30);
    rc = MPI_Type_get_attr(t, key, &v, &flag);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && flag == 1 && v == (void *)10, "get: rc %d flag %d v %p", rc, flag, v);

    /* set over an existing value runs the delete callback */
    ndelete = 0;
    MPI_Type_set_attr(t, key, (void *)11);
    MTEST_CHECK(errs, ndelete == 1 && last_type == t, "replace: %d delete calls", ndelete);

    /* dup: copy callbacks; MPI_TYPE_DUP_FN copies the value; null copy fn
     * does not copy */
    ncopy = 0;
    rc = MPI_Type_dup(t, &d);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && ncopy == 1 && last_type == t, "dup: rc %d, %d copy calls", rc, ncopy);
    MPI_Type_get_attr(d, key, &v, &flag);
    MTEST_CHECK(errs, flag && v == (void *)12, "dup'd attribute %p (flag %d), want 12", v, flag);
    MPI_Type_get_attr(d, key2, &v, &flag);
    MTEST_CHECK(errs, flag && v == (void *)20, "MPI_TYPE_DUP_FN attribute %p (flag %d)", v, flag);
    MPI_Type_get_attr(d, keynull, &v, &flag);
    MTEST_CHECK(errs, !flag, "MPI_TYPE_NULL_COPY_FN attribute was copied");

    /* delete_attr runs the callback once; a second delete is a no-op */
    ndelete = 0;
    rc = MPI_Type_delete_attr(d, key);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && ndelete == 1 && last_type == d, "delete_attr: rc %d, %d calls", rc, ndelete);
    MPI_Type_get_attr(d, key, &v, &flag);
    MTEST_CHECK(errs, !flag, "attribute still there after delete");

    /* a failing delete callback: error returned, attribute stays */
    MPI_Type_set_attr(d, key, (void *)5);
    fail_delete = 1;
    rc = MPI_Type_delete_attr(d, key);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "failing delete callback gave %d", rc);
    MPI_Type_get_attr(d, key, &v, &flag);
    MTEST_CHECK(errs, flag && v == (void *)5, "attribute gone after a failed delete");
    rc = MPI_Type_set_attr(d, key, (void *)6);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "set over a value whose delete fails gave %d", rc);
    d2 = d;
    rc = MPI_Type_free(&d2);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG && d2 == d, "free with failing delete callback gave %d", rc);
    fail_delete = 0;

    /* free runs the delete callbacks */
    ndelete = 0;
    rc = MPI_Type_free(&d);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && ndelete == 1 && d == MPI_DATATYPE_NULL, "free: rc %d, %d delete calls", rc, ndelete);

    /* a failing copy callback fails the dup */
    fail_copy = 1;
    d = MPI_DATATYPE_NULL;
    rc = MPI_Type_dup(t, &d);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_OTHER, "failing copy callback gave %d", rc);
    fail_copy = 0;

    /* the keyval may be freed while attributes use it */
    MPI_Type_free_keyval(&key);
    MTEST_CHECK(errs, key == MPI_KEYVAL_INVALID, "free_keyval did not reset the key");
    ndelete = 0;
    MPI_Type_free(&t);
    MTEST_CHECK(errs, ndelete == 2, "free after free_keyval: %d delete calls, want 2", ndelete);

    /* predefined datatypes carry attributes too */
    MPI_Type_set_attr(MPI_INT, keynull, (void *)7);
    MPI_Type_get_attr(MPI_INT, keynull, &v, &flag);
    MTEST_CHECK(errs, flag && v == (void *)7, "attribute on MPI_INT: %p flag %d", v, flag);
    MPI_Type_get_attr(MPI_DOUBLE, keynull, &v, &flag);
    MTEST_CHECK(errs, !flag, "MPI_INT's attribute visible on MPI_DOUBLE");
    ndelete = 0;
    MPI_Type_delete_attr(MPI_INT, keynull);
    MTEST_CHECK(errs, ndelete == 1 && last_type == MPI_INT, "delete on MPI_INT: %d calls", ndelete);

    /* error cases */
    {
        int ckey;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, NULL);
        rc = MPI_Type_set_attr(MPI_INT, ckey, NULL);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_KEYVAL, "communicator key on a type gave %d", rc);
        rc = MPI_Type_free_keyval(&ckey);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_KEYVAL, "Type_free_keyval of a comm key gave %d", rc);
        MPI_Comm_free_keyval(&ckey);
        rc = MPI_Type_get_attr(MPI_DATATYPE_NULL, keynull, &v, &flag);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_TYPE, "get on MPI_DATATYPE_NULL gave %d", rc);
        rc = MPI_Type_set_attr(MPI_INT, MPI_KEYVAL_INVALID, NULL);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_KEYVAL, "MPI_KEYVAL_INVALID gave %d", rc);
        rc = MPI_Type_get_attr(MPI_INT, keynull, NULL, &flag);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "NULL attribute_val gave %d", rc);
    }
    MPI_Type_free_keyval(&key2);
    MPI_Type_free_keyval(&keynull);
}

static void test_windows(void)
{
    int key, rc, flag, ckey;
    void *v;
    MPI_Errhandler eh;

    rc = MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &key, NULL);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && key != MPI_KEYVAL_INVALID, "Win_create_keyval: rc %d", rc);
    rc = MPI_Win_set_attr(MPI_WIN_NULL, key, NULL);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_WIN, "Win_set_attr(MPI_WIN_NULL) gave %d", rc);
    rc = MPI_Win_get_attr(MPI_WIN_NULL, key, &v, &flag);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_WIN, "Win_get_attr(MPI_WIN_NULL) gave %d", rc);
    rc = MPI_Win_delete_attr((MPI_Win)0x12345, key);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_WIN, "Win_delete_attr(garbage) gave %d", rc);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, NULL);
    rc = MPI_Win_free_keyval(&ckey);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_KEYVAL, "Win_free_keyval of a comm key gave %d", rc);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, key, NULL);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_KEYVAL, "window key on a communicator gave %d", rc);
    MPI_Comm_free_keyval(&ckey);
    rc = MPI_Win_free_keyval(&key);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && key == MPI_KEYVAL_INVALID, "Win_free_keyval: rc %d", rc);

    rc = MPI_Win_create_errhandler(win_eh, &eh);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL, "Win_create_errhandler: rc %d", rc);
    rc = MPI_Win_set_errhandler(MPI_WIN_NULL, eh);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_WIN, "Win_set_errhandler gave %d", rc);
    {
        MPI_Errhandler g;
        rc = MPI_Win_get_errhandler(MPI_WIN_NULL, &g);
        MTEST_CHECK(errs, errclass(rc) == MPI_ERR_WIN, "Win_get_errhandler gave %d", rc);
    }
    rc = MPI_Win_call_errhandler(MPI_WIN_NULL, MPI_ERR_OTHER);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_WIN, "Win_call_errhandler gave %d", rc);
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "window handler on a communicator gave %d", rc);
    rc = MPI_Errhandler_free(&eh);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "Errhandler_free(win): rc %d", rc);
}

static void test_files(void)
{
    MPI_Errhandler feh, ceh, g;
    int rc;

    rc = MPI_File_get_errhandler(MPI_FILE_NULL, &g);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && g == MPI_ERRORS_RETURN, "default file handler %x", (unsigned)g);
    rc = MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_OTHER);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "File_call_errhandler with MPI_ERRORS_RETURN: rc %d", rc);

    rc = MPI_File_create_errhandler(file_eh, &feh);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "File_create_errhandler: rc %d", rc);
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, feh);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "File_set_errhandler: rc %d", rc);
    rc = MPI_File_get_errhandler(MPI_FILE_NULL, &g);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && g == feh, "File_get_errhandler gave %x, want %x", (unsigned)g, (unsigned)feh);
    MPI_Errhandler_free(&g);
    rc = MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO);
    MTEST_CHECK(errs, rc == MPI_SUCCESS && file_eh_calls == 1 && file_eh_code == MPI_ERR_IO && file_eh_file == MPI_FILE_NULL,
                "user file handler: rc %d, %d calls, code %d", rc, file_eh_calls, file_eh_code);
    /* freeing the handle keeps the handler attached */
    MPI_Errhandler_free(&feh);
    MTEST_CHECK(errs, feh == MPI_ERRHANDLER_NULL, "Errhandler_free(file) did not reset the handle");
    MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO);
    MTEST_CHECK(errs, file_eh_calls == 2, "handler gone after Errhandler_free");

    MPI_Comm_create_errhandler(comm_eh, &ceh);
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, ceh);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "communicator handler on a file gave %d", rc);
    MPI_Errhandler_free(&ceh);
    rc = MPI_File_set_errhandler((MPI_File)&rc, MPI_ERRORS_RETURN);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_FILE, "File_set_errhandler(garbage) gave %d", rc);
    rc = MPI_File_get_errhandler((MPI_File)&rc, &g);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_FILE, "File_get_errhandler(garbage) gave %d", rc);
    rc = MPI_File_call_errhandler((MPI_File)&rc, MPI_ERR_IO);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_FILE, "File_call_errhandler(garbage) gave %d", rc);
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRHANDLER_NULL);
    MTEST_CHECK(errs, errclass(rc) == MPI_ERR_ARG, "MPI_ERRHANDLER_NULL gave %d", rc);

    rc = MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "File_set_errhandler(MPI_ERRORS_RETURN): rc %d", rc);
    MPI_File_get_errhandler(MPI_FILE_NULL, &g);
    MTEST_CHECK(errs, g == MPI_ERRORS_RETURN, "file handler not reset");
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test_type_attrs();
    test_windows();
    test_files();
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
