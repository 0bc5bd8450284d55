package reliability

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/kbmem/kb/internal/redact/redacttest"
)

// TestRedactionEndToEnd plants secrets of every kind seen leaking in real
// use into a realistic Claude Code session, imported in two steps (the
// transcript grows between them, as it does under kb watch). Then it runs
// extract and index, commits the KB with go-git, and looks for every part
// of every secret in traces/, the bleve index (raw bytes, stored fields and
// term dictionaries), observations/, .state/ and every git object. It
// prints how many parts of each kind leaked where and fails on any leak.
func TestRedactionEndToEnd(t *testing.T) {
	t.Parallel()
	k := newKB(t)
	base := filepath.Dir(k.Root)
	c := hostileSession()
	dir := filepath.Join(base, "claude", "projects", "-home-dev-shop")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, c.session+".jsonl")
	write(t, src, strings.Join(c.part1, "\n")+"\n")
	k.must(t, "import", src)
	f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(c.part2, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	k.must(t, "import", src)
	k.must(t, "extract", "--all")
	k.must(t, "index")
	commitKB(t, k.Root)

	// The scan must see what it scans: the session is in traces/, and the
	// person's prose made a preference (whose excerpt quotes it).
	obs := readTree(t, filepath.Join(k.Root, "observations"))
	if !strings.Contains(strings.Join(obs, "\n"), "staging database") {
		t.Fatalf("no observation quotes the person's prose; the observations column would prove nothing")
	}

	places := []string{"traces", "index", "observations", "state", "git"}
	content := map[string][]string{
		"traces":       readTree(t, filepath.Join(k.Root, "traces")),
		"index":        indexTexts(t, filepath.Join(k.Root, ".index")),
		"observations": obs,
		"state":        readTree(t, filepath.Join(k.Root, ".state")),
		"git":          gitTexts(t, k.Root),
	}
	for _, p := range places {
		if len(content[p]) == 0 && p != "state" {
			t.Fatalf("%s: nothing to scan", p)
		}
	}
	var tbl strings.Builder
	fmt.Fprintf(&tbl, "%-24s %6s", "kind", "parts")
	for _, p := range places {
		fmt.Fprintf(&tbl, " %12s", p)
	}
	tbl.WriteString("\n")
	leaks := 0
	for _, kind := range c.kinds {
		parts := c.parts[kind]
		fmt.Fprintf(&tbl, "%-24s %6d", kind, len(parts))
		for _, p := range places {
			n := 0
			for _, part := range parts {
				if leaked(content[p], part, p == "index") {
					n++
				}
			}
			leaks += n
			cell := "-"
			if n > 0 {
				cell = fmt.Sprintf("%d", n)
			}
			fmt.Fprintf(&tbl, " %12s", cell)
		}
		tbl.WriteString("\n")
	}
	t.Logf("secret parts leaked, per kind and place (- = none):\n%s", tbl.String())
	if leaks > 0 {
		t.Errorf("%d secret part(s) leaked; see the table", leaks)
	}
}

// leaked reports whether part, or its JSON-escaped form, occurs in any of
// texts. For the index, whose terms are lowercased, the lowercase form
// counts too.
func leaked(texts []string, part string, fold bool) bool {
	forms := []string{part}
	for _, html := range []bool{false, true} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		enc.Encode(part)
		q := strings.TrimSpace(b.String())
		forms = append(forms, q[1:len(q)-1])
	}
	for _, s := range texts {
		for _, f := range forms {
			if strings.Contains(s, f) || fold && strings.Contains(s, strings.ToLower(f)) {
				return true
			}
		}
	}
	return false
}

// readTree returns the contents of the regular files under dir.
func readTree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil {
				out = append(out, string(b))
			}
		}
		return nil
	})
	return out
}

// indexTexts returns what the bleve index under dir holds: the raw bytes
// of its files, the stored fields of every document and every term of
// every field (terms are where a secret hides when stored fields are
// compressed).
func indexTexts(t testing.TB, dir string) []string {
	t.Helper()
	out := readTree(t, dir)
	bi, err := bleve.OpenUsing(filepath.Join(dir, "bleve"), map[string]any{"read_only": true})
	if err != nil {
		t.Fatalf("open the index: %v", err)
	}
	defer bi.Close()
	n, err := bi.DocCount()
	if err != nil || n == 0 {
		t.Fatalf("index: %d docs, %v", n, err)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), int(n), 0, false)
	req.Fields = []string{"*"}
	sr, err := bi.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range sr.Hits {
		b, _ := json.Marshal(h.Fields)
		out = append(out, h.ID, string(b))
	}
	fields, err := bi.Fields()
	if err != nil {
		t.Fatal(err)
	}
	var terms strings.Builder
	for _, f := range fields {
		d, err := bi.FieldDict(f)
		if err != nil {
			t.Fatal(err)
		}
		for {
			e, err := d.Next()
			if err != nil || e == nil {
				break
			}
			terms.WriteString(e.Term)
			terms.WriteByte('\n')
		}
		d.Close()
	}
	return append(out, terms.String())
}

