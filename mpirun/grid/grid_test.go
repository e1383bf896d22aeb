package grid

import (
	"strings"
	"testing"
	"time"
)

func TestExamples(t *testing.T) {
	for _, c := range []struct {
		file         string
		sites, hosts int
	}{{"grid-2x2.toml", 2, 4}, {"grid-4x2.toml", 4, 8}} {
		g, err := ReadFile("../../examples/" + c.file)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(g.Sites) != c.sites || len(g.Hosts()) != c.hosts || len(g.Ranks()) != c.hosts {
			t.Errorf("%s: %d sites %d hosts %d ranks", c.file, len(g.Sites), len(g.Hosts()), len(g.Ranks()))
		}
		for _, s := range g.Sites {
			if len(s.Machines) != 1 || len(s.Machines[0].Hosts) != 2 {
				t.Errorf("%s: site %s: %d machines", c.file, s.Name, len(s.Machines))
			}
		}
		l := g.LinkBetween(g.Sites[0].Name, g.Sites[1].Name)
		if l.Latency != 10*time.Millisecond || l.Bandwidth != 1e6 {
			t.Errorf("%s: link %+v, want 10ms 1e6 B/s", c.file, l)
		}
		for i, r := range g.Ranks() {
			if r.Rank != i || r.Host.Procs != 1 || r.Host.Machine.Launcher.Kind != Local {
				t.Errorf("%s: rank %d: %+v", c.file, i, r)
			}
		}
	}
}

const full = `# everything
[wan]
latency = "5ms"
bandwidth = "100Mbit/s"

[[wan.link]]
sites = ["a", "b"]
latency = "30ms"

[[site]]
name = "a"

  [[site.machine]]
  name = "a-m"
  launcher = "ip netns exec {host} {cmd}"
  procs = 2
  hosts = ["a1", "a2"]

  [[site.machine.host]]
  name = "a3"
  procs = 3
  listen = "10.0.0.3"

  [site.machine.vmpi]
  lib = "/opt/v/lib/libmpi.so"

[[site]]
name = "b"

  [[site.machine]]
  name = "b-m"
  launcher = "ssh"
  hosts = ["b1"]

  [site.machine.ssh]
  user = "me"
  port = 2222
  options = ["-o", "BatchMode=yes"]

[[site]]
name = "c"
  [[site.machine]]
  name = "c-m"
  hosts = ["c1"]
`

func TestFull(t *testing.T) {
	g, err := Parse("full.toml", full)
	if err != nil {
		t.Fatal(err)
	}
	a := g.Sites[0].Machines[0]
	if a.Launcher.Kind != Template || strings.Join(a.Launcher.Command, "|") != "ip|netns|exec|{host}|{cmd}" || a.Launcher.PMI != "fd" {
		t.Errorf("template launcher: %+v", a.Launcher)
	}
	if a.VMPI == nil || a.VMPI.Lib != "/opt/v/lib/libmpi.so" || a.VMPI.Launcher != "mpiexec" {
		t.Errorf("vmpi: %+v", a.VMPI)
	}
	if len(a.Hosts) != 3 || a.Hosts[0].Procs != 2 || a.Hosts[2].Procs != 3 || a.Hosts[2].Listen != "10.0.0.3" {
		t.Errorf("hosts: %+v %+v %+v", a.Hosts[0], a.Hosts[1], a.Hosts[2])
	}
	b := g.Sites[1].Machines[0]
	if b.Launcher.Kind != SSH || b.Launcher.User != "me" || b.Launcher.Port != 2222 || len(b.Launcher.Options) != 2 || b.Launcher.PMI != "tcp" || b.Launcher.Program != "ssh" {
		t.Errorf("ssh launcher: %+v", b.Launcher)
	}
	if n := len(g.Ranks()); n != 2+2+3+1+1 {
		t.Errorf("%d ranks", n)
	}
	if l := g.LinkBetween("b", "a"); l.Latency != 30*time.Millisecond || l.Bandwidth != 100e6/8 {
		t.Errorf("a-b link %+v", l)
	}
	if l := g.LinkBetween("a", "c"); l.Latency != 5*time.Millisecond || l.Bandwidth != 100e6/8 {
		t.Errorf("a-c link %+v", l)
	}
}

