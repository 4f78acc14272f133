package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRaceSkipsRunElsewhere: a test that skips itself under -race runs in
// one of make test's lines without it (NORACE_TESTS, or a line of its
// own), or it would run nowhere: make test's first line is under -race.
func TestRaceSkipsRunElsewhere(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	if m := regexp.MustCompile(`(?m)^NORACE_TESTS = (.*)$`).FindSubmatch(mk); m != nil {
		for _, n := range strings.Split(string(m[1]), "|") {
			named[n] = true
		}
	}
	for _, m := range regexp.MustCompile(`-run '\^(\w+)\$\$'`).FindAllSubmatch(mk, -1) {
		named[string(m[1])] = true
	}
	if len(named) == 0 {
		t.Fatal("the Makefile names no test that runs without -race")
	}
	skipping := raceSkippers(t, ".")
	if len(skipping) == 0 {
		t.Fatal("found no test that skips under -race: the search is broken")
	}
	for _, name := range skipping {
		if !named[name] {
			t.Errorf("%s skips under -race but no line of make test without -race runs it: add it to NORACE_TESTS", name)
		}
	}
}

// raceSkippers lists the tests under root that skip under -race: those
// whose body, or a helper they call, holds `if raceEnabled { … Skip… }`.
func raceSkippers(t *testing.T, root string) []string {
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
	skipsItself := func(fd *ast.FuncDecl) bool {
		found := false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			is, ok := n.(*ast.IfStmt)
			if !ok || !mentions(is.Cond, "raceEnabled") {
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
	helpers := map[string]bool{} // package dir + name
	for _, f := range funcs {
		if !strings.HasPrefix(f.decl.Name.Name, "Test") && skipsItself(f.decl) {
			helpers[f.pkg+"."+f.decl.Name.Name] = true
		}
	}
	var out []string
	for _, f := range funcs {
		name := f.decl.Name.Name
		if !strings.HasPrefix(name, "Test") || name == "TestMain" {
			continue
		}
		skips := skipsItself(f.decl)
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
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// mentions reports whether expression e names the identifier id.
func mentions(e ast.Expr, id string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if x, ok := n.(*ast.Ident); ok && x.Name == id {
			found = true
		}
		return !found
	})
	return found
}
