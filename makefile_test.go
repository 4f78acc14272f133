package main

import (
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

// TestRaceSkipsRunElsewhere: a test that skips itself under -race runs in
// one of make test's lines without it (the one of NORACE_TESTS, which make
// finds from the tests' calls of testrace.SkipUnder, or a line of its own),
// or it would run nowhere: make test's first line is under -race.
func TestRaceSkipsRunElsewhere(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	names, pkgs := makeNoRace(t)
	named := map[string]bool{}
	for _, n := range strings.Split(names, "|") {
		named[n] = true
	}
	inPkg := map[string]bool{}
	for _, d := range strings.Fields(pkgs) {
		inPkg[filepath.Clean(d)] = true
	}
	alone := map[string]bool{}
	for _, m := range regexp.MustCompile(`-run '\^(\w+)\$\$'`).FindAllSubmatch(mk, -1) {
		alone[string(m[1])] = true
	}
	skipping, misplaced := raceSkippers(t, ".")
	if len(skipping) == 0 {
		t.Fatal("found no test that skips under -race: the search is broken")
	}
	for _, at := range misplaced {
		t.Errorf("%s calls testrace.SkipUnder outside a test's own body: make finds the tests that skip by the function the call is in, so call it in each test", at)
	}
	for _, s := range skipping {
		switch {
		case alone[s.name]:
		case !named[s.name]:
			t.Errorf("%s skips under -race but NORACE_TESTS (%s) does not name it: call testrace.SkipUnder in its own body, or give it a line of its own", s.name, names)
		case !inPkg[s.pkg]:
			t.Errorf("%s skips under -race but NORACE_PKGS (%s) lacks its package %s", s.name, pkgs, s.pkg)
		}
	}
}

// makeNoRace is what make finds for its line without -race: the names of
// the tests, joined by |, and their packages' directories.
func makeNoRace(t *testing.T) (names, pkgs string) {
	t.Helper()
	cmd := exec.Command("make", "-s", "--no-print-directory", "--eval",
		"print-norace: ; @echo '$(NORACE_TESTS)'; echo '$(NORACE_PKGS)'", "print-norace")
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MAKELEVEL=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make print-norace: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] == "" || lines[1] == "" {
		t.Fatalf("make found no tests that skip under -race: %q", out)
	}
	return lines[0], lines[1]
}

// skipper is a test that skips under -race, and its package's directory.
type skipper struct{ name, pkg string }

// raceSkippers lists the tests under root that skip under -race: those
// whose body calls testrace.SkipUnder, or whose body, or a helper they
// call, holds `if testrace.Enabled { … Skip… }`. misplaced lists the
// helpers that call testrace.SkipUnder, which make cannot see.
func raceSkippers(t *testing.T, root string) (out []skipper, misplaced []string) {
	t.Helper()
	type fn struct {
		decl *ast.FuncDecl
		pkg  string
	}
	var funcs []fn
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				funcs = append(funcs, fn{fd, filepath.Dir(path)})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	callsSkipUnder := func(fd *ast.FuncDecl) bool {
		found := false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && isSelector(c.Fun, "testrace", "SkipUnder") {
				found = true
			}
			return !found
		})
		return found
	}
	skipsItself := func(fd *ast.FuncDecl) bool {
		found := false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			is, ok := n.(*ast.IfStmt)
			if !ok || !mentions(is.Cond, "testrace", "Enabled") {
				return true
			}
			ast.Inspect(is.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if s, ok := c.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(s.Sel.Name, "Skip") {
						found = true
					}
				}
				return !found
			})
			return !found
		})
		return found
	}
	isTest := func(name string) bool { return strings.HasPrefix(name, "Test") && name != "TestMain" }
	helpers := map[string]bool{} // package dir + name
	for _, f := range funcs {
		if isTest(f.decl.Name.Name) {
			continue
		}
		if skipsItself(f.decl) {
			helpers[f.pkg+"."+f.decl.Name.Name] = true
		}
		if callsSkipUnder(f.decl) {
			misplaced = append(misplaced, filepath.Join(f.pkg, f.decl.Name.Name))
		}
	}
	for _, f := range funcs {
		name := f.decl.Name.Name
		if !isTest(name) {
			continue
		}
		skips := skipsItself(f.decl) || callsSkipUnder(f.decl)
		for _, st := range f.decl.Body.List {
			if es, ok := st.(*ast.ExprStmt); ok {
				if c, ok := es.X.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && helpers[f.pkg+"."+id.Name] {
						skips = true
					}
				}
			}
		}
		if skips {
			out = append(out, skipper{name, filepath.Clean(f.pkg)})
		}
	}
	slices.SortFunc(out, func(a, b skipper) int { return strings.Compare(a.name, b.name) })
	return out, misplaced
}

// isSelector reports whether e is pkg.name.
func isSelector(e ast.Expr, pkg, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != name {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && x.Name == pkg
}

// mentions reports whether expression e names pkg.name.
func mentions(e ast.Expr, pkg, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(ast.Expr); ok && isSelector(x, pkg, name) {
			found = true
		}
		return !found
	})
	return found
}
