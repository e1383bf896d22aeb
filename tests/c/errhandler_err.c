/* errhandler_err: error handler and error code misuse under
 * MPI_ERRORS_RETURN, and the parts of the handler protocol around it:
 * freeing the predefined handlers is allowed and leaves them working; a
 * user handler freed while attached keeps running and receives the
 * communicator and an error code whose class and string are right (the
 * string names the failing function and argument); MPI_Errhandler_set/get
 * (MPI-1 names); MPI_Add_error_string refuses predefined codes; invalid
 * codes are refused by MPI_Error_class/MPI_Error_string. */
#include "mtest_err.h"

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_comm = *comm;
    last_code = *code;
}

static void file_handler(MPI_File *f, int *code, ...) { (void)f; (void)code; }

int main(int argc, char **argv)
{
    int errs = 0, rank, cls, len, code;
    MPI_Errhandler eh, eh2, freed;
    MPI_Comm dup, junk;
    char s[MPI_MAX_ERROR_STRING + 1];

    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Freeing predefined handlers: allowed, sets the handle to null and
     * leaves the handler itself (and its uses) alone. */
    {
        MPI_Errhandler pre[3];
        int i;
        pre[0] = MPI_ERRORS_RETURN;
        pre[1] = MPI_ERRORS_ARE_FATAL;
        pre[2] = MPI_ERRORS_ABORT;
        for (i = 0; i < 3; i++) {
            EXPECT_OK(errs, MPI_Errhandler_free(&pre[i]));
            MTEST_CHECK(errs, pre[i] == MPI_ERRHANDLER_NULL, "free of predefined handler %d did not null it", i);
        }
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
        MTEST_CHECK(errs, eh == MPI_ERRORS_RETURN, "world handler is %#x", (unsigned)eh);
        EXPECT_OK(errs, MPI_Errhandler_free(&eh));
        EXPECT_ERR(errs, MPI_Comm_split_type(MPI_COMM_WORLD, -2, 0, MPI_INFO_NULL, &junk), MPI_ERR_ARG,
                   "MPI_Comm_split_type", "split_type");
    }

    /* Bad handles and arguments. */
    MPI_Comm_create_errhandler(handler, &freed);
    eh = freed;
    MPI_Errhandler_free(&eh);
    EXPECT_ERR(errs, MPI_Comm_set_errhandler(MPI_COMM_WORLD, freed), MPI_ERR_ARG, "MPI_Comm_set_errhandler",
               "errhandler");
    EXPECT_ERR(errs, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG,
               "MPI_Comm_set_errhandler", "errhandler");
    EXPECT_ERR(errs, MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG, "MPI_Errhandler_set",
               "errhandler");
    eh = MPI_ERRHANDLER_NULL;
    EXPECT_ERR(errs, MPI_Errhandler_free(&eh), MPI_ERR_ARG, "MPI_Errhandler_free", "errhandler");
    eh = freed;
    EXPECT_ERR(errs, MPI_Errhandler_free(&eh), MPI_ERR_ARG, "MPI_Errhandler_free", "errhandler");
    EXPECT_ERR(errs, MPI_Errhandler_free(NULL), MPI_ERR_ARG, "MPI_Errhandler_free", "errhandler");
    EXPECT_ERR(errs, MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG, "MPI_Comm_create_errhandler",
               "comm_errhandler_fn");
    EXPECT_ERR(errs, MPI_Comm_create_errhandler(handler, NULL), MPI_ERR_ARG, "MPI_Comm_create_errhandler",
               "errhandler");
    EXPECT_ERR(errs, MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_get_errhandler",
               "errhandler");
    /* a file error handler does not go on a communicator */
    MPI_File_create_errhandler(file_handler, &eh);
    EXPECT_ERR(errs, MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_ERR_ARG, "MPI_Comm_set_errhandler",
               "errhandler");
    MPI_Errhandler_free(&eh);

    /* A user handler freed while attached keeps working, is inherited by
     * dup, and receives a code that describes the error. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Errhandler_set(dup, eh); /* MPI-1 name */
    MPI_Errhandler_free(&eh);
    MTEST_CHECK(errs, eh == MPI_ERRHANDLER_NULL, "free of a user handler did not null it");
    MPI_Errhandler_get(dup, &eh2);
    MTEST_CHECK(errs, eh2 != MPI_ERRHANDLER_NULL && eh2 != MPI_ERRORS_RETURN && eh2 != MPI_ERRORS_ARE_FATAL,
                "get_errhandler after free gave %#x", (unsigned)eh2);
    calls = 0;
    {
        MPI_Comm bad;
        int rc = MPI_Comm_split_type(dup, -3, 0, MPI_INFO_NULL, &bad);
        MTEST_CHECK(errs, calls == 1 && last_comm == dup && last_code == rc, "handler: calls %d code %d rc %d",
                    calls, last_code, rc);
        errs += mtest_expect_err(last_code, MPI_ERR_ARG, "MPI_Comm_split_type", "split_type", "code given to the handler",
                                 __FILE__, __LINE__);
    }
    {
        MPI_Comm d2;
        MPI_Comm_dup(dup, &d2);
        calls = 0;
        MPI_Comm_call_errhandler(d2, MPI_ERR_TRUNCATE);
        MTEST_CHECK(errs, calls == 1 && last_comm == d2 && last_code == MPI_ERR_TRUNCATE,
                    "inherited handler: calls %d", calls);
        MPI_Comm_free(&d2);
    }
    /* a handler set on world is not called for errors on dup */
    calls = 0;
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh2);
    EXPECT_ERR(errs, MPI_Comm_split_type(dup, -3, 0, MPI_INFO_NULL, &junk), MPI_ERR_ARG, "MPI_Comm_split_type",
               "split_type");
    MTEST_CHECK(errs, calls == 0, "world's handler ran for an error on dup");
    /* errors on MPI_COMM_NULL go to world's handler */
    MPI_Comm_split(MPI_COMM_NULL, 0, 0, &junk);
    MTEST_CHECK(errs, calls == 1 && last_comm == MPI_COMM_WORLD, "MPI_COMM_NULL error: calls %d", calls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh2);

    /* Error codes and strings. */
    EXPECT_ERR(errs, MPI_Add_error_string(MPI_ERR_RANK, "mine"), MPI_ERR_ARG, "MPI_Add_error_string", "errorcode");
    EXPECT_ERR(errs, MPI_Add_error_string(MPI_SUCCESS, "mine"), MPI_ERR_ARG, "MPI_Add_error_string", "errorcode");
    EXPECT_ERR(errs, MPI_Add_error_string(MPI_ERR_LASTCODE + 54321, "mine"), MPI_ERR_ARG, "MPI_Add_error_string",
               "errorcode");
    MPI_Error_string(MPI_ERR_RANK, s, &len);
    MTEST_CHECK(errs, strcmp(s, "mine") != 0, "predefined string replaced");
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    {
        char longs[MPI_MAX_ERROR_STRING + 8];
        memset(longs, 's', sizeof longs - 1);
        longs[sizeof longs - 1] = 0;
        EXPECT_ERR(errs, MPI_Add_error_string(code, longs), MPI_ERR_ARG, "MPI_Add_error_string", "string");
    }
    EXPECT_OK(errs, MPI_Add_error_string(cls, "class text"));
    EXPECT_OK(errs, MPI_Add_error_string(code, "code text"));
    EXPECT_OK(errs, MPI_Add_error_string(code, "code text 2")); /* replacing is allowed */
    MPI_Error_string(code, s, &len);
    MTEST_CHECK(errs, strcmp(s, "code text 2") == 0 && len == 11, "user code string %s", s);
    MPI_Error_string(cls, s, &len);
    MTEST_CHECK(errs, strcmp(s, "class text") == 0, "user class string %s", s);
    EXPECT_ERR(errs, MPI_Add_error_code(MPI_ERR_LASTCODE + 54321, &code), MPI_ERR_ARG, "MPI_Add_error_code",
               "errorclass");
    EXPECT_ERR(errs, MPI_Add_error_code(cls, NULL), MPI_ERR_ARG, "MPI_Add_error_code", "errorcode");
    EXPECT_ERR(errs, MPI_Add_error_class(NULL), MPI_ERR_ARG, "MPI_Add_error_class", "errorclass");
    /* a user code raised through a handler keeps its class */
    {
        int c2 = -1, rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
        MTEST_CHECK(errs, rc == MPI_SUCCESS, "call_errhandler returned %d", rc);
        MPI_Error_class(code, &c2);
        MTEST_CHECK(errs, c2 == cls, "class of the user code %d, want %d", c2, cls);
    }
    EXPECT_ERR(errs, MPI_Error_class(-12345, &cls), MPI_ERR_ARG, "MPI_Error_class", "errorcode");
    EXPECT_ERR(errs, MPI_Error_class(MPI_ERR_RANK, NULL), MPI_ERR_ARG, "MPI_Error_class", "errorclass");
    EXPECT_ERR(errs, MPI_Error_string(-12345, s, &len), MPI_ERR_ARG, "MPI_Error_string", "errorcode");
    EXPECT_ERR(errs, MPI_Error_string(MPI_ERR_RANK, NULL, &len), MPI_ERR_ARG, "MPI_Error_string", "string");
    EXPECT_ERR(errs, MPI_Error_string(MPI_ERR_RANK, s, NULL), MPI_ERR_ARG, "MPI_Error_string", "resultlen");
    /* every predefined class has a non-empty string of its own */
    {
        int i;
        char prev[MPI_MAX_ERROR_STRING] = "";
        for (i = 0; i <= MPI_ERR_LASTCODE && i < 80; i++) {
            int l = -1, c = -1;
            if (MPI_Error_class(i, &c) != MPI_SUCCESS)
                continue;
            MPI_Error_string(i, s, &l);
            MTEST_CHECK(errs, c == i && l > 0 && (size_t)l == strlen(s) && strcmp(s, prev) != 0,
                        "class %d: class %d string \"%s\"", i, c, s);
            strcpy(prev, s);
        }
    }

    MPI_Comm_free(&dup);
    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
