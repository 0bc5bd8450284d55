package lexicon

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Multilingual cue phrases for the correction extractor. The structure of
// a session (a refused call, an interrupt, a failure right after a change)
// is the main evidence that the person corrected the agent; these phrases
// are the light evidence that goes with it, in the languages people write
// to agents in: English, German, Spanish, French, Portuguese, Italian,
// Russian, Chinese, Japanese and Korean. They are short on purpose: a cue
// list never decides alone.

// Cues is a list of lower-case phrases. A phrase in a script written
// without spaces (Chinese, Japanese) or one that inflects by suffix
// (Korean) matches anywhere; any other matches whole words only.
type Cues struct {
	lists   []string
	once    sync.Once
	phrases []cue // the lists', read on first use (cues)
}

type cue struct {
	p     string
	bound bool // match on word boundaries
}

// NewCues holds the phrases of each list, one phrase per line. They are
// read on first use: the package's lists are program-wide variables, and
// reading them all at start-up was most of this package's initialisation,
// which every kb process (a hook among them) pays whether it matches
// cues or not.
func NewCues(lists ...string) *Cues { return &Cues{lists: lists} }

// cues are c's phrases.
func (c *Cues) cues() []cue {
	c.once.Do(func() {
		for _, l := range c.lists {
			for _, line := range strings.Split(l, "\n") {
				p := strings.ToLower(strings.TrimSpace(line))
				if p == "" {
					continue
				}
				c.phrases = append(c.phrases, cue{p: p, bound: wordBound(p)})
				if q := strings.ReplaceAll(p, " ", ""); q != p && hasHangul(p) {
					// Korean is spaced loosely: "안 열려" is often typed
					// "안열려", "작동 안 해" "작동안해".
					c.phrases = append(c.phrases, cue{p: q, bound: wordBound(q)})
				}
			}
		}
	})
	return c.phrases
}

// Phrases are c's phrases, lower case (for a search by them).
func (c *Cues) Phrases() []string {
	var out []string
	for _, q := range c.cues() {
		out = append(out, q.p)
	}
	return out
}

// hasHangul reports whether s holds a Korean letter.
func hasHangul(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// IsCJK reports whether r is a Han, Hiragana or Katakana character: a
// script whose words are not separated by spaces.
func IsCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		r == 'ー' || r == '々'
}

// FullWidthEnd reports whether r ends a sentence with no space after it:
// the full-width terminators of Chinese and Japanese (。！？) and the
// ideographic full stop's half-width form.
func FullWidthEnd(r rune) bool {
	switch r {
	case '。', '！', '？', '｡':
		return true
	}
	return false
}

// Find returns the byte offset of the first cue in lower-cased text s, or -1.
func (c *Cues) Find(s string) int {
	i, _ := c.Span(s)
	return i
}

// Span returns where the first cue in lower-cased text s starts and where
// the longest cue starting there ends, or -1, -1.
func (c *Cues) Span(s string) (start, end int) {
	start, end = -1, -1
	for _, q := range c.cues() {
		if i := index(s, q.p, q.bound); i >= 0 && (start < 0 || i < start || i == start && i+len(q.p) > end) {
			start, end = i, i+len(q.p)
		}
	}
	return start, end
}

// IndexWord returns where w first stands in s as a whole word, or -1; a
// word in a script written without spaces (Chinese, Japanese) or Korean
// counts anywhere, as a cue in those scripts does.
func IndexWord(s, w string) int { return index(s, w, wordBound(w)) }

// wordBound reports whether p matches on word boundaries only: not a
// phrase in a script written without spaces, nor Korean, which inflects
// by suffix.
func wordBound(p string) bool {
	r, _ := utf8.DecodeRuneInString(p)
	return !IsCJK(r) && !unicode.Is(unicode.Hangul, r) && !unicode.Is(unicode.Thai, r)
}

// index returns where p first stands in s, on word boundaries when bound.
func index(s, p string, bound bool) int {
	for from := 0; ; {
		i := strings.Index(s[from:], p)
		if i < 0 {
			return -1
		}
		i += from
		if !bound || boundaryBefore(s, i) && boundaryAfter(s, i+len(p)) {
			return i
		}
		from = i + 1
	}
}

// In reports whether lower-cased text s holds a cue.
func (c *Cues) In(s string) bool { return c.Find(s) >= 0 }

// AtStart reports whether lower-cased text s starts with a cue, after
// leading punctuation and spaces.
func (c *Cues) AtStart(s string) bool {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
	for _, q := range c.cues() {
		if strings.HasPrefix(s, q.p) && (!q.bound || boundaryAfter(s, len(q.p))) {
			return true
		}
	}
	return false
}

func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) && r != '\''
}

func boundaryAfter(s string, i int) bool {
	if i >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	// A vowel sign (Devanagari's ि, ी) is part of its word: मत is not
	// found in मति.
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) || IsCJK(r)
}

