package secrets

import (
	"strings"
	"testing"
)

func TestAssigned(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`"ApiKey": "live_wQ8rT5yU2iO9pA3sD6fG1hJ4kL7zX0cV"`, true},
		{`"Billing": "Host=db;Database=billing;Username=app;Password=Yt7#kP2m!qW9zR4x;SslMode=Require"`, true},
		{`pulumi config set app:postmarkServerToken 0b4e7d2a-93c1-4f6e-b8a5-2d7c9e1f3a60 --stack prod`, true},
		{`  app:serviceBusSharedKey: kR3vP9xW2mZ7qL5tN8bC1dF4gH6jK0sAuE2yT6iO9pQ=`, true},
		{`export DB_PASSWORD=s3cretPassw0rd`, true},
		{`SetPassword("Kf9!mqtt-tel3metry")`, true},
		{`wifi_psk: "Rosario#Shed2026"`, true},
		{`dbPassword := "Xk9vQ2mLp4Rt7wZa"`, true},
		{`os.Getenv("DB_PASSWORD")`, false},
		{`"InvoiceDueDays": 21, "ReminderAfterDays": 7`, false},
		{`pulumi config set app:portalMaxReplicas 8 --stack staging`, false},
		{`API_KEY=${API_KEY}`, false},
		{`password: "<your-password>"`, false},
		{`token = os.environ["TOKEN"]`, false},
		{`const tokens = countTokens(text)`, false},
		{`ConnectionStrings__Billing=[REDACTED:kb-env-secret]`, false},
	} {
		if got := Assigned(c.text); got != c.want {
			t.Errorf("Assigned(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func FuzzAssigned(f *testing.F) {
	f.Add(`"password": "hunter2hunter2"`)
	f.Add(`token tok3n_abcdefgh`)
	f.Fuzz(func(t *testing.T, s string) { Assigned(s) })
}

// A URL that is itself a credential carries a secret whatever it is
// named; a plain URL, or one with a placeholder, does not.
func TestCredentialURL(t *testing.T) {
	for text, want := range map[string]bool{
		"SLACK_WEBHOOK_URL: https://hooks.slack.com/services/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": true,
		`url = "https://discord.com/api/webhooks/123456789012/AbCdEfGhIjKlMnOpQrStUvWxYz012345"`:           true,
		"DATABASE_URL=postgres://app:s3cr3tPassw0rd@db.internal:5432/app":                                  true,
		"FEED=https://api.example.com/v1/feed?format=json&api_key=9f8e7d6c5b4a39281706":                    true,
		"FEED_URL = https://waterwebservices.example.nl/services/OphalenLaatsteWaarnemingen":               false,
		"DATABASE_URL=postgres://app:${DB_PASSWORD}@db.internal:5432/app":                                  false,
		"LOG_LEVEL: info": false,
	} {
		if got := Assigned(text); got != want {
			t.Errorf("Assigned(%q) = %v, want %v", text, got, want)
		}
	}
}

// A long text is read line by line: the same answer as whole.
func TestAssignedLongText(t *testing.T) {
	filler := strings.Repeat("value := compute(x, y) // the key question is speed\n", 40)
	if !Assigned(filler + "dbPassword := \"Xk9vQ2mLp4Rt7wZa\"\n" + filler) {
		t.Error("a secret on one line of a long text")
	}
	if Assigned(filler + "dbPassword := os.Getenv(\"DB_PASSWORD\")\n" + filler) {
		t.Error("no secret in a long text")
	}
}

// Reading line by line, and only the lines mayAssign lets through, finds
// what the expression finds on the whole text.
func FuzzAssignedLineWise(f *testing.F) {
	for _, s := range []string{"# the key point of step 1\nAPI_KEY=sk9f8e7d6c5b4a3\n", "token tok3n_abcdefgh", "a\npassword: 'hunter2hunter2'\nb",
		"x = 1  # key\n  secret_access_key: 9a1d4c7e0b3f6a2d\n", "auth_\t(x1234567", "KEY\u212a: abcdefg12", "pwd=\x0babc123456"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := CredentialURL(s) || mayName(strings.ToLower(s)) && assignedIn(s)
		if got := Assigned(s); got != want {
			t.Fatalf("Assigned(%q) = %v, the whole text's expression says %v", s, got, want)
		}
	})
}
