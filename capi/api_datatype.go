package main

import (
	"math"
	"unsafe"

	mpirt "gmpi/runtime"
)

// Datatype constructors, queries, Pack/Unpack and external32: argument
// decoding only; the semantics are in runtime/dtcreate.go, dtloop.go and
// dtext32.go.

// ints32 turns a C int array of n entries into Go ints; nil with an error
// raised when the pointer is NULL and n > 0.
func ints32(fn, arg string, p *int32, n int) ([]int, int32) {
	if n > 0 && p == nil {
		return nil, failf(fn, nil, mpirt.ErrArg, "invalid argument %s: NULL pointer", arg)
	}
	out := make([]int, n)
	if n > 0 {
		for i, v := range unsafe.Slice(p, n) {
			out[i] = int(v)
		}
	}
	return out, 0
}

// ints64 is ints32 for MPI_Aint/MPI_Count arrays.
func ints64(fn, arg string, p *int64, n int) ([]int, int32) {
	if n > 0 && p == nil {
		return nil, failf(fn, nil, mpirt.ErrArg, "invalid argument %s: NULL pointer", arg)
	}
	out := make([]int, n)
	if n > 0 {
		for i, v := range unsafe.Slice(p, n) {
			out[i] = int(v)
		}
	}
	return out, 0
}

// oldType resolves the type a constructor builds on (committed or not).
func oldType(fn string, h int32, arg string) (*mpirt.Datatype, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	return anyDatatype(fn, h, arg)
}

// anyDatatype resolves a datatype argument that need not be committed.
func anyDatatype(fn string, h int32, arg string) (*mpirt.Datatype, int32) {
	if dt := world.AnyDatatype(mpirt.Handle(h)); dt != nil {
		return dt, 0
	}
	return datatype(fn, nil, h, arg) // raises the right message
}

// typeArg resolves the datatype argument of a query.
func typeArg(fn string, h int32) (*mpirt.Datatype, int32) {
	return oldType(fn, h, "datatype")
}

// newType stores the result of a constructor in *out.
func newType(fn string, d *mpirt.Datatype, err error, out *int32) int32 {
	if err != nil {
		return fail(fn, nil, err)
	}
	if out == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument newtype: NULL pointer")
	}
	*out = int32(world.AddDatatype(d))
	return 0
}

func countArg(fn string, n int64, arg string) int32 {
	return checkCount(fn, nil, n, arg)
}

func typeContiguous(fn string, count int64, oldH int32, out *int32, large bool) int32 {
	old, rc := oldType(fn, oldH, "oldtype")
	if rc != 0 {
		return rc
	}
	if rc := countArg(fn, count, "count"); rc != 0 {
		return rc
	}
	d, err := mpirt.TypeContiguous(int(count), old, large)
	return newType(fn, d, err, out)
}

func MPI_Type_contiguous(count, oldtype int32, newtype *int32) int32 {
	return typeContiguous("MPI_Type_contiguous", int64(count), oldtype, newtype, false)
}

func MPI_Type_contiguous_c(count int64, oldtype int32, newtype *int32) int32 {
	return typeContiguous("MPI_Type_contiguous_c", count, oldtype, newtype, true)
}

func typeVector(fn string, count, bl, stride int64, oldH int32, out *int32, bytes, large bool) int32 {
	old, rc := oldType(fn, oldH, "oldtype")
	if rc != 0 {
		return rc
	}
	if rc := countArg(fn, count, "count"); rc != 0 {
		return rc
	}
	d, err := mpirt.TypeVector(int(count), int(bl), int(stride), old, bytes, large)
	return newType(fn, d, err, out)
}

func MPI_Type_vector(count, blocklength, stride, oldtype int32, newtype *int32) int32 {
	return typeVector("MPI_Type_vector", int64(count), int64(blocklength), int64(stride), oldtype, newtype, false, false)
}

func MPI_Type_vector_c(count, blocklength, stride int64, oldtype int32, newtype *int32) int32 {
	return typeVector("MPI_Type_vector_c", count, blocklength, stride, oldtype, newtype, false, true)
}

func MPI_Type_create_hvector(count, blocklength int32, stride int64, oldtype int32, newtype *int32) int32 {
	return typeVector("MPI_Type_create_hvector", int64(count), int64(blocklength), stride, oldtype, newtype, true, false)
}

func MPI_Type_hvector(count, blocklength int32, stride int64, oldtype int32, newtype *int32) int32 {
	return typeVector("MPI_Type_hvector", int64(count), int64(blocklength), stride, oldtype, newtype, true, false)
}

func MPI_Type_create_hvector_c(count, blocklength, stride int64, oldtype int32, newtype *int32) int32 {
	return typeVector("MPI_Type_create_hvector_c", count, blocklength, stride, oldtype, newtype, true, true)
}