// The cue lists. Each is one phrase per line, grouped by language.
var (
	// CueStop: stop, cancel, undo, revert, wait (CueHalt and CueRevert).
	CueStop = NewCues(haltCues, revertCues)
	// CueRevert: take a change back: undo, revert, put it back, 撤销, 元に戻して.
	CueRevert = NewCues(revertCues)

	// CueNegation: refusal and prohibition.
	CueNegation = NewCues(`
no
nope
don't
do not
dont
never
not
wrong
incorrect
nein
nicht
kein
keine
niemals
nie
falsch
nunca
jamás
incorrecto
mal
non
ne
pas
jamais
faux
não
nao
mai
sbagliato
нет
не
никогда
неправильно
неверно
不要
别
不是
不对
不用
不需要
不能
不行
错了
いいえ
じゃなくて
ではなく
違う
ちがう
ないで
だめ
ダメ
아니
하지 마
하지마
말고
틀렸
안 돼
안돼
ne
nedělej
nikdy
špatně
není to
to není
नहीं
मत
ग़लत
गलत
nahi
nahin
değil
hayır
asla
yok
yanlış
kullanma
yapma
ekleme
silme
koyma
dokunma
çalıştırma
değiştirme
oluşturma
không
đừng
sai rồi
niet
geen
nooit
fout
nigdy
źle
tidak
jangan
bukan
salah
لا
ولا
ليس
ليست
لم
لن
أبدا
أبداً
ابدا
بدون
ممنوع
غلط
خطأ
nic
žádný
žádná
žádné
ห้าม
อย่า
ไม่ต้อง
ไม่ควร
ไม่ใช่
ไม่เอา
nej
ikke
ikkje
aldrig
aldri
inte
forkert
feil
fel
όχι
μην
ποτέ
δεν
λάθος
nem
soha
sose
rossz
ні
ніколи
неправильно
niciodată
greșit
älä
älkää
koskaan
väärin
nerob
nerobte
nikdy
zle
mai no
לא
אל
אף פעם
никога
недей
грешно
`)

	// CueInstead: the other way, the part of a correction an agent needs.
	CueInstead = NewCues(`
instead
rather
stattdessen
sondern
lieber
en vez de
en lugar de
plutôt
au lieu de
em vez de
ao invés de
invece
вместо
а не
而是
改成
改为
换成
代わりに
ではなく
じゃなくて
にして
대신
말고
místo toho
namísto
radši
raději
के बजाय
की जगह
बल्कि
yerine
thay vì
in plaats van
zamiast
daripada
alih-alih
بدلا من
بدلاً من
بدل
وليس
แทน
i stedet
i stället
istället
i staden
helyett
inkább
αντί
αντί για
замість
în loc de
sen sijaan
namiesto
en lloc de
במקום
`)

	// CueNegatedResult: a negated verb of a result, in the contracted forms
	// CueNegation does not list, and the "still" of a persisting problem.
	// Only in a statement right after the agent's work does it say the
	// work fell short ("the config isn't right still", "I didn't see the
	// new fields", "es sigue igual", "还是一样").
	CueNegatedResult = NewCues(`
isn't
isnt
aren't
wasn't
weren't
didn't
didnt
doesn't
doesnt
don't
can't
cant
cannot
won't
haven't
hasn't
still
immer noch
noch immer
noch da
noch vorhanden
noch sichtbar
sigue ahí
siguen ahí
sigue igual
siguen igual
sigue apareciendo
siguen apareciendo
siguen sin
还在
todavía
aún
toujours
ainda
ancora
всё ещё
все еще
до сих пор
还是
仍然
依然
没有
不了
まだ
ません
ていない
てない
されない
出ない
아직
않아
않는
furt
pořád
stále
zase
nefunguje
nejde
není tam
nic se nezměnilo
nezměnilo
`)

	// CueFailure: what the agent did does not work, or the person does not
	// like the result.
	CueFailure = NewCues(`
doesn't work
does not work
doesnt work
didn't work
did not work
not working
isn't working
still fails
still failing
still broken
still not
still doesn't
still getting
still see
still seem
broke
broken
nothing happened
nothing was
nothing happens
exits immediately
exit immediately
exited immediately
closes immediately
crashes immediately
keeps crashing
keeps failing
keeps breaking
still crashing
crashes when
crashes on
it crashes
it crashed
throws an error
throwing an error
throws error
getting an error
getting this error
gives an error
giving an error
errors out
fails with
hangs
freezes
is stuck
get stuck
gets stuck
got stuck
getting stuck
stuck at
stuck on
used to work
worked before
was working before
it was working
worked fine before
has nothing to do with
bleibt hängen
hängt fest
hat vorher funktioniert
ging vorher
se queda colgado
se queda atascado
antes funcionaba
no tiene nada que ver
reste bloqué
marchait avant
n'a rien à voir
fica travado
funcionava antes
não tem nada a ver
resta bloccato
funzionava prima
non c'entra niente
застревает
застряло
раньше работало
не имеет ничего общего
卡在
之前是好的
之前可以
以前可以
完全没关系
完全不一样
止まったまま
前は動いて
全然違う
전에는 됐
예전에는 됐
멈춰 있
전혀 상관없
완전히 다르
beendet sich sofort
beenden sich sofort
schließt sich sofort
stürzt ab
hängt sich auf
friert ein
se cierra
se cierran
se cuelga
se congela
se ferme
plante
trava
fecha sozinho
si chiude
si blocca
сразу закрывается
сразу закрываются
сразу выходит
зависает
виснет
вылетает
падает
直接退出
闪退
卡住
卡死
すぐ終了
落ちる
固まる
바로 종료
funktioniert nicht
geht nicht
klappt nicht
kaputt
immer noch nicht
noch immer nicht
no funciona
no sirve
no va
sigue sin
sigue fallando
sigue saliendo
sigue dando
todavía no
ne marche pas
ne fonctionne pas
marche pas
marche plus
fonctionne plus
n'y a plus
funktioniert nicht mehr
geht nicht mehr
ya no funciona
ya no aparece
больше не работает
не отображается
不显示
显示不出来
表示されない
안 나와
打不开
开不了
进不去
開かない
開けない
안 열
안 보여
안 떠
toujours pas
não funciona
non funziona
не работает
не работают
сломал
сломано
всё ещё не
все еще не
до сих пор не
不行
还是不
没用
不工作
没反应
動かない
動きません
うまくいかない
작동하지
작동 안
여전히 안
안 돼
안 돌아가
실행이 안
we lost
lost the
is missing
are missing
still missing
missing some
you missed
you left out
fehlt noch
fehlen noch
falta algo
faltan
il manque
manque encore
está faltando
estão faltando
manca ancora
mancano
не хватает
упустил
缺少
遗漏
漏了
抜けている
足りない
누락
빠졌
disappeared
is gone
are gone
still the same
same error
same problem
nothing changed
verschwunden
weg ist
desapareció
se perdió
mismo error
même erreur
пропал
пропала
исчез
та же ошибка
消失
不见了
没了
同样的错误
消えた
なくなった
同じエラー
사라졌
같은 오류
not helpful
didn't find
没找到
找不到
見つからない
못 찾
no encontró
n'a pas trouvé
nicht gefunden
не нашёл
не нашел
did not find
not a fan
nefunguje
nejde to
pořád nic
furt nic
stále nic
rozbité
rozbilo
spadlo
virker ikke
virker stadig ikke
fungerer ikke
fungerar inte
funkar inte
fungerer ikkje
nem működik
még mindig nem működik
hibát dob
δεν δουλεύει
δεν λειτουργεί
πάλι σφάλμα
не працює
досі не працює
ei toimi
ei vieläkään toimi
nu merge
nu funcționează
nefunguje
stále nefunguje
no funciona
encara no funciona
לא עובד
ไม่ทำงาน
ใช้ไม่ได้
ยังใช้ไม่ได้
ล้มเหลว
พังอีกแล้ว
لا يعمل
ما يشتغل
مش شغال
لم ينجح
काम नहीं कर रहा
काम नहीं करता
नहीं चल रहा
अभी भी नहीं चल रहा
kaam nahi kar raha
çalışmıyor
hâlâ çalışmıyor
hala çalışmıyor
hata veriyor
bozuldu
nie działa
dalej nie działa
nadal nie działa
wciąż nie działa
wywala się
werkt niet
werkt nog steeds niet
werkt nog altijd niet
geeft een fout
không hoạt động
không chạy
vẫn không chạy
vẫn lỗi
vẫn bị lỗi
bị lỗi
không được
tidak berfungsi
tidak jalan
nggak jalan
gak jalan
masih error
masih gagal
`)

	// CueMissingProgram: a command failed because the program it runs is
	// not installed or not on the PATH, in the words of shells, Windows,
	// PowerShell, Go, Node and Python: a fact of the environment, about
	// running that program and nothing else.
	CueMissingProgram = NewCues(`
command not found
is not recognized as an internal or external command
is not recognized as the name of a cmdlet
executable file not found in $path
not found in path
spawn enoent
no module named
commande introuvable
befehl nicht gefunden
orden no encontrada
comando não encontrado
找不到命令
未找到命令
コマンドが見つかりません
명령을 찾을 수 없습니다
команда не найдена
`)

	// CueErrorWord: "error" and its kin. Weaker than CueFailure: "add
	// error handling" asks for work, so it counts only with pasted output.
	CueErrorWord = NewCues(`
error
errors
fails
failed
failing
crash
crashes
crashed
fehler
fehlgeschlagen
errores
falla
fallo
erreur
échoue
erro
errore
ошибка
ошибки
ошибку
报错
错误
出错
失败
エラー
失敗
오류
에러
실패
`)

	// CueUnwanted: the person does not want, or did not ask for, what
	// follows ("i don't want a new view", "no quiero otra tabla",
	// "我不要弹窗"): said of what the agent just made, it refuses it.
	CueUnwanted = NewCues(`
i don't want
i dont want
i do not want
i didn't want
i didnt want
i didn't ask for
i didnt ask for
i did not ask for
i never asked for
we don't want
we dont want
no quiero
no quería
no pedí
não quero
não queria
não pedi
je ne veux pas
je veux pas
je n'ai pas demandé
ich will kein
ich will nicht
ich möchte kein
ich wollte kein
ich habe nicht nach
non voglio
non volevo
non ho chiesto
я не хочу
не хочу
я не просил
我不要
我不想要
我没让你
我没要
いらない
要らない
頼んでない
원하지 않
필요 없
δεν θέλω
δεν ζήτησα
δεν θέλουμε
ไม่ต้องการ
ฉันไม่ได้ขอ
ผมไม่ได้ขอ
ไม่อยากได้
אני לא רוצה
לא ביקשתי
אנחנו לא רוצים
لا أريد
لم أطلب
ما طلبت
مش عايز
मुझे नहीं चाहिए
मैंने नहीं मांगा
mujhe nahi chahiye
`)

	// CueRequest: a message that opens by asking for work, in the
	// imperative or a polite request ("faça uma análise ...", "vérifie
	// que ...", "проверь, что ...", "帮我看看"): what follows is a task,
	// not a report of how the last one turned out, even with a "not" in
	// it ("... e veja se não quebrou nada"). English imperatives are
	// read by the observations' directive pattern; this list is the
	// other languages' common opening verbs and request forms (Japanese
	// and Korean ask at the end of the sentence and are not listed). The
	// second list is the verbs of a rule rather than a task: what to use,
	// take, keep or leave, what to avoid, what never or always to do
	// ("usa date-fns", "nimm workflow.Now(ctx)", "n'utilise pas moment").
	CueRequest = NewCues(`
por favor
faça
faz
veja
verifique
implemente
crie
adicione
remova
altere
corrija
analise
execute
rode
mostre
coloque
mude
haz
crea
añade
agrega
quita
elimina
cambia
corrige
revisa
verifica
implementa
ejecuta
analiza
muestra
pon
mueve
fais
faites
crée
créez
ajoute
ajoutez
supprime
supprimez
enlève
modifie
modifiez
corrigez
vérifie
vérifiez
utilise
utilisez
mets
mettez
implémente
implémentez
lance
lancez
exécute
analyse
analysez
montre
regarde
s'il te plaît
s'il vous plaît
bitte
mach
erstelle
füge
entferne
lösche
ändere
korrigiere
prüfe
überprüfe
verwende
nutze
setze
implementiere
starte
führe
analysiere
zeig
schau
aggiungi
rimuovi
correggi
controlla
esegui
per favore
пожалуйста
сделай
создай
добавь
удали
убери
измени
исправь
проверь
используй
реализуй
запусти
покажи
посмотри
请
帮我
麻烦
给我
prosím
udělej
přidej
odstraň
smaž
změň
oprav
zkontroluj
použij
vytvoř
ukaž
spusť
implementuj
`, `
usa
usá
utiliza
utilizá
no uses
no utilices
no hagas
no pongas
no toques
deja
dejá
mantén
mantené
evita
evitá
nunca
siempre
reemplaza
use
utilize
não use
não usa
não faça
não coloque
não mexa
deixa
deixe
mantenha
mantém
evite
tira
tire
troca
troque
sempre
prends
prenez
garde
gardez
laisse
laissez
évite
évitez
remplace
remplacez
déplace
n'utilise pas
n'utilisez pas
ne fais pas
ne faites pas
ne mets pas
ne touche pas
toujours
jamais
nimm
nehmt
benutze
benutz
lass
lasse
halte
behalte
vermeide
ersetze
verschiebe
nie
niemals
immer
utilizza
prendi
tieni
lascia
sostituisci
sposta
metti
non usare
non fare
non mettere
non toccare
mai
возьми
оставь
избегай
замени
перенеси
положи
верни
не используй
не делай
не трогай
никогда
всегда
nech
vezmi
nahraď
přesuň
vrať
nepoužívej
nedělej
nikdy
vždy
brug
bruk
använd
lav
gjør
gör
tilføj
legg til
lägg till
fjern
ta bort
kør
kjør
kör
használd
használj
csináld
add hozzá
töröld
futtasd
χρησιμοποίησε
πρόσθεσε
αφαίρεσε
τρέξε
використовуй
додай
видали
käytä
lisää
poista
aja
folosește
adaugă
șterge
rulează
použi
pridaj
odstráň
spusti
fes servir
utilitza
afegeix
executa
`)

	// CueDegree: more or less of what was just done ("a bit more", "too
	// close", "trochu víc", "un peu plus", "再大一点"): said right after a
	// change about it, the change missed by a degree.
	CueDegree = NewCues(`
a bit more
a little more
a bit less
a little less
bit more
bit less
slightly
too close
too far
too big
too small
too much
too little
too wide
too narrow
too high
too low
too long
too short
etwas mehr
etwas weniger
ein bisschen
ein wenig
zu nah
zu groß
zu klein
zu viel
zu wenig
un peu plus
un peu moins
trop
un poco más
un poco menos
demasiado
um pouco mais
um pouco menos
demais
un po' più
un po' meno
troppo
чуть
побольше
поменьше
немного больше
немного меньше
слишком
trochu
ještě víc
víc
míň
moc blízko
moc velk
moc mal
一点
太大
太小
太近
太远
太多
もう少し
もうちょっと
もうちょい
すぎ
조금 더
좀 더
너무
hơn một chút
một chút nữa
un poquito
um pouquinho
`)

	// CueContinue: carry on with the task ("keep going", "继续"): a nudge,
	// not a correction.
	CueContinue = NewCues(`
continue
keep going
keep ahead
keep head
go ahead
go on
proceed
carry on
resume
weiter
mach weiter
fahre fort
sigue con
continúa
continua
adelante
prosigue
vas-y
continue
продолжай
продолжи
давай дальше
继续
接着
开始执行
执行吧
続けて
続行
계속
진행해
pokračuj
pokračujte
jeď dál
και συνέχισε
συνέχισε
แล้วทำต่อ
ทำต่อ
ดำเนินการต่อ
ותמשיך
תמשיך
وأكمل
أكمل
وتابع
كمل
आगे बढ़ो
जारी रखो
`)

	// CueAck: thanks and approval.
	CueAck = NewCues(`
thanks
thank you
thx
perfect
great
awesome
excellent
lgtm
looks good
looks fine
that's fine
that is fine
that one's fine
that one is fine
this is fine
that's ok
that's okay
fine by me
all good
works now
it works
that works
danke
perfekt
funktioniert jetzt
gracias
perfecto
excelente
funciona
merci
parfait
c'est bon
está bien
va bene
tudo bem
obrigado
perfeito
grazie
perfetto
спасибо
отлично
работает
谢谢
好的
完美
可以了
没问题
不错
没有问题
ありがとう
完璧
動いた
감사
고마워
완벽
좋아
díky
děkuji
děkuju
super
perfektní
skvělé
výborně
धन्यवाद
शुक्रिया
बढ़िया
teşekkürler
harika
cảm ơn
tuyệt
bedankt
dziękuję
świetnie
terima kasih
mantap
شكرا
شكراً
ممتاز
تمام
رائع
tak
takk
tack
köszi
köszönöm
ευχαριστώ
дякую
kiitos
mulțumesc
ďakujem
gràcies
תודה
`)

	// CueContrast: "but", the turn from approval to a complaint.
	CueContrast = NewCues(`
but
however
although
aber
jedoch
pero
sin embargo
mais
cependant
mas
porém
ma
però
но
однако
但是
可是
不过
でも
しかし
けど
하지만
그런데
근데
लेकिन
मगर
ama
fakat
nhưng
maar
ale
tapi
namun
لكن
ولكن
men
mutta
αλλά
але
dar
però
אבל
`)

	// CueReferent: words that point at something said or done before.
	CueReferent = NewCues(`
that
it
this
there
those
these
das
dies
dort
eso
esto
ahí
allí
ça
cela
là
ce
cette
ces
isso
isto
это
этот
там
то
这个
那个
这里
那里
它
それ
これ
そこ
あれ
この
その
그것
그거
이거
이것
거기
`)
)

