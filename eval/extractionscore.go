package eval

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kbmem/kb/internal/textutil"
	"github.com/kbmem/kb/observations"
)

// Scoring: a key's items against the observations of its run, mapped to
// the key's files (extraction.go).

// subset selects the items, and the files or anchors, a SetScore covers.
type subset struct {
	name string
	item func(*keyItem) bool
	file func(string) bool // nil: an observation is in scope when anchored on an item of the subset
}

// scoreKey scores one key against the observations of its run.
func scoreKey(k *extractionKey, obs []*obsView, text map[place]string, limits map[string]int) *KeyScore {
	ks := &KeyScore{Key: k.Path, Name: k.Name, Transcripts: k.Root, Types: slices.Clone(k.Dims), Observations: map[string]int{},
		Misses: []ItemRef{}, FalsePositives: []FalsePositive{}, NoneInCorrection: []ItemRef{}}
	inKey := map[string]bool{}
	for _, f := range k.files {
		if st, err := os.Stat(filepath.Join(k.Root, filepath.FromSlash(f))); err == nil && st.Mode().IsRegular() {
			inKey[f] = true
			if n, ok := limits[f]; ok {
				if ks.LineLimits == nil {
					ks.LineLimits = map[string]int{}
				}
				ks.LineLimits[f] = n
			}
		} else {
			ks.MissingFiles = append(ks.MissingFiles, f)
		}
	}
	ks.Files = len(inKey)
	var items []*keyItem
	for _, it := range k.Items {
		if inKey[it.File] {
			items = append(items, it)
		} else {
			ks.Unscored++
		}
	}
	ks.Items = len(items)
	sc := newScorer(k, items, obs, inKey)
	for _, v := range sc.obs {
		ks.Observations[v.typ]++
	}

	halves := false
	for _, it := range items {
		halves = halves || it.half != ""
	}
	all := subset{name: "all", item: func(*keyItem) bool { return true }, file: func(f string) bool { return inKey[f] }}
	ks.Sets = append(ks.Sets, sc.score(all))
	if halves {
		for _, h := range []string{HalfDev, HalfCheck} {
			ks.Sets = append(ks.Sets, sc.score(subset{name: h, item: func(it *keyItem) bool { return it.half == h },
				file: func(f string) bool { return inKey[f] && halfOf(f) == h }}))
		}
	}
	fileSource := map[string]string{}
	var srcs, langs []string
	for _, it := range items {
		if _, ok := fileSource[it.File]; !ok {
			fileSource[it.File] = it.Source
		}
		if !slices.Contains(srcs, it.Source) {
			srcs = append(srcs, it.Source)
		}
		if !slices.Contains(langs, it.Language) {
			langs = append(langs, it.Language)
		}
	}
	sort.Strings(srcs)
	sort.Strings(langs)
	for _, s := range srcs {
		ks.BySource = append(ks.BySource, sc.score(subset{name: orDash(s), item: func(it *keyItem) bool { return it.Source == s },
			file: func(f string) bool { return inKey[f] && fileSource[f] == s }}))
	}
	for _, l := range langs {
		ks.ByLanguage = append(ks.ByLanguage, sc.score(subset{name: orDash(l), item: func(it *keyItem) bool { return it.Language == l }}))
	}
	for _, f := range k.files {
		if inKey[f] {
			ks.ByFile = append(ks.ByFile, sc.score(subset{name: f, item: func(it *keyItem) bool { return it.File == f },
				file: func(g string) bool { return g == f }}))
		}
	}
	sc.details(ks, text)
	return ks
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// scorer holds a key's items and the observations in its files, with each
// observation's anchors resolved to the key's items.
type scorer struct {
	k     *extractionKey
	items []*keyItem
	obs   []*obsView
	hits  map[*obsView][]*keyItem // keyed anchors
	found map[string]map[*keyItem][]*obsView
}

func newScorer(k *extractionKey, items []*keyItem, all []*obsView, inKey map[string]bool) *scorer {
	sc := &scorer{k: k, items: items, hits: map[*obsView][]*keyItem{}, found: map[string]map[*keyItem][]*obsView{}}
	for _, v := range all {
		in := false
		for f := range v.files {
			in = in || inKey[f]
		}
		if !in {
			continue
		}
		sc.obs = append(sc.obs, v)
		seen := map[*keyItem]bool{}
		for _, a := range v.anchors {
			if !inKey[a.file] {
				continue
			}
			if it := k.lookup(a.file, a.line, a.uuid); it != nil && !seen[it] {
				seen[it] = true
				sc.hits[v] = append(sc.hits[v], it)
			}
		}
		if sc.found[v.typ] == nil {
			sc.found[v.typ] = map[*keyItem][]*obsView{}
		}
		for _, it := range sc.hits[v] {
			sc.found[v.typ][it] = append(sc.found[v.typ][it], v)
		}
	}
	return sc
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

// inScope reports whether observation v belongs to subset s.
func (sc *scorer) inScope(v *obsView, s subset) bool {
	if s.file != nil {
		for f := range v.files {
			if s.file(f) {
				return true
			}
		}
		return false
	}
	for _, it := range sc.hits[v] {
		if s.item(it) {
			return true
		}
	}
	return false
}

// judge reads observation v against scored type dim over the items of s:
// anchored on a positive, on a sure positive, on an unsure item.
func (sc *scorer) judge(v *obsView, dim string, s subset) (pos, surePos, unsure bool) {
	for _, it := range sc.hits[v] {
		if !s.item(it) {
			continue
		}
		p := it.positive(dim, sc.k.prefsFmt)
		pos = pos || p
		surePos = surePos || p && !it.Unsure
		unsure = unsure || it.Unsure
	}
	return
}

func (sc *scorer) score(s subset) SetScore {
	ss := SetScore{Name: s.name, Types: []TypeScore{}, Observations: map[string]int{}}
	var items []*keyItem
	for _, it := range sc.items {
		if s.item(it) {
			items = append(items, it)
		}
	}
	ss.Items = len(items)
	var inScope []*obsView
	for _, v := range sc.obs {
		if sc.inScope(v, s) {
			inScope = append(inScope, v)
			ss.Observations[v.typ]++
		}
	}
	for _, dim := range sc.k.Dims {
		ts := TypeScore{Type: dim}
		r := &ts.Recall
		found := sc.found[obsTypeOf(dim)]
		for _, it := range items {
			if !it.positive(dim, sc.k.prefsFmt) {
				continue
			}
			hit := len(found[it]) > 0
			r.Positives++
			if hit {
				r.Found++
			}
			if !it.Unsure {
				r.PositivesSure++
				if hit {
					r.FoundSure++
				}
			}
		}
		r.Recall, r.RecallSure = ratio(r.Found, r.Positives), ratio(r.FoundSure, r.PositivesSure)
		if dim != dimRule {
			p := &PrecisionScore{}
			for _, v := range inScope {
				if v.typ != obsTypeOf(dim) {
					continue
				}
				pos, surePos, unsure := sc.judge(v, dim, s)
				p.Observations++
				if pos {
					p.Correct++
				}
				if surePos || !unsure {
					p.JudgedSure++
					if surePos {
						p.CorrectSure++
					}
				}
			}
			p.Precision, p.PrecisionSure = ratio(p.Correct, p.Observations), ratio(p.CorrectSure, p.JudgedSure)
			ts.Precision = p
		}
		ss.Types = append(ss.Types, ts)
	}
	if sc.k.labelled(dimCorrection) {
		n := &NoneInCorrection{}
		found := sc.found[observations.TypeCorrection]
		for _, it := range items {
			if it.Label != "none" {
				continue
			}
			hit := len(found[it]) > 0
			if !it.prose() {
				if hit {
					n.Harness++
				}
				continue
			}
			n.LenientOf++
			if hit {
				n.Lenient++
			}
			if !it.Unsure {
				n.SureOf++
				if hit {
					n.Sure++
				}
			}
		}
		ss.NoneInCorrection = n
	}
	return ss
}

// details fills the lists of misses, false positives and none items inside
// a correction, CHECK half withheld.
func (sc *scorer) details(ks *KeyScore, text map[place]string) {
	w := &Withheld{}
	ref := func(it *keyItem) ItemRef {
		t := it.Text
		if t == "" {
			t = text[place{it.File, it.Line}]
		}
		if t == "" && it.EventLine > 0 {
			t = text[place{it.File, it.EventLine}]
		}
		return ItemRef{File: it.File, Line: it.Line, Label: it.Label, Also: strings.Join(it.Also, ","), Unsure: it.Unsure, Kind: it.Kind,
			Language: it.Language, Half: it.half, Text: textutil.FirstRunes(strings.Join(strings.Fields(t), " "), 80)}
	}
	if sc.k.prefsFmt {
		ref0 := ref
		ref = func(it *keyItem) ItemRef {
			r := ref0(it)
			switch {
			case it.Pref:
				r.Label = dimPreference
			case it.Dec:
				r.Label = dimDecision
			}
			return r
		}
	}
	for _, dim := range sc.k.Dims {
		found := sc.found[obsTypeOf(dim)]
		for _, it := range sc.items {
			if !it.positive(dim, sc.k.prefsFmt) || len(found[it]) > 0 {
				continue
			}
			if it.half == HalfCheck {
				w.Misses++
				continue
			}
			r := ref(it)
			r.Type = dim
			for _, typ := range sortedKeys(sc.found) {
				if len(sc.found[typ][it]) > 0 {
					r.Types = append(r.Types, typ)
				}
			}
			ks.Misses = append(ks.Misses, r)
		}
	}
	all := subset{item: func(*keyItem) bool { return true }}
	for _, dim := range sc.k.Dims {
		if dim == dimRule {
			continue
		}
		for _, v := range sc.obs {
			if v.typ != dim {
				continue
			}
			if pos, _, _ := sc.judge(v, dim, all); pos {
				continue
			}
			check := false
			for f := range v.files {
				check = check || halfOf(f) == HalfCheck
			}
			if check {
				w.FalsePositives++
				continue
			}
			fp := FalsePositive{ID: v.id, Type: v.typ, Author: v.author, Summary: textutil.FirstRunes(v.summary, 160), Anchors: []AnchorRef{}}
			for _, a := range v.anchors {
				ar := AnchorRef{File: a.file, Line: a.line}
				if it := sc.k.lookup(a.file, a.line, a.uuid); it != nil {
					ar.Line = it.Line // the key's line (a Codex record may be its event line)
					ar.Keyed, ar.Label, ar.Unsure = true, ref(it).Label, it.Unsure
					if ar.Label == "" {
						ar.Label = "none"
					}
				}
				fp.Anchors = append(fp.Anchors, ar)
			}
			switch {
			case len(v.anchors) == 0:
				fp.Reason = "no person message among its sources (assistant text or tool output)"
			case len(sc.hits[v]) == 0:
				fp.Reason = "anchored on no keyed message (harness or unkeyed records only)"
			default:
				fp.Reason = "anchored only on messages the key does not label " + dim
			}
			ks.FalsePositives = append(ks.FalsePositives, fp)
		}
	}
	if sc.k.labelled(dimCorrection) {
		found := sc.found[observations.TypeCorrection]
		for _, it := range sc.items {
			if it.Label != "none" || !it.prose() || len(found[it]) == 0 {
				continue
			}
			if it.half == HalfCheck {
				w.NoneInCorrection++
				continue
			}
			r := ref(it)
			for _, v := range found[it] {
				r.Observations = append(r.Observations, v.id)
			}
			ks.NoneInCorrection = append(ks.NoneInCorrection, r)
		}
	}
	if *w != (Withheld{}) {
		ks.Withheld = w
	}
}