func typeIndexed(fn string, count int64, bls, disps []int, oldH int32, out *int32, bytes, large bool) int32 {
	old, rc := oldType(fn, oldH, "oldtype")
	if rc != 0 {
		return rc
	}
	d, err := mpirt.TypeIndexed(bls, disps, old, bytes, large)
	return newType(fn, d, err, out)
}

// indexArgs decodes the block lengths and displacements of an indexed
// constructor: from the C int arrays (bl32, d32) or, where given, from the
// MPI_Aint/MPI_Count arrays (bl64, d64).
func indexArgs(fn string, count int64, bl32 *int32, bl64 *int64, d32 *int32, d64 *int64) ([]int, []int, int32) {
	if rc := countArg(fn, count, "count"); rc != 0 {
		return nil, nil, rc
	}
	n := int(count)
	var bls, disps []int
	var rc int32
	if bl64 != nil {
		bls, rc = ints64(fn, "array_of_blocklengths", bl64, n)
	} else {
		bls, rc = ints32(fn, "array_of_blocklengths", bl32, n)
	}
	if rc != 0 {
		return nil, nil, rc
	}
	if d64 != nil {
		disps, rc = ints64(fn, "array_of_displacements", d64, n)
	} else {
		disps, rc = ints32(fn, "array_of_displacements", d32, n)
	}
	return bls, disps, rc
}

func MPI_Type_indexed(count int32, bls, disps *int32, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_indexed"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	b, d, rc := indexArgs(fn, int64(count), bls, nil, disps, nil)
	if rc != 0 {
		return rc
	}
	return typeIndexed(fn, int64(count), b, d, oldtype, newtype, false, false)
}

func MPI_Type_indexed_c(count int64, bls, disps *int64, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_indexed_c"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := nullArg(fn, nil, count > 0 && bls == nil, "array_of_blocklengths"); rc != 0 {
		return rc
	}
	b, d, rc := indexArgs(fn, count, nil, bls, nil, disps)
	if rc != 0 {
		return rc
	}
	return typeIndexed(fn, count, b, d, oldtype, newtype, false, true)
}

func hindexed(fn string, count int32, bls *int32, disps *int64, oldtype int32, newtype *int32) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := nullArg(fn, nil, count > 0 && disps == nil, "array_of_displacements"); rc != 0 {
		return rc
	}
	b, d, rc := indexArgs(fn, int64(count), bls, nil, nil, disps)
	if rc != 0 {
		return rc
	}
	return typeIndexed(fn, int64(count), b, d, oldtype, newtype, true, false)
}

func MPI_Type_create_hindexed(count int32, bls *int32, disps *int64, oldtype int32, newtype *int32) int32 {
	return hindexed("MPI_Type_create_hindexed", count, bls, disps, oldtype, newtype)
}

func MPI_Type_hindexed(count int32, bls *int32, disps *int64, oldtype int32, newtype *int32) int32 {
	return hindexed("MPI_Type_hindexed", count, bls, disps, oldtype, newtype)
}

func MPI_Type_create_hindexed_c(count int64, bls, disps *int64, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_hindexed_c"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := nullArg(fn, nil, count > 0 && (bls == nil || disps == nil), "array_of_blocklengths/array_of_displacements"); rc != 0 {
		return rc
	}
	b, d, rc := indexArgs(fn, count, nil, bls, nil, disps)
	if rc != 0 {
		return rc
	}
	return typeIndexed(fn, count, b, d, oldtype, newtype, true, true)
}

func indexedBlock(fn string, count, bl int64, d32 *int32, d64 *int64, oldH int32, out *int32, bytes, large bool) int32 {
	old, rc := oldType(fn, oldH, "oldtype")
	if rc != 0 {
		return rc
	}
	if rc := countArg(fn, count, "count"); rc != 0 {
		return rc
	}
	var disps []int
	if d32 != nil || d64 == nil {
		disps, rc = ints32(fn, "array_of_displacements", d32, int(count))
	} else {
		disps, rc = ints64(fn, "array_of_displacements", d64, int(count))
	}
	if rc != 0 {
		return rc
	}
	d, err := mpirt.TypeIndexedBlock(int(bl), disps, old, bytes, large)
	return newType(fn, d, err, out)
}

func MPI_Type_create_indexed_block(count, blocklength int32, disps *int32, oldtype int32, newtype *int32) int32 {
	return indexedBlock("MPI_Type_create_indexed_block", int64(count), int64(blocklength), disps, nil, oldtype, newtype, false, false)
}

func MPI_Type_create_indexed_block_c(count, blocklength int64, disps *int64, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_indexed_block_c"
	if count > 0 && disps == nil && active(fn) {
		return nullArg(fn, nil, true, "array_of_displacements")
	}
	return indexedBlock(fn, count, blocklength, nil, disps, oldtype, newtype, false, true)
}

func MPI_Type_create_hindexed_block(count, blocklength int32, disps *int64, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_hindexed_block"
	if count > 0 && disps == nil && active(fn) {
		return nullArg(fn, nil, true, "array_of_displacements")
	}
	return indexedBlock(fn, int64(count), int64(blocklength), nil, disps, oldtype, newtype, true, false)
}

