package mpirt

import "unsafe"

// Neighborhood collectives (MPI 4.0 §7.6): who a process exchanges with,
// and the table entries the coll framework fills.

// Neighborhood is the communication pattern of a neighborhood collective
// on a process: its sources (in-neighbors, the order of the receive
// blocks) and destinations (out-neighbors, the order of the send blocks).
// MPI_PROC_NULL entries (off the edge of a non-periodic Cartesian
// dimension) keep their block but move no data.
//
// Tags disambiguate the two messages a pair of processes exchanges in a
// periodic Cartesian dimension of size 1 or 2, where the negative and the
// positive neighbor are the same process: the message sent to
// destination j carries SendTag[j], the receive from source i expects
// RecvTag[i], and a message always carries the receiver's block index.
// On graphs both are nil (every tag 0): multiple edges between the same
// pair pair up in order, by MPI's non-overtaking rule.
type Neighborhood struct {
	Sources, Dests   []int
	RecvTag, SendTag []int
}

// Neighborhood returns c's neighborhood; MPI_ERR_TOPOLOGY when c has no
// process topology.
func (c *Comm) Neighborhood() (*Neighborhood, error) {
	t := c.topo
	if t == nil {
		return nil, Errorf(ErrTopology, "", "invalid topology: communicator has no process topology (neighborhood collectives need a Cartesian, graph or distributed graph topology)")
	}
	switch t.Kind {
	case TopoCart:
		nd := len(t.Dims)
		n := &Neighborhood{Sources: make([]int, 2*nd), RecvTag: make([]int, 2*nd), SendTag: make([]int, 2*nd)}
		for d := range nd {
			lo, hi, err := c.CartShift(d, 1)
			if err != nil {
				return nil, err
			}
			n.Sources[2*d], n.Sources[2*d+1] = lo, hi
			n.RecvTag[2*d], n.RecvTag[2*d+1] = 2*d, 2*d+1
			// What goes to the lower neighbor arrives there from its
			// upper one, and the other way round.
			n.SendTag[2*d], n.SendTag[2*d+1] = 2*d+1, 2*d
		}
		n.Dests = n.Sources
		return n, nil
	case TopoGraph:
		nb, err := c.GraphNeighbors(c.rank)
		if err != nil {
			return nil, err
		}
		return &Neighborhood{Sources: nb, Dests: nb}, nil
	case TopoDistGraph:
		return &Neighborhood{Sources: t.Sources, Dests: t.Dests}, nil
	}
	return nil, Errorf(ErrTopology, "", "invalid topology: unknown topology kind %d", t.Kind)
}

// Tag returns the tag of the message to destination j (send) or from
// source i (recv), offset by base.
func (n *Neighborhood) Tag(base int, tags []int, i int) int {
	if tags == nil {
		return base
	}
	return base + tags[i]
}

// NeighborBlock is one block of a neighborhood exchange: count elements
// of Type at Buf.
type NeighborBlock struct {
	Buf   unsafe.Pointer
	Count int
	Type  *Datatype
}

// NeighborColl holds the neighborhood collectives of a communicator's
// collective table. Each starts the exchange and returns a request that
// completes when every block moved; the blocking calls wait on it.
// Counts and displacements are per neighbor, displacements in elements of
// the block's type except for Alltoallw (bytes). Arguments are checked by
// the caller; the communicator has a topology.
type NeighborColl struct {
	Allgather  func(c *Comm, sbuf unsafe.Pointer, scount int, sdt *Datatype, rbuf unsafe.Pointer, rcount int, rdt *Datatype) (*Request, error)
	Allgatherv func(c *Comm, sbuf unsafe.Pointer, scount int, sdt *Datatype, rbuf unsafe.Pointer, rcounts, displs []int, rdt *Datatype) (*Request, error)
	Alltoall   func(c *Comm, sbuf unsafe.Pointer, scount int, sdt *Datatype, rbuf unsafe.Pointer, rcount int, rdt *Datatype) (*Request, error)
	Alltoallv  func(c *Comm, sbuf unsafe.Pointer, scounts, sdispls []int, sdt *Datatype, rbuf unsafe.Pointer, rcounts, rdispls []int, rdt *Datatype) (*Request, error)
	Alltoallw  func(c *Comm, sbuf unsafe.Pointer, scounts, sdispls []int, sdts []*Datatype, rbuf unsafe.Pointer, rcounts, rdispls []int, rdts []*Datatype) (*Request, error)
}
