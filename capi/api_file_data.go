package main

import (
	"unsafe"

	"gmpi/fileio"
	mpirt "gmpi/runtime"
)

// The data access calls of MPI-IO: blocking, nonblocking (i*), split
// collective (*_begin/*_end) and large-count (_c) forms of each way to
// position an access, all through fileAccess.

// accessKind is how a call returns: a status, a request, or (split
// collectives) nothing until the end call.
type accessKind uint8

const (
	kBlocking accessKind = iota
	kNonblocking
	kBegin
)

// fileAccess checks the arguments of one data access call and runs it.
func fileAccess(fn string, fh unsafe.Pointer, a fileio.Access, ordered bool, dtH int32, kind accessKind, status *Status, request *int32) int32 {
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	// ROMIO's order: offset, count, datatype, then the access mode.
	if a.Ptr == fileio.Explicit && a.Offset < 0 {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid offset argument: %d is negative", a.Offset)
	}
	if a.Count < 0 {
		return fileFailf(fn, f, fh, mpirt.ErrCount, "invalid count argument count: %d is negative", a.Count)
	}
	dt, rc := fileDatatype(fn, f, fh, dtH, "datatype")
	if rc != 0 {
		return rc
	}
	a.Dt = dt
	if a.Count > 0 && dt.Size() > 0 && a.Buf == nil {
		return fileFailf(fn, f, fh, mpirt.ErrBuffer, "invalid buffer argument buf: NULL with count %d", a.Count)
	}
	if a.Count > 0 && int64(dt.Size()) > 0 && a.Count > mpirt.MaxMessageBytes/int64(dt.Size()) {
		return fileFailf(fn, f, fh, mpirt.ErrCount, "invalid count argument count: %d elements of %s are too many", a.Count, dt)
	}
	if kind == kNonblocking && request == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument request: NULL pointer")
	}
	if kind == kBegin {
		return fileFail(fn, f, fh, f.Begin(fn, a, ordered))
	}
	var st mpirt.Status
	var err error
	if ordered {
		st, err = f.Ordered(fn, a)
	} else {
		st, err = f.Do(fn, a)
	}
	if err != nil {
		return fileFail(fn, f, fh, err)
	}
	if kind == kNonblocking {
		*request = int32(world.AddRequest(f.Completed(st)))
		return 0
	}
	setStatus(status, &st)
	return 0
}

// fileEnd finishes a split collective.
func fileEnd(fn string, fh unsafe.Pointer, write bool, buf unsafe.Pointer, status *Status) int32 {
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	st, err := f.End(fn, write, buf)
	if err != nil {
		return fileFail(fn, f, fh, err)
	}
	setStatus(status, &st)
	return 0
}

func MPI_File_read_at(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_at", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: false, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBlocking, status, nil)
}

func MPI_File_read_at_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_at_c", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: false, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iread_at(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_at", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: false, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iread_at_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_at_c", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: false, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_read_at_all(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_at_all", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBlocking, status, nil)
}

func MPI_File_read_at_all_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_at_all_c", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iread_at_all(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_at_all", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iread_at_all_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_at_all_c", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_read_at_all_begin(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32) int32 {
	return fileAccess("MPI_File_read_at_all_begin", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBegin, nil, nil)
}

func MPI_File_read_at_all_begin_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32) int32 {
	return fileAccess("MPI_File_read_at_all_begin_c", fh, fileio.Access{Write: false, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBegin, nil, nil)
}

func MPI_File_read_at_all_end(fh unsafe.Pointer, buf unsafe.Pointer, status *Status) int32 {
	return fileEnd("MPI_File_read_at_all_end", fh, false, buf, status)
}

func MPI_File_write_at(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_at", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: false, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBlocking, status, nil)
}

func MPI_File_write_at_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_at_c", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: false, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iwrite_at(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_at", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: false, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iwrite_at_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_at_c", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: false, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_write_at_all(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_at_all", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBlocking, status, nil)
}

func MPI_File_write_at_all_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_at_all_c", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iwrite_at_all(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_at_all", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iwrite_at_all_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_at_all_c", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_write_at_all_begin(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int32, dtH int32) int32 {
	return fileAccess("MPI_File_write_at_all_begin", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBegin, nil, nil)
}

func MPI_File_write_at_all_begin_c(fh unsafe.Pointer, offset int64, buf unsafe.Pointer, count int64, dtH int32) int32 {
	return fileAccess("MPI_File_write_at_all_begin_c", fh, fileio.Access{Write: true, Ptr: fileio.Explicit, Coll: true, Buf: buf, Count: int64(count), Offset: offset}, false, dtH, kBegin, nil, nil)
}

func MPI_File_write_at_all_end(fh unsafe.Pointer, buf unsafe.Pointer, status *Status) int32 {
	return fileEnd("MPI_File_write_at_all_end", fh, true, buf, status)
}

