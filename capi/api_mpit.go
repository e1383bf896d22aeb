package main

// #include <stdlib.h>
// #include "../include/mpi.h"
// static void *gmpi_pvar_all_handles(void) { return (void *)MPI_T_PVAR_ALL_HANDLES; }
import "C"

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// The MPI tool information interface (MPI_T). Its control variables are
// gmpi's tunables: every variable of the param registry a user may set
// (not mpirun's launch plumbing, not secrets), in the registry's order
// (sorted by name). Their values are read from the environment when the
// world starts (MPI_Init or a session), so they are read-only here:
// MPI_T_SCOPE_READONLY, and MPI_T_cvar_write is MPI_T_ERR_CVAR_SET_NEVER.
// A read returns the value the running world uses (before MPI_Init, the
// process environment's). Each registry scope ("runtime", "shm device",
// "coll/tuned", ...) is a category holding its variables. gmpi exports no
// performance variables, events or event sources: their counts are 0, so
// every index is MPI_T_ERR_INVALID_INDEX, and a pvar session holds no
// handles. MPI_T functions return their error codes; they never call an
// error handler (MPI 4.1, 15.3.10).

// The MPICH-ABI values of the tool interface's enumerations (the fronts
// translate them: capi/front.h).
const (
	tVerbosityUserBasic  = 221
	tVerbosityTunerBasic = 224
	tBindNoObject        = 9700
	tScopeReadonly       = 60439
)

// A cvar is one control variable.
type cvar struct {
	v        *param.Var
	datatype mpirt.Handle // MPI_INT, MPI_LONG_LONG or MPI_CHAR
}

// A tCategory is one scope of the registry.
type tCategory struct {
	name, desc string
	cvars      []int32
}

// mpitState is the tool interface's state (state.go's mpit).
type mpitState struct {
	mu       sync.Mutex
	refs     int // MPI_T_init_thread calls not yet finalized
	cvars    []cvar
	cats     []tCategory
	handles  map[unsafe.Pointer]int // cvar handle (C memory) -> cvar index
	sessions map[unsafe.Pointer]bool
}

// load builds the variable and category lists once (the registry is
// complete after package initialisation).
func (t *mpitState) load() {
	if t.cvars != nil {
		return
	}
	byScope := map[string]int{}
	for _, v := range param.All() {
		if v.Internal || v.Secret {
			continue
		}
		dt := mpirt.TypeInt
		switch v.Kind {
		case param.KindSize, param.KindDuration:
			dt = mpirt.TypeLongLong
		case param.KindString, param.KindList, param.KindAuto:
			dt = mpirt.TypeChar
		}
		idx := int32(len(t.cvars))
		t.cvars = append(t.cvars, cvar{v: v, datatype: dt})
		c, ok := byScope[v.Scope]
		if !ok {
			c = len(t.cats)
			byScope[v.Scope] = c
			t.cats = append(t.cats, tCategory{name: v.Scope, desc: "gmpi's tunables of the " + v.Scope})
		}
		t.cats[c].cvars = append(t.cats[c].cvars, idx)
	}
	sort.SliceStable(t.cats, func(i, j int) bool { return t.cats[i].name < t.cats[j].name })
	t.handles = map[unsafe.Pointer]int{}
	t.sessions = map[unsafe.Pointer]bool{}
}

// tEnter locks the state and checks that the interface is initialized;
// the caller unlocks when rc is 0.
func tEnter() int32 {
	mpit.mu.Lock()
	if mpit.refs == 0 {
		mpit.mu.Unlock()
		return mpirt.ErrTNotInitialized
	}
	return 0
}

// tString returns s by MPI_T's convention for strings (MPI 4.1, 15.3.3):
// with a NULL buffer or a zero length, *len is set to the length the
// whole string needs (with the NUL); else at most *len bytes are written,
// NUL included, and *len is the number written.
func tString(buf *byte, length *int32, s string) {
	if length == nil {
		return
	}
	need := int32(len(s) + 1)
	if buf == nil || *length <= 0 {
		*length = need
		return
	}
	n := min(need, *length)
	cString(buf, int(n), s)
	*length = n
}

func setInt(p *int32, v int32) {
	if p != nil {
		*p = v
	}
}

func MPI_T_init_thread(required int32, provided *int32) int32 {
	if required < threadSingle || required > threadMultiple {
		return mpirt.ErrArg
	}
	if provided == nil {
		return mpirt.ErrArg
	}
	mpit.mu.Lock()
	defer mpit.mu.Unlock()
	mpit.load()
	mpit.refs++
	*provided = required // every MPI_T function holds mpit.mu: any level is safe
	return 0
}

