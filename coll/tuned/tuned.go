// Package tuned is the collective component of the classic algorithms
// (binomial and scatter+allgather broadcast, recursive doubling,
// Rabenseifner and ring allreduce, Bruck and ring allgather, Bruck and
// pairwise all-to-all, ...). Each call picks its algorithm from a
// decision table kept as data (decision.json, embedded; GMPI_COLL_TUNED_FILE
// names a replacement) by communicator size and message size, or takes
// the one forced by GMPI_COLL_TUNED_<OP>_ALGORITHM. Every algorithm is a
// schedule builder, so blocking, nonblocking and persistent calls all get
// it. Selection reads only rank-invariant inputs (communicator size,
// count x type size, operator commutativity), so every rank of a call
// picks the same algorithm; an algorithm whose preconditions do not hold
// falls back to its operation's first (always usable) algorithm.
package tuned

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Priority is the component's default priority: above basic (0), below
// the shared-memory component.
const Priority = 30

// GMPI_COLL_TUNED_PRIORITY overrides Priority (the selector reads it).
var _ = coll.PriorityParam("tuned", Priority)

// Algorithm is one way to run an operation.
type Algorithm struct {
	Name string
	// Usable reports whether the algorithm's preconditions hold for a
	// call (nil: always). It must read only rank-invariant inputs.
	Usable func(c *mpirt.Comm, a *mpirt.CollArgs) bool
	Build  mpirt.SchedFunc
	// Basic marks the algorithm the basic component's blocking function
	// (bcast, reduce, allreduce) implements, which blocking calls then
	// use directly: it avoids the schedule's copies and allocations, and
	// measured faster at 2 and 4 processes on 2 cores.
	Basic bool
}

// Algorithms lists each operation's algorithms; the first of each list
// is always usable and is the fallback of the others.
var Algorithms = map[mpirt.CollOp][]Algorithm{
	mpirt.CollBarrier: {{Name: "dissemination", Build: basic.SchedBarrier, Basic: true}},
	mpirt.CollBcast: {
		{Name: "binomial", Build: basic.SchedBcast, Basic: true},
		{Name: "scatter_allgather", Build: bcastScatterAllgather},
	},
	mpirt.CollReduce: {
		{Name: "binomial", Build: basic.SchedReduce, Basic: true},
		{Name: "rabenseifner", Usable: commutative, Build: reduceRabenseifner},
	},
	mpirt.CollAllreduce: {
		{Name: "reduce_bcast", Build: basic.SchedAllreduce, Basic: true},
		{Name: "recursive_doubling", Build: allreduceRecursiveDoubling},
		{Name: "rabenseifner", Usable: commutative, Build: allreduceRabenseifner},
		{Name: "ring", Usable: commutative, Build: allreduceRing},
	},
	mpirt.CollAllgather: {
		{Name: "linear", Build: basic.SchedAllgather},
		{Name: "ring", Build: allgatherRing},
		{Name: "recursive_doubling", Usable: powerOfTwo, Build: allgatherRecursiveDoubling},
		{Name: "bruck", Build: allgatherBruck},
	},
	mpirt.CollAlltoall: {
		{Name: "linear", Build: basic.SchedAlltoall},
		{Name: "pairwise", Usable: notInPlace, Build: alltoallPairwise},
		{Name: "bruck", Build: alltoallBruck},
	},
	mpirt.CollGather:  {{Name: "binomial", Build: gatherBinomial}},
	mpirt.CollScatter: {{Name: "binomial", Build: scatterBinomial}},
	mpirt.CollReduceScatter: {
		{Name: "linear", Build: basic.SchedReduceScatter},
		{Name: "recursive_halving", Usable: commutative, Build: reduceScatterHalving},
		{Name: "ring", Usable: commutative, Build: reduceScatterRing},
	},
	mpirt.CollReduceScatterBlock: {
		{Name: "linear", Build: basic.SchedReduceScatterBlock},
		{Name: "recursive_halving", Usable: commutative, Build: reduceScatterBlockHalving},
		{Name: "ring", Usable: commutative, Build: reduceScatterBlockRing},
	},
}

func powerOfTwo(c *mpirt.Comm, _ *mpirt.CollArgs) bool { n := c.Size(); return n&(n-1) == 0 }

func notInPlace(_ *mpirt.Comm, a *mpirt.CollArgs) bool { return !mpirt.IsInPlace(a.Sbuf) }

