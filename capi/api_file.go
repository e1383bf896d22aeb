package main

// extern int gmpi_call_datarep_conv(void *fn, int large, void *userbuf, int datatype, long long count, void *filebuf, long long position, void *extra_state);
// extern int gmpi_call_datarep_extent(void *fn, int datatype, void *extent, void *extra_state);
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"gmpi/fileio"
	mpirt "gmpi/runtime"
)

// MPI-IO: handle translation and argument checks; the semantics are in
// fileio/. An MPI_File is a pointer in the MPICH ABI: ours carry the
// handle of a table entry as their value (never dereferenced by C), and
// MPI_File_c2f/f2c use the same number.

var (
	files    = mpirt.NewHandleTable[*fileio.File](mpirt.ObjFile)
	repsOnce sync.Once
	reps     *fileio.Registry
)

func datareps() *fileio.Registry {
	repsOnce.Do(func() { reps = fileio.NewRegistry() })
	return reps
}

// fileValue is the MPI_File value of handle h.
func fileValue(h mpirt.Handle) unsafe.Pointer { return ptr(uintptr(uint32(h))) }

// fileRaise raises e for fn through f's error handler (MPI_FILE_NULL's
// when f is nil) and returns the error code.
func fileRaise(f *fileio.File, fh unsafe.Pointer, e *mpirt.Error) int32 {
	code := int32(mpirt.RegisterErrorCode(e))
	slot := world.FileErrhandler()
	if f != nil {
		slot = &f.Errh
	}
	h, eh := slot.Get()
	switch {
	case eh != nil:
		callFileErrhandler(eh.Fn, fh, code)
		return code
	case h == mpirt.HandleErrorsReturn:
		return code
	}
	return invokeHandler(nil, code, e.Error(), int(e.Class))
}

// fileFail raises err (nil: success) for fn on f.
func fileFail(fn string, f *fileio.File, fh unsafe.Pointer, err error) int32 {
	if err == nil {
		return 0
	}
	var e *mpirt.Error
	if !errors.As(err, &e) {
		e = mpirt.Errorf(mpirt.ErrOther, fn, "%v", err)
	} else if e.Func == "" {
		e2 := *e
		e2.Func = fn
		e = &e2
	}
	return fileRaise(f, fh, e)
}

func fileFailf(fn string, f *fileio.File, fh unsafe.Pointer, class int, format string, args ...any) int32 {
	return fileRaise(f, fh, mpirt.Errorf(class, fn, format, args...))
}

// fileArg resolves a file handle; bad handles raise MPI_ERR_FILE through
// MPI_FILE_NULL's handler.
func fileArg(fn string, fh unsafe.Pointer) (*fileio.File, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	if fh == nil {
		return nil, fileFailf(fn, nil, nil, mpirt.ErrFile, "invalid file argument fh: MPI_FILE_NULL")
	}
	if v := uintptr(fh); v <= 0xffffffff {
		if f, ok := files.Get(mpirt.Handle(v)); ok {
			return f, 0
		}
	}
	return nil, fileFailf(fn, nil, nil, mpirt.ErrFile, "invalid file argument fh: %p is not an open file", fh)
}

// fileNullArg accepts MPI_FILE_NULL too (error handler calls).
func fileNullArg(fn string, fh unsafe.Pointer) (*fileio.File, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	if fh == nil {
		return nil, 0
	}
	return fileArg(fn, fh)
}

// fileDatatype resolves a datatype argument, raising through f's handler.
func fileDatatype(fn string, f *fileio.File, fh unsafe.Pointer, h int32, arg string) (*mpirt.Datatype, int32) {
	if dt := world.Datatype(mpirt.Handle(h)); dt != nil {
		return dt, 0
	}
	switch {
	case h == int32(mpirt.HandleDatatypeNull):
		return nil, fileFailf(fn, f, fh, mpirt.ErrType, "invalid datatype argument %s: MPI_DATATYPE_NULL", arg)
	case world.AnyDatatype(mpirt.Handle(h)) != nil:
		return nil, fileFailf(fn, f, fh, mpirt.ErrType, "invalid datatype argument %s: 0x%08x is not committed", arg, uint32(h))
	}
	return nil, fileFailf(fn, f, fh, mpirt.ErrType, "invalid datatype argument %s: 0x%08x is not a datatype", arg, uint32(h))
}