// Complaints about a result with no failure word: the person doubts what
// the agent claimed, reproaches what it did or assumed, names its mistake,
// or reports what happened with the agent's own suggestion. Only in the
// person's message right after the agent's work or answer do they say the
// work fell short (observations/correction.go, complaintAfterWork).
var (
	// CueDoubt: a challenge of the agent's claim, at the start of a
	// message ("are you sure the HTML is the issue?").
	CueDoubt = NewCues(`
are you sure
you sure
did you actually
did you even
did you really
have you actually
have you even
have you really
bist du sicher
sind sie sicher
bist du dir sicher
hast du überhaupt
hast du wirklich
estás seguro
estás segura
está seguro
seguro que
¿estás seguro
¿seguro que
tu es sûr
tu es sure
es-tu sûr
êtes-vous sûr
vous êtes sûr
t'es sûr
tem certeza
você tem certeza
sei sicuro
sei sicura
ne sei sicuro
ты уверен
ты уверена
вы уверены
ты точно
ты правда
ты вообще
你确定
确定吗
你真的
真的吗
本当に
確かですか
확실해
확실합니까
정말요
`)

	// CueRedo: asking for the just-finished work again, done over
	// ("redo the summary", "refais le résumé", "重新生成"): what was
	// delivered is not what the person wanted.
	CueRedo = NewCues(`
redo
do it again
do that again
start over
rewrite it
change everything
change it all
redo everything
cambia todo
change tout
ändere alles
поменяй всё
поменяй все
全部改
全部重新
全部変えて
전부 바꿔
다 바꿔
mach das nochmal
mach es nochmal
nochmal neu
noch einmal neu
rehaz
vuelve a hacer
hazlo de nuevo
refais
refaire
recommence
переделай
сделай заново
重新生成
重新写
重新做
重做
再做一次
やり直
作り直
다시 해
다시 만들어
ξανακάν' το
κάν' το ξανά
κάντο ξανά
από την αρχή
ทำใหม่
ทำอีกครั้ง
เขียนใหม่
תעשה את זה שוב
תעשה מחדש
תכתוב מחדש
أعد كتابة
من جديد
أعد عمل
फिर से करो
दोबारा करो
दुबारा करो
फिर से लिखो
`)

	// CueNextTime: a rule for the work to come, said after the work just
	// done ("next time, ...", "la prochaine fois", "以后", "次から").
	CueNextTime = NewCues(nextTimeCues)

	// CueStanding: words that make what a sentence asks hold for all the
	// work to come, not only the task at hand: always and never, from now
	// on, every time, remember ("always use pnpm", "запомни правило",
	// "以后都用中文", "毎回テストを走らせて").
	CueStanding = NewCues(alwaysCues, everyTimeCues, nextTimeCues, rememberCues)

	// CueRemember: the person asks the agent to keep something in mind
	// ("remember", "запомни", "记住", "覚えて").
	CueRemember = NewCues(rememberCues)

	// CueAlways: always or never.
	CueAlways = NewCues(alwaysCues)

	// CueRemove: taking something out ("remove the (web) part", "去掉").
	CueRemove = NewCues(`
remove
drop
delete
take out
get rid of
entferne
lösche
nimm raus
quita
elimina
enlève
supprime
retire
убери
удали
去除
去掉
删掉
删除
移除
消して
削除して
外して
빼
삭제해
αφαίρεσε
σβήσε
διάγραψε
βγάλε
เอาออก
ลบออก
תמחק
מחק את
תסיר
הסר את
احذف
امسح
أزل
شيل
हटाओ
हटा दो
निकालो
hata do
`)

	// CueWhyYou: asking the agent why it did what it did, at the start of
	// a message ("why did you delete the file?", "зачем ты удалил файл?",
	// "为什么要删掉这个文件？"): it did what the person did not want.
	CueWhyYou = NewCues(`
why did you
why would you
why are you
warum hast du
wieso hast du
weshalb hast du
warum machst du
¿por qué hiciste
por qué hiciste
¿por qué has
por qué has
pourquoi as-tu
pourquoi tu as
pourquoi avez-vous
por que você
perché hai
зачем ты
почему ты
зачем вы
почему вы
为什么你
你为什么
为什么要
你怎么又
なんで
どうして
왜
hvorfor har du
hvorfor gjorde du
varför har du
varför gjorde du
γιατί έκανες
γιατί το έκανες
чому ти
навіщо ти
miksi teit
miksi sinä
de ce ai
prečo si
per què has
למה עשית
защо си
ทำไมคุณถึง
ทำไมถึงไป
ทำไมไป
لماذا قمت
لماذا فعلت
ليش سويت
ليه عملت
तुमने क्यों
आपने क्यों
क्यों किया
`)

	// CueReproach: what the agent did or assumed was wrong, said to it
	// ("you should know this", "you forgot the tests", "du hast vergessen").
	CueReproach = NewCues(`
you should know
you should have
you should've
you shouldn't have
you were supposed to
you forgot
you missed
you ignored
you broke
you didn't
you did not
you keep
you never
you always
i said
i told you
i asked for
i asked you
i already told you
i've told you
i already said
as i asked
ich habe gesagt
ich hab gesagt
ich habe dir gesagt
ich hab dir gesagt
ich habe dich gebeten
ich hatte dich gebeten
ich sagte
ich habe doch
hab ich gesagt
schon wieder
te dije
dije que
te pedí
te lo dije
te había dicho
otra vez
je t'ai dit
j'ai dit
je t'avais dit
je t'ai demandé
je vous ai demandé
encore une fois
eu disse
eu te disse
te pedi
ti ho detto
ti avevo detto
ti ho chiesto
я же просил
я просил
я тебя просил
я же тебя просил
я вас просил
я же вас просил
я тебе говорил
я же тебе говорил
я тебе сказал
я вам говорил
я же говорил
я говорил
я сказал
я же сказал
опять
снова
我说的是
我说了
我说过
我之前说
我已经说过
我让你
我跟你说过
我告诉过你
我不是说
又
言ったでしょ
って言った
と言った
と言いました
とお願いした
って頼んだ
言ったのに
また
말했잖아
라고 했
라고 말했
라고 부탁했
또
du solltest wissen
du hättest
du hast vergessen
sie haben vergessen
du hast nicht
du ignorierst
deberías saber
deberías haber
debiste
olvidaste
te olvidaste
no hiciste
tu aurais dû
vous auriez dû
tu as oublié
vous avez oublié
tu n'as pas
você deveria saber
você deveria ter
você esqueceu
esqueceste
avresti dovuto
hai dimenticato
non hai
ты должен знать
ты должен был
вы должны были
ты забыл
вы забыли
ты опять
你应该知道
你应该先
你忘了
你没有
你又
知ってるはず
忘れてる
忘れています
してないでしょ
잊었
안 했
έπρεπε να
ξέχασες
σου είπα
คุณลืม
ลืมอีกแล้ว
บอกแล้วว่า
שכחת
אמרתי לך
היית צריך
نسيت
قلت لك
كان يجب أن
तुम भूल गए
आप भूल गए
मैंने कहा था
`)

	// CueGuess: the person guessing at what is going on ("I think the
	// library sets it", "maybe the cache", "我觉得", "たぶん"): a diagnosis
	// of the task at hand, whatever negation it holds ("there's no
	// data-groupid"), not a rule.
	CueGuess = NewCues(`
i think
i guess
i believe
i suspect
i'm pretty sure
im pretty sure
maybe
perhaps
probably
it seems
seems like
looks like
je pense
je crois
peut-être
ich glaube
ich denke
vielleicht
creo que
quizás
quizá
tal vez
acho que
talvez
penso che
forse
我觉得
我认为
我猜
可能
好像
たぶん
多分
かもしれない
아마
것 같아
`)

	// CueAsk: interrogatives of the languages that ask without a question
	// mark as often as with one (Chinese, Japanese, Korean; Traditional
	// Chinese reads through FoldHant): a sentence holding one asks.
	CueAsk = NewCues(`
怎么
为什么
如何
是不是
对吧
能不能
有没有
どうして
なぜ
어떻게
왜
`)

	// CueMistake: the person names the agent's mistake ("we need to
	// address an oversight"), or that it took the request another way
	// than meant ("that's not what I meant", "重新理解一下我的意思", "what
	// I meant is", "내 말은": the request said again, as it was meant).
	CueMistake = NewCues(`
oversight
mistake
regression
a typo
not what i meant
not what i asked
what i mean is
what i meant
i meant
내 말은
제 말은
내 말뜻은
言いたいのは
言ってるのは
ce que je veux dire
ce que je voulais dire
je voulais dire
lo que quiero decir
lo que quise decir
quise decir
o que eu quero dizer
o que eu quis dizer
quis dizer
was ich meine
ich meinte
volevo dire
intendevo dire
chodziło mi o
miałem na myśli
miałam na myśli
you misunderstood
misunderstood me
falsch verstanden
missverstanden
nicht gemeint
no me entendiste
me has entendido mal
no es lo que quise decir
mal compris
pas ce que je voulais dire
entendeu errado
não foi isso que eu quis dizer
hai frainteso
non intendevo
неправильно понял
не так понял
я имел в виду
理解错
误解了
没理解
不是这个意思
我的意思是
重新理解
誤解
そういう意味じゃ
意味が違
잘못 이해
그런 뜻이 아니
versehen
ein fehler von dir
descuido
equivocación
erreur de ta part
oubli
engano
svista
недосмотр
ошибся
ошиблась
упущение
疏忽
失误
搞错
弄错
見落とし
間違え
실수
λάθος κατάλαβες
δεν εννοούσα αυτό
δεν είναι αυτό που ζήτησα
เข้าใจผิด
ไม่ใช่ที่ฉันหมายถึง
ไม่ใช่ที่ผมหมายถึง
ไม่ใช่สิ่งที่ขอ
לא הבנת
לא לזה התכוונתי
לא מה שביקשתי
فهمتني خطأ
فهمت غلط
ليس هذا ما قصدت
गलत समझा
मेरा मतलब यह नहीं था
यह नहीं कहा था
`)

	// CueRule: the person states what must or must not be done, in words
	// that bind whatever verb follows ("you should", "il faut", "нужно",
	// "希望", "不允许", "해야", "べき"), or asks for a rule to be kept
	// ("remember the rule", "запомни"). A failure report that holds one
	// says what to do; its words are the lesson.
	CueRule = NewCues(`
should
shouldn't
should not
must
must not
mustn't
need to
needs to
have to
has to
make sure
remember to
remember the rule
sollte
solltest
sollten
soll
sollst
muss
musst
müssen
darf nicht
darfst nicht
merk dir
merke dir
debe
debes
debería
deberías
hay que
tienes que
no debes
recuerda
il faut
il faudrait
tu dois
vous devez
on doit
il ne faut pas
retiens
n'oublie pas
deve
deveria
tem que
precisa
não deve
lembre
devi
bisogna
dovresti
non devi
ricorda
нужно
надо
должен
должна
должно
должны
следует
нельзя
не надо
не нужно
запомни
необходимо
gerek
gerekiyor
lazım
unutma
harus
perlu
jangan
ingat
cần phải
đừng
hãy
nhớ
musisz
trzeba
powinien
powinno
pamiętaj
moet
moeten
niet doen
चाहिए
मत
希望
应该
应当
必须
务必
一定要
还是要
不允许
不准
禁止
请勿
记住
べき
ないで
てほしい
て欲しい
必要がある
覚えて
해야
하지 마
하지마
해주세요
해 주세요
기억해
`)

	// CueYourWork: the agent's own suggestion or change, named as what the
	// person tried ("I'm using your suggested commands and ...").
	CueYourWork = NewCues(`
how you did
the way you did
what you did
how you wrote
the way you wrote
wie du das gemacht
wie du es gemacht
comme tu l'as fait
como lo hiciste
como você fez
как ты сделал
как ты это сделал
как ты сделала
как ты написал
что ты сделал
你这样做
你这么做
你写的
你做的
あなたがやった
あなたが書いた
네가 한
네가 만든
your suggested
your suggestion
your instructions
your commands
your command
your fix
your change
your changes
your solution
your code
your approach
your steps
the commands you
what you suggested
deine lösung
dein vorschlag
deine änderung
deine änderungen
deine befehle
deinen befehl
deine anleitung
deinen befehlen
deiner lösung
deinem vorschlag
deinen änderungen
deiner anleitung
ihre lösung
ihren befehlen
tu solución
tu sugerencia
tus cambios
tu código
tus comandos
tus instrucciones
ta solution
tes commandes
ton code
tes modifications
sua solução
seu código
seus comandos
la tua soluzione
il tuo codice
i tuoi comandi
твоё решение
твое решение
твой код
твои команды
твоя команда
ваше решение
ваши команды
твоими командами
твоей командой
твоим решением
твоему совету
твоим советом
вашими командами
вашим решением
你的方法
你给的
你改的
你的代码
你的命令
你说的
あなたの提案
提案されたコマンド
言われた通り
네가 준
말한 대로
`)
)

