package auth

import (
	"container/list"
	"net"
	"sync"
	"time"
)

// Gate bounds the connections of a listening port that have not proved
// the secret yet. Every accepted connection enters the gate before its
// handshake and leaves it after (authenticated or not). When the gate is
// full, the connection that has waited longest is closed (its handshake
// fails): a peer opening connections and saying nothing holds at most
// Max of them, each for at most the handshake's deadline, and a real
// peer, whose handshake takes a few round trips, still gets in during
// such a flood.
type Gate struct {
	max     int
	mu      sync.Mutex
	order   *list.List // of net.Conn, oldest first
	at      map[net.Conn]*list.Element
	evicted int
}

// DefaultGate is the number of unauthenticated connections a port keeps.
const DefaultGate = 128

// NewGate returns a gate for max connections (<= 0: DefaultGate).
func NewGate(max int) *Gate {
	if max <= 0 {
		max = DefaultGate
	}
	return &Gate{max: max, order: list.New(), at: map[net.Conn]*list.Element{}}
}

// Enter admits c, closing the oldest waiting connection if the gate is
// full.
func (g *Gate) Enter(c net.Conn) {
	g.mu.Lock()
	var old net.Conn
	if g.order.Len() >= g.max {
		e := g.order.Front()
		old = e.Value.(net.Conn)
		g.order.Remove(e)
		delete(g.at, old)
		g.evicted++
	}
	g.at[c] = g.order.PushBack(c)
	g.mu.Unlock()
	if old != nil {
		old.Close()
	}
}

// Leave takes c out of the gate (its handshake ended); it does not close
// it.
func (g *Gate) Leave(c net.Conn) {
	g.mu.Lock()
	if e, ok := g.at[c]; ok {
		g.order.Remove(e)
		delete(g.at, c)
	}
	g.mu.Unlock()
}

// Waiting is the number of connections in the gate.
func (g *Gate) Waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.order.Len()
}

// Evicted is the number of connections closed because the gate was
// full.
func (g *Gate) Evicted() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.evicted
}

// Admit runs Handshake on an accepted connection inside the gate. On
// failure c is closed. An accept loop that hands connections to
// goroutines calls Enter itself, in accept order, and Pass in the
// goroutine, so that "oldest first" means first accepted.
func (g *Gate) Admit(c net.Conn, secret []byte, context string, timeout time.Duration) error {
	g.Enter(c)
	return g.Pass(c, secret, context, timeout)
}

// Pass runs Handshake on a connection that entered the gate, then takes
// it out; on failure c is closed.
func (g *Gate) Pass(c net.Conn, secret []byte, context string, timeout time.Duration) error {
	err := Handshake(c, secret, false, context, timeout)
	g.Leave(c)
	if err != nil {
		c.Close()
	}
	return err
}
