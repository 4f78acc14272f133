package playground

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/kit"
)

// Each lane's "Your library" section: a real library's defaults and knobs,
// its configuration pasted in (POST /config/import) and the lane written
// as every library's configuration (GET /config/export/{lane}). The
// libraries, their syntax, their mapping onto a lane and back are
// libconfig's; this file decodes a request once, answers JSON, and turns a
// lane into the values its controls take.

// libraryView is one library as the page offers it.
type libraryView struct {
	Name   string `json:"name"`
	Title  string `json:"title"`
	Syntax string `json:"syntax"`
	// Note says where the defaults come from when the library has none.
	Note string `json:"note,omitempty"`
	// Values are the lane's values with the library's defaults, for every
	// parameter of the lane's strategy and limiters (named without the
	// lane's letter): the page sets them all, so that nothing of the lane's
	// last strategy stays.
	Values map[string]string `json:"values"`
	// Boxes are what the number boxes among them show, as boxesOf writes
	// them for the run's lanes.
	Boxes map[string]boxView `json:"boxes"`
	Knobs []libconfig.Knob   `json:"knobs"`
	// Presets are the library's defaults measured on the landing view's
	// server and on the 2014 experiment's.
	Presets []Preset `json:"-"`
}

// libraryViews lists every library of libconfig with its measured presets
// (presets, by name).
func libraryViews(presets []Preset, lim Limits) []libraryView {
	byName := map[string]Preset{}
	for _, p := range presets {
		byName[p.Name] = p
	}
	var out []libraryView
	for _, pr := range importable() {
		lib, _ := libconfig.Lookup(pr.Name)
		v := libraryView{Name: pr.Name, Title: pr.Title, Syntax: lib.Syntax, Note: pr.Note, Values: laneValues(pr.Lane), Boxes: laneBoxes(pr.Lane, lim), Knobs: pr.Knobs}
		for _, s := range libraryServers {
			if p, ok := byName[libraryPresetName(pr.Name, s.name)]; ok {
				v.Presets = append(v.Presets, p)
			}
		}
		out = append(out, v)
	}
	return out
}

// importable lists the profiles of the libraries the section offers:
// those whose configuration it can import. A library configured in code
// has nothing to import; the export lists its code.
func importable() []libconfig.Profile {
	return slices.DeleteFunc(libconfig.Profiles(), func(p libconfig.Profile) bool { return p.Code })
}

// laneValues is lane l's value of every strategy and limiter parameter, as
// the vocabulary's table writes them.
func laneValues(l strategies.Params) map[string]string {
	p := scenario.Defaults()
	p.Lanes[0].Params = l
	out := map[string]string{}
	for _, row := range scenario.Table {
		if row.Lane && (row.Scope == scenario.ScopeStrategy || row.Scope == scenario.ScopeLimiter) {
			out[row.Name] = row.Value(&p, 0)
		}
	}
	return out
}

// laneBoxes is what lane l's number boxes among laneValues show.
func laneBoxes(l strategies.Params, lim Limits) map[string]boxView {
	p := scenario.Defaults()
	p.Lanes[0].Params = l
	st := state{p: p}
	boxes := boxesOf(st, lim)
	out := map[string]boxView{}
	for name := range laneValues(l) {
		if b, ok := boxes[scenario.LaneNames[:1]+"."+name]; ok {
			out[name] = b
		}
	}
	return out
}

// libraryServers are the servers each library's defaults are measured on:
// the landing view's worker queue and the 2014 experiment's curve, each
// with its outage. The run has one lane, the library's: the landing
// view and 001-published show a retry storm beside a backoff on the same
// servers, and a lane of fixed retries in each of these would cost most of
// their measure, the same run every time.
var libraryServers = []struct{ name, title, intro, query string }{
	{"queue", "on the worker queue", "The landing view's server and outage (30 workers, paused at 20 s for 15 s).", "server_model=queue"},
	{"curve", "on the 2014 server", "The 2014 experiment's curve server and outage, as published.", "server_model=curve"},
}

// possessive is a name with its possessive ending: Envoy's, the AWS SDKs'.
func possessive(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}

