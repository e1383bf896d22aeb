package main

import (
	"strconv"
	"unsafe"

	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Neighborhood collectives: MPI_Neighbor_X (blocking), MPI_Ineighbor_X
// (nonblocking), MPI_Neighbor_X_init (persistent, MPI 4.0), each also in
// the large-count _c form. One generic function per operation checks the
// arguments and hands the call to the communicator's collective table
// (c.Coll.Neighbor); ncMode says what to do with the request it returns.

type ncMode uint8

const (
	ncBlocking    ncMode = iota // wait for the request
	ncNonblocking               // hand it to the user
	ncPersistent                // hand the user a persistent request that starts it
)

// countT is the type of counts and displacements: int for the classic
// bindings, MPI_Count/MPI_Aint for the _c ones.
type countT interface{ ~int32 | ~int64 }

// neighborComm checks the communicator (it must carry a topology), the
// request pointer and the info argument; it returns the communicator's
// neighborhood.
func neighborComm(fn string, commH int32, mode ncMode, info int32, request *int32) (*mpirt.Comm, *mpirt.Neighborhood, int32) {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return nil, nil, rc
	}
	nb, err := c.Neighborhood()
	if err != nil {
		return nil, nil, fail(fn, c, err)
	}
	if c.Coll.Neighbor.Alltoallw == nil {
		return nil, nil, failf(fn, c, mpirt.ErrUnsupportedOperation, "no collective component provides the neighborhood collectives (GMPI_COLL=%q)", param.Coll.Get(c.World().Params()))
	}
	if mode != ncBlocking {
		if rc := nullArg(fn, c, request == nil, "request"); rc != 0 {
			return nil, nil, rc
		}
	}
	if mode == ncPersistent {
		if _, rc := infoArg(fn, c, info, "info", true); rc != 0 {
			return nil, nil, rc
		}
	}
	return c, nb, 0
}

// neighborRun starts the operation (or, for a persistent request, arranges
// for every MPI_Start to start it) and completes the call.
func neighborRun(fn string, c *mpirt.Comm, mode ncMode, request *int32, start func() (*mpirt.Request, error)) int32 {
	if mode == ncPersistent {
		*request = int32(world.AddRequest(c.CollInit(start)))
		return 0
	}
	r, err := start()
	if err != nil {
		return fail(fn, c, err)
	}
	if mode == ncNonblocking {
		*request = int32(world.AddRequest(r))
		return 0
	}
	return fail(fn, c, world.Wait(r))
}

// neighborBuf checks one side's buffer, count and datatype. MPI_IN_PLACE
// is not allowed in neighborhood collectives.
func neighborBuf[C countT](fn string, c *mpirt.Comm, buf unsafe.Pointer, count C, dtH int32, side string, used bool) (*mpirt.Datatype, int32) {
	if mpirt.IsInPlace(buf) {
		return nil, failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument %sbuf: MPI_IN_PLACE is not allowed in neighborhood collectives", side)
	}
	if rc := checkCount(fn, c, int64(count), side+"count"); rc != 0 {
		return nil, rc
	}
	dt, rc := datatype(fn, c, dtH, side+"type")
	if rc != 0 {
		return nil, rc
	}
	if used {
		if rc := checkBuf(fn, c, buf, int64(count), dt, side+"buf"); rc != 0 {
			return nil, rc
		}
	}
	return dt, 0
}

// neighborArray reads n entries of a C array argument into ints;
// counts must not be negative.
func neighborArray[C countT](fn string, c *mpirt.Comm, p *C, n int, arg string, isCount bool) ([]int, int32) {
	if n == 0 {
		return nil, 0
	}
	if p == nil {
		return nil, nullArg(fn, c, true, arg)
	}
	out := make([]int, n)
	for i, v := range unsafe.Slice(p, n) {
		if isCount && v < 0 {
			return nil, failf(fn, c, mpirt.ErrCount, "invalid count argument %s[%d]: %d is negative", arg, i, v)
		}
		out[i] = int(v)
	}
	return out, 0
}

