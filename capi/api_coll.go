package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

func MPI_Barrier(commH int32) int32 {
	c, rc := comm("MPI_Barrier", commH)
	if rc != 0 {
		return rc
	}
	return fail("MPI_Barrier", c, c.Coll.Barrier(c))
}

func MPI_Bcast(buf unsafe.Pointer, count, datatype, root, commH int32) int32 {
	const fn = "MPI_Bcast"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := checkCount(fn, c, int64(count), "count"); rc != 0 {
		return rc
	}
	dt, rc := datatype_c(fn, c, datatype)
	if rc != 0 {
		return rc
	}
	if rc := checkRoot(fn, c, root); rc != 0 {
		return rc
	}
	if rc := checkBuf(fn, c, buf, int64(count), dt, "buffer"); rc != 0 {
		return rc
	}
	if count == 0 || c.Size() == 1 && !c.IsInter() {
		return 0
	}
	return fail(fn, c, c.Coll.Bcast(c, buf, int(count), dt, int(root)))
}

func MPI_Reduce(sendbuf, recvbuf unsafe.Pointer, count, datatype, op, root, commH int32) int32 {
	const fn = "MPI_Reduce"
	c, dt, rc := reduceArgs(fn, sendbuf, recvbuf, count, datatype, op, commH)
	if rc != 0 {
		return rc
	}
	if rc := checkRoot(fn, c, root); rc != 0 {
		return rc
	}
	if c.IsInter() {
		if mpirt.IsInPlace(sendbuf) && root >= 0 {
			return failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument sendbuf: MPI_IN_PLACE is not valid on an intercommunicator")
		}
	} else if mpirt.IsInPlace(sendbuf) && c.Rank() != int(root) {
		return failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument sendbuf: MPI_IN_PLACE is only valid at the root")
	}
	if count == 0 {
		return 0
	}
	return fail(fn, c, c.Coll.Reduce(c, sendbuf, recvbuf, int(count), dt, mpirt.Handle(op), int(root)))
}

func MPI_Allreduce(sendbuf, recvbuf unsafe.Pointer, count, datatype, op, commH int32) int32 {
	const fn = "MPI_Allreduce"
	c, dt, rc := reduceArgs(fn, sendbuf, recvbuf, count, datatype, op, commH)
	if rc != 0 {
		return rc
	}
	if c.IsInter() && mpirt.IsInPlace(sendbuf) {
		return failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument sendbuf: MPI_IN_PLACE is not valid on an intercommunicator")
	}
	if count == 0 {
		return 0
	}
	return fail(fn, c, c.Coll.Allreduce(c, sendbuf, recvbuf, int(count), dt, mpirt.Handle(op)))
}

func reduceArgs(fn string, sendbuf, recvbuf unsafe.Pointer, count, dtH, op, commH int32) (*mpirt.Comm, *mpirt.Datatype, int32) {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return nil, nil, rc
	}
	if rc := checkCount(fn, c, int64(count), "count"); rc != 0 {
		return nil, nil, rc
	}
	dt, rc := datatype_c(fn, c, dtH)
	if rc != 0 {
		return nil, nil, rc
	}
	if err := mpirt.CheckOp(mpirt.Handle(op), dt); err != nil {
		return nil, nil, fail(fn, c, err)
	}
	if sendbuf == recvbuf && sendbuf != nil && count > 0 {
		return nil, nil, failf(fn, c, mpirt.ErrBuffer, "invalid buffer arguments: sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)")
	}
	return c, dt, 0
}

func datatype_c(fn string, c *mpirt.Comm, h int32) (*mpirt.Datatype, int32) {
	return datatype(fn, c, h, "datatype")
}
