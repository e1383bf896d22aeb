package mpirt

import (
	"encoding/binary"
	"math"
	"sort"
)

// Topology kinds (MPI_GRAPH, MPI_CART, MPI_DIST_GRAPH; a communicator
// without one reports Undefined).
const (
	TopoGraph     = 1
	TopoCart      = 2
	TopoDistGraph = 3
)

// Topology is the process topology attached to a communicator. It is
// immutable once attached, so duplicates share it.
type Topology struct {
	Kind int

	// Cartesian: the extent and periodicity of each dimension.
	Dims    []int
	Periods []bool

	// Graph: MPI_Graph_create's index and edges arrays.
	Index []int
	Edges []int

	// Distributed graph: this process's in- and out-neighbors, with
	// weights when Weighted.
	Sources, SourceWeights []int
	Dests, DestWeights     []int
	Weighted               bool
}

// Topo returns c's topology, nil when it has none.
func (c *Comm) Topo() *Topology { return c.topo }

// TopoKind is MPI_Topo_test: TopoCart, TopoGraph, TopoDistGraph or
// Undefined.
func (c *Comm) TopoKind() int {
	if c.topo == nil {
		return Undefined
	}
	return c.topo.Kind
}

// DimsCreate is MPI_Dims_create: it fills the zero entries of dims so that
// the product of all entries is nnodes. The filled entries are the most
// balanced factorisation, in non-increasing order, that MPICH gives: the
// smallest difference between the largest and the smallest entry, and
// among those the one whose entries, smallest first, are lexicographically
// largest (360 in three dimensions gives 10x6x6, not 9x8x5). As in MPICH,
// entries that are all fixed need only divide nnodes.
func DimsCreate(nnodes int, dims []int) error {
	if nnodes <= 0 {
		return Errorf(ErrArg, "", "invalid argument nnodes: %d (must be positive)", nnodes)
	}
	prod, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return Errorf(ErrDims, "", "invalid dimension argument dims[%d]: %d is negative", i, d)
		case d == 0:
			free++
		default:
			prod *= d
			if prod > nnodes {
				return Errorf(ErrDims, "", "invalid dimension argument dims: the product of the fixed entries exceeds nnodes %d", nnodes)
			}
		}
	}
	if nnodes%prod != 0 {
		return Errorf(ErrDims, "", "invalid dimension argument dims: product of the fixed entries %d does not divide nnodes %d", prod, nnodes)
	}
	if free == 0 {
		return nil
	}
	out := balancedFactors(nnodes/prod, free)
	j := 0
	for i := range dims {
		if dims[i] == 0 {
			dims[i] = out[j]
			j++
		}
	}
	return nil
}

// balancedFactors splits m into k factors, largest first, as DimsCreate
// describes. It searches the factorisations smallest factor first, each
// factor at least the previous one and trying larger ones first, so the
// first factorisation found with a given spread is the preferred one of
// that spread; a branch is cut when even its best completion cannot
// narrow the spread.
func balancedFactors(m, k int) []int {
	if k == 1 {
		return []int{m}
	}
	var divs []int
	for d := 1; d*d <= m; d++ {
		if m%d == 0 {
			divs = append(divs, d)
			if d*d != m {
				divs = append(divs, m/d)
			}
		}
	}
	sort.Ints(divs)
	cur := make([]int, k)
	best := make([]int, k)
	bestSpread := -1
	var search func(i, r int)
	search = func(i, r int) {
		left := k - i
		if left == 1 {
			if r < cur[i-1] {
				return
			}
			cur[i] = r
			if s := r - cur[0]; bestSpread < 0 || s < bestSpread {
				bestSpread = s
				copy(best, cur)
			}
			return
		}
		lo := 1
		if i > 0 {
			lo = cur[i-1]
		}
		for x := len(divs) - 1; x >= 0; x-- {
			f := divs[x]
			if f < lo {
				break
			}
			if r%f != 0 || !fitsPow(f, left, r) {
				continue
			}
			first := f
			if i > 0 {
				first = cur[0]
			}
			// The largest factor is at least f and the (left-1)th root
			// of what the others share.
			if bestSpread >= 0 && max(f, rootCeil(r/f, left-1))-first >= bestSpread {
				continue
			}
			cur[i] = f
			search(i+1, r/f)
		}
	}
	search(0, m)
	for i, j := 0, k-1; i < j; i, j = i+1, j-1 {
		best[i], best[j] = best[j], best[i]
	}
	return best
}