// commitKB commits everything git does not ignore in the KB, through
// go-git, as a user committing their KB would.
func commitKB(t testing.TB, root string) {
	t.Helper()
	r, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "kb-test", Email: "kb@test.invalid", When: time.Date(2025, 12, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit("kb: traces and observations", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

// gitTexts returns the content of every object of the repository at root
// (blobs, trees, commits; loose or packed), decompressed by go-git.
func gitTexts(t testing.TB, root string) []string {
	t.Helper()
	r, err := git.PlainOpen(root)
	if err != nil {
		t.Fatal(err)
	}
	it, err := r.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	it.ForEach(func(o plumbing.EncodedObject) error {
		rd, err := o.Reader()
		if err != nil {
			return err
		}
		defer rd.Close()
		b, err := io.ReadAll(rd)
		if err != nil {
			return err
		}
		out = append(out, string(b))
		return nil
	})
	return out
}

// ---------------------------------------------------------------------------
// The hostile session

type hostile struct {
	session      string
	part1, part2 []string            // transcript lines, imported in two steps
	kinds        []string            // in table order
	parts        map[string][]string // kind -> texts that must not survive
}

// ccLines writes Claude Code JSONL lines for one session.
type ccLines struct {
	session, cwd, branch string
	n                    int
	t                    time.Time
	lines                *[]string
}

func (c *ccLines) line(typ string, msg any, extra map[string]any) string {
	c.n++
	c.t = c.t.Add(7 * time.Second)
	m := map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": c.cwd,
		"sessionId": c.session, "version": "2.1.17", "gitBranch": c.branch, "type": typ,
		"message": msg, "uuid": fmt.Sprintf("u%04d", c.n), "timestamp": c.t.Format(time.RFC3339Nano),
	}
	if c.n > 1 {
		m["parentUuid"] = fmt.Sprintf("u%04d", c.n-1)
	}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	*c.lines = append(*c.lines, string(b))
	return fmt.Sprintf("u%04d", c.n)
}

func (c *ccLines) user(text string) {
	c.line("user", map[string]any{"role": "user", "content": text}, nil)
}

func (c *ccLines) assistant(blocks ...map[string]any) {
	c.line("assistant", map[string]any{"model": "claude-sonnet-4-5-20250929", "id": fmt.Sprintf("msg_%04d", c.n+1), "type": "message",
		"role": "assistant", "content": blocks, "stop_reason": "end_turn", "usage": map[string]int{"input_tokens": 10, "output_tokens": 20}}, nil)
}

func (c *ccLines) say(text string) { c.assistant(map[string]any{"type": "text", "text": text}) }

func (c *ccLines) think(text string) {
	c.assistant(map[string]any{"type": "thinking", "thinking": text, "signature": "EqQBCkYIBxgCKkB0c2lnbmF0dXJl"})
}

// bash runs a command and logs its output, as Claude Code does: the
// tool_result content and the toolUseResult copy of stdout.
func (c *ccLines) bash(cmd, output string) {
	c.tool("Bash", map[string]any{"command": cmd, "description": "Run a command"}, output,
		map[string]any{"stdout": output, "stderr": "", "interrupted": false, "isImage": false})
}

func (c *ccLines) tool(name string, input map[string]any, output string, result any) {
	id := fmt.Sprintf("toolu_%04d", c.n+1)
	c.assistant(map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
	c.line("user", map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": id, "type": "tool_result", "content": output}}},
		map[string]any{"toolUseResult": result})
}

// hostileSession builds the session. Secrets are generated from a fixed
// seed at test time, so the repository holds none.
func hostileSession() hostile {
	rnd := rand.New(rand.NewPCG(12, 6))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	pw := func(n int, extra string) string {
		for {
			b := make([]byte, n)
			for i := range b {
				b[i] = alnum[rnd.IntN(len(alnum))]
			}
			s := string(b)
			if strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(s, "0123456789") {
				if extra != "" {
					i := 3 + rnd.IntN(n-6)
					s = s[:i] + extra + s[i:]
				}
				return s
			}
		}
	}
	fk := redacttest.Fakes()
	h := hostile{session: "7d3e9a41-5b2c-4f80-9a6e-31c0d2b8e4f7", parts: map[string][]string{}}
	add := func(kind string, parts ...string) {
		if _, ok := h.parts[kind]; !ok {
			h.kinds = append(h.kinds, kind)
		}
		h.parts[kind] = append(h.parts[kind], parts...)
	}
	ghBranch := "ghp_" + pw(36, "")
	c := &ccLines{session: h.session, cwd: "/home/dev/shop", branch: "main", t: time.Date(2025, 11, 20, 9, 0, 0, 0, time.UTC), lines: &h.part1}

	// The sixteen common shapes.
	mysqlPW, mongoPW, redisPW, pgpassPW := pw(16, ""), pw(16, ""), pw(20, ""), pw(16, "")
	// People pick passwords like a word and a year: too little entropy
	// for gitleaks' generic rule.
	human := func() string {
		words := []string{"Kestrel", "Juniper", "Harbor", "Falcon", "Meadow"}
		return words[rnd.IntN(len(words))] + fmt.Sprintf("%04d", 1950+rnd.IntN(75)) + "x"
	}
	dockerPW, sshPW, jsonPW, prosePW := pw(18, ""), pw(14, ""), human(), pw(14, "&")
	cookie, pgurlPW, envPW, bearer := pw(32, ""), pw(16, ""), pw(18, ""), pw(40, "")
	pgenvPW, ghTok := pw(16, ""), fk["github-pat"].Text
	awsID, awsSecret := fk["aws-access-key-id"].Text, fk["aws-secret-access-key"].Text

	c.user("Please get the staging deploy going. From now on, use the staging database for the integration tests; the postgres password is " + prosePW + ", don't ask me for it again.")
	add("prose-password", prosePW)
	c.think("The person wants staging. I'll check the database tools first.")
	c.bash("mysql -h db.internal -u root -p"+mysqlPW+" shop -e 'SELECT COUNT(*) FROM orders'", "COUNT(*)\n1204")
	add("mysql-p", mysqlPW)
	c.bash("mongosh --host db.internal --username admin --password "+mongoPW+" --eval 'db.stats().ok'", "1")
	add("password-flag", mongoPW)
	c.bash("redis-cli -u redis://:"+redisPW+"@cache.internal:6379/0 ping", "PONG")
	add("redis-url", redisPW)
	c.bash("echo 'db.internal:5432:billing:billing:"+pgpassPW+"' >> ~/.pgpass && chmod 600 ~/.pgpass && cat ~/.pgpass", "db.internal:5432:billing:billing:"+pgpassPW)
	add("pgpass", pgpassPW)
	c.bash("docker login registry.example.com -u deploy -p "+dockerPW, "WARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded")
	add("docker-login", dockerPW)
	c.bash("sshpass -p '"+sshPW+"' ssh deploy@10.0.4.12 'systemctl is-active app'", "active")
	add("sshpass", sshPW)
	c.bash("curl -s https://config.internal/v1/db", `{"host":"db.internal","user":"svc","password":"`+jsonPW+`","port":5432}`)
	add("json-password", jsonPW)
	c.bash("curl -s -b 'sessionid="+cookie+"' https://app.example.com/api/me", `{"id":42,"name":"dev"}`)
	add("curl-cookie", cookie)
	c.bash("psql 'postgres://app:"+pgurlPW+"@db.internal:5432/app' -c '\\dt'", "        List of relations\n public | orders | table | app")
	add("postgres-url", pgurlPW)
	c.bash("export DB_PASSWORD="+envPW+" && ./scripts/migrate.sh", "migrated 3 tables")
	add("env-password", envPW)
	c.bash("curl -s -H 'Authorization: Bearer "+bearer+"' https://api.example.com/v1/me", `{"login":"dev"}`)
	add("bearer-header", bearer)
	c.bash("cat ~/.aws/credentials", "[default]\naws_access_key_id = "+awsID+"\naws_secret_access_key = "+awsSecret+"\nregion = eu-west-1")
	add("aws-key-id", awsID)
	c.bash("GH_TOKEN="+ghTok+" gh pr list --limit 3", "#12  Fix flaky test  fix/flaky")
	add("github-pat", ghTok)
	c.bash("PGPASSWORD="+pgenvPW+" psql -h db.internal -U app -c 'select 1'", " ?column? \n        1")
	add("pgpassword-env", pgenvPW)
	// A token in the branch name: Claude Code logs gitBranch and cwd on
	// every line; the worktree directory is named after the branch.
	c.branch, c.cwd = "hotfix/"+ghBranch, "/home/dev/wt/hotfix-"+ghBranch
	c.say("I'm on the hotfix branch now.")
	c.bash("git status --short", " M deploy/app.yaml")
	c.branch, c.cwd = "main", "/home/dev/shop"
	add("branch-token", ghBranch)

	// The AWS secret key repeated in a thinking block next to its id.
	c.think("The default profile uses " + awsID + " with secret " + awsSecret + "; I must not print them in my answer.")
	add("aws-secret-in-thinking", awsSecret)

	// curl -u user:password.
	curlPW := pw(16, "")
	c.bash("curl -s -u admin:"+curlPW+" https://jenkins.internal/api/json", `{"mode":"NORMAL"}`)
	add("curl-user", curlPW)

	// A password mentioned before it is assigned, assigned once, then
	// repeated in prose with its hash.
	adminPW := pw(16, "")
	sum := sha256.Sum256([]byte(adminPW))
	md := md5.Sum([]byte(adminPW + "\n"))
	c.think("I'll create the admin account with " + adminPW + " and tell the person afterwards.")
	c.bash("export ADMIN_PASSWORD='"+adminPW+"' && ./scripts/create-admin.sh", "admin created")
	c.bash(`printf %s "$ADMIN_PASSWORD" | sha256sum; echo "$ADMIN_PASSWORD" | md5sum`, hex.EncodeToString(sum[:])+"  -\n"+hex.EncodeToString(md[:])+"  -")
	c.say("Done: the admin account uses " + adminPW + " (SHA-256 " + hex.EncodeToString(sum[:]) + ", MD5 of the line " + hex.EncodeToString(md[:]) + ").")
	add("password-repeated", adminPW)
	add("password-hash", hex.EncodeToString(sum[:]), hex.EncodeToString(md[:]))

	// A key whose base64 is printed after the key itself was seen, and a
	// base64-encoded token printed alone.
	stripe := fk["stripe-live-key"].Text
	c.bash("export STRIPE_SECRET_KEY="+stripe+" && printf %s \"$STRIPE_SECRET_KEY\" | base64 -w0", base64.StdEncoding.EncodeToString([]byte(stripe)))
	add("base64-of-seen-key", base64.StdEncoding.EncodeToString([]byte(stripe)))
	pat := fk["github-fine-grained-pat"].Text
	c.bash("kubectl get secret ci-token -o jsonpath='{.data.token}'", base64.StdEncoding.EncodeToString([]byte(pat)))
	add("base64-alone", base64.StdEncoding.EncodeToString([]byte(pat)))

	// A key wrapped across lines by fold, and a generated secret printed
	// wrapped at 64 columns before it is assigned on one line.
	ant := fk["anthropic-api-key"].Text
	env := "NODE_ENV=production\nANTHROPIC_API_KEY=" + ant + "\nLOG_LEVEL=info\n"
	folded, chunks := fold(env, 64), []string{}
	for _, l := range strings.Split(folded, "\n") {
		if i := strings.Index(l, "="); i >= 0 && strings.HasPrefix(l, "ANTHROPIC") {
			l = l[i+1:]
		}
		if strings.Contains(ant, l) && len(l) >= 8 {
			chunks = append(chunks, l)
		}
	}
	c.bash("fold -w 64 .env.production", folded)
	add("key-split-by-fold", chunks...)
	raw := make([]byte, 96)
	for i := range raw {
		raw[i] = byte(rnd.IntN(256))
	}
	gen := base64.StdEncoding.EncodeToString(raw)
	c.bash("openssl rand -base64 96", gen[:64]+"\n"+gen[64:])
	c.bash("kubectl create secret generic app --from-literal=SESSION_SECRET="+gen, "secret/app created")
	add("wrapped-then-assigned", gen[:64], gen[64:])

	// A private key read with line numbers.
	key := fk["openssh-private-key"]
	var numbered strings.Builder
	for i, l := range strings.Split(key.Text, "\n") {
		fmt.Fprintf(&numbered, "%6d→%s\n", i+1, l)
	}
	c.tool("Read", map[string]any{"file_path": "/home/dev/shop/deploy/id_ed25519"}, numbered.String(),
		map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/shop/deploy/id_ed25519", "content": key.Text}})
	add("private-key", key.Parts...)

	// A password assigned in the first import and repeated after the
	// transcript grew: the second import must remember it.
	smtpPW := pw(16, "")
	c.bash("export SMTP_PASSWORD='"+smtpPW+"' && ./scripts/mail-test.sh", "250 OK")
	c.say("Mail works.")
	c.lines = &h.part2
	c.user("Thanks. Put the SMTP credentials into the runbook.")
	c.say("Added to docs/runbook.md: SMTP user `mailer`, password " + smtpPW + " (rotate monthly).")
	c.think("Also the admin one, " + adminPW + ", but that belongs in the vault.")
	add("repeat-in-next-import", smtpPW)
	return h
}

// fold wraps every line of s at width bytes, as fold -w does.
func fold(s string, width int) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		nl := strings.HasSuffix(l, "\n")
		l = strings.TrimSuffix(l, "\n")
		for len(l) > width {
			b.WriteString(l[:width])
			b.WriteByte('\n')
			l = l[width:]
		}
		b.WriteString(l)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
