package scene

import (
	"encoding/json"
	"testing"
)

// TestChartRoles: a time chart's success is its thick line, drawn last
// (on top) and named first in its legend; its waste is a shaded area; its
// total a dashed line.
func TestChartRoles(t *testing.T) {
	for _, k := range ChartSpecs {
		if k.X != XTime {
			continue
		}
		t.Run(k.ID, func(t *testing.T) {
			raw, err := ChartOption(k.ID, 120)
			if err != nil {
				t.Fatal(err)
			}
			var o struct {
				Legend struct {
					Data []string `json:"data"`
				} `json:"legend"`
				Series []struct {
					ID        string `json:"id"`
					LineStyle struct {
						Width float64 `json:"width"`
						Type  string  `json:"type"`
					} `json:"lineStyle"`
					AreaStyle *struct {
						Opacity float64 `json:"opacity"`
					} `json:"areaStyle"`
				} `json:"series"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				t.Fatal(err)
			}
			if len(o.Legend.Data) != len(k.Series) {
				t.Fatalf("legend %+v, want one naming the %d series", o.Legend, len(k.Series))
			}
			if len(o.Series) != len(k.Series) {
				t.Fatalf("%d series, want %d", len(o.Series), len(k.Series))
			}
			for i, s := range k.Series {
				got := o.Series[i]
				if got.ID != s.Name {
					t.Fatalf("series %d is %q, want %q", i, got.ID, s.Name)
				}
				switch s.Role {
				case roleSuccess:
					if o.Legend.Data[0] != s.Name {
						t.Errorf("the legend starts with %q, want the success %q", o.Legend.Data[0], s.Name)
					}
					if i != len(k.Series)-1 {
						t.Errorf("the success %q is drawn %d of %d, want last (on top)", s.Name, i+1, len(k.Series))
					}
					for j, other := range o.Series {
						if j != i && other.LineStyle.Width >= got.LineStyle.Width {
							t.Errorf("%q's line (%g px) is as thick as the success %q's (%g px)", other.ID, other.LineStyle.Width, s.Name, got.LineStyle.Width)
						}
					}
				case roleWaste:
					if got.AreaStyle == nil || !(got.AreaStyle.Opacity > 0 && got.AreaStyle.Opacity < 0.5) {
						t.Errorf("the waste %q has area %+v, want a light shade", s.Name, got.AreaStyle)
					}
				case roleTotal:
					if got.LineStyle.Type != "dashed" {
						t.Errorf("the total %q's line is %q, want dashed", s.Name, got.LineStyle.Type)
					}
				}
			}
		})
	}
}

// TestChartSpecShareRatio: the page script reads each row's share ratio
// and its series' roles from the spec's JSON.
func TestChartSpecShareRatio(t *testing.T) {
	b, err := json.Marshal(ChartSpecs[0])
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		ShareRatio float64 `json:"share_ratio"`
		Series     []struct {
			Name, Role string
		} `json:"series"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		t.Fatal(err)
	}
	if k.ShareRatio != ShareRatio || ShareRatio <= 1 {
		t.Errorf("share_ratio %g, want ShareRatio %g (> 1)", k.ShareRatio, float64(ShareRatio))
	}
	roles := map[string]string{}
	for _, s := range k.Series {
		roles[s.Name] = s.Role
	}
	if roles["ok"] != roleSuccess || roles["timeouts"] != roleWaste || roles["errors"] != roleWaste || roles["attempts"] != roleTotal {
		t.Errorf("the throughput chart's roles %v", roles)
	}
}
