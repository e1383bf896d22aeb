package mpirt

import "sync"

// Attribute caching on datatypes (MPI_Type_set_attr and friends) uses the
// communicators' machinery (attr.go): copy callbacks run at MPI_Type_dup,
// delete callbacks at MPI_Type_free, MPI_Type_delete_attr and when a value
// is replaced.

// predefTypeAttrs holds the attribute caches of predefined datatypes,
// which are shared by every World of the process, per World:
// typeAttrKey -> *Attrs.
var predefTypeAttrs sync.Map

type typeAttrKey struct {
	w *World
	h Handle
}

// TypeAttrs returns the attribute cache of d.
func (w *World) TypeAttrs(d *Datatype) *Attrs {
	if !d.predefined {
		return &d.attrs
	}
	k := typeAttrKey{w, d.Handle}
	if a, ok := predefTypeAttrs.Load(k); ok {
		return a.(*Attrs)
	}
	a, _ := predefTypeAttrs.LoadOrStore(k, new(Attrs))
	return a.(*Attrs)
}

// DupDatatype is MPI_Type_dup with attributes: the duplicate gets a handle
// and the attributes old's copy callbacks keep. When a callback fails the
// duplicate is released again (its copied attributes deleted) and the
// error returned.
func (w *World) DupDatatype(old *Datatype) (*Datatype, error) {
	d, err := TypeDup(old)
	if err != nil {
		return nil, err
	}
	h := w.AddDatatype(d)
	if err := w.TypeAttrs(old).CopyTo(old.Handle, &d.attrs); err != nil {
		d.attrs.DeleteAll(h)
		w.types.Remove(h)
		return nil, err
	}
	return d, nil
}

// ReleaseDatatype is MPI_Type_free with attributes: the delete callbacks
// run first (newest first); a failing one stops the free and its error is
// returned.
func (w *World) ReleaseDatatype(h Handle) error {
	if d, ok := w.types.Get(h); ok {
		if err := d.attrs.DeleteAll(h); err != nil {
			return err
		}
	}
	return w.FreeDatatype(h)
}