func MPI_Type_create_hindexed_block_c(count, blocklength int64, disps *int64, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_hindexed_block_c"
	if count > 0 && disps == nil && active(fn) {
		return nullArg(fn, nil, true, "array_of_displacements")
	}
	return indexedBlock(fn, count, blocklength, nil, disps, oldtype, newtype, true, true)
}

func typeStruct(fn string, count int64, bls []int, disps []int, types *int32, out *int32, large bool) int32 {
	hs, rc := ints32(fn, "array_of_types", types, int(count))
	if rc != 0 {
		return rc
	}
	ts := make([]*mpirt.Datatype, len(hs))
	for i, h := range hs {
		if ts[i], rc = anyDatatype(fn, int32(h), "array_of_types"); rc != 0 {
			return rc
		}
	}
	d, err := mpirt.TypeStruct(bls, disps, ts, large)
	return newType(fn, d, err, out)
}

func structC(fn string, count int32, bls *int32, disps *int64, types *int32, newtype *int32) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := nullArg(fn, nil, count > 0 && disps == nil, "array_of_displacements"); rc != 0 {
		return rc
	}
	b, d, rc := indexArgs(fn, int64(count), bls, nil, nil, disps)
	if rc != 0 {
		return rc
	}
	return typeStruct(fn, int64(count), b, d, types, newtype, false)
}

func MPI_Type_create_struct(count int32, bls *int32, disps *int64, types *int32, newtype *int32) int32 {
	return structC("MPI_Type_create_struct", count, bls, disps, types, newtype)
}

func MPI_Type_struct(count int32, bls *int32, disps *int64, types *int32, newtype *int32) int32 {
	return structC("MPI_Type_struct", count, bls, disps, types, newtype)
}

func MPI_Type_create_struct_c(count int64, bls, disps *int64, types *int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_struct_c"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := nullArg(fn, nil, count > 0 && (bls == nil || disps == nil), "array_of_blocklengths/array_of_displacements"); rc != 0 {
		return rc
	}
	b, d, rc := indexArgs(fn, count, nil, bls, nil, disps)
	if rc != 0 {
		return rc
	}
	return typeStruct(fn, count, b, d, types, newtype, true)
}

func subarray(fn string, ndims int32, sizes, subsizes, starts []int, order, oldH int32, out *int32, large bool) int32 {
	old, rc := oldType(fn, oldH, "oldtype")
	if rc != 0 {
		return rc
	}
	d, err := mpirt.TypeSubarray(sizes, subsizes, starts, int(order), old, large)
	return newType(fn, d, err, out)
}

func ndimsArg(fn string, ndims int32) int32 {
	if ndims <= 0 {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument ndims: %d must be positive", ndims)
	}
	return 0
}

func MPI_Type_create_subarray(ndims int32, sizes, subsizes, starts *int32, order, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_subarray"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := ndimsArg(fn, ndims); rc != 0 {
		return rc
	}
	a, rc := ints32(fn, "array_of_sizes", sizes, int(ndims))
	if rc != 0 {
		return rc
	}
	b, rc := ints32(fn, "array_of_subsizes", subsizes, int(ndims))
	if rc != 0 {
		return rc
	}
	c, rc := ints32(fn, "array_of_starts", starts, int(ndims))
	if rc != 0 {
		return rc
	}
	return subarray(fn, ndims, a, b, c, order, oldtype, newtype, false)
}

func MPI_Type_create_subarray_c(ndims int32, sizes, subsizes, starts *int64, order, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_subarray_c"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := ndimsArg(fn, ndims); rc != 0 {
		return rc
	}
	a, rc := ints64(fn, "array_of_sizes", sizes, int(ndims))
	if rc != 0 {
		return rc
	}
	b, rc := ints64(fn, "array_of_subsizes", subsizes, int(ndims))
	if rc != 0 {
		return rc
	}
	c, rc := ints64(fn, "array_of_starts", starts, int(ndims))
	if rc != 0 {
		return rc
	}
	return subarray(fn, ndims, a, b, c, order, oldtype, newtype, true)
}

func darray(fn string, size, rank, ndims int32, gsizes []int, distribs, dargs, psizes *int32, order, oldH int32, out *int32, large bool) int32 {
	old, rc := oldType(fn, oldH, "oldtype")
	if rc != 0 {
		return rc
	}
	n := int(ndims)
	ds, rc := ints32(fn, "array_of_distribs", distribs, n)
	if rc != 0 {
		return rc
	}
	da, rc := ints32(fn, "array_of_dargs", dargs, n)
	if rc != 0 {
		return rc
	}
	ps, rc := ints32(fn, "array_of_psizes", psizes, n)
	if rc != 0 {
		return rc
	}
	d, err := mpirt.TypeDarray(int(size), int(rank), gsizes, ds, da, ps, int(order), old, large)
	return newType(fn, d, err, out)
}

