package main

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	mpirt "gmpi/runtime"
)

// Predefined communicator keyvals (include/mpi.h).
const (
	keyTagUB        = 0x64400001
	keyHost         = 0x64400003
	keyIO           = 0x64400005
	keyWtimeGlobal  = 0x64400007
	keyUniverseSize = 0x64400009
	keyLastUsedCode = 0x6440000b
	keyAppNum       = 0x6440000d
	keyTopoDepths   = 0x64400101 // MPICHX_TOPOLOGY_DEPTHS
	keyTopoColors   = 0x64400103 // MPICHX_TOPOLOGY_COLORS
)

// predefinedCells holds the values of the predefined attributes in C
// memory: MPI_Comm_get_attr returns pointers into it, which stay valid for
// the life of the process.
var (
	predefOnce  sync.Once
	predefCells *[8]int32
)

const (
	cellTagUB = iota
	cellHost
	cellIO
	cellWtimeGlobal
	cellUniverse
	cellLastUsed
	cellAppNum
)

func predefined() *[8]int32 {
	predefOnce.Do(func() {
		p := (*[8]int32)(cMalloc(8 * 4))
		cfg := world.Config()
		p[cellTagUB] = tagUB
		p[cellHost] = mpirt.ProcNull
		p[cellIO] = mpirt.AnySource
		p[cellWtimeGlobal] = 0
		p[cellUniverse] = int32(cfg.Universe)
		p[cellAppNum] = int32(cfg.AppNum)
		p[cellLastUsed] = int32(mpirt.LastUsedCode())
		predefCells = p
	})
	return predefCells
}

// updateLastUsedCode refreshes the MPI_LASTUSEDCODE cell.
func updateLastUsedCode() {
	predefined()[cellLastUsed] = int32(mpirt.LastUsedCode())
}

// predefinedAttr returns the value (a C pointer) of a predefined
// attribute on c; ok is false when the key is not predefined, set is false
// when the attribute has no value.
func predefinedAttr(c *mpirt.Comm, key int32) (val uintptr, set, ok bool) {
	cells := predefined()
	cell := func(i int) uintptr { return uintptr(unsafe.Pointer(&cells[i])) }
	switch key {
	case keyTagUB:
		return cell(cellTagUB), true, true
	case keyHost:
		return cell(cellHost), true, true
	case keyIO:
		return cell(cellIO), true, true
	case keyWtimeGlobal:
		return cell(cellWtimeGlobal), true, true
	case keyUniverseSize:
		return cell(cellUniverse), cells[cellUniverse] > 0, true
	case keyAppNum:
		return cell(cellAppNum), cells[cellAppNum] >= 0, true
	case keyLastUsedCode:
		return cell(cellLastUsed), true, true
	case keyTopoDepths:
		return topoDepths(c), true, true
	case keyTopoColors:
		return topoColors(c), true, true
	}
	return 0, false, false
}

// topoDepths is MPICHX_TOPOLOGY_DEPTHS of c: int[size] indexed by rank in
// c (an intercommunicator's local group), each the number of topology
// levels of that process (runtime.GridTopology). Built on first use and
// freed with c.
func topoDepths(c *mpirt.Comm) uintptr {
	return c.Cached("mpichx_depths", func() (uintptr, func()) {
		t := world.GridTopology()
		n := c.Size()
		p := cMalloc(4 * max(n, 1))
		d := unsafe.Slice((*int32)(p), n)
		for r := range d {
			d[r] = int32(len(topoRow(t, c.WorldRank(r))))
		}
		return uintptr(p), func() { cFree(p) }
	})
}

// topoColors is MPICHX_TOPOLOGY_COLORS of c: int*[size] indexed by rank in
// c, colors[r] pointing at depths[r] ints, the process's color at each
// level (runtime.GridTopology). One allocation holds the row pointers and
// the rows; it is freed with c.
func topoColors(c *mpirt.Comm) uintptr {
	return c.Cached("mpichx_colors", func() (uintptr, func()) {
		t := world.GridTopology()
		n := c.Size()
		cells := 0
		for r := 0; r < n; r++ {
			cells += len(topoRow(t, c.WorldRank(r)))
		}
		ps := int(unsafe.Sizeof(uintptr(0)))
		p := cMalloc(ps*max(n, 1) + 4*max(cells, 1))
		rows := unsafe.Slice((*uintptr)(p), n)
		vals := unsafe.Slice((*int32)(unsafe.Add(p, ps*max(n, 1))), cells)
		at := 0
		for r := 0; r < n; r++ {
			row := topoRow(t, c.WorldRank(r))
			rows[r] = uintptr(unsafe.Pointer(&vals[at]))
			for l, col := range row {
				vals[at+l] = int32(col)
			}
			at += len(row)
		}
		return uintptr(p), func() { cFree(p) }
	})
}

