package mpirt

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestPredefinedDatatypesMatchHeader checks that every datatype constant
// of MPICH's header decodes to a datatype of that name, and that the size
// in the handle (bits 15-8) matches our size.
func TestPredefinedDatatypesMatchHeader(t *testing.T) {
	src := readMPICHHeader(t)
	re := regexp.MustCompile(`(?m)^#define\s+(MPIX?_\w+)\s+\(\(MPI_Datatype\)(0x[0-9a-fA-F]+)\)`)
	seen := map[Handle]bool{}
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		name := m[1]
		v, _ := strconv.ParseUint(m[2], 0, 32)
		h := Handle(int32(uint32(v)))
		if name == "MPI_DATATYPE_NULL" {
			if _, ok := PredefinedDatatype(h); ok || h != HandleDatatypeNull {
				t.Errorf("MPI_DATATYPE_NULL decodes")
			}
			continue
		}
		seen[h] = true
		d, ok := PredefinedDatatype(h)
		if !ok {
			t.Errorf("%s (%v) does not decode", name, h)
			continue
		}
		// MPICH names MPI_C_FLOAT_COMPLEX by its alias MPI_C_COMPLEX.
		if want := map[string]string{"MPI_C_FLOAT_COMPLEX": "MPI_C_COMPLEX"}[name]; d.Name() != name && d.Name() != want {
			t.Errorf("%v decodes to %s, want %s", h, d.Name(), name)
		}
		if h.Kind() == KindBuiltin && int(uint32(h)>>8&0xff) != d.Size() {
			t.Errorf("%s: size %d, handle says %d", name, d.Size(), uint32(h)>>8&0xff)
		}
		if d.Handle != h || !d.IsPredefined() || !d.Committed() {
			t.Errorf("%s: bad fields %+v", name, d)
		}
	}
	if len(seen) != len(predefinedSpecs) {
		t.Errorf("header has %d datatypes, we have %d", len(seen), len(predefinedSpecs))
	}
	for _, d := range PredefinedDatatypes() {
		if !seen[d.Handle] {
			t.Errorf("%s (%v) is not in the header", d.Name(), d.Handle)
		}
	}
	if TypeInteger16 != HandleDatatypeNull || TypeLongLong != TypeLongLongInt || TypeCComplex != TypeCFloatComplex {
		t.Error("aliases")
	}
}

func TestPredefinedDatatypeRejects(t *testing.T) {
	for _, h := range []Handle{
		0, HandleDatatypeNull, HandleCommWorld, OpSum,
		TypeInt + 0x100,                        // wrong size byte
		0x4c000400,                             // unused index
		0x4c0004ff,                             // unused index
		MakeHandle(KindDirect, ObjDatatype, 5), // past the pair types
		MakeHandle(KindDirect, ObjDatatype, 0x10000),
		MakeHandle(KindIndirect, ObjDatatype, 0),
	} {
		if d, ok := PredefinedDatatype(h); ok {
			t.Errorf("PredefinedDatatype(%v) = %s", h, d)
		}
	}
}

func TestDatatypeLayouts(t *testing.T) {
	for _, c := range []struct {
		h                    Handle
		size, extent, trueEx int
		contig               bool
		basic                Basic
	}{
		{TypeInt, 4, 4, 4, true, BasicInt32},
		{TypeByte, 1, 1, 1, true, BasicByte},
		{TypeLongDouble, 16, 16, 16, true, BasicLongDouble},
		{TypeFloatInt, 8, 8, 8, true, BasicFloatInt},
		{TypeDoubleInt, 12, 16, 12, false, BasicDoubleInt},
		{TypeLongInt, 12, 16, 12, false, BasicLongInt},
		{TypeShortInt, 6, 8, 8, false, BasicShortInt},
		{Type2Int, 8, 8, 8, true, Basic2Int},
		{TypeLongDoubleInt, 20, 32, 20, false, BasicLongDoubleInt},
		{Type2DoublePrecision, 16, 16, 16, true, Basic2Double},
		{TypeCLongDoubleComplex, 32, 32, 32, true, BasicLongDoubleComplex},
		{TypeLB, 0, 0, 0, true, BasicNone},
		{TypeUB, 0, 0, 0, true, BasicNone},
	} {
		d, _ := PredefinedDatatype(c.h)
		if d.Size() != c.size || d.Extent() != c.extent || d.TrueExtent() != c.trueEx ||
			d.IsContiguous() != c.contig || d.Basic() != c.basic || d.LB() != 0 || d.TrueLB() != 0 {
			t.Errorf("%s: size %d extent %d true extent %d contiguous %v basic %v",
				d, d.Size(), d.Extent(), d.TrueExtent(), d.IsContiguous(), d.Basic())
		}
		sum := 0
		for _, b := range d.Blocks {
			sum += b.Len
		}
		if sum != d.Size() {
			t.Errorf("%s: blocks %v do not add up to size %d", d, d.Blocks, d.Size())
		}
	}
}

