// Package emu emulates a grid on one machine (needs root): one network
// namespace per host (own hostname, own address, own /etc/hosts), the
// hosts of a site on one bridge, and traffic between sites routed through
// a user-space router that adds each site pair's one-way latency and
// bandwidth (this kernel has no netem). See ../../../shared/GRID-EMULATION.md
// for the facts measured on these machines.
//
// The API below is the contract mpirun (--grid FILE --emulate) uses.
package emu

import (
	"errors"
	"net/netip"
	"os/exec"
	"time"
)

// Site is one site of the emulated grid and the hosts on its bridge.
type Site struct {
	Name  string
	Hosts []string
}

// Link is the one-way latency and bandwidth between two sites, applied in
// each direction independently. Rate is in bytes per second; 0 means
// unlimited.
type Link struct {
	A, B  string
	Delay time.Duration
	Rate  float64
}

// Topology is what to emulate. Site pairs without a Link are connected
// without added delay or rate limit.
type Topology struct {
	Sites []Site
	Links []Link
}

// Grid is a running emulation.
type Grid struct{}

// ErrNotImplemented is returned by Start until the emulator lands.
var ErrNotImplemented = errors.New("grid emulation is not implemented yet")

// Start builds the namespaces, bridges and the router. On error nothing
// is left behind.
func Start(t Topology) (*Grid, error) { return nil, ErrNotImplemented }

// Addr is host's address inside the emulation.
func (g *Grid) Addr(host string) netip.Addr { return netip.Addr{} }

// Command returns a command that runs name with args inside host's
// namespaces (network, UTS, mount). The caller may set Env, ExtraFiles,
// Stdin/Stdout/Stderr and SysProcAttr before starting it; inherited file
// descriptors stay usable.
func (g *Grid) Command(host, name string, args ...string) *exec.Cmd { return nil }

// SetSiteDown cuts (down=true) or restores every wide-area path of site,
// as if its router stopped.
func (g *Grid) SetSiteDown(site string, down bool) error { return ErrNotImplemented }

// Close tears everything down: processes it started for the emulation,
// namespaces, links, bridges. Safe to call more than once.
func (g *Grid) Close() error { return nil }
