// Package param is gmpi's one registry of tunables: every environment
// variable that gmpi reads (the library, its devices and collective
// components, mpirun, mpicc and the grid emulator) is declared here once,
// with its name, type, default, description and scope (Open MPI's MCA
// variables and MPICH's CVARs are the model).
//
// A declaration is a package-level variable made by one of the
// constructors (Int, Bool, Auto, Size, Duration, String, List), normally
// in vars.go; a component may declare instances of a family (Family) at
// its own package initialisation. Declarations are immutable once made.
//
// Values are read from the environment once, by Load (or Env), into a
// Values snapshot: the library loads one per world (MPI_Init, or a
// session's first initialisation after a finalize) and hands it to the
// runtime, devices and collective components, which read their tunables
// through the typed getters (P.Get, P.Lookup). A malformed value is an
// error from Load naming the variable; nothing silently falls back to the
// default. Tests build a snapshot with Map, or with Load over their own
// lookup function.
//
// mpirun --info prints All() with the values of its own environment, and
// a test checks the README's table of variables against All().
package param

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is a tunable's type.
type Kind int

// The kinds of tunables.
const (
	KindInt      Kind = iota // a decimal integer
	KindBool                 // 1/0, true/false, yes/no, on/off (any integer: non-zero is true)
	KindAuto                 // a bool that may be left to the library: unset or "auto"
	KindSize                 // bytes, with an optional K, M or G suffix (powers of 1024)
	KindDuration             // a number in the variable's unit, or a Go duration such as 50us
	KindString               // any text (leading and trailing blanks removed)
	KindList                 // comma-separated items
)

var kindNames = [...]string{"int", "bool", "bool|auto", "size", "duration", "string", "list"}

func (k Kind) String() string { return kindNames[k] }

// Var is the declaration of one tunable.
type Var struct {
	Name  string // the environment variable
	Kind  Kind
	Scope string // where it applies: "runtime", "shm device", "coll/tuned", "mpirun", ...
	Desc  string // one sentence
	// Default is the default as a user would write it ("65536", "auto",
	// "barrier,bcast", "" for none).
	Default string
	// Unit is the unit of a bare number (KindDuration), e.g. "ns" or "s".
	Unit string
	// Choices, when set, are the only values accepted (KindString: the
	// whole value; KindList: each item).
	Choices []string
	// Internal: set by mpirun for its ranks (launch plumbing), not a
	// user's knob; mpirun --info shows it only with --all.
	Internal bool
	// Secret: mpirun --info never prints the value.
	Secret bool
	// Family is the pattern this variable is an instance of (e.g.
	// "GMPI_COLL_TUNED_<OP>_ALGORITHM"), "" for a plain variable.
	Family string

	parse func(string) (any, error)
	def   any
}

var (
	regMu    sync.Mutex
	registry = map[string]*Var{}
	families = map[string]*FamilyDecl{}
)

func register(v *Var) *Var {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[v.Name]; dup {
		panic("param: " + v.Name + " declared twice")
	}
	registry[v.Name] = v
	return v
}