// CueNeedless: the person doubts that what the agent does is needed at all
// ("do we even need X", "I don't think we need to X", "brauchen wir
// überhaupt X", "没必要 X"): a decision to do without it, the agent's way
// being the other side. What follows the phrase is what is not needed.
var CueNeedless = NewCues(`
do we even need
do we really need
do we actually need
i don't think we need
i dont think we need
don't think we need
we don't need
we dont need
we do not need
there's no need to
there is no need to
no need to
no need for
brauchen wir überhaupt
brauchen wir wirklich
wir brauchen kein
wir brauchen keine
wir brauchen keinen
ist nicht nötig
realmente necesitamos
de verdad necesitamos
no necesitamos
no hace falta
on a vraiment besoin
a-t-on vraiment besoin
on n'a pas besoin
pas besoin de
precisamos mesmo
não precisamos
ci serve davvero
non ci serve
non serve
нам вообще нужен
нам вообще нужна
нам вообще нужно
нам правда нужен
нам правда нужно
зачем нам
не нужно
не нужен
не нужна
真的需要
不需要
没必要
没有必要
用不着
本当に必要
いらない
必要ない
필요 없
필요한가
`)

// CueConcede: the agent's reply opens by granting the person's point or
// apologising ("You're absolutely right", "Good catch", "Вы правы",
// "你说得对", "おっしゃる通り"). Said right after the person spoke about the
// work just done, it shows that the message corrected it, whatever its
// form: a question ("Why is the list in both prompts?"), a doubt, a
// remark. The agent writes in the person's language, so the list covers
// the languages of the other cues. Matched at the start of the reply only.
var CueConcede = NewCues(`
you're right
you are right
you're absolutely right
you are absolutely right
you're correct
you are correct
you're absolutely correct
good catch
great catch
nice catch
good point
fair point
valid point
my mistake
my bad
my apologies
i apologize
i apologise
apologies
sorry about that
sorry for the confusion
sorry, you're right
oops
i misunderstood
du hast recht
sie haben recht
da hast du recht
guter punkt
mein fehler
entschuldigung
tienes razón
tiene razón
tienes toda la razón
buena observación
mi error
disculpa
vous avez raison
tu as raison
bonne remarque
mon erreur
toutes mes excuses
você tem razão
você está certo
tem razão
bem observado
hai ragione
ha ragione
hai perfettamente ragione
вы правы
ты прав
ты права
вы абсолютно правы
хорошее замечание
моя ошибка
прошу прощения
извините
你说得对
您说得对
你说的对
您说的对
你是对的
抱歉
对不起
我的错
おっしゃる通り
おっしゃるとおり
ご指摘
申し訳
すみません
맞습니다
맞아요
말씀하신 대로
좋은 지적
죄송합니다
bạn nói đúng
xin lỗi
`)

