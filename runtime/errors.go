package mpirt

import (
	"fmt"
	"strings"
	"sync"
)

// MPI error classes, with MPICH's numbers. Error codes the library hands
// to the user are at most ErrLastCode: a class, or a code made by
// RegisterErrorCode, which carries its own message. Classes and codes the
// user adds (AddErrorClass, AddErrorCode) are numbered as MPICH numbers
// them, those of user classes above ErrLastCode.
const (
	Success                 = 0          // MPI_SUCCESS
	ErrBuffer               = 1          // MPI_ERR_BUFFER
	ErrCount                = 2          // MPI_ERR_COUNT
	ErrType                 = 3          // MPI_ERR_TYPE
	ErrTag                  = 4          // MPI_ERR_TAG
	ErrComm                 = 5          // MPI_ERR_COMM
	ErrRank                 = 6          // MPI_ERR_RANK
	ErrRoot                 = 7          // MPI_ERR_ROOT
	ErrGroup                = 8          // MPI_ERR_GROUP
	ErrOp                   = 9          // MPI_ERR_OP
	ErrTopology             = 10         // MPI_ERR_TOPOLOGY
	ErrDims                 = 11         // MPI_ERR_DIMS
	ErrArg                  = 12         // MPI_ERR_ARG
	ErrUnknown              = 13         // MPI_ERR_UNKNOWN
	ErrTruncate             = 14         // MPI_ERR_TRUNCATE
	ErrOther                = 15         // MPI_ERR_OTHER
	ErrIntern               = 16         // MPI_ERR_INTERN
	ErrInStatus             = 17         // MPI_ERR_IN_STATUS
	ErrPending              = 18         // MPI_ERR_PENDING
	ErrRequest              = 19         // MPI_ERR_REQUEST
	ErrAccess               = 20         // MPI_ERR_ACCESS
	ErrAmode                = 21         // MPI_ERR_AMODE
	ErrBadFile              = 22         // MPI_ERR_BAD_FILE
	ErrConversion           = 23         // MPI_ERR_CONVERSION
	ErrDupDatarep           = 24         // MPI_ERR_DUP_DATAREP
	ErrFileExists           = 25         // MPI_ERR_FILE_EXISTS
	ErrFileInUse            = 26         // MPI_ERR_FILE_IN_USE
	ErrFile                 = 27         // MPI_ERR_FILE
	ErrInfo                 = 28         // MPI_ERR_INFO
	ErrInfoKey              = 29         // MPI_ERR_INFO_KEY
	ErrInfoValue            = 30         // MPI_ERR_INFO_VALUE
	ErrInfoNokey            = 31         // MPI_ERR_INFO_NOKEY
	ErrIO                   = 32         // MPI_ERR_IO
	ErrName                 = 33         // MPI_ERR_NAME
	ErrNoMem                = 34         // MPI_ERR_NO_MEM
	ErrNotSame              = 35         // MPI_ERR_NOT_SAME
	ErrNoSpace              = 36         // MPI_ERR_NO_SPACE
	ErrNoSuchFile           = 37         // MPI_ERR_NO_SUCH_FILE
	ErrPort                 = 38         // MPI_ERR_PORT
	ErrQuota                = 39         // MPI_ERR_QUOTA
	ErrReadOnly             = 40         // MPI_ERR_READ_ONLY
	ErrService              = 41         // MPI_ERR_SERVICE
	ErrSpawn                = 42         // MPI_ERR_SPAWN
	ErrUnsupportedDatarep   = 43         // MPI_ERR_UNSUPPORTED_DATAREP
	ErrUnsupportedOperation = 44         // MPI_ERR_UNSUPPORTED_OPERATION
	ErrWin                  = 45         // MPI_ERR_WIN
	ErrBase                 = 46         // MPI_ERR_BASE
	ErrLocktype             = 47         // MPI_ERR_LOCKTYPE
	ErrKeyval               = 48         // MPI_ERR_KEYVAL
	ErrRMAConflict          = 49         // MPI_ERR_RMA_CONFLICT
	ErrRMASync              = 50         // MPI_ERR_RMA_SYNC
	ErrSize                 = 51         // MPI_ERR_SIZE
	ErrDisp                 = 52         // MPI_ERR_DISP
	ErrAssert               = 53         // MPI_ERR_ASSERT
	ErrRMARange             = 55         // MPI_ERR_RMA_RANGE
	ErrRMAAttach            = 56         // MPI_ERR_RMA_ATTACH
	ErrRMAShared            = 57         // MPI_ERR_RMA_SHARED
	ErrRMAFlavor            = 58         // MPI_ERR_RMA_FLAVOR
	ErrTMemory              = 59         // MPI_T_ERR_MEMORY
	ErrTNotInitialized      = 60         // MPI_T_ERR_NOT_INITIALIZED
	ErrTCannotInit          = 61         // MPI_T_ERR_CANNOT_INIT
	ErrTInvalidIndex        = 62         // MPI_T_ERR_INVALID_INDEX
	ErrTInvalidItem         = 63         // MPI_T_ERR_INVALID_ITEM
	ErrTInvalidHandle       = 64         // MPI_T_ERR_INVALID_HANDLE
	ErrTOutOfHandles        = 65         // MPI_T_ERR_OUT_OF_HANDLES
	ErrTOutOfSessions       = 66         // MPI_T_ERR_OUT_OF_SESSIONS
	ErrTInvalidSession      = 67         // MPI_T_ERR_INVALID_SESSION
	ErrTCvarSetNotNow       = 68         // MPI_T_ERR_CVAR_SET_NOT_NOW
	ErrTCvarSetNever        = 69         // MPI_T_ERR_CVAR_SET_NEVER
	ErrTPvarNoStartstop     = 70         // MPI_T_ERR_PVAR_NO_STARTSTOP
	ErrTPvarNoWrite         = 71         // MPI_T_ERR_PVAR_NO_WRITE
	ErrTPvarNoAtomic        = 72         // MPI_T_ERR_PVAR_NO_ATOMIC
	ErrTInvalidName         = 73         // MPI_T_ERR_INVALID_NAME
	ErrTInvalid             = 74         // MPI_T_ERR_INVALID
	ErrSession              = 75         // MPI_ERR_SESSION
	ErrProcAborted          = 76         // MPI_ERR_PROC_ABORTED
	ErrValueTooLarge        = 77         // MPI_ERR_VALUE_TOO_LARGE
	ErrTNotSupported        = 78         // MPI_T_ERR_NOT_SUPPORTED
	ErrLastClass            = 78         // MPICH_ERR_LAST_CLASS
	ErrXProcFailed          = 101        // MPIX_ERR_PROC_FAILED
	ErrXProcFailedPending   = 102        // MPIX_ERR_PROC_FAILED_PENDING
	ErrXRevoked             = 103        // MPIX_ERR_REVOKED
	ErrXEagain              = 104        // MPIX_ERR_EAGAIN
	ErrXNoreq               = 105        // MPIX_ERR_NOREQ
	ErrLastCode             = 0x3fffffff // MPI_ERR_LASTCODE
)

