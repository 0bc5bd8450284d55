package recall

import (
	"encoding/json"
	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/secrets"
	"github.com/kbmem/kb/internal/textutil"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/kbmem/kb/observations"
)

// Matching thresholds. An action-type match fires on its own; lexical
// overlap fires only when it is substantial.
const (
	minOverlap       = 3    // distinct shared content stems that fire alone
	minOverlapCov    = 2    // ... or this many, covering minCoverage of the candidate's stems
	minCoverage      = 0.3  //
	typedMismatchMin = 4    // shared stems needed when both sides have action types and none agree
	lexicalWeight    = 0.12 // relevance per shared stem
	// minGeneralOverlap is the word overlap a match on a broader type of
	// the candidate's own domain needs.
	minGeneralOverlap = 2
	// sameFileScore is the relevance of a candidate naming the file the
	// proposal touches.
	sameFileScore = 0.85
)

// lessonOverlap counts the cue's stems among a lesson's (lessonStems,
// ownStems). Words of the matched action type itself ("git", "push" for
// git:push) are no extra support.
func lessonOverlap(cu *cue, lesson wordSet, matched string) int {
	return overlapIn(cu.tokens, lesson, matched)
}

// namedOverlap is lessonOverlap over what the call names (cue.named), not
// the content it writes.
func namedOverlap(cu *cue, lesson wordSet, matched string) int {
	if cu.named == nil {
		return lessonOverlap(cu, lesson, matched)
	}
	return overlapIn(cu.named, lesson, matched)
}

func overlapIn(tokens map[string]bool, lesson wordSet, matched string) int {
	typeWords := stemSet(strings.NewReplacer(":", " ", "-", " ").Replace(matched))
	n := 0
	for _, s := range lesson {
		if tokens[s] && !typeWords[s] {
			n++
		}
	}
	return n
}

// lessonStems are the stems of the lesson, sorted; ownStems those of its
// own words (withoutObject). The activation index holds both.
func (c *candidate) lessonStems() wordSet {
	if c.pre != nil {
		return c.pre.lessonStems
	}
	return stemsOf(c.lesson)
}

func (c *candidate) ownStems() wordSet {
	if c.pre != nil {
		return c.pre.ownStems
	}
	return stemsOf(withoutObject(c.lesson))
}

func stemsOf(text string) wordSet { return wordSet(slices.Sorted(maps.Keys(stemSet(text)))) }

// follows reports whether the proposal only matches c through a type the
// lesson's own advice brought in, while running the program the lesson
// prescribes: "use pnpm run clean" classifies as pkg:npm, and "pnpm test"
// follows that advice rather than repeating the mistake. Types of the
// corrected action itself (those its trigger classifies as) always count.
func (cu *cue) follows(c *candidate) bool {
	if cu.program == "" || cu.tax == nil || c.candAT == "" || c.candAT == c.types[0] {
		return false
	}
	if !stemSet(c.lesson)[stem(cu.program)] {
		return false
	}
	for _, t := range c.triggerTypes(cu.tax) {
		if domainVerb(t) == domainVerb(c.candAT) {
			return false
		}
	}
	return true
}

// advised reports whether the proposal is what a positive lesson asks
// for, matched only through a type the lesson's own words brought in: the
// corrected moment had no action type of its own ("calling ExitPlanMode",
// "when asked to ..."), and the lesson says to do the thing ("First commit
// the changes, then proceed with the plan"), so the agent committing is
// following it. A lesson with a negation ("do not commit the lockfile")
// still fires.
func (cu *cue) advised(c *candidate) bool {
	if c.candAT == "" || cu.tax == nil || c.typ != observations.TypeCorrection || callKind(c.trigger) != "" {
		return false
	}
	for _, t := range c.triggerTypes(cu.tax) {
		if domainVerb(t) == domainVerb(c.candAT) {
			return false // the corrected moment itself was of this type
		}
	}
	return !negationRE.MatchString(c.lesson)
}

var negationRE = textutil.Lazy(`(?i)\b(?:not|no|never|don'?t|doesn'?t|didn'?t|won'?t|shouldn'?t|avoid|stop|without|instead)\b`)

// incidental reports whether the only type match is an incidental type of
// the candidate: a secondary type outside the primary type's domain that
// either came with the corrected call (npx made a snapshot correction
// pkg:npm) without the lesson naming it, or came from the lesson's words
// ("committed code" makes git:commit) while the proposal is another kind
// of action than the corrected one (a shell command, not an edit).
func (cu *cue) incidental(c *candidate) bool {
	if c.candAT == "" || len(c.types) == 0 || c.candAT == c.types[0] || schemaArea(typeDomain(c.candAT)) == schemaArea(typeDomain(c.types[0])) || cu.tax == nil {
		return false
	}
	fromCall := false
	for _, t := range c.triggerTypes(cu.tax) {
		if domainVerb(t) == domainVerb(c.candAT) {
			fromCall = true
			break
		}
	}
	if fromCall {
		named := stemSet(strings.NewReplacer(":", " ", "-", " ").Replace(c.candAT))
		for st := range stemSet(c.lesson) {
			if named[st] {
				return false
			}
		}
		// The lesson names the program the proposal runs ("run it as
		// `docker compose exec web python manage.py ...`"): the type
		// that came with it is the lesson's own.
		tools := toolWords(c.lesson, map[string]bool{})
		for _, p := range cu.programs {
			if tools[p] && !plainWordTools[p] {
				return false
			}
		}
		return true
	}
	return cu.otherKind(c)
}

