// Package auth is gmpi's connection authentication: both ends of a TCP
// connection prove knowledge of the job secret with an HMAC-SHA256
// challenge-response before anything else is read or written on it.
//
// The exchange (every field fixed-size, so a peer that sends anything
// else fails at once):
//
//	both ends send   hello = "GMPI" | version (1 byte) | role (1 byte) | nonce (32 bytes)
//	both ends send   mac   = HMAC-SHA256(secret, "gmpi-auth-v1" | role | own nonce | peer nonce | context)
//	both ends check  the peer's mac, its role (initiator vs acceptor, never
//	                 equal, so a reflected hello fails) and the version.
//
// context binds the proof to a purpose (e.g. "pmi" or "tcp"), so a proof
// made for one kind of connection is useless on another. A peer that
// does not know the secret learns nothing but two random nonces and a MAC
// over them.
package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

const (
	magic     = "GMPI"
	version   = 1
	nonceSize = 32
	helloSize = len(magic) + 2 + nonceSize
	macSize   = sha256.Size

	roleInitiator byte = 'I'
	roleAcceptor  byte = 'A'
)

// ErrDenied is returned (wrapped) when the peer failed to prove the secret
// or spoke something that is not the handshake.
var ErrDenied = errors.New("gmpi auth: peer did not prove the job secret")

// NewSecret returns a fresh random job secret, hex-encoded (the form that
// travels in GMPI_JOB_SECRET).
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Handshake authenticates conn in both directions with secret. initiator
// is true on the side that dialled. context names the connection's
// purpose; both sides must pass the same. The whole exchange must finish
// within timeout (0: 10 s); the deadline is cleared on success.
func Handshake(conn net.Conn, secret []byte, initiator bool, context string, timeout time.Duration) error {
	if len(secret) == 0 {
		return errors.New("gmpi auth: empty job secret")
	}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	me, peerRole := roleAcceptor, roleInitiator
	if initiator {
		me, peerRole = roleInitiator, roleAcceptor
	}
	var hello [helloSize]byte
	copy(hello[:], magic)
	hello[len(magic)] = version
	hello[len(magic)+1] = me
	myNonce := hello[len(magic)+2:]
	if _, err := rand.Read(myNonce); err != nil {
		return err
	}
	// Writes are small and both sides write before they read: 38 bytes
	// always fit in a socket buffer, so this cannot deadlock.
	if _, err := conn.Write(hello[:]); err != nil {
		return fmt.Errorf("gmpi auth: sending hello: %w", err)
	}
	var peer [helloSize]byte
	if _, err := io.ReadFull(conn, peer[:]); err != nil {
		return fmt.Errorf("%w: reading hello: %w", ErrDenied, err)
	}
	if string(peer[:len(magic)]) != magic || peer[len(magic)] != version || peer[len(magic)+1] != peerRole {
		return fmt.Errorf("%w: not a gmpi %s handshake", ErrDenied, context)
	}
	peerNonce := peer[len(magic)+2:]
	if _, err := conn.Write(Proof(secret, me, myNonce, peerNonce, context)); err != nil {
		return fmt.Errorf("gmpi auth: sending proof: %w", err)
	}
	var got [macSize]byte
	if _, err := io.ReadFull(conn, got[:]); err != nil {
		return fmt.Errorf("%w: reading proof: %w", ErrDenied, err)
	}
	if !hmac.Equal(got[:], Proof(secret, peerRole, peerNonce, myNonce, context)) {
		return fmt.Errorf("%w: wrong proof", ErrDenied)
	}
	return conn.SetDeadline(time.Time{})
}

// Proof is the MAC one side sends: over its role, its own nonce, the
// peer's nonce and the context.
func Proof(secret []byte, role byte, own, peer []byte, context string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("gmpi-auth-v1"))
	m.Write([]byte{role})
	m.Write(own)
	m.Write(peer)
	m.Write([]byte(context))
	return m.Sum(nil)
}