func TestDatatypePackUnpack(t *testing.T) {
	d, _ := PredefinedDatatype(TypeShortInt)
	// Three {short; int} with garbage in the padding.
	src := make([]byte, 3*8)
	for i := range src {
		src[i] = byte(i + 1)
	}
	packed := make([]byte, 3*6)
	if n := d.Pack(packed, unsafe.Pointer(&src[0]), 3); n != 18 {
		t.Fatalf("Pack wrote %d", n)
	}
	want := []byte{1, 2, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16, 17, 18, 21, 22, 23, 24}
	if string(packed) != string(want) {
		t.Fatalf("packed %v", packed)
	}
	dst := make([]byte, 24)
	if n := d.Unpack(unsafe.Pointer(&dst[0]), packed, 3); n != 18 {
		t.Fatalf("Unpack read %d", n)
	}
	for i := range dst {
		if i%8 == 2 || i%8 == 3 {
			if dst[i] != 0 {
				t.Fatalf("padding written at %d", i)
			}
		} else if dst[i] != src[i] {
			t.Fatalf("dst[%d] = %d, want %d", i, dst[i], src[i])
		}
	}
	// Truncated input fills a prefix.
	dst = make([]byte, 24)
	if n := d.Unpack(unsafe.Pointer(&dst[0]), packed[:7], 3); n != 7 || dst[8] != 9 || dst[9] != 0 {
		t.Fatalf("truncated Unpack: %d %v", n, dst)
	}
	// Contiguous fast path.
	di, _ := PredefinedDatatype(TypeInt)
	out := make([]byte, 8)
	if n := di.Pack(out, unsafe.Pointer(&src[0]), 2); n != 8 || out[7] != 8 {
		t.Fatalf("contiguous Pack: %d %v", n, out)
	}
}

