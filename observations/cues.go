package observations

import (
	"strings"

	"github.com/kbmem/kb/internal/lexicon"
	"github.com/kbmem/kb/internal/textutil"
)

// ---------------------------------------------------------------------------
// Cues.

var (
	// Leading interjections and fillers that carry no instruction.
	leadRE = textutil.Lazy(`(?i)^\s*(oh|ah|hmm+|hm+|ugh|argh|wait( a (sec|second|minute))?|ok(ay)?|well|so|sorry|actually|uh|um|err|hey|look|listen|nope|nah|no+|wrong|incorrect|absolutely not|definitely not|certainly not|not like that|not that|stop( it)?|again|seriously|come on|please no|fgs|ffs|(as )?i (told you|said)( (before|already|earlier|last (week|time)|twice))?)\b\s*[,.!:;—–-]*\s*`)
	// A strong redirect at the start of a message.
	strongStartRE = textutil.Lazy(`(?i)^\s*((oh|hmm+|ugh|wait|well|sorry|actually)[,.! ]+)?(no+\b|nope\b|nah\b|don'?t\b|do not\b|never\b|stop\b|wrong\b|incorrect\b|not like that|not that\b|absolutely not|definitely not|please (don'?t|do not|stop|never|no)\b|that'?s (wrong|not (what|right|it|how))|this is (wrong|not (what|right|how))|that is (wrong|not)|this isn'?t|that isn'?t|undo (that|this|it)|revert (that|this|it)|why (did|would|are) you|i (said|told you|asked( you)?)\b|as i said|you (should(n'?t)?|forgot|missed|didn'?t|broke)\b|instead\b|rather\b|use \S+( \S+)? (instead|not)\b)`)
	// Conversation closers and acknowledgements after "no".
	closerRE        = textutil.Lazy(`(?i)^\s*(no+|nope|nah)\b[,.! ]*(thanks|thank you|that'?s (all|it|fine|great|everything)|worries|problem|prob|need|rush|all good|looks good|it'?s (fine|ok|okay|good|all good)|more|further|other|i'?m good|we'?re good|questions?|not (now|yet|really)|just curious|that'?s (ok|okay))\b`)
	imperativeNegRE = textutil.Lazy(`(?i)(^|[,;:.!]\s*|\b(and|but|please|so|just|we|you)\s+)(don'?t|do not|never|always)\s+\w+`)
	ohNoRE          = textutil.Lazy(`(?i)^\s*(oh|uh|ah)[,]?\s+no+\b`)
	holdOnRE        = textutil.Lazy(`(?i)^\s*((ah|oh|uh|um+|hmm+|erm|ok|okay)[,.! ]+)?(wait|hold on|hang on)\b`)
	neverMindRE     = textutil.Lazy(`(?i)^\s*(never ?mind|nvm|forget (it|that|about it)|scratch that)\b`)
	// Redirect cues anywhere in a message.
	moderateRE = textutil.Lazy(`(?i)\binstead\b|\brather than\b|\bi (said|told you)\b|\bnot what i (asked|wanted|meant)\b|\bthat'?s not (what|how)\b|\byou (should(n'?t)?|forgot|missed)\b|(^|[.!;:,]\s*|\b(and|but|please|so|just)\s+)(don'?t|do not|never|always|stop)\s+\w+|\bi don'?t (want|like)\b|\bwe don'?t (need|want|use)\b|\bdo we (even|really) need\b|\bwhy (not|did you|would you)\b`)
	// Yes/no answer at the start of a message.
	yesNoRE = textutil.Lazy(`(?i)^\s*(no+|nope|nah|yes|yeah|yep|sure|correct|right)\b`)
	// The agent asking the person something.
	askedRE = textutil.Lazy(`(?i)(\?\s*$|\b(would you like|do you want|should i|shall i|want me to|let me know if|which (one|option) would you)\b)`)
	// Instruction shapes.
	directiveStartRE   = textutil.Lazy(`(?i)^\s*((please|just|first|then|also|and|but|so|instead|now|ok(ay)?|hey|hi|hello|always|never|only)[,]?\s+)*(analy[sz]e|give|tell|use|run|add|remove|forget|delete|change|adjust|align|correct|rework|redo|tweak|amend|keep|put|make|call|read|write|fix|move|rename|stage|commit|push|check|try|set|install|update|revert|undo|stop|go|do|don'?t|avoid|leave|skip|wait|switch|follow|replace|create|save|drop|split|merge|test|look|ask|start|restore|copy|include|exclude|pass|return|store|load|wrap|handle|log|pin|bump|upgrade|downgrade|edit|modify|open|close|prefer|consider|stick|take|pick|choose|print|show|hide|ignore|mark|point|import|export|define|implement|refactor|simplify|extract|inline|combine|reuse|group|sort|order|limit|format|document|annotate|let'?s|lets|read|verify|ensure|make sure|remember|no\s+\w+|never|always|only|build|deploy|generate|regenerate|clean|lint|mock|separate|batch|retry|cache|fetch|send|parse|validate|escape|quote|sanitize|use)\b`)
	directiveAnyRE     = textutil.Lazy(`(?i)\b(instead|rather than|should|shouldn'?t|need to|needs to|have to|has to|must|i want|i'?d like|i would like|i'?d love|i'?d prefer|i'?d rather|i prefer|i don'?t want|we use|it'?s always|is always|are always|(?:everything|all \w+) goes? through|we don'?t|we never|we always|let'?s|please|do we (even |really )?need|why not|can'?t we|could we|can we|how about|what about|avoid|from now on|going forward|you can|you could|you might want to|we can|i think we should|which is (less|more|simpler|easier|better))\b`)
	frustrationRE      = textutil.Lazy(`(?i)(\bagain\b|\bi told you\b|\bi (already )?said\b|\balready (told|said|asked)\b|\bhow many times\b|\bfor the last time\b|\bseriously\b|\bffs\b|\bfgs\b|\bwtf\b|\bcome on\b|\bugh\b|\bannoying\b|!!|\?!|:\()`)
	severityRE         = textutil.Lazy(`(?i)\b(never|always|absolutely|critical|dangerous|data loss|lose data|security|insecure|vulnerab\w*|injection|production|prod|under no circumstances|corrupt\w*|leak\w*|outage|irreversible|destroy\w*|must)\b`)
	markerRE           = textutil.Lazy(`(?i)\b(write this down|note (that|to self)|TIL|today i learned|turns out|it turns out|interesting|good to know|remember (that|this)|keep in mind|worth remembering|important:|this is important|good to keep|make a note)\b`)
	reasonCueRE        = textutil.Lazy(`(?i)\b(because|since|otherwise|so that|it breaks|that breaks|will break|breaks|causes|caused|takes \d+|leads to|results in|which means|security|injection|data loss)\b`)
	becauseRE          = textutil.Lazy(`(?i)[,;]?\s*\b(because|since|as otherwise|otherwise)\b\s+(.+)$`)
	consequenceStartRE = textutil.Lazy(`(?i)^(that'?s|this is|it'?s|it is|that is|that would|this would|it would|that will|this will|it will|it breaks|that breaks|this breaks|the (full|whole) \w+)\b`)
)

