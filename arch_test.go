package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is this module's path, the prefix of its packages' import paths.
const module = "github.com/backofflab/backofflab"

// archTable is the package table of docs/ARCHITECTURE.md: each package
// (module-relative, "main" for the module's root) and the packages of
// ours its row says it imports; all is set for a row that says "all".
type archRow struct {
	pkgs    []string
	imports []string
	all     bool
	line    int
}

// backticked is a code span's text.
var backticked = regexp.MustCompile("`([^`]+)`")

// readArchTable reads the package table of the Markdown file at path: the
// table whose header is "| package | holds | may import (of ours) |".
// A row's first cell names its packages (code spans without a dot or a
// star: `main` (`main.go`, `cmd_*.go`) is main), its last what they
// import: code spans, or "nothing", or "all".
func readArchTable(path string) ([]archRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []archRow
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "| package | holds | may import"):
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			return rows, nil
		case strings.HasPrefix(line, "|---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) < 3 {
			return nil, fmt.Errorf("%s:%d: a row of %d cells, want 3", path, n, len(cells))
		}
		r := archRow{line: n}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			if !strings.ContainsAny(m[1], ".*") {
				r.pkgs = append(r.pkgs, m[1])
			}
		}
		last := strings.TrimSpace(cells[len(cells)-1])
		switch last {
		case "all":
			r.all = true
		case "nothing":
		default:
			for _, m := range backticked.FindAllStringSubmatch(last, -1) {
				r.imports = append(r.imports, m[1])
			}
			if len(r.imports) == 0 {
				return nil, fmt.Errorf("%s:%d: may import %q: want code spans, nothing or all", path, n, last)
			}
		}
		if len(r.pkgs) == 0 {
			return nil, fmt.Errorf("%s:%d: no package in %q", path, n, cells[0])
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !in {
		return nil, fmt.Errorf("%s: no package table", path)
	}
	return rows, nil
}

// moduleImports returns, for every package of the module (module-relative,
// "main" for the root), the packages of ours it imports, tests left out,
// as go list says.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rel := func(path string) string {
		if path == module {
			return "main"
		}
		return strings.TrimPrefix(path, module+"/")
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		ours := []string{}
		for _, imp := range f[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				ours = append(ours, rel(imp))
			}
		}
		imports[rel(f[0])] = ours
	}
	return imports
}

