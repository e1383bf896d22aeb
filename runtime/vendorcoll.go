package mpirt

import (
	"errors"
	"runtime"
	"unsafe"
)

// The vendor-collective handoff (vMPI): a device that carries the traffic
// of a vendor MPI job can run a collective of a group of that job's
// processes as the vendor's own collective, over a vendor communicator
// of exactly those processes. A collective component (coll/hier) finds it
// with World.VendorColls and hands it the vMPI level's part of a call.

// VendorColls is a device able to run collectives through a vendor MPI.
type VendorColls interface {
	// VendorGroup makes the vendor's communicator over worldRanks (this
	// process among them; their order gives the ranks). Every member
	// calls it with the same ranks; it is collective over them only.
	VendorGroup(worldRanks []int) (VendorGroup, error)
}

// VendorGroup is a vendor communicator. Its calls start a nonblocking
// vendor collective; World.WaitVendor completes it. Ranks are indices in
// the group.
type VendorGroup interface {
	Ibarrier() (VendorRequest, error)
	// Ibcast broadcasts the bytes of buf from root.
	Ibcast(buf []byte, root int) (VendorRequest, error)
	// Ireduce reduces count elements of the predefined dt with the
	// predefined op into rbuf on root (root < 0: on every member). It
	// returns ErrVendorUnknown, having started nothing, when the vendor
	// has no counterpart of dt or op.
	Ireduce(sbuf, rbuf unsafe.Pointer, count int, dt *Datatype, op Handle, root int) (VendorRequest, error)
	// Known reports whether Ireduce takes dt and op.
	Known(dt *Datatype, op Handle) bool
	Free() error
}

// VendorRequest is a vendor collective in flight.
type VendorRequest interface {
	Test() (bool, error)
}

// ErrVendorUnknown: the vendor has no counterpart of a datatype or
// operation.
var ErrVendorUnknown = errors.New("the vendor MPI has no counterpart of the datatype or operation")

// VendorColls returns the world's device that runs vendor collectives,
// nil without one.
func (w *World) VendorColls() VendorColls {
	for _, d := range w.devices {
		if v, ok := d.(VendorColls); ok {
			return v
		}
	}
	return nil
}

// WaitVendor completes r while progressing everything else (a peer may
// need this process's help, e.g. a rendezvous, before it joins the
// collective).
func (w *World) WaitVendor(r VendorRequest) error {
	for {
		done, err := r.Test()
		if err != nil || done {
			return err
		}
		if w.progress() == 0 {
			runtime.Gosched()
		}
	}
}