func MPI_T_finalize() int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	mpit.refs--
	if mpit.refs == 0 {
		for h := range mpit.handles {
			C.free(h)
		}
		for s := range mpit.sessions {
			C.free(s)
		}
		clear(mpit.handles)
		clear(mpit.sessions)
	}
	return 0
}

// --- control variables -----------------------------------------------------

func MPI_T_cvar_get_num(num *int32) int32 {
	return tLen(num, func() int { return len(mpit.cvars) })
}

// tLen answers a count, n() read under the interface's lock.
func tLen(num *int32, n func() int) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if num == nil {
		return mpirt.ErrArg
	}
	*num = int32(n())
	return 0
}

// tAt is element i of s, or MPI_T_ERR_INVALID_INDEX.
func tAt[T any](s []T, i int32) (*T, int32) {
	if i < 0 || int(i) >= len(s) {
		return nil, mpirt.ErrTInvalidIndex
	}
	return &s[i], 0
}

func cvarAt(i int32) (*cvar, int32) { return tAt(mpit.cvars, i) }

func MPI_T_cvar_get_info(index int32, name *byte, nameLen, verbosity, datatype *int32, enumtype unsafe.Pointer,
	desc *byte, descLen, bind, scope *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	c, rc := cvarAt(index)
	if rc != 0 {
		return rc
	}
	tString(name, nameLen, c.v.Name)
	verb := int32(tVerbosityTunerBasic)
	if c.v.Scope == param.ScopeRuntime || c.v.Scope == param.ScopeLibrary {
		verb = tVerbosityUserBasic
	}
	setInt(verbosity, verb)
	setInt(datatype, int32(c.datatype))
	if enumtype != nil {
		*(*unsafe.Pointer)(enumtype) = nil // MPI_T_ENUM_NULL: no variable is an enumeration
	}
	d := c.v.Desc
	if c.v.Default != "" {
		d += " (default " + c.v.Default + ")"
	}
	tString(desc, descLen, d)
	setInt(bind, tBindNoObject)
	setInt(scope, tScopeReadonly)
	return 0
}

func MPI_T_cvar_get_index(name *byte, index *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if name == nil || index == nil {
		return mpirt.ErrArg
	}
	n := goString(name, 1<<12)
	for i := range mpit.cvars {
		if mpit.cvars[i].v.Name == n {
			*index = int32(i)
			return 0
		}
	}
	return mpirt.ErrTInvalidName
}

// cvarText is the value of c the running world uses, as MPI_T returns it.
func cvarValue(c *cvar) any {
	var vals *param.Values
	if w := world; w != nil {
		vals = w.Params()
	} else {
		vals, _ = param.Env() // a malformed value reads as the default, as MPI_Init would refuse it
	}
	x, _ := vals.Value(c.v)
	return x
}

func cvarText(x any) string {
	switch x := x.(type) {
	case []string:
		return strings.Join(x, ",")
	case bool:
		if x {
			return "1"
		}
		return "0"
	case nil:
		return "auto"
	}
	return fmt.Sprint(x)
}

// cvarCount is the number of elements of c's value: 1, or the bytes of
// its text with the NUL (the longest it may read, for a string).
func cvarCount(c *cvar) int32 {
	if c.datatype != mpirt.TypeChar {
		return 1
	}
	return int32(len(cvarText(cvarValue(c))) + 1)
}

func MPI_T_cvar_handle_alloc(index int32, objHandle unsafe.Pointer, handle unsafe.Pointer, count *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	c, rc := cvarAt(index)
	if rc != 0 {
		return rc
	}
	if handle == nil || count == nil {
		return mpirt.ErrArg
	}
	_ = objHandle // bound to no object: ignored, as the standard says
	h := C.malloc(16)
	if h == nil {
		return mpirt.ErrTMemory
	}
	mpit.handles[h] = int(index)
	*(*unsafe.Pointer)(handle) = h
	*count = cvarCount(c)
	return 0
}

func MPI_T_cvar_handle_free(handle unsafe.Pointer) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if handle == nil {
		return mpirt.ErrArg
	}
	h := *(*unsafe.Pointer)(handle)
	if _, ok := mpit.handles[h]; !ok {
		return mpirt.ErrTInvalidHandle
	}
	delete(mpit.handles, h)
	C.free(h)
	*(*unsafe.Pointer)(handle) = nil // MPI_T_CVAR_HANDLE_NULL
	return 0
}

