// Package grid reads gmpi's grid files: TOML descriptions of the sites,
// machines and hosts of a job, the processes on each host, how each
// machine's processes are started, and the wide-area links between sites.
//
//	# The default wide-area link between any two sites (one way, each
//	# direction on its own); [[wan.link]] overrides it for one pair.
//	[wan]
//	latency = "10ms"          # Go duration: "800us", "10ms", "1.5s"
//	bandwidth = "1MB/s"       # B/s, KB/s, MB/s, GB/s (powers of 1000), KiB/s,
//	                          # MiB/s, GiB/s, bit/s, kbit/s, Mbit/s, Gbit/s;
//	                          # "unlimited" or absent: no limit
//	[[wan.link]]
//	sites = ["east", "west"]
//	latency = "30ms"
//
//	[[site]]
//	name = "east"
//	port_range = "40000:40015" # ports gmpi listens on there (GMPI_TCP_PORT_RANGE)
//	source_port_range = "40100:40115" # ports its connections to other hosts
//	                          # leave from (egress rules; GMPI_TCP_SOURCE_PORT_RANGE)
//	interface = "10.1.0.0/16" # where its ranks listen: addresses, CIDRs or
//	                          # interface names, a string or a list (GMPI_TCP_IF)
//	private = true            # its hosts are on a private network: other
//	                          # sites reach them only through a relay on
//	gateway = "e1"            # this host (default: the site's first host)
//	relay = false             # no relay: its private hosts stay cut off
//	firewall = "40000:40015"  # --emulate only: the site admits inbound TCP on
//	                          # these ports only (a string or a list of ranges)
//	egress = "40100:40115"    # --emulate only: connections from the site to
//	                          # other sites may leave only from these ports
//
//	  [[site.machine]]
//	  name = "east-cluster"
//	  launcher = "local"      # "local" (default), "ssh", "srun", "hydra",
//	                          # or a command template such as
//	                          # "ip netns exec {host} {cmd}" ({gateway}: the
//	                          # gateway of a private site; ssh hops through
//	                          # it with -J)
//	  procs = 1               # processes per host (default 1)
//	  hosts = ["e1", "e2"]    # hosts with the machine's procs, or:
//
//	  [[site.machine.host]]
//	  name = "e3"
//	  procs = 2
//	  listen = "10.0.0.3"     # address the host's ranks listen on (GMPI_TCP_IF)
//	  advertise = "192.0.2.3" # the address other hosts dial, when it differs
//	                          # (NAT; GMPI_TCP_ADVERTISE)
//	  port_range = "41000:41099" # overrides the site's
//	  source_port_range = "41100:41109" # overrides the site's
//
//	  [site.machine.ssh]      # launcher = "ssh" only
//	  user = "me"
//	  port = 22
//	  options = ["-o", "BatchMode=yes"]
//	  program = "ssh"         # the ssh client to run
//
//	  arch = "s390x"          # the machine's architecture (default: mpirun's);
//	                          # one that differs runs PROG.ARCH, through
//	                          # qemu-ARCH-static when this computer cannot
//	  executable = "/path/z/prog"  # the program to run there instead
//	  filesystems = ["/scratch"]   # directories only this machine (and the
//	                          # others that list them) sees; a directory no
//	                          # machine lists is seen by all. MPI-IO routes
//	                          # the others' access to a file there through
//	                          # processes that see it; --emulate hides it
//	                          # from the other machines' hosts
//
//	  [site.machine.vmpi]     # the machine's vendor MPI
//	  lib = "/opt/vendor/lib/libmpi.so"
//	  launcher = "mpiexec"
//
// Ranks are numbered in file order: site by site, machine by machine, host
// by host. Names of sites, machines and hosts are unique in the file.
// Every error names the file and line.
package grid

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"gmpi/runtime/ports"
)

// Grid is a parsed grid file.
type Grid struct {
	Path  string
	Sites []*Site
	// WAN is the link between sites that Links does not name.
	WAN Link
	// Links are the per-pair overrides, A and B set.
	Links []Link
}

