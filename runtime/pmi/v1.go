package pmi

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// v1 is the PMI-1 "simple" wire protocol: one line per request and reply
// (see wire.go).
type v1 struct{ *link }

// Defaults used when a PMI-1 server does not announce its maxima.
const (
	defaultKeyLenMax = 64
	defaultValLenMax = 1024
)

// NewClient does the PMI-1 init exchange over conn, an already connected
// stream to a server, for the process with the given rank in a job of the
// given size (PMI-1 carries neither in fd mode: they come from PMI_RANK
// and PMI_SIZE). A size < 1 is replaced by the universe size. The exchange
// is: init (pmi_version=1 pmi_subversion=1), get_maxes, get_my_kvsname,
// get_appnum and get_universe_size. On error conn is closed.
func NewClient(conn io.ReadWriteCloser, rank, size int) (*Client, error) {
	c := newClient1(conn, rank, size)
	if err := c.init1(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// connectPort1 is the PMI_PORT form: initack first, then the init
// exchange. On error conn is closed.
func connectPort1(conn io.ReadWriteCloser, pmiid int) (*Client, error) {
	c := newClient1(conn, -1, -1)
	err := c.p.(v1).initack(c, pmiid)
	if err == nil {
		err = c.init1()
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func newClient1(conn io.ReadWriteCloser, rank, size int) *Client {
	l := newLink(conn)
	return &Client{l: l, p: v1{l}, version: V1, rank: rank, size: size,
		keyLenMax: defaultKeyLenMax, valLenMax: defaultValLenMax}
}

// initack is the PMI_PORT handshake: the server answers cmd=initack and
// then sends "cmd=set size=N", "cmd=set rank=N" and "cmd=set debug=N".
func (p v1) initack(c *Client, pmiid int) error {
	if _, err := p.request("initack", "initack", "pmiid", strconv.Itoa(pmiid)); err != nil {
		return err
	}
	for got := 0; got < 3; got++ {
		f, err := p.readReply("set")
		if err != nil {
			return err
		}
		for k, v := range f {
			var dst *int
			switch k {
			case "size":
				dst = &c.size
			case "rank":
				dst = &c.rank
			default:
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return p.fail(fmt.Errorf("pmi: bad %s=%q in initack reply", k, v))
			}
			*dst = n
		}
	}
	if c.rank < 0 || c.size < 1 {
		return p.fail(fmt.Errorf("pmi: server did not assign rank and size (rank=%d size=%d)", c.rank, c.size))
	}
	return nil
}

// init1 is the PMI-1 init exchange.
func (c *Client) init1() error {
	p := c.p.(v1)
	f, err := p.request("response_to_init", "init", "pmi_version", "1", "pmi_subversion", "1")
	if err != nil {
		return err
	}
	if v := f["pmi_version"]; v != "" && v != "1" {
		return fmt.Errorf("pmi: server speaks PMI version %s, want 1", v)
	}
	if f, err = p.request("maxes", "get_maxes"); err != nil {
		return err
	}
	for k, dst := range map[string]*int{"keylen_max": &c.keyLenMax, "vallen_max": &c.valLenMax} {
		if v, ok := f[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("pmi: bad %s=%q from server", k, v)
			}
			*dst = n
		}
	}
	if c.valLenMax < 16 || c.keyLenMax < 8 {
		return fmt.Errorf("pmi: server limits too small (keylen_max=%d vallen_max=%d)", c.keyLenMax, c.valLenMax)
	}
	if f, err = p.request("my_kvsname", "get_my_kvsname"); err != nil {
		return err
	}
	c.kvsName = f["kvsname"]
	if f, err = p.request("appnum", "get_appnum"); err != nil {
		return err
	}
	if c.appNum, err = strconv.Atoi(f["appnum"]); err != nil {
		return fmt.Errorf("pmi: bad appnum %q from server", f["appnum"])
	}
	c.universeSize = -1
	if f, err = p.request("universe_size", "get_universe_size"); err == nil {
		if n, err := strconv.Atoi(f["size"]); err == nil {
			c.universeSize = n
		}
	} else if p.err != nil {
		return err
	}
	if c.size < 1 {
		c.size = c.universeSize
	}
	return c.checkJob()
}

// readReply reads one reply line and checks that it is cmd=want and that
// its rc, if any, is 0. A reply with rc != 0 is returned as an error that
// leaves the connection usable; I/O and protocol errors are sticky.
func (p v1) readReply(want string) (map[string]string, error) {
	if p.err != nil {
		return nil, p.err
	}
	line, err := ReadLine(p.r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, p.fail(fmt.Errorf("pmi: waiting for %s: %w", want, err))
	}
	f, err := ParseLine(line)
	if err != nil {
		return nil, p.fail(err)
	}
	if f["cmd"] != want {
		return nil, p.fail(fmt.Errorf("pmi: expected cmd=%s from server, got %q", want, line))
	}
	if rc, ok := f["rc"]; ok && rc != "0" {
		msg := f["msg"]
		if msg == "" {
			msg = f["errmsg"]
		}
		return f, &rcError{cmd: want, rc: rc, msg: DecodeValue(msg)}
	}
	return f, nil
}

// request sends one command and reads its reply.
func (p v1) request(want, cmd string, kv ...string) (map[string]string, error) {
	if err := p.write(cmd, FormatLine(cmd, kv...)); err != nil {
		return nil, err
	}
	return p.readReply(want)
}

func (p v1) put(kvs, key, value string) error {
	_, err := p.request("put_result", "put", "kvsname", kvs, "key", key, "value", value)
	return err
}

func (p v1) get(kvs, key string) (string, error) {
	f, err := p.request("get_result", "get", "kvsname", kvs, "key", key)
	if err != nil {
		var rce *rcError
		if errors.As(err, &rce) {
			return "", fmt.Errorf("%w (server: rc=%s %s)", ErrNotFound, rce.rc, rce.msg)
		}
		return "", err
	}
	v, ok := f["value"]
	if !ok {
		return "", errors.New("reply without value")
	}
	return v, nil
}

func (p v1) jobAttr(kvs, key string) (string, bool, error) {
	v, err := p.get(kvs, key)
	if errors.Is(err, ErrNotFound) {
		return "", false, nil
	}
	return v, err == nil, err
}

func (p v1) barrier(string) error {
	_, err := p.request("barrier_out", "barrier_in")
	return err
}

func (p v1) abort(code int, msg string) error {
	kv := []string{"exitcode", strconv.Itoa(code)}
	if msg != "" {
		kv = append(kv, "message", EncodeValue(msg))
	}
	return p.write("abort", FormatLine("abort", kv...))
}

func (p v1) finalize() error {
	_, err := p.request("finalize_ack", "finalize")
	return err
}
