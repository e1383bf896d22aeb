package main

import (
	"bufio"
	"errors"
	"fmt"
	"gmpi/mpirun/grid"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// app is one executable of the command line (MPMD launches separate apps
// with ":").
type app struct {
	n    int      // number of ranks; 0 = not given
	argv []string // program and its arguments
	env  []string // -env settings, "VAR=VAL"
	wdir string   // -wdir for this app ("" = global)
	// at is --at KIND=NAME (KIND site, machine or host of the grid
	// file): with --grid, this app's processes go round-robin over the
	// grid's slots there instead of the file's own placement.
	at string
}

// options is the parsed command line.
type options struct {
	apps      []app
	genv      []string // -genv and -x settings, "VAR=VAL", in order
	tagOutput bool
	bind      string // --bind-to: "core" or "none"; "" means the default
	timeout   time.Duration
	wdir      string
	hosts     []hostSpec // from -H/--host and --hostfile, recorded
	grid      string     // --grid FILE
	launcher  string     // --launcher: how -H/--hostfile hosts are started ("" default)
	showTopo  bool       // --show-topology: print the placement, run nothing
	emulate   bool       // --emulate: run on emulated grid hosts
	// emuShare is --emulate-share PATH (describe the emulated grid there
	// for other jobs); emuAttach is --emulate-attach PATH (run on the
	// emulated grid another mpirun described there).
	emuShare, emuAttach string
	verbose             bool
	help                bool
	version             bool
	info                bool // --info: describe gmpi and run nothing
	infoAll             bool // --all: with --info, also the variables mpirun sets for its ranks
	parsable            bool // --parsable: with --info, colon-separated records
	// nameServer is --nameserver HOST:PORT (GMPI_NAMESERVER of the
	// ranks); serveNames is --serve-names HOST:PORT (run a name server).
	nameServer, serveNames string
	universe               int // --universe-size: MPI_UNIVERSE_SIZE (0: the slots known)
}

// hostSpec is one placement target: a host name and a slot count (0 when
// not given).
type hostSpec struct {
	name  string
	slots int
}

const usage = `usage: %[1]s [options] program [args...] [: [options] program [args...]]...

Starts the processes of an MPI job, on this host or as a grid file or host
list places them, and serves them PMI-1.

options:
  -n, -np N              number of processes (default: slots of -H/--hostfile, else 1)
  -x VAR[=VAL]           export VAR (with mpirun's value, or VAL) to all processes
  -genv VAR VAL          set VAR=VAL for all processes
  -env VAR VAL           set VAR=VAL for the processes of this program only
  -wdir, -wd DIR         working directory of the processes
  --tag-output, -l       prefix every output line with "[rank] "
  --timeout SECONDS      kill the job after SECONDS (also MPIEXEC_TIMEOUT)
  --bind-to core|none    bind rank r to the r-th CPU mpirun may use (default
                         when there are at least as many CPUs as processes;
                         also GMPI_BIND), or leave placement to the kernel
  -H, --host H1[:S],...  hosts, each with S slots (default 1); ranks fill
                         each host's slots in turn; hosts other than this one
                         are started with ssh (GMPI_SSH names the client)
  --hostfile FILE        file of hosts, "host[:slots]" or "host slots=S" per line
  --launcher L           start the processes of every host (this one too)
                         with L: "ssh", "srun" (one Slurm task each), "hydra"
                         (MPICH's mpiexec.hydra), or a template with {host}
                         and {cmd}; they join the job over TCP PMI (default
                         "local": fork here, ssh to other hosts)
  --grid FILE            place and start the processes as the grid file says
                         (sites, machines, hosts, launchers; see examples/)
  --at site=S|machine=M|host=H
                         with --grid, per program: its -n processes go
                         round-robin over the grid file's slots at that
                         site, machine or host (oversubscribing as needed)
                         instead of the file's own placement
  --show-topology        print the placement and the topology colors every
                         rank will see, and run nothing
  --emulate              with --grid: run on emulated hosts (network
                         namespaces and a router adding the grid's wide-area
                         latency and bandwidth; needs root)
  --emulate-share PATH   with --emulate: write a description of the emulated
                         grid to PATH (removed at the end) so that other jobs
                         can run on it while this one runs
  --emulate-attach PATH  with --grid: run on the emulated grid that another
                         mpirun described in PATH (--emulate-share) instead
                         of building one; its hosts must be the grid file's
  --nameserver HOST:PORT publish and look up MPI service names at the name
                         server there (MPI_Publish_name, MPI_Lookup_name)
                         besides this host's names; its key is the file
                         GMPI_NAMESERVER_KEY (default ~/.gmpi/nameserver.key)
  --universe-size, -usize N
                         MPI_UNIVERSE_SIZE: how many processes the job
                         expects to run, spawned ones included (default:
                         the slots of -H/--hostfile, else -n)
  --serve-names HOST:PORT
                         run a name server there in the foreground (names
                         in memory only; clients prove the key file's key,
                         which is made when missing) and run nothing else
  -v, --verbose          print launch details (also GMPI_MPIRUN_VERBOSE=1)
  --info [--all] [--parsable]
                         print the version, devices, collective components
                         and their priorities, each operation's algorithms,
                         and every tunable with its value here, its default
                         and description (--all: also the variables mpirun
                         sets for its ranks; --parsable: name:field:value
                         records), and run nothing
  --version              print the gmpi version
  -h, --help             print this help

Separate several programs (MPMD) with ":"; -n, -env and -wdir apply to the
program they precede. Exit status: 0 if every process exits 0, else the
first failing process's status (128+signal if killed by a signal; the
MPI_Abort code; 124 on timeout; 128+signal if mpirun itself is signalled).
`

// optName normalizes "--opt", "-opt" and their "=value" forms: it returns
// the bare option name and the inline value, if any.
func optName(arg string) (name, val string, hasVal bool) {
	s := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	if i := strings.IndexByte(s, '='); i > 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// parseArgs parses mpirun's command line (without argv[0]).
func parseArgs(args []string) (*options, error) {
	o := &options{}
	cur := app{}
	i := 0
	// value returns the option's argument: the inline "=value" or the next
	// command-line word.
	value := func(name, inline string, has bool) (string, error) {
		if has {
			return inline, nil
		}
		if i+1 >= len(args) {
			return "", fmt.Errorf("option -%s needs an argument", name)
		}
		i++
		return args[i], nil
	}
	// varVal reads "VAR VAL" or "VAR=VAL" for -genv/-env.
	varVal := func(name, inline string, has bool) (string, error) {
		v, err := value(name, inline, has)
		if err != nil {
			return "", err
		}
		if strings.Contains(v, "=") {
			return v, checkVarName(v[:strings.IndexByte(v, '=')])
		}
		if i+1 >= len(args) {
			return "", fmt.Errorf("option -%s needs VAR and VALUE", name)
		}
		i++
		return v + "=" + args[i], checkVarName(v)
	}
	for ; i < len(args); i++ {
		arg := args[i]
		if arg == ":" {
			if len(cur.argv) == 0 {
				return nil, errors.New("\":\" without a program before it")
			}
			o.apps = append(o.apps, cur)
			cur = app{}
			continue
		}
		if len(cur.argv) > 0 {
			cur.argv = append(cur.argv, arg)
			continue
		}
		if arg == "--" {
			if i+1 >= len(args) {
				return nil, errors.New("no program after --")
			}
			i++
			cur.argv = append(cur.argv, args[i])
			continue
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			cur.argv = append(cur.argv, arg)
			continue
		}
		name, inline, has := optName(arg)
		switch name {
		case "n", "np", "c":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bad process count %q for -%s", v, name)
			}
			cur.n = n
		case "x":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			if k, _, ok := strings.Cut(v, "="); ok {
				if err := checkVarName(k); err != nil {
					return nil, err
				}
				o.genv = append(o.genv, v)
			} else {
				if err := checkVarName(v); err != nil {
					return nil, err
				}
				if val, ok := os.LookupEnv(v); ok {
					o.genv = append(o.genv, v+"="+val)
				}
			}
		case "genv":
			v, err := varVal(name, inline, has)
			if err != nil {
				return nil, err
			}
			o.genv = append(o.genv, v)
		case "env":
			v, err := varVal(name, inline, has)
			if err != nil {
				return nil, err
			}
			cur.env = append(cur.env, v)
		case "wdir", "wd":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			if len(o.apps) == 0 {
				o.wdir = v
			} else {
				cur.wdir = v
			}
		case "at":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			if k, n, ok := strings.Cut(v, "="); !ok || n == "" || (k != "site" && k != "machine" && k != "host") {
				return nil, fmt.Errorf("--at %q: want site=NAME, machine=NAME or host=NAME", v)
			}
			cur.at = v
		case "tag-output", "l", "prepend-rank":
			o.tagOutput = true
		case "bind-to", "bind":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			if v != "core" && v != "none" {
				return nil, fmt.Errorf("--bind-to %q: want core or none", v)
			}
			o.bind = v
		case "timeout":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			d, err := parseTimeout(v)
			if err != nil {
				return nil, err
			}
			o.timeout = d
		case "H", "host", "hosts":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			for _, h := range strings.Split(v, ",") {
				hs, err := parseHost(h)
				if err != nil {
					return nil, err
				}
				o.hosts = append(o.hosts, hs)
			}
		case "hostfile", "machinefile", "f":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			hs, err := readHostfile(v)
			if err != nil {
				return nil, err
			}
			o.hosts = append(o.hosts, hs...)
		case "launcher":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			if _, err := grid.ParseLauncher(v); err != nil {
				return nil, fmt.Errorf("--launcher: %w", err)
			}
			o.launcher = v
		case "grid":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			o.grid = v
		case "nameserver", "name-server":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			o.nameServer = v
		case "universe-size", "usize":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bad universe size %q for -%s", v, name)
			}
			o.universe = n
		case "serve-names":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			o.serveNames = v
			return o, nil
		case "show-topology":
			o.showTopo = true
		case "emulate":
			o.emulate = true
		case "emulate-share", "emulate-attach":
			v, err := value(name, inline, has)
			if err != nil {
				return nil, err
			}
			if name == "emulate-share" {
				o.emuShare = v
			} else {
				o.emuAttach, o.emulate = v, true
			}
		case "v", "verbose":
			o.verbose = true
		case "info":
			o.info = true
		case "all":
			o.infoAll = true
		case "parsable", "parseable":
			o.parsable = true
		case "version", "V":
			o.version = true
			return o, nil
		case "h", "help":
			o.help = true
			return o, nil
		default:
			return nil, fmt.Errorf("unknown option %q (see --help)", arg)
		}
	}
	if o.info {
		if len(cur.argv) > 0 || len(o.apps) > 0 {
			return nil, errors.New("--info runs no program")
		}
		return o, nil
	}
	if (o.infoAll || o.parsable) && !o.info {
		return nil, errors.New("--all and --parsable go with --info")
	}
	if len(cur.argv) > 0 {
		o.apps = append(o.apps, cur)
	} else if o.showTopo && len(o.apps) == 0 {
		// --show-topology runs nothing: a program is optional, -n counts.
		if cur.n > 0 {
			o.apps = append(o.apps, cur)
		}
	} else if len(o.apps) > 0 || cur.n != 0 || len(cur.env) > 0 {
		return nil, errors.New("no program given after the options")
	}
	if o.launcher != "" && o.grid != "" {
		return nil, errors.New("--launcher applies to -H/--hostfile hosts; with --grid, set each machine's launcher in the grid file")
	}
	if o.emulate && o.grid == "" {
		return nil, errors.New("--emulate needs --grid FILE (so does --emulate-attach)")
	}
	if o.emuShare != "" && (!o.emulate || o.emuAttach != "") {
		return nil, errors.New("--emulate-share needs --emulate (and no --emulate-attach)")
	}
	if len(o.apps) == 0 && !o.showTopo {
		return nil, errors.New("no program given (see --help)")
	}
	return o, nil
}

