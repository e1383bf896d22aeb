package main

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"gmpi/devices/relay"
	"gmpi/mpirun/grid"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// slot is where one rank runs and how it is started.
type slot struct {
	host                string   // host name the launch gives (GMPI_HOSTNAME)
	site, machine, vmpi string   // grid location ("" without a grid file)
	listen              string   // GMPI_TCP_IF from the grid file ("" none)
	ports               string   // GMPI_TCP_PORT_RANGE from the grid file ("" none)
	sourcePorts         string   // GMPI_TCP_SOURCE_PORT_RANGE from the grid file ("" none)
	advertise           string   // GMPI_TCP_ADVERTISE from the grid file ("" none)
	gateway             string   // the gateway a private host is launched through ("" none)
	arch, executable    string   // the machine's architecture and program ("" mpirun's; arch.go)
	unseen              []string // declared file systems the machine does not see (GMPI_IO_UNSEEN)
	launcher            grid.Launcher
	group               *vendorGroup // the vendor MPI machine's ranks (vmpi.go), nil without
	localRank           int          // rank among the job's processes on host
	localSize           int
}

// remote says whether the slot's process runs somewhere mpirun cannot
// hand it a file descriptor.
func (s *slot) remote() bool { return s.launcher.PMI == "tcp" }

// location is the slot's place in the grid, as the rank will publish it.
func (s *slot) location() mpirt.Location {
	return mpirt.Location{Site: s.site, Machine: s.machine, Host: s.host, VMPI: s.vmpi}
}

// sshLauncher is the launcher of -H/--hostfile hosts other than this one.
func sshLauncher(p *param.Values) grid.Launcher {
	prog := param.SSH.Get(p)
	if prog == "" {
		prog = "ssh"
	}
	return grid.Launcher{Kind: grid.SSH, Program: prog, PMI: "tcp"}
}

// place decides every rank's slot: from the grid file, else from
// -H/--hostfile (hosts filled with their slots in turn, wrapping around
// as hydra does; hosts other than this one are started with ssh), else
// all on this host. It also fills in the apps' default process counts.
func (j *job) place() error {
	if j.opts.grid != "" {
		return j.placeGrid()
	}
	slots := 0
	for _, h := range j.opts.hosts {
		slots += max(h.slots, 1)
	}
	for i := range j.opts.apps {
		a := &j.opts.apps[i]
		if a.n == 0 {
			if len(j.opts.apps) == 1 && slots > 0 {
				a.n = slots
			} else {
				a.n = 1
			}
		}
		j.size += a.n
	}
	if len(j.opts.apps) == 0 { // --show-topology without a program
		j.size = max(slots, 1)
	}
	chosen, err := grid.ParseLauncher(j.opts.launcher) // checked by parseArgs
	if err != nil {
		return err
	}
	if chosen.Kind == grid.SSH {
		chosen = sshLauncher(j.params)
	}
	j.slots = make([]slot, 0, j.size)
	if len(j.opts.hosts) == 0 {
		for len(j.slots) < j.size {
			j.slots = append(j.slots, slot{host: j.host, launcher: chosen})
		}
	}
	for len(j.slots) < j.size {
		for _, h := range j.opts.hosts {
			s := slot{host: h.name, launcher: chosen}
			if isLocalHost(h.name, j.host) {
				s.host = j.host
			} else if chosen.Kind == grid.Local {
				s.launcher = sshLauncher(j.params)
			}
			for k := 0; k < max(h.slots, 1) && len(j.slots) < j.size; k++ {
				j.slots = append(j.slots, s)
			}
		}
	}
	j.localRanks()
	return nil
}