// Layout of codes made by RegisterErrorCode (see there).
const (
	errCodeDynamic      = 0x20000000
	errCodeClassMask    = 0x7f
	errCodeSeqShift     = 7
	errCodeClassInTable = 0x7f // class field value: the class is only in the table
	errCodeSeqMask      = (errCodeDynamic - 1) >> errCodeSeqShift
	errCodeTableSize    = 4096
)

// classInfo is the name and standard text of one error class.
type classInfo struct{ name, text string }

var errorClasses = map[int]classInfo{
	Success:                 {"MPI_SUCCESS", "no error"},
	ErrBuffer:               {"MPI_ERR_BUFFER", "invalid buffer pointer"},
	ErrCount:                {"MPI_ERR_COUNT", "invalid count argument"},
	ErrType:                 {"MPI_ERR_TYPE", "invalid datatype"},
	ErrTag:                  {"MPI_ERR_TAG", "invalid tag"},
	ErrComm:                 {"MPI_ERR_COMM", "invalid communicator"},
	ErrRank:                 {"MPI_ERR_RANK", "invalid rank"},
	ErrRoot:                 {"MPI_ERR_ROOT", "invalid root"},
	ErrGroup:                {"MPI_ERR_GROUP", "invalid group"},
	ErrOp:                   {"MPI_ERR_OP", "invalid reduction operation"},
	ErrTopology:             {"MPI_ERR_TOPOLOGY", "invalid topology"},
	ErrDims:                 {"MPI_ERR_DIMS", "invalid dimension argument"},
	ErrArg:                  {"MPI_ERR_ARG", "invalid argument"},
	ErrUnknown:              {"MPI_ERR_UNKNOWN", "unknown error"},
	ErrTruncate:             {"MPI_ERR_TRUNCATE", "message truncated"},
	ErrOther:                {"MPI_ERR_OTHER", "other error"},
	ErrIntern:               {"MPI_ERR_INTERN", "internal error"},
	ErrInStatus:             {"MPI_ERR_IN_STATUS", "error code is in the status array"},
	ErrPending:              {"MPI_ERR_PENDING", "request pending"},
	ErrRequest:              {"MPI_ERR_REQUEST", "invalid request"},
	ErrAccess:               {"MPI_ERR_ACCESS", "permission denied"},
	ErrAmode:                {"MPI_ERR_AMODE", "invalid file access mode"},
	ErrBadFile:              {"MPI_ERR_BAD_FILE", "invalid file name"},
	ErrConversion:           {"MPI_ERR_CONVERSION", "data conversion failed"},
	ErrDupDatarep:           {"MPI_ERR_DUP_DATAREP", "data representation already registered"},
	ErrFileExists:           {"MPI_ERR_FILE_EXISTS", "file exists"},
	ErrFileInUse:            {"MPI_ERR_FILE_IN_USE", "file in use"},
	ErrFile:                 {"MPI_ERR_FILE", "invalid file handle"},
	ErrInfo:                 {"MPI_ERR_INFO", "invalid info object"},
	ErrInfoKey:              {"MPI_ERR_INFO_KEY", "info key too long"},
	ErrInfoValue:            {"MPI_ERR_INFO_VALUE", "info value too long"},
	ErrInfoNokey:            {"MPI_ERR_INFO_NOKEY", "no such info key"},
	ErrIO:                   {"MPI_ERR_IO", "I/O error"},
	ErrName:                 {"MPI_ERR_NAME", "service name not published"},
	ErrNoMem:                {"MPI_ERR_NO_MEM", "out of memory"},
	ErrNotSame:              {"MPI_ERR_NOT_SAME", "arguments differ between processes"},
	ErrNoSpace:              {"MPI_ERR_NO_SPACE", "no space left on device"},
	ErrNoSuchFile:           {"MPI_ERR_NO_SUCH_FILE", "no such file"},
	ErrPort:                 {"MPI_ERR_PORT", "invalid port name"},
	ErrQuota:                {"MPI_ERR_QUOTA", "quota exceeded"},
	ErrReadOnly:             {"MPI_ERR_READ_ONLY", "read-only file or file system"},
	ErrService:              {"MPI_ERR_SERVICE", "service name not published"},
	ErrSpawn:                {"MPI_ERR_SPAWN", "could not spawn processes"},
	ErrUnsupportedDatarep:   {"MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
	ErrUnsupportedOperation: {"MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
	ErrWin:                  {"MPI_ERR_WIN", "invalid window"},
	ErrBase:                 {"MPI_ERR_BASE", "invalid base address"},
	ErrLocktype:             {"MPI_ERR_LOCKTYPE", "invalid lock type"},
	ErrKeyval:               {"MPI_ERR_KEYVAL", "invalid attribute key"},
	ErrRMAConflict:          {"MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
	ErrRMASync:              {"MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
	ErrSize:                 {"MPI_ERR_SIZE", "invalid size"},
	ErrDisp:                 {"MPI_ERR_DISP", "invalid displacement"},
	ErrAssert:               {"MPI_ERR_ASSERT", "invalid assert argument"},
	ErrRMARange:             {"MPI_ERR_RMA_RANGE", "RMA target outside the window"},
	ErrRMAAttach:            {"MPI_ERR_RMA_ATTACH", "memory cannot be attached to the window"},
	ErrRMAShared:            {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
	ErrRMAFlavor:            {"MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
	ErrTMemory:              {"MPI_T_ERR_MEMORY", "out of memory in the tools interface"},
	ErrTNotInitialized:      {"MPI_T_ERR_NOT_INITIALIZED", "tools interface not initialized"},
	ErrTCannotInit:          {"MPI_T_ERR_CANNOT_INIT", "tools interface cannot be initialized now"},
	ErrTInvalidIndex:        {"MPI_T_ERR_INVALID_INDEX", "invalid tools index"},
	ErrTInvalidItem:         {"MPI_T_ERR_INVALID_ITEM", "invalid tools item"},
	ErrTInvalidHandle:       {"MPI_T_ERR_INVALID_HANDLE", "invalid tools handle"},
	ErrTOutOfHandles:        {"MPI_T_ERR_OUT_OF_HANDLES", "no more tools handles"},
	ErrTOutOfSessions:       {"MPI_T_ERR_OUT_OF_SESSIONS", "no more tools sessions"},
	ErrTInvalidSession:      {"MPI_T_ERR_INVALID_SESSION", "invalid tools session"},
	ErrTCvarSetNotNow:       {"MPI_T_ERR_CVAR_SET_NOT_NOW", "control variable cannot be set now"},
	ErrTCvarSetNever:        {"MPI_T_ERR_CVAR_SET_NEVER", "control variable can never be set"},
	ErrTPvarNoStartstop:     {"MPI_T_ERR_PVAR_NO_STARTSTOP", "performance variable cannot be started or stopped"},
	ErrTPvarNoWrite:         {"MPI_T_ERR_PVAR_NO_WRITE", "performance variable cannot be written or reset"},
	ErrTPvarNoAtomic:        {"MPI_T_ERR_PVAR_NO_ATOMIC", "performance variable cannot be read and written atomically"},
	ErrTInvalidName:         {"MPI_T_ERR_INVALID_NAME", "invalid tools variable name"},
	ErrTInvalid:             {"MPI_T_ERR_INVALID", "invalid use of the tools interface"},
	ErrSession:              {"MPI_ERR_SESSION", "invalid session"},
	ErrProcAborted:          {"MPI_ERR_PROC_ABORTED", "peer process aborted"},
	ErrValueTooLarge:        {"MPI_ERR_VALUE_TOO_LARGE", "value too large to store"},
	ErrTNotSupported:        {"MPI_T_ERR_NOT_SUPPORTED", "not supported by the tools interface"},
	ErrXProcFailed:          {"MPIX_ERR_PROC_FAILED", "process failed"},
	ErrXProcFailedPending:   {"MPIX_ERR_PROC_FAILED_PENDING", "request pending because a process failed"},
	ErrXRevoked:             {"MPIX_ERR_REVOKED", "communication object revoked"},
	ErrXEagain:              {"MPIX_ERR_EAGAIN", "operation could not be issued, try again"},
	ErrXNoreq:               {"MPIX_ERR_NOREQ", "cannot allocate a request"},
}

// ErrorClassName returns the C name of a class ("MPI_ERR_TRUNCATE"), or ""
// when class is not a predefined class.
func ErrorClassName(class int) string { return errorClasses[class].name }

// Error is a runtime failure that maps to an MPI error class. Func names
// the MPI function the failure belongs to ("MPI_Send"); it may be empty
// deep inside the runtime and be filled in by the caller (WithFunc). Msg
// says what was wrong, in the user's terms (which argument, which value).
type Error struct {
	Class int
	Func  string
	Msg   string
	// Code, when nonzero, is the code the caller gets, unchanged, instead
	// of a new one: an error class or code the user added that a user
	// callback returned (CallbackError), or a bare class the standard
	// names as the return value (MPI_ERR_IN_STATUS of the multiple
	// completion calls).
	Code int
}

// CallbackError turns the code rc a user callback returned (query_fn,
// an attribute copy or delete function, a conversion function, ...) into
// an error, as MPICH does: a class or code the user added passes through
// unchanged, a predefined class gives a new code of that class (whose
// string says what returned it), anything else a code of MPI_ERR_OTHER.
// what names the callback ("the generalized request's query_fn").
func CallbackError(what string, rc int) *Error {
	if cls, ok := userErrorClass(rc); ok {
		return &Error{Class: cls, Msg: fmt.Sprintf("%s returned error code %d", what, rc), Code: rc}
	}
	cls, ok := ErrorClass(rc)
	if !ok || cls == Success {
		cls = ErrOther
	}
	return Errorf(cls, "", "%s returned error code %d", what, rc)
}

// Errorf returns an *Error of the given class with a formatted message.
func Errorf(class int, fn string, format string, args ...any) *Error {
	return &Error{Class: class, Func: fn, Msg: fmt.Sprintf(format, args...)}
}

// Error renders "MPI_Send: MPI_ERR_RANK: invalid rank: rank 7 in a
// communicator of size 4". Parts that are empty are left out.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Func != "" {
		b.WriteString(e.Func)
		b.WriteString(": ")
	}
	b.WriteString(classString(e.Class))
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	return b.String()
}

// Is makes errors.Is(err, &Error{Class: c}) true for any *Error of class c.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Class == e.Class
}

// WithFunc returns e with Func set to fn if it was empty; it copies e
// rather than modifying it.
func (e *Error) WithFunc(fn string) *Error {
	if e.Func != "" || fn == "" {
		return e
	}
	c := *e
	c.Func = fn
	return &c
}

// ErrorClassOf returns the MPI error class of err: Success for nil, the
// Class of an *Error (found with errors.As semantics via Unwrap chains),
// and ErrOther for any other error.
func ErrorClassOf(err error) int {
	if err == nil {
		return Success
	}
	for err != nil {
		if e, ok := err.(*Error); ok {
			return e.Class
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			break
		}
		err = u.Unwrap()
	}
	return ErrOther
}

// classString is "NAME: text" for a known class.
func classString(class int) string {
	if ci, ok := errorClasses[class]; ok {
		return ci.name + ": " + ci.text
	}
	if s, ok := userErrorString(class); ok {
		return s
	}
	return fmt.Sprintf("error class %d", class)
}

// Registered error codes. A code made by RegisterErrorCode is
//
//	bit 29      set (below it lie the codes the user adds to predefined
//	            classes; every such code is at most MPI_ERR_LASTCODE)
//	bits 28-7   a sequence number
//	bits 6-0    the class, or 0x7f when the class does not fit
//
// and its message sits in a ring of errCodeTableSize entries, slot =
// sequence mod size. Once a slot is recycled the old code still maps to
// its class (when the class fits in 7 bits) and to the class's text.
type errCodeEntry struct {
	code  int
	class int
	msg   string
}

var errCodes struct {
	mu    sync.Mutex
	seq   int
	table [errCodeTableSize]errCodeEntry
}

// RegisterErrorCode allocates an error code whose class is e.Class and
// whose string (ErrorString) is e.Error(), the full message naming the
// function and the argument. capi returns such codes to the user so that
// MPI_Error_string can say exactly what went wrong. The table is bounded:
// after errCodeTableSize further registrations a code's message is
// forgotten and ErrorString falls back to the class text. An error with a
// Code is not registered: its code is the Code.
func RegisterErrorCode(e *Error) int {
	if e == nil {
		return Success
	}
	if e.Code != 0 {
		return e.Code
	}
	cls := e.Class
	field := cls
	if cls < 0 || cls >= errCodeClassInTable {
		field = errCodeClassInTable
	}
	errCodes.mu.Lock()
	defer errCodes.mu.Unlock()
	errCodes.seq = (errCodes.seq + 1) & errCodeSeqMask
	if errCodes.seq == 0 {
		errCodes.seq = 1
	}
	code := errCodeDynamic | errCodes.seq<<errCodeSeqShift | field
	errCodes.table[errCodes.seq%errCodeTableSize] = errCodeEntry{code: code, class: cls, msg: e.Error()}
	return code
}

func lookupErrorCode(code int) (errCodeEntry, bool) {
	seq := code >> errCodeSeqShift & errCodeSeqMask
	errCodes.mu.Lock()
	defer errCodes.mu.Unlock()
	ent := errCodes.table[seq%errCodeTableSize]
	return ent, ent.code == code && ent.code != 0
}

// isRegisteredCode reports whether code has the shape of a
// RegisterErrorCode result.
func isRegisteredCode(code int) bool {
	return code > 0 && code <= ErrLastCode && code&errCodeDynamic != 0 && code>>errCodeSeqShift&errCodeSeqMask != 0
}

// ErrorClass returns the class of an error code: the code itself for a
// predefined class, the registered class for a code made by
// RegisterErrorCode. ok is false for codes that are neither.
func ErrorClass(code int) (class int, ok bool) {
	if _, known := errorClasses[code]; known {
		return code, true
	}
	if cls, ok := userErrorClass(code); ok {
		return cls, true
	}
	if !isRegisteredCode(code) {
		return 0, false
	}
	if ent, live := lookupErrorCode(code); live {
		return ent.class, true
	}
	if f := code & errCodeClassMask; f != errCodeClassInTable {
		return f, true
	}
	return 0, false
}

// ErrorString returns the text MPI_Error_string gives for code: the full
// message of a registered code, "NAME: text" for a class, and a note for
// unknown codes.
func ErrorString(code int) string {
	if _, known := errorClasses[code]; known {
		return classString(code)
	}
	if s, ok := userErrorString(code); ok {
		return s
	}
	if isRegisteredCode(code) {
		if ent, live := lookupErrorCode(code); live {
			return ent.msg
		}
		if cls, ok := ErrorClass(code); ok {
			return classString(cls)
		}
	}
	return fmt.Sprintf("unknown error code %d", code)
}

// User-defined error classes and codes (MPI_Add_error_class,
// MPI_Add_error_code, MPI_Add_error_string), numbered as MPICH does:
//
//	class k (k = 1, 2, ...)                  userClassBit | k
//	code j (j = 1, 2, ... over all codes)
//	  of user class userClassBit|k           userClassBit | j<<8 | k
//	  of predefined class c                  j<<8 | c
//
// so user classes and their codes are above MPI_ERR_LASTCODE, and codes
// of predefined classes lie below the codes RegisterErrorCode makes.
// MPI_LASTUSEDCODE is, as the standard says and MPICH does, the largest
// error class: the last user class, MPI_ERR_LASTCODE before any.
const (
	userClassBit  = 0x40000000
	userCodeShift = 8
	userClassMax  = 1<<userCodeShift - 1
	userCodeMax   = errCodeDynamic>>userCodeShift - 1
)

type userErr struct {
	class int // the code's class; the value itself for a class
	msg   string
}

var userErrs struct {
	mu       sync.Mutex
	classes  int // classes added
	codes    int // codes added
	lastUsed int // the last user class, 0 before any
	m        map[int]*userErr
}

// AddErrorClass returns a new error class.
func AddErrorClass() (int, error) {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	if userErrs.classes >= userClassMax {
		return 0, Errorf(ErrOther, "", "no more error classes: all %d user classes are in use", userClassMax)
	}
	userErrs.classes++
	v := userClassBit | userErrs.classes
	addUserErrLocked(v, v)
	userErrs.lastUsed = v
	return v, nil
}

func addUserErrLocked(v, class int) {
	if userErrs.m == nil {
		userErrs.m = map[int]*userErr{}
	}
	userErrs.m[v] = &userErr{class: class}
}

// AddErrorCode returns a new error code of class (a predefined class or
// one made by AddErrorClass).
func AddErrorCode(class int) (int, error) {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	user := class&userClassBit != 0
	if user {
		if e, ok := userErrs.m[class]; !ok || e.class != class {
			return 0, Errorf(ErrArg, "", "invalid argument errorclass: %d is not an error class", class)
		}
	} else if _, ok := errorClasses[class]; !ok || class == Success {
		return 0, Errorf(ErrArg, "", "invalid argument errorclass: %d is not an error class", class)
	}
	if userErrs.codes >= userCodeMax {
		return 0, Errorf(ErrOther, "", "no more error codes: all %d user codes are in use", userCodeMax)
	}
	userErrs.codes++
	v := userErrs.codes<<userCodeShift | class
	addUserErrLocked(v, class)
	return v, nil
}

// AddErrorString sets the string of a user-defined class or code.
func AddErrorString(code int, s string) error {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	e, ok := userErrs.m[code]
	if !ok {
		return Errorf(ErrArg, "", "invalid argument errorcode: %d is not a user-defined error class or code", code)
	}
	e.msg = s
	return nil
}

// LastUsedCode is the value of the MPI_LASTUSEDCODE attribute.
func LastUsedCode() int {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	return max(userErrs.lastUsed, ErrLastCode)
}

func userErrorClass(code int) (int, bool) {
	userErrs.mu.Lock()
	defer userErrs.mu.Unlock()
	if e, ok := userErrs.m[code]; ok {
		return e.class, true
	}
	return 0, false
}

// userErrorString is the string of a user class or code: the one the
// user set, else empty, except that a code of a predefined class without
// one reads as its class (as in MPICH).
func userErrorString(code int) (string, bool) {
	userErrs.mu.Lock()
	e, ok := userErrs.m[code]
	userErrs.mu.Unlock()
	switch {
	case !ok:
		return "", false
	case e.msg == "" && e.class != code && e.class&userClassBit == 0:
		return classString(e.class), true
	}
	return e.msg, true
}
