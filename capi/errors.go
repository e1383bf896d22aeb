package main

import (
	"errors"
	"fmt"
	"os"

	mpirt "gmpi/runtime"
)

// raiseError reports an error of class on communicator comm (a handle;
// invalid or null handles use MPI_COMM_WORLD's handler) through its error
// handler and returns the error code for the caller to return.
func raiseError(comm int32, class int32, msg string) int32 {
	return raise(commOrWorld(comm), mpirt.Errorf(int(class), "", "%s", msg))
}

// commOrWorld resolves comm, falling back to MPI_COMM_WORLD (the handler
// that errors on invalid communicators go to).
func commOrWorld(comm int32) *mpirt.Comm {
	if world == nil {
		return nil
	}
	if c := world.Comm(mpirt.Handle(comm)); c != nil {
		return c
	}
	return world.CommWorld()
}

// fail raises err (from the runtime) for function fn on communicator c (nil:
// MPI_COMM_WORLD) and returns the error code.
func fail(fn string, c *mpirt.Comm, err error) int32 {
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
	if c == nil && world != nil {
		c = world.CommWorld()
	}
	return raise(c, e)
}

// failf builds and raises an error of class for fn on c.
func failf(fn string, c *mpirt.Comm, class int, format string, args ...any) int32 {
	return raise(commOrNil(c), mpirt.Errorf(class, fn, format, args...))
}

func commOrNil(c *mpirt.Comm) *mpirt.Comm {
	if c == nil && world != nil {
		return world.CommWorld()
	}
	return c
}

// raise invokes c's error handler on e and returns the error code.
func raise(c *mpirt.Comm, e *mpirt.Error) int32 {
	code := int32(mpirt.RegisterErrorCode(e))
	return invokeHandler(c, code, e.Error(), int(e.Class))
}

// invokeHandler applies c's error handler to code (msg describes it):
// MPI_ERRORS_RETURN returns, a user handler is called with (&comm, &code)
// and then the code is returned, MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT
// end the job.
func invokeHandler(c *mpirt.Comm, code int32, msg string, class int) int32 {
	h := mpirt.HandleErrorsAreFatal
	if c != nil {
		h = c.Errhandler()
		if eh := c.UserErrhandler(); eh != nil {
			callCommErrhandler(eh.Fn, c.Handle(), code)
			return code
		}
	}
	switch h {
	case mpirt.HandleErrorsReturn:
		return code
	default: // MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT
		rank := 0
		if world != nil {
			rank = world.Rank()
		}
		how := "fatal error"
		if h == mpirt.HandleErrorsAbort {
			how = "error (MPI_ERRORS_ABORT)"
		}
		if c != nil && c.Name() != "" {
			how += " on " + c.Name()
		}
		text := fmt.Sprintf("gmpi: rank %d: %s: %s", rank, how, msg)
		if world == nil {
			fmt.Fprintln(os.Stderr, text)
			os.Exit(class + 1)
		}
		world.Abort(class+1, text)
		return code
	}
}

// panicked turns a Go panic caught at the C boundary into MPI_ERR_INTERN.
func panicked(fn string, r any) int32 {
	return raise(commOrNil(nil), mpirt.Errorf(mpirt.ErrIntern, fn, "internal error (Go panic): %v", r))
}

// notInitialized is raised by calls made before MPI_Init or after
// MPI_Finalize.
func notInitialized(fn string) int32 {
	what := "before MPI_Init"
	switch {
	case finalized.Load():
		what = "after MPI_Finalize"
	case world != nil && !initialized.Load():
		what = "while no session is open"
	}
	msg := fmt.Sprintf("gmpi: %s called %s", fn, what)
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
	return int32(mpirt.ErrOther)
}
