package lexicon

import "testing"

func TestNegatedPredicate(t *testing.T) {
	for s, want := range map[string]bool{
		"日本の都市がないね":                    true,
		"福岡って入れても何も返ってこないんだけど":         true,
		"ここのUIが根本的に好きじゃないから0から見直して":    true,
		"この枠は一切いらないね":                  true,
		"挙動が好きではありません。":                true,
		"そこじゃない。戻して":                   true,
		"검색이 안 되네요":                    true,
		"버튼이 없어요":                      true,
		"問題ないね、ありがとう":                  false,
		"悪くないね":                        false,
		"それでいいかもしれない":                  false,
		"これでいいんじゃない？":                  false,
		"もう少し大きくして":                    false,
		"괜찮아요 진행해 주세요":                 false,
		"there are no Japanese cities": false,
		"ないしょ":                         false,
	} {
		if got := NegatedPredicate(s); got != want {
			t.Errorf("NegatedPredicate(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestRequestEnd(t *testing.T) {
	for s, want := range map[string]bool{
		"戻して。":              true,
		"ここ三層構造にして":         true,
		"フォントを小さくしてください":    true,
		"m/dにしよう":           true,
		"버튼을 추가해 주세요":       true,
		"위젯에 하드코딩하지 마세요.":   true,
		"직접 수정하면 안 돼요":      true,
		"本番に直接デプロイしてはいけません": true,
		"버튼이 안 보여요.":        false,
		"日本の都市がないね":         false,
		"これはいいと思います":        false,
		"please do it":      false,
		"先に `make gen` で再生成してね（CI もこうしてる）。": true,
		"스테이징에 먼저 배포해 주세요 (운영은 금요일)":        true,
		"これはいいと思います（たぶん）":                   false,
	} {
		if got := RequestEnd(s); got != want {
			t.Errorf("RequestEnd(%q) = %v, want %v", s, got, want)
		}
	}
}

// A Devanagari vowel sign is part of its word: मत (do not) is not found in
// मति.
func TestDevanagariWords(t *testing.T) {
	if !CueNegation.In("`print(...)` मत करो") || CueNegation.In("उसकी मति अच्छी है") {
		t.Error("Devanagari word boundaries")
	}
	if !CueNegation.In("لا تستخدم sudo هنا") || CueNegation.In("البلاغ جاهز") {
		t.Error("Arabic negation")
	}
}

func FuzzNegatedPredicate(f *testing.F) {
	f.Add("日本の都市がないね")
	f.Add("검색이 안 되네요")
	f.Fuzz(func(t *testing.T, s string) { NegatedPredicate(s); RequestEnd(s) })
}

func TestNegatedStatementStart(t *testing.T) {
	for s, want := range map[string]bool{
		"не тянется картинка": true,
		"не работает":         true,
		"не видно кнопку":     true,
		"не трогай этот файл": false,
		"не делайте так":      false,
		"не пиши тесты":       false,
		"не надо":             false,
		"ні не працює":        false,
		"没有反应":                true,
		"没显示出来":               true,
		"不要改这个":               false,
		"안 나와요":               true,
		"안돼요 이거":              true,
		"안녕하세요":               false,
		"don't change that":   false,
		"nothing shows up":    false,
		"it doesn't work":     false,
	} {
		if got := NegatedStatementStart(s); got != want {
			t.Errorf("NegatedStatementStart(%q) = %v, want %v", s, got, want)
		}
	}
}
