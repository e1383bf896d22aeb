package tcp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"

	"gmpi/devices/relay"
)

// diagnose turns a failed dial to p into the job's last word about it:
// both hosts, the address (and relays) tried, what happened, and the
// setting that would fix it.
func (d *Device) diagnose(p *peer, card string, hops []string, err error) error {
	self := "?"
	if d.cfg.Rank < len(d.cfg.Hosts) {
		self = d.cfg.Hosts[d.cfg.Rank]
	}
	msg := fmt.Sprintf("host %q (rank %d) cannot reach host %q (rank %d) at %s", self, d.cfg.Rank, p.host, p.rank, card)
	if len(hops) > 0 {
		msg += " through the relay(s) at " + strings.Join(hops, ", ")
	}
	return fmt.Errorf("%s: %w; %s", msg, err, hint(p.host, hops, err))
}

// hint names the setting that would fix a failed dial.
func hint(host string, hops []string, err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, relay.ErrRefused):
		return "the relay could not open the path (its reason is above); check the relay's site (private, gateway, port_range in the grid file)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens there: the rank may have ended, or peers dial the wrong address (set the host's advertise in the grid file, or GMPI_TCP_ADVERTISE, to the address peers must dial; interface/listen or GMPI_TCP_IF choose where ranks listen)"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to it: if host " + fmt.Sprintf("%q", host) + " is on a private network, mark its site private with its gateway in the grid file (private = true, gateway = \"HOST\") so that traffic goes through a relay; interface/listen (GMPI_TCP_IF) choose the network ranks listen on"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		if len(hops) > 0 {
			return "no answer from the relay (a firewall may drop it): give the relay's site a port_range its firewall admits; if this host's site lets connections out only from some source ports, give gmpi that range (source_port_range in the grid file, or GMPI_TCP_SOURCE_PORT_RANGE=low:high)"
		}
		return "no answer (a firewall may drop the connection): if the site of host " + fmt.Sprintf("%q", host) + " admits only some ports, give gmpi that range (port_range in the grid file, or GMPI_TCP_PORT_RANGE=low:high); if host " + fmt.Sprintf("%q", host) + " (or this one) is on a private network, mark its site private with its gateway (private = true, gateway = \"HOST\", relay not switched off) so that traffic goes through a relay; if this host's site lets connections out only from some source ports, give gmpi that range (source_port_range in the grid file, or GMPI_TCP_SOURCE_PORT_RANGE=low:high)"
	}
	return "check that host " + fmt.Sprintf("%q", host) + " is reachable from here (grid file: port_range, private/gateway, advertise, interface)"
}
