/*
 * mpi.h: the C interface of gmpi.
 *
 * gmpi is binary compatible with MPICH (the ABI that MPICH, Intel MPI,
 * Cray MPICH and MVAPICH share): every handle value, constant, type size,
 * structure layout and exported symbol below matches Debian's MPICH 4.0.2,
 * so a program built against MPICH runs on libmpi.so unchanged and a
 * program built against this header runs on MPICH. tests/abi checks that
 * claim by compiling one probe against both headers.
 *
 * Handles are 32-bit ints in MPICH's encoding:
 *   bits 30-31  kind: 0 invalid, 1 builtin, 2 direct, 3 indirect
 *   bits 26-29  object type (communicator 1, group 2, datatype 3, file 4,
 *               errhandler 5, op 6, info 7, window 8, keyval 9, attribute
 *               10, request 11, ...)
 *   bits  0-25  index; builtin datatypes keep their size in bytes in
 *               bits 8-15.
 *
 * The prototypes live in mpi_proto.h, which is generated from the table
 * capi/spec/mpi.txt; this file holds everything else.
 */
#ifndef GMPI_MPI_H
#define GMPI_MPI_H

/* Several programs test for the include guard MPICH uses. */
#ifndef MPI_INCLUDED
#define MPI_INCLUDED
#endif

#include <stddef.h>
/* MPICH's header pulls in <stdint.h> for C99 and C++11 compilers, and some
 * programs rely on it. */
#if (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || \
    (defined(__cplusplus) && __cplusplus >= 201103L)
#include <stdint.h>
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Versions                                                            */
/* ------------------------------------------------------------------ */

#define MPI_VERSION    4
#define MPI_SUBVERSION 0

/* gmpi speaks MPICH's ABI and identifies as the MPICH release whose ABI it
 * reproduces, so code that tests these macros takes its MPICH paths. */
#define MPICH          1
#define MPICH_NAME     4
#define MPICH_HAS_C2F  1
#define MPICH_VERSION  "4.0.2"
#define MPICH_NUMVERSION 40002300
#define MPICH_RELEASE_TYPE_ALPHA 0
#define MPICH_RELEASE_TYPE_BETA  1
#define MPICH_RELEASE_TYPE_RC    2
#define MPICH_RELEASE_TYPE_PATCH 3
#define MPICH_CALC_VERSION(major, minor, revision, type, patch) \
    (((major) * 10000000) + ((minor) * 100000) + ((revision) * 1000) + ((type) * 100) + (patch))

/* ------------------------------------------------------------------ */
/* Scalar and handle types                                             */
/* ------------------------------------------------------------------ */

typedef long MPI_Aint;
typedef long MPI_Count;
typedef long MPI_Offset;
typedef int MPI_Fint;

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Group;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Message;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_Session;
typedef int MPIX_Grequest_class;

/* Files are pointers in this ABI (ROMIO's design). The structure tag is
 * MPICH's so that C++ signatures mangle the same way. */
typedef struct ADIOI_FileD *MPI_File;
#define MPI_FILE_DEFINED
#define HAVE_MPI_OFFSET

#define MPI_AINT_FMT_DEC_SPEC "%ld"
#define MPI_AINT_FMT_HEX_SPEC "%lx"

/* The status. The byte count is split: its low 32 bits are count_lo, its
 * high bits are count_hi_and_cancelled >> 1; bit 0 of count_hi_and_cancelled
 * is the cancelled flag. Use MPI_Get_count and MPI_Test_cancelled. */