// TestDatatypeSizesMatchC compiles a C program that prints the size and
// extent of each predefined type's C layout on this machine.
func TestDatatypeSizesMatchC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	ctypes := map[string]string{
		"MPI_CHAR": "char", "MPI_SIGNED_CHAR": "signed char", "MPI_UNSIGNED_CHAR": "unsigned char",
		"MPI_BYTE": "unsigned char", "MPI_WCHAR": "wchar_t", "MPI_SHORT": "short",
		"MPI_UNSIGNED_SHORT": "unsigned short", "MPI_INT": "int", "MPI_UNSIGNED": "unsigned",
		"MPI_LONG": "long", "MPI_UNSIGNED_LONG": "unsigned long", "MPI_FLOAT": "float",
		"MPI_DOUBLE": "double", "MPI_LONG_DOUBLE": "long double", "MPI_LONG_LONG_INT": "long long",
		"MPI_UNSIGNED_LONG_LONG": "unsigned long long", "MPI_PACKED": "char",
		"MPI_FLOAT_INT": "struct{float v; int i;}", "MPI_DOUBLE_INT": "struct{double v; int i;}",
		"MPI_LONG_INT": "struct{long v; int i;}", "MPI_SHORT_INT": "struct{short v; int i;}",
		"MPI_2INT": "struct{int v; int i;}", "MPI_LONG_DOUBLE_INT": "struct{long double v; int i;}",
		"MPI_COMPLEX": "float _Complex", "MPI_DOUBLE_COMPLEX": "double _Complex",
		"MPI_LOGICAL": "int", "MPI_REAL": "float", "MPI_DOUBLE_PRECISION": "double",
		"MPI_INTEGER": "int", "MPI_2INTEGER": "struct{int v; int i;}",
		"MPI_2REAL": "struct{float v; float i;}", "MPI_2DOUBLE_PRECISION": "struct{double v; double i;}",
		"MPI_CHARACTER": "char", "MPI_REAL4": "float", "MPI_REAL8": "double",
		"MPI_REAL16": "__float128", "MPI_COMPLEX8": "float _Complex",
		"MPI_COMPLEX16": "double _Complex", "MPI_COMPLEX32": "struct{__float128 r, i;}",
		"MPI_INTEGER1": "int8_t", "MPI_INTEGER2": "int16_t", "MPI_INTEGER4": "int32_t",
		"MPI_INTEGER8": "int64_t", "MPI_INT8_T": "int8_t", "MPI_INT16_T": "int16_t",
		"MPI_INT32_T": "int32_t", "MPI_INT64_T": "int64_t", "MPI_UINT8_T": "uint8_t",
		"MPI_UINT16_T": "uint16_t", "MPI_UINT32_T": "uint32_t", "MPI_UINT64_T": "uint64_t",
		"MPI_C_BOOL": "_Bool", "MPI_C_COMPLEX": "float _Complex",
		"MPI_C_DOUBLE_COMPLEX": "double _Complex", "MPI_C_LONG_DOUBLE_COMPLEX": "long double _Complex",
		"MPIX_C_FLOAT16": "_Float16", "MPI_AINT": "long", "MPI_OFFSET": "long", "MPI_COUNT": "long",
		"MPI_CXX_BOOL": "_Bool", "MPI_CXX_FLOAT_COMPLEX": "float _Complex",
		"MPI_CXX_DOUBLE_COMPLEX": "double _Complex", "MPI_CXX_LONG_DOUBLE_COMPLEX": "long double _Complex",
	}
	var prog strings.Builder
	prog.WriteString("#include <stdio.h>\n#include <stdint.h>\n#include <stddef.h>\n#include <wchar.h>\nint main(void) {\n")
	for _, d := range PredefinedDatatypes() {
		ct, ok := ctypes[d.Name()]
		if !ok {
			if d.Size() != 0 {
				t.Errorf("%s: no C type to check against", d.Name())
			}
			continue
		}
		if strings.HasPrefix(ct, "struct{") && d.Basic().IsPair() {
			// data size = sizeof(value) + sizeof(index)
			prog.WriteString("{ typedef " + ct + " T; T x; printf(\"%s %zu %zu %zu\\n\", \"" + d.Name() +
				"\", sizeof(x.v)+sizeof(x.i), sizeof(T), _Alignof(T)); }\n")
			continue
		}
		prog.WriteString("{ typedef " + ct + " T; printf(\"%s %zu %zu %zu\\n\", \"" + d.Name() +
			"\", sizeof(T), sizeof(T), _Alignof(T)); }\n")
	}
	prog.WriteString("return 0; }\n")
	dir := t.TempDir()
	cfile, exe := filepath.Join(dir, "sizes.c"), filepath.Join(dir, "sizes")
	if err := os.WriteFile(cfile, []byte(prog.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-std=gnu11", "-o", exe, cfile).CombinedOutput(); err != nil {
		t.Skipf("cannot compile the size probe: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		size, _ := strconv.Atoi(f[1])
		extent, _ := strconv.Atoi(f[2])
		align, _ := strconv.Atoi(f[3])
		var d *Datatype
		for _, p := range PredefinedDatatypes() {
			if p.Name() == f[0] {
				d = p
			}
		}
		n++
		if d.Size() != size || d.Extent() != extent || d.Alignment() != align {
			t.Errorf("%s: ours size %d extent %d align %d, C says %d %d %d",
				f[0], d.Size(), d.Extent(), d.Alignment(), size, extent, align)
		}
	}
	if n < len(predefinedSpecs)-2 {
		t.Errorf("C checked only %d types", n)
	}
}
