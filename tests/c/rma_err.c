/* rma_err: RMA error classes (wrong epoch, out-of-range displacement,
 * mismatched types and ops, flavor and attach errors, bad assertions and
 * lock types, invalid windows), window error handlers, attributes, names,
 * info and groups. */
#include <stdlib.h>
#include <string.h>
#include "mtest.h"

static int handler_calls, handler_code;
static void win_handler(MPI_Win *win, int *code, ...)
{
    (void)win;
    handler_calls++;
    handler_code = *code;
}

static int errs;

static void expect(int rc, int cls, const char *what)
{
    int c;
    MPI_Error_class(rc, &c);
    MTEST_CHECK(errs, c == cls, "%s: error class %d, expected %d", what, c, cls);
}

static void myop(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

int main(int argc, char **argv)
{
    int rank, size, buf[16] = {0};
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int *mem;
    MPI_Win win;
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);

    /* Attributes. */
    void *base;
    MPI_Aint *wsize;
    int *du, *flavor, *model, flag;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    MTEST_CHECK(errs, flag && base == mem, "MPI_WIN_BASE %p, expected %p", base, (void *)mem);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
    MTEST_CHECK(errs, flag && *wsize == 16 * sizeof(int), "MPI_WIN_SIZE");
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
    MTEST_CHECK(errs, flag && *du == sizeof(int), "MPI_WIN_DISP_UNIT");
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    MTEST_CHECK(errs, flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "MPI_WIN_CREATE_FLAVOR");
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    MTEST_CHECK(errs, flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");
    /* User attribute with a delete callback run at MPI_Win_free. */
    int key;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &key, NULL);
    MPI_Win_set_attr(win, key, (void *)42);
    void *v;
    MPI_Win_get_attr(win, key, &v, &flag);
    MTEST_CHECK(errs, flag && v == (void *)42, "user attribute");
    MPI_Win_free_keyval(&key);

    /* Names, info, group. */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_get_name(win, name, &len);
    MTEST_CHECK(errs, len == 0, "default name '%s'", name);
    MPI_Win_set_name(win, "my window");
    MPI_Win_get_name(win, name, &len);
    MTEST_CHECK(errs, strcmp(name, "my window") == 0 && len == 9, "name '%s'", name);
    MPI_Info info;
    char val[MPI_MAX_INFO_VAL];
    MPI_Win_get_info(win, &info);
    MPI_Info_get(info, "accumulate_ordering", MPI_MAX_INFO_VAL, val, &flag);
    MTEST_CHECK(errs, flag && strcmp(val, "rar,raw,war,waw") == 0, "accumulate_ordering '%s'", flag ? val : "");
    MPI_Info_set(info, "no_locks", "true");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
    MPI_Win_get_info(win, &info);
    MPI_Info_get(info, "no_locks", MPI_MAX_INFO_VAL, val, &flag);
    MTEST_CHECK(errs, flag && strcmp(val, "true") == 0, "no_locks '%s'", flag ? val : "");
    MPI_Info_free(&info);
    MPI_Group g, wg;
    int cmp;
    MPI_Win_get_group(win, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    MTEST_CHECK(errs, cmp == MPI_IDENT, "window group differs from world's");
    MPI_Group_free(&g);

    /* Error handlers: the default is MPI_ERRORS_ARE_FATAL. */
    MPI_Errhandler eh;
    MPI_Win_get_errhandler(win, &eh);
    MTEST_CHECK(errs, eh == MPI_ERRORS_ARE_FATAL, "default window error handler");
    MPI_Win_create_errhandler(win_handler, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Errhandler_free(&eh);
    int rc = MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    expect(rc, MPI_ERR_RMA_SYNC, "put outside an epoch");
    MTEST_CHECK(errs, handler_calls == 1 && handler_code == rc, "user handler called %d times", handler_calls);
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    MTEST_CHECK(errs, handler_calls == 2 && handler_code == MPI_ERR_OTHER, "MPI_Win_call_errhandler");
    /* Attribute errors go to the window's handler too. */
    rc = MPI_Win_set_attr(win, MPI_KEYVAL_INVALID, NULL);
    expect(rc, MPI_ERR_KEYVAL, "set_attr with MPI_KEYVAL_INVALID");
    MTEST_CHECK(errs, handler_calls == 3 && handler_code == rc, "attribute error: window handler called %d times", handler_calls);
    rc = MPI_Win_get_attr(win, MPI_WIN_BASE, NULL, &flag);
    expect(rc, MPI_ERR_ARG, "get_attr into NULL");
    MTEST_CHECK(errs, handler_calls == 4 && handler_code == rc, "attribute error: window handler called %d times", handler_calls);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    /* Epochs. */
    expect(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC, "unlock without lock");
    expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "complete without start");
    expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "wait without post");
    expect(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC, "flush without lock");
    expect(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "unlock_all without lock_all");
    expect(MPI_Win_lock(999, 0, 0, win), MPI_ERR_LOCKTYPE, "bad lock type");
    expect(MPI_Win_fence(12345, win), MPI_ERR_ASSERT, "bad assert");
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    expect(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC, "lock twice");
    expect(MPI_Win_free(&win), MPI_ERR_RMA_SYNC, "free while locked");
    /* Ranges, types and ops, inside a passive epoch. */
    expect(MPI_Put(buf, 1, MPI_INT, 0, 16, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, "put past the end");
    expect(MPI_Get(buf, 4, MPI_INT, 0, 14, 4, MPI_INT, win), MPI_ERR_RMA_RANGE, "get across the end");
    expect(MPI_Put(buf, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_DISP, "negative displacement");
    expect(MPI_Put(buf, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK, "target rank out of range");
    expect(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_FLOAT, MPI_SUM, win), MPI_ERR_TYPE, "accumulate int into float");
    expect(MPI_Accumulate(buf, 1, MPI_FLOAT, 0, 0, 1, MPI_FLOAT, MPI_BAND, win), MPI_ERR_OP, "MPI_BAND on float");
    MPI_Op op;
    MPI_Op_create(myop, 1, &op);
    expect(MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, op, win), MPI_ERR_OP, "user op");
    MPI_Op_free(&op);
    expect(MPI_Compare_and_swap(buf, buf + 1, buf + 2, MPI_DOUBLE, 0, 0, win), MPI_ERR_TYPE, "compare_and_swap on double");
    expect(MPI_Put(buf, 2, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_TYPE, "put of mismatched sizes");
    /* Accumulates that move no data (zero counts or zero-size types on
     * every side) succeed whatever the datatypes, as in MPICH; the op must
     * still be valid, and data against none is still a mismatch. */
    {
        MPI_Datatype empty;
        MPI_Type_contiguous(0, MPI_INT, &empty);
        MPI_Type_commit(&empty);
        expect(MPI_Accumulate(buf, 0, MPI_INT, 0, 0, 0, MPI_DOUBLE, MPI_SUM, win), MPI_SUCCESS, "empty accumulate, int and double");
        expect(MPI_Accumulate(buf, 2, empty, 0, 0, 0, MPI_INT, MPI_SUM, win), MPI_SUCCESS, "accumulate of a zero-size type");
        expect(MPI_Accumulate(NULL, 0, MPI_DOUBLE, 0, 0, 1, empty, MPI_SUM, win), MPI_SUCCESS, "accumulate into a zero-size type");
        expect(MPI_Get_accumulate(NULL, 1, empty, NULL, 2, empty, 0, 0, 0, MPI_DOUBLE, MPI_SUM, win), MPI_SUCCESS,
               "get_accumulate of zero-size types");
        expect(MPI_Get_accumulate(buf, 0, MPI_INT, buf + 4, 0, MPI_DOUBLE, 0, 0, 3, empty, MPI_SUM, win), MPI_SUCCESS,
               "get_accumulate of zero counts");
        expect(MPI_Accumulate(buf, 0, MPI_INT, 0, 0, 0, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP, "empty accumulate with MPI_OP_NULL");
        expect(MPI_Accumulate(buf, 0, MPI_INT, size, 0, 0, MPI_INT, MPI_SUM, win), MPI_ERR_RANK, "empty accumulate to a bad rank");
        expect(MPI_Accumulate(buf, 1, empty, 0, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_TYPE, "accumulate of nothing into an int");
        MPI_Type_free(&empty);
    }
    MPI_Win_unlock(0, win);
    /* Flavors. */
    MPI_Aint qs;
    int qd;
    void *qb;
    expect(MPI_Win_shared_query(win, 0, &qs, &qd, &qb), MPI_ERR_RMA_FLAVOR, "shared_query on an allocated window");
    expect(MPI_Win_attach(win, buf, sizeof buf), MPI_ERR_RMA_FLAVOR, "attach to an allocated window");
    MPI_Win_free(&win);
    expect(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_WIN_NULL");
    expect(MPI_Win_fence(0, (MPI_Win)0x12345678), MPI_ERR_WIN, "garbage window");

    /* Dynamic windows: detach and access errors. */
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    expect(MPI_Win_detach(win, buf), MPI_ERR_RMA_ATTACH, "detach of unattached memory");
    MPI_Win_attach(win, buf, sizeof buf);
    expect(MPI_Win_attach(win, buf + 2, 4), MPI_ERR_RMA_ATTACH, "overlapping attach");
    MPI_Aint a;
    MPI_Get_address(buf, &a);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    expect(MPI_Put(buf, 1, MPI_INT, rank, a + sizeof buf, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, "put beyond the attached region");
    int one = 5;
    MTEST_CHECK(errs, MPI_Put(&one, 1, MPI_INT, rank, a + 4, 1, MPI_INT, win) == MPI_SUCCESS, "put into the attached region");
    MPI_Win_unlock(rank, win);
    MTEST_CHECK(errs, buf[1] == 5, "dynamic put to self: %d", buf[1]);
    /* The same against the right neighbour (another host under
     * rma_hosts.sh: its regions are learnt from it). */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Aint *addrs = malloc(size * sizeof(MPI_Aint));
    MPI_Allgather(&a, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    expect(MPI_Put(buf, 1, MPI_INT, right, addrs[right] + sizeof buf, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, "put beyond the neighbour's attached region");
    expect(MPI_Get(buf + 8, 2, MPI_INT, right, addrs[right] - 4, 2, MPI_INT, win), MPI_ERR_RMA_RANGE, "get before the neighbour's attached region");
    int mine = 100 + rank;
    MTEST_CHECK(errs, MPI_Put(&mine, 1, MPI_INT, right, addrs[right] + 12, 1, MPI_INT, win) == MPI_SUCCESS, "put into the neighbour's region");
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_CHECK(errs, buf[3] == 100 + left, "dynamic put from the left neighbour: %d, expected %d", buf[3], 100 + left);
    free(addrs);
    MPI_Win_detach(win, buf);
    MPI_Win_free(&win);
    MPI_Group_free(&wg);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