typedef struct MPI_Status {
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

/* The same five fields as seen from Fortran 2008 (TYPE(MPI_Status)). */
typedef struct {
    MPI_Fint count_lo;
    MPI_Fint count_hi_and_cancelled;
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
} MPI_F08_status;

#define MPI_F_STATUS_SIZE 5
#define MPI_F_SOURCE      2
#define MPI_F_TAG         3
#define MPI_F_ERROR       4

/* ------------------------------------------------------------------ */
/* Null and predefined handles                                         */
/* ------------------------------------------------------------------ */

#define MPI_COMM_NULL       ((MPI_Comm)0x04000000)
#define MPI_GROUP_NULL      ((MPI_Group)0x08000000)
#define MPI_DATATYPE_NULL   ((MPI_Datatype)0x0c000000)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_OP_NULL         ((MPI_Op)0x18000000)
#define MPI_INFO_NULL       ((MPI_Info)0x1c000000)
#define MPI_WIN_NULL        ((MPI_Win)0x20000000)
#define MPI_KEYVAL_INVALID  0x24000000
#define MPI_REQUEST_NULL    ((MPI_Request)0x2c000000)
#define MPI_MESSAGE_NULL    ((MPI_Message)0x2c000000)
#define MPI_SESSION_NULL    ((MPI_Session)0x38000000)
#define MPI_FILE_NULL       ((MPI_File)0)

#define MPI_COMM_WORLD      ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF       ((MPI_Comm)0x44000001)
#define MPI_GROUP_EMPTY     ((MPI_Group)0x48000000)
#define MPI_INFO_ENV        ((MPI_Info)0x5c000001)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c000000)

#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x54000001)
#define MPIR_ERRORS_THROW_EXCEPTIONS ((MPI_Errhandler)0x54000002)
#define MPI_ERRORS_ABORT     ((MPI_Errhandler)0x54000003)

/* ------------------------------------------------------------------ */
/* Predefined datatypes (size in bytes in bits 8-15)                   */
/* ------------------------------------------------------------------ */

/* C integers and characters */
#define MPI_CHAR               ((MPI_Datatype)0x4c000101)
#define MPI_UNSIGNED_CHAR      ((MPI_Datatype)0x4c000102)
#define MPI_SHORT              ((MPI_Datatype)0x4c000203)
#define MPI_UNSIGNED_SHORT     ((MPI_Datatype)0x4c000204)
#define MPI_INT                ((MPI_Datatype)0x4c000405)
#define MPI_UNSIGNED           ((MPI_Datatype)0x4c000406)
#define MPI_LONG               ((MPI_Datatype)0x4c000807)
#define MPI_UNSIGNED_LONG      ((MPI_Datatype)0x4c000808)
#define MPI_LONG_LONG_INT      ((MPI_Datatype)0x4c000809)
#define MPI_LONG_LONG          MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c000819)
#define MPI_SIGNED_CHAR        ((MPI_Datatype)0x4c000118)
#define MPI_WCHAR              ((MPI_Datatype)0x4c00040e)

/* C floating point */
#define MPI_FLOAT              ((MPI_Datatype)0x4c00040a)
#define MPI_DOUBLE             ((MPI_Datatype)0x4c00080b)
#define MPI_LONG_DOUBLE        ((MPI_Datatype)0x4c00100c)

/* Untyped data and the deprecated bound markers */
#define MPI_BYTE               ((MPI_Datatype)0x4c00010d)
#define MPI_PACKED             ((MPI_Datatype)0x4c00010f)
#define MPI_LB                 ((MPI_Datatype)0x4c000010)
#define MPI_UB                 ((MPI_Datatype)0x4c000011)

/* Value-index pairs for MPI_MINLOC and MPI_MAXLOC. Except MPI_2INT they
 * are not builtin handles (kind 2): their layout is the C struct
 * { value; int index; } with the value type's alignment. */
#define MPI_FLOAT_INT          ((MPI_Datatype)0x8c000000)
#define MPI_DOUBLE_INT         ((MPI_Datatype)0x8c000001)
#define MPI_LONG_INT           ((MPI_Datatype)0x8c000002)
#define MPI_SHORT_INT          ((MPI_Datatype)0x8c000003)
#define MPI_LONG_DOUBLE_INT    ((MPI_Datatype)0x8c000004)
#define MPI_2INT               ((MPI_Datatype)0x4c000816)

/* Fortran types */
#define MPI_CHARACTER          ((MPI_Datatype)0x4c00011a)
#define MPI_INTEGER            ((MPI_Datatype)0x4c00041b)
#define MPI_REAL               ((MPI_Datatype)0x4c00041c)
#define MPI_LOGICAL            ((MPI_Datatype)0x4c00041d)
#define MPI_COMPLEX            ((MPI_Datatype)0x4c00081e)
#define MPI_DOUBLE_PRECISION   ((MPI_Datatype)0x4c00081f)
#define MPI_2INTEGER           ((MPI_Datatype)0x4c000820)
#define MPI_2REAL              ((MPI_Datatype)0x4c000821)
#define MPI_DOUBLE_COMPLEX     ((MPI_Datatype)0x4c001022)
#define MPI_2DOUBLE_PRECISION  ((MPI_Datatype)0x4c001023)

/* Fortran types of a given size */
#define MPI_REAL4              ((MPI_Datatype)0x4c000427)
#define MPI_COMPLEX8           ((MPI_Datatype)0x4c000828)
#define MPI_REAL8              ((MPI_Datatype)0x4c000829)
#define MPI_COMPLEX16          ((MPI_Datatype)0x4c00102a)
#define MPI_REAL16             ((MPI_Datatype)0x4c00102b)
#define MPI_COMPLEX32          ((MPI_Datatype)0x4c00202c)
#define MPI_INTEGER1           ((MPI_Datatype)0x4c00012d)
#define MPI_INTEGER2           ((MPI_Datatype)0x4c00022f)
#define MPI_INTEGER4           ((MPI_Datatype)0x4c000430)
#define MPI_INTEGER8           ((MPI_Datatype)0x4c000831)
#define MPI_INTEGER16          ((MPI_Datatype)MPI_DATATYPE_NULL) /* not available */

/* C++ types */
#define MPI_CXX_BOOL                ((MPI_Datatype)0x4c000133)
#define MPI_CXX_FLOAT_COMPLEX       ((MPI_Datatype)0x4c000834)
#define MPI_CXX_DOUBLE_COMPLEX      ((MPI_Datatype)0x4c001035)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002036)

/* C99 fixed-width integers */
#define MPI_INT8_T             ((MPI_Datatype)0x4c000137)
#define MPI_INT16_T            ((MPI_Datatype)0x4c000238)
#define MPI_INT32_T            ((MPI_Datatype)0x4c000439)
#define MPI_INT64_T            ((MPI_Datatype)0x4c00083a)
#define MPI_UINT8_T            ((MPI_Datatype)0x4c00013b)
#define MPI_UINT16_T           ((MPI_Datatype)0x4c00023c)
#define MPI_UINT32_T           ((MPI_Datatype)0x4c00043d)
#define MPI_UINT64_T           ((MPI_Datatype)0x4c00083e)

/* C99 boolean and complex */
#define MPI_C_BOOL                ((MPI_Datatype)0x4c00013f)
#define MPI_C_FLOAT_COMPLEX       ((MPI_Datatype)0x4c000840)
#define MPI_C_COMPLEX             MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX      ((MPI_Datatype)0x4c001041)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002042)

/* The MPI address types */
#define MPI_AINT               ((MPI_Datatype)0x4c000843)
#define MPI_OFFSET             ((MPI_Datatype)0x4c000844)
#define MPI_COUNT              ((MPI_Datatype)0x4c000845)

/* Half precision (an MPICH extension) */
#define MPIX_C_FLOAT16         ((MPI_Datatype)0x4c000246)

/* Type classes for MPI_Type_match_size */
#define MPI_TYPECLASS_REAL    1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* Datatype combiners (MPI_Type_get_envelope) */
enum MPIR_Combiner_enum {
    MPI_COMBINER_NAMED            = 1,
    MPI_COMBINER_DUP              = 2,
    MPI_COMBINER_CONTIGUOUS       = 3,
    MPI_COMBINER_VECTOR           = 4,
    MPI_COMBINER_HVECTOR_INTEGER  = 5,
    MPI_COMBINER_HVECTOR          = 6,
    MPI_COMBINER_INDEXED          = 7,
    MPI_COMBINER_HINDEXED_INTEGER = 8,
    MPI_COMBINER_HINDEXED         = 9,
    MPI_COMBINER_INDEXED_BLOCK    = 10,
    MPI_COMBINER_STRUCT_INTEGER   = 11,
    MPI_COMBINER_STRUCT           = 12,
    MPI_COMBINER_SUBARRAY         = 13,
    MPI_COMBINER_DARRAY           = 14,
    MPI_COMBINER_F90_REAL         = 15,
    MPI_COMBINER_F90_COMPLEX      = 16,
    MPI_COMBINER_F90_INTEGER      = 17,
    MPI_COMBINER_RESIZED          = 18,
    MPI_COMBINER_HINDEXED_BLOCK   = 19
};

/* Subarray and darray constructors */
#define MPI_ORDER_C              56
#define MPI_ORDER_FORTRAN        57
#define MPI_DISTRIBUTE_BLOCK     121
#define MPI_DISTRIBUTE_CYCLIC    122
#define MPI_DISTRIBUTE_NONE      123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* ------------------------------------------------------------------ */
/* Reduction operations                                                */
/* ------------------------------------------------------------------ */

#define MPI_MAX     ((MPI_Op)0x58000001)
#define MPI_MIN     ((MPI_Op)0x58000002)
#define MPI_SUM     ((MPI_Op)0x58000003)
#define MPI_PROD    ((MPI_Op)0x58000004)
#define MPI_LAND    ((MPI_Op)0x58000005)
#define MPI_BAND    ((MPI_Op)0x58000006)
#define MPI_LOR     ((MPI_Op)0x58000007)
#define MPI_BOR     ((MPI_Op)0x58000008)
#define MPI_LXOR    ((MPI_Op)0x58000009)
#define MPI_BXOR    ((MPI_Op)0x5800000a)
#define MPI_MINLOC  ((MPI_Op)0x5800000b)
#define MPI_MAXLOC  ((MPI_Op)0x5800000c)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP   ((MPI_Op)0x5800000e)

typedef void (MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void (MPI_User_function_c)(void *invec, void *inoutvec, MPI_Count *len,
                                   MPI_Datatype *datatype);

/* ------------------------------------------------------------------ */
/* Special values                                                      */
/* ------------------------------------------------------------------ */

#define MPI_PROC_NULL   (-1)
#define MPI_ANY_SOURCE  (-2)
#define MPI_ROOT        (-3)
#define MPI_ANY_TAG     (-1)
#define MPI_UNDEFINED   (-32766)

#define MPI_BOTTOM      ((void *)0)
#define MPI_IN_PLACE    ((void *)-1)

#define MPI_STATUS_IGNORE   ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)

/* Graph topology weights: addresses of objects inside the library. */
extern int *const MPI_UNWEIGHTED;
extern int *const MPI_WEIGHTS_EMPTY;

/* Fortran status sentinels, and the objects behind the F08 ones. */
extern MPI_Fint *MPI_F_STATUS_IGNORE;
extern MPI_Fint *MPI_F_STATUSES_IGNORE;
extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
extern int MPIR_F08_MPI_IN_PLACE;
extern int MPIR_F08_MPI_BOTTOM;
extern MPI_F08_status *MPI_F08_STATUS_IGNORE;
extern MPI_F08_status *MPI_F08_STATUSES_IGNORE;

/* Limits on string lengths (including the terminating NUL) */
#define MPI_MAX_PROCESSOR_NAME         128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_PORT_NAME              256
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_STRINGTAG_LEN          256
#define MPI_MAX_PSET_NAME_LEN          256
#define MPI_MAX_INFO_KEY               255
#define MPI_MAX_INFO_VAL               1024

/* Results of the compare functions */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* Thread support levels */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* Topologies */
typedef enum MPIR_Topo_type {
    MPI_GRAPH      = 1,
    MPI_CART       = 2,
    MPI_DIST_GRAPH = 3
} MPIR_Topo_type;

/* MPI_Comm_split_type */
#define MPI_COMM_TYPE_SHARED        1
#define MPI_COMM_TYPE_HW_GUIDED     2
#define MPI_COMM_TYPE_HW_UNGUIDED   3
#define MPIX_COMM_TYPE_NEIGHBORHOOD 4

/* One-sided communication */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED    235

#define MPI_MODE_NOCHECK   1024
#define MPI_MODE_NOSTORE   2048
#define MPI_MODE_NOPUT     4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

typedef enum MPIR_Win_flavor {
    MPI_WIN_FLAVOR_CREATE   = 1,
    MPI_WIN_FLAVOR_ALLOCATE = 2,
    MPI_WIN_FLAVOR_DYNAMIC  = 3,
    MPI_WIN_FLAVOR_SHARED   = 4
} MPIR_Win_flavor_t;

typedef enum MPIR_Win_model {
    MPI_WIN_SEPARATE = 1,
    MPI_WIN_UNIFIED  = 2
} MPIR_Win_model_t;

/* Buffered sends: the most bookkeeping one message adds to the buffer */
#define MPI_BSEND_OVERHEAD 96

/* ------------------------------------------------------------------ */
/* Attributes                                                          */
/* ------------------------------------------------------------------ */

/* Predefined keyvals: builtin kind, keyval object type 9, then the object
 * they attach to (communicator 0x1, window 0x8, in bits 22-25) and an odd
 * index; the Fortran twin of each is the value plus one. */
#define MPI_TAG_UB            0x64400001
#define MPI_HOST              0x64400003
#define MPI_IO                0x64400005
#define MPI_WTIME_IS_GLOBAL   0x64400007
#define MPI_UNIVERSE_SIZE     0x64400009
#define MPI_LASTUSEDCODE      0x6440000b
#define MPI_APPNUM            0x6440000d

#define MPI_WIN_BASE          0x66000001
#define MPI_WIN_SIZE          0x66000003
#define MPI_WIN_DISP_UNIT     0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL         0x66000009

/* The grid topology, as MPICH-G2 exposed it, on every communicator:
 *   int *depths;  MPI_Comm_get_attr(comm, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag)
 *                 depths[rank] = number of levels at which rank communicates
 *                 (4 for processes of a machine with a vendor MPI, else 3)
 *   int **colors; MPI_Comm_get_attr(comm, MPICHX_TOPOLOGY_COLORS, &colors, &flag)
 *                 colors[rank][level] = the rank's cluster at that level
 * rank is a rank of comm (of the local group of an intercommunicator); the
 * arrays belong to the library and are freed with comm. Two ranks share a
 * color at a level iff they can talk at that level; colors are numbered
 * 0, 1, ... per level in the order of their first process in
 * MPI_COMM_WORLD. As in MPICH-G2 the keyvals are variables; their values
 * are gmpi's own builtin communicator keyvals (like MPI_TAG_UB), far from
 * MPICH's, valid from program start. */
extern int MPICHX_TOPOLOGY_DEPTHS;
extern int MPICHX_TOPOLOGY_COLORS;

/* The topology levels, outermost first. */
#define MPICHX_WAN_LEVEL  0 /* wide area: all processes */
#define MPICHX_LAN_LEVEL  1 /* local area: the same site */
#define MPICHX_HOST_LEVEL 2 /* system area: the same machine */
#define MPICHX_VMPI_LEVEL 3 /* the same vendor MPI job */

typedef int (MPI_Copy_function)(MPI_Comm oldcomm, int keyval, void *extra_state,
                                void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Delete_function)(MPI_Comm comm, int keyval, void *attribute_val,
                                  void *extra_state);
typedef int (MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                          void *attribute_val_in, void *attribute_val_out,
                                          int *flag);
typedef int (MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval,
                                            void *attribute_val, void *extra_state);
typedef int (MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval,
                                          void *extra_state, void *attribute_val_in,
                                          void *attribute_val_out, int *flag);
typedef int (MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval,
                                            void *attribute_val, void *extra_state);
typedef int (MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int (MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val,
                                           void *extra_state);

/* The predefined copy and delete callbacks. The "null" ones are null
 * pointers; the "dup" ones are one library function that copies the value
 * and sets *flag. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag);

#define MPI_NULL_COPY_FN        ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN      ((MPI_Delete_function *)0)
#define MPI_DUP_FN              MPIR_Dup_fn
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN         ((MPI_Comm_copy_attr_function *)MPI_DUP_FN)
#define MPI_TYPE_NULL_COPY_FN   ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN         ((MPI_Type_copy_attr_function *)MPI_DUP_FN)
#define MPI_WIN_NULL_COPY_FN    ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN  ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN          ((MPI_Win_copy_attr_function *)MPI_DUP_FN)

/* ------------------------------------------------------------------ */
/* Error handling                                                      */
/* ------------------------------------------------------------------ */

typedef void (MPI_Handler_function)(MPI_Comm *comm, int *errcode, ...);
typedef void (MPI_Comm_errhandler_function)(MPI_Comm *comm, int *errcode, ...);
typedef void (MPI_File_errhandler_function)(MPI_File *file, int *errcode, ...);
typedef void (MPI_Win_errhandler_function)(MPI_Win *win, int *errcode, ...);
typedef void (MPI_Session_errhandler_function)(MPI_Session *session, int *errcode, ...);
/* MPI-2.0 spellings */
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;

/* Error classes */
#define MPI_SUCCESS                   0
#define MPI_ERR_BUFFER                1
#define MPI_ERR_COUNT                 2
#define MPI_ERR_TYPE                  3
#define MPI_ERR_TAG                   4
#define MPI_ERR_COMM                  5
#define MPI_ERR_RANK                  6
#define MPI_ERR_ROOT                  7
#define MPI_ERR_GROUP                 8
#define MPI_ERR_OP                    9
#define MPI_ERR_TOPOLOGY              10
#define MPI_ERR_DIMS                  11
#define MPI_ERR_ARG                   12
#define MPI_ERR_UNKNOWN               13
#define MPI_ERR_TRUNCATE              14
#define MPI_ERR_OTHER                 15
#define MPI_ERR_INTERN                16
#define MPI_ERR_IN_STATUS             17
#define MPI_ERR_PENDING               18
#define MPI_ERR_REQUEST               19
#define MPI_ERR_ACCESS                20
#define MPI_ERR_AMODE                 21
#define MPI_ERR_BAD_FILE              22
#define MPI_ERR_CONVERSION            23
#define MPI_ERR_DUP_DATAREP           24
#define MPI_ERR_FILE_EXISTS           25
#define MPI_ERR_FILE_IN_USE           26
#define MPI_ERR_FILE                  27
#define MPI_ERR_INFO                  28
#define MPI_ERR_INFO_KEY              29
#define MPI_ERR_INFO_VALUE            30
#define MPI_ERR_INFO_NOKEY            31
#define MPI_ERR_IO                    32
#define MPI_ERR_NAME                  33
#define MPI_ERR_NO_MEM                34
#define MPI_ERR_NOT_SAME              35
#define MPI_ERR_NO_SPACE              36
#define MPI_ERR_NO_SUCH_FILE          37
#define MPI_ERR_PORT                  38
#define MPI_ERR_QUOTA                 39
#define MPI_ERR_READ_ONLY             40
#define MPI_ERR_SERVICE               41
#define MPI_ERR_SPAWN                 42
#define MPI_ERR_UNSUPPORTED_DATAREP   43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN                   45
#define MPI_ERR_BASE                  46
#define MPI_ERR_LOCKTYPE              47
#define MPI_ERR_KEYVAL                48
#define MPI_ERR_RMA_CONFLICT          49
#define MPI_ERR_RMA_SYNC              50
#define MPI_ERR_SIZE                  51
#define MPI_ERR_DISP                  52
#define MPI_ERR_ASSERT                53
#define MPI_ERR_RMA_RANGE             55
#define MPI_ERR_RMA_ATTACH            56
#define MPI_ERR_RMA_SHARED            57
#define MPI_ERR_RMA_FLAVOR            58
#define MPI_T_ERR_MEMORY              59
#define MPI_T_ERR_NOT_INITIALIZED     60
#define MPI_T_ERR_CANNOT_INIT         61
#define MPI_T_ERR_INVALID_INDEX       62
#define MPI_T_ERR_INVALID_ITEM        63
#define MPI_T_ERR_INVALID_HANDLE      64
#define MPI_T_ERR_OUT_OF_HANDLES      65
#define MPI_T_ERR_OUT_OF_SESSIONS     66
#define MPI_T_ERR_INVALID_SESSION     67
#define MPI_T_ERR_CVAR_SET_NOT_NOW    68
#define MPI_T_ERR_CVAR_SET_NEVER      69
#define MPI_T_ERR_PVAR_NO_STARTSTOP   70
#define MPI_T_ERR_PVAR_NO_WRITE       71
#define MPI_T_ERR_PVAR_NO_ATOMIC      72
#define MPI_T_ERR_INVALID_NAME        73
#define MPI_T_ERR_INVALID             74
#define MPI_ERR_SESSION               75
#define MPI_ERR_PROC_ABORTED          76
#define MPI_ERR_VALUE_TOO_LARGE       77
#define MPI_T_ERR_NOT_SUPPORTED       78
#define MPICH_ERR_LAST_CLASS          78
#define MPI_ERR_LASTCODE              0x3fffffff

/* MPICH's extension classes start above a gap */
#define MPICH_ERR_FIRST_MPIX          100
#define MPIX_ERR_PROC_FAILED          (MPICH_ERR_FIRST_MPIX + 1)
#define MPIX_ERR_PROC_FAILED_PENDING  (MPICH_ERR_FIRST_MPIX + 2)
#define MPIX_ERR_REVOKED              (MPICH_ERR_FIRST_MPIX + 3)
#define MPIX_ERR_EAGAIN               (MPICH_ERR_FIRST_MPIX + 4)
#define MPIX_ERR_NOREQ                (MPICH_ERR_FIRST_MPIX + 5)
#define MPICH_ERR_LAST_MPIX           (MPICH_ERR_FIRST_MPIX + 5)

/* ------------------------------------------------------------------ */
/* Generalized requests and data representations                       */
/* ------------------------------------------------------------------ */

typedef int (MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int (MPI_Grequest_free_function)(void *extra_state);
typedef int (MPI_Grequest_cancel_function)(void *extra_state, int complete);
typedef int (MPIX_Grequest_poll_function)(void *extra_state, MPI_Status *status);
typedef int (MPIX_Grequest_wait_function)(int count, void **array_of_states, double timeout,
                                          MPI_Status *status);

typedef int (MPI_Datarep_conversion_function)(void *userbuf, MPI_Datatype datatype, int count,
                                              void *filebuf, MPI_Offset position,
                                              void *extra_state);
typedef int (MPI_Datarep_conversion_function_c)(void *userbuf, MPI_Datatype datatype,
                                                MPI_Count count, void *filebuf,
                                                MPI_Offset position, void *extra_state);
typedef int (MPI_Datarep_extent_function)(MPI_Datatype datatype, MPI_Aint *file_extent,
                                          void *extra_state);
#define MPI_CONVERSION_FN_NULL   ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)

/* ------------------------------------------------------------------ */
/* Handle conversion: C and Fortran handles are the same integers      */
/* ------------------------------------------------------------------ */

#define MPI_Comm_c2f(comm)              ((MPI_Fint)(comm))
#define MPI_Comm_f2c(comm)              ((MPI_Comm)(comm))
#define MPI_Type_c2f(datatype)          ((MPI_Fint)(datatype))
#define MPI_Type_f2c(datatype)          ((MPI_Datatype)(datatype))
#define MPI_Group_c2f(group)            ((MPI_Fint)(group))
#define MPI_Group_f2c(group)            ((MPI_Group)(group))
#define MPI_Info_c2f(info)              ((MPI_Fint)(info))
#define MPI_Info_f2c(info)              ((MPI_Info)(info))
#define MPI_Request_c2f(request)        ((MPI_Fint)(request))
#define MPI_Request_f2c(request)        ((MPI_Request)(request))
#define MPI_Op_c2f(op)                  ((MPI_Fint)(op))
#define MPI_Op_f2c(op)                  ((MPI_Op)(op))
#define MPI_Errhandler_c2f(errhandler)  ((MPI_Fint)(errhandler))
#define MPI_Errhandler_f2c(errhandler)  ((MPI_Errhandler)(errhandler))
#define MPI_Win_c2f(win)                ((MPI_Fint)(win))
#define MPI_Win_f2c(win)                ((MPI_Win)(win))
#define MPI_Message_c2f(msg)            ((MPI_Fint)(msg))
#define MPI_Message_f2c(msg)            ((MPI_Message)(msg))
#define MPI_Session_c2f(session)        ((MPI_Fint)(session))
#define MPI_Session_f2c(session)        ((MPI_Session)(session))

#define PMPI_Comm_c2f(comm)             ((MPI_Fint)(comm))
#define PMPI_Comm_f2c(comm)             ((MPI_Comm)(comm))
#define PMPI_Type_c2f(datatype)         ((MPI_Fint)(datatype))
#define PMPI_Type_f2c(datatype)         ((MPI_Datatype)(datatype))
#define PMPI_Group_c2f(group)           ((MPI_Fint)(group))
#define PMPI_Group_f2c(group)           ((MPI_Group)(group))
#define PMPI_Info_c2f(info)             ((MPI_Fint)(info))
#define PMPI_Info_f2c(info)             ((MPI_Info)(info))
#define PMPI_Request_c2f(request)       ((MPI_Fint)(request))
#define PMPI_Request_f2c(request)       ((MPI_Request)(request))
#define PMPI_Op_c2f(op)                 ((MPI_Fint)(op))
#define PMPI_Op_f2c(op)                 ((MPI_Op)(op))
#define PMPI_Errhandler_c2f(errhandler) ((MPI_Fint)(errhandler))
#define PMPI_Errhandler_f2c(errhandler) ((MPI_Errhandler)(errhandler))
#define PMPI_Win_c2f(win)               ((MPI_Fint)(win))
#define PMPI_Win_f2c(win)               ((MPI_Win)(win))
#define PMPI_Message_c2f(msg)           ((MPI_Fint)(msg))
#define PMPI_Message_f2c(msg)           ((MPI_Message)(msg))
#define PMPI_Session_c2f(session)       ((MPI_Fint)(session))
#define PMPI_Session_f2c(session)       ((MPI_Session)(session))

/* ------------------------------------------------------------------ */
/* The tool information interface (MPI_T)                              */
/* ------------------------------------------------------------------ */

/* Opaque handles; the structure tags are MPICH's (C++ mangling). */
typedef struct MPIR_T_enum_s *MPI_T_enum;
typedef struct MPIR_T_cvar_handle_s *MPI_T_cvar_handle;
typedef struct MPIR_T_pvar_handle_s *MPI_T_pvar_handle;
typedef struct MPIR_T_pvar_session_s *MPI_T_pvar_session;
typedef struct MPIR_T_event_registration_s *MPI_T_event_registration;
typedef struct MPIR_T_event_instance_s *MPI_T_event_instance;

extern struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES;

#define MPI_T_ENUM_NULL         ((MPI_T_enum)NULL)
#define MPI_T_CVAR_HANDLE_NULL  ((MPI_T_cvar_handle)NULL)
#define MPI_T_PVAR_HANDLE_NULL  ((MPI_T_pvar_handle)NULL)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)NULL)

/* Verbosity: the nine levels must keep this relative order. */
typedef enum MPIR_T_verbosity_t {
    MPI_T_VERBOSITY_INVALID       = 0,
    MPI_T_VERBOSITY_USER_BASIC    = 221,
    MPI_T_VERBOSITY_USER_DETAIL   = 222,
    MPI_T_VERBOSITY_USER_ALL      = 223,
    MPI_T_VERBOSITY_TUNER_BASIC   = 224,
    MPI_T_VERBOSITY_TUNER_DETAIL  = 225,
    MPI_T_VERBOSITY_TUNER_ALL     = 226,
    MPI_T_VERBOSITY_MPIDEV_BASIC  = 227,
    MPI_T_VERBOSITY_MPIDEV_DETAIL = 228,
    MPI_T_VERBOSITY_MPIDEV_ALL    = 229
} MPIR_T_verbosity_t;

typedef enum MPIR_T_bind_t {
    MPI_T_BIND_INVALID        = 0,
    MPI_T_BIND_NO_OBJECT      = 9700,
    MPI_T_BIND_MPI_COMM       = 9701,
    MPI_T_BIND_MPI_DATATYPE   = 9702,
    MPI_T_BIND_MPI_ERRHANDLER = 9703,
    MPI_T_BIND_MPI_FILE       = 9704,
    MPI_T_BIND_MPI_GROUP      = 9705,
    MPI_T_BIND_MPI_OP         = 9706,
    MPI_T_BIND_MPI_REQUEST    = 9707,
    MPI_T_BIND_MPI_WIN        = 9708,
    MPI_T_BIND_MPI_MESSAGE    = 9709,
    MPI_T_BIND_MPI_INFO       = 9710
} MPIR_T_bind_t;

typedef enum MPIR_T_scope_t {
    MPI_T_SCOPE_INVALID  = 0,
    MPI_T_SCOPE_CONSTANT = 60438,
    MPI_T_SCOPE_READONLY = 60439,
    MPI_T_SCOPE_LOCAL    = 60440,
    MPI_T_SCOPE_GROUP    = 60441,
    MPI_T_SCOPE_GROUP_EQ = 60442,
    MPI_T_SCOPE_ALL      = 60443,
    MPI_T_SCOPE_ALL_EQ   = 60444
} MPIR_T_scope_t;

typedef enum MPIR_T_pvar_class_t {
    MPI_T_PVAR_CLASS_INVALID       = 0,
    MPIR_T_PVAR_CLASS_FIRST        = 240,
    MPI_T_PVAR_CLASS_STATE         = 240,
    MPI_T_PVAR_CLASS_LEVEL         = 241,
    MPI_T_PVAR_CLASS_SIZE          = 242,
    MPI_T_PVAR_CLASS_PERCENTAGE    = 243,
    MPI_T_PVAR_CLASS_HIGHWATERMARK = 244,
    MPI_T_PVAR_CLASS_LOWWATERMARK  = 245,
    MPI_T_PVAR_CLASS_COUNTER       = 246,
    MPI_T_PVAR_CLASS_AGGREGATE     = 247,
    MPI_T_PVAR_CLASS_TIMER         = 248,
    MPI_T_PVAR_CLASS_GENERIC       = 249,
    MPIR_T_PVAR_CLASS_LAST         = 250,
    MPIR_T_PVAR_CLASS_NUMBER       = 10
} MPIR_T_pvar_class_t;

typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE              = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED    = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE       = 2,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;

typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED   = 0,
    MPI_T_SOURCE_UNORDERED = 1
} MPI_T_source_order;

typedef void (MPI_T_event_cb_function)(MPI_T_event_instance event_instance,
                                       MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, void *user_data);
typedef void (MPI_T_event_free_cb_function)(MPI_T_event_registration event_registration,
                                            MPI_T_cb_safety cb_safety, void *user_data);
typedef void (MPI_T_event_dropped_cb_function)(MPI_Count count,
                                               MPI_T_event_registration event_registration,
                                               int source_index, MPI_T_cb_safety cb_safety,
                                               void *user_data);

/* ------------------------------------------------------------------ */
/* Extensions and feature advertisement                                */
/* ------------------------------------------------------------------ */

#define MPIX_GPU_SUPPORT_CUDA 0
#define MPIX_GPU_SUPPORT_ZE   1
#define MPIX_GPU_SUPPORT_HIP  2

#define MPIIMPL_ADVERTISES_FEATURES         1
#define MPIIMPL_HAVE_MPI_INFO               1
#define MPIIMPL_HAVE_MPI_COMBINER_DARRAY    1
#define MPIIMPL_HAVE_MPI_TYPE_CREATE_DARRAY 1
#define MPIIMPL_HAVE_MPI_COMBINER_SUBARRAY  1
#define MPIIMPL_HAVE_MPI_COMBINER_DUP       1
#define MPIIMPL_HAVE_MPI_GREQUEST           1
#define MPIIMPL_HAVE_STATUS_SET_BYTES       1
#define MPIIMPL_HAVE_STATUS_SET_INFO        1

/* ------------------------------------------------------------------ */
/* Prototypes (generated) and MPI-IO                                   */
/* ------------------------------------------------------------------ */

#include "mpi_proto.h"

#if defined(__cplusplus)
}
#endif

#include "mpio.h"

#endif /* GMPI_MPI_H */