func MPI_File_read(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_read_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_c", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iread(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iread_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_c", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_read_all(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_all", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_read_all_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_all_c", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iread_all(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_all", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iread_all_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_all_c", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_read_all_begin(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32) int32 {
	return fileAccess("MPI_File_read_all_begin", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kBegin, nil, nil)
}

func MPI_File_read_all_begin_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32) int32 {
	return fileAccess("MPI_File_read_all_begin_c", fh, fileio.Access{Write: false, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kBegin, nil, nil)
}

func MPI_File_read_all_end(fh unsafe.Pointer, buf unsafe.Pointer, status *Status) int32 {
	return fileEnd("MPI_File_read_all_end", fh, false, buf, status)
}

func MPI_File_write(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_write_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_c", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iwrite(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iwrite_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_c", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_write_all(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_all", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_write_all_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_all_c", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iwrite_all(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_all", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iwrite_all_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_all_c", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_write_all_begin(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32) int32 {
	return fileAccess("MPI_File_write_all_begin", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kBegin, nil, nil)
}

func MPI_File_write_all_begin_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32) int32 {
	return fileAccess("MPI_File_write_all_begin_c", fh, fileio.Access{Write: true, Ptr: fileio.Individual, Coll: true, Buf: buf, Count: int64(count)}, false, dtH, kBegin, nil, nil)
}

func MPI_File_write_all_end(fh unsafe.Pointer, buf unsafe.Pointer, status *Status) int32 {
	return fileEnd("MPI_File_write_all_end", fh, true, buf, status)
}

func MPI_File_read_shared(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_shared", fh, fileio.Access{Write: false, Ptr: fileio.Shared, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_read_shared_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_shared_c", fh, fileio.Access{Write: false, Ptr: fileio.Shared, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iread_shared(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_shared", fh, fileio.Access{Write: false, Ptr: fileio.Shared, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iread_shared_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iread_shared_c", fh, fileio.Access{Write: false, Ptr: fileio.Shared, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_write_shared(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_shared", fh, fileio.Access{Write: true, Ptr: fileio.Shared, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_write_shared_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_shared_c", fh, fileio.Access{Write: true, Ptr: fileio.Shared, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kBlocking, status, nil)
}

func MPI_File_iwrite_shared(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_shared", fh, fileio.Access{Write: true, Ptr: fileio.Shared, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_iwrite_shared_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, request *int32) int32 {
	return fileAccess("MPI_File_iwrite_shared_c", fh, fileio.Access{Write: true, Ptr: fileio.Shared, Coll: false, Buf: buf, Count: int64(count)}, false, dtH, kNonblocking, nil, request)
}

func MPI_File_read_ordered(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_ordered", fh, fileio.Access{Write: false, Ptr: fileio.Shared, Coll: true, Buf: buf, Count: int64(count)}, true, dtH, kBlocking, status, nil)
}

func MPI_File_read_ordered_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_read_ordered_c", fh, fileio.Access{Write: false, Ptr: fileio.Shared, Coll: true, Buf: buf, Count: int64(count)}, true, dtH, kBlocking, status, nil)
}

func MPI_File_read_ordered_begin(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32) int32 {
	return fileAccess("MPI_File_read_ordered_begin", fh, fileio.Access{Write: false, Ptr: fileio.Shared, Coll: true, Buf: buf, Count: int64(count)}, true, dtH, kBegin, nil, nil)
}

func MPI_File_read_ordered_begin_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32) int32 {
	return fileAccess("MPI_File_read_ordered_begin_c", fh, fileio.Access{Write: false, Ptr: fileio.Shared, Coll: true, Buf: buf, Count: int64(count)}, true, dtH, kBegin, nil, nil)
}

func MPI_File_read_ordered_end(fh unsafe.Pointer, buf unsafe.Pointer, status *Status) int32 {
	return fileEnd("MPI_File_read_ordered_end", fh, false, buf, status)
}

func MPI_File_write_ordered(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_ordered", fh, fileio.Access{Write: true, Ptr: fileio.Shared, Coll: true, Buf: buf, Count: int64(count)}, true, dtH, kBlocking, status, nil)
}

func MPI_File_write_ordered_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32, status *Status) int32 {
	return fileAccess("MPI_File_write_ordered_c", fh, fileio.Access{Write: true, Ptr: fileio.Shared, Coll: true, Buf: buf, Count: int64(count)}, true, dtH, kBlocking, status, nil)
}

func MPI_File_write_ordered_begin(fh unsafe.Pointer, buf unsafe.Pointer, count int32, dtH int32) int32 {
	return fileAccess("MPI_File_write_ordered_begin", fh, fileio.Access{Write: true, Ptr: fileio.Shared, Coll: true, Buf: buf, Count: int64(count)}, true, dtH, kBegin, nil, nil)
}

func MPI_File_write_ordered_begin_c(fh unsafe.Pointer, buf unsafe.Pointer, count int64, dtH int32) int32 {
	return fileAccess("MPI_File_write_ordered_begin_c", fh, fileio.Access{Write: true, Ptr: fileio.Shared, Coll: true, Buf: buf, Count: int64(count)}, true, dtH, kBegin, nil, nil)
}

func MPI_File_write_ordered_end(fh unsafe.Pointer, buf unsafe.Pointer, status *Status) int32 {
	return fileEnd("MPI_File_write_ordered_end", fh, true, buf, status)
}
