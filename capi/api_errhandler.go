package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// errhandlerArg resolves an error handler argument for an object of
// kind: a predefined handler or a live user handler created for kind.
func errhandlerArg(fn string, c *mpirt.Comm, h int32, arg string, kind mpirt.ObjectType) (mpirt.Handle, int32) {
	eh, err := checkErrhandler(h, arg, kind)
	if err != nil {
		return 0, fail(fn, c, err)
	}
	return eh, 0
}

// checkErrhandler is errhandlerArg's check, for callers that raise the
// error through another object's handler.
func checkErrhandler(h int32, arg string, kind mpirt.ObjectType) (mpirt.Handle, error) {
	eh := mpirt.Handle(h)
	if world.ValidErrhandler(eh) {
		if u := world.Errhandler(eh); u != nil && u.Kind != kind {
			return 0, mpirt.Errorf(mpirt.ErrArg, "", "invalid error handler argument %s: 0x%08x is a %s error handler, not a %s one", arg, uint32(h), u.Kind, kind)
		}
		return eh, nil
	}
	if eh == mpirt.HandleErrhandlerNull {
		return 0, mpirt.Errorf(mpirt.ErrArg, "", "invalid error handler argument %s: MPI_ERRHANDLER_NULL", arg)
	}
	return 0, mpirt.Errorf(mpirt.ErrArg, "", "invalid error handler argument %s: 0x%08x is not an error handler", arg, uint32(h))
}

func MPI_Comm_set_errhandler(commH int32, errhandler int32) int32 {
	return setCommErrhandler("MPI_Comm_set_errhandler", commH, errhandler)
}

func setCommErrhandler(fn string, commH int32, errhandler int32) int32 {
	c, rc := commOrPending(fn, commH)
	if rc != 0 {
		return rc
	}
	h, rc := errhandlerArg(fn, c, errhandler, "errhandler", mpirt.ObjComm)
	if rc != 0 {
		return rc
	}
	c.SetErrhandler(h)
	return 0
}

func MPI_Errhandler_set(commH int32, errhandler int32) int32 {
	return setCommErrhandler("MPI_Errhandler_set", commH, errhandler)
}

func MPI_Comm_get_errhandler(commH int32, errhandler *int32) int32 {
	return getCommErrhandler("MPI_Comm_get_errhandler", commH, errhandler)
}

func getCommErrhandler(fn string, commH int32, errhandler *int32) int32 {
	c, rc := commOrPending(fn, commH)
	if rc != 0 {
		return rc
	}
	if errhandler == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument errhandler: NULL pointer")
	}
	*errhandler = int32(c.ErrhandlerHandle())
	return 0
}

func MPI_Errhandler_get(commH int32, errhandler *int32) int32 {
	return getCommErrhandler("MPI_Errhandler_get", commH, errhandler)
}

func MPI_Comm_create_errhandler(f unsafe.Pointer, errhandler *int32) int32 {
	return createErrhandler("MPI_Comm_create_errhandler", mpirt.ObjComm, f, "comm_errhandler_fn", errhandler)
}

func MPI_Win_create_errhandler(f unsafe.Pointer, errhandler *int32) int32 {
	return createErrhandler("MPI_Win_create_errhandler", mpirt.ObjWin, f, "win_errhandler_fn", errhandler)
}

func MPI_File_create_errhandler(f unsafe.Pointer, errhandler *int32) int32 {
	return createErrhandler("MPI_File_create_errhandler", mpirt.ObjFile, f, "file_errhandler_fn", errhandler)
}

func createErrhandler(fn string, kind mpirt.ObjectType, f unsafe.Pointer, arg string, errhandler *int32) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if f == nil {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument %s: NULL function pointer", arg)
	}
	if errhandler == nil {
		return badPointer(fn, "errhandler")
	}
	*errhandler = int32(world.NewErrhandler(kind, uintptr(f)))
	return 0
}

func MPI_Errhandler_create(f unsafe.Pointer, errhandler *int32) int32 {
	return createErrhandler("MPI_Errhandler_create", mpirt.ObjComm, f, "comm_errhandler_fn", errhandler)
}

func MPI_Errhandler_free(errhandler *int32) int32 {
	const fn = "MPI_Errhandler_free"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if errhandler == nil {
		return badPointer(fn, "errhandler")
	}
	if err := world.FreeErrhandler(mpirt.Handle(*errhandler)); err != nil {
		return fail(fn, nil, err)
	}
	// Predefined handlers are not freed, but the user's handle is set to
	// null as the standard requires.
	*errhandler = int32(mpirt.HandleErrhandlerNull)
	return 0
}

func MPI_Comm_call_errhandler(commH int32, errorcode int32) int32 {
	const fn = "MPI_Comm_call_errhandler"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	cls, ok := mpirt.ErrorClass(int(errorcode))
	if !ok {
		cls = mpirt.ErrUnknown
	}
	invokeHandler(c, errorcode, "MPI_Comm_call_errhandler: "+mpirt.ErrorString(int(errorcode)), cls)
	// The handler returned (MPI_ERRORS_RETURN or a user handler).
	return 0
}

func MPI_Add_error_class(errorclass *int32) int32 {
	const fn = "MPI_Add_error_class"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if errorclass == nil {
		return badPointer(fn, "errorclass")
	}
	v, err := mpirt.AddErrorClass()
	if err != nil {
		return fail(fn, nil, err)
	}
	*errorclass = int32(v)
	updateLastUsedCode()
	return 0
}

func MPI_Add_error_code(errorclass int32, errorcode *int32) int32 {
	const fn = "MPI_Add_error_code"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if errorcode == nil {
		return badPointer(fn, "errorcode")
	}
	v, err := mpirt.AddErrorCode(int(errorclass))
	if err != nil {
		return fail(fn, nil, err)
	}
	*errorcode = int32(v)
	updateLastUsedCode()
	return 0
}

func MPI_Add_error_string(errorcode int32, s *byte) int32 {
	const fn = "MPI_Add_error_string"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if s == nil {
		return badPointer(fn, "string")
	}
	str := goString(s, maxErrorString+1)
	if len(str) > maxErrorString-1 {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument string: longer than MPI_MAX_ERROR_STRING-1 (%d) characters", maxErrorString-1)
	}
	return fail(fn, nil, mpirt.AddErrorString(int(errorcode), str))
}
