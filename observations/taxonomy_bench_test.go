package observations

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkNewTaxonomy: building the built-in taxonomy, which every hook
// process does once.
func BenchmarkNewTaxonomy(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewTaxonomy(nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassifyEditCold: a hook's first classification of a file
// edit, on a taxonomy built for it (every path pattern compiled).
func BenchmarkClassifyEditCold(b *testing.B) {
	b.ReportAllocs()
	in := []byte(`{"file_path":"/work/app/src/server/handlers_test.go","old_string":"a","new_string":"b"}`)
	for b.Loop() {
		t, err := NewTaxonomy(nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(t.ClassifyCall("Edit", in)) == 0 {
			b.Fatal("no type")
		}
	}
}

// BenchmarkClassifyCommandWordsCold: a hook's first classification of a
// command no pattern knows (make deploy ENV=prod), read by its words: the
// word rules that mention them are tokenized, not all of them.
func BenchmarkClassifyCommandWordsCold(b *testing.B) {
	b.ReportAllocs()
	in := []byte(`{"command":"make deploy ENV=prod SVC=billing-api"}`)
	for b.Loop() {
		t, err := NewTaxonomy(nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(t.ClassifyCall("Bash", in)) == 0 {
			b.Fatal("no type")
		}
	}
}

// BenchmarkClassifyText: the action types of a lesson's text, as a
// compile of the activation index finds them for every note.
func BenchmarkClassifyText(b *testing.B) {
	t, err := NewTaxonomy(nil)
	if err != nil {
		b.Fatal(err)
	}
	text := "Regenerate the API client after changing the schema\nWhen the OpenAPI schema changes, run the generator and commit the generated files; never hand-edit them. Deploy to staging only after the migration ran."
	b.ReportAllocs()
	for b.Loop() {
		t.ClassifyText(text)
	}
}

// BenchmarkClassifyWriteContent: the content patterns of a 6 KB Python
// file (a Write hook's written text), on a warm taxonomy.
func BenchmarkClassifyWriteContent(b *testing.B) {
	b.ReportAllocs()
	var src strings.Builder
	for i := range 60 {
		fmt.Fprintf(&src, "def settle_%d(order, amount, session):\n    total = order.total + amount  # the key point of step %d\n    return session.execute(\"SELECT id FROM invoices WHERE id = %%s\", (order.id,))\n\n", i, i)
	}
	in, _ := json.Marshal(map[string]string{"file_path": "/tmp/app/billing/service.py", "content": src.String()})
	t := Default()
	t.ClassifyCall("Write", in)
	for b.Loop() {
		t.ClassifyCall("Write", in)
	}
}
