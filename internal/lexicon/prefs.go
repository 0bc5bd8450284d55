package lexicon

// Multilingual cue lists for preferences, decisions and changes of mind.
// Each list is phrases, lower-case, one language after another (en, de,
// es, fr, pt, ru, zh, ja, ko). Phrases of alphabetic languages match on
// word boundaries; phrases of CJK languages match anywhere (they are
// written without spaces). Callers build their matchers with
// observations' cue compiler, so a list here is all a new language needs.

// PreferenceCues are first-person statements of a lasting taste or a
// standing rule: "I prefer", "from now on", "ich bevorzuge", "我更喜欢".
var PreferenceCues = []string{
	// en
	"i prefer", "i really prefer", "i'd prefer", "i would prefer", "i'd rather", "i would rather", "i'd much rather",
	"we prefer", "we always", "we never", "we don't use", "we do not use", "our convention is", "our style is",
	"our standard is", "our rule is", "please always", "please never", "from now on", "going forward",
	"in the future", "in future", "as a rule", "make sure to always", "make sure you always", "by convention",
	"i like it when", "i hate it when", "i hate when", "i don't like it when", "i do not like it when", "i dislike",
	"i like", "i really like", "i very much like", "i love", "i hate", "i don't like", "i do not like",
	"i actually like", "i actually don't like", "i don't really like", "i never want", "i always want",
	"i'm not a fan of", "i am not a fan of", "not a big fan of", "i'm a big fan of", "i'm a fan of",
	// how the person's own setup is never to be ("I don't want my dev env to
	// be a hot pot of dependencies")
	"i don't want my", "i do not want my", "i dont want my", "i don't want our", "i do not want our", "i never want my",
	// de
	"ich bevorzuge", "ich mag", "ich mag es nicht", "ich mag keine", "mir ist lieber", "mir gefällt", "mir gefällt nicht",
	"ich hasse", "ich will immer", "ich will nie", "bitte immer", "bitte nie", "bitte niemals", "in zukunft",
	"ab jetzt", "ab sofort", "künftig", "grundsätzlich", "wir verwenden immer", "wir benutzen nie",
	"ich bin kein fan von", "kein großer fan von", "ich will nicht, dass mein", "ich will nicht dass mein",
	// es
	"prefiero", "yo prefiero", "me gusta", "no me gusta", "me gustan", "no me gustan", "odio", "siempre quiero",
	"nunca quiero", "no quiero que mi", "no quiero que nuestro", "no soy fan de", "no soy muy fan de", "de ahora en adelante", "a partir de ahora", "en el futuro", "por favor siempre", "por favor nunca",
	// fr
	"je préfère", "j'aime", "je n'aime pas", "je déteste", "je ne veux pas que mon", "je ne veux pas que ma", "à l'avenir", "désormais", "dorénavant",
	// pt
	"eu prefiro", "eu gosto", "não gosto", "daqui para frente", "a partir de agora",
	// ru
	"я предпочитаю", "предпочитаю", "мне нравится", "мне не нравится", "не люблю", "я люблю", "ненавижу",
	"впредь", "в будущем", "с этого момента", "всегда используй", "никогда не используй",
	// zh
	"我更喜欢", "我喜欢", "我不喜欢", "我不太喜欢", "我讨厌", "我偏好", "我倾向于", "我更倾向", "我习惯", "以后都", "以后请",
	"今后", "永远不要", "不要再", "别再", "不再需要", "我不希望我的", "我不想让我的",
	// ja
	"好きです", "好きではない", "好きじゃない", "嫌いです", "嫌い", "の方が好き", "のほうが好き", "好みです",
	"今後は", "これからは",
	// ko
	"선호", "좋아해", "좋아합니다", "싫어해", "싫어합니다", "앞으로는", "앞으로",
}

// WorkflowCues are how the person wants to be asked before work is done:
// "show me the plan first", "先给我方案,同意后再执行", "erst den Plan".
var WorkflowCues = []string{
	"plan first", "show me the plan first", "give me the plan first", "review your plan first", "review the plan first",
	"wait for my approval", "wait for my ok", "ask me before", "check with me before", "don't execute", "do not execute",
	"zeig mir erst den plan", "erst den plan", "warte auf meine freigabe", "frag mich vorher", "frag mich bevor",
	"primero el plan", "muéstrame el plan", "espera mi aprobación", "pregúntame antes",
	"d'abord le plan", "montre-moi le plan", "attends ma validation", "demande-moi avant",
	"сначала план", "покажи план", "жди моего подтверждения", "спроси меня перед",
	"先给我方案", "先给我计划", "先出方案", "同意后再执行", "确认后再执行", "先不要执行", "等我确认",
	"まず計画", "先に計画", "確認してから実行", "承認してから",
	"먼저 계획", "확인 후 실행", "승인 후",
}