func MPI_Type_create_darray(size, rank, ndims int32, gsizes, distribs, dargs, psizes *int32, order, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_darray"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := ndimsArg(fn, ndims); rc != 0 {
		return rc
	}
	g, rc := ints32(fn, "array_of_gsizes", gsizes, int(ndims))
	if rc != 0 {
		return rc
	}
	return darray(fn, size, rank, ndims, g, distribs, dargs, psizes, order, oldtype, newtype, false)
}

func MPI_Type_create_darray_c(size, rank, ndims int32, gsizes *int64, distribs, dargs, psizes *int32, order, oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_create_darray_c"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := ndimsArg(fn, ndims); rc != 0 {
		return rc
	}
	g, rc := ints64(fn, "array_of_gsizes", gsizes, int(ndims))
	if rc != 0 {
		return rc
	}
	return darray(fn, size, rank, ndims, g, distribs, dargs, psizes, order, oldtype, newtype, true)
}

func resized(fn string, oldH int32, lb, extent int64, out *int32, large bool) int32 {
	old, rc := oldType(fn, oldH, "oldtype")
	if rc != 0 {
		return rc
	}
	d, err := mpirt.TypeResized(old, int(lb), int(extent), large)
	return newType(fn, d, err, out)
}

func MPI_Type_create_resized(oldtype int32, lb, extent int64, newtype *int32) int32 {
	return resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, false)
}

func MPI_Type_create_resized_c(oldtype int32, lb, extent int64, newtype *int32) int32 {
	return resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, true)
}

func MPI_Type_dup(oldtype int32, newtype *int32) int32 {
	const fn = "MPI_Type_dup"
	old, rc := oldType(fn, oldtype, "oldtype")
	if rc != 0 {
		return rc
	}
	if newtype == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument newtype: NULL pointer")
	}
	d, err := world.DupDatatype(old)
	if err != nil {
		// As in MPICH: a copy callback that fails leaves no duplicate.
		*newtype = int32(mpirt.HandleDatatypeNull)
		return fail(fn, nil, err)
	}
	*newtype = int32(d.Handle)
	return 0
}

func MPI_Type_commit(dtH *int32) int32 {
	const fn = "MPI_Type_commit"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if dtH == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument datatype: NULL pointer")
	}
	d, rc := anyDatatype(fn, *dtH, "datatype")
	if rc != 0 {
		return rc
	}
	d.Commit()
	return 0
}

func MPI_Type_free(dtH *int32) int32 {
	const fn = "MPI_Type_free"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if dtH == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument datatype: NULL pointer")
	}
	if _, rc := anyDatatype(fn, *dtH, "datatype"); rc != 0 {
		return rc
	}
	if err := world.ReleaseDatatype(mpirt.Handle(*dtH)); err != nil {
		return fail(fn, nil, err)
	}
	*dtH = int32(mpirt.HandleDatatypeNull)
	return 0
}

// Queries.

func MPI_Type_size(dtH int32, size *int32) int32 {
	const fn = "MPI_Type_size"
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, size == nil, "size"); rc != 0 {
		return rc
	}
	if d.Size() > 1<<31-1 {
		*size = int32(mpirt.Undefined)
		return 0
	}
	*size = int32(d.Size())
	return 0
}

func typeSize64(fn string, dtH int32, size *int64) int32 {
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, size == nil, "size"); rc != 0 {
		return rc
	}
	*size = int64(d.Size())
	return 0
}

func MPI_Type_size_x(dtH int32, size *int64) int32 { return typeSize64("MPI_Type_size_x", dtH, size) }
func MPI_Type_size_c(dtH int32, size *int64) int32 { return typeSize64("MPI_Type_size_c", dtH, size) }

func extent(fn string, dtH int32, lb, ext *int64, true_ bool) int32 {
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, lb == nil || ext == nil, "lb/extent"); rc != 0 {
		return rc
	}
	if true_ {
		*lb, *ext = int64(d.TrueLB()), int64(d.TrueExtent())
	} else {
		*lb, *ext = int64(d.LB()), int64(d.Extent())
	}
	return 0
}

func MPI_Type_get_extent(dtH int32, lb, ext *int64) int32 {
	return extent("MPI_Type_get_extent", dtH, lb, ext, false)
}
func MPI_Type_get_extent_x(dtH int32, lb, ext *int64) int32 {
	return extent("MPI_Type_get_extent_x", dtH, lb, ext, false)
}
func MPI_Type_get_extent_c(dtH int32, lb, ext *int64) int32 {
	return extent("MPI_Type_get_extent_c", dtH, lb, ext, false)
}
func MPI_Type_get_true_extent(dtH int32, lb, ext *int64) int32 {
	return extent("MPI_Type_get_true_extent", dtH, lb, ext, true)
}
func MPI_Type_get_true_extent_x(dtH int32, lb, ext *int64) int32 {
	return extent("MPI_Type_get_true_extent_x", dtH, lb, ext, true)
}
func MPI_Type_get_true_extent_c(dtH int32, lb, ext *int64) int32 {
	return extent("MPI_Type_get_true_extent_c", dtH, lb, ext, true)
}

