package main

import (
	"encoding/hex"
	"fmt"
	"net"

	"gmpi/devices/relay"
	"gmpi/devices/tcp"
	mpirt "gmpi/runtime"
	"gmpi/runtime/auth"
	"gmpi/runtime/param"
	"gmpi/runtime/pmi"
	"gmpi/runtime/ports"
)

// The tcp device's part of MPI_Init: the listening socket and its card
// (published before the host exchange's barrier, so no extra barrier),
// the job secret, and the device for the peers on other hosts.

// tcpDevice is the process's tcp device, nil when every peer is local.
var tcpDevice *tcp.Device

// tcpRemote are the world ranks whose point-to-point route is tcpDevice.
var tcpRemote []int

// tcpSecretKey is where rank 0 publishes a secret it made up when the
// launcher gave none (see tcpSecret).
const tcpSecretKey = "gmpi-tcp-secret"

func tcpCardKey(rank int) string { return fmt.Sprintf("gmpi-tcp-%d", rank) }

// publishTCP opens the listening socket (GMPI_TCP_IF, in
// GMPI_TCP_PORT_RANGE; the card says GMPI_TCP_ADVERTISE when set) and puts its card
// in the KVS; rank 0 also puts a secret when GMPI_JOB_SECRET is unset.
// The caller's barrier commits both.
func publishTCP(c *pmi.Client, p *param.Values, rank int) (net.Listener, error) {
	pr, err := ports.FromParams(p)
	if err != nil {
		return nil, err
	}
	l, card, err := tcp.ListenConfig{If: param.TCPIf.Get(p), Ports: pr, Advertise: param.TCPAdvertise.Get(p)}.Listen()
	if err != nil {
		return nil, err
	}
	if err := c.Put(tcpCardKey(rank), card); err != nil {
		l.Close()
		return nil, err
	}
	if rank == 0 && param.JobSecret.Get(p) == "" {
		s, err := auth.NewSecret()
		if err == nil {
			err = c.Put(tcpSecretKey, s)
		}
		if err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// splitPeers chooses the device of every other rank: shm when the launch
// placed it on this rank's host, tcp otherwise (and towards a peer of
// another data representation); GMPI_DEVICE=tcp makes
// every peer a tcp peer (testing the tcp device on one host).
func splitPeers(p *param.Values, hosts []string, locs []mpirt.Location, rank int) (local, remote []int, err error) {
	forceTCP := param.Device.Get(p) == "tcp" // the registry accepts only auto and tcp
	for r, h := range hosts {
		switch {
		case r == rank:
		case h != hosts[rank] || forceTCP || otherRep(locs, r, rank):
			remote = append(remote, r)
		default:
			local = append(local, r)
		}
	}
	return local, remote, nil
}

// relayHops is the tcp device's route to each peer: the relays of the
// private sites (GMPI_TCP_RELAYS, set by mpirun from the grid file) that
// a connection between this rank's host and the peer's passes; nil when
// the job has none.
func relayHops(cfg mpirt.Config) (func(peer int) []string, error) {
	routes, err := relay.ParseRoutes(param.TCPRelays.Get(cfg.Params))
	if err != nil || len(routes) == 0 {
		return nil, err
	}
	locs := cfg.Locations
	if len(locs) != cfg.Size {
		return nil, nil
	}
	me := locs[cfg.Rank]
	return func(r int) []string {
		return routes.Hops(me.Site, me.Host, locs[r].Site, locs[r].Host)
	}, nil
}

// otherRep reports whether rank r has another data representation than
// rank me: such a pair talks over TCP even on one host (a process run
// under qemu-user), whose wire headers have one byte order; shared
// memory rings would not.
func otherRep(locs []mpirt.Location, r, me int) bool {
	return r < len(locs) && me < len(locs) && locs[r].Rep != "" && locs[me].Rep != "" && locs[r].Rep != locs[me].Rep
}

// tcpSecret is the job secret: GMPI_JOB_SECRET (hex), which our mpirun
// sets; under another launcher (hydra), the one rank 0 published in the
// KVS. The latter is weaker: any process that can talk to the job's PMI
// server can read it.
func tcpSecret(c *pmi.Client, p *param.Values) ([]byte, error) {
	s := param.JobSecret.Get(p)
	if s == "" {
		var err error
		if s, err = c.Get(tcpSecretKey); err != nil {
			return nil, fmt.Errorf("reading the job secret: %v", err)
		}
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) < 16 {
		return nil, fmt.Errorf("the job secret (GMPI_JOB_SECRET) is not hex of at least 16 bytes")
	}
	return b, nil
}

// startTCP builds the tcp device for the remote peers, or closes the
// listener when there are none.
func startTCP(c *pmi.Client, cfg mpirt.Config, l net.Listener, remote []int, hosts []string, waker mpirt.Waker) (*tcp.Device, error) {
	if len(remote) == 0 {
		l.Close()
		return nil, nil
	}
	secret, err := tcpSecret(c, cfg.Params)
	if err != nil {
		l.Close()
		return nil, err
	}
	// The waiting thread reads the sockets itself when no shared-memory
	// peer shares its polling loop (GMPI_TCP_POLL=1/0 forces the choice).
	poll := len(remote) == cfg.Size-1
	if v, ok := param.TCPPoll.Lookup(cfg.Params); ok {
		poll = v
	}
	hops, err := relayHops(cfg)
	if err != nil {
		l.Close()
		return nil, err
	}
	// The device reaches every rank, not only the remote ones: the
	// one-sided operations of a window spanning hosts travel over it
	// also between ranks of one host (served by its receive path while
	// the target computes); point-to-point traffic keeps its routes.
	all := make([]int, 0, cfg.Size-1)
	for r := 0; r < cfg.Size; r++ {
		if r != cfg.Rank {
			all = append(all, r)
		}
	}
	d, err := tcp.New(tcp.Config{Rank: cfg.Rank, Size: cfg.Size, JobID: c.KVSName(), Secret: secret,
		Listener: l, Peers: all, Hosts: hosts, Waker: waker, Log: cfg.Log, PollSockets: poll, Params: cfg.Params,
		Card:        func(r int) (string, error) { return c.Get(tcpCardKey(r)) },
		Hops:        hops,
		Unreachable: func(_ int, msg string) { abortJob(1, msg) }})
	if err != nil {
		l.Close()
		return nil, err
	}
	tcpDevice = d
	return d, nil
}
