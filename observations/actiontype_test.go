package observations

import (
	"encoding/json"
	"errors"
	"github.com/bmatcuk/doublestar/v4"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func has(types []string, want string) bool { return slices.Contains(types, want) }

func TestClassifyShell(t *testing.T) {
	cases := []struct {
		cmd     string
		want    []string
		notWant []string
		first   string
	}{
		{cmd: "git add -A", want: []string{"git:stage-all"}},
		// The environment named by the directory a script changed into,
		// by a path's names, through a package runner; a look at
		// production is no change of it; an UPDATE with a WHERE updates
		// some rows.
		{cmd: "cd infra/envs/prod && terraform apply -auto-approve", want: []string{"deploy:production", "infra:terraform-apply"}},
		{cmd: "cd infra/envs/staging && terraform apply -auto-approve", want: []string{"infra:terraform-apply"}, notWant: []string{"deploy:production"}},
		{cmd: "kubectl apply -f k8s/prod/api.yaml", want: []string{"deploy:production"}},
		// The same act through whichever tool: creating a long-lived key,
		// changing DNS records (a provider's API through curl, when it
		// writes).
		{cmd: "gcloud iam service-accounts keys create key.json --iam-account etl@p.iam.gserviceaccount.com", want: []string{"secret:create-key"}},
		{cmd: "aws iam create-access-key --user-name ci", want: []string{"secret:create-key"}},
		{cmd: "flarectl dns create --zone example.app --name status --type CNAME --content x.example.com", want: []string{"dns:change"}},
		{cmd: "aws route53 change-resource-record-sets --hosted-zone-id Z1 --change-batch file://c.json", want: []string{"dns:change"}},
		{cmd: `curl -s -X POST "https://api.cloudflare.com/client/v4/zones/$Z/dns_records" --data '{"type":"TXT"}'`, want: []string{"dns:change"}},
		{cmd: `curl -s "https://api.cloudflare.com/client/v4/zones/$Z/dns_records"`, notWant: []string{"dns:change"}},
		{cmd: "skaffold run -p prod", want: []string{"deploy:production"}},
		// A glob in lower case matches either case (smart case): the
		// environment in a CamelCase stack name or a host in capitals;
		// a statement in mixed case.
		{cmd: "cd infra && npx cdk deploy QuaysideProd-Api QuaysideProd-Worker --require-approval never", want: []string{"deploy:production", "infra:terraform-apply"}},
		{cmd: "cd infra && npx cdk deploy QuaysideStaging-Api", want: []string{"infra:terraform-apply"}, notWant: []string{"deploy:production"}},
		{cmd: `sqlcmd -S PROD-SQL-01 -Q "Update dbo.Orders SET Status = 3 WHERE Id = 7"`, want: []string{"deploy:production"}},
		{cmd: `mongosh "mongodb://prod-db/app" --eval "db.users.DELETEMANY({})"`, notWant: []string{"deploy:production"}},
		{cmd: "skaffold render -p prod", notWant: []string{"deploy:production"}},
		// A database client that names production and writes, in any
		// client; reading production is no change of it.
		{cmd: `mysql -h db-primary -u app -p app_production -e "UPDATE customers SET tier = 'gold' WHERE id = 4412"`, want: []string{"deploy:production"}},
		{cmd: `psql "$PROD_DATABASE_URL" -c "delete from sessions where created_at < now()"`, want: []string{"deploy:production"}},
		{cmd: `mongosh "mongodb://prod-db/app" --eval "db.users.deleteMany({inactive: true})"`, want: []string{"deploy:production"}},
		{cmd: `psql "$PROD_DATABASE_URL" -c "SELECT last_update FROM sessions"`, notWant: []string{"deploy:production"}},
		{cmd: `mysql -h staging-db -e "UPDATE t SET a = 1 WHERE id = 2"`, notWant: []string{"deploy:production"}},
		{cmd: "helm template api charts/api -f charts/api/values-prod.yaml", notWant: []string{"deploy:production"}},
		{cmd: "kubectl get pods -n prod", notWant: []string{"deploy:production"}},
		{cmd: "pnpm dlx vercel deploy --prod --yes", want: []string{"deploy:production"}},
		{cmd: "yarn dlx prisma migrate deploy", want: []string{"db:migration"}},
		{cmd: "psql \"$STAGING_URL\" -f db/migrations/0042_add_slots.sql", want: []string{"db:migration"}},
		{cmd: "tctl --namespace shop-prod workflow terminate --workflow_id x", want: []string{"deploy:production"}},
		{cmd: "make cli-release", want: []string{"deploy:publish"}},
		{cmd: `psql -c "UPDATE invoices SET status = 'void' WHERE org_id = 4"`, notWant: []string{"sql:delete-all"}},
		{cmd: `psql -c "UPDATE invoices SET status = 'void', n = 2"`, want: []string{"sql:delete-all"}},
		// A command no pattern knows, by the words it names its action
		// with: targets, subcommands, settings, a project script's name.
		{cmd: "make deploy ENV=prod SVC=billing-api", want: []string{"deploy:production"}},
		{cmd: "just infra-up stage=staging", want: []string{"infra:terraform-apply"}},
		{cmd: "./vendor/bin/sail artisan db:wipe", want: []string{"db:reset"}},
		{cmd: "flutter test test/features/booking", want: []string{"test:run"}},
		// The same action through each ecosystem's own tool.
		{cmd: "cd admin && mix ecto.drop && mix ecto.create", want: []string{"db:reset"}},
		{cmd: "dotnet ef database drop --force", want: []string{"db:reset"}},
		{cmd: "aws sqs purge-queue --queue-url https://sqs.eu-west-1.amazonaws.com/1/orders-dlq", want: []string{"queue:purge"}},
		{cmd: "rabbitmqctl purge_queue invoices", want: []string{"queue:purge"}},
		{cmd: "celery -A proj purge -f", want: []string{"queue:purge"}},
		{cmd: "kafka-consumer-groups --bootstrap-server b:9092 --group g --reset-offsets --to-earliest --all-topics --execute", want: []string{"queue:reset-offsets"}},
		{cmd: "gcloud pubsub subscriptions seek orders-sub --time=2026-01-01T00:00:00Z", want: []string{"queue:reset-offsets"}},
		{cmd: "packer build -var version=1.2 edge.pkr.hcl", want: []string{"docker:build"}},
		{cmd: "DEPLOY_ENV=production ./scripts/release.sh", want: []string{"deploy:production"}},
		{cmd: "bin/console cache:clear --env=prod", want: []string{"deploy:production"}, notWant: []string{"js:console-log"}}, // what code contains is no command's type
		{cmd: "make run", want: nil},
		{cmd: "cat deploy-production.log", want: nil}, // a file read, no action
		{cmd: "git add --all && git commit -m 'wip'", want: []string{"git:stage-all", "git:commit"}},
		{cmd: "cd repo; git add . ", want: []string{"git:stage-all"}},
		{cmd: "git add src/main.go", want: []string{"git:add"}, notWant: []string{"git:stage-all"}},
		{cmd: "git commit -am 'fix'", want: []string{"git:stage-all", "git:commit"}},
		{cmd: "git commit -m 'push --force is bad'", want: []string{"git:commit"}, notWant: []string{"git:push-force", "git:push"}},
		{cmd: "git push -f origin main", want: []string{"git:push-force", "git:push"}, first: "git:push-force"},
		{cmd: "git push --force-with-lease", want: []string{"git:push-force"}},
		{cmd: "git push origin +main", want: []string{"git:push-force"}},
		{cmd: "git -C sub push --force", want: []string{"git:push-force"}},
		{cmd: "git push origin main", want: []string{"git:push"}, notWant: []string{"git:push-force"}},
		{cmd: "git commit --amend --no-edit", want: []string{"git:commit-amend"}, first: "git:commit-amend"},
		{cmd: "git reset --hard HEAD~1", want: []string{"git:reset-hard"}},
		{cmd: "git commit --no-verify -m x", want: []string{"git:no-verify"}},
		// Hooks skipped by the hook managers' own switches.
		{cmd: `HUSKY=0 git commit -m "x"`, want: []string{"git:no-verify", "git:commit"}},
		{cmd: `SKIP=mypy,ruff git commit -m "wip"`, want: []string{"git:no-verify"}},
		{cmd: "env LEFTHOOK=0 git push", want: []string{"git:no-verify"}},
		{cmd: "git -c core.hooksPath=/dev/null commit -m x", want: []string{"git:no-verify"}},
		{cmd: `FOO=1 git commit -m x`, want: []string{"git:commit"}, notWant: []string{"git:no-verify"}},
		// A key-value store flushed, from its client, a container or code.
		{cmd: "redis-cli -h redis.staging.internal FLUSHDB", want: []string{"db:flush-cache"}},
		{cmd: "kubectl --context stg -n app exec redis-0 -- redis-cli FLUSHALL", want: []string{"db:flush-cache"}},
		{cmd: "docker compose exec redis redis-cli flushall", want: []string{"db:flush-cache"}},
		{cmd: `node -e "const c=createClient();await c.connect();await c.flushDb()"`, want: []string{"db:flush-cache"}},
		{cmd: "redis-cli --scan --pattern 'avail:*' | xargs redis-cli unlink", notWant: []string{"db:flush-cache"}},
		// Code a command runs inline is content; the command around it
		// is not.
		{cmd: `bin/rails runner 'Sidekiq.redis(&:flushdb)'`, want: []string{"db:flush-cache"}},
		{cmd: `python -c "import redis; redis.Redis().flushdb()"`, want: []string{"db:flush-cache"}},
		{cmd: `bin/rails runner 'puts User.count'`, want: []string{}, notWant: []string{"db:flush-cache"}},
		// Linters of other ecosystems; app builds uploaded to the stores.
		{cmd: "bin/rubocop -a app/models", want: []string{"lint:run"}},
		{cmd: "bundle exec standardrb --fix", want: []string{"lint:run"}},
		{cmd: "xcrun altool --upload-app -f build/App.ipa -t ios", want: []string{"deploy:publish"}},
		{cmd: "bundle exec fastlane ios beta", want: []string{"deploy:publish"}},
		// Deploys by the tools that name their stage.
		{cmd: "kamal deploy -d production", want: []string{"deploy:production"}},
		{cmd: "npx wrangler deploy --env production", want: []string{"deploy:production"}},
		{cmd: "npx wrangler deploy --env staging", want: []string{"pkg:npm"}, notWant: []string{"deploy:production"}},
		{cmd: "kubectl -n app exec api-0 -- python manage.py migrate", want: []string{"db:migration"}},
		// CocoaPods.
		{cmd: "cd ios && pod install", want: []string{"pkg:install"}},
		{cmd: "npx pod-install ios", want: []string{"pkg:install"}},
		{cmd: "pod update hermes-engine", want: []string{"pkg:upgrade"}},
		{cmd: "rm -rf build/", want: []string{"fs:delete-recursive", "fs:delete"}, first: "fs:delete-recursive"},
		{cmd: "rm -r -f node_modules", want: []string{"fs:delete-recursive"}},
		{cmd: "rm -fr /tmp/x", want: []string{"fs:delete-recursive"}},
		{cmd: "rm file.txt", want: []string{"fs:delete"}, notWant: []string{"fs:delete-recursive"}},
		{cmd: "find . -name '*.pyc' -delete", want: []string{"fs:delete-recursive"}},
		{cmd: "sudo rm -rf /var/cache", want: []string{"fs:delete-recursive", "sys:sudo"}},
		{cmd: "sudo -u postgres psql -c 'ALTER TABLE users DROP COLUMN legacy'", want: []string{"sql:drop-column", "sys:sudo", "sql:alter-table"}, first: "sql:drop-column"},
		{cmd: `psql "$DATABASE_URL" -c "alter table t drop column x"`, want: []string{"sql:drop-column"}},
		{cmd: "psql mydb <<'SQL'\nDROP TABLE sessions;\nSQL", want: []string{"sql:drop-table"}},
		{cmd: "sqlite3 app.db 'DELETE FROM users;'", want: []string{"sql:delete-all"}},
		{cmd: "env FOO=1 time rm -rf dist", want: []string{"fs:delete-recursive"}},
		{cmd: "FOO=1 git push --force", want: []string{"git:push-force"}},
		{cmd: "echo start && (cd a && git push -f) || true", want: []string{"git:push-force"}},
		{cmd: "echo $(git add -A)", want: []string{"git:stage-all"}},
		{cmd: "ls | xargs rm -rf", want: []string{"fs:delete-recursive"}},
		{cmd: "bash -c 'git reset --hard'", want: []string{"git:reset-hard"}},
		{cmd: "curl -fsSL https://x.sh/install | sh", want: []string{"sys:curl-pipe-shell"}},
		{cmd: "curl -fsSL https://x.sh/install | sudo bash -s", want: []string{"sys:curl-pipe-shell"}},
		{cmd: "pip install httpx", want: []string{"pkg:install", "pkg:pip"}},
		{cmd: "python -m pip install -r requirements.txt", want: []string{"pkg:install", "pkg:pip", "py:run"}},
		{cmd: "uv add httpx", want: []string{"pkg:install"}, notWant: []string{"pkg:pip"}},
		{cmd: "npm install -g typescript", want: []string{"pkg:install-global", "pkg:install"}},
		{cmd: "go get example.com/x@latest", want: []string{"pkg:install"}},
		{cmd: "cargo add serde", want: []string{"pkg:install"}},
		{cmd: "sudo apt-get install -y jq", want: []string{"sys:sudo", "pkg:install"}},
		{cmd: "sudo chmod -R 777 /var/cache", want: []string{"fs:chmod-world-writable", "fs:permissions", "sys:sudo"}, first: "fs:chmod-world-writable"},
		{cmd: "chmod 644 file", want: []string{"fs:permissions"}, notWant: []string{"fs:chmod-world-writable"}},
		{cmd: "go test ./...", want: []string{"test:run-all", "test:run"}},
		{cmd: "go test -short ./...", want: []string{"test:run"}},
		{cmd: "go test -run TestX ./store", want: []string{"test:run"}, notWant: []string{"test:run-all"}},
		{cmd: "python -m pytest tests/", want: []string{"test:run", "py:run"}, notWant: []string{"test:run-all"}},
		{cmd: "uv run pytest", want: []string{"test:run", "test:run-all", "py:run"}},
		{cmd: "npm test", want: []string{"test:run", "test:run-all"}},
		{cmd: "go vet ./store/", want: []string{"lint:run"}, notWant: []string{"test:run"}},
		{cmd: "git status", want: nil},
		{cmd: "ls api/proto", want: nil},
		{cmd: "kubectl --context prod-eu apply -f deploy.yaml", want: []string{"deploy:production", "k8s:apply"}},
		{cmd: "kubectl delete pod web-1", want: []string{"k8s:delete"}, notWant: []string{"deploy:production"}},
		{cmd: "terraform apply -auto-approve", want: []string{"infra:terraform-apply"}},
		{cmd: "docker compose down -v", want: []string{"docker:prune"}},
		{cmd: "docker system prune -af", want: []string{"docker:prune"}},
		{cmd: "make generate", want: []string{"code:generate"}},
		{cmd: "echo 'x' > .env", want: []string{"edit:env-file"}},
		{cmd: "sed -i 's/a/b/' package-lock.json", want: []string{"edit:lockfile"}},
		{cmd: "cat > api/gen/x.pb.go <<EOF\npackage gen\nEOF", want: []string{"edit:generated-file"}},
		{cmd: "echo hi | tee CLAUDE.md", want: []string{"edit:agent-instructions"}},
		{cmd: `git commit -m "$(cat <<'EOF'` + "\nDROP COLUMN talk in a message\nEOF\n)\"", want: []string{"git:commit"}, notWant: []string{"sql:drop-column"}},
		// Unparseable: falls back to the tokenizer.
		{cmd: "git push --force 'unterminated", want: []string{"git:push-force"}},
		{cmd: "if then fi ((( rm -rf x", want: []string{"fs:delete-recursive"}},
	}
	for _, c := range cases {
		got := Classify(Action{Command: c.cmd})
		for _, w := range c.want {
			if !has(got, w) {
				t.Errorf("Classify(%q) = %v, missing %s", c.cmd, got, w)
			}
		}
		for _, w := range c.notWant {
			if has(got, w) {
				t.Errorf("Classify(%q) = %v, must not have %s", c.cmd, got, w)
			}
		}
		if c.want == nil && len(got) > 0 {
			t.Errorf("Classify(%q) = %v, want nothing", c.cmd, got)
		}
		if c.first != "" && (len(got) == 0 || got[0] != c.first) {
			t.Errorf("Classify(%q) = %v, want %s first", c.cmd, got, c.first)
		}
		if len(got) != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
			t.Errorf("Classify(%q) = %v has duplicates", c.cmd, got)
		}
	}
}

