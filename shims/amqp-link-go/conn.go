// Connections of the link client: connect, disconnect, and the one session of each.
//
// The rules kept here:
//   - the shim dials the socket itself (TCP, then TLS when asked) and hands it to go-amqp, watched
//     (peer.go), so that an ended connection is told from an ended link;
//   - SASL PLAIN with the run's login, else ANONYMOUS; the open's hostname is the host, or
//     "vhost:NAME" for a virtual host other than "/" (as the first client sends it);
//   - a refused or dropped connect is an `ok` answer carrying the broker's (or the transport's) error.
package main

import (
	"crypto/tls"
	"net"
	"strconv"
	"strings"
	"time"

	amqp "github.com/Azure/go-amqp"
)

func connect(p map[string]any) (map[string]any, error) {
	host, err := reqString(p, "host")
	if err != nil {
		return nil, err
	}
	port, err := reqInt(p, "port")
	if err != nil {
		return nil, err
	}
	bound := millis(p, "timeout_ms")
	raw, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), bound)
	if err != nil {
		return map[string]any{"connection": nil, "error": peer("transport", nil, nil, err)}, nil
	}
	var sock net.Conn = raw
	if flag(p, "tls") {
		tc := tls.Client(raw, &tls.Config{ServerName: host, InsecureSkipVerify: !flag(p, "verify_tls")}) //nolint:gosec // as the run asks
		_ = tc.SetDeadline(time.Now().Add(bound))
		if err := tc.Handshake(); err != nil {
			_ = raw.Close()
			return map[string]any{"connection": nil, "error": peer("transport", nil, nil, err)}, nil
		}
		_ = tc.SetDeadline(time.Time{})
		sock = tc
	}
	w := &watchedConn{Conn: sock}
	hostname := host
	if vhost := optString(p, "vhost"); vhost != nil && *vhost != "" && *vhost != "/" {
		hostname = "vhost:" + *vhost
	}
	opts := []amqp.ConnOption{amqp.ConnConnectTimeout(bound), amqp.ConnServerHostname(hostname)}
	if user := optString(p, "username"); user != nil {
		pass := ""
		if pw := optString(p, "password"); pw != nil {
			pass = *pw
		}
		opts = append(opts, amqp.ConnSASLPlain(*user, pass))
	} else {
		opts = append(opts, amqp.ConnSASLAnonymous())
	}
	client, err := amqp.New(w, opts...)
	if err != nil {
		w.byShim.Store(true)
		_ = w.Close()
		if strings.HasPrefix(err.Error(), "SASL ") && strings.Contains(err.Error(), "auth failed") {
			return map[string]any{"connection": nil, "error": peer("sasl", nil, nil, err)}, nil
		}
		pe, timedOut, own := outcomeOf(err, w)
		if pe != nil && pe["scope"] == "link" {
			pe["scope"] = "connection" // no link exists yet: an AMQP error now is the open's answer
		}
		return map[string]any{"connection": nil, "error": pe, "timeout": timedOut}, own
	}
	c := &connection{client: client, sock: w}
	id := remember("c", func(id string) { reg.conns[id] = c })
	return map[string]any{"connection": id, "error": nil}, nil
}

// within runs a go-amqp call that takes no context beside a timer: (value, error, false), or
// (zero, nil, true) past the bound; late(value) gets what arrives after the bound.
func within[T any](bound time.Duration, call func() (T, error), late func(T)) (T, error, bool) {
	type res struct {
		v   T
		err error
	}
	done := make(chan res, 1)
	go func() {
		v, err := call()
		done <- res{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err, false
	case <-time.After(bound):
		go func() {
			if r := <-done; r.err == nil && late != nil {
				late(r.v)
			}
		}()
		var zero T
		return zero, nil, true
	}
}

// sessionOf is the connection's session, begun when there is none.
func (c *connection) sessionOf(bound time.Duration) (*amqp.Session, map[string]any, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		return c.session, nil, false, nil
	}
	s, err, timedOut := within(bound, func() (*amqp.Session, error) { return c.client.NewSession() }, nil)
	if timedOut {
		return nil, nil, true, nil
	}
	if err != nil {
		pe, to, own := outcomeOf(err, c.sock)
		return nil, pe, to, own
	}
	c.session = s
	return s, nil, false, nil
}

// saw: a session- or connection-scope error ends the session; the next attach begins another.
func (c *connection) saw(pe map[string]any) {
	if pe == nil || pe["scope"] == "link" {
		return
	}
	c.mu.Lock()
	c.session = nil
	c.mu.Unlock()
}

func disconnect(p map[string]any) (map[string]any, error) {
	id, err := reqString(p, "connection")
	if err != nil {
		return nil, err
	}
	reg.Lock()
	c := reg.conns[id]
	delete(reg.conns, id)
	reg.Unlock()
	if c != nil {
		c.close()
	}
	return map[string]any{}, nil
}

func (c *connection) close() {
	c.sock.byShim.Store(true)
	_ = c.client.Close()
}

func closeAll() {
	reg.Lock()
	conns := reg.conns
	reg.conns = map[string]*connection{}
	reg.Unlock()
	for _, c := range conns {
		c.close()
	}
}

func connOf(p map[string]any) (*connection, error) {
	id, err := reqString(p, "connection")
	if err != nil {
		return nil, err
	}
	reg.Lock()
	defer reg.Unlock()
	if c := reg.conns[id]; c != nil {
		return c, nil
	}
	return nil, cannot("request: no connection %q", id)
}
