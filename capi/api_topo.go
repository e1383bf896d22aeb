package main

// extern int *const MPI_UNWEIGHTED;
// extern int *const MPI_WEIGHTS_EMPTY;
import "C"

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Process topologies: Cartesian, graph and distributed graph.

// ints reads n C ints at p.
func ints(p *int32, n int) []int {
	out := make([]int, n)
	if n == 0 {
		return out
	}
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int(v)
	}
	return out
}

// bools reads n C ints at p as logicals.
func bools(p *int32, n int) []bool {
	out := make([]bool, n)
	if n == 0 {
		return out
	}
	for i, v := range unsafe.Slice(p, n) {
		out[i] = v != 0
	}
	return out
}

// putInts writes v to the C array at p.
func putInts(p *int32, v []int) {
	if len(v) == 0 {
		return
	}
	s := unsafe.Slice(p, len(v))
	for i, x := range v {
		s[i] = int32(x)
	}
}

// arrayArg checks that an array argument with n > 0 entries is not NULL.
func arrayArg(fn string, c *mpirt.Comm, p *int32, n int32, arg string) int32 {
	if p == nil && n > 0 {
		return failf(fn, c, mpirt.ErrArg, "invalid argument %s: NULL pointer", arg)
	}
	return 0
}

func isUnweighted(p *int32) bool {
	return unsafe.Pointer(p) == unsafe.Pointer(C.MPI_UNWEIGHTED)
}

func isWeightsEmpty(p *int32) bool {
	return unsafe.Pointer(p) == unsafe.Pointer(C.MPI_WEIGHTS_EMPTY)
}

func MPI_Dims_create(nnodes, ndims int32, dims *int32) int32 {
	const fn = "MPI_Dims_create"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if ndims < 0 {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument ndims: %d is negative", ndims)
	}
	if rc := arrayArg(fn, nil, dims, ndims, "dims"); rc != 0 {
		return rc
	}
	d := ints(dims, int(ndims))
	if err := mpirt.DimsCreate(int(nnodes), d); err != nil {
		return fail(fn, nil, err)
	}
	putInts(dims, d)
	return 0
}

// cartArgs checks (ndims, dims, periods).
func cartArgs(fn string, c *mpirt.Comm, ndims int32, dims, periods *int32) ([]int, []bool, int32) {
	if ndims < 0 {
		return nil, nil, failf(fn, c, mpirt.ErrArg, "invalid argument ndims: %d is negative", ndims)
	}
	if rc := arrayArg(fn, c, dims, ndims, "dims"); rc != 0 {
		return nil, nil, rc
	}
	if rc := arrayArg(fn, c, periods, ndims, "periods"); rc != 0 {
		return nil, nil, rc
	}
	return ints(dims, int(ndims)), bools(periods, int(ndims)), 0
}

func MPI_Cart_create(commH, ndims int32, dims, periods *int32, reorder int32, commCart *int32) int32 {
	const fn = "MPI_Cart_create"
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return rc
	}
	d, p, rc := cartArgs(fn, c, ndims, dims, periods)
	if rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, commCart, "comm_cart"); rc != 0 {
		return rc
	}
	nc, err := c.CartCreate(d, p, reorder != 0)
	if err != nil {
		*commCart = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(commCart, nc)
	return 0
}

func MPI_Cart_map(commH, ndims int32, dims, periods *int32, newrank *int32) int32 {
	const fn = "MPI_Cart_map"
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return rc
	}
	d, p, rc := cartArgs(fn, c, ndims, dims, periods)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, newrank == nil, "newrank"); rc != 0 {
		return rc
	}
	r, err := c.CartMap(d, p)
	if err != nil {
		return fail(fn, c, err)
	}
	*newrank = int32(r)
	return 0
}

// cartComm resolves a communicator that must have a Cartesian topology.
func cartComm(fn string, commH int32) (*mpirt.Comm, *mpirt.Topology, int32) {
	return topoComm(fn, commH, (*mpirt.Comm).CartTopo)
}

// topoComm resolves a communicator and its topology of the kind get
// requires (MPI_ERR_TOPOLOGY otherwise).
func topoComm(fn string, commH int32, get func(*mpirt.Comm) (*mpirt.Topology, error)) (*mpirt.Comm, *mpirt.Topology, int32) {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return nil, nil, rc
	}
	t, err := get(c)
	if err != nil {
		return nil, nil, fail(fn, c, err)
	}
	return c, t, 0
}

func MPI_Cartdim_get(commH int32, ndims *int32) int32 {
	const fn = "MPI_Cartdim_get"
	c, t, rc := cartComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, ndims == nil, "ndims"); rc != 0 {
		return rc
	}
	*ndims = int32(len(t.Dims))
	return 0
}