// fitsPow reports whether f**j <= r (f >= 1, r >= 0).
func fitsPow(f, j, r int) bool {
	p := 1
	for ; j > 0; j-- {
		if p > r/f {
			return false
		}
		p *= f
	}
	return true
}

// rootCeil is the smallest t >= 1 with t**j >= r (j >= 1).
func rootCeil(r, j int) int {
	t := int(math.Ceil(math.Pow(float64(r), 1/float64(j))))
	t = max(t, 1)
	for t > 1 && !fitsPow(t-1, j, r-1) {
		t--
	}
	for fitsPow(t, j, r-1) {
		t++
	}
	return t
}

// argWord is how an error message introduces an argument for class:
// "dimension argument" for MPI_ERR_DIMS, "argument" otherwise.
func argWord(class int) string {
	if class == ErrDims {
		return "dimension argument"
	}
	return "argument"
}

func product(dims []int) int {
	p := 1
	for _, d := range dims {
		p *= d
	}
	return p
}

// checkCartDims checks the dims of a new Cartesian topology on c. A grid
// larger than c is an error of class tooBig: MPI_ERR_ARG for
// MPI_Cart_create, MPI_ERR_DIMS for MPI_Cart_map (as in MPICH).
func (c *Comm) checkCartDims(dims []int, periods []bool, tooBig int) error {
	if len(periods) != len(dims) {
		return Errorf(ErrArg, "", "invalid argument periods: %d entries for %d dimensions", len(periods), len(dims))
	}
	p := 1
	for i, d := range dims {
		if d <= 0 {
			return Errorf(ErrDims, "", "invalid dimension argument dims[%d]: %d (must be positive)", i, d)
		}
		p *= d
		if p > c.Size() {
			return Errorf(tooBig, "", "invalid %s dims: the grid needs more than the %d processes of the communicator", argWord(tooBig), c.Size())
		}
	}
	return nil
}

// CartMap is MPI_Cart_map: the rank of this process in a Cartesian
// topology over c (no reordering), Undefined when it is not in the grid.
func (c *Comm) CartMap(dims []int, periods []bool) (int, error) {
	if err := c.checkCartDims(dims, periods, ErrDims); err != nil {
		return 0, err
	}
	if c.Rank() < product(dims) {
		return c.Rank(), nil
	}
	return Undefined, nil
}

// CartCreate is MPI_Cart_create. The first product(dims) ranks of c form
// the grid in row-major order (reorder is allowed but not used); the
// others get nil.
func (c *Comm) CartCreate(dims []int, periods []bool, reorder bool) (*Comm, error) {
	if err := c.checkCartDims(dims, periods, ErrArg); err != nil {
		return nil, err
	}
	t := &Topology{Kind: TopoCart, Dims: append([]int(nil), dims...), Periods: append([]bool(nil), periods...)}
	return c.splitTopo(product(dims), t)
}

// splitTopo gives the first n ranks of c a new communicator with
// topology t; the others get nil.
func (c *Comm) splitTopo(n int, t *Topology) (*Comm, error) {
	color := 0
	if c.Rank() >= n {
		color = Undefined
	}
	nc, err := c.Split(color, c.Rank())
	if err != nil || nc == nil {
		return nil, err
	}
	nc.topo = t
	return nc, nil
}

func (c *Comm) cart() (*Topology, error) {
	if c.topo == nil || c.topo.Kind != TopoCart {
		return nil, Errorf(ErrTopology, "", "invalid topology argument comm: the communicator has no Cartesian topology")
	}
	return c.topo, nil
}

