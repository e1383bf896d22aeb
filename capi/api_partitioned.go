package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Partitioned point-to-point communication (MPI 4.0 chapter 4); the
// semantics are in runtime/partitioned.go.

func MPI_Psend_init(buf unsafe.Pointer, partitions int32, count int64, datatype, dest, tag, commH, info int32, request *int32) int32 {
	return partInit("MPI_Psend_init", true, buf, partitions, count, datatype, dest, tag, commH, info, request)
}

func MPI_Precv_init(buf unsafe.Pointer, partitions int32, count int64, datatype, source, tag, commH, info int32, request *int32) int32 {
	return partInit("MPI_Precv_init", false, buf, partitions, count, datatype, source, tag, commH, info, request)
}

// partInit checks and creates a partitioned request. Wildcards are not
// allowed on either side (p2pArgs with recv=false rejects them).
func partInit(fn string, send bool, buf unsafe.Pointer, partitions int32, count int64, dtH, peer, tag, commH, infoH int32, request *int32) int32 {
	if partitions < 0 {
		c, rc := comm(fn, commH)
		if rc != 0 {
			return rc
		}
		return failf(fn, c, mpirt.ErrArg, "invalid argument partitions: %d is negative", partitions)
	}
	// The whole message is partitions*count elements; a negative count
	// stays negative so p2pArgs reports it.
	total := count
	if count > 0 {
		total = int64(partitions) * count
	}
	c, dt, rc := p2pArgs(fn, buf, total, dtH, peer, tag, commH, false)
	if rc != 0 {
		return rc
	}
	if _, rc := infoArg(fn, c, infoH, "info", true); rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, request == nil, "request"); rc != 0 {
		return rc
	}
	r := c.PartitionedInit(send, buf, int(partitions), int(count), dt, int(peer), int(tag))
	*request = int32(world.AddRequest(r))
	return 0
}

// partRequest resolves the request argument of Pready and Parrived.
func partRequest(fn string, h int32) (*mpirt.Request, int32) {
	r, rc, ok := request(fn, &h)
	if rc != 0 {
		return nil, rc
	}
	if !ok {
		return nil, failf(fn, nil, mpirt.ErrRequest, "invalid request argument: MPI_REQUEST_NULL")
	}
	return r, 0
}

func MPI_Pready(partition, requestH int32) int32 {
	return pready("MPI_Pready", requestH, int(partition))
}

func MPI_Pready_range(low, high, requestH int32) int32 {
	const fn = "MPI_Pready_range"
	if low > high {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument partition_low: %d is above partition_high %d", low, high)
	}
	parts := make([]int, 0, high-low+1)
	for p := low; p <= high; p++ {
		parts = append(parts, int(p))
	}
	return pready(fn, requestH, parts...)
}

func MPI_Pready_list(length int32, partitions *int32, requestH int32) int32 {
	const fn = "MPI_Pready_list"
	if length < 0 {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument length: %d is negative", length)
	}
	if length > 0 && partitions == nil {
		return badPointer(fn, "array_of_partitions")
	}
	parts := make([]int, length)
	for i, p := range unsafe.Slice(partitions, length) {
		parts[i] = int(p)
	}
	return pready(fn, requestH, parts...)
}

func pready(fn string, requestH int32, parts ...int) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	r, rc := partRequest(fn, requestH)
	if rc != 0 {
		return rc
	}
	return fail(fn, r.Comm(), r.Pready(parts...))
}

func MPI_Parrived(requestH, partition int32, flag *int32) int32 {
	const fn = "MPI_Parrived"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if flag == nil {
		return badPointer(fn, "flag")
	}
	r, rc := partRequest(fn, requestH)
	if rc != 0 {
		return rc
	}
	ok, err := r.Parrived(int(partition))
	if err != nil {
		return fail(fn, r.Comm(), err)
	}
	*flag = b2i(ok)
	return 0
}
