package redact

import (
	"regexp"
	"strings"
	"testing"
)

var markerRE = regexp.MustCompile(`\[REDACTED:[^\]]+\]`)

// shapeValues are the passwords each shape is tried with: random, chosen
// by a person (a word, digits, a sign) and with the signs shells and URLs
// care about. They are put together at run time so that the source holds
// nothing a scanner would flag.
func shapeValues() []string {
	return []string{
		"Q7fLx9Vt" + "2mKpWz3a",
		"Kestrel" + "1987x",
		"p4ss-W0rd" + "_9Az",
	}
}

// TestTranscriptShapes: the shapes in which passwords and tokens turn up
// in agent transcripts, each with every value of shapeValues. {v} is the
// value; everything else on the line must stay as it was.
func TestTranscriptShapes(t *testing.T) {
	r := newRedactor(t)
	shapes := []struct{ name, text string }{
		{"mysql -p", "mysql -h db.internal -u root -p{v} shop -e 'SELECT 1'"},
		{"mysqldump -p quoted", "mysqldump -uroot -p'{v}' shop > dump.sql"},
		{"--password value", "mongosh --host db.internal --username admin --password {v} --eval 'db.stats()'"},
		{"--password=value", "pg_restore --dbname=app --password={v} dump.sql"},
		{"--api-token value", "deployctl push --api-token {v} ./dist"},
		{"redis url without user", "redis-cli -u redis://:{v}@cache.internal:6379/0 ping"},
		{"redis-cli -a", "redis-cli -h cache.internal -a {v} ping"},
		{".pgpass line", "db.internal:5432:billing:billing:{v}"},
		{".pgpass echo", "echo 'db.internal:5432:billing:billing:{v}' >> ~/.pgpass"},
		{".pgpass wildcard", "*:*:*:postgres:{v}"},
		{"docker login -p", "docker login registry.example.com -u deploy -p {v}"},
		{"sshpass -p", "sshpass -p '{v}' ssh deploy@10.0.4.12 uptime"},
		{"sshpass -p attached", "sshpass -p{v} scp app.tar deploy@host:/srv"},
		{"compact JSON", `{"host":"db","user":"svc","password":"{v}","port":5432}`},
		{"escaped JSON", `"{\"user\":\"svc\",\"db_password\":\"{v}\"}"`},
		{"python dict", `conn = connect(**{'user': 'svc', 'password': '{v}'})`},
		{"prose password is", "the postgres password is {v}, don't ask me again."},
		{"prose password for", "The password for the staging db is {v}."},
		{"prose password colon", "ok so my db password: {v} (rotate it later)"},
		{"curl -b", "curl -s -b 'sessionid={v}{v}' https://app.example.com/api/me"},
		{"cookie header", "curl -H 'Cookie: lang=en; connect.sid={v}{v}' https://app.example.com/"},
		{"set-cookie", "< Set-Cookie: session={v}{v}; Path=/; HttpOnly; Secure"},
		{"sqlcmd -P", "sqlcmd -S db.internal -U sa -P {v} -Q 'SELECT 1'"},
		{"openssl -passin", "openssl rsa -in key.pem -passin pass:{v} -out plain.pem"},
		{"keytool -storepass", "keytool -list -keystore app.jks -storepass {v}"},
		{"smbclient -U", "smbclient //files/share -U admin%{v} -c ls"},
		{"ldapsearch -w", "ldapsearch -x -D cn=admin,dc=acme -w {v} -b dc=acme"},
		{"7z -p", "7z a -p{v} backup.7z data/"},
		{"zip -P", "zip -r -P {v} backup.zip data/ && unzip -P {v} -l backup.zip"},
		{"htpasswd -b", "htpasswd -bc .htpasswd admin {v}"},
	}
	for _, sh := range shapes {
		for _, v := range shapeValues() {
			in := strings.ReplaceAll(sh.text, "{v}", v)
			out, fs := r.String(in)
			if strings.Contains(out, v) {
				t.Errorf("%s: %q survived:\n  in:  %s\n  out: %s", sh.name, v, in, out)
				continue
			}
			if len(fs) == 0 {
				t.Errorf("%s: no finding", sh.name)
			}
			// Only the value goes: the text around it stays.
			if got, want := markerRE.ReplaceAllString(out, ""), strings.ReplaceAll(in, v, ""); got != want {
				t.Errorf("%s: more than the value was removed:\n  in:  %s\n  out: %s", sh.name, in, out)
			}
		}
	}
}

