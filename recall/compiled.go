package recall

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/kbmem/kb/internal/binrec"
	"github.com/kbmem/kb/internal/config"
	"github.com/kbmem/kb/internal/doc"
	"github.com/kbmem/kb/internal/fsx"
	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// The activation index: everything recall asks its Searcher, compiled into
// one file under the index directory, so that a hook answers with one open
// and a memory map instead of opening bleve (docs/format.md, "Activation
// index"; ADR 0008). It holds, for every document of the layers recall
// reads, the stored fields recall matches on (candidateOf), the postings of
// its action types and triggers, and the postings of its words for the
// lexical search; the files themselves are read only for the few items a
// hook shows (Files). kb writes it after every sync of those layers; it is
// derived data and rebuilds from the files.

// CompiledFile is the activation index's file name in the index directory.
const CompiledFile = "activation.kbx"

// compiledMagic opens the file; its last digits are the format version.
const compiledMagic = "KBACT043"

// CompiledMeta is what the activation index records about its compilation.
type CompiledMeta struct {
	Compiled time.Time `json:"compiled"`
	// Dirs are the modification times (Unix ns) of the directories of the
	// layers recall reads, taken at the sync the index was compiled from:
	// a hook that finds one changed answers from the index and starts a
	// background sync.
	Dirs map[string]int64 `json:"dirs,omitempty"`
	Docs int              `json:"docs"`
	// TaxonomyKey is the Key of the taxonomy the trigger types were
	// classified with; a hook with another taxonomy classifies again.
	TaxonomyKey string `json:"taxonomy,omitempty"`
	// Unloaded counts the documents compiled without an item record
	// (over CompileOptions.MaxLoads): the next compile loads more.
	Unloaded int `json:"unloaded,omitempty"`
	// Config is kb.yaml as the compile found it, for a hook to read
	// instead of parsing the file while it is unchanged
	// (config.LoadSnapshot); nil when it did not parse.
	Config *config.Snapshot `json:"config,omitempty"`
}

// CompileDoc is one document to compile: the hit recall's Searcher would
// return (with every field of StoredFields it has), the text its words are
// searched in, and its file's stamp.
type CompileDoc struct {
	Hit
	Tags []string
	Body string
	// Stamp identifies the file's version (size and time): a document
	// whose path and stamp the previous index holds keeps its records.
	Stamp string
	// Reuse says the document is unchanged since CompileOptions.Prev
	// (which holds its path and stamp; Holds when with its item record):
	// only Path and Stamp are set, and everything else (its records, its
	// words and action types, its flags) is taken from Prev, which is
	// what makes a compile after a few edits cost the edits, not the KB.
	// A document Prev holds without an item record keeps none.
	Reuse bool
	// Pre, when set (Precompute), holds the document's words, candidate
	// record and item record, computed before the compile: Body and Tags
	// are then not read, and the file is not loaded again.
	Pre *Precomputed
}

// Precomputed is what Compile computes of one document from its text
// and its file, computed ahead of it (Precompute): kb index works it out
// while the search index is built, on the cores bleve leaves idle, from
// the bytes the sync read, so that the compile after the sync only lays
// the documents out.
type Precomputed struct {
	// words are the document's terms and weights packed (packWords): one
	// allocation without pointers, not one string per term, as the sync
	// holds every document's until the compile.
	words  []byte
	length float32
	cand   []byte
	taxKey string // the taxonomy of cand (Taxonomy.Key)
	item   []byte // the item record; nil: none was loaded
}

// packWords packs words as a uvarint length, the term and its weight's
// 4 bytes each.
func packWords(words []termWeight) []byte {
	n := 0
	for _, tw := range words {
		n += binary.MaxVarintLen16 + len(tw.term) + 4
	}
	b := make([]byte, 0, n)
	for _, tw := range words {
		b = binary.AppendUvarint(b, uint64(len(tw.term)))
		b = append(b, tw.term...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(tw.w))
	}
	return slices.Clip(b)
}

// unpackWords is the words packWords packed into b.
func unpackWords(b []byte) []termWeight {
	var out []termWeight
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n+4 {
			break // not packWords's: cannot happen
		}
		t := string(b[k : k+int(n)])
		b = b[k+int(n):]
		out = append(out, termWeight{t, math.Float32frombits(binary.LittleEndian.Uint32(b))})
		b = b[4:]
	}
	return out
}

// Precompute computes d's weighted words and its candidate record under
// taxonomy tax, and, when load is true, its item record from ob or dc
// (what CompileOptions.Load returned for it, with loadErr), as Compile
// would, and keeps them in d.Pre in place of its Body and Tags.
func Precompute(d *CompileDoc, tax *observations.Taxonomy, load bool, ob *observations.Observation, dc *doc.Document, loadErr error) error {
	weights := weightMaps.Get().(map[string]float32)
	wk := docWorkOf(d, weights, true, tax)
	weightMaps.Put(weights)
	p := &Precomputed{words: packWords(wk.words), length: wk.length, cand: wk.cand}
	if tax != nil {
		p.taxKey = tax.Key()
	}
	if load {
		b, err := itemBytes(ob, dc, loadErr)
		if err != nil {
			return fmt.Errorf("activation index: %s: %w", d.Path, err)
		}
		p.item = b
	}
	d.Pre, d.Body, d.Tags = p, "", nil
	return nil
}

// weightMaps are docWorkOf's counting maps for Precompute, which a sync's
// loaders call once a document: a map of its own grew from empty to the
// document's few hundred terms every time (a tenth of Precompute's CPU at
// 10,000 notes); a reused one is cleared, no longer grown.
var weightMaps = sync.Pool{New: func() any { return map[string]float32{} }}

// itemBytes is the item record of a document whose file Load returned
// ob or dc for, with err.
func itemBytes(ob *observations.Observation, dc *doc.Document, err error) ([]byte, error) {
	if err != nil {
		// Tried: a hook reads the file. A file that cannot be read now is
		// no reason to keep every other change from the hooks.
		return []byte{itemNone}, nil
	}
	r := itemRecordOf(ob, dc)
	return r.marshal()
}

// ErrNotReusable is returned by Compile when a document marked Reuse is
// not in Prev as Holds found it (a caller compiles it in full instead).
var ErrNotReusable = errors.New("activation index: a reused document is not in the previous index")

// CompileOptions say what Compile works from besides the documents.
type CompileOptions struct {
	Meta CompiledMeta
	// Prev is the previous activation index, if any: the records of its
	// documents whose path and stamp are unchanged are copied, not built.
	Prev *Compiled
	// Load reads the file of a document Prev does not hold: its
	// observation (layer observations) or its document (the others). A
	// document whose file cannot be read is compiled without its item
	// record: a hook then reads the file (Files).
	Load func(path, layer string) (*observations.Observation, *doc.Document, error)
	// Taxonomy, if set, classifies the candidates' triggers once, here.
	Taxonomy *observations.Taxonomy
	// MaxLoads bounds the files Load reads in one compile (0: 20,000,
	// negative: none); the
	// documents left without an item record (a first compile of a large
	// KB) are read by the hooks that show them, and loaded by later
	// compiles, the most recurring first. Loads run on every core.
	MaxLoads int
}

// DefaultMaxLoads is CompileOptions.MaxLoads when it is 0: parsing a file
// takes a fraction of a millisecond, so a sync that changed a few files
// stays short, and a first compile of 100,000 notes does not parse them
// all.
const DefaultMaxLoads = 20000

// candRecord is a candidate as the activation index stores it: what
// candidateOf derives from the stored fields, and the signatures of the
// person's words and of the lesson, computed once.
type candRecord struct {
	ID          string      `json:"i,omitempty"`
	Title       string      `json:"t,omitempty"`
	Description string      `json:"d,omitempty"`
	Status      string      `json:"st,omitempty"`
	Types       []string    `json:"ty,omitempty"`
	Phrases     []string    `json:"ph,omitempty"`
	Text        string      `json:"x,omitempty"`
	Lesson      string      `json:"l,omitempty"`
	Trigger     string      `json:"tr,omitempty"`
	Files       [][2]string `json:"f,omitempty"`
	Projects    []string    `json:"pr,omitempty"`
	Importance  float64     `json:"im,omitempty"`
	Sessions    float64     `json:"se,omitempty"`
	Excerpt     string      `json:"ex,omitempty"`
	Author      string      `json:"au,omitempty"`
	FromSession bool        `json:"fs,omitempty"`
	Pasted      bool        `json:"pa,omitempty"`
	Said        string      `json:"sa,omitempty"`
	SigsSaid    []sigRecord `json:"ss,omitempty"`
	SigsLesson  []sigRecord `json:"sl,omitempty"`
	TrigTypes   []string    `json:"tt,omitempty"`
	OwnTypes    []string    `json:"ot,omitempty"`
	// Negated: the lesson holds a negation or a removal (negRE);
	// TrigPrograms: the programs the trigger's quoted commands run.
	Negated      bool     `json:"ng,omitempty"`
	TrigPrograms []string `json:"tp,omitempty"`
	// Asks: the person's words open by asking (observations.Asks).
	Asks bool `json:"as,omitempty"`
	// Secrets: the lesson is about secrets (candidate.aboutSecrets).
	Secrets bool `json:"sc,omitempty"`
	// SpecificTools: candidate.specificTools.
	SpecificTools []string `json:"sp,omitempty"`
	// MatchStems: candidate.matchStems.
	MatchStems []string `json:"ms,omitempty"`
	// LessonStems, OwnStems: candidate.lessonStems and ownStems.
	LessonStems []string `json:"ls,omitempty"`
	OwnStems    []string `json:"os,omitempty"`
	// SaidStems: candidate.saidStems.
	SaidStems []string `json:"ps,omitempty"`
}

type sigRecord struct {
	S string `json:"s"`
	P bool   `json:"p,omitempty"`
	W bool   `json:"w,omitempty"`
}

// itemRecord is what an item needs of the document's file (Engine.item):
// the parsed observation, or the document's dates and text.
// Its binary form is in compiledrec.go.
type itemRecord struct {
	Obs *observations.Observation
	Doc *docRecord
}

