package mpirt

import (
	"sync"
	"sync/atomic"
)

// Keyval is an attribute key (MPI_Comm_create_keyval and its datatype and
// window twins). Its callbacks are supplied by capi, which wraps the C
// copy and delete functions; the runtime only decides when they run.
type Keyval struct {
	// Kind is the object type the key may be used on (ObjComm, ObjDatatype,
	// ObjWin).
	Kind ObjectType
	// Copy runs when an object carrying the attribute is duplicated: it
	// gets the old object's handle and the value and returns the new
	// object's value and whether to copy it at all. nil means
	// MPI_NULL_COPY_FN (never copied).
	Copy func(obj Handle, val uintptr) (uintptr, bool, error)
	// Delete runs when the attribute is deleted, replaced, or its object
	// freed. nil means MPI_NULL_DELETE_FN.
	Delete func(obj Handle, val uintptr) error

	handle Handle
	table  *HandleTable[*Keyval]
	// refs counts the user's handle (until freed) and every attribute set
	// with the key; the handle stays valid until it drops to zero.
	refs  atomic.Int32
	freed atomic.Bool
}

// Handle is the key's MPI handle (the value the user was given; still
// passed to callbacks after the key was freed).
func (k *Keyval) Handle() Handle { return k.handle }

func (k *Keyval) hold() { k.refs.Add(1) }

// release drops one reference; the last one retires the handle.
func (k *Keyval) release() {
	if k.refs.Add(-1) == 0 && k.table != nil {
		k.table.Remove(k.handle)
	}
}

// NewKeyval registers k and returns its handle.
func (w *World) NewKeyval(k *Keyval) Handle {
	k.table = &w.keyvals
	k.refs.Store(1)
	k.handle = w.keyvals.Add(k)
	return k.handle
}

// Keyval resolves a user key handle, nil when it is not live.
func (w *World) Keyval(h Handle) *Keyval {
	k, ok := w.keyvals.Get(h)
	if !ok {
		return nil
	}
	return k
}

// FreeKeyval is MPI_*_free_keyval: the user gives up the key. Attributes
// already set with it stay until deleted, their callbacks still run, and
// until the last of them is gone the handle stays valid (as in MPICH:
// usable on those objects, and freeing it again does nothing).
func (w *World) FreeKeyval(h Handle) bool {
	k, ok := w.keyvals.Get(h)
	if !ok {
		return false
	}
	if k.freed.CompareAndSwap(false, true) {
		k.release()
	}
	return true
}

// KeyvalCount is the number of live keys (leak checks).
func (w *World) KeyvalCount() int { return w.keyvals.Len() }

// Attrs is the attribute cache of one object (communicator, datatype,
// window), in insertion order. The zero value is empty and ready.
//
// Callbacks run without the lock held, so they may call MPI on the same
// object.
type Attrs struct {
	mu   sync.Mutex
	list []attrEntry
}

type attrEntry struct {
	kv  *Keyval
	val uintptr
}

func (a *Attrs) findLocked(k *Keyval) int {
	for i, e := range a.list {
		if e.kv == k {
			return i
		}
	}
	return -1
}

// Get returns the value of k on the object.
func (a *Attrs) Get(k *Keyval) (uintptr, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i := a.findLocked(k); i >= 0 {
		return a.list[i].val, true
	}
	return 0, false
}

// Set stores val under k. An existing value is first passed to k's delete
// callback; when that fails the old value stays and the error is returned.
func (a *Attrs) Set(obj Handle, k *Keyval, val uintptr) error {
	a.mu.Lock()
	i := a.findLocked(k)
	if i < 0 {
		k.hold()
		a.list = append(a.list, attrEntry{k, val})
		a.mu.Unlock()
		return nil
	}
	old := a.list[i].val
	a.mu.Unlock()
	if k.Delete != nil {
		if err := k.Delete(obj, old); err != nil {
			return err
		}
	}
	a.mu.Lock()
	if i := a.findLocked(k); i >= 0 {
		a.list[i].val = val
	} else {
		k.hold()
		a.list = append(a.list, attrEntry{k, val})
	}
	a.mu.Unlock()
	return nil
}

// Delete removes k's value after its delete callback succeeded. Deleting
// an attribute that is not set does nothing. A failing callback leaves the
// attribute in place.
func (a *Attrs) Delete(obj Handle, k *Keyval) error {
	a.mu.Lock()
	i := a.findLocked(k)
	if i < 0 {
		a.mu.Unlock()
		return nil
	}
	val := a.list[i].val
	a.mu.Unlock()
	if k.Delete != nil {
		if err := k.Delete(obj, val); err != nil {
			return err
		}
	}
	a.mu.Lock()
	i = a.findLocked(k)
	if i >= 0 {
		a.list = append(a.list[:i], a.list[i+1:]...)
	}
	a.mu.Unlock()
	if i >= 0 {
		k.release()
	}
	return nil
}

// CopyTo runs the copy callbacks of every attribute for a duplicate of
// obj and stores the values they keep in dst. On a callback error the
// values copied so far stay in dst (the caller frees dst's object, which
// deletes them) and the error is returned.
func (a *Attrs) CopyTo(obj Handle, dst *Attrs) error {
	a.mu.Lock()
	list := append([]attrEntry(nil), a.list...)
	a.mu.Unlock()
	for _, e := range list {
		if e.kv.Copy == nil {
			continue
		}
		nv, keep, err := e.kv.Copy(obj, e.val)
		if err != nil {
			return err
		}
		if keep {
			e.kv.hold()
			dst.mu.Lock()
			dst.list = append(dst.list, attrEntry{e.kv, nv})
			dst.mu.Unlock()
		}
	}
	return nil
}

// DeleteAll deletes every attribute, newest first, as when the object is
// freed. It stops at the first failing callback and returns its error;
// the attributes not yet deleted stay.
func (a *Attrs) DeleteAll(obj Handle) error {
	for {
		a.mu.Lock()
		n := len(a.list)
		if n == 0 {
			a.mu.Unlock()
			return nil
		}
		e := a.list[n-1]
		a.mu.Unlock()
		if err := a.Delete(obj, e.kv); err != nil {
			return err
		}
	}
}

// Len is the number of attributes set.
func (a *Attrs) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.list)
}
