// The link operations of docs/link-protocol.md over go-amqp 0.17.0: attach, send, receive, settle,
// detach (connect and disconnect: conn.go).
//
// The rules kept here:
//   - one session per connection, begun on the first attach and again after the broker ended it
//     (a session- or connection-scope error seen by any operation): the harness decides whether to
//     replace the connection, as it does for its first client;
//   - every wait is bounded by the request's timeout_ms; go-amqp's calls that take no context
//     (NewSession, NewSender, NewReceiver) run beside a timer, and a link attached after its
//     bound is detached when it arrives;
//   - a sender keeps its link after a rejected outcome (go-amqp would detach it itself: the broker
//     did not ask); a receiver grants one credit at a time, only when none is outstanding, and
//     states its receiver settle mode on the attach (first unless asked), so the shim knows
//     whether go-amqp settles deliveries itself: in mode first go-amqp accepts each delivery in
//     Receive, and the answer says so;
//   - what go-amqp 0.17.0 does not show is answered as not shown, never filled in (goAmqpLimits).
package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	amqp "github.com/Azure/go-amqp"
)

// goAmqpLimits: what go-amqp 0.17.0's API does not show or cannot say (the handshake's offers.limits).
var goAmqpLimits = []string{
	"send-outcome: Sender.Send returns nil for every outcome but rejected (accepted, released, modified)",
	"attach-response: the attach the broker answered with (its source and target) is not exposed",
	"target-capabilities: no link option sets the target's capabilities",
	"empty-address: an empty address is written as no address (null)",
	"receiver-mode-first: in receiver settle mode first, Receive accepts each delivery itself",
	"link-state: a link the broker ended shows only on its next use",
}

type connection struct {
	client  *amqp.Client
	sock    *watchedConn
	mu      sync.Mutex
	session *amqp.Session
}

type link struct {
	conn        *connection
	sender      *amqp.Sender
	receiver    *amqp.Receiver
	modeSecond  bool
	mu          sync.Mutex
	outstanding uint32
}

type delivery struct {
	link          *link
	msg           *amqp.Message
	clientSettled bool
}

var reg = struct {
	sync.Mutex
	next       int
	conns      map[string]*connection
	links      map[string]*link
	deliveries map[string]*delivery
}{conns: map[string]*connection{}, links: map[string]*link{}, deliveries: map[string]*delivery{}}

func remember(prefix string, put func(id string)) string {
	reg.Lock()
	defer reg.Unlock()
	reg.next++
	id := prefix + strconv.Itoa(reg.next)
	put(id)
	return id
}

func attach(p map[string]any) (map[string]any, error) {
	c, err := connOf(p)
	if err != nil {
		return nil, err
	}
	role, err := reqString(p, "role")
	if err != nil {
		return nil, err
	}
	address := optString(p, "address")
	if address != nil && *address == "" {
		return nil, cannot("go-amqp 0.17.0 writes an empty address as no address (null): an empty one cannot be sent")
	}
	if len(stringList(p, "target_capabilities")) > 0 {
		return nil, cannot("go-amqp 0.17.0 has no link option for the target's capabilities")
	}
	bound := millis(p, "timeout_ms")
	l := &link{conn: c}
	var opts []amqp.LinkOption
	if caps := stringList(p, "source_capabilities"); len(caps) > 0 {
		opts = append(opts, amqp.LinkSourceCapabilities(caps...))
	}
	switch m := optString(p, "snd_settle_mode"); {
	case m == nil:
	case *m == "unsettled":
		opts = append(opts, amqp.LinkSenderSettle(amqp.ModeUnsettled))
	case *m == "settled":
		opts = append(opts, amqp.LinkSenderSettle(amqp.ModeSettled))
	case *m == "mixed":
		opts = append(opts, amqp.LinkSenderSettle(amqp.ModeMixed))
	default:
		return nil, cannot("request: snd_settle_mode %q is none of unsettled, settled, mixed", *m)
	}
	switch role {
	case "sender":
		if address != nil {
			opts = append(opts, amqp.LinkTargetAddress(*address))
		}
		opts = append(opts, amqp.LinkDetachOnDispositionError(false))
	case "receiver":
		if address != nil {
			opts = append(opts, amqp.LinkSourceAddress(*address))
		}
		mode := optString(p, "rcv_settle_mode")
		l.modeSecond = mode != nil && *mode == "second"
		if mode != nil && *mode != "first" && *mode != "second" {
			return nil, cannot("request: rcv_settle_mode %q is neither first nor second", *mode)
		}
		rcv := amqp.ModeFirst
		if l.modeSecond {
			rcv = amqp.ModeSecond
		}
		opts = append(opts, amqp.LinkReceiverSettle(rcv), amqp.LinkWithManualCredits())
	default:
		return nil, cannot("request: role %q is neither sender nor receiver", role)
	}
	s, pe, timedOut, own := c.sessionOf(bound)
	if s == nil {
		c.saw(pe)
		return map[string]any{"link": nil, "attached": false, "error": pe, "timeout": timedOut}, own
	}
	closeLate := func(closer interface{ Close(context.Context) error }) {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		_ = closer.Close(ctx)
	}
	if role == "sender" {
		l.sender, err, timedOut = within(bound, func() (*amqp.Sender, error) { return s.NewSender(opts...) },
			func(v *amqp.Sender) { closeLate(v) })
	} else {
		l.receiver, err, timedOut = within(bound, func() (*amqp.Receiver, error) { return s.NewReceiver(opts...) },
			func(v *amqp.Receiver) { closeLate(v) })
	}
	if timedOut || err != nil {
		pe, to, own := outcomeOf(err, c.sock)
		c.saw(pe)
		return map[string]any{"link": nil, "attached": false, "error": pe, "timeout": timedOut || to}, own
	}
	id := remember("l", func(id string) { reg.links[id] = l })
	// response: null, go-amqp 0.17.0 does not expose the attach the broker answered with.
	return map[string]any{"link": id, "attached": true, "response": nil, "error": nil}, nil
}

