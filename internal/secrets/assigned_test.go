package secrets

import "testing"

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
