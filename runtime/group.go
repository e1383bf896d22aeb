package mpirt

import "fmt"

// Group is an ordered set of processes, named by their MPI_COMM_WORLD
// ranks. Groups are immutable once built, so they are shared freely
// (MPI_Comm_group hands out the communicator's own slice wrapped in a new
// Group).
type Group struct {
	ranks []int // group rank -> world rank
	index map[int]int
}

// NewGroup returns the group of the given world ranks, in that order. The
// caller must not modify ranks afterwards. Duplicates are the caller's
// error to prevent (the set operations never produce them).
func NewGroup(ranks []int) *Group {
	g := &Group{ranks: ranks}
	if len(ranks) > 16 {
		g.index = make(map[int]int, len(ranks))
		for i, x := range ranks {
			g.index[x] = i
		}
	}
	return g
}

// emptyGroup is MPI_GROUP_EMPTY.
var emptyGroup = &Group{}

// Size is the number of processes in g.
func (g *Group) Size() int { return len(g.ranks) }

// WorldRank returns the world rank of group rank r.
func (g *Group) WorldRank(r int) int { return g.ranks[r] }

// Ranks returns the world ranks of g (do not modify).
func (g *Group) Ranks() []int { return g.ranks }

// RankOf returns the group rank of world rank wr, or -1.
func (g *Group) RankOf(wr int) int {
	if len(g.ranks) <= 16 {
		for i, x := range g.ranks {
			if x == wr {
				return i
			}
		}
		return -1
	}
	if r, ok := g.index[wr]; ok {
		return r
	}
	return -1
}

func (g *Group) contains(wr int) bool { return g.RankOf(wr) >= 0 }

// Comparison results (MPI_IDENT ... MPI_UNEQUAL).
const (
	Ident     = 0
	Congruent = 1
	Similar   = 2
	Unequal   = 3
)

// Undefined is MPI_UNDEFINED.
const Undefined = -32766

// CompareGroups returns Ident when a and b have the same members in the
// same order, Similar when only the order differs, Unequal otherwise.
func CompareGroups(a, b *Group) int {
	if a.Size() != b.Size() {
		return Unequal
	}
	same := true
	for i, x := range a.ranks {
		if b.ranks[i] != x {
			same = false
			break
		}
	}
	if same {
		return Ident
	}
	for _, x := range a.ranks {
		if !b.contains(x) {
			return Unequal
		}
	}
	return Similar
}

// checkRanks checks that ranks are valid, distinct ranks of g.
func (g *Group) checkRanks(fn string, ranks []int) error {
	seen := make(map[int]bool, len(ranks))
	for i, r := range ranks {
		if r < 0 || r >= g.Size() {
			return Errorf(ErrRank, fn, "invalid rank argument ranks[%d]: %d (group size %d)", i, r, g.Size())
		}
		if seen[r] {
			return Errorf(ErrRank, fn, "invalid rank argument ranks[%d]: rank %d appears twice", i, r)
		}
		seen[r] = true
	}
	return nil
}

// Incl is MPI_Group_incl: the processes of g at ranks, in that order.
func (g *Group) Incl(ranks []int) (*Group, error) {
	if err := g.checkRanks("MPI_Group_incl", ranks); err != nil {
		return nil, err
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		out[i] = g.ranks[r]
	}
	return NewGroup(out), nil
}

// Excl is MPI_Group_excl: g without the processes at ranks, order kept.
func (g *Group) Excl(ranks []int) (*Group, error) {
	if err := g.checkRanks("MPI_Group_excl", ranks); err != nil {
		return nil, err
	}
	drop := make(map[int]bool, len(ranks))
	for _, r := range ranks {
		drop[r] = true
	}
	out := make([]int, 0, g.Size()-len(ranks))
	for i, x := range g.ranks {
		if !drop[i] {
			out = append(out, x)
		}
	}
	return NewGroup(out), nil
}