// SimplicityCues are standing constraints on how work is done: "keep it
// simple", "halte es einfach", "保持简单".
var SimplicityCues = []string{
	"keep it simple", "keep things simple", "keep it minimal", "as simple as possible",
	"halte es einfach", "einfach halten", "so einfach wie möglich",
	"mantenlo simple", "mantenlo sencillo", "lo más simple posible", "lo más sencillo posible",
	"garde ça simple", "le plus simple possible",
	"проще", "как можно проще", "без лишних зависимостей",
	"保持简单", "尽量简单", "越简单越好", "不要引入新的依赖", "不要添加依赖",
	"シンプルに", "できるだけシンプル", "依存を増やさない",
	"간단하게", "단순하게", "최대한 간단",
}

// ChoiceCues introduce the option the person picks: "let's go with",
// "nehmen wir", "vamos con", "我们用", "にします".
var ChoiceCues = []string{
	// en
	"let's go with", "lets go with", "let's use", "lets use", "let's do", "lets do", "let's pick", "let's choose",
	"let's stick with", "let's try", "let's take", "let's keep", "we'll go with", "we'll use", "we will use",
	"we will go with", "i'll go with", "i'll take", "i choose", "i pick", "i'd go with", "i would go with",
	"go with", "we should use", "we should go with", "i want to use", "i'd like to use", "use",
	// de
	"nehmen wir", "wir nehmen", "lass uns", "lasst uns", "wir verwenden", "wir benutzen", "ich nehme",
	"ich wähle", "nimm", "verwende", "benutze",
	// es
	"vamos con", "usemos", "usaremos", "elijo", "me quedo con", "vamos a usar", "quiero usar", "usa", "utiliza",
	// fr
	"on part sur", "allons-y avec", "utilisons", "je choisis", "prenons",
	// pt
	"vamos com", "vamos usar", "escolho", "usa",
	// ru
	"давай", "давайте", "выбираю", "берём", "берем", "используем", "используй",
	// zh
	"我们用", "就用", "用", "使用", "选", "选择", "采用", "改用", "换成",
	// ja
	"にします", "にしましょう", "で行きましょう", "でいきましょう", "でお願いします", "を使います", "を使いましょう", "を使って",
	// ko
	"로 하자", "으로 하자", "로 할게", "으로 할게", "로 가자", "으로 가자", "를 사용", "을 사용", "로 해", "으로 해",
	// it, tr, pl, nl, vi, id
	"andiamo con", "usiamo", "scelgo", "prendiamo", "procediamo con",
	"seçiyorum", "kullanalım", "ile devam edelim", "ile gidelim",
	"wybieram", "użyjmy", "bierzemy", "idziemy z",
	"we gaan voor", "ik kies", "we gebruiken", "laten we",
	"tôi chọn", "mình chọn", "chọn", "dùng", "làm theo", "theo hướng", "đi theo hướng",
	"saya pilih", "aku pilih", "kita pakai", "pakai", "gunakan",
}

// EndorseCues are the person taking to one thing of what the agent just
// put before them: "I like the names ...", "I'm leaning towards X",
// "ich tendiere zu X", "我倾向于 X", "Xがいい". Said right after the agent
// offered or recommended it, such a sentence is a choice, not a taste.
var EndorseCues = []string{
	// en
	"i like", "i really like", "i love", "i prefer", "i'd prefer", "i would prefer", "i think i prefer",
	"i think i like", "i'm leaning towards", "i'm leaning toward", "i am leaning towards", "i am leaning toward",
	"i lean towards", "i lean toward", "i'm leaning to", "i'd lean towards", "i'd lean toward",
	// de
	"ich mag", "mir gefällt", "ich bevorzuge", "ich tendiere zu", "ich tendiere eher zu", "mir ist lieber",
	// es
	"me gusta", "me gustan", "prefiero", "me inclino por",
	// fr
	"j'aime", "je préfère", "je penche pour", "je penche plutôt pour",
	// pt
	"eu gosto", "gosto de", "prefiro", "eu prefiro",
	// ru
	"мне нравится", "мне нравятся", "предпочитаю", "я склоняюсь к", "склоняюсь к",
	// zh
	"我喜欢", "我更喜欢", "我倾向于", "我更倾向", "我比较喜欢",
	// ja
	"がいい", "が好き", "の方がいい", "のほうがいい", "がいいです",
	// ko
	"가 좋아", "이 좋아", "가 좋겠", "이 좋겠", "가 마음에", "이 마음에",
	// it, tr, pl, nl, vi, id
	"mi piace", "preferisco", "tercih ederim", "beğendim", "wolę", "podoba mi się", "ik heb liever", "ik geef de voorkeur aan",
	"tôi thích", "mình thích", "tôi muốn", "mình muốn", "saya suka", "saya lebih suka", "aku suka",
}