func (c *Comm) graph() (*Topology, error) {
	if c.topo == nil || c.topo.Kind != TopoGraph {
		return nil, Errorf(ErrTopology, "", "invalid topology argument comm: the communicator has no graph topology")
	}
	return c.topo, nil
}

func (c *Comm) distGraph() (*Topology, error) {
	if c.topo == nil || c.topo.Kind != TopoDistGraph {
		return nil, Errorf(ErrTopology, "", "invalid topology argument comm: the communicator has no distributed graph topology")
	}
	return c.topo, nil
}

// CartTopo returns c's Cartesian topology, or an MPI_ERR_TOPOLOGY error.
func (c *Comm) CartTopo() (*Topology, error) { return c.cart() }

// GraphTopo returns c's graph topology, or an MPI_ERR_TOPOLOGY error.
func (c *Comm) GraphTopo() (*Topology, error) { return c.graph() }

// DistGraphTopo returns c's distributed graph topology, or an
// MPI_ERR_TOPOLOGY error.
func (c *Comm) DistGraphTopo() (*Topology, error) { return c.distGraph() }

// CartCoords is MPI_Cart_coords.
func (c *Comm) CartCoords(rank int) ([]int, error) {
	t, err := c.cart()
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= product(t.Dims) {
		return nil, Errorf(ErrRank, "", "invalid rank argument rank: %d (grid size %d)", rank, product(t.Dims))
	}
	coords := make([]int, len(t.Dims))
	for i := len(t.Dims) - 1; i >= 0; i-- {
		coords[i] = rank % t.Dims[i]
		rank /= t.Dims[i]
	}
	return coords, nil
}

// CartRank is MPI_Cart_rank: coordinates in periodic dimensions wrap
// around; out of range in the others is an error.
func (c *Comm) CartRank(coords []int) (int, error) {
	t, err := c.cart()
	if err != nil {
		return 0, err
	}
	if len(coords) != len(t.Dims) {
		return 0, Errorf(ErrArg, "", "invalid argument coords: %d entries for %d dimensions", len(coords), len(t.Dims))
	}
	r := 0
	for i, x := range coords {
		d := t.Dims[i]
		if x < 0 || x >= d {
			if !t.Periods[i] {
				return 0, Errorf(ErrArg, "", "invalid argument coords[%d]: %d is outside 0..%d of a non-periodic dimension", i, x, d-1)
			}
			x = (x%d + d) % d
		}
		r = r*d + x
	}
	return r, nil
}

// CartShift is MPI_Cart_shift: the ranks disp steps below and above this
// process along direction (ProcNull off the edge of a non-periodic
// dimension).
func (c *Comm) CartShift(direction, disp int) (src, dst int, err error) {
	t, err := c.cart()
	if err != nil {
		return 0, 0, err
	}
	if len(t.Dims) == 0 {
		return 0, 0, Errorf(ErrTopology, "", "invalid topology argument comm: its Cartesian topology has no dimensions to shift along")
	}
	if direction < 0 || direction >= len(t.Dims) {
		return 0, 0, Errorf(ErrArg, "", "invalid argument direction: %d (the topology has %d dimensions)", direction, len(t.Dims))
	}
	me, err := c.CartCoords(c.Rank())
	if err != nil {
		return 0, 0, err
	}
	at := func(off int) int {
		co := append([]int(nil), me...)
		x, d := co[direction]+off, t.Dims[direction]
		if x < 0 || x >= d {
			if !t.Periods[direction] {
				return ProcNull
			}
			x = (x%d + d) % d
		}
		co[direction] = x
		r, _ := c.CartRank(co)
		return r
	}
	return at(-disp), at(disp), nil
}

