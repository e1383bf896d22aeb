// The objects behind Open MPI's predefined handles (front_ompi.h).

#ifndef GMPI_FRONT_OMPI_OBJECTS_H
#define GMPI_FRONT_OMPI_OBJECTS_H

// The predefined objects: X(symbol, kind, inner handle, size in bytes)
// (sizes as in Open MPI 4.1's libmpi.so.40; the MPI-4 ones it lacks,
// ompi_mpi_errors_abort and ompi_mpi_instance_null, are Open MPI 5's names).
#define GMPI_OMPI_OBJECTS(X) \
    X(ompi_mpi_group_null, FR_GROUP, 0x08000000, 256) \
    X(ompi_mpi_comm_null, FR_COMM, 0x04000000, 512) \
    X(ompi_request_null, FR_REQUEST, 0x2c000000, 256) \
    X(ompi_message_null, FR_MESSAGE, 0x2c000000, 256) \
    X(ompi_mpi_op_null, FR_OP, 0x18000000, 2048) \
    X(ompi_mpi_errhandler_null, FR_ERRHANDLER, 0x14000000, 1024) \
    X(ompi_mpi_info_null, FR_INFO, 0x1c000000, 256) \
    X(ompi_mpi_win_null, FR_WIN, 0x20000000, 512) \
    X(ompi_mpi_file_null, FR_FILE, 0, 1536) \
    X(ompi_mpi_info_env, FR_INFO, 0x5c000001, 256) \
    X(ompi_mpi_ub, FR_DATATYPE, 0x4c000011, 512) \
    X(ompi_mpi_lb, FR_DATATYPE, 0x4c000010, 512) \
    X(ompi_mpi_comm_world, FR_COMM, 0x44000000, 512) \
    X(ompi_mpi_comm_self, FR_COMM, 0x44000001, 512) \
    X(ompi_mpi_group_empty, FR_GROUP, 0x48000000, 256) \
    X(ompi_message_no_proc, FR_MESSAGE, 0x6c000000, 256) \
    X(ompi_mpi_op_max, FR_OP, 0x58000001, 2048) \
    X(ompi_mpi_op_min, FR_OP, 0x58000002, 2048) \
    X(ompi_mpi_op_sum, FR_OP, 0x58000003, 2048) \
    X(ompi_mpi_op_prod, FR_OP, 0x58000004, 2048) \
    X(ompi_mpi_op_land, FR_OP, 0x58000005, 2048) \
    X(ompi_mpi_op_band, FR_OP, 0x58000006, 2048) \
    X(ompi_mpi_op_lor, FR_OP, 0x58000007, 2048) \
    X(ompi_mpi_op_bor, FR_OP, 0x58000008, 2048) \
    X(ompi_mpi_op_lxor, FR_OP, 0x58000009, 2048) \
    X(ompi_mpi_op_bxor, FR_OP, 0x5800000a, 2048) \
    X(ompi_mpi_op_maxloc, FR_OP, 0x5800000c, 2048) \
    X(ompi_mpi_op_minloc, FR_OP, 0x5800000b, 2048) \
    X(ompi_mpi_op_replace, FR_OP, 0x5800000d, 2048) \
    X(ompi_mpi_op_no_op, FR_OP, 0x5800000e, 2048) \
    X(ompi_mpi_datatype_null, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_byte, FR_DATATYPE, 0x4c00010d, 512) \
    X(ompi_mpi_packed, FR_DATATYPE, 0x4c00010f, 512) \
    X(ompi_mpi_char, FR_DATATYPE, 0x4c000101, 512) \
    X(ompi_mpi_short, FR_DATATYPE, 0x4c000203, 512) \
    X(ompi_mpi_int, FR_DATATYPE, 0x4c000405, 512) \
    X(ompi_mpi_long, FR_DATATYPE, 0x4c000807, 512) \
    X(ompi_mpi_float, FR_DATATYPE, 0x4c00040a, 512) \
    X(ompi_mpi_double, FR_DATATYPE, 0x4c00080b, 512) \
    X(ompi_mpi_long_double, FR_DATATYPE, 0x4c00100c, 512) \
    X(ompi_mpi_unsigned_char, FR_DATATYPE, 0x4c000102, 512) \
    X(ompi_mpi_signed_char, FR_DATATYPE, 0x4c000118, 512) \
    X(ompi_mpi_unsigned_short, FR_DATATYPE, 0x4c000204, 512) \
    X(ompi_mpi_unsigned_long, FR_DATATYPE, 0x4c000808, 512) \
    X(ompi_mpi_unsigned, FR_DATATYPE, 0x4c000406, 512) \
    X(ompi_mpi_float_int, FR_DATATYPE, 0x8c000000, 512) \
    X(ompi_mpi_double_int, FR_DATATYPE, 0x8c000001, 512) \
    X(ompi_mpi_longdbl_int, FR_DATATYPE, 0x8c000004, 512) \
    X(ompi_mpi_long_int, FR_DATATYPE, 0x8c000002, 512) \
    X(ompi_mpi_short_int, FR_DATATYPE, 0x8c000003, 512) \
    X(ompi_mpi_2int, FR_DATATYPE, 0x4c000816, 512) \
    X(ompi_mpi_wchar, FR_DATATYPE, 0x4c00040e, 512) \
    X(ompi_mpi_long_long_int, FR_DATATYPE, 0x4c000809, 512) \
    X(ompi_mpi_unsigned_long_long, FR_DATATYPE, 0x4c000819, 512) \
    X(ompi_mpi_2cplex, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_2dblcplex, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_character, FR_DATATYPE, 0x4c00011a, 512) \
    X(ompi_mpi_logical, FR_DATATYPE, 0x4c00041d, 512) \
    X(ompi_mpi_logical1, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_logical2, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_logical4, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_logical8, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_integer, FR_DATATYPE, 0x4c00041b, 512) \
    X(ompi_mpi_integer1, FR_DATATYPE, 0x4c00012d, 512) \
    X(ompi_mpi_integer2, FR_DATATYPE, 0x4c00022f, 512) \
    X(ompi_mpi_integer4, FR_DATATYPE, 0x4c000430, 512) \
    X(ompi_mpi_integer8, FR_DATATYPE, 0x4c000831, 512) \
    X(ompi_mpi_integer16, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_real, FR_DATATYPE, 0x4c00041c, 512) \
    X(ompi_mpi_real4, FR_DATATYPE, 0x4c000427, 512) \
    X(ompi_mpi_real8, FR_DATATYPE, 0x4c000829, 512) \
    X(ompi_mpi_real16, FR_DATATYPE, 0x4c00102b, 512) \
    X(ompi_mpi_dblprec, FR_DATATYPE, 0x4c00081f, 512) \
    X(ompi_mpi_cplex, FR_DATATYPE, 0x4c00081e, 512) \
    X(ompi_mpi_complex8, FR_DATATYPE, 0x4c000828, 512) \
    X(ompi_mpi_complex16, FR_DATATYPE, 0x4c00102a, 512) \
    X(ompi_mpi_complex32, FR_DATATYPE, 0x4c00202c, 512) \
    X(ompi_mpi_dblcplex, FR_DATATYPE, 0x4c001022, 512) \
    X(ompi_mpi_2real, FR_DATATYPE, 0x4c000821, 512) \
    X(ompi_mpi_2dblprec, FR_DATATYPE, 0x4c001023, 512) \
    X(ompi_mpi_2integer, FR_DATATYPE, 0x4c000820, 512) \
    X(ompi_mpi_int8_t, FR_DATATYPE, 0x4c000137, 512) \
    X(ompi_mpi_uint8_t, FR_DATATYPE, 0x4c00013b, 512) \
    X(ompi_mpi_int16_t, FR_DATATYPE, 0x4c000238, 512) \
    X(ompi_mpi_uint16_t, FR_DATATYPE, 0x4c00023c, 512) \
    X(ompi_mpi_int32_t, FR_DATATYPE, 0x4c000439, 512) \
    X(ompi_mpi_uint32_t, FR_DATATYPE, 0x4c00043d, 512) \
    X(ompi_mpi_int64_t, FR_DATATYPE, 0x4c00083a, 512) \
    X(ompi_mpi_uint64_t, FR_DATATYPE, 0x4c00083e, 512) \
    X(ompi_mpi_aint, FR_DATATYPE, 0x4c000843, 512) \
    X(ompi_mpi_offset, FR_DATATYPE, 0x4c000844, 512) \
    X(ompi_mpi_c_bool, FR_DATATYPE, 0x4c00013f, 512) \
    X(ompi_mpi_c_float_complex, FR_DATATYPE, 0x4c000840, 512) \
    X(ompi_mpi_c_double_complex, FR_DATATYPE, 0x4c001041, 512) \
    X(ompi_mpi_c_long_double_complex, FR_DATATYPE, 0x4c002042, 512) \
    X(ompi_mpi_cxx_bool, FR_DATATYPE, 0x4c000133, 512) \
    X(ompi_mpi_cxx_cplex, FR_DATATYPE, 0x4c000834, 512) \
    X(ompi_mpi_cxx_dblcplex, FR_DATATYPE, 0x4c001035, 512) \
    X(ompi_mpi_cxx_ldblcplex, FR_DATATYPE, 0x4c002036, 512) \
    X(ompi_mpi_count, FR_DATATYPE, 0x4c000845, 512) \
    X(ompi_mpi_errors_are_fatal, FR_ERRHANDLER, 0x54000000, 1024) \
    X(ompi_mpi_errors_return, FR_ERRHANDLER, 0x54000001, 1024) \
    X(ompi_mpi_ldblcplex, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_real2, FR_DATATYPE, 0x0c000000, 512) \
    X(ompi_mpi_errors_abort, FR_ERRHANDLER, 0x54000003, 1024) \
    X(ompi_mpi_instance_null, FR_SESSION, 0x38000000, 512) \

#endif
