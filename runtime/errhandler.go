package mpirt

import "sync"

// Errhandler is a user error handler (MPI_Comm_create_errhandler and its
// window and file twins). The runtime does not call it: Fn is a C function
// pointer that capi invokes through a C shim when an error is raised on an
// object the handler is attached to.
//
// Lifecycle: created with a handle (one user reference) → attached to
// objects (they keep the *Errhandler) → every MPI_Comm_get_errhandler adds
// a user reference, every MPI_Errhandler_free drops one; at zero the
// handle is released, while objects that hold the handler keep using it
// (and MPI_Comm_get_errhandler on them hands out a fresh handle).
type Errhandler struct {
	// Kind is the object type the handler is for (ObjComm, ObjWin,
	// ObjFile, ObjSession).
	Kind ObjectType
	// Fn is the C function pointer (MPI_Comm_errhandler_function*).
	Fn uintptr

	mu     sync.Mutex
	handle Handle // 0 once every user reference was freed
	refs   int    // user references to handle (create, get_errhandler)
}

// NewErrhandler registers a user error handler and returns its handle.
func (w *World) NewErrhandler(kind ObjectType, fn uintptr) Handle {
	eh := &Errhandler{Kind: kind, Fn: fn}
	eh.mu.Lock()
	defer eh.mu.Unlock()
	eh.handle = w.errhandlers.Add(eh)
	eh.refs = 1
	return eh.handle
}

// Errhandler resolves a user error handler handle; nil for predefined
// handlers, MPI_ERRHANDLER_NULL and garbage.
func (w *World) Errhandler(h Handle) *Errhandler {
	eh, ok := w.errhandlers.Get(h)
	if !ok {
		return nil
	}
	return eh
}

// IsPredefinedErrhandler reports whether h is one of the builtin handlers.
func IsPredefinedErrhandler(h Handle) bool {
	switch h {
	case HandleErrorsAreFatal, HandleErrorsReturn, HandleErrorsAbort, HandleErrorsThrow:
		return true
	}
	return false
}

// ValidErrhandler reports whether h names a predefined or live user
// handler.
func (w *World) ValidErrhandler(h Handle) bool {
	return IsPredefinedErrhandler(h) || w.Errhandler(h) != nil
}

// FreeErrhandler releases the handle h (MPI_Errhandler_free). Objects the
// handler is attached to keep it. Predefined handlers are not freed.
func (w *World) FreeErrhandler(h Handle) error {
	if IsPredefinedErrhandler(h) {
		return nil
	}
	eh := w.Errhandler(h)
	if eh == nil {
		return Errorf(ErrArg, "MPI_Errhandler_free", "invalid argument errhandler: %s", describeHandle(h, HandleErrhandlerNull))
	}
	eh.mu.Lock()
	defer eh.mu.Unlock()
	if eh.handle == h {
		if eh.refs--; eh.refs <= 0 {
			w.errhandlers.Remove(h)
			eh.handle, eh.refs = 0, 0
		}
	}
	return nil
}

// ErrhandlerRef returns a new user reference to eh (MPI_Comm_get_errhandler):
// the same handle while the user holds one, a fresh handle once every
// earlier reference was freed.
func (w *World) ErrhandlerRef(eh *Errhandler) Handle {
	eh.mu.Lock()
	defer eh.mu.Unlock()
	if eh.handle == 0 {
		eh.handle = w.errhandlers.Add(eh)
	}
	eh.refs++
	return eh.handle
}

// ErrhandlerHandle returns the handle MPI_Comm_get_errhandler gives for c.
func (c *Comm) ErrhandlerHandle() Handle {
	if eh := c.UserErrhandler(); eh != nil {
		return c.w.ErrhandlerRef(eh)
	}
	return c.Errhandler()
}

// ErrhandlerSlot is the error handler attached to an object that is not a
// communicator: MPI_FILE_NULL's, the default for file operations. The
// zero value holds MPI_ERRORS_RETURN.
type ErrhandlerSlot struct {
	mu sync.Mutex
	h  Handle // 0: MPI_ERRORS_RETURN
	eh *Errhandler
}

// Set attaches h, a predefined handler or a live user handler (capi
// checks its kind first).
func (s *ErrhandlerSlot) Set(w *World, h Handle) {
	var eh *Errhandler
	if !IsPredefinedErrhandler(h) {
		if eh = w.Errhandler(h); eh == nil {
			return
		}
	}
	s.mu.Lock()
	s.h, s.eh = h, eh
	s.mu.Unlock()
}

// Get returns the attached handler: its handle and, for a user handler,
// the object (nil for predefined handlers).
func (s *ErrhandlerSlot) Get() (Handle, *Errhandler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.h == 0 {
		return HandleErrorsReturn, nil
	}
	return s.h, s.eh
}

// Ref returns the handle a get_errhandler call gives: a new user
// reference for a user handler (ErrhandlerRef).
func (s *ErrhandlerSlot) Ref(w *World) Handle {
	h, eh := s.Get()
	if eh != nil {
		return w.ErrhandlerRef(eh)
	}
	return h
}

// fileErrhandlers maps *World to its MPI_FILE_NULL *ErrhandlerSlot.
var fileErrhandlers sync.Map

// FileErrhandler is MPI_FILE_NULL's error handler slot (initially
// MPI_ERRORS_RETURN, as MPI requires for files).
func (w *World) FileErrhandler() *ErrhandlerSlot {
	if s, ok := fileErrhandlers.Load(w); ok {
		return s.(*ErrhandlerSlot)
	}
	s, _ := fileErrhandlers.LoadOrStore(w, new(ErrhandlerSlot))
	return s.(*ErrhandlerSlot)
}