func TestErrors(t *testing.T) {
	const head = "[[site]]\nname = \"a\"\n[[site.machine]]\nname = \"m\"\n"
	for _, c := range []struct {
		name, text, want string
	}{
		{"syntax", "[[site]]\nname = = 3\n", "x.toml:2: "},
		{"no site", "[wan]\nlatency = \"1ms\"\n", "x.toml: no [[site]]"},
		{"unknown top", head + "hosts = [\"h\"]\n[foo]\nbar = 1\n", `x.toml:6: unknown key "foo" at the top level`},
		{"unknown in host", head + "[[site.machine.host]]\nname = \"h\"\nprocz = 2\n", `x.toml:7: unknown key "procz" in [site[0].machine[0].host[0]]`},
		{"missing name", "[[site]]\n[[site.machine]]\nname = \"m\"\nhosts = [\"h\"]\n", `x.toml:1: missing "name" in [site[0]]`},
		{"missing host name", head + "[[site.machine.host]]\nprocs = 2\n", `x.toml:5: missing "name"`},
		{"no hosts", head, `x.toml:3: machine "m" has no hosts`},
		{"dup host", head + "hosts = [\"h\", \"g\"]\n[[site]]\nname = \"b\"\n[[site.machine]]\nname = \"n\"\n\nhosts = [\"h\"]\n", `x.toml:11: duplicate host name "h" (first defined at x.toml:5)`},
		{"dup site", head + "hosts = [\"h\"]\n[[site]]\nname = \"a\"\n[[site.machine]]\nname = \"n\"\nhosts = [\"g\"]\n", `x.toml:7: duplicate site name "a"`},
		{"dup machine", head + "hosts = [\"h\"]\n[[site.machine]]\nname = \"m\"\nhosts = [\"g\"]\n", `x.toml:7: duplicate machine name "m"`},
		{"bad latency", "[wan]\nlatency = \"10 parsecs\"\n" + head + "hosts=[\"h\"]\n", `x.toml:2: bad latency "10 parsecs"`},
		{"bad bandwidth unit", "[wan]\nbandwidth = \"1MB/fortnight\"\n" + head + "hosts=[\"h\"]\n", `x.toml:2: bad bandwidth "1MB/fortnight": unknown unit`},
		{"bandwidth without unit", "[wan]\n\nbandwidth = \"12\"\n" + head + "hosts=[\"h\"]\n", `x.toml:3: bad bandwidth "12": no unit`},
		{"procs type", head + "procs = \"two\"\nhosts=[\"h\"]\n", `x.toml:5: "procs" must be an integer, not a string`},
		{"procs range", head + "procs = 0\nhosts=[\"h\"]\n", `x.toml:5: "procs" = 0 out of range`},
		{"bad launcher", head + "launcher = \"rsh\"\nhosts=[\"h\"]\n", `x.toml:5: unknown launcher "rsh"`},
		{"template cmd glued", head + "launcher = \"run {host}:{cmd}\"\nhosts=[\"h\"]\n", `x.toml:5: launcher "run {host}:{cmd}": {cmd} must be a word`},
		{"hydra pmi fd", head + "launcher = \"hydra\"\npmi = \"fd\"\nhosts=[\"h\"]\n", `x.toml:6: pmi "fd" is impossible with the hydra launcher`},
		{"ssh table without ssh", head + "hosts=[\"h\"]\n[site.machine.ssh]\nuser = \"x\"\n", `x.toml:6: [site[0].machine[0].ssh] given but the launcher is not "ssh"`},
		{"ssh port", head + "launcher = \"ssh\"\nhosts=[\"h\"]\n[site.machine.ssh]\nport = 70000\n", `x.toml:8: "port" = 70000 out of range`},
		{"vmpi lib", head + "hosts=[\"h\"]\n[site.machine.vmpi]\nlauncher = \"mpiexec\"\n", `x.toml:6: missing "lib" in [site[0].machine[0].vmpi]`},
		{"vmpi relative", head + "hosts=[\"h\"]\n[site.machine.vmpi]\nlib = \"libmpi.so\"\n", `x.toml:7: vmpi lib "libmpi.so" must be an absolute path`},
		{"listen", head + "[[site.machine.host]]\nname = \"h\"\nlisten = \"not an address\"\n", `x.toml:7: listen "not an address" is neither`},
		{"link sites", "[[wan.link]]\nsites = [\"a\"]\n" + head + "hosts=[\"h\"]\n", `x.toml:2: "sites" must name two sites, not 1`},
		{"link unknown site", "[[wan.link]]\nsites = [\"a\", \"zz\"]\n" + head + "hosts=[\"h\"]\n", `x.toml:2: link names unknown site "zz"`},
		{"link dup", "[[wan.link]]\nsites = [\"a\", \"b\"]\n[[wan.link]]\nsites = [\"b\", \"a\"]\n" + head + "hosts=[\"h\"]\n", `x.toml:4: duplicate link between "b" and "a"`},
		{"site as table", "[site]\nname = \"a\"\n", `x.toml:1: "site" must be an array of tables: write [[site]]`},
		{"multi-line array then key", head + "hosts = [\n  \"h\",\n  \"g\",\n]\nbogus = 1\n", `x.toml:9: unknown key "bogus"`},
	} {
		_, err := Parse("x.toml", c.text)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.name, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, err, c.want)
		}
	}
}

