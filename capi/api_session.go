package main

import (
	"fmt"
	"unsafe"

	mpirt "gmpi/runtime"
)

// The sessions model (MPI-4.0 11.3). A session takes a reference to the
// process's one world (acquireWorldLocked): the first session or MPI_Init
// brings it up, the last MPI_Session_finalize or MPI_Finalize shuts it
// down, in whatever order the program calls them.

// threadLevelNames are the values of the thread_level hint.
var threadLevelNames = [...]string{"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"}

// raiseVia reports e through the error handler h (eh its user object, nil
// for a predefined one) attached to obj, an object that is not a
// communicator (a session), and returns the error code.
func raiseVia(h mpirt.Handle, eh *mpirt.Errhandler, obj mpirt.Handle, e *mpirt.Error) int32 {
	code := int32(mpirt.RegisterErrorCode(e))
	switch {
	case eh != nil:
		// Session and communicator handlers share the C ABI:
		// (int *handle, int *code, ...).
		callCommErrhandler(eh.Fn, obj, code)
		return code
	case h == mpirt.HandleErrorsReturn:
		return code
	}
	return invokeHandler(nil, code, e.Error(), e.Class) // fatal
}

// sessionFail raises err for fn through session s's error handler.
func sessionFail(fn string, s *mpirt.Session, err error) int32 {
	e := mpirt.Errorf(mpirt.ErrorClassOf(err), fn, "%s", errMsg(err))
	h, eh := s.Errh.Get()
	return raiseVia(h, eh, s.Handle(), e)
}

func sessionFailf(fn string, s *mpirt.Session, class int, format string, args ...any) int32 {
	return sessionFail(fn, s, mpirt.Errorf(class, "", format, args...))
}

// errMsg is the message of a runtime error without its class prefix.
func errMsg(err error) string {
	if e, ok := err.(*mpirt.Error); ok {
		return e.Msg
	}
	return err.Error()
}

// sessionArg resolves a session argument.
func sessionArg(fn string, h int32) (*mpirt.Session, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	if s := world.Session(mpirt.Handle(h)); s != nil {
		return s, 0
	}
	if mpirt.Handle(h) == mpirt.HandleSessionNull {
		return nil, failf(fn, nil, mpirt.ErrSession, "invalid session argument session: MPI_SESSION_NULL")
	}
	return nil, failf(fn, nil, mpirt.ErrSession, "invalid session argument session: 0x%08x is not a session", uint32(h))
}

func MPI_Session_init(infoH, errhandler int32, session *int32) int32 {
	const fn = "MPI_Session_init"
	if session == nil {
		return badPointer(fn, "session")
	}
	initMu.Lock()
	defer initMu.Unlock()
	// A session that brings the world up asks for MPI_THREAD_MULTIPLE (as
	// MPICH does); otherwise the level in force stays.
	if err := acquireWorldLocked(fn, threadMultiple); err != nil {
		return fail(fn, nil, err)
	}
	// Arguments that need the world are checked once it is up; a bad one
	// gives the reference back. A bad info goes through the error handler
	// the session was to have.
	h, rc := errhandlerArg(fn, nil, errhandler, "errhandler", mpirt.ObjSession)
	if rc == 0 && mpirt.Handle(infoH) != mpirt.HandleInfoNull && lookupInfo(mpirt.Handle(infoH)) == nil {
		rc = raiseVia(h, world.Errhandler(h), mpirt.HandleSessionNull,
			mpirt.Errorf(mpirt.ErrInfo, fn, "invalid info argument info: 0x%08x is not an info object", uint32(infoH)))
	}
	if rc != 0 {
		if err := releaseWorldLocked(false); err != nil {
			fail(fn, nil, err)
		}
		return rc
	}
	used := mpirt.NewInfo()
	// The thread level under both names of the hint: MPI 4.0's
	// thread_level and MPI 4.1's mpi_thread_support_level (which MPICH
	// reports).
	used.Set("thread_level", threadLevelNames[threadLevel])
	used.Set("mpi_thread_support_level", threadLevelNames[threadLevel])
	s := world.NewSession(h, used)
	*session = int32(s.Handle())
	return 0
}

func MPI_Session_finalize(session *int32) int32 {
	const fn = "MPI_Session_finalize"
	if session == nil {
		return badPointer(fn, "session")
	}
	s, rc := sessionArg(fn, *session)
	if rc != 0 {
		return rc
	}
	initMu.Lock()
	defer initMu.Unlock()
	world.FreeSession(s)
	*session = int32(mpirt.HandleSessionNull)
	if err := releaseWorldLocked(finalized.Load()); err != nil {
		return sessionFail(fn, s, err)
	}
	return 0
}

func MPI_Session_get_info(sessionH int32, infoUsed *int32) int32 {
	const fn = "MPI_Session_get_info"
	s, rc := sessionArg(fn, sessionH)
	if rc != 0 {
		return rc
	}
	if infoUsed == nil {
		return sessionFailf(fn, s, mpirt.ErrArg, "invalid argument info_used: NULL pointer")
	}
	*infoUsed = int32(infos.Add(s.Info()))
	return 0
}

// psetQuery checks the session and info arguments of the pset queries.
func psetQuery(fn string, sessionH, infoH int32) (*mpirt.Session, int32) {
	s, rc := sessionArg(fn, sessionH)
	if rc != 0 {
		return nil, rc
	}
	if mpirt.Handle(infoH) != mpirt.HandleInfoNull && lookupInfo(mpirt.Handle(infoH)) == nil {
		return nil, sessionFailf(fn, s, mpirt.ErrInfo, "invalid info argument info: 0x%08x is not an info object", uint32(infoH))
	}
	return s, 0
}