func MPI_Cart_get(commH, maxdims int32, dims, periods, coords *int32) int32 {
	const fn = "MPI_Cart_get"
	c, t, rc := cartComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if maxdims < 0 {
		return failf(fn, c, mpirt.ErrArg, "invalid argument maxdims: %d is negative", maxdims)
	}
	n := min(int(maxdims), len(t.Dims))
	for _, a := range []struct {
		p   *int32
		arg string
	}{{dims, "dims"}, {periods, "periods"}, {coords, "coords"}} {
		if rc := arrayArg(fn, c, a.p, int32(n), a.arg); rc != 0 {
			return rc
		}
	}
	me, err := c.CartCoords(c.Rank())
	if err != nil {
		return fail(fn, c, err)
	}
	ps := make([]int, n)
	for i := range ps {
		if t.Periods[i] {
			ps[i] = 1
		}
	}
	putInts(dims, t.Dims[:n])
	putInts(periods, ps)
	putInts(coords, me[:n])
	return 0
}

func MPI_Cart_rank(commH int32, coords, rank *int32) int32 {
	const fn = "MPI_Cart_rank"
	c, t, rc := cartComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := arrayArg(fn, c, coords, int32(len(t.Dims)), "coords"); rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, rank == nil, "rank"); rc != 0 {
		return rc
	}
	r, err := c.CartRank(ints(coords, len(t.Dims)))
	if err != nil {
		return fail(fn, c, err)
	}
	*rank = int32(r)
	return 0
}

func MPI_Cart_coords(commH, rank, maxdims int32, coords *int32) int32 {
	const fn = "MPI_Cart_coords"
	c, t, rc := cartComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if maxdims < int32(len(t.Dims)) {
		return failf(fn, c, mpirt.ErrArg, "invalid argument maxdims: %d is less than the %d dimensions", maxdims, len(t.Dims))
	}
	if rc := arrayArg(fn, c, coords, int32(len(t.Dims)), "coords"); rc != 0 {
		return rc
	}
	co, err := c.CartCoords(int(rank))
	if err != nil {
		return fail(fn, c, err)
	}
	putInts(coords, co)
	return 0
}

func MPI_Cart_shift(commH, direction, disp int32, source, dest *int32) int32 {
	const fn = "MPI_Cart_shift"
	c, _, rc := cartComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, source == nil, "rank_source"); rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, dest == nil, "rank_dest"); rc != 0 {
		return rc
	}
	s, d, err := c.CartShift(int(direction), int(disp))
	if err != nil {
		return fail(fn, c, err)
	}
	*source, *dest = int32(s), int32(d)
	return 0
}

func MPI_Cart_sub(commH int32, remain, newcomm *int32) int32 {
	const fn = "MPI_Cart_sub"
	c, t, rc := cartComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := arrayArg(fn, c, remain, int32(len(t.Dims)), "remain_dims"); rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, newcomm, "newcomm"); rc != 0 {
		return rc
	}
	nc, err := c.CartSub(bools(remain, len(t.Dims)))
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

// graphArgs checks (nnodes, index, edges), each before it reads the
// next: nnodes bounds what it reads of index, and index's last entry
// what it reads of edges.
func graphArgs(fn string, c *mpirt.Comm, nnodes int32, index, edges *int32) ([]int, []int, int32) {
	if nnodes < 0 {
		return nil, nil, failf(fn, c, mpirt.ErrArg, "invalid argument nnodes: %d is negative", nnodes)
	}
	if err := c.CheckGraphNodes(int(nnodes)); err != nil {
		return nil, nil, fail(fn, c, err)
	}
	if rc := arrayArg(fn, c, index, nnodes, "index"); rc != 0 {
		return nil, nil, rc
	}
	ix := ints(index, int(nnodes))
	if err := mpirt.CheckGraphIndex(ix); err != nil {
		return nil, nil, fail(fn, c, err)
	}
	ne := 0
	if nnodes > 0 {
		ne = ix[nnodes-1]
	}
	if rc := arrayArg(fn, c, edges, int32(ne), "edges"); rc != 0 {
		return nil, nil, rc
	}
	return ix, ints(edges, ne), 0
}

func MPI_Graph_create(commH, nnodes int32, index, edges *int32, reorder int32, commGraph *int32) int32 {
	const fn = "MPI_Graph_create"
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return rc
	}
	ix, es, rc := graphArgs(fn, c, nnodes, index, edges)
	if rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, commGraph, "comm_graph"); rc != 0 {
		return rc
	}
	nc, err := c.GraphCreate(ix, es, reorder != 0)
	if err != nil {
		*commGraph = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(commGraph, nc)
	return 0
}

