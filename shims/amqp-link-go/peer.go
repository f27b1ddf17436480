// What go-amqp returned, read as the protocol's answers (docs/link-protocol.md, "PEER_ERROR").
//
// The rules kept here:
//   - an error is the broker's only where go-amqp's value says it came from a frame the broker sent:
//     *amqp.DetachError (a detach: link scope), *amqp.Error (a detach answering an attach, or the
//     close of the connection: connection scope when go-amqp has closed the socket, link scope
//     otherwise), go-amqp's "session ended by server: " text (an end frame: session scope, its
//     condition and description read back from go-amqp's own rendering of the frame's error),
//     amqp.ErrConnClosed while the shim did not close it (a close without an error);
//   - a read or write that failed on the socket is scope `transport` (the connection dropped
//     without a frame); the SASL outcome go-amqp reports as a failed login is scope `sasl`;
//   - a context that ran out is a timeout (nothing came within the bound), nobody's answer;
//   - anything else is go-amqp's own error (clientError), never the broker's;
//   - `client_text` always carries go-amqp's own text of the error, unchanged.
package main

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"syscall"

	amqp "github.com/Azure/go-amqp"
)

const sessionEndedText = "session ended by server: "

// watchedConn is the socket handed to go-amqp: the shim learns from it that go-amqp closed the
// connection (it does so when the broker closed it, or the transport broke), and whether the
// shim itself asked for that.
type watchedConn struct {
	net.Conn
	closed  atomic.Bool
	byShim  atomic.Bool
	lastErr atomic.Value // the last read or write error on the socket (an error)
}

func (w *watchedConn) Close() error {
	w.closed.Store(true)
	return w.Conn.Close()
}

func (w *watchedConn) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	if err != nil {
		w.lastErr.Store(errBox{err})
	}
	return n, err
}

func (w *watchedConn) Write(b []byte) (int, error) {
	n, err := w.Conn.Write(b)
	if err != nil {
		w.lastErr.Store(errBox{err})
	}
	return n, err
}

type errBox struct{ err error }

// endedByPeer: go-amqp closed the socket and the shim did not ask for it.
func (w *watchedConn) endedByPeer() bool {
	return w != nil && w.closed.Load() && !w.byShim.Load()
}

// peer is one PEER_ERROR of the protocol.
func peer(scope string, condition *string, description *string, err error) map[string]any {
	return map[string]any{"scope": scope, "condition": condition, "description": description,
		"client_text": err.Error()}
}

func str(s string) *string { return &s }

func fromAMQPError(scope string, e *amqp.Error, err error) map[string]any {
	if e == nil {
		return peer(scope, nil, nil, err)
	}
	var desc *string
	if e.Description != "" {
		desc = str(e.Description)
	}
	return peer(scope, str(string(e.Condition)), desc, err)
}

// outcomeOf is what an error of a go-amqp call says: the broker's error (peer), a timeout, or
// go-amqp's own error (returned as error).
func outcomeOf(err error, w *watchedConn) (pe map[string]any, timedOut bool, own error) {
	if err == nil {
		return nil, false, nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, true, nil
	}
	var de *amqp.DetachError
	if errors.As(err, &de) {
		return fromAMQPError("link", de.RemoteError, err), false, nil
	}
	var ae *amqp.Error
	if errors.As(err, &ae) {
		scope := "link"
		if w.endedByPeer() {
			scope = "connection"
		}
		return fromAMQPError(scope, ae, err), false, nil
	}
	if text := err.Error(); strings.HasPrefix(text, sessionEndedText) {
		cond, desc := readErrorText(strings.TrimPrefix(text, sessionEndedText))
		return peer("session", cond, desc, err), false, nil
	}
	if errors.Is(err, amqp.ErrConnClosed) && w.endedByPeer() {
		return peer("connection", nil, nil, err), false, nil
	}
	if transportBroke(err, w) {
		return peer("transport", nil, nil, err), false, nil
	}
	return nil, false, &clientError{err.Error()}
}

// transportBroke: the error is the socket's (or go-amqp ended the connection after the socket failed).
func transportBroke(err error, w *watchedConn) bool {
	var ne net.Error
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &ne) {
		return true
	}
	if w != nil && w.endedByPeer() {
		if b, ok := w.lastErr.Load().(errBox); ok && b.err != nil {
			return true
		}
	}
	return false
}

// readErrorText reads go-amqp 0.17.0's rendering of an AMQP error ("*Error{Condition: C,
// Description: D, Info: map[...]}", or "*Error(nil)" for an end frame without one) back into its
// condition and description: go-amqp gives the end frame's error only as this text.
func readErrorText(text string) (*string, *string) {
	const head, mid, tail = "*Error{Condition: ", ", Description: ", ", Info: "
	if !strings.HasPrefix(text, head) {
		return nil, nil
	}
	rest := strings.TrimPrefix(text, head)
	i := strings.Index(rest, mid)
	if i < 0 {
		return nil, nil
	}
	cond := rest[:i]
	rest = rest[i+len(mid):]
	if j := strings.LastIndex(rest, tail); j >= 0 {
		rest = rest[:j]
	}
	var desc *string
	if rest != "" {
		desc = str(rest)
	}
	return str(cond), desc
}
