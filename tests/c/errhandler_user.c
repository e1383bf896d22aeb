/* errhandler_user: user error handlers on communicators (create, set,
 * get, call, free; called with the communicator and code; inherited by
 * dup), MPI_Add_error_class/code/string, MPI_LASTUSEDCODE. */
#include "mtest.h"
#include <string.h>

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_comm = *comm;
    last_code = *code;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, cls, code, code2, rc, len, *last, flag;
    MPI_Errhandler eh, got;
    MPI_Comm dup;
    char s[MPI_MAX_ERROR_STRING];

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Comm_get_errhandler(dup, &got);
    MTEST_CHECK(errs, got == eh, "get_errhandler gave %x", (unsigned)got);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);
    MTEST_CHECK(errs, eh == MPI_ERRHANDLER_NULL, "free did not null");

    /* an error on dup goes to the handler, which returns: the code comes back */
    rc = MPI_Send(NULL, -1, MPI_INT, 0, 0, dup);
    MTEST_CHECK(errs, calls == 1 && last_comm == dup && last_code == rc, "handler calls %d", calls);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_COUNT, "class %d", cls);
    MPI_Error_string(rc, s, &len);
    MTEST_CHECK(errs, strstr(s, "MPI_Send") && strstr(s, "count"), "message does not name function and argument: %s", s);

    /* dup inherits the handler */
    {
        MPI_Comm d2;
        MPI_Comm_dup(dup, &d2);
        rc = MPI_Send(NULL, 1, MPI_INT, 0, -5, d2);
        MTEST_CHECK(errs, calls == 2 && last_comm == d2, "inherited handler not called (%d)", calls);
        MPI_Comm_free(&d2);
    }

    /* user classes and codes */
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_code(cls, &code2);
    MTEST_CHECK(errs, code != code2 && code != cls, "codes not distinct");
    MPI_Add_error_string(code, "my special error");
    MPI_Error_string(code, s, &len);
    MTEST_CHECK(errs, strcmp(s, "my special error") == 0, "string %s", s);
    {
        int c2;
        MPI_Error_class(code2, &c2);
        MTEST_CHECK(errs, c2 == cls, "class of user code %d want %d", c2, cls);
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    /* The largest class (the standard; MPICH does not count codes). */
    MTEST_CHECK(errs, flag && *last == cls && *last > MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", *last);

    /* call_errhandler */
    MPI_Comm_call_errhandler(dup, code);
    MTEST_CHECK(errs, calls == 3 && last_code == code, "call_errhandler");

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Add_error_code(123456, &code);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_ARG, "code of a bad class: %d", cls);
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, cls == MPI_ERR_ARG, "set MPI_ERRHANDLER_NULL: %d", cls);
    rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    MTEST_CHECK(errs, rc == MPI_SUCCESS, "call_errhandler with MPI_ERRORS_RETURN gave %d", rc);

    MPI_Comm_free(&dup);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