// Site is a set of machines on one local-area network.
type Site struct {
	Name     string
	Machines []*Machine
	// Ports is the range gmpi's sockets listen in ("" any port).
	Ports string
	// SourcePorts is the range its connections to other hosts leave
	// from ("" any port).
	SourcePorts string
	// Interface is GMPI_TCP_IF for its hosts without their own listen
	// ("" default; a list is comma-separated).
	Interface string
	// Private: other sites reach its hosts (but the gateway) only through
	// the relay on Gateway, and they reach out only through it.
	Private bool
	Gateway string // a host of the site; set (first host) when Private
	// Relay: mpirun starts the relay on Gateway (private sites; "relay =
	// false" switches it off, leaving the private hosts cut off from the
	// other sites, e.g. to see the diagnosis).
	Relay bool
	// Firewall lists the port ranges ("lo:hi") the emulated site admits
	// inbound TCP on (nil: no firewall). --emulate only.
	Firewall []string
	// Egress lists the source port ranges ("lo:hi") new TCP connections
	// from the emulated site to other sites may leave from (nil: any).
	// --emulate only.
	Egress []string
}

// Hosts lists the site's hosts in file order.
func (s *Site) Hosts() []*Host {
	var hs []*Host
	for _, m := range s.Machines {
		hs = append(hs, m.Hosts...)
	}
	return hs
}

// HostPrivate reports whether h is reached from other sites only through
// its gateway: a host of a private site other than the gateway.
func HostPrivate(h *Host) bool {
	s := h.Machine.Site
	return s.Private && h.Name != s.Gateway
}

// Machine is a set of hosts started by one launcher, optionally running a
// vendor MPI among its processes.
type Machine struct {
	Name     string
	Site     *Site
	Launcher Launcher
	VMPI     *VMPI // nil: none
	Hosts    []*Host
	// Arch is the machine's architecture as uname -m names it ("s390x");
	// "" means mpirun's own.
	Arch string
	// Executable is the program the machine's processes run instead of
	// the command line's ("" none).
	Executable string
	// FileSystems are the directories (absolute, clean) of the grid's
	// declared file systems that this machine sees.
	FileSystems []string
}

// Host is one computer: a host name and the processes placed on it.
type Host struct {
	Name   string
	Procs  int
	Listen string // address (or interface) its ranks listen on; "" default
	// Advertise is the address other hosts dial ("" the bound one).
	Advertise string
	// Ports is the host's own port range ("" the site's).
	Ports string
	// SourcePorts is the host's own source port range ("" the site's).
	SourcePorts string
	Machine     *Machine
}

// Launcher kinds.
const (
	Local    = "local"
	SSH      = "ssh"
	Template = "template"
)

// Launcher says how a machine's processes are started.
type Launcher struct {
	Kind string // Local, SSH or Template
	// Name is a predefined template's name ("srun", "hydra"), "" otherwise.
	Name string
	// SSH
	User    string
	Port    int // 0: ssh's default
	Options []string
	Program string // the ssh client (default "ssh")
	// Template: the command line, split into words, with {host} and {cmd}
	// placeholders ({cmd} stands for the whole command, as several words).
	Command []string
	// PMI is how started processes reach mpirun's PMI server: "fd" (an
	// inherited socket: local launcher and templates that exec the command
	// on this computer) or "tcp" (PMI_PORT, authenticated: ssh).
	PMI string
}

// VMPI is a machine's vendor MPI.
type VMPI struct {
	Lib      string // path of the vendor's libmpi
	Launcher string // the vendor's launcher command (default "mpiexec")
}

// Link is a one-way latency and bandwidth (bytes per second, 0 unlimited)
// between two sites (empty names for the default).
type Link struct {
	A, B      string
	Latency   time.Duration
	Bandwidth float64
}

// Rank is the placement of one process.
type Rank struct {
	Rank int
	Host *Host
}