// CartSub is MPI_Cart_sub: the processes that share the coordinates of
// the dropped dimensions form a Cartesian communicator over the kept ones.
// When no dimension is kept only c's rank 0 gets a communicator (of one
// process, zero-dimensional), the others nil, as MPICH does.
func (c *Comm) CartSub(remain []bool) (*Comm, error) {
	t, err := c.cart()
	if err != nil {
		return nil, err
	}
	if len(remain) != len(t.Dims) {
		return nil, Errorf(ErrArg, "", "invalid argument remain_dims: %d entries for %d dimensions", len(remain), len(t.Dims))
	}
	me, err := c.CartCoords(c.Rank())
	if err != nil {
		return nil, err
	}
	color, key := 0, 0
	nt := &Topology{Kind: TopoCart, Dims: []int{}, Periods: []bool{}}
	for i, keep := range remain {
		if keep {
			key = key*t.Dims[i] + me[i]
			nt.Dims = append(nt.Dims, t.Dims[i])
			nt.Periods = append(nt.Periods, t.Periods[i])
		} else {
			color = color*t.Dims[i] + me[i]
		}
	}
	if len(nt.Dims) == 0 {
		// Nothing kept: as in MPICH, a zero-dimensional grid of one
		// process, the first of c; the others get nil.
		return c.splitTopo(1, nt)
	}
	nc, err := c.Split(color, key)
	if err != nil {
		return nil, err
	}
	nc.topo = nt
	return nc, nil
}

// CheckGraphNodes checks MPI_Graph_create's nnodes on c: at most its
// size. The C layer calls it before it reads index (nnodes entries).
func (c *Comm) CheckGraphNodes(n int) error {
	if n > c.Size() {
		return Errorf(ErrArg, "", "invalid argument nnodes: %d exceeds the communicator size %d", n, c.Size())
	}
	return nil
}

// CheckGraphIndex checks MPI_Graph_create's index: entries that do not
// decrease, the first not negative. The C layer calls it before it reads
// edges (index[nnodes-1] entries).
func CheckGraphIndex(index []int) error {
	prev := 0
	for i, x := range index {
		if x < prev {
			if i == 0 {
				return Errorf(ErrArg, "", "invalid argument index[0]: %d is negative", x)
			}
			return Errorf(ErrArg, "", "invalid argument index[%d]: %d is smaller than the previous entry %d", i, x, prev)
		}
		prev = x
	}
	return nil
}

// checkGraph checks MPI_Graph_create's arguments on c.
func (c *Comm) checkGraph(index, edges []int) error {
	n := len(index)
	if err := c.CheckGraphNodes(n); err != nil {
		return err
	}
	if err := CheckGraphIndex(index); err != nil {
		return err
	}
	if n > 0 && index[n-1] != len(edges) {
		return Errorf(ErrArg, "", "invalid argument index[%d]: %d differs from the number of edges %d", n-1, index[n-1], len(edges))
	}
	for i, e := range edges {
		if e < 0 || e >= n {
			return Errorf(ErrArg, "", "invalid argument edges[%d]: %d is not a node (nnodes %d)", i, e, n)
		}
	}
	return nil
}

// GraphMap is MPI_Graph_map: this process's rank in a graph topology over
// c (no reordering), Undefined when it is not a node.
func (c *Comm) GraphMap(index, edges []int) (int, error) {
	if err := c.checkGraph(index, edges); err != nil {
		return 0, err
	}
	if c.Rank() < len(index) {
		return c.Rank(), nil
	}
	return Undefined, nil
}

// GraphCreate is MPI_Graph_create: the first len(index) ranks of c form
// the graph; the others get nil.
func (c *Comm) GraphCreate(index, edges []int, reorder bool) (*Comm, error) {
	if err := c.checkGraph(index, edges); err != nil {
		return nil, err
	}
	t := &Topology{Kind: TopoGraph, Index: append([]int(nil), index...), Edges: append([]int(nil), edges...)}
	return c.splitTopo(len(index), t)
}

// GraphNeighbors is MPI_Graph_neighbors.
func (c *Comm) GraphNeighbors(rank int) ([]int, error) {
	t, err := c.graph()
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= len(t.Index) {
		return nil, Errorf(ErrRank, "", "invalid rank argument rank: %d (graph has %d nodes)", rank, len(t.Index))
	}
	lo := 0
	if rank > 0 {
		lo = t.Index[rank-1]
	}
	return t.Edges[lo:t.Index[rank]], nil
}