// TestArchitectureImports holds docs/ARCHITECTURE.md's package table to
// go list: every package of the module has a row, and each row's "may
// import" column is exactly the packages of ours it imports (tests left
// out): one it imports that the row does not list, and one the row lists
// that it does not import, are both errors naming the package.
func TestArchitectureImports(t *testing.T) {
	rows, err := readArchTable(filepath.Join("docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	imports := moduleImports(t)
	seen := map[string]bool{}
	for _, r := range rows {
		for _, pkg := range r.pkgs {
			seen[pkg] = true
			got, ok := imports[pkg]
			if !ok {
				t.Errorf("ARCHITECTURE.md:%d: package %s is not a package of the module", r.line, pkg)
				continue
			}
			if r.all {
				continue
			}
			for _, imp := range got {
				if !slices.Contains(r.imports, imp) {
					t.Errorf("ARCHITECTURE.md:%d: %s imports %s, which its row does not list (it lists %v)", r.line, pkg, imp, r.imports)
				}
			}
			for _, imp := range r.imports {
				if !slices.Contains(got, imp) {
					t.Errorf("ARCHITECTURE.md:%d: %s's row lists %s, which it does not import (it imports %v)", r.line, pkg, imp, got)
				}
			}
		}
	}
	for pkg := range imports {
		if !seen[pkg] {
			t.Errorf("package %s has no row in ARCHITECTURE.md's table", pkg)
		}
	}
}

// viewPackages returns the packages under web/ (module-relative) that
// serve a page of their own or answer one: those whose non-test files
// declare a function Mount, which web/routes.go's views mount.
func viewPackages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("web", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() == "testdata" {
			return err
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, p := range pkgs {
			for _, f := range p.Files {
				for _, decl := range f.Decls {
					if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "Mount" && !slices.Contains(out, path) {
						out = append(out, filepath.ToSlash(path))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// viewsImportingViews lists each view of views that imports another,
// as "view imports other", by imports (package to the packages of ours
// it imports, as moduleImports reads them).
func viewsImportingViews(views []string, imports map[string][]string) []string {
	var out []string
	for _, v := range views {
		for _, imp := range imports[v] {
			if imp != v && slices.Contains(views, imp) {
				out = append(out, v+" imports "+imp)
			}
		}
	}
	return out
}

// TestNoViewImportsAView: a view (a package under web/ with a Mount) takes
// what it shares with other views from web/scene or web/kit, never from
// another view, so that each view can change, or go, alone; the links
// that would be an import between views are in web/kit/links.go, and a
// rule only the playground's page knows is handed in by web/routes.go.
func TestNoViewImportsAView(t *testing.T) {
	t.Run("the rule", func(t *testing.T) {
		views := []string{"web/a", "web/b"}
		for _, tc := range []struct {
			name    string
			imports map[string][]string
			want    int
		}{
			{"shared packages only", map[string][]string{"web/a": {"web/kit", "web/scene"}, "web/b": {"scenario"}}, 0},
			{"a view imports a view", map[string][]string{"web/a": {"web/kit", "web/b"}}, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := viewsImportingViews(views, tc.imports); len(got) != tc.want {
					t.Errorf("%v, want %d", got, tc.want)
				}
			})
		}
	})
	views := viewPackages(t)
	for _, want := range []string{"web/playground", "web/configview", "web/mapview"} {
		if !slices.Contains(views, want) {
			t.Fatalf("views %v: %s missing (does it still declare Mount?)", views, want)
		}
	}
	for _, bad := range viewsImportingViews(views, moduleImports(t)) {
		t.Errorf("%s: a view takes what it shares from web/scene or web/kit", bad)
	}
}

// TestReadArchTable holds the table's reader to the rows it must read.
func TestReadArchTable(t *testing.T) {
	rows, err := readArchTable(filepath.Join("testdata", "arch", "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(rows)
	want := "[{[a] [] false 5} {[b c] [a] false 6} {[main] [] true 7}]"
	if got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	if _, err := readArchTable(filepath.Join("testdata", "arch", "bad.md")); err == nil || !strings.Contains(err.Error(), "bad.md:6: may import") {
		t.Errorf("a row whose last cell is neither code, nothing nor all: error %v", err)
	}
}

// pathInComment is a file path a comment names: a .go, .json, .js,
// .templ or .css file, with its directories.
var pathInComment = regexp.MustCompile(`(?:^|[\s(\x60'"])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:go|json|js|templ|css))\b`)

// ownName is a file name without a directory that is one of ours by its
// form (a command's file, a script of the playground): only ours are named
// so, where a bare name such as retry.go may be a library's file that a
// comment cites.
var ownName = regexp.MustCompile(`^(cmd_[\w-]+\.go|play-[\w-]+\.js)$`)

// staleFileRefs returns, for the source files under root (.go, .js,
// .templ, .css; not testdata, not generated templ files), one line per
// path a comment names that does not exist: a path whose first directory
// is one of root's (such as web/…), found from root or from the
// comment's own directory, or a bare name of ours (ownName) that no
// directory of root holds.
func staleFileRefs(root string) ([]string, error) {
	top, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, e := range top {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			dirs[e.Name()] = true
		}
	}
	// ownFiles are the names of root's files of ownName's form, wherever
	// they are.
	ownFiles := map[string]bool{}
	if err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !d.IsDir() && ownName.MatchString(d.Name()):
			ownFiles[d.Name()] = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	exists := func(parts ...string) bool {
		_, err := os.Stat(filepath.Join(parts...))
		return err == nil
	}
	var stale []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if !slices.Contains([]string{".go", ".js", ".templ", ".css"}, ext) || strings.HasSuffix(path, "_templ.go") || strings.HasSuffix(path, ".min.js") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.Dir(path)
		lines := commentLines(string(data), ext == ".css")
		if ext == ".go" {
			if lines, err = goCommentLines(path, data); err != nil {
				return err
			}
		}
		for n, text := range lines {
			if text == "" {
				continue
			}
			for _, m := range pathInComment.FindAllStringSubmatch(text, -1) {
				ref := m[1]
				first, _, nested := strings.Cut(ref, "/")
				switch {
				case nested && dirs[first] && !exists(root, ref) && !exists(dir, ref):
				case nested && !dirs[first] && exists(dir, first) && !exists(dir, ref):
				case !nested && ownName.MatchString(ref) && !ownFiles[ref]:
				default:
					continue
				}
				stale = append(stale, fmt.Sprintf("%s:%d: %s does not exist", filepath.ToSlash(rel), n+1, ref))
			}
		}
		return nil
	})
	return stale, err
}

// goCommentLines is commentLines for a Go file, whose comments the Go
// parser finds (a "/*" in a string is no comment).
func goCommentLines(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	out := make([]string, strings.Count(string(src), "\n")+1)
	for _, g := range f.Comments {
		for _, c := range g.List {
			first := fset.Position(c.Pos()).Line
			for k, line := range strings.Split(c.Text, "\n") {
				out[first-1+k] += " " + strings.TrimPrefix(strings.TrimPrefix(line, "//"), "/*")
			}
		}
	}
	return out, nil
}

// commentLines returns each line of src with only its comment's text
// ("" for a line without one): after "//" (not in CSS), and inside
// "/* … */", which may span lines.
func commentLines(src string, css bool) []string {
	lines := strings.Split(src, "\n")
	out := make([]string, len(lines))
	inBlock := false
	for i, line := range lines {
		var b strings.Builder
		for line != "" {
			if inBlock {
				end := strings.Index(line, "*/")
				if end < 0 {
					b.WriteString(line)
					line = ""
					break
				}
				b.WriteString(line[:end])
				b.WriteByte(' ')
				line, inBlock = line[end+2:], false
				continue
			}
			start := strings.Index(line, "/*")
			if !css {
				if sl := strings.Index(line, "//"); sl >= 0 && (start < 0 || sl < start) {
					b.WriteString(line[sl+2:])
					break
				}
			}
			if start < 0 {
				break
			}
			line, inBlock = line[start+2:], true
		}
		out[i] = b.String()
	}
	return out
}

// TestCommentsNameFilesThatExist: a comment that points at one of our
// files (such as the playground's protocol.go by its path from the
// module's root) names a file that exists, so that a moved or renamed file leaves no
// stale pointer behind.
func TestCommentsNameFilesThatExist(t *testing.T) {
	stale, err := staleFileRefs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Error(s)
	}
}

// TestStaleFileRefsFound holds the finder to the references it must
// refuse and the ones it must pass, in the staleref directory of testdata.
func TestStaleFileRefsFound(t *testing.T) {
	got, err := staleFileRefs(filepath.Join("testdata", "staleref"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pkg/a.go:3: pkg/gone.go does not exist",
		"pkg/a.go:4: cmd_gone.go does not exist",
		"pkg/a.go:7: pkg/old.json does not exist",
		"pkg/b.js:2: pkg/c.go does not exist",
		"style.css:2: pkg/d.go does not exist",
	}
	if !slices.Equal(got, want) {
		t.Errorf("stale references\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// declared indexes the module's declarations (tests left out): "pkg.Name"
// for a package's top-level names, "pkg.Type.Name" and "Type.Name" for a
// type's methods and fields, "Type" for every type; pkg is the package's
// name.
func declared(t *testing.T, root string) map[string]bool {
	t.Helper()
	decls := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".go" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := f.Name.Name
		member := func(typ, name string) {
			decls[pkg+"."+typ+"."+name] = true
			decls[typ+"."+name] = true
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					decls[pkg+"."+d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if ix, ok := typ.(*ast.IndexExpr); ok {
					typ = ix.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					member(id.Name, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						decls[pkg+"."+s.Name.Name] = true
						decls[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, f := range st.Fields.List {
								for _, n := range f.Names {
									member(s.Name.Name, n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							decls[pkg+"."+n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return decls
}

// qualified is a code span that names a declaration: pkg.Name,
// pkg.Type.Name or Type.Name.
var qualified = regexp.MustCompile("`([a-zA-Z]\\w*)\\.([A-Z]\\w*)(?:\\.([A-Z]\\w*))?`")

// TestArchitectureNames: every code span of docs/ARCHITECTURE.md that
// names a declaration of ours by its package (`budget.Account`,
// `kit.Kit.NewAccount`) or by its type (`Engine.Step`) names one that is
// declared, so that a renamed function or type leaves no stale name in
// the map of the code.
func TestArchitectureNames(t *testing.T) {
	decls := declared(t, ".")
	pkgs := map[string]bool{}
	for k := range decls {
		if pkg, _, ok := strings.Cut(k, "."); ok && pkg == strings.ToLower(pkg) {
			pkgs[pkg] = true
		}
	}
	data, err := os.ReadFile(filepath.Join("docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for n, line := range strings.Split(string(data), "\n") {
		for _, m := range qualified.FindAllStringSubmatch(line, -1) {
			name := strings.Trim(m[0], "`")
			switch {
			case pkgs[m[1]] && m[3] == "" && !decls[name],
				pkgs[m[1]] && m[3] != "" && !decls[name],
				!pkgs[m[1]] && decls[m[1]] && !decls[name]:
				t.Errorf("ARCHITECTURE.md:%d: %s is not declared", n+1, name)
			}
		}
	}
}