type docRecord struct {
	Type        string
	Title       string
	Description string
	Body        string // its first paragraph
	Created     string
	Updated     string
}

// precomputed is what a compiled candidate brings beyond its fields.
type precomputed struct {
	said                 string
	sigsSaid, sigsLesson []signature
	taxKey               string // the taxonomy trigTypes come from; "": none
	trigTypes            []string
	ownTypes             []string // ownTypes, from the same taxonomy
	negated              bool     // candidate.negated
	asks                 bool     // candidate.asks
	secrets              bool     // candidate.aboutSecrets
	trigPrograms         []string // candidate.triggerPrograms
	specificTools        wordSet  // candidate.specificTools
	matchStems           wordSet  // candidate.matchStems
	lessonStems          wordSet  // candidate.lessonStems
	ownStems             wordSet  // candidate.ownStems
	saidStems            wordSet  // candidate.saidStems
}

func sigRecords(sigs []signature) []sigRecord {
	out := make([]sigRecord, len(sigs))
	for i, g := range sigs {
		out[i] = sigRecord{g.text, g.prohibited, g.weak}
	}
	return out
}

func signaturesOf(rs []sigRecord) []signature {
	out := make([]signature, len(rs))
	for i, r := range rs {
		out[i] = signature{r.S, r.P, r.W}
	}
	return out
}

// candRecordOf builds the record of a hit's candidate c, with its
// trigger's types when tax is set.
func candRecordOf(c *candidate, tax *observations.Taxonomy) candRecord {
	r := candRecord{ID: c.id, Title: c.title, Description: c.description, Status: c.status, Types: c.types,
		Phrases: c.phrases, Text: c.text, Lesson: c.lesson, Trigger: c.trigger, Projects: c.projects,
		Importance: c.importance, Sessions: c.sessions, Excerpt: c.excerpt, Author: c.author,
		FromSession: c.fromSession, Pasted: c.pasted}
	for _, f := range c.files {
		r.Files = append(r.Files, [2]string{f.base, f.parent})
	}
	// As Engine.relevant sets it for a cue with a command or written text.
	if c.layer == LayerObservations && c.typ != observations.TypeProcedure && c.author != observations.AuthorAgent {
		r.Said = personWordsOf(c.excerpt)
	}
	if r.Said != "" {
		r.SigsSaid = sigRecords(saidSignatures(c.excerpt, r.Said))
	}
	r.SigsLesson = sigRecords(signatures(c.lesson))
	r.Negated = c.negated()
	r.Asks = observations.Asks(r.Said)
	r.Secrets = secretsAbout(r.Said, c.lesson, c.trigger)
	r.TrigPrograms = c.triggerPrograms()
	r.SpecificTools = c.specificTools()
	r.MatchStems = c.matchStems()
	r.LessonStems, r.OwnStems, r.SaidStems = c.lessonStems(), c.ownStems(), c.saidStems()
	if tax != nil {
		r.TrigTypes = c.triggerTypes(tax)
		r.OwnTypes = c.ownTypes(tax)
	}
	return r
}

// candidate is the candidate of a record, with the hit's path and kind,
// written to c and pre; taxKey is the key of the taxonomy the record's
// trigger types come from. Only the record's fields are written: what
// matching set on c stays (a standing candidate is completed after
// Engine.relevant, candidate.load).
func (r *candRecord) candidate(c *candidate, pre *precomputed, path, layer, typ, taxKey string) *candidate {
	*pre = precomputed{said: r.Said, sigsSaid: signaturesOf(r.SigsSaid), sigsLesson: signaturesOf(r.SigsLesson),
		taxKey: taxKey, trigTypes: r.TrigTypes, ownTypes: r.OwnTypes, negated: r.Negated, asks: r.Asks, secrets: r.Secrets, trigPrograms: r.TrigPrograms,
		specificTools: r.SpecificTools, matchStems: r.MatchStems, lessonStems: r.LessonStems, ownStems: r.OwnStems, saidStems: r.SaidStems}
	c.path, c.id, c.layer, c.typ, c.title, c.description = path, r.ID, layer, typ, r.Title, r.Description
	c.status, c.types, c.phrases, c.text, c.lesson, c.trigger = r.Status, r.Types, r.Phrases, r.Text, r.Lesson, r.Trigger
	c.projects, c.importance, c.sessions, c.excerpt, c.author = r.Projects, r.Importance, r.Sessions, r.Excerpt, r.Author
	c.fromSession, c.pasted, c.pre, c.files = r.FromSession, r.Pasted, pre, nil
	for _, f := range r.Files {
		c.files = append(c.files, fileRef{base: f[0], parent: f[1]})
	}
	return c
}

// standingRecord is what Engine.relevant reads of a standing candidate
// (its kind, status, importance, sessions, projects and whether it came
// from a session), with the hit's id, title and description: a
// SessionStart looks at a few dozen (Engine.readStanding) and reads the
// files of those it keeps, so the rest of each record is decoded only for
// those (complete).
func (c *Compiled) standingRecord(b []byte, cand *candidate, d int, path, layer, typ string) error {
	r := recDecoder{binrec.Decoder{B: b}}
	cand.path, cand.layer, cand.typ = path, layer, typ
	cand.id, cand.title, cand.description, cand.status = r.Str(), r.Str(), r.Str(), r.Str()
	for range 6 { // text, lesson, trigger, excerpt, author, said
		r.SkipStr()
	}
	r.SkipStrs() // types
	r.SkipStrs() // phrases
	cand.projects = r.Strs()
	for range 8 { // trigger types, own types, trigger programs, specific tools, match stems, lesson, own and said stems
		r.SkipStrs()
	}
	for n := r.Count(); n > 0; n-- { // files
		r.SkipStr()
		r.SkipStr()
	}
	cand.importance, cand.sessions, cand.fromSession = r.F64(), r.F64(), r.Flag()
	if r.Bad {
		return errRecord
	}
	cand.partial, cand.doc = c, d
	return nil
}

// complete decodes the rest of a standing candidate's record (false when
// it cannot: the index was closed, or the record is damaged).
func (c *Compiled) complete(cand *candidate) bool {
	if c.data == nil || cand.doc < 0 || cand.doc >= c.h.Docs {
		return false
	}
	e := c.doc(cand.doc)
	b, ok := c.slice(e.candOff, e.candLen)
	var r candRecord
	if !ok || r.unmarshalIn(b, c.recString(b), nil) != nil {
		return false
	}
	r.candidate(cand, &precomputed{}, cand.path, cand.layer, cand.typ, c.h.Meta.TaxonomyKey)
	return true
}

// itemRecordOf is the item record of a document's file.
func itemRecordOf(o *observations.Observation, d *doc.Document) itemRecord {
	if o != nil {
		return itemRecord{Obs: o}
	}
	if d == nil {
		return itemRecord{}
	}
	return itemRecord{Doc: &docRecord{Type: d.Type, Title: d.Title, Description: d.Description,
		Body: firstParagraph(d.Body), Created: d.Created, Updated: d.Updated}}
}

// Binary layout, little-endian (docs/format.md):
//
//	magic [8]byte | header length u32 | header (binary, compiledrec.go)
//	doc table   ndocs x docEntry, in path order
//	term table  nterms x termEntry, sorted by (kind, term)
//	term text | keys (path NUL stamp) | postings (nposts x {doc u32, weight f32}) | records (binary, compiledrec.go)
//
// The header's offsets are from the start of the file.
const (
	// cand off u32, len u32, item off u32, len u32, key off u32, len u32,
	// layer u16, type u16, flags u16, pad u16, length f32, rank f32
	docEntrySize = 40
	docLengthAt  = 32 // of the length f32 in a doc entry
	docRankAt    = 36 // of the rank f32
	// text off u32, len u16, kind u8, pad u8, postings off u32, count u32,
	// bound f32 (of a word, an action type or an anchor: the most one of
	// its postings adds to a document's score, listBound; 0 for the
	// others)
	termEntrySize = 20
	postingSize   = 8
)

const (
	termAction    = 'a' // an action_types, action_type or triggers value, whole
	termWord      = 'w' // an analyzed word of the text fields
	termStanding  = 's' // a layer: its documents that may stand (flagStanding), weighted by their rank
	termTriggered = 't' // "": the documents with triggers (flagTriggered)
	termAnchor    = 'g' // the anchor of a prohibited signature of the candidate (sigAnchors)
	// The standing documents again, split for a new session in a known
	// project (Search.Project): those that may stand in any project, per
	// layer, and the one-off preferences, which stand only in their own,
	// under their projects' keys (ownStandingKeys). A KB of many projects
	// is not walked whole to find that none of its preferences is this
	// project's.
	termWideStanding = 'e' // a layer and a type ("observations\x00correction"): its standing documents that may stand in any project's session
	termOwnStanding  = 'p' // a project key (ownStandingKeys): the one-off preferences and project-bound lessons that may stand there
)

const (
	flagTriggered = 1 // the document has a triggers value
	flagStanding  = 2 // the document may stand in a new session's context (mayStand)
)

type compiledHeader struct {
	Meta   CompiledMeta `json:"meta"`
	Layers []string     `json:"layers"`
	Types  []string     `json:"types"`
	Docs   int          `json:"ndocs"`
	Terms  int          `json:"nterms"`
	AvgLen float64      `json:"avglen"`
	// Offsets of the sections.
	DocTable, TermTable, Text, Keys, Posts, Records, End int64
}

// Field weights of the lexical search, as the index boosts its plain
// fields (internal/index plainFields).
const (
	weightTitle = 3
	weightDesc  = 2
	weightID    = 2
	weightBody  = 1
)