func MPI_T_cvar_read(handle, buf unsafe.Pointer) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	i, ok := mpit.handles[handle]
	if !ok {
		return mpirt.ErrTInvalidHandle
	}
	if buf == nil {
		return mpirt.ErrArg
	}
	c := &mpit.cvars[i]
	x := cvarValue(c)
	switch c.datatype {
	case mpirt.TypeChar:
		cString((*byte)(buf), len(cvarText(x))+1, cvarText(x))
	case mpirt.TypeLongLong:
		var n int64
		switch x := x.(type) {
		case int:
			n = int64(x)
		case time.Duration:
			n = int64(x)
		}
		*(*int64)(buf) = n
	default:
		var n int32
		switch x := x.(type) {
		case int:
			n = int32(x)
		case bool:
			if x {
				n = 1
			}
		}
		*(*int32)(buf) = n
	}
	return 0
}

func MPI_T_cvar_write(handle, buf unsafe.Pointer) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if _, ok := mpit.handles[handle]; !ok {
		return mpirt.ErrTInvalidHandle
	}
	return mpirt.ErrTCvarSetNever // read from the environment at start-up only
}

// --- categories --------------------------------------------------------------

func MPI_T_category_get_num(num *int32) int32 {
	return tLen(num, func() int { return len(mpit.cats) })
}

func catAt(i int32) (*tCategory, int32) { return tAt(mpit.cats, i) }

func MPI_T_category_get_info(index int32, name *byte, nameLen *int32, desc *byte, descLen, numCvars, numPvars, numCategories *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	c, rc := catAt(index)
	if rc != 0 {
		return rc
	}
	tString(name, nameLen, c.name)
	tString(desc, descLen, c.desc)
	setInt(numCvars, int32(len(c.cvars)))
	setInt(numPvars, 0)
	setInt(numCategories, 0)
	return 0
}

func MPI_T_category_get_index(name *byte, index *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if name == nil || index == nil {
		return mpirt.ErrArg
	}
	n := goString(name, 1<<12)
	for i := range mpit.cats {
		if mpit.cats[i].name == n {
			*index = int32(i)
			return 0
		}
	}
	return mpirt.ErrTInvalidName
}

// catList writes up to len of a category's members (cvars, or none for
// pvars, categories and events).
func catList(index, length int32, indices *int32, members func(*tCategory) []int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	c, rc := catAt(index)
	if rc != 0 {
		return rc
	}
	if length < 0 {
		return mpirt.ErrArg
	}
	m := members(c)
	if length > 0 && len(m) > 0 {
		if indices == nil {
			return mpirt.ErrArg
		}
		copy(unsafe.Slice(indices, length), m)
	}
	return 0
}

func noMembers(*tCategory) []int32 { return nil }

func MPI_T_category_get_cvars(index, length int32, indices *int32) int32 {
	return catList(index, length, indices, func(c *tCategory) []int32 { return c.cvars })
}

func MPI_T_category_get_pvars(index, length int32, indices *int32) int32 {
	return catList(index, length, indices, noMembers)
}

func MPI_T_category_get_categories(index, length int32, indices *int32) int32 {
	return catList(index, length, indices, noMembers)
}

func MPI_T_category_get_events(index, length int32, indices *int32) int32 {
	return catList(index, length, indices, noMembers)
}

func MPI_T_category_get_num_events(index int32, num *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if _, rc := catAt(index); rc != 0 {
		return rc
	}
	if num == nil {
		return mpirt.ErrArg
	}
	*num = 0
	return 0
}

func MPI_T_category_changed(stamp *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if stamp == nil {
		return mpirt.ErrArg
	}
	*stamp = 0 // the categories never change
	return 0
}

// --- enumerations: no variable is one ----------------------------------------

func MPI_T_enum_get_info(enumtype unsafe.Pointer, num *int32, name *byte, nameLen *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	mpit.mu.Unlock()
	return mpirt.ErrTInvalidHandle
}

func MPI_T_enum_get_item(enumtype unsafe.Pointer, index int32, value *int32, name *byte, nameLen *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	mpit.mu.Unlock()
	return mpirt.ErrTInvalidHandle
}

// --- performance variables: none; sessions exist ------------------------------

// tCount answers a count of something gmpi does not export: 0.
func tCount(num *int32) int32 { return tLen(num, func() int { return 0 }) }

// tNone answers an index or name of something gmpi does not export.
func tNone(rc int32) int32 {
	if e := tEnter(); e != 0 {
		return e
	}
	mpit.mu.Unlock()
	return rc
}

func MPI_T_pvar_get_num(num *int32) int32 { return tCount(num) }

func MPI_T_pvar_get_info(index int32, name *byte, nameLen, verbosity, varClass, datatype *int32, enumtype unsafe.Pointer,
	desc *byte, descLen, bind, readonly, continuous, atomic *int32) int32 {
	return tNone(mpirt.ErrTInvalidIndex)
}

func MPI_T_pvar_get_index(name *byte, varClass int32, index *int32) int32 {
	return tNone(mpirt.ErrTInvalidName)
}

