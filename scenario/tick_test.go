package scenario_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// tickValues returns lt's values in the order of "t" then Columns.
func tickValues(lt scenario.LaneTick) []float64 {
	return []float64{lt.T, lt.OK, lt.Errors, lt.Timeouts, lt.Attempts, lt.Retries, lt.GaveUp,
		float64(lt.Concurrency), lt.ServerLatency, float64(lt.Backlog), float64(lt.InBackoff), lt.P50, lt.P99,
		float64(lt.Alive), float64(lt.Thinking), float64(lt.Queued), lt.T2Attempts, lt.T3Attempts, lt.T4Attempts}
}

// tickSame reports whether a and b are the same value, NaN matching NaN.
func tickSame(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

var tickCases = []struct {
	name string
	lt   scenario.LaneTick
	lane string
	csv  string
	json string
}{
	{
		name: "no_percentiles",
		lt: scenario.LaneTick{T: 20.3, OK: 120, Errors: 0.5, Timeouts: 30, Attempts: 150.25, Retries: 1e-7,
			GaveUp: 0, Concurrency: 31, ServerLatency: 0.105, Backlog: 4096, InBackoff: 7,
			P50: math.NaN(), P99: math.NaN(), Alive: 38, Thinking: 962, Queued: 11, T2Attempts: 451.5, T3Attempts: 1354.75, T4Attempts: 0.1},
		lane: "b",
		csv:  "20.3,b,120,0.5,30,150.25,0.0000001,0,31,0.105,4096,7,,,38,962,11,451.5,1354.75,0.1\n",
		json: `{"t":20.3,"ok":120,"errors":0.5,"timeouts":30,"attempts":150.25,"retries":0.0000001,"gave_up":0,` +
			`"concurrency":31,"server_latency":0.105,"backlog":4096,"in_backoff":7,"p50":null,"p99":null,"alive":38,"thinking":962,"queued":11,` +
			`"t2_attempts":451.5,"t3_attempts":1354.75,"t4_attempts":0.1}`,
	},
	{
		name: "percentiles",
		lt: scenario.LaneTick{T: 0.1, OK: 10, Errors: 20, Timeouts: 0, Attempts: 1e21, Retries: 3,
			GaveUp: 2.5, Concurrency: 1_000_000, ServerLatency: 3600, Backlog: 0, InBackoff: 999,
			P50: 0.1, P99: 2.0000000000000004},
		lane: "d",
		csv:  "0.1,d,10,20,0,1000000000000000000000,3,2.5,1000000,3600,0,999,0.1,2.0000000000000004,0,0,0,0,0,0\n",
		json: `{"t":0.1,"ok":10,"errors":20,"timeouts":0,"attempts":1000000000000000000000,"retries":3,"gave_up":2.5,` +
			`"concurrency":1000000,"server_latency":3600,"backlog":0,"in_backoff":999,"p50":0.1,"p99":2.0000000000000004,"alive":0,"thinking":0,"queued":0,` +
			`"t2_attempts":0,"t3_attempts":0,"t4_attempts":0}`,
	},
	{
		name: "zero",
		lane: "a",
		csv:  "0,a,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n",
		json: `{"t":0,"ok":0,"errors":0,"timeouts":0,"attempts":0,"retries":0,"gave_up":0,` +
			`"concurrency":0,"server_latency":0,"backlog":0,"in_backoff":0,"p50":0,"p99":0,"alive":0,"thinking":0,"queued":0,` +
			`"t2_attempts":0,"t3_attempts":0,"t4_attempts":0}`,
	},
	{
		name: "one_percentile",
		lt:   scenario.LaneTick{T: 120, OK: 1, P50: 0.25, P99: math.NaN()},
		lane: "c",
		csv:  "120,c,1,0,0,0,0,0,0,0,0,0,0.25,,0,0,0,0,0,0\n",
		json: `{"t":120,"ok":1,"errors":0,"timeouts":0,"attempts":0,"retries":0,"gave_up":0,` +
			`"concurrency":0,"server_latency":0,"backlog":0,"in_backoff":0,"p50":0.25,"p99":null,"alive":0,"thinking":0,"queued":0,` +
			`"t2_attempts":0,"t3_attempts":0,"t4_attempts":0}`,
	},
}

func TestLaneTickAppendCSV(t *testing.T) {
	for _, c := range tickCases {
		t.Run(c.name, func(t *testing.T) {
			got := string(c.lt.AppendCSV(nil, c.lane))
			if got != c.csv {
				t.Fatalf("AppendCSV:\n got %q\nwant %q", got, c.csv)
			}
			// It appends: what b held stays in front.
			if got := string(c.lt.AppendCSV([]byte("prefix\n"), c.lane)); got != "prefix\n"+c.csv {
				t.Errorf("AppendCSV after a prefix = %q", got)
			}
			// encoding/csv reads it back to the same numbers.
			recs, err := csv.NewReader(strings.NewReader(got)).ReadAll()
			if err != nil {
				t.Fatalf("encoding/csv: %v", err)
			}
			if len(recs) != 1 || len(recs[0]) != 2+len(scenario.Columns) {
				t.Fatalf("encoding/csv read %v, want one record of %d fields", recs, 2+len(scenario.Columns))
			}
			rec := recs[0]
			if rec[1] != c.lane {
				t.Errorf("lane field %q, want %q", rec[1], c.lane)
			}
			fields := append([]string{rec[0]}, rec[2:]...)
			for i, want := range tickValues(c.lt) {
				v := math.NaN()
				if fields[i] != "" {
					if v, err = strconv.ParseFloat(fields[i], 64); err != nil {
						t.Errorf("field %d: %v", i, err)
						continue
					}
				}
				if !tickSame(v, want) {
					t.Errorf("field %d reads back %v, want %v", i, v, want)
				}
			}
		})
	}
}

func TestLaneTickAppendJSON(t *testing.T) {
	wantKeys := append([]string{"t"}, scenario.Columns...)
	for _, c := range tickCases {
		t.Run(c.name, func(t *testing.T) {
			b := c.lt.AppendJSON(nil)
			if string(b) != c.json {
				t.Fatalf("AppendJSON:\n got %s\nwant %s", b, c.json)
			}
			if !json.Valid(b) {
				t.Fatalf("AppendJSON wrote invalid JSON: %s", b)
			}
			if got := c.lt.AppendJSON([]byte("[")); string(got) != "["+c.json {
				t.Errorf("AppendJSON after a prefix = %s", got)
			}
			// MarshalJSON is AppendJSON, also inside other values.
			m, err := json.Marshal(c.lt)
			if err != nil || string(m) != c.json {
				t.Errorf("json.Marshal = %s, %v; want %s", m, err, c.json)
			}
			m, err = json.Marshal(struct {
				Ticks []scenario.LaneTick `json:"ticks"`
			}{[]scenario.LaneTick{c.lt, c.lt}})
			if want := `{"ticks":[` + c.json + "," + c.json + `]}`; err != nil || string(m) != want {
				t.Errorf("json.Marshal of a slice = %s, %v; want %s", m, err, want)
			}

			// The keys, in order: t, then Columns.
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var keys []string
			if _, err := dec.Token(); err != nil { // {
				t.Fatal(err)
			}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, k.(string))
				if _, err := dec.Token(); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(keys, wantKeys) {
				t.Errorf("keys %v, want %v", keys, wantKeys)
			}

			// The numbers decode back exactly; null is NaN.
			var vals map[string]*float64
			if err := json.Unmarshal(b, &vals); err != nil {
				t.Fatalf("json.Unmarshal: %v", err)
			}
			for i, want := range tickValues(c.lt) {
				k := wantKeys[i]
				got := math.NaN()
				if vals[k] != nil {
					got = *vals[k]
				}
				if !tickSame(got, want) {
					t.Errorf("%s decodes back as %v, want %v", k, got, want)
				}
			}
		})
	}
}