// commutative: the operator is commutative (the algorithm combines
// blocks in an order other than the canonical one). It depends on the
// operator only, never on the datatype's layout, which may differ
// between processes.
func commutative(_ *mpirt.Comm, a *mpirt.CollArgs) bool { return a.Op.IsCommutative() }

// Rule is one row of the decision table.
type Rule struct {
	ProcsMax  int    `json:"procs_max,omitempty"` // communicator size at most (0: any)
	BytesMax  int    `json:"bytes_max,omitempty"` // count x type size at most (0: any)
	Algorithm string `json:"algorithm"`
}

// Table is a decision table: rules per operation name.
type Table map[string][]Rule

//go:embed decision.json
var defaultTable []byte

// ParseTable reads a decision table and checks that every rule names an
// operation and an algorithm that exist.
func ParseTable(data []byte) (Table, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	t := Table{}
	for name, v := range raw {
		if strings.HasPrefix(name, "_") {
			continue
		}
		op, ok := opByName(name)
		if !ok {
			return nil, fmt.Errorf("unknown operation %q", name)
		}
		var rules []Rule
		if err := json.Unmarshal(v, &rules); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, r := range rules {
			if find(op, r.Algorithm) == nil {
				return nil, fmt.Errorf("%s: unknown algorithm %q (have %s)", name, r.Algorithm, strings.Join(Names(op), ", "))
			}
		}
		t[name] = rules
	}
	return t, nil
}

func opByName(name string) (mpirt.CollOp, bool) {
	for op := range mpirt.NumCollOps {
		if op.String() == name {
			return op, true
		}
	}
	return 0, false
}

func find(op mpirt.CollOp, name string) *Algorithm {
	for i, a := range Algorithms[op] {
		if a.Name == name {
			return &Algorithms[op][i]
		}
	}
	return nil
}

// Names lists an operation's algorithms.
func Names(op mpirt.CollOp) []string {
	var s []string
	for _, a := range Algorithms[op] {
		s = append(s, a.Name)
	}
	return s
}

// Ops lists the operations the component implements, in CollOp order.
func Ops() []mpirt.CollOp {
	var ops []mpirt.CollOp
	for op := range Algorithms {
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i] < ops[j] })
	return ops
}

// DefaultTable is the embedded decision table.
func DefaultTable() Table {
	t, err := ParseTable(defaultTable)
	if err != nil {
		panic("coll/tuned: embedded decision table: " + err.Error())
	}
	return t
}

// ForceVar is the environment variable that forces op's algorithm.
func ForceVar(op mpirt.CollOp) string {
	return param.TunedAlgorithm.Name(op.String())
}

// forceParams are the declarations of the ForceVar variables, one per
// operation of Algorithms.
var forceParams [mpirt.NumCollOps]param.P[string]

func init() {
	for _, op := range Ops() {
		forceParams[op] = param.TunedAlgorithm.String(op.String(), "",
			"forces the tuned algorithm of "+op.String()+" (empty: the decision table)", Names(op)...)
	}
}

// Component is the tuned component of one world.
type Component struct {
	table  Table
	forced [mpirt.NumCollOps]*Algorithm
}

var _ coll.Component = (*Component)(nil)

// New builds the component from the tunables p (nil: the process
// environment): the decision table (GMPI_COLL_TUNED_FILE or the embedded
// one) and the forced algorithms.
func New(p *param.Values) (*Component, error) {
	p, err := param.OrEnv(p)
	if err != nil {
		return nil, err
	}
	c := &Component{table: DefaultTable()}
	if f := param.TunedFile.Get(p); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("GMPI_COLL_TUNED_FILE: %w", err)
		}
		if c.table, err = ParseTable(data); err != nil {
			return nil, fmt.Errorf("GMPI_COLL_TUNED_FILE %s: %w", f, err)
		}
	}
	for _, op := range Ops() {
		v := forceParams[op].Get(p)
		if v == "" {
			continue
		}
		if c.forced[op] = find(op, v); c.forced[op] == nil {
			return nil, fmt.Errorf("%s=%s: no such algorithm (have %s)", ForceVar(op), v, strings.Join(Names(op), ", "))
		}
	}
	return c, nil
}

func (*Component) Name() string { return "tuned" }

// Describe implements coll.Component.
func (*Component) Describe(*param.Values) coll.Description {
	d := coll.Description{Name: "tuned", Priority: Priority, Serves: "intracommunicators of at least two processes"}
	for _, op := range Ops() {
		d.Ops = append(d.Ops, coll.OpAlgorithms{Op: op.String(), Algorithms: Names(op),
			Control: ForceVar(op), Choice: "decision table"})
	}
	return d
}