// CueDoubtful: a question that opens by suggesting the work has a problem
// ("Isn't that solution a little slow?", "Wouldn't it be better to...",
// "Не лучше ли...", "是不是太慢了"). Only with the agent's yes after it
// (CueYes) does it count as a correction: the agent granted the problem.
var CueDoubtful = NewCues(`
isn't that
isn't this
isn't it
wouldn't it be
wouldn't that
shouldn't it
shouldn't we
shouldn't this
doesn't that
won't that
aren't we
ist das nicht
ist es nicht
wäre es nicht
sollten wir nicht
¿no es
no es
¿no sería
no sería
¿no deberíamos
n'est-ce pas
ce n'est pas un peu
ne serait-il pas
não é
não seria
não deveríamos
non è
non sarebbe
разве
не слишком ли
не лучше ли
не будет ли
是不是
难道
不是应该
会不会太
じゃないですか
ではないですか
のでは
아닌가요
않나요
`)

// CueCurrently: the person tells how something is now ("currently it
// reconnects once a second", "hiện tại là ...", "目前是 ..."), to set it
// against how they want it (CueWant).
var CueCurrently = NewCues(`
currently
right now
at the moment
as it is now
hiện tại
hiện giờ
bây giờ đang
目前
现在是
现在它
現在は
今は
현재
지금은
сейчас
на данный момент
actuellement
en ce moment
aktuell
derzeit
im moment
actualmente
ahora mismo
atualmente
attualmente
şu anda
obecnie
saat ini
sekarang
`)

