/* mtest.h: helpers shared by gmpi's C tests (modelled on MPICH's mtest).
 *
 * A test counts its errors in an int, then calls MTest_Finalize(errs),
 * which sums the counts over MPI_COMM_WORLD, prints " No Errors" on rank 0
 * when the sum is 0 (" Found N errors" otherwise) and finalizes MPI. The
 * test runner passes a test when it exits 0 and printed " No Errors". */
#ifndef GMPI_MTEST_H
#define GMPI_MTEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MTest_Init initializes MPI (unless the test already did). */
void MTest_Init(int *argc, char ***argv);
/* MTest_Init_thread initializes MPI with MPI_Init_thread. */
void MTest_Init_thread(int *argc, char ***argv, int required, int *provided);
/* MTest_Finalize reports the job's error count on rank 0 and calls
 * MPI_Finalize. */
void MTest_Finalize(int errs);
/* MTestReturnValue is main's return value: non-zero iff any rank of the
 * job reported an error to MTest_Finalize. */
int MTestReturnValue(int errs);

/* MTestPrintError prints the string and class of an MPI error code. */
void MTestPrintError(int errcode);
void MTestPrintErrorMsg(const char *msg, int errcode);
/* MTestError prints msg and aborts the job. */
void MTestError(const char *msg);

/* MTestGetIntracomm iterates over intracommunicators with at least
 * min_size processes: call it with *comm unset until it returns 0. Each
 * call yields the next one in *comm (MPI_COMM_NULL on the ranks that are
 * not members); release each with MTestFreeComm. The list: MPI_COMM_WORLD,
 * MPI_COMM_SELF (when min_size <= 1), a dup of world, world with ranks
 * reversed, the even ranks of world. */
int MTestGetIntracomm(MPI_Comm *comm, int min_size);
void MTestFreeComm(MPI_Comm *comm);
/* MTestGetIntracommName names the communicator that the last
 * MTestGetIntracomm call returned. */
const char *MTestGetIntracommName(void);

/* MTEST_CHECK counts an error and prints where it happened when cond is
 * false. errs must be an int lvalue in scope. */
#define MTEST_CHECK(errs, cond, ...)                                      \
    do {                                                                  \
        if (!(cond)) {                                                    \
            int mtest_rank_;                                              \
            MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank_);                  \
            fprintf(stderr, "[%d] %s:%d: check failed: %s: ", mtest_rank_, \
                    __FILE__, __LINE__, #cond);                           \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
            fflush(stderr);                                               \
            (errs)++;                                                     \
        }                                                                 \
    } while (0)

/* A non-commutative, associative operation for reduction tests: 2x2
 * matrices of uint32_t multiplied modulo 2^32. MTestMatOf(r, i) is rank
 * r's i-th operand (products of these do not commute); MTestMatmulFn is
 * the MPI_User_function inout = in * inout over contiguous matrices. */
typedef struct {
    uint32_t a, b, c, d;
} MTestMat;
MTestMat MTestMatMul(MTestMat x, MTestMat y);
MTestMat MTestMatOf(int r, int i);
void MTestMatmulFn(void *in, void *inout, int *len, MPI_Datatype *dt);

#ifdef __cplusplus
}
#endif

#endif
