package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"gmpi/coll"
	"gmpi/coll/components"
	"gmpi/runtime/param"
)

// mpirun --info (Open MPI's ompi_info is the model): the version, the
// devices, the collective components with their priorities, each
// operation's algorithms per component, and every tunable with its value
// in mpirun's environment (what the ranks would see), default and
// description. --all adds the launch plumbing mpirun sets for its ranks;
// --parsable prints colon-separated records instead:
//
//	version:<version>
//	device:<name>:<peers>
//	component:<name>:priority:<priority>:<default priority>
//	component:<name>:serves:<text>
//	coll:<op>:<component>:algorithms:<a>,<b>,...
//	coll:<op>:<component>:control:<variable>
//	param:<name>:value:<value>
//	param:<name>:default:<default>
//	param:<name>:type:<kind>
//	param:<name>:scope:<scope>
//	param:<name>:help:<description>

// devices are the transports the library picks between per peer pair.
var devices = []struct{ name, peers string }{
	{"shm", "peers the launch placed on this host (rings in shared memory, single-copy through cross-memory attach)"},
	{"tcp", "peers on other hosts, or every peer with GMPI_DEVICE=tcp"},
}

// printInfo writes the --info report to w; p are the tunables of
// mpirun's environment (which its ranks inherit). It returns an error
// when a tunable is malformed (the report is still printed).
func printInfo(w io.Writer, all, parsable bool, p *param.Values, perr error) error {
	comps, cerr := components.List(p, "")
	descs := make([]coll.Description, len(comps))
	for i, c := range comps {
		descs[i] = c.Describe()
	}
	// Highest priority first, as selection prefers them.
	prio := func(d coll.Description) int {
		if o, ok := coll.PriorityOverride(p, d.Name); ok {
			return o
		}
		return d.Priority
	}
	sort.SliceStable(descs, func(i, j int) bool { return prio(descs[i]) > prio(descs[j]) })
	ops, byOp := opTable(descs)
	vars := shownVars(all)
	if parsable {
		printParsable(w, descs, prio, ops, byOp, vars, p)
	} else {
		printHuman(w, descs, prio, ops, byOp, vars, p)
	}
	if cerr != nil {
		return fmt.Errorf("collective components: %v", cerr)
	}
	return perr
}

// opEntry is one component's algorithms for an operation.
type opEntry struct {
	comp string
	alg  coll.OpAlgorithms
}

// opTable lists the operations in the order components report them, and
// per operation the components offering it.
func opTable(descs []coll.Description) ([]string, map[string][]opEntry) {
	var ops []string
	byOp := map[string][]opEntry{}
	for _, d := range descs {
		for _, o := range d.Ops {
			if _, ok := byOp[o.Op]; !ok {
				ops = append(ops, o.Op)
			}
			byOp[o.Op] = append(byOp[o.Op], opEntry{d.Name, o})
		}
	}
	// The basic component lists every operation in CollOp order; keep
	// that order for all (stable: first seen wins otherwise).
	order := map[string]int{}
	for _, d := range descs {
		if d.Name == "basic" {
			for i, o := range d.Ops {
				order[o.Op] = i + 1
			}
		}
	}
	sort.SliceStable(ops, func(i, j int) bool {
		a, b := order[ops[i]], order[ops[j]]
		if a == 0 || b == 0 {
			return a != 0 && b == 0
		}
		return a < b
	})
	return ops, byOp
}

func shownVars(all bool) []*param.Var {
	var vs []*param.Var
	for _, v := range param.All() {
		if all || !v.Internal {
			vs = append(vs, v)
		}
	}
	return vs
}

// shownValue is v's value as shown: the environment's, or the default.
func shownValue(p *param.Values, v *param.Var) (string, bool) {
	raw, set := p.Raw(v)
	if !set {
		return v.Default, false
	}
	if v.Secret {
		return "(set, not shown)", true
	}
	return raw, true
}