// TestTranscriptShapesClean: text that looks like those shapes but holds
// no secret comes out unchanged.
func TestTranscriptShapesClean(t *testing.T) {
	r := newRedactor(t)
	for _, in := range []string{
		"mkdir -p build/out && ssh -p 2222 deploy@host",
		"docker run -p 8080:80 -p 5432:5432 postgres:16",
		"mysql -h db -u root -p shop < schema.sql",
		"psql --password -h db.internal -U app",
		"echo $PASS | docker login registry.example.com -u deploy --password-stdin",
		"gh auth login --with-token < token.txt",
		"docker build --secret id=npmrc,src=$HOME/.npmrc .",
		"kubectl create secret generic app --from-file=./secrets",
		"vault kv get -field=password secret/app",
		"aws configure set aws_access_key_id $AWS_ACCESS_KEY_ID --profile ci",
		"openssl genrsa -passout env:KEY_PASS -out key.pem 4096",
		"curl -b cookies.txt -c cookies.txt https://example.com/",
		"curl -H 'Cookie: lang=en; theme=dark' https://example.com/",
		"git checkout -b feature/login-form",
		"main.go:12:5: undefined: tokenStore",
		"2025-11-20 10:30:00:123:456 INFO started",
		"0.0.0.0:5432:5432/tcp",
		`{"type":"password","name":"password","required":true,"minLength":12}`,
		`{"max_tokens":"4096","token_type":"bearer"}`,
		"The password is required and the token is base64-encoded.",
		"The password is hashed with sha256 and the password is stored in the vault.",
		"Your password is 8 characters too short; the passphrase is optional.",
		"the password field is validated on submit",
		"Passwords: use the password manager.",
		"--max-tokens 4096 --token-budget 2000 --password-file /run/secrets/db",
		"npm install --save-dev @types/node --auth-type=legacy",
		"pip install tiktoken==0.7.0 'tokenizers==0.19.1'",
		"WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
		"use --token YOUR_TOKEN or --api-key $API_KEY, see --secret-help",
	} {
		out, fs := r.String(in)
		if out != in || len(fs) != 0 {
			t.Errorf("clean text changed (%v):\n  in:  %s\n  out: %s", fs, in, out)
		}
	}
}

// TestKeysCutByLineBreaks: a key folded over lines, with or without an
// assignment, loses every piece; lines that only look alike keep theirs.
func TestKeysCutByLineBreaks(t *testing.T) {
	r := newRedactor(t)
	fk := fakes()
	ant := fk["anthropic-api-key"].Text
	pieces := func(s string, w int) []string {
		var out []string
		for len(s) > w {
			out = append(out, s[:w])
			s = s[w:]
		}
		return append(out, s)
	}
	for _, c := range []struct {
		name, text string
		parts      []string
	}{
		{"fold -w 64 of an .env", foldText("NODE_ENV=production\nANTHROPIC_API_KEY="+ant+"\nLOG_LEVEL=info\n", 64), nil},
		{"bare key wrapped at 76", "Here is the key:\n" + strings.Join(pieces(ant, 76), "\n") + "\nKeep it safe.", pieces(ant, 76)},
		{"numbered lines", "     1→" + strings.Join(pieces(ant, 64), "\n     2→") + "\n", pieces(ant, 64)},
	} {
		out, fs := r.String(c.text)
		if len(fs) == 0 {
			t.Errorf("%s: no finding", c.name)
		}
		parts := c.parts
		if parts == nil {
			for _, l := range strings.Split(foldText("ANTHROPIC_API_KEY="+ant, 64), "\n") {
				parts = append(parts, strings.TrimPrefix(l, "ANTHROPIC_API_KEY="))
			}
		}
		for _, p := range parts {
			if len(p) >= 2 && strings.Contains(out, p) {
				t.Errorf("%s: piece %q survived:\n%s", c.name, p, out)
			}
		}
		for _, keep := range []string{"NODE_ENV=production", "LOG_LEVEL=info", "Keep it safe.", "Here is the key:"} {
			if strings.Contains(c.text, keep) && !strings.Contains(out, keep) {
				t.Errorf("%s: %q was removed:\n%s", c.name, keep, out)
			}
		}
	}
	// A line of a wrap width ending in a digest, then prose: nothing joined
	// makes a secret.
	clean := strings.Repeat("x", 12) + " sha256:" + strings.Repeat("0123456789abcdef", 4)[:56] + "\nDone, the image is pushed.\n"
	if out, fs := r.String(clean); out != clean || len(fs) != 0 {
		t.Errorf("clean wrapped-looking text changed: %v\n%s", fs, out)
	}
	// JSON members are never joined, whatever their lengths.
	in := `{"command":"docker login registry.example.com -u deploy -p ` + "Q7fLx9Vt" + `2mKpWz3aQQ","description":"Run a command"}`
	if out, _ := r.JSON([]byte(in)); !strings.Contains(string(out), `"description":"Run a command"`) {
		t.Errorf("a JSON member was joined to the one before: %s", out)
	}
}

// foldText wraps every line of s at width bytes, as fold -w does.
func foldText(s string, width int) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		for len(l) > width {
			b.WriteString(l[:width] + "\n")
			l = l[width:]
		}
		b.WriteString(l)
	}
	return b.String()
}