// Ranks lists every process in rank order.
func (g *Grid) Ranks() []Rank {
	var rs []Rank
	for _, s := range g.Sites {
		for _, m := range s.Machines {
			for _, h := range m.Hosts {
				for i := 0; i < h.Procs; i++ {
					rs = append(rs, Rank{Rank: len(rs), Host: h})
				}
			}
		}
	}
	return rs
}

// Hosts lists every host in file order.
func (g *Grid) Hosts() []*Host {
	var hs []*Host
	for _, s := range g.Sites {
		for _, m := range s.Machines {
			hs = append(hs, m.Hosts...)
		}
	}
	return hs
}

// FileSystems lists the directories that some machine of the grid
// declares (filesystems), sorted.
func (g *Grid) FileSystems() []string {
	var all []string
	for _, h := range g.Hosts() {
		for _, fs := range h.Machine.FileSystems {
			if !slices.Contains(all, fs) {
				all = append(all, fs)
			}
		}
	}
	sort.Strings(all)
	return all
}

// Unseen lists the declared file systems that machine m does not see
// (its processes reach files there only through other processes).
func (g *Grid) Unseen(m *Machine) []string {
	var out []string
	for _, fs := range g.FileSystems() {
		if !slices.Contains(m.FileSystems, fs) {
			out = append(out, fs)
		}
	}
	return out
}

// LinkBetween is the link between sites a and b (a != b).
func (g *Grid) LinkBetween(a, b string) Link {
	for _, l := range g.Links {
		if l.A == a && l.B == b || l.A == b && l.B == a {
			return l
		}
	}
	l := g.WAN
	l.A, l.B = a, b
	return l
}

// ReadFile parses the grid file at path.
func ReadFile(path string) (*Grid, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("grid file: %w", err)
	}
	return Parse(path, string(b))
}

// Parse parses text, read from the file name (used in messages).
func Parse(name, text string) (*Grid, error) {
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", name, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	p := &parser{name: name, loc: newLocator(text), g: &Grid{Path: name}}
	p.grid(doc)
	if len(p.errs) > 0 {
		sort.SliceStable(p.errs, func(i, j int) bool { return p.errs[i].line < p.errs[j].line })
		msgs := make([]string, len(p.errs))
		for i, e := range p.errs {
			msgs[i] = e.msg
		}
		return nil, errors.New(strings.Join(msgs, "\n"))
	}
	return p.g, nil
}

type gridError struct {
	line int
	msg  string
}

type parser struct {
	name string
	loc  *locator
	g    *Grid
	errs []gridError
}

// errf records an error at path's line.
func (p *parser) errf(path, format string, args ...any) {
	ln := p.loc.line(path)
	where := p.name
	if ln > 0 {
		where += ":" + strconv.Itoa(ln)
	}
	p.errs = append(p.errs, gridError{ln, where + ": " + fmt.Sprintf(format, args...)})
}

// table is one TOML table being read: its keys are consumed by the typed
// getters and the rest reported as unknown by done.
type table struct {
	p    *parser
	path string
	m    map[string]any
	used map[string]bool
}

func (p *parser) table(path string, m map[string]any) *table {
	return &table{p: p, path: path, m: m, used: map[string]bool{}}
}

func (t *table) at(k string) string { return join(t.path, k) }

func (t *table) what() string {
	if t.path == "" {
		return "at the top level"
	}
	return "in [" + t.path + "]"
}

func (t *table) get(k string) (any, bool) {
	t.used[k] = true
	v, ok := t.m[k]
	return v, ok
}