func MPI_Graph_map(commH, nnodes int32, index, edges, newrank *int32) int32 {
	const fn = "MPI_Graph_map"
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return rc
	}
	ix, es, rc := graphArgs(fn, c, nnodes, index, edges)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, newrank == nil, "newrank"); rc != 0 {
		return rc
	}
	r, err := c.GraphMap(ix, es)
	if err != nil {
		return fail(fn, c, err)
	}
	*newrank = int32(r)
	return 0
}

// graphComm resolves a communicator that must have a graph topology.
func graphComm(fn string, commH int32) (*mpirt.Comm, *mpirt.Topology, int32) {
	return topoComm(fn, commH, (*mpirt.Comm).GraphTopo)
}

func MPI_Graphdims_get(commH int32, nnodes, nedges *int32) int32 {
	const fn = "MPI_Graphdims_get"
	c, t, rc := graphComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, nnodes == nil, "nnodes"); rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, nedges == nil, "nedges"); rc != 0 {
		return rc
	}
	*nnodes, *nedges = int32(len(t.Index)), int32(len(t.Edges))
	return 0
}

func MPI_Graph_get(commH, maxindex, maxedges int32, index, edges *int32) int32 {
	const fn = "MPI_Graph_get"
	c, t, rc := graphComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if maxindex < 0 || maxedges < 0 {
		return failf(fn, c, mpirt.ErrArg, "invalid argument maxindex/maxedges: %d/%d (must be non-negative)", maxindex, maxedges)
	}
	ni, ne := min(int(maxindex), len(t.Index)), min(int(maxedges), len(t.Edges))
	if rc := arrayArg(fn, c, index, int32(ni), "index"); rc != 0 {
		return rc
	}
	if rc := arrayArg(fn, c, edges, int32(ne), "edges"); rc != 0 {
		return rc
	}
	putInts(index, t.Index[:ni])
	putInts(edges, t.Edges[:ne])
	return 0
}

func MPI_Graph_neighbors_count(commH, rank int32, n *int32) int32 {
	const fn = "MPI_Graph_neighbors_count"
	c, _, rc := graphComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, n == nil, "nneighbors"); rc != 0 {
		return rc
	}
	nb, err := c.GraphNeighbors(int(rank))
	if err != nil {
		return fail(fn, c, err)
	}
	*n = int32(len(nb))
	return 0
}

func MPI_Graph_neighbors(commH, rank, maxn int32, neighbors *int32) int32 {
	const fn = "MPI_Graph_neighbors"
	c, _, rc := graphComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if maxn < 0 {
		return failf(fn, c, mpirt.ErrArg, "invalid argument maxneighbors: %d is negative", maxn)
	}
	nb, err := c.GraphNeighbors(int(rank))
	if err != nil {
		return fail(fn, c, err)
	}
	nb = nb[:min(len(nb), int(maxn))]
	if rc := arrayArg(fn, c, neighbors, int32(len(nb)), "neighbors"); rc != 0 {
		return rc
	}
	putInts(neighbors, nb)
	return 0
}

func MPI_Topo_test(commH int32, status *int32) int32 {
	const fn = "MPI_Topo_test"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, status == nil, "status"); rc != 0 {
		return rc
	}
	*status = int32(c.TopoKind())
	return 0
}

// weightsArg reads a weights array of n entries; MPI_UNWEIGHTED gives
// weighted false, MPI_WEIGHTS_EMPTY (or anything when n is 0) an empty
// list.
func weightsArg(fn string, c *mpirt.Comm, p *int32, n int32, arg string) ([]int, bool, int32) {
	if isUnweighted(p) {
		return nil, false, 0
	}
	if isWeightsEmpty(p) || n == 0 {
		return []int{}, true, 0
	}
	if rc := arrayArg(fn, c, p, n, arg); rc != 0 {
		return nil, false, rc
	}
	return ints(p, int(n)), true, 0
}