// topoRow is the colors of world rank wr: a process of another job
// (connect, join) shares only the wide area with this one.
func topoRow(t *mpirt.GridTopology, wr int) []int {
	if wr >= len(t.Colors) {
		return []int{0}
	}
	return t.Colors[wr]
}

// newKeyval wraps C callbacks into a runtime key of kind.
func newKeyval(kind mpirt.ObjectType, copyFn, deleteFn, extra unsafe.Pointer) *mpirt.Keyval {
	k := &mpirt.Keyval{Kind: kind}
	cf, df, ex := uintptr(copyFn), uintptr(deleteFn), uintptr(extra)
	if cf != 0 {
		k.Copy = func(obj mpirt.Handle, val uintptr) (uintptr, bool, error) {
			out, keep, rc := callCopy(cf, obj, k.Handle(), ex, val)
			if rc != 0 {
				return 0, false, callbackError("copy", k, rc)
			}
			return out, keep, nil
		}
	}
	if df != 0 {
		k.Delete = func(obj mpirt.Handle, val uintptr) error {
			if rc := callDelete(df, obj, k.Handle(), val, ex); rc != 0 {
				return callbackError("delete", k, rc)
			}
			return nil
		}
	}
	return k
}

// callbackError turns the code a user callback returned into an error
// (mpirt.CallbackError: a user-added class or code passes through, a
// predefined class keeps its class).
func callbackError(which string, k *mpirt.Keyval, rc int) error {
	return mpirt.CallbackError(fmt.Sprintf("the attribute %s callback of keyval 0x%08x", which, uint32(k.Handle())), rc)
}

func createKeyval(fn string, kind mpirt.ObjectType, copyFn, deleteFn unsafe.Pointer, keyval *int32, extra unsafe.Pointer) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if keyval == nil {
		return badPointer(fn, keyvalName(fn, kind))
	}
	*keyval = int32(world.NewKeyval(newKeyval(kind, copyFn, deleteFn, extra)))
	return 0
}

func MPI_Comm_create_keyval(copyFn, deleteFn unsafe.Pointer, keyval *int32, extra unsafe.Pointer) int32 {
	return createKeyval("MPI_Comm_create_keyval", mpirt.ObjComm, copyFn, deleteFn, keyval, extra)
}

func MPI_Keyval_create(copyFn, deleteFn unsafe.Pointer, keyval *int32, extra unsafe.Pointer) int32 {
	return createKeyval("MPI_Keyval_create", mpirt.ObjComm, copyFn, deleteFn, keyval, extra)
}

// keyvalName is the name of fn's keyval argument: keyval in the MPI-1
// calls (MPI_Keyval_*, MPI_Attr_*), comm_keyval, type_keyval or
// win_keyval in the others.
func keyvalName(fn string, kind mpirt.ObjectType) string {
	if strings.HasPrefix(fn, "MPI_Keyval_") || strings.HasPrefix(fn, "MPI_Attr_") {
		return "keyval"
	}
	switch kind {
	case mpirt.ObjDatatype:
		return "type_keyval"
	case mpirt.ObjWin:
		return "win_keyval"
	}
	return "comm_keyval"
}