// Query serves intracommunicators of at least two processes.
func (t *Component) Query(c *mpirt.Comm) (int, coll.Module) {
	if c.IsInter() || c.Size() < 2 {
		return -1, nil
	}
	return Priority, t
}

// Choose returns the algorithm a call of op with args a on c runs.
func (t *Component) Choose(op mpirt.CollOp, c *mpirt.Comm, a *mpirt.CollArgs) *Algorithm {
	alg := t.forced[op]
	if alg == nil {
		n, bytes := c.Size(), callBytes(op, c, a)
		for _, r := range t.table[op.String()] {
			if (r.ProcsMax == 0 || n <= r.ProcsMax) && (r.BytesMax == 0 || bytes <= r.BytesMax) {
				alg = find(op, r.Algorithm)
				break
			}
		}
	}
	if alg == nil || alg.Usable != nil && !alg.Usable(c, a) {
		alg = &Algorithms[op][0]
	}
	return alg
}

// callBytes is the message size of a call, equal on every rank: count x
// type size of the side whose arguments are significant on this rank.
func callBytes(op mpirt.CollOp, c *mpirt.Comm, a *mpirt.CollArgs) int {
	switch op {
	case mpirt.CollBarrier:
		return 0
	case mpirt.CollGather:
		if c.Rank() != a.Root {
			return a.Scount * a.Sdt.Size()
		}
	case mpirt.CollScatter:
		if c.Rank() == a.Root {
			return a.Scount * a.Sdt.Size()
		}
	case mpirt.CollReduceScatter:
		total := 0
		for _, k := range a.Rcounts {
			total += k
		}
		return total * a.Rdt.Size()
	}
	return a.Rcount * a.Rdt.Size()
}

// Enable implements coll.Module: the schedule of every operation the
// component has, and blocking entries that use the basic component's
// blocking function when the chosen algorithm is the one it runs.
func (t *Component) Enable(c *mpirt.Comm, tab *mpirt.CollTable) error {
	for _, op := range Ops() {
		tab.Sched[op] = func(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
			return t.Choose(op, c, a).Build(c, a)
		}
		tab.Blocking[op] = nil
	}
	prev := *tab
	run := func(op mpirt.CollOp, c *mpirt.Comm, a *mpirt.CollArgs) (bool, error) {
		if t.Choose(op, c, a).Basic && blockingOf(op, &prev) {
			return false, nil
		}
		r, err := c.CollStart(op, a)
		if err != nil {
			return true, err
		}
		return true, c.World().Wait(r)
	}
	tab.Barrier = prev.Barrier
	tab.Bcast = func(c *mpirt.Comm, buf unsafe.Pointer, count int, dt *mpirt.Datatype, root int) error {
		if done, err := run(mpirt.CollBcast, c, &mpirt.CollArgs{Rbuf: buf, Rcount: count, Rdt: dt, Root: root}); done || prev.Bcast == nil {
			return err
		}
		return prev.Bcast(c, buf, count, dt, root)
	}
	tab.Reduce = func(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) error {
		if done, err := run(mpirt.CollReduce, c, &mpirt.CollArgs{Sbuf: sbuf, Rbuf: rbuf, Rcount: count, Rdt: dt, Op: op, Root: root}); done || prev.Reduce == nil {
			return err
		}
		return prev.Reduce(c, sbuf, rbuf, count, dt, op, root)
	}
	tab.Allreduce = func(c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle) error {
		if done, err := run(mpirt.CollAllreduce, c, &mpirt.CollArgs{Sbuf: sbuf, Rbuf: rbuf, Rcount: count, Rdt: dt, Op: op}); done || prev.Allreduce == nil {
			return err
		}
		return prev.Allreduce(c, sbuf, rbuf, count, dt, op)
	}
	return nil
}

// blockingOf reports whether the previous table has a blocking function
// for op (the basic component's, which runs the algorithm marked Basic).
func blockingOf(op mpirt.CollOp, t *mpirt.CollTable) bool {
	switch op {
	case mpirt.CollBcast:
		return t.Bcast != nil
	case mpirt.CollReduce:
		return t.Reduce != nil
	case mpirt.CollAllreduce:
		return t.Allreduce != nil
	}
	return false
}