func oneBound(fn string, dtH int32, out *int64, f func(*mpirt.Datatype) int) int32 {
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, out == nil, "displacement"); rc != 0 {
		return rc
	}
	*out = int64(f(d))
	return 0
}

func MPI_Type_extent(dtH int32, ext *int64) int32 {
	return oneBound("MPI_Type_extent", dtH, ext, (*mpirt.Datatype).Extent)
}
func MPI_Type_lb(dtH int32, lb *int64) int32 {
	return oneBound("MPI_Type_lb", dtH, lb, (*mpirt.Datatype).LB)
}
func MPI_Type_ub(dtH int32, ub *int64) int32 {
	return oneBound("MPI_Type_ub", dtH, ub, (*mpirt.Datatype).UB)
}

func MPI_Type_get_envelope(dtH int32, ni, na, nd, combiner *int32) int32 {
	const fn = "MPI_Type_get_envelope"
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, ni == nil || na == nil || nd == nil || combiner == nil, "num_integers/num_addresses/num_datatypes/combiner"); rc != 0 {
		return rc
	}
	c, i, a, l, t := d.Envelope()
	if l > 0 {
		return failf(fn, nil, mpirt.ErrType, "invalid datatype argument datatype: it was built with large counts; use MPI_Type_get_envelope_c")
	}
	*ni, *na, *nd, *combiner = int32(i), int32(a), int32(t), int32(c)
	return 0
}

func MPI_Type_get_envelope_c(dtH int32, ni, na, nl, nd *int64, combiner *int32) int32 {
	const fn = "MPI_Type_get_envelope_c"
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, ni == nil || na == nil || nl == nil || nd == nil || combiner == nil, "num_integers/num_addresses/num_large_counts/num_datatypes/combiner"); rc != 0 {
		return rc
	}
	c, i, a, l, t := d.Envelope()
	*ni, *na, *nl, *nd, *combiner = int64(i), int64(a), int64(l), int64(t), int32(c)
	return 0
}

// contents writes the constructor arguments; derived children are handed
// out as new handles the caller frees.
func contents(fn string, d *mpirt.Datatype, maxI, maxA, maxL, maxD int64, ints *int32, addrs, larges *int64, types *int32) int32 {
	c, _, _, _, _ := d.Envelope()
	if c == mpirt.CombinerNamed {
		return failf(fn, nil, mpirt.ErrType, "invalid datatype argument datatype: %s is a predefined (named) datatype", d)
	}
	is, as, ls, ts := d.Contents()
	if int64(len(is)) > maxI || int64(len(as)) > maxA || int64(len(ls)) > maxL || int64(len(ts)) > maxD {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument max_*: the arrays are too small (need %d integers, %d addresses, %d large counts, %d datatypes)", len(is), len(as), len(ls), len(ts))
	}
	if (len(is) > 0 && ints == nil) || (len(as) > 0 && addrs == nil) || (len(ls) > 0 && larges == nil) || (len(ts) > 0 && types == nil) {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument array_of_*: NULL pointer")
	}
	if len(is) > 0 {
		out := unsafe.Slice(ints, len(is))
		for i, v := range is {
			out[i] = int32(v)
		}
	}
	if len(as) > 0 {
		out := unsafe.Slice(addrs, len(as))
		for i, v := range as {
			out[i] = int64(v)
		}
	}
	if len(ls) > 0 {
		out := unsafe.Slice(larges, len(ls))
		for i, v := range ls {
			out[i] = int64(v)
		}
	}
	if len(ts) > 0 {
		out := unsafe.Slice(types, len(ts))
		for i, t := range ts {
			if t.IsPredefined() {
				out[i] = int32(t.Handle)
			} else {
				out[i] = int32(world.AddDatatype(t.Clone()))
			}
		}
	}
	return 0
}

func MPI_Type_get_contents(dtH, maxI, maxA, maxD int32, ints *int32, addrs *int64, types *int32) int32 {
	const fn = "MPI_Type_get_contents"
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if _, _, _, l, _ := d.Envelope(); l > 0 {
		return failf(fn, nil, mpirt.ErrType, "invalid datatype argument datatype: it was built with large counts; use MPI_Type_get_contents_c")
	}
	return contents(fn, d, int64(maxI), int64(maxA), 0, int64(maxD), ints, addrs, nil, types)
}

func MPI_Type_get_contents_c(dtH int32, maxI, maxA, maxL, maxD int64, ints *int32, addrs, larges *int64, types *int32) int32 {
	const fn = "MPI_Type_get_contents_c"
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	return contents(fn, d, maxI, maxA, maxL, maxD, ints, addrs, larges, types)
}

func MPI_Type_set_name(dtH int32, name *byte) int32 {
	const fn = "MPI_Type_set_name"
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, name == nil, "type_name"); rc != 0 {
		return rc
	}
	s := unsafe.Slice(name, 128)
	n := 0
	for n < len(s) && s[n] != 0 {
		n++
	}
	d.SetName(string(s[:min(n, 127)]))
	return 0
}

