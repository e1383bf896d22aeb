package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Matched probe and receive: MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
// MPI_Imrecv (and the _c forms of the receives).

func probeArgs(fn string, source, tag, commH int32, message *int32) (*mpirt.Comm, int32) {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return nil, rc
	}
	if rc := checkRank(fn, c, source, "source", true); rc != 0 {
		return nil, rc
	}
	if rc := checkTag(fn, c, tag, true); rc != 0 {
		return nil, rc
	}
	return c, nullArg(fn, c, message == nil, "message")
}

func MPI_Mprobe(source, tag, commH int32, message *int32, status *Status) int32 {
	const fn = "MPI_Mprobe"
	c, rc := probeArgs(fn, source, tag, commH, message)
	if rc != 0 {
		return rc
	}
	m, st, err := world.Mprobe(c, c.Context(), int(source), int(tag))
	if err != nil {
		return fail(fn, c, err)
	}
	*message = int32(world.AddMessage(m))
	setStatus(status, &st)
	return 0
}

func MPI_Improbe(source, tag, commH int32, flag *int32, message *int32, status *Status) int32 {
	const fn = "MPI_Improbe"
	c, rc := probeArgs(fn, source, tag, commH, message)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, flag == nil, "flag"); rc != 0 {
		return rc
	}
	m, st, ok := world.Improbe(c, c.Context(), int(source), int(tag))
	*flag = b2i(ok)
	if ok {
		*message = int32(world.AddMessage(m))
		setStatus(status, &st)
	} else if err := world.ProbeLost(c, int(source)); err != nil {
		return fail(fn, c, err)
	}
	return 0
}

// messageArgs checks the (buf, count, datatype, message) arguments of a
// matched receive and resolves the message.
func messageArgs(fn string, buf unsafe.Pointer, count int64, dtH int32, message *int32) (*mpirt.Message, *mpirt.Datatype, int32) {
	if !active(fn) {
		return nil, nil, int32(mpirt.ErrOther)
	}
	if message == nil {
		return nil, nil, badPointer(fn, "message")
	}
	m := world.Message(mpirt.Handle(*message))
	if m == nil {
		what := "is not a matched message"
		if mpirt.Handle(*message) == mpirt.HandleMessageNull {
			what = "is MPI_MESSAGE_NULL"
		}
		return nil, nil, failf(fn, nil, mpirt.ErrRequest, "invalid message argument: 0x%08x %s", uint32(*message), what)
	}
	c := m.Comm()
	if rc := checkCount(fn, c, count, "count"); rc != 0 {
		return nil, nil, rc
	}
	dt, rc := p2pDatatype(fn, c, count, dtH)
	if rc != 0 {
		return nil, nil, rc
	}
	if rc := checkMessageSize(fn, c, count, dt, "count"); rc != 0 {
		return nil, nil, rc
	}
	if rc := checkBuf(fn, c, buf, count, dt, "buf"); rc != 0 {
		return nil, nil, rc
	}
	return m, dt, 0
}

func MPI_Mrecv(buf unsafe.Pointer, count, datatype int32, message *int32, status *Status) int32 {
	return mrecv("MPI_Mrecv", buf, int64(count), datatype, message, status)
}

func MPI_Mrecv_c(buf unsafe.Pointer, count int64, datatype int32, message *int32, status *Status) int32 {
	return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status)
}

func mrecv(fn string, buf unsafe.Pointer, count int64, dtH int32, message *int32, status *Status) int32 {
	m, dt, rc := messageArgs(fn, buf, count, dtH, message)
	if rc != 0 {
		return rc
	}
	*message = int32(mpirt.HandleMessageNull)
	st, err := world.MrecvTyped(m, buf, int(count), dt)
	code := fail(fn, m.Comm(), err)
	setStatus(status, &st)
	return code
}

func MPI_Imrecv(buf unsafe.Pointer, count, datatype int32, message *int32, request *int32) int32 {
	return imrecv("MPI_Imrecv", buf, int64(count), datatype, message, request)
}

func MPI_Imrecv_c(buf unsafe.Pointer, count int64, datatype int32, message *int32, request *int32) int32 {
	return imrecv("MPI_Imrecv_c", buf, count, datatype, message, request)
}

func imrecv(fn string, buf unsafe.Pointer, count int64, dtH int32, message *int32, request *int32) int32 {
	m, dt, rc := messageArgs(fn, buf, count, dtH, message)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, m.Comm(), request == nil, "request"); rc != 0 {
		return rc
	}
	*message = int32(mpirt.HandleMessageNull)
	*request = int32(world.AddRequest(world.ImrecvTyped(m, buf, int(count), dt)))
	return 0
}