// TestNamedLaunchers checks the predefined cluster launchers: templates
// run on this computer that reach mpirun over TCP PMI and clear the
// launcher's own PMI variables.
func TestNamedLaunchers(t *testing.T) {
	for _, name := range []string{"srun", "hydra"} {
		l, err := ParseLauncher(name)
		if err != nil {
			t.Fatal(err)
		}
		cmd := strings.Join(l.Command, " ")
		if l.Kind != Template || l.Name != name || l.PMI != "tcp" || !strings.Contains(cmd, "{host}") ||
			!strings.HasSuffix(cmd, "-u PMI_FD -u PMI_JOBID -u PMI2_SUN_PATH GMPI_PMI=1 {cmd}") {
			t.Errorf("%s: got %+v", name, l)
		}
		l.Command[0] = "changed" // a copy: the next parse is unchanged
		if l2, _ := ParseLauncher(name); l2.Command[0] == "changed" {
			t.Errorf("%s: ParseLauncher returned the shared template", name)
		}
	}
	for _, bad := range []string{"rsh", "run {host}:{cmd}", "no placeholder"} {
		if _, err := ParseLauncher(bad); err == nil {
			t.Errorf("ParseLauncher(%q) accepted", bad)
		}
	}
	if l, err := ParseLauncher(""); err != nil || l.Kind != Local {
		t.Errorf("empty launcher: %+v %v", l, err)
	}
}

func TestBandwidth(t *testing.T) {
	for s, want := range map[string]float64{"1MB/s": 1e6, "1 MiB/s": 1 << 20, "8bit/s": 1, "2.5GB/s": 2.5e9, "unlimited": 0, "100Mbit/s": 12.5e6} {
		got, err := ParseBandwidth(s)
		if err != nil || got != want {
			t.Errorf("ParseBandwidth(%q) = %v, %v; want %v", s, got, err, want)
		}
		if want > 0 {
			if back, err := ParseBandwidth(FormatBandwidth(got)); err != nil || back != got {
				t.Errorf("FormatBandwidth(%v) = %q does not read back", got, FormatBandwidth(got))
			}
		}
	}
	for _, s := range []string{"", "MB/s", "-1MB/s", "1", "1 furlong/s"} {
		if _, err := ParseBandwidth(s); err == nil {
			t.Errorf("ParseBandwidth(%q): no error", s)
		}
	}
}