func send(p map[string]any) (map[string]any, error) {
	l, err := linkOf(p)
	if err != nil {
		return nil, err
	}
	if l.sender == nil {
		return nil, cannot("request: link %v is a receiver", p["link"])
	}
	form, ok := p["message"].(map[string]any)
	if !ok {
		return nil, cannot("request: message: an object expected")
	}
	msg, err := messageFromForm(form)
	if err != nil {
		return nil, err
	}
	settled := flag(p, "settled")
	msg.SendSettled = settled
	ctx, cancel := context.WithTimeout(context.Background(), millis(p, "timeout_ms"))
	defer cancel()
	err = l.sender.Send(ctx, msg)
	if err == nil {
		if settled {
			return map[string]any{"outcome": nil, "error": nil}, nil
		}
		// go-amqp 0.17.0 says only that the outcome was not `rejected` (goAmqpLimits).
		return map[string]any{"outcome": map[string]any{"state": nil,
			"possible": []string{"accepted", "released", "modified"}}, "error": nil}, nil
	}
	var rejected *amqp.Error
	if errors.As(err, &rejected) && !l.conn.sock.endedByPeer() {
		// With LinkDetachOnDispositionError(false), a rejected outcome comes back as its *Error (nil without one).
		o := map[string]any{"state": "rejected", "condition": nil, "description": nil}
		if rejected != nil {
			o["condition"] = string(rejected.Condition)
			if rejected.Description != "" {
				o["description"] = rejected.Description
			}
		}
		return map[string]any{"outcome": o, "error": nil}, nil
	}
	pe, timedOut, own := outcomeOf(err, l.conn.sock)
	l.conn.saw(pe)
	return map[string]any{"outcome": nil, "error": pe, "timeout": timedOut}, own
}

func receive(p map[string]any) (map[string]any, error) {
	l, err := linkOf(p)
	if err != nil {
		return nil, err
	}
	if l.receiver == nil {
		return nil, cannot("request: link %v is a sender", p["link"])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.outstanding == 0 {
		if err := l.receiver.IssueCredit(1); err != nil {
			pe, timedOut, own := outcomeOf(err, l.conn.sock)
			return map[string]any{"message": nil, "error": pe, "timeout": timedOut}, own
		}
		l.outstanding = 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), millis(p, "timeout_ms"))
	defer cancel()
	msg, err := l.receiver.Receive(ctx)
	if err != nil {
		pe, timedOut, own := outcomeOf(err, l.conn.sock)
		l.conn.saw(pe)
		return map[string]any{"message": nil, "error": pe, "timeout": timedOut}, own
	}
	l.outstanding--
	form, ferr := messageToForm(msg)
	d := &delivery{link: l, msg: msg, clientSettled: !l.modeSecond}
	id := remember("d", func(id string) { reg.deliveries[id] = d })
	if ferr != nil {
		return nil, fmt.Errorf("delivery %s: %w", id, ferr)
	}
	res := map[string]any{"message": form, "delivery": id, "client_settled": nil, "error": nil}
	if d.clientSettled {
		// Receive accepted it (mode first), unless the broker sent it settled: 0.17.0 does not say which.
		res["client_settled"] = "accepted"
	}
	return res, nil
}

func settle(p map[string]any) (map[string]any, error) {
	id, err := reqString(p, "delivery")
	if err != nil {
		return nil, err
	}
	reg.Lock()
	d := reg.deliveries[id]
	reg.Unlock()
	if d == nil {
		return nil, cannot("request: no delivery %q", id)
	}
	if d.clientSettled {
		return nil, cannot("go-amqp settled delivery %s itself (accepted, in Receive: receiver settle mode first); "+
			"it cannot be settled again", id)
	}
	outcome, err := reqString(p, "outcome")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), millis(p, "timeout_ms"))
	defer cancel()
	r := d.link.receiver
	switch outcome {
	case "accepted":
		err = r.AcceptMessage(ctx, d.msg)
	case "rejected":
		err = r.RejectMessage(ctx, d.msg, nil)
	case "released":
		err = r.ReleaseMessage(ctx, d.msg)
	case "modified":
		err = r.ModifyMessage(ctx, d.msg, flag(p, "delivery_failed"), flag(p, "undeliverable_here"), nil)
	default:
		return nil, cannot("request: outcome %q is none of accepted, rejected, released, modified", outcome)
	}
	pe, timedOut, own := outcomeOf(err, d.link.conn.sock)
	d.link.conn.saw(pe)
	return map[string]any{"error": pe, "timeout": timedOut}, own
}

func detach(p map[string]any) (map[string]any, error) {
	l, err := linkOf(p)
	if err != nil {
		return nil, err
	}
	reg.Lock()
	delete(reg.links, p["link"].(string))
	reg.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), millis(p, "timeout_ms"))
	defer cancel()
	if l.sender != nil {
		err = l.sender.Close(ctx)
	} else {
		err = l.receiver.Close(ctx)
	}
	pe, timedOut, own := outcomeOf(err, l.conn.sock)
	l.conn.saw(pe)
	return map[string]any{"answered": err == nil, "error": pe, "timeout": timedOut}, own
}

func linkOf(p map[string]any) (*link, error) {
	id, err := reqString(p, "link")
	if err != nil {
		return nil, err
	}
	reg.Lock()
	defer reg.Unlock()
	if l := reg.links[id]; l != nil {
		return l, nil
	}
	return nil, cannot("request: no link %q", id)
}