func libraryPresetName(lib, server string) string { return "lib-" + lib + "-" + server }

// libraryPresetQuery is a library preset's values: the server's, one lane,
// and the lane's, as libconfig maps the library's defaults.
func libraryPresetQuery(server string, lane url.Values) url.Values {
	q := values(server)
	q.Set("lanes", "1")
	maps.Copy(q, lane)
	return q
}

// libraryPresetDefs are the presets of every library's defaults on every
// one of libraryServers: its one lane runs the library's defaults as the
// library sets them.
func libraryPresetDefs() []presetDef {
	var out []presetDef
	for _, pr := range importable() {
		q := libconfig.Query(pr.Lane, "a")
		var set []string
		for _, row := range scenario.Table {
			if v, ok := q["a."+row.Name]; ok {
				set = append(set, row.Name+" "+v[0])
			}
		}
		about := possessive(pr.Title) + " defaults, as a configuration that sets only what the library requires makes them"
		if pr.Note != "" {
			about = possessive(pr.Title) + " defaults (" + pr.Note + ")"
		}
		for _, s := range libraryServers {
			out = append(out, presetDef{
				name:  libraryPresetName(pr.Name, s.name),
				title: possessive(pr.Title) + " defaults " + s.title,
				intro: s.intro + " One lane, which runs " + about + ": " + strings.Join(set, ", ") + ".",
				query: libraryPresetQuery(s.query, q),
			})
		}
	}
	return out
}

// maxImportBody bounds an import's body: the configuration, at most
// libconfig.MaxInput bytes, JSON-escaped (six bytes for a control
// character at worst), and the library's and lane's names.
const maxImportBody = 6*libconfig.MaxInput + 1024

// importRequest is what the page posts to /config/import. Pick, when the
// configuration holds several retry policies, names the one to import
// (libconfig.ToLanePick); an answer with Choices lists them.
type importRequest struct {
	Lib  string `json:"lib"`
	Lane string `json:"lane"`
	Text string `json:"text"`
	Pick string `json:"pick,omitempty"`
}

// maxPick bounds a pick's length: it names a route, a method, a profile,
// a section or a document.
const maxPick = 512

// fieldNote is an error or a warning about one field: its path, in the
// library's names ("" for the whole document or the request), and the
// whole message, which names the path too.
type fieldNote struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	// Parts are Message with the vocabulary's names set apart (prose).
	Parts []prosePart `json:"parts"`
}

func newNote(path, message string) fieldNote {
	return fieldNote{Path: path, Message: message, Parts: prose(message)}
}

// importAnswer is /config/import's answer: on success the lane's values
// (Values, as libraryView's) and its query (libconfig.Query: the strategy
// and what differs from its defaults); the warnings in both cases; the
// errors, each naming its field, on failure.
type importAnswer struct {
	Values   map[string]string  `json:"values,omitempty"`
	Boxes    map[string]boxView `json:"boxes,omitempty"`
	Query    string             `json:"query,omitempty"`
	Warnings []fieldNote        `json:"warnings"`
	Errors   []fieldNote        `json:"errors"`
	// Choices are the names of the retry policies the configuration
	// holds, when it holds several and the request picked none of them.
	Choices []string `json:"choices,omitempty"`
}