func TestClassifyCall(t *testing.T) {
	cases := []struct {
		tool, input string
		want        []string
		notWant     []string
	}{
		{"Bash", `{"command":"git push --force origin main","description":"push"}`, []string{"git:push-force"}, nil},
		{"Edit", `{"file_path":"/p/api/gen/transfer.pb.go","old_string":"a","new_string":"b"}`, []string{"edit:generated-file"}, nil},
		{"Edit", `{"file_path":"/p/store/a.go","old_string":"// lookup","new_string":"q := \"SELECT id FROM accounts WHERE name = '\" + name + \"'\""}`, []string{"sql:concat-query"}, nil},
		{"Edit", `{"file_path":"/p/store/a.go","old_string":"x","new_string":"q := fmt.Sprintf(\"SELECT * FROM payments WHERE ref = '%s'\", ref)"}`, []string{"sql:concat-query"}, nil},
		{"Edit", `{"file_path":"/p/store/a.go","old_string":"// lookup","new_string":"row := db.QueryRow(\"SELECT id FROM accounts WHERE name = $1\", name)"}`, nil, []string{"sql:concat-query"}},
		{"Edit", `{"file_path":"/p/client/rates.go","old_string":"x","new_string":"baseURL := \"http://localhost:9000\""}`, []string{"code:hardcoded-host"}, nil},
		{"Edit", `{"file_path":"/p/client/fx.go","old_string":"x","new_string":"endpoint := \"http://127.0.0.1:8081/fx\""}`, []string{"code:hardcoded-host"}, nil},
		{"Edit", `{"file_path":"/p/docs/ledger.md","old_string":"Balances","new_string":"Account balances"}`, []string{"docs:edit"}, []string{"code:hardcoded-host"}},
		{"Edit", `{"file_path":"/p/old_string.py","old_string":"except:","new_string":"pass"}`, nil, []string{"py:broad-except"}},
		{"Write", `{"file_path":"/p/app.py","content":"try:\n    f()\nexcept Exception as e:\n    pass\n"}`, []string{"py:broad-except"}, nil},
		{"MultiEdit", `{"file_path":"/p/web/app.ts","edits":[{"old_string":"a","new_string":"const x: any = 1; console.log(x)"}]}`, []string{"ts:any", "js:console-log"}, nil},
		{"Write", `{"file_path":"/p/yarn.lock","content":"x"}`, []string{"edit:lockfile"}, nil},
		{"Write", `{"file_path":"/p/.env.local","content":"X=1"}`, []string{"edit:env-file"}, nil},
		{"Write", `{"file_path":"/p/vendor/github.com/x/y.go","content":"x"}`, []string{"edit:vendored"}, nil},
		{"Edit", `{"file_path":"/p/tests/test_x.py","old_string":"a","new_string":"@pytest.mark.skip(reason='flaky')\ndef test_x(): pass"}`, []string{"test:skip", "test:modify"}, nil},
		{"Read", `{"file_path":"/p/api/gen/x.pb.go"}`, nil, nil},
		{"Grep", `{"pattern":"rm -rf","path":"/p"}`, nil, nil},
		{"shell", `{"command":["bash","-lc","git add -A && git commit -m x"]}`, []string{"git:stage-all", "git:commit"}, nil},
		{"shell", `{"command":["git","push","--force"]}`, []string{"git:push-force"}, nil},
		{"exec_command", `{"cmd":"rm -rf dist"}`, []string{"fs:delete-recursive"}, nil},
		{"apply_patch", `"*** Begin Patch\n*** Update File: api/gen/a.pb.go\n@@\n-a\n+b\n*** End Patch"`, []string{"edit:generated-file"}, nil},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Add File: src/x.py\n+try:\n+    f()\n+except:\n+    pass\n*** End Patch"}`, []string{"py:broad-except"}, nil},
		{"mcp__db__run", `{"command":"psql -c 'drop table x'"}`, []string{"sql:drop-table"}, nil},
		// Waiting a fixed time; raw colours and sizes instead of tokens.
		{"Edit", `{"file_path":"/p/e2e/a.spec.ts","old_string":"a","new_string":"await page.waitForTimeout(1500);"}`, []string{"code:fixed-sleep"}, nil},
		{"Write", `{"file_path":"/p/tests/test_a.py","content":"import time\ntime.sleep(2)\n"}`, []string{"code:fixed-sleep"}, nil},
		{"Edit", `{"file_path":"/p/cypress/e2e/a.cy.ts","old_string":"a","new_string":"cy.wait('@getCart')"}`, nil, []string{"code:fixed-sleep"}},
		{"Edit", `{"file_path":"/p/src/Card.svelte","old_string":"a","new_string":"<div class=\"h-[218px] bg-[#f4f9fb]\">"}`, []string{"ui:hardcoded-style"}, nil},
		{"Edit", `{"file_path":"/p/app/Card.tsx","old_string":"a","new_string":"card: { backgroundColor: 'rgb(255, 149, 0)' },"}`, []string{"ui:hardcoded-style"}, nil},
		{"Edit", `{"file_path":"/p/src/Card.svelte","old_string":"a","new_string":"<div class=\"h-8 bg-harbor-100\">"}`, nil, []string{"ui:hardcoded-style"}},
		// UI text written into code; SQL built by PHP interpolation; a
		// thread blocked on async work.
		{"Edit", `{"file_path":"/p/ui/Banner.kt","old_string":"a","new_string":"Text(text = \"Sync failed, tap to retry\")"}`, []string{"ui:hardcoded-text"}, nil},
		{"Write", `{"file_path":"/p/lib/chip.dart","content":"return Chip(label: Text('Payment overdue'));"}`, []string{"ui:hardcoded-text"}, nil},
		// Money in floating point, in several languages; names that only
		// contain a money word are not money.
		{"Edit", `{"file_path":"/p/src/invoice.rs","old_string":"a","new_string":"pub struct Line {\n    pub unit_price: f64,\n}"}`, []string{"code:float-money"}, nil},
		{"Edit", `{"file_path":"/p/billing/line.go","old_string":"a","new_string":"type Line struct {\n\tPrice float64\n}"}`, []string{"code:float-money"}, nil},
		{"Write", `{"file_path":"/p/Billing/Discount.cs","content":"public static double ApplyDiscount(double orderTotal) => orderTotal * 0.98;"}`, []string{"code:float-money"}, nil},
		{"Write", `{"file_path":"/p/app/fees.rb","content":"SHIPPING_FEE = 4.90\n"}`, []string{"code:float-money"}, nil},
		{"Edit", `{"file_path":"/p/src/quote.dto.ts","old_string":"a","new_string":"  declaredValueEur!: number;"}`, []string{"code:float-money"}, nil},
		{"Edit", `{"file_path":"/p/shop/models.py","old_string":"a","new_string":"    amount: float = 0.0"}`, []string{"code:float-money"}, nil},
		{"Edit", `{"file_path":"/p/src/pages.ts","old_string":"a","new_string":"  totalPages: number;\n  syntax: number;\n  loadBalancer: string;"}`, nil, []string{"code:float-money"}},
		{"Edit", `{"file_path":"/p/shop/models.py","old_string":"a","new_string":"    amount = models.DecimalField(max_digits=12, decimal_places=2)"}`, nil, []string{"code:float-money"}},
		// A record handed to a background job; its id is fine.
		{"Edit", `{"file_path":"/p/app/services/refund.rb","old_string":"a","new_string":"RefundMailJob.perform_in(10.minutes, refund, current_user)"}`, []string{"job:record-arg"}, nil},
		{"Edit", `{"file_path":"/p/shop/views.py","old_string":"a","new_string":"send_receipt.delay(order)"}`, []string{"job:record-arg"}, nil},
		{"Edit", `{"file_path":"/p/shop/views.py","old_string":"a","new_string":"send_receipt.delay(order.pk)\nsync.apply_async(args=[order_id])\nRefundJob.perform_async(refund.id, ids)"}`, nil, []string{"job:record-arg"}},
		// Translation files a service syncs.
		{"Edit", `{"file_path":"/p/android/app/src/main/res/values-fr/strings.xml","old_string":"a","new_string":"b"}`, []string{"i18n:translation-file"}, nil},
		{"Edit", `{"file_path":"/p/android/app/src/main/res/values/colors.xml","old_string":"a","new_string":"b"}`, nil, []string{"i18n:translation-file"}},
		// Swallowed errors beyond Python.
		{"Edit", `{"file_path":"/p/app/jobs/sync.rb","old_string":"a","new_string":"begin\n  push!\nrescue => e\n  logger.warn(e.message)\nend"}`, []string{"py:broad-except"}, nil},
		{"Edit", `{"file_path":"/p/app/jobs/sync.rb","old_string":"a","new_string":"value = fetch rescue nil"}`, []string{"py:broad-except"}, nil},
		{"Edit", `{"file_path":"/p/src/Sync.java","old_string":"a","new_string":"} catch (Exception e) {\n  log.warn(\"x\", e);\n}"}`, []string{"py:broad-except"}, nil},
		{"Edit", `{"file_path":"/p/src/sync.ts","old_string":"a","new_string":"try { await push() } catch {}"}`, []string{"py:broad-except"}, nil},
		{"Edit", `{"file_path":"/p/src/Sync.java","old_string":"a","new_string":"} catch (IOException e) {\n  throw new SyncException(e);\n}"}`, nil, []string{"py:broad-except"}},
		// Raw palette colours in Flutter, SwiftUI and Compose.
		{"Edit", `{"file_path":"/p/lib/slot.dart","old_string":"a","new_string":"color: tight ? Colors.amber.shade700 : Colors.grey.shade300,"}`, []string{"ui:hardcoded-style"}, nil},
		{"Edit", `{"file_path":"/p/Views/Badge.swift","old_string":"a","new_string":"Text(label).foregroundStyle(Color.red)"}`, []string{"ui:hardcoded-style"}, nil},
		// A stylesheet is where colours are written: a correction made on
		// one is not for that about hard-coded style.
		{"Edit", `{"file_path":"/p/web/badge.css","old_string":"a","new_string":".badge {\n  color: #d9480f;\n}"}`, nil, []string{"ui:hardcoded-style"}},
		// A whole table into memory; NOT IN over a subquery; the older
		// component styles; a path on one machine; a secret under a
		// prefixed name.
		{"Write", `{"file_path":"/p/lib/tasks/a.rake","content":"Invoice.where(state: \"open\").each do |i|\n  i.touch\nend"}`, []string{"db:load-all"}, nil},
		{"Write", `{"file_path":"/p/app/Console/A.php","content":"foreach (Invoice::all() as $i) { $i->touch(); }"}`, []string{"db:load-all"}, nil},
		{"Write", `{"file_path":"/p/lib/tasks/a.rake","content":"Invoice.where(state: \"open\").find_each do |i|\n  i.touch\nend"}`, nil, []string{"db:load-all"}},
		{"Write", `{"file_path":"/p/src/lib.rs","content":"let v: Vec<_> = xs.iter().map(|x| x * 2).collect();"}`, nil, []string{"db:load-all"}},
		{"Write", `{"file_path":"/p/db/views/a.sql","content":"SELECT id FROM users WHERE id NOT IN (SELECT user_id FROM bans)"}`, []string{"sql:not-in-subquery"}, nil},
		{"Write", `{"file_path":"/p/src/components/A.vue","content":"<template><p>{{ n }}</p></template>\n<script>\nexport default {\n  data() { return { n: 1 } },\n}\n</script>\n"}`, []string{"ui:legacy-component"}, nil},
		{"Write", `{"file_path":"/p/src/components/A.vue","content":"<script setup lang=\"ts\">\nconst n = ref(1)\n</script>\n"}`, nil, []string{"ui:legacy-component"}},
		{"Write", `{"file_path":"/p/src/A.jsx","content":"class Cart extends React.Component {\n  render() { return null }\n}"}`, []string{"ui:legacy-component"}, nil},
		{"Edit", `{"file_path":"/p/nb/load.py","old_string":"a","new_string":"df = pd.read_csv(\"/Users/marta/Downloads/assays.csv\")"}`, []string{"code:local-path"}, nil},
		{"Edit", `{"file_path":"/p/config/initializers/mail.rb","old_string":"a","new_string":"api_token: \"f3a9c1e0-7b2d-4e58\""}`, []string{"code:hardcoded-secret"}, nil},
		// A key kb redacted at import was a key.
		{"Edit", `{"file_path":"/p/settings/dev.py","old_string":"a","new_string":"PLAID_SECRET = \"[REDACTED:plaid-secret-key]\""}`, []string{"code:hardcoded-secret"}, nil},
		// Unquoted, as YAML and .env write it; a reference is no secret.
		{"Edit", `{"file_path":"/p/config/storage.yml","old_string":"r2:","new_string":"r2:\n  access_key_id: 7f3c0a9e2b41d8\n  secret_access_key: 9a1d4c7e0b3f6a2d8e5c1b7f4a0d3e9c\n"}`, []string{"code:hardcoded-secret"}, nil},
		{"Write", `{"file_path":"/p/.env.production","content":"export STRIPE_API_KEY=rk9f8e7d6c5b4a3\n"}`, []string{"code:hardcoded-secret"}, nil},
		{"Edit", `{"file_path":"/p/config/storage.yml","old_string":"r2:","new_string":"r2:\n  secret_access_key: <%= Rails.application.credentials.dig(:r2, :secret) %>\n  token_type: bearer\n  password: ${DB_PASSWORD}\n"}`, nil, []string{"code:hardcoded-secret"}},
		{"Edit", `{"file_path":"/p/src/config.ts","old_string":"a","new_string":"const stripeApiKey = \"rk_9f8e7d6c5b4a\";"}`, []string{"code:hardcoded-secret"}, nil},
		// Printing instead of logging; naive time; a Go error formatted,
		// not wrapped; SELECT *; unwrap and its kin; a mutable default;
		// unescaped HTML; a shell built from strings; TLS checks off;
		// field injection; an Ansible shell task; a :latest image; an
		// action by tag; KEYS; sync I/O in async Python.
		{"Edit", `{"file_path":"/p/svc/a.py","old_string":"a","new_string":"    print(f\"synced {n}\")"}`, []string{"code:print"}, nil},
		{"Edit", `{"file_path":"/p/svc/a.go","old_string":"a","new_string":"\tfmt.Println(\"synced\", n)"}`, []string{"code:print"}, nil},
		{"Edit", `{"file_path":"/p/svc/a.go","old_string":"a","new_string":"\tlog.Info(\"synced\", \"n\", n)"}`, nil, []string{"code:print"}},
		{"Edit", `{"file_path":"/p/svc/a.py","old_string":"a","new_string":"created = datetime.now()"}`, []string{"code:naive-time"}, nil},
		{"Edit", `{"file_path":"/p/svc/A.kt","old_string":"a","new_string":"val at = LocalDateTime.now()"}`, []string{"code:naive-time"}, nil},
		{"Edit", `{"file_path":"/p/svc/a.py","old_string":"a","new_string":"created = datetime.now(timezone.utc)"}`, nil, []string{"code:naive-time"}},
		{"Edit", `{"file_path":"/p/svc/a.go","old_string":"a","new_string":"return fmt.Errorf(\"load %s: %v\", id, err)"}`, []string{"go:error-wrap"}, nil},
		{"Edit", `{"file_path":"/p/svc/a.go","old_string":"a","new_string":"return fmt.Errorf(\"load %s: %w\", id, err)"}`, nil, []string{"go:error-wrap"}},
		{"Edit", `{"file_path":"/p/q/a.sql","old_string":"a","new_string":"SELECT * FROM orders WHERE id = $1"}`, []string{"sql:select-star"}, nil},
		{"Edit", `{"file_path":"/p/q/a.sql","old_string":"a","new_string":"SELECT count(*) FROM orders"}`, nil, []string{"sql:select-star"}},
		{"Edit", `{"file_path":"/p/src/a.rs","old_string":"a","new_string":"let cfg = load().unwrap();"}`, []string{"code:panic"}, nil},
		{"Edit", `{"file_path":"/p/src/A.kt","old_string":"a","new_string":"val name = user!!.name"}`, []string{"code:panic"}, nil},
		{"Edit", `{"file_path":"/p/src/a.rs","old_string":"a","new_string":"let cfg = load()?;"}`, nil, []string{"code:panic"}},
		{"Edit", `{"file_path":"/p/svc/a.py","old_string":"a","new_string":"def add(item, into=[]):"}`, []string{"py:mutable-default"}, nil},
		{"Edit", `{"file_path":"/p/web/A.svelte","old_string":"a","new_string":"<div>{@html note.body}</div>"}`, []string{"ui:raw-html"}, nil},
		{"Edit", `{"file_path":"/p/web/a.ts","old_string":"a","new_string":"el.textContent = note.body"}`, nil, []string{"ui:raw-html"}},
		{"Edit", `{"file_path":"/p/svc/a.py","old_string":"a","new_string":"subprocess.run(f\"convert {src} {dst}\", shell=True)"}`, []string{"code:shell-injection"}, nil},
		{"Edit", `{"file_path":"/p/svc/a.py","old_string":"a","new_string":"r = requests.get(url, verify=False)"}`, []string{"code:tls-verify-off"}, nil},
		{"Edit", `{"file_path":"/p/svc/a.go","old_string":"a","new_string":"tls.Config{InsecureSkipVerify: true}"}`, []string{"code:tls-verify-off"}, nil},
		{"Edit", `{"file_path":"/p/src/A.java","old_string":"a","new_string":"@Autowired\nprivate OrderRepository orders;"}`, []string{"code:field-injection"}, nil},
		{"Edit", `{"file_path":"/p/roles/web/tasks/main.yml","old_string":"a","new_string":"- name: install nginx\n  shell: apt-get install -y nginx\n"}`, []string{"ops:shell-task"}, nil},
		{"Edit", `{"file_path":"/p/roles/web/tasks/main.yml","old_string":"a","new_string":"- name: install nginx\n  ansible.builtin.apt:\n    name: nginx\n"}`, nil, []string{"ops:shell-task"}},
		{"Edit", `{"file_path":"/p/k8s/api.yaml","old_string":"a","new_string":"        image: ghcr.io/acme/api:latest"}`, []string{"docker:latest-tag"}, nil},
		{"Edit", `{"file_path":"/p/.github/workflows/ci.yml","old_string":"a","new_string":"      - uses: actions/setup-node@v4"}`, []string{"ci:unpinned-action"}, nil},
		{"Edit", `{"file_path":"/p/.github/workflows/ci.yml","old_string":"a","new_string":"      - uses: actions/setup-node@1d0ff469b7ec7b3cb9d8673fde0c81c44821de2a # v4"}`, nil, []string{"ci:unpinned-action"}},
		{"Edit", `{"file_path":"/p/svc/cache.py","old_string":"a","new_string":"for k in r.keys(\"session:*\"):"}`, []string{"db:keys-scan"}, nil},
		{"Edit", `{"file_path":"/p/api/routes.py","old_string":"a","new_string":"async def rates():\n    r = requests.get(URL)\n    return r.json()"}`, []string{"code:blocking-call"}, nil},
		// A force unwrap in Swift and TypeScript; the older SwiftUI
		// observation; tokens in plain storage; a string catalog; SQL by
		// template substitution; Liquibase through Maven; cdk on prod.
		{"Edit", `{"file_path":"/p/Sources/App/C.swift","old_string":"a","new_string":"let invoice = try await Invoice.find(id, on: req.db)!"}`, []string{"code:panic"}, nil},
		{"Edit", `{"file_path":"/p/src/a.ts","old_string":"a","new_string":"const el = document.getElementById('x')!.value;"}`, []string{"code:panic"}, nil},
		{"Edit", `{"file_path":"/p/src/a.ts","old_string":"a","new_string":"if (!ready && a !== b) { vec![1]; println!(\"Done!\"); }"}`, nil, []string{"code:panic"}},
		{"Write", `{"file_path":"/p/ios/Vm.swift","content":"final class Vm: ObservableObject {\n    @Published var items: [Item] = []\n}"}`, []string{"ui:legacy-component"}, nil},
		{"Write", `{"file_path":"/p/ios/Session.swift","content":"@AppStorage(\"accessToken\") var accessToken: String = \"\""}`, []string{"secret:plain-storage"}, nil},
		{"Edit", `{"file_path":"/p/web/auth.ts","old_string":"a","new_string":"localStorage.setItem('refresh_token', t)"}`, []string{"secret:plain-storage"}, nil},
		{"Edit", `{"file_path":"/p/web/ui.ts","old_string":"a","new_string":"localStorage.setItem('theme', 'dark')"}`, nil, []string{"secret:plain-storage"}},
		{"Edit", `{"file_path":"/p/ios/App/Resources/Localizable.xcstrings","old_string":"a","new_string":"b"}`, []string{"i18n:translation-file"}, nil},
		{"Edit", `{"file_path":"/p/src/main/resources/mapper/A.xml","old_string":"a","new_string":"ORDER BY ${orderBy}"}`, []string{"sql:concat-query"}, nil},
		{"Edit", `{"file_path":"/p/src/main/resources/mapper/A.xml","old_string":"a","new_string":"WHERE ID = #{id}"}`, nil, []string{"sql:concat-query"}},
		{"Bash", `{"command":"./mvnw -pl batch liquibase:clearCheckSums"}`, []string{"db:migration"}, nil},
		{"Bash", `{"command":"cd infra/cdk && npx cdk deploy Api --profile acme-prod"}`, []string{"deploy:production"}, nil},
		{"Bash", `{"command":"cd infra/cdk && npx cdk diff Api --profile acme-prod"}`, nil, []string{"deploy:production"}},
		// A query whose string is formatted, without the SELECT.
		{"Edit", `{"file_path":"/p/tides/selectors.py","old_string":"a","new_string":"return Reading.objects.extra(where=[\"station = '{}'\".format(code)])"}`, []string{"sql:concat-query"}, nil},
		{"Edit", `{"file_path":"/p/store/q.go","old_string":"a","new_string":"rows, err := db.Query(fmt.Sprintf(\"DELETE FROM x WHERE id = %d\", id))"}`, []string{"sql:concat-query"}, nil},
		{"Edit", `{"file_path":"/p/store/q.py","old_string":"a","new_string":"cur.execute(\"UPDATE t SET n = %s WHERE id = %s\", (n, id))"}`, nil, []string{"sql:concat-query"}},
		{"Edit", `{"file_path":"/p/ui/Banner.kt","old_string":"a","new_string":"Text(stringResource(R.string.sync_failed))"}`, nil, []string{"ui:hardcoded-text"}},
		{"Edit", `{"file_path":"/p/app/Repo.php","old_string":"a","new_string":"return DB::select(\"SELECT * FROM payments WHERE customer_id = {$customerId}\");"}`, []string{"sql:concat-query"}, nil},
		{"Edit", `{"file_path":"/p/app/Repo.php","old_string":"a","new_string":"->whereRaw(\"name LIKE '%\" . $request->input('q') . \"%'\")"}`, []string{"sql:concat-query"}, nil},
		{"Edit", `{"file_path":"/p/app/Repo.php","old_string":"a","new_string":"->whereRaw('name LIKE ?', ['%'.$q.'%'])"}`, nil, []string{"sql:concat-query"}},
		{"Edit", `{"file_path":"/p/ui/Screen.kt","old_string":"a","new_string":"val holes = runBlocking { dao.holes() }"}`, []string{"code:blocking-call"}, nil},
		{"Edit", `{"file_path":"/p/Api/C.cs","old_string":"a","new_string":"var r = client.GetAsync(url).Result;"}`, []string{"code:blocking-call"}, nil},
		// Unstaging keeps the changes; restoring the worktree does not.
		{"Bash", `{"command":"git restore --staged src/a.ts"}`, nil, []string{"git:discard-changes"}},
		{"Bash", `{"command":"git restore --staged --worktree src/a.ts"}`, []string{"git:discard-changes"}, nil},
		{"Bash", `{"command":"git restore src/a.ts"}`, []string{"git:discard-changes"}, nil},
		{"Bash", `{"command":"git restore -SW src/a.ts"}`, []string{"git:discard-changes"}, nil},
		{"Bash", `{"command":"git restore -S src/a.ts"}`, nil, []string{"git:discard-changes"}},
		// A server changed by hand over ssh; looking at one is not.
		{"Bash", `{"command":"ssh deploy@redis-1 \"sudo sed -i 's/^maxmemory .*/maxmemory 6gb/' /etc/redis/redis.conf && sudo systemctl restart redis\""}`, []string{"ops:server-hand-edit"}, nil},
		{"Bash", `{"command":"ssh -i ~/.ssh/edge edge@pit-03 'printf x | sudo tee -a /etc/agent.toml'"}`, []string{"ops:server-hand-edit"}, nil},
		{"Bash", `{"command":"ssh deploy@redis-1 'sudo systemctl status redis; cat /etc/redis/redis.conf'"}`, nil, []string{"ops:server-hand-edit"}},
		{"Bash", `{"command":"ssh -p 2222 deploy@box"}`, nil, []string{"ops:server-hand-edit"}},
		// A secret's value printed, by the common secret stores' CLIs.
		{"Bash", `{"command":"az keyvault secret show --vault-name kv --name db --query value -o tsv"}`, []string{"secret:reveal"}, nil},
		{"Bash", `{"command":"aws ssm get-parameter --name /prod/db --with-decryption"}`, []string{"secret:reveal"}, nil},
		{"Bash", `{"command":"kubectl get secret api-env -o jsonpath='{.data}'"}`, []string{"secret:reveal"}, nil},
		{"Bash", `{"command":"cd infra && pulumi stack output --show-secrets -s prod"}`, []string{"secret:reveal"}, nil},
		{"Bash", `{"command":"aws ssm get-parameter --name /prod/db"}`, nil, []string{"secret:reveal"}},
		{"Bash", `{"command":"kubectl get secrets"}`, nil, []string{"secret:reveal"}},
		// A change to an existing table's schema, in several migration tools.
		{"Write", `{"file_path":"/p/db/migrate/1_idx.rb","content":"add_index :events, [:account_id, :occurred_at]"}`, []string{"sql:alter-table", "db:migration"}, nil},
		{"Write", `{"file_path":"/p/alembic/versions/2_idx.py","content":"op.create_index('ix_orders_placed', 'orders', ['placed_at'])"}`, []string{"sql:alter-table"}, nil},
		{"Write", `{"file_path":"/p/migrations/3.sql","content":"CREATE UNIQUE INDEX CONCURRENTLY ix ON orders (ref);"}`, []string{"sql:alter-table"}, nil},
		{"Write", `{"file_path":"/p/Migrations/4_Drop.cs","content":"migrationBuilder.DropColumn(name: \"Legacy\", table: \"Invoices\");"}`, []string{"sql:alter-table"}, nil},
		{"Write", `{"file_path":"/p/db/migrate/5_create.rb","content":"create_table :gift_cards do |t|
  t.timestamps
end"}`, nil, []string{"sql:alter-table"}},
		// Credentials as literals, in several languages and key formats.
		{"Edit", `{"file_path":"/p/notify/sms.go","old_string":"a","new_string":"c := twilio.New(twilio.Params{Password: \"9d8c7b6a5f4e3d2c1b0a\"})"}`, []string{"code:hardcoded-secret"}, nil},
		{"Write", `{"file_path":"/p/mqtt/client.go","content":"opts.SetUsername(\"ingest\").SetPassword(\"Kf9!mqtt-2026\")"}`, []string{"code:hardcoded-secret"}, nil},
		{"Write", `{"file_path":"/p/billing.py","content":"stripe.api_key = \"sk_live_51Hx0000abcdEFGH\""}`, []string{"code:hardcoded-secret"}, nil},
		{"Write", `{"file_path":"/p/billing.rb","content":"Stripe.key = 'rk_test_51Hx0000abcdEFGH'"}`, []string{"code:hardcoded-secret"}, nil},
		{"Write", `{"file_path":"/p/maps.js","content":"const mapsKey = \"AIzaSyA1234567890abcdefghijklmnopqrstuv\";"}`, []string{"code:hardcoded-secret"}, nil},
		{"Write", `{"file_path":"/p/deploy.key","content":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n"}`, []string{"code:hardcoded-secret"}, nil},
		{"Write", `{"file_path":"/p/schema.py","content":"primary_key = \"customer_id\"\nsort_key = 'created_at'"}`, nil, []string{"code:hardcoded-secret"}},
		{"Write", `{"file_path":"/p/cfg.go","content":"Password string ` + "`" + `env:\"DB_PASSWORD,required\"` + "`" + `"}`, nil, []string{"code:hardcoded-secret"}},
		{"Bash", `{"command":"terraform -chdir=infra/envs/prod state rm module.cdn.aws_cloudfront_distribution.this"}`, []string{"infra:state-edit"}, nil},
		{"Bash", `{"command":"tofu import aws_route53_record.shop Z0451_shop"}`, []string{"infra:state-edit"}, nil},
		{"Bash", `{"command":"pulumi state delete urn:pulumi:prod::app::aws:s3/bucket:Bucket::logs"}`, []string{"infra:state-edit"}, nil},
		{"Bash", `{"command":"terraform state list"}`, nil, []string{"infra:state-edit"}},
		{"Bash", `not json at all`, nil, nil},
		{"Bash", ``, nil, nil},
	}
	for _, c := range cases {
		got := ClassifyCall(c.tool, json.RawMessage(c.input))
		for _, w := range c.want {
			if !has(got, w) {
				t.Errorf("ClassifyCall(%s, %s) = %v, missing %s", c.tool, c.input, got, w)
			}
		}
		for _, w := range c.notWant {
			if has(got, w) {
				t.Errorf("ClassifyCall(%s, %s) = %v, must not have %s", c.tool, c.input, got, w)
			}
		}
		if c.want == nil && c.notWant == nil && len(got) > 0 {
			t.Errorf("ClassifyCall(%s, %s) = %v, want nothing", c.tool, c.input, got)
		}
	}
}