func MPI_Type_get_name(dtH int32, name *byte, resultlen *int32) int32 {
	const fn = "MPI_Type_get_name"
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, name == nil || resultlen == nil, "type_name/resultlen"); rc != 0 {
		return rc
	}
	*resultlen = cString(name, 128, d.Name())
	return 0
}

func MPI_Type_match_size(typeclass, size int32, dtH *int32) int32 {
	const fn = "MPI_Type_match_size"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := nullArg(fn, nil, dtH == nil, "datatype"); rc != 0 {
		return rc
	}
	d, err := mpirt.TypeMatchSize(int(typeclass), int(size))
	if err != nil {
		return fail(fn, nil, err)
	}
	*dtH = int32(d.Handle)
	return 0
}

func getAddress(fn string, p unsafe.Pointer, addr *int64) int32 {
	if addr == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument address: NULL pointer")
	}
	*addr = int64(mpirt.Address(p))
	return 0
}

func MPI_Get_address(location unsafe.Pointer, address *int64) int32 {
	return getAddress("MPI_Get_address", location, address)
}

func MPI_Address(location unsafe.Pointer, address *int64) int32 {
	return getAddress("MPI_Address", location, address)
}

func MPI_Aint_add(base, disp int64) int64 { return base + disp }
func MPI_Aint_diff(a1, a2 int64) int64    { return a1 - a2 }

// Get_elements.

func getElements(fn string, status *Status, dtH int32) (int64, int32) {
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return 0, rc
	}
	if status == nil || uintptr(unsafe.Pointer(status)) == 1 {
		return 0, failf(fn, nil, mpirt.ErrArg, "invalid argument status: NULL or MPI_STATUS_IGNORE")
	}
	n, ok := d.Elements(int(statusBytes(status, d)))
	if !ok {
		return mpirt.Undefined, 0
	}
	return int64(n), 0
}

func MPI_Get_elements(status *Status, dtH int32, count *int32) int32 {
	const fn = "MPI_Get_elements"
	n, rc := getElements(fn, status, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, count == nil, "count"); rc != 0 {
		return rc
	}
	if n > 1<<31-1 {
		n = mpirt.Undefined
	}
	*count = int32(n)
	return 0
}

func elements64(fn string, status *Status, dtH int32, count *int64) int32 {
	n, rc := getElements(fn, status, dtH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, count == nil, "count"); rc != 0 {
		return rc
	}
	*count = n
	return 0
}

func MPI_Get_elements_x(status *Status, dtH int32, count *int64) int32 {
	return elements64("MPI_Get_elements_x", status, dtH, count)
}

func MPI_Get_elements_c(status *Status, dtH int32, count *int64) int32 {
	return elements64("MPI_Get_elements_c", status, dtH, count)
}

// Pack and Unpack (the native representation is the packed type map).

func pack(fn string, in unsafe.Pointer, incount int64, dtH int32, out unsafe.Pointer, outsize int64, pos *int64, commH int32) int32 {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := checkCount(fn, c, incount, "incount"); rc != 0 {
		return rc
	}
	d, rc := datatype(fn, c, dtH, "datatype")
	if rc != 0 {
		return rc
	}
	if pos == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument position: NULL pointer")
	}
	if rc := checkBuf(fn, c, in, incount, d, "inbuf"); rc != 0 {
		return rc
	}
	n := incount * int64(d.Size())
	hdr := int64(0) // the representation header (runtime/hpack.go)
	if *pos == 0 && n > 0 {
		hdr = int64(c.PackHeader())
	}
	if *pos < 0 || n+hdr > outsize || *pos > outsize-n-hdr {
		return failf(fn, c, mpirt.ErrArg, "invalid argument outsize: %d bytes from position %d do not fit in %d", n+hdr, *pos, outsize)
	}
	if n == 0 {
		return 0
	}
	if out == nil {
		return failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument outbuf: NULL")
	}
	if rc := checkBytes(fn, c, out, *pos, n+hdr, "outbuf"); rc != 0 {
		return rc
	}
	if hdr == 0 && !c.MixedReps() {
		buf := unsafe.Slice((*byte)(unsafe.Add(out, *pos)), n)
		*pos += int64(d.Pack(buf, in, int(incount)))
		return 0
	}
	if err := c.PackFor(unsafe.Slice((*byte)(out), *pos+hdr+n), pos, in, int(incount), d); err != nil {
		return fail(fn, c, err)
	}
	return 0
}

func MPI_Pack(in unsafe.Pointer, incount, dtH int32, out unsafe.Pointer, outsize int32, position *int32, commH int32) int32 {
	const fn = "MPI_Pack"
	if position == nil {
		if !active(fn) {
			return int32(mpirt.ErrOther)
		}
		return failf(fn, nil, mpirt.ErrArg, "invalid argument position: NULL pointer")
	}
	p := int64(*position)
	rc := pack(fn, in, int64(incount), dtH, out, int64(outsize), &p, commH)
	if rc == 0 {
		*position = int32(p)
	}
	return rc
}

