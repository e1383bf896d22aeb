package mpirt

// maxTypeAlign is the largest C alignment of a predefined type: on s390x
// long double and the 16-byte floats are 8-aligned (so MPI_LONG_DOUBLE_INT
// has extent 24, not x86-64's 32).
const maxTypeAlign = 8