// All returns every declared variable, sorted by name.
func All() []*Var {
	regMu.Lock()
	defer regMu.Unlock()
	vs := make([]*Var, 0, len(registry))
	for _, v := range registry {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	return vs
}

// Lookup returns the declaration of name, nil when there is none.
func Lookup(name string) *Var {
	regMu.Lock()
	defer regMu.Unlock()
	return registry[name]
}

// P is a typed handle on one declared tunable.
type P[T any] struct{ v *Var }

// Var returns the declaration.
func (p P[T]) Var() *Var { return p.v }

// Name returns the environment variable's name.
func (p P[T]) Name() string { return p.v.Name }

// Get returns the tunable's value in s: the environment's when it was
// set, else the default. A nil s gives the default.
func (p P[T]) Get(s *Values) T {
	v, _ := p.Lookup(s)
	return v
}

// Lookup is Get, and reports whether the environment set the variable.
func (p P[T]) Lookup(s *Values) (T, bool) {
	if s != nil {
		if x, ok := s.vals[p.v]; ok {
			return x.(T), true
		}
	}
	return p.v.def.(T), false
}

// Env reads this one variable from the process environment (for tools
// that need one tunable, not a whole snapshot): the default when unset,
// an error naming the variable when malformed.
func (p P[T]) Env() (T, error) {
	s, err := Load(func(k string) (string, bool) {
		if k != p.v.Name {
			return "", false
		}
		return os.LookupEnv(k)
	})
	return p.Get(s), err
}

func declare[T any](v *Var, def T, parse func(string) (T, error)) P[T] {
	v.def = def
	v.parse = func(s string) (any, error) { return parse(s) }
	return P[T]{register(v)}
}

// Int declares an integer tunable.
func Int(name string, def int, scope, desc string) P[int] {
	return declare(&Var{Name: name, Kind: KindInt, Scope: scope, Desc: desc, Default: strconv.Itoa(def)}, def, ParseInt)
}

// Bool declares a boolean tunable.
func Bool(name string, def bool, scope, desc string) P[bool] {
	d := "0"
	if def {
		d = "1"
	}
	return declare(&Var{Name: name, Kind: KindBool, Scope: scope, Desc: desc, Default: d}, def, ParseBool)
}

// Auto declares a boolean the library decides unless it is set: Lookup
// reports whether the user forced it (unset and "auto" are not forcing).
func Auto(name, scope, desc string) P[bool] {
	return declare(&Var{Name: name, Kind: KindAuto, Scope: scope, Desc: desc, Default: "auto"}, false, ParseBool)
}

// Size declares a byte count; defText is how the default is shown (e.g.
// "auto" when 0 means the library picks).
func Size(name string, def int, defText, scope, desc string) P[int] {
	if defText == "" {
		defText = strconv.Itoa(def)
	}
	return declare(&Var{Name: name, Kind: KindSize, Scope: scope, Desc: desc, Default: defText}, def, ParseSize)
}

// Duration declares a duration whose bare numbers count unit (one of
// ns, us, ms, s); the default is shown in that unit.
func Duration(name string, def time.Duration, unit, scope, desc string) P[time.Duration] {
	u := units[unit]
	if u == 0 {
		panic("param: " + name + ": unknown unit " + unit)
	}
	return declare(&Var{Name: name, Kind: KindDuration, Scope: scope, Desc: desc, Unit: unit,
		Default: strconv.FormatFloat(float64(def)/float64(u), 'g', -1, 64)}, def,
		func(s string) (time.Duration, error) { return ParseDuration(s, u) })
}

// String declares a text tunable; choices, when given, are the only
// accepted values.
func String(name, def, scope, desc string, choices ...string) P[string] {
	v := &Var{Name: name, Kind: KindString, Scope: scope, Desc: desc, Default: def, Choices: choices}
	return declare(v, def, func(s string) (string, error) {
		s = strings.TrimSpace(s)
		if len(choices) > 0 && !contains(choices, s) {
			return "", fmt.Errorf("want one of %s", strings.Join(choices, ", "))
		}
		return s, nil
	})
}

// List declares a comma-separated list; choices, when given, are the
// only accepted items. An empty value is the empty list.
func List(name string, def []string, scope, desc string, choices ...string) P[[]string] {
	v := &Var{Name: name, Kind: KindList, Scope: scope, Desc: desc, Default: strings.Join(def, ","), Choices: choices}
	return declare(v, def, func(s string) ([]string, error) {
		items := SplitList(s)
		for i, it := range items {
			if len(choices) > 0 {
				it = strings.ToLower(it)
				items[i] = it
			}
			if len(choices) > 0 && !contains(choices, it) {
				return nil, fmt.Errorf("%q: want items from %s", it, strings.Join(choices, ", "))
			}
		}
		return items, nil
	})
}

// FamilyDecl is a pattern of variables, one per instance (a component,
// an operation): "GMPI_COLL_TUNED_<OP>_ALGORITHM". The README's table
// lists the pattern; the instances are declared by their owner.
type FamilyDecl struct {
	Pattern string // with one <KEY> placeholder
	Kind    Kind
	Scope   string
	Desc    string
	Default string // as shown for the pattern
}

// Family declares a pattern of variables.
func Family(pattern string, kind Kind, def, scope, desc string) *FamilyDecl {
	f := &FamilyDecl{Pattern: pattern, Kind: kind, Scope: scope, Desc: desc, Default: def}
	regMu.Lock()
	defer regMu.Unlock()
	families[pattern] = f
	return f
}

// Families returns every declared pattern, sorted.
func Families() []*FamilyDecl {
	regMu.Lock()
	defer regMu.Unlock()
	fs := make([]*FamilyDecl, 0, len(families))
	for _, f := range families {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Pattern < fs[j].Pattern })
	return fs
}