// Compile writes the activation index of docs to w.
func Compile(w io.Writer, docs []CompileDoc, o CompileOptions) error {
	docs = slices.Clone(docs)
	slices.SortFunc(docs, func(a, b CompileDoc) int { return cmp.Compare(a.Path, b.Path) })
	prev := o.Prev
	meta := o.Meta
	meta.Docs = len(docs)
	meta.TaxonomyKey = ""
	if o.Taxonomy != nil {
		meta.TaxonomyKey = o.Taxonomy.Key()
	}
	if prev != nil && prev.h.Meta.TaxonomyKey != meta.TaxonomyKey {
		prev = nil // its trigger types are another taxonomy's
	}
	drop := pageDropper{c: prev}
	h := compiledHeader{Meta: meta, Docs: len(docs)}
	layerIx, typeIx := map[string]int{}, map[string]int{}
	intern := func(m map[string]int, list *[]string, s string) int {
		i, ok := m[s]
		if !ok {
			i = len(*list)
			m[s] = i
			*list = append(*list, s)
		}
		return i
	}
	type key struct {
		kind byte
		term string
	}
	postings := map[key][]posting{}
	var (
		table = make([]byte, 0, len(docs)*docEntrySize)
		recs  chunks // records, most of them prev's own bytes: not copied
		keys  bytes.Buffer
		total float64
		pi    = 0 // the next document of prev, in path order
	)
	// prevRecords are the records prev holds for path at stamp, if any,
	// and the document's number in prev.
	prevRecords := func(path, stamp string) (at int, cand, item []byte, ok bool) {
		if prev == nil || stamp == "" {
			return -1, nil, nil, false
		}
		for ; pi < prev.h.Docs; pi++ {
			e := prev.doc(pi)
			p, st, _ := bytes.Cut(prev.keyBytes(e), []byte{0})
			if string(p) < path {
				continue
			}
			if string(p) == path && string(st) == stamp {
				cand, cok := prev.slice(e.candOff, e.candLen)
				item, iok := prev.slice(e.itemOff, e.itemLen)
				return pi, cand, item, cok && iok
			}
			break
		}
		return -1, nil, nil, false
	}
	// The records prev holds for unchanged documents, and the item records
	// of the others, loaded (at most MaxLoads, the most recurring first).
	// laid is a document's records and key, placed once every document is
	// known (layout, below).
	type laid struct {
		doc        int
		rank       float32
		standing   bool
		group      string // its candidate's primary action type
		cand, item []byte
		key        string
	}
	lay := make([]laid, 0, len(docs))
	reused := make([]docRecords, len(docs))
	// remap is, for each document of prev, its number in this index when
	// it is reused whole (Reuse), else -1: its postings are carried over.
	var remap []int32
	var load []int
	for i, d := range docs {
		at, cand, item, ok := prevRecords(d.Path, d.Stamp)
		reused[i].prev = -1
		if ok {
			reused[i] = docRecords{cand, item, at}
		}
		if d.Reuse {
			if !ok {
				return ErrNotReusable
			}
			if remap == nil {
				remap = make([]int32, prev.h.Docs)
				for j := range remap {
					remap[j] = -1
				}
			}
			remap[at] = int32(i)
			continue
		}
		if !ok || len(item) == 0 {
			load = append(load, i) // new, changed, or not loaded by an earlier compile
		}
	}
	loaded, err := loadItems(docs, load, o)
	if err != nil {
		return err
	}
	// entry appends document i's entry to the table and its records.
	entry := func(i int, cand, item []byte, key string, li, ti int, flags uint16, length, rank float32) error {
		if len(item) == 0 {
			h.Meta.Unloaded++
		}
		lay = append(lay, laid{doc: i, rank: rank, standing: flags&flagStanding != 0, group: primaryType(cand),
			cand: cand, item: item, key: key})
		le := binary.LittleEndian
		table = le.AppendUint32(table, 0) // the offsets: layout, below
		table = le.AppendUint32(table, uint32(len(cand)))
		table = le.AppendUint32(table, 0)
		table = le.AppendUint32(table, uint32(len(item)))
		table = le.AppendUint32(table, 0)
		table = le.AppendUint32(table, uint32(len(key)))
		table = le.AppendUint16(table, uint16(li))
		table = le.AppendUint16(table, uint16(ti))
		table = le.AppendUint16(table, flags)
		table = le.AppendUint16(table, 0)
		table = le.AppendUint32(table, math.Float32bits(length))
		table = le.AppendUint32(table, math.Float32bits(rank))
		return nil
	}
	// The words and candidate record of each new or changed document are
	// computed on every core, a chunk of documents at a time (the
	// regexps of a candidate and the word analysis are most of a full
	// compile's CPU); postings and records are then added in path order.
	work := make([]docWork, min(len(docs), compileChunk))
	for i, d := range docs {
		base := i - i%compileChunk
		if i == base {
			analyzeDocs(docs[base:min(len(docs), base+compileChunk)], reused[base:], work, o.Taxonomy, meta.TaxonomyKey)
		}
		if len(h.Layers) >= math.MaxUint16 || len(h.Types) >= math.MaxUint16 {
			return errors.New("activation index: too many layers or types")
		}
		if d.Reuse {
			e := prev.doc(reused[i].prev)
			if int(e.layer) >= len(prev.h.Layers) || int(e.typ) >= len(prev.h.Types) {
				return ErrNotReusable
			}
			drop.read(docEntrySize + len(reused[i].cand)) // entry reads its primary type
			li := intern(layerIx, &h.Layers, prev.h.Layers[e.layer])
			ti := intern(typeIx, &h.Types, prev.h.Types[e.typ])
			total += float64(e.length)
			if err := entry(i, reused[i].cand, reused[i].item, d.Path+"\x00"+d.Stamp, li, ti, e.flags, e.length, e.rank); err != nil {
				return err
			}
			continue
		}
		li := intern(layerIx, &h.Layers, d.Layer)
		ti := intern(typeIx, &h.Types, d.Type)
		var flags uint16
		seen := map[string]bool{}
		// A standing-only document has no postings but its standing ones:
		// no action or word finds it (standingOnly).
		only := standingOnly(d.Type, fieldStrings(d.Fields["signals"]))
		for _, f := range []string{"action_types", "action_type", "triggers"} {
			if only {
				break
			}
			for _, v := range fieldStrings(d.Fields[f]) {
				if f == "triggers" && strings.TrimSpace(v) != "" {
					flags |= flagTriggered
				}
				if v != "" && !seen[v] {
					seen[v] = true
					k := key{termAction, v}
					postings[k] = append(postings[k], posting{uint32(i), 1})
				}
			}
		}
		if mayStand(d.Layer, d.Type, fieldString(d.Fields["status"]), fieldString(d.Fields["lesson"]), fieldNumber(d.Fields["sessions"])) {
			flags |= flagStanding
			// One list per layer: a new session reads the observations'
			// and the library's apart, and neither walks the other's.
			w := float32(standingRank(d.Fields))
			k := key{termStanding, d.Layer}
			postings[k] = append(postings[k], posting{uint32(i), w})
			projects, fromSess := fieldStrings(d.Fields["projects"]), fromSession(fieldStrings(d.Fields["sources"]))
			if projectBound(d.Layer, d.Type, fieldString(d.Fields["status"]), fieldNumber(d.Fields["sessions"]), projects, fromSess) {
				for _, pk := range ownStandingKeys(projects, fromSess) {
					k := key{termOwnStanding, pk}
					postings[k] = append(postings[k], posting{uint32(i), w})
				}
			} else {
				k := key{termWideStanding, d.Layer + "\x00" + d.Type}
				postings[k] = append(postings[k], posting{uint32(i), w})
			}
		}
		if flags&flagTriggered != 0 {
			k := key{termTriggered, ""}
			postings[k] = append(postings[k], posting{uint32(i), 1})
		}
		wk := &work[i-base]
		if only {
			wk.words, wk.anchors = nil, nil
		}
		for _, tw := range wk.words {
			k := key{termWord, tw.term}
			postings[k] = append(postings[k], posting{uint32(i), tw.w})
		}
		for _, a := range wk.anchors {
			k := key{termAnchor, a}
			postings[k] = append(postings[k], posting{uint32(i), 1})
		}
		length := wk.length
		total += float64(length)
		cand, item := reused[i].cand, reused[i].item
		if cand == nil {
			cand = wk.cand
		}
		if len(item) == 0 {
			item = loaded[i]
		}
		if err := entry(i, cand, item, d.Path+"\x00"+d.Stamp, li, ti, flags, length, float32(standingRank(d.Fields))); err != nil {
			return err
		}
	}
	if len(docs) > 0 {
		h.AvgLen = total / float64(len(docs))
	}
	// The layout of the records and keys, which the doc table locates
	// (any order reads the same): what one hook reads lies together, on a
	// few pages rather than one page each, as a new process pays a page
	// fault for every page it touches of the mapped file.
	//   - the standing documents' candidate records and keys first, best
	//     first, in the order of their postings: a new session's hook
	//     reads the first few dozen;
	//   - then the other candidate records and keys grouped by the
	//     candidate's primary action type, best first within a group: a
	//     hook before a tool call reads the best hundred of the call's
	//     types;
	//   - then the item records in the same order: a hook reads those of
	//     the few candidates it shows, which it found together.
	slices.SortStableFunc(lay, func(a, b laid) int {
		if a.standing != b.standing {
			if a.standing {
				return -1
			}
			return 1
		}
		if !a.standing {
			if c := strings.Compare(a.group, b.group); c != 0 {
				return c
			}
		}
		return cmp.Compare(b.rank, a.rank)
	})
	le := binary.LittleEndian
	for _, l := range lay {
		e := table[l.doc*docEntrySize:]
		le.PutUint32(e, uint32(recs.Len()))
		recs.Write(l.cand)
		le.PutUint32(e[16:], uint32(keys.Len()))
		keys.WriteString(l.key)
	}
	for _, l := range lay {
		le.PutUint32(table[l.doc*docEntrySize+8:], uint32(recs.Len()))
		recs.Write(l.item)
	}
	if int64(recs.Len()) > math.MaxUint32 || int64(keys.Len()) > math.MaxUint32 {
		return errors.New("activation index: records over 4 GiB")
	}
	termKeys := make([]key, 0, len(postings))
	for k := range postings {
		termKeys = append(termKeys, k)
	}
	compareKeys := func(a, b key) int {
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		return strings.Compare(a.term, b.term)
	}
	slices.SortFunc(termKeys, compareKeys)
	// The terms of prev's reused documents, in order: their postings,
	// renumbered, are merged with this compile's.
	prevTerms := 0
	if remap != nil {
		prevTerms = prev.h.Terms
	}
	var ps []posting // the term's postings when prev's are merged
	// mergeTerms calls emit with every term in order and its postings:
	// this compile's and prev's of the documents reused. It runs twice:
	// once to lay out the term table, once to write the postings straight
	// to w, so that they are never all in memory (at 100,000 notes, tens
	// of millions of postings: a quarter of a GB).
	mergeTerms := func(emit func(k key, mine []posting) error) error {
		for ti, pt := 0, 0; ti < len(termKeys) || pt < prevTerms; {
			var k key
			var fromPrev, fromNew bool
			var pk key
			var poff, pcount int
			if pt < prevTerms {
				pk.kind, pk.term, poff, pcount = prev.termAt(pt)
			}
			switch {
			case pt >= prevTerms:
				k, fromNew = termKeys[ti], true
			case ti >= len(termKeys):
				k, fromPrev = pk, true
			default:
				c := compareKeys(termKeys[ti], pk)
				k, fromNew, fromPrev = termKeys[ti], c <= 0, c >= 0
				if c > 0 {
					k = pk
				}
			}
			var mine []posting
			if fromNew {
				mine = postings[k]
				ti++
			}
			if fromPrev {
				pt++
				// prev's postings of the documents reused, renumbered: in
				// document order (both indexes are in path order), except the
				// best-first lists, which are sorted again below.
				ps = ps[:0]
				j := 0
				for n := range pcount {
					d, w := prev.postingRaw(poff + n)
					if d >= len(remap) || remap[d] < 0 {
						continue
					}
					p := posting{uint32(remap[d]), w}
					for ; j < len(mine) && mine[j].doc < p.doc; j++ {
						ps = append(ps, mine[j])
					}
					ps = append(ps, p)
				}
				drop.read(pcount * postingSize)
				ps = append(ps, mine[j:]...)
				mine = ps
				if len(mine) == 0 {
					continue
				}
			}
			if k.kind == termStanding || k.kind == termTriggered || k.kind == termWideStanding || k.kind == termOwnStanding {
				// In place: the second pass sorts the same list the same way.
				slices.SortFunc(mine, func(a, b posting) int {
					if c := cmp.Compare(b.w, a.w); c != 0 {
						return c
					}
					return cmp.Compare(a.doc, b.doc)
				})
			}
			if err := emit(k, mine); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		terms  = make([]byte, 0, (len(termKeys)+prevTerms)*termEntrySize)
		text   bytes.Buffer
		nposts int
	)
	_ = mergeTerms(func(k key, mine []posting) error {
		h.Terms++
		t := k.term
		if len(t) > math.MaxUint16 {
			t = t[:math.MaxUint16]
		}
		terms = binary.LittleEndian.AppendUint32(terms, uint32(text.Len()))
		terms = binary.LittleEndian.AppendUint16(terms, uint16(len(t)))
		terms = append(terms, k.kind, 0)
		terms = binary.LittleEndian.AppendUint32(terms, uint32(nposts))
		terms = binary.LittleEndian.AppendUint32(terms, uint32(len(mine)))
		var bound float32
		field := func(d, at int) float32 {
			return math.Float32frombits(binary.LittleEndian.Uint32(table[d*docEntrySize+at:]))
		}
		switch k.kind {
		case termWord:
			bound = listBound(mine, func(d int, tf, df float64) float64 { return bm25(h.Docs, h.AvgLen, df, tf, field(d, docLengthAt)) })
		case termAction, termAnchor:
			bound = listBound(mine, func(d int, _, df float64) float64 { return rarity(h.Docs, df, float64(field(d, docRankAt))) })
		}
		terms = binary.LittleEndian.AppendUint32(terms, math.Float32bits(bound))
		text.WriteString(t)
		nposts += len(mine)
		return nil
	})
	if nposts > math.MaxUint32 {
		return errors.New("activation index: too many postings") // the term table numbers them in 32 bits
	}
	// The header holds the offsets, which depend on its own length: lay
	// the sections out after it until its length stops changing.
	var hb []byte
	for stable := false; !stable; {
		start := int64(len(compiledMagic) + 4 + len(hb))
		h.DocTable = start
		h.TermTable = h.DocTable + int64(len(table))
		h.Text = h.TermTable + int64(len(terms))
		h.Keys = h.Text + int64(text.Len())
		h.Posts = h.Keys + int64(keys.Len())
		h.Records = h.Posts + int64(nposts)*postingSize
		h.End = h.Records + int64(recs.Len())
		nb := h.marshal()
		// The offsets only grow with the header's length, so this ends.
		stable = len(nb) == len(hb)
		hb = nb
	}
	var head []byte
	head = append(head, compiledMagic...)
	head = binary.LittleEndian.AppendUint32(head, uint32(len(hb)))
	head = append(head, hb...)
	for _, b := range [][]byte{head, table, terms, text.Bytes(), keys.Bytes()} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	written := 0
	buf := make([]byte, 0, 64<<10)
	err = mergeTerms(func(_ key, mine []posting) error {
		for _, p := range mine {
			buf = binary.LittleEndian.AppendUint32(buf, p.doc)
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(p.w))
		}
		written += len(mine)
		if len(buf) >= 60<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		return nil
	})
	if err == nil {
		_, err = w.Write(buf)
	}
	if err != nil {
		return err
	}
	if written != nposts {
		return fmt.Errorf("activation index: %d postings written, %d laid out", written, nposts)
	}
	for _, b := range recs.parts {
		if _, err := w.Write(b); err != nil {
			return err
		}
		drop.read(len(b))
	}
	return nil
}

