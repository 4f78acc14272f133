package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinks: every relative link of the README and of the pages under
// docs/ (images and anchors included) names a file of the repository that
// exists, and an anchor names a heading of its page, so that the documents
// still hold together after a page is moved or a heading renamed.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{"README.md"}, pages...)
	broken, err := brokenLinks(".", files)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
}

// TestBrokenLinksFound holds the checker to the links it must refuse and
// the ones it must pass, on the pages of testdata/doclinks.
func TestBrokenLinksFound(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"good.md", nil},
		{"sub/inner.md", nil},
		{"bad.md", []string{
			`bad.md:3: link "nowhere.md": no such file`,
			`bad.md:4: link "other.md#no-such-heading": other.md has no heading "no-such-heading"`,
			`bad.md:5: link "#nope": bad.md has no heading "nope"`,
			`bad.md:6: link "../outside.md": it leaves the repository`,
			`bad.md:7: link "data.csv#top": an anchor in a file that is not Markdown`,
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			got, err := brokenLinks(filepath.Join("testdata", "doclinks"), []string{c.file})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("broken links\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// mdLink finds the target of an inline link or image, "](target)" with an
// optional title; in "[![alt](img)](page)" it finds both.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// codeSpan is an inline code span, whose text is not a link.
var codeSpan = regexp.MustCompile("`+[^`]*`+")

// uriScheme marks a link that is not a path of the repository (https:,
// mailto:), which the test does not follow.
var uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// brokenLinks reads the Markdown files (paths relative to root) and returns
// one line per relative link that does not resolve: a file that does not
// exist, a path that leaves root, or an anchor that names no heading of
// its Markdown file. Links in fenced code blocks and code spans are text,
// not links.
func brokenLinks(root string, files []string) ([]string, error) {
	var broken []string
	headings := map[string][]string{} // a Markdown file's anchors, by its path under root
	anchors := func(file string) ([]string, error) {
		if a, ok := headings[file]; ok {
			return a, nil
		}
		a, err := headingAnchors(filepath.Join(root, file))
		headings[file] = a
		return a, err
	}
	for _, file := range files {
		lines, err := proseLines(filepath.Join(root, file))
		if err != nil {
			return nil, err
		}
		for n, line := range lines {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if uriScheme.MatchString(target) {
					continue
				}
				where := fmt.Sprintf("%s:%d: link %q", file, n+1, target)
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
					if dest == ".." || strings.HasPrefix(dest, ".."+string(filepath.Separator)) {
						broken = append(broken, where+": it leaves the repository")
						continue
					}
					if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
						broken = append(broken, where+": no such file")
						continue
					}
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					broken = append(broken, where+": an anchor in a file that is not Markdown")
					continue
				}
				a, err := anchors(dest)
				if err != nil {
					return nil, err
				}
				if !slices.Contains(a, anchor) {
					broken = append(broken, fmt.Sprintf("%s: %s has no heading %q", where, filepath.ToSlash(dest), anchor))
				}
			}
		}
	}
	return broken, nil
}

// proseLines returns the lines of a Markdown file with its fenced code
// blocks blanked and its code spans removed, so that line numbers stay the
// file's.
func proseLines(path string) ([]string, error) {
	lines, err := unfencedLines(path)
	for i, line := range lines {
		lines[i] = codeSpan.ReplaceAllString(line, "")
	}
	return lines, err
}

// unfencedLines returns the lines of a Markdown file with its fenced code
// blocks, fences included, blanked.
func unfencedLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fenced = !fenced
			line = ""
		}
		if fenced {
			line = ""
		}
		lines = append(lines, line)
	}
	return lines, sc.Err()
}

// atxHeading is a Markdown heading line, "#" to "######" and its text.
var atxHeading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// headingAnchors returns the anchors GitHub gives a Markdown file's
// headings, a repeated one suffixed -1, -2, … as GitHub does.
func headingAnchors(path string) ([]string, error) {
	lines, err := unfencedLines(path)
	if err != nil {
		return nil, err
	}
	var anchors []string
	seen := map[string]int{}
	for _, line := range lines {
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			anchors = append(anchors, fmt.Sprintf("%s-%d", a, n))
		} else {
			anchors = append(anchors, a)
		}
		seen[a]++
	}
	return anchors, nil
}

// slug is GitHub's anchor of a heading's text: lower case, letters,
// digits, hyphens and underscores kept, spaces made hyphens, everything
// else (punctuation, backticks, emphasis) dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