func (t *table) str(k string, required bool) string {
	v, ok := t.get(k)
	if !ok {
		if required {
			t.p.errf(t.path, "missing %q %s", k, t.what())
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		t.p.errf(t.at(k), "%q must be a string, not %s", k, typeName(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		t.p.errf(t.at(k), "%q must not be empty", k)
	}
	return s
}

func (t *table) boolean(k string) bool {
	v, ok := t.get(k)
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		t.p.errf(t.at(k), "%q must be true or false, not %s", k, typeName(v))
	}
	return b
}

// strOrList reads k as a string or an array of strings.
func (t *table) strOrList(k string) []string {
	v, ok := t.m[k]
	if !ok {
		t.used[k] = true
		return nil
	}
	if s, ok := v.(string); ok {
		t.used[k] = true
		if strings.TrimSpace(s) == "" {
			return nil
		}
		return []string{strings.TrimSpace(s)}
	}
	return t.strs(k)
}

func (t *table) num(k string, def, lo, hi int) int {
	v, ok := t.get(k)
	if !ok {
		return def
	}
	n, ok := v.(int64)
	if !ok {
		t.p.errf(t.at(k), "%q must be an integer, not %s", k, typeName(v))
		return def
	}
	if n < int64(lo) || n > int64(hi) {
		t.p.errf(t.at(k), "%q = %d out of range [%d, %d]", k, n, lo, hi)
		return def
	}
	return int(n)
}

func (t *table) strs(k string) []string {
	v, ok := t.get(k)
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		t.p.errf(t.at(k), "%q must be an array of strings, not %s", k, typeName(v))
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			t.p.errf(t.at(k), "%q must be an array of strings; it holds %s", k, typeName(e))
			return nil
		}
		out = append(out, s)
	}
	return out
}

// tables reads k as an array of tables (absent: none).
func (t *table) tables(k string) []*table {
	v, ok := t.get(k)
	if !ok {
		return nil
	}
	arr, ok := v.([]map[string]any)
	if !ok {
		if one, ok := v.(map[string]any); ok {
			t.p.errf(t.at(k), "%q must be an array of tables: write [[%s]], not [%s]", k, t.at(k), t.at(k))
			_ = one
		} else {
			t.p.errf(t.at(k), "%q must be an array of tables ([[%s]]), not %s", k, t.at(k), typeName(v))
		}
		return nil
	}
	out := make([]*table, len(arr))
	for i, m := range arr {
		out[i] = t.p.table(t.at(k)+"["+strconv.Itoa(i)+"]", m)
	}
	return out
}

// sub reads k as one table (absent: nil).
func (t *table) sub(k string) *table {
	v, ok := t.get(k)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.p.errf(t.at(k), "%q must be a table ([%s]), not %s", k, t.at(k), typeName(v))
		return nil
	}
	return t.p.table(t.at(k), m)
}