// Name is the instance's variable name: key upper-cased in place of the
// placeholder.
func (f *FamilyDecl) Name(key string) string {
	i, j := strings.IndexByte(f.Pattern, '<'), strings.IndexByte(f.Pattern, '>')
	return f.Pattern[:i] + strings.ToUpper(key) + f.Pattern[j+1:]
}

// Int declares the instance key of an integer family.
func (f *FamilyDecl) Int(key string, def int, desc string) P[int] {
	p := Int(f.Name(key), def, f.Scope, desc)
	p.v.Family = f.Pattern
	return p
}

// String declares the instance key of a text family.
func (f *FamilyDecl) String(key, def, desc string, choices ...string) P[string] {
	p := String(f.Name(key), def, f.Scope, desc, choices...)
	p.v.Family = f.Pattern
	return p
}

// Values is one reading of every declared variable from an environment.
// It is immutable; a nil *Values reads as all defaults.
type Values struct {
	vals map[*Var]any    // parsed values of the variables that were set
	raw  map[*Var]string // as written
}

// Load reads every declared variable through lookup (os.LookupEnv for
// the process environment). A variable set to the empty string counts
// as unset. The error lists every malformed value, each naming its
// variable; the returned Values then holds the well-formed ones.
func Load(lookup func(string) (string, bool)) (*Values, error) {
	s := &Values{vals: map[*Var]any{}, raw: map[*Var]string{}}
	var errs []error
	for _, v := range All() {
		raw, ok := lookup(v.Name)
		if !ok || strings.TrimSpace(raw) == "" {
			continue
		}
		if v.Kind == KindAuto && strings.EqualFold(strings.TrimSpace(raw), "auto") {
			continue
		}
		x, err := v.parse(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %v", v.Name, raw, err))
			continue
		}
		s.vals[v], s.raw[v] = x, raw
	}
	return s, errors.Join(errs...)
}

// Env loads the process environment.
func Env() (*Values, error) { return Load(os.LookupEnv) }

// OrEnv returns s, or the process environment's values when s is nil
// (constructors given no snapshot, as in Go tests).
func OrEnv(s *Values) (*Values, error) {
	if s != nil {
		return s, nil
	}
	return Env()
}

// Map loads values from m instead of the environment (tests).
func Map(m map[string]string) (*Values, error) {
	return Load(func(k string) (string, bool) { v, ok := m[k]; return v, ok })
}

// Value returns the parsed value of v (an int, bool, time.Duration,
// string or []string by its kind), and whether it was set.
func (s *Values) Value(v *Var) (any, bool) {
	if s == nil {
		return v.def, false
	}
	if x, ok := s.vals[v]; ok {
		return x, true
	}
	return v.def, false
}

// Raw returns the value of v as the environment wrote it, and whether it
// was set.
func (s *Values) Raw(v *Var) (string, bool) {
	if s == nil {
		return "", false
	}
	r, ok := s.raw[v]
	return r, ok
}

// ParseInt parses a decimal integer.
func ParseInt(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, errors.New("want an integer")
	}
	return v, nil
}

// ParseBool parses 1/0, true/false, yes/no, on/off, or any integer
// (non-zero is true).
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on", "y", "t":
		return true, nil
	case "0", "false", "no", "off", "n", "f":
		return false, nil
	}
	if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return v != 0, nil
	}
	return false, errors.New("want 1/0, true/false, yes/no or on/off")
}

// ParseSize parses a positive byte count with an optional K, M or G
// suffix (KiB, MiB, GiB).
func ParseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	bad := errors.New("want a positive size in bytes, optionally with a K, M or G suffix")
	if s == "" {
		return 0, bad
	}
	mult := 1
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 || v > (1<<62)/mult {
		return 0, bad
	}
	return v * mult, nil
}

var units = map[string]time.Duration{"ns": time.Nanosecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}

// ParseDuration parses a non-negative number of unit (fractions allowed)
// or a Go duration ("50us", "1.5s").
func ParseDuration(s string, unit time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || f*float64(unit) > float64(1<<62) {
			return 0, errors.New("out of range")
		}
		return time.Duration(f * float64(unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, errors.New("want a non-negative number or a duration such as 50us, 2s")
	}
	return d, nil
}

// SplitList splits a comma-separated list, trimming blanks and dropping
// empty items.
func SplitList(s string) []string {
	var items []string
	for _, it := range strings.Split(s, ",") {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, it)
		}
	}
	return items
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