// neighborBufV checks a buffer described by per-neighbor counts and
// displacements (one datatype).
func neighborBufV[C, D countT](fn string, c *mpirt.Comm, buf unsafe.Pointer, counts *C, displs *D, dtH int32, n int, side, displName string) (cs, ds []int, dt *mpirt.Datatype, rc int32) {
	if mpirt.IsInPlace(buf) {
		return nil, nil, nil, failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument %sbuf: MPI_IN_PLACE is not allowed in neighborhood collectives", side)
	}
	if cs, rc = neighborArray(fn, c, counts, n, side+"counts", true); rc != 0 {
		return
	}
	if ds, rc = neighborArray(fn, c, displs, n, displName, false); rc != 0 {
		return
	}
	if dt, rc = datatype(fn, c, dtH, side+"type"); rc != 0 {
		return
	}
	for _, k := range cs {
		if k > 0 {
			rc = checkBuf(fn, c, buf, int64(k), dt, side+"buf")
			break
		}
	}
	return
}

func neighborAllgather[C countT](fn string, mode ncMode, sbuf unsafe.Pointer, scount C, stype int32, rbuf unsafe.Pointer, rcount C, rtype int32, commH, info int32, request *int32, alltoall bool) int32 {
	c, nb, rc := neighborComm(fn, commH, mode, info, request)
	if rc != 0 {
		return rc
	}
	sdt, rc := neighborBuf(fn, c, sbuf, scount, stype, "send", len(nb.Dests) > 0)
	if rc != 0 {
		return rc
	}
	rdt, rc := neighborBuf(fn, c, rbuf, rcount, rtype, "recv", len(nb.Sources) > 0)
	if rc != 0 {
		return rc
	}
	op := c.Coll.Neighbor.Allgather
	if alltoall {
		op = c.Coll.Neighbor.Alltoall
	}
	return neighborRun(fn, c, mode, request, func() (*mpirt.Request, error) {
		return op(c, sbuf, int(scount), sdt, rbuf, int(rcount), rdt)
	})
}

func neighborAllgatherv[C, D countT](fn string, mode ncMode, sbuf unsafe.Pointer, scount C, stype int32, rbuf unsafe.Pointer, rcounts *C, displs *D, rtype int32, commH, info int32, request *int32) int32 {
	c, nb, rc := neighborComm(fn, commH, mode, info, request)
	if rc != 0 {
		return rc
	}
	sdt, rc := neighborBuf(fn, c, sbuf, scount, stype, "send", len(nb.Dests) > 0)
	if rc != 0 {
		return rc
	}
	rcs, rds, rdt, rc := neighborBufV(fn, c, rbuf, rcounts, displs, rtype, len(nb.Sources), "recv", "displs")
	if rc != 0 {
		return rc
	}
	return neighborRun(fn, c, mode, request, func() (*mpirt.Request, error) {
		return c.Coll.Neighbor.Allgatherv(c, sbuf, int(scount), sdt, rbuf, rcs, rds, rdt)
	})
}

func neighborAlltoallv[C, D countT](fn string, mode ncMode, sbuf unsafe.Pointer, scounts *C, sdispls *D, stype int32, rbuf unsafe.Pointer, rcounts *C, rdispls *D, rtype int32, commH, info int32, request *int32) int32 {
	c, nb, rc := neighborComm(fn, commH, mode, info, request)
	if rc != 0 {
		return rc
	}
	scs, sds, sdt, rc := neighborBufV(fn, c, sbuf, scounts, sdispls, stype, len(nb.Dests), "send", "sdispls")
	if rc != 0 {
		return rc
	}
	rcs, rds, rdt, rc := neighborBufV(fn, c, rbuf, rcounts, rdispls, rtype, len(nb.Sources), "recv", "rdispls")
	if rc != 0 {
		return rc
	}
	return neighborRun(fn, c, mode, request, func() (*mpirt.Request, error) {
		return c.Coll.Neighbor.Alltoallv(c, sbuf, scs, sds, sdt, rbuf, rcs, rds, rdt)
	})
}