// done reports the keys nobody read.
func (t *table) done() {
	var keys []string
	for k := range t.m {
		if !t.used[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.p.errf(t.at(k), "unknown key %q %s", k, t.what())
	}
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return fmt.Sprintf("%T", v)
}

// checkName checks that name is a usable, unique name of kind.
func (p *parser) checkName(kind, path, name string, seen map[string]string) {
	if name == "" {
		return
	}
	if strings.ContainsAny(name, " \t\n=,{}") {
		p.errf(join(path, "name"), "%s name %q: must not contain spaces, '=', ',' or braces", kind, name)
		return
	}
	if prev, ok := seen[name]; ok {
		p.errf(join(path, "name"), "duplicate %s name %q (first defined at %s)", kind, name, prev)
		return
	}
	where := p.name
	if ln := p.loc.line(join(path, "name")); ln > 0 {
		where += ":" + strconv.Itoa(ln)
	}
	seen[name] = where
}

func (p *parser) grid(doc map[string]any) {
	top := p.table("", doc)
	if wan := top.sub("wan"); wan != nil {
		p.g.WAN = p.link(wan)
		seen := map[[2]string]bool{}
		for _, lt := range wan.tables("link") {
			l := p.link(lt)
			sites := lt.strs("sites")
			switch {
			case sites == nil && lt.m["sites"] == nil:
				p.errf(lt.path, "missing \"sites\" in [%s] (the two sites the link joins)", lt.path)
			case len(sites) != 2:
				p.errf(lt.at("sites"), "\"sites\" must name two sites, not %d", len(sites))
			case sites[0] == sites[1]:
				p.errf(lt.at("sites"), "a link joins two different sites, not %q and itself", sites[0])
			default:
				key := [2]string{min(sites[0], sites[1]), max(sites[0], sites[1])}
				if seen[key] {
					p.errf(lt.at("sites"), "duplicate link between %q and %q", sites[0], sites[1])
				}
				seen[key] = true
				l.A, l.B = sites[0], sites[1]
				if _, ok := lt.m["latency"]; !ok {
					l.Latency = p.g.WAN.Latency
				}
				if _, ok := lt.m["bandwidth"]; !ok {
					l.Bandwidth = p.g.WAN.Bandwidth
				}
				p.g.Links = append(p.g.Links, l)
			}
			lt.done()
		}
		wan.done()
	}
	sites := top.tables("site")
	if _, ok := doc["site"]; !ok {
		p.errf("", "no [[site]]: a grid needs at least one site")
	}
	siteNames, machNames, hostNames := map[string]string{}, map[string]string{}, map[string]string{}
	for _, st := range sites {
		s := &Site{Name: st.str("name", true)}
		p.checkName("site", st.path, s.Name, siteNames)
		s.Ports = p.portRange(st, "port_range")
		s.SourcePorts = p.portRange(st, "source_port_range")
		s.Interface = strings.Join(st.strOrList("interface"), ",")
		s.Private = st.boolean("private")
		s.Gateway = st.str("gateway", false)
		s.Relay = s.Private
		if _, ok := st.m["relay"]; ok {
			s.Relay = st.boolean("relay")
			if s.Relay && !s.Private {
				p.errf(st.at("relay"), "site %q has a relay but is not private (add private = true)", s.Name)
			}
		}
		s.Firewall = p.rangeList(st, "firewall")
		s.Egress = p.rangeList(st, "egress")
		machines := st.tables("machine")
		if len(machines) == 0 && st.m["machine"] == nil {
			p.errf(st.path, "site %q has no [[site.machine]]", s.Name)
		}
		for _, mt := range machines {
			m := p.machine(mt, s, machNames, hostNames)
			s.Machines = append(s.Machines, m)
		}
		if s.Gateway != "" && !s.Private {
			p.errf(st.at("gateway"), "site %q has a gateway but is not private (add private = true)", s.Name)
		}
		if s.Private {
			hs := s.Hosts()
			if s.Gateway == "" && len(hs) > 0 {
				s.Gateway = hs[0].Name
			}
			found := false
			for _, h := range hs {
				found = found || h.Name == s.Gateway
			}
			if !found && len(hs) > 0 {
				p.errf(st.at("gateway"), "gateway %q is not a host of site %q", s.Gateway, s.Name)
			}
		}
		st.done()
		p.g.Sites = append(p.g.Sites, s)
	}
	for _, l := range p.g.Links {
		for _, n := range []string{l.A, l.B} {
			if _, ok := siteNames[n]; !ok && len(siteNames) > 0 {
				p.errf(p.linkPath(l), "link names unknown site %q", n)
			}
		}
	}
	top.done()
}

func (p *parser) linkPath(l Link) string {
	for i, x := range p.g.Links {
		if x.A == l.A && x.B == l.B {
			return "wan.link[" + strconv.Itoa(i) + "].sites"
		}
	}
	return ""
}

func (p *parser) link(t *table) Link {
	var l Link
	if s := t.str("latency", false); s != "" || t.m["latency"] != nil {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		switch {
		case err != nil:
			p.errf(t.at("latency"), "bad latency %q: want a duration such as \"10ms\" or \"250us\"", s)
		case d < 0:
			p.errf(t.at("latency"), "latency %q is negative", s)
		default:
			l.Latency = d
		}
	}
	if s := t.str("bandwidth", false); s != "" || t.m["bandwidth"] != nil {
		bw, err := ParseBandwidth(s)
		if err != nil {
			p.errf(t.at("bandwidth"), "bad bandwidth %q: %v", s, err)
		}
		l.Bandwidth = bw
	}
	return l
}

func (p *parser) machine(mt *table, s *Site, machNames, hostNames map[string]string) *Machine {
	m := &Machine{Name: mt.str("name", true), Site: s}
	p.checkName("machine", mt.path, m.Name, machNames)
	procs := mt.num("procs", 1, 1, 1<<20)
	m.Launcher = p.launcher(mt)
	m.Arch = mt.str("arch", false)
	if m.Arch != "" && !validArch(m.Arch) {
		p.errf(mt.at("arch"), "bad arch %q: want an architecture name such as \"s390x\" or \"x86_64\"", m.Arch)
	}
	m.Executable = mt.str("executable", false)
	for _, fs := range mt.strs("filesystems") {
		c := filepath.Clean(fs)
		switch {
		case !filepath.IsAbs(fs):
			p.errf(mt.at("filesystems"), "file system %q must be an absolute path", fs)
		case c == "/":
			p.errf(mt.at("filesystems"), "file system \"/\": the root is seen by every machine; name a directory below it")
		case slices.Contains(m.FileSystems, c):
			p.errf(mt.at("filesystems"), "file system %q is listed twice", fs)
		default:
			m.FileSystems = append(m.FileSystems, c)
		}
	}
	if vt := mt.sub("vmpi"); vt != nil {
		v := &VMPI{Lib: vt.str("lib", true), Launcher: vt.str("launcher", false)}
		if v.Lib != "" && !filepath.IsAbs(v.Lib) {
			p.errf(vt.at("lib"), "vmpi lib %q must be an absolute path", v.Lib)
		}
		if v.Launcher == "" {
			v.Launcher = "mpiexec"
		}
		vt.done()
		m.VMPI = v
	}
	for i, hn := range mt.strs("hosts") {
		h := &Host{Name: hn, Procs: procs, Machine: m}
		p.checkName("host", mt.at("hosts")+"["+strconv.Itoa(i)+"]", hn, hostNames)
		if hn == "" {
			p.errf(mt.at("hosts"), "empty host name in \"hosts\"")
		}
		m.Hosts = append(m.Hosts, h)
	}
	for _, ht := range mt.tables("host") {
		h := &Host{Name: ht.str("name", true), Machine: m}
		p.checkName("host", ht.path, h.Name, hostNames)
		h.Procs = ht.num("procs", procs, 1, 1<<20)
		if h.Listen = ht.str("listen", false); h.Listen != "" {
			if _, err := netip.ParseAddr(h.Listen); err != nil && !validIfName(h.Listen) {
				if _, err := netip.ParsePrefix(h.Listen); err != nil {
					p.errf(ht.at("listen"), "listen %q is neither an IP address, a CIDR nor an interface name", h.Listen)
				}
			}
		}
		if h.Advertise = ht.str("advertise", false); h.Advertise != "" && strings.ContainsAny(h.Advertise, " \t,") {
			p.errf(ht.at("advertise"), "advertise %q: want one host name or address (optionally host:port)", h.Advertise)
		}
		h.Ports = p.portRange(ht, "port_range")
		h.SourcePorts = p.portRange(ht, "source_port_range")
		ht.done()
		m.Hosts = append(m.Hosts, h)
	}
	if len(m.Hosts) == 0 {
		p.errf(mt.path, "machine %q has no hosts (give \"hosts\" or [[site.machine.host]])", m.Name)
	}
	mt.done()
	return m
}

// portRange reads key k as a port range "low:high".
func (p *parser) portRange(t *table, k string) string {
	v := strings.TrimSpace(t.str(k, false))
	if v == "" {
		return ""
	}
	r, err := ports.Parse(v)
	if err != nil {
		p.errf(t.at(k), "%s: %v", k, err)
		return ""
	}
	return r.String()
}

// rangeList reads key k as a port range or a list of them (nil when
// absent).
func (p *parser) rangeList(t *table, k string) []string {
	if v, ok := t.m[k]; !ok || v == nil {
		return nil
	}
	var rs []string
	for _, r := range t.strOrList(k) {
		if _, err := ports.Parse(r); err != nil || r == "" {
			p.errf(t.at(k), "%s: %q is not a port range (low:high)", k, r)
		}
		rs = append(rs, r)
	}
	return rs
}

// SourcePortRange is the range h's connections to other hosts leave
// from: its own, else its site's ("" any port).
func (h *Host) SourcePortRange() string {
	if h.SourcePorts != "" {
		return h.SourcePorts
	}
	return h.Machine.Site.SourcePorts
}

// PortRange is the range h's sockets listen in: its own, else its site's
// ("" any port).
func (h *Host) PortRange() string {
	if h.Ports != "" {
		return h.Ports
	}
	return h.Machine.Site.Ports
}

func validIfName(s string) bool {
	if s == "" || len(s) > 15 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '@') {
			return false
		}
	}
	return true
}

