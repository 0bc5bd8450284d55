package index

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
)

// kind is how a field is analyzed and stored.
type kind uint8

const (
	kindText    kind = iota + 1 // English analyzer with stemming
	kindKeyword                 // exact value, one token
	kindNum                     // float64
	kindTime                    // datetime
)

func (k kind) String() string {
	switch k {
	case kindText:
		return "text"
	case kindKeyword:
		return "keyword"
	case kindNum:
		return "numeric"
	case kindTime:
		return "datetime"
	}
	return "unknown"
}

// Static field names.
const (
	fID          = "id"
	fPath        = "path"
	fLayer       = "layer"
	fType        = "type"
	fTitle       = "title"
	fDescription = "description"
	fBody        = "body"
	fTags        = "tags"
	fLifecycle   = "lifecycle"
	fStatus      = "status"
	fCreated     = "created"
	fUpdated     = "updated"
	fSession     = "session"
	fSeq         = "seq"
	fLinks       = "links"
	fTruncated   = "truncated" // full body size of a body cut to MaxBody
	fAllText     = "_text"     // every Doc.Text value, unstored; target of plain terms
)

type fieldDef struct {
	kind  kind
	store bool
	// positions: a text field's term vectors (positions and offsets),
	// which bleve's phrase search reads. The body has none: they were a
	// third of the CPU of indexing and two fifths of the index, and a
	// phrase on the body is checked on its stored text instead
	// (storedPhraseQuery). A field without them must be stored.
	positions bool
}

// staticFields is the one table both the bleve mapping and the document
// builder derive from.
var staticFields = map[string]fieldDef{
	fID:          {kindKeyword, false, false}, // _id is stored by bleve already
	fPath:        {kindKeyword, true, false},
	fLayer:       {kindKeyword, true, false},
	fType:        {kindKeyword, true, false},
	fTitle:       {kindText, true, true},
	fDescription: {kindText, true, true},
	fBody:        {kindText, true, false},
	fTags:        {kindKeyword, true, false},
	fLifecycle:   {kindKeyword, true, false},
	fStatus:      {kindKeyword, true, false},
	fCreated:     {kindTime, true, false},
	fUpdated:     {kindTime, true, false},
	fSession:     {kindKeyword, true, false},
	fSeq:         {kindNum, true, false},
	fLinks:       {kindKeyword, true, false},
	fTruncated:   {kindNum, true, false},
	fAllText:     {kindText, false, true},
}

func (d fieldDef) options() bindex.FieldIndexingOptions {
	o := bindex.IndexField
	if d.store {
		o |= bindex.StoreField
	}
	if d.positions {
		o |= bindex.IncludeTermVectors
	}
	return o
}

// Dynamic fields (Doc.Text/Keywords/Num keys) are always stored.
var dynamicDefs = map[kind]fieldDef{
	kindText:    {kindText, true, true},
	kindKeyword: {kindKeyword, true, false},
	kindNum:     {kindNum, true, false},
}

// newMapping builds the bleve mapping saved in index_meta.json. Documents
// are built by buildDocument, not by the mapper; the mapping matters for
// query-time analysis (which analyzer a field:value term goes through).
func newMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = analyzerName // dynamic Text fields
	im.DefaultField = fAllText
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	dm := bleve.NewDocumentStaticMapping()
	for name, def := range staticFields {
		var fm *mapping.FieldMapping
		switch def.kind {
		case kindText:
			fm = bleve.NewTextFieldMapping()
			fm.Analyzer = analyzerName
			fm.IncludeTermVectors = def.positions
		case kindKeyword:
			fm = bleve.NewKeywordFieldMapping()
			fm.IncludeTermVectors = false
		case kindNum:
			fm = bleve.NewNumericFieldMapping()
		case kindTime:
			fm = bleve.NewDateTimeFieldMapping()
		}
		fm.Store = def.store
		fm.IncludeInAll = false
		fm.DocValues = false
		dm.AddFieldMappingsAt(name, fm)
	}
	im.DefaultMapping = dm
	return im
}

// analyzers are looked up once per Index from its mapping's cache.
type analyzers struct {
	en, kw analysis.Analyzer
}

func loadAnalyzers(m mapping.IndexMapping) (analyzers, error) {
	a := analyzers{en: m.AnalyzerNamed(analyzerName), kw: m.AnalyzerNamed(keyword.Name)}
	if a.en == nil || a.kw == nil {
		return a, fmt.Errorf("bleve analyzers %q/%q not registered", analyzerName, keyword.Name)
	}
	return a, nil
}

// registry records the kind of every dynamic field ever indexed. It lives
// in bleve's internal storage under registryKey and is updated in the same
// batch as the documents that introduce a field.
type registry map[string]kind

const (
	registryKey = "kb.fields"
	genKey      = "kb.gen"
)

func (r registry) marshal() []byte {
	m := make(map[string]string, len(r))
	for k, v := range r {
		m[k] = v.String()
	}
	b, _ := json.Marshal(m) // map[string]string always marshals
	return b
}