// neighborBufW checks one side of an alltoallw: counts, byte
// displacements and a datatype per neighbor.
func neighborBufW[C countT](fn string, c *mpirt.Comm, buf unsafe.Pointer, counts *C, displs *int64, types *int32, n int, side, displName string) (cs, ds []int, dts []*mpirt.Datatype, rc int32) {
	if mpirt.IsInPlace(buf) {
		return nil, nil, nil, failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument %sbuf: MPI_IN_PLACE is not allowed in neighborhood collectives", side)
	}
	if cs, rc = neighborArray(fn, c, counts, n, side+"counts", true); rc != 0 {
		return
	}
	if ds, rc = neighborArray(fn, c, displs, n, displName, false); rc != 0 {
		return
	}
	if n == 0 {
		return
	}
	if types == nil {
		return nil, nil, nil, nullArg(fn, c, true, side+"types")
	}
	dts = make([]*mpirt.Datatype, n)
	for i, h := range unsafe.Slice(types, n) {
		if dts[i], rc = datatype(fn, c, h, side+"types["+strconv.Itoa(i)+"]"); rc != 0 {
			return
		}
		if cs[i] > 0 && ds[i] == 0 {
			if rc = checkBuf(fn, c, buf, int64(cs[i]), dts[i], side+"buf"); rc != 0 {
				return
			}
		}
	}
	return
}

func neighborAlltoallw[C countT](fn string, mode ncMode, sbuf unsafe.Pointer, scounts *C, sdispls *int64, stypes *int32, rbuf unsafe.Pointer, rcounts *C, rdispls *int64, rtypes *int32, commH, info int32, request *int32) int32 {
	c, nb, rc := neighborComm(fn, commH, mode, info, request)
	if rc != 0 {
		return rc
	}
	scs, sds, sdts, rc := neighborBufW(fn, c, sbuf, scounts, sdispls, stypes, len(nb.Dests), "send", "sdispls")
	if rc != 0 {
		return rc
	}
	rcs, rds, rdts, rc := neighborBufW(fn, c, rbuf, rcounts, rdispls, rtypes, len(nb.Sources), "recv", "rdispls")
	if rc != 0 {
		return rc
	}
	return neighborRun(fn, c, mode, request, func() (*mpirt.Request, error) {
		return c.Coll.Neighbor.Alltoallw(c, sbuf, scs, sds, sdts, rbuf, rcs, rds, rdts)
	})
}

// The entry points.

func MPI_Neighbor_allgather(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcount, recvtype, commH int32) int32 {
	return neighborAllgather("MPI_Neighbor_allgather", ncBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, 0, nil, false)
}

func MPI_Neighbor_allgather_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcount int64, recvtype, commH int32) int32 {
	return neighborAllgather("MPI_Neighbor_allgather_c", ncBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, 0, nil, false)
}

func MPI_Ineighbor_allgather(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcount, recvtype, commH int32, request *int32) int32 {
	return neighborAllgather("MPI_Ineighbor_allgather", ncNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, 0, request, false)
}

func MPI_Ineighbor_allgather_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcount int64, recvtype, commH int32, request *int32) int32 {
	return neighborAllgather("MPI_Ineighbor_allgather_c", ncNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, 0, request, false)
}

func MPI_Neighbor_allgather_init(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcount, recvtype, commH, info int32, request *int32) int32 {
	return neighborAllgather("MPI_Neighbor_allgather_init", ncPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, info, request, false)
}

func MPI_Neighbor_allgather_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcount int64, recvtype, commH, info int32, request *int32) int32 {
	return neighborAllgather("MPI_Neighbor_allgather_init_c", ncPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, info, request, false)
}