// Predefined launchers: templates that start one process on {host}
// through a cluster's own process manager, the process then joining the
// gmpi job over TCP PMI to mpirun like an ssh-started one. The launcher
// gives the process its own PMI environment (hydra: PMI_FD, PMI_RANK=0,
// PMI_SIZE=1), which env(1) removes or overrides so that the process
// talks to mpirun, not to the launcher.
var named = map[string][]string{
	// One task on {host}, no Slurm PMI (Slurm still sets SLURM_*); inside
	// an allocation each rank is a job step, outside it a job of its own.
	"srun": {"srun", "--nodes=1", "--ntasks=1", "--nodelist={host}", "--mpi=none", "--quiet",
		"env", "-u", "PMI_FD", "-u", "PMI_JOBID", "-u", "PMI2_SUN_PATH", "GMPI_PMI=1", "{cmd}"},
	// MPICH's hydra: one process on {host} (forked when it is this one,
	// else through hydra's own bootstrap, ssh by default).
	"hydra": {"mpiexec.hydra", "-n", "1", "-hosts", "{host}",
		"env", "-u", "PMI_FD", "-u", "PMI_JOBID", "-u", "PMI2_SUN_PATH", "GMPI_PMI=1", "{cmd}"},
}

// ParseLauncher reads a launcher as a grid file's launcher key or
// mpirun's --launcher give it: "local" (or ""), "ssh", "srun", "hydra", or
// a command template with {cmd} (and optionally {host}).
func ParseLauncher(v string) (Launcher, error) {
	l := Launcher{Kind: Local, PMI: "fd"}
	v = strings.TrimSpace(v)
	switch {
	case v == "" || v == Local:
	case v == SSH:
		l.Kind, l.PMI, l.Program = SSH, "tcp", "ssh"
	case named[v] != nil:
		l.Kind, l.Name, l.PMI = Template, v, "tcp"
		l.Command = append([]string(nil), named[v]...)
	case strings.Contains(v, "{cmd}"):
		l.Kind = Template
		words, err := splitWords(v)
		if err != nil {
			return l, fmt.Errorf("launcher %q: %v", v, err)
		}
		found := false
		for _, w := range words {
			if w == "{cmd}" {
				found = true
			} else if strings.Contains(w, "{cmd}") {
				found = false
				break
			}
		}
		if !found {
			return l, fmt.Errorf("launcher %q: {cmd} must be a word of its own", v)
		}
		l.Command = words
	default:
		return l, fmt.Errorf("unknown launcher %q: want \"local\", \"ssh\", \"srun\", \"hydra\" or a command template with {cmd} (e.g. \"ip netns exec {host} {cmd}\")", v)
	}
	return l, nil
}

