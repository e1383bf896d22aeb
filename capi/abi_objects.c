// The data objects and helper functions that MPICH's mpi.h makes programs
// reference by symbol. A binary linked against MPICH resolves these names
// in libmpi.so, so their names, kinds and sizes match libmpich.so.12
// (tests/abi/symbols.sh checks the list).

#include "../include/mpi.h"

// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are constant pointers to two
// distinct objects private to the library; only the addresses matter.
// MPIR_C_MPI_UNWEIGHTED and MPIR_C_MPI_WEIGHTS_EMPTY are separate
// pointer-sized objects MPICH exports for its Fortran binding; they exist
// here with the same size, because a program's copy relocation records it.
static int unweighted;
static int weights_empty;
int *const MPI_UNWEIGHTED = &unweighted;
int *const MPI_WEIGHTS_EMPTY = &weights_empty;
void *MPIR_C_MPI_UNWEIGHTED;
void *MPIR_C_MPI_WEIGHTS_EMPTY;

// The Fortran status sentinels. MPICH leaves them null in C (the Fortran
// binding fills them in); gmpi has no Fortran binding.
MPI_Fint *MPI_F_STATUS_IGNORE;
MPI_Fint *MPI_F_STATUSES_IGNORE;

// The Fortran 2008 sentinels and the objects they point to.
MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = &MPIR_F08_MPI_STATUSES_IGNORE_OBJ[0];

// MPI_T_PVAR_ALL_HANDLES: the address of a private object, which no real
// performance-variable handle can equal.
static char all_pvar_handles;
struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES =
    (struct MPIR_T_pvar_handle_s *)&all_pvar_handles;

// MPIR_Dup_fn is MPI_DUP_FN and, cast, MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN
// and MPI_WIN_DUP_FN: the copy callback that gives the new object the
// same attribute value.
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

// The MPICH-G2 topology keyvals (include/mpi.h): variables, as MPICH-G2
// declared them, holding gmpi's builtin keyvals (capi/api_attr.go). They
// are initialized statically, not assigned by MPI_Init: a program's copy
// relocation takes the initial value, and the library, linked with
// -Bsymbolic, would assign its own copy only.
int MPICHX_TOPOLOGY_DEPTHS = 0x64400101;
int MPICHX_TOPOLOGY_COLORS = 0x64400103;

// The two weight sentinels for the fronts, whose headers spell
// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY differently (capi/front.h).
int *gmpi_mpich_unweighted(void) { return MPI_UNWEIGHTED; }
void *gmpi_mpich_pvar_all_handles(void) { return MPI_T_PVAR_ALL_HANDLES; }
int *gmpi_mpich_weights_empty(void) { return MPI_WEIGHTS_EMPTY; }