// importConfig decodes and maps an import request: the one place its
// values are checked. It returns the HTTP status with the answer: 200 for
// every configuration read, good or not (its errors are the answer, as a
// lane's values are), 400 or 413 for a request that is not one, and 400
// for text past the parser's bounds (a recursive alias, an alias bomb),
// which no library reads.
func importConfig(r *http.Request, lim Limits) (int, importAnswer) {
	ans := importAnswer{Warnings: []fieldNote{}, Errors: []fieldNote{}}
	fail := func(status int, path, format string, args ...any) (int, importAnswer) {
		ans.Errors = append(ans.Errors, newNote(path, fmt.Sprintf(format, args...)))
		return status, ans
	}
	req, path, err := decodeImportRequest(r.Body)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return fail(http.StatusRequestEntityTooLarge, "", "the request is larger than %d bytes: a configuration may have at most %d bytes", maxImportBody, libconfig.MaxInput)
		}
		return fail(http.StatusBadRequest, path, "the request is not {\"lib\", \"lane\", \"text\"[, \"pick\"]} as JSON: %v", err)
	}
	lib, ok := libconfig.Lookup(req.Lib)
	if !ok {
		return fail(http.StatusBadRequest, "lib", "library %q: one of %s", req.Lib, strings.Join(libconfig.Names(), ", "))
	}
	if len(req.Lane) != 1 || !strings.Contains(scenario.LaneNames, req.Lane) {
		return fail(http.StatusBadRequest, "lane", "lane %q: one of %s", req.Lane, strings.Join(strings.Split(scenario.LaneNames, ""), ", "))
	}
	if len(req.Text) > libconfig.MaxInput {
		return fail(http.StatusRequestEntityTooLarge, "", "the configuration has %d bytes: at most %d", len(req.Text), libconfig.MaxInput)
	}
	if strings.TrimSpace(req.Text) == "" {
		return fail(http.StatusBadRequest, "", "the configuration is empty: paste %s", lib.Syntax)
	}
	if len(req.Pick) > maxPick {
		return fail(http.StatusBadRequest, "pick", "pick: %d bytes: a name of at most %d bytes", len(req.Pick), maxPick)
	}
	c, warns, err := lib.Parse([]byte(req.Text))
	ans.Warnings = append(ans.Warnings, notes(warns)...)
	if err != nil {
		ans.Errors = append(ans.Errors, errorNotes(err)...)
		if errors.Is(err, libconfig.ErrTooLarge) || errors.Is(err, libconfig.ErrRecursive) {
			return http.StatusBadRequest, ans
		}
		return http.StatusOK, ans
	}
	l, warns, err := libconfig.ToLanePick(c, req.Pick)
	ans.Warnings = append(ans.Warnings, notes(warns)...)
	if err != nil {
		if amb, ok := errors.AsType[*libconfig.AmbiguousError](err); ok {
			ans.Choices = amb.Candidates
		}
		ans.Errors = append(ans.Errors, errorNotes(err)...)
		return http.StatusOK, ans
	}
	ans.Values, ans.Boxes = laneValues(l), laneBoxes(l, lim)
	ans.Query = libconfig.Query(l, req.Lane).Encode()
	return http.StatusOK, ans
}

// decodeImportRequest reads an import request: one JSON object of string
// fields lib, lane, text and pick, each at most once, and nothing after it but
// spaces. encoding/json would keep the last of a key given twice and stop
// reading after the object, so that {"lib":"envoy","lib":"grpc"} imported
// gRPC's and trailing JSON went unread: each is refused instead, the
// error's path naming the field when there is one.
func decodeImportRequest(r io.Reader) (req importRequest, path string, err error) {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil {
		return req, "", err
	} else if tok != json.Delim('{') {
		return req, "", fmt.Errorf("%v where an object begins", tok)
	}
	fields := map[string]*string{"lib": &req.Lib, "lane": &req.Lane, "text": &req.Text, "pick": &req.Pick}
	given := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return req, "", err
		}
		key, isKey := tok.(string)
		if !isKey {
			return req, "", fmt.Errorf("%v where a field's name belongs", tok)
		}
		dst, ok := fields[key]
		switch {
		case !ok:
			return req, key, fmt.Errorf("unknown field %q", key)
		case given[key]:
			return req, key, fmt.Errorf("the field %q is given twice: give it once", key)
		}
		given[key] = true
		if err := dec.Decode(dst); err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				return req, key, err
			}
			return req, key, fmt.Errorf("the field %q must be a JSON string: %v", key, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the object's closing brace
		return req, "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return req, "", err
		}
		return req, "", fmt.Errorf("more after the object, at byte %d: send one object", dec.InputOffset())
	}
	return req, "", nil
}

func notes(ws []libconfig.Warning) []fieldNote {
	out := make([]fieldNote, len(ws))
	for i, w := range ws {
		out[i] = newNote(w.Path, w.String())
	}
	return out
}

