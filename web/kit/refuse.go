package kit

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// FieldError is one error of a many-run view's refused request, as its
// page reads it: the parameter it names ("" for none: the server is
// busy) and its message.
type FieldError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// refusal is the body of a refused request.
type refusal struct {
	Errors []FieldError `json:"errors"`
}

// WriteErrors answers a refused request with status code and its errors
// as JSON ({"errors": [{"name", "message"}, …]}); a busy server's 503
// says when to try again.
func WriteErrors(w http.ResponseWriter, code int, errs []FieldError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "10")
	}
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(refusal{Errors: errs})
}

// FieldErrors are a query's errors as FieldErrors, each under its
// parameter's name.
func FieldErrors(errs []*scenario.ParamError) []FieldError {
	out := make([]FieldError, 0, len(errs))
	for _, e := range errs {
		out = append(out, FieldError{Name: e.Name, Message: e.Error()})
	}
	return out
}

// Cost says what a many-run view asks of BeginCosted: its estimate of
// the view's core time under the slot's context (whole when the runs it
// measured ran to their end; nil for a view whose bounds alone keep it
// within the budget, as the contention study's), the words of its
// refusal: what names the view ("this map"), smaller how to make it
// smaller, and param the parameter a refusal is reported under; and the
// bytes it keeps for the whole of its work beside its runs' own (the
// seed bands' values, a study's points), 0 for none.
type Cost struct {
	Estimate             func(ctx context.Context) (est time.Duration, whole bool, err error)
	What, Smaller, Param string
	Keeps                int64
}

// BeginCosted takes what a many-run view needs before its first run: a
// slot (Begin), an estimate within the budget of one (TooDear) and the
// memory it keeps (Keep). It returns the context the view runs under (a
// share of the views' cores) and the end of its slot, which gives the
// memory back too, or the status and errors of a view that cannot start:
// 503 when the server is busy, 400 under c.Param when it costs too much.
func (k *Kit) BeginCosted(r *http.Request, c Cost) (context.Context, func(), int, []FieldError) {
	ctx, endSlot, err := k.Begin(r.Context())
	if err != nil {
		return nil, nil, http.StatusServiceUnavailable, []FieldError{{Message: err.Error()}}
	}
	if c.Estimate != nil {
		est, whole, err := c.Estimate(ctx)
		if err != nil {
			endSlot()
			return nil, nil, http.StatusServiceUnavailable, []FieldError{{Message: BusyMessage(err)}}
		}
		if msg := TooDear(est, whole, k.Limits, c.What, c.Smaller); msg != "" {
			endSlot()
			return nil, nil, http.StatusBadRequest, []FieldError{{Name: c.Param, Message: c.Param + ": " + msg}}
		}
	}
	if c.Keeps == 0 {
		return ctx, endSlot, 0, nil
	}
	release, err := k.Keep(c.Keeps)
	if err != nil {
		endSlot()
		return nil, nil, http.StatusServiceUnavailable, []FieldError{{Message: err.Error()}}
	}
	return ctx, func() { release(); endSlot() }, 0, nil
}

// Keep takes n bytes of the server's memory for what a view keeps for the
// whole of its work, from an account of its own (NewAccount), or says why
// it cannot: the server is busy, in BusyMessage's words. release gives
// them back.
func (k *Kit) Keep(n int64) (release func(), err error) {
	mem, err := k.NewAccount()
	if err != nil {
		return nil, err
	}
	if err := mem.Grow(n); err != nil {
		mem.Close()
		return nil, errors.New(BusyMessage(err))
	}
	return mem.Close, nil
}

// WriteErrorText answers a refused headless export with status code and
// its first error as text; a busy server's 503 says when to try again.
func WriteErrorText(w http.ResponseWriter, code int, errs []FieldError) {
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "10")
	}
	http.Error(w, errs[0].Message, code)
}