func MPI_T_pvar_session_create(session unsafe.Pointer) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if session == nil {
		return mpirt.ErrArg
	}
	s := C.malloc(16)
	if s == nil {
		return mpirt.ErrTMemory
	}
	mpit.sessions[s] = true
	*(*unsafe.Pointer)(session) = s
	return 0
}

func MPI_T_pvar_session_free(session unsafe.Pointer) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if session == nil {
		return mpirt.ErrArg
	}
	s := *(*unsafe.Pointer)(session)
	if !mpit.sessions[s] {
		return mpirt.ErrTInvalidSession
	}
	delete(mpit.sessions, s)
	C.free(s)
	*(*unsafe.Pointer)(session) = nil // MPI_T_PVAR_SESSION_NULL
	return 0
}

// pvarOp checks a session and a handle: no handle exists, so only
// MPI_T_PVAR_ALL_HANDLES (where allowed) names something: all of none.
func pvarOp(session, handle unsafe.Pointer, allOK bool) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if !mpit.sessions[session] {
		return mpirt.ErrTInvalidSession
	}
	if allOK && handle == C.gmpi_pvar_all_handles() {
		return 0
	}
	return mpirt.ErrTInvalidHandle
}

func MPI_T_pvar_handle_alloc(session unsafe.Pointer, index int32, objHandle, handle unsafe.Pointer, count *int32) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if !mpit.sessions[session] {
		return mpirt.ErrTInvalidSession
	}
	return mpirt.ErrTInvalidIndex
}

func MPI_T_pvar_handle_free(session, handle unsafe.Pointer) int32 {
	if rc := tEnter(); rc != 0 {
		return rc
	}
	defer mpit.mu.Unlock()
	if !mpit.sessions[session] {
		return mpirt.ErrTInvalidSession
	}
	return mpirt.ErrTInvalidHandle
}

func MPI_T_pvar_start(session, handle unsafe.Pointer) int32 { return pvarOp(session, handle, true) }
func MPI_T_pvar_stop(session, handle unsafe.Pointer) int32  { return pvarOp(session, handle, true) }
func MPI_T_pvar_reset(session, handle unsafe.Pointer) int32 { return pvarOp(session, handle, true) }

func MPI_T_pvar_read(session, handle, buf unsafe.Pointer) int32 {
	return pvarOp(session, handle, false)
}

func MPI_T_pvar_readreset(session, handle, buf unsafe.Pointer) int32 {
	return pvarOp(session, handle, false)
}

func MPI_T_pvar_write(session, handle, buf unsafe.Pointer) int32 {
	return pvarOp(session, handle, false)
}

// --- events and their sources: none -----------------------------------------

func MPI_T_event_get_num(num *int32) int32  { return tCount(num) }
func MPI_T_source_get_num(num *int32) int32 { return tCount(num) }

func MPI_T_event_get_index(name *byte, index *int32) int32 {
	return tNone(mpirt.ErrTInvalidName)
}

func MPI_T_event_get_info(index int32, name *byte, nameLen, verbosity, datatypes *int32, displacements *int64,
	numElements *int32, enumtype unsafe.Pointer, info *int32, desc *byte, descLen, bind *int32) int32 {
	return tNone(mpirt.ErrTInvalidIndex)
}

func MPI_T_source_get_info(index int32, name *byte, nameLen *int32, desc *byte, descLen *int32, ordering *int32,
	ticks, maxTicks *int64, info *int32) int32 {
	return tNone(mpirt.ErrTInvalidIndex)
}

func MPI_T_source_get_timestamp(index int32, timestamp *int64) int32 {
	return tNone(mpirt.ErrTInvalidIndex)
}

func MPI_T_event_handle_alloc(index int32, objHandle unsafe.Pointer, info int32, registration unsafe.Pointer) int32 {
	return tNone(mpirt.ErrTInvalidIndex)
}

// No registration or instance exists: every one passed is invalid.
func MPI_T_event_handle_free(registration, userData, freeCb unsafe.Pointer) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_handle_get_info(registration unsafe.Pointer, info *int32) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_handle_set_info(registration unsafe.Pointer, info int32) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_callback_get_info(registration unsafe.Pointer, safety int32, info *int32) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_callback_set_info(registration unsafe.Pointer, safety, info int32) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_register_callback(registration unsafe.Pointer, safety, info int32, userData, cb unsafe.Pointer) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_set_dropped_handler(registration, cb unsafe.Pointer) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_copy(instance, buffer unsafe.Pointer) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_read(instance unsafe.Pointer, element int32, buffer unsafe.Pointer) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_get_source(instance unsafe.Pointer, source *int32) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}

func MPI_T_event_get_timestamp(instance unsafe.Pointer, timestamp *int64) int32 {
	return tNone(mpirt.ErrTInvalidHandle)
}