// CueWant: the person says what they want ("I want it like redis", "tôi
// muốn", "我想要", "хочу").
var CueWant = NewCues(`
i want
i'd like
i would like
i need it to
tôi muốn
mình muốn
我想要
我想让
我希望
我要
にしたい
してほしい
원해
하고 싶
хочу
нужно чтобы
je veux
je voudrais
ich will
ich möchte
quiero
quisiera
eu quero
gostaria
vorrei
voglio
istiyorum
chcę
saya mau
saya ingin
`)

// CueYes: the agent's reply opens by agreeing ("Yes, querying the database
// on every request is slow"): after a doubtful question (CueDoubtful), it
// grants the problem.
var CueYes = NewCues(`
yes
yeah
indeed
true
that's true
ja
stimmt
sí
si
oui
en effet
sim
да
действительно
是的
确实
对
はい
確かに
네
맞아요
có
`)

// CueDislike: the person opens by disliking something ("I don't like
// the polling", "мне не нравится простой DOM", "我不喜欢这个方案"). Said
// to a proposal the agent just made, it refuses the proposal
// (observations/correction.go, rejectsProposal); said otherwise, it is a
// taste (the preference extractor reads it).
var CueDislike = NewCues(`
i don't like
i do not like
i dont like
i really don't like
i actually don't like
not a big fan of
j'aime pas
не люблю
我不太喜欢
好きではない
mir gefällt das nicht
mag ich nicht
ich mag es nicht
i don't really like
i dislike
i hate
i'm not a fan of
i am not a fan of
not a fan of
i don't want
i do not want
ich mag nicht
ich mag das nicht
mir gefällt nicht
das gefällt mir nicht
gefällt mir nicht
ich will nicht
no me gusta
no quiero
je n'aime pas
je ne veux pas
ça ne me plaît pas
não gosto
eu não gosto
não quero
non mi piace
non voglio
мне не нравится
не нравится
я не хочу
не хочу
我不喜欢
不喜欢
我不想要
我不要
気に入らない
好きじゃない
마음에 안 들
싫어
`)

// CueProposal: the agent proposes a way to go on ("I suggest keeping the
// DOM", "Предлагаю адаптировать задачи", "我建议"): what the person's next
// message accepts or refuses.
var CueProposal = NewCues(`
i suggest
i'd suggest
i would suggest
i propose
i recommend
i'd recommend
i would recommend
my suggestion
my recommendation
ich schlage vor
ich empfehle
mein vorschlag
sugiero
propongo
recomiendo
mi sugerencia
je propose
je suggère
je recommande
sugiro
proponho
recomendo
suggerisco
consiglio
предлагаю
рекомендую
советую
я бы предложил
我建议
建议
我推荐
推荐
提案します
提案です
おすすめします
제안합니다
추천합니다
`)

// CueNotYet: "not yet", the answer to an offer of more work ("Shall I
// polish the UI?" - "пока нет, улучши документацию"): no report that the
// work failed, whatever negation follows.
var CueNotYet = NewCues(`
not yet
not now
not for now
noch nicht
jetzt nicht
todavía no
aún no
ahora no
pas encore
pas maintenant
ainda não
agora não
non ancora
non ora
пока нет
пока не надо
пока не нужно
ещё нет
еще нет
не сейчас
还没
先不
暂时不
现在不
まだ
今はいい
아직
지금은
`)

// CueBecause: a reason that opens a message, said right after the person
// refused a call ("because LoginViewModel already exists", "weil die
// Datei schon existiert", "因为已经有了"): the message is why the call was
// wrong, not a new request.
var CueBecause = NewCues(`
because
since
cause
'cause
cos
weil
denn
porque
ya que
puesto que
parce que
puisque
pois
já que
perché
poiché
потому что
так как
ведь
因为
由于
なぜなら
だって
왜냐하면
`)