// keyvalArg resolves a user key of kind.
func keyvalArg(fn string, c errTo, h int32, kind mpirt.ObjectType) (*mpirt.Keyval, int32) {
	k := world.Keyval(mpirt.Handle(h))
	arg := keyvalName(fn, kind)
	switch {
	case k != nil && k.Kind == kind:
		return k, 0
	case k != nil:
		return nil, c.failf(fn, mpirt.ErrKeyval, "invalid keyval argument %s: 0x%08x is a %s keyval", arg, uint32(h), k.Kind)
	case mpirt.Handle(h) == mpirt.HandleKeyvalInvalid:
		return nil, c.failf(fn, mpirt.ErrKeyval, "invalid keyval argument %s: MPI_KEYVAL_INVALID", arg)
	case mpirt.Handle(h).Kind() == mpirt.KindBuiltin && mpirt.Handle(h).Type() == mpirt.ObjKeyval:
		return nil, c.failf(fn, mpirt.ErrKeyval, "invalid keyval argument %s: 0x%08x is a predefined keyval, which cannot be changed", arg, uint32(h))
	}
	return nil, c.failf(fn, mpirt.ErrKeyval, "invalid keyval argument %s: 0x%08x is not a keyval", arg, uint32(h))
}

func freeKeyval(fn string, keyval *int32, kind mpirt.ObjectType) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if keyval == nil {
		return badPointer(fn, keyvalName(fn, kind))
	}
	if _, rc := keyvalArg(fn, errTo{}, *keyval, kind); rc != 0 {
		return rc
	}
	world.FreeKeyval(mpirt.Handle(*keyval))
	*keyval = int32(mpirt.HandleKeyvalInvalid)
	return 0
}

func MPI_Comm_free_keyval(keyval *int32) int32 {
	return freeKeyval("MPI_Comm_free_keyval", keyval, mpirt.ObjComm)
}

func MPI_Keyval_free(keyval *int32) int32 {
	return freeKeyval("MPI_Keyval_free", keyval, mpirt.ObjComm)
}

func MPI_Type_create_keyval(copyFn, deleteFn unsafe.Pointer, keyval *int32, extra unsafe.Pointer) int32 {
	return createKeyval("MPI_Type_create_keyval", mpirt.ObjDatatype, copyFn, deleteFn, keyval, extra)
}

func MPI_Type_free_keyval(keyval *int32) int32 {
	return freeKeyval("MPI_Type_free_keyval", keyval, mpirt.ObjDatatype)
}

func MPI_Win_create_keyval(copyFn, deleteFn unsafe.Pointer, keyval *int32, extra unsafe.Pointer) int32 {
	return createKeyval("MPI_Win_create_keyval", mpirt.ObjWin, copyFn, deleteFn, keyval, extra)
}

func MPI_Win_free_keyval(keyval *int32) int32 {
	return freeKeyval("MPI_Win_free_keyval", keyval, mpirt.ObjWin)
}

// errTo is the object whose error handler reports an attribute call's
// errors: a communicator, a window, or neither (MPI_COMM_WORLD's).
type errTo struct {
	c   *mpirt.Comm
	win *mpirt.Win
}

func (e errTo) fail(fn string, err error) int32 {
	if e.win != nil {
		return winFail(fn, e.win, err)
	}
	return fail(fn, e.c, err)
}

func (e errTo) failf(fn string, class int, format string, args ...any) int32 {
	return e.fail(fn, mpirt.Errorf(class, fn, format, args...))
}

// attrTarget resolves the object of an attribute call: a communicator, a
// datatype (committed or not, predefined ones included) or a window. It
// returns the object's attribute cache and handle, and where errors go.
func attrTarget(fn string, kind mpirt.ObjectType, h int32) (a *mpirt.Attrs, obj mpirt.Handle, e errTo, rc int32) {
	switch kind {
	case mpirt.ObjComm:
		c, rc := commOrPending(fn, h)
		if rc != 0 {
			return nil, 0, e, rc
		}
		return &c.Attrs, c.Handle(), errTo{c: c}, 0
	case mpirt.ObjDatatype:
		d, rc := oldType(fn, h, "datatype")
		if rc != 0 {
			return nil, 0, e, rc
		}
		return world.TypeAttrs(d), d.Handle, e, 0
	}
	win, rc := winArg(fn, h)
	if rc != 0 {
		return nil, 0, e, rc
	}
	return &win.Attrs, win.Handle(), errTo{win: win}, 0
}

func setAttr(fn string, kind mpirt.ObjectType, objH, keyval int32, val unsafe.Pointer) int32 {
	a, obj, c, rc := attrTarget(fn, kind, objH)
	if rc != 0 {
		return rc
	}
	k, rc := keyvalArg(fn, c, keyval, kind)
	if rc != 0 {
		return rc
	}
	return c.fail(fn, a.Set(obj, k, uintptr(val)))
}