// A loop quoted in words, cut short the way a trigger quotes it, is still
// read as the commands in it.
// A "!" token rules flags or words out; it takes no glob.
func TestCommandPatternRulesOut(t *testing.T) {
	tax, err := NewTaxonomy([]Rule{{Type: "x:wipe", Commands: []string{"tool wipe !--dry-run|-n"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tax.Classify(Action{Command: "tool wipe all"}); !has(got, "x:wipe") {
		t.Errorf("tool wipe all = %v", got)
	}
	if got := tax.Classify(Action{Command: "tool wipe -n all"}); has(got, "x:wipe") {
		t.Errorf("tool wipe -n all = %v", got)
	}
	if _, err := NewTaxonomy([]Rule{{Type: "x:y", Commands: []string{"tool !*wipe*"}}}); !errors.Is(err, ErrBadRule) {
		t.Errorf("a ruled-out glob: %v, want ErrBadRule", err)
	}
	// A ruled-out word: a subcommand that only looks.
	tax, err = NewTaxonomy([]Rule{{Type: "x:prod", Commands: []string{"tool !plan|show *prod*"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tax.Classify(Action{Command: "tool apply -var-file envs/prod/a.tfvars"}); !has(got, "x:prod") {
		t.Errorf("tool apply on prod = %v", got)
	}
	if got := tax.Classify(Action{Command: "tool plan -var-file envs/prod/a.tfvars"}); has(got, "x:prod") {
		t.Errorf("tool plan on prod = %v", got)
	}
}

func TestClassifyTextLoopCutShort(t *testing.T) {
	tax, _ := NewTaxonomy(nil)
	got := tax.ClassifyText("running `for h in app-1 app-2; do ssh deploy@$h.internal \"sudo sed -i…`")
	if !has(got, "ops:server-hand-edit") {
		t.Errorf("ClassifyText = %v, want ops:server-hand-edit", got)
	}
}

func TestClassifyText(t *testing.T) {
	cases := []struct {
		text string
		want []string
		not  []string
	}{
		{"database migration that removes a column", []string{"sql:drop-column", "db:migration"}, nil},
		{"just empty the dead letter queue", []string{"queue:purge"}, nil},
		{"wipe the dev db", []string{"db:reset"}, nil},
		// A word the stemmer cuts to a command's name is not that command:
		// "pipe" is no pip, and a rule's "pipe" still matches it.
		{"pipe both through sha256sum and compare the hashes", nil, []string{"pkg:pip"}},
		{"don't use pip here, use uv", []string{"pkg:pip"}, nil},
		{"never pipe the output to sh", []string{"sys:curl-pipe-shell"}, nil},
		// A word is not a compound that starts with it.
		{"add the camera permission string so App Review stops rejecting the build", nil, []string{"code:tls-verify-off", "ui:hardcoded-text"}},
		// Running the tests, asked for in other languages.
		{"tu peux relancer les specs du modèle Invoice ?", []string{"test:run"}, nil},
		{"uruchom testy dla modułu płatności", []string{"test:run"}, nil},
		{"прогони тесты для платежей", []string{"test:run"}, nil},
		{"los tests de pagos fallan en CI", nil, []string{"test:run"}},
		// Money in floats, said in Italian; a record handed to a job.
		{"Niente Float per i soldi, mai.", []string{"code:float-money"}, nil},
		{"never pass a record to perform_async, pass its id", []string{"job:record-arg"}, nil},
		{"don't put keys in code, not even test keys", []string{"code:hardcoded-secret"}, nil},
		{"never paste the password into the config file", []string{"code:hardcoded-secret"}, nil},
		{"drop the column deprecated_flag", []string{"sql:drop-column"}, nil},
		{"column removal in the users table", []string{"sql:drop-column"}, nil},
		{"never force push to main", []string{"git:push-force"}, nil},
		{"stop force-pushing my branches", []string{"git:push-force"}, nil},
		{"don't use `git push --force`", []string{"git:push-force"}, nil},
		{"don't use `git add -A`, stage the files by name", []string{"git:stage-all"}, nil},
		{"never hand-edit generated code under api/gen", []string{"edit:generated-file"}, nil},
		{"add the pandas dependency", []string{"pkg:install"}, nil},
		{"run all the tests to make sure nothing broke", []string{"test:run-all"}, nil},
		{"no hardcoded hosts or ports", []string{"code:hardcoded-host"}, nil},
		{"Hard-coded URLs are banned", []string{"code:hardcoded-host"}, nil},
		{"that's SQL injection, use parameterized queries", []string{"sql:concat-query"}, nil},
		{"don't use sudo in the dev container and never chmod 777", []string{"sys:sudo", "fs:chmod-world-writable"}, nil},
		{"deploying to production on a Friday", []string{"deploy:production"}, nil},
		{"summarise what the reconcile job does", nil, nil},
		{"rename the Reconcile function to RunReconcile", []string{"code:rename"}, []string{"test:run"}},
		{"add a memo field to the Payment API message", []string{"api:schema"}, nil},
		{"Group by stdlib / third-party / local, not alphabetical", []string{"style:imports"}, nil},
	}
	for _, c := range cases {
		got := ClassifyText(c.text)
		for _, w := range c.want {
			if !has(got, w) {
				t.Errorf("ClassifyText(%q) = %v, missing %s", c.text, got, w)
			}
		}
		for _, w := range c.not {
			if has(got, w) {
				t.Errorf("ClassifyText(%q) = %v, must not have %s", c.text, got, w)
			}
		}
		if c.want == nil && c.not == nil && len(got) > 0 {
			t.Errorf("ClassifyText(%q) = %v, want nothing", c.text, got)
		}
	}
}

func TestNewTaxonomyExtensions(t *testing.T) {
	tax, err := NewTaxonomy([]Rule{
		{Type: "deploy:ledger-release", Desc: "releasing the ledger", Commands: []string{"./scripts/release.sh|release.sh"}, Words: []string{"ledger release"}},
		{Type: "git:push-force", Words: []string{"clobber remote"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := tax.Classify(Action{Command: "./scripts/release.sh v1"}); !has(got, "deploy:ledger-release") {
		t.Errorf("extension command: %v", got)
	}
	if got := tax.ClassifyText("please don't clobber the remote"); !has(got, "git:push-force") {
		t.Errorf("extension words on built-in type: %v", got)
	}
	if tax.Describe("deploy:ledger-release") != "releasing the ledger" {
		t.Errorf("Describe = %q", tax.Describe("deploy:ledger-release"))
	}
	for _, bad := range []Rule{{Type: "NoColon"}, {Type: "a:b", Content: []string{"("}}, {Type: "a:b", Paths: []string{""}}, {Type: "a:b", Commands: []string{"   "}}, {Type: "a:b", Words: []string{" "}}} {
		if _, err := NewTaxonomy([]Rule{bad}); !errors.Is(err, ErrBadRule) {
			t.Errorf("NewTaxonomy(%+v) err = %v, want ErrBadRule", bad, err)
		}
	}
	if n := len(Default().Types()); n < 40 {
		t.Errorf("only %d built-in types", n)
	}
	for _, typ := range Default().Types() {
		if Default().Describe(typ) == typ {
			t.Errorf("type %s has no description", typ)
		}
		if !strings.Contains(typ, ":") {
			t.Errorf("bad type %s", typ)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("git push -f", "Bash", `{"command":"git add -A"}`)
	f.Add("cat <<EOF\n$(rm -rf /)\nEOF", "Edit", `{"file_path":".env","new_string":"x"}`)
	f.Add("((((", "apply_patch", `"*** Begin Patch\n*** Delete File: a\n"`)
	f.Add("echo `ls` | sh -c 'sudo -u", "shell", `{"command":["bash","-c"]}`)
	f.Add("", "", `[1,2,`)
	f.Fuzz(func(t *testing.T, cmd, tool, input string) {
		Classify(Action{Tool: tool, Input: json.RawMessage(input), Command: cmd, Paths: []string{cmd}, Content: cmd, Text: cmd})
		ClassifyCall(tool, json.RawMessage(input))
		ClassifyText(cmd)
	})
}

// The built-in rules' types, command, path and content patterns and
// word cues, compiled on first use, are all well formed (NewTaxonomy checks only the
// rules it is given).
func TestBuiltinPatternsCompile(t *testing.T) {
	for _, r := range builtinRules {
		if !IsActionType(r.Type) {
			t.Errorf("built-in type %q is not domain:verb[:object] in lower case", r.Type)
		}
		for _, g := range r.Paths {
			if !doublestar.ValidatePattern(strings.ToLower(g)) {
				t.Errorf("%s: path glob %q is not a glob", r.Type, g)
			}
		}
		for _, c := range r.Content {
			if _, err := regexp.Compile(c); err != nil {
				t.Errorf("%s: content regexp %q: %v", r.Type, c, err)
			}
		}
		for _, c := range r.Commands {
			if _, err := compileCommand(r.Type, c); err != nil {
				t.Errorf("%s: %v", r.Type, err)
			}
		}
		for _, w := range r.Words {
			if _, err := wordTokens(w); err != nil {
				t.Errorf("%s: %v", r.Type, err)
			}
		}
	}
}

// The built-in path globs match what they matched as regexps (the
// translation kb used before globMatch: anchored at a path-segment
// boundary, "**/" any directories, "**" anything, "*" and "?" within a
// segment, case-insensitive), on paths of many languages and layouts.
func TestGlobMatchAsTheRegexpsDid(t *testing.T) {
	legacy := func(g string) *regexp.Regexp {
		var b strings.Builder
		b.WriteString(`(?i)(^|/)`)
		rs := []rune(strings.TrimPrefix(g, "/"))
		for i := 0; i < len(rs); i++ {
			switch c := rs[i]; c {
			case '*':
				if i+1 < len(rs) && rs[i+1] == '*' {
					i++
					if i+1 < len(rs) && rs[i+1] == '/' {
						i++
						b.WriteString(`(.*/)?`)
					} else {
						b.WriteString(`.*`)
					}
				} else {
					b.WriteString(`[^/]*`)
				}
			case '?':
				b.WriteString(`[^/]`)
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		b.WriteString(`$`)
		return regexp.MustCompile(b.String())
	}
	paths := []string{"main.go", "cmd/kb/main.go", "/work/app/src/server/handlers_test.go", "api/v1/service.pb.go",
		"internal/gen/models.go", "gen/x.go", "web/src/App.test.tsx", "src/components/Button.spec.js", "tests/test_api.py",
		"app/models.py", "app/models/user.py", "db/migrate/20240101_add_users.rb", "migrations/0001_initial.py",
		"alembic/versions/abc_add.py", "sql/001.up.sql", "sql/001.down.sql", "prisma/schema.prisma", "src/user.entity.ts",
		".github/workflows/ci.yml", "repo/.github/workflows/release.yaml", ".env", ".env.local", "config/.env.production",
		"vendor/github.com/x/y.go", "node_modules/react/index.js", "third_party/lib.c", ".venv/lib/site-packages/x.py",
		"Dockerfile", "deploy/k8s/deployment.yaml", "charts/app/values.yaml", "terraform/main.tf", "infra/prod.tfvars",
		"package.json", "package-lock.json", "go.mod", "go.sum", "Cargo.toml", "Cargo.lock", "requirements.txt", "poetry.lock",
		"README.md", "docs/guide.md", "CHANGELOG.md", "Makefile", "scripts/deploy.sh", "notebooks/analysis.ipynb",
		"src/Main.java", "src/lib.rs", "app/controllers/users_controller.rb", "lib/foo.ex", "test/foo_test.exs",
		"DB/SCHEMA.RB", "Src/Models/User.PY", "a/b/c/d/e/f/schema.graphql", "x/generated/api.ts", "foo.min.js", "/dev/stdin"}
	n := 0
	for _, r := range builtinRules {
		for _, g := range r.Paths {
			re, glob := legacy(g), strings.ToLower(strings.TrimPrefix(g, "/"))
			for _, p := range paths {
				want := re.MatchString(p)
				if got := globMatch(glob, strings.ToLower(p)); got != want {
					t.Errorf("%s: glob %q on %q: %v, the regexp %v", r.Type, g, p, got, want)
				}
				if want {
					n++
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d matches: the paths do not exercise the globs", n)
	}
}

// One word is one token of a word pattern: "exception" alone is not the
// pattern "except exception" (py:broad-except), whose two tokens share a
// stem.
func TestWordPatternTokensTakeDistinctWords(t *testing.T) {
	tax := Default()
	if got := tax.ClassifyText("no options API in new components; the only exception is src/legacy/"); slices.Contains(got, "py:broad-except") {
		t.Fatalf("one word matched two tokens: %v", got)
	}
	if got := tax.ClassifyText("except Exception: pass is banned here"); !slices.Contains(got, "py:broad-except") {
		t.Fatalf("the pattern itself: %v", got)
	}
}

// A command named in prose by its path is classified as the command; a
// file path is not a command.
func TestProsePathCommand(t *testing.T) {
	tax := Default()
	if got := tax.ClassifyText("Always bin/rubocop, it runs the bundled version."); !slices.Contains(got, "lint:run") {
		t.Fatalf("bin/rubocop: %v", got)
	}
	if got := tax.ClassifyText("the helper lives in src/lib/format.ts"); len(got) != 0 {
		t.Fatalf("a file path: %v", got)
	}
}

// contentOnly: the types a call has only through what it writes.
func TestContentOnly(t *testing.T) {
	tax := Default()
	in := json.RawMessage(`{"file_path":"/p/tests/test_links.py","content":"def test_links():\n    print(render())\n"}`)
	all := tax.ClassifyCall("Write", in)
	co := tax.contentOnly("Write", in, all)
	if !has(all, "test:modify") || !has(all, "code:print") || !has(co, "code:print") || has(co, "test:modify") {
		t.Errorf("ClassifyCall %v, ContentOnly %v", all, co)
	}
	// The types the person's words speak of go first; the rest keep
	// their order.
	if got := saidFirst([]string{"test:modify", "code:print"}, co, []string{"code:print"}); got[0] != "code:print" {
		t.Errorf("saidFirst = %v", got)
	}
	if got := saidFirst([]string{"test:modify", "code:print"}, co, nil); got[0] != "test:modify" {
		t.Errorf("saidFirst without words = %v", got)
	}
}
