package mpirt

import (
	"fmt"
	"strings"
)

// Location is where the launch placed a process in the grid: its site,
// machine and host, and the vendor MPI job it belongs to ("" when its
// machine has none). Without a grid file every process is in one site
// ("") and one machine (""), on the host the launch named.
type Location struct {
	Site, Machine, Host, VMPI string
	// Rep is the process's data representation (Rep.Encode); empty when
	// its launcher did not say, which means the same as this process's.
	Rep string
}

// Encode is the form a Location travels in through the PMI key-value
// space: the fields separated by newlines (names never hold one).
func (l Location) Encode() string {
	return strings.Join([]string{l.Host, l.Site, l.Machine, l.VMPI, l.Rep}, "\n")
}

// DecodeLocation reads what Encode wrote. A value without newline is a
// bare host name (what launchers that know no grid publish).
func DecodeLocation(s string) (Location, error) {
	f := strings.Split(s, "\n")
	switch len(f) {
	case 1:
		return Location{Host: f[0]}, nil
	case 4:
		return Location{Host: f[0], Site: f[1], Machine: f[2], VMPI: f[3]}, nil
	case 5:
		return Location{Host: f[0], Site: f[1], Machine: f[2], VMPI: f[3], Rep: f[4]}, nil
	}
	return Location{}, fmt.Errorf("malformed location %q", s)
}

// The topology levels of the MPICHX attributes (MPICH-G2's).
const (
	LevelWAN  = 0 // wide area: every process
	LevelLAN  = 1 // local area: the same site
	LevelSAN  = 2 // system area: the same machine
	LevelVMPI = 3 // the same vendor MPI job
)

// GridTopology is the grid as the MPICHX_TOPOLOGY_DEPTHS and
// MPICHX_TOPOLOGY_COLORS attributes show it, per world rank: Depth[r] is
// 4 for a process of a machine with a vendor MPI and 3 otherwise;
// Colors[r][level] (level < Depth[r]) numbers the process's cluster at
// that level. Two processes share a color at a level iff they can talk at
// that level. Colors of a level are numbered 0, 1, ... in the order their
// first process appears in MPI_COMM_WORLD, so every process computes the
// same numbers.
type GridTopology struct {
	Depth  []int
	Colors [][]int
}

// NewGridTopology computes the topology of processes at locs (indexed by
// world rank).
func NewGridTopology(locs []Location) *GridTopology {
	t := &GridTopology{Depth: make([]int, len(locs)), Colors: make([][]int, len(locs))}
	sites, machines, vmpis := map[string]int{}, map[[2]string]int{}, map[[3]string]int{}
	number := func(m map[[3]string]int, k [3]string) int {
		if c, ok := m[k]; ok {
			return c
		}
		m[k] = len(m)
		return m[k]
	}
	for r, l := range locs {
		if _, ok := sites[l.Site]; !ok {
			sites[l.Site] = len(sites)
		}
		mk := [2]string{l.Site, l.Machine}
		if _, ok := machines[mk]; !ok {
			machines[mk] = len(machines)
		}
		c := []int{0, sites[l.Site], machines[mk]}
		if l.VMPI != "" {
			c = append(c, number(vmpis, [3]string{l.Site, l.Machine, l.VMPI}))
		}
		t.Depth[r], t.Colors[r] = len(c), c
	}
	return t
}

// Locations returns the location of every world rank (nil until known:
// set from Config.Locations, or from the host names once they are known,
// as one site and one machine).
func (w *World) Locations() []Location {
	w.hostsMu.Lock()
	defer w.hostsMu.Unlock()
	if w.locs == nil && w.hosts != nil {
		w.locs = make([]Location, len(w.hosts))
		for r, h := range w.hosts {
			w.locs[r] = Location{Host: h}
		}
	}
	return w.locs
}

// GridTopology is the job's topology (see GridTopology), computed once the
// locations are known; nil before.
func (w *World) GridTopology() *GridTopology {
	locs := w.Locations()
	if locs == nil {
		return nil
	}
	w.hostsMu.Lock()
	defer w.hostsMu.Unlock()
	if w.gridTopo == nil {
		w.gridTopo = NewGridTopology(locs)
	}
	return w.gridTopo
}