func MPI_Comm_set_attr(commH, keyval int32, val unsafe.Pointer) int32 {
	return setAttr("MPI_Comm_set_attr", mpirt.ObjComm, commH, keyval, val)
}

func MPI_Attr_put(commH, keyval int32, val unsafe.Pointer) int32 {
	return setAttr("MPI_Attr_put", mpirt.ObjComm, commH, keyval, val)
}

func MPI_Type_set_attr(dtH, keyval int32, val unsafe.Pointer) int32 {
	return setAttr("MPI_Type_set_attr", mpirt.ObjDatatype, dtH, keyval, val)
}

func MPI_Win_set_attr(winH, keyval int32, val unsafe.Pointer) int32 {
	return setAttr("MPI_Win_set_attr", mpirt.ObjWin, winH, keyval, val)
}

func getAttr(fn string, kind mpirt.ObjectType, objH, keyval int32, val unsafe.Pointer, flag *int32) int32 {
	a, _, c, rc := attrTarget(fn, kind, objH)
	if rc != 0 {
		return rc
	}
	if val == nil {
		return c.failf(fn, mpirt.ErrArg, "invalid argument attribute_val: NULL pointer")
	}
	if flag == nil {
		return c.failf(fn, mpirt.ErrArg, "invalid argument flag: NULL pointer")
	}
	out := (*uintptr)(val)
	if kind == mpirt.ObjWin {
		if v, ok := winAttr(world.Win(mpirt.Handle(objH)), keyval); ok {
			*flag = 1
			*out = v
			return 0
		}
	}
	if kind == mpirt.ObjComm {
		if (keyval == keyTopoDepths || keyval == keyTopoColors) && c.c.Pending() {
			return c.failf(fn, mpirt.ErrComm, "invalid communicator argument comm: 0x%08x is the new communicator of an MPI_Comm_idup that has not completed (its topology attributes exist once the request completes)", uint32(objH))
		}
		if v, set, ok := predefinedAttr(c.c, keyval); ok {
			*flag = b2i(set)
			if set {
				*out = v
			}
			return 0
		}
	}
	k, rc := keyvalArg(fn, c, keyval, kind)
	if rc != 0 {
		return rc
	}
	v, set := a.Get(k)
	*flag = b2i(set)
	if set {
		*out = v
	}
	return 0
}

func MPI_Comm_get_attr(commH, keyval int32, val unsafe.Pointer, flag *int32) int32 {
	return getAttr("MPI_Comm_get_attr", mpirt.ObjComm, commH, keyval, val, flag)
}

func MPI_Attr_get(commH, keyval int32, val unsafe.Pointer, flag *int32) int32 {
	return getAttr("MPI_Attr_get", mpirt.ObjComm, commH, keyval, val, flag)
}

func MPI_Type_get_attr(dtH, keyval int32, val unsafe.Pointer, flag *int32) int32 {
	return getAttr("MPI_Type_get_attr", mpirt.ObjDatatype, dtH, keyval, val, flag)
}

func MPI_Win_get_attr(winH, keyval int32, val unsafe.Pointer, flag *int32) int32 {
	return getAttr("MPI_Win_get_attr", mpirt.ObjWin, winH, keyval, val, flag)
}

func deleteAttr(fn string, kind mpirt.ObjectType, objH, keyval int32) int32 {
	a, obj, c, rc := attrTarget(fn, kind, objH)
	if rc != 0 {
		return rc
	}
	k, rc := keyvalArg(fn, c, keyval, kind)
	if rc != 0 {
		return rc
	}
	return c.fail(fn, a.Delete(obj, k))
}

func MPI_Comm_delete_attr(commH, keyval int32) int32 {
	return deleteAttr("MPI_Comm_delete_attr", mpirt.ObjComm, commH, keyval)
}

func MPI_Attr_delete(commH, keyval int32) int32 {
	return deleteAttr("MPI_Attr_delete", mpirt.ObjComm, commH, keyval)
}

func MPI_Type_delete_attr(dtH, keyval int32) int32 {
	return deleteAttr("MPI_Type_delete_attr", mpirt.ObjDatatype, dtH, keyval)
}

func MPI_Win_delete_attr(winH, keyval int32) int32 {
	return deleteAttr("MPI_Win_delete_attr", mpirt.ObjWin, winH, keyval)
}
