package observations

import (
	"regexp"
	"testing"
)

// sqlBuiltRE is the expression sqlBuilt replaced: sqlBuilt must say what
// it said.
var sqlBuiltRE = regexp.MustCompile(`(?is)\b(select\b(?:[^;\n]*\n){0,3}?[^;\n]*?\bfrom|insert\s+into|update\s+[\w."]+\s+set|delete\s+from)\b(?:[^;\n]*\n){0,4}?[^;\n]*?(['"]\s*\+\s*[\w(]|\+\s*['"]|['"]\s*%\s*[\w(]|['"]\s*\.format\(|\{[a-zA-Z_][\w.]*\}|\$\{|\{\$[a-zA-Z_]|['"]\s*\.\s*\$|#\{)`)

var sqlBuiltCases = []string{
	`q := "SELECT id FROM accounts WHERE name = '" + name + "'"`,
	`q := fmt.Sprintf("SELECT * FROM payments WHERE ref = '%s'", ref)`,
	`row := db.QueryRow("SELECT id FROM accounts WHERE name = $1", name)`,
	"cur.execute(\"\"\"\n  SELECT id,\n    total\n  FROM invoices\n  WHERE org = %s\n\"\"\" % org)",
	"cur.execute(\"\"\"\n  SELECT id,\n  a,\n  b,\n  c\n  FROM invoices WHERE org = '%s'\"\"\" % org)",
	`sql = "select * from t where a = " + a`,
	`sql = "SELECT a FROM t; " + rest`,
	`"INSERT INTO t (a) VALUES ('" + v + "')"`,
	`"INSERT  INTO t (a) VALUES ($1)"`,
	`"UPDATE public."users" SET name = '{name}'".format(name=n)`,
	`"UPDATE users SET name = ?", n`,
	`"DELETE FROM t WHERE id = ${id}"`,
	`"DELETE FROM t WHERE id = ?"`,
	`"delete fromage"`,
	`"selection from" + x`,
	`"preselect from" + x`,
	`select_from = "SELECT a FROM b WHERE c = #{c}"`,
	"SELECT a\nFROM b\nWHERE c = 1\nAND d = 2\nAND e = 3\nAND f = 4\nAND g = '\" + g",
	"SELECT a\nFROM b\nWHERE c = 1\nAND d = 2\nAND e = 3\nAND f = '\" + g",
	"SELECT a,\nb,\nc,\nd,\nFROM t WHERE x = '\" + x",
	"SELECT a,\nb,\nc,\nFROM t WHERE x = '\" + x",
	`$sql = "SELECT * FROM users WHERE id = {$id}";`,
	`$sql = 'SELECT * FROM users WHERE id = ' . $id;`,
	"query = 'SELECT * FROM x WHERE a = '\n  + a",
	`"SeLeCt a FrOm b WhErE c = '" + c`,
	`"update t set"+x`,
	`"updateset t"+x`,
	"x = \"SELECT 1 FROM dual\"\n" + `y = "{name}"`,
	`"UPDATE a.b.c   SET x = 1 WHERE y = " + y`,
	"",
}

func TestSQLBuiltAsTheExpression(t *testing.T) {
	for _, s := range sqlBuiltCases {
		if got, want := sqlBuilt(s), sqlBuiltRE.MatchString(s); got != want {
			t.Errorf("sqlBuilt(%q) = %v, the expression says %v", s, got, want)
		}
	}
}

func FuzzSQLBuilt(f *testing.F) {
	for _, s := range sqlBuiltCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := sqlBuilt(s), sqlBuiltRE.MatchString(s); got != want {
			t.Errorf("sqlBuilt(%q) = %v, the expression says %v", s, got, want)
		}
	})
}
