package fileio

import (
	"strconv"
	"strings"
	"unsafe"

	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// hints are the I/O hints in force (ROMIO's names and defaults). Unknown
// keys and values that do not parse are ignored, as the standard allows.
type hints struct {
	cbBufferSize   int64
	cbNodes        int
	cbConfigList   string
	cbRead         string // enable, disable, automatic
	cbWrite        string
	dsRead         string
	dsWrite        string
	indRdBuffer    int64
	indWrBuffer    int64
	stripingFactor int64 // 0: not set
	stripingUnit   int64 // 0: not set
	accessStyle    string
	collBuffering  string
	noIndepRW      string
	nprocs         int // cb_nodes is at most this
}

// defaultHints are ROMIO's defaults (two-phase collective buffering and
// data sieving where the access pattern calls for them), except sieved
// reads' windows of 512 KiB (ROMIO: 4 MiB) that stay in a core's L2
// cache between the kernel's copy into them and ours out of them
// (bench/io.c's interleaved read, 1.2x at 2 ranks and 1.3-1.8x at 4,
// bench/README.md), then those of GMPI_IO_HINTS.
func defaultHints(f *File) hints {
	h := hints{
		cbBufferSize: 16 << 20,
		cbNodes:      hostCount(f.comm),
		cbConfigList: "*:1",
		cbRead:       "automatic", cbWrite: "automatic",
		dsRead: "automatic", dsWrite: "automatic",
		indRdBuffer: 512 << 10, indWrBuffer: 512 << 10,
		collBuffering: "true",
		noIndepRW:     "false",
		nprocs:        f.comm.Size(),
	}
	if w := f.comm.World(); w != nil {
		h.apply(parseHints(param.IOHints.Get(w.Params())))
	}
	return h
}

// parseHints turns "key=value,key=value" into an info object (pairs
// without "=" are ignored, like unknown keys).
func parseHints(s string) *mpirt.Info {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	in := mpirt.NewInfo()
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) != "" {
			in.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return in
}

// hostCount is the number of distinct hosts among c's processes (1 when
// the hosts are not known).
func hostCount(c *mpirt.Comm) int {
	seen := map[int]bool{}
	for r := 0; r < c.Size(); r++ {
		seen[c.World().HostIndex(c.WorldRank(r))] = true
	}
	return len(seen)
}

func parsePos(s string) (int64, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return v, err == nil && v > 0
}

func parseMode(s string) (string, bool) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "enable", "disable", "automatic":
		return v, true
	}
	return "", false
}

// apply takes the hints of in that it knows.
func (h *hints) apply(in *mpirt.Info) {
	if in == nil {
		return
	}
	for i := 0; i < in.NKeys(); i++ {
		k, ok := in.NthKey(i)
		if !ok {
			continue
		}
		v, _ := in.Get(k)
		switch k {
		case "cb_buffer_size":
			if n, ok := parsePos(v); ok {
				h.cbBufferSize = n
			}
		case "cb_nodes":
			if n, ok := parsePos(v); ok && n < 1<<20 {
				h.cbNodes = int(n)
			}
		case "cb_config_list":
			h.cbConfigList = v
		case "romio_cb_read":
			if m, ok := parseMode(v); ok {
				h.cbRead = m
			}
		case "romio_cb_write":
			if m, ok := parseMode(v); ok {
				h.cbWrite = m
			}
		case "romio_ds_read":
			if m, ok := parseMode(v); ok {
				h.dsRead = m
			}
		case "romio_ds_write":
			if m, ok := parseMode(v); ok {
				h.dsWrite = m
			}
		case "ind_rd_buffer_size":
			if n, ok := parsePos(v); ok {
				h.indRdBuffer = n
			}
		case "ind_wr_buffer_size":
			if n, ok := parsePos(v); ok {
				h.indWrBuffer = n
			}
		case "striping_factor":
			if n, ok := parsePos(v); ok {
				h.stripingFactor = n
			}
		case "striping_unit":
			if n, ok := parsePos(v); ok {
				h.stripingUnit = n
			}
		case "access_style":
			h.accessStyle = v
		case "collective_buffering":
			if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
				h.collBuffering = strconv.FormatBool(b)
				if !b {
					h.cbRead, h.cbWrite = "disable", "disable"
				}
			}
		case "romio_no_indep_rw":
			if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
				h.noIndepRW = strconv.FormatBool(b)
			}
		}
	}
	if h.cbNodes > h.nprocs {
		h.cbNodes = h.nprocs
	}
}

