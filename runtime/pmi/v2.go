package pmi

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// v2 is the PMI-2 wire protocol (see wire.go for the framing). Commands
// used, with the reply each expects:
//
//	init (PMI-1 line, pmi_version=2)   -> response_to_init (PMI-1 line)
//	fullinit pmirank [pmijobid] threaded -> fullinit-response rank size appnum [spawner-jobid]
//	job-getid                          -> job-getid-response jobid
//	kvs-put key value                  -> kvs-put-response
//	kvs-fence                          -> kvs-fence-response (then a kvs-get, see barrier)
//	kvs-get jobid key                  -> kvs-get-response found [value]
//	info-getjobattr key                -> info-getjobattr-response found [value]
//	finalize                           -> finalize-response
//	abort isworld exitcode message     (no reply)
//
// Every reply may carry rc (non-zero: the request failed) and errmsg.
type v2 struct{ *link }

// PMI-2 has no get_maxes: these are the limits of MPICH's and Slurm's
// PMI-2 (PMI2_MAX_KEYLEN, PMI2_MAX_VALLEN).
const (
	v2KeyLenMax = 64
	v2ValLenMax = 1024
)

// NewClient2 starts a PMI-2 session over conn, an already connected stream
// to a server (PMI_FD, or a PMI_PORT connection): the PMI-1 init line
// asking for version 2, then fullinit with pmirank=pmiid (and
// pmijobid=jobid when jobid is not empty; Slurm requires it), job-getid
// for the KVS name and info-getjobattr universeSize. On error conn is
// closed.
func NewClient2(conn io.ReadWriteCloser, pmiid int, jobid string) (*Client, error) {
	l := newLink(conn)
	c := &Client{l: l, p: v2{l}, version: V2, rank: -1, size: -1,
		keyLenMax: v2KeyLenMax, valLenMax: v2ValLenMax}
	if err := c.init2(pmiid, jobid); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func (c *Client) init2(pmiid int, jobid string) error {
	p := c.p.(v2)
	f, err := v1(p).request("response_to_init", "init", "pmi_version", "2", "pmi_subversion", "0")
	var rce *rcError
	if errors.As(err, &rce) {
		return fmt.Errorf("pmi: the server refused PMI-2 (%v; it offers pmi_version=%q): GMPI_PMI=1 selects PMI-1", err, f["pmi_version"])
	}
	if err != nil {
		return err
	}
	if v := f["pmi_version"]; v != "2" {
		return p.fail(fmt.Errorf("pmi: server answered PMI-2 init with pmi_version=%q: it does not speak PMI-2 (GMPI_PMI=1 selects PMI-1)", v))
	}
	kv := []string{"pmirank", strconv.Itoa(pmiid)}
	if jobid != "" {
		if strings.ContainsAny(jobid, "; \n") {
			return p.fail(fmt.Errorf("pmi: bad PMI_JOBID %q", jobid))
		}
		kv = append(kv, "pmijobid", jobid)
	}
	kv = append(kv, "threaded", "FALSE")
	if f, err = p.request("fullinit-response", "fullinit", kv...); err != nil {
		return err
	}
	ints := map[string]*int{"rank": &c.rank, "size": &c.size, "appnum": &c.appNum}
	for k, dst := range ints {
		n, err := strconv.Atoi(f[k])
		if err != nil {
			return p.fail(fmt.Errorf("pmi: bad or missing %s=%q in fullinit-response", k, f[k]))
		}
		*dst = n
	}
	if c.appNum < 0 { // Slurm says -1: one application
		c.appNum = 0
	}
	if f, err = p.request("job-getid-response", "job-getid"); err != nil {
		return err
	}
	c.kvsName = f["jobid"]
	c.universeSize = c.size
	// Optional: a server without it may answer found=FALSE or rc != 0.
	if v, ok, err := p.jobAttr(c.kvsName, "universeSize"); err != nil && p.err != nil {
		return err
	} else if n, err := strconv.Atoi(v); ok && err == nil {
		c.universeSize = n
	}
	return c.checkJob()
}

// request sends one framed command and reads its reply, which must be
// cmd=want. A reply with rc != 0 is returned as an rcError that leaves the
// connection usable; I/O and protocol errors are sticky.
func (p v2) request(want, cmd string, kv ...string) (map[string]string, error) {
	if err := p.write(cmd, FormatCommand2(cmd, kv...)); err != nil {
		return nil, err
	}
	body, err := ReadCommand2(p.r)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, p.fail(fmt.Errorf("pmi: waiting for %s: %w", want, err))
	}
	f, err := ParseCommand2(body)
	if err != nil {
		return nil, p.fail(err)
	}
	if f["cmd"] != want {
		return nil, p.fail(fmt.Errorf("pmi: expected cmd=%s from server, got %q", want, body))
	}
	if rc, ok := f["rc"]; ok && rc != "0" {
		return f, &rcError{cmd: want, rc: rc, msg: DecodeValue(f["errmsg"])}
	}
	return f, nil
}

// found reads a reply's found/value pair.
func (p v2) found(f map[string]string, what string) (string, bool, error) {
	switch strings.ToUpper(f["found"]) {
	case "TRUE":
		v, ok := f["value"]
		if !ok {
			return "", false, p.fail(fmt.Errorf("pmi: %s: found=TRUE without value", what))
		}
		return v, true, nil
	case "FALSE":
		return "", false, nil
	default:
		return "", false, p.fail(fmt.Errorf("pmi: %s: bad found=%q", what, f["found"]))
	}
}

func (p v2) put(_, key, value string) error {
	_, err := p.request("kvs-put-response", "kvs-put", "key", key, "value", value)
	return err
}

func (p v2) get(kvs, key string) (string, error) {
	f, err := p.request("kvs-get-response", "kvs-get", "jobid", kvs, "srcid", "-1", "key", key)
	if err != nil {
		return "", err
	}
	v, ok, err := p.found(f, "kvs-get")
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (p v2) jobAttr(_, key string) (string, bool, error) {
	f, err := p.request("info-getjobattr-response", "info-getjobattr", "key", key)
	if err != nil {
		return "", false, err
	}
	return p.found(f, "info-getjobattr")
}

// syncKey is a key nobody puts: barrier reads it to wait for the others.
const syncKey = "gmpi-fence-sync"

// barrier is kvs-fence followed by a get of a key nobody puts. Slurm's
// fence already waits for every process; hydra's (MPICH 4.0) only commits
// and returns at once, but it holds back the answer to a get of a missing
// key until every process of the job has fenced as often as the asker, so
// the get makes the fence a barrier there too (Client.Barrier promises
// one; the shm device depends on it).
func (p v2) barrier(kvs string) error {
	if _, err := p.request("kvs-fence-response", "kvs-fence"); err != nil {
		return err
	}
	_, err := p.get(kvs, syncKey)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// abort sends the message readable (servers print it): ';' and control
// characters become spaces.
func (p v2) abort(code int, msg string) error {
	kv := []string{"isworld", "TRUE", "exitcode", strconv.Itoa(code)}
	if msg = strings.Map(func(r rune) rune {
		if r == ';' || r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, msg); msg != "" {
		kv = append(kv, "message", msg)
	}
	return p.write("abort", FormatCommand2("abort", kv...))
}

func (p v2) finalize() error {
	_, err := p.request("finalize-response", "finalize")
	return err
}