func MPI_Pack_c(in unsafe.Pointer, incount int64, dtH int32, out unsafe.Pointer, outsize int64, position *int64, commH int32) int32 {
	return pack("MPI_Pack_c", in, incount, dtH, out, outsize, position, commH)
}

func unpack(fn string, in unsafe.Pointer, insize int64, pos *int64, out unsafe.Pointer, outcount int64, dtH, commH int32) int32 {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := checkCount(fn, c, outcount, "outcount"); rc != 0 {
		return rc
	}
	d, rc := datatype(fn, c, dtH, "datatype")
	if rc != 0 {
		return rc
	}
	if pos == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument position: NULL pointer")
	}
	if rc := checkBuf(fn, c, out, outcount, d, "outbuf"); rc != 0 {
		return rc
	}
	n := outcount * int64(d.Size())
	if *pos < 0 || n > insize || *pos > insize-n {
		return failf(fn, c, mpirt.ErrTruncate, "message truncated: unpacking %d bytes from position %d of a %d-byte buffer", n, *pos, insize)
	}
	if n == 0 {
		return 0
	}
	if in == nil {
		return failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument inbuf: NULL")
	}
	if !c.World().Heterogeneous() {
		if rc := checkBytes(fn, c, in, *pos, n, "inbuf"); rc != 0 {
			return rc
		}
		buf := unsafe.Slice((*byte)(unsafe.Add(in, *pos)), n)
		*pos += int64(d.Unpack(out, buf, int(outcount)))
		return 0
	}
	// A job of several representations: the buffer may start with the
	// packer's representation (runtime/hpack.go), whatever communicator
	// unpacks it (one machine's may unpack what another packed).
	if rc := checkBytes(fn, c, in, 0, insize, "inbuf"); rc != 0 {
		return rc
	}
	if err := c.UnpackFor(unsafe.Slice((*byte)(in), insize), pos, out, int(outcount), d); err != nil {
		return fail(fn, c, err)
	}
	return 0
}

func MPI_Unpack(in unsafe.Pointer, insize int32, position *int32, out unsafe.Pointer, outcount, dtH, commH int32) int32 {
	const fn = "MPI_Unpack"
	if position == nil {
		if !active(fn) {
			return int32(mpirt.ErrOther)
		}
		return failf(fn, nil, mpirt.ErrArg, "invalid argument position: NULL pointer")
	}
	p := int64(*position)
	rc := unpack(fn, in, int64(insize), &p, out, int64(outcount), dtH, commH)
	if rc == 0 {
		*position = int32(p)
	}
	return rc
}

func MPI_Unpack_c(in unsafe.Pointer, insize int64, position *int64, out unsafe.Pointer, outcount int64, dtH, commH int32) int32 {
	return unpack("MPI_Unpack_c", in, insize, position, out, outcount, dtH, commH)
}

func packSize(fn string, incount int64, dtH, commH int32) (int64, int32) {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return 0, rc
	}
	if rc := checkCount(fn, c, incount, "incount"); rc != 0 {
		return 0, rc
	}
	d, rc := datatype(fn, c, dtH, "datatype")
	if rc != 0 {
		return 0, rc
	}
	sz := int64(d.Size())
	if sz > 0 && incount > (math.MaxInt64-int64(c.PackHeader()))/sz {
		return 0, failf(fn, c, mpirt.ErrCount, "invalid count argument incount: %d elements of %s (%d bytes each) overflow MPI_Count", incount, d, sz)
	}
	n := incount * sz
	if n > 0 {
		n += int64(c.PackHeader()) // runtime/hpack.go
	}
	return n, 0
}

func MPI_Pack_size(incount, dtH, commH int32, size *int32) int32 {
	const fn = "MPI_Pack_size"
	n, rc := packSize(fn, int64(incount), dtH, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, size == nil, "size"); rc != 0 {
		return rc
	}
	if n > 1<<31-1 {
		return failf(fn, nil, mpirt.ErrValueTooLarge, "the packed size %d does not fit an int; use MPI_Pack_size_c", n)
	}
	*size = int32(n)
	return 0
}

func MPI_Pack_size_c(incount int64, dtH, commH int32, size *int64) int32 {
	const fn = "MPI_Pack_size_c"
	n, rc := packSize(fn, incount, dtH, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, size == nil, "size"); rc != 0 {
		return rc
	}
	*size = n
	return 0
}

// external32.

func datarep(fn string, p *byte) int32 {
	if p == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument datarep: NULL pointer")
	}
	s := unsafe.Slice(p, 11)
	n := 0
	for n < len(s) && s[n] != 0 {
		n++
	}
	if string(s[:n]) != "external32" || n == len(s) {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument datarep: only \"external32\" is supported")
	}
	return 0
}