func (p *parser) launcher(mt *table) Launcher {
	v := mt.str("launcher", false)
	st := mt.sub("ssh")
	l, err := ParseLauncher(v)
	if err != nil {
		p.errf(mt.at("launcher"), "%v", err)
	}
	if pm := mt.str("pmi", false); pm != "" {
		switch {
		case pm != "fd" && pm != "tcp":
			p.errf(mt.at("pmi"), "pmi %q: want \"fd\" or \"tcp\"", pm)
		case l.Kind == SSH && pm == "fd":
			p.errf(mt.at("pmi"), "pmi \"fd\" is impossible with the ssh launcher")
		case l.Name != "" && pm == "fd":
			p.errf(mt.at("pmi"), "pmi \"fd\" is impossible with the %s launcher", l.Name)
		default:
			l.PMI = pm
		}
	}
	if st != nil {
		if l.Kind != SSH {
			p.errf(st.path, "[%s] given but the launcher is not \"ssh\"", st.path)
		}
		l.User = st.str("user", false)
		l.Port = st.num("port", 0, 1, 65535)
		l.Options = st.strs("options")
		if prog := st.str("program", false); prog != "" {
			l.Program = prog
		}
		st.done()
	}
	return l
}

// splitWords splits a command template into words: blanks separate words,
// single and double quotes group (no escapes inside single quotes, '\'
// escapes the next character elsewhere).
func splitWords(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	in, quote := false, rune(0)
	esc := false
	for _, c := range s {
		switch {
		case esc:
			b.WriteRune(c)
			esc = false
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				b.WriteRune(c)
			}
		case c == '\\':
			esc, in = true, true
		case quote == '"':
			if c == '"' {
				quote = 0
			} else {
				b.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(c)
			in = true
		}
	}
	if quote != 0 || esc {
		return nil, errors.New("unterminated quote or escape")
	}
	if in {
		words = append(words, b.String())
	}
	return words, nil
}