// ContrastCues name the option the person turns down next to the one they
// pick: "X instead of Y", "X rather than Y", "X statt Y", "X en lugar de Y".
var ContrastCues = []string{
	"instead of", "rather than", "in place of", "over",
	"statt", "anstatt", "anstelle von", "lieber als",
	"en lugar de", "en vez de", "mejor que",
	"au lieu de", "plutôt que",
	"em vez de", "ao invés de",
	"вместо",
	"而不是", "代替", "而非", "不用",
	"の代わりに", "ではなく", "じゃなくて",
	"대신", "말고",
}

// ContrastAfterCues are the ContrastCues that follow the option turned
// down, the one chosen coming after them: "XではなくY", "X 말고 Y" (the
// others come after the option chosen: "X instead of Y").
var ContrastAfterCues = []string{"の代わりに", "ではなく", "じゃなくて", "대신", "말고"}

// OrdinalCues are the words that pick an option by its place, in order
// from the first: index i of each inner list is option i+1.
var OrdinalCues = [][]string{
	{"first", "1st", "erste", "ersten", "primera", "primer", "primero", "première", "premier", "первый", "первая", "первое", "первую", "第一", "一つ目", "1つ目", "1番目", "첫 번째", "첫번째"},
	{"second", "2nd", "zweite", "zweiten", "segunda", "segundo", "deuxième", "второй", "вторая", "второе", "вторую", "第二", "二つ目", "2つ目", "2番目", "두 번째", "두번째"},
	{"third", "3rd", "dritte", "dritten", "tercera", "tercer", "tercero", "troisième", "третий", "третья", "третье", "третью", "第三", "三つ目", "3つ目", "3番目", "세 번째", "세번째"},
	{"fourth", "4th", "vierte", "vierten", "cuarta", "cuarto", "quatrième", "четвёртый", "четвертый", "четвертую", "第四", "四つ目", "4つ目", "4番目", "네 번째", "네번째"},
}

// OptionWords name an offered option: "option 2", "Variante B", "方案二".
var OptionWords = []string{
	"option", "approach", "choice", "alternative", "solution", "variant", "plan",
	"variante", "möglichkeit", "ansatz", "opción", "alternativa", "solución", "enfoque",
	"вариант", "подход", "方案", "选项", "选择", "オプション", "案", "방법", "옵션", "안",
	"opzione", "soluzione", "approccio", "seçenek", "yöntem", "yaklaşım", "opcja", "podejście", "rozwiązanie", "wariant",
	"optie", "aanpak", "oplossing", "phương án", "lựa chọn", "hướng", "cách", "opsi", "pilihan", "pendekatan",
}

// NegationCues turn what follows them against it: "don't", "nicht",
// "no", "不", "ない". Supersession reads a statement's stance on a topic
// from them.
var NegationCues = []string{
	"not", "don't", "do not", "doesn't", "never", "no", "avoid", "stop", "without", "hate", "dislike", "no longer",
	"nicht", "kein", "keine", "keinen", "nie", "niemals", "ohne", "vermeide",
	"no", "nunca", "sin", "evita", "odio", "ni",
	"ne", "pas", "jamais", "sans",
	"não", "nunca", "sem",
	"не", "нет", "никогда", "без",
	"不", "别", "没", "無", "无", "勿", "讨厌",
	"ない", "なく", "しない", "嫌い", "やめ",
	"않", "안 ", "말고", "싫", "없",
}

// ChangeOfMindCues say the person reverses what they said before:
// "I changed my mind", "actually", "doch lieber", "算了", "やっぱり".
var ChangeOfMindCues = []string{
	"changed my mind", "change of plans", "on second thought", "actually", "instead", "scratch that", "forget that",
	"i was wrong", "let's not", "no longer", "anymore", "any more",
	"doch lieber", "doch nicht", "anders überlegt", "umentschieden", "stattdessen", "eigentlich", "nicht mehr",
	"cambié de opinión", "pensándolo mejor", "mejor no", "en realidad", "ya no",
	"j'ai changé d'avis", "finalement", "plutôt",
	"mudei de ideia", "na verdade",
	"передумал", "передумала", "лучше", "на самом деле", "больше не",
	"算了", "改成", "还是用", "其实", "改主意", "不再",
	"やっぱり", "やはり", "気が変わ", "もう",
	"역시", "생각이 바뀌", "그냥", "더 이상",
}