func fileInfo(fn string, f *fileio.File, fh unsafe.Pointer, h int32) (*mpirt.Info, int32) {
	if mpirt.Handle(h) == mpirt.HandleInfoNull {
		return nil, 0
	}
	if in := lookupInfo(mpirt.Handle(h)); in != nil {
		return in, 0
	}
	return nil, fileFailf(fn, f, fh, mpirt.ErrInfo, "invalid info argument info: 0x%08x is not an info object", uint32(h))
}

func MPI_File_open(commH int32, filename *byte, amode int32, infoH int32, fhp unsafe.Pointer) int32 {
	const fn = "MPI_File_open"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	in, rc := infoArg(fn, c, infoH, "info", true)
	if rc != 0 {
		return rc
	}
	if fhp == nil {
		return fileFailf(fn, nil, nil, mpirt.ErrArg, "invalid argument fh: NULL pointer")
	}
	if filename == nil {
		return fileFailf(fn, nil, nil, mpirt.ErrArg, "invalid argument filename: NULL pointer")
	}
	if c.IsInter() {
		return fileFailf(fn, nil, nil, mpirt.ErrComm, "invalid communicator argument comm: an intercommunicator")
	}
	name := goString(filename, 4096+1)
	// ROMIO accepts a file-system prefix ("ufs:", "nfs:") before the path.
	for _, p := range []string{"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "testfs:"} {
		if len(name) > len(p) && name[:len(p)] == p {
			name = name[len(p):]
			break
		}
	}
	*(*unsafe.Pointer)(fhp) = nil
	f, err := fileio.Open(fn, c, datareps(), name, int(amode), in)
	if err != nil {
		return fileFail(fn, nil, nil, err)
	}
	h, _ := world.FileErrhandler().Get()
	f.Errh.Set(world, h)
	*(*unsafe.Pointer)(fhp) = fileValue(files.Add(f))
	return 0
}

func MPI_File_close(fhp unsafe.Pointer) int32 {
	const fn = "MPI_File_close"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if fhp == nil {
		return fileFailf(fn, nil, nil, mpirt.ErrArg, "invalid argument fh: NULL pointer")
	}
	fh := *(*unsafe.Pointer)(fhp)
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	err := f.Close(fn)
	files.Remove(mpirt.Handle(uintptr(fh)))
	*(*unsafe.Pointer)(fhp) = nil
	return fileFail(fn, nil, nil, err)
}

func MPI_File_delete(filename *byte, infoH int32) int32 {
	const fn = "MPI_File_delete"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if _, rc := infoArg(fn, nil, infoH, "info", true); rc != 0 {
		return rc
	}
	if filename == nil {
		return fileFailf(fn, nil, nil, mpirt.ErrArg, "invalid argument filename: NULL pointer")
	}
	return fileFail(fn, nil, nil, fileio.Delete(fn, goString(filename, 4096+1)))
}

func MPI_File_set_size(fh unsafe.Pointer, size int64) int32 {
	const fn = "MPI_File_set_size"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if size < 0 {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid size argument: %d is negative", size)
	}
	return fileFail(fn, f, fh, f.SetSize(fn, size))
}

func MPI_File_preallocate(fh unsafe.Pointer, size int64) int32 {
	const fn = "MPI_File_preallocate"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if size < 0 {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid size argument: %d is negative", size)
	}
	return fileFail(fn, f, fh, f.Preallocate(fn, size))
}

func MPI_File_get_size(fh unsafe.Pointer, size *int64) int32 {
	const fn = "MPI_File_get_size"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if size == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument size: NULL pointer")
	}
	n, err := f.Size(fn)
	if err != nil {
		return fileFail(fn, f, fh, err)
	}
	*size = n
	return 0
}