func (c *Comm) checkNeighbors(arg string, rs []int) error {
	for i, r := range rs {
		if r < 0 || r >= c.Size() {
			return Errorf(ErrRank, "", "invalid rank argument %s[%d]: %d (communicator size %d)", arg, i, r, c.Size())
		}
	}
	return nil
}

func checkWeights(arg string, ws []int) error {
	for i, w := range ws {
		if w < 0 {
			return Errorf(ErrArg, "", "invalid argument %s[%d]: %d is negative", arg, i, w)
		}
	}
	return nil
}

// DistGraphCreateAdjacent is MPI_Dist_graph_create_adjacent. Weights are
// nil for MPI_UNWEIGHTED (both must then be nil).
func (c *Comm) DistGraphCreateAdjacent(sources, sweights, dests, dweights []int, weighted, reorder bool) (*Comm, error) {
	if err := c.checkNeighbors("sources", sources); err != nil {
		return nil, err
	}
	if err := c.checkNeighbors("destinations", dests); err != nil {
		return nil, err
	}
	if err := checkWeights("sourceweights", sweights); err != nil {
		return nil, err
	}
	if err := checkWeights("destweights", dweights); err != nil {
		return nil, err
	}
	t := &Topology{Kind: TopoDistGraph, Weighted: weighted,
		Sources: append([]int{}, sources...), Dests: append([]int{}, dests...)}
	if weighted {
		t.SourceWeights = append([]int{}, sweights...)
		t.DestWeights = append([]int{}, dweights...)
	}
	nc, err := c.Dup(nil)
	if err != nil {
		return nil, err
	}
	nc.topo = t
	return nc, nil
}

// DistGraphCreate is MPI_Dist_graph_create: this process contributes the
// edges sources[i] -> destinations[...] (degrees[i] of them per source);
// the edges are exchanged so that every process learns its own in- and
// out-neighbors. weighted must be the same on every process.
func (c *Comm) DistGraphCreate(sources, degrees, dests, weights []int, weighted, reorder bool) (*Comm, error) {
	if err := c.checkNeighbors("sources", sources); err != nil {
		return nil, err
	}
	if err := c.checkNeighbors("destinations", dests); err != nil {
		return nil, err
	}
	if err := checkWeights("weights", weights); err != nil {
		return nil, err
	}
	// Each edge is three uint32: source, destination, weight.
	var mine []byte
	k := 0
	for i, s := range sources {
		for j := 0; j < degrees[i]; j++ {
			w := 1
			if weighted {
				w = weights[k]
			}
			mine = binary.LittleEndian.AppendUint32(mine, uint32(s))
			mine = binary.LittleEndian.AppendUint32(mine, uint32(dests[k]))
			mine = binary.LittleEndian.AppendUint32(mine, uint32(w))
			k++
		}
	}
	nc, err := c.Dup(nil)
	if err != nil {
		return nil, err
	}
	all, err := nc.sysAllgather(mine, 0)
	if err != nil {
		nc.Free()
		return nil, err
	}
	t := &Topology{Kind: TopoDistGraph, Weighted: weighted, Sources: []int{}, Dests: []int{}}
	if weighted {
		t.SourceWeights, t.DestWeights = []int{}, []int{}
	}
	me := c.Rank()
	for _, b := range all {
		for ; len(b) >= 12; b = b[12:] {
			s := int(binary.LittleEndian.Uint32(b))
			d := int(binary.LittleEndian.Uint32(b[4:]))
			w := int(binary.LittleEndian.Uint32(b[8:]))
			if d == me {
				t.Sources = append(t.Sources, s)
				if weighted {
					t.SourceWeights = append(t.SourceWeights, w)
				}
			}
			if s == me {
				t.Dests = append(t.Dests, d)
				if weighted {
					t.DestWeights = append(t.DestWeights, w)
				}
			}
		}
	}
	nc.topo = t
	return nc, nil
}