// TestSiteNetwork reads the keys of issue 23: port ranges, interfaces,
// advertised addresses, private sites with gateways, emulated firewalls.
func TestSiteNetwork(t *testing.T) {
	g, err := ReadFile("../../examples/grid-firewall.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Sites) != 3 || len(g.Ranks()) != 7 {
		t.Fatalf("grid-firewall: %d sites, %d ranks", len(g.Sites), len(g.Ranks()))
	}
	s0, s1, s2 := g.Sites[0], g.Sites[1], g.Sites[2]
	if s0.Private || s0.Ports != "" || s1.Ports != "40000:40015" || strings.Join(s1.Firewall, ",") != "40000:40015" ||
		!s2.Private || s2.Gateway != "s2h0" || s1.Private {
		t.Errorf("grid-firewall sites: %+v %+v %+v", *s0, *s1, *s2)
	}
	hs := s2.Hosts()
	if HostPrivate(hs[0]) || !HostPrivate(hs[1]) || !HostPrivate(hs[2]) || HostPrivate(s1.Hosts()[0]) {
		t.Error("HostPrivate: only s2h1 and s2h2 are private")
	}
	if s1.Hosts()[1].PortRange() != "40000:40015" || hs[0].PortRange() != "" {
		t.Error("PortRange: hosts inherit their site's")
	}

	text := `[[site]]
name = "a"
private = true
interface = ["10.1.0.0/16", "eth1"]
port_range = "5000-5009"
source_port_range = "5100:5109"
firewall = ["5000:5009", "22"]
egress = "5100:5109"
  [[site.machine]]
  name = "m"
  hosts = ["g", "h"]
  [[site.machine.host]]
  name = "k"
  advertise = "192.0.2.9"
  port_range = "6000:6000"
  source_port_range = "6100"
  listen = "10.1.0.0/16"
`
	g, err = Parse("x.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	a := g.Sites[0]
	k := a.Hosts()[2]
	if a.Gateway != "g" || a.Interface != "10.1.0.0/16,eth1" || a.Ports != "5000:5009" || len(a.Firewall) != 2 ||
		k.Advertise != "192.0.2.9" || k.PortRange() != "6000:6000" || k.Listen != "10.1.0.0/16" ||
		k.SourcePortRange() != "6100:6100" || a.Hosts()[0].SourcePortRange() != "5100:5109" ||
		len(a.Egress) != 1 || a.Egress[0] != "5100:5109" {
		t.Errorf("parsed %+v, host k %+v", *a, *k)
	}

	const head = "[[site]]\nname = \"a\"\n"
	const mach = "[[site.machine]]\nname = \"m\"\nhosts = [\"h\"]\n"
	for _, c := range []struct{ name, text, want string }{
		{"range", head + "port_range = \"9:1\"\n" + mach, `x.toml:3: port_range: port range "9:1"`},
		{"range type", head + "port_range = 40000\n" + mach, `x.toml:3: "port_range" must be a string`},
		{"gateway not private", head + "gateway = \"h\"\n" + mach, `site "a" has a gateway but is not private`},
		{"gateway unknown", head + "private = true\ngateway = \"zz\"\n" + mach, `gateway "zz" is not a host of site "a"`},
		{"private type", head + "private = \"yes\"\n" + mach, `"private" must be true or false`},
		{"firewall", head + "firewall = \"all\"\n" + mach, `firewall: "all" is not a port range`},
		{"egress", head + "egress = [\"1:2\", \"x\"]\n" + mach, `egress: "x" is not a port range`},
		{"source range", head + "source_port_range = \"0:5\"\n" + mach, `x.toml:3: source_port_range: port range "0:5"`},
		{"advertise", head + mach + "[[site.machine.host]]\nname = \"k\"\nadvertise = \"a b\"\n", `advertise "a b"`},
	} {
		if _, err := Parse("x.toml", c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestFileSystems(t *testing.T) {
	g, err := Parse("fs.toml", `
[[site]]
name = "a"
  [[site.machine]]
  name = "ma"
  hosts = ["a0"]
  filesystems = ["/scratch/", "/home/a"]
[[site]]
name = "b"
  [[site.machine]]
  name = "mb"
  hosts = ["b0"]
  filesystems = ["/home/a"]
  [[site.machine]]
  name = "mc"
  hosts = ["c0"]
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.FileSystems(), " "); got != "/home/a /scratch" {
		t.Errorf("FileSystems: %q", got)
	}
	for _, c := range []struct{ m, want string }{{"ma", ""}, {"mb", "/scratch"}, {"mc", "/home/a /scratch"}} {
		for _, s := range g.Sites {
			for _, m := range s.Machines {
				if m.Name == c.m {
					if got := strings.Join(g.Unseen(m), " "); got != c.want {
						t.Errorf("Unseen(%s) = %q, want %q", c.m, got, c.want)
					}
				}
			}
		}
	}
	for _, bad := range []struct{ fs, msg string }{
		{`["scratch"]`, `fs.toml:6: file system "scratch" must be an absolute path`},
		{`["/"]`, `fs.toml:6: file system "/": the root is seen by every machine`},
		{`["/x", "/x/"]`, `fs.toml:6: file system "/x/" is listed twice`},
		{`"/x"`, `fs.toml:6: "filesystems" must be an array of strings`},
	} {
		_, err := Parse("fs.toml", "[[site]]\nname = \"a\"\n  [[site.machine]]\n  name = \"m\"\n  hosts = [\"h\"]\n  filesystems = "+bad.fs+"\n")
		if err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("filesystems = %s: got %v, want %q", bad.fs, err, bad.msg)
		}
	}
}
