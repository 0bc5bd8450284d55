package observations

import (
	"strings"

	"github.com/kbmem/kb/internal/textutil"
)

// enqueueCalls are the methods that put a job on a queue (Sidekiq, Rails'
// ActiveJob, Celery, RQ): their arguments are serialized.
var enqueueCalls = []string{".perform_async(", ".perform_in(", ".perform_at(", ".perform_later(", ".delay(", ".apply_async(",
	".enqueue(", ".enqueue_in(", ".enqueue_at("}

// leadingNonArgs are the arguments an enqueue call takes before the job's:
// RQ's function, and the time of enqueue_in and enqueue_at.
var leadingNonArgs = map[string]int{".enqueue(": 1, ".enqueue_in(": 2, ".enqueue_at(": 2}

// recordArg reports whether code passes a record to a background job: an
// enqueue call one of whose arguments is a bare name (self, @order,
// refund, statements) that names no id (order_id, invoice_pk, ids) and no
// scalar (recipient_email, locale, due_on, amount_cents). A keyword
// argument (countdown=5) and an expression (order.id, str(x)) are no bare
// name.
func recordArg(s string) bool {
	for _, call := range enqueueCalls {
		for rest := s; ; {
			i := strings.Index(rest, call)
			if i < 0 {
				break
			}
			rest = rest[i+len(call):]
			args := callArgs(rest)
			// RQ's enqueue takes the function first, enqueue_in and
			// enqueue_at a time before it: neither is a job argument.
			if skip := leadingNonArgs[call]; len(args) > skip {
				args = args[skip:]
			} else if skip > 0 {
				args = nil
			}
			for _, a := range args {
				if recordName(a) {
					return true
				}
			}
		}
	}
	return false
}

// callArgs are the top-level arguments of the call whose list starts s (up
// to its closing parenthesis, on its line), with args=[...] and args=(...)
// read as the list they hold.
func callArgs(s string) []string {
	depth, start := 0, 0
	var out []string
	for i := 0; i < len(s) && i < 400; i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ']', '}':
			depth--
		case ')':
			if depth == 0 {
				return append(out, strings.TrimSpace(s[start:i]))
			}
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		case '\n':
			return append(out, strings.TrimSpace(s[start:i]))
		}
	}
	return out
}

// recordName reports whether argument a is a bare name of a record.
func recordName(a string) bool {
	if k, v, ok := strings.Cut(a, "="); ok && !strings.ContainsAny(k, "([{") {
		if strings.TrimSpace(k) != "args" {
			return false // countdown=5, eta=when
		}
		v = strings.Trim(strings.TrimSpace(v), "[]()")
		for _, x := range strings.Split(v, ",") {
			if recordName(strings.TrimSpace(x)) {
				return true
			}
		}
		return false
	}
	a = strings.TrimPrefix(a, "@")
	if a == "" || a[0] >= '0' && a[0] <= '9' {
		return false
	}
	for i := 0; i < len(a); i++ {
		if !textutil.IdentByte(a[i]) || a[i] >= 'A' && a[i] <= 'Z' {
			return false // an expression, a constant or a class
		}
	}
	if a == "self" {
		return true
	}
	low := strings.ToLower(a)
	for _, suf := range idSuffixes {
		if low == suf || strings.HasSuffix(low, "_"+suf) {
			return false
		}
	}
	for _, suf := range scalarSuffixes {
		if low == suf || strings.HasSuffix(low, "_"+suf) {
			return false
		}
	}
	return true
}

// idSuffixes name an id: a job gets these.
var idSuffixes = []string{"id", "ids", "pk", "pks", "uuid", "uuids", "key", "keys", "gid", "sgid"}

// scalarSuffixes name a plain value, not a record: strings, numbers, dates
// and flags a job may take as they are.
var scalarSuffixes = []string{"email", "emails", "name", "names", "locale", "lang", "language", "url", "urls", "path", "paths",
	"token", "code", "codes", "type", "kind", "status", "state", "slug", "str", "string", "text", "title", "body", "message",
	"reason", "mode", "format", "version", "number", "num", "count", "size", "total", "amount", "cents", "price", "date",
	"time", "at", "on", "until", "since", "days", "hours", "minutes", "seconds", "ms", "timeout", "ttl", "delay", "flag",
	"enabled", "force", "dry_run", "hash", "sha", "ref", "tag", "label", "query", "q", "phone", "ip", "host", "port",
	"filename", "file_name", "currency", "timezone", "tz", "channel", "event", "action", "level", "index", "page", "limit",
	"offset", "year", "month", "day", "week"}