func MPI_Dist_graph_create_adjacent(commH, indegree int32, sources, sourceweights *int32, outdegree int32,
	destinations, destweights *int32, infoH, reorder int32, newcomm *int32) int32 {
	const fn = "MPI_Dist_graph_create_adjacent"
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if indegree < 0 {
		return failf(fn, c, mpirt.ErrArg, "invalid argument indegree: %d is negative", indegree)
	}
	if outdegree < 0 {
		return failf(fn, c, mpirt.ErrArg, "invalid argument outdegree: %d is negative", outdegree)
	}
	if rc := arrayArg(fn, c, sources, indegree, "sources"); rc != 0 {
		return rc
	}
	if rc := arrayArg(fn, c, destinations, outdegree, "destinations"); rc != 0 {
		return rc
	}
	sw, sweighted, rc := weightsArg(fn, c, sourceweights, indegree, "sourceweights")
	if rc != 0 {
		return rc
	}
	dw, dweighted, rc := weightsArg(fn, c, destweights, outdegree, "destweights")
	if rc != 0 {
		return rc
	}
	if sweighted != dweighted {
		// MPI_ERR_TOPOLOGY, as in MPICH.
		return failf(fn, c, mpirt.ErrTopology, "invalid argument sourceweights/destweights: only one of them is MPI_UNWEIGHTED")
	}
	if _, rc := infoArg(fn, c, infoH, "info", true); rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, newcomm, "comm_dist_graph"); rc != 0 {
		return rc
	}
	nc, err := c.DistGraphCreateAdjacent(ints(sources, int(indegree)), sw, ints(destinations, int(outdegree)), dw, sweighted, reorder != 0)
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

func MPI_Dist_graph_create(commH, n int32, sources, degrees, destinations, weights *int32, infoH, reorder int32, newcomm *int32) int32 {
	const fn = "MPI_Dist_graph_create"
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if n < 0 {
		return failf(fn, c, mpirt.ErrArg, "invalid argument n: %d is negative", n)
	}
	if rc := arrayArg(fn, c, sources, n, "sources"); rc != 0 {
		return rc
	}
	if rc := arrayArg(fn, c, degrees, n, "degrees"); rc != 0 {
		return rc
	}
	ds := ints(degrees, int(n))
	total := 0
	for i, d := range ds {
		if d < 0 {
			return failf(fn, c, mpirt.ErrArg, "invalid argument degrees[%d]: %d is negative", i, d)
		}
		total += d
	}
	if rc := arrayArg(fn, c, destinations, int32(total), "destinations"); rc != 0 {
		return rc
	}
	ws, weighted, rc := weightsArg(fn, c, weights, int32(total), "weights")
	if rc != 0 {
		return rc
	}
	if _, rc := infoArg(fn, c, infoH, "info", true); rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, newcomm, "comm_dist_graph"); rc != 0 {
		return rc
	}
	nc, err := c.DistGraphCreate(ints(sources, int(n)), ds, ints(destinations, total), ws, weighted, reorder != 0)
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

func distGraphComm(fn string, commH int32) (*mpirt.Comm, *mpirt.Topology, int32) {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return nil, nil, rc
	}
	t, err := c.DistGraphTopo()
	if err != nil {
		return nil, nil, fail(fn, c, err)
	}
	return c, t, 0
}

func MPI_Dist_graph_neighbors_count(commH int32, indegree, outdegree, weighted *int32) int32 {
	const fn = "MPI_Dist_graph_neighbors_count"
	c, t, rc := distGraphComm(fn, commH)
	if rc != 0 {
		return rc
	}
	for _, a := range []struct {
		p   *int32
		arg string
	}{{indegree, "indegree"}, {outdegree, "outdegree"}, {weighted, "weighted"}} {
		if rc := nullArg(fn, c, a.p == nil, a.arg); rc != 0 {
			return rc
		}
	}
	*indegree, *outdegree = int32(len(t.Sources)), int32(len(t.Dests))
	*weighted = 0
	if t.Weighted {
		*weighted = 1
	}
	return 0
}

func MPI_Dist_graph_neighbors(commH, maxin int32, sources, sourceweights *int32, maxout int32, destinations, destweights *int32) int32 {
	const fn = "MPI_Dist_graph_neighbors"
	c, t, rc := distGraphComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if maxin < 0 || maxout < 0 {
		return failf(fn, c, mpirt.ErrArg, "invalid argument maxindegree/maxoutdegree: %d/%d (must be non-negative)", maxin, maxout)
	}
	ni, no := min(int(maxin), len(t.Sources)), min(int(maxout), len(t.Dests))
	if rc := arrayArg(fn, c, sources, int32(ni), "sources"); rc != 0 {
		return rc
	}
	if rc := arrayArg(fn, c, destinations, int32(no), "destinations"); rc != 0 {
		return rc
	}
	putInts(sources, t.Sources[:ni])
	putInts(destinations, t.Dests[:no])
	if t.Weighted {
		if sourceweights != nil && !isUnweighted(sourceweights) && !isWeightsEmpty(sourceweights) {
			putInts(sourceweights, t.SourceWeights[:ni])
		}
		if destweights != nil && !isUnweighted(destweights) && !isWeightsEmpty(destweights) {
			putInts(destweights, t.DestWeights[:no])
		}
	}
	return 0
}