// chunks is a sequence of byte slices written out one after the other,
// held by reference: the records of an unchanged document are prev's
// mapped bytes, not a copy (at 100,000 notes, hundreds of MB).
type chunks struct {
	parts [][]byte
	n     int
}

func (c *chunks) Len() int { return c.n }

func (c *chunks) Write(b []byte) {
	if len(b) > 0 {
		c.parts = append(c.parts, b)
		c.n += len(b)
	}
}

// loadItems reads the item records of docs[load...] (Load), at most
// o.MaxLoads of them, the most recurring first, on every core; a document
// whose file cannot be read, or that is over the bound, has none.
func loadItems(docs []CompileDoc, load []int, o CompileOptions) (map[int][]byte, error) {
	out := make(map[int][]byte, len(load))
	if o.Load == nil || len(load) == 0 {
		return out, nil
	}
	limit := o.MaxLoads
	switch {
	case limit == 0:
		limit = DefaultMaxLoads
	case limit < 0:
		limit = 0
	}
	if len(load) > limit {
		slices.SortStableFunc(load, func(a, b int) int {
			return cmp.Compare(standingRank(docs[b].Fields), standingRank(docs[a].Fields))
		})
		load = load[:limit]
	}
	var (
		mu   sync.Mutex
		next atomic.Int64
		wg   sync.WaitGroup
		fail error
	)
	for range max(1, runtime.NumCPU()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= len(load) {
					return
				}
				d := docs[load[j]]
				var b []byte
				var err error
				if d.Pre != nil && d.Pre.item != nil {
					b = d.Pre.item // loaded by Precompute
				} else {
					ob, dc, lerr := o.Load(d.Path, d.Layer)
					b, err = itemBytes(ob, dc, lerr)
				}
				mu.Lock()
				if err != nil && fail == nil {
					fail = fmt.Errorf("activation index: %s: %w", d.Path, err)
				}
				out[load[j]] = b
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, fail
}

// standingRank orders the documents of a search without words or types
// (the standing context's): those that recurred and matter most first, in
// the order the engine ranks standing candidates (standingWeight), so that
// the first ones listed are the ones a new session reads.
func standingRank(f map[string]any) float64 {
	return standingWeight(fieldNumber(f["importance"]), fieldNumber(f["sessions"]))
}

// Compiled is an open activation index. It is a Searcher; its methods are
// safe for concurrent use.
type Compiled struct {
	data   []byte
	path   string // the file, when opened from one
	close  func() error
	pinned bool // OpenCompiledPinned: data is never unmapped
	mapped bool // data is a file's memory map (mapFile), not the heap's
	h      compiledHeader
	layer  map[string]int
	typ    map[string]int

	mu     sync.Mutex
	byPath map[string]int // the documents Search returned, by path
	free   *scores        // scratch
}

// ErrNoCompiled is returned by OpenCompiled when there is no activation
// index.
var ErrNoCompiled = errors.New("no activation index")

// OpenCompiled opens the activation index at path (mapped into memory
// where the system allows it).
func OpenCompiled(path string) (*Compiled, error) {
	data, closer, err := fsx.MapFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoCompiled
	}
	if err != nil {
		return nil, err
	}
	c, err := ParseCompiled(data)
	if err != nil {
		closer()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.close, c.path, c.mapped = closer, path, true
	return c, nil
}

// dropEvery is how many bytes of a mapped previous index Compile reads
// between two releases of its pages (fsx.DropMapped): a round of a full
// compile at 100,000 notes reads the whole previous round (hundreds of
// MB), whose pages would otherwise stay counted in the process's RSS.
const dropEvery = 32 << 20

// pageDropper counts the bytes read of c and releases its mapped pages
// after every dropEvery of them.
type pageDropper struct {
	c *Compiled
	n int
}

func (d *pageDropper) read(n int) {
	if d.n += n; d.n >= dropEvery {
		d.n = 0
		if d.c != nil && d.c.mapped && d.c.data != nil {
			fsx.DropMapped(d.c.data)
		}
	}
}

// OpenCompiledPinned is OpenCompiled for a process that answers once and
// exits (a hook): the mapping is never unmapped (Close leaves it to the
// exit), so the strings decoded from records are the mapped bytes
// themselves, not copies. A new process pays a page fault for every page
// of heap it first writes, and copying the hundred-odd records a hook
// decodes was most of its heap. The file is replaced by a rename, never
// rewritten in place, so the mapped bytes do not change under it.
func OpenCompiledPinned(path string) (*Compiled, error) {
	c, err := OpenCompiled(path)
	if c != nil {
		c.pinned = true
	}
	return c, err
}

// recString is record b as a string for decoding: its mapped bytes when
// c is pinned, else a copy that outlives Close.
func (c *Compiled) recString(b []byte) string {
	if c.pinned && len(b) > 0 {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return string(b)
}

// PendingFile, beside the activation index, says that a read command
// brought the search index up to date with changes the activation index
// does not hold yet: a compile at 100,000 notes takes seconds, so
// kb search leaves it to the background indexer the next hook starts.
const PendingFile = "activation.pending"

// ParseCompiled reads an activation index from its bytes, which it keeps.
// It checks the layout: a truncated or foreign file is an error, never a
// panic or a wrong answer from another file's bytes.
func ParseCompiled(data []byte) (*Compiled, error) {
	bad := func(what string) error { return fmt.Errorf("not an activation index (%s)", what) }
	if len(data) < len(compiledMagic)+4 || string(data[:len(compiledMagic)]) != compiledMagic {
		return nil, bad("magic")
	}
	n := int(binary.LittleEndian.Uint32(data[len(compiledMagic):]))
	start := len(compiledMagic) + 4
	if n > len(data)-start {
		return nil, bad("header")
	}
	c := &Compiled{data: data, byPath: map[string]int{}}
	if err := c.h.unmarshal(data[start : start+n]); err != nil {
		return nil, bad("header: " + err.Error())
	}
	h := &c.h
	size := int64(len(data))
	ok := h.Docs >= 0 && h.Terms >= 0 && int64(start+n) == h.DocTable &&
		h.TermTable-h.DocTable == int64(h.Docs)*docEntrySize &&
		h.Text-h.TermTable == int64(h.Terms)*termEntrySize &&
		h.Text <= h.Keys && h.Keys <= h.Posts && h.Posts <= h.Records && h.Records <= h.End && h.End == size &&
		(h.Records-h.Posts)%postingSize == 0
	if !ok {
		return nil, bad("sections")
	}
	c.layer, c.typ = map[string]int{}, map[string]int{}
	for i, l := range h.Layers {
		c.layer[l] = i
	}
	for i, t := range h.Types {
		c.typ[t] = i
	}
	return c, nil
}

// Meta is what the index records about its compilation.
func (c *Compiled) Meta() CompiledMeta { return c.h.Meta }

// Close releases the file.
func (c *Compiled) Close() error {
	if c == nil || c.close == nil {
		return nil
	}
	if c.pinned {
		// What was decoded may point into the mapping: the exit unmaps it.
		c.close, c.data = nil, nil
		return nil
	}
	err := c.close()
	// Nothing reads the unmapped file after this (complete, item).
	c.close, c.data = nil, nil
	return err
}

type docEntry struct {
	candOff, candLen, itemOff, itemLen, keyOff, keyLen uint32
	layer, typ, flags                                  uint16
	length, rank                                       float32
}

func (c *Compiled) doc(i int) docEntry {
	b := c.data[c.h.DocTable+int64(i)*docEntrySize:]
	le := binary.LittleEndian
	return docEntry{candOff: le.Uint32(b), candLen: le.Uint32(b[4:]), itemOff: le.Uint32(b[8:]), itemLen: le.Uint32(b[12:]),
		keyOff: le.Uint32(b[16:]), keyLen: le.Uint32(b[20:]), layer: le.Uint16(b[24:]), typ: le.Uint16(b[26:]),
		flags: le.Uint16(b[28:]), length: math.Float32frombits(le.Uint32(b[32:])), rank: math.Float32frombits(le.Uint32(b[36:]))}
}

// slice is a record's bytes, false when they lie outside the records.
func (c *Compiled) slice(off, n uint32) ([]byte, bool) {
	start, end := c.h.Records+int64(off), c.h.Records+int64(off)+int64(n)
	if end > c.h.End {
		return nil, false
	}
	return c.data[start:end], true
}

// key is a document's "path NUL stamp".
func (c *Compiled) key(e docEntry) string { return string(c.keyBytes(e)) }

// keyBytes is key without a copy.
func (c *Compiled) keyBytes(e docEntry) []byte {
	start, end := c.h.Keys+int64(e.keyOff), c.h.Keys+int64(e.keyOff)+int64(e.keyLen)
	if end > c.h.Posts {
		return nil
	}
	return c.data[start:end]
}

// termList is term t's postings of kind: where they start, their number
// and their bound (listBound).
func (c *Compiled) termList(kind byte, t string) (l plist, ok bool) {
	le := binary.LittleEndian
	entry := func(i int) []byte { return c.data[c.h.TermTable+int64(i)*termEntrySize:] }
	// The term's text in the mapped file, compared where it lies: a
	// string of each would be an allocation per step of the search.
	text := func(e []byte) (byte, []byte) {
		o, n := int64(le.Uint32(e)), int64(le.Uint16(e[4:]))
		if c.h.Text+o+n > c.h.Keys {
			return e[6], nil
		}
		return e[6], c.data[c.h.Text+o : c.h.Text+o+n]
	}
	i := sort.Search(c.h.Terms, func(i int) bool {
		k, s := text(entry(i))
		return k > kind || k == kind && string(s) >= t
	})
	if i == c.h.Terms {
		return plist{}, false
	}
	e := entry(i)
	if k, s := text(e); k != kind || string(s) != t {
		return plist{}, false
	}
	l = plist{off: int(le.Uint32(e[8:])), n: int(le.Uint32(e[12:])), bound: math.Float32frombits(le.Uint32(e[16:]))}
	if int64(l.off+l.n)*postingSize > c.h.Records-c.h.Posts {
		return plist{}, false
	}
	return l, true
}

// termAt is the i-th term of the term table and where its postings are.
func (c *Compiled) termAt(i int) (kind byte, t string, off, count int) {
	le := binary.LittleEndian
	e := c.data[c.h.TermTable+int64(i)*termEntrySize:]
	o, n := int64(le.Uint32(e)), int64(le.Uint16(e[4:]))
	if c.h.Text+o+n <= c.h.Keys {
		t = string(c.data[c.h.Text+o : c.h.Text+o+n])
	}
	off, count = int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
	if int64(off+count)*postingSize > c.h.Records-c.h.Posts {
		count = 0
	}
	return e[6], t, off, count
}

// Holds says whether the index holds the document at path with that
// stamp, and its item record: a compile can reuse it whole (Reuse).
func (c *Compiled) Holds(path, stamp string) bool {
	i := sort.Search(c.h.Docs, func(i int) bool {
		p, _, _ := bytes.Cut(c.keyBytes(c.doc(i)), []byte{0})
		return string(p) >= path
	})
	if i == c.h.Docs {
		return false
	}
	e := c.doc(i)
	p, st, _ := bytes.Cut(c.keyBytes(e), []byte{0})
	if string(p) != path || string(st) != stamp || e.itemLen == 0 {
		return false
	}
	_, cok := c.slice(e.candOff, e.candLen)
	_, iok := c.slice(e.itemOff, e.itemLen)
	return cok && iok
}

// postingRaw is posting i as stored.
func (c *Compiled) postingRaw(i int) (doc int, w float32) {
	b := c.data[c.h.Posts+int64(i)*postingSize:]
	return int(binary.LittleEndian.Uint32(b)), math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
}

func (c *Compiled) posting(i int) (doc int, w float64) {
	b := c.data[c.h.Posts+int64(i)*postingSize:]
	return int(binary.LittleEndian.Uint32(b)), float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4:])))
}

