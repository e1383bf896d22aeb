package main

import mpirt "gmpi/runtime"

// f90Type is MPI_Type_create_f90_{integer,real,complex}.
func f90Type(fn string, combiner int, p, r int32, newtype *int32) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if newtype == nil {
		return badPointer(fn, "newtype")
	}
	d, err := world.F90Type(combiner, int(p), int(r))
	if err != nil {
		return fail(fn, nil, err)
	}
	*newtype = int32(d.Handle)
	return 0
}

func MPI_Type_create_f90_integer(r int32, newtype *int32) int32 {
	return f90Type("MPI_Type_create_f90_integer", mpirt.CombinerF90Integer, mpirt.Undefined, r, newtype)
}

func MPI_Type_create_f90_real(p, r int32, newtype *int32) int32 {
	return f90Type("MPI_Type_create_f90_real", mpirt.CombinerF90Real, p, r, newtype)
}

func MPI_Type_create_f90_complex(p, r int32, newtype *int32) int32 {
	return f90Type("MPI_Type_create_f90_complex", mpirt.CombinerF90Complex, p, r, newtype)
}
