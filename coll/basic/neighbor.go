package basic

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Neighborhood collectives (MPI_Neighbor_* and MPI_Ineighbor_*). Every
// process posts one receive per source and one send per destination at
// once; the compound request completes when all have. One round, each
// block travels once, p2p cost max(indegree, outdegree) messages of the
// block size; data is staged only for non-contiguous datatypes (packed
// once per distinct send block).
//
// Tags: tagNeighbor plus, on Cartesian topologies, the receiver's block
// index (mpirt.Neighborhood), so the two messages of a periodic dimension
// of size 1 or 2 between the same pair go to the right blocks.

// tagNeighbor is above every tag the other collectives use.
const tagNeighbor = 1 << 20

// neighborExchange runs one neighborhood exchange: sendData(j) is what
// goes to destination j, recvBlock(i) where source i's block lands.
func neighborExchange(c *mpirt.Comm, sendData func(j int) []byte, recvBlock func(i int) mpirt.NeighborBlock) (*mpirt.Request, error) {
	nb, err := c.Neighborhood()
	if err != nil {
		return nil, err
	}
	x := c.NewCompound()
	for i, src := range nb.Sources {
		if src == mpirt.ProcNull {
			continue
		}
		b := recvBlock(i)
		x.Recv(b.Buf, b.Count, b.Type, src, nb.Tag(tagNeighbor, nb.RecvTag, i))
	}
	for j, dst := range nb.Dests {
		if dst == mpirt.ProcNull {
			continue
		}
		if err := x.SendBytes(sendData(j), dst, nb.Tag(tagNeighbor, nb.SendTag, j)); err != nil {
			return nil, err
		}
	}
	return x.Start(), nil
}

// sameBlock gives every destination the same block, packed once on first
// use (allgather and allgatherv).
func sameBlock(sbuf unsafe.Pointer, scount int, sdt *mpirt.Datatype) func(int) []byte {
	var data []byte
	packed := false
	return func(int) []byte {
		if !packed {
			data, packed = mpirt.SendData(sbuf, scount, sdt), true
		}
		return data
	}
}

// NeighborAllgather sends the same block to every destination and
// stores source i's block at block i of rbuf.
func NeighborAllgather(c *mpirt.Comm, sbuf unsafe.Pointer, scount int, sdt *mpirt.Datatype, rbuf unsafe.Pointer, rcount int, rdt *mpirt.Datatype) (*mpirt.Request, error) {
	return neighborExchange(c, sameBlock(sbuf, scount, sdt),
		func(i int) mpirt.NeighborBlock {
			return mpirt.NeighborBlock{Buf: BlockAt(rbuf, i*rcount, rdt), Count: rcount, Type: rdt}
		})
}

// NeighborAllgatherv is NeighborAllgather with per-source counts and
// displacements (in elements of rdt).
func NeighborAllgatherv(c *mpirt.Comm, sbuf unsafe.Pointer, scount int, sdt *mpirt.Datatype, rbuf unsafe.Pointer, rcounts, displs []int, rdt *mpirt.Datatype) (*mpirt.Request, error) {
	return neighborExchange(c, sameBlock(sbuf, scount, sdt),
		func(i int) mpirt.NeighborBlock {
			return mpirt.NeighborBlock{Buf: Block(rbuf, displs[i], rcounts[i], rdt), Count: rcounts[i], Type: rdt}
		})
}

// NeighborAlltoall sends block j of sbuf to destination j and stores
// source i's block at block i of rbuf.
func NeighborAlltoall(c *mpirt.Comm, sbuf unsafe.Pointer, scount int, sdt *mpirt.Datatype, rbuf unsafe.Pointer, rcount int, rdt *mpirt.Datatype) (*mpirt.Request, error) {
	return neighborExchange(c,
		func(j int) []byte { return mpirt.SendData(BlockAt(sbuf, j*scount, sdt), scount, sdt) },
		func(i int) mpirt.NeighborBlock {
			return mpirt.NeighborBlock{Buf: BlockAt(rbuf, i*rcount, rdt), Count: rcount, Type: rdt}
		})
}

// NeighborAlltoallv is NeighborAlltoall with per-neighbor counts and
// displacements (in elements).
func NeighborAlltoallv(c *mpirt.Comm, sbuf unsafe.Pointer, scounts, sdispls []int, sdt *mpirt.Datatype, rbuf unsafe.Pointer, rcounts, rdispls []int, rdt *mpirt.Datatype) (*mpirt.Request, error) {
	return neighborExchange(c,
		func(j int) []byte { return mpirt.SendData(Block(sbuf, sdispls[j], scounts[j], sdt), scounts[j], sdt) },
		func(i int) mpirt.NeighborBlock {
			return mpirt.NeighborBlock{Buf: Block(rbuf, rdispls[i], rcounts[i], rdt), Count: rcounts[i], Type: rdt}
		})
}

// NeighborAlltoallw is NeighborAlltoallv with a datatype per neighbor
// and displacements in bytes.
func NeighborAlltoallw(c *mpirt.Comm, sbuf unsafe.Pointer, scounts, sdispls []int, sdts []*mpirt.Datatype, rbuf unsafe.Pointer, rcounts, rdispls []int, rdts []*mpirt.Datatype) (*mpirt.Request, error) {
	return neighborExchange(c,
		func(j int) []byte {
			return mpirt.SendData(ByteBlock(sbuf, sdispls[j], scounts[j]), scounts[j], sdts[j])
		},
		func(i int) mpirt.NeighborBlock {
			return mpirt.NeighborBlock{Buf: ByteBlock(rbuf, rdispls[i], rcounts[i]), Count: rcounts[i], Type: rdts[i]}
		})
}
