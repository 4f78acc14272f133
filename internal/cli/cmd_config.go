package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

const configUsage = `Usage:
  backofflab config import -lib NAME [-lane a] [-pick NAME] FILE   a library's retry configuration as a lane's flags and URL query
  backofflab config export [-lib NAME] [-lane a] [lane flags]   a lane as each library's configuration or code

Libraries read by import: %s.
Libraries written by export: %s (default: every one that can express the lane).
`

// runConfig is "backofflab config": it reads a real library's retry
// configuration into a lane, or writes a lane as libraries' configurations.
func runConfig(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var exportNames []string
	for _, e := range libconfig.Exporters() {
		exportNames = append(exportNames, e.Name)
	}
	help := fmt.Sprintf(configUsage, strings.Join(libconfig.Names(), ", "), strings.Join(exportNames, ", "))
	if len(args) == 0 {
		return usageError{fmt.Errorf("config: import or export?\n\n%s", help)}
	}
	switch args[0] {
	case "import":
		return configImport(args[1:], stdout, stderr, help)
	case "export":
		return configExport(args[1:], stdout, stderr, help)
	}
	if isHelp(args[0]) {
		_, err := io.WriteString(stdout, help)
		return err
	}
	return usageError{fmt.Errorf("config: unknown command %q\n\n%s", args[0], help)}
}

// laneIndex reads -lane's letter.
func laneIndex(letter string) (int, error) {
	i := strings.Index(scenario.LaneNames[:scenario.MaxLanes], letter)
	if len(letter) != 1 || i < 0 {
		return 0, usageError{fmt.Errorf("-lane %q: a lane letter, one of %s", letter, strings.Split(scenario.LaneNames[:scenario.MaxLanes], ""))}
	}
	return i, nil
}

// parseLane parses the scenario of q, whose lanes must reach lane i
// (-lane letter); a usage error names cmd, and after the lanes the flags
// give, the flag that gives them when hint says it.
func parseLane(cmd string, q url.Values, letter string, i int, hint string) (scenario.Params, error) {
	p, err := scenario.Parse(q)
	if err != nil {
		return p, usageError{err}
	}
	if i >= len(p.Lanes) {
		return p, usageError{fmt.Errorf("%s: -lane %s: the flags give %d lanes%s", cmd, letter, len(p.Lanes), hint)}
	}
	return p, nil
}

