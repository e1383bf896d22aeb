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
	"os"
	"sort"
	"strconv"
	"strings"

	mpirt "gmpi/runtime"
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
	include    map[string]bool // nil: all
	exclude    map[string]bool
	priority   map[string]int
}

// NewSelector returns a selector over components, configured from the
// environment: GMPI_COLL="a,b" restricts to those components,
// GMPI_COLL="^a,b" excludes them, GMPI_COLL_<NAME>_PRIORITY overrides a
// priority.
func NewSelector(components ...Component) *Selector {
	s := &Selector{components: components, priority: map[string]int{}}
	if v := strings.TrimSpace(os.Getenv("GMPI_COLL")); v != "" {
		set := map[string]bool{}
		neg := strings.HasPrefix(v, "^")
		for _, n := range strings.Split(strings.TrimPrefix(v, "^"), ",") {
			set[strings.TrimSpace(n)] = true
		}
		if neg {
			s.exclude = set
		} else {
			s.include = set
		}
	}
	for _, c := range components {
		env := "GMPI_COLL_" + strings.ToUpper(c.Name()) + "_PRIORITY"
		if p, err := strconv.Atoi(os.Getenv(env)); err == nil {
			s.priority[c.Name()] = p
		}
	}
	return s
}

type candidate struct {
	name string
	prio int
	m    Module
}

// Select implements mpirt.CollSelector.
func (s *Selector) Select(c *mpirt.Comm) (*mpirt.CollTable, error) {
	var cands []candidate
	for _, comp := range s.components {
		n := comp.Name()
		if s.include != nil && !s.include[n] || s.exclude[n] {
			continue
		}
		p, m := comp.Query(c)
		if o, ok := s.priority[n]; ok {
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
		if err := cd.m.Enable(c, t); err != nil {
			return nil, fmt.Errorf("coll component %s: %w", cd.name, err)
		}
	}
	if t.Barrier == nil || t.Bcast == nil || t.Reduce == nil || t.Allreduce == nil || t.Sched[mpirt.CollBarrier] == nil {
		return nil, fmt.Errorf("no collective component covers every operation (GMPI_COLL=%q)", os.Getenv("GMPI_COLL"))
	}
	return t, nil
}
