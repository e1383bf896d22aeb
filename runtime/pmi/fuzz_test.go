package pmi_test

import (
	"bufio"
	"strings"
	"testing"

	"gmpi/internal/fuzzseed"
	"gmpi/runtime/pmi"
)

// The PMI wire as mpirun's server and the client read it: one line per
// command. Seeds: every command of PMI-1 as gmpi and other clients write
// them, and malformed lines.
var wireSeeds = []string{
	"cmd=init pmi_version=1 pmi_subversion=1\n",
	"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n",
	"cmd=get_maxes\n",
	"cmd=maxes kvsname_max=256 keylen_max=256 vallen_max=1024 rc=0\n",
	"cmd=get_appnum\n", "cmd=appnum appnum=0\n",
	"cmd=get_my_kvsname\n", "cmd=my_kvsname kvsname=kvs_1 rc=0\n",
	"cmd=get_universe_size\n", "cmd=universe_size size=4\n",
	"cmd=put kvsname=kvs_1 key=gmpi-host-0 value=node%20a\n", "cmd=put_result rc=0\n",
	"cmd=barrier_in\n", "cmd=barrier_out\n",
	"cmd=get kvsname=kvs_1 key=gmpi-host-0\n", "cmd=get_result rc=0 value=%-\n",
	"cmd=get_result rc=-1 msg=key_not_found\n",
	"cmd=abort exitcode=3 msg=gmpi%3A%20abort\n",
	"cmd=finalize\n", "cmd=finalize_ack\n",
	"mcmd=spawn\nnprocs=1\nexecname=a.out\nendcmd\n",
	"cmd=\n", "=x\n", "cmd=put key==value\n", "cmd=get value=%zz%4\n", "\n", "cmd=x " + strings.Repeat("k=v ", 100) + "\n",
	strings.Repeat("a", pmi.MaxLine+10) + "\n",
}

// FuzzWireLine: ReadLine never returns more than MaxLine bytes and always
// makes progress; ParseLine either fails or returns a command, and
// re-encoding its values round-trips through DecodeValue.
func FuzzWireLine(f *testing.F) {
	for _, s := range wireSeeds {
		fuzzseed.Add(f, []any{s})
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := bufio.NewReaderSize(strings.NewReader(in), 16)
		for n := 0; ; n++ {
			if n > len(in)+1 {
				t.Fatalf("ReadLine made no progress")
			}
			line, err := pmi.ReadLine(r)
			if err != nil {
				break
			}
			if len(line) > pmi.MaxLine {
				t.Fatalf("line of %d bytes over MaxLine", len(line))
			}
			fields, err := pmi.ParseLine(line)
			if err != nil {
				continue
			}
			if fields["cmd"] == "" && fields["mcmd"] == "" {
				t.Fatalf("ParseLine accepted %q without a command", line)
			}
			for _, v := range fields {
				d := pmi.DecodeValue(v)
				if got := pmi.DecodeValue(pmi.EncodeValue(d)); got != d {
					t.Fatalf("round trip of %q gave %q", d, got)
				}
			}
		}
	})
}

// FuzzValue: EncodeValue output is always safe to put on a line (no
// space, '=' or control byte) and DecodeValue inverts it.
func FuzzValue(f *testing.F) {
	for _, s := range []string{"", "%-", "a b", "x=y", "%41", "\x00\xff", "%", "%4", "100%"} {
		fuzzseed.Add(f, []any{s})
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := pmi.EncodeValue(s)
		if e == "" || strings.ContainsAny(e, " =\n\r\t") {
			t.Fatalf("EncodeValue(%q) = %q is not wire-safe", s, e)
		}
		if d := pmi.DecodeValue(e); d != s {
			t.Fatalf("DecodeValue(EncodeValue(%q)) = %q", s, d)
		}
		_ = pmi.DecodeValue(s)
	})
}