// namesCode reports whether text names code or a concrete thing: code
// characters (codeish) or a name (namedRE: "Lhm.change_table",
// "find_each", a path, a flag).
func namesCode(text string) bool { return codeish(text) || namedRE.MatchString(text) }

// firstWords returns the first n words of s, lower-cased.
func firstWords(s string, n int) []string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) > n {
		f = f[:n]
	}
	return f
}

// opensWithRequest reports whether sentence s opens by asking for work: an
// English imperative (directiveStartRE) or another language's opening verb
// or request form (lexicon.CueRequest).
func opensWithRequest(s string) bool {
	return directiveStartRE.MatchString(s) || lexicon.CueRequest.AtStart(lower(s))
}

func isDirective(text string) bool {
	if lexicon.CueAlways.In(lower(text)) && namesCode(text) {
		// "Su orders si usa SEMPRE Lhm.change_table": always (or never)
		// with the code it is about is a rule, in the cue languages.
		return true
	}
	return asksInWords(text)
}

// asksInWords reports whether text asks for something in words that ask:
// a directive phrase, an imperative, a request form.
func asksInWords(text string) bool {
	if directiveAnyRE.MatchString(text) || imperativeNegRE.MatchString(text) {
		return true
	}
	for _, s := range sentences(text) {
		if opensWithRequest(s) || directiveStartRE.MatchString(strings.TrimSpace(leadRE.ReplaceAllString(s, ""))) || lexicon.RequestEnd(s) {
			return true
		}
	}
	return false
}