// callKind tells a trigger that quotes an edit ("Edit `path`") from one
// that quotes a shell command; "" when it quotes neither.
func callKind(trigger string) string {
	i := strings.IndexByte(trigger, '`')
	if i < 0 {
		return ""
	}
	if strings.HasPrefix(trigger, "editing `") {
		return "edit" // an untyped edit (observations' describeCall)
	}
	// An edit tool's name before a quote ("Edit `a.go`", "MultiEdit `…`",
	// "apply_patch `…`"), at any quote: one pass over the quotes, since
	// matching runs this for every candidate of every hook call.
	for i >= 0 {
		pre := trigger[:i]
		if strings.HasSuffix(pre, "Edit ") || strings.HasSuffix(pre, "Write ") || strings.HasSuffix(pre, "apply_patch ") {
			return "edit"
		}
		j := strings.IndexByte(trigger[i+1:], '`')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return "shell"
}

func typeDomain(t string) string { d, _, _ := strings.Cut(t, ":"); return d }

// schemaArea is the domain d, with a table's schema (sql) and the
// migrations that change it (db) as one: an index added in a migration is
// both, and neither type is incidental to the other.
func schemaArea(d string) string {
	if d == "sql" {
		return "db"
	}
	return d
}

func (cu *cue) hasType(t string) bool {
	for _, x := range cu.types {
		if x == t || domainVerb(x) == domainVerb(t) {
			return true
		}
	}
	return false
}

// match scores how well candidate c applies to the cue: first the
// evidence that fires on its own (action types, trigger phrases, the same
// file), which the rules of ruledOut may reject, then lexical overlap.
func (cu *cue) match(c *candidate) {

	if c.pasted {
		c.rejected = true
		return
	}
	generalized := cu.matchTypes(c)
	cu.matchPhrases(c)
	cu.matchFile(c)
	cu.matchSignatures(c)
	cu.matchCommand(c)
	n, cov := cu.matchWords(c)
	if c.follow != "" && c.sigHit == "" && !cu.besides(c) && !cu.refusedAgain(c) {
		// The proposal does what the lesson advises and nothing it
		// prohibits: the agent is following it.
		c.typeScore, c.matchedAT, c.candAT = 0, "", ""
		c.rejected = true
		return
	}
	if (c.sigHit != "" || c.fileHit != "" || c.typeScore > 0) && c.said != "" && cu.exemptPlace(c) {
		// "os lambdas são outra história, lá é npm normal": the lesson
		// says itself that another part of the project works otherwise,
		// and this call is in it.
		c.reject()
		return
	}
	if (c.sigHit != "" || c.fileHit != "" || c.typeScore > 0) && cu.testCode() && exemptsTests(c.said+" "+c.lesson) {
		// "unwrap() in tests is fine": the lesson says itself that it
		// does not hold in test code, and this is test code.
		c.typeScore, c.matchedAT, c.candAT, c.sigHit, c.fileHit = 0, "", "", "", ""
		c.rejected = true
		return
	}
	if cu.question && c.fileHit != "" && c.sigHit == "" && c.phraseHit == "" && (c.matchedAT == "" || c.typeScore <= sameFileScore) {
		// "walk me through what the post-processors in edge.pkr.hcl do":
		// a question about a file is no change of it.
		c.reject()
		return
	}
	if (c.typeScore > 0 || c.sigHit != "") && (envDomains[typeDomain(c.candAT)] || (c.sigHit != "" || c.cmdHit != "") && callKind(c.trigger) == "shell") &&
		cu.otherEnvironment(c) {
		// The corrected call ran against production; this one runs
		// against staging (or the other way round): another situation,
		// whatever else they share ("deploy.sh is for staging only").
		c.typeScore, c.matchedAT, c.candAT, c.sigHit = 0, "", "", ""
		c.rejected = true
		return
	}
	if (c.typeScore > 0 || c.fileHit != "") && c.sigHit == "" && advisesNewFile(c.said) && cu.creates() {
		// "never change an applied migration, add a new file": a Write of
		// a file that is not there yet is the new file.
		c.typeScore, c.matchedAT, c.candAT, c.fileHit = 0, "", "", ""
		c.follow, c.rejected = "a new file", true
		return
	}
	if (c.typeScore > 0 || c.sigHit != "") && cu.command != "" && cu.otherBranch(c) {
		// "force-with-lease on your own feature branch is fine, on
		// develop and main never": a push to feat/x is not the push to
		// develop that was corrected.
		c.typeScore, c.matchedAT, c.candAT, c.sigHit = 0, "", "", ""
		c.rejected = true
		return
	}
	if c.typeScore > 0 && c.sigHit == "" && c.fileHit == "" && c.phraseHit == "" && cu.command != "" && flagAdvice(c.lesson) && cu.otherProgram(c) {
		// "the default stage is prod: always deploy with `--stage dev`",
		// corrected on `serverless deploy`: advice given as the corrected
		// program's flags is about calling that program, not about a
		// terraform apply of the same type.
		c.reject()
		return
	}
	if (c.typeScore > 0 || c.sigHit != "") && cu.command != "" && cu.lacksNamedFlags(c) {
		// "不要 down -v": the flag the person repeated from the refused
		// command is what was wrong; `docker compose down` without it is
		// another action.
		c.typeScore, c.matchedAT, c.candAT, c.sigHit = 0, "", "", ""
		c.rejected = true
		return
	}
	if (c.typeScore > 0 || c.sigHit != "" || c.fileHit != "") && cu.hasCall && !cu.writesSig(c) && c.aboutSecrets() && !cu.carriesSecret() {
		// "no secrets in appsettings*.json", "a key set without --secret
		// is stored in plain text": the lesson is about where a secret
		// may go, and this call writes none (a due-days setting, a
		// replica count).
		c.reject()
		return
	}
	if c.fileHit != "" && c.sigHit == "" && c.matchedAT == "" && c.phraseHit == "" && cu.command != "" && callKind(c.trigger) == "shell" &&
		otherSubcommand(refusedCommand(c.trigger), cu.command) {
		// `dotnet user-secrets set --project src/Api` after a refused
		// `dotnet add src/Api package ...`: the program is the same, the
		// command is another, and the project both name is no evidence
		// that one's lesson is about the other.
		c.reject()
		return
	}
	if (c.typeScore > 0 || c.sigHit != "") && cu.editPath != "" && cu.outsidePlace(c) {
		// "no Repo in berthly_web", corrected on
		// lib/berthly_web/controllers/...: the lesson names a directory of
		// the corrected file, and this file is not in it (a context
		// module in lib/berthly/ may call Repo).
		c.reject()
		return
	}
	if c.typeScore > 0 && c.sigHit == "" && c.fileHit == "" && c.phraseHit == "" && cu.otherKind(c) {
		// "don't run migrations against staging from your machine",
		// corrected on `mix ecto.migrate`: writing a migration file is of
		// the same type (writing or running a migration), not the same
		// action. A type alone carries across tools, not from running to
		// editing.
		c.reject()
		return
	}
	if c.fileHit != "" && c.sigHit == "" && c.matchedAT == "" && c.phraseHit == "" && callKind(c.trigger) == "shell" &&
		inspection(refusedCommand(c.trigger)) {
		// The person's words after an `ls -la build/hello.adx` are not
		// about that file: the corrected call only looked at it.
		c.reject()
		return
	}
	if c.sigHit == "" && cu.hasCall && observations.IsFailureReport(c.lesson) &&
		(cu.kind != "edit" || c.fileHit == "" || c.matchedAT == "" && !cu.touchesReport(c.lesson)) {
		// "Check that the change to X really works; the person reported:
		// “...”" is advice for the next change of X that touches what
		// broke (or the same command run again): not for an edit of
		// another file of its kind, a commit, a copy or a grep that names
		// X, nor an edit of another part of X ("we lost the session
		// navigation section" on a change of the navigation code, not of
		// the page header): the report is a bug of one moment.
		c.reject()
		return
	}
	if c.fileHit != "" && c.sigHit == "" && c.phraseHit == "" && cu.kind == "edit" && cu.written != "" &&
		(c.matchedAT == "" || cu.pathOnly(c.matchedAT)) && c.sessions < 2 && c.status != observations.StatusPromoted &&
		c.typ != observations.TypeNegativeResult && !observations.IsFailureReport(c.lesson) && !cu.evidenceBesidesFile(c) {
		// The file alone: a lesson corrected on an edit of X ("화면에 보이는
		// 문자열을 하드코딩하지 마세요") is not about every later edit of X
		// (a padding): the edit must write a word of the lesson, unless
		// the lesson is about editing X at all (generated, not by hand,
		// "don't loosen deny.toml"), X's refused write is being made
		// again, or a secret goes where the lesson says none may. A lesson
		// seen in two sessions or promoted has shown it is about X; a
		// failure report has its own rule (touchesReport). An action type
		// the path alone gives (edit:ci-config for any edit of a workflow)
		// is the same evidence as the file.
		c.reject()
		return
	}
	if c.fileHit != "" && c.sigHit == "" && c.matchedAT == "" && c.phraseHit == "" && cu.kind == "shell" && callKind(c.trigger) == "edit" &&
		!editsInPlace(cu.command) && !fileChangeRE.MatchString(cu.command) {
		// `git add X`, `cat X`, a formatter or a test run that names X
		// ("don't call env() outside config/", corrected on an edit of
		// Client.php): a call that names the file a lesson was corrected
		// on while editing, and does not write it, is not that edit.
		c.reject()
		return
	}
	if c.typeScore > 0 && c.sigHit == "" && c.fileHit == "" && cu.onlyAllowed(c) {
		// The edit does what the lesson says is fine, and nothing else of
		// the type the lesson was corrected for.
		c.reject()
		return
	}
	if cu.inspects && c.sigHit != "" && c.cmdHit == "" && !cu.runsFailedProgram(c) {
		// `grep -rn AlarmsLevelViewModel`, `cat deny.toml`: a command that
		// only looks names the code or file a lesson is about without
		// writing or running it (a lesson corrected on that very program,
		// "grep with every keyword, never a fuzzy fallback", still fires).
		c.reject()
		return
	}
	if c.sigHit == "" && c.fileHit == "" && !cu.hasCall && cu.text != "" && otherEcosystem(cu.text, c.specificTools()) {
		// "run the unit tests of the C++ geo library" and a lesson about
		// nx and jest: the request names another language's world than the
		// tools the lesson names.
		c.reject()
		return
	}
	if c.typ == observations.TypeNegativeResult && cu.hasCall && !cu.runsFailedProgram(c) && lexicon.CueMissingProgram.In(strings.ToLower(c.lesson)) {
		// "python: command not found; instead: python3": the program the
		// failed command ran is missing, which only running it again runs
		// into, not an edit or a look at a file it read or wrote.
		c.reject()
		return
	}
	if c.typeScore > 0 && c.sigHit == "" && c.fileHit == "" && c.phraseHit == "" && cu.otherFileLanguage(c) && c.namesCode() {
		// A lesson that names code of its language (no plain fmt.Errorf
		// in Go handlers, page.waitForResponse in Playwright tests) is
		// not about a .proto file or a Rust test of the same action type.
		c.reject()
		return
	}
	if (c.typeScore > 0 || c.fileHit != "") && c.sigHit == "" && cu.onlyAdds() && c.prohibitsRemoval() {
		// "never delete a field number, never renumber": an edit that
		// only adds (a new field) deletes and renumbers nothing.
		c.reject()
		return
	}
	if (c.typeScore > 0 || c.fileHit != "") && c.sigHit == "" && c.follow == "" && cu.written != "" && cu.lacksPinnedForm(c) {
		// "pin every third-party action to a full commit sha": an edit of
		// the workflow that uses no action (a cache key, a local
		// ./.github/actions/x) is not what the lesson is about.
		c.reject()
		return
	}
	if (c.typeScore > 0 || c.fileHit != "") && c.sigHit == "" && cu.command != "" && cu.outsideCommandPlace(c) {
		// "everything under ml/data/ is tracked with dvc", corrected on
		// a \`git add ml/data/...\`: a commit of ml/configs/ is outside.
		c.reject()
		return
	}
	if c.typeScore > 0 && cu.ruledOut(c, generalized) {
		// A rejected type match is not rescued by the words the
		// proposal shares with the quoted command of the trigger.
		c.typeScore, c.matchedAT, c.candAT = 0, "", ""
		c.rejected = true
		return
	}
	if c.typeScore > 0 && cu.hasCall && c.sigHit == "" && c.fileHit == "" && c.phraseHit == "" && !cu.specific(c) {
		// A broad type alone (any test edit, any commit, any install) is
		// no evidence that a lesson about something else applies.
		c.typeScore, c.matchedAT, c.candAT = 0, "", ""
		c.rejected = true
		return
	}
	if c.typeScore > 0 && cu.hasCall && c.sigHit == "" && c.fileHit == "" && c.phraseHit == "" && c.asks() && c.personOnce() {
		// The person's question after a call they refused or stopped
		// ("I want to connect GitHub, how?", "so iss_build=1 is right
		// too, isn't it?"), kept as the lesson and seen once: a call of
		// the same type is no evidence that the question applies to it.
		c.typeScore, c.matchedAT, c.candAT = 0, "", ""
		c.rejected = true
		return
	}
	if c.fileHit != "" && cu.hasCall && c.sigHit == "" && c.phraseHit == "" && (c.matchedAT == "" || !cu.specific(c)) &&
		c.personOnce() && observations.RequestsTask(firstLessonSentence(c.lesson)) {
		// The person's request about the task at hand ("can you replace
		// them with one link", "check whether we need X"), seen once,
		// names the file it was made on: the file alone is no evidence
		// that it applies to a later change of that file. (A lesson kb
		// composed, "check that the change to X really works", is not
		// the person's request.)
		c.typeScore, c.matchedAT, c.candAT, c.fileHit = 0, "", "", ""
		c.rejected = true
		return
	}
	need := minOverlap
	if len(cu.types) > 0 && len(c.types) > 0 && c.typeScore == 0 {
		need = typedMismatchMin
	}
	// On a tool call, shared words alone are no cue: a command's arguments
	// and an edit's identifiers share words with many lessons about other
	// things. A call fires a lesson through its type, a signature, the
	// same file or a trigger phrase; words are a cue in a prompt.
	// A question ("which models billed the most bytes?") asks to know,
	// not to act: its words meet a lesson's, but it is no moment for it.
	words := !cu.readOnly && !cu.hasCall && !c.pasted && !cu.question
	c.lexicalHit = words && n >= need || (words && n >= minOverlapCov && cov >= minCoverage && need == minOverlap)
	switch {
	case c.typeScore > 0:
		c.relevance = c.typeScore + lexicalWeight*math.Min(float64(n), 4)
	case c.lexicalHit:
		c.relevance = math.Min(0.8, lexicalWeight*float64(n)+0.5*cov)
	}
}

// refusedAgain reports whether a proposal that seems to follow the
// lesson's advice (c.follow) does again what the person refused: the
// followed span is part of the refused command and the proposal has its
// flags again ("`down -v` deletes the volume", said of `docker compose down
// -v`), or the sentence of the followed span names environments and none
// the proposal names ("`cdk deploy` only against the dev stage with
// --profile brambleworks-dev", and the proposal deploys with the prod
// profile).
func (cu *cue) refusedAgain(c *candidate) bool {
	refused := refusedCommand(c.trigger)
	if refused == "" || cu.command == "" {
		return false
	}
	if strings.Contains(refused, c.follow) && strings.Contains(refused, " -") && hasFlagsOf(cu.command, refused) {
		return true // the refused call's flags again
	}
	// The followed span's sentence limits it to environments the proposal
	// does not name.
	pe := environments(cu.command)
	if len(pe) == 0 {
		return false
	}
	for _, sn := range sentences(c.said + " " + c.lesson) {
		if !strings.Contains(sn, c.follow) {
			continue
		}
		se := environments(sn)
		if len(se) == 0 {
			return false
		}
		for e := range pe {
			if se[e] {
				return false
			}
		}
		return true
	}
	return false
}

// reject rules a candidate out: no evidence is left, and nothing rescues
// it.
func (c *candidate) reject() {
	c.typeScore, c.matchedAT, c.candAT, c.sigHit, c.fileHit = 0, "", "", "", ""
	c.rejected = true
}

// aboutSecrets reports whether the lesson is about a secret value: the
// person's words name one (lexicon.CueSecret, any language), and either
// the corrected call held one (its trigger was redacted) or the lesson's
// first sentence prohibits one ("no secrets in appsettings").
func (c *candidate) aboutSecrets() bool {
	if c.pre != nil {
		return c.pre.secrets
	}
	return secretsAbout(c.said, c.lesson, c.trigger)
}

// secretsAbout is candidate.aboutSecrets of the person's words said (the
// lesson when there are none) and the trigger; the activation index holds
// it.
func secretsAbout(said, lesson, trigger string) bool {
	said = strings.ToLower(said)
	if said == "" {
		said = strings.ToLower(lesson)
	}
	if !lexicon.CueSecret.In(said) {
		return false
	}
	if strings.Contains(trigger, "[REDACTED") {
		return true
	}
	// "not in serverless.yml, that file is in git. secrets go in SSM": the
	// prohibition, and the sentence after it, whose subject is secrets,
	// says what it is about.
	sents := sentences(said)
	first := firstOr(sents)
	return negRE.MatchString(first) && (lexicon.CueSecret.In(first) || len(sents) > 1 && lexicon.CueSecret.AtStart(strings.TrimPrefix(sents[1], "the ")))
}

// writesSig reports whether the lesson's prohibited signature that matched
// is in the code the proposal writes: a lesson about code, not about
// where a value goes.
func (cu *cue) writesSig(c *candidate) bool {
	return c.sigHit != "" && cu.written != "" && containsSpan(cu.written, c.sigHit)
}

// carriesSecret reports whether the proposal holds or moves a secret: a
// literal value given to something named like one (secrets.Assigned), or
// a file named like a secrets file.
func (cu *cue) carriesSecret() bool {
	if cu.secret == 0 {
		cu.secret = -1
		if cu.holdsSecret() {
			cu.secret = 1
		}
	}
	return cu.secret > 0
}

// holdsSecret is carriesSecret, worked out (once a call: it scans what
// the call writes).
func (cu *cue) holdsSecret() bool {
	if secrets.Assigned(cu.written + "\n" + cu.command) {
		return true
	}
	for _, f := range cu.files {
		if secretFileRE.MatchString(f.base) {
			return true
		}
	}
	return cu.command != "" && secretFileRE.MatchString(cu.command)
}

// secretFileRE: names of files that hold secrets by their kind.
var secretFileRE = textutil.Lazy(`(?i)(?:secret|credential|passw|\.env\b|\.dev\.vars|\.pem\b|\.p12\b|\.pfx\b|\.jks\b|keystore|id_rsa|id_ed25519|\.tfvars\b|\.npmrc|\.netrc|\.pgpass)`)

// namesFileKind reports whether the name of the file at path holds sig, a
// CamelCase or snake_case name of six characters or more: the kind of file
// a lesson names (ModelSnapshot, schema_dump).
func namesFileKind(path, sig string) bool {
	if len(sig) < 6 || strings.ContainsAny(sig, " ./()[]{}`") {
		return false
	}
	camel := strings.IndexFunc(sig[1:], unicode.IsUpper) >= 0 && unicode.IsUpper(rune(sig[0]))
	if !camel && !strings.Contains(sig, "_") {
		return false
	}
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	return strings.Contains(base, sig)
}

// qualifies reports whether every line of code that holds sig lies within
// two lines of one that holds follow (the same statement, as code is
// written: a pipe, a chained call).
func qualifies(code, follow, sig string) bool {
	lines := strings.Split(code, "\n")
	open := strings.TrimSuffix(squeeze(follow), "}")
	var at []int
	for i, l := range lines {
		if strings.Contains(l, follow) || strings.Contains(squeeze(l), open) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return false
	}
	found := false
	for i, l := range lines {
		if !strings.Contains(l, sig) && !strings.Contains(l, strings.TrimSuffix(sig, "()")) {
			continue
		}
		found = true
		near := false
		for _, j := range at {
			if i-j <= 2 && j-i <= 2 {
				near = true
				break
			}
		}
		if !near {
			return false
		}
	}
	return found
}

// openCollection is an advised map, list or call without its closing
// bracket, spaces squeezed: "%{booking_id: booking.id" for
// "%{booking_id: booking.id}"; false when span does not end in a closer
// or holds no opener for it.
func openCollection(span string) (string, bool) {
	span = squeeze(span)
	if len(span) < 4 {
		return "", false
	}
	closer := span[len(span)-1]
	opener := map[byte]byte{'}': '{', ')': '(', ']': '['}[closer]
	if opener == 0 || strings.IndexByte(span, opener) < 0 {
		return "", false
	}
	return span[:len(span)-1], true
}

// squeeze removes the spaces and tabs after commas, colons and openers, so
// that code compares whatever its spacing.
func squeeze(s string) string {
	return squeezeRE.ReplaceAllString(s, "$1")
}

var squeezeRE = textutil.Lazy(`([,:{(\[])[ \t]+`)

// squeezedWritten is squeeze(cu.written), made once for every signature
// of every candidate that asks.
func (cu *cue) squeezedWritten() string {
	if cu.squeezed == nil {
		q := squeeze(cu.written)
		cu.squeezed = &q
	}
	return *cu.squeezed
}

// hexRunRE is a hash: seven hex digits or more, a letter among them.
var hexRunRE = textutil.Lazy(`\b[0-9a-f]{7,}\b`)

// pinned reports whether span pins something to a hash: a use of a thing
// at a commit or digest (name@sha, image@sha256:...).
func pinned(span string) bool {
	loc := hexRunRE.FindStringIndex(span)
	return loc != nil && strings.ContainsAny(span[loc[0]:loc[1]], "abcdef") && strings.ContainsAny(span[:loc[0]], "@:=")
}

// followsPin reports whether text uses the form of a pinned span, at
// least once and always with a hash where the span has one: the span's
// part before its hash, its names and numbers generalized, is found, and
// each time followed by a hash.
func followsPin(text, span string) bool {
	re := pinFormRE(span)
	if re == nil {
		return false
	}
	n := 0
	for _, m := range re.FindAllStringIndex(text, -1) {
		rest := text[m[1]:]
		h := hexRunRE.FindStringIndex(rest)
		if h == nil || h[0] != 0 {
			return false
		}
		n++
	}
	return n > 0
}

// pinFormRE is the form of a pinned span before its hash, its names and
// numbers generalized ("actions/checkout@" is any "x/y@"); nil when the
// span has none.
func pinFormRE(span string) *regexp.Regexp {
	if re, ok := pinForms.Load(span); ok {
		return re.(*regexp.Regexp)
	}
	re := compilePinForm(span)
	pinForms.Store(span, re)
	return re
}

// pinForms caches pinFormRE: a hook matches the same lesson's span for the
// follow and the form checks.
var pinForms sync.Map

func compilePinForm(span string) *regexp.Regexp {
	loc := hexRunRE.FindStringIndex(span)
	if loc == nil {
		return nil
	}
	var b strings.Builder
	for _, part := range pinNameRE.Split(span[:loc[0]], -1) {
		if b.Len() > 0 {
			b.WriteString(`[\w.-]+`)
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	if b.Len() == 0 {
		return nil
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}

// pinNameRE: the names and numbers of a pinned span's form.
var pinNameRE = textutil.Lazy(`[A-Za-z0-9_][\w.-]*`)

// outsidePlace reports whether the lesson is about a place the edited
// file is not in: a prohibited signature of the lesson is a directory of
// the file its trigger edited (a name without dots or brackets), and the
// edited file has no directory of that name.
func (cu *cue) outsidePlace(c *candidate) bool {
	if callKind(c.trigger) != "edit" {
		return false
	}
	dirs := triggerDirs(c.trigger)
	if len(dirs) == 0 {
		return false
	}
	mine := strings.Split(strings.ReplaceAll(cu.editPath, `\`, "/"), "/")
	mine = mine[:len(mine)-1]
	for _, s := range c.lessonSignatures() {
		if !s.prohibited || strings.ContainsAny(s.text, "./()[]{} ") {
			continue
		}
		if slices.Contains(dirs, s.text) && !slices.Contains(mine, s.text) {
			return true
		}
	}
	return false
}

// triggerDirs are the directories of the file an edit trigger names, in
// order ("lib", "berthly_web", "controllers" for
// "Write `lib/berthly_web/controllers/x.ex`").
// sharesPlace reports whether the file the proposal edits is of the
// kind (extension) of the file the trigger names and shares a directory
// with it that names a place of the project (group_vars, inventories),
// not a generic one (src, app).
func (cu *cue) sharesPlace(trigger string) bool {
	f := triggerQuote(trigger)
	if f == "" || path.Ext(f) == "" || path.Ext(f) != path.Ext(cu.editPath) {
		return false
	}
	mine := strings.Split(path.Dir(cu.editPath), "/")
	for _, d := range triggerDirs(trigger) {
		if len(d) >= 5 && !genericDirs[strings.ToLower(d)] && slices.Contains(mine, d) {
			return true
		}
	}
	return false
}

// namesExtension reports whether said names files by extension ext
// (".ts": "a .ts file", "*.ts", "`.ts`").
func namesExtension(said, ext string) bool {
	if len(ext) < 2 || said == "" {
		return false
	}
	low := strings.ToLower(said)
	return textutil.BoundedIn(low, ext, func(j, end int) bool {
		return (j == 0 || strings.IndexByte(" (`*\"'", low[j-1]) >= 0) && (end == len(low) || !textutil.IdentByte(low[end]))
	})
}

// genericDirs are directory names most projects have: sharing one is no
// shared place.
var genericDirs = map[string]bool{"source": true, "sources": true, "tests": true, "specs": true, "internal": true,
	"components": true, "common": true, "utils": true, "config": true, "configs": true, "scripts": true, "resources": true,
	"public": true, "assets": true, "static": true, "packages": true, "modules": true, "services": true}

func triggerDirs(trigger string) []string {
	f := triggerQuote(trigger)
	if f == "" {
		return nil
	}
	parts := strings.Split(f, "/")
	return parts[:len(parts)-1]
}

// runsFailedProgram reports whether the call runs a program the failed
// command of negative result c ran, by its exact name: not otherProgram,
// whose families make python3 the python that was missing, and which
// looks past an interpreter to the tool it runs.
func (cu *cue) runsFailedProgram(c *candidate) bool {
	for _, p := range c.triggerPrograms() {
		if slices.Contains(cu.programs, p) {
			return true
		}
	}
	return false
}

// touchesReport reports whether the call holds a word of what the person
// reported in a failure report's lesson (failure words such as "still
// errors" aside), or a word of a path it names.
func (cu *cue) touchesReport(lesson string) bool {
	said, ok := observations.Reported(lesson)
	if !ok {
		return true
	}
	for _, w := range Words(said) {
		s := stem(w)
		if len([]rune(s)) < 3 || stopWords.Has(s) || lexicon.CueFailure.In(w) || lexicon.CueErrorWord.In(w) {
			continue
		}
		if cu.tokens[s] || cu.pathStems()[s] {
			return true
		}
	}
	return false
}

// pathStems are the stems of the parts of the paths of the files the call
// names (split at / \ . _ -), made once per call.
func (cu *cue) pathStems() map[string]bool {
	if cu.pathWords == nil {
		cu.pathWords = map[string]bool{}
		for _, f := range cu.files {
			for _, part := range strings.FieldsFunc(f.parent+"/"+f.base, func(r rune) bool { return strings.ContainsRune("/\\._-", r) }) {
				cu.pathWords[stem(strings.ToLower(part))] = true
			}
		}
	}
	return cu.pathWords
}

// touchesLesson reports whether the call holds a word of the lesson or of
// the person's words other than the words of the files it names, outside
// the clauses that say what is fine.
func (cu *cue) touchesLesson(c *candidate) bool {
	own := cu.pathStems()
	for _, cl := range splitClauses(c.lesson + "\n" + c.said) {
		if setsApart(cl) {
			continue // "ruff `# noqa: E501` on a long url line is fine": what it allows
		}
		for _, w := range Words(cl) {
			s := stem(w)
			if len([]rune(s)) < 3 || stopWords.Has(s) || own[s] {
				continue
			}
			if cu.tokens[s] {
				return true
			}
		}
	}
	return false
}

// handEditRE: the person says the file is not to be edited at all (by
// hand, manually, not touched), in the cue languages.
var handEditRE = textutil.Lazy(`(?i)\b(?:by hand|hand[- ]?edit\w*|manually|don'?t touch|do not touch|never touch|never edit|don'?t edit|do not edit|von hand|à la main|a mano|à mão|na ruko)\b|手で|手动|手工|手改|вручную|руками|직접 수정|수동`)

// fileChangeRE is a shell command that changes, moves or removes files:
// rm, mv, cp, tee, truncate, git rm/mv/checkout/restore/apply as a
// command (not `npm install`'s word), find -delete, a redirection into a
// file.
var fileChangeRE = textutil.Lazy(`(?:^|[;&|(])\s*(?:sudo\s+)?(?:rm|unlink|shred|truncate|mv|cp|tee|install|ln|touch|patch|dd)\s|(?:^|[;&|(])\s*git\s+(?:rm|mv|checkout|restore|apply)\b|\s-delete\b|(?:^|[^<>&0-9])>>?\s*[^&\s]`)

// allowedSpans are the code spans of the clauses of the person's words
// that say what is fine ("ruff `# noqa: E501` on a long url line is fine").
func (c *candidate) allowedSpans() []string {
	if !strings.Contains(c.said, "`") && !strings.Contains(c.lesson, "`") {
		return nil // no code span to allow: no clause to split
	}
	var out []string
	for _, cl := range splitClauses(c.said + "\n" + c.lesson) {
		if !strings.Contains(cl, "`") || !setsApart(cl) {
			continue
		}
		for _, m := range backtickRE.FindAllStringSubmatch(cl, -1) {
			if sp := strings.TrimSpace(m[1]); len(sp) >= 3 {
				out = append(out, sp)
			}
		}
	}
	return out
}

// onlyAllowed reports whether the edit is of the matched action type only
// through code the lesson says is fine: with the lesson's allowed spans
// taken out of the edit, it is no longer of that type ("no type: ignore
// ... `# noqa: E501` on a long url line is fine", and the edit adds a
// noqa: both suppress a linter, and the one it adds is the allowed one).
func (cu *cue) onlyAllowed(c *candidate) bool {
	if cu.kind != "edit" || len(cu.editQ.Input) == 0 || cu.tax == nil || c.matchedAT == "" {
		return false
	}
	raw, found := string(cu.editQ.Input), false
	for _, sp := range c.allowedSpans() {
		q, err := json.Marshal(sp)
		if err != nil {
			continue
		}
		if inner := string(q[1 : len(q)-1]); strings.Contains(raw, inner) {
			raw, found = strings.ReplaceAll(raw, inner, " "), true
		}
	}
	if !found || !json.Valid([]byte(raw)) {
		return false
	}
	return !slices.Contains(cu.tax.Classify(observations.Action{Tool: cu.editQ.Tool, Input: json.RawMessage(raw)}), c.matchedAT)
}

// evidenceBesidesFile reports whether an edit of the file a lesson names
// holds evidence that the lesson is about this edit, not only the file: the
// lesson is about editing the file at all (aboutTheFile), the refused
// write of it is made again, a secret goes where the lesson says none may,
// lines go that the lesson says must stay, the written code uses the
// pinned form the lesson advises, or the edit writes a word of the lesson.
func (cu *cue) evidenceBesidesFile(c *candidate) bool {
	return c.aboutTheFile() || cu.writesWhole() && c.refusedOn(c.fileHit) || c.aboutSecrets() && cu.carriesSecret() ||
		c.prohibitsRemoval() && !cu.onlyAdds() || cu.writesPinnedForm(c) || cu.touchesLesson(c)
}

// writesPinnedForm reports whether the written code uses the pinned form
// the lesson advises (pinnedForm).
func (cu *cue) writesPinnedForm(c *candidate) bool {
	_, used := cu.pinnedForm(c)
	return used
}

// writesWhole reports whether the edit writes its file whole (Write,
// write_file, an apply_patch that adds it) rather than changing part of it.
func (cu *cue) writesWhole() bool {
	switch strings.ToLower(cu.editQ.Tool) {
	case "write", "write_file", "create_file", "create":
		return true
	}
	return strings.Contains(string(cu.editQ.Input), "*** Add File:")
}

// refusedOn reports whether the person refused a call on file f: the
// lesson's excerpt shows the agent's call on it refused ("Agent: Write
// `LoginModels.kt` (refused)"). Writing f again is the refused action
// itself, whatever the code says.
func (c *candidate) refusedOn(f string) bool {
	base := path.Base(f)
	for _, l := range strings.Split(c.excerpt, "\n") {
		if strings.HasPrefix(l, "Agent:") && strings.Contains(l, "(refused)") && strings.Contains(l, base) {
			return true
		}
	}
	return false
}

// aboutTheFile reports whether the lesson is about editing the file at
// all: it is generated or written over by a tool, or not to be edited by
// hand.
func (c *candidate) aboutTheFile() bool {
	t := c.said + " " + c.lesson
	if generatedRE.MatchString(t) || regeneratedRE.MatchString(t) || handEditRE.MatchString(t) {
		return true
	}
	// "don't loosen deny.toml to get a dep through": the prohibition's
	// object is the file.
	first := strings.ToLower(firstLessonSentence(c.said))
	base := strings.ToLower(path.Base(c.fileHit))
	return base != "" && strings.Contains(first, base) && lexicon.CueNegation.In(first)
}

// otherKind reports whether the proposal is another kind of call than the
// corrected one: an edit for a lesson corrected on a shell command, or the
// other way round.
func (cu *cue) otherKind(c *candidate) bool {
	corrected := callKind(c.trigger)
	if corrected == "shell" && editsInPlace(refusedCommand(c.trigger)) {
		corrected = "edit" // `ssh box "sudo sed -i ..."` edits, as the cue reads it
	}
	if cu.kind == "" || corrected == "" || cu.kind == corrected {
		return false
	}
	// A type the person's own words name ("don't drop or reset the dev
	// database", said after an edit of a migration) is the action they
	// spoke of, whatever kind of call they corrected.
	return cu.tax == nil || slices.Contains(c.triggerTypes(cu.tax), c.candAT)
}

// allowedPlace returns the file or directory of the edited file that the
// lesson sends its code to or allows it in, named by the person and not by
// the corrected call: a file the lesson advises (advisedFile), or a
// directory path named in a clause without a negation. "" when none.
func (cu *cue) allowedPlace(c *candidate) string {
	for _, f := range cu.files {
		if !strings.Contains(c.trigger, f.base) && c.sendsTo(f.base) {
			return f.base
		}
	}
	path := "/" + strings.Trim(strings.ReplaceAll(cu.editPath, `\`, "/"), "/")
	for _, m := range dirPathRE.FindAllStringSubmatch(c.said, 6) {
		d := strings.Trim(m[1], "/.")
		if !strings.Contains(d, "/") || strings.Contains(c.trigger, d) || !strings.Contains(path, "/"+d+"/") {
			continue
		}
		if c.allowsPlace(strings.ToLower(d)) {
			return d
		}
	}
	return ""
}

// allowsPlace reports whether the person's words name place d (lower
// case) in a clause without a negation: where the work belongs ("hex only
// inside app/src/theme/"), not what they warn about.
func (c *candidate) allowsPlace(d string) bool {
	return clauseNames(c.said, d, false) && !negatesWord(c.said, d)
}

// dirPathRE is a relative path of two segments or more ("internal/store",
// "src/lib/"), not part of a URL.
var dirPathRE = textutil.Lazy(`(?:^|[\s(\x60'"])([A-Za-z_][\w.-]*(?:/[\w.-]+)+/?)`)

// lacksPinnedForm reports whether the lesson advises a pinned form
// (name@<sha>) and the written code uses no instance of that form at all.
func (cu *cue) lacksPinnedForm(c *candidate) bool {
	advised, used := cu.pinnedForm(c)
	return advised && !used
}

// pinnedForm reports whether the lesson advises a pinned form (name@<sha>)
// and whether the written code uses an instance of that form, pinned or
// not.
func (cu *cue) pinnedForm(c *candidate) (advised, used bool) {
	for _, s := range c.lessonSignatures() {
		if !s.prohibited && pinned(s.text) {
			re := pinFormRE(s.text)
			return re != nil, re != nil && re.MatchString(cu.written)
		}
	}
	return false, false
}

// outsideCommandPlace reports whether the lesson names a directory its
// refused command acted in ("everything under ml/data/"), and the
// proposed command names paths, none of them in it.
func (cu *cue) outsideCommandPlace(c *candidate) bool {
	named, inside := cu.commandPlace(c)
	return named && !inside
}

// insideCommandPlace reports whether the command names a path in a
// directory the person's words name and the refused command touched
// ("everything under ml/data/ is tracked with dvc": a `git add` of
// ml/data/raw/x.csv): a path in the lesson's scope is evidence beside a
// broad type, as the same file is.
func (cu *cue) insideCommandPlace(c *candidate) bool {
	_, inside := cu.commandPlace(c)
	return inside
}

// commandPlace reports whether the command names paths (named) and one of
// them is in a directory the person's words name and the refused command
// touched (inside).
func (cu *cue) commandPlace(c *candidate) (named, inside bool) {
	if c.place == 0 {
		named, inside = cu.findCommandPlace(c)
		c.place = 1
		if named {
			c.place |= 2
		}
		if inside {
			c.place |= 4
		}
	}
	return c.place&2 != 0, c.place&4 != 0
}

// findCommandPlace is commandPlace, worked out.
func (cu *cue) findCommandPlace(c *candidate) (named, inside bool) {
	kind := callKind(c.trigger)
	if cu.command == "" || kind != "shell" && kind != "edit" {
		return false, false
	}
	// The refused command, or the corrected edit's path ("app/android/...
	// में हाथ से कुछ मत बदलो", corrected on an edit of
	// app/android/app/src/main/AndroidManifest.xml).
	refused := c.trigger
	if kind == "shell" {
		refused = refusedCommand(c.trigger)
	}
	var dirs []string
	for _, m := range dirPathRE.FindAllStringSubmatch(c.said, 6) {
		if d := strings.Trim(m[1], "/."); strings.Contains(d, "/") && strings.Contains(refused, d+"/") {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		return false, false
	}
	for _, m := range cmdPathRE.FindAllString(cu.command, -1) {
		named = true
		for _, d := range dirs {
			if strings.Contains("/"+strings.TrimPrefix(m, "./"), "/"+d+"/") || strings.HasPrefix(strings.TrimPrefix(m, "./"), d) {
				return true, true
			}
		}
	}
	return named, false
}

// cmdPathRE is a path a command names: two segments or more.
var cmdPathRE = textutil.Lazy(`[\w.-]*[A-Za-z_][\w.-]*/[\w./-]+`)

// namesCode reports whether the lesson names code of a language: a
// prohibited code signature, or a span with brackets, a scope operator or
// an arrow (page.waitForResponse(...), #[expect(...)], Foo::bar), not a
// command (`make gen`).
func (c *candidate) namesCode() bool {
	if c.prohibitsCode() {
		return true
	}
	for _, s := range c.lessonSignatures() {
		if strings.ContainsAny(s.text, "()[]{}<>") || strings.Contains(s.text, "::") || strings.Contains(s.text, "->") {
			return true
		}
	}
	return false
}

// otherFileLanguage reports whether the proposal edits a file of another
// language than the file the lesson was corrected on, both known.
func (cu *cue) otherFileLanguage(c *candidate) bool {
	if cu.editPath == "" || callKind(c.trigger) != "edit" {
		return false
	}
	mine, theirs := languageOf(cu.editPath), languageOf(triggerQuote(c.trigger))
	return mine != "" && theirs != "" && mine != theirs
}

// prohibitsRemoval reports whether the lesson prohibits removing,
// renaming or renumbering something: a clause with a negation names a
// removal (lexicon.CueRemove, any language) or a renaming.
func (c *candidate) prohibitsRemoval() bool {
	said := c.said
	if said == "" {
		said = c.lesson
	}
	return clauseWith(said, true, func(cl string) bool { return lexicon.CueRemove.In(cl) || renameRE.MatchString(cl) })
}

var renameRE = textutil.Lazy(`\b(?:renam|renumber|reorder|reus)\w*`)

// composedRE: a lesson kb composed around the person's words, which it
// quotes ("...; the person reported: “...”", "as the person questioned
// it: “...”", observations/lesson.go).
var composedRE = textutil.Lazy(`\bthe person \w+(?: \w+)?: “`)

// matchTypes compares the action types: exact, or the same domain:verb.
// It reports whether the best match was on a broader type of the
// candidate's own domain (generalized).
func (cu *cue) matchTypes(c *candidate) (generalized bool) {
	runnerOnly := -1 // whether a runner's type is the way another tool ran: unknown until asked
	for i, pt := range cu.types {
		for j, ct := range c.types {
			if runnerTypes[ct] && runnerOnly < 0 {
				runnerOnly = 0
				tool := ranTool(c.trigger)
				if c.trigger == "" {
					tool = lessonRanTool(c.lesson)
				}
				if tool != "" && !allRunnerTypes(c.types) && !cu.runsNamedTool(c, tool) {
					runnerOnly = 1
				}
			}
			if runnerTypes[ct] && runnerOnly == 1 {
				// `poetry run black` is "running Python" only as the way
				// black ran: a lesson about black is not about `poetry run
				// python -c ...`.
				continue
			}
			s := 0.0
			switch {
			case pt == ct:
				s = 1
			case domainVerb(pt) == domainVerb(ct):
				s = 0.9
			default:
				continue
			}
			gen := false
			if j > 0 {
				s *= 0.85 // a secondary type of the candidate
				// A broader type of the same domain as the candidate's
				// primary one ("running tests" for a lesson about "running
				// the whole suite") is weaker evidence: the proposal is the
				// general case of what was corrected, not the case itself.
				if typeDomain(ct) == typeDomain(c.types[0]) && !cu.hasType(c.types[0]) {
					s *= 0.6
					gen = true
				}
			}
			if i > 0 {
				s *= 0.95
			}
			if s > c.typeScore {
				c.typeScore, c.matchedAT, c.candAT, generalized = s, pt, ct, gen
			}
		}
	}
	return generalized
}

// hasFlagsOf reports whether cmd has every flag of span (`bundle update
// --conservative` is not followed by `bundle update sidekiq`).
func hasFlagsOf(cmd, span string) bool {
	for _, f := range strings.Fields(strings.TrimSuffix(span, "…")) {
		if strings.HasPrefix(f, "-") && !wordIn(cmd, strings.SplitN(f, "=", 2)[0]) {
			return false
		}
	}
	return true
}

// withFlagsBetween reports whether a simple command of cmd runs the
// command span, word for word, with other flags among its words (not
// other arguments: `rm -rf ./build` is not `rm -rf /`).
func withFlagsBetween(cmd, span string) bool {
	// A span ending in "…" ends in a prefix (`go get -u ./...`).
	open := strings.HasSuffix(span, "…")
	sf := strings.Fields(strings.TrimSuffix(span, "…"))
	if len(sf) < 2 || strings.ContainsAny(span, "'\"`") || strings.Count(span, "…") > 1 || strings.HasPrefix(sf[0], "-") {
		return false
	}
	same := func(call string, k int) bool {
		return call == sf[k] || open && k == len(sf)-1 && strings.HasPrefix(call, sf[k])
	}
	if !strings.Contains(cmd, sf[0]) {
		return false
	}
	for _, part := range splitShell(cmd) {
		cf := strings.Fields(part)
		for i := range cf {
			if cf[i] != sf[0] {
				continue
			}
			k := 1
			for j := i + 1; j < len(cf) && k < len(sf); j++ {
				if same(cf[j], k) {
					k++
				} else if !strings.HasPrefix(cf[j], "-") || strings.HasPrefix(sf[k], "-") && strings.HasPrefix(cf[j], sf[k]) {
					break // another argument, or the span's flag spelled longer
				}
			}
			if k == len(sf) {
				return true
			}
		}
	}
	return false
}

// flagValueRE is a flag and its quoted value.
var flagValueRE = textutil.Lazy(`(--?[\w-]+)(?:=|\s+)(?:"[^"]*"|'[^']*')`)

// hasFlagValuesOf reports whether a call that passes the flags got
// (flagValues of its command) passes each flag of span that has a value
// with that value, or with one that begins with it: `--filter
// "Category!=Integration&FullyQualifiedName~Tax"` is the advised filter,
// narrowed.
func hasFlagValuesOf(got map[string][]string, span string) bool {
	want := flagValues(strings.TrimSuffix(span, "…"))
	for f, vs := range want {
		for _, v := range vs {
			if !slices.ContainsFunc(got[f], func(g string) bool { return strings.HasPrefix(g, v) }) {
				return false
			}
		}
	}
	return len(want) > 0
}

// flagValues maps each flag of a command to the values it is given
// ("--filter X", "--filter=X"), its words split and unquoted as the shell
// does (observations.ShellWords).
func flagValues(cmd string) map[string][]string {
	out := map[string][]string{}
	for _, part := range splitShell(cmd) {
		addFlagValues(out, observations.ShellWords(part))
	}
	return out
}

// flags is flagValues of the call's command, split once per call.
func (cu *cue) flags() map[string][]string {
	if cu.flagVals == nil {
		cu.flagVals = flagValues(cu.command)
	}
	return cu.flagVals
}

// addFlagValues adds the flags of the words fs and their values to out.
func addFlagValues(out map[string][]string, fs []string) {
	for i, f := range fs {
		if !strings.HasPrefix(f, "-") || f == "-" || f == "--" {
			continue
		}
		name, val, ok := strings.Cut(f, "=")
		if !ok {
			if i+1 >= len(fs) || strings.HasPrefix(fs[i+1], "-") {
				continue
			}
			val = fs[i+1]
		}
		out[name] = append(out[name], val)
	}
}

// runnerTypes are the types of a runner a command goes through (poetry
// run, npx): evidence only for a candidate that has no other type.
var runnerTypes = map[string]bool{"py:run": true, "pkg:npm": true}

// runsNamedTool reports whether the proposal runs the tool the trigger
// ran, or one the lesson names ("ruff check --fix replaces isort too").
func (cu *cue) runsNamedTool(c *candidate, tool string) bool {
	if slices.Contains(cu.programs, tool) {
		return true
	}
	named := toolWords(c.lesson, map[string]bool{})
	for _, p := range cu.programs {
		if _, runner := runners[p]; !runner && named[p] {
			return true
		}
	}
	return false
}

// flagAdvice reports whether the lesson's code spans are all flags
// ("`--stage dev`", "`-n`"), and its first sentence has one: the flag is
// the instruction. After a prohibition of its own ("Do not print secret
// values. Look at the metadata instead (`--query attributes`)") a flag is
// the instead-part of one tool, and the prohibition holds for any.
func flagAdvice(lesson string) bool {
	if !backtickRE.MatchString(firstLessonSentence(lesson)) {
		return false
	}
	spans := backtickRE.FindAllStringSubmatch(lesson, 8)
	for _, m := range spans {
		if !strings.HasPrefix(strings.TrimSpace(m[1]), "-") {
			return false
		}
	}
	return len(spans) > 0
}

// otherProgram reports whether the proposal runs none of the programs of
// the candidate's shell trigger (a runner's tool counts, not the runner).
func (cu *cue) otherProgram(c *candidate) bool {
	if callKind(c.trigger) != "shell" {
		return false
	}
	progs := c.triggerPrograms()
	if t := ranTool(c.trigger); t != "" {
		progs = []string{t}
	}
	for _, p := range progs {
		if _, runner := runners[p]; runner {
			continue
		}
		for _, t := range toolFamily(p) {
			if slices.Contains(cu.programs, t) {
				return false
			}
		}
	}
	return len(progs) > 0
}

// ranTool returns the tool a shell trigger ran through a runner
// (`poetry run black`: black, `npx prettier`: prettier), "" when it ran
// none or an interpreter.
func ranTool(trigger string) string {
	if callKind(trigger) != "shell" {
		return ""
	}
	return runTool(refusedCommand(trigger))
}

// lessonRanTool is ranTool for a lesson with no corrected call (a
// preference, a rule said for good): the tool the first command it quotes
// runs through a runner ("Always `pnpm vitest run <path>`": vitest).
func lessonRanTool(lesson string) string {
	for _, m := range backtickRE.FindAllStringSubmatch(lesson, 8) {
		if t := runTool(m[1]); t != "" {
			return t
		}
	}
	return ""
}

// runTool returns the tool cmd runs through a runner, "" when it runs
// none or an interpreter.
func runTool(cmd string) string {
	progs := programsOf(cmd)
	for i, p := range progs {
		if _, runner := runners[p]; runner && i+1 < len(progs) {
			switch progs[i+1] {
			case "python", "python3", "node", "bun", "deno", "ruby":
				continue
			}
			return progs[i+1]
		}
	}
	return ""
}

func allRunnerTypes(types []string) bool {
	for _, t := range types {
		if !runnerTypes[t] {
			return false
		}
	}
	return true
}

// matchPhrases: a trigger phrase matches when every content word of the
// phrase is in the cue.
func (cu *cue) matchPhrases(c *candidate) {
	for _, p := range c.phrases {
		st := stemSet(p)
		if len(st) == 0 {
			continue
		}
		all := true
		for s := range st {
			if !cu.tokens[s] {
				all = false
				break
			}
		}
		if all && c.typeScore < 0.9 {
			c.typeScore, c.phraseHit = 0.9, p
		}
	}
}

// matchFile: the same file, named by the proposal and by the candidate's
// trigger or lesson, makes a lesson about that file.
//
// A lesson whose prohibition names a kind of file in words ("no JSON
// fixtures for tests") is about a file whose path says the same words
// (apps/payments/fixtures/refunds.json): two of them, beyond the words
// every path has.
func (cu *cue) matchFile(c *candidate) {
	if cu.readOnly || cu.inspects {
		return
	}
	f := sameFile(c.files, cu.files)
	if f == "" {
		f = cu.kindOfFile(c)
	}
	if f == "" {
		f = cu.generatedKind(c)
	}
	if f == "" {
		f = cu.inNamedDir(c)
	}
	if f == "" && cu.editPath != "" && callKind(c.trigger) == "edit" && cu.sharesPlace(c.trigger) && c.aboutSecrets() &&
		(cu.carriesSecret() || slices.Contains(cu.types, "code:hardcoded-secret")) {
		// "a secret can't sit there in plaintext, group_vars is in git",
		// corrected on group_vars/edge/main.yml: a secret written into
		// another file of that kind and place (group_vars/all/main.yml,
		// host_vars/box.yml) is the same mistake.
		f = path.Base(cu.editPath)
	}
	if f == "" && cu.editPath != "" && callKind(c.trigger) == "shell" && namesExtension(c.said, path.Ext(cu.editPath)) &&
		c.aboutSecrets() && cu.carriesSecret() {
		// "secrets always with `pulumi config set --secret` ... never
		// written as a string in a .ts file", corrected on a command: an
		// edit that writes a secret into a file of that kind is what the
		// lesson names.
		f = path.Base(cu.editPath)
	}
	if f != "" {
		c.fileHit = f // a specific signal, whatever else matched
		c.typeScore = math.Max(c.typeScore, sameFileScore)
	}
}

// inNamedDir is a directory the person's words name as a path ("app/ios",
// "infra/dns", "db/changelog/changes/") that the proposal works in: the
// file an edit writes lies in it, or a command names a path in it. What
// the person said of a directory holds for every file in it, in whatever
// tool the agent reaches it ("don't change app/android or app/ios by
// hand", then a sed on app/android/build.gradle). A directory the lesson
// sends the work to is no place it warns about; a path of generic names
// only (src/components) is no place of the project. "" when none.
func (cu *cue) inNamedDir(c *candidate) string {
	if c.typ != observations.TypeCorrection || cu.editPath == "" && cu.command == "" || c.said == "" {
		return ""
	}
	for _, d := range namedDirs(c.said) {
		if c.sendsTo(d) || c.allowsPlace(d) {
			// "hex only inside app/src/theme/": a place the work belongs,
			// said without a negation.
			continue
		}
		p := cu.command
		if cu.editPath != "" {
			p = strings.ReplaceAll(cu.editPath, `\`, "/")
		}
		if pathHolds(strings.ToLower(p), d) {
			return d + "/"
		}
	}
	return ""
}

// namedDirs are the directory paths text names (dirPathRE), lower case:
// the last segment without a file extension, and a segment that is no
// generic directory name.
func namedDirs(text string) []string {
	var out []string
	for _, m := range dirPathRE.FindAllStringSubmatch(strings.ToLower(text), -1) {
		tok := strings.Trim(m[1], "./-*")
		segs := strings.Split(tok, "/")
		if len(segs) < 2 || path.Ext(segs[len(segs)-1]) != "" || slices.Contains(segs, "") || slices.Contains(out, tok) {
			continue
		}
		if slices.ContainsFunc(segs, func(sg string) bool { return len(sg) >= 2 && !genericDirs[sg] && !genericPathWords[sg] }) {
			out = append(out, tok)
		}
	}
	return out
}

// pathHolds reports whether p names a path inside directory d (lower
// case), as whole segments: "app/ios" in "/home/dev/x/app/ios/Info.plist"
// and in "sed -i ... app/android/build.gradle", not in "myapp/ios2/x", nor
// "bin/rails runner" (a path that ends there may be a file).
func pathHolds(p, d string) bool {
	return textutil.BoundedIn(p, d, func(j, end int) bool {
		return (j == 0 || !isPathByte(p[j-1]) || p[j-1] == '/') && end < len(p) && p[end] == '/'
	})
}

// kindOfFile is the file of the proposal whose directory and extension
// carry two words of the prose of the lesson's first sentence, "" when
// none does.
func (cu *cue) kindOfFile(c *candidate) string {
	if len(cu.files) == 0 || c.typ != observations.TypeCorrection {
		return ""
	}
	// The prose of the prohibition: names in code (`_generate_html_with_combined_link`)
	// are no kind of file.
	prose := backtickRE.ReplaceAllString(firstLessonSentence(withoutObject(c.lesson)), " ")
	prose = codeTokenRE.ReplaceAllString(prose, " ")
	said := stemSet(prose)
	for _, f := range cu.files {
		n := 0
		// The kind is in the directory and the extension (fixtures/,
		// .json); a file's own name is mostly its feature's.
		kind := f.parent[strings.LastIndexByte(f.parent, '/')+1:] + " " + strings.TrimPrefix(path.Ext(f.base), ".")
		for st := range stemSet(strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(kind)) {
			if said[st] && !genericPathWords[st] {
				n++
			}
		}
		if n >= 2 {
			return path.Join(f.parent, f.base)
		}
		// "Do not hand-edit prefab yaml.", corrected on an edit of
		// Assets/Prefabs/StopDetail.prefab: the kind named by the
		// extension alone, for another file of that extension in the
		// place the corrected one was in.
		if ext := stem(strings.ToLower(strings.TrimPrefix(path.Ext(f.base), "."))); n == 1 && said[ext] && !genericPathWords[ext] &&
			callKind(c.trigger) == "edit" && strings.HasSuffix(strings.ToLower(cu.editPath), "/"+f.base) && cu.sharesPlace(c.trigger) {
			return path.Join(f.parent, f.base)
		}
	}
	return ""
}

// regeneratedRE: the person says a file is written over by a tool
// ("thats sqlc output (DO NOT EDIT at the top)", "réécrits"), beside
// generatedRE's "generated".
var regeneratedRE = textutil.Lazy(`(?i)\b(?:output|overwritten|regenerat\w*|do not edit|überschrieben|écrasé|réécrits?|sobrescrit\w*)\b|생성`)

// generatedKind is a file of the proposal of the kind of the corrected
// file, when the person said that file is generated: the same compound
// extension (.sql.go, .g.dart, .pb.go), which the generator gives every
// file it writes. "" if none.
func (cu *cue) generatedKind(c *candidate) string {
	if len(cu.files) == 0 || c.typ != observations.TypeCorrection || !slices.ContainsFunc(cu.files, func(f fileRef) bool {
		return strings.Count(f.base, ".") >= 2
	}) || callKind(c.trigger) != "edit" {
		return ""
	}
	base := path.Base(triggerQuote(c.trigger))
	i := strings.IndexByte(base, '.')
	if i <= 0 || strings.Count(base[i:], ".") < 2 {
		return ""
	}
	for _, f := range cu.files {
		if f.base != base && strings.HasSuffix(f.base, base[i:]) && len(f.base) > len(base)-i && (generatedRE.MatchString(c.said+" "+c.lesson) || regeneratedRE.MatchString(c.said+" "+c.lesson)) {
			return path.Join(f.parent, f.base)
		}
	}
	return ""
}

// firstLessonSentence is the lesson's first sentence.
func firstLessonSentence(s string) string {
	if ss := sentences(s); len(ss) > 0 {
		return ss[0]
	}
	return s
}

// genericPathWords are words most paths carry: no kind of file.
var genericPathWords = map[string]bool{"src": true, "app": true, "apps": true, "lib": true, "pkg": true, "internal": true,
	"cmd": true, "test": true, "tests": true, "spec": true, "py": true, "js": true, "ts": true, "tsx": true, "go": true,
	"rs": true, "md": true, "main": true, "index": true, "util": true, "utils": true, "common": true, "core": true}

// sigScore is the relevance of a prohibited signature of the lesson found
// in the code an edit writes or the command a call runs.
const sigScore = 0.95

// matchSignatures looks for the lesson's signatures in what the proposal
// writes or runs: a prohibited one is a specific signal (it fires); an
// advised one alone means the proposal follows the lesson.
func (cu *cue) matchSignatures(c *candidate) {
	if cu.readOnly || cu.written == "" && cu.command == "" {
		return
	}
	// A refused shell command is what the lesson prohibits, whether or
	// not the person's words quote it: an advised span after it is the
	// instead-part ("not the global pod. `bundle exec pod install`").
	prohibits := c.typ == observations.TypeCorrection && callKind(c.trigger) == "shell"
	for _, s := range c.lessonSignatures() {
		prohibits = prohibits || s.prohibited
	}
	// An advised span is followed only where it stands outside what the
	// lesson prohibits: `env` in process.env is the prohibited read, not
	// the advised `env` of @/env.
	// (A prohibited span inside the advised one is not masked:
	// `$request` of `$request->validated()`.)
	outside := func(code, advised string) string {
		for _, p := range c.lessonSignatures() {
			if p.prohibited && len(p.text) > 2 && strings.Contains(p.text, advised) && !strings.Contains(advised, p.text) {
				code = strings.ReplaceAll(code, p.text, strings.Repeat(" ", len(p.text)))
			}
		}
		return code
	}
	for _, s := range c.lessonSignatures() {
		in := cu.written != "" && containsSpan(cu.written, s.text) || cu.command != "" && containsSpan(cu.command, s.text) ||
			s.prohibited && callIn(cu.written, s.text)
		if in && !s.prohibited {
			in = cu.written != "" && containsSpan(outside(cu.written, s.text), s.text) ||
				cu.command != "" && containsSpan(outside(cu.command, s.text), s.text)
		}
		if !in && s.prohibited {
			// fmt.Println prohibited is fmt.Printf too, and
			// context.Background() is context.TODO() (code.go).
			for _, v := range siblings(s.text) {
				if cu.written != "" && containsSpan(cu.written, v) || cu.command != "" && containsSpan(cu.command, v) {
					in = true
					break
				}
			}
		}
		if !in && s.prohibited && cu.command != "" && withFlagsBetween(cu.command, s.text) {
			// "Non `go get -u ./...`": `go get -u -t ./...` runs it too,
			// with a flag more.
			in = true
		}
		if !in && !s.prohibited && cu.written != "" {
			// Code imports a qualified name once and uses it bare: the
			// advised core.money.Money is followed by Money.from_cents(0).
			if n := lastName(s.text); n != "" && containsSpan(cu.written, n) {
				in = true
			}
			// The advised map or call with more members: %{booking_id:
			// booking.id, locale: ...} follows `%{booking_id: booking.id}`.
			if open, ok := openCollection(s.text); ok && strings.Contains(cu.squeezedWritten(), open+",") {
				in = true
			}
		}
		if !in && s.prohibited && cu.editPath != "" && namesFileKind(cu.editPath, s.text) {
			// "never edit the ModelSnapshot by hand": the file the edit
			// writes is the one the lesson names
			// (BillingDbContextModelSnapshot.cs).
			in = true
		}
		if !in && !s.prohibited && cu.command != "" && strings.HasPrefix(s.text, "-") && hasFlagValuesOf(cu.flags(), s.text) {
			// "always add `--filter \"Category!=Integration\"`": the advised
			// flag, with its value or a narrower one.
			in = true
		}
		if !in && !s.prohibited && cu.command != "" && strings.Contains(s.text, " ") &&
			(!strings.ContainsAny(s.text, `'"`) || !strings.ContainsAny(flagValueRE.ReplaceAllString(s.text, "$1"), `'"`) && hasFlagValuesOf(cu.flags(), s.text)) {
			// `poetry run ruff format ml/` is followed by `poetry run
			// ruff format src/x.py`: the same command path, other
			// arguments (not quoted code: `rails runner '...'` is
			// followed only by that code).
			if ps := commandPaths(s.text); len(ps) == 1 && strings.Count(ps[0], " ") >= 1 && samePath(ps[0], commandPaths(cu.command)) &&
				hasFlagsOf(cu.command, s.text) {
				in = true
			}
		}
		if !in && !s.prohibited && pinned(s.text) {
			// "pin every action to a full commit SHA, like
			// `actions/checkout@11bd… # v4.2.2`": a hash is never written
			// twice, so the advice is followed where every use of the
			// same form is pinned (azure/login@a65d… # v2.2.0).
			if followsPin(cu.written+"\n"+cu.command, s.text) {
				if c.follow == "" {
					c.follow = s.text
				}
				continue
			}
		}
		if !in {
			continue
		}
		if s.prohibited {
			// A lesson about money holds its every signature to code about
			// money: `to_f` and `round(2)` in a hit rate are no amount.
			if c.sigHit == "" && (!s.weak && !c.aboutMoney() || cu.onSubject(c, s.text)) {
				c.sigHit = s.text
			}
		} else if prohibits && (c.follow == "" || !strings.ContainsAny(c.follow, "({.") && strings.ContainsAny(s.text, "({.")) {
			// An instead-part: what the lesson advises in place of what
			// it prohibits; a call or selector (takeUntilDestroyed(this.
			// destroyRef)) before a bare name of it.
			c.follow = s.text
		}
	}
	if c.sigHit == "" && cu.written != "" && c.typ == observations.TypeCorrection {
		// "anything stateful gets RemovalPolicy.RETAIN": the code names
		// another constant of the same enum (RemovalPolicy.DESTROY), the
		// choice the lesson turns down.
		for _, s := range c.lessonSignatures() {
			if o := otherConstant(cu.written, s.text); !s.prohibited && o != "" {
				c.sigHit = o
				break
			}
		}
	}
	if c.sigHit == "" && cu.command != "" && c.said != "" {
		// "always bin/rubocop, it runs the bundled version": the lesson
		// advises a program by its path (a binstub, ./gradlew,
		// vendor/bin/pint); a call of the same program by its bare name
		// runs another copy of it.
		if p := bareProgram(c.said, cu.command, cu.programs); p != "" {
			c.sigHit = p
		}
	}
	if c.sigHit == "" && cu.command != "" {
		// "always `pnpm vitest run`, plain `pnpm vitest` starts the
		// watcher": the lesson names a command and the same command
		// extended; a call with the bare form and without the extension
		// is the one the lesson sets apart, whatever word says so.
		if s := bareForm(c.lessonSignatures(), cu.command); s != "" {
			c.sigHit = s
			if c.follow == s {
				c.follow = ""
			}
		}
	}
	if c.sigHit == "" && cu.command != "" && prohibits {
		// "nicht das globale flutter ... immer `fvm flutter …`", "always
		// `bundle exec rspec`": the lesson advises a program run through
		// another (a version manager, a bundle, an environment); a call of
		// the program on its own runs it outside that.
		if p := wrappedForm(c.lessonSignatures(), cu.programs); p != "" {
			c.sigHit = p
			if strings.HasSuffix(c.follow, " "+p) || strings.Contains(c.follow, " "+p+" ") {
				c.follow = ""
			}
		}
	}
	if c.sigHit != "" && len(c.follow) >= 6 && strings.ContainsAny(c.follow, "({.") && cu.written != "" && qualifies(cu.written, c.follow, c.sigHit) {
		// ".pipe(takeUntilDestroyed(this.destroyRef)).subscribe(...)",
		// "%{booking_id: booking.id} |> Worker.new() |> Oban.insert()": the
		// advised form is in the same statement as the prohibited name,
		// qualifying it the way the lesson asks.
		c.sigHit = ""
	}
	if c.sigHit != "" && c.follow != "" && strings.Contains(cu.written, c.sigHit) && !strings.Contains(strings.ReplaceAll(cu.written, c.follow, ""), c.sigHit) {
		// "nie $request->all(), zawsze $request->validated()": the
		// prohibited name is only found inside the advised span.
		c.sigHit = ""
	}
	if c.sigHit != "" && cu.editPath != "" && c.said != "" {
		// "don't call env() outside config/ ... put it in
		// config/services.php", "fmt.Errorf with %w is fine in
		// internal/store": the prohibited code, written in the file or
		// directory the lesson sends it to or allows it in, follows it.
		if p := cu.allowedPlace(c); p != "" {
			c.sigHit, c.follow = "", p
		}
	}
	if c.sigHit != "" && cu.otherLanguage(c) {
		// `gridwise-prod.marts...` corrected in a dbt model is not about a
		// bq command or a Python module that names the same table.
		c.sigHit = ""
	}
	if c.sigHit != "" {
		if def := cu.enclosingDef(c.sigHit); def != "" && advisesPlace(c.said, def) {
			// "no new bigquery.Client() per request in an endpoint: use
			// the shared one opened in the lifespan": the client created
			// in `def lifespan` is where the lesson puts it.
			c.sigHit, c.follow = "", def
		}
	}
	if c.sigHit == "" {
		// The refused call's objects, changed again, or its command path,
		// run again (refused.go).
		c.sigHit = cu.refusedHit(c)
		if c.sigHit != "" && strings.HasPrefix(c.follow, "-") && !strings.Contains(refusedCommand(c.trigger), c.follow) {
			// "locally match only ever runs with --readonly": the refused
			// command again, with the flag the lesson advises, follows it.
			c.sigHit = ""
		}
	}
	if c.fileHit != "" && c.sigHit == "" && c.matchedAT == "" && c.phraseHit == "" && cu.written != "" && c.prohibitsCodeNotFile() &&
		!(c.aboutSecrets() && cu.carriesSecret()) {
		// "kein Double für Geld", corrected in Restaurant.kt: the lesson
		// is about code, and this edit of the same file writes none of
		// it (a latitude in Doubles).
		c.fileHit, c.typeScore = "", 0
	}
	if c.sigHit == "" && c.said != "" {
		// "the hex values live only in src/theme/tokens.ts", "add it to
		// the Restaurant type in bff/schema.graphql": a file the lesson
		// sends the agent to is where it is followed, whether the file or
		// its type (api:schema) matched.
		for _, f := range cu.files {
			if !strings.Contains(c.trigger, f.base) && c.sendsTo(f.base) {
				c.follow, c.fileHit = f.base, ""
				break
			}
		}
	}
	if c.follow == "" && c.sigHit == "" && cu.command != "" {
		c.follow = cu.followsProgram(c)
		if c.follow == "" && (c.typeScore > 0 || c.fileHit != "") {
			// Only a candidate that would fire is read clause by clause.
			c.follow = cu.followsWords(c)
		}
	}
	if c.sigHit != "" && c.typeScore < sigScore {
		c.typeScore = sigScore
	}
}

// advisedPathRE is a program named by its path ("bin/rubocop",
// "./gradlew", "vendor/bin/phpunit").
var advisedPathRE = textutil.Lazy(`(?:^|[\s(` + "`" + `'"])((?:\.{1,2}/|[\w.-]+/)+)([a-z][\w.-]*)(?:$|[\s),;:` + "`" + `'"])`)

// wrapperScripts are the build tools' wrapper scripts a project checks in
// to pin the tool's version, and the tool each runs: advising the wrapper
// is advising against the tool installed globally.
var wrapperScripts = map[string]string{"gradlew": "gradle", "mvnw": "mvn", "sbtw": "sbt", "bazelisk": "bazel"}

// bareProgram is a program the command runs by its bare name while said
// advises it by its path, in a clause with an advice word and no negation
// before it; "" if none.
func bareProgram(said, cmd string, programs []string) string {
	if !strings.Contains(said, "/") {
		return ""
	}
	for _, cl := range splitClauses(said) {
		for _, m := range advisedPathRE.FindAllStringSubmatchIndex(cl, -1) {
			dir, prog := cl[m[2]:m[3]], cl[m[4]:m[5]]
			if strings.Contains(cmd, dir+prog) || strings.Contains(cmd, "/"+prog) {
				continue
			}
			if w, ok := wrapperScripts[prog]; ok && slices.Contains(programs, w) {
				return w // ./gradlew advised, gradle run: the project's pinned build tool bypassed
			}
			if !slices.Contains(programs, prog) {
				continue
			}
			before := cl[:m[2]]
			if adviceRE.MatchString(before) && !polarity(before, false) {
				return prog
			}
		}
	}
	return ""
}

// wrapperRE is a command that runs a program through another: the
// wrapper, the program, and what follows.
var wrapperRE = textutil.Lazy(`^([a-z][a-z0-9_-]*)\s+([a-z][a-z0-9_.-]*)(?:\s|…|$)`)

// wrappedForm is the program of an advised command span that runs it
// through a wrapper ("fvm flutter …", "bundle exec rspec" with its exec)
// when the call runs that program but not the wrapper; "" if none. A
// program that only reads or moves text (cat, grep, test) is no such
// program.
func wrappedForm(sigs []signature, programs []string) string {
	for _, s := range sigs {
		if f := strings.Fields(s.text); s.prohibited || len(f) < 2 || !slices.ContainsFunc(f[1:min(len(f), 3)], func(w string) bool { return slices.Contains(programs, w) }) {
			continue // the call runs none of the span's words after the first
		}
		span := programsOf(strings.TrimSuffix(s.text, "…"))
		m := wrapperRE.FindStringSubmatch(s.text)
		if m == nil || len(span) == 0 || span[0] != m[1] {
			continue
		}
		prog := m[2]
		if len(span) > 1 {
			prog = span[1] // `uv run pytest`: the program the runner runs
		} else if runners[m[1]] != "" {
			continue
		}
		if prog == m[1] || observations.QuietProgram(prog) || !slices.Contains(programs, prog) || slices.Contains(programs, m[1]) {
			continue
		}
		return prog
	}
	return ""
}

// bareForm is an advised command span that cmd runs while the lesson
// also advises it extended ("pnpm vitest" and "pnpm vitest run") and cmd
// has no extension of it; "" if none.
func bareForm(sigs []signature, cmd string) string {
	for _, s := range sigs {
		if s.prohibited || !strings.Contains(s.text, " ") || !containsSpan(cmd, s.text) {
			continue
		}
		extended, followed := false, false
		for _, t := range sigs {
			if !t.prohibited && strings.HasPrefix(t.text, s.text+" ") {
				extended = true
				followed = followed || containsSpan(cmd, t.text)
			}
		}
		if extended && !followed {
			return s.text
		}
	}
	return ""
}

// environments names the deployment environments a command or request
// speaks of, by the words people and their tools use for them
// ("$PROD_DATABASE_URL", "--namespace prod", "deploy.sh staging",
// "ledger-prod"). Local and development ones are one environment.
func environments(text string) map[string]bool {
	var out map[string]bool
	// A host's last label is no environment: "pkg.dev/...", "x.live:443".
	// "QuaysideStaging-Worker": the words of a CamelCase name.
	text = hostSuffixRE.ReplaceAllString(strings.ToLower(camelRE.ReplaceAllString(text, "$1 $2")), "$1$2")
	for _, m := range envVarRE.FindAllStringSubmatch(text, -1) {
		// MIX_ENV=test, RAILS_ENV=test: the framework's environment,
		// "test" among them, which as a plain word says nothing.
		if env := envValues[m[1]+m[2]]; env != "" {
			if out == nil {
				out = map[string]bool{}
			}
			out[env] = true
		}
	}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if env := envWords[w]; env != "" {
			if out == nil {
				out = map[string]bool{}
			}
			out[env] = true
		}
	}
	return out
}

// otherwiseHereRE says a part of the project is another matter (another
// story, normal, different, "I don't care"), beside what
// lexicon.CueAllowed calls acceptable ("is fine", "va bene").
var otherwiseHereRE = textutil.Lazy(`(?i)\b(?:(?:is|are)\s+(?:a\s+)?(?:different|another|other)\s+(?:story|matter|thing|case)|(?:is|are|it'?s)\s+(?:fine|normal|different)|don'?t\s+care|outra história|é normal|otra historia|es normal|autre chose|c'est normal|andere geschichte|ist normal|ist egal|altra storia|è normale|другое дело|там нормально)\b|是另一回事|没关系|は別|は普通|는 괜찮|는 달라`)

// setsApart reports whether clause cl says something is acceptable or
// works otherwise (otherwiseHereRE, lexicon.CueAllowed).
func setsApart(cl string) bool {
	return otherwiseHereRE.MatchString(cl) || lexicon.CueAllowed.In(strings.ToLower(cl))
}

// exemptPlace reports whether the person's words set apart a part of the
// project this call is in: a clause that names a directory of the call
// (its cd, its file) and says things are otherwise there, while the
// corrected call was elsewhere.
func (cu *cue) exemptPlace(c *candidate) bool {
	if !setsApart(c.said) {
		return false
	}
	where := map[string]bool{}
	for _, p := range append([]string{cu.editPath}, strings.Fields(cu.command)...) {
		if !strings.Contains(p, "/") {
			continue
		}
		segs := strings.Split(strings.Trim(p, "/"), "/")
		for _, d := range segs[:len(segs)-1] {
			if len(d) >= 4 && !genericPathWords[strings.ToLower(d)] {
				where[strings.ToLower(d)] = true
			}
		}
		if cu.editPath == "" && len(segs) > 0 && len(segs[len(segs)-1]) >= 4 {
			where[strings.ToLower(segs[len(segs)-1])] = true // `cd lambdas/tide-alerts`
		}
	}
	trig := strings.ToLower(c.trigger)
	at := "/" + strings.Trim(strings.ToLower(strings.ReplaceAll(cu.editPath, `\`, "/")), "/")
	for _, cl := range splitClauses(c.said) {
		if !setsApart(cl) {
			continue
		}
		// "stdout is free only for the CLI tools under src/bin/": a
		// directory path the clause names that holds this file, and did
		// not hold the corrected one.
		for _, m := range dirPathRE.FindAllStringSubmatch(cl, 6) {
			if d := "/" + strings.Trim(strings.ToLower(m[1]), "/.") + "/"; cu.editPath != "" && strings.Count(d, "/") > 2 &&
				strings.Contains(at, d) && !strings.Contains("/"+trig, d) {
				return true
			}
		}
		for _, w := range Words(strings.ToLower(cl)) {
			if where[w] && !strings.Contains(trig, w) {
				return true
			}
		}
	}
	return false
}

// allowsRE is a clause that allows, whatever negation word it holds:
// "reset/drop is only ok with MIX_ENV=test", "staging is fine".
var allowsRE = textutil.Lazy(`(?i)\b(?:is|are)\s+(?:only\s+|still\s+)?(?:ok|okay|fine|allowed|acceptable)\b|\bonly\s+(?:ok|okay|fine|allowed)\b`)

// envVarRE is a framework's environment variable set on a command line
// (lower-cased text): MIX_ENV, RAILS_ENV, RACK_ENV, NODE_ENV, APP_ENV,
// FLASK_ENV, DJANGO_ENV, ASPNETCORE_ENVIRONMENT, DOTNET_ENVIRONMENT.
var envVarRE = textutil.Lazy(`\b(?:mix|rails|rack|node|app|flask|django|symfony|laravel)_env=["']?([a-z]+)|\b(?:aspnetcore|dotnet)_environment=["']?([a-z]+)`)

// envValues are the environments a framework's variable names.
var envValues = map[string]string{"test": "test", "testing": "test", "dev": "dev", "development": "dev", "local": "dev",
	"prod": "prod", "production": "prod", "staging": "staging", "stage": "staging"}

// camelRE is a lower-case letter followed by an upper-case one.
var camelRE = textutil.Lazy(`(\p{Ll})(\p{Lu})`)

// hostSuffixRE is a domain's last label before a path or port.
var hostSuffixRE = textutil.Lazy(`(\w)\.[a-z]{2,12}([/:])`)

// envDomains are the action types that act on an environment (a deploy,
// a database, a cluster, infrastructure): for them the environment a call
// names is its target. For a commit or an edit it is only a word of a file
// name or a message.
var envDomains = map[string]bool{"deploy": true, "db": true, "sql": true, "k8s": true, "infra": true, "queue": true}

var envWords = map[string]string{"prod": "prod", "production": "prod", "prd": "prod", "live": "prod",
	"staging": "staging", "stage": "staging", "stg": "staging", "preprod": "staging", "uat": "staging",
	"dev": "dev", "development": "dev", "local": "dev", "localhost": "dev", "sandbox": "dev", "sbx": "dev", "testing": "test",
	// docker compose runs the local stack far more often than a shared one.
	"compose": "dev"}

// otherEnvironment reports whether the proposal names deployment
// environments and the call the lesson corrected named others, none of
// the proposal's: a lesson about production is not about staging.
func (cu *cue) otherEnvironment(c *candidate) bool {
	text := cu.command
	if text == "" && !cu.hasCall {
		text = cu.text
	}
	if text == "" || c.trigger == "" {
		return false
	}
	mine := environments(text)
	if len(mine) == 0 {
		return false
	}
	// "로컬 docker redis는 마음대로 해도 돼요", "locally do whatever you
	// want": the environment the person allows, which the corrected call
	// did not run in, is another one.
	if allowed := allowedEnvironments(c.said); len(allowed) > 0 {
		corrected := environments(c.trigger)
		for e := range mine {
			if allowed[e] && !corrected[e] {
				return true
			}
		}
	}
	theirs := environments(c.trigger)
	if theirs == nil {
		theirs = map[string]bool{}
	}
	// "nooit terraform apply lokaal op prod of staging": the environments
	// a negated clause of the lesson names are the lesson's too ("staging
	// is fine" names one it allows, and does not count), also when the
	// corrected command named none (it reached prod through a proxy).
	for _, cl := range splitClauses(c.said) {
		if negates(cl) && !allowsRE.MatchString(cl) {
			// A file named in the clause ("kept in plain text in
			// Pulumi.staging.yaml") is where, not which environment.
			for e := range environments(withoutFileNames(reducePaths(cl))) {
				theirs[e] = true
			}
		}
	}
	if len(theirs) == 0 {
		if len(mine) == 1 && mine["test"] {
			// MIX_ENV=test: the throwaway test environment, where the
			// corrected call (which named none) ran in the default one.
			return true
		}
		return false
	}
	if reachesFurther(theirs, mine) {
		return false
	}
	for e := range mine {
		if theirs[e] {
			return false
		}
	}
	return true
}

// localWordRE is "local" in the cue languages.
var localWordRE = textutil.Lazy(`(?i)\blocal(?:ly|host)?\b|\blokal\w*|\blocalmente\b|\ben local\b|\blocalement\b|локальн\w*|\blokalnie\b|로컬|ローカル|本地`)

// allowedEnvironments are the environments the clauses of the person's
// words that allow (setsApart) name: "staging is fine", "로컬 docker
// redis는 마음대로 해도 돼요" (local: dev).
func allowedEnvironments(said string) map[string]bool {
	var out map[string]bool
	for _, cl := range splitClauses(said) {
		if !setsApart(cl) {
			continue
		}
		envs := environments(cl)
		if localWordRE.MatchString(cl) {
			if envs == nil {
				envs = map[string]bool{}
			}
			envs["dev"] = true
		}
		for e := range envs {
			if out == nil {
				out = map[string]bool{}
			}
			out[e] = true
		}
	}
	return out
}

// reachesFurther reports whether a call on mine goes where more is at
// stake than the corrected call on theirs: production after staging.
// What the person stopped on the shared staging database ("no migrations
// by hand on the shared databases") holds on production; a lesson
// corrected on production says nothing of staging.
func reachesFurther(theirs, mine map[string]bool) bool {
	return theirs["staging"] && !theirs["prod"] && mine["prod"]
}

// followsWords returns the words of the person's reply to a refused
// command that name how to run it instead ("bundle exec. same as last
// time", "no. uv add"), when the proposal runs them and the refused
// command did not: a program the proposal runs and the word after it, as
// the person wrote them in a clause without a negation ("never chmod 777"
// names what not to run). "" otherwise.
func (cu *cue) followsWords(c *candidate) string {
	if c.typ != observations.TypeCorrection || c.said == "" || callKind(c.trigger) != "shell" || len(cu.programs) == 0 {
		return ""
	}
	refused := " " + strings.Join(strings.Fields(strings.ToLower(triggerQuote(c.trigger))), " ") + " "
	cmd := " " + strings.Join(strings.Fields(strings.ToLower(cu.command)), " ") + " "
	for _, cl := range splitClauses(c.said) {
		if negates(cl) {
			continue // "never chmod 777" names what not to run
		}
		words := strings.FieldsFunc(strings.ToLower(cl), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == '/')
		})
		for i := 0; i+1 < len(words); i++ {
			w, next := strings.Trim(words[i], "."), strings.Trim(words[i+1], ".")
			if w == "" || next == "" || !slices.Contains(cu.programs, w) {
				continue
			}
			pair := " " + w + " " + next + " "
			if strings.Contains(cmd, pair) && !strings.Contains(refused, pair) {
				return w + " " + next
			}
		}
	}
	return ""
}

// besides reports whether a command that runs what the lesson advises
// (c.follow) also does, apart from it, the corrected kind of action:
// "git pull --rebase && git push --force" follows "git pull --rebase" and
// force-pushes all the same.
func (cu *cue) besides(c *candidate) bool {
	if cu.tax == nil || len(c.types) == 0 {
		return false
	}
	if cu.command == "" {
		// An edit that writes the advised call ("cursor.execute(sql,
		// params)") and, in the same code, what the lesson was corrected
		// for (the SQL built with an f-string): the written code alone is
		// of the corrected type.
		return cu.written != "" && cu.writesType(c.types[0])
	}
	// The simple command that runs the advice goes whole ("bundle exec
	// pod install" for "bundle exec"); what the rest runs is classified.
	i := strings.Index(cu.command, c.follow)
	if i < 0 {
		return false
	}
	start := strings.LastIndexAny(cu.command[:i], ";&|\n") + 1
	end := len(cu.command)
	if j := strings.IndexAny(cu.command[i:], ";&|\n"); j >= 0 {
		end = i + j
	}
	rest := cu.command[:start] + " " + cu.command[end:]
	return slices.Contains(cu.tax.Classify(observations.Action{Command: rest}), c.types[0])
}

// writesType reports whether the code the proposal writes, read alone (no
// path, no tool), is of action type t: a content signature of t (SQL built
// from strings, floats for money, a bare except) is in it.
func (cu *cue) writesType(t string) bool {
	if cu.writtenTypes == nil {
		cu.writtenTypes = []string{}
		if in, err := json.Marshal(map[string]string{"content": cu.written}); err == nil {
			cu.writtenTypes = append(cu.writtenTypes, cu.tax.Classify(observations.Action{Tool: "Write", Input: in})...)
		}
	}
	return slices.Contains(cu.writtenTypes, t)
}

// pathOnly reports whether action type t of an edit comes from its path
// alone (any edit of .github/workflows/ is edit:ci-config), not from the
// code it writes.
func (cu *cue) pathOnly(t string) bool {
	if cu.kind != "edit" || cu.editPath == "" || cu.tax == nil {
		return false
	}
	if cu.pathTypes == nil {
		cu.pathTypes = []string{}
		if in, err := json.Marshal(map[string]string{"file_path": cu.editPath}); err == nil {
			cu.pathTypes = append(cu.pathTypes, cu.tax.Classify(observations.Action{Tool: cu.editQ.Tool, Input: in})...)
		}
	}
	return slices.Contains(cu.pathTypes, t) && !cu.writesType(t)
}

// testCode reports whether the proposal writes test code: a test file
// (the taxonomy's test:modify) or a test written inline (#[test],
// def test_, func Test..., it(...)).
// Computed once per cue, on the first candidate that asks.
func (cu *cue) testCode() bool {
	if cu.test == 0 {
		cu.test = -1
		if slices.Contains(cu.types, "test:modify") || cu.written != "" && testMarkRE.MatchString(cu.written) {
			cu.test = 1
		}
		for _, f := range cu.files {
			if cu.written != "" && testFileRE.MatchString(f.parent+"/"+f.base) {
				cu.test = 1
			}
		}
		if cu.editPath != "" && testFileRE.MatchString(strings.ReplaceAll(cu.editPath, `\`, "/")) {
			cu.test = 1 // src/test/java/.../FooIT.java
		}
	}
	return cu.test > 0
}

var testMarkRE = textutil.Lazy(`#\[test\]|#\[cfg\(test\)\]|(?m)^\s*(?:async\s+)?def test_|(?m)^\s*func Test|(?m)^\s*(?:it|test|describe)\(|@Test\b|@pytest\.|\bimport XCTest\b|\bXCTestCase\b|(?m)^\s*func test[A-Z]|\bRSpec\.describe\b|\buse ExUnit\.Case\b|\[(?:Fact|Theory|Test|TestMethod|TestCase)\]|\bextends TestCase\b`)

// testFileRE is the name or directory of a test file in the conventions of
// the common languages (foo_test.go, test_foo.py, foo.test.ts,
// foo_spec.rb, FooTests.swift, spec/, __tests__/, AppTests/).
var testFileRE = textutil.Lazy(`(?:^|/)(?:test_[^/]+|[^/]+(?:_test|_spec|\.test|\.spec|Tests?|IT)\.[A-Za-z]+|(?i:tests?|spec|__tests__|[a-z]+tests)/.*)$`)

// exemptsTestsRE: a lesson that says it does not hold in tests ("unwrap
// in tests is fine", "except in tests", "テストの中の unwrap() は大丈夫",
// "测试里可以", "테스트에서는 괜찮").
var exemptsTestsRE = textutil.Lazy(`(?i)\b(?:in|inside|within)\s+(?:the\s+|our\s+)?(?:unit\s+)?(?:tests?|specs?|test\s+(?:class(?:es)?|files?|code|suites?))\b[^.!?]{0,30}\b(?:fine|ok|okay|allowed|acceptable|no problem|(?:i\s+)?don'?t\s+care|doesn'?t\s+matter)\b|\b(?:fine|ok|okay|allowed|acceptable)\s+(?:in|inside|within|for)\s+(?:the\s+)?(?:unit\s+)?(?:tests?|specs?|test\s+(?:class(?:es)?|files?|code))\b|\b(?:except|but not|outside of|apart from)\s+(?:in\s+)?(?:the\s+)?tests?\b|\btests?\s+(?:are|is|can)\s+(?:fine|exempt|ok)\b|\b(?:tests?|specs?)\s+(?:can|may)\s+(?:\w+\s+){1,3}?(?:all (?:they|you) (?:want|like)|as much as (?:they|you) (?:want|like)|freely)\b|テスト.{0,60}(?:大丈夫|構いません|いい|OK)|测试.{0,60}(?:可以|没关系|没问题|无所谓|随便|不要紧)|테스트.{0,60}(?:괜찮|돼)|\b(?:en|dans)\s+(?:les\s+|los\s+)?tests?\b[^.!?]{0,40}\b(?:ok|permis|tu peux|on peut|peu importe|está bien|vale|se permite|puedes|podés|da igual|no importa)(?:[^\p{L}]|$)|\bn[oa]s?\s+testes?\b[^.!?]{0,40}\b(?:ok|pode|podes|tudo bem|tanto faz|não importa)(?:[^\p{L}]|$)|\bnei\s+test\b[^.!?]{0,40}\b(?:ok|va bene|puoi|non importa)\b|\bin\s+(?:den\s+)?Tests\b[^.!?]{0,30}\b(?:ok|erlaubt|in Ordnung|egal|darfst|kannst)\b`)

func exemptsTests(text string) bool { return exemptsTestsRE.MatchString(text) }

// onSubject reports whether the proposal's words (cu.tokens: the code an
// edit writes, the files it names) share one with the lesson besides sig: "no floats near
// money" is about code that speaks of money, totals or euros, not about a
// great-circle distance in floats.
func (cu *cue) onSubject(c *candidate, sig string) bool {
	if c.aboutMoney() {
		// "não usa float pra dinheiro", "not Float. money is never
		// floating point": money, in whatever language the lesson is in,
		// is in the code as amounts, prices, cents, currencies.
		return moneyInCode(cu.written)
	}
	// The subject is in the lesson's prose: not in its code spans
	// (`@map("fuel_surcharge_minor")` is an example, not what it is
	// about) nor in the paths it names (the corrected file's directory is
	// shared by every file next to it).
	prose := backtickRE.ReplaceAllString(withoutObject(c.lesson)+" "+c.said, " ")
	for st := range stemSet(withoutFileNames(reducePaths(prose))) {
		if st != stem(sig) && len(st) > 2 && cu.tokens[st] && !stopWords.Has(st) && !codeKeywords()[st] {
			return true
		}
	}
	return false
}

// aboutMoney reports whether the lesson or the person's words name money
// (moneyWordRE), in any of its languages.
func (c *candidate) aboutMoney() bool { return moneyWordRE.MatchString(c.lesson + " " + c.said) }

// moneyWordRE is money named in a lesson, in the languages of the other
// rules.
var (
	moneyWordRE = textutil.Lazy(`(?i)\b(?:money|monetary|cents?|currency|currencies|prices?|amounts?|invoices?|geld|geldbeträge|beträge|betrag|dinheiro|centavos?|dinero|argent|soldi|importi|denaro|деньг\w*|копе\w*|pieniądze|tiền|parayı|tutar|penge|penger|pengar|beløb|beløp|belopp|pénz|összeg|χρήματα|ποσό|гроші|сума|raha|summa|bani|sumă|peniaze|suma|diners|пари)\b|钱|金额|お金|金額|돈|금액|כסף|סכום`)
)

// moneyInCode reports whether code names money: a word of one of its
// identifiers (split at case changes and underscores: rate_per_gt_eur,
// fuelSurchargeMinor) is one of lexicon.MoneyCodeWords.
func moneyInCode(code string) bool {
	for _, id := range strings.FieldsFunc(code, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, w := range lexicon.IdentParts(id) {
			if lexicon.MoneyCodeWords.Has(strings.ToLower(w)) {
				return true
			}
		}
	}
	return false
}

// codeKeywords are the stems of words every program has: no subject in
// common. Built on first use (a hook pays for nothing it does not use).
var codeKeywords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("return import from def class self none true false func const let var else elif for while " +
		"print type struct interface package public private static void new this null nil async await try except catch finally " +
		"raise throw with yield lambda export default function string int bool list dict map error") {
		m[stem(w)] = true
	}
	return m
})

// lastName is the last identifier of a qualified name or an import
// ("core.money.Money" -> "Money", "from core.http import get_client" ->
// "get_client"), when it is long enough to be no everyday word; "" for a
// span that is one name already.
func lastName(span string) string {
	span = strings.TrimSuffix(strings.TrimSpace(span), "()")
	i := strings.LastIndexAny(span, ". ")
	if i < 0 {
		return ""
	}
	n := span[i+1:]
	if len(n) < 4 || strings.IndexFunc(n, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) >= 0 ||
		strings.ToLower(n) == n && !strings.Contains(n, "_") {
		return "" // Money, get_client; not "get" or "value"
	}
	return n
}

// followsProgram is the program the lesson advises when the proposal runs
// it and none of the corrected call's: after "use uv - `uv add X`" for a
// refused `pip install X`, `uv sync --locked` follows the lesson, even
// though it is not the advised command itself. "" otherwise (a lesson
// that advises one git command over another names git on both sides).
func (cu *cue) followsProgram(c *candidate) string {
	if slices.ContainsFunc(c.types, func(t string) bool { return !broadTypes[t] && slices.Contains(cu.types, t) }) {
		// `bin/rails runner 'Sidekiq.redis(&:flushdb)'` runs the advised
		// program to do the corrected thing itself; `mix ecto.drop` runs
		// the program of the advised `mix ecto.rollback` to do what the
		// lesson is about.
		return ""
	}
	corrected := map[string]bool{}
	for _, p := range c.triggerPrograms() {
		corrected[p] = true
	}
	for _, s := range c.lessonSignatures() {
		if s.prohibited {
			for _, p := range programsOf(s.text) {
				corrected[p] = true
			}
		}
	}
	if len(corrected) == 0 || slices.ContainsFunc(cu.programs, func(p string) bool { return corrected[p] }) {
		return ""
	}
	for _, s := range c.lessonSignatures() {
		if s.prohibited {
			continue
		}
		progs := programsOf(s.text)
		if _, ok := runners[firstOr(progs)]; ok && len(progs) > 1 && !slices.Contains(cu.programs, progs[0]) {
			// `bundle exec fastlane ios beta` advised: the global
			// fastlane is not that.
			continue
		}
		for i, p := range progs {
			if _, ok := runners[p]; ok && i == 0 && len(progs) > 1 {
				continue // the runner is not the tool
			}
			if !corrected[p] && slices.Contains(cu.programs, p) && !plainWordTools[p] {
				return p
			}
		}
	}
	return ""
}

// defRE is a function definition and its name, in the common languages
// (def, func, function, fn, fun, sub, defp).
var defRE = textutil.Lazy(`(?m)^[ \t]*(?:export\s+|pub(?:\([a-z]+\))?\s+|public\s+|private\s+|static\s+)*(?:async\s+)?(?:def|defp|func|function|fn|fun|sub)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)`)

// enclosingDef is the name of the function an edit writes span in: the
// last definition before it in the code it replaces and the code it
// writes, or "".
func (cu *cue) enclosingDef(span string) string {
	at := strings.Index(cu.written, strings.TrimSuffix(span, "…"))
	if at < 0 {
		at = len(cu.written)
	}
	text := cu.replaced + "\n" + cu.written[:at]
	ms := defRE.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 || len(ms[len(ms)-1][1]) < 4 {
		return ""
	}
	return ms[len(ms)-1][1]
}

// advisesPlace reports whether a clause of the person's words without a
// negation names def as a word ("Lifespan'da açılan paylaşımlı istemci",
// "open it once in init"): the place where the lesson puts the code.
func advisesPlace(said, def string) bool { return clauseNames(said, strings.ToLower(def), false) }

func firstOr(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

// asks reports whether the person's words open by asking
// (observations.Asks), as the activation index computed it.
func (c *candidate) asks() bool {
	if c.pre != nil {
		return c.pre.asks
	}
	return observations.Asks(c.said)
}

// personOnce reports whether the lesson is the person's own words, seen in
// one session and neither promoted nor a prohibition (a guess at what is
// going on prohibits nothing, whatever negation it holds): a request, a
// question or a guess of that kind is about the task it was made in,
// until it recurs. The cheap tests first; composedRE runs last.
func (c *candidate) personOnce() bool {
	return c.sessions < 2 && c.status != observations.StatusPromoted && (!c.negated() || observations.Guesses(c.lesson)) &&
		!composedRE.MatchString(c.lesson)
}

// negated reports whether the lesson holds a negation or a removal
// (negRE); the activation index holds it, so that a hook runs the
// expression over no lesson.
func (c *candidate) negated() bool {
	if c.pre != nil {
		return c.pre.negated
	}
	return negates(c.lesson)
}

// matchStems are the stems matchWords compares: of the candidate's text,
// or of its lesson for a typed candidate with a trigger; sorted. The
// activation index holds them.
func (c *candidate) matchStems() wordSet {
	if c.pre != nil {
		return c.pre.matchStems
	}
	text := c.text
	if len(c.types) > 0 && c.trigger != "" {
		text = c.lesson
	}
	return stemsOf(text)
}

// wordSet is a sorted set of words.
type wordSet []string

func (s wordSet) has(w string) bool { _, ok := slices.BinarySearch(s, w); return ok }

// specificTools are the words cue.specific takes for the tools the lesson
// names: the call kb quoted (the trigger, the "(about ...)") names the
// lesson's tool only for a lesson that prohibits something ("don't do
// that" after `npm install`), not for one that asks for something else
// ("reuse session_nav.html for that"); so the lesson's own words, or all
// of its text for a lesson without a trigger or with a negation. The
// activation index holds them.
func (c *candidate) specificTools() wordSet {
	if c.pre != nil {
		return c.pre.specificTools
	}
	named := toolWords(withoutObject(c.lesson), map[string]bool{})
	if c.trigger == "" || c.negated() {
		named = namedTools(c)
	}
	return wordSet(slices.Sorted(maps.Keys(named)))
}

// triggerPrograms are the programs the commands the trigger quotes run
// (`npm install`: npm); the activation index holds them.
func (c *candidate) triggerPrograms() []string {
	if c.pre != nil {
		return c.pre.trigPrograms
	}
	var out []string
	for _, m := range backtickRE.FindAllStringSubmatch(c.trigger, -1) {
		out = append(out, programsOf(m[1])...)
	}
	return out
}

// matchWords measures lexical overlap, as a precision check on lexical
// retrieval: the shared stems (c.overlap), their number and the share of
// the candidate's stems they cover. The trigger of a typed candidate
// quotes the corrected command: its words (flags, program names) are what
// the action type already compared, so only the lesson's words count.
func (cu *cue) matchWords(c *candidate) (n int, cov float64) {
	cs := c.matchStems()
	for _, s := range cs {
		if cu.tokens[s] {
			c.overlap = append(c.overlap, s)
		}
	}
	if !cu.hasCall && c.layer == LayerObservations && c.author != observations.AuthorAgent {
		// A request meets a correction in the person's words, not only in
		// the first sentence kb kept as the lesson: "prod schema changes
		// only go out with a release" is in what they said after "don't
		// run migrations against prod".
		for _, s := range c.saidStems() {
			if cu.tokens[s] && !cs.has(s) {
				c.overlap = append(c.overlap, s)
			}
		}
	}
	sort.Strings(c.overlap)
	n = len(c.overlap)
	if len(cs) > 0 {
		cov = float64(n) / float64(len(cs))
	}
	return n, cov
}

// broadTypes are the action types a routine call of its kind has: every
// edit of a test is test:modify, every commit git:commit, every install
// pkg:install. On a tool call such a type fires a lesson only with a
// specific signal beside it (cue.specific); the narrower types (a risky
// variant, a path scope, an environment) are the signal themselves.
var broadTypes = map[string]bool{"test:modify": true, "test:run": true, "git:commit": true, "git:add": true, "git:push": true,
	"git:merge": true, "git:rebase": true, "pkg:install": true, "pkg:npm": true, "pkg:pip": true, "pkg:upgrade": true,
	"pkg:uninstall": true, "py:run": true, "docs:edit": true, "lint:run": true, "style:format": true, "style:imports": true,
	"docker:build": true, "docker:run": true, "code:rename": true}

// specific reports whether a type match of a tool call has a specific
// signal beside the type: a type that is no broad one, a tool the lesson
// names (its trigger quotes it or its words say it: "no npm/npx/yarn"), or
// words of the lesson besides the type's own. A signature, the same file
// and a trigger phrase are checked before (match).
func (cu *cue) specific(c *candidate) bool {
	if !broadTypes[c.matchedAT] && !broadTypes[c.candAT] && !cu.wordOnlyType(c) {
		return true
	}
	if cu.insideCommandPlace(c) {
		return true
	}
	if cu.command != "" && actsOnEnvironment(c.types) && leavesEnvironment(c.trigger, cu.command) {
		// The corrected call ran against a shared environment ("dbt
		// build --target prod"): a call of the same broad type that names
		// none of its environments is no evidence.
		return false
	}
	if len(cu.programs) > 0 {
		// The call kb quoted (the trigger, the "(about ...)") names the
		// lesson's tool only for a lesson that prohibits something
		// ("don't do that" after `npm install`), not for one that asks
		// for something else ("reuse session_nav.html for that").
		named := c.specificTools()
		for _, p := range cu.programs {
			if _, ok := runners[p]; ok && len(cu.programs) > 1 {
				// `uv run pre-commit`: the tool is pre-commit, not the
				// runner that every Python call of the repo goes through.
				continue
			}
			for _, t := range toolFamily(p) {
				if named.has(t) {
					return true
				}
			}
		}
		if namesOtherTools(named.has, cu.programs) {
			return false // a lesson about another ecosystem's tools
		}
	}
	if cu.runsOtherToolThan(c) {
		return false
	}
	// The lesson speaks of the action in its words, not by naming a file
	// ("the change to `test_links.py`" is about that file, which the same
	// file matches, not about editing tests).
	if cu.tax != nil && sameDomainVerb(c.ownTypes(cu.tax), c.matchedAT) &&
		(c.trigger != "" && sameDomainVerb(c.triggerTypes(cu.tax), c.matchedAT) || c.trigger == "" && !c.prohibitsCode()) {
		// The corrected moment was this kind of action and the lesson
		// speaks of it ("committing": "use conventional commits"). A
		// lesson without a corrected moment that bans a piece of code
		// ("take the fmt.Println out before you commit") fires on that
		// code, not on every commit.
		return true
	}
	// The lesson's own words: less the "(about ...)" extraction added to
	// resolve a "that", which quotes the corrected call as the trigger
	// does.
	return namedOverlap(cu, c.ownStems(), c.matchedAT) >= minGeneralOverlap
}

// wordOnlyType reports whether the matched type came from the lesson's
// words alone, not from the command it corrected: "no consoles on prod",
// corrected on `kamal app exec ... console`, is not about console.log. Such a type is evidence like a broad one. Known for
// a corrected command only, whose trigger quotes it.
func (cu *cue) wordOnlyType(c *candidate) bool {
	if cu.tax == nil || c.matchedAT == "" || callKind(c.trigger) != "shell" {
		// An edit's trigger names the file, not what it wrote: its
		// content's types are not in the trigger's text.
		return false
	}
	return !slices.Contains(c.triggerTypes(cu.tax), c.matchedAT)
}

// newFileRE is advice to add a new file rather than change one, in the
// cue languages.
var newFileRE = textutil.Lazy(`(?i)\b(?:add|create|write|make|use) (?:a |an )?new (?:file|migration|version|one|script|changeset)\b|\bnew (?:file|migration) (?:instead|for)\b|neue[nr]? (?:Datei|Migration)|nouveau fichier|nouvelle migration|nuevo archivo|nueva migración|novo arquivo|nova migração|nuovo file|nuova migrazione|новый файл|новую миграцию|新(?:的)?(?:文件|迁移)|新しい(?:ファイル|マイグレーション)|새 (?:파일|마이그레이션)|nový soubor|novou migraci|yeni (?:dosya|migration)`)

// advisesNewFile reports whether the person's words send the agent to a
// new file (newFileRE) in a clause without a negation.
func advisesNewFile(said string) bool {
	if said == "" || !newFileRE.MatchString(said) {
		return false
	}
	for _, cl := range strings.FieldsFunc(said, func(r rune) bool { return strings.ContainsRune(",;.!?，。；！？—", r) }) {
		if newFileRE.MatchString(cl) && !negates(cl) {
			return true
		}
	}
	return false
}

// leavesEnvironment reports whether the corrected call (trigger) ran
// against a shared environment (prod, staging) and cmd names none of its
// shared environments (reachesFurther: production is no step away from
// staging).
func leavesEnvironment(trigger, cmd string) bool {
	theirs := environments(trigger)
	if !theirs["prod"] && !theirs["staging"] {
		return false
	}
	mine := environments(cmd)
	if reachesFurther(theirs, mine) {
		return false
	}
	return !mine["prod"] && !mine["staging"] || theirs["prod"] != mine["prod"] && theirs["staging"] != mine["staging"]
}

// actsOnEnvironment reports whether one of types acts on an environment.
func actsOnEnvironment(types []string) bool {
	return slices.ContainsFunc(types, func(t string) bool { return envDomains[typeDomain(t)] })
}

// sameDomainVerb reports whether one of types has the domain:verb of t.
func sameDomainVerb(types []string, t string) bool {
	for _, x := range types {
		if domainVerb(x) == domainVerb(t) {
			return true
		}
	}
	return false
}

// ownTypes are the action types the lesson speaks of in its own words:
// less the "(about ...)" extraction added and the names of files ("the
// change to `test_links.py`" is about that file, not about editing
// tests). The activation index holds them (compiled with the same
// taxonomy).
func (c *candidate) ownTypes(tax *observations.Taxonomy) []string {
	if !c.ownTyped && c.pre != nil && c.pre.taxKey != "" && c.pre.taxKey == tax.Key() {
		c.own, c.ownTyped = c.pre.ownTypes, true
	}
	if !c.ownTyped {
		c.own, c.ownTyped = tax.ClassifyText(withoutFileNames(withoutObject(c.lesson), c.files)), true
	}
	return c.own
}

// runsOtherToolThan reports whether a lesson with no corrected call (a
// preference, a rule said for good) quotes commands of its own tools and
// the call runs another tool: "Always `pnpm vitest run <path>`" is about
// vitest, not about `./mvnw test` or `pnpm exec playwright test`, which
// share only the broad type of running tests. A call that runs no tool
// of its own (`pnpm test`, a script) may be the lesson's.
func (cu *cue) runsOtherToolThan(c *candidate) bool {
	if c.trigger != "" || len(cu.programs) == 0 {
		return false
	}
	own := map[string]bool{}
	for _, m := range backtickRE.FindAllStringSubmatch(c.lesson, 8) {
		for _, p := range programsOf(m[1]) {
			if _, r := runners[p]; !r {
				own[p] = true
			}
		}
	}
	if len(own) == 0 {
		return false
	}
	other := false
	for _, p := range cu.programs {
		if _, r := runners[p]; r {
			continue
		}
		for _, t := range toolFamily(p) {
			if own[t] {
				return false
			}
		}
		other = true
	}
	return other
}

// namesOtherTools reports whether named holds a tool of a family none of
// programs belongs to, and programs hold one of a known family.
func namesOtherTools(named func(string) bool, programs []string) bool {
	mine := -1
	for i, f := range toolFamilies {
		for _, p := range programs {
			if slices.Contains(f, p) {
				mine = i
			}
		}
	}
	if mine < 0 {
		return false
	}
	for i, f := range toolFamilies {
		if i == mine {
			continue
		}
		for _, t := range f {
			if named(t) && !plainWordTools[t] {
				return true
			}
		}
	}
	return false
}

// prohibitsCode reports whether the lesson bans a signature.
// prohibitsCodeNotFile reports whether the lesson prohibits code that is
// no file name (fmt.Println, Double, !!), as opposed to a file
// (generated.ts) or nothing.
func (c *candidate) prohibitsCodeNotFile() bool {
	dirs := triggerDirs(c.trigger)
	for _, s := range c.lessonSignatures() {
		if s.prohibited && !strings.Contains(s.text, "/") && !looksLikeFileOrHost(s.text) && !c.namesFile(s.text) &&
			!slices.Contains(dirs, s.text) { // "group_vars is in git" names a directory
			return true
		}
	}
	return false
}

// namesFile reports whether span is one of the candidate's files, as the
// lesson text holds it once its paths are reduced ("render" for
// app/render.py).
func (c *candidate) namesFile(span string) bool {
	span = strings.TrimSpace(span)
	for _, f := range c.files {
		if span == f.base || span == strings.TrimSuffix(f.base, path.Ext(f.base)) {
			return true
		}
	}
	return false
}

// sourceRE: the words before a file something is made from.
var sourceRE = textutil.Lazy(`(?i)\b(?:builds?|built|generated|generates|made|compiled|renders?|rendered)\s+(?:\w+\s+)?from\s+(?:[\w.-]*/)*$`)

// generatedRE: the file named is itself generated ("... from openapi.yaml,
// and that one is generated too").
var generatedRE = textutil.Lazy(`(?i)\b(?:generated|generiert|généré|générés|generado|gerado|generato)\b|生成`)

// exceptRE: the words before the file a prohibition leaves out.
var exceptRE = textutil.Lazy(`(?i)(?:\bexcept(?:\s+for)?|\bbut not|\bapart from|\bother than|\baußer|\bexcepto|\bsauf|除了)\s*(?:[\w.*-]*/)*$`)

// sendsTo reports whether the lesson sends the work to file: a file it
// advises (advisedFile), or, for a lesson corrected on a shell command
// (`sudo apt-get install ...`), a file it names in a clause without a
// negation, in any language ("Geo の C++ 依存は全部 vcpkg マニフェスト
// （geo/vcpkg.json）経由").
func (c *candidate) sendsTo(file string) bool {
	return advisedFile(c.said, file) || callKind(c.trigger) == "shell" && clauseNames(c.said, strings.ToLower(file), false)
}

// advisedFile reports whether every mention of file (a base name) in the
// person's words is where they send the agent: in its sentence, an
// advice word comes before it after any negation ("add it in
// bff/schema.graphql", "the hex values live only in tokens.ts", "versions
// go in the version catalog — gradle/libs.versions.toml"), and there is
// one. A file described ("progenitor builds it from openapi.yaml") or
// prohibited is not advised.
func advisedFile(said, file string) bool {
	if said == "" || file == "" || !strings.Contains(said, file) {
		return false
	}
	seen := false
	for _, sent := range sentences(said) {
		for at := 0; ; {
			i := strings.Index(sent[at:], file)
			if i < 0 {
				break
			}
			i += at
			before := sent[:i]
			if sourceRE.MatchString(before) && !generatedRE.MatchString(sent[i+len(file):]) {
				// "XcodeGen builds it from ios/project.yml": the file
				// something is made from says nothing either way.
				at = i + len(file)
				continue
			}
			if exceptRE.MatchString(before) {
				// "every other locale except en.yml": the one file the
				// prohibition leaves out.
				seen, at = true, i+len(file)
				continue
			}
			lastNeg, lastAdvice := -1, -1
			for _, m := range negRE.FindAllStringIndex(before, -1) {
				lastNeg = m[0]
			}
			for _, m := range adviceRE.FindAllStringIndex(before, -1) {
				lastAdvice = m[0]
			}
			if lastAdvice < 0 && lastNeg < 0 && advisedAfter(sent[i+len(file):]) {
				// "schema.graphql に追加して": where the verb comes last
				// (Japanese, Korean, Turkish), the advice follows the file
				// in its clause.
				lastAdvice = 0
			}
			if lastAdvice < 0 || lastAdvice < lastNeg {
				return false
			}
			seen, at = true, i+len(file)
		}
	}
	return seen
}

// advisedAfter reports whether the clause that rest opens (up to a comma,
// a colon or a sentence end, in any script) holds an advice word and no
// negation.
func advisedAfter(rest string) bool {
	if i := strings.IndexAny(rest, ",;:、，；："); i >= 0 {
		rest = rest[:i]
	}
	return adviceRE.MatchString(rest) && !negRE.MatchString(rest)
}

func (c *candidate) prohibitsCode() bool {
	for _, s := range c.lessonSignatures() {
		if s.prohibited {
			return true
		}
	}
	return false
}

// toolFamilies are the tools that stand in for one another: a lesson that
// names one of them ("managed with uv", "no npm/npx/yarn in here") is about
// a call of any of them, and not about a call of another ecosystem's.
var toolFamilies = slices.Concat([][]string{
	{"node", "npm", "npx", "pnpm", "yarn", "bun", "deno", "corepack", "jest", "vitest", "mocha", "tsc", "eslint", "vite", "webpack"},
	{"cmake", "ctest", "gcc", "g++", "clang", "clang++", "ninja", "conan", "vcpkg", "bazel"},
	{"python", "python3", "pip", "pip3", "uv", "uvx", "poetry", "pipenv", "pytest", "conda", "pipx"},
	{"go", "gofmt"},
	{"cargo", "rustc", "rustup"},
	{"ruby", "gem", "bundle", "bundler", "rails", "rake", "rspec"},
	{"mvn", "mvnw", "gradle", "gradlew", "java"},
	{"kubectl", "helm", "kustomize"},
	{"dotnet", "nuget", "msbuild"},
	{"mix", "elixir", "iex", "rebar3"},
	{"php", "composer", "artisan", "phpunit", "pest"},
	{"dart", "flutter"},
	{"swift", "xcodebuild"},
}, toolAliases) // a tool under another of its names is of its family too

// toolAliases are one tool under its other names (an alias, a fork, a
// wrapper), the first the name commandKeys knows it by. toolFamilies
// holds them too.
var toolAliases = [][]string{
	{"serverless", "sls", "osls"},
	{"flyctl", "fly"},
	{"terraform", "tofu", "terragrunt"},
	{"docker", "docker-compose", "podman", "podman-compose"},
	{"eas", "eas-cli", "expo"},
	{"ansible", "ansible-playbook"},
	{"redis-cli", "valkey-cli", "keydb-cli"},
	{"mysql", "mariadb", "mycli"},
	{"psql", "pgcli"},
	{"mongo", "mongosh"},
	{"kafka-topics", "kafka-topics.sh"},
	{"gh", "hub"},
}

// languageTool is a language (or its framework) as a request names it, or
// as languageOf names a file's, and
// a program of its family in toolFamilies: "the C++ geo library" is
// cmake's world, not npm's.
var languageTool = map[string]string{"python": "python", "django": "python", "javascript": "node", "typescript": "node",
	"nodejs": "node", "react": "node", "vue": "node", "angular": "node", "svelte": "node", "golang": "go", "rust": "cargo",
	"ruby": "ruby", "rails": "ruby", "java": "java", "kotlin": "gradle", "c#": "dotnet", "csharp": "dotnet", ".net": "dotnet",
	"elixir": "mix", "phoenix": "mix", "php": "php", "laravel": "php", "dart": "dart", "flutter": "dart", "swift": "swift",
	"c++": "cmake", "cpp": "cmake", "cmake": "cmake",
	// languageOf's names of a file's language: "run the tests for
	// AddressForm.vue" names Vue's world.
	"js": "node", "jvm": "java", "c": "cmake", "go": "go", "dotnet": "dotnet"}

// languageRE finds languageTool's names as words.
var languageRE = textutil.Lazy(`(?i)(?:^|[^\w+#.])(python|django|javascript|typescript|nodejs|react|vue|angular|svelte|golang|rust|ruby|rails|java|kotlin|c#|csharp|\.net|elixir|phoenix|php|laravel|dart|flutter|swift|c\+\+|cpp|cmake)(?:$|[^\w+#])`)

// fileExtRE is a file name with an extension in prose.
var fileExtRE = textutil.Lazy(`(?:^|[\s(\x60'"])[\w./-]*\w\.([a-z]{1,6})(?:$|[\s),.:;!?\x60'"])`)

// otherEcosystem reports whether text names a language (by name, or by a
// file of its extension) whose tools are of another family than every
// tool the lesson names (named), and names none of the lesson's.
func otherEcosystem(text string, named wordSet) bool {
	var langs []string
	for _, m := range languageRE.FindAllStringSubmatch(text, 4) {
		langs = append(langs, strings.ToLower(m[1]))
	}
	for _, m := range fileExtRE.FindAllStringSubmatch(text, 4) {
		if l := languageOf("f." + m[1]); languageTool[l] != "" {
			langs = append(langs, l)
		}
	}
	if len(langs) == 0 {
		return false
	}
	lesson := map[int]bool{}
	for i, f := range toolFamilies {
		for _, t := range f {
			if named.has(t) && !plainWordTools[t] {
				lesson[i] = true
			}
		}
	}
	if len(lesson) == 0 {
		return false
	}
	for _, l := range langs {
		tool := languageTool[l]
		for i, f := range toolFamilies {
			if slices.Contains(f, tool) && lesson[i] {
				return false
			}
		}
	}
	return true
}

func toolFamily(p string) []string {
	for _, f := range toolFamilies {
		if slices.Contains(f, p) {
			return f
		}
	}
	return []string{p}
}

// plainWordTools are program names that are also everyday words ("go
// ahead", "make sure"): they name a tool only in code (a backtick span,
// the trigger's quoted command).
var plainWordTools = map[string]bool{"go": true, "make": true, "just": true, "task": true, "open": true, "run": true, "test": true}

// namedTools are the words of a candidate that may name a tool: every
// word of its code spans and quoted commands, and its other words but
// those that are everyday words too.
func namedTools(c *candidate) map[string]bool { return toolWords(c.text, map[string]bool{}) }

// withoutObject is a lesson less the "(about ...)" that extraction adds
// to name what its "that" or "it" refers to (observations/lesson.go).
func withoutObject(lesson string) string {
	if i := strings.LastIndex(lesson, " (about "); i >= 0 && strings.HasSuffix(strings.TrimSpace(lesson), ").") {
		return lesson[:i]
	}
	return lesson
}

// toolWords adds to set the words of text that may name a tool: every
// word of its code spans (stop words too: `make deploy`, `go test`), and
// its other words but everyday ones.
func toolWords(text string, set map[string]bool) map[string]bool {
	for _, m := range backtickRE.FindAllStringSubmatch(text, -1) {
		for _, w := range strings.FieldsFunc(strings.ToLower(m[1]), notWordRune) {
			set[w] = true
		}
	}
	for _, w := range Words(strings.ToLower(backtickRE.ReplaceAllString(text, " "))) {
		if !plainWordTools[w] {
			set[w] = true
		}
	}
	return set
}

// ruledOut reports whether a type match is no evidence after all: a
// broader type without the lesson's own words, a proposal that follows or
// is what the lesson advises, an incidental type, or a question that names
// nothing of the lesson.
func (cu *cue) ruledOut(c *candidate, generalized bool) bool {
	// A proposal with a prohibited signature in it follows nothing.
	// Nor is it the general case of what was corrected: the lesson
	// names what it does ("no reset --hard" on `git reset --hard && git
	// switch`, after a lesson corrected on `git checkout -- .`).
	return generalized && c.sigHit == "" && lessonOverlap(cu, c.lessonStems(), c.matchedAT) < minGeneralOverlap && !cu.insideCommandPlace(c) || c.sigHit == "" && cu.follows(c) || cu.incidental(c) || c.sigHit == "" && cu.advised(c) ||
		cu.question && lessonOverlap(cu, c.lessonStems(), c.matchedAT) == 0 || c.sigHit == "" && cu.complies(c)
}

// complies reports whether the call already runs what a positive lesson
// with no corrected call prescribes: "Always `pnpm vitest run <path>`" on
// `pnpm vitest run src/a.spec.ts`, "Always bin/rubocop, it runs the
// bundled version" on `bin/rubocop -a`, have nothing to add. The
// prescribed command is, in a clause with no negation, a quoted one's
// words up to its first placeholder (at least two, in order in the call)
// or a program written as a path, the program the call runs. A clause
// that prohibits ("never `pnpm vitest` without run") prescribes nothing.
func (cu *cue) complies(c *candidate) bool {
	if c.trigger != "" || cu.command == "" {
		return false
	}
	call := " " + strings.Join(strings.Fields(strings.ToLower(cu.command)), " ") + " "
	for _, cl := range splitClauses(c.lesson) {
		if negates(cl) {
			continue
		}
		for _, m := range backtickRE.FindAllStringSubmatch(cl, 8) {
			var words []string
			for _, w := range strings.Fields(strings.ToLower(m[1])) {
				if strings.ContainsAny(w, "<>$[]{}…") || strings.Contains(w, "...") {
					break
				}
				words = append(words, w)
			}
			if len(words) >= 2 && strings.Contains(call, " "+strings.Join(words, " ")+" ") {
				return true
			}
		}
		for _, f := range c.files {
			// The lesson's paths are reduced to their names (reducePaths):
			// "Always bin/rubocop" reads "Always rubocop", bin/rubocop a
			// file of the candidate.
			if f.parent != "" && slices.Contains(cu.programs, f.base) && wordIn(cl, f.base) &&
				(strings.Contains(call, " "+f.parent+"/"+f.base+" ") || strings.Contains(call, "/"+f.parent+"/"+f.base+" ")) {
				return true
			}
		}
	}
	return false
}

// triggerTypes are the action types the candidate's trigger classifies
// as, classified once per candidate.
func (c *candidate) triggerTypes(tax *observations.Taxonomy) []string {
	if !c.trigTyped && c.pre != nil && c.pre.taxKey != "" && c.pre.taxKey == tax.Key() {
		c.trigTypes, c.trigTyped = c.pre.trigTypes, true
	}
	if !c.trigTyped {
		c.trigTypes, c.trigTyped = tax.ClassifyText(c.trigger), true
	}
	return c.trigTypes
}

// saidStems are the stems of the person's words in the excerpt (none
// for an agent's memory); the activation index holds them.
func (c *candidate) saidStems() wordSet {
	if c.pre != nil {
		return c.pre.saidStems
	}
	if c.author == observations.AuthorAgent {
		return nil
	}
	return stemsOf(personWordsOf(c.excerpt))
}

// enumConstRE is a constant of an enum or class, Type.CONSTANT.
var enumConstRE = textutil.Lazy(`^([A-Z][A-Za-z0-9]*)\.([A-Z][A-Z0-9_]+)$`)

// otherConstant is the first Type.CONSTANT of code with the type of the
// advised span and another constant ("RemovalPolicy.DESTROY" for
// "RemovalPolicy.RETAIN"), when code does not also name the advised one;
// "" otherwise.
func otherConstant(code, advised string) string {
	m := enumConstRE.FindStringSubmatch(advised)
	if m == nil || containsSpan(code, advised) {
		return ""
	}
	other := ""
	textutil.BoundedIn(code, m[1]+".", func(j, end int) bool {
		k := end
		for k < len(code) && (code[k] >= 'A' && code[k] <= 'Z' || code[k] >= '0' && code[k] <= '9' || code[k] == '_') {
			k++
		}
		if k-end < 2 || code[end:k] == m[2] || j > 0 && textutil.IdentByte(code[j-1]) || k < len(code) && textutil.IdentByte(code[k]) {
			return false
		}
		other = m[1] + "." + code[end:k]
		return true
	})
	return other
}

// matchCommand is the evidence of a call that runs the refused command
// again, however its arguments differ and under whichever name of the
// tool (`sls deploy` after a refused `npx serverless deploy`), when
// nothing else matched: no type, signature or file. A command of a
// type is judged by its type. Only a single refused command counts
// (refusedKeys).
func (cu *cue) matchCommand(c *candidate) {
	if c.typeScore > 0 || c.sigHit != "" || c.fileHit != "" || len(cu.cmdKeys) == 0 {
		return
	}
	keys := refusedKeys(c.trigger)
	if len(keys) == 0 || inspection(refusedCommand(c.trigger)) {
		// Only looking (a preview, a status, a SELECT) was not what the
		// person corrected.
		return
	}
	if k := sameCommand(keys, cu.cmdKeys); k != "" {
		c.cmdHit = k
		c.typeScore = sameFileScore
	}
}