func printHuman(w io.Writer, descs []coll.Description, prio func(coll.Description) int, ops []string,
	byOp map[string][]opEntry, vars []*param.Var, p *param.Values) {
	fmt.Fprintf(w, "gmpi %s: MPI 4.0, MPICH ABI (libmpi.so.12)\n\n", version)
	fmt.Fprintln(w, "Devices (one per peer pair, chosen at MPI_Init):")
	for _, d := range devices {
		fmt.Fprintf(w, "  %-6s %s\n", d.name, d.peers)
	}
	fmt.Fprintln(w, "\nCollective components (highest priority first; GMPI_COLL selects, GMPI_COLL_<NAME>_PRIORITY overrides):")
	for _, d := range descs {
		used := ""
		if !coll.Use(p, d.Name) {
			used = " [excluded by GMPI_COLL]"
		}
		over := ""
		if pr := prio(d); pr != d.Priority {
			over = fmt.Sprintf(" (default %d)", d.Priority)
		}
		fmt.Fprintf(w, "  %-6s priority %3d%s  %s%s\n", d.Name, prio(d), over, d.Serves, used)
	}
	fmt.Fprintln(w, "\nCollective operations (component: algorithms; the first is the fallback):")
	for _, op := range ops {
		fmt.Fprintf(w, "  %s\n", op)
		for _, e := range byOp[op] {
			line := fmt.Sprintf("    %-6s %s", e.comp, strings.Join(e.alg.Algorithms, ", "))
			if e.alg.Choice != "" {
				line += "; chosen by " + e.alg.Choice
			}
			if e.alg.Control != "" {
				val := ""
				if v := param.Lookup(e.alg.Control); v != nil {
					if s, set := shownValue(p, v); set {
						val = " = " + s
					}
				}
				line += "; " + e.alg.Control + val
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintln(w, "\nTunables (value in this environment; * set here):")
	scope := ""
	for _, v := range sortByScope(vars) {
		if v.Scope != scope {
			scope = v.Scope
			fmt.Fprintf(w, "  [%s]\n", scope)
		}
		val, set := shownValue(p, v)
		mark := " "
		if set {
			mark = "*"
		}
		def := v.Default
		if def == "" {
			def = `""`
		}
		if val == "" {
			val = `""`
		}
		fmt.Fprintf(w, "   %s%s = %s  (%s, default %s)\n        %s\n", mark, v.Name, val, v.Kind, def, v.Desc)
	}
}

func printParsable(w io.Writer, descs []coll.Description, prio func(coll.Description) int, ops []string,
	byOp map[string][]opEntry, vars []*param.Var, p *param.Values) {
	fmt.Fprintf(w, "version:%s\n", version)
	for _, d := range devices {
		fmt.Fprintf(w, "device:%s:%s\n", d.name, d.peers)
	}
	for _, d := range descs {
		fmt.Fprintf(w, "component:%s:priority:%d:%d\n", d.Name, prio(d), d.Priority)
		fmt.Fprintf(w, "component:%s:serves:%s\n", d.Name, d.Serves)
	}
	for _, op := range ops {
		for _, e := range byOp[op] {
			fmt.Fprintf(w, "coll:%s:%s:algorithms:%s\n", op, e.comp, strings.Join(e.alg.Algorithms, ","))
			if e.alg.Control != "" {
				fmt.Fprintf(w, "coll:%s:%s:control:%s\n", op, e.comp, e.alg.Control)
			}
		}
	}
	for _, v := range vars {
		val, _ := shownValue(p, v)
		fmt.Fprintf(w, "param:%s:value:%s\n", v.Name, val)
		fmt.Fprintf(w, "param:%s:default:%s\n", v.Name, v.Default)
		fmt.Fprintf(w, "param:%s:type:%s\n", v.Name, v.Kind)
		fmt.Fprintf(w, "param:%s:scope:%s\n", v.Name, v.Scope)
		fmt.Fprintf(w, "param:%s:help:%s\n", v.Name, v.Desc)
	}
}

// sortByScope orders variables by scope (library scopes first, tools
// last), then name.
func sortByScope(vs []*param.Var) []*param.Var {
	rank := map[string]int{param.ScopeRuntime: 0, param.ScopeLibrary: 1, param.ScopeShm: 2, param.ScopeTCP: 3,
		param.ScopeColl: 4, param.ScopeCollShm: 5, param.ScopeTuned: 6, param.ScopeLaunch: 7,
		param.ScopeMpirun: 8, param.ScopeMpicc: 9, param.ScopeEmu: 10}
	r := func(scope string) int {
		if x, ok := rank[scope]; ok {
			return x
		}
		return len(rank) // scopes added later: after the known ones
	}
	out := append([]*param.Var(nil), vs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := r(out[i].Scope), r(out[j].Scope)
		if a != b {
			return a < b
		}
		return out[i].Name < out[j].Name
	})
	return out
}
