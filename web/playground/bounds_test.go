package playground

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// awaitSameRun returns the next message of type typ, failing the test if
// the run restarted (a hello) before it.
func (p *page) awaitSameRun(typ string) map[string]json.RawMessage {
	p.t.Helper()
	deadline := time.After(awaitBound)
	for {
		select {
		case m, open := <-p.msgs:
			if !open {
				p.t.Fatalf("socket closed while waiting for %s", typ)
			}
			switch string(m["type"]) {
			case `"hello"`:
				p.t.Fatalf("the run restarted (hello %s) before a %s", m["query"], typ)
			case `"` + typ + `"`:
				return m
			}
		case <-deadline:
			p.t.Fatalf("no %s message in %v", typ, awaitBound)
		}
	}
}

// TestSocketHoldsChangesToTheBounds: a live set is held to the server's
// bounds, in its values and in its live changes, each error naming the
// range in force on this server; a set without its query is an error too.
// Each is answered with an error, and the run goes on unchanged.
func TestSocketHoldsChangesToTheBounds(t *testing.T) {
	hs, _ := newTestServer(t, Limits{MaxClients: 2000})
	const scen = "clients=300&duration=5m&outage=none"
	for _, tc := range []struct {
		name, msg, param, want string
	}{
		{"a change past the table's cap", `{"type":"set","query":"` + scen + `&changes=%401s+clients%3D1000000"}`, "changes",
			`change 1: clients: "1000000" is not allowed (allowed: a whole number from 1 to 2000 on this server)`},
		{"a change past this server's", `{"type":"set","query":"` + scen + `&changes=%401s+clients%3D2001"}`, "changes",
			`change 1: clients: "2001" is not allowed (allowed: a whole number from 1 to 2000 on this server)`},
		{"clients past the table's cap", `{"type":"set","query":"clients=2000000"}`, "clients",
			`clients: "2000000" is not allowed (allowed: a whole number from 1 to 2000 on this server)`},
		{"no query", `{"type":"set"}`, "query", `a set message carries the whole scenario in its "query" field`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := dialPage(t, hs, scen)
			p.await("hello", nil)
			p.sendRaw(tc.msg)
			m := p.awaitSameRun("error")
			if field[string](t, m, "param") != tc.param || !strings.Contains(field[string](t, m, "message"), tc.want) {
				t.Errorf("error %s: %s, want one of %s saying %q", m["param"], m["message"], tc.param, tc.want)
			}
			// The session goes on with its run: a speed applies to it.
			p.send(inMsg{Type: "speed", Speed: "7"})
			if q := field[string](t, p.awaitSameRun("params"), "query"); !strings.Contains(q, "clients=300") || strings.Contains(q, "changes") {
				t.Errorf("after the bad set the run's query is %q, want the run of %s", q, scen)
			}
		})
	}
}

// sendRaw sends text as the page would, as it is.
func (p *page) sendRaw(text string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.conn.Write(ctx, websocket.MessageText, []byte(text)); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}
