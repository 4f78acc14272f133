package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/strategies"
)

// configsDoc is the page of real configurations imported, run and
// exported; every command it quotes is checked against what the command
// prints now.
const configsDoc = "docs/configs.md"

// docCommand is one fenced block of a page that starts with a command,
// "$ backofflab …" or "$ cat FILE", and holds what it printed.
type docCommand struct {
	line    int    // the command's line in the page
	command string // the command, without "$ "
	output  string // the block's other lines, each ending in a newline
}

// docCommands returns the page's fenced blocks that start with "$ ".
func docCommands(t *testing.T, page string) []docCommand {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var (
		cmds         []docCommand
		cur          *docCommand
		fence, first bool
	)
	for i, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			if fence && cur != nil {
				cmds = append(cmds, *cur)
			}
			fence, first, cur = !fence, !fence, nil
		case fence && first:
			first = false
			if c, ok := strings.CutPrefix(l, "$ "); ok {
				cur = &docCommand{line: i + 1, command: c}
			}
		case fence && cur != nil:
			cur.output += l + "\n"
		}
	}
	return cmds
}

// printed is what a command prints to a terminal, standard output and
// error together in the order written, and the error line main adds.
func printed(args []string) string {
	var b bytes.Buffer
	if err := Run(context.Background(), args, &b, &b); err != nil {
		fmt.Fprintln(&b, "backofflab:", err)
	}
	return b.String()
}

// TestConfigsDoc: every command docs/configs.md quotes prints what the
// page says it prints (a run is deterministic: the same flags, the same
// bytes), every file it shows is the file, and the page imports a
// configuration of every library that import reads and runs at least one
// of them.
func TestConfigsDoc(t *testing.T) {
	cmds := docCommands(t, configsDoc)
	imported := map[string]bool{}
	runs := 0
	for _, c := range cmds {
		t.Run(fmt.Sprintf("line_%d", c.line), func(t *testing.T) {
			var got string
			switch f := strings.Fields(c.command); {
			case len(f) == 2 && f[0] == "cat":
				data, err := os.ReadFile(f[1])
				if err != nil {
					t.Fatal(err)
				}
				got = string(data)
			case len(f) > 1 && f[0] == "backofflab":
				got = printed(f[1:])
				if f[1] == "run" {
					runs++
				}
				if len(f) > 4 && f[1] == "config" && f[2] == "import" && f[3] == "-lib" {
					imported[f[4]] = true
				}
			default:
				t.Fatalf("%s:%d: %q: want a backofflab or cat command", configsDoc, c.line, c.command)
			}
			if got != c.output {
				t.Errorf("%s:%d: $ %s\nprints now\n%s\nthe page says\n%s", configsDoc, c.line, c.command, got, c.output)
			}
		})
	}
	for _, name := range libconfig.Names() {
		if !imported[name] {
			t.Errorf("%s imports no configuration of %s", configsDoc, name)
		}
	}
	if runs == 0 {
		t.Errorf("%s runs nothing", configsDoc)
	}
}

// presetRow is a row of docs/configs.md's table of library defaults:
// "| library | landing view | curve server | `backofflab run FLAGS` |".
var presetRow = regexp.MustCompile("^\\| [^|]+ \\| ([^|]+) \\| ([^|]+) \\| `backofflab run ([^`]+)` \\|$")

// amplification is a verdict line's count of attempts per request and of
// requests that gave up.
var amplification = regexp.MustCompile(`\(amplification ([0-9.]+)\): \d+ ok, (\d+) gave up`)

// presetCell is lane b's verdict in out as the table of library defaults
// writes it: outcome.cell, the amplification and the requests that gave up.
func presetCell(t *testing.T, out string) string {
	t.Helper()
	vs := outcomes(t, out)
	m := amplification.FindAllStringSubmatch(out, -1)
	if len(vs) != 2 || len(m) != 2 {
		t.Fatalf("want two verdicts, got\n%s", out)
	}
	return fmt.Sprintf("%s; amplification %s, %s gave up", vs[1].cell(), m[1][1], m[1][2])
}

// TestConfigsPresets: each row of the table of library defaults in
// docs/configs.md is what its command measures, on the landing view and
// with -server_model curve, and the table has a row for every library
// row of strategies with its defaults alone.
func TestConfigsPresets(t *testing.T) {
	data, err := os.ReadFile(configsDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		m := presetRow.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		flags := strings.Fields(m[3])
		if len(flags) == 2 && flags[0] == "-b.strategy" {
			rows[flags[1]] = true
		}
		t.Run(strings.Join(flags, "_"), func(t *testing.T) {
			if got := presetCell(t, mustRun(t, append([]string{"run"}, flags...)...)); got != m[1] {
				t.Errorf("backofflab run %s: lane b %q, the page says %q", m[3], got, m[1])
			}
			curve := append([]string{"run", "-server_model", "curve"}, flags...)
			if got := presetCell(t, mustRun(t, curve...)); got != m[2] {
				t.Errorf("backofflab run -server_model curve %s: lane b %q, the page says %q", m[3], got, m[2])
			}
		})
	}
	for _, name := range []string{strategies.NameEnvoy, strategies.NameGRPCRetry, strategies.NameAWSLegacy,
		strategies.NameResilience4j, strategies.NamePolly, strategies.NameCenkalti, strategies.NameClientGo,
		strategies.NameTenacityExponential, strategies.NameTenacityRandomExponential, strategies.NameUrllib3} {
		if !rows[name] {
			t.Errorf("%s's table of library defaults has no row `backofflab run -b.strategy %s`", configsDoc, name)
		}
	}
}