// errorNotes splits a joined error into its field errors.
func errorNotes(err error) []fieldNote {
	var out []fieldNote
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		path := ""
		if fe, ok := errors.AsType[*libconfig.FieldError](err); ok {
			path = fe.Path
		}
		out = append(out, newNote(path, err.Error()))
	}
	walk(err)
	return out
}

// handleImport answers a configuration the page posts with the lane it
// makes, or the errors naming its fields.
func handleImport(lim Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxImportBody)
		status, ans := importConfig(r, lim)
		writeJSONAnswer(w, status, ans)
	})
}

// exportSnippet is one library's configuration or code for a lane, or why
// the library cannot express it.
type exportSnippet struct {
	Lib      string   `json:"lib"`
	Title    string   `json:"title"`
	Text     string   `json:"text,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Cannot holds every reason the library cannot express the lane.
	Cannot []string `json:"cannot,omitempty"`
	// WarningParts and CannotParts are the same with the vocabulary's
	// names set apart (prose).
	WarningParts [][]prosePart `json:"warning_parts,omitempty"`
	CannotParts  [][]prosePart `json:"cannot_parts,omitempty"`
}

// exportAnswer is /config/export/{lane}'s answer.
type exportAnswer struct {
	Lane     string          `json:"lane"`
	Snippets []exportSnippet `json:"snippets"`
	Errors   []fieldNote     `json:"errors"`
}

// exportLane writes lane letter of the state query q as every exporter's
// configuration or code.
func exportLane(q url.Values, letter string, lim Limits) (int, exportAnswer) {
	ans := exportAnswer{Lane: letter, Snippets: []exportSnippet{}, Errors: []fieldNote{}}
	st, errs := decode(q, lim)
	for _, e := range errs {
		ans.Errors = append(ans.Errors, newNote(e.Name, e.Error()))
	}
	if len(errs) > 0 {
		return http.StatusBadRequest, ans
	}
	i := strings.Index(scenario.LaneNames, letter)
	if len(letter) != 1 || i < 0 || i >= len(st.p.Lanes) {
		ans.Errors = append(ans.Errors, newNote("lane", fmt.Sprintf("lane %q: one of the run's %d lanes, %s", letter, len(st.p.Lanes),
			strings.Join(strings.Split(scenario.LaneNames[:len(st.p.Lanes)], ""), ", "))))
		return http.StatusBadRequest, ans
	}
	l := st.p.Lanes[i].Params
	for _, e := range libconfig.Exporters() {
		s := exportSnippet{Lib: e.Name, Title: libconfig.Title(e.Name)}
		c, warns, err := e.Export(l)
		if ce, ok := errors.AsType[*libconfig.CannotExpress](err); ok {
			s.Cannot = ce.Reasons
		} else if err != nil {
			s.Cannot = []string{err.Error()}
		} else {
			text, err := c.Marshal()
			if err != nil {
				s.Cannot = []string{err.Error()}
			} else {
				s.Text = string(text)
				for _, w := range warns {
					s.Warnings = append(s.Warnings, w.String())
				}
			}
		}
		s.WarningParts, s.CannotParts = proseAll(s.Warnings), proseAll(s.Cannot)
		ans.Snippets = append(ans.Snippets, s)
	}
	return http.StatusOK, ans
}

// handleExportLane answers the page's state, its query, with its lane
// written as every library's configuration.
func handleExportLane(lim Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, qerrs := kit.ParseQuery(r.URL.RawQuery)
		if len(qerrs) > 0 {
			ans := exportAnswer{Lane: r.PathValue("lane"), Snippets: []exportSnippet{}}
			for _, e := range qerrs {
				ans.Errors = append(ans.Errors, newNote(e.Name, e.Error()))
			}
			writeJSONAnswer(w, http.StatusBadRequest, ans)
			return
		}
		status, ans := exportLane(q, r.PathValue("lane"), lim)
		writeJSONAnswer(w, status, ans)
	})
}

func writeJSONAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(mustJSON(v))
}