func unmarshalRegistry(b []byte) (registry, error) {
	r := registry{}
	if len(b) == 0 {
		return r, nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("field registry: %w", err)
	}
	for k, v := range m {
		switch v {
		case "text":
			r[k] = kindText
		case "keyword":
			r[k] = kindKeyword
		case "numeric":
			r[k] = kindNum
		default:
			return nil, fmt.Errorf("field registry: field %q has unknown kind %q", k, v)
		}
	}
	return r, nil
}

// validFieldName reports whether a Doc.Text/Keywords/Num key can be a field:
// letters, digits and '_', not starting with '_' (reserved for bleve and for
// _text), and not a static field name.
func validFieldName(name string) error {
	if name == "" {
		return fmt.Errorf("empty field name")
	}
	if len(name) > 64 {
		return fmt.Errorf("field name %q longer than 64 bytes", name)
	}
	if name[0] == '_' {
		return fmt.Errorf("field name %q: a leading '_' is reserved", name)
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Errorf("field name %q: only letters, digits and '_' are allowed", name)
		}
	}
	if _, ok := staticFields[name]; ok {
		return fmt.Errorf("field name %q is reserved for the Doc field of that name", name)
	}
	return nil
}

// checkDoc validates one doc against the registry and records new dynamic
// fields in add. It returns a *DocError.
func checkDoc(path string, d *Doc, reg, add registry) error {
	fail := func(format string, args ...any) error {
		return &DocError{Path: path, ID: d.ID, Msg: fmt.Sprintf(format, args...)}
	}
	if strings.TrimSpace(d.ID) == "" {
		return fail("empty doc id")
	}
	check := func(name string, k kind) error {
		if err := validFieldName(name); err != nil {
			return fail("%v", err)
		}
		have, ok := reg[name]
		if !ok {
			have, ok = add[name]
		}
		if ok && have != k {
			return fail("field %q is used as %s here but was indexed as %s before (bump SchemaVersion or rename it)", name, k, have)
		}
		if !ok {
			add[name] = k
		}
		return nil
	}
	for name := range d.Text {
		if err := check(name, kindText); err != nil {
			return err
		}
	}
	for name := range d.Keywords {
		if err := check(name, kindKeyword); err != nil {
			return err
		}
	}
	for name := range d.Num {
		if err := check(name, kindNum); err != nil {
			return err
		}
	}
	return nil
}

// buildDocument turns a Doc into a bleve document. Links are lower-cased.
func (a analyzers) buildDocument(d *Doc) *document.Document {
	bd := document.NewDocument(d.ID)
	text := func(name string, pos []uint64, v string, def fieldDef) {
		if v == "" {
			return
		}
		an := a.kw
		if def.kind == kindText {
			an = a.en
		}
		bd.AddField(document.NewTextFieldCustom(name, pos, []byte(v), def.options(), an))
	}
	st := func(name, v string) { text(name, nil, v, staticFields[name]) }
	list := func(name string, vs []string, lower bool) {
		def := staticFields[name]
		for i, v := range vs {
			if lower {
				v = strings.ToLower(v)
			}
			text(name, []uint64{uint64(i)}, v, def)
		}
	}
	date := func(name string, t time.Time) {
		if t.IsZero() {
			return
		}
		f, err := document.NewDateTimeFieldWithIndexingOptions(name, nil, t, time.RFC3339Nano, staticFields[name].options())
		if err == nil { // only fails for dates outside ±292 years of 1970
			bd.AddField(f)
		}
	}
	st(fID, d.ID)
	st(fPath, d.Path)
	st(fLayer, d.Layer)
	st(fType, d.Type)
	st(fTitle, d.Title)
	st(fDescription, d.Description)
	st(fBody, d.Body)
	list(fTags, d.Tags, false)
	st(fLifecycle, d.Lifecycle)
	st(fStatus, d.Status)
	date(fCreated, d.Created)
	date(fUpdated, d.Updated)
	st(fSession, d.Session)
	if d.Session != "" || d.Seq != 0 {
		bd.AddField(document.NewNumericFieldWithIndexingOptions(fSeq, nil, float64(d.Seq), staticFields[fSeq].options()))
	}
	list(fLinks, d.Links, true)
	if d.Truncated > 0 {
		bd.AddField(document.NewNumericFieldWithIndexingOptions(fTruncated, nil, float64(d.Truncated), staticFields[fTruncated].options()))
	}
	if len(d.Text) > 0 {
		keys := sortedKeys(d.Text)
		for i, k := range keys {
			text(k, nil, d.Text[k], dynamicDefs[kindText])
			text(fAllText, []uint64{uint64(i)}, d.Text[k], staticFields[fAllText])
		}
	}
	for _, k := range sortedKeys(d.Keywords) {
		for i, v := range d.Keywords[k] {
			text(k, []uint64{uint64(i)}, v, dynamicDefs[kindKeyword])
		}
	}
	for _, k := range sortedKeys(d.Num) {
		bd.AddField(document.NewNumericFieldWithIndexingOptions(k, nil, d.Num[k], dynamicDefs[kindNum].options()))
	}
	return bd
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