// info returns the hints in force as an info object.
func (h *hints) info() *mpirt.Info {
	in := mpirt.NewInfo()
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	in.Set("cb_buffer_size", i64(h.cbBufferSize))
	in.Set("romio_cb_read", h.cbRead)
	in.Set("romio_cb_write", h.cbWrite)
	in.Set("cb_nodes", i64(int64(h.cbNodes)))
	in.Set("cb_config_list", h.cbConfigList)
	in.Set("romio_no_indep_rw", h.noIndepRW)
	in.Set("romio_ds_read", h.dsRead)
	in.Set("romio_ds_write", h.dsWrite)
	in.Set("ind_rd_buffer_size", i64(h.indRdBuffer))
	in.Set("ind_wr_buffer_size", i64(h.indWrBuffer))
	in.Set("collective_buffering", h.collBuffering)
	if h.stripingFactor > 0 {
		in.Set("striping_factor", i64(h.stripingFactor))
	}
	if h.stripingUnit > 0 {
		in.Set("striping_unit", i64(h.stripingUnit))
	}
	if h.accessStyle != "" {
		in.Set("access_style", h.accessStyle)
	}
	return in
}

// Info is MPI_File_get_info: a new info object with the hints in force.
func (f *File) Info() *mpirt.Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hints.info()
}

// SetInfo is MPI_File_set_info (collective): the hints it knows take
// effect for later accesses.
func (f *File) SetInfo(fn string, in *mpirt.Info) error {
	if err := f.comm.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{}); err != nil {
		return err
	}
	f.mu.Lock()
	f.hints.apply(in)
	f.mu.Unlock()
	return nil
}

// allreduceInt64 reduces v in place over c with op.
func allreduceInt64(c *mpirt.Comm, v []int64, op mpirt.Handle) error {
	dt := predef(mpirt.TypeInt64)
	in, ib := offHeap64(len(v))
	defer release(ib)
	copy(in, v)
	out, ob := offHeap64(len(v))
	defer release(ob)
	err := c.CollRun(mpirt.CollAllreduce, &mpirt.CollArgs{Sbuf: unsafe.Pointer(&in[0]), Rbuf: unsafe.Pointer(&out[0]),
		Rcount: len(v), Rdt: dt, Op: op})
	copy(v, out)
	return err
}

// bcastInt64 broadcasts v from root over c.
func bcastInt64(c *mpirt.Comm, v []int64, root int) error {
	b, bb := offHeap64(len(v))
	defer release(bb)
	copy(b, v)
	err := c.CollRun(mpirt.CollBcast, &mpirt.CollArgs{Rbuf: unsafe.Pointer(&b[0]), Rcount: len(v),
		Rdt: predef(mpirt.TypeInt64), Root: root})
	copy(v, b)
	return err
}

// bcastBytes broadcasts b (the same length everywhere) from root.
func bcastBytes(c *mpirt.Comm, b []byte, root int) error {
	p := offHeap(len(b))
	defer release(p)
	copy(p, b)
	err := c.CollRun(mpirt.CollBcast, &mpirt.CollArgs{Rbuf: unsafe.Pointer(&p[0]), Rcount: len(b),
		Rdt: predef(mpirt.TypeByte), Root: root})
	copy(b, p)
	return err
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// predef is the predefined datatype of handle h.
func predef(h mpirt.Handle) *mpirt.Datatype {
	d, _ := mpirt.PredefinedDatatype(h)
	return d
}