// Search answers s as the bleve index would (kb/recallports.go): action
// types and triggers matched whole, words ranked by BM25 over the text
// fields (title, description, id and tags boosted as the index boosts
// them), filters by layer and type, at most s.Limit hits, best first.
func (c *Compiled) Search(s Search) ([]Hit, error) {
	limit := s.Limit
	if limit <= 0 {
		limit = 10
	}
	keep := c.filter(s)
	var order []scored
	if pls, w, first := c.scoring(s); w != nil && !first {
		order = c.bounded(pls, keep, limit, w)
	} else {
		order = c.accumulated(pls, keep, limit, w, first)
	}
	hits := make([]Hit, 0, len(order))
	// The candidates in two allocations, not two per hit (a SessionStart
	// builds a thousand), and the map of paths sized once.
	cands, pres := make([]candidate, len(order)), make([]precomputed, len(order))
	c.mu.Lock()
	if len(c.byPath) == 0 {
		c.byPath = make(map[string]int, len(order))
	}
	c.mu.Unlock()
	var arena []string // the records' lists, cut from a few allocations
	for i, o := range order {
		if s.Known != nil {
			if path, _, _ := strings.Cut(c.key(c.doc(o.doc)), "\x00"); s.Known(path) {
				hits = append(hits, Hit{Path: path, Score: o.score})
				continue
			}
		}
		h, err := c.hit(o.doc, &cands[i], &pres[i], s.Standing, &arena)
		if err != nil {
			return nil, err
		}
		h.Score = o.score
		hits = append(hits, h)
	}
	return hits, nil
}

// weight is a posting's weight in a document's score (pw: the posting's
// own weight, l: its list's index in the lists scoring returned, whose
// idf scoring works out once, not once a posting).
type weight func(d int, pw float64, l int) float64

