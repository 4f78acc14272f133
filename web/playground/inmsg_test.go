package playground

import (
	"testing"

	"github.com/coder/websocket"
)

// TestParseInMsgNamesWhatIsWrong: a message of the wrong JSON type, or a
// field of the wrong type, is named in words, with its article, and a
// field's error names the field.
func TestParseInMsgNamesWhatIsWrong(t *testing.T) {
	for _, tt := range []struct {
		data, param, message string
	}{
		{`[]`, "", "a message must be a JSON object, not an array"},
		{`"set"`, "", "a message must be a JSON object, not a string"},
		{`3`, "", "a message must be a JSON object, not a number"},
		{`{"type":"outage","on":"yes"}`, "on", `the field "on" must be a JSON boolean (true or false), not a string`},
		{`{"type":[1]}`, "type", `the field "type" must be a JSON string, not an array`},
		{`{"type":"set","query":true}`, "query", `the field "query" must be a JSON string, not a boolean`},
	} {
		t.Run(tt.data, func(t *testing.T) {
			_, e := parseInMsg(websocket.MessageText, []byte(tt.data))
			if e == nil {
				t.Fatalf("parseInMsg(%s) took it", tt.data)
			}
			if e.Param != tt.param || e.Message != tt.message {
				t.Errorf("parseInMsg(%s) = param %q, %q; want param %q, %q", tt.data, e.Param, e.Message, tt.param, tt.message)
			}
		})
	}
}