func TestCSVHeader(t *testing.T) {
	h := simengine.CSVHeader()
	if !strings.HasSuffix(h, "\n") || strings.Count(h, "\n") != 1 {
		t.Errorf("CSVHeader() = %q, want one line ending in a newline", h)
	}
	recs, err := csv.NewReader(strings.NewReader(h)).ReadAll()
	if err != nil || len(recs) != 1 {
		t.Fatalf("encoding/csv read %v, %v; want one record", recs, err)
	}
	want := append([]string{"t", "lane"}, scenario.Columns...)
	if !slices.Equal(recs[0], want) {
		t.Errorf("header %v, want %v", recs[0], want)
	}
	// The vocabulary's names, spelled out: a renamed column breaks readers.
	const literal = "t,lane,ok,errors,timeouts,attempts,retries,gave_up,concurrency,server_latency,backlog,in_backoff,p50,p99,alive,thinking,queued," +
		"t2_attempts,t3_attempts,t4_attempts\n"
	if h != literal {
		t.Errorf("CSVHeader() = %q, want %q", h, literal)
	}
	// A row has as many fields as the header.
	lt := scenario.LaneTick{P50: math.NaN(), P99: math.NaN()}
	row, err := csv.NewReader(bytes.NewReader(lt.AppendCSV(nil, "a"))).Read()
	if err != nil || len(row) != len(want) {
		t.Errorf("a row has %d fields (%v), the header %d", len(row), err, len(want))
	}
}

func TestColumnsVocabulary(t *testing.T) {
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	seen := map[string]bool{"t": true, "lane": true}
	for _, c := range scenario.Columns {
		if !snake.MatchString(c) {
			t.Errorf("column %q is not snake_case", c)
		}
		if seen[c] {
			t.Errorf("column %q appears twice (or clashes with t/lane)", c)
		}
		seen[c] = true
	}
	if len(scenario.Columns) != 18 {
		t.Errorf("%d columns, want the 18 of LaneTick", len(scenario.Columns))
	}
}

// TestLaneTickOfValues: LaneTickOf inverts Values for every field of
// LaneTick, set by reflection so that a new field cannot be forgotten.
func TestLaneTickOfValues(t *testing.T) {
	var lt scenario.LaneTick
	v := reflect.ValueOf(&lt).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Float64:
			f.SetFloat(float64(i) + 0.5)
		case reflect.Int:
			f.SetInt(int64(i) + 1)
		}
	}
	vals := lt.Values()
	if got := scenario.LaneTickOf(lt.T, vals[:]); got != lt {
		t.Errorf("LaneTickOf(Values(%+v)) = %+v", lt, got)
	}
	halted := scenario.LaneTick{T: 3, Halted: true}
	vals = halted.Values()
	if got := scenario.LaneTickOf(3, vals[:]); got != halted {
		t.Errorf("a halted tick came back as %+v", got)
	}
}