func MPI_File_get_group(fh unsafe.Pointer, group *int32) int32 {
	const fn = "MPI_File_get_group"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if group == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument group: NULL pointer")
	}
	*group = int32(world.AddGroup(f.Group()))
	return 0
}

func MPI_File_get_amode(fh unsafe.Pointer, amode *int32) int32 {
	const fn = "MPI_File_get_amode"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if amode == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument amode: NULL pointer")
	}
	*amode = int32(f.Amode())
	return 0
}

func MPI_File_set_info(fh unsafe.Pointer, infoH int32) int32 {
	const fn = "MPI_File_set_info"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	in, rc := fileInfo(fn, f, fh, infoH)
	if rc != 0 {
		return rc
	}
	return fileFail(fn, f, fh, f.SetInfo(fn, in))
}

func MPI_File_get_info(fh unsafe.Pointer, info *int32) int32 {
	const fn = "MPI_File_get_info"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if info == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument info_used: NULL pointer")
	}
	*info = int32(infos.Add(f.Info()))
	return 0
}

func MPI_File_sync(fh unsafe.Pointer) int32 {
	const fn = "MPI_File_sync"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	return fileFail(fn, f, fh, f.Sync(fn))
}

func MPI_File_set_atomicity(fh unsafe.Pointer, flag int32) int32 {
	const fn = "MPI_File_set_atomicity"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	return fileFail(fn, f, fh, f.SetAtomicity(fn, flag != 0))
}

func MPI_File_get_atomicity(fh unsafe.Pointer, flag *int32) int32 {
	const fn = "MPI_File_get_atomicity"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if flag == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument flag: NULL pointer")
	}
	*flag = b2i(f.Atomicity())
	return 0
}

func MPI_File_set_view(fh unsafe.Pointer, disp int64, etypeH, ftypeH int32, datarep *byte, infoH int32) int32 {
	const fn = "MPI_File_set_view"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	et, rc := fileDatatype(fn, f, fh, etypeH, "etype")
	if rc != 0 {
		return rc
	}
	ft, rc := fileDatatype(fn, f, fh, ftypeH, "filetype")
	if rc != 0 {
		return rc
	}
	in, rc := fileInfo(fn, f, fh, infoH)
	if rc != 0 {
		return rc
	}
	if datarep == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument datarep: NULL pointer")
	}
	return fileFail(fn, f, fh, f.SetView(fn, disp, et, ft, goString(datarep, maxDatarep), in))
}

// maxDatarep is MPI_MAX_DATAREP_STRING.
const maxDatarep = 128

func MPI_File_get_view(fh unsafe.Pointer, disp *int64, etype, ftype *int32, datarep *byte) int32 {
	const fn = "MPI_File_get_view"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	for _, a := range []struct {
		isNil bool
		name  string
	}{{disp == nil, "disp"}, {etype == nil, "etype"}, {ftype == nil, "filetype"}, {datarep == nil, "datarep"}} {
		if a.isNil {
			return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument %s: NULL pointer", a.name)
		}
	}
	d, e, t, rep := f.View()
	*disp = d
	*etype, *ftype = int32(viewTypeRef(e)), int32(viewTypeRef(t))
	cString(datarep, maxDatarep, rep)
	return 0
}

// viewTypeRef returns the handle get_view reports for a view type: a
// predefined type as it is, a derived one as a new handle to a copy
// the user frees (MPI-4.1 §14.3.2).
func viewTypeRef(dt *mpirt.Datatype) mpirt.Handle {
	if dt.IsPredefined() {
		return dt.Handle
	}
	c := dt.Clone()
	c.Commit()
	return world.AddDatatype(c)
}

func MPI_File_get_type_extent(fh unsafe.Pointer, dtH int32, extent *int64) int32 {
	return typeExtent("MPI_File_get_type_extent", fh, dtH, extent)
}