// expandRanges turns (first, last, stride) triplets into the ranks they
// name, checking each against g and for duplicates. Every malformed
// triplet is MPI_ERR_ARG (as in MPICH), unlike the bad ranks of
// MPI_Group_incl/excl, which are MPI_ERR_RANK.
func (g *Group) expandRanges(fn string, ranges [][3]int) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for i, t := range ranges {
		first, last, stride := t[0], t[1], t[2]
		if stride == 0 {
			return nil, Errorf(ErrArg, fn, "invalid argument ranges[%d]: stride 0", i)
		}
		if first < 0 || first >= g.Size() {
			return nil, Errorf(ErrArg, fn, "invalid argument ranges[%d][0]: first rank %d is not in the group (size %d)", i, first, g.Size())
		}
		if last < 0 || last >= g.Size() {
			return nil, Errorf(ErrArg, fn, "invalid argument ranges[%d][1]: last rank %d is not in the group (size %d)", i, last, g.Size())
		}
		if stride > 0 && first > last || stride < 0 && first < last {
			return nil, Errorf(ErrArg, fn, "invalid argument ranges[%d]: (%d, %d, %d) names no rank", i, first, last, stride)
		}
		for r := first; stride > 0 && r <= last || stride < 0 && r >= last; r += stride {
			if seen[r] {
				return nil, Errorf(ErrArg, fn, "invalid argument ranges[%d]: rank %d named twice", i, r)
			}
			seen[r] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// RangeIncl is MPI_Group_range_incl.
func (g *Group) RangeIncl(ranges [][3]int) (*Group, error) {
	rs, err := g.expandRanges("MPI_Group_range_incl", ranges)
	if err != nil {
		return nil, err
	}
	return g.Incl(rs)
}

// RangeExcl is MPI_Group_range_excl.
func (g *Group) RangeExcl(ranges [][3]int) (*Group, error) {
	rs, err := g.expandRanges("MPI_Group_range_excl", ranges)
	if err != nil {
		return nil, err
	}
	return g.Excl(rs)
}

// Union is MPI_Group_union: a's processes, then b's not in a.
func Union(a, b *Group) *Group {
	out := append([]int(nil), a.ranks...)
	for _, x := range b.ranks {
		if !a.contains(x) {
			out = append(out, x)
		}
	}
	return NewGroup(out)
}

// Intersection is MPI_Group_intersection: a's processes that are in b, in
// a's order.
func Intersection(a, b *Group) *Group {
	var out []int
	for _, x := range a.ranks {
		if b.contains(x) {
			out = append(out, x)
		}
	}
	return NewGroup(out)
}

// Difference is MPI_Group_difference: a's processes not in b.
func Difference(a, b *Group) *Group {
	var out []int
	for _, x := range a.ranks {
		if !b.contains(x) {
			out = append(out, x)
		}
	}
	return NewGroup(out)
}

// TranslateRanks is MPI_Group_translate_ranks: for each rank of a, the rank
// of the same process in b, Undefined when absent; ProcNull stays ProcNull.
func TranslateRanks(a *Group, ranks []int, b *Group) ([]int, error) {
	out := make([]int, len(ranks))
	for i, r := range ranks {
		if r == ProcNull {
			out[i] = ProcNull
			continue
		}
		if r < 0 || r >= a.Size() {
			return nil, Errorf(ErrRank, "MPI_Group_translate_ranks", "invalid rank argument ranks1[%d]: %d (group1 size %d)", i, r, a.Size())
		}
		out[i] = b.RankOf(a.ranks[r])
		if out[i] < 0 {
			out[i] = Undefined
		}
	}
	return out, nil
}

// Group tables: MPI_GROUP_EMPTY is builtin; created groups are direct
// handles.

// Group resolves a group handle, nil for MPI_GROUP_NULL or garbage.
func (w *World) Group(h Handle) *Group {
	if h == HandleGroupEmpty {
		return emptyGroup
	}
	g, ok := w.groups.Get(h)
	if !ok {
		return nil
	}
	return g
}

// AddGroup gives g a handle. The empty group is always MPI_GROUP_EMPTY's
// twin: a new handle still (MPI lets either be returned; MPICH returns
// MPI_GROUP_EMPTY), so we return MPI_GROUP_EMPTY for empty results.
func (w *World) AddGroup(g *Group) Handle {
	if g.Size() == 0 {
		return HandleGroupEmpty
	}
	return w.groups.Add(g)
}

// FreeGroup releases handle h. Freeing MPI_GROUP_EMPTY is allowed and a
// no-op (MPI-2.2 on).
func (w *World) FreeGroup(h Handle) error {
	if h == HandleGroupEmpty {
		return nil
	}
	if !w.groups.Remove(h) {
		return Errorf(ErrGroup, "MPI_Group_free", "invalid group argument group: %s", describeHandle(h, HandleGroupNull))
	}
	return nil
}

// GroupCount is the number of live group handles (leak checks).
func (w *World) GroupCount() int { return w.groups.Len() }

// describeHandle names a bad handle in an error message.
func describeHandle(h, null Handle) string {
	if h == null {
		switch null.Type() {
		case ObjGroup:
			return "MPI_GROUP_NULL"
		case ObjComm:
			return "MPI_COMM_NULL"
		case ObjInfo:
			return "MPI_INFO_NULL"
		case ObjErrhandler:
			return "MPI_ERRHANDLER_NULL"
		case ObjKeyval:
			return "MPI_KEYVAL_INVALID"
		}
	}
	return fmt.Sprintf("0x%08x is not a valid %s", uint32(h), null.Type())
}

// Group returns the group of c (as a fresh Group sharing c's rank slice).
func (c *Comm) Group() *Group { return NewGroup(c.group) }