// externalArgs checks the arguments MPI_Pack_external and
// MPI_Unpack_external share and returns the datatype and the external32
// size of count elements.
func externalArgs(fn string, rep *byte, count int64, countName string, dtH int32, pos *int64) (*mpirt.Datatype, int64, int32) {
	if !active(fn) {
		return nil, 0, int32(mpirt.ErrOther)
	}
	if rc := datarep(fn, rep); rc != 0 {
		return nil, 0, rc
	}
	if rc := countArg(fn, count, countName); rc != 0 {
		return nil, 0, rc
	}
	d, rc := datatype(fn, nil, dtH, "datatype")
	if rc != 0 {
		return nil, 0, rc
	}
	if rc := nullArg(fn, nil, pos == nil, "position"); rc != 0 {
		return nil, 0, rc
	}
	return d, count * int64(d.ExternalSize()), 0
}

func packExternal(fn string, rep *byte, in unsafe.Pointer, incount int64, dtH int32, out unsafe.Pointer, outsize int64, pos *int64) int32 {
	d, n, rc := externalArgs(fn, rep, incount, "incount", dtH, pos)
	if rc != 0 {
		return rc
	}
	if rc := checkBuf(fn, nil, in, incount, d, "inbuf"); rc != 0 {
		return rc
	}
	if *pos < 0 || n > outsize || *pos > outsize-n {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument outsize: %d bytes from position %d do not fit in %d", n, *pos, outsize)
	}
	if n == 0 {
		return 0
	}
	if rc := nullArg(fn, nil, out == nil, "outbuf"); rc != 0 {
		return rc
	}
	if rc := checkBytes(fn, nil, out, *pos, n, "outbuf"); rc != 0 {
		return rc
	}
	*pos += int64(d.PackExternal(unsafe.Slice((*byte)(unsafe.Add(out, *pos)), n), in, int(incount)))
	return 0
}

func MPI_Pack_external(rep *byte, in unsafe.Pointer, incount, dtH int32, out unsafe.Pointer, outsize int64, position *int64) int32 {
	return packExternal("MPI_Pack_external", rep, in, int64(incount), dtH, out, outsize, position)
}

func MPI_Pack_external_c(rep *byte, in unsafe.Pointer, incount int64, dtH int32, out unsafe.Pointer, outsize int64, position *int64) int32 {
	return packExternal("MPI_Pack_external_c", rep, in, incount, dtH, out, outsize, position)
}

func unpackExternal(fn string, rep *byte, in unsafe.Pointer, insize int64, pos *int64, out unsafe.Pointer, outcount int64, dtH int32) int32 {
	d, n, rc := externalArgs(fn, rep, outcount, "outcount", dtH, pos)
	if rc != 0 {
		return rc
	}
	if rc := checkBuf(fn, nil, out, outcount, d, "outbuf"); rc != 0 {
		return rc
	}
	if *pos < 0 || n > insize || *pos > insize-n {
		return failf(fn, nil, mpirt.ErrTruncate, "message truncated: unpacking %d bytes from position %d of a %d-byte buffer", n, *pos, insize)
	}
	if n == 0 {
		return 0
	}
	if rc := nullArg(fn, nil, in == nil, "inbuf"); rc != 0 {
		return rc
	}
	if rc := checkBytes(fn, nil, in, *pos, n, "inbuf"); rc != 0 {
		return rc
	}
	*pos += int64(d.UnpackExternal(out, unsafe.Slice((*byte)(unsafe.Add(in, *pos)), n), int(outcount)))
	return 0
}

func MPI_Unpack_external(rep *byte, in unsafe.Pointer, insize int64, position *int64, out unsafe.Pointer, outcount, dtH int32) int32 {
	return unpackExternal("MPI_Unpack_external", rep, in, insize, position, out, int64(outcount), dtH)
}

func MPI_Unpack_external_c(rep *byte, in unsafe.Pointer, insize int64, position *int64, out unsafe.Pointer, outcount int64, dtH int32) int32 {
	return unpackExternal("MPI_Unpack_external_c", rep, in, insize, position, out, outcount, dtH)
}

func externalSize(fn string, rep *byte, incount int64, dtH int32, size *int64) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := datarep(fn, rep); rc != 0 {
		return rc
	}
	if rc := countArg(fn, incount, "incount"); rc != 0 {
		return rc
	}
	d, rc := datatype(fn, nil, dtH, "datatype")
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, nil, size == nil, "size"); rc != 0 {
		return rc
	}
	*size = incount * int64(d.ExternalSize())
	return 0
}

func MPI_Pack_external_size(rep *byte, incount, dtH int32, size *int64) int32 {
	return externalSize("MPI_Pack_external_size", rep, int64(incount), dtH, size)
}

func MPI_Pack_external_size_c(rep *byte, incount int64, dtH int32, size *int64) int32 {
	return externalSize("MPI_Pack_external_size_c", rep, incount, dtH, size)
}