func checkVarName(k string) error {
	if k == "" || strings.ContainsAny(k, "= \t\n\x00") {
		return fmt.Errorf("bad environment variable name %q", k)
	}
	return nil
}

func parseTimeout(v string) (time.Duration, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f > 1e9 {
		return 0, fmt.Errorf("bad timeout %q (seconds, > 0)", v)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// parseHost parses "name" or "name:slots".
func parseHost(s string) (hostSpec, error) {
	s = strings.TrimSpace(s)
	name, slots, has := strings.Cut(s, ":")
	if name == "" {
		return hostSpec{}, fmt.Errorf("empty host name in %q", s)
	}
	h := hostSpec{name: name}
	if has {
		n, err := strconv.Atoi(slots)
		if err != nil || n < 1 {
			return hostSpec{}, fmt.Errorf("bad slot count in host %q", s)
		}
		h.slots = n
	}
	return h, nil
}

// readHostfile reads one host per line: "name", "name:slots" or Open MPI's
// "name slots=N"; '#' starts a comment.
func readHostfile(path string) ([]hostSpec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hostfile: %w", err)
	}
	defer f.Close()
	return parseHostfile(path, f)
}

// parseHostfile is readHostfile on the contents r of the file named path.
func parseHostfile(path string, r io.Reader) ([]hostSpec, error) {
	var hosts []hostSpec
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		h, err := parseHost(fields[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, ln, err)
		}
		for _, fld := range fields[1:] {
			k, v, _ := strings.Cut(fld, "=")
			switch k {
			case "slots", "max_slots", "max-slots":
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return nil, fmt.Errorf("%s:%d: bad %s", path, ln, fld)
				}
				if k == "slots" {
					h.slots = n
				}
			default:
				return nil, fmt.Errorf("%s:%d: unknown field %q", path, ln, fld)
			}
		}
		hosts = append(hosts, h)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("hostfile %s: %w", path, err)
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("hostfile %s lists no host", path)
	}
	return hosts, nil
}