// CueConform: the work should match something else ("adjust plan.md so
// that it matches the chosen stack", "passend zu", "使其符合"): said of what
// the agent just produced, it deviated from a reference the person names.
var CueConform = NewCues(`
so that it matches
so it matches
so that they match
to match the
to match what
matches the
consistent with
in line with
as specified in
as described in
as defined in
aligned with
align it with
passend zu
damit es passt
übereinstimmt mit
para que coincida
que coincida con
de acuerdo con
conforme a
pour qu'il corresponde
pour que ça corresponde
conformément à
para que corresponda
de acordo com
in modo che corrisponda
coerente con
чтобы соответствовал
чтобы соответствовало
чтобы совпадал
в соответствии с
使其符合
使之符合
保持一致
与之一致
に合わせて
と一致するように
에 맞게
`)

// CueNo: a "no" that opens a message, said to what the agent just did or
// proposed ("No, that's not what I meant", "Nein, so nicht", "不对"). Not
// an answer when the agent asked something (correction.go checks that),
// and not a closer ("no thanks", "kein Problem").
var CueNo = NewCues(`
no
nope
nah
not like that
nein
nee
so nicht
nicht so
así no
non
pas comme ça
não
assim não
no così
нет
не так
не то
不是
不对
不是这样
不是的
不行
いいえ
違う
ちがう
そうじゃなくて
아니
아니요
아뇨
그게 아니라
nej
nei
ikke sådan
ikke slik
inte så
nem
nem így
όχι
όχι έτσι
ні
не так
ei noin
nie tak
así no
no així
לא
לא ככה
не така
ไม่ใช่
ไม่เอา
لا
لأ
ليس هكذا
مش كده
नहीं
नही
ऐसे नहीं
nahi
nahin
`)

// CueRevoke: the person takes back what they said before or what held
// until now ("forget the rubocop -a thing from before", "we dropped X",
// "I changed my mind", "ya no", "不再", "もう使わない"): a lesson that says
// it replaces the one it resembles, it does not repeat it.
var CueRevoke = NewCues(takeBackCues, `
not anymore
no longer
we dropped
we've dropped
we switched
we've switched
we moved to
we migrated to
we replaced
we stopped using
decided to drop
decided to stop using
gone from
nicht mehr
wir sind umgestiegen
ya no
cambiamos a
on est passé à
não mais
больше не
忘了
不再
改用
もう使わない
やっぱり
더 이상
už ne
już nie
`)

// CueTakeBack: the person takes back what they themselves said ("forget
// what I said about X", "I changed my mind", "vergiss", "olvida", "забудь",
// "我改主意了", "忘れて"), a narrower cue than CueRevoke, whose "no longer"
// also reports a result ("it no longer starts").
var CueTakeBack = NewCues(takeBackCues)

const takeBackCues = `
forget the
forget what i said
forget about the
ignore what i said
scratch what i said
changed my mind
on second thought
vergiss
meinung geändert
olvida
cambié de opinión
oublie
j'ai changé d'avis
esquece
mudei de ideia
забудь
передумал
我改主意了
之前说的不算
忘れて
잊어
zapomeň
zapomnij to co
zapomnij o
zmieniłem zdanie
`

// CueSecret: the person's words name a secret value ("no secrets in
// appsettings", "my password", "the API key", "connection strings",
// "Passwort", "senha", "密码", "パスワード", "비밀번호", "كلمة مرور"): a lesson
// about where a secret may go, which a write that holds no secret does not
// touch.
var CueSecret = NewCues(`
secret
secrets
password
passwords
passwd
passphrase
credential
credentials
api key
api keys
apikey
access key
access keys
private key
private keys
connection string
connection strings
api token
access token
auth token
bearer token
client secret
`, `
passwort
passwörter
kennwort
geheimnis
geheimnisse
zugangsdaten
contraseña
contraseñas
secreto
secretos
credenciales
clave secreta
senha
senhas
segredo
segredos
credenciais
mot de passe
mots de passe
identifiants
segreto
segreti
credenziali
пароль
пароли
секрет
секреты
ключ api
密码
密碼
密钥
秘钥
凭据
凭证
パスワード
秘密鍵
シークレット
認証情報
비밀번호
시크릿
비밀 키
`, `
كلمة مرور
كلمات مرور
كلمة السر
سرية
سري
mật khẩu
bí mật
şifre
şifreler
gizli anahtar
wachtwoord
wachtwoorden
geheim
geheimen
heslo
hesla
tajný klíč
hasło
hasła
sekret
kata sandi
rahasia
पासवर्ड
गुप्त
lösenord
hemlig
hemligheter
รหัสผ่าน
ความลับ
`)

// CueYourself: the person tells the agent to do itself what it asked the
// person to do ("do it yourself", "run it yourself", "hazlo tú", "fais les
// commandes toi", "mach es selbst", "сделай сам", "你自己来", "自分でやって",
// "직접 해"): the agent handed back work it can do.
var CueYourself = NewCues(`
do it yourself
run it yourself
run them yourself
run the commands yourself
you do it
you run it
you can run it
do it for me
hazlo tú
hazlo tu
hazlo vos
hazlo tú mismo
hazlo tu mismo
ejecútalo tú
ejecutalo tu
ejecútalos tú
hazlos tú
fais-le toi
fais le toi
fais-le toi-même
fais les commandes toi
lance-les toi
lance-le toi
exécute-les toi
mach es selbst
mach das selbst
mach du das
führ es selbst aus
führ das selbst aus
fallo tu
fallo tu stesso
eseguilo tu
faça você
faz tu
faça você mesmo
roda você
сделай сам
запусти сам
выполни сам
сам запусти
zrób to sam
uruchom sam
kendin yap
kendin çalıştır
你自己
你来执行
你来跑
你来运行
你直接执行
自分でやって
自分で実行
そっちで実行
직접 해
직접 실행
네가 해
네가 실행
`)

// haltCues stop the agent: stop, cancel, wait.
const haltCues = `
stop
cancel
hold on
hang on
wait
stopp
halt
abbrechen
warte
detente
cancela
cancelar
espera
para ya
arrête
arrete
annule
annuler
attends
aspetta
annulla
стоп
хватит
отмени
отменить
подожди
停
取消
等等
やめて
止めて
取り消
待って
멈춰
그만
취소
잠깐
zastav
přestaň
zruš
počkej
रुको
रुकिए
रद्द करो
vazgeç
dừng lại
hủy
zatrzymaj
berhenti
batalkan
توقف
قف
ألغ
ألغي
إلغاء
انتظر
หยุด
รอก่อน
เดี๋ยวก่อน
ยกเลิก
vent
vänta
avbryt
várj
állj
megállj
περίμενε
σταμάτα
ακύρωσε
почекай
зупинись
скасуй
odota
lopeta
așteaptă
oprește
počkaj
zastav sa
espera't
atura
חכה
עצור
чакай
спри
`

// revertCues take the agent's change back: undo, revert, put it back.
const revertCues = `
undo
revert
roll back
rollback
rückgängig
zurücksetzen
deshaz
deshacer
revierte
revertir
reviens
desfaz
reverte
откати
верни
撤销
撤回
回滚
还原
恢复原
元に戻
戻して
되돌려
원래대로
vrať to
vrať zpět
वापस करो
पहले जैसा करो
geri al
hoàn tác
terugdraaien
cofnij
تراجع
ارجع
put it back
go back to
change it back
restore the previous
back to the previous
back to your previous
previous version
mach das rückgängig
vuelve a
remets
revenir à
volta ao
torna a
вернуть как было
верни как было
改回
恢复到
回到之前
前に戻
예전으로
이전으로
αναίρεσε
επανάφερε
γύρνα το πίσω
βάλ' το όπως ήταν
βάλτο όπως ήταν
ย้อนกลับ
เปลี่ยนกลับ
คืนค่าเดิม
ยกเลิกการเปลี่ยนแปลง
תבטל את
בטל את
תחזיר את
תחזיר כמו שהיה
`