func MPI_File_get_type_extent_c(fh unsafe.Pointer, dtH int32, extent *int64) int32 {
	return typeExtent("MPI_File_get_type_extent_c", fh, dtH, extent)
}

func typeExtent(fn string, fh unsafe.Pointer, dtH int32, extent *int64) int32 {
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	dt := world.AnyDatatype(mpirt.Handle(dtH))
	if dt == nil {
		return fileFailf(fn, f, fh, mpirt.ErrType, "invalid datatype argument datatype: 0x%08x is not a datatype", uint32(dtH))
	}
	if extent == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument extent: NULL pointer")
	}
	e, err := f.TypeExtent(fn, dt)
	if err != nil {
		return fileFail(fn, f, fh, err)
	}
	*extent = e
	return 0
}

func MPI_File_get_byte_offset(fh unsafe.Pointer, offset int64, disp *int64) int32 {
	const fn = "MPI_File_get_byte_offset"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if disp == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument disp: NULL pointer")
	}
	d, err := f.ByteOffset(fn, offset)
	if err != nil {
		return fileFail(fn, f, fh, err)
	}
	*disp = d
	return 0
}

func MPI_File_get_position(fh unsafe.Pointer, offset *int64) int32 {
	return position("MPI_File_get_position", fh, offset, false)
}

func MPI_File_get_position_shared(fh unsafe.Pointer, offset *int64) int32 {
	return position("MPI_File_get_position_shared", fh, offset, true)
}

func position(fn string, fh unsafe.Pointer, offset *int64, shared bool) int32 {
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if offset == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument offset: NULL pointer")
	}
	get := f.Position
	if shared {
		get = f.PositionShared
	}
	v, err := get(fn)
	if err != nil {
		return fileFail(fn, f, fh, err)
	}
	*offset = v
	return 0
}

func MPI_File_seek(fh unsafe.Pointer, offset int64, whence int32) int32 {
	const fn = "MPI_File_seek"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	return fileFail(fn, f, fh, f.Seek(fn, offset, int(whence)))
}

func MPI_File_seek_shared(fh unsafe.Pointer, offset int64, whence int32) int32 {
	const fn = "MPI_File_seek_shared"
	f, rc := fileArg(fn, fh)
	if rc != 0 {
		return rc
	}
	return fileFail(fn, f, fh, f.SeekShared(fn, offset, int(whence)))
}

func MPI_File_c2f(fh unsafe.Pointer) int32 {
	if fh == nil {
		return 0
	}
	if v := uintptr(fh); v <= 0xffffffff {
		if _, ok := files.Get(mpirt.Handle(v)); ok {
			return int32(uint32(v))
		}
	}
	return 0
}

func MPI_File_f2c(h int32) unsafe.Pointer {
	if _, ok := files.Get(mpirt.Handle(uint32(h))); ok && h != 0 {
		return fileValue(mpirt.Handle(uint32(h)))
	}
	return nil
}

// Error handlers of files (MPI_FILE_NULL's is the default of opens).

func errhandlerSlot(f *fileio.File) *mpirt.ErrhandlerSlot {
	if f == nil {
		return world.FileErrhandler()
	}
	return &f.Errh
}

func MPI_File_set_errhandler(fh unsafe.Pointer, errhandler int32) int32 {
	const fn = "MPI_File_set_errhandler"
	f, rc := fileNullArg(fn, fh)
	if rc != 0 {
		return rc
	}
	h, err := checkErrhandler(errhandler, "errhandler", mpirt.ObjFile)
	if err != nil {
		return fileFail(fn, f, fh, err)
	}
	errhandlerSlot(f).Set(world, h)
	return 0
}

func MPI_File_get_errhandler(fh unsafe.Pointer, errhandler *int32) int32 {
	const fn = "MPI_File_get_errhandler"
	f, rc := fileNullArg(fn, fh)
	if rc != 0 {
		return rc
	}
	if errhandler == nil {
		return fileFailf(fn, f, fh, mpirt.ErrArg, "invalid argument errhandler: NULL pointer")
	}
	*errhandler = int32(errhandlerSlot(f).Ref(world))
	return 0
}

