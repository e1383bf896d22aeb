package main

// #include "../include/mpi.h"
// static void *gmpi_f08_status_ignore(void) { return &MPIR_F08_MPI_STATUS_IGNORE_OBJ; }
// static void *gmpi_f08_statuses_ignore(void) { return &MPIR_F08_MPI_STATUSES_IGNORE_OBJ[0]; }
import "C"

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Status conversions between C, Fortran (MPI_Fint[MPI_F_STATUS_SIZE]) and
// Fortran 2008 (MPI_F08_status). In the MPICH ABI all three hold the same
// five integers in the same order (count_lo, count_hi_and_cancelled,
// MPI_SOURCE, MPI_TAG, MPI_ERROR), so every conversion is a copy of
// five int32 after the arguments are checked. The ignore sentinels are
// not statuses: passing one is an argument error (MPI_F_STATUS_IGNORE is
// a null pointer in C, as in MPICH).

// statusWords is the number of integers of every status layout.
const statusWords = 5

// statusEnd names the kind of one side of a conversion.
type statusEnd uint8

const (
	endC statusEnd = iota
	endF
	endF08
)

// statusWordsAt checks the status pointer p of kind k (argument arg) and
// returns its five integers.
func statusWordsAt(fn string, p unsafe.Pointer, k statusEnd, arg string) ([]int32, int32) {
	if p == nil {
		what := "NULL pointer"
		if k == endF {
			what = "NULL pointer (MPI_F_STATUS_IGNORE)"
		}
		return nil, failf(fn, nil, mpirt.ErrArg, "invalid argument %s: %s", arg, what)
	}
	switch {
	case k == endC && uintptr(p) == 1:
		return nil, failf(fn, nil, mpirt.ErrArg, "invalid argument %s: MPI_STATUS_IGNORE is not a status", arg)
	case k == endF08 && (p == C.gmpi_f08_status_ignore() || p == C.gmpi_f08_statuses_ignore()):
		return nil, failf(fn, nil, mpirt.ErrArg, "invalid argument %s: MPI_F08_STATUS_IGNORE is not a status", arg)
	}
	return unsafe.Slice((*int32)(p), statusWords), 0
}

// convertStatus copies the status in (of kind from) to out (of kind to).
func convertStatus(fn string, in unsafe.Pointer, from statusEnd, inArg string, out unsafe.Pointer, to statusEnd, outArg string) int32 {
	src, rc := statusWordsAt(fn, in, from, inArg)
	if rc != 0 {
		return rc
	}
	dst, rc := statusWordsAt(fn, out, to, outArg)
	if rc != 0 {
		return rc
	}
	copy(dst, src)
	return 0
}

func MPI_Status_c2f(cStatus *Status, fStatus *int32) int32 {
	return convertStatus("MPI_Status_c2f", unsafe.Pointer(cStatus), endC, "c_status", unsafe.Pointer(fStatus), endF, "f_status")
}

func MPI_Status_f2c(fStatus *int32, cStatus *Status) int32 {
	return convertStatus("MPI_Status_f2c", unsafe.Pointer(fStatus), endF, "f_status", unsafe.Pointer(cStatus), endC, "c_status")
}

func MPI_Status_f082c(f08Status unsafe.Pointer, cStatus *Status) int32 {
	return convertStatus("MPI_Status_f082c", f08Status, endF08, "f08_status", unsafe.Pointer(cStatus), endC, "c_status")
}

func MPI_Status_c2f08(cStatus *Status, f08Status unsafe.Pointer) int32 {
	return convertStatus("MPI_Status_c2f08", unsafe.Pointer(cStatus), endC, "c_status", f08Status, endF08, "f08_status")
}

func MPI_Status_f082f(f08Status unsafe.Pointer, fStatus *int32) int32 {
	return convertStatus("MPI_Status_f082f", f08Status, endF08, "f08_status", unsafe.Pointer(fStatus), endF, "f_status")
}

func MPI_Status_f2f08(fStatus *int32, f08Status unsafe.Pointer) int32 {
	return convertStatus("MPI_Status_f2f08", unsafe.Pointer(fStatus), endF, "f_status", f08Status, endF08, "f08_status")
}