// scoring is how Search scores s: the postings lists it reads, each
// looked up once, and each posting's weight; first: the lists are in order
// of their weight, best first (the standing and triggered lists). No
// weight: every document counts by its rank.
func (c *Compiled) scoring(s Search) (pls []plist, w weight, first bool) {
	// The postings lists the search reads, each looked up once.
	lists := func(kind byte, terms []string) []plist {
		var out []plist
		for _, t := range terms {
			if l, ok := c.termList(kind, t); ok {
				out = append(out, l)
			}
		}
		return out
	}
	// The rank, kept positive: in the order of the postings, so the first
	// limit documents kept are the best (ties in document order, as
	// scores.top breaks them).
	rank := func(d int, pw float64, _ int) float64 {
		if s.Standing && s.Triggered && c.docFlags(d)&flagTriggered == 0 {
			return 0
		}
		return pw + 1
	}
	switch {
	case len(s.ActionTypes) > 0:
		// Among documents of the same types, the limit keeps those that
		// recurred and matter most (the rank, a millionth of a point: it
		// never outweighs a type), not the first by path: at 100,000
		// observations a common type has more than a limit's worth.
		pls = lists(termAction, dedupe(s.ActionTypes))
		idfs := c.idfs(pls)
		w = func(d int, _ float64, l int) float64 { return idfs[l] + 1e-6*c.docRank(d) }
	case len(s.Words) > 0:
		pls = lists(termWord, queryTerms(s.Words))
		idfs := c.idfs(pls)
		w = func(d int, tf float64, l int) float64 {
			return bm25With(idfs[l], c.h.AvgLen, tf, c.docLength(d))
		}
	case len(s.Anchors) > 0:
		// The rarest anchors first: "as" is in many lessons' code,
		// "flushdb" in one.
		pls = lists(termAnchor, dedupe(s.Anchors))
		idfs := c.idfs(pls)
		w = func(d int, _ float64, l int) float64 { return idfs[l] + 1e-6*c.docRank(d) }
	case s.Standing:
		pls, w, first = lists(termStanding, c.standingTerms(s)), rank, true
	case s.Triggered:
		pls, w, first = lists(termTriggered, []string{""}), rank, true
	}
	return pls, w, first
}

// plist is a term's postings: the offset of the first, their number, and
// their bound (listBound; 0 for the kinds that have none).
type plist struct {
	off, n int
	bound  float32
}

// posting is a document's number and weight in a term's list, as stored.
type posting struct {
	doc uint32
	w   float32
}

// idfs are the lists' idf, by the index of each.
func (c *Compiled) idfs(pls []plist) []float64 {
	out := make([]float64, len(pls))
	for i, l := range pls {
		out[i] = idf(c.h.Docs, float64(l.n))
	}
	return out
}

// BM25's parameters, as bleve's scorer has them.
const bm25K1, bm25B = 1.2, 0.75

// bm25 is what a posting of weight tf in a list of df adds to the score
// of a document of length dl, among docs documents of mean length avg.
func bm25(docs int, avg, df, tf float64, dl float32) float64 {
	return bm25With(idf(docs, df), avg, tf, dl)
}

// bm25With is bm25 with the list's idf worked out: the same float, bit
// for bit, so that the compile's bounds (listBound) hold at search time.
func bm25With(idf, avg, tf float64, dl float32) float64 {
	norm := 1.0
	if avg > 0 {
		norm = 1 - bm25B + bm25B*float64(dl)/avg
	}
	return idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
}

