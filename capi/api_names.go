package main

import (
	"errors"
	"sync"

	mpirt "gmpi/runtime"
	"gmpi/runtime/names"
	"gmpi/runtime/param"
)

// The name service (runtime/names): every name is published on this host
// (the jobs of this user on this host find it with no server), and also
// at the name server when GMPI_NAMESERVER names one (mpirun
// --nameserver); a lookup asks the server first, then this host.

const maxServiceName = 1024

var published struct {
	mu    sync.Mutex
	local map[string]*names.Local
	// remote: names this process published at the name server.
	remote map[string]bool
}

// nameServer is the name server client, nil without GMPI_NAMESERVER.
func nameServer() (*names.Client, error) {
	p := world.Params()
	addr := param.NameServer.Get(p)
	if addr == "" {
		return nil, nil
	}
	path := param.NameServerKey.Get(p)
	if path == "" {
		path = names.DefaultKeyFile()
	}
	key, err := names.LoadKey(path, false)
	if err != nil {
		return nil, err
	}
	return &names.Client{Addr: addr, Key: key}, nil
}

// nameArgs checks the arguments of the three calls.
func nameArgs(fn string, service *byte, infoH int32, port *byte) (string, int32) {
	if !active(fn) {
		return "", int32(mpirt.ErrOther)
	}
	if _, rc := infoArg(fn, nil, infoH, "info", true); rc != 0 {
		return "", rc
	}
	if service == nil {
		return "", badPointer(fn, "service_name")
	}
	if port == nil {
		return "", badPointer(fn, "port_name")
	}
	s := goString(service, maxServiceName+1)
	if s == "" || len(s) > maxServiceName {
		return "", failf(fn, nil, mpirt.ErrArg, "invalid argument service_name: empty or longer than %d bytes", maxServiceName)
	}
	return s, 0
}

func MPI_Publish_name(service *byte, infoH int32, port *byte) int32 {
	const fn = "MPI_Publish_name"
	svc, rc := nameArgs(fn, service, infoH, port)
	if rc != 0 {
		return rc
	}
	pn := goString(port, maxPortName)
	ns, err := nameServer()
	if err != nil {
		return failf(fn, nil, mpirt.ErrService, "name server: %v", err)
	}
	published.mu.Lock()
	defer published.mu.Unlock()
	if published.local == nil {
		published.local, published.remote = map[string]*names.Local{}, map[string]bool{}
	}
	if published.local[svc] != nil {
		return failf(fn, nil, mpirt.ErrService, "service %q is already published by this process", svc)
	}
	l, err := names.PublishLocal(svc, pn)
	if err != nil {
		return failf(fn, nil, mpirt.ErrService, "cannot publish service %q on this host: %v", svc, err)
	}
	if ns != nil {
		if err := ns.Publish(svc, pn); err != nil {
			l.Close()
			return failf(fn, nil, mpirt.ErrService, "cannot publish service %q: %v", svc, err)
		}
		published.remote[svc] = true
	}
	published.local[svc] = l
	return 0
}

func MPI_Unpublish_name(service *byte, infoH int32, port *byte) int32 {
	const fn = "MPI_Unpublish_name"
	svc, rc := nameArgs(fn, service, infoH, port)
	if rc != 0 {
		return rc
	}
	published.mu.Lock()
	l := published.local[svc]
	remote := published.remote[svc]
	delete(published.local, svc)
	delete(published.remote, svc)
	published.mu.Unlock()
	if l == nil {
		return failf(fn, nil, mpirt.ErrService, "service %q was not published by this process", svc)
	}
	l.Close()
	if remote {
		ns, err := nameServer()
		if err == nil && ns != nil {
			err = ns.Unpublish(svc)
		}
		if err != nil {
			return failf(fn, nil, mpirt.ErrService, "unpublishing service %q at the name server: %v", svc, err)
		}
	}
	return 0
}

func MPI_Lookup_name(service *byte, infoH int32, port *byte) int32 {
	const fn = "MPI_Lookup_name"
	svc, rc := nameArgs(fn, service, infoH, port)
	if rc != 0 {
		return rc
	}
	ns, err := nameServer()
	if err != nil {
		return failf(fn, nil, mpirt.ErrName, "name server: %v", err)
	}
	if ns != nil {
		pn, err := ns.Lookup(svc)
		if err == nil {
			cString(port, maxPortName, pn)
			return 0
		}
		if !errors.Is(err, names.ErrNotFound) {
			return failf(fn, nil, mpirt.ErrName, "looking up service %q: %v", svc, err)
		}
	}
	pn, err := names.LookupLocal(svc)
	if err != nil {
		return failf(fn, nil, mpirt.ErrName, "service %q is not published (on this host%s)", svc, map[bool]string{true: " nor at the name server", false: ""}[ns != nil])
	}
	cString(port, maxPortName, pn)
	return 0
}

// unpublishAll withdraws this process's names (MPI_Finalize).
func unpublishAll() {
	published.mu.Lock()
	defer published.mu.Unlock()
	ns, _ := nameServer()
	for svc, l := range published.local {
		l.Close()
		if published.remote[svc] && ns != nil {
			ns.Unpublish(svc)
		}
	}
	published.local, published.remote = nil, nil
}
