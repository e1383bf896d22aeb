/* errcodes_mpich: error classes and codes added by the user are numbered
 * as MPICH 4.0 numbers them (classes MPI_ERR_LASTCODE+2, +3, ...; codes
 * carry a global counter above the class), MPI_LASTUSEDCODE starts at
 * MPI_ERR_LASTCODE and is the last class added (the standard's "current
 * maximum error class"), and MPI_Error_class/MPI_Error_string answer for
 * them as MPICH does. The codes the library itself returns stay at most
 * MPI_ERR_LASTCODE. Unlike MPICH, adding a code to something that is not
 * a class fails with MPI_ERR_ARG. Any number of processes. */
#include "mtest_err.h"
#include <string.h>

#define NCLASSES 32
#define NCODES 5

static int lastused(void)
{
    int *p = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag);
    return flag && p ? *p : -1;
}

int main(int argc, char **argv)
{
    int errs = 0, c1, c2, e1, e2, e3, epre, cls, len, i, j, rc, size;
    int newclass[NCLASSES], newcode[NCLASSES][NCODES];
    char s[MPI_MAX_ERROR_STRING], want[MPI_MAX_ERROR_STRING];

    MTest_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MTEST_CHECK(errs, lastused() == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE before any class: %d, want %d", lastused(),
                MPI_ERR_LASTCODE);

    /* MPICH's numbers. */
    EXPECT_OK(errs, MPI_Add_error_class(&c1));
    EXPECT_OK(errs, MPI_Add_error_class(&c2));
    EXPECT_OK(errs, MPI_Add_error_code(c1, &e1));
    EXPECT_OK(errs, MPI_Add_error_code(c1, &e2));
    EXPECT_OK(errs, MPI_Add_error_code(c2, &e3));
    EXPECT_OK(errs, MPI_Add_error_code(MPI_ERR_ARG, &epre));
    MTEST_CHECK(errs, c1 == 0x40000001 && c2 == 0x40000002, "classes %#x %#x", c1, c2);
    MTEST_CHECK(errs, e1 == 0x40000101 && e2 == 0x40000201 && e3 == 0x40000302, "codes %#x %#x %#x", e1, e2, e3);
    MTEST_CHECK(errs, epre == 0x40c, "code of MPI_ERR_ARG %#x", epre);
    MTEST_CHECK(errs, c1 > MPI_ERR_LASTCODE && e1 > MPI_ERR_LASTCODE, "user values not above MPI_ERR_LASTCODE");
    MTEST_CHECK(errs, lastused() == c2, "MPI_LASTUSEDCODE %#x, want the last class %#x", lastused(), c2);

    /* Error_class and Error_string on them. */
    {
        int codes[] = {c1, c2, e1, e2, e3, epre}, classes[] = {c1, c2, c1, c1, c2, MPI_ERR_ARG};
        for (i = 0; i < 6; i++) {
            cls = -1;
            EXPECT_OK(errs, MPI_Error_class(codes[i], &cls));
            MTEST_CHECK(errs, cls == classes[i], "class of %#x: %#x, want %#x", codes[i], cls, classes[i]);
            len = -1;
            s[0] = 'x';
            s[1] = 0;
            EXPECT_OK(errs, MPI_Error_string(codes[i], s, &len));
            if (i < 5)
                MTEST_CHECK(errs, len == 0 && s[0] == 0, "string of %#x without one: \"%s\" (%d)", codes[i], s, len);
            else
                MTEST_CHECK(errs, len > 0 && (size_t)len == strlen(s), "code of MPI_ERR_ARG reads \"%s\"", s);
        }
    }
    EXPECT_OK(errs, MPI_Add_error_string(c1, "my class one"));
    EXPECT_OK(errs, MPI_Add_error_string(e1, "my code one"));
    MPI_Error_string(c1, s, &len);
    MTEST_CHECK(errs, !strcmp(s, "my class one") && len == 12, "class string \"%s\" (%d)", s, len);
    MPI_Error_string(e1, s, &len);
    MTEST_CHECK(errs, !strcmp(s, "my code one") && len == 11, "code string \"%s\" (%d)", s, len);
    MPI_Error_string(e2, s, &len);
    MTEST_CHECK(errs, len == 0, "a code does not take its class's string: \"%s\"", s);
    EXPECT_ERR(errs, MPI_Add_error_code(MPI_ERR_LASTCODE + 7, &i), MPI_ERR_ARG, "MPI_Add_error_code", "errorclass");
    EXPECT_ERR(errs, MPI_Add_error_code(e1, &i), MPI_ERR_ARG, "MPI_Add_error_code", "errorclass");

    /* Many classes, each with codes and strings (MPICH's adderr). */
    for (i = 0; i < NCLASSES; i++) {
        EXPECT_OK(errs, MPI_Add_error_class(&newclass[i]));
        for (j = 0; j < NCODES; j++) {
            EXPECT_OK(errs, MPI_Add_error_code(newclass[i], &newcode[i][j]));
            snprintf(want, sizeof(want), "code for class %d code %d\n", i, j);
            EXPECT_OK(errs, MPI_Add_error_string(newcode[i][j], want));
        }
    }
    for (i = 0; i < NCLASSES; i++) {
        MPI_Error_class(newclass[i], &cls);
        MTEST_CHECK(errs, cls == newclass[i], "class %d: %#x is its own class? %#x", i, newclass[i], cls);
        for (j = 0; j < NCODES; j++) {
            MPI_Error_class(newcode[i][j], &cls);
            MTEST_CHECK(errs, cls == newclass[i], "class of code %d.%d: %#x, want %#x", i, j, cls, newclass[i]);
            MPI_Error_string(newcode[i][j], s, &len);
            snprintf(want, sizeof(want), "code for class %d code %d\n", i, j);
            MTEST_CHECK(errs, !strcmp(s, want), "string of code %d.%d: \"%s\"", i, j, s);
        }
    }
    MTEST_CHECK(errs, lastused() == newclass[NCLASSES - 1], "MPI_LASTUSEDCODE %#x, want %#x", lastused(),
                newclass[NCLASSES - 1]);

    /* A user code through an error handler comes back unchanged. */
    rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, e3);
    MTEST_CHECK(errs, rc == MPI_SUCCESS || rc == e3, "call_errhandler returned %#x", rc);

    /* The library's own error codes stay at most MPI_ERR_LASTCODE. */
    rc = MPI_Send(NULL, 0, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK(errs, rc != MPI_SUCCESS && rc <= MPI_ERR_LASTCODE && cls == MPI_ERR_RANK,
                "library code %#x (class %d) above MPI_ERR_LASTCODE", rc, cls);

    MTest_Finalize(errs);
    return MTestReturnValue(errs);
}