func MPI_Neighbor_alltoall(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcount, recvtype, commH int32) int32 {
	return neighborAllgather("MPI_Neighbor_alltoall", ncBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, 0, nil, true)
}

func MPI_Neighbor_alltoall_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcount int64, recvtype, commH int32) int32 {
	return neighborAllgather("MPI_Neighbor_alltoall_c", ncBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, 0, nil, true)
}

func MPI_Ineighbor_alltoall(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcount, recvtype, commH int32, request *int32) int32 {
	return neighborAllgather("MPI_Ineighbor_alltoall", ncNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, 0, request, true)
}

func MPI_Ineighbor_alltoall_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcount int64, recvtype, commH int32, request *int32) int32 {
	return neighborAllgather("MPI_Ineighbor_alltoall_c", ncNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, 0, request, true)
}

func MPI_Neighbor_alltoall_init(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcount, recvtype, commH, info int32, request *int32) int32 {
	return neighborAllgather("MPI_Neighbor_alltoall_init", ncPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, info, request, true)
}

func MPI_Neighbor_alltoall_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcount int64, recvtype, commH, info int32, request *int32) int32 {
	return neighborAllgather("MPI_Neighbor_alltoall_init_c", ncPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, commH, info, request, true)
}

func MPI_Neighbor_allgatherv(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcounts, displs *int32, recvtype, commH int32) int32 {
	return neighborAllgatherv("MPI_Neighbor_allgatherv", ncBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, commH, 0, nil)
}

func MPI_Neighbor_allgatherv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcounts, displs *int64, recvtype, commH int32) int32 {
	return neighborAllgatherv("MPI_Neighbor_allgatherv_c", ncBlocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, commH, 0, nil)
}

func MPI_Ineighbor_allgatherv(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcounts, displs *int32, recvtype, commH int32, request *int32) int32 {
	return neighborAllgatherv("MPI_Ineighbor_allgatherv", ncNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, commH, 0, request)
}

func MPI_Ineighbor_allgatherv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcounts, displs *int64, recvtype, commH int32, request *int32) int32 {
	return neighborAllgatherv("MPI_Ineighbor_allgatherv_c", ncNonblocking, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, commH, 0, request)
}

func MPI_Neighbor_allgatherv_init(sendbuf unsafe.Pointer, sendcount, sendtype int32, recvbuf unsafe.Pointer, recvcounts, displs *int32, recvtype, commH, info int32, request *int32) int32 {
	return neighborAllgatherv("MPI_Neighbor_allgatherv_init", ncPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, commH, info, request)
}

func MPI_Neighbor_allgatherv_init_c(sendbuf unsafe.Pointer, sendcount int64, sendtype int32, recvbuf unsafe.Pointer, recvcounts, displs *int64, recvtype, commH, info int32, request *int32) int32 {
	return neighborAllgatherv("MPI_Neighbor_allgatherv_init_c", ncPersistent, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, commH, info, request)
}

func MPI_Neighbor_alltoallv(sendbuf unsafe.Pointer, sendcounts, sdispls *int32, sendtype int32, recvbuf unsafe.Pointer, recvcounts, rdispls *int32, recvtype, commH int32) int32 {
	return neighborAlltoallv("MPI_Neighbor_alltoallv", ncBlocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, commH, 0, nil)
}

func MPI_Neighbor_alltoallv_c(sendbuf unsafe.Pointer, sendcounts, sdispls *int64, sendtype int32, recvbuf unsafe.Pointer, recvcounts, rdispls *int64, recvtype, commH int32) int32 {
	return neighborAlltoallv("MPI_Neighbor_alltoallv_c", ncBlocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, commH, 0, nil)
}