// idf is BM25's inverse document frequency of a term in df of docs
// documents.
func idf(docs int, df float64) float64 {
	n := float64(docs)
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// rarity is what a posting of an action type or an anchor in a list of
// df adds to the score of a document of standing rank rank: the list's
// idf, and a millionth of the rank (the types a document shares with
// the call count first, then how much it matters).
func rarity(docs int, df, rank float64) float64 { return idf(docs, df) + 1e-6*rank }

// listBound is the most one of a term's postings adds to a document's
// score (w of the document, its weight and the list's length), as a
// float32 no smaller: what lets bounded skip the documents of common
// words and types. The compile stores it in the term table.
func listBound(ps []posting, w func(d int, pw, df float64) float64) float32 {
	m := 0.0
	for _, p := range ps {
		m = max(m, w(int(p.doc), float64(p.w), float64(len(ps))))
	}
	b := float32(m)
	if float64(b) < m {
		b = math.Nextafter32(b, math.MaxFloat32)
	}
	return b
}

// bounded scores the documents of lists in document order in one pass
// over them all, a document at a time, and keeps the best limit, with
// dynamic pruning (MaxScore: Turtle and Flood, "Query evaluation:
// strategies and optimizations", 1995). Once the best limit are found,
// the lists whose bounds (plist.bound, listBound) add up to less than the
// weakest of them cannot bring a document in on their own: only the
// documents of the other lists are visited, and the weak lists are read
// at those documents (a jump, not a walk), stopping when what they could
// still add would not be enough. At 100,000 observations a long Write's
// word search read every posting of its common words, and each posting's
// document length, at random in the doc table.
//
// A document's score is the sum of its postings' positive weights in the
// order of the lists, as accumulated adds them, so both give the same
// scores to the bit, and a document is left out only when its bound is
// below the weakest kept. Nothing of the index's size is allocated or
// touched: in a new process, the score table of a search that reads many
// postings was a page fault on most of its 800 KB at 100,000 documents.
func (c *Compiled) bounded(pls []plist, keep func(int) bool, limit int, w weight) []scored {
	n := len(pls)
	ub := make([]float64, n)
	ord := make([]int, n) // the lists, weakest bound first
	total := 0
	for i, l := range pls {
		ub[i] = float64(l.bound) * (1 + 1e-9) // above the rounding of any sum
		ord[i] = i
		total += l.n
	}
	slices.SortStableFunc(ord, func(a, b int) int { return cmp.Compare(ub[a], ub[b]) })
	upto := make([]float64, n+1) // upto[k]: the bounds of ord[:k] added
	for k, i := range ord {
		upto[k+1] = upto[k] + ub[i]
	}
	next := make([]int, n)
	part := make([]float64, n) // the document's weight from each list
	b := bestOf(limit, total)
	weak := 0 // ord[:weak] cannot bring a document in alone
	for {
		if len(b.h) == limit {
			theta := b.h[0].score
			for weak < n && upto[weak+1] < theta {
				weak++
			}
		}
		d := -1
		for _, i := range ord[weak:] {
			if next[i] < pls[i].n {
				if pd, _ := c.posting(pls[i].off + next[i]); d < 0 || pd < d {
					d = pd
				}
			}
		}
		if d < 0 {
			break
		}
		ok := keep(d)
		clear(part)
		have := 0.0
		for _, i := range ord[weak:] {
			for next[i] < pls[i].n {
				pd, pw := c.posting(pls[i].off + next[i])
				if pd != d {
					break
				}
				next[i]++
				if !ok {
					continue
				}
				if x := w(d, pw, i); x > 0 {
					part[i] += x
					have += x
				}
			}
		}
		if !ok {
			continue
		}
		for k := weak - 1; k >= 0; k-- {
			if len(b.h) == limit && have+upto[k+1] < b.h[0].score {
				break // the weak lists left cannot bring it in
			}
			i := ord[k]
			next[i] = c.seek(pls[i], next[i], d)
			for next[i] < pls[i].n {
				pd, pw := c.posting(pls[i].off + next[i])
				if pd != d {
					break
				}
				next[i]++
				if x := w(d, pw, i); x > 0 {
					part[i] += x
					have += x
				}
			}
		}
		var sum float64
		for _, x := range part {
			sum += x
		}
		if sum > 0 {
			b.offer(scored{d, sum})
		}
	}
	return b.sorted()
}

// seek is the first posting of l from from on whose document is d or
// after: a gallop, then a binary search.
func (c *Compiled) seek(l plist, from, d int) int {
	doc := func(i int) int { pd, _ := c.posting(l.off + i); return pd }
	if from >= l.n || doc(from) >= d {
		return from
	}
	lo, step := from, 1 // doc(lo) < d
	for lo+step < l.n && doc(lo+step) < d {
		lo += step
		step *= 2
	}
	hi := min(lo+step, l.n) // doc(hi) >= d, or the end
	return lo + 1 + sort.Search(hi-lo-1, func(k int) bool { return doc(lo+1+k) >= d })
}

// accumulated scores the documents of lists in a table (scratch) and keeps
// the best limit: with first set, the lists are in order of their weight,
// best first, and only the first limit documents that count are read;
// with no w, every document kept by keep counts by its rank.
func (c *Compiled) accumulated(pls []plist, keep func(int) bool, limit int, w weight, first bool) []scored {
	visits := c.h.Docs
	if w != nil {
		visits = 0
		for _, l := range pls {
			visits += l.n
		}
	}
	acc := c.scratch(visits)
	defer c.release(acc)
	if w == nil {
		for d := range c.h.Docs {
			if keep(d) {
				acc.add(d, float64(c.doc(d).rank)+1)
			}
		}
		return acc.top(limit)
	}
	for li, l := range pls {
		counted := 0 // of this list: each list gives its best limit (first)
		for i := l.off; i < l.off+l.n; i++ {
			if d, pw := c.posting(i); keep(d) {
				before := len(acc.touched)
				acc.add(d, w(d, pw, li))
				counted += len(acc.touched) - before
				if first && counted >= limit {
					break
				}
			}
		}
	}
	return acc.top(limit)
}

// eachStanding visits the documents a new session may start with (the
// standing list, Search's Standing) of s.Layers and s.DocTypes, best first
// (standingRank, the order Engine.readStanding relies on), each as a
// standing candidate (standingRecord: completed by candidate.load), until
// visit returns false. Unlike Search it has no limit: the caller stops
// when it has what it reads, after a few dozen documents, not a thousand.
func (c *Compiled) eachStanding(s Search, visit func(*candidate) bool) error {
	var lists []plist
	for _, t := range c.standingTerms(s) {
		if s.Project == "" {
			if l, ok := c.termList(termStanding, t); ok {
				lists = append(lists, l)
			}
			continue
		}
		types := s.DocTypes
		if len(types) == 0 {
			types = c.h.Types
		}
		for _, typ := range dedupe(types) {
			if l, ok := c.termList(termWideStanding, t+"\x00"+typ); ok {
				lists = append(lists, l)
			}
		}
		if t == LayerObservations {
			for _, pk := range projectStandingKeys(s.Project) {
				if l, ok := c.termList(termOwnStanding, pk); ok {
					lists = append(lists, l)
				}
			}
		}
	}
	keep := c.filter(s)
	c.mu.Lock()
	if c.byPath == nil {
		c.byPath = map[string]int{}
	}
	c.mu.Unlock()
	// The layers' lists merged best first (rank, then document), as one
	// list of every layer was.
	next := make([]int, len(lists))
	last, lastW := -1, float64(0)
	for {
		best, bd, bw := -1, 0, float64(0)
		for j, l := range lists {
			if next[j] >= l.n {
				continue
			}
			if d, w := c.posting(l.off + next[j]); best < 0 || w > bw || w == bw && d < bd {
				best, bd, bw = j, d, w
			}
		}
		if best < 0 {
			return nil
		}
		next[best]++
		d := bd
		if d == last && bw == lastW {
			continue // the same preference under two of the project's keys
		}
		last, lastW = d, bw
		if !keep(d) {
			continue
		}
		cand := new(candidate)
		if _, err := c.hit(d, cand, nil, true, nil); err != nil {
			return err
		}
		if !visit(cand) {
			return nil
		}
	}
}

// standingTerms are the standing lists a search reads: those of its
// layers, or of every layer.
func (c *Compiled) standingTerms(s Search) []string {
	if len(s.Layers) > 0 {
		return dedupe(s.Layers)
	}
	return c.h.Layers
}

// scores accumulates the scores of the documents a search touches.
type scores struct {
	s       []float64       // by document; 0: not touched
	m       map[int]float64 // instead of s, for a search of few postings
	touched []int
}

// scratch is a zeroed scores for one search that reads visits postings.
// A search of few postings in a large index keeps its scores in a map: an
// array of the index's size is 800 KB at 100,000 documents, which a new
// process pays for in page faults on every page a scattered posting
// touches. Otherwise it is the array the last search released when no
// other search holds it: a hook makes a few searches in a row, and one
// array serves them all.
func (c *Compiled) scratch(visits int) *scores {
	if visits*sparseScores < c.h.Docs {
		return &scores{m: make(map[int]float64, visits)}
	}
	c.mu.Lock()
	a := c.free
	c.free = nil
	c.mu.Unlock()
	if a == nil {
		a = &scores{s: make([]float64, c.h.Docs)}
	}
	return a
}

// sparseScores: a search keeps its scores in a map when it reads fewer
// postings than the index's documents over this. A page of the array
// holds 512 documents' scores, so scattered postings fault in nearly
// every page of it down to about one posting in 512 documents; a map
// write costs a small fraction of a fault (estimated, and measured as a
// whole by bench/hooks.sh at 100k).
var sparseScores = 32 // a variable for the test that compares both ways

// release zeroes what a search touched and keeps a for the next.
func (c *Compiled) release(a *scores) {
	if a.s == nil {
		return
	}
	for _, d := range a.touched {
		a.s[d] = 0
	}
	a.touched = a.touched[:0]
	c.mu.Lock()
	c.free = a
	c.mu.Unlock()
}

func (a *scores) add(d int, w float64) {
	if w <= 0 {
		return
	}
	if a.s == nil {
		v, ok := a.m[d]
		if !ok {
			a.touched = append(a.touched, d)
		}
		a.m[d] = v + w
		return
	}
	if a.s[d] == 0 {
		a.touched = append(a.touched, d)
	}
	a.s[d] += w
}

// score is document d's score.
func (a *scores) score(d int) float64 {
	if a.s == nil {
		return a.m[d]
	}
	return a.s[d]
}

type scored struct {
	doc   int
	score float64
}

// before orders the best first, then by document number.
func (x scored) before(y scored) bool {
	return x.score > y.score || x.score == y.score && x.doc < y.doc
}

// top returns the best limit documents, best first: a bounded heap over
// the touched ones, so a common word that touches most of a large KB costs
// one pass, not a sort of every document it touched.
func (a *scores) top(limit int) []scored {
	b := bestOf(limit, len(a.touched))
	for _, d := range a.touched {
		b.offer(scored{d, a.score(d)})
	}
	return b.sorted()
}

// best keeps the best limit of the documents offered to it: a min-heap,
// h[0] the worst kept.
type best struct {
	h     []scored
	limit int
}

func bestOf(limit, n int) *best { return &best{h: make([]scored, 0, min(limit, n)), limit: limit} }

func (b *best) offer(x scored) {
	h := b.h
	switch {
	case len(h) < b.limit:
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !h[p].before(h[i]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		b.h = h
	case x.before(h[0]):
		h[0] = x
		for i := 0; ; {
			l, r, w := 2*i+1, 2*i+2, i
			if l < len(h) && h[w].before(h[l]) {
				w = l
			}
			if r < len(h) && h[w].before(h[r]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
}

// sorted is what b kept, best first (ties by document number).
func (b *best) sorted() []scored {
	slices.SortFunc(b.h, func(x, y scored) int {
		if x.before(y) {
			return -1
		}
		if y.before(x) {
			return 1
		}
		return 0
	})
	return b.h
}

// filter is the layer and type filter of s over document numbers.
func (c *Compiled) filter(s Search) func(int) bool {
	// set is the names' numbers as a table, nil for every one (no names,
	// or all of the index's).
	set := func(names []string, ix map[string]int) []bool {
		if len(names) == 0 {
			return nil
		}
		m, n := make([]bool, len(ix)), 0
		for _, name := range names {
			if i, ok := ix[name]; ok && !m[i] {
				m[i] = true
				n++
			}
		}
		if n == len(ix) {
			return nil
		}
		return m
	}
	layers, types := set(s.Layers, c.layer), set(s.DocTypes, c.typ)
	in := func(m []bool, i uint16) bool { return m == nil || int(i) < len(m) && m[i] }
	return func(d int) bool {
		if d < 0 || d >= c.h.Docs {
			return false
		}
		if layers == nil && types == nil {
			return true
		}
		b := c.data[c.h.DocTable+int64(d)*docEntrySize+24:]
		return in(layers, binary.LittleEndian.Uint16(b)) && in(types, binary.LittleEndian.Uint16(b[2:]))
	}
}

// docLength is document d's length (its docEntry's), read alone.
func (c *Compiled) docLength(d int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(c.data[c.h.DocTable+int64(d)*docEntrySize+docLengthAt:]))
}

// docFlags is document d's flags, read alone.
// docRank is a document's standing rank (standingRank).
func (c *Compiled) docRank(d int) float64 {
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(c.data[c.h.DocTable+int64(d)*docEntrySize+docRankAt:])))
}

func (c *Compiled) docFlags(d int) uint16 {
	return binary.LittleEndian.Uint16(c.data[c.h.DocTable+int64(d)*docEntrySize+28:])
}

// hit decodes document d: its hit, with the candidate built when the
// index was compiled, in cand and pre; for a standing search, only what
// Engine.relevant reads of it (standingRecord). The record's lists are
// cut from arena when it is not nil (binrec.Decoder.Arena).
func (c *Compiled) hit(d int, cand *candidate, pre *precomputed, standing bool, arena *[]string) (Hit, error) {
	e := c.doc(d)
	b, ok := c.slice(e.candOff, e.candLen)
	if !ok || int(e.layer) >= len(c.h.Layers) || int(e.typ) >= len(c.h.Types) {
		return Hit{}, errors.New("activation index: a record out of bounds")
	}
	if standing {
		path, _, _ := strings.Cut(c.key(e), "\x00")
		layer, typ := c.h.Layers[e.layer], c.h.Types[e.typ]
		if err := c.standingRecord(b, cand, d, path, layer, typ); err != nil {
			return Hit{}, fmt.Errorf("activation index: record %d: %w", d, err)
		}
		c.mu.Lock()
		c.byPath[path] = d
		c.mu.Unlock()
		return Hit{Path: path, ID: cand.id, Layer: layer, Type: typ, Title: cand.title, Description: cand.description, cand: cand}, nil
	}
	var r candRecord
	if err := r.unmarshalIn(b, c.recString(b), arena); err != nil {
		return Hit{}, fmt.Errorf("activation index: record %d: %w", d, err)
	}
	path, _, _ := strings.Cut(c.key(e), "\x00")
	layer, typ := c.h.Layers[e.layer], c.h.Types[e.typ]
	c.mu.Lock()
	c.byPath[path] = d
	c.mu.Unlock()
	return Hit{Path: path, ID: r.ID, Layer: layer, Type: typ, Title: r.Title, Description: r.Description,
		cand: r.candidate(cand, pre, path, layer, typ, c.h.Meta.TaxonomyKey)}, nil
}

// item decodes the item record of the document at path, one this index
// returned, if the file is still the one it was compiled from (its size
// and time, StampOf, are the stamp the index holds): false otherwise.
func (c *Compiled) item(root, path string) (itemRecord, bool) {
	c.mu.Lock()
	d, ok := c.byPath[path]
	c.mu.Unlock()
	if !ok || c.data == nil {
		return itemRecord{}, false
	}
	e := c.doc(d)
	_, stamp, _ := strings.Cut(c.key(e), "\x00")
	if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(path))); err != nil || stamp == "" || StampOf(st) != stamp {
		return itemRecord{}, false
	}
	b, ok := c.slice(e.itemOff, e.itemLen)
	var r itemRecord
	if !ok || r.unmarshalIn(b, c.recString(b)) != nil {
		return itemRecord{}, false
	}
	return r, true
}

// StampOf is a file's stamp as the activation index records it: its size
// and modification time.
func StampOf(st os.FileInfo) string { return FileStamp(st.Size(), st.ModTime().UnixNano()) }

// FileStamp is the stamp of a file of size bytes modified at mtime (Unix
// ns): how CompileDoc.Stamp is written.
func FileStamp(size, mtime int64) string { return fmt.Sprintf("%d:%d", size, mtime) }

// Files is a Reader over the index's item records of the KB at root: the
// file is read (Files) when the index has no record of it or it changed
// since (a review, a hand edit not yet synced).
func (c *Compiled) Files(root string) Reader { return compiledFiles{c, Files{Root: root}} }

type compiledFiles struct {
	c     *Compiled
	files Files
}

func (f compiledFiles) Observation(path string) (*observations.Observation, error) {
	if r, ok := f.c.item(f.files.Root, path); ok && r.Obs != nil {
		return r.Obs, nil
	}
	return f.files.Observation(path)
}