func MPI_Session_get_num_psets(sessionH, infoH int32, npsetNames *int32) int32 {
	const fn = "MPI_Session_get_num_psets"
	s, rc := psetQuery(fn, sessionH, infoH)
	if rc != 0 {
		return rc
	}
	if npsetNames == nil {
		return sessionFailf(fn, s, mpirt.ErrArg, "invalid argument npset_names: NULL pointer")
	}
	*npsetNames = int32(len(world.Psets()))
	return 0
}

func MPI_Session_get_nth_pset(sessionH, infoH, n int32, psetLen *int32, psetName *byte) int32 {
	const fn = "MPI_Session_get_nth_pset"
	s, rc := psetQuery(fn, sessionH, infoH)
	if rc != 0 {
		return rc
	}
	names := world.Psets()
	if n < 0 || int(n) >= len(names) {
		return sessionFailf(fn, s, mpirt.ErrArg, "invalid argument n: %d (there are %d process sets)", n, len(names))
	}
	if psetLen == nil {
		return sessionFailf(fn, s, mpirt.ErrArg, "invalid argument pset_len: NULL pointer")
	}
	if *psetLen < 0 {
		return sessionFailf(fn, s, mpirt.ErrArg, "invalid argument pset_len: %d is negative", *psetLen)
	}
	if *psetLen == 0 {
		// A query of the length, the terminating NUL included.
		*psetLen = int32(len(names[n]) + 1)
		return 0
	}
	if psetName == nil {
		return sessionFailf(fn, s, mpirt.ErrArg, "invalid argument pset_name: NULL pointer")
	}
	cString(psetName, int(*psetLen), names[n])
	return 0
}

// psetName reads a process set name argument.
func psetName(fn string, s *mpirt.Session, p *byte) (string, int32) {
	if p == nil {
		return "", sessionFailf(fn, s, mpirt.ErrArg, "invalid argument pset_name: NULL pointer")
	}
	return goString(p, 1<<16), 0
}

// psetArgs checks the session, process set name and output arguments of
// the pset queries and returns the process set's group.
func psetArgs(fn string, sessionH int32, name *byte, out *int32, outName string) (*mpirt.Group, int32) {
	s, rc := sessionArg(fn, sessionH)
	if rc != 0 {
		return nil, rc
	}
	pn, rc := psetName(fn, s, name)
	if rc != 0 {
		return nil, rc
	}
	if out == nil {
		return nil, sessionFailf(fn, s, mpirt.ErrArg, "invalid argument %s: NULL pointer", outName)
	}
	g, ok := world.PsetGroup(pn)
	if !ok {
		return nil, sessionFailf(fn, s, mpirt.ErrArg, "invalid argument pset_name: %q is not a process set", pn)
	}
	return g, 0
}

func MPI_Session_get_pset_info(sessionH int32, name *byte, info *int32) int32 {
	g, rc := psetArgs("MPI_Session_get_pset_info", sessionH, name, info, "info")
	if rc != 0 {
		return rc
	}
	in := mpirt.NewInfo()
	in.Set("mpi_size", fmt.Sprint(g.Size()))
	*info = int32(infos.Add(in))
	return 0
}

func MPI_Group_from_session_pset(sessionH int32, name *byte, newgroup *int32) int32 {
	g, rc := psetArgs("MPI_Group_from_session_pset", sessionH, name, newgroup, "newgroup")
	if rc != 0 {
		return rc
	}
	*newgroup = int32(world.AddGroup(g))
	return 0
}

func MPI_Session_create_errhandler(f unsafe.Pointer, errhandler *int32) int32 {
	return createErrhandler("MPI_Session_create_errhandler", mpirt.ObjSession, f, "session_errhandler_fn", errhandler)
}

func MPI_Session_set_errhandler(sessionH, errhandler int32) int32 {
	const fn = "MPI_Session_set_errhandler"
	s, rc := sessionArg(fn, sessionH)
	if rc != 0 {
		return rc
	}
	h, err := checkErrhandler(errhandler, "errhandler", mpirt.ObjSession)
	if err != nil {
		return sessionFail(fn, s, err)
	}
	s.Errh.Set(world, h)
	return 0
}

func MPI_Session_get_errhandler(sessionH int32, errhandler *int32) int32 {
	const fn = "MPI_Session_get_errhandler"
	s, rc := sessionArg(fn, sessionH)
	if rc != 0 {
		return rc
	}
	if errhandler == nil {
		return sessionFailf(fn, s, mpirt.ErrArg, "invalid argument errhandler: NULL pointer")
	}
	*errhandler = int32(s.Errh.Ref(world))
	return 0
}

func MPI_Session_call_errhandler(sessionH, errorcode int32) int32 {
	const fn = "MPI_Session_call_errhandler"
	s, rc := sessionArg(fn, sessionH)
	if rc != 0 {
		return rc
	}
	h, eh := s.Errh.Get()
	switch {
	case eh != nil:
		callCommErrhandler(eh.Fn, s.Handle(), errorcode)
	case h == mpirt.HandleErrorsReturn:
	default: // MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT
		cls, ok := mpirt.ErrorClass(int(errorcode))
		if !ok {
			cls = mpirt.ErrUnknown
		}
		invokeHandler(nil, errorcode, fn+": "+mpirt.ErrorString(int(errorcode)), cls)
	}
	// The handler returned.
	return 0
}