func MPI_Ineighbor_alltoallv(sendbuf unsafe.Pointer, sendcounts, sdispls *int32, sendtype int32, recvbuf unsafe.Pointer, recvcounts, rdispls *int32, recvtype, commH int32, request *int32) int32 {
	return neighborAlltoallv("MPI_Ineighbor_alltoallv", ncNonblocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, commH, 0, request)
}

func MPI_Ineighbor_alltoallv_c(sendbuf unsafe.Pointer, sendcounts, sdispls *int64, sendtype int32, recvbuf unsafe.Pointer, recvcounts, rdispls *int64, recvtype, commH int32, request *int32) int32 {
	return neighborAlltoallv("MPI_Ineighbor_alltoallv_c", ncNonblocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, commH, 0, request)
}

func MPI_Neighbor_alltoallv_init(sendbuf unsafe.Pointer, sendcounts, sdispls *int32, sendtype int32, recvbuf unsafe.Pointer, recvcounts, rdispls *int32, recvtype, commH, info int32, request *int32) int32 {
	return neighborAlltoallv("MPI_Neighbor_alltoallv_init", ncPersistent, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, commH, info, request)
}

func MPI_Neighbor_alltoallv_init_c(sendbuf unsafe.Pointer, sendcounts, sdispls *int64, sendtype int32, recvbuf unsafe.Pointer, recvcounts, rdispls *int64, recvtype, commH, info int32, request *int32) int32 {
	return neighborAlltoallv("MPI_Neighbor_alltoallv_init_c", ncPersistent, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, commH, info, request)
}

func MPI_Neighbor_alltoallw(sendbuf unsafe.Pointer, sendcounts *int32, sdispls *int64, sendtypes *int32, recvbuf unsafe.Pointer, recvcounts *int32, rdispls *int64, recvtypes *int32, commH int32) int32 {
	return neighborAlltoallw("MPI_Neighbor_alltoallw", ncBlocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, commH, 0, nil)
}

func MPI_Neighbor_alltoallw_c(sendbuf unsafe.Pointer, sendcounts *int64, sdispls *int64, sendtypes *int32, recvbuf unsafe.Pointer, recvcounts *int64, rdispls *int64, recvtypes *int32, commH int32) int32 {
	return neighborAlltoallw("MPI_Neighbor_alltoallw_c", ncBlocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, commH, 0, nil)
}

func MPI_Ineighbor_alltoallw(sendbuf unsafe.Pointer, sendcounts *int32, sdispls *int64, sendtypes *int32, recvbuf unsafe.Pointer, recvcounts *int32, rdispls *int64, recvtypes *int32, commH int32, request *int32) int32 {
	return neighborAlltoallw("MPI_Ineighbor_alltoallw", ncNonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, commH, 0, request)
}

func MPI_Ineighbor_alltoallw_c(sendbuf unsafe.Pointer, sendcounts *int64, sdispls *int64, sendtypes *int32, recvbuf unsafe.Pointer, recvcounts *int64, rdispls *int64, recvtypes *int32, commH int32, request *int32) int32 {
	return neighborAlltoallw("MPI_Ineighbor_alltoallw_c", ncNonblocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, commH, 0, request)
}

func MPI_Neighbor_alltoallw_init(sendbuf unsafe.Pointer, sendcounts *int32, sdispls *int64, sendtypes *int32, recvbuf unsafe.Pointer, recvcounts *int32, rdispls *int64, recvtypes *int32, commH, info int32, request *int32) int32 {
	return neighborAlltoallw("MPI_Neighbor_alltoallw_init", ncPersistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, commH, info, request)
}

func MPI_Neighbor_alltoallw_init_c(sendbuf unsafe.Pointer, sendcounts *int64, sdispls *int64, sendtypes *int32, recvbuf unsafe.Pointer, recvcounts *int64, rdispls *int64, recvtypes *int32, commH, info int32, request *int32) int32 {
	return neighborAlltoallw("MPI_Neighbor_alltoallw_init_c", ncPersistent, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, commH, info, request)
}
