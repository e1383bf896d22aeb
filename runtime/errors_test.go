package mpirt

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestErrorIs(t *testing.T) {
	e := Errorf(ErrRank, "MPI_Send", "invalid rank %d", 7)
	if e.Error() != "MPI_Send: MPI_ERR_RANK: invalid rank: invalid rank 7" {
		t.Errorf("Error() = %q", e.Error())
	}
	wrapped := fmt.Errorf("context: %w", e)
	if !errors.Is(wrapped, &Error{Class: ErrRank}) {
		t.Error("errors.Is by class failed")
	}
	if errors.Is(wrapped, &Error{Class: ErrTag}) {
		t.Error("errors.Is matched another class")
	}
	if ErrorClassOf(wrapped) != ErrRank || ErrorClassOf(nil) != Success || ErrorClassOf(errors.New("x")) != ErrOther {
		t.Error("ErrorClassOf")
	}
	if f := Errorf(ErrOp, "", "x").WithFunc("MPI_Reduce"); f.Func != "MPI_Reduce" {
		t.Error("WithFunc")
	}
}

func TestErrorClassesAndStrings(t *testing.T) {
	for c := Success; c <= ErrLastClass; c++ {
		if c == 54 { // unused in MPICH
			continue
		}
		cl, ok := ErrorClass(c)
		if !ok || cl != c {
			t.Errorf("ErrorClass(%d) = %d, %v", c, cl, ok)
		}
		s := ErrorString(c)
		if !strings.HasPrefix(s, "MPI_") || !strings.Contains(s, ": ") {
			t.Errorf("ErrorString(%d) = %q", c, s)
		}
	}
	if ErrorString(ErrTruncate) != "MPI_ERR_TRUNCATE: message truncated" {
		t.Errorf("ErrorString(ErrTruncate) = %q", ErrorString(ErrTruncate))
	}
	for _, bad := range []int{-1, 54, 79, 100, 106, ErrLastCode, ErrLastCode + 1, 1 << 30, 1<<31 - 1} {
		if _, ok := ErrorClass(bad); ok {
			t.Errorf("ErrorClass(%d) accepted", bad)
		}
	}
}

func TestRegisterErrorCode(t *testing.T) {
	e := Errorf(ErrRank, "MPI_Send", "invalid rank argument dest: 9 (communicator size 4)")
	code := RegisterErrorCode(e)
	if code <= ErrLastClass || code > ErrLastCode {
		t.Fatalf("code %#x not between the classes and MPI_ERR_LASTCODE", code)
	}
	if cl, ok := ErrorClass(code); !ok || cl != ErrRank {
		t.Fatalf("ErrorClass(code) = %d, %v", cl, ok)
	}
	if s := ErrorString(code); s != e.Error() {
		t.Fatalf("ErrorString(code) = %q", s)
	}
	if int(int32(code)) != code {
		t.Fatalf("code %#x does not fit in a C int", code)
	}
	// A user class beyond 7 bits lives only in the table.
	big := RegisterErrorCode(&Error{Class: 200, Msg: "user"})
	if cl, ok := ErrorClass(big); !ok || cl != 200 {
		t.Fatalf("ErrorClass(user class code) = %d, %v", cl, ok)
	}
	// After the table wraps, the old code keeps its class but loses its message.
	for range errCodeTableSize {
		RegisterErrorCode(Errorf(ErrOther, "", "filler"))
	}
	if cl, ok := ErrorClass(code); !ok || cl != ErrRank {
		t.Fatalf("recycled ErrorClass(code) = %d, %v", cl, ok)
	}
	if s := ErrorString(code); s != ErrorString(ErrRank) {
		t.Fatalf("recycled ErrorString(code) = %q", s)
	}
	if _, ok := ErrorClass(big); ok {
		t.Fatal("recycled code of a 7-bit-overflowing class still resolves")
	}
	if RegisterErrorCode(nil) != Success {
		t.Fatal("RegisterErrorCode(nil)")
	}
}

// TestErrorClassesMatchHeader checks every MPI_ERR_* / MPI_T_ERR_* /
// MPIX_ERR_* class of MPICH's header against our numbers and names.
func TestErrorClassesMatchHeader(t *testing.T) {
	src := readMPICHHeader(t)
	re := regexp.MustCompile(`(?m)^#define\s+(MPIX?_(?:T_)?ERR_\w+)\s+(MPICH_ERR_FIRST_MPIX\+)?(0x[0-9a-fA-F]+|\d+)`)
	byName := map[string]int{}
	for c, ci := range errorClasses {
		byName[ci.name] = c
	}
	n := 0
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		v, err := strconv.ParseInt(m[3], 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		if m[2] != "" {
			v += 100
		}
		if m[1] == "MPI_ERR_LASTCODE" {
			if v != ErrLastCode {
				t.Errorf("MPI_ERR_LASTCODE = %#x, ours %#x", v, ErrLastCode)
			}
			continue
		}
		n++
		c, ok := byName[m[1]]
		if !ok {
			t.Errorf("%s (%d) missing", m[1], v)
		} else if int64(c) != v {
			t.Errorf("%s = %d, ours %d", m[1], v, c)
		}
	}
	if n < 80 {
		t.Errorf("only %d error classes found in the header", n)
	}
}

const mpichHeader = "/usr/include/x86_64-linux-gnu/mpich/mpi.h"

func readMPICHHeader(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(mpichHeader)
	if err != nil {
		t.Skipf("MPICH header not installed (apt-get install libmpich-dev): %v", err)
	}
	return string(b)
}

// TestUserErrorNumbering: user classes and codes are numbered as MPICH
// numbers them, and MPI_LASTUSEDCODE is the last class.
func TestUserErrorNumbering(t *testing.T) {
	if LastUsedCode() < ErrLastCode {
		t.Fatalf("MPI_LASTUSEDCODE %#x below MPI_ERR_LASTCODE", LastUsedCode())
	}
	cls, err := AddErrorClass()
	if err != nil || cls&^0xff != userClassBit || cls <= ErrLastCode {
		t.Fatalf("AddErrorClass = %#x, %v", cls, err)
	}
	c1, _ := AddErrorCode(cls)
	c2, _ := AddErrorCode(ErrArg)
	if c1&0xff != cls&0xff || c1&userClassBit == 0 || c2&0xff != ErrArg || c2 > ErrLastCode || c2>>8 != c1>>8&0x3fffff+1 {
		t.Errorf("codes %#x (class %#x), %#x (MPI_ERR_ARG)", c1, cls, c2)
	}
	for code, want := range map[int]int{cls: cls, c1: cls, c2: ErrArg} {
		if got, ok := ErrorClass(code); !ok || got != want {
			t.Errorf("ErrorClass(%#x) = %#x, %v; want %#x", code, got, ok, want)
		}
	}
	if LastUsedCode() != cls {
		t.Errorf("MPI_LASTUSEDCODE %#x, want the last class %#x", LastUsedCode(), cls)
	}
	if _, err := AddErrorCode(c1); ErrorClassOf(err) != ErrArg {
		t.Errorf("AddErrorCode(a code): %v", err)
	}
	if s := ErrorString(c2); s != ErrorString(ErrArg) {
		t.Errorf("string of a code of MPI_ERR_ARG without one: %q", s)
	}
}