// placeGrid places the ranks as the grid file says.
func (j *job) placeGrid() error {
	g, err := grid.ReadFile(j.opts.grid)
	if err != nil {
		return err
	}
	j.grid = g
	if len(j.opts.hosts) > 0 {
		return fmt.Errorf("--grid and -H/--hostfile exclude each other")
	}
	ranks := g.Ranks()
	placed := false
	for _, a := range j.opts.apps {
		placed = placed || a.at != ""
	}
	if placed {
		if ranks, err = placeAt(g, j.opts.apps); err != nil {
			return err
		}
	}
	given := 0
	for i := range j.opts.apps {
		a := &j.opts.apps[i]
		if a.n == 0 {
			if len(j.opts.apps) > 1 {
				return fmt.Errorf("with --grid and several programs, give each program's -n (the grid places %d processes)", len(ranks))
			}
			a.n = len(ranks)
		}
		given += a.n
	}
	if len(j.opts.apps) > 0 && given != len(ranks) {
		return fmt.Errorf("-n asks for %d processes but grid file %s places %d", given, j.opts.grid, len(ranks))
	}
	j.size = len(ranks)
	for _, r := range ranks {
		h := r.Host
		m := h.Machine
		s := slot{host: h.Name, site: m.Site.Name, machine: m.Name, listen: h.Listen, launcher: m.Launcher,
			ports: h.PortRange(), sourcePorts: h.SourcePortRange(), advertise: h.Advertise, arch: m.Arch, executable: m.Executable,
			unseen: g.Unseen(m)}
		if grid.HostPrivate(h) {
			s.gateway = m.Site.Gateway
		}
		if s.listen == "" {
			s.listen = m.Site.Interface
		}
		if m.VMPI != nil {
			s.vmpi = m.Name
		}
		j.slots = append(j.slots, s)
	}
	// A machine of another architecture whose program or emulator is
	// missing stops the job before anything starts.
	for i := range j.slots {
		for _, a := range j.opts.apps {
			if _, err := archProgram(&j.slots[i], a.argv); err != nil {
				return err
			}
		}
	}
	j.vendorGroups(g)
	j.localRanks()
	return nil
}

// placeAt places the apps' processes by their --at: round-robin over
// the grid's slots at that place; apps without --at over all the grid's
// slots.
func placeAt(g *grid.Grid, apps []app) ([]grid.Rank, error) {
	all := g.Ranks()
	var out []grid.Rank
	for i, a := range apps {
		if a.n == 0 {
			return nil, fmt.Errorf("with --at, give each program's -n (program %d has none)", i+1)
		}
		cands := all
		if a.at != "" {
			kind, name, _ := strings.Cut(a.at, "=")
			match := func(h *grid.Host) bool {
				switch kind {
				case "site":
					return h.Machine.Site.Name == name
				case "machine":
					return h.Machine.Name == name
				}
				return h.Name == name
			}
			cands = nil
			for _, r := range all {
				if match(r.Host) {
					cands = append(cands, r)
				}
			}
			if len(cands) == 0 {
				return nil, fmt.Errorf("--at %s: grid file %s has no %s %q", a.at, g.Path, kind, name)
			}
		}
		if len(cands) == 0 {
			return nil, fmt.Errorf("grid file %s places no process", g.Path)
		}
		for k := range a.n {
			out = append(out, grid.Rank{Rank: len(out), Host: cands[k%len(cands)].Host})
		}
	}
	return out, nil
}

// localRanks numbers the ranks of each host.
func (j *job) localRanks() {
	count := map[string]int{}
	for i := range j.slots {
		s := &j.slots[i]
		s.localRank = count[s.host]
		count[s.host]++
	}
	for i := range j.slots {
		j.slots[i].localSize = count[j.slots[i].host]
	}
}

// hostNames lists the distinct hosts of the job in rank order.
func (j *job) hostNames() []string {
	seen := map[string]bool{}
	var hs []string
	for _, s := range j.slots {
		if !seen[s.host] {
			seen[s.host] = true
			hs = append(hs, s.host)
		}
	}
	return hs
}

// processMapping is PMI_process_mapping in MPICH's vector form: one
// (node, 1, ranks) block per run of consecutive ranks on one host, nodes
// numbered in order of first appearance, adjacent blocks of equal size on
// consecutive nodes merged.
func (j *job) processMapping() string {
	node := map[string]int{}
	type block struct{ start, n, ppn int }
	var bs []block
	for i := 0; i < len(j.slots); {
		h := j.slots[i].host
		if _, ok := node[h]; !ok {
			node[h] = len(node)
		}
		k := i
		for k < len(j.slots) && j.slots[k].host == h {
			k++
		}
		b := block{node[h], 1, k - i}
		if l := len(bs) - 1; l >= 0 && bs[l].ppn == b.ppn && bs[l].start+bs[l].n == b.start {
			bs[l].n++
		} else {
			bs = append(bs, b)
		}
		i = k
	}
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("(%d,%d,%d)", b.start, b.n, b.ppn)
	}
	return "(vector," + strings.Join(parts, ",") + ")"
}

