package observations

import (
	"github.com/kbmem/kb/internal/textutil"
	"strings"
	"testing"
)

// An answer to the question the agent closed with, when the question lays
// the alternatives out, is a decision between them, in any language; an
// answer to a request for leave, to a menu item, or a request back is none.
func TestSettledQuestion(t *testing.T) {
	decided := func(agent, reply string) []*Observation {
		s := (&ccFixture{}).user("plan the roles feature").say(agent).user(reply).say("Noted.").session(t)
		var out []*Observation
		for _, o := range ofType(Extract(s, nil, nil), TypeDecision) {
			if o.Description == "Answer to the agent's question" {
				out = append(out, o)
			}
		}
		return out
	}
	for _, c := range []struct{ agent, reply, chosen string }{
		{"Round 7. When an admin removes a permission, should the backend block the save too, or is it enough that the page refreshes?",
			"enough that the page refreshes and they lose access from then on", "enough that the page refreshes"},
		{"Should a user be allowed to have multiple functional roles at once?", "yes user can have multiple roles at once", "yes user can"},
		{"导出的时候用 CSV 还是 Excel 格式？", "用 CSV 格式就行", "CSV"},
		{"Хранить сессии в Redis или в Postgres?", "в Postgres, Redis у нас нет", "Postgres"},
	} {
		ds := decided(c.agent, c.reply)
		if len(ds) != 1 || !strings.Contains(ds[0].Chosen, c.chosen) || ds[0].Question == "" {
			t.Errorf("%q -> %q: %+v", c.agent, c.reply, ds)
		}
	}
	for _, c := range []struct{ agent, reply string }{
		{"Done. Would you like me to add a CLI command, or improve the styling?", "yes do the CLI command"},
		{"Next steps:\n- Add a CLI `opk install`?\n- Add icons or improve styling of the table?", "ok add icons"},
		{"Should I commit the changes now?", "yes commit the changes"},
		{"Should the export use CSV or Excel?", "can you explain the difference between CSV and Excel first"},
		{"| name | ok? |\n| export CSV or Excel? |", "CSV export"},
	} {
		if ds := decided(c.agent, c.reply); len(ds) != 0 {
			t.Errorf("%q -> %q: %+v", c.agent, c.reply, ds)
		}
	}
}

// Japanese and Korean name the option turned down before the contrast
// word ("XではなくY", "X 말고 Y"): the decision chooses what follows it.
func TestContrastTurnedDownFirst(t *testing.T) {
	for _, c := range []struct{ msg, chosen string }{
		{"SQLiteではなく、Postgresを使ってください", "Postgres"},
		{"use Postgres instead of SQLite", "Postgres"},
	} {
		s := (&ccFixture{}).user("set up the database").say("I'll use SQLite for storage.").user(c.msg).say("OK.").session(t)
		ds := ofType(Extract(s, nil, nil), TypeDecision)
		if len(ds) != 1 || !strings.Contains(ds[0].Chosen, c.chosen) || strings.Contains(ds[0].Chosen, "SQLite") {
			t.Errorf("%q: decisions %+v", c.msg, ds)
		}
	}
}

// A way turned down and the way chosen in the next clause, after the
// agent worked, is a decision between the two.
func TestDontThisDoThat(t *testing.T) {
	for _, c := range []struct{ msg, chosen, other string }{
		{"dont build the pipeline in a single file, organize them in multiple files for each stage", "organize them in multiple files for each stage", "build the pipeline in a single file"},
		{"please don't store the token in localStorage, keep it in an httpOnly cookie", "keep it in an httpOnly cookie", "store the token in localStorage"},
	} {
		s := (&ccFixture{}).user("build it").say("I wrote everything in pipeline.py.").user(c.msg).say("OK.").session(t)
		ds := ofType(Extract(s, nil, nil), TypeDecision)
		if len(ds) != 1 || ds[0].Chosen != c.chosen || len(ds[0].Alternatives) != 2 || ds[0].Alternatives[1].Name != c.other {
			t.Errorf("%q: decisions %+v", c.msg, ds)
		}
	}
}

// Go's \b is a boundary of ASCII words: the Cyrillic words of these
// expressions are bounded by letters instead, or they never match.
func TestSettledCyrillicWords(t *testing.T) {
	for re, s := range map[*textutil.LazyRE]string{
		shouldAskRE: "Нужно ли хранить историю?",
		askLeaveRE:  "Мне сделать коммит?",
		askBackRE:   "Можешь проверить логи?",
	} {
		if !re.MatchString(s) {
			t.Errorf("%q does not match %s", s, re.String())
		}
	}
	if askBackRE.MatchString("Невозможешьно") {
		t.Error("askBackRE matches inside a word")
	}
}