func (f compiledFiles) Document(path string) (*doc.Document, error) {
	if r, ok := f.c.item(f.files.Root, path); ok && r.Doc != nil {
		d := r.Doc
		return &doc.Document{Path: path, Type: d.Type, Title: d.Title, Description: d.Description, Body: d.Body,
			Created: d.Created, Updated: d.Updated}, nil
	}
	return f.files.Document(path)
}

// analyze is the activation index's analyzer, used alike on the documents
// and on the query: Unicode words (letters, digits, '_', and '.' or an
// apostrophe between two of them, so "timeline.html" and "legacy_flag"
// stay whole), lower-cased, without a possessive "'s", English stop words
// dropped and the rest stemmed (lexicon.Stem); a word with inner '.' or
// '_' is kept whole, unstemmed, and also gives its parts, as the index's
// analyzer does (internal/index, partsFilter).
// docRecords are the records a compile takes from the previous
// activation index for one document.
type docRecords struct {
	cand, item []byte
	prev       int // the document's number in prev, -1: none
}

// compileChunk is the number of documents whose words and candidate
// records Compile computes in parallel before it adds them in order.
const compileChunk = 256

// docWork is what Compile computes for one new or changed document
// before it adds it: its words with their weights, its length, and its
// candidate record (nil when the previous index's is reused).
type docWork struct {
	words   []termWeight
	length  float32
	cand    []byte
	anchors []string // sigAnchors of its candidate
}

type termWeight struct {
	term string
	w    float32
}

// analyzeDocs fills work[i] for each document docs[i] that is not reused
// whole, on every core: its weighted words and, when rec[i] has none, its
// candidate record.
func analyzeDocs(docs []CompileDoc, rec []docRecords, work []docWork, tax *observations.Taxonomy, taxKey string) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(docs), max(1, runtime.GOMAXPROCS(0))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			weights := map[string]float32{}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(docs) {
					return
				}
				work[i] = docWork{}
				d := &docs[i]
				if d.Reuse {
					continue
				}
				if p := d.Pre; p != nil {
					work[i] = docWork{words: unpackWords(p.words), length: p.length, cand: p.cand}
					if p.taxKey != taxKey && rec[i].cand == nil {
						// Precomputed under another taxonomy: the words hold,
						// the candidate is built again.
						r := candRecordOf(candidateOf(d.Hit), tax)
						work[i].cand = r.marshal()
					}
					if b := work[i].cand; b != nil {
						work[i].anchors = recordAnchors(b)
					} else {
						work[i].anchors = recordAnchors(rec[i].cand)
					}
					continue
				}
				work[i] = docWorkOf(d, weights, rec[i].cand == nil, tax)
				if work[i].cand == nil {
					work[i].anchors = recordAnchors(rec[i].cand)
				}
			}
		}()
	}
	wg.Wait()
}

// docWorkOf is the words of d with their weights (counted in weights,
// cleared first) and, with cand (a new or changed document), its
// candidate record: the regexps of a candidate run only here.
func docWorkOf(d *CompileDoc, weights map[string]float32, cand bool, tax *observations.Taxonomy) docWork {
	clear(weights)
	var wk docWork
	add := func(text string, w float32) {
		analyze(text, func(t string) {
			weights[t] += w
			wk.length += w
		})
	}
	add(d.Title, weightTitle)
	add(d.Description, weightDesc)
	for _, id := range append([]string{d.ID}, d.Tags...) {
		if id = strings.ToLower(strings.TrimSpace(id)); id != "" {
			weights[id] += weightID
			wk.length += weightID
		}
	}
	add(d.Body, weightBody)
	wk.words = make([]termWeight, 0, len(weights))
	for t, w := range weights {
		wk.words = append(wk.words, termWeight{t, w})
	}
	if cand {
		r := candRecordOf(candidateOf(d.Hit), tax)
		wk.cand = r.marshal()
		wk.anchors = r.anchors()
	}
	return wk
}

// recordAnchors is the sigAnchors of the candidate record b; nil without
// one.
func recordAnchors(b []byte) []string {
	var r candRecord
	if b == nil || r.unmarshal(b) != nil {
		return nil
	}
	return r.anchors()
}

func analyze(text string, emit func(string)) {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !wordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if wordRune(r) {
				j += n
				continue
			}
			if (r == '.' || r == '\'' || r == '’') && j+n < len(text) {
				if r2, _ := utf8.DecodeRuneInString(text[j+n:]); wordRune(r2) && r2 != '_' {
					j += n
					continue
				}
			}
			break
		}
		if w := text[i:j]; len(w) <= maxCachedWord {
			for _, t := range cachedTerms(w) {
				emit(t)
			}
		} else {
			word(w, emit)
		}
		i = j
	}
}

// termCache maps words to what word makes of them, for analyze, as
// internal/index's analyzer does for bleve (textutil.SlotCache): the
// loaders of a sync analyze on every core, and lower-casing and stemming
// the same few thousand words was a tenth of Precompute.
var termCache = textutil.NewSlotCache[[]string](1 << 15)

// maxCachedWord bounds the words cached (longer ones are rare, and often
// one-off).
const maxCachedWord = 40

// cachedTerms returns the terms of w, from termCache when it holds them.
func cachedTerms(w string) []string {
	if ts, ok := termCache.Get(w); ok {
		return ts
	}
	// The cache keeps copies: a slice of a note's text would keep the
	// whole note alive.
	w = strings.Clone(w)
	var ts []string
	word(w, func(t string) {
		if t != w {
			t = strings.Clone(t)
		}
		ts = append(ts, t)
	})
	termCache.Put(w, ts)
	return ts
}

func wordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// word emits the terms of one word.
func word(w string, emit func(string)) {
	w = strings.ToLower(strings.ReplaceAll(w, "’", "'"))
	w = strings.TrimSuffix(w, "'s")
	if strings.ContainsAny(strings.Trim(w, "._"), "._") {
		emit(w)
		for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '.' || r == '_' }) {
			plainWord(p, emit)
		}
		return
	}
	plainWord(strings.Trim(w, "_"), emit)
}

func plainWord(w string, emit func(string)) {
	w = strings.ReplaceAll(w, "'", "")
	if w == "" || lexicon.StopExtract.Has(w) {
		return
	}
	emit(lexicon.Stem(w))
}

// queryTerms analyzes the words of a Search: a word in double quotes is
// one whole term, lower-cased; any other is analyzed like the documents.
func queryTerms(words []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, w := range words {
		if q, ok := strings.CutPrefix(w, `"`); ok && strings.HasSuffix(q, `"`) && len(q) > 1 {
			q = strings.ToLower(strings.TrimSuffix(q, `"`))
			if strings.ContainsAny(strings.Trim(q, "._"), "._") {
				add(q)
			} else {
				analyze(q, add)
			}
			continue
		}
		analyze(w, add)
	}
	return out
}

func dedupe(v []string) []string {
	out := make([]string, 0, len(v))
	seen := map[string]bool{}
	for _, s := range v {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// fieldStrings, fieldString and fieldNumber read a stored field's value
// (a string, a float64, or a list of them).
func fieldStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func fieldString(v any) string {
	if l := fieldStrings(v); len(l) > 0 {
		return l[0]
	}
	return ""
}

func fieldNumber(v any) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case []float64:
		if len(v) > 0 {
			return v[0]
		}
	case []any:
		if len(v) > 0 {
			f, _ := v[0].(float64)
			return f
		}
	}
	return 0
}

// Changed says why the layer directories under root differ from those the
// index was compiled from ("" when none does): a note added, removed or
// renamed changes its directory's time. An edit in place does not; that
// is seen by the next sync (kb's commands, the watcher).
func (c *Compiled) Changed(root string) string {
	if len(c.h.Meta.Dirs) == 0 {
		return "no directory times recorded"
	}
	if c.path != "" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(c.path), PendingFile)); err == nil {
			return "changes synced by a read command since the last compile"
		}
	}
	for rel, mt := range c.h.Meta.Dirs {
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil || st.ModTime().UnixNano() != mt {
			return rel + " changed since the last sync"
		}
	}
	return ""
}

// projectBound reports whether a standing document stands in a new
// session only when it is of that session's project, so that it is listed
// under its project's keys (ownStandingKeys) and not in the layer's wide
// list: a preference seen once (Engine.standing), and an observation of one
// project or of a session of an unknown directory (outOfScope); neither
// when promoted. At 100,000 observations a new session otherwise walked a
// thousand postings of other projects' lessons to find its own.
func projectBound(layer, typ, status string, sessions float64, projects []string, fromSession bool) bool {
	if layer != LayerObservations || status == observations.StatusPromoted {
		return false
	}
	return typ == observations.TypePreference && sessions < 2 || len(projects) == 1 || len(projects) == 0 && fromSession
}

// ownStandingKeys are the keys a project-bound document is listed under, so
// that projectStandingKeys of any directory inProject with one of its
// projects finds it: each project's path ("s"), each of its ancestors
// ("a") and its name in lower case ("b"); for one without a project, "n"
// when a person wrote it (it stands in every project) and "x" when a
// session of an unknown directory gave it (it stands in none: outOfScope).
func ownStandingKeys(projects []string, fromSession bool) []string {
	if len(projects) == 0 {
		if fromSession {
			return []string{"x"}
		}
		return []string{"n"}
	}
	var out []string
	for _, p := range projects {
		p = path.Clean(slashed(p))
		out = append(out, "s\x00"+p, "b\x00"+strings.ToLower(path.Base(p)))
		for a := path.Dir(p); ; a = path.Dir(a) {
			out = append(out, "a\x00"+a)
			if a == path.Dir(a) {
				break
			}
		}
	}
	return dedupe(out)
}

// projectStandingKeys are the keys to read for a session in dir: the
// preferences without a project, those of dir and its ancestors (dir is
// inside them), of the projects inside dir, and of the projects named as
// dir is.
func projectStandingKeys(dir string) []string {
	dir = path.Clean(slashed(dir))
	out := []string{"n", "a\x00" + dir, "b\x00" + strings.ToLower(path.Base(dir))}
	for a := dir; ; a = path.Dir(a) {
		out = append(out, "s\x00"+a)
		if a == path.Dir(a) {
			break
		}
	}
	return out
}