// bandwidth units, bytes per second per unit.
var bwUnits = map[string]float64{
	"b/s": 1, "bps": 1,
	"kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9,
	"kib/s": 1 << 10, "mib/s": 1 << 20, "gib/s": 1 << 30,
	"bit/s": 1.0 / 8, "kbit/s": 1e3 / 8, "mbit/s": 1e6 / 8, "gbit/s": 1e9 / 8,
}

// ParseBandwidth reads "1MB/s", "10 Mbit/s", "512KiB/s" or "unlimited"
// (0) as bytes per second. Units are case-insensitive except that "B"
// and "bit" are told apart by spelling.
func ParseBandwidth(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "unlimited" || s == "0" {
		return 0, nil
	}
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == 'e' && i > 0) {
		i++
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, errors.New("want a number with a unit such as \"1MB/s\" or \"100Mbit/s\"")
	}
	if unit == "" {
		return 0, errors.New("no unit: write e.g. \"1MB/s\", \"512KiB/s\" or \"100Mbit/s\"")
	}
	f, ok := bwUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q: want B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, kbit/s, Mbit/s or Gbit/s", unit)
	}
	bw := v * f
	if bw <= 0 || math.IsInf(bw, 0) || math.IsNaN(bw) {
		return 0, errors.New("must be positive (or \"unlimited\")")
	}
	return bw, nil
}

// FormatBandwidth writes bytes per second the way ParseBandwidth reads
// them back, with the largest decimal unit that keeps a short number.
func FormatBandwidth(bw float64) string {
	if bw <= 0 {
		return "unlimited"
	}
	for _, u := range []struct {
		n string
		f float64
	}{{"GB/s", 1e9}, {"MB/s", 1e6}, {"KB/s", 1e3}} {
		if bw >= u.f {
			return strconv.FormatFloat(bw/u.f, 'g', -1, 64) + u.n
		}
	}
	return strconv.FormatFloat(bw, 'g', -1, 64) + "B/s"
}

// validArch accepts architecture names as uname -m prints them (letters,
// digits, '_'), which also name qemu-ARCH-static and the PROG.ARCH
// executables.
func validArch(a string) bool {
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return a != ""
}