// CueDeclined: the agent declining, at the start of its reply, to do what
// the person asked ("Cannot comply", "No puedo", "我不能", "できません").
var CueDeclined = NewCues(`
cannot proceed
cannot comply
cannot do
cannot create
cannot run
cannot complete
i cannot do
i can't do
i cannot proceed
i can't proceed
i cannot comply
i can't comply
i cannot run
i can't run
i cannot create
i can't create
i cannot help with
i can't help with
i cannot perform
i can't perform
i'm not able to
i am not able to
i'm unable to
i am unable to
unable to proceed
unable to comply
i won't
i will not
i must decline
no puedo
no me es posible
je ne peux pas
impossible de
ich kann das nicht
ich kann dies nicht
ich kann nicht
não posso
non posso
я не могу
не могу
我不能
我无法
无法执行
それはできません
できません
할 수 없
불가능
`)

// CueOverride: the person insisting on what the agent declined ("do it
// anyway", "violate it", "skip the protocol", "hazlo", "fais-le quand
// même", "mach es trotzdem", "照做", "やって").
var CueOverride = NewCues(`
anyway
regardless
violate
ignore it
ignore the
ignore that
skip it
skip the
skip that
bypass
override
just do it
do it
hazlo
hágalo
hagalo
sáltate
saltate
ignóralo
ignoralo
quand même
quand meme
fais-le
fais le
trotzdem
mach es
mach's
fallo lo stesso
fai lo stesso
faça isso
faca isso
сделай
игнорируй
照做
就这么做
你来做
やって
してください
해줘
해 줘
`)

// CueAllowed: what the words before it name is acceptable ("unwrap_or
// and unwrap_or_default are fine", "están bien porque no hacen panic"),
// whatever negation the rest of the clause holds.
var CueAllowed = NewCues(`
is fine
are fine
is ok
are ok
is okay
are okay
is allowed
are allowed
is acceptable
are acceptable
is totally fine
are totally fine
está bien
están bien
esta bien
estan bien
está permitido
están permitidos
va bene
vanno bene
è ok
sono ok
è permesso
sono permessi
ist ok
sind ok
ist in ordnung
sind in ordnung
ist erlaubt
sind erlaubt
est ok
sont ok
est autorisé
sont autorisés
c'est bien
tá bom
está ok
estão ok
é permitido
são permitidos
is prima
zijn prima
mag wel
jest ok
są ok
jest w porządku
можно
допустимо
sorun yok
serbest
serbesttir
whatever you want
do what you want
lo que quieras
was du willst
ce que tu veux
quello che vuoi
что хочешь
随便
好きにして
마음대로
해도 돼
没问题
可以用
是可以的
大丈夫
使っていい
괜찮
써도 돼
`)

// CuePermit: the clause lets the agent do something ("values/strings.xml
// you can edit", "yang boleh diedit cuma X", "X darfst du ändern"): what
// it names is allowed, not warned about. A negation in the clause undoes
// it ("you can't", "tidak boleh"), which the caller checks.
var CuePermit = NewCues(`
you can edit
you can change
you may edit
you may change
can be edited
may be edited
can be changed
may be changed
free to edit
free to change
feel free
is the one to edit
is the one you edit
boleh
darfst du
darf man
dürfen
kannst du ändern
puedes editar
puedes cambiar
se puede editar
podes editar
pode editar
pode mudar
puoi modificare
si può modificare
tu peux modifier
vous pouvez modifier
можно править
можно менять
можно редактировать
可以改
可以修改
可以编辑
編集していい
変更していい
触っていい
いじっていい
수정해도
고쳐도
편집해도
düzenleyebilirsin
değiştirebilirsin
`)

// CueAdopt: the clause says the project uses something now ("we're on
// Pint now", "od zeszłego tygodnia jesteśmy na Pint", "wir sind auf
// Vitest umgestiegen"): what an earlier lesson prohibited by that name no
// longer holds. The caller checks that the thing is a name and that the
// earlier lesson negated it.
var CueAdopt = NewCues(`
we're on
we are on
we're using
we are using
now we use
we now use
we use it now
switched to
moved to
migrated to
we went with
jesteśmy na
przeszliśmy na
używamy teraz
teraz używamy
wir sind auf
wir nutzen jetzt
jetzt nutzen wir
wir verwenden jetzt
umgestiegen auf
ahora usamos
usamos ahora
nos pasamos a
cambiamos a
agora usamos
mudamos para
migramos para
on est sur
on utilise maintenant
maintenant on utilise
on est passé à
ora usiamo
adesso usiamo
siamo passati a
теперь используем
мы перешли на
перешли на
geçtik
kullanıyoruz
现在用
现在改用
已经换成
换成了
に移行した
に切り替えた
今は
로 바꿨
으로 바꿨
이제
`)

// nextTimeCues are CueNextTime's phrases.
const nextTimeCues = `
next time
from now on
in the future
going forward
nächstes mal
in zukunft
ab jetzt
la próxima vez
de ahora en adelante
en adelante
la prochaine fois
à l'avenir
désormais
dorénavant
в следующий раз
впредь
отныне
下次
以后
今后
次から
次回から
今後
다음부터
앞으로
την επόμενη φορά
από εδώ και πέρα
στο εξής
ครั้งหน้า
คราวหน้า
ต่อไปนี้
จากนี้ไป
בפעם הבאה
מעכשיו
מהיום והלאה
المرة القادمة
المرة الجاية
من الآن فصاعدا
अगली बार
आगे से
अब से
`

// alwaysCues are always and never.
const alwaysCues = `
always
never
immer
niemals
siempre
nunca
toujours
jamais
sempre
mai
всегда
никогда
vždy
nikdy
zawsze
nigdy
总是
一律
永远不要
必ず
絶対に
항상
절대
`

// everyTimeCues hold for every time to come, less tersely than always
// ("every time", "jedes Mal", "每次", "毎回").
const everyTimeCues = `
every time
each time
whenever
at all times
nie wieder
jedes mal
jamás
cada vez
chaque fois
à chaque fois
toda vez
ogni volta
mai più
каждый раз
za każdym razem
altijd
nooit
her zaman
asla
daima
selalu
jangan pernah
luôn luôn
không bao giờ
始终
永远
每次
从不
常に
いつも
毎回
언제나
매번
ทุกครั้ง
ตลอดไป
`

// rememberCues ask the agent to keep a rule: "remember", "запомни".
const rememberCues = `
remember
keep in mind
don't forget
do not forget
merk dir
merke dir
vergiss nicht
recuerda
ten en cuenta
no olvides
retiens
souviens-toi
n'oublie pas
lembre
lembre-se
não esqueça
ricorda
non dimenticare
запомни
запомните
не забывай
помни
记住
请记住
别忘了
不要忘记
覚えて
忘れないで
기억해
잊지 마
ingat
unutma
pamiętaj
nhớ
`
