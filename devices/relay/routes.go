package relay

import (
	"fmt"
	"strings"
)

// Relay is the relay of a private site, as mpirun announces it in
// GMPI_TCP_RELAYS.
type Relay struct {
	Site    string
	Gateway string // the host it runs on
	Inside  string // host:port the site's own hosts dial
	Outside string // host:port other sites dial
}

// Routes maps each private site to its relay.
type Routes map[string]Relay

// Format writes rs as GMPI_TCP_RELAYS: "SITE@GATEWAY=INSIDE[,OUTSIDE]"
// separated by spaces, in the order given.
func Format(rs []Relay) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Site + "@" + r.Gateway + "=" + r.Inside
		if r.Outside != "" && r.Outside != r.Inside {
			parts[i] += "," + r.Outside
		}
	}
	return strings.Join(parts, " ")
}

// ParseRoutes reads GMPI_TCP_RELAYS ("" no relay).
func ParseRoutes(s string) (Routes, error) {
	rs := Routes{}
	for _, f := range strings.Fields(s) {
		siteGw, addrs, ok1 := strings.Cut(f, "=")
		site, gw, ok2 := strings.Cut(siteGw, "@")
		in, out, _ := strings.Cut(addrs, ",")
		if out == "" {
			out = in
		}
		if !ok1 || !ok2 || site == "" || gw == "" || checkAddr(in) != nil || checkAddr(out) != nil {
			return nil, fmt.Errorf("GMPI_TCP_RELAYS: %q is not SITE@GATEWAY=HOST:PORT[,HOST:PORT]", f)
		}
		if _, dup := rs[site]; dup {
			return nil, fmt.Errorf("GMPI_TCP_RELAYS: site %q has two relays", site)
		}
		rs[site] = Relay{Site: site, Gateway: gw, Inside: in, Outside: out}
	}
	return rs, nil
}

// Hops lists the relays a connection from a host of fromSite to toHost of
// toSite passes, in order: none inside a site; the own site's relay when
// the dialling host is a private one (not its site's gateway); the
// target site's relay when the target is a private host. Between two
// private sites that is both relays.
func (rs Routes) Hops(fromSite, fromHost, toSite, toHost string) []string {
	if fromSite == toSite || len(rs) == 0 {
		return nil
	}
	var hops []string
	if r, ok := rs[fromSite]; ok && fromHost != r.Gateway {
		hops = append(hops, r.Inside)
	}
	if r, ok := rs[toSite]; ok && toHost != r.Gateway {
		hops = append(hops, r.Outside)
	}
	return hops
}

// Describe says how a pair is connected, for messages and
// --show-topology: "direct" or "via relay on s2h0".
func (rs Routes) Describe(fromSite, fromHost, toSite, toHost string) string {
	if fromSite == toSite {
		return "direct"
	}
	var via []string
	if r, ok := rs[fromSite]; ok && fromHost != r.Gateway {
		via = append(via, r.Gateway)
	}
	if r, ok := rs[toSite]; ok && toHost != r.Gateway {
		via = append(via, r.Gateway)
	}
	if len(via) == 0 {
		return "direct"
	}
	return "via relay on " + strings.Join(via, " and ")
}
