package libconfig

import (
	"errors"
	"fmt"
	"strconv"
)

// parseLinkerdFile reads a Linkerd file as users keep them: one object, or
// a manifest of several YAML documents (a Deployment, its Service, its
// HTTPRoutes, a ServiceProfile). Each document of a kind Linkerd's retries
// live on that sets retry annotations or a retryBudget is a configuration;
// the others are warnings. One such document is read as ParseLinkerd reads
// it; several are a Found, each named by its metadata.name.
func parseLinkerdFile(data []byte) (Config, []Warning, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, nil, err
	}
	if len(docs) <= 1 {
		return typed(ParseLinkerd)(data)
	}
	var (
		f     Found
		warns []Warning
		errs  []error
	)
	for i, d := range docs {
		where := fmt.Sprintf("document %d (line %d)", i+1, d.offset+1)
		top, err := document(d.text, false)
		if err != nil {
			errs = append(errs, offsetLines(err, d.offset))
			continue
		}
		kind, name := kindOf(top), ""
		if md := valueOf(top, "metadata"); md != nil {
			if n := valueOf(md, "name"); n != nil {
				name = n.Value
			}
		}
		switch kind {
		case "", "Service", "HTTPRoute", "GRPCRoute", "ServiceProfile":
		default:
			warns = append(warns, Warning{where, fmt.Sprintf("not read: a %s holds no Linkerd retry settings", strconv.Quote(kind))})
			continue
		}
		c, w, err := ParseLinkerd(d.text)
		if err != nil {
			errs = append(errs, offsetLines(err, d.offset))
			continue
		}
		if len(c.HTTP)+len(c.GRPC) == 0 && c.Budget == nil {
			warns = append(warns, Warning{where, fmt.Sprintf("not read: the %s %s sets no retry annotations or retryBudget", kind, strconv.Quote(name))})
			continue
		}
		for j := range w {
			w[j].Path = where + ": " + w[j].Path
		}
		names := []string{fmt.Sprintf("document %d", i+1)}
		if name != "" {
			names = append([]string{name, kind + "/" + name}, names...)
		}
		f.Items = append(f.Items, FoundItem{Names: names, Path: where, Config: c, Warnings: w})
	}
	if len(errs) > 0 {
		return nil, warns, errors.Join(errs...)
	}
	switch len(f.Items) {
	case 0:
		return nil, warns, &FieldError{Kind: ErrMissing, Allowed: "a document that sets Linkerd's retry annotations (retry.linkerd.io/…) or a ServiceProfile's retryBudget"}
	case 1:
		return f.Items[0].Config, append(warns, f.Items[0].Warnings...), nil
	}
	return f, warns, nil
}