// showTopology prints the placement and the topology attributes every
// rank will see, without running anything.
func (j *job) showTopology() {
	var b strings.Builder
	locs := make([]mpirt.Location, len(j.slots))
	for r := range j.slots {
		locs[r] = j.slots[r].location()
	}
	topo := mpirt.NewGridTopology(locs)
	ranksOf := map[string][]int{}
	for r, s := range j.slots {
		ranksOf[s.host] = append(ranksOf[s.host], r)
	}
	if g := j.grid; g != nil {
		nm := 0
		for _, s := range g.Sites {
			nm += len(s.Machines)
		}
		fmt.Fprintf(&b, "grid %s: %d site(s), %d machine(s), %d host(s), %d rank(s)\n", g.Path, len(g.Sites), nm, len(g.Hosts()), j.size)
		for _, s := range g.Sites {
			fmt.Fprintf(&b, "site %s (color %d at level 1)", s.Name, topo.Colors[firstRankOfSite(j, s.Name)][1])
			switch {
			case s.Relay:
				fmt.Fprintf(&b, ", private: reached through the relay on %s", s.Gateway)
			case s.Private:
				fmt.Fprintf(&b, ", private behind %s, no relay: its other hosts cannot reach other sites", s.Gateway)
			}
			if s.Ports != "" {
				fmt.Fprintf(&b, ", port range %s", s.Ports)
			}
			if s.SourcePorts != "" {
				fmt.Fprintf(&b, ", source port range %s", s.SourcePorts)
			}
			if s.Interface != "" {
				fmt.Fprintf(&b, ", interface %s", s.Interface)
			}
			if len(s.Firewall) > 0 {
				fmt.Fprintf(&b, ", emulated firewall admits %s", strings.Join(s.Firewall, ","))
			}
			if len(s.Egress) > 0 {
				fmt.Fprintf(&b, ", emulated egress only from source ports %s", strings.Join(s.Egress, ","))
			}
			b.WriteString("\n")
			for _, m := range s.Machines {
				what := "launcher " + launcherName(m.Launcher)
				if m.VMPI != nil {
					what += ", vendor MPI " + m.VMPI.Lib
				}
				if len(m.FileSystems) > 0 {
					what += ", file systems " + strings.Join(m.FileSystems, " ")
				}
				fmt.Fprintf(&b, "  machine %s (%s)\n", m.Name, what)
				for _, h := range m.Hosts {
					fmt.Fprintf(&b, "    host %s: rank(s) %s", h.Name, rankList(ranksOf[h.Name]))
					if h.Listen != "" {
						fmt.Fprintf(&b, ", listen %s", h.Listen)
					}
					if h.Advertise != "" {
						fmt.Fprintf(&b, ", advertise %s", h.Advertise)
					}
					if h.Ports != "" {
						fmt.Fprintf(&b, ", port range %s", h.Ports)
					}
					if h.SourcePorts != "" {
						fmt.Fprintf(&b, ", source port range %s", h.SourcePorts)
					}
					if s.Relay && h.Name == s.Gateway {
						b.WriteString(", gateway (runs the site's relay)")
					}
					b.WriteString("\n")
				}
			}
		}
		if len(g.Sites) > 1 {
			b.WriteString("wide-area links (one way, each direction):\n")
			for i, a := range g.Sites {
				for _, c := range g.Sites[i+1:] {
					l := g.LinkBetween(a.Name, c.Name)
					fmt.Fprintf(&b, "  %s <-> %s: latency %v, bandwidth %s\n", a.Name, c.Name, l.Latency, grid.FormatBandwidth(l.Bandwidth))
				}
			}
			b.WriteString(routeSummary(g))
		}
		if fss := g.FileSystems(); len(fss) > 0 {
			b.WriteString("file systems (other directories: seen by every machine):\n")
			for _, fs := range fss {
				var seen, blind []string
				for _, s := range g.Sites {
					for _, m := range s.Machines {
						if slices.Contains(m.FileSystems, fs) {
							seen = append(seen, m.Name)
						} else {
							blind = append(blind, m.Name)
						}
					}
				}
				fmt.Fprintf(&b, "  %s: seen by %s", fs, strings.Join(seen, ", "))
				if len(blind) > 0 {
					fmt.Fprintf(&b, "; not by %s (MPI-IO goes through processes that see it)", strings.Join(blind, ", "))
				}
				b.WriteString("\n")
			}
		}
		pr := param.TCPPortRange.Get(j.params)
		if pr == "" {
			pr = "any"
		}
		fmt.Fprintf(&b, "port ranges: %s elsewhere (GMPI_TCP_PORT_RANGE; mpirun's PMI port too)\n", pr)
		if sr := param.TCPSourcePortRange.Get(j.params); sr != "" {
			fmt.Fprintf(&b, "source port ranges: %s elsewhere (GMPI_TCP_SOURCE_PORT_RANGE)\n", sr)
		}
	} else {
		hs := j.hostNames()
		fmt.Fprintf(&b, "no grid file: 1 site, 1 machine, %d host(s), %d rank(s)\n", len(hs), j.size)
		for _, h := range hs {
			fmt.Fprintf(&b, "  host %s: rank(s) %s\n", h, rankList(ranksOf[h]))
		}
	}
	b.WriteString("topology attributes (MPICHX_TOPOLOGY_DEPTHS, MPICHX_TOPOLOGY_COLORS) of MPI_COMM_WORLD;\n")
	b.WriteString("color levels: 0 wide area, 1 site, 2 machine, 3 vendor MPI job\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rank\thost\tsite\tmachine\tdepth\tcolors")
	for r, s := range j.slots {
		cs := make([]string, len(topo.Colors[r]))
		for i, c := range topo.Colors[r] {
			cs[i] = strconv.Itoa(c)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", r, s.host, orDash(s.site), orDash(s.machine), topo.Depth[r], strings.Join(cs, " "))
	}
	tw.Flush()
	os.Stdout.WriteString(b.String())
}

// routeSummary says, per pair of sites, which host pairs connect directly
// and which through relays.
func routeSummary(g *grid.Grid) string {
	routes := relay.Routes{}
	for _, s := range g.Sites {
		if s.Relay {
			routes[s.Name] = relay.Relay{Site: s.Name, Gateway: s.Gateway}
		}
	}
	var b strings.Builder
	b.WriteString("routes between sites (tcp):\n")
	for i, a := range g.Sites {
		for _, c := range g.Sites[i+1:] {
			count := map[string]int{}
			var order []string
			for _, ha := range a.Hosts() {
				for _, hc := range c.Hosts() {
					d := routes.Describe(a.Name, ha.Name, c.Name, hc.Name)
					if count[d] == 0 {
						order = append(order, d)
					}
					count[d]++
				}
			}
			parts := make([]string, len(order))
			for k, d := range order {
				parts[k] = fmt.Sprintf("%d host pair(s) %s", count[d], d)
			}
			fmt.Fprintf(&b, "  %s <-> %s: %s\n", a.Name, c.Name, strings.Join(parts, ", "))
		}
	}
	return b.String()
}

func firstRankOfSite(j *job, site string) int {
	for r, s := range j.slots {
		if s.site == site {
			return r
		}
	}
	return 0
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func launcherName(l grid.Launcher) string {
	if l.Name != "" {
		return l.Name
	}
	switch l.Kind {
	case grid.Template:
		return fmt.Sprintf("%q", strings.Join(l.Command, " "))
	case grid.SSH:
		return "ssh"
	}
	return "local"
}

// rankList writes ranks compactly: "0-3,7".
func rankList(rs []int) string {
	sort.Ints(rs)
	var parts []string
	for i := 0; i < len(rs); {
		k := i
		for k+1 < len(rs) && rs[k+1] == rs[k]+1 {
			k++
		}
		if k > i {
			parts = append(parts, fmt.Sprintf("%d-%d", rs[i], rs[k]))
		} else {
			parts = append(parts, strconv.Itoa(rs[i]))
		}
		i = k + 1
	}
	return strings.Join(parts, ",")
}
