package mpirt_test

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// TestNeighborAlltoallCompound runs Ineighbor_alltoall on periodic rings
// of every size from 1 to 4 (sizes 1 and 2 make a process its own or the
// same neighbor twice) with blocks above the eager limit, so the children
// of the compound request complete asynchronously (rendezvous), and
// checks that every block lands in the right slot.
func TestNeighborAlltoallCompound(t *testing.T) {
	const blk = 3000 // > eager limit below
	byteT, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			job(t, n, 1024, 512, func(t *testing.T, w *mpirt.World) {
				c, err := w.CommWorld().CartCreate([]int{n}, []bool{true}, false)
				if err != nil {
					t.Error(err)
					return
				}
				me := c.Rank()
				send := append(pattern(blk, 10*me), pattern(blk, 10*me+1)...)
				recv := make([]byte, 2*blk)
				for round := 0; round < 3; round++ {
					clear(recv)
					r, err := c.Coll.Neighbor.Alltoall(c, unsafe.Pointer(&send[0]), blk, byteT, unsafe.Pointer(&recv[0]), blk, byteT)
					if err != nil {
						t.Error(err)
						return
					}
					if err := w.Wait(r); err != nil {
						t.Error(err)
						return
					}
					lo, hi := (me-1+n)%n, (me+1)%n
					// The lower neighbor's upper block, the upper
					// neighbor's lower block.
					if !bytes.Equal(recv[:blk], pattern(blk, 10*lo+1)) || !bytes.Equal(recv[blk:], pattern(blk, 10*hi)) {
						t.Errorf("rank %d of %d round %d: blocks in the wrong slots", me, n, round)
					}
				}
			})
		})
	}
}

// TestNeighborNoTopology checks that a communicator without a topology
// reports MPI_ERR_TOPOLOGY.
func TestNeighborNoTopology(t *testing.T) {
	job(t, 2, 1024, 512, func(t *testing.T, w *mpirt.World) {
		if _, err := w.CommWorld().Neighborhood(); mpirt.ErrorClassOf(err) != mpirt.ErrTopology {
			t.Errorf("got %v, want MPI_ERR_TOPOLOGY", err)
		}
	})
}

// TestCompoundEmpty checks that a compound request without children
// completes at Start.
func TestCompoundEmpty(t *testing.T) {
	job(t, 1, 1024, 512, func(t *testing.T, w *mpirt.World) {
		r := w.CommWorld().NewCompound().Start()
		if !r.Done() || r.Err != nil {
			t.Errorf("empty compound: done %v err %v", r.Done(), r.Err)
		}
	})
}
