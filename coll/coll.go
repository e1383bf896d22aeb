// Package coll is the collective framework: components are queried for
// every new communicator, each returns a priority and a module, and for
// each operation the module of the highest-priority component that
// implements it wins (Open MPI's coll framework, STYLE practice 7).
//
// Selection uses only inputs that are equal on every rank of the
// communicator (its size, configuration), so all ranks pick the same
// algorithms (STYLE practice 8).
package coll

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Component is one collective implementation family (basic, tuned, hier...).
type Component interface {
	// Name is the component's short name, used by GMPI_COLL and
	// GMPI_COLL_<NAME>_PRIORITY.
	Name() string
	// Query decides whether the component serves c: it returns a priority
	// (higher wins; negative declines) and a module. Query must use only
	// rank-invariant inputs.
	Query(c *mpirt.Comm) (priority int, m Module)
	// Describe says what the component offers with tunables p, for
	// mpirun --info: it must agree with what Query and Enable do.
	Describe(p *param.Values) Description
}

// Description is a component's account of itself (mpirun --info).
type Description struct {
	Name     string
	Priority int    // the priority Query returns (GMPI_COLL_<NAME>_PRIORITY overrides it)
	Serves   string // the communicators it takes
	Ops      []OpAlgorithms
}

// OpAlgorithms are the algorithms a component may run for one operation.
type OpAlgorithms struct {
	Op         string   // "bcast", "neighbor_alltoall", ...
	Algorithms []string // the first is the fallback of the others
	// Control names the variable that forces an algorithm or turns the
	// operation on ("" none); Choice says how the component chooses when
	// it is not forced ("" when there is one algorithm).
	Control, Choice string
	// Off, when set, says why the component does not take the operation
	// with the tunables it was described with.
	Off string
}

// OneEach describes operations that have one algorithm each, named in
// names (indexed by operation); neighbor lists the neighborhood
// collectives' algorithm ("" when the component has none).
func OneEach(names [mpirt.NumCollOps]string, neighbor string) []OpAlgorithms {
	var ops []OpAlgorithms
	for op, n := range names {
		if n != "" {
			ops = append(ops, OpAlgorithms{Op: mpirt.CollOp(op).String(), Algorithms: []string{n}})
		}
	}
	if neighbor != "" {
		for _, op := range []string{"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"} {
			ops = append(ops, OpAlgorithms{Op: "neighbor_" + op, Algorithms: []string{neighbor}})
		}
	}
	return ops
}

// Module fills the entries of a collective table it implements. Enable is
// called from the lowest to the highest priority; a module overwrites the
// entries it handles and may keep the previous entry as its fallback.
type Module interface {
	Enable(c *mpirt.Comm, t *mpirt.CollTable) error
}

// Selector is the runtime.CollSelector built from a list of components.
type Selector struct {
	components []Component
}

// NewSelector returns a selector over components. It is configured by
// the world's tunables (mpirt.World.Params) when it selects:
// GMPI_COLL="a,b" restricts to those components, GMPI_COLL="^a,b"
// excludes them, GMPI_COLL_<NAME>_PRIORITY overrides a priority (each
// component declares its instance of that family, see PriorityParam).
func NewSelector(components ...Component) *Selector {
	return &Selector{components: components}
}

// PriorityParam declares a component's GMPI_COLL_<NAME>_PRIORITY with its
// default priority; components call it at package initialisation.
func PriorityParam(name string, def int) param.P[int] {
	return param.CollPriority.Int(name, def, "priority of the "+name+" collective component")
}

// Use reports whether GMPI_COLL (in p) lets component name be used.
func Use(p *param.Values, name string) bool {
	v := param.Coll.Get(p)
	if v == "" {
		return true
	}
	neg := strings.HasPrefix(v, "^")
	for _, n := range strings.Split(strings.TrimPrefix(v, "^"), ",") {
		if strings.TrimSpace(n) == name {
			return !neg
		}
	}
	return neg
}

// PriorityOverride returns GMPI_COLL_<NAME>_PRIORITY from p when it is
// set (and the component declared it).
func PriorityOverride(p *param.Values, name string) (int, bool) {
	if v := param.Lookup(param.CollPriority.Name(name)); v != nil {
		if x, ok := p.Value(v); ok {
			return x.(int), true
		}
	}
	return 0, false
}

type candidate struct {
	name string
	prio int
	m    Module
}

// Select implements mpirt.CollSelector.
func (s *Selector) Select(c *mpirt.Comm) (*mpirt.CollTable, error) {
	var cands []candidate
	params := c.World().Params()
	for _, comp := range s.components {
		n := comp.Name()
		if !Use(params, n) {
			continue
		}
		p, m := comp.Query(c)
		if o, ok := PriorityOverride(params, n); ok {
			p = o
		}
		if p < 0 || m == nil {
			continue
		}
		cands = append(cands, candidate{n, p, m})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].prio < cands[j].prio })
	t := new(mpirt.CollTable)
	for _, cd := range cands {
		before, starts := t.Sched, t.Start
		if err := cd.m.Enable(c, t); err != nil {
			return nil, fmt.Errorf("coll component %s: %w", cd.name, err)
		}
		// A module that replaced an operation's schedule serves its
		// nonblocking calls too, unless it set their start as well.
		for op := range t.Sched {
			if t.Start[op] != nil && sameFunc(starts[op], t.Start[op]) && !sameFunc(before[op], t.Sched[op]) {
				t.Start[op] = nil
			}
		}
	}
	if t.Barrier == nil || t.Bcast == nil || t.Reduce == nil || t.Allreduce == nil || t.Sched[mpirt.CollBarrier] == nil {
		return nil, fmt.Errorf("no collective component covers every operation (GMPI_COLL=%q)", param.Coll.Get(params))
	}
	return t, nil
}

// sameFunc reports whether f and g are the same function (by code: every
// closure of one function literal is the same function here).
func sameFunc[F any](f, g F) bool {
	a, b := reflect.ValueOf(f), reflect.ValueOf(g)
	if a.IsNil() || b.IsNil() {
		return a.IsNil() == b.IsNil()
	}
	return a.Pointer() == b.Pointer()
}