// configImport reads FILE as library -lib's configuration and prints the
// lane it makes as flags and as a URL query; warnings go to stderr. A
// configuration that is not valid, or that makes no lane, is a usage error
// naming the field.
func configImport(args []string, stdout, stderr io.Writer, help string) error {
	fs := flag.NewFlagSet("config import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, help) }
	name := fs.String("lib", "", "the library whose configuration FILE is: "+strings.Join(libconfig.Names(), ", "))
	letter := fs.String("lane", "a", "the lane letter to write the flags and query for")
	pick := fs.String("pick", "", "where FILE holds several retry policies, the one to import: a route's, method's, profile's, instance's, section's or document's name (import lists them when it is needed)")
	if err := parseFlagsArgs(fs, args); err != nil {
		return err
	}
	lib, ok := libconfig.Lookup(*name)
	if !ok {
		return usageError{fmt.Errorf("config import: -lib %q: one of %s", *name, strings.Join(libconfig.Names(), ", "))}
	}
	if fs.NArg() != 1 {
		return usageError{fmt.Errorf("config import: one FILE, the configuration (- for standard input), got %d arguments", fs.NArg())}
	}
	if _, err := laneIndex(*letter); err != nil {
		return err
	}
	l, err := importLane("config import", lib, fs.Arg(0), *pick, stderr)
	if err != nil {
		return err
	}
	q := libconfig.Query(l, *letter)
	_, err = fmt.Fprintf(stdout, "flags: %s\nquery: %s\n", strings.Join(flagsOf(q), " "), q.Encode())
	return err
}

// importLane reads the configuration of lib at path (- for standard
// input) as a lane, the policy pick names where it holds several, as
// config import does for cmd: its warnings to stderr, and a file that is
// not valid or makes no lane a usage error naming the field (with the
// names to pick from, where it is ambiguous).
func importLane(cmd string, lib libconfig.Library, path, pick string, stderr io.Writer) (strategies.Params, error) {
	data, err := readConfig(cmd, path)
	if err != nil {
		return strategies.Params{}, err
	}
	c, warns, err := lib.Parse(data)
	printWarnings(stderr, cmd, warns)
	if err != nil {
		return strategies.Params{}, usageError{fmt.Errorf("%s: %s (%s):\n%w", cmd, path, lib.Syntax, err)}
	}
	l, warns, err := libconfig.ToLanePick(c, pick)
	printWarnings(stderr, cmd, warns)
	if err != nil {
		var amb *libconfig.AmbiguousError
		if errors.As(err, &amb) {
			return l, usageError{fmt.Errorf("%s: %s as a lane: choose one with -pick NAME, one of: %s\n%w", cmd, path, strings.Join(amb.Candidates, ", "), err)}
		}
		return l, usageError{fmt.Errorf("%s: %s as a lane:\n%w", cmd, path, err)}
	}
	return l, nil
}

// flagsOf writes q as the command line's flags, -name=value, by name.
func flagsOf(q url.Values) []string {
	var flags []string
	for _, k := range slices.Sorted(maps.Keys(q)) {
		flags = append(flags, "-"+k+"="+q.Get(k))
	}
	return flags
}

// readConfig reads a configuration file for cmd, or standard input for
// "-", at most libconfig.MaxInput bytes.
func readConfig(cmd, path string) ([]byte, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cmd, err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, libconfig.MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", cmd, path, err)
	}
	return data, nil
}

func printWarnings(w io.Writer, cmd string, warns []libconfig.Warning) {
	for _, x := range warns {
		fmt.Fprintf(w, "backofflab %s: warning: %s\n", cmd, x)
	}
}

// configExport writes the lane its flags describe as library -lib's
// configuration, or as every library's that can express it; what a library
// cannot express goes to stderr, and is a usage error when -lib named it
// or no library can express the lane.
func configExport(args []string, stdout, stderr io.Writer, help string) error {
	fs, q := scenarioFlagSet("config export", stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, help, "\nLane flags: as \"backofflab run -h\" lists them (-a.strategy, -a.min_delay, …).\n")
	}
	name := fs.String("lib", "", "the library to write the lane for; every one that can express it when empty")
	letter := fs.String("lane", "a", "the lane to export")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	i, err := laneIndex(*letter)
	if err != nil {
		return err
	}
	exps := libconfig.Exporters()
	if *name != "" {
		e, ok := libconfig.LookupExporter(*name)
		if !ok {
			var names []string
			for _, e := range exps {
				names = append(names, e.Name)
			}
			return usageError{fmt.Errorf("config export: -lib %q: one of %s", *name, strings.Join(names, ", "))}
		}
		exps = []libconfig.Exporter{e}
	}
	p, err := parseLane("config export", q, *letter, i, "")
	if err != nil {
		return err
	}
	l := p.Lanes[i].Params
	written := 0
	for _, e := range exps {
		c, warns, err := e.Export(l)
		if err != nil && *name != "" {
			return usageError{fmt.Errorf("config export: %w", err)}
		}
		if err != nil {
			fmt.Fprintf(stderr, "backofflab config export: %v\n", err)
			continue
		}
		text, err := c.Marshal()
		if err != nil {
			return err
		}
		printWarnings(stderr, "config export: "+e.Name, warns)
		if len(exps) > 1 {
			if _, err := fmt.Fprintf(stdout, "== %s ==\n", e.Name); err != nil {
				return err
			}
		}
		if _, err := stdout.Write(text); err != nil {
			return err
		}
		written++
	}
	if written == 0 {
		return usageError{fmt.Errorf("config export: no library can express lane %s (strategy %s)", *letter, l.Strategy)}
	}
	return nil
}