func MPI_File_call_errhandler(fh unsafe.Pointer, errorcode int32) int32 {
	const fn = "MPI_File_call_errhandler"
	f, rc := fileNullArg(fn, fh)
	if rc != 0 {
		return rc
	}
	h, eh := errhandlerSlot(f).Get()
	switch {
	case eh != nil:
		callFileErrhandler(eh.Fn, fh, errorcode)
	case h == mpirt.HandleErrorsReturn:
	default: // MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT
		cls, ok := mpirt.ErrorClass(int(errorcode))
		if !ok {
			cls = mpirt.ErrUnknown
		}
		world.Abort(cls+1, fmt.Sprintf("gmpi: rank %d: fatal error on a file: %s: %s", world.Rank(), fn, mpirt.ErrorString(int(errorcode))))
	}
	// The handler returned.
	return 0
}

// Data representations.

func MPI_Register_datarep(datarep *byte, readFn, writeFn, extentFn, extra unsafe.Pointer) int32 {
	return registerDatarep("MPI_Register_datarep", datarep, readFn, writeFn, extentFn, extra, false)
}

func MPI_Register_datarep_c(datarep *byte, readFn, writeFn, extentFn, extra unsafe.Pointer) int32 {
	return registerDatarep("MPI_Register_datarep_c", datarep, readFn, writeFn, extentFn, extra, true)
}

func registerDatarep(fn string, datarep *byte, readFn, writeFn, extentFn, extra unsafe.Pointer, large bool) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if datarep == nil {
		return fileFailf(fn, nil, nil, mpirt.ErrArg, "invalid argument datarep: NULL pointer")
	}
	name := goString(datarep, maxDatarep+1)
	if len(name) == 0 || len(name) >= maxDatarep {
		return fileFailf(fn, nil, nil, mpirt.ErrArg, "invalid argument datarep: %d characters (1 to %d allowed)", len(name), maxDatarep-1)
	}
	if extentFn == nil {
		return fileFailf(fn, nil, nil, mpirt.ErrArg, "invalid argument dtype_file_extent_fn: NULL function pointer")
	}
	ex, ext := uintptr(extra), uintptr(extentFn)
	conv := func(cfn unsafe.Pointer, what string) func(unsafe.Pointer, *mpirt.Datatype, int, []byte, int64) error {
		if cfn == nil {
			return nil
		}
		f := uintptr(cfn)
		return func(ubuf unsafe.Pointer, dt *mpirt.Datatype, count int, file []byte, position int64) error {
			if count == 0 {
				return nil
			}
			var fb unsafe.Pointer
			if len(file) > 0 {
				fb = unsafe.Pointer(&file[0])
			}
			l := C.int(0)
			if large {
				l = 1
			}
			if rc := C.gmpi_call_datarep_conv(ptr(f), l, ubuf, C.int(dt.Handle), C.longlong(count), fb, C.longlong(position), ptr(ex)); rc != 0 {
				return mpirt.Errorf(mpirt.ErrConversion, "", "the %s conversion function of datarep %q returned %d", what, name, int(rc))
			}
			return nil
		}
	}
	d := &fileio.Datarep{Name: name, Read: conv(readFn, "read"), Write: conv(writeFn, "write"),
		Extent: func(dt *mpirt.Datatype) (int64, error) {
			var e int64
			if rc := C.gmpi_call_datarep_extent(ptr(ext), C.int(dt.Handle), unsafe.Pointer(&e), ptr(ex)); rc != 0 {
				return 0, mpirt.Errorf(mpirt.ErrConversion, "", "the extent function of datarep %q returned %d", name, int(rc))
			}
			return e, nil
		}}
	return fileFail(fn, nil, nil, datareps().Register(fn, d))
}
